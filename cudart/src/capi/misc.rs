//! Errors, kernel attributes and occupancy, channel descriptions.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::{entry, out};
use crate::driver;
use crate::error::{self, CudaError};
use crate::state::{self, Addr};

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetLastError() -> CudaError {
    error::last(true)
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaPeekAtLastError() -> CudaError {
    error::last(false)
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorName(code: CudaError) -> *const c_char {
    error::as_ptr(error::name(code).unwrap_or(c"cudaErrorUnknown"))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaGetErrorString(code: CudaError) -> *const c_char {
    error::as_ptr(error::description(code))
}

/// struct cudaFuncAttributes (CUDA 12 and 13: the same size; 13 names one reserved int).
#[repr(C)]
pub struct FuncAttributes {
    shared_size_bytes: usize,
    const_size_bytes: usize,
    local_size_bytes: usize,
    /// maxThreadsPerBlock through nonPortableClusterSizeAllowed: CU_FUNC_ATTRIBUTE_* 0 and
    /// 4-14 in the struct's order.
    ints: [c_int; 13],
    reserved: [c_int; 16],
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncGetAttributes(
    attrs: *mut FuncAttributes,
    func: *const c_void,
) -> CudaError {
    entry(|| {
        let a = out(attrs)?;
        let (d, f) = state::function(Addr(func as usize))?;
        let get = |attr: c_int| {
            let mut v = 0;
            // SAFETY: a function of the current context; an out-pointer to a local.
            driver::check(unsafe { (d.cuFuncGetAttribute)(&mut v, attr, f) }).map(|()| v)
        };
        let size = |attr| get(attr).map(|v| usize::try_from(v).unwrap_or(0));
        a.shared_size_bytes = size(1)?;
        a.const_size_bytes = size(2)?;
        a.local_size_bytes = size(3)?;
        for (slot, attr) in a
            .ints
            .iter_mut()
            .zip([0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14])
        {
            // CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE (15) comes before 14 in
            // the struct; an attribute the driver does not know reads as 0.
            *slot = get(attr).unwrap_or(0);
        }
        a.reserved = [0; 16];
        Ok(())
    })
}

/// cudaFuncAttribute numbers its attributes as CU_FUNC_ATTRIBUTE_* does (8: the dynamic
/// shared memory limit, 9: the carveout).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncSetAttribute(
    func: *const c_void,
    attr: c_int,
    value: c_int,
) -> CudaError {
    entry(|| {
        let (d, f) = state::function(Addr(func as usize))?;
        // SAFETY: a function of the current context.
        driver::check(unsafe { (d.cuFuncSetAttribute)(f, attr, value) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, config: c_int) -> CudaError {
    entry(|| {
        let (d, f) = state::function(Addr(func as usize))?;
        // SAFETY: a function of the current context.
        driver::check(unsafe { (d.cuFuncSetCacheConfig)(f, config) })
    })
}

fn occupancy(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    shared: usize,
    flags: c_uint,
) -> CudaError {
    entry(|| {
        let b = out(blocks)?;
        let (d, f) = state::function(Addr(func as usize))?;
        // SAFETY: a function of the current context; an out-pointer.
        driver::check(unsafe {
            (d.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)(
                b, f, block_size, shared, flags,
            )
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    shared: usize,
) -> CudaError {
    occupancy(blocks, func, block_size, shared, 0)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    func: *const c_void,
    block_size: c_int,
    shared: usize,
    flags: c_uint,
) -> CudaError {
    occupancy(blocks, func, block_size, shared, flags)
}

/// struct cudaChannelFormatDesc.
#[repr(C)]
pub struct ChannelFormatDesc {
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaCreateChannelDesc(
    x: c_int,
    y: c_int,
    z: c_int,
    w: c_int,
    f: c_int,
) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// Profiler markers: there is no profiler to tell.
#[unsafe(no_mangle)]
pub extern "C" fn cudaProfilerStart() -> CudaError {
    error::SUCCESS
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaProfilerStop() -> CudaError {
    error::SUCCESS
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetKernel(
    kernel: *mut *const c_void,
    func: *const c_void,
) -> CudaError {
    entry(|| {
        state::function(Addr(func as usize))?;
        *out(kernel)? = func;
        Ok(())
    })
}
