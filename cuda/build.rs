//! Generates the entry points that are listed in `src/symbols.txt` (every function of cuda.h,
//! checked against NVIDIA's headers by `tests/symbols.rs`) but not written by hand in
//! `src/capi/` (as functions or `alias!` lines): each returns CUDA_ERROR_NOT_SUPPORTED. Also generates the name → address
//! table that `cuGetProcAddress` serves.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    }
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
                .or_else(|| line.strip_prefix("alias!("));
            if let Some(rest) = defined {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // The `alias!` macro's own definition names no entry point.
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
    out.push_str("\n/// The address of every exported entry point, by name.\n");
    out.push_str("pub(crate) fn lookup(name: &[u8]) -> Option<*const std::ffi::c_void> {\n");
    out.push_str("    let f: *const std::ffi::c_void = match name {\n");
    for name in &listed {
        writeln!(
            out,
            "        b\"{name}\" => {name} as *const std::ffi::c_void,"
        )
        .ok();
    }
    out.push_str("        _ => return None,\n    };\n    Some(f)\n}\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("entries.rs");
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
