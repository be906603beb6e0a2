//! `cargo xtask compat numba`: numba-cuda's own driver tests, run unmodified against the built
//! libcuda, with the pass count printed. Failures are expected (see README) and do not fail
//! the task; a suite that cannot run at all does.

use std::process::Command;

use anyhow::{Context, Result, bail};

/// The test packages run: numba-cuda's driver tests. Its kernel tests (`cudapy`) stop
/// numba's runner at collection, where a module skips itself through pytest.
const NUMBA_SUITES: &[&str] = &["numba.cuda.tests.cudadrv"];

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
    let mut total = Summary::default();
    for suite in NUMBA_SUITES {
        // numba's own runner: the installed tests lack the conftest.py their pytest fixtures
        // come from, so under pytest every test errors.
        println!("== numba.runtests {suite} (numba-cuda's own tests, on ptxvk's libcuda)");
        let out = Command::new(&python)
            .args(["-W", "ignore", "-m", "numba.runtests", "-v", suite])
            .env("LD_LIBRARY_PATH", &dir)
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
        total.add(&s);
    }
    println!(
        "== numba-cuda's tests on ptxvk: {} passed, {} failed, {} errors, {} skipped",
        total.passed, total.failed, total.errors, total.skipped
    );
    Ok(())
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
