//! Allocations, copies and fills.
//!
//! Device allocations live in `memory/alloc.rs`, host memory in `memory/host_memory.rs`, fills in
//! `memory/fill.rs`; this file holds the copies, and `memory/route.rs` what they share with
//! the fills.

mod alloc;
mod fill;
mod host_memory;
mod route;

use std::ffi::c_void;

pub use self::alloc::*;
pub use self::fill::*;
pub use self::host_memory::*;
use self::route::{dtoh, htod, stream_of, unified};
use super::{CUdeviceptr, Handle, entry};
use crate::copy;
use crate::error::CUresult;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
) -> CUresult {
    entry(
        "cuMemcpyHtoD_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || htod(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyHtoDAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || htod(dst, src, n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpyDtoH_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || dtoh(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyDtoHAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || dtoh(dst, src, n, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpyDtoD_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || copy::dtod(dst, src, n as u64, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyDtoDAsync_v2",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || copy::dtod(dst, src, n as u64, stream_of(s)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    entry(
        "cuMemcpy",
        format_args!("dst={:#x?} src={:#x?} n={:#x?}", dst, src, n),
        || unified(dst, src, n, None),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: Handle,
) -> CUresult {
    entry(
        "cuMemcpyAsync",
        format_args!("dst={:#x?} src={:#x?} n={:#x?} s={:#x?}", dst, src, n, s),
        || unified(dst, src, n, stream_of(s)),
    )
}

// The per-thread default stream forms of the copies: a `_ptsz` form's NULL stream is the
// calling thread's default stream; a `_ptds` form completes before it returns, after all
// earlier work in the context, which includes that stream's.
alias!(cuMemcpyHtoD_v2_ptds => cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, n: usize));
alias!(cuMemcpyDtoH_v2_ptds => cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize));
alias!(cuMemcpyDtoD_v2_ptds => cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize));
alias!(cuMemcpy_ptds => cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize));
alias!(cuMemcpyHtoDAsync_v2_ptsz => cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyDtoHAsync_v2_ptsz => cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyDtoDAsync_v2_ptsz => cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
alias!(cuMemcpyAsync_ptsz => cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, n: usize, s: Handle), per_thread s);
