//! `ptxvk exec -- COMMAND ARGS...`: runs a program with ptxvk's libcuda.so.1 (the `cuda/`
//! crate) and libcudart.so.13/.12 (`cudart/`) first on the dynamic loader's path, so that a
//! CUDA program runs on ptxvk unmodified.
//!
//! A program linked with the static CUDA runtime (nvcc's default, `-cudart static`) carries
//! NVIDIA's runtime inside it, which talks to the driver through interfaces that are not
//! public; it is refused with the flag that rebuilds it against the shared runtime
//! (docs/decisions/0178-cuda-runtime-library.md).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};

/// The library: `$PTXVK_LIBCUDA`, else `libcuda.so` next to this executable (where cargo puts
/// both: `target/<profile>/`), else `../lib/ptxvk/libcuda.so` (an installed layout).
fn library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("PTXVK_LIBCUDA") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("PTXVK_LIBCUDA={}: no such file", p.display());
        }
        return Ok(p);
    }
    let exe = std::env::current_exe().context("cannot find the ptxvk executable")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join("libcuda.so"), dir.join("../lib/ptxvk/libcuda.so")];
    candidates.iter().find(|p| p.is_file()).cloned().with_context(|| {
        format!(
            "libcuda.so is not next to {} (build it with `cargo build -p ptxvk-cuda` in the same profile, or set PTXVK_LIBCUDA)",
            exe.display()
        )
    })
}

/// The runtime libraries cargo builds next to libcuda.so (`cudart/v13`, `cudart/v12`), by the
/// names programs load them under; those not built are left out.
fn runtimes(libcuda: &Path) -> Vec<(&'static str, PathBuf)> {
    let dir = libcuda.parent().unwrap_or(Path::new("."));
    [
        ("libcudart.so.13", "libcudart.so"),
        ("libcudart.so.12", "libcudart12.so"),
    ]
    .into_iter()
    .map(|(name, file)| (name, dir.join(file)))
    .filter(|(_, p)| p.is_file())
    .collect()
}

/// A directory holding `libcuda.so.1` and `libcuda.so`, links to `lib`, and links to the
/// runtime libraries beside it: one per library path, under the cache directory, made once
/// and reused (links are replaced atomically, so concurrent runs agree).
fn link_dir(lib: &Path) -> Result<PathBuf> {
    let lib = lib
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", lib.display()))?;
    // FNV-1a of the path: a stable folder name per library.
    let hash = lib
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = base
        .join("ptxvk")
        .join("libcuda")
        .join(format!("{hash:016x}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut links = vec![("libcuda.so.1", lib.clone()), ("libcuda.so", lib.clone())];
    links.extend(runtimes(&lib));
    for (name, target) in links {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|t| t == target) {
            continue;
        }
        let tmp = dir.join(format!(".{name}.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        symlink(&target, &tmp)?;
        std::fs::rename(&tmp, &link)
            .with_context(|| format!("cannot create {}", link.display()))?;
    }
    Ok(dir)
}

/// The file `program` names: a path, or a name looked up on PATH as the shell would.
fn resolve(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return Some(program.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Refuses a program that embeds kernels (`.nv_fatbin`) but links neither a shared CUDA
/// runtime nor the driver: NVIDIA's static runtime is inside it.
fn refuse_static_runtime(program: &Path) -> Result<()> {
    let Some(path) = resolve(program) else {
        return Ok(());
    };
    let Ok(bytes) = std::fs::read(&path) else {
        return Ok(());
    };
    let Some(elf) = crate::elf::read(&bytes) else {
        return Ok(());
    };
    let fatbin = elf.sections.iter().any(|s| s == ".nv_fatbin");
    let shared = elf
        .needed
        .iter()
        .any(|n| n.starts_with("libcudart.so") || n.starts_with("libcuda.so"));
    if fatbin && !shared {
        bail!(
            "{} was linked with NVIDIA's static CUDA runtime (nvcc's default), which ptxvk cannot \
             serve; rebuild it with `nvcc -cudart shared ...` (and PTX embedded, e.g. \
             `-gencode arch=compute_80,code=compute_80`) and run it again",
            path.display()
        );
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .with_context(|| format!("cannot link {} to {}", link.display(), target.display()))
}

#[cfg(not(unix))]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::fs::copy(target, link)
        .map(drop)
        .with_context(|| format!("cannot copy {} to {}", target.display(), link.display()))
}

pub fn exec(command: &[OsString]) -> Result<ExitCode> {
    let Some((program, args)) = command.split_first() else {
        bail!("usage: ptxvk exec -- COMMAND [ARGS...]");
    };
    refuse_static_runtime(Path::new(program))?;
    let dir = link_dir(&library()?)?;
    let mut path = OsString::from(dir.as_os_str());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut cmd = Command::new(program);
    cmd.args(args).env("LD_LIBRARY_PATH", path);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Only returns on failure.
        let e = cmd.exec();
        bail!("cannot run {}: {e}", Path::new(program).display());
    }
    #[cfg(not(unix))]
    {
        let status = cmd
            .status()
            .with_context(|| format!("cannot run {}", Path::new(program).display()))?;
        Ok(ExitCode::from(
            status.code().unwrap_or(1).clamp(0, 255) as u8
        ))
    }
}
