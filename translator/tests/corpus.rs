//! The corpus of real compiler output: our CUDA C kernels (shaders/corpus/*.cu) compiled by
//! clang-19 for several targets and optimization levels (`cargo xtask shaders`). Every file must
//! parse and check with no diagnostics, and every kernel must translate (lavapipe profile, warps
//! emulated) to SPIR-V that SPIRV-Tools accepts, except for the failures listed in `KNOWN`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus_support;

use corpus_support::{Known, run_corpus};

/// What ptxvk cannot do yet with the clang corpus. Each entry names instructions or features
/// that are missing (being added on other branches) or a bug; remove an entry when it starts
/// to work (the test says which).
#[rustfmt::skip]
const KNOWN: &[Known] = &[
];

fn corpus_files() -> Vec<(String, String, String)> {
    let dir = corpus_support::shaders_dir().join("corpus");
    let mut files: Vec<(String, String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let stem = name.split('.').next().unwrap().to_string();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, stem, text)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn clang_corpus_checks_and_translates() {
    let files = corpus_files();
    // Every source is compiled for three targets (xtask/src/corpus.rs).
    let sources = corpus_support::corpus_sources();
    assert!(sources.len() >= 20, "{} corpus sources", sources.len());
    for (stem, _) in &sources {
        for sm in ["sm_70", "sm_80", "sm_90"] {
            let name = format!("{stem}.{sm}.ptx");
            assert!(
                files.iter().any(|(n, _, _)| *n == name),
                "{name} is missing: run `cargo xtask shaders`"
            );
        }
    }
    let translated = run_corpus("clang corpus", &files, KNOWN);
    eprintln!("{translated} kernels translated and validated");
}
