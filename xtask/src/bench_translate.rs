//! `cargo xtask bench translate`: translation throughput (translator/benches/translate.rs) in
//! an optimised build, without the `validate` feature (SPIR-V validation is not part of what is
//! measured, and SPIRV-Tools' optimised C++ build would take minutes).

use anyhow::Result;

use crate::{cargo, run};

/// Arguments go to the benchmark: `--lines N` (module size, default 100,000), `--runs N`,
/// `--reps N`, `--only PROFILE`; `--system-allocator` measures with the platform's allocator
/// instead of mimalloc (the `ptxvk` binary's).
pub fn bench_translate(args: &[String]) -> Result<()> {
    let system = args.iter().any(|a| a == "--system-allocator");
    let mut c = cargo();
    c.args(["bench", "-p", "ptxvk-translator", "--no-default-features"]);
    if system {
        c.args(["--features", "system-allocator"]);
    }
    c.args(["--bench", "translate", "--"]);
    run(c.args(args.iter().filter(|a| *a != "--system-allocator")))
}
