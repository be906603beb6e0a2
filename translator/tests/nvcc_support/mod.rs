//! nvcc at test time: our CUDA C++ (shaders/nvcc/*.cu) compiled to PTX by NVIDIA's compiler of
//! CUDA 13 (pip `nvidia-cuda-nvcc`, which `cargo xtask test` installs and names in
//! `PTXVK_NVCC`). nvcc takes seconds per file, so its outputs are cached under the target
//! directory, keyed by a hash of the source, the flags and the compiler; a changed source or
//! flag, or another nvcc, compiles again. Shared by the translator's and the runtime's tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

const INSTALL: &str = "cargo xtask test (it installs nvcc into ~/.cache/ptxvk/venv), or \
                       DIR/bin/pip install nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt \
                       nvidia-cuda-cccl and PTXVK_NVCC=DIR/.../nvidia/cu13/bin/nvcc";

/// `shaders/nvcc` in the repository.
pub fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders/nvcc")
}

/// A source of `shaders/nvcc`.
pub fn source(name: &str) -> PathBuf {
    sources_dir().join(name)
}

/// The `.cu` files of `shaders/nvcc` (not those under its subdirectories), sorted.
pub fn sources() -> Vec<PathBuf> {
    let dir = sources_dir();
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    v.sort();
    v
}

/// nvcc: `Ok(None)` when `PTXVK_NVCC=skip`, `Err` with what to do when it is missing.
pub fn locate() -> Result<Option<PathBuf>, String> {
    match std::env::var("PTXVK_NVCC") {
        Ok(v) if v == "skip" => return Ok(None),
        Ok(v) => return Ok(Some(PathBuf::from(v))),
        Err(_) => {}
    }
    let venv = std::env::var_os("PTXVK_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ptxvk/venv")));
    if let Some(Ok(entries)) = venv.map(|v| std::fs::read_dir(v.join("lib"))) {
        for e in entries.flatten() {
            let nvcc = e.path().join("site-packages/nvidia/cu13/bin/nvcc");
            if nvcc.is_file() {
                return Ok(Some(nvcc));
            }
        }
    }
    Err(format!(
        "nvcc is not installed. Install it with\n    {INSTALL}\nor set PTXVK_NVCC=skip to skip \
         this test"
    ))
}

/// nvcc for a test, `None` (with a note) when skipped; panics with the install command when
/// missing.
pub fn nvcc_or_skip(test: &str) -> Option<PathBuf> {
    match locate() {
        Ok(Some(p)) => Some(p),
        Ok(None) => {
            eprintln!("PTXVK_NVCC=skip: {test} skipped");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// FNV-1a, 64 bits: a stable hash (std's may change between Rust releases) for cache keys.
fn fnv(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // A separator, so that ("ab", "c") and ("a", "bc") differ.
    *hash ^= 0xff;
    *hash = hash.wrapping_mul(0x0100_0000_01b3);
}

fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvcc-ptx")
}

/// The PTX nvcc makes of `source` with `flags` (besides `-ptx -o`), from the cache when the
/// source, the flags and the compiler are unchanged. The key covers the source file, the `.h`
/// files of each `-IDIR` directory (our headers) and the compiler's path, size and
/// modification time (CCCL's headers come with nvcc's pinned version).
pub fn compile_ptx(nvcc: &Path, source: &Path, flags: &[&str]) -> Result<String, String> {
    let text = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let meta = std::fs::metadata(nvcc).map_err(|e| format!("{}: {e}", nvcc.display()))?;
    let mut key = 0xcbf2_9ce4_8422_2325u64;
    fnv(&mut key, &text);
    for f in flags {
        fnv(&mut key, f.as_bytes());
        // Our headers (shaders/ptxvk_cuda.h) are part of what is compiled.
        if let Some(dir) = f.strip_prefix("-I") {
            let mut headers: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| format!("{dir}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "h"))
                .collect();
            headers.sort();
            for h in headers {
                fnv(
                    &mut key,
                    &std::fs::read(&h).map_err(|e| format!("{}: {e}", h.display()))?,
                );
            }
        }
    }
    fnv(&mut key, nvcc.as_os_str().as_encoded_bytes());
    fnv(&mut key, &meta.len().to_le_bytes());
    if let Ok(t) = meta.modified()
        && let Ok(d) = t.duration_since(std::time::UNIX_EPOCH)
    {
        fnv(&mut key, &d.as_nanos().to_le_bytes());
    }
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let cached = cache_dir().join(format!("{stem}-{key:016x}.ptx"));
    if let Ok(ptx) = std::fs::read_to_string(&cached) {
        return Ok(ptx);
    }
    std::fs::create_dir_all(cache_dir()).map_err(|e| e.to_string())?;
    // Written under a name of this process's, then renamed: tests running at the same time
    // never read a half-written file.
    let partial = cached.with_extension(format!("{}.part", std::process::id()));
    let out = std::process::Command::new(nvcc)
        .arg("-ptx")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(&partial)
        .output()
        .map_err(|e| format!("{}: {e}", nvcc.display()))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(format!(
            "nvcc {} {}: {}{}",
            flags.join(" "),
            source.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::rename(&partial, &cached).map_err(|e| e.to_string())?;
    std::fs::read_to_string(&cached).map_err(|e| format!("{}: {e}", cached.display()))
}

/// Compiles every (source, flags) job, two at a time (nvcc is single-threaded and the
/// machines these tests run on have few cores); results in the jobs' order.
pub fn compile_all(nvcc: &Path, jobs: &[(PathBuf, Vec<String>)]) -> Vec<Result<String, String>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<String, String>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((src, flags)) = jobs.get(i) else {
                        break;
                    };
                    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
                    *results[i].lock().unwrap() = Some(compile_ptx(nvcc, src, &flags));
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap().unwrap())
        .collect()
}
