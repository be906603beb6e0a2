//! Triton's PTX for the kernels in shaders/triton, made at test time by `shaders/triton/build.py`
//! with the pip package `triton` (no GPU needed: the pipeline stops at PTX). The output is cached
//! under `target/triton/<key>`, keyed by the sources and Triton's version, so only the first run
//! after a change compiles.
//!
//! Python is `$PTXVK_TRITON_PYTHON`, else the virtual environment `cargo xtask test` installs
//! (`$PTXVK_VENV`, else `~/.cache/ptxvk/venv`); `PTXVK_TRITON_PYTHON=skip` skips the tests.
//! Shared by the translator's and the runtime's tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub const INSTALL: &str = "cargo xtask test (it installs triton into ~/.cache/ptxvk/venv), or \
                           ~/.cache/ptxvk/venv/bin/pip install triton==3.9.0";

/// One compiled kernel: `<variant>.sm<cc>`.
pub struct TritonKernel {
    /// `<variant>.sm<cc>.ptx`.
    pub file: String,
    /// The variant (`matmul_f16`, ...).
    pub variant: String,
    /// The compute capability (75, 80, 90).
    pub cc: u32,
    pub ptx: String,
    /// The kernel's name in the PTX.
    pub kernel: String,
    pub num_warps: u32,
    /// Dynamic shared memory the launch must give (Triton's `global_smem`).
    pub shared: u32,
    /// Bytes per program of the scratch buffer Triton adds as a parameter (0: none needed).
    pub global_scratch_size: u32,
    pub profile_scratch_size: u32,
}

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

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Python that has triton; `None` when the tests are to be skipped.
pub fn python() -> Option<PathBuf> {
    let python = match std::env::var("PTXVK_TRITON_PYTHON") {
        Ok(v) if v == "skip" => return None,
        Ok(v) => PathBuf::from(v),
        Err(_) => venv_dir().join("bin/python3"),
    };
    let has = Command::new(&python)
        .args(["-c", "import importlib.metadata as m; m.version('triton')"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has,
        "{} has no triton; install it with\n  {INSTALL}\nor set PTXVK_TRITON_PYTHON=skip",
        python.display()
    );
    Some(python)
}

fn field<'a>(json: &'a str, name: &str) -> &'a str {
    let key = format!("\"{name}\":");
    let at = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"));
    let rest = json[at + key.len()..].trim_start();
    let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
    rest[..end].trim().trim_matches('"')
}

fn number(json: &str, name: &str) -> u32 {
    field(json, name)
        .parse()
        .unwrap_or_else(|e| panic!("{name} in {json}: {e}"))
}

/// Every kernel, compiled now or taken from the cache; `None` when skipped.
pub fn kernels() -> Option<Vec<TritonKernel>> {
    let python = python()?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let out = Command::new(&python)
        .arg(repo().join("shaders/triton/build.py"))
        .arg(target.join("triton"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        out.status.success(),
        "shaders/triton/build.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let dir = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
    let mut v = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "ptx") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = file.trim_end_matches(".ptx");
        let (variant, sm) = stem.rsplit_once(".sm").unwrap();
        let json = std::fs::read_to_string(path.with_extension("json")).unwrap();
        v.push(TritonKernel {
            file: file.clone(),
            variant: variant.to_string(),
            cc: sm.parse().unwrap(),
            ptx: std::fs::read_to_string(&path).unwrap(),
            kernel: field(&json, "kernel").to_string(),
            num_warps: number(&json, "num_warps"),
            shared: number(&json, "shared"),
            global_scratch_size: number(&json, "global_scratch_size"),
            profile_scratch_size: number(&json, "profile_scratch_size"),
        });
    }
    v.sort_by(|a, b| a.file.cmp(&b.file));
    assert!(!v.is_empty(), "{}: no PTX", dir.display());
    Some(v)
}
