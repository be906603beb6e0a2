//! `cargo xtask bench translate`: translation throughput (translator/benches/translate.rs) in
//! an optimised build, without the `validate` feature (SPIR-V validation is not part of what is
//! measured, and SPIRV-Tools' optimised C++ build would take minutes).

use anyhow::Result;

use crate::{cargo, run};

/// Arguments go to the benchmark: `--lines N` (module size, default 100,000), `--runs N`.
pub fn bench_translate(args: &[String]) -> Result<()> {
    run(cargo()
        .args([
            "bench",
            "-p",
            "ptxvk-translator",
            "--no-default-features",
            "--bench",
            "translate",
            "--",
        ])
        .args(args))
}
