//! Libraries and kernels.

use std::ffi::{c_char, c_int, c_uint, c_void};

use super::module::{fill_log, image_bytes};
use super::{CUdevice, CUdeviceptr, Handle, c_str, entry, handle, id, put, put_new};
use crate::error::{CUresult, CuError, CuResult};
use crate::library::{self, KERNELS};
use crate::module::{self, FUNCTIONS};

/// The JIT options' logs are filled as `cuModuleLoadDataEx` fills them; library options
/// (CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE, CU_LIBRARY_BINARY_IS_PRESERVED) change
/// nothing here: the PTX is always kept.
fn load(
    out: *mut Handle,
    image: CuResult<&[u8]>,
    (n, options, values): (c_uint, *const c_int, *mut *mut c_void),
) -> CuResult<()> {
    let result = image.and_then(|img| {
        // SAFETY: NULL or writable.
        unsafe { put_new(out, || library::load(img)) }
    });
    let error_text = result
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    // SAFETY: CUDA's contract for the option arrays.
    unsafe { fill_log(n as usize, options, values, &error_text) };
    result
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadData(
    out: *mut Handle,
    code: *const c_void,
    jit_options: *const c_int,
    jit_values: *mut *mut c_void,
    num_jit: c_uint,
    lib_options: *const c_int,
    lib_values: *mut *mut c_void,
    num_lib: c_uint,
) -> CUresult {
    entry(
        "cuLibraryLoadData",
        format_args!(
            "out={out:#x?} code={code:#x?} numJitOptions={num_jit} libraryOptions={lib_options:#x?} libraryOptionValues={lib_values:#x?} numLibraryOptions={num_lib}"
        ),
        || {
            crate::device::check_init()?;
            // SAFETY: CUDA's contract for the image.
            let image = unsafe { image_bytes(code) };
            load(out, image, (num_jit, jit_options, jit_values))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    out: *mut Handle,
    file: *const c_char,
    jit_options: *const c_int,
    jit_values: *mut *mut c_void,
    num_jit: c_uint,
    lib_options: *const c_int,
    lib_values: *mut *mut c_void,
    num_lib: c_uint,
) -> CUresult {
    entry(
        "cuLibraryLoadFromFile",
        format_args!(
            "out={out:#x?} file={file:#x?} numJitOptions={num_jit} libraryOptions={lib_options:#x?} libraryOptionValues={lib_values:#x?} numLibraryOptions={num_lib}"
        ),
        || {
            crate::device::check_init()?;
            // SAFETY: a NUL-terminated file name.
            let path = unsafe { c_str(file) }?;
            let data = super::module::read_image_file(path)?;
            load(out, Ok(&data), (num_jit, jit_options, jit_values))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryUnload(lib: Handle) -> CUresult {
    entry("cuLibraryUnload", format_args!("lib={lib:#x?}"), || {
        crate::device::check_init()?;
        library::unload(id(lib))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernel(
    out: *mut Handle,
    lib: Handle,
    name: *const c_char,
) -> CUresult {
    entry(
        "cuLibraryGetKernel",
        format_args!("out={out:#x?} lib={lib:#x?} name={name:#x?}"),
        || {
            crate::device::check_init()?;
            // SAFETY: a NUL-terminated name.
            let name = unsafe { c_str(name) }?;
            // SAFETY: NULL or writable.
            unsafe { put_new(out, || library::kernel(id(lib), name)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetModule(out: *mut Handle, lib: Handle) -> CUresult {
    entry(
        "cuLibraryGetModule",
        format_args!("out={out:#x?} lib={lib:#x?}"),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(out, || library::module_of(id(lib))) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernelCount(count: *mut c_uint, lib: Handle) -> CUresult {
    entry(
        "cuLibraryGetKernelCount",
        format_args!("count={count:#x?} lib={lib:#x?}"),
        || {
            crate::device::check_init()?;
            let n = library::kernels(id(lib))?.len() as c_uint;
            // SAFETY: NULL or writable.
            unsafe { put(count, n) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryEnumerateKernels(
    out: *mut Handle,
    n: c_uint,
    lib: Handle,
) -> CUresult {
    entry(
        "cuLibraryEnumerateKernels",
        format_args!("out={out:#x?} n={n} lib={lib:#x?}"),
        || {
            crate::device::check_init()?;
            let all = library::kernels(id(lib))?;
            if out.is_null() || (n as usize) < all.len() {
                return Err(CuError::invalid(
                    "the array is NULL or smaller than the kernel count",
                ));
            }
            for (i, k) in all.into_iter().enumerate() {
                // SAFETY: `out` holds `n` entries by the caller's contract, and i < n.
                unsafe { out.add(i).write(handle(k)) };
            }
            Ok(())
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    lib: Handle,
    name: *const c_char,
) -> CUresult {
    entry(
        "cuLibraryGetGlobal",
        format_args!("dptr={dptr:#x?} bytes={bytes:#x?} lib={lib:#x?} name={name:#x?}"),
        || {
            // SAFETY: a NUL-terminated name.
            let name = unsafe { c_str(name) }?;
            let (addr, size) = module::global(library::module_of(id(lib))?, name)?;
            // SAFETY: each NULL (not wanted) or writable.
            unsafe {
                super::put_opt(dptr, addr);
                super::put_opt(bytes, size as usize);
            }
            Ok(())
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetFunction(out: *mut Handle, kernel: Handle) -> CUresult {
    entry(
        "cuKernelGetFunction",
        format_args!("out={out:#x?} kernel={kernel:#x?}"),
        || {
            // SAFETY: NULL or writable.
            unsafe { put_new(out, || library::function_of(id(kernel))) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, kernel: Handle) -> CUresult {
    entry(
        "cuKernelGetName",
        format_args!("name={name:#x?} kernel={kernel:#x?}"),
        || {
            crate::device::check_init()?;
            let k = KERNELS.get(id(kernel))?;
            // SAFETY: NULL or writable. The string lives in the kernel's registry entry, kept
            // until its library is unloaded.
            unsafe { put(name, k.name.as_ptr()) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetLibrary(lib: *mut Handle, kernel: Handle) -> CUresult {
    entry(
        "cuKernelGetLibrary",
        format_args!("lib={lib:#x?} kernel={kernel:#x?}"),
        || {
            crate::device::check_init()?;
            let k = KERNELS.get(id(kernel))?;
            // SAFETY: NULL or writable.
            unsafe { put(lib, handle(k.lib_id)) }
        },
    )
}

/// The kernel's function in the current context, which must be on `dev`.
fn function_on(kernel: Handle, dev: CUdevice) -> CuResult<std::sync::Arc<module::Func>> {
    let f = FUNCTIONS.get(library::function_of(id(kernel))?)?;
    if f.ctx.device != dev {
        return Err(CuError::InvalidDevice(dev));
    }
    Ok(f)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetAttribute(
    value: *mut c_int,
    attr: c_int,
    kernel: Handle,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuKernelGetAttribute",
        format_args!("value={value:#x?} attr={attr} kernel={kernel:#x?} dev={dev}"),
        || {
            let v = module::attribute(&*function_on(kernel, dev)?, attr)?;
            // SAFETY: NULL or writable.
            unsafe { put(value, v) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: c_int,
    value: c_int,
    kernel: Handle,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuKernelSetAttribute",
        format_args!("attr={attr} value={value} kernel={kernel:#x?} dev={dev}"),
        || module::set_attribute(&*function_on(kernel, dev)?, attr, value),
    )
}

/// Accepted without effect (see `cuCtxSetCacheConfig`), for a kernel that exists on `dev`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetCacheConfig(
    kernel: Handle,
    config: c_uint,
    dev: CUdevice,
) -> CUresult {
    entry(
        "cuKernelSetCacheConfig",
        format_args!("kernel={kernel:#x?} config={config} dev={dev}"),
        || {
            function_on(kernel, dev)?;
            super::context::check_cache_config(config)
        },
    )
}
