//! The C ABI: every exported function. Each body runs through [`entry`], which catches panics,
//! turns the typed result into a `cudaError_t` and records a failure as the thread's last
//! error. Their safety contract is CUDA's documented one (every non-NULL pointer is valid for
//! what the function reads or writes).

#![allow(non_snake_case, clippy::missing_safety_doc)]

mod device;
mod launch;
mod memory;
mod misc;
mod register;
mod stream;
mod texture;

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;

use crate::error::{self, CudaError, Error, Result};

pub type Stream = *mut std::ffi::c_void;

/// `dim3`, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// cudaStreamPerThread: the driver's CU_STREAM_PER_THREAD.
pub(crate) const PER_THREAD: Stream = 2 as Stream;

/// A stream argument of a `_ptsz` entry point (a program built with `--default-stream
/// per-thread`): NULL there is the calling thread's default stream.
pub(crate) fn per_thread(s: Stream) -> Stream {
    if s.is_null() { PER_THREAD } else { s }
}

/// Runs an entry point's body: a panic becomes cudaErrorUnknown; a failure is also the
/// thread's last error.
pub(crate) fn entry(body: impl FnOnce() -> Result<()>) -> CudaError {
    let code = match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => error::SUCCESS,
        Ok(Err(Error(code))) => code,
        Err(_) => error::UNKNOWN,
    };
    error::record(code);
    code
}

/// `p` as a reference to write through, or cudaErrorInvalidValue for NULL.
pub(crate) fn out<'a, T>(p: *mut T) -> Result<&'a mut T> {
    // SAFETY: non-NULL pointers are valid for writes (the entry points' contract).
    unsafe { p.as_mut() }.ok_or(Error(error::INVALID_VALUE))
}

/// An entry point not implemented: says so once per name on stderr.
pub(crate) fn not_supported(name: &'static str) -> CudaError {
    static SAID: Mutex<BTreeSet<&str>> = Mutex::new(BTreeSet::new());
    let _ = std::panic::catch_unwind(|| {
        if SAID.lock().unwrap_or_else(|p| p.into_inner()).insert(name) {
            eprintln!("ptxvk libcudart: {name} is not supported yet");
        }
    });
    error::record(error::NOT_SUPPORTED);
    error::NOT_SUPPORTED
}

macro_rules! stub {
    ($name:ident) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> CudaError {
            not_supported(stringify!($name))
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/stubs.rs"));
