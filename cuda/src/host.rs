//! Page-locked host memory: what `cuMemAllocHost`/`cuMemHostAlloc` hand out (plain
//! page-aligned host allocations, or, mapped for the device, device memory the host sees) and
//! what `cuMemHostRegister` registers. All are remembered, so that frees, unregistrations,
//! flags, device pointers and pointer attributes accept exactly those ranges.

use std::alloc::Layout;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use crate::error::{CuError, CuResult};

#[derive(Clone, Copy)]
struct Range {
    size: usize,
    flags: u32,
    owner: Owner,
}

/// Who owns a range's memory.
#[derive(Clone, Copy)]
enum Owner {
    /// Allocated here on the host heap (freed with `cuMemFreeHost`).
    Heap(Layout),
    /// A device allocation of a context, seen by the host (CU_MEMHOSTALLOC_DEVICEMAP).
    Device { ctx_id: usize, base: u64 },
    /// The caller's, registered.
    Registered,
    /// The caller's, registered and imported as device memory of a context
    /// (CU_MEMHOSTREGISTER_DEVICEMAP): `base` is the device address of the range's first byte,
    /// `pages` the imported allocation (device address, host address, size) that covers it.
    Imported {
        ctx_id: usize,
        base: u64,
        pages: (u64, usize, usize),
    },
}

/// What `cuMemFreeHost` must still release.
pub enum Freed {
    Nothing,
    /// The device allocation behind mapped memory: (context id, device address).
    Device(usize, u64),
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
        owner: Owner::Heap(layout),
    };
    ranges().insert(p as usize, range);
    Ok(p)
}

/// Records device memory at `host` (the host's view of `base` in context `ctx_id`) as
/// page-locked memory mapped for the device.
pub fn add_mapped(host: usize, size: usize, flags: u32, (ctx_id, base): (usize, u64)) {
    let owner = Owner::Device { ctx_id, base };
    ranges().insert(host, Range { size, flags, owner });
}

/// `cuMemHostGetDevicePointer`: the device address of mapped page-locked memory.
pub fn device_pointer(p: usize) -> Option<u64> {
    let map = ranges();
    let (&host, r) = map.range(..=p).next_back()?;
    match r.owner {
        Owner::Device { base, .. } | Owner::Imported { base, .. } if p - host < r.size => {
            Some(base + (p - host) as u64)
        }
        _ => None,
    }
}

pub fn free(p: *mut u8) -> CuResult<Freed> {
    let mut map = ranges();
    let owner = match map.get(&(p as usize)) {
        Some(Range { owner, .. })
            if !matches!(owner, Owner::Registered | Owner::Imported { .. }) =>
        {
            *owner
        }
        _ => {
            return Err(CuError::invalid(format!(
                "{p:?} is not page-locked host memory"
            )));
        }
    };
    map.remove(&(p as usize));
    match owner {
        Owner::Heap(layout) => {
            // SAFETY: `p` was returned by `alloc` with this layout and is freed once (it has
            // just been removed from the table).
            unsafe { std::alloc::dealloc(p, layout) };
            Ok(Freed::Nothing)
        }
        Owner::Device { ctx_id, base } => Ok(Freed::Device(ctx_id, base)),
        Owner::Registered | Owner::Imported { .. } => Ok(Freed::Nothing),
    }
}

/// Whether `[start, end)` overlaps a range of `map`, or the pages imported for one.
fn overlaps(map: &BTreeMap<usize, Range>, start: usize, end: usize) -> bool {
    // Imported pages reach before and after their range's key: every range is looked at
    // (programs register few).
    map.iter().any(|(&base, r)| {
        let (lo, hi) = match r.owner {
            Owner::Imported {
                pages: (_, host, len),
                ..
            } => (host, host + len),
            _ => (base, base + r.size),
        };
        lo < end && hi > start
    })
}

/// `cuMemHostRegister`: overlapping an earlier range is CUDA's "already registered".
pub fn register(p: usize, size: usize, flags: u32) -> CuResult<()> {
    if p == 0 || size == 0 {
        return Err(CuError::invalid("a NULL or empty range"));
    }
    let mut map = ranges();
    if overlaps(&map, p, p.saturating_add(size)) {
        return Err(CuError::HostMemoryAlreadyRegistered);
    }
    let owner = Owner::Registered;
    map.insert(p, Range { size, flags, owner });
    Ok(())
}

/// `cuMemHostRegister` with CU_MEMHOSTREGISTER_DEVICEMAP: the pages covering `[p, p + size)`
/// (CUDA takes any pointer; Vulkan imports whole multiples of the device's alignment) become
/// device memory of the context `ctx_id` through `import` (given the aligned host range, it
/// returns the device address of its first byte). Ranges whose pages overlap are "already
/// registered": one page cannot be imported twice at two device addresses here.
pub fn register_mapped(
    (p, size, flags): (usize, usize, u32),
    align: usize,
    ctx_id: usize,
    import: impl FnOnce(usize, usize) -> CuResult<u64>,
) -> CuResult<()> {
    if p == 0 || size == 0 {
        return Err(CuError::invalid("a NULL or empty range"));
    }
    let align = align.max(1);
    let start = p - p % align;
    let end = p
        .checked_add(size)
        .and_then(|e| e.checked_next_multiple_of(align))
        .ok_or_else(|| CuError::invalid("a range past the end of the address space"))?;
    // Held across the import, so that two threads cannot import the same pages.
    let mut map = ranges();
    if overlaps(&map, start, end) {
        return Err(CuError::HostMemoryAlreadyRegistered);
    }
    let device = import(start, end - start)?;
    let owner = Owner::Imported {
        ctx_id,
        base: device + (p - start) as u64,
        pages: (device, start, end - start),
    };
    map.insert(p, Range { size, flags, owner });
    Ok(())
}

/// `cuMemHostUnregister`: only the base address of a registered range. For a range imported
/// as device memory: (context id, device address of the imported pages) to release.
pub fn unregister(p: usize) -> CuResult<Option<(usize, u64)>> {
    let mut map = ranges();
    let imported = match map.get(&p).map(|r| r.owner) {
        Some(Owner::Registered) => None,
        Some(Owner::Imported {
            ctx_id,
            pages: (device, ..),
            ..
        }) => Some((ctx_id, device)),
        _ => return Err(CuError::HostMemoryNotRegistered),
    };
    map.remove(&p);
    Ok(imported)
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
