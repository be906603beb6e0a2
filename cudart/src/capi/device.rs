//! Devices: the runtime's device is the thread's choice (`cudaSetDevice`, 0 by default) and
//! its work runs in that device's primary context.

use std::ffi::{c_int, c_uint};

use super::{entry, out};
use crate::driver;
use crate::error::{self, CudaError, Error};
use crate::props::{self, Version};
use crate::state;

/// CUDART_VERSION of the headers this library follows.
const RUNTIME_VERSION: c_int = 13050;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> CudaError {
    entry(|| {
        let d = driver::get().map_err(|_| Error(error::NO_DEVICE))?;
        // SAFETY: checked for NULL.
        driver::check(unsafe { (d.cuDeviceGetCount)(out(count)?) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetDevice(dev: c_int) -> CudaError {
    entry(|| state::set_device(dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaInitDevice(
    dev: c_int,
    _flags: c_uint,
    _ctx_flags: c_uint,
) -> CudaError {
    entry(|| state::set_device(dev))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDevice(dev: *mut c_int) -> CudaError {
    entry(|| {
        *out(dev)? = state::ready()?.1;
        Ok(())
    })
}

/// Flags of the primary context (scheduling and host mapping) are accepted and have no
/// effect: ptxvk waits the same way under each, and maps host memory always.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaSetDeviceFlags(_flags: c_uint) -> CudaError {
    entry(|| state::ready().map(drop))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> CudaError {
    entry(|| {
        // cudaDeviceMapHost: host memory is always mapped.
        *out(flags)? = 0x08;
        Ok(())
    })
}

fn properties(prop: *mut u8, dev: c_int, version: Version) -> CudaError {
    entry(|| {
        if prop.is_null() {
            return Err(Error(error::INVALID_VALUE));
        }
        let d = driver::get()?;
        let mut count = 0;
        // SAFETY: an out-pointer to a local.
        driver::check(unsafe { (d.cuDeviceGetCount)(&mut count) })?;
        if dev < 0 || dev >= count {
            return Err(Error(error::INVALID_DEVICE));
        }
        // SAFETY: the caller's struct of this version's size.
        let buf = unsafe { std::slice::from_raw_parts_mut(prop, props::size(version)) };
        props::fill(d, dev, version, buf)
    })
}

/// CUDA 13's `cudaGetDeviceProperties` and its struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceProperties(prop: *mut u8, dev: c_int) -> CudaError {
    properties(prop, dev, Version::Cuda13)
}

/// CUDA 12's header names `cudaGetDeviceProperties` so; its struct is CUDA 12's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaGetDeviceProperties_v2(prop: *mut u8, dev: c_int) -> CudaError {
    properties(prop, dev, Version::Cuda12)
}

/// `cudaDeviceAttr` numbers the attributes as the driver's `CUdevice_attribute` does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetAttribute(
    value: *mut c_int,
    attr: c_int,
    dev: c_int,
) -> CudaError {
    entry(|| {
        let d = driver::get()?;
        // SAFETY: checked for NULL.
        driver::check(unsafe { (d.cuDeviceGetAttribute)(out(value)?, attr, dev) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSynchronize() -> CudaError {
    entry(|| {
        let (d, _) = state::ready()?;
        // SAFETY: a plain call into the driver.
        driver::check(unsafe { (d.cuCtxSynchronize)() })
    })
}

/// Destroys the current device's primary context and all it holds (`state::reset_device`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceReset() -> CudaError {
    entry(state::reset_device)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDriverGetVersion(version: *mut c_int) -> CudaError {
    entry(|| {
        let d = driver::get()?;
        // SAFETY: checked for NULL.
        driver::check(unsafe { (d.cuDriverGetVersion)(out(version)?) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaRuntimeGetVersion(version: *mut c_int) -> CudaError {
    entry(|| {
        *out(version)? = RUNTIME_VERSION;
        Ok(())
    })
}

/// Cache and shared-memory preferences are hints; ptxvk has one configuration.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetCacheConfig(_config: c_int) -> CudaError {
    entry(|| state::ready().map(drop))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetCacheConfig(config: *mut c_int) -> CudaError {
    entry(|| {
        // cudaFuncCachePreferNone
        *out(config)? = 0;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceCanAccessPeer(
    can: *mut c_int,
    _dev: c_int,
    _peer: c_int,
) -> CudaError {
    entry(|| {
        *out(can)? = 0;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaChooseDevice(dev: *mut c_int, _prop: *const u8) -> CudaError {
    entry(|| {
        *out(dev)? = 0;
        Ok(())
    })
}

/// Limits: the per-thread stack (fixed), the printf FIFO's and the device heap's sizes (the
/// driver's, set before the first kernel that uses them), and the device runtime's (no
/// device-side launches: reported as 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceGetLimit(value: *mut usize, limit: c_int) -> CudaError {
    entry(|| {
        *out(value)? = match limit {
            // cudaLimitStackSize: the per-thread stack of docs/architecture.md.
            0 => 4096,
            // cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize: CUlimit has the same numbers.
            1 | 2 => {
                let (d, _) = state::ready()?;
                let mut v = 0usize;
                // SAFETY: a plain call into the driver with a writable result.
                driver::check(unsafe { (d.cuCtxGetLimit)(&mut v, limit as c_uint) })?;
                v
            }
            3 | 4 => 0,
            _ => return Err(Error(error::NOT_SUPPORTED)),
        };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> CudaError {
    entry(|| match limit {
        0 if value <= 4096 => Ok(()),
        1 | 2 => {
            let (d, _) = state::ready()?;
            // SAFETY: a plain call into the driver.
            driver::check(unsafe { (d.cuCtxSetLimit)(limit as c_uint, value) })
        }
        _ => Err(Error(error::NOT_SUPPORTED)),
    })
}
