//! Memory: allocations, copies and fills through the driver. Pointers are the driver's
//! (unified addressing), so every copy direction but host to host goes through `cuMemcpy`,
//! which tells host from device memory by the address, as `cudaMemcpyDefault` does.

use std::ffi::{c_int, c_uint, c_void};

use super::{PER_THREAD, Stream, entry, out, per_thread};
use crate::driver::{self, DevPtr, Driver};
use crate::error::{self, CudaError, Error, Result};
use crate::state::{self, Addr};

const HOST_TO_HOST: c_int = 0;
const DEFAULT: c_int = 4;
/// cudaErrorInvalidMemcpyDirection
const INVALID_DIRECTION: CudaError = 21;

fn copy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    stream: Option<Stream>,
) -> Result<()> {
    if !(HOST_TO_HOST..=DEFAULT).contains(&kind) {
        return Err(Error(INVALID_DIRECTION));
    }
    if n == 0 {
        return Ok(());
    }
    let (d, _) = state::ready()?;
    if kind == HOST_TO_HOST {
        // Host memory of the program's own; a stream's earlier work may still write it.
        if let Some(s) = stream {
            // SAFETY: a stream handle of the program's.
            driver::check(unsafe { (d.cuStreamSynchronize)(s) })?;
        }
        // SAFETY: both hold `n` bytes (the caller's contract); `copy` allows overlap.
        unsafe { std::ptr::copy(src.cast::<u8>(), dst.cast::<u8>(), n) };
        return Ok(());
    }
    // SAFETY: addresses the caller holds for `n` bytes.
    driver::check(unsafe {
        match stream {
            None => (d.cuMemcpy)(dst as DevPtr, src as DevPtr, n),
            Some(s) => (d.cuMemcpyAsync)(dst as DevPtr, src as DevPtr, n, s),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> CudaError {
    entry(|| {
        let p = out(ptr)?;
        if size == 0 {
            *p = std::ptr::null_mut();
            return Ok(());
        }
        let (d, _) = state::ready()?;
        let mut dev: DevPtr = 0;
        // SAFETY: an out-pointer to a local.
        driver::check(unsafe { (d.cuMemAlloc_v2)(&mut dev, size) })?;
        *p = dev as *mut c_void;
        Ok(())
    })
}

/// `cudaFree(0)` is the idiom that creates the context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFree(ptr: *mut c_void) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        if ptr.is_null() {
            return Ok(());
        }
        // SAFETY: the driver checks the address.
        driver::check(unsafe { (d.cuMemFree_v2)(ptr as DevPtr) })
    })
}

fn host_alloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> Result<()> {
    let p = out(ptr)?;
    let (d, _) = state::ready()?;
    let mut host = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    driver::check(unsafe { (d.cuMemHostAlloc)(&mut host, size.max(1), flags) })?;
    *p = host;
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> CudaError {
    entry(|| host_alloc(ptr, size, 0))
}

/// cudaHostAllocPortable/Mapped/WriteCombined are the driver's CU_MEMHOSTALLOC_* bits.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostAlloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> CudaError {
    entry(|| host_alloc(ptr, size, flags))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFreeHost(ptr: *mut c_void) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the address.
        driver::check(unsafe { (d.cuMemFreeHost)(ptr) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostGetDevicePointer(
    dev: *mut *mut c_void,
    host: *mut c_void,
    flags: c_uint,
) -> CudaError {
    entry(|| {
        let p = out(dev)?;
        let (d, _) = state::ready()?;
        let mut ptr: DevPtr = 0;
        // SAFETY: an out-pointer to a local.
        driver::check(unsafe { (d.cuMemHostGetDevicePointer_v2)(&mut ptr, host, flags) })?;
        *p = ptr as *mut c_void;
        Ok(())
    })
}

/// cudaHostRegisterDefault/Portable/Mapped/IoMemory/ReadOnly are the driver's
/// CU_MEMHOSTREGISTER_* bits: with Mapped, the driver imports the caller's pages for the device
/// where it can (`cudaErrorNotSupported` elsewhere).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostRegister(
    ptr: *mut c_void,
    size: usize,
    flags: c_uint,
) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the range and flags.
        driver::check(unsafe { (d.cuMemHostRegister_v2)(ptr, size, flags) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the address.
        driver::check(unsafe { (d.cuMemHostUnregister)(ptr) })
    })
}

/// cudaMemAttachGlobal/Host are the driver's CU_MEM_ATTACH_* values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocManaged(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> CudaError {
    entry(|| {
        let p = out(ptr)?;
        let (d, _) = state::ready()?;
        let mut dev: DevPtr = 0;
        // SAFETY: an out-pointer to a local.
        driver::check(unsafe { (d.cuMemAllocManaged)(&mut dev, size, flags) })?;
        *p = dev as *mut c_void;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMallocPitch(
    ptr: *mut *mut c_void,
    pitch: *mut usize,
    width: usize,
    height: usize,
) -> CudaError {
    entry(|| {
        let (p, pitch) = (out(ptr)?, out(pitch)?);
        let (d, _) = state::ready()?;
        let mut dev: DevPtr = 0;
        // SAFETY: out-pointers to a local and the caller's pitch; 16-byte elements allow the
        // widest alignment.
        driver::check(unsafe { (d.cuMemAllocPitch_v2)(&mut dev, pitch, width, height, 16) })?;
        *p = dev as *mut c_void;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: checked for NULL.
        driver::check(unsafe { (d.cuMemGetInfo_v2)(out(free)?, out(total)?) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> CudaError {
    entry(|| copy(dst, src, n, kind, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| copy(dst, src, n, kind, Some(s)))
}

/// CUDA_MEMCPY2D of cuda.h.
#[repr(C)]
struct Memcpy2D {
    src_x: usize,
    src_y: usize,
    src_type: c_uint,
    src_host: *const c_void,
    src_device: DevPtr,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x: usize,
    dst_y: usize,
    dst_type: c_uint,
    dst_host: *mut c_void,
    dst_device: DevPtr,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width: usize,
    height: usize,
}

/// CU_MEMORYTYPE_UNIFIED: the driver tells host from device memory by the address.
const UNIFIED: c_uint = 4;

#[allow(clippy::too_many_arguments)]
fn copy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: Option<Stream>,
) -> Result<()> {
    if !(HOST_TO_HOST..=DEFAULT).contains(&kind) {
        return Err(Error(INVALID_DIRECTION));
    }
    if width > dpitch || width > spitch {
        return Err(Error(error::INVALID_VALUE));
    }
    let (d, _) = state::ready()?;
    let p = Memcpy2D {
        src_x: 0,
        src_y: 0,
        src_type: UNIFIED,
        src_host: src,
        src_device: src as DevPtr,
        src_array: std::ptr::null_mut(),
        src_pitch: spitch,
        dst_x: 0,
        dst_y: 0,
        dst_type: UNIFIED,
        dst_host: dst,
        dst_device: dst as DevPtr,
        dst_array: std::ptr::null_mut(),
        dst_pitch: dpitch,
        width,
        height,
    };
    let p = (&raw const p).cast();
    // SAFETY: a complete CUDA_MEMCPY2D over the caller's memory.
    driver::check(unsafe {
        match stream {
            None => (d.cuMemcpy2D_v2)(p),
            Some(s) => (d.cuMemcpy2DAsync_v2)(p, s),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> CudaError {
    entry(|| copy_2d(dst, dpitch, src, spitch, width, height, kind, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| copy_2d(dst, dpitch, src, spitch, width, height, kind, Some(s)))
}

fn fill(
    d: &Driver,
    ptr: *mut c_void,
    value: c_int,
    n: usize,
    stream: Option<Stream>,
) -> Result<()> {
    // cudaMemset writes the value's low byte, as memset does.
    let byte = value as u8;
    // SAFETY: the driver checks the range.
    driver::check(unsafe {
        match stream {
            None => (d.cuMemsetD8_v2)(ptr as DevPtr, byte, n),
            Some(s) => (d.cuMemsetD8Async)(ptr as DevPtr, byte, n, s),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset(ptr: *mut c_void, value: c_int, n: usize) -> CudaError {
    entry(|| fill(state::ready()?.0, ptr, value, n, None))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync(
    ptr: *mut c_void,
    value: c_int,
    n: usize,
    s: Stream,
) -> CudaError {
    entry(|| fill(state::ready()?.0, ptr, value, n, Some(s)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset2D(
    ptr: *mut c_void,
    pitch: usize,
    value: c_int,
    width: usize,
    height: usize,
) -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: the driver checks the range.
        driver::check(unsafe {
            (d.cuMemsetD2D8_v2)(ptr as DevPtr, pitch, value as u8, width, height)
        })
    })
}

/// The device address of `[offset, offset + n)` of a registered variable.
fn symbol_range(symbol: *const c_void, n: usize, offset: usize) -> Result<DevPtr> {
    let (_, ptr, size) = state::symbol(Addr(symbol as usize))?;
    if offset.checked_add(n).is_none_or(|end| end > size) {
        return Err(Error(error::INVALID_VALUE));
    }
    Ok(ptr + offset as DevPtr)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        copy(
            symbol_range(symbol, n, offset)? as *mut c_void,
            src,
            n,
            kind.max(1),
            None,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        copy(
            dst,
            symbol_range(symbol, n, offset)? as *const c_void,
            n,
            kind.max(1),
            None,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            symbol_range(symbol, n, offset)? as *mut c_void,
            src,
            n,
            kind.max(1),
            Some(s),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            dst,
            symbol_range(symbol, n, offset)? as *const c_void,
            n,
            kind.max(1),
            Some(s),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolAddress(
    dev: *mut *mut c_void,
    symbol: *const c_void,
) -> CudaError {
    entry(|| {
        let p = out(dev)?;
        *p = state::symbol(Addr(symbol as usize))?.1 as *mut c_void;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> CudaError {
    entry(|| {
        let p = out(size)?;
        *p = state::symbol(Addr(symbol as usize))?.2;
        Ok(())
    })
}

/// Hints about where managed memory should live: ptxvk's managed memory lives in one place.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemPrefetchAsync() -> CudaError {
    entry(|| state::ready().map(drop))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemAdvise() -> CudaError {
    entry(|| state::ready().map(drop))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaPointerGetAttributes(
    attrs: *mut PointerAttributes,
    ptr: *const c_void,
) -> CudaError {
    entry(|| {
        let a = out(attrs)?;
        let (d, dev) = state::ready()?;
        let mut ty: c_uint = 0;
        // SAFETY: CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) writes an unsigned int.
        let known =
            unsafe { (d.cuPointerGetAttribute)((&raw mut ty).cast(), 2, ptr as DevPtr) } == 0;
        let mut host: *mut c_void = std::ptr::null_mut();
        // SAFETY: CU_POINTER_ATTRIBUTE_HOST_POINTER (3) writes a pointer.
        let has_host = known
            && unsafe { (d.cuPointerGetAttribute)((&raw mut host).cast(), 3, ptr as DevPtr) } == 0;
        let mut managed: c_int = 0;
        // SAFETY: CU_POINTER_ATTRIBUTE_IS_MANAGED (8) writes a bool as an int.
        let _ = known
            && unsafe { (d.cuPointerGetAttribute)((&raw mut managed).cast(), 8, ptr as DevPtr) }
                == 0;
        *a = if !known {
            // cudaMemoryTypeUnregistered
            PointerAttributes {
                ty: 0,
                device: -2,
                device_pointer: std::ptr::null_mut(),
                host_pointer: ptr.cast_mut(),
            }
        } else {
            PointerAttributes {
                // cudaMemoryTypeHost 1, Device 2, Managed 3; the driver's HOST is 1, DEVICE 2.
                ty: if managed != 0 { 3 } else { ty as c_int },
                device: dev,
                device_pointer: ptr.cast_mut(),
                host_pointer: if has_host { host } else { std::ptr::null_mut() },
            }
        };
        Ok(())
    })
}

/// struct cudaPointerAttributes (CUDA 12 and 13 alike).
#[repr(C)]
pub struct PointerAttributes {
    ty: c_int,
    device: c_int,
    device_pointer: *mut c_void,
    host_pointer: *mut c_void,
}

/// A synchronous call of a `_ptds` entry point (`--default-stream per-thread`): the work goes
/// to the calling thread's default stream, which is then waited for.
fn on_per_thread_stream(work: impl FnOnce(Stream) -> Result<()>) -> Result<()> {
    work(PER_THREAD)?;
    let (d, _) = state::ready()?;
    // SAFETY: the per-thread default stream.
    driver::check(unsafe { (d.cuStreamSynchronize)(PER_THREAD) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy_ptds(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> CudaError {
    entry(|| on_per_thread_stream(|s| copy(dst, src, n, kind, Some(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync_ptsz(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| copy(dst, src, n, kind, Some(per_thread(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset_ptds(ptr: *mut c_void, value: c_int, n: usize) -> CudaError {
    entry(|| on_per_thread_stream(|s| fill(state::ready()?.0, ptr, value, n, Some(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync_ptsz(
    ptr: *mut c_void,
    value: c_int,
    n: usize,
    s: Stream,
) -> CudaError {
    entry(|| fill(state::ready()?.0, ptr, value, n, Some(per_thread(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D_ptds(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| copy_2d(dst, dpitch, src, spitch, width, height, kind, Some(s)))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync_ptsz(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy_2d(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            kind,
            Some(per_thread(s)),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol_ptds(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| {
            copy(
                symbol_range(symbol, n, offset)? as *mut c_void,
                src,
                n,
                kind.max(1),
                Some(s),
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol_ptds(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| {
            copy(
                dst,
                symbol_range(symbol, n, offset)? as *const c_void,
                n,
                kind.max(1),
                Some(s),
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync_ptsz(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            symbol_range(symbol, n, offset)? as *mut c_void,
            src,
            n,
            kind.max(1),
            Some(per_thread(s)),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync_ptsz(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            dst,
            symbol_range(symbol, n, offset)? as *const c_void,
            n,
            kind.max(1),
            Some(per_thread(s)),
        )
    })
}
