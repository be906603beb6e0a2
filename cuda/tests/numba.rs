//! numba-cuda, unmodified, compiling `@cuda.jit` Python to PTX and running it on the built
//! library; every program checks its results against numpy and exits non-zero otherwise.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const INSTALL: &str = "cargo xtask test (which installs it), or: \
    python3 -m venv ~/.cache/ptxvk/venv-numba && ~/.cache/ptxvk/venv-numba/bin/pip install \
    numba-cuda==0.30.4 numba==0.68.1 cuda-core==1.2.2 cuda-bindings==12.9.10 \
    nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvrtc-cu12==12.9.86";

/// Checks the interpreter once: it imports numba.cuda and lacks nvJitLink, with which numba
/// would link cubins itself and the failure would read as an invalid image instead of this.
const PROBE: &str = "\
import importlib.metadata as m
import numba.cuda
for p in ('nvidia-nvjitlink-cu12', 'nvidia-nvjitlink'):
    try:
        m.version(p)
        print(p)
    except m.PackageNotFoundError:
        pass
";

/// numba's Python: `$PTXVK_NUMBA_PYTHON`, else the venv `cargo xtask test` installs
/// (`$PTXVK_NUMBA_VENV`, else `venv-numba` beside the main venv: xtask/src/deps.rs). `None`
/// when `PTXVK_NUMBA_PYTHON=skip`.
fn python() -> Option<&'static PathBuf> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let python = match std::env::var("PTXVK_NUMBA_PYTHON") {
                Ok(v) if v == "skip" => return None,
                Ok(v) => PathBuf::from(v),
                Err(_) => match std::env::var_os("PTXVK_NUMBA_VENV") {
                    Some(v) => PathBuf::from(v).join("bin/python3"),
                    None => {
                        let venv = common::venv_dir();
                        let cache = venv.parent().unwrap_or(&venv);
                        cache.join("venv-numba/bin/python3")
                    }
                },
            };
            let out = Command::new(&python).args(["-c", PROBE]).output();
            let out = match out {
                Ok(o) if o.status.success() => o,
                other => panic!(
                    "{} cannot import numba.cuda ({other:?}); install it with\n  {INSTALL}\n\
                     or set PTXVK_NUMBA_PYTHON=skip",
                    python.display()
                ),
            };
            let found = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert!(
                found.is_empty(),
                "{} has {found}: numba would link SASS itself and hand the driver a cubin; \
                 remove it with\n  {} -m pip uninstall -y {found}",
                python.display(),
                python.display()
            );
            Some(python)
        })
        .as_ref()
}

/// Runs `tests/numba/NAME.py` with the built library as libcuda and returns its output.
fn run(name: &str) -> Option<String> {
    run_with(name, &[])
}

fn run_with(name: &str, env: &[(&str, &str)]) -> Option<String> {
    let python = python()?;
    let dir = common::lib_dir(&format!("numba-{name}"));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/numba")
        .join(format!("{name}.py"));
    // numba warns about small grids and host arrays; those lines would only bury a failure.
    let out = common::run_c(
        python,
        &dir,
        &["-W", "ignore", &script.to_string_lossy()],
        env,
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.contains(&format!("{name}: ok")), "{out}");
    Some(out)
}

#[test]
fn numba_vector_add_with_device_arrays_and_host_arrays() {
    // Only ptxvk's library reads PTXVK_CC: numba seeing 7.5 shows it loaded ours and not a
    // CUDA driver found elsewhere on the machine.
    if let Some(out) = run_with("vector_add", &[("PTXVK_CC", "7.5")]) {
        assert!(out.contains("compute capability (7, 5)"), "{out}");
    }
}

#[test]
fn numba_shared_memory_reduction_with_syncthreads_and_atomic_total() {
    run("reduction");
}

#[test]
fn numba_histogram_with_atomic_add_max_and_compare_and_swap() {
    run("histogram");
}

#[test]
fn numba_device_functions_inlined_and_called() {
    run("device_function");
}

#[test]
fn numba_math_functions_match_numpy_in_float32_and_float64() {
    run("math_funcs");
}

#[test]
fn numba_local_array_per_thread() {
    run("local_array");
}

#[test]
fn numba_stream_with_async_copies_and_timed_events() {
    run("stream_events");
}
