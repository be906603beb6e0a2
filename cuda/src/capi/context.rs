//! Contexts and the per-thread context stack.

use std::ffi::{c_int, c_uint};

use super::{CUdevice, Handle, entry, handle, id, put};
use crate::context::{self, CONTEXTS};
use crate::error::{CUresult, CuError, CuResult};

fn create(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CuResult<()> {
    crate::device::check_init()?;
    if pctx.is_null() {
        return Err(CuError::invalid("pctx is NULL"));
    }
    let id = context::create(dev, flags)?;
    // SAFETY: non-NULL and writable by the caller's contract.
    unsafe { put(pctx, handle(id)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v2(
    pctx: *mut Handle,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuCtxCreate_v2",
        format_args!("pctx={:#x?} flags={:#x?} dev={:#x?}", pctx, flags, dev),
        || create(pctx, flags, dev),
    )
}

/// `CUctxCreateParams`.
#[repr(C)]
pub struct CtxCreateParams {
    exec_affinity: *const std::ffi::c_void,
    num_exec_affinity: c_int,
    cig: *const std::ffi::c_void,
}

/// The CUDA 12.5+ form (cuda.h 13.x's `cuCtxCreate`): execution affinity and graphics sharing
/// are not supported; without them it is `cuCtxCreate_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxCreate_v4(
    pctx: *mut Handle,
    params: *const CtxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuCtxCreate_v4",
        format_args!(
            "pctx={:#x?} params={:#x?} flags={:#x?} dev={:#x?}",
            pctx, params, flags, dev
        ),
        || {
            // SAFETY: NULL or a valid CUctxCreateParams by the caller's contract.
            if let Some(p) = unsafe { params.as_ref() }
                && (p.num_exec_affinity != 0 || !p.exec_affinity.is_null() || !p.cig.is_null())
            {
                return Err(CuError::NotSupported(
                    "execution affinity and CIG contexts".into(),
                ));
            }
            create(pctx, flags, dev)
        },
    )
}

fn destroy(ctx: Handle) -> CuResult<()> {
    crate::device::check_init()?;
    context::destroy(id(ctx)).map_err(|e| match e {
        CuError::InvalidHandle(_) => CuError::InvalidContext,
        e => e,
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    entry("cuCtxDestroy_v2", format_args!("ctx={:#x?}", ctx), || {
        destroy(ctx)
    })
}

fn push(ctx: Handle) -> CuResult<()> {
    crate::device::check_init()?;
    context::push(id(ctx))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    entry(
        "cuCtxPushCurrent_v2",
        format_args!("ctx={:#x?}", ctx),
        || push(ctx),
    )
}

fn pop(pctx: *mut Handle) -> CuResult<()> {
    let id = context::pop()?;
    // SAFETY: NULL (allowed: the popped context is not returned) or writable.
    unsafe { super::put_opt(pctx, handle(id)) };
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    entry(
        "cuCtxPopCurrent_v2",
        format_args!("pctx={:#x?}", pctx),
        || pop(pctx),
    )
}

/// NULL when the thread has no context, as CUDA (not an error).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    entry("cuCtxGetCurrent", format_args!("pctx={:#x?}", pctx), || {
        crate::device::check_init()?;
        let id = context::current_id().unwrap_or(0);
        // SAFETY: NULL or writable.
        unsafe { put(pctx, handle(id)) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    entry("cuCtxSetCurrent", format_args!("ctx={:#x?}", ctx), || {
        context::set_current(id(ctx))
    })
}

/// The given context, or the current one for NULL (the `_v2` forms of CUDA 12.8+).
fn ctx_or_current(ctx: Handle) -> CuResult<std::sync::Arc<context::Ctx>> {
    if ctx.is_null() {
        return Ok(context::current()?.1);
    }
    crate::device::check_init()?;
    CONTEXTS.get(id(ctx)).map_err(|_| CuError::InvalidContext)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    entry("cuCtxGetDevice", format_args!("dev={:#x?}", dev), || {
        let (_, ctx) = context::current()?;
        // SAFETY: NULL or writable.
        unsafe { put(dev, ctx.device) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: Handle) -> CUresult {
    entry(
        "cuCtxGetDevice_v2",
        format_args!("dev={:#x?} ctx={:#x?}", dev, ctx),
        || {
            let ctx = ctx_or_current(ctx)?;
            // As cuCtxGetDevice, which "may also return error codes from previous,
            // asynchronous launches" (CUDA's documentation): the context's sticky error.
            ctx.check_sticky()?;
            // SAFETY: NULL or writable.
            unsafe { put(dev, ctx.device) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    entry("cuCtxSynchronize", format_args!(""), || {
        Ok(context::current()?.1.rt.synchronize()?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    entry(
        "cuCtxSynchronize_v2",
        format_args!("ctx={:#x?}", ctx),
        || Ok(ctx_or_current(ctx)?.rt.synchronize()?),
    )
}

/// 3020: the API version of every context created through the `_v2` entry points.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    entry(
        "cuCtxGetApiVersion",
        format_args!("ctx={:#x?} version={:#x?}", ctx, version),
        || {
            ctx_or_current(ctx)?;
            // SAFETY: NULL or writable.
            unsafe { put(version, 3020) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_uint) -> CUresult {
    entry(
        "cuCtxGetLimit",
        format_args!("value={:#x?} limit={:#x?}", value, limit),
        || {
            let v = context::current()?.1.limit(limit)?;
            // SAFETY: NULL or writable.
            unsafe { put(value, v) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetLimit(limit: c_uint, value: usize) -> CUresult {
    entry(
        "cuCtxSetLimit",
        format_args!("limit={:#x?} value={:#x?}", limit, value),
        || context::current()?.1.set_limit(limit, value),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    entry("cuCtxGetFlags", format_args!("flags={:#x?}", flags), || {
        let f = context::current()?.1.flags;
        // SAFETY: NULL or writable.
        unsafe { put(flags, f) }
    })
}

/// One priority: streams run as the device schedules its queues.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CUresult {
    entry(
        "cuCtxGetStreamPriorityRange",
        format_args!("least={least:#x?} greatest={greatest:#x?}"),
        || {
            context::current()?;
            // SAFETY: each NULL (not wanted) or writable.
            unsafe {
                super::put_opt(least, 0);
                super::put_opt(greatest, 0);
            }
            Ok(())
        },
    )
}

/// L1 and shared memory are not configurable through Vulkan: the preference is accepted and
/// `cuCtxGetCacheConfig` reports CU_FUNC_CACHE_PREFER_NONE, as CUDA does on such devices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCacheConfig(config: c_uint) -> CUresult {
    entry(
        "cuCtxSetCacheConfig",
        format_args!("config={config}"),
        || {
            context::current()?;
            check_cache_config(config)
        },
    )
}

/// An enum value up to `max` (`what` names it in the error).
fn check_enum(what: &str, value: c_uint, max: c_uint) -> CuResult<()> {
    if value > max {
        return Err(CuError::invalid(format!("{what} {value}")));
    }
    Ok(())
}

/// CU_FUNC_CACHE_PREFER_NONE, SHARED, L1, EQUAL.
pub(crate) fn check_cache_config(config: c_uint) -> CuResult<()> {
    check_enum("cache config", config, 3)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_uint) -> CUresult {
    entry(
        "cuCtxGetCacheConfig",
        format_args!("config={config:#x?}"),
        || {
            context::current()?;
            // SAFETY: NULL or writable.
            unsafe { put(config, 0) }
        },
    )
}

/// Shared memory banks are four bytes wide (CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE); a
/// request for another width is accepted without effect, as on CUDA devices since Maxwell.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetSharedMemConfig(config: *mut c_uint) -> CUresult {
    entry(
        "cuCtxGetSharedMemConfig",
        format_args!("config={config:#x?}"),
        || {
            context::current()?;
            // SAFETY: NULL or writable.
            unsafe { put(config, 1) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetSharedMemConfig(config: c_uint) -> CUresult {
    entry(
        "cuCtxSetSharedMemConfig",
        format_args!("config={config}"),
        || {
            context::current()?;
            check_shared_config(config)
        },
    )
}

/// CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE, FOUR_BYTE, EIGHT_BYTE.
pub(crate) fn check_shared_config(config: c_uint) -> CuResult<()> {
    check_enum("shared memory config", config, 2)
}

/// The handle's id, unique in the process.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetId(ctx: Handle, out: *mut u64) -> CUresult {
    entry(
        "cuCtxGetId",
        format_args!("ctx={ctx:#x?} out={out:#x?}"),
        || {
            let c = if ctx.is_null() {
                context::current()?.0
            } else {
                ctx_or_current(ctx)?;
                id(ctx)
            };
            // SAFETY: NULL or writable.
            unsafe { put(out, c as u64) }
        },
    )
}

/// Persisting L2 lines are not a thing here: nothing to reset.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    entry("cuCtxResetPersistingL2Cache", format_args!(""), || {
        context::current().map(drop)
    })
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuCtxCreate => cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice));
alias!(cuCtxDestroy => cuCtxDestroy_v2(ctx: Handle));
alias!(cuCtxPushCurrent => cuCtxPushCurrent_v2(ctx: Handle));
alias!(cuCtxPopCurrent => cuCtxPopCurrent_v2(pctx: *mut Handle));
