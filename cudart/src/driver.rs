//! The driver API this library sits on: `libcuda.so.1`, loaded at the first call that needs
//! a device (ptxvk's own, which `ptxvk exec` puts first on the loader's path), so that a
//! program mixing runtime and driver calls sees one state: the same primary contexts, the
//! same pointers, streams and events.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use crate::error::{self, Error, Result};

pub type CUresult = c_int;
pub type Ptr = *mut c_void;
pub type DevPtr = u64;

macro_rules! driver {
    ($($name:ident($($arg:ty),* $(,)?);)*) => {
        #[allow(non_snake_case)]
        pub struct Driver {
            $(pub $name: unsafe extern "C" fn($($arg),*) -> CUresult,)*
            _lib: libloading::Library,
        }

        impl Driver {
            fn load(lib: libloading::Library) -> std::result::Result<Driver, String> {
                $(
                    // SAFETY: the symbol is cuda.h's function of this name, whose C signature
                    // the field's type spells.
                    let $name = *unsafe {
                        lib.get::<unsafe extern "C" fn($($arg),*) -> CUresult>(
                            concat!(stringify!($name), "\0").as_bytes(),
                        )
                    }
                    .map_err(|e| format!("{}: {e}", stringify!($name)))?;
                )*
                Ok(Driver { $($name,)* _lib: lib })
            }
        }
    };
}

driver! {
    cuInit(c_uint);
    cuDriverGetVersion(*mut c_int);
    cuDeviceGetCount(*mut c_int);
    cuDeviceGetName(*mut c_char, c_int, c_int);
    cuDeviceGetUuid(*mut u8, c_int);
    cuDeviceTotalMem_v2(*mut usize, c_int);
    cuDeviceGetAttribute(*mut c_int, c_int, c_int);
    cuDevicePrimaryCtxRetain(*mut Ptr, c_int);
    cuDevicePrimaryCtxReset_v2(c_int);
    cuCtxGetCurrent(*mut Ptr);
    cuCtxSetCurrent(Ptr);
    cuCtxGetDevice(*mut c_int);
    cuCtxSynchronize();
    cuCtxGetLimit(*mut usize, c_uint);
    cuCtxSetLimit(c_uint, usize);
    cuModuleLoadData(*mut Ptr, *const c_void);
    cuModuleGetFunction(*mut Ptr, Ptr, *const c_char);
    cuLinkCreate_v2(c_uint, *mut c_int, *mut *mut c_void, *mut Ptr);
    cuLinkAddData_v2(Ptr, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void);
    cuLinkComplete(Ptr, *mut *mut c_void, *mut usize);
    cuLinkDestroy(Ptr);
    cuModuleGetGlobal_v2(*mut DevPtr, *mut usize, Ptr, *const c_char);
    cuLaunchKernel(Ptr, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Ptr, *mut *mut c_void, *mut *mut c_void);
    cuLaunchCooperativeKernel(Ptr, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Ptr, *mut *mut c_void);
    cuFuncGetAttribute(*mut c_int, c_int, Ptr);
    cuFuncSetAttribute(Ptr, c_int, c_int);
    cuFuncSetCacheConfig(Ptr, c_int);
    cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(*mut c_int, Ptr, c_int, usize, c_uint);
    cuMemAlloc_v2(*mut DevPtr, usize);
    cuMemAllocPitch_v2(*mut DevPtr, *mut usize, usize, usize, c_uint);
    cuMemFree_v2(DevPtr);
    cuMemHostAlloc(*mut Ptr, usize, c_uint);
    cuMemFreeHost(Ptr);
    cuMemHostGetDevicePointer_v2(*mut DevPtr, Ptr, c_uint);
    cuMemHostRegister_v2(Ptr, usize, c_uint);
    cuMemHostUnregister(Ptr);
    cuMemAllocManaged(*mut DevPtr, usize, c_uint);
    cuMemGetInfo_v2(*mut usize, *mut usize);
    cuMemcpy(DevPtr, DevPtr, usize);
    cuMemcpyAsync(DevPtr, DevPtr, usize, Ptr);
    cuMemcpy2D_v2(*const c_void);
    cuMemcpy2DAsync_v2(*const c_void, Ptr);
    cuMemsetD8_v2(DevPtr, u8, usize);
    cuMemsetD8Async(DevPtr, u8, usize, Ptr);
    cuMemsetD2D8_v2(DevPtr, usize, u8, usize, usize);
    cuPointerGetAttribute(*mut c_void, c_int, DevPtr);
    cuStreamCreateWithPriority(*mut Ptr, c_uint, c_int);
    cuStreamDestroy_v2(Ptr);
    cuStreamSynchronize(Ptr);
    cuStreamQuery(Ptr);
    cuStreamWaitEvent(Ptr, Ptr, c_uint);
    cuStreamGetPriority(Ptr, *mut c_int);
    cuStreamGetFlags(Ptr, *mut c_uint);
    cuLaunchHostFunc(Ptr, Ptr, Ptr);
    cuEventCreate(*mut Ptr, c_uint);
    cuEventRecord(Ptr, Ptr);
    cuEventSynchronize(Ptr);
    cuEventQuery(Ptr);
    cuEventElapsedTime_v2(*mut f32, Ptr, Ptr);
    cuEventDestroy_v2(Ptr);
    cuArrayCreate_v2(*mut Ptr, *const c_void);
    cuArrayDestroy(Ptr);
    cuTexObjectCreate(*mut u64, *const c_void, *const c_void, *const c_void);
    cuTexObjectDestroy(u64);
    cuTexObjectGetResourceDesc(*mut c_void, u64);
}

/// The loaded driver, or the runtime error every call then returns (no libcuda.so.1 on the
/// loader's path: cudaErrorInsufficientDriver, as NVIDIA's runtime answers without a driver).
pub fn get() -> Result<&'static Driver> {
    static DRIVER: OnceLock<std::result::Result<Driver, String>> = OnceLock::new();
    let loaded = DRIVER.get_or_init(|| {
        // SAFETY: loading runs the library's initialisers; libcuda.so.1's have no preconditions.
        let lib = unsafe { libloading::Library::new("libcuda.so.1") }.map_err(|e| {
            format!("cannot load libcuda.so.1 ({e}); run the program with `ptxvk exec -- PROGRAM`")
        })?;
        let d = Driver::load(lib)?;
        // SAFETY: a plain call into the driver.
        let r = unsafe { (d.cuInit)(0) };
        if r != 0 {
            return Err(format!("cuInit failed with CUresult {r}"));
        }
        Ok(d)
    });
    loaded.as_ref().map_err(|msg| {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| eprintln!("ptxvk libcudart: {msg}"));
        Error(error::INSUFFICIENT_DRIVER)
    })
}

/// A driver call's result as the runtime's.
pub fn check(code: CUresult) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error(error::from_driver(code)))
    }
}
