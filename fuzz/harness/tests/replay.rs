//! Every fuzz target on stable, as `cargo xtask test` runs it: the committed seeds of
//! `fuzz/seeds/`, what libFuzzer found on this machine (`fuzz/corpus/TARGET`, not committed)
//! while a time budget lasts, and seeded random inputs. A crash here is a crash libFuzzer would
//! report; the input's path is in the panic message.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptxvk_fuzz_harness::ptxgen::seeded_bytes;

/// Time for the local corpus of one target, beyond its seeds.
const CORPUS_BUDGET: Duration = Duration::from_secs(4);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of `dir`, sorted (none if it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn one(path: &Path, run: fn(&[u8])) {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    one_input(path, &data, run);
}

fn one_input(path: &Path, data: &[u8], run: fn(&[u8])) {
    if std::panic::catch_unwind(|| run(data)).is_err() {
        panic!("fuzz input {} crashed the target", path.display());
    }
}

/// `seeds` (committed, all of them), the local corpus while the budget lasts, then `random`
/// inputs of up to `max_len` bytes; returns how many inputs ran.
fn replay(target: &str, seeds: &str, random: u64, max_len: usize, run: fn(&[u8])) -> usize {
    let seed_files = files(&fuzz_dir().join("seeds").join(seeds));
    assert!(
        !seed_files.is_empty(),
        "no seeds for {target} in fuzz/seeds/{seeds}"
    );
    for f in &seed_files {
        one(f, run);
    }
    let mut n = seed_files.len();
    let started = Instant::now();
    for f in files(&fuzz_dir().join("corpus").join(target)) {
        if started.elapsed() > CORPUS_BUDGET {
            break;
        }
        // A fuzzer running meanwhile replaces corpus files with shorter ones: one listed a
        // moment ago may be gone.
        let data = match std::fs::read(&f) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => panic!("{}: {e}", f.display()),
        };
        one_input(&f, &data, run);
        n += 1;
    }
    for s in 0..random {
        let len = (s as usize * 97) % max_len;
        let data = seeded_bytes(s ^ 0x5eed, len);
        if std::panic::catch_unwind(|| run(&data)).is_err() {
            panic!(
                "{target}: seeded_bytes({}, {len}) crashed the target",
                s ^ 0x5eed
            );
        }
        n += 1;
    }
    n
}

#[test]
fn parse() {
    replay(
        "parse",
        "ptx",
        200,
        4096,
        ptxvk_fuzz_harness::targets::parse::run,
    );
}

#[test]
fn check() {
    replay(
        "check",
        "ptx",
        200,
        4096,
        ptxvk_fuzz_harness::targets::check::run,
    );
}

#[test]
fn translate() {
    replay(
        "translate",
        "ptx",
        50,
        4096,
        ptxvk_fuzz_harness::targets::translate::run,
    );
}

#[test]
fn translate_gen() {
    replay(
        "translate_gen",
        "translate_gen",
        30,
        4096,
        ptxvk_fuzz_harness::targets::translate_gen::run,
    );
}

#[test]
fn cli_args() {
    replay(
        "cli_args",
        "cli_args",
        500,
        1024,
        ptxvk_fuzz_harness::targets::cli_args::run,
    );
}

#[test]
fn cuda_entry() {
    replay(
        "cuda_entry",
        "cuda_entry",
        10,
        2048,
        ptxvk_fuzz_harness::targets::cuda_entry::run,
    );
}
