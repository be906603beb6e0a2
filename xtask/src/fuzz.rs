//! `cargo xtask fuzz`: the libFuzzer targets of `fuzz/` and the differential fuzzer.
//!
//!   fuzz TARGET [--time S] [--asan] [-- LIBFUZZER_ARGS]   one target for S seconds (default 60)
//!   fuzz --all [--time S]                                  every target, S seconds each
//!   fuzz diff [--count N] [--seed S] [--time S] [--jobs J] [--llvm-nopt]
//!                                                          N random programs (or as many as S
//!                                                          seconds allow) on the device and in
//!                                                          the reference interpreter, on J
//!                                                          workers; --llvm-nopt turns
//!                                                          lavapipe's LLVM optimiser off
//!   fuzz --list                                            the targets
//!
//! The fuzz build needs a nightly compiler (libFuzzer's coverage instrumentation); the project
//! itself stays on stable. Missing tools (the nightly toolchain, cargo-fuzz) are installed
//! here, as `deps.rs` installs the others. Fuzz builds go to `target/fuzz`, apart from the
//! project's own builds. New inputs go to `fuzz/corpus/TARGET` (not committed); the committed
//! seeds are in `fuzz/seeds`, crashes land in `fuzz/artifacts/TARGET`.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// Every target, with the committed seeds it starts from (a folder of `fuzz/seeds`) and the
/// longest input libFuzzer makes for it. The text targets' time grows with the input's length
/// (about 1 ms a kilobyte for text the hand-written parser refuses, which the grammar then
/// parses with error recovery), and libFuzzer lengthens its inputs towards the limit as a run
/// goes on: 4 KiB, as the stable replay uses, holds several kernels and keeps the rate up.
const TARGETS: &[(&str, Option<&str>, usize)] = &[
    ("parse", Some("ptx"), 4096),
    ("check", Some("ptx"), 4096),
    ("translate", Some("ptx"), 4096),
    ("translate_gen", Some("translate_gen"), 4096),
    ("cli_args", Some("cli_args"), 1024),
    ("cuda_entry", Some("cuda_entry"), 2048),
];

/// Seconds one input may take before libFuzzer reports it as a hang. Generous: the machines
/// that run this are shared, and lavapipe compiles each kernel the cuda target loads.
const INPUT_TIMEOUT_S: u32 = 30;

pub fn fuzz(args: &[String]) -> Result<()> {
    let mut time = 60u64;
    let mut count = 1000u64;
    let mut seed: Option<u64> = None;
    let mut jobs: Option<u64> = None;
    let mut llvm_nopt = false;
    let mut asan = false;
    let mut all = false;
    let mut target: Option<&str> = None;
    let mut extra: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<u64> {
            let v = it.next().with_context(|| format!("{name} needs a value"))?;
            v.parse()
                .with_context(|| format!("{name} {v}: not a whole number"))
        };
        match a.as_str() {
            "--time" => time = value("--time")?,
            "--count" => count = value("--count")?,
            "--seed" => seed = Some(value("--seed")?),
            "--jobs" => jobs = Some(value("--jobs")?),
            "--llvm-nopt" => llvm_nopt = true,
            "--asan" => asan = true,
            "--all" => all = true,
            "--list" => {
                for (t, _, _) in TARGETS {
                    println!("{t}");
                }
                println!("diff");
                return Ok(());
            }
            "--" => {
                extra.extend(it.by_ref().cloned());
            }
            t if !t.starts_with('-') && target.is_none() => target = Some(t),
            other => bail!("unknown argument `{other}` (cargo xtask fuzz --list for targets)"),
        }
    }
    if target == Some("diff") {
        return diff(Diff {
            count,
            seed,
            time: args.iter().any(|a| a == "--time").then_some(time),
            jobs,
            llvm_nopt,
        });
    }
    ensure_tools()?;
    let chosen: Vec<&(&str, Option<&str>, usize)> = match (all, target) {
        (true, None) => TARGETS.iter().collect(),
        (false, Some(t)) => vec![
            TARGETS
                .iter()
                .find(|(n, _, _)| *n == t)
                .with_context(|| format!("no fuzz target `{t}` (cargo xtask fuzz --list)"))?,
        ],
        _ => bail!("usage: cargo xtask fuzz <TARGET | --all | diff | --list> [--time S]"),
    };
    build(asan)?;
    let mut summary = Vec::new();
    for (name, seeds, max_len) in chosen {
        let runs = run_target(name, *seeds, *max_len, time, asan, &extra)?;
        summary.push(format!("{name}: {runs} executions in {time} s"));
    }
    println!("== fuzzing done");
    for s in summary {
        println!("   {s}");
    }
    Ok(())
}

fn fuzz_dir() -> PathBuf {
    crate::root().join("fuzz")
}

fn target_dir() -> PathBuf {
    crate::root().join("target").join("fuzz")
}

/// `cargo fuzz ARGS` with the nightly toolchain, in the fuzz folder.
fn cargo_fuzz() -> Command {
    let mut c = Command::new("rustup");
    c.args(["run", "nightly", "cargo", "fuzz"])
        .current_dir(fuzz_dir());
    // `cargo xtask` runs under the stable cargo, which names itself and its rustc here.
    c.env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC");
    c
}

/// Build options shared by `build` and `run`, so that `run` finds everything built.
fn build_flags(asan: bool) -> Vec<String> {
    let mut f = vec![
        "--target-dir".to_string(),
        target_dir().display().to_string(),
    ];
    if !asan {
        // The targets are safe Rust over C++ SPIRV-Tools that is not instrumented either way:
        // without ASan they run about twice as fast. `--asan` for the cuda target's unsafe
        // code, or to chase a crash.
        f.extend(["--sanitizer".to_string(), "none".to_string()]);
    }
    f
}

fn build(asan: bool) -> Result<()> {
    println!("== building the fuzz targets (nightly; the first build compiles SPIRV-Tools)");
    let started = std::time::Instant::now();
    crate::run(cargo_fuzz().arg("build").args(build_flags(asan)))?;
    println!("== built in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Runs one target for `time` seconds; returns libFuzzer's count of executions.
fn run_target(
    name: &str,
    seeds: Option<&str>,
    max_len: usize,
    time: u64,
    asan: bool,
    extra: &[String],
) -> Result<u64> {
    let corpus = fuzz_dir().join("corpus").join(name);
    std::fs::create_dir_all(&corpus)
        .with_context(|| format!("cannot create {}", corpus.display()))?;
    let mut cmd = cargo_fuzz();
    cmd.args(["run", name]).args(build_flags(asan)).arg(&corpus);
    if let Some(s) = seeds {
        cmd.arg(fuzz_dir().join("seeds").join(s));
    }
    cmd.arg("--")
        .arg(format!("-max_total_time={time}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_S}"))
        .arg(format!("-max_len={max_len}"))
        .arg("-rss_limit_mb=4096")
        .arg("-print_final_stats=1");
    if matches!(name, "parse" | "check" | "translate") {
        cmd.arg(format!("-dict={}", fuzz_dir().join("ptx.dict").display()));
    } else if matches!(name, "translate_gen" | "cuda_entry") {
        // Structured inputs: short ones make only tiny programs and call sequences, and
        // libFuzzer would otherwise lengthen its inputs only slowly.
        cmd.arg("-len_control=0");
    }
    cmd.args(extra);
    println!("== fuzzing {name} for {time} s: {cmd:?}");
    let mut child = cmd
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start cargo fuzz")?;
    let mut runs = 0u64;
    if let Some(err) = child.stderr.take() {
        for line in std::io::BufReader::new(err).lines() {
            let line = line.unwrap_or_default();
            eprintln!("{line}");
            // libFuzzer's last words: "Done 12345 runs in 60 second(s)".
            if let Some(n) = line
                .strip_prefix("Done ")
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
            {
                runs = n;
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!(
            "fuzz target `{name}` failed ({status}); the input is in {} (replay: cargo +nightly \
             fuzz run {name} FILE in fuzz/)",
            fuzz_dir().join("artifacts").join(name).display()
        );
    }
    Ok(runs)
}

/// The nightly toolchain and cargo-fuzz, installed where missing.
fn ensure_tools() -> Result<()> {
    let has_nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_nightly {
        println!("== installing the nightly toolchain (for the fuzz build only)");
        crate::run(Command::new("rustup").args([
            "toolchain",
            "install",
            "nightly",
            "--profile",
            "minimal",
        ]))?;
    }
    let has_cargo_fuzz = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_cargo_fuzz {
        println!("== installing cargo-fuzz");
        crate::run(Command::new("cargo").args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

/// What `cargo xtask fuzz diff` was asked for.
struct Diff {
    count: u64,
    seed: Option<u64>,
    time: Option<u64>,
    jobs: Option<u64>,
    llvm_nopt: bool,
}

/// The differential fuzzer (fuzz/examples/diff.rs), an ordinary stable build without
/// SPIRV-Tools: it runs kernels, which needs no instrumentation.
fn diff(d: Diff) -> Result<()> {
    crate::deps::ensure(crate::deps::Need::Run)?;
    let mut c = crate::cargo();
    c.args(["run", "--release", "--manifest-path"])
        .arg(fuzz_dir().join("Cargo.toml"))
        .args(["--no-default-features", "--example", "diff", "--target-dir"])
        .arg(target_dir().join("stable"))
        .args(["--", "--count", &d.count.to_string()]);
    for (flag, v) in [("--seed", d.seed), ("--time", d.time), ("--jobs", d.jobs)] {
        if let Some(v) = v {
            c.args([flag, &v.to_string()]);
        }
    }
    // Every program is new: caching their pipelines would only fill the disk, and validating
    // each module would triple the time per program. Without LLVM's optimiser lavapipe
    // spends about a tenth less time on a program, but LLVM then no longer gets to exploit
    // undefined behaviour in ptxvk's output, so that is asked for, not the default.
    let mut env = vec![
        ("PTXVK_CACHE_DIR", "off"),
        ("MESA_SHADER_CACHE_DISABLE", "true"),
        ("PTXVK_VALIDATION", "0"),
    ];
    if d.llvm_nopt {
        env.push(("GALLIVM_PERF", "nopt"));
    }
    for (var, value) in env {
        if std::env::var_os(var).is_none() {
            c.env(var, value);
        }
    }
    // A second driver to run each mismatching program on, which tells the default driver's
    // miscompiles from ptxvk's mistakes.
    if std::env::var_os("PTXVK_OLD_LAVAPIPE_ICD").is_none() {
        let mut installed = Vec::new();
        c.env(
            "PTXVK_OLD_LAVAPIPE_ICD",
            crate::deps::old_lavapipe(&mut installed)?,
        );
        if !installed.is_empty() {
            println!("== installed: {}", installed.join(", "));
        }
    }
    crate::run(&mut c)
}
