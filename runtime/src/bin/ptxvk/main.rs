//! `ptxvk`: check, translate and run PTX kernels on Vulkan devices.

mod args;
mod cli;
mod elf;
mod exec;
mod run;
mod translate;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, anyhow, bail};
use clap::Parser;
use ptxvk_runtime::translator::{Program, SourceFile};

use crate::cli::{Cli, Command};

// Translation makes many small allocations; mimalloc runs it 1.3-1.5x faster than glibc's
// malloc (docs/decisions/0150-mimalloc-in-the-binary.md), as rustc links jemalloc for the same
// reason.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: ptxvk_alloc::MiMalloc = ptxvk_alloc::MiMalloc;

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

/// Writes `path` whole or not at all: the bytes go to a temporary file in the same directory,
/// flushed to disk and then renamed over `path`, so that an error or a kill midway leaves the
/// old file (or none) rather than a truncated one that looks like a result.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if path.file_name().is_none() {
        bail!("cannot write `{}`: not a file name", path.display());
    }
    // A device or a pipe (`-o /dev/null`, `-o >(...)`) is written in place: renaming over it
    // would replace the device node with a regular file for every other program.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
            .with_context(|| format!("cannot write `{}`", path.display()));
    }
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Not derived from the output's name, which may already be as long as a name can be.
    let tmp = path.with_file_name(format!(".ptxvk-{}-{n}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    let result = written.and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write `{}`", path.display()))
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
        let sz = d.signed_zero_inf_nan_preserve;
        println!(
            "  keeps signed zeros:    f16 {}, f32 {}, f64 {}",
            yes(sz.f16),
            yes(sz.f32),
            yes(sz.f64)
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
        if d.cooperative_matrix.is_empty() {
            println!("  cooperative matrix:    none");
        }
        for (i, c) in d.cooperative_matrix.iter().enumerate() {
            let label = if i == 0 { "cooperative matrix:" } else { "" };
            println!("  {label:<22} {c}");
        }
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

#[cfg(test)]
mod tests {
    use super::write_file;

    #[test]
    fn write_file_replaces_whole_files_and_leaves_nothing_on_failure() {
        let dir = std::env::temp_dir().join(format!("ptxvk-write-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("out.bin");
        write_file(&file, b"first").unwrap();
        write_file(&file, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second, longer");
        // A directory in the way: the rename fails, and the temporary file goes too.
        let blocked = dir.join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        let err = write_file(&blocked, b"data").unwrap_err();
        assert!(err.to_string().contains("cannot write"), "{err}");
        // No directory to write in, or no file name: nothing is created.
        assert!(write_file(&dir.join("missing/out.bin"), b"x").is_err());
        assert!(write_file(std::path::Path::new("/"), b"x").is_err());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
