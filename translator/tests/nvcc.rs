//! NVIDIA's nvcc of CUDA 13 on CUDA C++ of ours (shaders/nvcc/*.cu): cub's device-wide
//! algorithms and block collectives, thrust, cooperative groups, WMMA through <mma.h> and
//! inline PTX, and the clang/NVRTC corpus (shaders/corpus/*.cu), compiled at test time for
//! sm_75, sm_80 and sm_90. Every file must parse and check with no diagnostics and every kernel
//! must translate to SPIR-V that SPIRV-Tools accepts, except for the failures listed in
//! `KNOWN`. The runtime's `nvcc_kernels` test runs kernels of shaders/nvcc on the device.
//! nvcc's output is cached under the target directory (tests/nvcc_support), not committed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus_support;
mod nvcc_support;

use corpus_support::{Known, run_corpus};
use ptxvk_translator::{Program, SourceFile};

const ARCHS: [&str; 3] = ["sm_75", "sm_80", "sm_90"];

/// What ptxvk cannot do yet with nvcc's output (see the same list in corpus.rs).
const KNOWN: &[Known] = &[];

#[test]
fn nvcc_corpus_checks_and_translates() {
    let Some(nvcc) = nvcc_support::nvcc_or_skip("the nvcc corpus test") else {
        return;
    };
    let sources = nvcc_support::sources();
    assert!(sources.len() >= 6, "{} nvcc sources", sources.len());
    let mut jobs = Vec::new();
    for src in &sources {
        for sm in ARCHS {
            jobs.push((src.clone(), vec![format!("-arch={sm}")]));
        }
    }
    // The clang and NVRTC corpus too, through the header's NVRTC branch.
    let include = format!("-I{}", corpus_support::shaders_dir().display());
    for (_, src) in corpus_support::corpus_sources() {
        for sm in ARCHS {
            jobs.push((src.clone(), vec![format!("-arch={sm}"), include.clone()]));
        }
    }
    let started = std::time::Instant::now();
    let results = nvcc_support::compile_all(&nvcc, &jobs);
    eprintln!("nvcc: {:.1} s", started.elapsed().as_secs_f64());
    let mut files = Vec::new();
    for ((src, flags), ptx) in jobs.iter().zip(results) {
        let ptx = ptx.unwrap_or_else(|e| panic!("{e}"));
        let mut stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        if src.parent().is_some_and(|d| d.ends_with("corpus")) {
            stem = format!("corpus_{stem}");
        }
        let sm = flags[0].trim_start_matches("-arch=");
        files.push((format!("{stem}.{sm}.ptx"), stem, ptx));
    }
    let translated = run_corpus("nvcc corpus", &files, KNOWN);
    eprintln!("{translated} kernels translated and validated");
}

/// nvcc's separately compiled modules (`-rdc=true`): main.cu's kernels call a function and use
/// variables of lib.cu through `.extern` declarations. Linked, every kernel translates and
/// validates; main.cu alone is refused where it uses what only lib.cu defines.
#[test]
fn nvcc_rdc_modules_link() {
    let Some(nvcc) = nvcc_support::nvcc_or_skip("the nvcc -rdc link test") else {
        return;
    };
    let flags = ["-rdc=true", "-arch=sm_80"];
    let compile = |name: &str| {
        let path = nvcc_support::source(&format!("rdc/{name}"));
        let ptx = nvcc_support::compile_ptx(&nvcc, &path, &flags).unwrap_or_else(|e| panic!("{e}"));
        SourceFile::new(name, ptx)
    };
    let (main, lib) = (compile("main.cu"), compile("lib.cu"));
    let linked = ptxvk_translator::link::link("linked.ptx", &[main.clone(), lib])
        .unwrap_or_else(|e| panic!("{e}"));
    let program = Program::parse(linked).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(program.kernel_names(), ["linked_apply", "linked_set_scale"]);
    for k in program.kernel_names() {
        let m = program
            .translate_kernel(&k, &corpus_support::profile())
            .unwrap_or_else(|d| panic!("{k}: {d}"));
        ptxvk_translator::validate(&m.spirv).unwrap_or_else(|e| panic!("{k}: {e}"));
    }
    let err = ptxvk_translator::link::link("linked.ptx", std::slice::from_ref(&main))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    for sym in ["_Z5applyi", "scale"] {
        let want = format!("`{sym}` is declared `.extern` but no module defines it");
        assert!(err.contains(&want), "{err}");
    }
    // Where main.cu's PTX uses `scale`: its first `[scale]` operand.
    let at = main.text.find("[scale]").expect("main.cu reads scale") + 1;
    let (line, col) = main.line_col(at as u32);
    assert!(err.contains(&format!("--> main.cu:{line}:{col}")), "{err}");
}
