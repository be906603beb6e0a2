//! Memory: allocations, copies and fills through the driver. Pointers are the driver's
//! (unified addressing), so every copy direction but host to host goes through `cuMemcpy`,
//! which tells host from device memory by the address, as `cudaMemcpyDefault` does.
//!
//! Allocations live in `memory/alloc.rs`, the helpers copies and fills share in
//! `memory/copy.rs`, symbol copies in `memory/symbol.rs`, the per-thread default stream's
//! entry points in `memory/per_thread.rs`.

mod alloc;
mod copy;
mod per_thread;
mod symbol;

use std::ffi::{c_int, c_void};

use self::copy::{copy, copy_2d, fill};
use super::{Stream, entry};
use crate::driver::{self, DevPtr};
use crate::error::CudaError;
use crate::state;

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
