//! Shared by the integration tests: NVIDIA's headers and the built library.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

const INSTALL: &str = "cargo xtask test (which installs them), or: python3 -m venv ~/.cache/ptxvk/venv && \
~/.cache/ptxvk/venv/bin/pip install nvidia-cuda-runtime-cu12 nvidia-cuda-runtime==13.5.37";

/// The venv `cargo xtask test` installs NVIDIA's packages into (xtask/src/deps.rs):
/// `$PTXVK_VENV`, else `$XDG_CACHE_HOME/ptxvk/venv`, else `~/.cache/ptxvk/venv`.
pub fn venv_dir() -> PathBuf {
    match std::env::var_os("PTXVK_VENV") {
        Some(v) => PathBuf::from(v),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("ptxvk/venv"),
    }
}

fn venv_include(sub: &str) -> Option<PathBuf> {
    std::fs::read_dir(venv_dir().join("lib"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| {
            e.path()
                .join("site-packages/nvidia")
                .join(sub)
                .join("include")
        })
        .find(|p| p.join("cuda.h").exists())
}

/// The directory holding cuda.h of one CUDA major version: `$var`, else the default venv;
/// `None` when `$var` is `skip`; a panic naming the install command when neither has it.
fn include_dir(var: &str, sub: &str) -> Option<PathBuf> {
    match std::env::var(var) {
        Ok(v) if v == "skip" => None,
        Ok(v) => {
            let p = PathBuf::from(v);
            assert!(p.join("cuda.h").exists(), "{var}={}: no cuda.h there", p.display());
            Some(p)
        }
        Err(_) => Some(venv_include(sub).unwrap_or_else(|| {
            panic!("{var} is not set and the venv has no cuda.h; install it with\n  {INSTALL}\nor set {var}=skip")
        })),
    }
}

/// The CUDA 12.x include directory (`PTXVK_CUDA_INCLUDE`).
pub fn cuda12_include() -> Option<PathBuf> {
    include_dir("PTXVK_CUDA_INCLUDE", "cuda_runtime")
}

/// Both include directories, or `None` (the test is skipped) when either is `skip`.
pub fn headers() -> Option<Vec<PathBuf>> {
    let a = cuda12_include();
    let b = include_dir("PTXVK_CUDA13_INCLUDE", "cu13");
    match (a, b) {
        (Some(a), Some(b)) => Some(vec![a, b]),
        _ => {
            eprintln!("skipped: PTXVK_CUDA_INCLUDE or PTXVK_CUDA13_INCLUDE is `skip`");
            None
        }
    }
}

/// The cdylib cargo built with this test: `target/<profile>/deps/libcuda.so` (where a test
/// build leaves it; `cargo build` also copies it one level up, which a test build may not
/// refresh), whichever of the two is newer.
pub fn libcuda() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let deps = exe
        .parent()
        .unwrap_or_else(|| panic!("{} has no directory", exe.display()));
    let candidates = [deps.join("libcuda.so"), deps.join("../libcuda.so")];
    candidates
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .unwrap_or_else(|| panic!("libcuda.so was not built next to {}", deps.display()))
}

/// A directory holding `libcuda.so.1` and `libcuda.so` links to the built library, for the
/// linker (`-L`) and the loader (`LD_LIBRARY_PATH`).
pub fn lib_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxvk-cuda-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let lib = libcuda();
    for link in ["libcuda.so", "libcuda.so.1"] {
        std::os::unix::fs::symlink(&lib, dir.join(link))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(link).display()));
    }
    dir
}

/// Compiles `tests/c/NAME.c` against the real cuda.h and our libcuda, in `dir`.
pub fn compile_c(name: &str, include: &Path, dir: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(format!("{name}.c"));
    let exe = dir.join(name);
    let out = Command::new("cc")
        // Deprecated entry points are called on purpose: older programs still use them.
        .args([
            "-std=c11",
            "-Wall",
            "-Werror",
            "-Wno-deprecated-declarations",
            "-O1",
            "-pthread",
        ])
        .arg("-I")
        .arg(include)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(dir)
        .args(["-lcuda", "-lm"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run cc: {e}"));
    assert!(
        out.status.success(),
        "cc {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs a compiled test program against our library; panics with its output unless it
/// exits 0. `env` adds variables for the program. The validation layer is required unless
/// `PTXVK_VALIDATION` says otherwise.
pub fn run_c(exe: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let validation = std::env::var("PTXVK_VALIDATION").unwrap_or_else(|_| "required".into());
    let out = Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .env("LD_LIBRARY_PATH", dir)
        .env("PTXVK_VALIDATION", validation)
        .env("PTXVK_CACHE_DIR", "off")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}):\n{text}",
        exe.display(),
        out.status
    );
    text
}

/// A library the venv holds, by its path under site-packages (`nvidia/...`).
pub fn venv_lib(rel: &str) -> Option<PathBuf> {
    std::fs::read_dir(venv_dir().join("lib"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages").join(rel))
        .find(|p| p.exists())
}

/// NVIDIA's NVRTC: `$PTXVK_NVRTC`, else the venv's; `None` (the test is skipped) when
/// `PTXVK_NVRTC=skip`; a panic naming the install command when neither has it.
pub fn nvrtc() -> Option<PathBuf> {
    const REL: &str = "nvidia/cuda_nvrtc/lib/libnvrtc.so.12";
    match std::env::var("PTXVK_NVRTC") {
        Ok(v) if v == "skip" => {
            eprintln!("skipped: PTXVK_NVRTC=skip");
            None
        }
        Ok(v) => Some(PathBuf::from(v)),
        Err(_) => Some(venv_lib(REL).unwrap_or_else(|| {
            panic!(
                "PTXVK_NVRTC is not set and the venv has no {REL}; install it with\n  \
                 cargo xtask test (which installs it), or: \
                 ~/.cache/ptxvk/venv/bin/pip install nvidia-cuda-nvrtc-cu12\nor set PTXVK_NVRTC=skip"
            )
        })),
    }
}
