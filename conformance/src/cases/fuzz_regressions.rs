//! Programs the differential fuzzer once found ptxvk wrong on, kept as cases: each file in
//! `fuzz/regressions/` is a generated program with its launch and the words every thread must
//! store, computed by the generator's interpreter of PTX semantics when the file was written
//! (`ptxvk_fuzz_harness::regression`; the fuzzer saves each mismatch in that form).

use std::path::{Path, PathBuf};

use ptxvk_fuzz_harness::regression::{self, KERNEL};

use super::kernel_case::{Arg, KernelCase};
use crate::{Case, Outcome};

pub const FAMILY: &str = "fuzz regressions";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions")
}

pub fn cases() -> Vec<Case> {
    let Ok(entries) = std::fs::read_dir(dir()) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    paths.sort();
    paths.iter().map(|p| case(p)).collect()
}

fn case(path: &Path) -> Case {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = format!("fuzz/{stem}");
    let broken = |why: String| Case {
        name: name.clone(),
        family: FAMILY,
        ptx: String::new(),
        run: Box::new(move |_| Outcome::Fail(why.clone())),
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return broken(format!("{}: {e}", path.display())),
    };
    let want = match regression::parse(&text) {
        Ok(w) => w,
        Err(e) => return broken(format!("{}: {e}", path.display())),
    };
    let bytes: Vec<u8> = want.expect.iter().flat_map(|w| w.to_le_bytes()).collect();
    KernelCase {
        family: FAMILY,
        name,
        ptx: text,
        kernel: KERNEL.to_string(),
        grid: want.grid,
        block: want.block,
        buffers: vec![vec![0; bytes.len()]],
        args: vec![Arg::Buf(0)],
        expect: vec![(0, bytes)],
        elem: 4,
    }
    .case()
}
