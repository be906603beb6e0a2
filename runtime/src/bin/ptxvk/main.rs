//! `ptxvk`: check, translate and run PTX kernels on Vulkan devices.

mod args;
mod exec;
mod run;
mod translate;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow, bail};
use clap::{Parser, Subcommand, ValueEnum};
use ptxvk_runtime::translator::{Program, SourceFile};

// Translation makes many small allocations; mimalloc runs it 1.3-1.5x faster than glibc's
// malloc (docs/benchmarks.md), as rustc links jemalloc for the same reason.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: ptxvk_alloc::MiMalloc = ptxvk_alloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "ptxvk",
    version,
    about = "Run NVIDIA PTX kernels on any Vulkan device"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List Vulkan devices and the features ptxvk uses.
    Info {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// Parse and check PTX files; print diagnostics and each kernel's signature.
    Check {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Machine-readable output (kernels with their parameters).
        #[arg(long)]
        json: bool,
    },
    /// Translate a PTX file to SPIR-V.
    Translate {
        /// The PTX file.
        file: PathBuf,
        /// Only this kernel (default: every kernel).
        #[arg(long, short)]
        kernel: Option<String>,
        /// Output file, `-` for stdout (default: FILE.KERNEL.spv next to the input, or stdout
        /// for text forms).
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// What to write.
        #[arg(long, value_enum, default_value = "spirv")]
        emit: Emit,
        /// Translate for a named device profile instead of the default device (see `ptxvk info`).
        #[arg(long)]
        device_profile: Option<String>,
    },
    /// Run a kernel: allocate its buffers, launch it, show or save the results.
    Run(run::RunArgs),
    /// Launch a kernel many times (batched on one stream) and report the time per launch.
    Bench(run::BenchArgs),
    /// Run a CUDA program on ptxvk: COMMAND runs with ptxvk's libcuda.so.1 first on
    /// LD_LIBRARY_PATH (`ptxvk exec -- ./app ARGS`).
    Exec {
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// SPIR-V binary.
    Spirv,
    /// SPIR-V assembly text.
    Spvasm,
    /// ptxvk's IR (for debugging the translator).
    Ir,
    /// The kernel ABI (parameters and their layout) as JSON.
    Abi,
}

fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_env("PTXVK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn dispatch(cmd: Command) -> Result<ExitCode> {
    match cmd {
        Command::Info { json } => info(json),
        Command::Check { files, json } => check(&files, json),
        Command::Translate {
            file,
            kernel,
            output,
            emit,
            device_profile,
        } => translate::translate(
            &file,
            kernel.as_deref(),
            output.as_deref(),
            emit,
            device_profile.as_deref(),
        ),
        Command::Run(args) => run::run(&args),
        Command::Bench(args) => run::bench(&args),
        Command::Exec { command } => exec::exec(&command),
    }
}

pub fn read_source(path: &Path) -> Result<std::sync::Arc<SourceFile>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        // Where the bad byte is, as a diagnostic would say it.
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
        let col = 1 + good.iter().rev().take_while(|&&b| b != b'\n').count();
        anyhow!(
            "{}:{line}:{col}: not UTF-8 text (byte 0x{:02x}); PTX is ASCII",
            path.display(),
            e.as_bytes()[good.len()]
        )
    })?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

/// Prints translator diagnostics the rustc way (colors on a terminal).
pub fn print_diagnostics(d: &ptxvk_runtime::translator::Diagnostics) {
    eprint!("{}", d.render(std::io::stderr().is_terminal()));
}

fn info(json: bool) -> Result<ExitCode> {
    let devices = ptxvk_runtime::devices()?;
    let default =
        ptxvk_runtime::select_device(&devices, std::env::var("PTXVK_DEVICE").ok().as_deref()).ok();
    if json {
        println!("{}", serde_json::to_string_pretty(&devices)?);
        return Ok(ExitCode::SUCCESS);
    }
    for d in &devices {
        let mark = if Some(d.index) == default {
            " (default)"
        } else {
            ""
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        println!("device {}: {}{mark}", d.index, d.name);
        println!(
            "  type:                  {:?}, Vulkan {}.{}.{}, {}",
            d.kind, d.api_version.0, d.api_version.1, d.api_version.2, d.driver
        );
        match d.missing_requirements() {
            None => println!("  runs ptxvk kernels:    yes"),
            Some(m) => println!("  runs ptxvk kernels:    no (lacks {m})"),
        }
        println!("  buffer device address: {}", yes(d.buffer_device_address));
        println!(
            "  int8/16/64:            {}/{}/{}",
            yes(d.int8),
            yes(d.int16),
            yes(d.int64)
        );
        println!(
            "  float16/64:            {}/{}",
            yes(d.float16),
            yes(d.float64)
        );
        let dp = d.denorm_preserve;
        println!(
            "  keeps subnormals:      f16 {}, f32 {}, f64 {}",
            yes(dp.f16),
            yes(dp.f32),
            yes(dp.f64)
        );
        println!("  64-bit atomics:        {}", yes(d.int64_atomics));
        println!(
            "  subgroup size:         {} (range {}-{}{})",
            d.subgroup_size,
            d.min_subgroup_size,
            d.max_subgroup_size,
            if d.subgroup_size_control {
                ", controllable"
            } else {
                ""
            }
        );
        println!(
            "  shared memory:         {} bytes",
            d.max_shared_memory_bytes
        );
        println!(
            "  push constants:        {} bytes",
            d.max_push_constant_bytes
        );
        println!(
            "  max block:             {:?}, {} threads",
            d.max_workgroup_size, d.max_workgroup_invocations
        );
    }
    if devices.is_empty() {
        bail!("no Vulkan devices\n{}", ptxvk_runtime::install_hint());
    }
    Ok(ExitCode::SUCCESS)
}

fn check(files: &[PathBuf], json: bool) -> Result<ExitCode> {
    let mut failed = false;
    let mut report = Vec::new();
    for f in files {
        let src = read_source(f)?;
        match Program::parse(src) {
            Ok(p) => {
                let w = p.warnings();
                if !w.items.is_empty() {
                    print_diagnostics(&w);
                }
                let kernels: Vec<_> = p
                    .kernel_names()
                    .into_iter()
                    .filter_map(|k| p.kernel_abi(&k))
                    .collect();
                if json {
                    report.push(serde_json::json!({
                        "file": f.display().to_string(),
                        "ok": true,
                        "kernels": kernels.iter().map(|k| serde_json::json!({
                            "name": k.name,
                            "params": k.params,
                            "signature": signature(k),
                        })).collect::<Vec<_>>(),
                    }));
                } else {
                    println!("{}: ok ({} kernel(s))", f.display(), kernels.len());
                    for k in &kernels {
                        println!("  .entry {}", signature(k));
                    }
                }
            }
            Err(d) => {
                print_diagnostics(&d);
                report.push(serde_json::json!({
                    "file": f.display().to_string(),
                    "ok": false,
                    "errors": d.items.iter().map(|i| i.message.clone()).collect::<Vec<_>>(),
                }));
                failed = true;
            }
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn signature(k: &ptxvk_runtime::translator::KernelAbi) -> String {
    ptxvk_runtime::KernelInfo {
        name: k.name.clone(),
        params: k.params.clone(),
    }
    .signature()
}
