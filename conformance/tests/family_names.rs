//! The modules of `src/cases/` are named as the translator's catalog families (the names of
//! `check/inst/<family>.rs` and `check/op/<family>.rs`, and of `lower/` through
//! `Family::lowering_modules`), or say here which families they test and why they are named
//! otherwise. A new module with another name fails until it is listed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use ptxvk_translator::check::catalog::Family;

/// Modules named otherwise, with the catalog families whose instructions they run (empty:
/// no cases of one family: models, helpers, whole programs).
const OTHER_NAMES: &[(&str, &[&str], &str)] = &[
    (
        "convert_model",
        &[],
        "the exact-rational model of `convert`'s cases",
    ),
    (
        "bulk_multicast",
        &["async_copy"],
        "`cp.async.bulk` multicast into the one-block cluster",
    ),
    ("corpus", &[], "whole kernels of the corpus, every family"),
    (
        "float_approx",
        &["float"],
        "the `.approx` forms, with error bounds",
    ),
    (
        "float_bits",
        &["float"],
        "the float forms that only move bits or compare",
    ),
    (
        "fuzz_regressions",
        &[],
        "programs the differential fuzzer once found wrong, every family",
    ),
    (
        "int_bits",
        &["int"],
        "the bit-field forms of the integer family",
    ),
    ("kernel_case", &[], "cases made of a whole module"),
    ("moves", &["data"], "`mov`, ISA 8.7.6.2-8.7.6.3"),
    (
        "operands",
        &["ldst", "data"],
        "the address and vector operand forms of ISA chapter 6",
    ),
    (
        "prmt",
        &["permute"],
        "named after the instruction, as its records are",
    ),
    ("real_kernels", &[], "whole algorithms checked against Rust"),
    (
        "sm90",
        &["warp", "misc"],
        "what compilers for sm_90 emit beside arithmetic",
    ),
    (
        "spaces",
        &["data", "ldst"],
        "state spaces and generic addressing, ISA chapter 5",
    ),
    (
        "tables",
        &["data"],
        "ISA 9.4 Tables 26-28, operand types against instruction types",
    ),
    (
        "tensor_copy",
        &["async_copy"],
        "the tensor forms of the bulk copies",
    ),
    (
        "tensor_four_rows",
        &["async_copy"],
        "the `.tile::gather4` and `.tile::scatter4` tensor copies",
    ),
    (
        "tensor_im2col",
        &["async_copy"],
        "the `.im2col` tensor loads, with their own model",
    ),
    (
        "tensor_im2col_wide",
        &["async_copy"],
        "the `.im2col::w` tensor loads, with their own model",
    ),
    (
        "tensor_model",
        &[],
        "the box-copy model of `tensor_copy`'s cases",
    ),
    ("video_model", &[], "the model of `video`'s cases"),
];

#[test]
fn case_modules_are_named_by_catalog_families() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cases");
    let mut unnamed = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" || (path.is_dir() && dir.join(format!("{stem}.rs")).exists()) {
            continue;
        }
        if Family::from_name(&stem).is_none() && !OTHER_NAMES.iter().any(|(n, ..)| *n == stem) {
            unnamed.push(stem);
        }
    }
    assert!(
        unnamed.is_empty(),
        "modules of src/cases/ named neither as a catalog family nor in OTHER_NAMES: {unnamed:?}"
    );
    for (name, families, _) in OTHER_NAMES {
        assert!(
            dir.join(format!("{name}.rs")).exists() || dir.join(name).is_dir(),
            "OTHER_NAMES lists `{name}`, which src/cases/ no longer has"
        );
        assert!(
            Family::from_name(name).is_none(),
            "`{name}` is a catalog family: it needs no entry"
        );
        for f in *families {
            assert!(
                Family::from_name(f).is_some(),
                "`{name}`: `{f}` is no catalog family"
            );
        }
    }
}
