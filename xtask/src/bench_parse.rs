//! `cargo xtask bench parse`: parse+check throughput on a large generated module.
//!
//! The module repeats every kernel of `shaders/` (the corpus under `shaders/corpus` too, when it
//! exists) with its module-scope names renamed per copy, until it has at least 100,000 lines.
//! It is timed in an optimised build (the xtask re-runs itself with `--release` and the
//! `parse-bench` feature, without SPIRV-Tools) on one thread, in thread CPU time where the OS
//! reports it (a shared machine's other work does not count): `Program::parse` (lex, parse,
//! check, global layout). References measured in the same run on the same text: the lexer alone,
//! and `str::lines().count()`.

use anyhow::Result;

use crate::{cargo, run};

/// `cargo xtask bench parse [--lines N] [--runs N]`.
pub fn bench_parse(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--measure") {
        return measure::main(&args[1..]);
    }
    run(cargo()
        .args([
            "run",
            "--quiet",
            "--release",
            "-p",
            "xtask",
            "--features",
            "parse-bench",
            "--",
            "bench",
            "parse",
            "--measure",
        ])
        .args(args))
}

#[cfg(not(feature = "parse-bench"))]
mod measure {
    pub fn main(_args: &[String]) -> anyhow::Result<()> {
        anyhow::bail!("built without the `parse-bench` feature; run `cargo xtask bench parse`")
    }
}

// The clock `bench translate` uses, from the one file both benchmarks include.
#[cfg(feature = "parse-bench")]
#[path = "../../translator/benches/support/thread_clock.rs"]
mod thread_clock;

#[cfg(feature = "parse-bench")]
mod measure {
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    use anyhow::{Context, Result, bail};
    use ptxvk_translator::{Program, SourceFile};

    use super::thread_clock::thread_cpu;

    fn option(args: &[String], name: &str, default: usize) -> Result<usize> {
        match args.iter().position(|a| a == name) {
            Some(i) => args
                .get(i + 1)
                .with_context(|| format!("{name} needs a value"))?
                .parse()
                .with_context(|| format!("{name} needs a number")),
            None => Ok(default),
        }
    }

    fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                ptx_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(p);
            }
        }
    }

    /// A source file's body (without `.version`/`.target`/`.address_size`) and the module-scope
    /// names to rename in each copy.
    struct Piece {
        body: String,
        names: Vec<String>,
        version: (u32, u32),
        header: String,
    }

    fn piece(text: &str, name: &str) -> Option<Piece> {
        let program = Program::parse(SourceFile::new(name, text)).ok()?;
        let m = program.module();
        let mut names: Vec<String> = m.functions.iter().map(|f| f.name.clone()).collect();
        names.extend(m.globals.iter().map(|g| g.name.clone()));
        let is_header = |l: &str| {
            let l = l.trim_start();
            l.starts_with(".version") || l.starts_with(".target") || l.starts_with(".address_size")
        };
        let header: String = text
            .lines()
            .filter(|l| is_header(l))
            .map(|l| format!("{l}\n"))
            .collect();
        let body: String = text
            .lines()
            .filter(|l| !is_header(l))
            .map(|l| format!("{l}\n"))
            .collect();
        Some(Piece {
            body,
            names,
            version: m.version,
            header,
        })
    }

    /// Renames whole identifiers of `names` in `text` by appending `suffix`.
    fn rename(text: &str, names: &[String], suffix: &str) -> String {
        let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%';
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            out.push_str(word);
            if names.iter().any(|n| n == word) {
                out.push_str(suffix);
            }
            word.clear();
        };
        for c in text.chars() {
            if is_ident(c) {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    /// Best, median and mean (the mean shows how noisy the machine was).
    fn stats(mut times: Vec<Duration>) -> (Duration, Duration, Duration) {
        times.sort();
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        (times[0], times[times.len() / 2], mean)
    }

    const LEX_REPEAT: u32 = 10;
    const LINES_REPEAT: u32 = 100;

    /// Times `f` `runs` times. Its result is dropped after the clock stops: a caller keeps what
    /// it parsed, so freeing it is not part of parsing.
    fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, Duration) {
        let times = (0..runs)
            .map(|_| {
                let (t, c) = (Instant::now(), thread_cpu());
                let out = std::hint::black_box(f());
                let elapsed = match (c, thread_cpu()) {
                    (Some(a), Some(b)) => b.saturating_sub(a),
                    _ => t.elapsed(),
                };
                drop(out);
                elapsed
            })
            .collect();
        stats(times)
    }

    pub fn main(args: &[String]) -> Result<()> {
        let min_lines = option(args, "--lines", 100_000)?;
        let runs = option(args, "--runs", 5)?.max(1);
        let root = crate::root();
        let mut files = Vec::new();
        ptx_files(&root.join("shaders"), &mut files);
        files.sort();
        let pieces: Vec<Piece> = files
            .iter()
            .filter_map(|f| {
                let text = std::fs::read_to_string(f).ok()?;
                piece(&text, &f.display().to_string())
            })
            .collect();
        let Some(newest) = pieces.iter().max_by_key(|p| p.version) else {
            bail!("no PTX files under shaders/ parse");
        };
        let mut text = newest.header.clone();
        let mut copies = 0;
        let per_copy: usize = pieces.iter().map(|p| p.body.lines().count()).sum();
        while text.lines().count() + per_copy * copies < min_lines {
            copies += 1;
        }
        for c in 0..copies {
            for (k, p) in pieces.iter().enumerate() {
                text.push_str(&rename(&p.body, &p.names, &format!("_{k}_c{c}")));
            }
        }
        let lines = text.lines().count();
        let mb = text.len() as f64 / 1e6;
        // The module must be valid, or the time would measure error recovery.
        let file = SourceFile::new("bench.ptx", text.clone());
        if let Err(d) = Program::parse(file.clone()) {
            bail!("the generated module does not check:\n{}", d.short());
        }
        let clock = if thread_cpu().is_some() {
            "thread CPU time"
        } else {
            "wall-clock time"
        };
        println!(
            "module: {} source files x {copies} copies = {lines} lines, {mb:.2} MB; {clock}",
            pieces.len()
        );
        let (parse_best, parse_median, parse_mean) = time(runs, || Program::parse(file.clone()));
        // The references take a few ms: each run repeats them and the time is divided by the
        // repetitions.
        let per = |d: Duration, n: u32| d / n;
        let (lex_best, ..) = time(runs, || {
            (0..LEX_REPEAT)
                .map(|_| ptxvk_translator::parse::token_count(std::hint::black_box(&text)))
                .last()
        });
        let lex_best = per(lex_best, LEX_REPEAT);
        let (ast_best, ..) = time(runs, || ptxvk_translator::parse::parse(&text));
        let (lines_best, ..) = time(runs, || {
            (0..LINES_REPEAT)
                .map(|_| std::hint::black_box(&text).lines().count())
                .last()
        });
        let lines_best = per(lines_best, LINES_REPEAT);
        let rate = |d: Duration| (mb / d.as_secs_f64(), lines as f64 / d.as_secs_f64());
        let (p_mb, p_lines) = rate(parse_best);
        println!(
            "parse+check: best {:.1} ms, median {:.1} ms, mean {:.1} ms of {runs}: {p_mb:.1} MB/s, {:.2} M lines/s",
            parse_best.as_secs_f64() * 1e3,
            parse_median.as_secs_f64() * 1e3,
            parse_mean.as_secs_f64() * 1e3,
            p_lines / 1e6
        );
        let (l_mb, _) = rate(lex_best);
        println!(
            "reference, lexer only: {:.1} ms, {l_mb:.1} MB/s (parse+check takes {:.1}x as long)",
            lex_best.as_secs_f64() * 1e3,
            parse_best.as_secs_f64() / lex_best.as_secs_f64()
        );
        let (a_mb, _) = rate(ast_best);
        println!(
            "of which parsing to the syntax tree alone: {:.1} ms, {a_mb:.1} MB/s",
            ast_best.as_secs_f64() * 1e3
        );
        let (c_mb, _) = rate(lines_best);
        println!(
            "reference, str::lines().count(): {:.2} ms, {c_mb:.0} MB/s",
            lines_best.as_secs_f64() * 1e3
        );
        let target = 50.0;
        println!(
            "target >= {target} MB/s parse+check on one core: {}",
            if p_mb >= target { "met" } else { "NOT met" }
        );
        Ok(())
    }
}
