//! Shared by the integration tests: nvcc and NVIDIA's headers from the venv `cargo xtask test`
//! installs, the libraries cargo built, and running programs against them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

const INSTALL: &str =
    "cargo xtask test (which installs it into ~/.cache/ptxvk/venv), or set PTXVK_NVCC=skip";

/// The venv's `site-packages` (`$PTXVK_VENV`, else `~/.cache/ptxvk/venv`).
pub fn site_packages() -> Option<PathBuf> {
    let venv = match std::env::var_os("PTXVK_VENV") {
        Some(v) => PathBuf::from(v),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?
            .join("ptxvk/venv"),
    };
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.join("nvidia").is_dir())
}

/// nvcc of CUDA 13: `$PTXVK_NVCC`, else the venv's; `None` (the test is skipped) when
/// `PTXVK_NVCC=skip`; a panic naming the install when neither exists.
pub fn nvcc() -> Option<PathBuf> {
    match std::env::var("PTXVK_NVCC") {
        Ok(v) if v == "skip" => {
            eprintln!("skipped: PTXVK_NVCC=skip");
            None
        }
        Ok(v) => Some(PathBuf::from(v)),
        Err(_) => Some(
            site_packages()
                .map(|s| s.join("nvidia/cu13/bin/nvcc"))
                .filter(|p| p.exists())
                .unwrap_or_else(|| {
                    panic!("PTXVK_NVCC is not set and the venv has no nvcc; run {INSTALL}")
                }),
        ),
    }
}

/// `nvidia/` of the venv nvcc belongs to (`.../nvidia/cu13/bin/nvcc`).
fn nvidia_dir(nvcc: &Path) -> PathBuf {
    nvcc.ancestors()
        .nth(3)
        .unwrap_or_else(|| panic!("{}: not inside a venv's nvidia/ folder", nvcc.display()))
        .to_path_buf()
}

fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    exe.parent()
        .unwrap_or_else(|| panic!("{} has no directory", exe.display()))
        .to_path_buf()
}

/// A cdylib cargo built with this test (`target/<profile>/deps/NAME`, or one level up),
/// whichever is newer.
pub fn built_library(name: &str) -> PathBuf {
    let deps = deps_dir();
    [deps.join(name), deps.join("..").join(name)]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("{name} was not built next to {}", deps.display()))
}

/// Points `link` at `target` without a moment where it is missing: tests run in parallel,
/// and another test's nvcc may be linking through the same folder.
fn link(target: &Path, link: &Path) {
    if std::fs::read_link(link).is_ok_and(|t| t == target) {
        return;
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = link.with_extension(format!("tmp{n}"));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)
        .and_then(|()| std::fs::rename(&tmp, link))
        .unwrap_or_else(|e| panic!("{} -> {}: {e}", link.display(), target.display()));
}

/// The folder programs run with on the loader's path, as `ptxvk exec` makes it: our
/// libcuda.so.1, libcudart.so.13 and libcudart.so.12.
pub fn run_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxvk-cudart-run-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    link(&built_library("libcuda.so"), &dir.join("libcuda.so.1"));
    link(&built_library("libcudart.so"), &dir.join("libcudart.so.13"));
    link(
        &built_library("libcudart12.so"),
        &dir.join("libcudart.so.12"),
    );
    dir
}

/// The folder programs are linked against: NVIDIA's own libcudart (the link step only, so
/// that the programs require what NVIDIA's library provides, symbol versions included), and
/// our libcuda for the programs that call the driver API too.
fn link_dir(nvcc: &Path, cudart: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxvk-cudart-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let nvidia = nvidia_dir(nvcc);
    let theirs = nvidia.join(cudart);
    assert!(
        theirs.exists(),
        "{}: missing; run {INSTALL}",
        theirs.display()
    );
    let sub = dir.join(cudart.replace('/', "_"));
    std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display()));
    link(&theirs, &sub.join("libcudart.so"));
    link(&built_library("libcuda.so"), &sub.join("libcuda.so"));
    sub
}

/// Where compiled programs are kept between runs: `target/cudart-programs`.
fn cache_dir() -> PathBuf {
    deps_dir().join("../../cudart-programs")
}

pub fn programs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// Compiles `sources` (under tests/programs) into one executable with `flags`, or reuses the
/// one an earlier run compiled from the same sources, flags and nvcc (keyed by their hash).
pub fn compile(nvcc: &Path, name: &str, sources: &[&str], flags: &[&str]) -> PathBuf {
    let dir = programs_dir();
    let mut hash = Sha256::new();
    hash.update(nvcc.as_os_str().as_encoded_bytes());
    for f in flags {
        hash.update(f.as_bytes());
        hash.update([0]);
    }
    for s in sources.iter().chain(&["check.h"]) {
        let text = std::fs::read(dir.join(s)).unwrap_or_else(|e| panic!("{s}: {e}"));
        hash.update(s.as_bytes());
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(&text);
    }
    let key: String = hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let out_dir = cache_dir().join(format!("{name}-{key}"));
    let exe = out_dir.join(name);
    if exe.exists() {
        return exe;
    }
    std::fs::create_dir_all(&out_dir).unwrap_or_else(|e| panic!("{}: {e}", out_dir.display()));
    let tmp = out_dir.join(format!(".{name}.{}", std::process::id()));
    let lib = link_dir(nvcc, "cu13/lib/libcudart.so.13");
    let started = Instant::now();
    let out = Command::new(nvcc)
        .current_dir(&dir)
        .args(["-cudart", "shared", "-std=c++17", "-O2"])
        .args(flags)
        .args(sources)
        .arg("-o")
        .arg(&tmp)
        .arg("-L")
        .arg(&lib)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", nvcc.display()));
    assert!(
        out.status.success(),
        "nvcc {sources:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "compiled {name} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    std::fs::rename(&tmp, &exe).unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    exe
}

pub struct Run {
    pub success: bool,
    pub status: String,
    pub output: String,
}

/// Runs a program with `dir` on the loader's path (as `ptxvk exec` runs it), the validation
/// layer required unless `PTXVK_VALIDATION` says otherwise, for at most `limit`.
pub fn run(exe: &Path, dir: &Path, limit: Duration) -> Run {
    run_env(exe, dir, limit, &[])
}

/// [`run`] with `env` added to the program's environment.
pub fn run_env(exe: &Path, dir: &Path, limit: Duration, env: &[(&str, &str)]) -> Run {
    let validation = std::env::var("PTXVK_VALIDATION").unwrap_or_else(|_| "required".into());
    let out_path = dir.join(format!(
        "{}.out",
        exe.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let out_file =
        std::fs::File::create(&out_path).unwrap_or_else(|e| panic!("{}: {e}", out_path.display()));
    let err_file = out_file.try_clone().unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new(exe)
        .env("LD_LIBRARY_PATH", dir)
        .env("PTXVK_VALIDATION", validation)
        .env("PTXVK_CACHE_DIR", "off")
        // A cold first run translates and compiles large kernels (CUB's) while other tests do
        // the same: wait for the device up to the run's own limit rather than 60 s.
        .env("PTXVK_TIMEOUT_MS", (limit.as_millis() * 9 / 10).to_string())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap_or_else(|e| panic!("wait: {e}")) {
            break Some(s);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = std::fs::read_to_string(&out_path).unwrap_or_default();
    Run {
        success: status.is_some_and(|s| s.success()),
        status: status.map_or_else(|| format!("killed after {limit:?}"), |s| s.to_string()),
        output,
    }
}

/// Compiles the host-only program `tests/programs/NAME.cpp` with the host compiler against
/// CUDA 12's cuda_runtime_api.h and NVIDIA's libcudart.so.12 (CUDA 12's runtime wheel has no
/// `crt/`; 13's serves the host-only declarations).
pub fn compile_cuda12_host(nvcc: &Path, name: &str) -> PathBuf {
    let nvidia = nvidia_dir(nvcc);
    let lib = link_dir(nvcc, "cuda_runtime/lib/libcudart.so.12");
    let exe = std::env::temp_dir().join(format!("ptxvk-cudart-{name}-{}", std::process::id()));
    let out = Command::new("c++")
        .args(["-O1", "-Wall"])
        .arg("-I")
        .arg(nvidia.join("cuda_runtime/include"))
        .arg("-I")
        .arg(nvidia.join("cu13/include"))
        .arg(programs_dir().join(format!("{name}.cpp")))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg("-lcudart")
        .output()
        .unwrap_or_else(|e| panic!("cannot run c++: {e}"));
    assert!(
        out.status.success(),
        "c++ {name}.cpp failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}
