//! The catalog against what reads mnemonics: the decoder's dispatch, the gating table and the
//! files of each family.

use std::path::Path;

use super::*;
use crate::check::gating::GATES;

const UNKNOWN: &str = "unknown or unsupported instruction";

/// The checker's messages for a kernel whose body is `body`.
fn messages(body: &str) -> Vec<String> {
    let src = format!(
        ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n{body}\nret;\n}}\n"
    );
    let (module, mut diags) = crate::parse::parse(&src);
    let Some(mut module) = module else {
        panic!("`{body}` does not parse: {diags:?}");
    };
    crate::check::check(&mut module, &mut diags);
    diags.into_iter().map(|d| d.message).collect()
}

#[test]
fn rows_are_sorted_and_unique() {
    for pair in CATALOG.windows(2) {
        assert!(
            pair[0].mnemonic < pair[1].mnemonic,
            "`{}` before `{}`",
            pair[0].mnemonic,
            pair[1].mnemonic
        );
    }
    for e in CATALOG {
        assert!(!e.families.is_empty(), "`{}` names no family", e.mnemonic);
        assert_eq!(lookup(e.mnemonic).map(|f| f.mnemonic), Some(e.mnemonic));
    }
}

/// A row whose mnemonic no dispatch arm takes would be refused as unknown after the catalog
/// let it through; a mnemonic refused by the catalog never reaches the dispatch.
#[test]
fn every_row_reaches_a_decoder_and_nothing_else_does() {
    // Whether `body` got past the gating table to the decoder; a decoder must take it.
    let reaches = |mnemonic: &str, body: String| {
        let found = messages(&body);
        assert!(
            !found.iter().any(|m| m.starts_with(UNKNOWN)),
            "`{mnemonic}` is catalogued but no decoder takes `{body}`: {found:?}"
        );
        !found.iter().any(|m| m.contains("this module declares"))
    };
    for e in CATALOG {
        let m = e.mnemonic;
        // `shfl` and `vote` without `.sync` are gated off for this target.
        assert!(
            reaches(m, format!("{m};")) || reaches(m, format!("{m}.sync;")),
            "`{m}` never got past the gating table"
        );
    }
    for name in REFUSED
        .iter()
        .chain(&["frobnicate", "vavrg", "vshl2", "tensormap"])
    {
        let found = messages(&format!("{name};"));
        assert!(
            found.iter().any(|m| m.starts_with(UNKNOWN)),
            "`{name}` has no row but was not refused: {found:?}"
        );
    }
}

/// Every instruction the gating table names is catalogued, or known and refused: a gate on a
/// mnemonic nothing decodes would never apply.
#[test]
fn gating_rows_name_catalogued_instructions() {
    // `.target` options the table gates alongside the instructions.
    const TARGET_OPTIONS: [&str; 3] = ["debug", "texmode_unified", "texmode_independent"];
    for gate in GATES {
        for op in gate.op.split('|') {
            if op.starts_with(['.', '%']) || TARGET_OPTIONS.contains(&op) {
                continue;
            }
            let mnemonic = op.split('.').next().unwrap_or(op);
            assert!(
                lookup(mnemonic).is_some() || REFUSED.contains(&mnemonic),
                "the gating table names `{op}`, which the catalog does not list"
            );
        }
    }
}

/// The family names are the file names of the decoders and of the forms they build.
#[test]
fn each_family_has_a_decoder_and_a_forms_file() {
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
    for f in Family::ALL {
        let name = f.name();
        let decoder = check.join(format!("inst/{name}.rs"));
        let folder = check.join(format!("inst/{name}/mod.rs"));
        assert!(decoder.exists() || folder.exists(), "no decoder for {f:?}");
        // `fence` and `membar` build `Op::Membar` with the data family's `Scope`, or misc's
        // `NoEffect`: no form of their own.
        assert!(
            f == Family::Fence || check.join(format!("op/{name}.rs")).exists(),
            "no forms file for {f:?}"
        );
        assert!(
            CATALOG.iter().any(|e| e.families.contains(&f)),
            "no row names {f:?}"
        );
    }
    for entry in std::fs::read_dir(check.join("op")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" || stem == "rounding" {
            continue;
        }
        assert!(
            Family::ALL.iter().any(|f| f.name() == stem),
            "check/op/{stem}.rs is no family of the catalog"
        );
    }
}
