//! `ptxvk translate`: PTX to SPIR-V (or its text forms), every kernel or one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use ptxvk_runtime::translator::{DeviceProfile, Program};

use crate::cli::Emit;
use crate::{print_diagnostics, read_source, write_file};

/// The longest file name common file systems take (ext4, XFS, APFS, NTFS: 255 bytes).
const NAME_MAX: usize = 255;

/// The manifest written beside the binaries when `-o` names a directory.
const MANIFEST: &str = "manifest.json";

pub fn translate(
    file: &Path,
    kernel: Option<&str>,
    output: Option<&Path>,
    emit: Emit,
    profile: Option<&str>,
) -> Result<ExitCode> {
    let src = read_source(file)?;
    let program = match Program::parse(src) {
        Ok(p) => p,
        Err(d) => {
            print_diagnostics(&d);
            return Ok(ExitCode::from(1));
        }
    };
    let profile = match profile {
        Some(name) => DeviceProfile::named(name).with_context(|| {
            format!(
                "unknown device profile `{name}`; known: {}",
                DeviceProfile::names().join(", ")
            )
        })?,
        None => {
            let ctx = ptxvk_runtime::Context::new(&ptxvk_runtime::ContextOptions::from_env())?;
            ctx.profile().clone()
        }
    };
    let names = match kernel {
        Some(k) => vec![k.to_string()],
        None => program.kernel_names(),
    };
    let stdout = output.is_some_and(|p| p == Path::new("-"));
    if stdout && emit == Emit::Spirv && names.len() > 1 {
        anyhow::bail!(
            "`-o -` writes one SPIR-V binary; `{}` has {} kernels: pick one with --kernel",
            file.display(),
            names.len()
        );
    }
    // Several kernels go into a directory, which `-o` must name as one: an existing directory or
    // a path ending in `/` (a file name would otherwise silently become a directory).
    if let Some(p) = output.filter(|p| {
        !stdout && emit == Emit::Spirv && names.len() > 1 && !p.is_dir() && !ends_in_slash(p)
    }) {
        anyhow::bail!(
            "`{}` has {} kernels and `{}` is not a directory: give one (ending in `/` to create \
             it) or pick a kernel with --kernel",
            file.display(),
            names.len(),
            p.display()
        );
    }
    let dir = output.filter(|p| !stdout && (names.len() > 1 || p.is_dir() || ends_in_slash(p)));
    if let Some(d) = dir.filter(|_| emit == Emit::Spirv) {
        std::fs::create_dir_all(d)
            .with_context(|| format!("cannot create directory `{}`", d.display()))?;
    }
    let mut text = String::new();
    let mut written = Vec::new();
    let mut failed = Vec::new();
    for name in &names {
        let (k, ir) = match program.translate_kernel_with_ir(name, &profile) {
            Ok(k) => k,
            Err(d) => {
                print_diagnostics(&d);
                failed.push(name.as_str());
                continue;
            }
        };
        match emit {
            Emit::Spirv if stdout => {
                let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::io::Write::write_all(&mut std::io::stdout().lock(), &bytes)
                    .context("cannot write to stdout")?;
            }
            Emit::Spirv => {
                let path = match (dir, output) {
                    (Some(d), _) => d.join(spv_file_name("", name)),
                    (None, Some(p)) => p.to_path_buf(),
                    (None, None) => beside(file, name),
                };
                let bytes: Vec<u8> = k.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                write_file(&path, &bytes)?;
                eprintln!("wrote {} ({} words)", path.display(), k.spirv.len());
                // Only a directory's files are named after their kernels.
                if dir.is_some() && !path.to_string_lossy().contains(name.as_str()) {
                    eprintln!("  (kernel `{name}`: its name is too long for a file name)");
                }
                written.push((name.as_str(), path));
            }
            Emit::Spvasm => text.push_str(&ptxvk_runtime::translator::disassemble(&k.spirv)),
            Emit::Ir => text.push_str(&ir.to_string()),
            Emit::Abi => {
                text.push_str(&serde_json::to_string_pretty(&k.abi)?);
                text.push('\n');
            }
        }
    }
    if let Some(d) = dir.filter(|_| emit == Emit::Spirv) {
        write_manifest(&d.join(MANIFEST), &written)?;
    }
    if !text.is_empty() {
        match output {
            // One file for every kernel: without the failed ones it would pass for complete.
            Some(p) if !stdout && !failed.is_empty() => {
                eprintln!("not writing `{}`: some kernels failed", p.display());
            }
            Some(p) if !stdout => write_file(p, text.as_bytes())?,
            _ => print!("{text}"),
        }
    }
    if failed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "error: {} of {} kernels could not be translated: {}",
        failed.len(),
        names.len(),
        failed.join(", ")
    );
    Ok(ExitCode::from(1))
}

/// `FILE.KERNEL.spv` beside the input.
fn beside(file: &Path, kernel: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    file.with_file_name(spv_file_name(&format!("{stem}."), kernel))
}

/// `PREFIX KERNEL.spv`, or, when that is longer than a file name may be (cub and thrust
/// kernels' mangled names are), as much of the kernel's name as fits followed by `-` and a hash
/// of the whole name, so that different kernels get different files and the same kernel the
/// same file in every run.
pub fn spv_file_name(prefix: &str, kernel: &str) -> String {
    let whole = format!("{prefix}{kernel}.spv");
    if whole.len() <= NAME_MAX {
        return whole;
    }
    let hash = format!("-{:016x}.spv", fnv1a(kernel.as_bytes()));
    let room = NAME_MAX.saturating_sub(hash.len());
    let mut keep = String::with_capacity(room);
    for c in prefix.chars().chain(kernel.chars()) {
        if keep.len() + c.len_utf8() > room {
            break;
        }
        keep.push(c);
    }
    keep + &hash
}

/// 64-bit FNV-1a: fixed by its definition, so names do not change between builds.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `{"kernels": [{"kernel": NAME, "file": FILE}, ...]}`: which file holds which kernel.
fn write_manifest(path: &Path, written: &[(&str, PathBuf)]) -> Result<()> {
    let kernels: Vec<serde_json::Value> = written
        .iter()
        .map(|(name, p)| {
            let file = p
                .file_name()
                .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
            serde_json::json!({ "kernel": name, "file": file })
        })
        .collect();
    let json = serde_json::to_string_pretty(&serde_json::json!({ "kernels": kernels }))?;
    write_file(path, (json + "\n").as_bytes())
}

fn ends_in_slash(p: &Path) -> bool {
    p.as_os_str()
        .to_string_lossy()
        .ends_with(std::path::MAIN_SEPARATOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_kept_and_long_ones_fit_with_a_hash() {
        assert_eq!(spv_file_name("a.", "k"), "a.k.spv");
        let long = format!("_ZN3cub{}", "x".repeat(400));
        let other = format!("_ZN3cub{}y", "x".repeat(399));
        let (a, b) = (spv_file_name("", &long), spv_file_name("", &other));
        assert!(a.len() <= NAME_MAX && b.len() <= NAME_MAX, "{a} {b}");
        assert!(a.starts_with("_ZN3cubxxx") && a.ends_with(".spv"), "{a}");
        assert_ne!(a, b);
        assert_eq!(a, spv_file_name("", &long));
        // Exactly at the limit stays whole.
        let at = "k".repeat(NAME_MAX - 4);
        assert_eq!(spv_file_name("", &at), format!("{at}.spv"));
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
