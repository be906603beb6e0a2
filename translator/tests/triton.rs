//! Triton's PTX for our kernels in shaders/triton (matmul in f16, bf16, tf32 and fp8, attention,
//! softmax, layer norm, reductions), compiled at test time for sm_75, sm_80 and sm_90a: every
//! file must check with no diagnostics and every kernel must translate to valid SPIR-V, except
//! for the failures listed in `KNOWN`. The runtime's `triton` test runs some of them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus_support;
mod triton_support;

use corpus_support::{Known, run_corpus};

/// What ptxvk cannot do yet with Triton's output.
#[rustfmt::skip]
const KNOWN: &[Known] = &[
];

#[test]
fn triton_kernels_translate_and_validate() {
    let Some(kernels) = triton_support::kernels() else {
        return;
    };
    let files: Vec<(String, String, String)> = kernels
        .iter()
        .map(|k| (k.file.clone(), k.variant.clone(), k.ptx.clone()))
        .collect();
    let translated = run_corpus("triton", &files, KNOWN);
    eprintln!("triton: {translated} kernels translated and validated");
}
