//! Initialisation, versions, errors and entry-point lookup.

use std::ffi::{c_char, c_int, c_void};

use super::{c_str, entry, put};
use crate::error::{CUresult, CuError, CuResult};
use crate::proc_address::{self, DRIVER_VERSION, Miss};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuInit(flags: u32) -> CUresult {
    entry("cuInit", format_args!("flags={:#x?}", flags), || {
        if flags != 0 {
            return Err(CuError::invalid(format!("cuInit flags {flags:#x}")));
        }
        crate::device::init()
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    // SAFETY: `version` is NULL or writable (CUDA's contract).
    entry(
        "cuDriverGetVersion",
        format_args!("version={:#x?}", version),
        || unsafe { put(version, DRIVER_VERSION) },
    )
}

/// Writes the string `lookup` gives for `code`, or NULL and an invalid value for an unknown
/// code, as CUDA does.
fn error_text(
    code: CUresult,
    out: *mut *const c_char,
    lookup: fn(CUresult) -> Option<&'static std::ffi::CStr>,
) -> CuResult<()> {
    let text = lookup(code);
    // SAFETY: `out` is NULL or writable by the caller's contract.
    unsafe { put(out, text.map_or(std::ptr::null(), |t| t.as_ptr())) }?;
    text.map(drop)
        .ok_or_else(|| CuError::invalid(format!("CUresult {code}")))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorName(code: CUresult, out: *mut *const c_char) -> CUresult {
    entry(
        "cuGetErrorName",
        format_args!("code={:#x?} out={:#x?}", code, out),
        || error_text(code, out, crate::error::c_name),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorString(code: CUresult, out: *mut *const c_char) -> CUresult {
    entry(
        "cuGetErrorString",
        format_args!("code={:#x?} out={:#x?}", code, out),
        || error_text(code, out, crate::error::c_description),
    )
}

/// `CUdriverProcAddressQueryResult`.
const SYMBOL_SUCCESS: c_int = 0;
const SYMBOL_NOT_FOUND: c_int = 1;
const VERSION_NOT_SUFFICIENT: c_int = 2;

/// # Safety
/// CUDA's contract for `cuGetProcAddress_v2`.
unsafe fn get_proc_address(
    name: &'static str,
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    let args = format_args!(
        "symbol={symbol:#x?} pfn={pfn:#x?} cudaVersion={cuda_version} flags={flags:x} symbolStatus={status:#x?}"
    );
    entry(name, args, || {
        if pfn.is_null() {
            return Err(CuError::invalid("pfn is NULL"));
        }
        // SAFETY: `pfn` is non-NULL and writable.
        unsafe { pfn.write(std::ptr::null_mut()) };
        // SAFETY: a NUL-terminated name by the caller's contract.
        let symbol = unsafe { c_str(symbol) }?;
        // CU_GET_PROC_ADDRESS_DEFAULT (0), LEGACY_STREAM (1), PER_THREAD_DEFAULT_STREAM (2).
        if flags > 2 {
            return Err(CuError::invalid(format!("flags {flags:#x}")));
        }
        let found = proc_address::resolve(symbol, cuda_version, flags)
            .and_then(|s| crate::capi::lookup(s.as_bytes()).ok_or(Miss::NotFound));
        let (result, code) = match found {
            Ok(f) => {
                // SAFETY: `pfn` is non-NULL and writable.
                unsafe { pfn.write(f.cast_mut()) };
                (Ok(()), SYMBOL_SUCCESS)
            }
            Err(Miss::NotFound) => (Err(CuError::NotFound(symbol.to_string())), SYMBOL_NOT_FOUND),
            Err(Miss::VersionNotSufficient) => (
                Err(CuError::NotFound(format!(
                    "{symbol} at CUDA version {cuda_version}"
                ))),
                VERSION_NOT_SUFFICIENT,
            ),
        };
        if !status.is_null() {
            // SAFETY: non-NULL and writable.
            unsafe { status.write(code) };
        }
        result
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
) -> CUresult {
    // SAFETY: the same contract.
    unsafe {
        get_proc_address(
            "cuGetProcAddress",
            symbol,
            pfn,
            cuda_version,
            flags,
            std::ptr::null_mut(),
        )
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetProcAddress_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cuda_version: c_int,
    flags: u64,
    status: *mut c_int,
) -> CUresult {
    // SAFETY: the same contract.
    unsafe {
        get_proc_address(
            "cuGetProcAddress_v2",
            symbol,
            pfn,
            cuda_version,
            flags,
            status,
        )
    }
}

/// NVIDIA's private tables (cudart uses them): not provided, so callers take their fallbacks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetExportTable(
    table: *mut *const c_void,
    _id: *const c_void,
) -> CUresult {
    if !table.is_null() {
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { table.write(std::ptr::null()) };
    }
    super::not_supported("cuGetExportTable")
}

// Other names of the same entry points: their `_v2`/older forms with the same signature,
// and the per-thread default stream forms: a `_ptsz` form's NULL stream is the calling
// thread's default stream; a `_ptds` form completes before it returns, after all earlier work
// in the context, which includes that stream's.
alias!(cuGetProcAddress_v2_ptsz => cuGetProcAddress_v2(symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: u64, status: *mut c_int));
