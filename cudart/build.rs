//! Generates the entry points that `src/symbols.txt`
//! lists (every function of cuda_runtime_api.h, checked against NVIDIA's headers by
//! `tests/symbols.rs`) but `src/capi/` does not write by hand: each returns
//! cudaErrorNotSupported.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let dir = Path::new("src");
    println!("cargo:rerun-if-changed=src/symbols.txt");
    println!("cargo:rerun-if-changed=src/capi");
    let listed: BTreeSet<String> = read(&dir.join("symbols.txt"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    let mut written = BTreeSet::new();
    let mut files = Vec::new();
    rust_files(&dir.join("capi"), &mut files);
    files.sort();
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        for line in read(&f).lines() {
            let line = line.trim_start();
            let defined = line
                .strip_prefix("pub unsafe extern \"C\" fn ")
                .or_else(|| line.strip_prefix("pub extern \"C\" fn "))
                .or_else(|| line.strip_prefix("alias!("));
            if let Some(rest) = defined {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    written.insert(name);
                }
            }
        }
    }
    for name in &written {
        assert!(
            listed.contains(name),
            "src/capi defines `{name}`, which src/symbols.txt does not list"
        );
    }
    let mut out = String::new();
    for name in listed.difference(&written) {
        writeln!(out, "stub!({name});").ok();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("stubs.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

/// The `.rs` files under `dir`, with those of its folders (the children of a module split
/// into a folder define entry points too).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
