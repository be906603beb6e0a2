//! The JIT linker.

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::Mutex;

use super::module::{fill_log, read_image_file};
use super::{Handle, bytes, c_str, entry, id, put, put_new};
use crate::error::{CUresult, CuError, CuResult};
use crate::link::{LINKERS, Linker};

fn linker(state: Handle) -> CuResult<std::sync::Arc<Mutex<Linker>>> {
    crate::device::check_init()?;
    LINKERS.get(id(state))
}

/// Options are accepted; the error log gets the diagnostics of a failed step.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkCreate_v2(
    n: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
    out: *mut Handle,
) -> CUresult {
    entry(
        "cuLinkCreate_v2",
        format_args!("numOptions={n} out={out:#x?}"),
        || {
            crate::context::current()?;
            // SAFETY: NULL or writable.
            unsafe { put_new(out, || Ok(LINKERS.insert(Mutex::new(Linker::default())).0)) }?;
            // SAFETY: CUDA's contract for the option arrays.
            unsafe { fill_log(n as usize, options, values, "") };
            Ok(())
        },
    )
}

fn add(
    state: Handle,
    kind: c_uint,
    data: CuResult<&[u8]>,
    name: &str,
    log: (c_uint, *const c_int, *mut *mut c_void),
) -> CuResult<()> {
    let l = linker(state)?;
    let result = data.and_then(|d| {
        l.lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(kind, d, name)
    });
    let text = result
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    // SAFETY: CUDA's contract for the option arrays.
    unsafe { fill_log(log.0 as usize, log.1, log.2, &text) };
    result
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: c_uint,
    data: *const c_void,
    size: usize,
    name: *const c_char,
    n: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuLinkAddData_v2",
        format_args!(
            "state={state:#x?} type={kind} data={data:#x?} size={size} name={name:#x?} numOptions={n}"
        ),
        || {
            // SAFETY: NULL (no name) or a NUL-terminated string.
            let name = if name.is_null() {
                "input.ptx"
            } else {
                unsafe { c_str(name) }?
            };
            // SAFETY: `data` is readable for `size` bytes by the caller's contract.
            let data = unsafe { bytes(data, size) };
            add(state, kind, data, name, (n, options, values))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: c_uint,
    path: *const c_char,
    n: c_uint,
    options: *const c_int,
    values: *mut *mut c_void,
) -> CUresult {
    entry(
        "cuLinkAddFile_v2",
        format_args!("state={state:#x?} type={kind} path={path:#x?} numOptions={n}"),
        || {
            // SAFETY: a NUL-terminated path.
            let path = unsafe { c_str(path) }?;
            let log = (n, options, values);
            match read_image_file(path) {
                Ok(data) => add(state, kind, Ok(&data), path, log),
                Err(e) => add(state, kind, Err(e), path, log),
            }
        },
    )
}

/// The image stays valid until `cuLinkDestroy`, as CUDA's does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkComplete(
    state: Handle,
    image: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    entry(
        "cuLinkComplete",
        format_args!("state={state:#x?} cubinOut={image:#x?} sizeOut={size:#x?}"),
        || {
            if image.is_null() {
                return Err(CuError::invalid("cubinOut is NULL"));
            }
            let l = linker(state)?;
            let mut l = l.lock().unwrap_or_else(|p| p.into_inner());
            let out = l.complete()?;
            // SAFETY: NULL or writable; the image lives in the linker's table entry until
            // cuLinkDestroy removes it.
            unsafe {
                put(image, out.as_ptr().cast_mut().cast())?;
                super::put_opt(size, out.len());
            }
            Ok(())
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    entry("cuLinkDestroy", format_args!("state={state:#x?}"), || {
        crate::device::check_init()?;
        LINKERS.remove(id(state)).map(drop)
    })
}

// Other names of the same entry points: the CUDA 5.5 forms have the same signatures.
alias!(cuLinkCreate => cuLinkCreate_v2(n: c_uint, options: *const c_int, values: *mut *mut c_void, out: *mut Handle));
alias!(cuLinkAddData => cuLinkAddData_v2(state: Handle, kind: c_uint, data: *const c_void, size: usize, name: *const c_char, n: c_uint, options: *const c_int, values: *mut *mut c_void));
alias!(cuLinkAddFile => cuLinkAddFile_v2(state: Handle, kind: c_uint, path: *const c_char, n: c_uint, options: *const c_int, values: *mut *mut c_void));
