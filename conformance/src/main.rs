//! The conformance runner: `cargo xtask conformance [OPTIONS]` (see `--help`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use ptxvk_conformance::record::{self, Record};
use ptxvk_conformance::runner::{self, Target};
use ptxvk_conformance::{Case, cases, coverage, cuda, exhaustive, inventory};
use ptxvk_runtime::{Context, ContextOptions};
use regex::Regex;

/// Runs the ptxvk reference suite: every case on every selected device.
#[derive(Parser, Debug)]
#[command(name = "ptxvk-conformance", version)]
struct Args {
    /// A device (index or name substring, as `ptxvk info` lists them); repeat for several.
    /// Default: every usable device.
    #[arg(long = "device", value_name = "D")]
    devices: Vec<String>,
    /// Only cases whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    filter: Option<String>,
    /// Leave out cases whose name matches this regular expression (after --filter).
    #[arg(long, value_name = "REGEX")]
    skip: Option<String>,
    /// List the selected cases and exit.
    #[arg(long)]
    list: bool,
    /// Also write machine-readable results (or, with --coverage, the coverage) to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// A fast subset for CI: every fourth case of each family (at least one per family).
    #[arg(long)]
    quick: bool,
    /// Also run every single-input case of ISA 8.7.1-8.7.5 and `cvt` with a 32-bit input over
    /// all 2^32 inputs (hours on lavapipe; the 8- and 16-bit ones are always exhaustive).
    #[arg(long)]
    exhaustive: bool,
    /// Report which instructions and modifiers of ISA 8.7.1-8.7.7, of the video instructions
    /// (9.7.18) and of the later forms ptxvk implements the selected cases exercise.
    #[arg(long)]
    coverage: bool,
    /// Cases run at once, over all devices (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Run the cases through NVIDIA's CUDA driver instead of ptxvk, check them, and write the
    /// results to FILE (commit it under conformance/cuda-records/).
    #[arg(long, value_name = "FILE")]
    record_cuda: Option<PathBuf>,
    /// Write each case's start and end to stderr as they happen (to name the case in flight
    /// when a driver takes the process down).
    #[arg(long)]
    trace: bool,
    /// Compare ptxvk's outputs with a CUDA record (default: every file in
    /// conformance/cuda-records/).
    #[arg(long = "cuda-record", value_name = "FILE")]
    cuda_records: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Runs what `args` ask for; `Ok(false)` when some case failed.
fn run(args: &Args) -> Result<bool> {
    let mut cases = cases::all();
    if args.quick {
        cases = runner::quick_subset(cases, 4);
    }
    if args.exhaustive {
        cases.extend(exhaustive::cases());
    }
    if let Some(f) = &args.filter {
        let re = Regex::new(f).with_context(|| format!("--filter `{f}` is not a valid regex"))?;
        cases.retain(|c| re.is_match(&c.name));
    }
    if let Some(s) = &args.skip {
        let re = Regex::new(s).with_context(|| format!("--skip `{s}` is not a valid regex"))?;
        cases.retain(|c| !re.is_match(&c.name));
    }
    if args.list {
        for c in &cases {
            println!("{:<24} {}", c.family, c.name);
        }
        println!("{} cases", cases.len());
        return Ok(true);
    }
    if args.coverage {
        let cov = coverage::compute(&cases);
        let video = coverage::compute_video(&cases);
        let modern = coverage::compute_modern(&cases);
        let families = inventory::compute(&cases);
        print!(
            "{}\n{}\n{}\n{}",
            cov.report(),
            video.report(),
            modern.report(),
            families.report()
        );
        if let Some(path) = &args.json {
            let both = serde_json::json!({
                "isa": cov.to_json(),
                "video": video.to_json(),
                "modern": modern.to_json(),
            });
            write_json(path, &both)?;
        }
        return Ok(true);
    }
    if cases.is_empty() {
        bail!("no case selected");
    }
    if let Some(path) = &args.record_cuda {
        return record_cuda(args, &cases, path);
    }
    let targets = ptxvk_targets(&args.devices)?;
    let report = run_with_progress(&cases, &targets, args)?;
    print!("{}", report.table());
    for f in report.failures() {
        println!("{f}");
    }
    for path in record_files(&args.cuda_records)? {
        let rec = Record::load(&path)?;
        for t in 0..targets.len() {
            let cmp = record::compare(&rec, &report, t);
            println!("device {}: {}", t + 1, cmp.summary());
        }
    }
    if let Some(path) = &args.json {
        write_json(path, &report.to_json())?;
    }
    let totals = report.totals();
    let (p, f, u) = totals.iter().fold((0, 0, 0), |a, c| {
        (a.0 + c.passed, a.1 + c.failed, a.2 + c.unsupported)
    });
    // The plain closing line CI reads.
    println!("conformance: {p} passed, {f} failed, {u} unsupported");
    Ok(!report.failed())
}

/// A context per selected device (every usable one by default).
fn ptxvk_targets(selected: &[String]) -> Result<Vec<Target>> {
    let opts = ContextOptions::from_env();
    let selectors: Vec<String> = if selected.is_empty() || selected.iter().any(|d| d == "all") {
        let devices = ptxvk_runtime::devices()?;
        let usable: Vec<String> = devices
            .iter()
            .filter(|d| d.missing_requirements().is_none())
            .map(|d| d.index.to_string())
            .collect();
        if usable.is_empty() {
            // Let context creation explain what the devices lack.
            vec![String::new()]
        } else {
            usable
        }
    } else {
        selected.to_vec()
    };
    selectors
        .into_iter()
        .map(|sel| {
            let o = ContextOptions {
                device: (!sel.is_empty()).then_some(sel),
                ..opts.clone()
            };
            let ctx = Context::new(&o)?;
            Ok(Target::ptxvk(ctx).remade_by(Arc::new(move || Context::new(&o))))
        })
        .collect()
}

fn run_with_progress(cases: &[Case], targets: &[Target], args: &Args) -> Result<runner::Report> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    // lavapipe spreads each dispatch over its own threads, but most of a case is translation
    // and shader compilation, which are single-threaded: one case per CPU was 1.5x faster than
    // one at a time on 2 cores (docs/decisions/0183-parallel-runs.md).
    let jobs = args.jobs.unwrap_or(cpus.max(targets.len()));
    let bar = ProgressBar::new((cases.len() * targets.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} [{elapsed_precise}] {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = runner::run_traced(cases, targets, jobs, args.trace, &|r| {
        bar.set_message(r.name.clone());
        bar.inc(1);
    });
    bar.finish_and_clear();
    Ok(report)
}

/// The records to compare with: those given, else every committed one.
fn record_files(given: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if !given.is_empty() {
        return Ok(given.to_vec());
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda-records");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// `--record-cuda`: the cases through the CUDA driver, recorded.
fn record_cuda(args: &Args, cases: &[Case], path: &Path) -> Result<bool> {
    let gpu = Arc::new(cuda::Cuda::open(0)?);
    // Cases still get a ptxvk context for anything they do besides described launches; those
    // that make no described launch are reported as not recorded.
    let ctx = Context::new(&ContextOptions {
        device: args.devices.first().cloned(),
        ..ContextOptions::from_env()
    })
    .context("--record-cuda also needs a Vulkan device for the cases' own setup")?;
    let target = Target::ptxvk(ctx).with_backend(
        format!("CUDA: {} ({})", gpu.gpu(), gpu.driver()),
        gpu.clone(),
    );
    // Launches are serialized by the backend; the driver's PTX compiles run in parallel.
    let report = run_with_progress(cases, std::slice::from_ref(&target), args)?;
    print!("{}", report.table());
    for f in report.failures() {
        println!("{f}");
    }
    let rec = Record::from_report(&report, 0, gpu.gpu(), gpu.driver());
    let skipped = report.results.len() - rec.cases.len();
    rec.save(path)?;
    println!(
        "recorded {} cases on {} ({}) to {}; {skipped} made no described launch (they ran on ptxvk and are not recorded)",
        rec.cases.len(),
        gpu.gpu(),
        gpu.driver(),
        path.display()
    );
    Ok(!report.failed())
}

fn write_json(path: &Path, v: &serde_json::Value) -> Result<()> {
    let text = serde_json::to_string_pretty(v)?;
    std::fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
}
