//! `cargo xtask compat numba`: numba-cuda's own driver tests and a subset of its kernel tests,
//! run unmodified against the built libcuda, with the pass counts printed. Failures are
//! expected (docs/compat-numba.md) and do not fail the task; a suite that cannot run at all
//! does.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// numba-cuda's driver tests, run whole.
const DRIVER_SUITE: &str = "numba.cuda.tests.cudadrv";

/// The kernel tests (`numba.cuda.tests.cudapy`) that run: the modules that compile and launch
/// kernels (docs/compat-numba.md). Left out: modules about numba's compiler itself (IR, SSA,
/// typing, byte flow, inspection, debug and line info, caching, serialization, warnings),
/// interoperation that needs packages or hardware the venv and lavapipe lack (CuPy, IPC,
/// several GPUs, cffi callbacks, multiprocessing), the largest generated ones (`test_ufuncs`,
/// `test_operator`, `test_bfloat16*`, `test_fp8_bindings`), and `test_matmul`, which numba's
/// runner loads through the whole package. The package as a whole stops numba's runner at
/// collection (one module skips itself through pytest at import). Each module runs in its own
/// process: a kernel that faults leaves CUDA's sticky error, which would fail every later test
/// of that process.
const CUDAPY_MODULES: &[&str] = &[
    "test_alignment",
    "test_array",
    "test_array_args",
    "test_array_methods",
    "test_atomics",
    "test_blackscholes",
    "test_boolean",
    "test_casting",
    "test_complex",
    "test_complex_kernel",
    "test_const_string",
    "test_constmem",
    "test_cooperative_groups",
    "test_device_func",
    "test_enums",
    "test_exception",
    "test_fastmath",
    "test_forall",
    "test_freevar",
    "test_frexp_ldexp",
    "test_globals",
    "test_gufunc",
    "test_idiv",
    "test_intrinsics",
    "test_iterators",
    "test_lang",
    "test_laplace",
    "test_libdevice",
    "test_localmem",
    "test_mandel",
    "test_math",
    "test_minmax",
    "test_montecarlo",
    "test_powi",
    "test_print",
    "test_random",
    "test_record_dtype",
    "test_recursion",
    "test_reduction",
    "test_slicing",
    "test_sm",
    "test_sm_creation",
    "test_stream_api",
    "test_sync",
    "test_transpose",
    "test_userexc",
    "test_vector_type",
    "test_vectorize",
    "test_warp_ops",
];

/// The most one module may take: a kernel that hangs costs the runtime's 60 s wait, and
/// the largest modules compile a few hundred kernels (`test_gufunc` about 8 minutes here).
const MODULE_TIMEOUT_S: u32 = 900;

pub fn compat(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("numba") => numba(),
        _ => bail!("usage: cargo xtask compat numba"),
    }
}

fn numba() -> Result<()> {
    crate::deps::ensure(crate::deps::Need::Run)?;
    let mut installed = Vec::new();
    let python = crate::deps::numba_compat_venv(&mut installed)?;
    if !installed.is_empty() {
        println!("== installed: {}", installed.join(", "));
    }
    println!("== cargo build -p ptxvk-cuda");
    crate::run(crate::cargo().args(["build", "-p", "ptxvk-cuda"]))?;
    let lib = crate::root().join("target/debug/libcuda.so");
    // numba opens `libcuda.so`, cuda-bindings `libcuda.so.1`: both must be ours.
    let dir = crate::root().join("target/compat-numba-lib");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for name in ["libcuda.so", "libcuda.so.1"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link)
            .with_context(|| format!("cannot link {}", link.display()))?;
    }
    let mut suites = vec![DRIVER_SUITE.to_string()];
    suites.extend(
        CUDAPY_MODULES
            .iter()
            .map(|m| format!("numba.cuda.tests.cudapy.{m}")),
    );
    let mut totals = [Summary::default(), Summary::default()];
    for (i, suite) in suites.iter().enumerate() {
        let s = run_suite(&python, &dir, suite)?;
        totals[usize::from(i > 0)].add(&s);
    }
    for (what, t) in [("cudadrv", &totals[0]), ("cudapy subset", &totals[1])] {
        println!(
            "== numba-cuda's {what} tests on ptxvk: {} passed, {} failed, {} errors, {} skipped",
            t.passed, t.failed, t.errors, t.skipped
        );
    }
    Ok(())
}

/// Runs one package or module through numba's own runner (the installed tests lack the
/// conftest.py their pytest fixtures come from, so under pytest every test errors) and
/// prints its failures and counts.
fn run_suite(python: &Path, dir: &Path, suite: &str) -> Result<Summary> {
    println!("== numba.runtests {suite} (numba-cuda's own tests, on ptxvk's libcuda)");
    let out = Command::new("timeout")
        .arg(MODULE_TIMEOUT_S.to_string())
        .arg(python)
        .args(["-W", "ignore", "-m", "numba.runtests", "-v", suite])
        .env("LD_LIBRARY_PATH", dir)
        .env("PTXVK_CACHE_DIR", "off")
        .current_dir(std::env::temp_dir())
        .output()
        .with_context(|| format!("cannot run {}", python.display()))?;
    // unittest writes its report to stderr.
    let text = String::from_utf8_lossy(&out.stderr);
    for line in text
        .lines()
        .filter(|l| l.starts_with("FAIL: ") || l.starts_with("ERROR: "))
    {
        println!("{line}");
    }
    let Some(s) = Summary::parse(&text) else {
        bail!(
            "numba.runtests {suite} ended without a summary ({}):\n{text}",
            out.status
        );
    };
    println!(
        "{suite}: {} passed, {} failed, {} errors, {} skipped",
        s.passed, s.failed, s.errors, s.skipped
    );
    Ok(s)
}

/// unittest's closing counts.
#[derive(Default, Debug, PartialEq)]
struct Summary {
    passed: u32,
    failed: u32,
    errors: u32,
    skipped: u32,
}

impl Summary {
    /// Reads unittest's closing lines: `Ran 250 tests in 24.3s`, then `OK`, `OK (skipped=2)`
    /// or `FAILED (failures=8, errors=6, skipped=22)`.
    fn parse(text: &str) -> Option<Summary> {
        let mut lines = text.lines().rev();
        let verdict = lines.find(|l| l.starts_with("OK") || l.starts_with("FAILED ("))?;
        let ran = lines.find_map(|l| l.strip_prefix("Ran "))?;
        let total: u32 = ran.split(' ').next()?.parse().ok()?;
        let mut s = Summary::default();
        if let Some(inner) = verdict
            .split_once('(')
            .and_then(|(_, r)| r.strip_suffix(')'))
        {
            for part in inner.split(", ") {
                let (what, n) = part.split_once('=')?;
                let n: u32 = n.parse().ok()?;
                match what {
                    "failures" => s.failed = n,
                    "errors" => s.errors = n,
                    "skipped" => s.skipped = n,
                    // Expected failures count as neither: numba marks them itself.
                    _ => {}
                }
            }
        }
        s.passed = total.checked_sub(s.failed + s.errors + s.skipped)?;
        Some(s)
    }

    fn add(&mut self, o: &Summary) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.errors += o.errors;
        self.skipped += o.skipped;
    }
}

#[cfg(test)]
mod tests {
    use super::Summary;

    #[test]
    fn unittest_summaries_give_counts() {
        let s = Summary::parse(
            "x\nRan 250 tests in 24.282s\n\nFAILED (failures=8, errors=6, skipped=22)\n",
        );
        assert_eq!(
            s,
            Some(Summary {
                passed: 214,
                failed: 8,
                errors: 6,
                skipped: 22
            })
        );
        let s = Summary::parse("Ran 3 tests in 0.1s\n\nOK (skipped=1)");
        assert_eq!(
            s,
            Some(Summary {
                passed: 2,
                failed: 0,
                errors: 0,
                skipped: 1
            })
        );
        assert_eq!(
            Summary::parse("Ran 3 tests in 0.1s\n\nOK"),
            Some(Summary {
                passed: 3,
                ..Summary::default()
            })
        );
        assert_eq!(Summary::parse("no tests ran"), None);
    }
}
