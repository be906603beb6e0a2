//! NVIDIA's own compiler on our corpus: NVRTC (pip package `nvidia-cuda-nvrtc-cu12`, a host-only
//! library; no GPU needed) compiles every shaders/corpus/*.cu at test time for sm_70, sm_80 and
//! sm_90. The PTX must parse and check with no diagnostics and every kernel must translate to
//! valid SPIR-V, except for the failures listed in `KNOWN`. NVRTC's output is not committed.
//!
//! The library is found through `PTXVK_NVRTC=/path/to/libnvrtc.so.12` (which `cargo xtask test`
//! sets), or in the virtual environment that `cargo xtask test` installs (`$PTXVK_VENV`, else
//! `~/.cache/ptxvk/venv`). Without it the test fails with the install command, unless
//! `PTXVK_NVRTC=skip`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus_support;

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

use corpus_support::{Known, run_corpus};

const INSTALL: &str = "cargo xtask test (it installs NVRTC into ~/.cache/ptxvk/venv), or \
                       python3 -m venv DIR && DIR/bin/pip install nvidia-cuda-nvrtc-cu12";

const ARCHS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];

/// What ptxvk cannot do yet with NVRTC's output (see the same list in corpus.rs). NVRTC writes
/// half precision as our header's inline PTX, so its gaps differ from clang's.
#[rustfmt::skip]
const KNOWN: &[Known] = &[
];

type Program = *mut c_void;
type Status = c_int;

/// The NVRTC entry points the test uses (nvrtc.h).
struct Nvrtc {
    _lib: libloading::Library,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    destroy: unsafe extern "C" fn(*mut Program) -> Status,
    error_string: unsafe extern "C" fn(Status) -> *const c_char,
}

impl Nvrtc {
    fn load(path: &Path) -> Result<Nvrtc, String> {
        // SAFETY: loading NVIDIA's library runs its initializers, which have no preconditions;
        // each symbol is declared with its signature from nvrtc.h.
        unsafe {
            let lib =
                libloading::Library::new(path).map_err(|e| format!("{}: {e}", path.display()))?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name)
                        .map_err(|e| format!("{}: {e}", path.display()))?
                };
            }
            Ok(Nvrtc {
                version: sym!(b"nvrtcVersion\0"),
                create: sym!(b"nvrtcCreateProgram\0"),
                compile: sym!(b"nvrtcCompileProgram\0"),
                log_size: sym!(b"nvrtcGetProgramLogSize\0"),
                log: sym!(b"nvrtcGetProgramLog\0"),
                ptx_size: sym!(b"nvrtcGetPTXSize\0"),
                ptx: sym!(b"nvrtcGetPTX\0"),
                destroy: sym!(b"nvrtcDestroyProgram\0"),
                error_string: sym!(b"nvrtcGetErrorString\0"),
                _lib: lib,
            })
        }
    }

    fn version(&self) -> (i32, i32) {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        unsafe { (self.version)(&mut major, &mut minor) };
        (major, minor)
    }

    fn error(&self, status: Status) -> String {
        // SAFETY: NVRTC returns a static NUL-terminated string for every status.
        let s = unsafe { (self.error_string)(status) };
        if s.is_null() {
            return format!("NVRTC status {status}");
        }
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
    }

    /// Compiles `source` to PTX; the error is NVRTC's log.
    fn compile(&self, name: &str, source: &str, options: &[String]) -> Result<String, String> {
        let src = CString::new(source).map_err(|e| e.to_string())?;
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: valid C strings that outlive the calls; no headers given; `prog` is destroyed
        // below on every path after creation succeeds.
        unsafe {
            let st = (self.create)(
                &mut prog,
                src.as_ptr(),
                cname.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if st != 0 {
                return Err(format!("nvrtcCreateProgram: {}", self.error(st)));
            }
            let st = (self.compile)(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr());
            let result = if st != 0 {
                Err(format!(
                    "{}\n{}",
                    self.error(st),
                    self.read(prog, self.log_size, self.log)
                ))
            } else {
                Ok(self.read(prog, self.ptx_size, self.ptx))
            };
            (self.destroy)(&mut prog);
            result
        }
    }

    /// Reads the log or the PTX of `prog` (a size query, then the NUL-terminated text).
    unsafe fn read(
        &self,
        prog: Program,
        size: unsafe extern "C" fn(Program, *mut usize) -> Status,
        get: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ) -> String {
        let mut n = 0usize;
        // SAFETY: `prog` is a live program; the buffer has the size NVRTC asked for.
        unsafe {
            if size(prog, &mut n) != 0 || n == 0 {
                return String::new();
            }
            let mut buf = vec![0u8; n];
            if get(prog, buf.as_mut_ptr().cast()) != 0 {
                return String::new();
            }
            CStr::from_bytes_until_nul(&buf)
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        }
    }
}

/// The virtual environment `cargo xtask test` installs into (xtask/src/deps.rs has the same rule).
fn venv_dir() -> PathBuf {
    if let Some(v) = std::env::var_os("PTXVK_VENV") {
        return PathBuf::from(v);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("ptxvk")
        .join("venv")
}

/// Where libnvrtc is: `Err` with what to do when it is missing, `Ok(None)` to skip.
fn locate() -> Result<Option<PathBuf>, String> {
    match std::env::var("PTXVK_NVRTC") {
        Ok(v) if v == "skip" => return Ok(None),
        Ok(v) => return Ok(Some(PathBuf::from(v))),
        Err(_) => {}
    }
    let lib_dir = |site: PathBuf| site.join("nvidia/cuda_nvrtc/lib");
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(venv_dir().join("lib")) {
        for e in entries.flatten() {
            let dir = lib_dir(e.path().join("site-packages"));
            if let Ok(files) = std::fs::read_dir(&dir) {
                for f in files.flatten() {
                    let name = f.file_name().to_string_lossy().into_owned();
                    if name.starts_with("libnvrtc.so") {
                        found.push(f.path());
                    }
                }
            }
        }
    }
    found.sort();
    found.into_iter().next().map(Some).ok_or_else(|| {
        format!(
            "NVRTC is not installed. Install it with\n    {INSTALL}\nor point PTXVK_NVRTC at \
             libnvrtc.so, or set PTXVK_NVRTC=skip to skip this test"
        )
    })
}

#[test]
fn nvrtc_corpus_checks_and_translates() {
    let path = match locate() {
        Ok(Some(p)) => p,
        Ok(None) => {
            eprintln!("PTXVK_NVRTC=skip: NVRTC corpus test skipped");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let nvrtc = Nvrtc::load(&path).unwrap_or_else(|e| panic!("cannot load NVRTC: {e}"));
    let (major, minor) = nvrtc.version();
    eprintln!("NVRTC {major}.{minor} from {}", path.display());

    let include = corpus_support::shaders_dir();
    // For reading what NVRTC produced when a file fails.
    let out_dir = std::env::temp_dir().join("ptxvk-nvrtc-corpus");
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut files = Vec::new();
    let mut compile_errors = Vec::new();
    for (stem, cu) in corpus_support::corpus_sources() {
        let source = std::fs::read_to_string(&cu).unwrap();
        for sm in ARCHS {
            let options = vec![
                format!("--gpu-architecture=compute_{}", &sm[3..]),
                format!("--include-path={}", include.display()),
            ];
            let name = format!("{stem}.nvrtc.{sm}.ptx");
            match nvrtc.compile(&format!("{stem}.cu"), &source, &options) {
                Ok(ptx) => {
                    std::fs::write(out_dir.join(&name), &ptx).unwrap();
                    files.push((name, stem.clone(), ptx));
                }
                Err(log) => compile_errors.push(format!("{stem}.cu for {sm}: {log}")),
            }
        }
    }
    assert!(
        compile_errors.is_empty(),
        "NVRTC cannot compile the corpus:\n{}",
        compile_errors.join("\n")
    );
    eprintln!("NVRTC's PTX is in {}", out_dir.display());
    let translated = run_corpus("NVRTC corpus", &files, KNOWN);
    eprintln!("{translated} kernels translated and validated");
}
