//! Host memory: page-locked allocations, mapped memory and registering the caller's pages.

use std::ffi::{c_uint, c_void};

use crate::capi::{CUdeviceptr, entry, put};
use crate::context;
use crate::error::{CUresult, CuError, CuResult};
use crate::host;
use ptxvk_runtime::Buffer;

fn alloc_host(pp: *mut *mut c_void, size: usize, flags: c_uint) -> CuResult<()> {
    context::current()?;
    if pp.is_null() {
        return Err(CuError::invalid("pp is NULL"));
    }
    let p = host::alloc(size, flags)?;
    // SAFETY: non-NULL and writable by the caller's contract.
    unsafe { put(pp, p.cast::<c_void>()) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    entry(
        "cuMemAllocHost_v2",
        format_args!("pp={:#x?} size={:#x?}", pp, size),
        || alloc_host(pp, size, 0),
    )
}

/// With CU_MEMHOSTALLOC_DEVICEMAP the memory is device memory the host sees (where device
/// memory is host-visible; CUDA_ERROR_NOT_SUPPORTED elsewhere), whose device address
/// `cuMemHostGetDevicePointer` gives; without it, host memory. PORTABLE and WRITECOMBINED
/// change nothing here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostAlloc",
        format_args!("pp={:#x?} size={:#x?} flags={:#x?}", pp, size, flags),
        || {
            if flags & !0x7 != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if flags & MEMHOSTALLOC_DEVICEMAP == 0 {
                return alloc_host(pp, size, flags);
            }
            if pp.is_null() {
                return Err(CuError::invalid("pp is NULL"));
            }
            let (ctx_id, ctx) = context::current()?;
            let (device, host_addr) = ctx.memory.alloc_shared(&ctx.rt, size as u64, false)?;
            host::add_mapped(host_addr as usize, size, flags, (ctx_id, device));
            // SAFETY: non-NULL and writable by the caller's contract.
            unsafe { put(pp, host_addr as *mut c_void) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", format_args!("p={:#x?}", p), || {
        context::current()?;
        match host::free(p.cast())? {
            host::Freed::Nothing => Ok(()),
            host::Freed::Device(ctx_id, base) => {
                let ctx = crate::context::CONTEXTS
                    .get(ctx_id)
                    .map_err(|_| CuError::InvalidContext)?;
                let alloc = ctx.memory.free_mapped_host(base)?;
                let synced = ctx.rt.synchronize();
                drop(alloc);
                Ok(synced?)
            }
        }
    })
}

/// CU_MEMHOSTALLOC_DEVICEMAP.
const MEMHOSTALLOC_DEVICEMAP: c_uint = 0x2;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    dptr: *mut CUdeviceptr,
    p: *mut c_void,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostGetDevicePointer_v2",
        format_args!("dptr={dptr:#x?} p={p:#x?} flags={flags:#x}"),
        || {
            context::current()?;
            if flags != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            let d = host::device_pointer(p as usize)
                .ok_or_else(|| CuError::invalid(format!("{p:?} is not mapped for the device")))?;
            // SAFETY: NULL or writable.
            unsafe { put(dptr, d) }
        },
    )
}

/// CU_MEMHOSTREGISTER_PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY.
const HOST_REGISTER_FLAGS: c_uint = 0xf;

/// CU_MEMHOSTREGISTER_DEVICEMAP.
const MEMHOSTREGISTER_DEVICEMAP: c_uint = 0x2;

/// Registration is remembered (pointer attributes, flags). With CU_MEMHOSTREGISTER_DEVICEMAP
/// the pages covering the range are imported as device memory of the current context
/// (`VK_EXT_external_memory_host`), and kernels reach the caller's own bytes through
/// `cuMemHostGetDevicePointer`; a device without the extension gives CUDA_ERROR_NOT_SUPPORTED,
/// which is what CUDA returns where registration is not supported.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    size: usize,
    flags: c_uint,
) -> CUresult {
    entry(
        "cuMemHostRegister_v2",
        format_args!("p={p:#x?} size={size:#x} flags={flags:#x}"),
        || {
            let (ctx_id, ctx) = context::current()?;
            if flags & !HOST_REGISTER_FLAGS != 0 {
                return Err(CuError::invalid(format!("flags {flags:#x}")));
            }
            if flags & MEMHOSTREGISTER_DEVICEMAP == 0 {
                return host::register(p as usize, size, flags);
            }
            let info = ctx.rt.info();
            let align = info.host_import_alignment.ok_or_else(|| {
                CuError::NotSupported(format!(
                    "CU_MEMHOSTREGISTER_DEVICEMAP: `{}` lacks VK_EXT_external_memory_host",
                    info.name
                ))
            })?;
            let align = usize::try_from(align).map_err(|_| CuError::invalid("alignment"))?;
            host::register_mapped((p as usize, size, flags), align, ctx_id, |start, len| {
                // SAFETY: the caller's range is its memory until it unregisters it (CUDA's
                // contract), and the pages around it hold it; unregistering drops the buffer
                // once the device is done with it.
                let buf = unsafe { Buffer::import_host(&ctx.rt, start as *mut u8, len as u64) }?;
                Ok(ctx.memory.add_imported(buf, start as u64))
            })
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    entry("cuMemHostUnregister", format_args!("p={p:#x?}"), || {
        context::current()?;
        let Some((ctx_id, device)) = host::unregister(p as usize)? else {
            return Ok(());
        };
        // The context may be gone, and its memory with it.
        let Ok(ctx) = crate::context::CONTEXTS.get(ctx_id) else {
            return Ok(());
        };
        let alloc = ctx.memory.remove_imported(device);
        // Kernels reached the memory by address: they must be done before it goes.
        let synced = ctx.rt.synchronize();
        drop(alloc);
        Ok(synced?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetFlags(flags: *mut c_uint, p: *mut c_void) -> CUresult {
    entry(
        "cuMemHostGetFlags",
        format_args!("flags={flags:#x?} p={p:#x?}"),
        || {
            context::current()?;
            let f = host::flags(p as usize)?;
            // SAFETY: NULL or writable.
            unsafe { put(flags, f) }
        },
    )
}

// The name older headers give the same entry point.
alias!(cuMemHostRegister => cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint));
