//! Generates the entry points that `src/symbols.txt`
//! lists (every function of cuda_runtime_api.h, checked against NVIDIA's headers by
//! `tests/symbols.rs`) but `src/capi/` does not write by hand: each returns
//! cudaErrorNotSupported.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

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
    let capi = dir.join("capi");
    let mut files: Vec<_> = std::fs::read_dir(&capi)
        .unwrap_or_else(|e| panic!("{}: {e}", capi.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
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

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
