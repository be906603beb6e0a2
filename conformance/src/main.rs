//! The conformance runner: `cargo xtask conformance [--list] [--filter TEXT]`.

use std::collections::BTreeMap;
use std::process::ExitCode;

use ptxvk_conformance::{Outcome, cases};
use ptxvk_runtime::{Context, ContextOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let cases: Vec<_> = cases::all()
        .into_iter()
        .filter(|c| filter.as_ref().is_none_or(|f| c.name.contains(f.as_str())))
        .collect();
    if args.iter().any(|a| a == "--list") {
        for c in &cases {
            println!("{:<20} {}", c.family, c.name);
        }
        return ExitCode::SUCCESS;
    }
    let ctx = match Context::new(&ContextOptions::from_env()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let device = ctx.info().name.clone();
    let mut table: BTreeMap<&str, [u32; 3]> = BTreeMap::new();
    let mut failures = Vec::new();
    for c in &cases {
        let outcome = (c.run)(&ctx);
        let row = table.entry(c.family).or_default();
        match outcome {
            Outcome::Pass => row[0] += 1,
            Outcome::Fail(why) => {
                row[1] += 1;
                failures.push(format!("FAIL {}: {why}", c.name));
            }
            Outcome::Unsupported(_) => row[2] += 1,
        }
    }
    println!("device: {device}");
    println!(
        "{:<20} {:>7} {:>7} {:>12}",
        "family", "passed", "failed", "unsupported"
    );
    for (family, [p, f, u]) in &table {
        println!("{family:<20} {p:>7} {f:>7} {u:>12}");
    }
    for f in &failures {
        println!("{f}");
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
