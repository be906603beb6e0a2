//! The C ABI: every exported function. Each one runs its body through [`entry`], which catches
//! panics and turns the typed result into a `CUresult`; pointers from the caller are checked
//! for NULL before use and handles are looked up in their tables.
//!
//! The functions are `unsafe extern "C"`: their safety contract is CUDA's documented one (every
//! non-NULL pointer is valid for what the function reads or writes).

#![allow(non_snake_case, clippy::missing_safety_doc)]

/// Exports `$alias` as another name of `$target`, which has the signature given. With
/// `per_thread $s`, the alias is a per-thread default stream form (`_ptsz`): its NULL stream
/// `$s` is the calling thread's default stream, CU_STREAM_PER_THREAD.
/// (build.rs reads `alias!(NAME =>` lines as entry points written by hand.)
macro_rules! alias {
    ($alias:ident => $target:ident($($arg:ident: $ty:ty),* $(,)?)) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $alias($($arg: $ty),*) -> CUresult {
            // SAFETY: the target's contract, which is the alias's.
            unsafe { $target($($arg),*) }
        }
    };
    ($alias:ident => $target:ident($($arg:ident: $ty:ty),* $(,)?), per_thread $s:ident) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $alias($($arg: $ty),*) -> CUresult {
            let $s = $crate::capi::per_thread_if_null($s);
            // SAFETY: the target's contract, which is the alias's.
            unsafe { $target($($arg),*) }
        }
    };
}

mod context;
mod copy2d;
mod device;
mod init;
mod launch;
mod library;
mod link;
mod memory;
mod module;
mod pointer;
mod stream;
mod tensor_map;
mod texture;

use std::collections::BTreeSet;
use std::ffi::{CStr, c_char, c_void};
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;

use crate::error::{
    CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_UNKNOWN, CUDA_SUCCESS, CUresult, CuError, CuResult,
};

pub type CUdevice = i32;
pub type CUdeviceptr = u64;
pub type Handle = *mut c_void;

/// A stream argument of a `_ptsz` entry point: NULL there is CU_STREAM_PER_THREAD.
pub(crate) fn per_thread_if_null(s: Handle) -> Handle {
    if s.is_null() {
        crate::stream::STREAM_PER_THREAD as Handle
    } else {
        s
    }
}

/// Runs an entry point's body: panics become CUDA_ERROR_UNKNOWN, errors their code. Every call,
/// its arguments (`args`, formatted only when logged) and its result are logged at debug level
/// (`PTXVK_LOG=ptxvk_cuda=debug`). Inlined, so that the arguments are only gathered where they
/// are logged.
#[inline(always)]
pub(crate) fn entry(
    name: &'static str,
    args: std::fmt::Arguments<'_>,
    body: impl FnOnce() -> CuResult<()>,
) -> CUresult {
    run(name, args, body)
}

/// [`entry`] for the calls a program makes most (launches): `args` writes the arguments and
/// runs only where the call is logged. (`format_args!` builds its table of arguments before
/// the call, in every call.)
#[inline(always)]
pub(crate) fn entry_lazy(
    name: &'static str,
    args: impl Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result,
    body: impl FnOnce() -> CuResult<()>,
) -> CUresult {
    run(name, Lazy(args), body)
}

/// Arguments written by a function, when displayed.
struct Lazy<F>(F);

impl<F: Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result> std::fmt::Display for Lazy<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.0)(f)
    }
}

#[inline(always)]
fn run(
    name: &'static str,
    args: impl std::fmt::Display,
    body: impl FnOnce() -> CuResult<()>,
) -> CUresult {
    crate::log::init();
    match std::panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            tracing::debug!(target: "ptxvk_cuda", "{name}({args}) -> CUDA_SUCCESS");
            CUDA_SUCCESS
        }
        Ok(Err(e)) => {
            crate::context::poison_current(&e);
            let code = e.code();
            tracing::debug!(
                target: "ptxvk_cuda",
                "{name}({args}) -> {} ({e})",
                crate::error::c_name(code).and_then(|c| c.to_str().ok()).unwrap_or("?")
            );
            code
        }
        Err(_) => {
            tracing::error!(target: "ptxvk_cuda", "{name}({args}) panicked; returning CUDA_ERROR_UNKNOWN");
            CUDA_ERROR_UNKNOWN
        }
    }
}

/// What every entry point without an implementation returns; its name is logged once.
pub(crate) fn not_supported(name: &'static str) -> CUresult {
    static SEEN: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    crate::log::init();
    let first = SEEN.lock().map(|mut s| s.insert(name)).unwrap_or(false);
    if first {
        tracing::warn!(target: "ptxvk_cuda", "{name} is not implemented by ptxvk (CUDA_ERROR_NOT_SUPPORTED)");
    }
    CUDA_ERROR_NOT_SUPPORTED
}

/// Writes `value` through a caller's out-pointer; NULL is an invalid value.
///
/// # Safety
/// `p` is NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(p: *mut T, value: T) -> CuResult<()> {
    if p.is_null() {
        return Err(CuError::invalid("a NULL output pointer"));
    }
    // SAFETY: non-NULL, and valid by the caller's contract.
    unsafe { p.write(value) };
    Ok(())
}

/// Makes an object with `make` and writes its handle through `out`, which is checked for NULL
/// first (nothing is made then).
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_new(
    out: *mut Handle,
    make: impl FnOnce() -> CuResult<usize>,
) -> CuResult<()> {
    if out.is_null() {
        return Err(CuError::invalid("a NULL handle pointer"));
    }
    let id = make()?;
    // SAFETY: non-NULL, and valid by the caller's contract.
    unsafe { out.write(handle(id)) };
    Ok(())
}

/// Writes through an out-pointer the caller may leave NULL.
///
/// # Safety
/// As [`put`].
pub(crate) unsafe fn put_opt<T>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: non-NULL, and valid by the caller's contract.
        unsafe { p.write(value) };
    }
}

/// A caller's NUL-terminated string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> CuResult<&'a str> {
    if p.is_null() {
        return Err(CuError::invalid("a NULL string"));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map_err(|_| CuError::invalid("a string that is not UTF-8"))
}

/// `len` bytes of caller memory.
///
/// # Safety
/// `p` is NULL or valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a>(p: *const c_void, len: usize) -> CuResult<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(CuError::invalid("a NULL host pointer"));
    }
    // SAFETY: non-NULL and valid for `len` bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// `len` writable bytes of caller memory.
///
/// # Safety
/// `p` is NULL or valid for writes of `len` bytes for `'a`, and not otherwise borrowed.
pub(crate) unsafe fn bytes_mut<'a>(p: *mut c_void, len: usize) -> CuResult<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(CuError::invalid("a NULL host pointer"));
    }
    // SAFETY: non-NULL and valid for `len` bytes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) })
}

pub(crate) fn id(h: Handle) -> usize {
    h as usize
}

pub(crate) fn handle(id: usize) -> Handle {
    id as Handle
}

/// An entry point that exists in cuda.h but has no implementation here.
macro_rules! stub {
    ($name:ident) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> CUresult {
            not_supported(stringify!($name))
        }
    };
}

#[allow(unused_imports)]
use self::{
    context::*, copy2d::*, device::*, init::*, launch::*, library::*, link::*, memory::*,
    module::*, pointer::*, stream::*, tensor_map::*, texture::*,
};

include!(concat!(env!("OUT_DIR"), "/entries.rs"));
