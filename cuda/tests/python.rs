//! Python programs using NVIDIA's own bindings, unmodified, against the built library.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// The venv's Python with cuda-bindings: `$PTXVK_PYTHON`, else the venv `cargo xtask test`
/// installs (xtask/src/deps.rs). `None` when `PTXVK_PYTHON=skip`.
fn python() -> Option<PathBuf> {
    const INSTALL: &str = "cargo xtask test (which installs it), or: \
        ~/.cache/ptxvk/venv/bin/pip install cuda-bindings==12.9.10";
    let python = match std::env::var("PTXVK_PYTHON") {
        Ok(v) if v == "skip" => return None,
        Ok(v) => PathBuf::from(v),
        Err(_) => common::venv_dir().join("bin/python3"),
    };
    let has = Command::new(&python)
        .args(["-c", "import cuda.bindings.driver"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has,
        "{} cannot import cuda.bindings; install it with\n  {INSTALL}\nor set PTXVK_PYTHON=skip",
        python.display()
    );
    Some(python)
}

/// The programs import a helper module beside them; no bytecode is left in the source tree.
const NO_PYCACHE: (&str, &str) = ("PYTHONDONTWRITEBYTECODE", "1");

#[test]
fn cuda_bindings_finds_every_entry_point_and_runs_saxpy() {
    let Some(python) = python() else { return };
    let dir = common::lib_dir("python");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = common::run_c(
        &python,
        &dir,
        &[
            &root
                .join("tests/python/bindings_saxpy.py")
                .to_string_lossy(),
            &root.join("../shaders/saxpy.ptx").to_string_lossy(),
        ],
        &[],
    );
    assert!(out.contains("bindings: ok"), "{out}");
}

#[test]
fn cuda_python_with_nvrtc_runs_streams_events_and_globals() {
    let Some(python) = python() else { return };
    let has_numpy = Command::new(&python)
        .args(["-c", "import numpy, cuda.bindings.nvrtc"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_numpy,
        "{} cannot import numpy and cuda.bindings.nvrtc; install them with\n  \
         cargo xtask test (which installs them), or: \
         ~/.cache/ptxvk/venv/bin/pip install numpy==2.4.6 nvidia-cuda-nvrtc-cu12\n\
         or set PTXVK_PYTHON=skip",
        python.display()
    );
    let dir = common::lib_dir("python-nvrtc");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/python/nvrtc_streams.py");
    let out = common::run_c(&python, &dir, &[&script.to_string_lossy()], &[NO_PYCACHE]);
    assert!(out.contains("nvrtc: ok (compute_"), "{out}");
}

#[test]
fn fatbinaries_from_nvidia_tools_load_through_every_entry_point() {
    let Some(python) = python() else { return };
    let has = Command::new(&python)
        .args([
            "-c",
            "import numpy, cuda.bindings.nvfatbin as f; f.version()",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has,
        "{} cannot use numpy and nvFatbin; install them with\n  \
         cargo xtask test (which installs them), or: ~/.cache/ptxvk/venv/bin/pip install \
         numpy==2.4.6 nvidia-nvfatbin-cu12==12.9.82\nor set PTXVK_PYTHON=skip",
        python.display()
    );
    let dir = common::lib_dir("python-fatbin");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/python/fatbin_modules.py");
    // The device's compute capability fixed, for the architecture the warning names.
    let out = common::run_c(
        &python,
        &dir,
        &[&script.to_string_lossy()],
        &[("PTXVK_CC", "8.0"), NO_PYCACHE],
    );
    assert!(out.contains("fatbin: ok (compute_"), "{out}");
    for line in [
        "lz4 cuModuleLoadFatBinary: ok",
        "zstd cuModuleLoadDataEx: ok",
        "wrapper cuModuleLoadFatBinary: ok",
        "machine code only: CUDA_ERROR_NO_BINARY_FOR_GPU",
    ] {
        assert!(out.contains(line), "{line:?} missing:\n{out}");
    }
    // The warning names the missing PTX and the flag that embeds it.
    assert!(
        out.contains("no PTX for compute capability")
            && out.contains("-gencode arch=compute_80,code=compute_80"),
        "{out}"
    );
}
