//! Device allocations: plain, pitched and managed memory, freeing, memory info and the
//! allocation an address lies in.

use std::ffi::c_uint;

use crate::capi::{CUdeviceptr, entry, put};
use crate::context;
use crate::error::{CUresult, CuError};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, size: usize) -> CUresult {
    entry(
        "cuMemAlloc_v2",
        format_args!("dptr={:#x?} size={:#x?}", dptr, size),
        || {
            if dptr.is_null() {
                return Err(CuError::invalid("dptr is NULL"));
            }
            let (_, ctx) = context::current()?;
            let p = ctx.memory.alloc(&ctx.rt, size as u64)?;
            // SAFETY: non-NULL and writable.
            unsafe { put(dptr, p) }
        },
    )
}

/// Rows padded to 512 bytes (the texture pitch alignment ptxvk reports); element sizes 4, 8
/// and 16 as CUDA allows.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_size: c_uint,
) -> CUresult {
    entry(
        "cuMemAllocPitch_v2",
        format_args!(
            "dptr={:#x?} pitch={:#x?} width={:#x?} height={:#x?} element_size={:#x?}",
            dptr, pitch, width, height, element_size
        ),
        || {
            if dptr.is_null() || pitch.is_null() {
                return Err(CuError::invalid("dptr or pPitch is NULL"));
            }
            if !matches!(element_size, 4 | 8 | 16) || width == 0 || height == 0 {
                return Err(CuError::invalid(format!(
                    "{width}x{height} of {element_size}-byte elements"
                )));
            }
            let row = width.next_multiple_of(512);
            let size = row
                .checked_mul(height)
                .ok_or_else(|| CuError::invalid("pitched allocation size overflows"))?;
            let (_, ctx) = context::current()?;
            let p = ctx.memory.alloc(&ctx.rt, size as u64)?;
            // SAFETY: both non-NULL and writable.
            unsafe {
                put(dptr, p)?;
                put(pitch, row)
            }
        },
    )
}

/// Waits for the context's work first: kernels may still use the memory through its address.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    entry("cuMemFree_v2", format_args!("dptr={:#x?}", dptr), || {
        let (_, ctx) = context::current()?;
        if dptr == 0 {
            return Ok(());
        }
        let alloc = ctx.memory.free(dptr)?;
        let synced = ctx.rt.synchronize();
        drop(alloc);
        Ok(synced?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    entry(
        "cuMemGetInfo_v2",
        format_args!("free={:#x?} total={:#x?}", free, total),
        || {
            let (_, ctx) = context::current()?;
            let t = ctx.rt.info().device_local_bytes;
            let f = t.saturating_sub(ctx.memory.allocated());
            // SAFETY: NULL or writable.
            unsafe {
                put(free, f as usize)?;
                put(total, t as usize)
            }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    base: *mut CUdeviceptr,
    size: *mut usize,
    dptr: CUdeviceptr,
) -> CUresult {
    entry(
        "cuMemGetAddressRange_v2",
        format_args!("base={:#x?} size={:#x?} dptr={:#x?}", base, size, dptr),
        || {
            let (_, ctx) = context::current()?;
            let a = ctx
                .memory
                .containing(dptr)
                .ok_or_else(|| CuError::NotFound(format!("{dptr:#x} is not a device pointer")))?;
            // SAFETY: either may be NULL (CUDA: "ignored"); otherwise writable.
            unsafe {
                crate::capi::put_opt(base, a.base);
                crate::capi::put_opt(size, a.size as usize);
            }
            Ok(())
        },
    )
}

/// Where the device's addresses are the host's and its memory host-visible (lavapipe), one
/// allocation serves both at the same address; CUDA_ERROR_NOT_SUPPORTED elsewhere. The host
/// may touch it only while no kernel uses it (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
/// is 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocManaged(
    dptr: *mut CUdeviceptr,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemAllocManaged",
        format_args!("dptr={dptr:#x?} size={size:#x} flags={flags:#x}"),
        || {
            // CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST.
            if !matches!(flags, 1 | 2) {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if dptr.is_null() {
                return Err(CuError::invalid("dptr is NULL"));
            }
            let (_, ctx) = context::current()?;
            let (device, _) = ctx.memory.alloc_shared(&ctx.rt, size as u64, true)?;
            // SAFETY: non-NULL and writable.
            unsafe { put(dptr, device) }
        },
    )
}
