//! numba-cuda's PTX for the kernels in shaders/numba, made at test time by
//! `shaders/numba/build.py` with numba's `compile_ptx` (no GPU and no driver needed), with the
//! inputs and numpy's results of its runs. The output is cached under `target/numba/<key>`,
//! keyed by the sources and numba-cuda's version, so only the first run after a change
//! compiles.
//!
//! Python is `$PTXVK_NUMBA_PYTHON`, else the numba venv `cargo xtask test` installs
//! (`$PTXVK_NUMBA_VENV`, else `venv-numba` beside the main venv); `PTXVK_NUMBA_PYTHON=skip`
//! skips the tests. Shared by the translator's and the runtime's tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub const INSTALL: &str = "cargo xtask test (it installs numba-cuda[cu12] into \
                           ~/.cache/ptxvk/venv-numba)";

/// One compiled kernel: `<name>.sm<cc>`.
pub struct NumbaKernel {
    /// `<name>.sm<cc>.ptx`.
    pub file: String,
    /// The Python function's name.
    pub name: String,
    pub cc: u32,
    pub ptx: String,
    /// The entry's mangled name.
    pub entry: String,
}

fn venv_python() -> PathBuf {
    if let Some(v) = std::env::var_os("PTXVK_NUMBA_VENV") {
        return PathBuf::from(v).join("bin/python3");
    }
    let main = match std::env::var_os("PTXVK_VENV") {
        Some(v) => PathBuf::from(v),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir)
            .join("ptxvk")
            .join("venv"),
    };
    main.parent()
        .unwrap_or(&main)
        .join("venv-numba")
        .join("bin/python3")
}

/// The Python that has numba-cuda; `None` when the tests are to be skipped.
pub fn python() -> Option<PathBuf> {
    let python = match std::env::var("PTXVK_NUMBA_PYTHON") {
        Ok(v) if v == "skip" => return None,
        Ok(v) => PathBuf::from(v),
        Err(_) => venv_python(),
    };
    let has = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; m.version('numba-cuda')",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has,
        "{} has no numba-cuda; install it with\n  {INSTALL}\nor set PTXVK_NUMBA_PYTHON=skip",
        python.display()
    );
    Some(python)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The folder `build.py` wrote, compiled now or taken from the cache; `None` when skipped.
pub fn build() -> Option<PathBuf> {
    let python = python()?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let out = Command::new(&python)
        .arg(repo().join("shaders/numba/build.py"))
        .arg(target.join("numba"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        out.status.success(),
        "shaders/numba/build.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    Some(PathBuf::from(
        stdout.lines().last().unwrap_or_default().trim(),
    ))
}

/// Every kernel of the build in `dir`.
pub fn kernels(dir: &Path) -> Vec<NumbaKernel> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "ptx") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let (name, sm) = file.trim_end_matches(".ptx").rsplit_once(".sm").unwrap();
        v.push(NumbaKernel {
            file: file.clone(),
            name: name.to_string(),
            cc: sm.parse().unwrap(),
            ptx: std::fs::read_to_string(&path).unwrap(),
            entry: std::fs::read_to_string(path.with_extension("entry")).unwrap(),
        });
    }
    v.sort_by(|a, b| a.file.cmp(&b.file));
    assert!(!v.is_empty(), "{}: no PTX", dir.display());
    v
}
