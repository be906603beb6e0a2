//! Page-locked host memory: what `cuMemAllocHost`/`cuMemHostAlloc` hand out (plain
//! page-aligned host allocations here) and what `cuMemHostRegister` registers. Both are
//! remembered, so that frees, unregistrations, flags and pointer attributes accept exactly
//! those ranges. Neither is mapped for the device yet.

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use crate::error::{CuError, CuResult};

#[derive(Clone, Copy)]
struct Range {
    size: usize,
    flags: u32,
    /// Allocated here (freed with `cuMemFreeHost`), or the caller's (registered).
    owned: Option<Layout>,
}

static RANGES: Mutex<BTreeMap<usize, Range>> = Mutex::new(BTreeMap::new());

fn ranges() -> MutexGuard<'static, BTreeMap<usize, Range>> {
    RANGES.lock().unwrap_or_else(|p| p.into_inner())
}

/// The page-locked range holding `p`: (base, size).
pub fn containing(p: usize) -> Option<(usize, usize)> {
    let map = ranges();
    let (&base, r) = map.range(..=p).next_back()?;
    (p - base < r.size).then_some((base, r.size))
}

pub fn alloc(size: usize, flags: u32) -> CuResult<*mut u8> {
    if size == 0 {
        return Err(CuError::invalid("a host allocation of 0 bytes"));
    }
    let layout = Layout::from_size_align(size, 4096)
        .map_err(|_| CuError::OutOfMemory(format!("{size} bytes of host memory")))?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(CuError::OutOfMemory(format!("{size} bytes of host memory")));
    }
    let range = Range {
        size,
        flags,
        owned: Some(layout),
    };
    ranges().insert(p as usize, range);
    Ok(p)
}

pub fn free(p: *mut u8) -> CuResult<()> {
    let mut map = ranges();
    let layout = match map.get(&(p as usize)) {
        Some(Range {
            owned: Some(layout),
            ..
        }) => *layout,
        _ => {
            return Err(CuError::invalid(format!(
                "{p:?} is not page-locked host memory"
            )));
        }
    };
    map.remove(&(p as usize));
    // SAFETY: `p` was returned by `alloc` with this layout and is freed once (it has just been
    // removed from the table).
    unsafe { std::alloc::dealloc(p, layout) };
    Ok(())
}

/// `cuMemHostRegister`: overlapping an earlier range is CUDA's "already registered".
pub fn register(p: usize, size: usize, flags: u32) -> CuResult<()> {
    if p == 0 || size == 0 {
        return Err(CuError::invalid("a NULL or empty range"));
    }
    let mut map = ranges();
    let end = p.saturating_add(size);
    let overlaps = map
        .range(..end)
        .next_back()
        .is_some_and(|(&base, r)| base + r.size > p);
    if overlaps {
        return Err(CuError::HostMemoryAlreadyRegistered);
    }
    map.insert(
        p,
        Range {
            size,
            flags,
            owned: None,
        },
    );
    Ok(())
}

/// `cuMemHostUnregister`: only the base address of a registered range.
pub fn unregister(p: usize) -> CuResult<()> {
    let mut map = ranges();
    match map.get(&p) {
        Some(Range { owned: None, .. }) => {
            map.remove(&p);
            Ok(())
        }
        _ => Err(CuError::HostMemoryNotRegistered),
    }
}

/// `cuMemHostGetFlags`: the flags the range was allocated or registered with.
pub fn flags(p: usize) -> CuResult<u32> {
    let map = ranges();
    let (&base, r) = map
        .range(..=p)
        .next_back()
        .ok_or_else(|| CuError::invalid("not page-locked host memory"))?;
    if p - base < r.size {
        Ok(r.flags)
    } else {
        Err(CuError::invalid("not page-locked host memory"))
    }
}
