//! Modules and functions.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

use super::{CUdeviceptr, Handle, c_str, entry, handle, id, put, put_new};
use crate::error::{CUresult, CuError, CuResult};
use crate::module::{self, FUNCTIONS};
use crate::{context, fatbin};

/// The image as bytes: PTX text up to its NUL; a fatbinary whole (its header gives its
/// length), also through the `__fatBinC_Wrapper_t` that nvcc's host code passes; or the first
/// bytes of another binary image (a cubin, which holds a NUL within its header), enough to
/// tell what it is.
///
/// # Safety
/// `image` is NULL or points to a NUL-terminated PTX string, a fatbinary, a fatbinary wrapper
/// or a cubin.
pub(super) unsafe fn image_bytes<'a>(image: *const c_void) -> CuResult<&'a [u8]> {
    if image.is_null() {
        return Err(CuError::invalid("image is NULL"));
    }
    let p = image.cast::<u8>();
    // The first bytes one at a time, up to a NUL: no magic holds one, so a PTX string
    // shorter than a magic is never read past its end.
    let mut first = [0u8; 4];
    for (i, b) in first.iter_mut().enumerate() {
        // SAFETY: every byte before this one was not NUL, so this one is still the image's.
        *b = unsafe { p.add(i).read() };
        if *b == 0 {
            break;
        }
    }
    match u32::from_le_bytes(first) {
        fatbin::FATBIN_MAGIC => {
            // SAFETY: a fatbinary, by its magic.
            unsafe { fatbin_at(p) }
        }
        fatbin::WRAPPER_MAGIC => {
            // SAFETY: a wrapper, by its magic: 24 bytes on a 64-bit host.
            let bytes = unsafe { p.cast::<[u8; fatbin::WRAPPER_LEN]>().read_unaligned() };
            let wrapper = fatbin::parse_wrapper(&bytes)?;
            if wrapper.data == 0 {
                return Err(CuError::InvalidImage(
                    "the fatbinary wrapper points at no container".into(),
                ));
            }
            // SAFETY: the wrapper's data is the container nvcc embedded.
            unsafe { fatbin_at(wrapper.data as usize as *const u8) }
        }
        // SAFETY: by the caller's contract the image contains a NUL byte.
        _ => Ok(unsafe { CStr::from_ptr(image.cast::<c_char>()) }.to_bytes()),
    }
}

/// The largest fatbinary read through a pointer: a header claiming more is damaged.
const FATBIN_MAX_LEN: u64 = 1 << 32;

/// A fatbinary container in memory, as long as its header says.
///
/// # Safety
/// `p` points to a fatbinary container of the length its header gives.
unsafe fn fatbin_at<'a>(p: *const u8) -> CuResult<&'a [u8]> {
    // SAFETY: a container starts with its header.
    let header = unsafe { p.cast::<[u8; fatbin::HEADER_LEN]>().read_unaligned() };
    let len = fatbin::container_len(&header)?;
    if len > FATBIN_MAX_LEN {
        return Err(CuError::InvalidImage(format!(
            "the fatbinary header claims {len} bytes"
        )));
    }
    // SAFETY: the container is as long as its header says, by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p, len as usize) })
}

fn load(pmod: *mut Handle, name: &str, image: &[u8]) -> CuResult<()> {
    if pmod.is_null() {
        return Err(CuError::invalid("module is NULL"));
    }
    let (ctx_id, ctx) = context::current()?;
    let m = module::load(ctx_id, ctx, name, image)?;
    // SAFETY: non-NULL and writable.
    unsafe { put(pmod, handle(m)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadData(pmod: *mut Handle, image: *const c_void) -> CUresult {
    entry(
        "cuModuleLoadData",
        format_args!("pmod={:#x?} image={:#x?}", pmod, image),
        || {
            // SAFETY: CUDA's contract for the image.
            load(pmod, "module.ptx", unsafe { image_bytes(image) }?)
        },
    )
}

/// The PTX of a fatbinary (or of the wrapper nvcc's host code registers); PTX text and
/// cubins are taken as `cuModuleLoadData` takes them, as CUDA does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadFatBinary(
    pmod: *mut Handle,
    fat_cubin: *const c_void,
) -> CUresult {
    entry(
        "cuModuleLoadFatBinary",
        format_args!("pmod={:#x?} fatCubin={:#x?}", pmod, fat_cubin),
        || {
            // SAFETY: CUDA's contract for the image.
            load(pmod, "fatbinary.ptx", unsafe { image_bytes(fat_cubin) }?)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoad(pmod: *mut Handle, fname: *const c_char) -> CUresult {
    entry(
        "cuModuleLoad",
        format_args!("pmod={:#x?} fname={:#x?}", pmod, fname),
        || {
            // SAFETY: a NUL-terminated file name.
            let path = unsafe { c_str(fname) }?;
            load(pmod, path, &read_image_file(path)?)
        },
    )
}

/// A module or library file: a fatbinary whole; PTX up to its first NUL, as text in memory.
pub(super) fn read_image_file(path: &str) -> CuResult<Vec<u8>> {
    let mut data = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CuError::FileNotFound(path.to_string()),
        _ => CuError::invalid(format!("{path}: {e}")),
    })?;
    if data.starts_with(&fatbin::FATBIN_MAGIC.to_le_bytes()) {
        return Ok(data);
    }
    if let Some(end) = data.iter().position(|&b| b == 0) {
        data.truncate(end);
    }
    Ok(data)
}

/// `CUjit_option` values whose buffers are filled.
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// Fills a JIT log: `text` truncated to the buffer's size, NUL-terminated, and the size
/// option's value replaced by the bytes written, as CUDA does.
///
/// # Safety
/// `options` and `values` hold `n` entries; a log buffer option's value points to as many
/// writable bytes as its size option says.
unsafe fn fill_one_log(
    n: usize,
    options: *const c_int,
    values: *mut *mut c_void,
    (buf_opt, size_opt): (c_int, c_int),
    text: &str,
) {
    if n == 0 || options.is_null() || values.is_null() {
        return;
    }
    // SAFETY: `n` entries each, by the caller's contract.
    let (options, values) = unsafe {
        (
            std::slice::from_raw_parts(options, n),
            std::slice::from_raw_parts_mut(values, n),
        )
    };
    let buf = options.iter().position(|&o| o == buf_opt);
    let size = options.iter().position(|&o| o == size_opt);
    let (Some(b), Some(s)) = (buf, size) else {
        return;
    };
    let cap = values[s] as usize;
    let dst = values[b].cast::<u8>();
    if cap == 0 || dst.is_null() {
        return;
    }
    let len = text.len().min(cap - 1);
    // SAFETY: `dst` is writable for `cap` bytes, and len < cap.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), dst, len);
        dst.add(len).write(0);
    }
    values[s] = len as *mut c_void;
}

/// Fills the JIT info log (empty) and error log (`error_text`) a caller asked for.
///
/// # Safety
/// As [`fill_one_log`].
pub(super) unsafe fn fill_log(
    n: usize,
    options: *const c_int,
    values: *mut *mut c_void,
    error_text: &str,
) {
    // SAFETY: the caller's contract.
    unsafe {
        fill_one_log(
            n,
            options,
            values,
            (JIT_INFO_LOG_BUFFER, JIT_INFO_LOG_BUFFER_SIZE_BYTES),
            "",
        );
        fill_one_log(
            n,
            options,
            values,
            (JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES),
            error_text,
        );
    }
}

/// Options are accepted and ignored, apart from the logs: the error log gets the PTX
/// diagnostics of a failed load; the info log is left empty.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    pmod: *mut Handle,
    image: *const c_void,
    num_options: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuModuleLoadDataEx",
        format_args!(
            "pmod={:#x?} image={:#x?} num_options={:#x?} options={:#x?} values={:#x?}",
            pmod, image, num_options, options, values
        ),
        || {
            let n = num_options as usize;
            // SAFETY: CUDA's contract for the image.
            let result =
                unsafe { image_bytes(image) }.and_then(|img| load(pmod, "module.ptx", img));
            let error_text = result
                .as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default();
            // SAFETY: CUDA's contract for the option arrays.
            unsafe { fill_log(n, options, values, &error_text) };
            result
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleUnload(m: Handle) -> CUresult {
    entry("cuModuleUnload", format_args!("m={:#x?}", m), || {
        crate::device::check_init()?;
        module::unload(id(m))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunction(
    f: *mut Handle,
    m: Handle,
    name: *const c_char,
) -> CUresult {
    entry(
        "cuModuleGetFunction",
        format_args!("f={:#x?} m={:#x?} name={:#x?}", f, m, name),
        || {
            crate::device::check_init()?;
            // SAFETY: a NUL-terminated name.
            let name = unsafe { c_str(name) }?;
            // SAFETY: NULL or writable.
            unsafe { put_new(f, || module::function(id(m), name)) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    m: Handle,
    name: *const c_char,
) -> CUresult {
    entry(
        "cuModuleGetGlobal_v2",
        format_args!(
            "dptr={:#x?} bytes={:#x?} m={:#x?} name={:#x?}",
            dptr, bytes, m, name
        ),
        || {
            crate::device::check_init()?;
            // SAFETY: a NUL-terminated name.
            let name = unsafe { c_str(name) }?;
            let (addr, size) = module::global(id(m), name)?;
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
pub unsafe extern "C" fn cuFuncGetAttribute(value: *mut c_int, attr: c_int, f: Handle) -> CUresult {
    entry(
        "cuFuncGetAttribute",
        format_args!("value={:#x?} attr={:#x?} f={:#x?}", value, attr, f),
        || {
            crate::device::check_init()?;
            let func = crate::library::function_or_kernel(id(f))?;
            let v = module::attribute(&func, attr)?;
            // SAFETY: NULL or writable.
            unsafe { put(value, v) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetAttribute(f: Handle, attr: c_int, value: c_int) -> CUresult {
    entry(
        "cuFuncSetAttribute",
        format_args!("f={f:#x?} attr={attr} value={value}"),
        || {
            crate::device::check_init()?;
            module::set_attribute(&*crate::library::function_or_kernel(id(f))?, attr, value)
        },
    )
}

/// Accepted without effect (see `cuCtxSetCacheConfig`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetCacheConfig(f: Handle, config: c_uint) -> CUresult {
    entry(
        "cuFuncSetCacheConfig",
        format_args!("f={f:#x?} config={config}"),
        || {
            crate::device::check_init()?;
            FUNCTIONS.get(id(f))?;
            super::context::check_cache_config(config)
        },
    )
}

/// Accepted without effect (see `cuCtxSetSharedMemConfig`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetSharedMemConfig(f: Handle, config: c_uint) -> CUresult {
    entry(
        "cuFuncSetSharedMemConfig",
        format_args!("f={f:#x?} config={config}"),
        || {
            crate::device::check_init()?;
            FUNCTIONS.get(id(f))?;
            super::context::check_shared_config(config)
        },
    )
}

/// The name stays valid as long as the function's module is loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, f: Handle) -> CUresult {
    entry(
        "cuFuncGetName",
        format_args!("name={name:#x?} f={f:#x?}"),
        || {
            crate::device::check_init()?;
            let func = FUNCTIONS.get(id(f))?;
            // SAFETY: NULL or writable. The string lives in the function's registry entry, which
            // the module keeps until it is unloaded.
            unsafe { put(name, func.name.as_ptr()) }
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetModule(m: *mut Handle, f: Handle) -> CUresult {
    entry(
        "cuFuncGetModule",
        format_args!("m={m:#x?} f={f:#x?}"),
        || {
            crate::device::check_init()?;
            let func = FUNCTIONS.get(id(f))?;
            // SAFETY: NULL or writable.
            unsafe { put(m, handle(func.module_id)) }
        },
    )
}

/// CU_MODULE_LAZY_LOADING: a module's PTX is checked at load, its kernels translated when
/// their function is first asked for.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut c_uint) -> CUresult {
    entry(
        "cuModuleGetLoadingMode",
        format_args!("mode={mode:#x?}"),
        || {
            crate::device::check_init()?;
            // SAFETY: NULL or writable.
            unsafe { put(mode, 2) }
        },
    )
}
