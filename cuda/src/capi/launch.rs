//! `cuLaunchKernel`.

use std::ffi::{c_uint, c_void};

use ptxvk_runtime::LaunchConfig;

use super::{Handle, entry, id};
use crate::error::{CUresult, CuError, CuResult};
use crate::launch::{self, Params};
use crate::module::FUNCTIONS;

/// `CU_LAUNCH_PARAM_*` keys of `extra`.
const PARAM_END: usize = 0x0;
const PARAM_BUFFER_POINTER: usize = 0x1;
const PARAM_BUFFER_SIZE: usize = 0x2;

/// The most `extra` entries read before giving up on a list without CU_LAUNCH_PARAM_END.
const MAX_EXTRA: usize = 64;

/// Reads `extra`: key/value pairs ending with CU_LAUNCH_PARAM_END.
///
/// # Safety
/// `extra` is a CU_LAUNCH_PARAM_END-terminated array of pairs; the buffer pointer is readable
/// for the size the size entry points to.
unsafe fn extra_buffer<'a>(extra: *const *mut c_void) -> CuResult<(&'a [u8], usize)> {
    let (mut buf, mut size) = (None, None);
    for i in 0..MAX_EXTRA {
        // SAFETY: within the terminated array by the caller's contract.
        let key = unsafe { *extra.add(2 * i) } as usize;
        if key == PARAM_END {
            break;
        }
        // SAFETY: every key but END is followed by its value.
        let value = unsafe { *extra.add(2 * i + 1) };
        match key {
            PARAM_BUFFER_POINTER => buf = Some(value),
            PARAM_BUFFER_SIZE if !value.is_null() => {
                // SAFETY: the value of BUFFER_SIZE points to a size_t.
                size = Some(unsafe { *value.cast::<usize>() });
            }
            _ => return Err(CuError::invalid(format!("`extra` key {key:#x}"))),
        }
    }
    let (Some(buf), Some(size)) = (buf, size) else {
        return Err(CuError::invalid(
            "`extra` needs CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE",
        ));
    };
    // SAFETY: readable for `size` bytes by the caller's contract.
    Ok((unsafe { super::bytes(buf, size) }?, size))
}

#[allow(clippy::too_many_arguments)]
fn launch_kernel(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    s: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<()> {
    // CUDA launches in the current context; none is CUDA_ERROR_INVALID_CONTEXT.
    crate::context::current()?;
    let func = FUNCTIONS.get(id(f))?;
    let cfg = LaunchConfig {
        grid,
        block,
        shared_bytes: shared,
    };
    launch::check_config(&func, &cfg)?;
    let params = match (params.is_null(), extra.is_null()) {
        (false, false) => return Err(CuError::invalid("both kernelParams and extra given")),
        (true, true) => Params::None,
        (false, true) => {
            let sizes = launch::param_sizes(&func);
            let mut values = Vec::with_capacity(sizes.len());
            for (i, size) in sizes.into_iter().enumerate() {
                // SAFETY: kernelParams holds one pointer per kernel parameter (CUDA's contract).
                let p = unsafe { *params.add(i) };
                // SAFETY: each points to a value of the parameter's size.
                values.push(unsafe { super::bytes(p, size) }?);
            }
            Params::Pointers(values)
        }
        (true, false) => {
            // SAFETY: CUDA's contract for `extra`.
            let (buf, size) = unsafe { extra_buffer(extra) }?;
            launch::check_buffer_size(&func, size)?;
            Params::Buffer(buf)
        }
    };
    let args = launch::arguments(&func, &params)?;
    let (ctx, stream) = crate::stream::resolve(id(s))?;
    if !std::sync::Arc::ptr_eq(&ctx, &func.ctx) {
        return Err(CuError::InvalidHandle(
            "function (of another context than the stream)",
        ));
    }
    Ok(stream.launch(&func.kernel, &cfg, &args)?)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuLaunchKernel",
        format_args!(
            "f={:#x?} gx={:#x?} gy={:#x?} gz={:#x?} bx={:#x?} by={:#x?} bz={:#x?} shared={:#x?} s={:#x?} params={:#x?} extra={:#x?}",
            f, gx, gy, gz, bx, by, bz, shared, s, params, extra
        ),
        || launch_kernel(f, [gx, gy, gz], [bx, by, bz], shared, s, params, extra),
    )
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms (`_ptds`, `_ptsz`), whose NULL stream is the same
// default stream here.
alias!(cuLaunchKernel_ptsz => cuLaunchKernel(f: Handle, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, s: Handle, params: *mut *mut c_void, extra: *mut *mut c_void));
