//! nvJitLink's C API for PTX inputs, exported beside the driver API so that NVIDIA's Python
//! stack links through ptxvk instead of through NVIDIA's libnvJitLink.
//!
//! numba-cuda links every kernel through nvJitLink when `cuda.bindings.nvjitlink` finds a
//! library whose `nvJitLinkVersion` says 12.3 or newer: it then compiles to LTO IR and
//! hands the driver the SASS cubin NVIDIA's nvJitLink makes, which no Vulkan device can run.
//! Nothing the driver reports (compute capability, driver version) changes that choice.
//! `cuda.bindings` looks each nvJitLink function up in the process's global scope before it
//! loads NVIDIA's library, so a libcuda that is in the global scope and exports these
//! functions answers instead. This one reports version 12.0, the version numba-cuda and
//! cuda.core take as "no LTO": numba then compiles to PTX and links it here, or through
//! `cuLink*` (cuda.core's choice depends on its version). The "cubin" it hands out is the
//! linked PTX text, which `cuModuleLoadData` and `cuLibraryLoadData` take. LTO IR and SASS
//! inputs are refused with a message naming the input.
//!
//! libcuda is usually opened without `RTLD_GLOBAL` (numba loads it through ctypes at import),
//! so the library reopens itself with `RTLD_NOLOAD | RTLD_GLOBAL` when it is loaded.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{CStr, c_char, c_int, c_void};
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;

use crate::error::CuError;
use crate::handles::Table;
use crate::link::{INPUT_FATBINARY, INPUT_PTX, Linker};

/// What `nvJitLinkVersion` reports: below 12.3, which numba-cuda and cuda.core read as an
/// nvJitLink that cannot link LTO IR.
pub const VERSION: (u32, u32) = (12, 0);

/// `nvJitLinkResult` values.
const SUCCESS: c_int = 0;
const ERROR_UNRECOGNIZED_OPTION: c_int = 1;
const ERROR_MISSING_ARCH: c_int = 2;
const ERROR_INVALID_INPUT: c_int = 3;
const ERROR_PTX_COMPILE: c_int = 4;
const ERROR_INTERNAL: c_int = 6;

/// `nvJitLinkInputType` values.
const NV_INPUT_CUBIN: c_int = 1;
const NV_INPUT_PTX: c_int = 2;
const NV_INPUT_LTOIR: c_int = 3;
const NV_INPUT_FATBIN: c_int = 4;
const NV_INPUT_ANY: c_int = 10;

#[derive(Debug, thiserror::Error)]
enum JitError {
    #[error("unrecognized option `{0}`")]
    UnrecognizedOption(String),
    #[error("no `-arch=sm_NN` option")]
    MissingArch,
    #[error("{0}")]
    InvalidInput(String),
    #[error("{0}")]
    Link(CuError),
    #[error("invalid nvJitLink handle")]
    Handle,
}

impl JitError {
    fn code(&self) -> c_int {
        match self {
            JitError::UnrecognizedOption(_) => ERROR_UNRECOGNIZED_OPTION,
            JitError::MissingArch => ERROR_MISSING_ARCH,
            JitError::InvalidInput(_) | JitError::Handle => ERROR_INVALID_INPUT,
            JitError::Link(CuError::InvalidPtx(_)) => ERROR_PTX_COMPILE,
            JitError::Link(_) => ERROR_INTERNAL,
        }
    }
}

type JitResult<T> = Result<T, JitError>;

#[derive(Default)]
struct JitLink {
    linker: Linker,
    error_log: String,
    info_log: String,
    complete: bool,
}

static LINKS: Table<Mutex<JitLink>> = Table::new("nvJitLink");

/// Options nvJitLink documents; they are accepted, and none changes what PTX is produced.
const VALUED: &[&str] = &[
    "-arch=",
    "-maxrregcount=",
    "-ftz=",
    "-prec-div=",
    "-prec-sqrt=",
    "-fma=",
    "-kernels-used=",
    "-variables-used=",
    "-Xptxas=",
    "-split-compile=",
    "-split-compile-extended=",
];
const FLAGS: &[&str] = &[
    "-time",
    "-verbose",
    "-lto",
    "-ptx",
    "-g",
    "-lineinfo",
    "-optimize-unused-variables",
    "-no-cache",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
];

fn check_options(options: &[&str]) -> JitResult<()> {
    for o in options {
        let known = FLAGS.contains(o) || VALUED.iter().any(|p| o.starts_with(p));
        if !known {
            return Err(JitError::UnrecognizedOption((*o).to_string()));
        }
    }
    let arch = options.iter().filter_map(|o| o.strip_prefix("-arch="));
    if !arch.into_iter().any(|a| a.starts_with("sm_")) {
        return Err(JitError::MissingArch);
    }
    Ok(())
}

/// The `CUjitInputType` ptxvk's linker takes for an nvJitLink input.
fn linker_input(kind: c_int, data: &[u8], name: &str) -> JitResult<u32> {
    let fatbin = data.starts_with(&crate::fatbin::FATBIN_MAGIC.to_le_bytes());
    match kind {
        NV_INPUT_PTX => Ok(INPUT_PTX),
        NV_INPUT_FATBIN => Ok(INPUT_FATBINARY),
        NV_INPUT_ANY if fatbin => Ok(INPUT_FATBINARY),
        NV_INPUT_ANY if !data.starts_with(b"\x7fELF") => Ok(INPUT_PTX),
        NV_INPUT_LTOIR => Err(JitError::InvalidInput(format!(
            "{name}: LTO IR cannot run on ptxvk; compile to PTX instead"
        ))),
        NV_INPUT_CUBIN | NV_INPUT_ANY => Err(JitError::InvalidInput(format!(
            "{name}: a cubin holds SASS, which ptxvk cannot run; link PTX instead"
        ))),
        other => Err(JitError::InvalidInput(format!(
            "{name}: input type {other} (ptxvk links PTX and fatbinaries holding PTX)"
        ))),
    }
}

/// Runs an entry point: its result is logged at debug level, an error is also appended to
/// the handle's error log, and a panic becomes `NVJITLINK_ERROR_INTERNAL`.
fn entry(name: &'static str, handle: Option<usize>, body: impl FnOnce() -> JitResult<()>) -> c_int {
    crate::log::init();
    let result = std::panic::catch_unwind(AssertUnwindSafe(body));
    let (code, text) = match result {
        Ok(Ok(())) => (SUCCESS, String::new()),
        Ok(Err(e)) => (e.code(), e.to_string()),
        Err(_) => (ERROR_INTERNAL, format!("{name} panicked")),
    };
    tracing::debug!(target: "ptxvk_cuda", "{name}(handle={handle:#x?}) -> {code} {text}");
    if code != SUCCESS
        && let Some(l) = handle.and_then(|h| LINKS.get(h).ok())
    {
        let mut l = l.lock().unwrap_or_else(|p| p.into_inner());
        l.error_log.push_str(&text);
        l.error_log.push('\n');
    }
    code
}

fn with_link<T>(h: usize, f: impl FnOnce(&mut JitLink) -> JitResult<T>) -> JitResult<T> {
    let l = LINKS.get(h).map_err(|_| JitError::Handle)?;
    let mut l = l.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut l)
}

/// # Safety
/// `p` is NULL or valid for a write of `T`.
unsafe fn write<T>(p: *mut T, v: T) -> JitResult<()> {
    if p.is_null() {
        return Err(JitError::InvalidInput("a NULL output pointer".into()));
    }
    // SAFETY: non-NULL, valid by the caller's contract.
    unsafe { p.write(v) };
    Ok(())
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text<'a>(p: *const c_char) -> JitResult<&'a str> {
    if p.is_null() {
        return Err(JitError::InvalidInput("a NULL string".into()));
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| JitError::InvalidInput("a string that is not UTF-8".into()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkVersion(major: *mut u32, minor: *mut u32) -> c_int {
    entry("nvJitLinkVersion", None, || {
        // SAFETY: NULL or writable.
        unsafe {
            write(major, VERSION.0)?;
            write(minor, VERSION.1)
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkCreate(
    handle: *mut *mut c_void,
    n: u32,
    options: *const *const c_char,
) -> c_int {
    entry("nvJitLinkCreate", None, || {
        if handle.is_null() || (n > 0 && options.is_null()) {
            return Err(JitError::InvalidInput(
                "a NULL handle or option array".into(),
            ));
        }
        let opts = (0..n as usize)
            // SAFETY: `options` holds `n` NUL-terminated strings by the caller's contract.
            .map(|i| unsafe { text(*options.add(i)) })
            .collect::<JitResult<Vec<&str>>>()?;
        tracing::debug!(target: "ptxvk_cuda", "nvJitLinkCreate options {opts:?}");
        check_options(&opts)?;
        let (id, _) = LINKS.insert(Mutex::new(JitLink::default()));
        // SAFETY: checked non-NULL above; writable by the caller's contract.
        unsafe { write(handle, id as *mut c_void) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkDestroy(handle: *mut *mut c_void) -> c_int {
    entry("nvJitLinkDestroy", None, || {
        if handle.is_null() {
            return Err(JitError::InvalidInput("a NULL handle pointer".into()));
        }
        // SAFETY: non-NULL, readable and writable by the caller's contract.
        let h = unsafe { handle.read() } as usize;
        LINKS.remove(h).map_err(|_| JitError::Handle)?;
        // SAFETY: as above.
        unsafe { handle.write(std::ptr::null_mut()) };
        Ok(())
    })
}

fn add(h: usize, kind: c_int, data: &[u8], name: &str) -> JitResult<()> {
    let input = linker_input(kind, data, name)?;
    with_link(h, |l| {
        l.linker.add(input, data, name).map_err(JitError::Link)?;
        l.info_log.push_str(&format!("added {name}\n"));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkAddData(
    handle: *mut c_void,
    kind: c_int,
    data: *const c_void,
    size: usize,
    name: *const c_char,
) -> c_int {
    let h = handle as usize;
    entry("nvJitLinkAddData", Some(h), || {
        if data.is_null() || size == 0 {
            return Err(JitError::InvalidInput("no input data".into()));
        }
        let name = if name.is_null() {
            "input"
        } else {
            // SAFETY: a NUL-terminated name by the caller's contract.
            unsafe { text(name) }?
        };
        // SAFETY: `data` is readable for `size` bytes by the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        add(h, kind, bytes, name)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkAddFile(
    handle: *mut c_void,
    kind: c_int,
    path: *const c_char,
) -> c_int {
    let h = handle as usize;
    entry("nvJitLinkAddFile", Some(h), || {
        // SAFETY: a NUL-terminated path by the caller's contract.
        let path = unsafe { text(path) }?;
        let data =
            std::fs::read(path).map_err(|e| JitError::InvalidInput(format!("{path}: {e}")))?;
        add(h, kind, &data, path)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkComplete(handle: *mut c_void) -> c_int {
    let h = handle as usize;
    entry("nvJitLinkComplete", Some(h), || {
        with_link(h, |l| {
            l.linker.complete().map_err(JitError::Link)?;
            l.complete = true;
            Ok(())
        })
    })
}

/// The linked PTX, NUL-terminated: what both the "cubin" and the PTX outputs hold.
fn linked<T>(h: usize, f: impl FnOnce(&[u8]) -> JitResult<T>) -> JitResult<T> {
    with_link(h, |l| match (&l.linker.output, l.complete) {
        (Some(out), true) => f(out),
        _ => Err(JitError::InvalidInput(
            "nvJitLinkComplete has not succeeded".into(),
        )),
    })
}

/// # Safety
/// `dst` is NULL or writable for the output's size.
unsafe fn copy_out(h: usize, dst: *mut c_void) -> JitResult<()> {
    if dst.is_null() {
        return Err(JitError::InvalidInput("a NULL output buffer".into()));
    }
    linked(h, |out| {
        // SAFETY: the caller sized `dst` by the matching Size call.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), dst.cast::<u8>(), out.len()) };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedCubinSize(
    handle: *mut c_void,
    size: *mut usize,
) -> c_int {
    let h = handle as usize;
    entry("nvJitLinkGetLinkedCubinSize", Some(h), || {
        // SAFETY: NULL or writable.
        linked(h, |out| unsafe { write(size, out.len()) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedCubin(handle: *mut c_void, cubin: *mut c_void) -> c_int {
    let h = handle as usize;
    // SAFETY: sized by nvJitLinkGetLinkedCubinSize.
    entry("nvJitLinkGetLinkedCubin", Some(h), || unsafe {
        copy_out(h, cubin)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedPtxSize(handle: *mut c_void, size: *mut usize) -> c_int {
    let h = handle as usize;
    entry("nvJitLinkGetLinkedPtxSize", Some(h), || {
        // SAFETY: NULL or writable.
        linked(h, |out| unsafe { write(size, out.len()) })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedPtx(handle: *mut c_void, ptx: *mut c_char) -> c_int {
    let h = handle as usize;
    // SAFETY: sized by nvJitLinkGetLinkedPtxSize.
    entry("nvJitLinkGetLinkedPtx", Some(h), || unsafe {
        copy_out(h, ptx.cast())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedLTOIRSize(
    handle: *mut c_void,
    _size: *mut usize,
) -> c_int {
    entry("nvJitLinkGetLinkedLTOIRSize", Some(handle as usize), || {
        Err(JitError::InvalidInput(
            "ptxvk's nvJitLink produces no LTO IR".into(),
        ))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetLinkedLTOIR(
    handle: *mut c_void,
    _ltoir: *mut c_void,
) -> c_int {
    entry("nvJitLinkGetLinkedLTOIR", Some(handle as usize), || {
        Err(JitError::InvalidInput(
            "ptxvk's nvJitLink produces no LTO IR".into(),
        ))
    })
}

/// A log's size with its terminating NUL, as nvJitLink counts it.
fn log_size(h: usize, error: bool, size: *mut usize) -> JitResult<()> {
    let n = with_link(h, |l| {
        Ok(if error { &l.error_log } else { &l.info_log }.len() + 1)
    })?;
    // SAFETY: NULL or writable by the caller's contract.
    unsafe { write(size, n) }
}

/// # Safety
/// `dst` is NULL or writable for the size the matching Size call gave.
unsafe fn log_copy(h: usize, error: bool, dst: *mut c_char) -> JitResult<()> {
    if dst.is_null() {
        return Err(JitError::InvalidInput("a NULL log buffer".into()));
    }
    with_link(h, |l| {
        let log = if error { &l.error_log } else { &l.info_log };
        // SAFETY: sized by the Size call: the text and a NUL.
        unsafe {
            std::ptr::copy_nonoverlapping(log.as_ptr(), dst.cast::<u8>(), log.len());
            dst.add(log.len()).write(0);
        }
        Ok(())
    })
}

// The logs are read after failures too, so their calls do not add to the error log.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetErrorLogSize(handle: *mut c_void, size: *mut usize) -> c_int {
    entry("nvJitLinkGetErrorLogSize", None, || {
        log_size(handle as usize, true, size)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetErrorLog(handle: *mut c_void, log: *mut c_char) -> c_int {
    // SAFETY: sized by nvJitLinkGetErrorLogSize.
    entry("nvJitLinkGetErrorLog", None, || unsafe {
        log_copy(handle as usize, true, log)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetInfoLogSize(handle: *mut c_void, size: *mut usize) -> c_int {
    entry("nvJitLinkGetInfoLogSize", None, || {
        log_size(handle as usize, false, size)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvJitLinkGetInfoLog(handle: *mut c_void, log: *mut c_char) -> c_int {
    // SAFETY: sized by nvJitLinkGetInfoLogSize.
    entry("nvJitLinkGetInfoLog", None, || unsafe {
        log_copy(handle as usize, false, log)
    })
}

/// Puts this library in the process's global scope when it is loaded (see the module text).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static GO_GLOBAL: unsafe extern "C" fn() = go_global;

#[cfg(target_os = "linux")]
unsafe extern "C" fn go_global() {
    // SAFETY: dladdr fills `info` for an address inside a loaded object; dlopen with
    // RTLD_NOLOAD only changes the flags of an object already loaded (this one).
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        let here = go_global as *const c_void;
        if libc::dladdr(here, &mut info) != 0 && !info.dli_fname.is_null() {
            libc::dlopen(
                info.dli_fname,
                libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_GLOBAL,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_need_an_sm_arch_and_known_names() {
        assert!(check_options(&["-arch=sm_80", "-lto", "-ptx", "-O3"]).is_ok());
        assert!(matches!(
            check_options(&["-lto"]),
            Err(JitError::MissingArch)
        ));
        assert!(matches!(
            check_options(&["-arch=sm_80", "-bogus"]),
            Err(JitError::UnrecognizedOption(_))
        ));
    }

    #[test]
    fn inputs_other_than_ptx_are_refused_by_kind() {
        assert_eq!(
            linker_input(NV_INPUT_PTX, b".version", "a").ok(),
            Some(INPUT_PTX)
        );
        assert_eq!(
            linker_input(NV_INPUT_ANY, b".version", "a").ok(),
            Some(INPUT_PTX)
        );
        assert!(linker_input(NV_INPUT_LTOIR, b"\x7fNVVM", "a").is_err());
        assert!(linker_input(NV_INPUT_ANY, b"\x7fELF", "a").is_err());
        assert!(linker_input(NV_INPUT_CUBIN, b"\x7fELF", "a").is_err());
    }
}
