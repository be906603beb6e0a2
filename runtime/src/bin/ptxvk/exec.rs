//! `ptxvk exec -- COMMAND ARGS...`: runs a program with ptxvk's libcuda.so.1 (the `cuda/`
//! crate) first on the dynamic loader's path, so that a CUDA program runs on ptxvk unmodified.

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

/// A directory holding `libcuda.so.1` and `libcuda.so`, links to `lib`: one per library path,
/// under the cache directory, made once and reused (links are replaced atomically, so
/// concurrent runs agree).
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
    for name in ["libcuda.so.1", "libcuda.so"] {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|t| t == lib) {
            continue;
        }
        let tmp = dir.join(format!(".{name}.{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        symlink(&lib, &tmp)?;
        std::fs::rename(&tmp, &link)
            .with_context(|| format!("cannot create {}", link.display()))?;
    }
    Ok(dir)
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
