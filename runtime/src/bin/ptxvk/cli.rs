//! The command line's definition and what of it can be parsed without files or a device: the
//! fuzz target `cli_args` (fuzz/) includes this file and `args.rs` as they are.

use std::path::PathBuf;

use anyhow::{Context as _, Result, anyhow};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::args::{self, ArgSpec};

#[derive(Parser)]
#[command(
    name = "ptxvk",
    version,
    about = "Run NVIDIA PTX kernels on any Vulkan device"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
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
    Run(RunArgs),
    /// Launch a kernel many times (batched on one stream) and report the time per launch.
    Bench(BenchArgs),
    /// Run a CUDA program on ptxvk: COMMAND runs with ptxvk's libcuda.so.1 and
    /// libcudart.so.13/.12 first on LD_LIBRARY_PATH (`ptxvk exec -- ./app ARGS`); programs
    /// built by nvcc need `-cudart shared`.
    Exec {
        /// The program and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// SPIR-V binary.
    Spirv,
    /// SPIR-V assembly text.
    Spvasm,
    /// ptxvk's IR (for debugging the translator).
    Ir,
    /// The kernel ABI (parameters and their layout) as JSON.
    Abi,
}

#[derive(Args)]
pub struct RunArgs {
    /// The PTX file.
    pub file: PathBuf,
    /// The kernel to run (optional when the file has one kernel).
    #[arg(long, short)]
    pub kernel: Option<String>,
    /// Grid size in blocks: `X[,Y[,Z]]`.
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// Block size in threads: `X[,Y[,Z]]`.
    #[arg(long, default_value = "1")]
    pub block: String,
    /// Kernel arguments, in order: scalars (`1000`, `f32:2.5`) or buffers (`x=f32[1000]:rand`,
    /// `f32[N]:iota`, `f32[N]:1.5`, `u32[3]:[1,2,3]`, `f32[]:@file.bin`).
    #[arg(long = "arg", short = 'a', allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Write a buffer's final contents (raw little-endian) to a file: NAME=FILE.
    #[arg(long = "out", short = 'o')]
    pub outs: Vec<String>,
    /// How many elements of each buffer to print (0: none).
    #[arg(long, default_value_t = 8)]
    pub print: usize,
    /// Print the buffers as JSON instead.
    #[arg(long)]
    pub json: bool,
    /// Device index, `kind:TYPE` or name substring (overrides PTXVK_DEVICE).
    #[arg(long)]
    pub device: Option<String>,
    /// Dynamic shared memory bytes for `extern .shared` arrays.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Measure the kernel's device time with Vulkan timestamps.
    #[arg(long)]
    pub time: bool,
}

/// `ptxvk bench`: the `run` arguments plus how often to launch.
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Timed launches (after one untimed warm-up launch).
    #[arg(long, short = 'n', default_value_t = 100)]
    pub iters: u32,
}

/// `ptxvk run`'s launch, parsed from its arguments before any file is read.
#[derive(Debug)]
pub struct LaunchSpec {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub args: Vec<ArgSpec>,
    /// `--out NAME=FILE`.
    pub outs: Vec<(String, PathBuf)>,
}

impl RunArgs {
    pub fn launch_spec(&self) -> Result<LaunchSpec> {
        let grid = args::parse_dims(&self.grid).context("--grid")?;
        let block = args::parse_dims(&self.block).context("--block")?;
        let args = self
            .args
            .iter()
            .map(|s| args::parse_arg(s).with_context(|| format!("--arg {s}")))
            .collect::<Result<_>>()?;
        let outs = self
            .outs
            .iter()
            .map(|o| {
                o.split_once('=')
                    .filter(|(n, p)| !n.is_empty() && !p.is_empty())
                    .map(|(n, p)| (n.to_string(), PathBuf::from(p)))
                    .ok_or_else(|| anyhow!("--out expects NAME=FILE, got `{o}`"))
            })
            .collect::<Result<_>>()?;
        Ok(LaunchSpec {
            grid,
            block,
            args,
            outs,
        })
    }
}
