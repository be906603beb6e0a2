//! The kernel corpus: `shaders/corpus/*.cu` (CUDA C of our own) compiled by clang-19's NVPTX back
//! end for several targets into `shaders/corpus/<stem>.<sm>.ptx`, and a few files also at lower
//! optimization levels (`<stem>.<sm>.O0.ptx`), whose PTX looks very different (locals spilled to
//! `.local`, many more conversions). The translator's corpus test reads every file written here.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// (GPU architecture, PTX ISA version). clang-19 supports PTX up to 8.5; sm_90 is compiled with
/// the newest so the corpus spans PTX 7.0 to 8.5.
pub const TARGETS: [(&str, &str); 3] = [("sm_70", "ptx70"), ("sm_80", "ptx75"), ("sm_90", "ptx85")];

/// Files also compiled at a lower optimization level, for the first target only.
pub const LOW_OPT: [(&str, &str); 7] = [
    ("reduce", "O0"),
    ("structs", "O0"),
    ("local_arrays", "O0"),
    ("devfunc", "O0"),
    ("switch", "O1"),
    ("recursion", "O1"),
    ("loops", "O1"),
];

struct Job {
    cu: PathBuf,
    ptx: PathBuf,
    sm: &'static str,
    ptx_version: &'static str,
    opt: &'static str,
}

/// Compiles the corpus, writing the PTX files (or, with `check`, comparing them with what is
/// committed). Returns the files that are out of date; without `check` they have been rewritten
/// and PTX files with no source have been removed.
pub fn build(clang: &Path, check: bool) -> Result<Vec<String>> {
    let shaders = crate::root().join("shaders");
    let dir = shaders.join("corpus");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    sources.sort();
    let mut jobs = Vec::new();
    for cu in &sources {
        let stem = stem(cu)?;
        for (sm, ptx_version) in TARGETS {
            jobs.push(Job {
                cu: cu.clone(),
                ptx: dir.join(format!("{stem}.{sm}.ptx")),
                sm,
                ptx_version,
                opt: "O3",
            });
        }
        for (_, opt) in LOW_OPT.iter().filter(|(s, _)| *s == stem) {
            let (sm, ptx_version) = TARGETS[0];
            jobs.push(Job {
                cu: cu.clone(),
                ptx: dir.join(format!("{stem}.{sm}.{opt}.ptx")),
                sm,
                ptx_version,
                opt,
            });
        }
    }
    for (stem, _) in LOW_OPT {
        if !sources
            .iter()
            .any(|cu| cu.file_stem().is_some_and(|s| s == stem))
        {
            bail!("LOW_OPT names {stem}, which has no shaders/corpus/{stem}.cu");
        }
    }

    // Two at a time: the machines this runs on have few cores and clang is single-threaded.
    let results: Vec<Result<Option<String>>> = std::thread::scope(|scope| {
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
        let chunks: Vec<&[Job]> = jobs.chunks(jobs.len().div_ceil(workers).max(1)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let shaders = &shaders;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|job| compile(clang, shaders, job, check))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec![Err(anyhow::anyhow!("a compile thread panicked"))])
            })
            .collect()
    });
    let mut stale = Vec::new();
    for r in results {
        if let Some(s) = r? {
            stale.push(s);
        }
    }

    // PTX files that no source produces any more.
    let expected: Vec<&PathBuf> = jobs.iter().map(|j| &j.ptx).collect();
    let mut orphans: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx") && !expected.contains(&p))
        .collect();
    orphans.sort();
    for p in orphans {
        if check {
            stale.push(format!("{} (no source)", p.display()));
        } else {
            std::fs::remove_file(&p)?;
            println!("removed {}", p.display());
        }
    }
    Ok(if check { stale } else { Vec::new() })
}

fn stem(cu: &Path) -> Result<&str> {
    cu.file_stem()
        .and_then(|s| s.to_str())
        .with_context(|| format!("bad file name {}", cu.display()))
}

/// Compiles one job; `Some(path)` when the committed file differs (check) or was rewritten.
fn compile(clang: &Path, include: &Path, job: &Job, check: bool) -> Result<Option<String>> {
    let name = job
        .ptx
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = std::env::temp_dir().join(format!("ptxvk-corpus-{}-{name}", std::process::id()));
    crate::run(
        Command::new(clang)
            .args(["--cuda-device-only", "-nocudainc", "-nocudalib"])
            .arg(format!("--cuda-gpu-arch={}", job.sm))
            .args(["-S", &format!("-{}", job.opt)])
            .args(["-Xclang", "-target-feature", "-Xclang"])
            .arg(format!("+{}", job.ptx_version))
            .arg("-I")
            .arg(include)
            .arg(&job.cu)
            .arg("-o")
            .arg(&tmp),
    )?;
    let fresh = std::fs::read_to_string(&tmp)?;
    let _ = std::fs::remove_file(&tmp);
    let old = std::fs::read_to_string(&job.ptx).unwrap_or_default();
    if old == fresh {
        return Ok(None);
    }
    if !check {
        std::fs::write(&job.ptx, fresh)?;
        println!("wrote {}", job.ptx.display());
    }
    Ok(Some(job.ptx.display().to_string()))
}
