//! Copies to and from registered variables (`__device__` symbols), their addresses and sizes.

use std::ffi::{c_int, c_void};

use super::copy::copy;
use crate::capi::{Stream, entry, out};
use crate::driver::DevPtr;
use crate::error::{self, CudaError, Error, Result};
use crate::state::{self, Addr};

/// The device address of `[offset, offset + n)` of a registered variable.
pub(super) fn symbol_range(symbol: *const c_void, n: usize, offset: usize) -> Result<DevPtr> {
    let (_, ptr, size) = state::symbol(Addr(symbol as usize))?;
    if offset.checked_add(n).is_none_or(|end| end > size) {
        return Err(Error(error::INVALID_VALUE));
    }
    Ok(ptr + offset as DevPtr)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbol(
    symbol: *const c_void,
    src: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        copy(
            symbol_range(symbol, n, offset)? as *mut c_void,
            src,
            n,
            kind.max(1),
            None,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(
    dst: *mut c_void,
    symbol: *const c_void,
    n: usize,
    offset: usize,
    kind: c_int,
) -> CudaError {
    entry(|| {
        copy(
            dst,
            symbol_range(symbol, n, offset)? as *const c_void,
            n,
            kind.max(1),
            None,
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
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
            Some(s),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
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
            Some(s),
        )
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolAddress(
    dev: *mut *mut c_void,
    symbol: *const c_void,
) -> CudaError {
    entry(|| {
        let p = out(dev)?;
        *p = state::symbol(Addr(symbol as usize))?.1 as *mut c_void;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, symbol: *const c_void) -> CudaError {
    entry(|| {
        let p = out(size)?;
        *p = state::symbol(Addr(symbol as usize))?.2;
        Ok(())
    })
}
