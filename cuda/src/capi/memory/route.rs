//! The way a copy goes (host to device, device to host, or told by the pointers as
//! `cuMemcpy` does) and the stream a handle names, shared by the copies and fills.

use std::ffi::c_void;

use crate::capi::{CUdeviceptr, Handle, bytes, bytes_mut, id};
use crate::copy;
use crate::error::{CuError, CuResult};

pub(super) fn htod(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    stream: Option<usize>,
) -> CuResult<()> {
    // SAFETY: `src` is readable for `n` bytes by the caller's contract.
    let data = unsafe { bytes(src, n) }?;
    copy::htod(dst, data, stream)
}

pub(super) fn dtoh(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    stream: Option<usize>,
) -> CuResult<()> {
    // SAFETY: `dst` is writable for `n` bytes by the caller's contract.
    let out = unsafe { bytes_mut(dst, n) }?;
    copy::dtoh(out, src, stream)
}

/// `cuMemcpy`: the direction from the pointers (device memory of the context, or host).
pub(super) fn unified(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    stream: Option<usize>,
) -> CuResult<()> {
    match (copy::is_device(dst, stream)?, copy::is_device(src, stream)?) {
        (true, true) => copy::dtod(dst, src, n as u64, stream),
        (true, false) => htod(dst, src as *const c_void, n, stream),
        (false, true) => dtoh(dst as *mut c_void, src, n, stream),
        (false, false) => {
            if n > 0 && (dst == 0 || src == 0) {
                return Err(CuError::invalid("a NULL pointer"));
            }
            // SAFETY: both are host pointers valid for `n` bytes by the caller's contract;
            // `copy` allows overlap.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
            Ok(())
        }
    }
}

pub(super) fn stream_of(h: Handle) -> Option<usize> {
    Some(id(h))
}
