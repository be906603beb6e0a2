//! Translation throughput (`cargo xtask bench translate`): PTX text to SPIR-V words, without
//! validation, on one thread, on a large module generated from the repository's own PTX.
//!
//! The module repeats the kernels of `shaders/*.ptx` and `runtime/tests/ptx/*.ptx` with their
//! module-scope names (kernels, device functions, global variables) renamed per copy, until it
//! has 100,000 lines or more. A file takes part only if every kernel in it translates under every
//! profile measured, so that each profile translates the same text.
//!
//! Reported per device profile: `Program::translate_all` (lowering, inlining, structurizing, the
//! SIMT pass where it applies, emission), and parse + check + translate_all end to end, as MB of
//! PTX per second and kernels per second. Two references are measured in the same run:
//!
//! - parse + check alone (`Program::parse`): the front end's share of the end-to-end time;
//! - rspirv loading the produced SPIR-V words back into its module representation and
//!   assembling them again: the cost of merely building and serializing modules of that size
//!   with the library our emitter uses, so emission can be judged against it.
//!
//! Options: `--lines N`, `--runs N` (samples, default 5), `--reps N` (calls per sample, default
//! 3), `--translate-only` (for profilers:
//! nothing but translate_all), `--only PROFILE` (one profile, same module) and `--dump DIR`
//! (every kernel's SPIR-V per profile, to compare builds).
//! `cargo bench` passes `--bench`, which selects the full size; under `cargo test --all-targets`
//! this runs once on a small module as a smoke test.

// The allocator of the `ptxvk` binary (runtime/Cargo.toml, feature `mimalloc`), unless
// `--system-allocator` asks for the platform's.
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: ptxvk_alloc::MiMalloc = ptxvk_alloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

#[path = "support/thread_clock.rs"]
mod thread_clock;

use thread_clock::thread_cpu;

/// The target for `translate_all` on one core, by the best sample (docs/translation-speed.md).
const TARGET_MB_S: f64 = 50.0;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const PROFILES: [&str; 3] = ["lavapipe", "nvidia", "amd-rdna"];

const ALLOCATOR_NAME: &str = if cfg!(feature = "system-allocator") {
    "system allocator"
} else {
    "mimalloc (as the ptxvk binary)"
};

fn full() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn option(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

/// One source file: its text without the module header, and the names to rename per copy.
struct Piece {
    file: String,
    body: String,
    names: Vec<String>,
    /// `.version` and `sm_XX`: the newest file's header heads the module.
    version: (u32, u32, u32),
    header: String,
    kernels: usize,
}

fn is_header(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with(".version") || l.starts_with(".target") || l.starts_with(".address_size")
}

/// `None` when the file does not parse or some kernel does not translate under every profile.
fn piece(path: &Path, profiles: &[DeviceProfile]) -> Option<Piece> {
    let text = std::fs::read_to_string(path).ok()?;
    let file = path.display().to_string();
    let program = Program::parse(SourceFile::new(file.clone(), text.clone())).ok()?;
    if profiles.iter().any(|p| program.translate_all(p).is_err()) {
        return None;
    }
    let m = program.module();
    let mut names: Vec<String> = m.functions.iter().map(|f| f.name.clone()).collect();
    names.extend(m.globals.iter().map(|g| g.name.clone()));
    let mut header = String::new();
    let mut body = String::new();
    for l in text.lines() {
        let to = if is_header(l) { &mut header } else { &mut body };
        to.push_str(l);
        to.push('\n');
    }
    Some(Piece {
        file,
        body,
        names,
        version: (m.version.0, m.version.1, m.sm),
        header,
        kernels: program.kernel_names().len(),
    })
}

/// `text` with every whole identifier in `names` followed by `suffix` (not directives or
/// modifiers: a variable may be called `local`).
fn rename(text: &str, names: &[String], suffix: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%');
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut start = None;
    let flush = |out: &mut String, word: &str| {
        out.push_str(word);
        if !out[..out.len() - word.len()].ends_with('.') && names.iter().any(|n| n == word) {
            out.push_str(suffix);
        }
    };
    for (i, c) in text.char_indices() {
        match (ident(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                flush(&mut out, &text[s..i]);
                start = None;
                out.push(c);
            }
            (false, None) => out.push(c),
            (true, Some(_)) => {}
        }
    }
    if let Some(s) = start {
        flush(&mut out, &text[s..]);
    }
    out
}

/// Times `f`: `runs` samples of `reps` calls each. Returns the best and the mean
/// time per call, and the last result.
fn measure<T>(
    runs: usize,
    reps: usize,
    mut f: impl FnMut() -> Res<T>,
) -> Res<(Duration, Duration, T)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), thread_cpu());
        for _ in 0..reps {
            last = Some(f()?);
        }
        let d = match (c, thread_cpu()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => t.elapsed(),
        };
        times.push(d / reps as u32);
    }
    let best = times.iter().min().copied().ok_or("no runs")?;
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    Ok((best, mean, last.ok_or("no runs")?))
}

fn main() -> Res<()> {
    let min_lines = option("--lines").unwrap_or(if full() { 100_000 } else { 2_000 });
    let runs = option("--runs")
        .unwrap_or(if full() { 5 } else { 1 })
        .max(1);
    let reps = option("--reps")
        .unwrap_or(if full() { 3 } else { 1 })
        .max(1);
    let mut profiles: Vec<DeviceProfile> = PROFILES
        .iter()
        .map(|n| DeviceProfile::named(n).ok_or(format!("no profile {n}")))
        .collect::<Result<_, _>>()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    ptx_files(&root.join("shaders"), &mut files);
    ptx_files(&root.join("runtime/tests/ptx"), &mut files);
    files.sort();
    let mut pieces = Vec::new();
    let mut left_out = Vec::new();
    for f in &files {
        match piece(f, &profiles) {
            Some(p) => pieces.push(p),
            None => left_out.push(
                f.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            ),
        }
    }
    let Some(newest) = pieces.iter().max_by_key(|p| p.version) else {
        return Err("no PTX file of the repository translates under every profile".into());
    };
    let mut text = newest.header.clone();
    let (mut copies, mut lines, mut kernels) = (0, newest.header.lines().count(), 0);
    while lines < min_lines {
        for (k, p) in pieces.iter().enumerate() {
            let copy = rename(&p.body, &p.names, &format!("_{k}_c{copies}"));
            lines += copy.lines().count();
            text.push_str(&copy);
            kernels += p.kernels;
        }
        copies += 1;
    }
    // `--only NAME`: one profile, translating the same module.
    let args: Vec<String> = std::env::args().collect();
    if let Some(only) = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
    {
        profiles.retain(|p| p.name == *only);
    }
    let mb = text.len() as f64 / 1e6;
    let file = SourceFile::new("bench.ptx", text);
    let clock = if thread_cpu().is_some() {
        "thread CPU time"
    } else {
        "wall-clock time"
    };
    println!(
        "translate: {} files x {copies} copies = {lines} lines, {mb:.2} MB, {kernels} kernels; {clock} per call, best and mean of {runs} samples of {reps} calls; {ALLOCATOR_NAME}",
        pieces.len()
    );
    let names: Vec<&str> = pieces
        .iter()
        .map(|p| p.file.rsplit('/').next().unwrap_or(&p.file))
        .collect();
    println!("  from {}", names.join(", "));
    if !left_out.is_empty() {
        println!(
            "  left out (not every kernel translates under {}): {}",
            PROFILES.join(", "),
            left_out.join(", ")
        );
    }
    // To compare two builds' output: every kernel's SPIR-V, per profile, in one file each.
    if let Some(i) = std::env::args().position(|a| a == "--dump") {
        let dir = PathBuf::from(
            std::env::args()
                .nth(i + 1)
                .ok_or("--dump needs a directory")?,
        );
        std::fs::create_dir_all(&dir)?;
        let program = Program::parse(file.clone()).map_err(|d| d.to_string())?;
        for profile in &profiles {
            let words: Vec<u8> = program
                .translate_all(profile)?
                .iter()
                .flat_map(|k| k.spirv.iter().flat_map(|w| w.to_le_bytes()))
                .collect();
            std::fs::write(dir.join(format!("{}.spv-all", profile.name)), words)?;
        }
        return Ok(());
    }
    // For profilers: nothing but translate_all, `runs` times per profile.
    if std::env::args().any(|a| a == "--translate-only") {
        let program = Program::parse(file.clone()).map_err(|d| d.to_string())?;
        for profile in &profiles {
            for _ in 0..runs {
                std::hint::black_box(program.translate_all(profile)?);
            }
        }
        return Ok(());
    }
    let (parse, parse_mean, program) = measure(runs, reps, || {
        Program::parse(file.clone()).map_err(|d| -> Box<dyn std::error::Error> {
            let d = d.to_string();
            let head: Vec<&str> = d.lines().take(20).collect();
            format!("the generated module does not check:\n{}", head.join("\n")).into()
        })
    })?;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let rate = |d: Duration| mb / d.as_secs_f64();
    let kps = |d: Duration| kernels as f64 / d.as_secs_f64();
    for profile in &profiles {
        let (translate, mean, out) = measure(runs, reps, || Ok(program.translate_all(profile)?))?;
        let words: usize = out.iter().map(|k| k.spirv.len()).sum();
        let (both, both_mean, ()) = measure(runs, reps, || {
            let p = Program::parse(file.clone())?;
            std::hint::black_box(p.translate_all(profile)?);
            Ok(())
        })?;
        let (round_trip, _, ()) = measure(runs, reps, || {
            for k in &out {
                use rspirv::binary::Assemble;
                let m = rspirv::dr::load_words(&k.spirv).map_err(|e| e.to_string())?;
                std::hint::black_box(m.assemble());
            }
            Ok(())
        })?;
        println!(
            "  {:<9} translate_all {:7.1} ms (mean {:5.1})  {:6.1} MB/s  {:8.0} kernels/s   ({:.1} M SPIR-V words; {})",
            profile.name,
            ms(translate),
            ms(mean),
            rate(translate),
            kps(translate),
            words as f64 / 1e6,
            if rate(translate) >= TARGET_MB_S {
                format!("at the {TARGET_MB_S} MB/s target")
            } else {
                format!("below the {TARGET_MB_S} MB/s target")
            }
        );
        println!(
            "  {:<9} parse+translate {:5.1} ms (mean {:5.1})  {:6.1} MB/s  {:8.0} kernels/s",
            "",
            ms(both),
            ms(both_mean),
            rate(both),
            kps(both)
        );
        println!(
            "  {:<9} reference: rspirv load+assemble of the output {:6.1} ms ({:.2} x translate_all)",
            "",
            ms(round_trip),
            round_trip.as_secs_f64() / translate.as_secs_f64()
        );
    }
    println!(
        "  reference: parse+check alone  {:7.1} ms (mean {:5.1})  {:6.1} MB/s",
        ms(parse),
        ms(parse_mean),
        rate(parse)
    );
    Ok(())
}
