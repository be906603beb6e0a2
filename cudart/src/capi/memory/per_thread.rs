//! The `_ptds`/`_ptsz` entry points of programs built with `--default-stream per-thread`: the
//! same copies and fills on the calling thread's default stream.

use std::ffi::{c_int, c_void};

use super::copy::{copy, copy_2d, fill};
use super::symbol::symbol_range;
use crate::capi::{PER_THREAD, Stream, entry, per_thread};
use crate::driver;
use crate::error::{CudaError, Result};
use crate::state;

/// A synchronous call of a `_ptds` entry point (`--default-stream per-thread`): the work goes
/// to the calling thread's default stream, which is then waited for.
fn on_per_thread_stream(work: impl FnOnce(Stream) -> Result<()>) -> Result<()> {
    work(PER_THREAD)?;
    let (d, _) = state::ready()?;
    // SAFETY: the per-thread default stream.
    driver::check(unsafe { (d.cuStreamSynchronize)(PER_THREAD) })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy_ptds(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
) -> CudaError {
    entry(|| on_per_thread_stream(|s| copy(dst, src, n, kind, Some(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyAsync_ptsz(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| copy(dst, src, n, kind, Some(per_thread(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemset_ptds(ptr: *mut c_void, value: c_int, n: usize) -> CudaError {
    entry(|| on_per_thread_stream(|s| fill(state::ready()?.0, ptr, value, n, Some(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemsetAsync_ptsz(
    ptr: *mut c_void,
    value: c_int,
    n: usize,
    s: Stream,
) -> CudaError {
    entry(|| fill(state::ready()?.0, ptr, value, n, Some(per_thread(s))))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2D_ptds(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| copy_2d(dst, dpitch, src, spitch, width, height, kind, Some(s)))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpy2DAsync_ptsz(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy_2d(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            kind,
            Some(per_thread(s)),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol_ptds(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| {
            copy(
                symbol_range(symbol, n, offset)? as *mut c_void,
                src,
                n,
                kind.max(1),
                Some(s),
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol_ptds(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        on_per_thread_stream(|s| {
            copy(
                dst,
                symbol_range(symbol, n, offset)? as *const c_void,
                n,
                kind.max(1),
                Some(s),
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync_ptsz(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            symbol_range(symbol, n, offset)? as *mut c_void,
            src,
            n,
            kind.max(1),
            Some(per_thread(s)),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync_ptsz(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
    s: Stream,
) -> CudaError {
    entry(|| {
        copy(
            dst,
            symbol_range(symbol, n, offset)? as *const c_void,
            n,
            kind.max(1),
            Some(per_thread(s)),
        )
    })
}
