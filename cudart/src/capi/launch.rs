//! Launches: `cudaLaunchKernel` with the host stub's address, and CUDA 13's
//! `__cudaGetKernel`/`__cudaLaunchKernel`, whose kernel handle is that same address here.

use std::ffi::c_void;

use super::{Dim3, Stream, entry, out, per_thread};
use crate::driver;
use crate::error::{self, CudaError, Error, Result};
use crate::state::{self, Addr};

fn launch(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
    cooperative: bool,
) -> Result<()> {
    if [grid.x, grid.y, grid.z, block.x, block.y, block.z].contains(&0) {
        return Err(Error(error::INVALID_CONFIGURATION));
    }
    let shared = u32::try_from(shared).map_err(|_| Error(error::INVALID_VALUE))?;
    let (d, f) = state::function(Addr(func as usize))?;
    // SAFETY: a function of the current context; `args` points at one pointer per kernel
    // parameter (the caller's contract).
    driver::check(unsafe {
        if cooperative {
            (d.cuLaunchCooperativeKernel)(
                f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, stream, args,
            )
        } else {
            (d.cuLaunchKernel)(
                f,
                grid.x,
                grid.y,
                grid.z,
                block.x,
                block.y,
                block.z,
                shared,
                stream,
                args,
                std::ptr::null_mut(),
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(func, grid, block, args, shared, stream, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernel_ptsz(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(func, grid, block, args, shared, per_thread(stream), false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(func, grid, block, args, shared, stream, true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel_ptsz(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(func, grid, block, args, shared, per_thread(stream), true))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaGetKernel(
    kernel: *mut *const c_void,
    func: *const c_void,
) -> CudaError {
    entry(|| {
        *out(kernel)? = func;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(kernel, grid, block, args, shared, stream, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __cudaLaunchKernel_ptsz(
    kernel: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Stream,
) -> CudaError {
    entry(|| launch(kernel, grid, block, args, shared, per_thread(stream), false))
}

/// cudaLaunchConfig_t.
#[repr(C)]
pub struct LaunchConfig {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Stream,
    attrs: *const LaunchAttribute,
    num_attrs: u32,
}

/// cudaLaunchAttribute: an id, padding to 8 bytes, a 64-byte union of values.
#[repr(C)]
pub struct LaunchAttribute {
    id: u32,
    pad: u32,
    val: [u32; 16],
}

/// cudaLaunchAttributeClusterDimension
const CLUSTER_DIMENSION: u32 = 4;

/// Attributes are scheduling hints ptxvk may ignore (priorities, access policies,
/// programmatic serialization), except a cluster of more than one block, which it cannot run.
fn launch_ex(
    config: *const LaunchConfig,
    func: *const c_void,
    args: *mut *mut c_void,
    per_thread_stream: bool,
) -> Result<()> {
    // SAFETY: the caller's config, checked for NULL.
    let c = unsafe { config.as_ref() }.ok_or(Error(error::INVALID_VALUE))?;
    let attrs = if c.attrs.is_null() || c.num_attrs == 0 {
        &[][..]
    } else {
        // SAFETY: `num_attrs` attributes (the caller's contract).
        unsafe { std::slice::from_raw_parts(c.attrs, c.num_attrs as usize) }
    };
    for a in attrs {
        if a.id == CLUSTER_DIMENSION && a.val[..3].iter().any(|&d| d > 1) {
            return Err(Error(error::NOT_SUPPORTED));
        }
    }
    let stream = if per_thread_stream {
        per_thread(c.stream)
    } else {
        c.stream
    };
    launch(func, c.grid, c.block, args, c.shared, stream, false)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernelExC(
    config: *const LaunchConfig,
    func: *const c_void,
    args: *mut *mut c_void,
) -> CudaError {
    entry(|| launch_ex(config, func, args, false))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchKernelExC_ptsz(
    config: *const LaunchConfig,
    func: *const c_void,
    args: *mut *mut c_void,
) -> CudaError {
    entry(|| launch_ex(config, func, args, true))
}
