//! Executions a second of one fuzz target's body, in an ordinary (uninstrumented) build: the
//! ceiling a libFuzzer run of the target approaches, and something to put under `perf record`
//! when a target's rate has to be explained. The inputs are seeded random bytes (as the stable
//! replay's) of up to MAX_LEN bytes, or the files of DIR in turn (seeds or a corpus, which
//! look more like what libFuzzer runs once it has grown a corpus).
//!
//!   cargo run --release -p ptxvk-fuzz-harness --example rate -- TARGET [SECONDS] [MAX_LEN|DIR]

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ptxvk_fuzz_harness::ptxgen::seeded_bytes;
use ptxvk_fuzz_harness::targets;

type Body = fn(&[u8]);

const TARGETS: &[(&str, Body)] = &[
    ("parse", targets::parse::run),
    ("check", targets::check::run),
    ("translate", targets::translate::run),
    ("translate_gen", targets::translate_gen::run),
    ("cli_args", targets::cli_args::run),
    ("cuda_entry", targets::cuda_entry::run),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    let Some(&(name, run)) = args
        .first()
        .and_then(|a| TARGETS.iter().find(|(n, _)| n == a))
    else {
        eprintln!(
            "usage: rate TARGET [SECONDS] [MAX_LEN|DIR]; targets: {}",
            names.join(" ")
        );
        return ExitCode::from(2);
    };
    let Some(secs) = args.get(1).map_or(Some(10), |s| s.parse::<u64>().ok()) else {
        eprintln!("SECONDS is a whole number");
        return ExitCode::from(2);
    };
    let inputs = match args.get(2) {
        Some(a) if Path::new(a).is_dir() => match files(Path::new(a)) {
            Ok(f) if !f.is_empty() => Inputs::Files(f),
            Ok(_) => {
                eprintln!("{a}: no files");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("{a}: {e}");
                return ExitCode::from(2);
            }
        },
        Some(a) => match a.parse::<usize>() {
            Ok(n) => Inputs::Random(n.max(1)),
            Err(_) => {
                eprintln!("{a}: neither a folder nor a whole number");
                return ExitCode::from(2);
            }
        },
        None => Inputs::Random(4096),
    };
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < Duration::from_secs(secs) {
        match &inputs {
            Inputs::Random(max_len) => {
                let len = (n as usize).wrapping_mul(97) % max_len;
                run(&seeded_bytes(n ^ 0x5eed, len));
            }
            Inputs::Files(f) => run(&f[n as usize % f.len()]),
        }
        n += 1;
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "{name}: {n} inputs in {s:.1} s = {:.0} a second",
        n as f64 / s
    );
    ExitCode::SUCCESS
}

enum Inputs {
    /// Seeded random bytes of lengths spread over `0..MAX_LEN`.
    Random(usize),
    Files(Vec<Vec<u8>>),
}

fn files(dir: &Path) -> std::io::Result<Vec<Vec<u8>>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|p| p.is_file());
    paths.sort();
    paths.iter().map(std::fs::read).collect()
}
