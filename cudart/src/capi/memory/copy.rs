//! What the copy and fill entry points share: the direction check, the plain and pitched
//! copies through the driver, and the byte fill.

use std::ffi::{c_int, c_uint, c_void};

use crate::capi::Stream;
use crate::driver::{self, DevPtr, Driver};
use crate::error::{self, CudaError, Error, Result};
use crate::state;

const HOST_TO_HOST: c_int = 0;
const DEFAULT: c_int = 4;
/// cudaErrorInvalidMemcpyDirection
const INVALID_DIRECTION: CudaError = 21;

pub(super) fn copy(
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
pub(super) fn copy_2d(
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

pub(super) fn fill(
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
