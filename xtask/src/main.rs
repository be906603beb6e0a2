//! `cargo xtask`: the project's tasks.
//!
//!   demo          run the saxpy example on the default device
//!   test          the whole test suite (with the Vulkan validation layer)
//!   shaders       regenerate shaders/*.ptx from shaders/*.cu and the corpus shaders/corpus/*.cu
//!                 with clang (--check: compare only)
//!   conformance   the reference suite (arguments go to the runner; --help for them)
//!   bench         runtime benchmarks, optimised build: launch (also through libcuda) | copy |
//!                 kernels | memory | all
//!   bench parse   parse+check throughput on a generated 100k-line module (optimised build)
//!   bench translate   translation throughput on a generated 100k-line module (optimised build)
//!   fuzz          libFuzzer targets (nightly) and the differential fuzzer: fuzz --list

mod bench_parse;
mod bench_translate;
mod compat;
mod corpus;
mod deps;
mod env;
mod fuzz;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") if args.get(1).is_some_and(|a| a == "parse") => {
            bench_parse::bench_parse(&args[2..])
        }
        Some("demo") => demo(),
        Some("test") => test(&args[1..]),
        Some("shaders") => shaders(args.iter().any(|a| a == "--check")),
        Some("conformance") => conformance(&args[1..]),
        Some("compat") => compat::compat(&args[1..]),
        Some("fuzz") => fuzz::fuzz(&args[1..]),
        Some("triton-long") => triton_long(),
        Some("bench") if args.get(1).is_some_and(|a| a == "translate") => {
            bench_translate::bench_translate(&args[2..])
        }
        Some("bench") => bench(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <demo | test [--no-lint] | shaders [--check] | conformance [ARGS] | compat numba | fuzz TARGET|--all|diff | triton-long | bench [launch|copy|kernels|memory|all|parse|translate]>"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("xtask: {e:#}");
        std::process::exit(1);
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

fn demo() -> Result<()> {
    deps::ensure(deps::Need::Run)?;
    // Without SPIRV-Tools (the `validate` feature): the demo validates nothing, and its C++
    // build is the longest step of a first build. Progress is shown while it builds.
    let features = ["--no-default-features", "--features", "mimalloc"];
    println!("== building the ptxvk binary and the saxpy example (the first build takes minutes)");
    run(cargo()
        .args([
            "build",
            "-p",
            "ptxvk-runtime",
            "--bin",
            "ptxvk",
            "--example",
            "saxpy",
        ])
        .args(features))?;
    let ptxvk = |args: &[&str]| {
        let mut c = cargo();
        c.args(["run", "--quiet", "-p", "ptxvk-runtime", "--bin", "ptxvk"])
            .args(features)
            .arg("--")
            .args(args);
        c
    };
    println!("== devices");
    run(&mut ptxvk(&["info"]))?;
    println!("\n== saxpy through the CLI: y = 2*x + 1 for 1000 elements, 4 blocks of 256 threads");
    run(&mut ptxvk(&[
        "run",
        "shaders/saxpy.ptx",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        "1000",
        "--arg",
        "2.0",
        "--arg",
        "x=f32[1000]:iota",
        "--arg",
        "y=f32[1000]:1",
        "--time",
    ]))?;
    println!("\n== saxpy from the library, both kernels, checked against the CPU");
    run(cargo()
        .args([
            "run",
            "--quiet",
            "-p",
            "ptxvk-runtime",
            "--example",
            "saxpy",
        ])
        .args(features))
}

fn test(args: &[String]) -> Result<()> {
    null_device_is_intact()?;
    let found = deps::ensure(deps::Need::Test)?;
    let lint = !args.iter().any(|a| a == "--no-lint");
    if lint {
        println!("== cargo fmt --check");
        run(cargo().args(["fmt", "--all", "--", "--check"]))?;
        println!("== cargo clippy");
        run(cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))?;
    }
    println!("== cargo test (Vulkan validation layer required)");
    run(cargo()
        .args(["test", "--workspace", "--all-targets"])
        .env("PTXVK_VALIDATION", "required")
        .envs(found.vars.iter().cloned()))?;
    run(cargo()
        .args(["test", "--workspace", "--doc"])
        .env("PTXVK_VALIDATION", "required"))?;
    println!("== conformance suite, quick subset (the full run: cargo xtask conformance)");
    run(conformance_cmd(&["--quick".to_string()]).env("PTXVK_VALIDATION", "required"))?;
    cross_check()?;
    println!("== shaders match their CUDA sources");
    shaders(true)?;
    println!("== all tests passed");
    Ok(())
}

/// The Triton runs too slow for `test` (runtime/tests/triton_types.rs): sm_80's tf32 matmul
/// and bf16 attention, and the tiles of Triton's tuning configurations, whose shared memory exceeds lavapipe's.
fn triton_long() -> Result<()> {
    null_device_is_intact()?;
    let found = deps::ensure(deps::Need::Test)?;
    println!("== Triton's slow kernels against numpy (lavapipe compiles each for minutes)");
    run(cargo()
        .args([
            "test",
            "-p",
            "ptxvk-runtime",
            "--test",
            "triton_types",
            "--",
        ])
        .args(["--ignored", "--nocapture", "--test-threads", "1"])
        .env("PTXVK_VALIDATION", "required")
        .envs(found.vars.iter().cloned()))
}

/// Cargo gives its `rustc -` probe /dev/null as stdin and build scripts send their noise there;
/// when something has replaced the device with a regular file, the probe compiles that noise and
/// the build fails with an error that points nowhere near the cause.
fn null_device_is_intact() -> Result<()> {
    use std::os::unix::fs::FileTypeExt as _;
    let meta = std::fs::metadata("/dev/null").context("cannot stat /dev/null")?;
    if !meta.file_type().is_char_device() {
        bail!(
            "/dev/null is not a character device (something replaced it with a file); \
             restore it with `rm -f /dev/null && mknod -m 666 /dev/null c 1 3` as root"
        );
    }
    Ok(())
}

/// The flags the CUDA sources are compiled with (issue #2: clang's NVPTX back end, sm_70, PTX 7.0).
const CLANG_FLAGS: [&str; 10] = [
    "--cuda-device-only",
    "-nocudainc",
    "-nocudalib",
    "--cuda-gpu-arch=sm_70",
    "-S",
    "-O2",
    "-Xclang",
    "-target-feature",
    "-Xclang",
    "+ptx70",
];

/// Regenerates `shaders/X.ptx` from each `shaders/X.cu` (or checks that the committed file matches).
fn shaders(check: bool) -> Result<()> {
    let Some(clang) = env::clang() else {
        bail!("clang-19 is needed: apt-get install clang-19");
    };
    let dir = root().join("shaders");
    let cu_files = |d: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        v.sort();
        Ok(v)
    };
    // shaders/X.cu gives X_clang.ptx beside it; the benchmark's shaders/bench/X.cu gives X.ptx.
    let bench = dir.join("bench");
    let mut sources: Vec<(PathBuf, &str)> =
        cu_files(&dir)?.into_iter().map(|p| (p, "_clang")).collect();
    sources.extend(cu_files(&bench)?.into_iter().map(|p| (p, "")));
    let mut stale = Vec::new();
    for (cu, suffix) in sources {
        let stem = cu.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let ptx = cu.with_file_name(format!("{stem}{suffix}.ptx"));
        let tmp = std::env::temp_dir().join(format!("ptxvk-{stem}-{}.ptx", std::process::id()));
        run(Command::new(&clang)
            .args(CLANG_FLAGS)
            .arg("-I")
            .arg(&dir)
            .arg(&cu)
            .arg("-o")
            .arg(&tmp))?;
        let fresh = std::fs::read_to_string(&tmp)?;
        let _ = std::fs::remove_file(&tmp);
        if check {
            let old = std::fs::read_to_string(&ptx).unwrap_or_default();
            if old != fresh {
                stale.push(ptx.display().to_string());
            }
        } else {
            std::fs::write(&ptx, fresh)?;
            println!("wrote {}", ptx.display());
        }
    }
    stale.extend(corpus::build(&clang, check)?);
    if !stale.is_empty() {
        bail!(
            "out of date (run `cargo xtask shaders`): {}",
            stale.join(", ")
        );
    }
    Ok(())
}

/// `cargo xtask conformance [ARGS]`: the reference suite on every usable device (the runner's
/// own `--help` lists ARGS: --device, --filter, --list, --json, --quick, --coverage, ...).
fn conformance(args: &[String]) -> Result<()> {
    deps::ensure(deps::Need::Run)?;
    run(&mut conformance_cmd(args))
}

fn conformance_cmd(args: &[String]) -> Command {
    let mut c = cargo();
    c.args(["run", "--quiet", "-p", "ptxvk-conformance", "--"])
        .args(args);
    c
}

/// The runtime's benchmarks (runtime/benches/runtime.rs) in an optimised build. Without the
/// `validate` feature: SPIRV-Tools is not needed to measure, and building it optimised would
/// take minutes.
fn bench(args: &[String]) -> Result<()> {
    deps::ensure(deps::Need::Bench)?;
    let which = args.first().map(String::as_str).unwrap_or("all");
    // `kernels` is its own benchmark (translated kernels against GLSL twins); `all` runs both.
    let targets: &[&str] = match which {
        "kernels" => &["kernels"],
        "all" => &["runtime", "kernels"],
        _ => &["runtime"],
    };
    let rest = if which == "kernels" || which == "all" {
        &args[args.len().min(1)..]
    } else {
        args
    };
    let rest = &absolute_outputs(rest)?;
    let all = ["all".to_string()];
    for target in targets {
        let target_args = if *target == "runtime" && which == "all" {
            &all[..]
        } else {
            rest
        };
        run(cargo()
            .args([
                "bench",
                "-p",
                "ptxvk-runtime",
                "--no-default-features",
                "--bench",
                target,
                "--",
            ])
            .args(target_args))?;
    }
    // The launch cost through libcuda's C ABI against the Rust API, in the same run.
    if matches!(which, "launch" | "all") {
        run(cargo().args(["bench", "-p", "ptxvk-cuda", "--bench", "launch"]))?;
    }
    Ok(())
}

/// The benchmark runs in its package's folder, so the files `--json` and `--svg` name are made
/// absolute here, against the folder the user ran xtask from.
fn absolute_outputs(args: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    let mut path_next = false;
    for a in args {
        if path_next {
            out.push(std::path::absolute(a)?.display().to_string());
        } else if let Some((flag, path)) = a
            .split_once('=')
            .filter(|(f, _)| matches!(*f, "--json" | "--svg"))
        {
            out.push(format!("{flag}={}", std::path::absolute(path)?.display()));
        } else {
            out.push(a.clone());
        }
        path_next = matches!(a.as_str(), "--json" | "--svg");
    }
    Ok(out)
}

/// Targets the runtime must build for besides the host (CI runs on Linux only), with the C
/// compiler their build scripts need: chumsky's `stacker` assembles a few lines per platform.
const CROSS_TARGETS: [(&str, &str); 3] = [
    ("x86_64-pc-windows-gnu", "x86_64-w64-mingw32-gcc"),
    ("x86_64-apple-darwin", "clang"),
    ("aarch64-apple-darwin", "clang"),
];

/// `cargo check` of the runtime, its binary and examples for each of `CROSS_TARGETS` that rustup
/// has installed and a C compiler can assemble for (without `validate`, which would build
/// SPIRV-Tools' C++ for the target). Skipped targets are named with what is missing.
fn cross_check() -> Result<()> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    for (target, tool) in CROSS_TARGETS {
        if !installed.lines().any(|l| l.trim() == target) {
            println!(
                "== skipping cargo check --target {target}: not installed (rustup target add {target})"
            );
            continue;
        }
        let cc = if tool == "clang" {
            env::clang()
        } else {
            Command::new(tool)
                .arg("--version")
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|_| PathBuf::from(tool))
        };
        let Some(cc) = cc else {
            println!(
                "== skipping cargo check --target {target}: no {tool} (apt-get install {})",
                if tool == "clang" {
                    "clang-19"
                } else {
                    "gcc-mingw-w64-x86-64"
                }
            );
            continue;
        };
        println!("== cargo check --target {target}");
        run(cargo()
            .args([
                "check",
                "-p",
                "ptxvk-runtime",
                "--no-default-features",
                "--lib",
                "--bins",
                "--examples",
                "--target",
                target,
            ])
            .env(format!("CC_{}", target.replace('-', "_")), cc))?;
    }
    Ok(())
}
