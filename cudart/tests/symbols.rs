//! The committed lists the library is built from agree with NVIDIA's headers, and the built
//! libraries export them under NVIDIA's symbol versions:
//! - `src/symbols.txt` holds every function cuda_runtime_api.h of CUDA 12.x and 13.x declares
//!   (with the per-thread default stream's names), and nothing else but the registration
//!   entry points nvcc's host code calls and cuda_profiler_api.h's two;
//! - `src/error.rs`'s table holds every enumerator of enum cudaError (driver_types.h, 13.x,
//!   which has all of 12.x's) with its value;
//! - libcudart.so (soname libcudart.so.13) and libcudart12.so (libcudart.so.12) export every
//!   listed name, versioned by their soname.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// The include folders of CUDA 13 and 12 (12's headers need 13's `crt/`, which the CUDA 12
/// runtime wheel leaves to nvcc's).
fn includes() -> Option<(PathBuf, PathBuf)> {
    let nvcc = common::nvcc()?;
    let nvidia = nvcc.ancestors().nth(3)?.to_path_buf();
    Some((
        nvidia.join("cu13/include"),
        nvidia.join("cuda_runtime/include"),
    ))
}

fn preprocess(header: &Path, includes: &[&Path], define: Option<&str>) -> String {
    let mut cmd = Command::new("cc");
    cmd.args(["-E", "-P", "-x", "c"]).args(define);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    let out = cmd
        .arg(header)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cc -E: {e}"));
    assert!(
        out.status.success(),
        "cc -E {} failed: {}",
        header.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).replace('\n', " ")
}

fn listed() -> BTreeSet<String> {
    std::fs::read_to_string(crate_file("src/symbols.txt"))
        .unwrap_or_else(|e| panic!("symbols.txt: {e}"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn symbols_txt_is_every_function_of_cuda_runtime_api_h() {
    let Some((inc13, inc12)) = includes() else {
        return;
    };
    let decl =
        regex::Regex::new(r"extern\s+[^;{}()]*?\b(cuda\w+)\s*\(").unwrap_or_else(|e| panic!("{e}"));
    let mut header = BTreeSet::new();
    for incs in [
        vec![inc13.as_path()],
        vec![inc12.as_path(), inc13.as_path()],
    ] {
        for define in [None, Some("-DCUDA_API_PER_THREAD_DEFAULT_STREAM")] {
            let text = preprocess(&incs[0].join("cuda_runtime_api.h"), &incs, define);
            header.extend(decl.captures_iter(&text).map(|c| c[1].to_string()));
        }
    }
    assert!(header.len() > 400, "only {} functions found", header.len());
    let extra: BTreeSet<String> = listed()
        .into_iter()
        .filter(|n| !n.starts_with("__cuda") && !n.starts_with("cudaProfiler"))
        .collect();
    let missing: Vec<_> = header.difference(&extra).collect();
    let unknown: Vec<_> = extra.difference(&header).collect();
    assert!(missing.is_empty(), "not in symbols.txt: {missing:?}");
    assert!(
        unknown.is_empty(),
        "in symbols.txt, not in the headers: {unknown:?}"
    );
}

#[test]
fn error_table_is_enum_cuda_error() {
    let Some((inc13, _)) = includes() else { return };
    let text = preprocess(&inc13.join("driver_types.h"), &[&inc13], None);
    let body = text
        .split("enum cudaError")
        .nth(1)
        .and_then(|t| t.split('}').next())
        .unwrap_or_else(|| panic!("no enum cudaError"));
    let header: BTreeSet<(i64, String)> = body
        .trim_start_matches([' ', '{'])
        .split(',')
        .filter_map(|e| {
            let (name, value) = e.split_once('=')?;
            Some((value.trim().parse().ok()?, name.trim().to_string()))
        })
        .collect();
    let source =
        std::fs::read_to_string(crate_file("src/error.rs")).unwrap_or_else(|e| panic!("{e}"));
    let row = regex::Regex::new(r#"\((\d+), c"(\w+)"\)"#).unwrap_or_else(|e| panic!("{e}"));
    let ours: BTreeSet<(i64, String)> = row
        .captures_iter(&source)
        .filter_map(|c| Some((c[1].parse().ok()?, c[2].to_string())))
        .collect();
    assert!(
        header.len() > 100,
        "only {} enumerators found",
        header.len()
    );
    assert_eq!(ours, header);
}

#[test]
fn libraries_export_every_symbol_under_their_version() {
    for (file, version) in [
        ("libcudart.so", "libcudart.so.13"),
        ("libcudart12.so", "libcudart.so.12"),
    ] {
        let lib = common::built_library(file);
        let out = Command::new("objdump")
            .arg("-T")
            .arg(&lib)
            .output()
            .unwrap_or_else(|e| panic!("cannot run objdump: {e}"));
        assert!(out.status.success(), "objdump -T {}", lib.display());
        let text = String::from_utf8_lossy(&out.stdout);
        let exported: BTreeSet<String> = text
            .lines()
            .filter(|l| l.contains(".text") && l.contains(version))
            .filter_map(|l| l.split_whitespace().last().map(String::from))
            .collect();
        let missing: Vec<_> = listed()
            .into_iter()
            .filter(|n| !exported.contains(n))
            .collect();
        assert!(
            missing.is_empty(),
            "{file} lacks {missing:?} (as {version})"
        );
        let soname = Command::new("readelf")
            .arg("-d")
            .arg(&lib)
            .output()
            .unwrap_or_else(|e| panic!("cannot run readelf: {e}"));
        assert!(
            String::from_utf8_lossy(&soname.stdout).contains(&format!("[{version}]")),
            "{file}: soname is not {version}"
        );
    }
}
