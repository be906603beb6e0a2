//! Golden tests: each PTX file of `tests/golden/` is translated and its IR and/or SPIR-V
//! assembly compared with the files committed in `tests/golden/out/`, so that every change of
//! the translator's output shows in a diff. `PTXVK_BLESS=1` rewrites the expected files instead
//! of comparing (docs/testing.md says when to).
//!
//! A file starts with a header of `//` lines:
//!
//! ```text
//! // profile: nvidia          a named device profile (`DeviceProfile::named`)
//! // emit: ir spvasm          what to compare: `ir` (ptxvk's IR), `spvasm` (SPIR-V assembly)
//! // what the file covers, in words
//! ```
//!
//! Every kernel of the file is translated, in source order, and its SPIR-V validated by
//! SPIRV-Tools for Vulkan. Each file is translated twice and the two outputs must agree: output
//! that depends on hash-map order or addresses is a bug, not a reason to re-bless.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

const EMITS: [&str; 2] = ["ir", "spvasm"];

struct Header {
    profile: DeviceProfile,
    emit: Vec<&'static str>,
}

fn header(name: &str, text: &str) -> Header {
    let mut profile = None;
    let mut emit = Vec::new();
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        let line = line.trim_start_matches('/').trim();
        if let Some(p) = line.strip_prefix("profile:") {
            let p = p.trim();
            profile =
                Some(DeviceProfile::named(p).unwrap_or_else(|| panic!("{name}: no profile `{p}`")));
        } else if let Some(e) = line.strip_prefix("emit:") {
            for word in e.split_whitespace() {
                let known = EMITS.iter().find(|k| **k == word);
                emit.push(*known.unwrap_or_else(|| panic!("{name}: cannot emit `{word}`")));
            }
        }
    }
    assert!(!emit.is_empty(), "{name}: the header names nothing to emit");
    Header {
        profile: profile.unwrap_or_else(|| panic!("{name}: the header names no profile")),
        emit,
    }
}

/// The text of each emitted form, keyed by its extension.
fn translate(name: &str, text: &str, h: &Header) -> Vec<(&'static str, String)> {
    let program = Program::parse(SourceFile::new(name, text.to_string()))
        .unwrap_or_else(|d| panic!("{name}: {d}"));
    let mut out: Vec<(&'static str, String)> = h.emit.iter().map(|e| (*e, String::new())).collect();
    for kernel in program.kernel_names() {
        let (k, ir) = program
            .translate_kernel_with_ir(&kernel, &h.profile)
            .unwrap_or_else(|d| panic!("{name}: {d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{name}: kernel {kernel}: {e}");
        }
        for (emit, text) in &mut out {
            writeln!(text, "; kernel {kernel}").unwrap();
            match *emit {
                "ir" => text.push_str(&ir.to_string()),
                _ => text.push_str(&ptxvk_translator::disassemble(&k.spirv)),
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    out
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn inputs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

/// The first line where `a` and `b` differ, both sides shown.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => {
                return format!(
                    "line {n}:\n  expected: {}\n  actual:   {}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                );
            }
        }
    }
    unreachable!()
}

#[test]
fn translator_output_matches_the_committed_files() {
    let bless = std::env::var_os("PTXVK_BLESS").is_some_and(|v| v == "1");
    let out_dir = dir().join("out");
    let mut expected_files = Vec::new();
    let mut failures = Vec::new();
    let inputs = inputs();
    assert!(inputs.len() >= 60, "only {} golden inputs", inputs.len());
    for input in inputs {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let stem = input.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&input).unwrap();
        let h = header(&name, &text);
        let outputs = translate(&name, &text, &h);
        assert!(
            outputs == translate(&name, &text, &h),
            "{name}: two translations of the same file differ"
        );
        for (emit, actual) in outputs {
            let file = format!("{stem}.{emit}");
            let path = out_dir.join(&file);
            expected_files.push(file.clone());
            if bless {
                std::fs::create_dir_all(&out_dir).unwrap();
                std::fs::write(&path, &actual).unwrap();
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(expected) if expected == actual => {}
                Ok(expected) => {
                    failures.push(format!("{file}: {}", first_difference(&expected, &actual)))
                }
                Err(e) => failures.push(format!("{file}: {e}")),
            }
        }
    }
    // An output whose input is gone (or no longer emits it) would never be checked again.
    for entry in std::fs::read_dir(&out_dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if !expected_files.contains(&file) {
            if bless {
                std::fs::remove_file(&path).unwrap();
            } else {
                failures.push(format!("{file}: no input produces it"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden outputs differ (PTXVK_BLESS=1 rewrites them; read the diff first):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
