//! numba-cuda, unmodified and installed as its users install it (`numba-cuda[cu12]` and
//! `numba-cuda[cu13]`, nvJitLink included), compiling `@cuda.jit` Python to PTX and running
//! it on the built library; every program checks its results against numpy and exits
//! non-zero otherwise.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// numba-cuda as its users install it, in the two flavours: (pip extra, interpreter variable,
/// venv variable, default venv folder beside the main venv, nvJitLink's distribution).
struct Flavour {
    extra: &'static str,
    python_var: &'static str,
    venv_var: &'static str,
    venv: &'static str,
    nvjitlink: &'static str,
}

const CU12: Flavour = Flavour {
    extra: "cu12",
    python_var: "PTXVK_NUMBA_PYTHON",
    venv_var: "PTXVK_NUMBA_VENV",
    venv: "venv-numba",
    nvjitlink: "nvidia-nvjitlink-cu12",
};

const CU13: Flavour = Flavour {
    extra: "cu13",
    python_var: "PTXVK_NUMBA13_PYTHON",
    venv_var: "PTXVK_NUMBA13_VENV",
    venv: "venv-numba-cu13",
    nvjitlink: "nvidia-nvjitlink",
};

/// Checks the interpreter once: it imports numba.cuda and has nvJitLink, as
/// `numba-cuda[cuXX]` installs it: these tests are about numba with nvJitLink.
const PROBE: &str = "\
import importlib.metadata as m, sys
import numba.cuda
m.version(sys.argv[1])
";

/// numba's Python of a flavour: its `python_var`, else the venv `cargo xtask test` installs
/// (its `venv_var`, else the folder beside the main venv: xtask/src/deps.rs). `None` when
/// the variable is `skip`.
fn python(f: &'static Flavour) -> Option<&'static PathBuf> {
    static PYTHONS: [OnceLock<Option<PathBuf>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = if f.extra == "cu12" { 0 } else { 1 };
    PYTHONS[slot]
        .get_or_init(|| {
            let python = match std::env::var(f.python_var) {
                Ok(v) if v == "skip" => return None,
                Ok(v) => PathBuf::from(v),
                Err(_) => match std::env::var_os(f.venv_var) {
                    Some(v) => PathBuf::from(v).join("bin/python3"),
                    None => {
                        let venv = common::venv_dir();
                        let cache = venv.parent().unwrap_or(&venv);
                        cache.join(f.venv).join("bin/python3")
                    }
                },
            };
            let out = Command::new(&python)
                .args(["-c", PROBE, f.nvjitlink])
                .output();
            match out {
                Ok(o) if o.status.success() => {}
                other => panic!(
                    "{} cannot import numba.cuda or lacks {} ({other:?}); install it with\n  \
                     cargo xtask test (which installs it), or: python3 -m venv DIR && \
                     DIR/bin/pip install \"numba-cuda[{}]==0.30.4\"\nor set {}=skip",
                    python.display(),
                    f.nvjitlink,
                    f.extra,
                    f.python_var
                ),
            }
            Some(python)
        })
        .as_ref()
}

/// Runs `tests/numba/NAME.py` with the built library as libcuda and returns its output.
fn run(f: &'static Flavour, name: &str) -> Option<String> {
    run_with(f, name, &[])
}

fn run_with(f: &'static Flavour, name: &str, env: &[(&str, &str)]) -> Option<String> {
    let python = python(f)?;
    let dir = common::lib_dir(&format!("numba-{}-{name}", f.extra));
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

fn vector_add(f: &'static Flavour) {
    // Only ptxvk's library reads PTXVK_CC: numba seeing 7.5 shows it loaded ours and not a
    // CUDA driver found elsewhere on the machine. NVIDIA's nvJitLink staying unloaded shows
    // that ptxvk's answered for it (src/nvjitlink.rs).
    if let Some(out) = run_with(f, "vector_add", &[("PTXVK_CC", "7.5")]) {
        assert!(out.contains("compute capability (7, 5)"), "{out}");
        assert!(out.contains("NVIDIA's nvJitLink loaded: False"), "{out}");
    }
}

#[test]
fn numba_vector_add_with_device_arrays_and_host_arrays() {
    vector_add(&CU12);
}

#[test]
fn numba_cu13_vector_add_with_device_arrays_and_host_arrays() {
    vector_add(&CU13);
}

#[test]
fn numba_shared_memory_reduction_with_syncthreads_and_atomic_total() {
    run(&CU12, "reduction");
}

/// 32 KiB of static and 16 KiB of dynamic shared memory, CUDA's default per block: beyond
/// lavapipe's 32 KiB, so the arena is in device memory there.
#[test]
fn numba_48_kib_of_shared_memory_with_syncthreads_and_shared_atomics() {
    run(&CU12, "big_shared");
}

#[test]
fn numba_histogram_with_atomic_add_max_and_compare_and_swap() {
    run(&CU12, "histogram");
}

#[test]
fn numba_device_functions_inlined_and_called() {
    run(&CU12, "device_function");
}

#[test]
fn numba_math_functions_match_numpy_in_float32_and_float64() {
    run(&CU12, "math_funcs");
}

#[test]
fn numba_local_array_per_thread() {
    run(&CU12, "local_array");
}

#[test]
fn numba_stream_with_async_copies_and_timed_events() {
    run(&CU12, "stream_events");
}

/// `print()` in a kernel: numba's vprintf calls, drained into the process's standard output
/// by the synchronisation; every thread's line is the one the host prints for it.
#[test]
fn numba_print_in_a_kernel() {
    let Some(out) = run(&CU12, "print") else {
        return;
    };
    let tagged = |tag: &str| {
        let mut v: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix(tag)).collect();
        v.sort_unstable();
        v
    };
    let host = tagged("host ");
    assert_eq!(host.len(), 40, "{out}");
    assert_eq!(tagged("device "), host, "{out}");
}

// The CUDA 13 flavour runs the same programs but the math one, which takes half a minute of
// compilation and exercises libdevice rather than anything the flavours do differently.
#[test]
fn numba_cu13_shared_memory_reduction_with_syncthreads_and_atomic_total() {
    run(&CU13, "reduction");
}

#[test]
fn numba_cu13_histogram_with_atomic_add_max_and_compare_and_swap() {
    run(&CU13, "histogram");
}

#[test]
fn numba_cu13_device_functions_inlined_and_called() {
    run(&CU13, "device_function");
}

#[test]
fn numba_cu13_local_array_per_thread() {
    run(&CU13, "local_array");
}

#[test]
fn numba_cu13_stream_with_async_copies_and_timed_events() {
    run(&CU13, "stream_events");
}
