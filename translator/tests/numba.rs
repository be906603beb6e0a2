//! numba-cuda's PTX for our `@cuda.jit` kernels in shaders/numba (arrays, 2-D grids, shared
//! and dynamic shared memory, atomics, warp shuffles and ballots, math, bit operations, local
//! arrays, complex numbers, 64-bit integers), compiled at test time by numba's
//! compile_ptx for sm_75, sm_80 and sm_90: every file must check with no diagnostics and every
//! kernel must translate to valid SPIR-V, except for the failures listed in `KNOWN`. The
//! runtime's `numba_corpus` test runs some of them against numpy.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus_support;
mod numba_support;

use corpus_support::{Known, run_corpus};

/// What ptxvk cannot do yet with numba's output.
#[rustfmt::skip]
const KNOWN: &[Known] = &[
];

#[test]
fn numba_kernels_translate_and_validate() {
    let Some(dir) = numba_support::build() else {
        return;
    };
    let files: Vec<(String, String, String)> = numba_support::kernels(&dir)
        .into_iter()
        .map(|k| (k.file, k.name, k.ptx))
        .collect();
    let translated = run_corpus("numba", &files, KNOWN);
    eprintln!("numba: {translated} kernels translated and validated");
    // Every kernel of shaders/numba/kernels.py for each of the three targets.
    for (file, stem, _) in &files {
        let targets = files.iter().filter(|(_, s, _)| s == stem).count();
        assert_eq!(targets, 3, "{file}: {stem} compiled for {targets} targets");
    }
}
