//! Allocations: device, host (pinned, mapped, registered) and managed memory, pitched
//! allocations, memory info, and what a pointer points to.

use std::ffi::{c_int, c_uint, c_void};

use crate::capi::{entry, out};
use crate::driver::{self, DevPtr};
use crate::error::{CudaError, Result};
use crate::state;

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
