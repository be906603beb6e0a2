//! The differential fuzzer: random well-typed PTX programs (`ptxvk_fuzz_harness::ptxgen` with
//! `Features::DIFF`: integer and float arithmetic, 8- and 16-bit types, conversions,
//! predicates, branches, loops, calls, warp operations (also with partial member masks, and
//! in loops every thread runs to the end and branches each block or warp takes whole),
//! barriers, shared and global memory and atomics, also across blocks) run through ptxvk on
//! the default device and through the generator's own interpreter of PTX semantics, compared
//! bit for bit for every thread.
//!
//! `cargo xtask fuzz diff --count N [--seed S] [--time S] [--jobs J]` (and, run directly,
//! `--batch B`, `--shrink-secs S`). Programs `S..S+N` run on `J` workers (one device each; as
//! many as the machine has cores by default), `B` to a kernel (one module, one pipeline, one
//! launch per batch; 1 by default, since lavapipe's compile time grows faster than the kernel).
//! The run ends after `--time` seconds or once `fuzz/artifacts/diff/stop` exists (`touch` it to
//! end a long run early): each worker finishes the seeds it took, and the summary counts them.
//! A mismatching or refused program is minimised (one-edit variants, kept while they still
//! fail) and saved as `fuzz/artifacts/diff/SEED.ptx`, the smallest as `SEED.min.ptx`, with both
//! results; the run fails at the end. Where `PTXVK_OLD_LAVAPIPE_ICD` names another Vulkan
//! driver's ICD file (xtask points it at the Mesa 22.3 lavapipe it unpacks for the tests), each
//! failing seed is run once more on that driver and the answer is printed and added to its
//! `SEED.ptx`, a first hint at whether ptxvk or a driver is wrong.
//!
//! Both files are conformance cases as they stand (`ptxvk_fuzz_harness::regression`: the launch
//! and the reference's words in comment lines): once the mismatch is fixed, the minimised file
//! goes to `fuzz/regressions/`, whose files the conformance suite runs (family "fuzz
//! regressions").
//! `--write-cases DIR` writes the programs `S..S+N` as such files without running them.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow, bail};
use arbitrary::Unstructured;
use ptxvk_fuzz_harness::ptxgen::{
    CROSS_PER_OP, CROSS_WORDS, DIFF_BLOCK, Features, ND, NF, NFD, NR, OUT_WORDS, Program,
    batch_ptx, cross_op, seeded_bytes,
};
use ptxvk_fuzz_harness::regression::{self, RegressionCase};
use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

/// Two blocks, so that `%ctaid` matters and shared memory is per block.
const BLOCKS: u32 = 2;
const THREADS: u32 = BLOCKS * DIFF_BLOCK;
/// How long a launch may take before it counts as a hang.
const HANG_LIMIT: Duration = Duration::from_secs(600);

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut count, mut first, mut batch) = (1000u64, 1u64, 1usize);
    let mut shrink_secs = 120u64;
    let mut time = u64::MAX;
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut worker = false;
    let mut recheck = false;
    let mut write_cases = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().with_context(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--count" => count = v.parse()?,
            "--seed" => first = v.parse()?,
            "--batch" => batch = v.parse::<usize>()?.max(1),
            "--shrink-secs" => shrink_secs = v.parse()?,
            "--time" => time = v.parse()?,
            "--jobs" => jobs = v.parse::<usize>()?.max(1),
            "--worker" => worker = v == "1",
            "--recheck" => recheck = v == "1",
            "--write-cases" => write_cases = Some(PathBuf::from(v)),
            _ => bail!(
                "unknown argument `{a}` (--count N, --seed S, --time S, --jobs J, --batch B, \
                 --shrink-secs S, --write-cases DIR)"
            ),
        }
    }
    if let Some(dir) = write_cases {
        std::fs::create_dir_all(&dir)?;
        for seed in first..first.saturating_add(count) {
            let title = format!("seed {seed} of the differential fuzzer's generator");
            let path = dir.join(format!("{seed}.ptx"));
            std::fs::write(&path, case_text(&title, &generate(seed)?)?)?;
            eprintln!("{}", path.display());
        }
        return Ok(());
    }
    if worker || recheck {
        return worker_main(shrink_secs, !recheck);
    }
    // The driver's settings change what is tested, so every log says which were in force.
    eprintln!(
        "{jobs} workers; GALLIVM_PERF={}",
        std::env::var("GALLIVM_PERF").unwrap_or_default()
    );
    // A stop file left by an earlier run must not end this one.
    let stop_file = out_dir().join("stop");
    if stop_file.exists() {
        std::fs::remove_file(&stop_file)?;
    }
    let run = Run {
        end: first.saturating_add(count),
        batch: batch as u64,
        time,
        shrink_secs,
        out_dir: out_dir(),
        stop_file,
        started: Instant::now(),
        next: AtomicU64::new(first),
        done: AtomicU64::new(0),
        failures: Mutex::new(Vec::new()),
        flaky: Mutex::new(Vec::new()),
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs).map(|_| s.spawn(|| run.worker())).collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().map_err(|_| anyhow!("a worker panicked"))?)
    })?;
    let done = run.done.load(Ordering::SeqCst);
    let mut failures = run.failures.into_inner().map_err(|_| anyhow!("poisoned"))?;
    failures.sort_unstable();
    let flaky = run.flaky.into_inner().map_err(|_| anyhow!("poisoned"))?;
    if !flaky.is_empty() {
        eprintln!("the driver crashed once on seeds {flaky:?}, not when run again alone");
    }
    println!(
        "compared {done} programs (seeds {first}..{}) in {:.0} s: {} mismatches",
        first + done,
        run.started.elapsed().as_secs_f64(),
        failures.len()
    );
    if !failures.is_empty() {
        recheck_elsewhere(&failures, &run.out_dir)?;
        bail!("mismatching seeds: {failures:?}");
    }
    Ok(())
}

/// Runs each failing seed again on the driver `PTXVK_OLD_LAVAPIPE_ICD` names, if any, and says
/// whether it fails there too. A seed only one driver fails points at that driver, to be
/// confirmed by hand; one both fail is not settled by it, since the two lavapipes share LLVM
/// and much of their compiler (seed 27,717 fails on both, each time through a loop one of
/// them compiles right when reduced).
fn recheck_elsewhere(failures: &[u64], out_dir: &Path) -> Result<()> {
    let icd = match std::env::var("PTXVK_OLD_LAVAPIPE_ICD") {
        Ok(v) if v != "skip" && Path::new(&v).is_file() => v,
        _ => return Ok(()),
    };
    let env = [
        ("VK_DRIVER_FILES", icd.as_str()),
        ("VK_ICD_FILENAMES", icd.as_str()),
    ];
    let start = || Child::spawn_with(&["--recheck", "1"], &env);
    let mut child = start()?;
    for &seed in failures {
        let verdict = match child.ask(&[seed])? {
            Some(f) if f.is_empty() => "matches the reference there".to_string(),
            Some(_) => "fails there too (above)".to_string(),
            None => {
                let status = child.stop()?;
                child = start()?;
                format!("crashes that driver ({status})")
            }
        };
        let line = format!("seed {seed} on {icd}: {verdict}");
        eprintln!("{line}");
        let path = out_dir.join(format!("{seed}.ptx"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            std::fs::write(&path, format!("// {line}\n{text}"))?;
        }
    }
    Ok(())
}

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("artifacts/diff")
}

/// What the workers share. Each claims the next `batch` seeds only while time is left and
/// finishes what it claimed, so the seeds compared are always `first..first + done`.
struct Run {
    end: u64,
    batch: u64,
    time: u64,
    shrink_secs: u64,
    out_dir: PathBuf,
    /// Touching it ends the run early, as running out of time does: what the workers claimed
    /// is finished and counted.
    stop_file: PathBuf,
    started: Instant,
    next: AtomicU64,
    done: AtomicU64,
    failures: Mutex<Vec<u64>>,
    /// Seeds whose batch crashed the driver once but ran through when tried again alone.
    flaky: Mutex<Vec<u64>>,
}

impl Run {
    /// Each worker drives a child process of its own (`--worker`), so that a crash in the
    /// driver (lavapipe has segfaulted in a NIR pass during long runs) costs one batch, which
    /// is then tried again seed by seed, and not the whole run.
    fn worker(&self) -> Result<()> {
        let mut child = Child::spawn(self.shrink_secs)?;
        loop {
            if self.started.elapsed().as_secs() >= self.time || self.stop_file.exists() {
                return Ok(());
            }
            let start = self.next.fetch_add(self.batch, Ordering::SeqCst);
            if start >= self.end {
                return Ok(());
            }
            let chunk: Vec<u64> = (start..(start + self.batch).min(self.end)).collect();
            let failed = match child.ask(&chunk)? {
                Some(failed) => failed,
                None => self.crashed(&mut child, &chunk)?,
            };
            self.failures
                .lock()
                .map_err(|_| anyhow!("poisoned"))?
                .extend(failed);
            let n = chunk.len() as u64;
            let done = self.done.fetch_add(n, Ordering::SeqCst) + n;
            if done / 1000 != (done - n) / 1000 {
                let failures = self.failures.lock().map_or(0, |f| f.len());
                eprintln!(
                    "{done} programs, {failures} mismatches, {:.1} programs/s",
                    done as f64 / self.started.elapsed().as_secs_f64()
                );
            }
        }
    }

    /// The child died on `chunk`: each seed is tried again alone on a new child, and one that
    /// crashes it again is a failure, saved with its PTX.
    fn crashed(&self, child: &mut Child, chunk: &[u64]) -> Result<Vec<u64>> {
        let status = child.restart(self.shrink_secs)?;
        eprintln!("the driver crashed on seeds {chunk:?} ({status}); trying each again");
        let (mut failed, mut crashes) = (Vec::new(), 0);
        for &seed in chunk {
            if let Some(f) = child.ask(&[seed])? {
                failed.extend(f);
                continue;
            }
            let again = child.restart(self.shrink_secs)?;
            crashes += 1;
            std::fs::create_dir_all(&self.out_dir)?;
            let path = self.out_dir.join(format!("{seed}.ptx"));
            let why = format!("the driver crashed twice ({status}, then {again})");
            let text = case_text(&format!("seed {seed}: {why}"), &generate(seed)?)?;
            std::fs::write(&path, text)?;
            eprintln!("seed {seed}: {why} ({})", path.display());
            failed.push(seed);
        }
        if crashes == 0 {
            self.flaky
                .lock()
                .map_err(|_| anyhow!("poisoned"))?
                .extend(chunk);
        }
        Ok(failed)
    }
}

/// A `--worker` child: seeds in on stdin, a line per batch, and the failing ones out on
/// stdout, a line starting with `=`.
struct Child {
    proc: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Child {
    fn spawn(shrink_secs: u64) -> Result<Child> {
        Child::spawn_with(
            &["--worker", "1", "--shrink-secs", &shrink_secs.to_string()],
            &[],
        )
    }

    fn spawn_with(args: &[&str], env: &[(&str, &str)]) -> Result<Child> {
        let mut proc = Command::new(std::env::current_exe()?)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting a worker")?;
        let stdin = proc.stdin.take().context("the worker's stdin")?;
        let stdout = BufReader::new(proc.stdout.take().context("the worker's stdout")?);
        Ok(Child {
            proc,
            stdin,
            stdout,
        })
    }

    /// The failing seeds of `chunk`, or `None` if the child died on it.
    fn ask(&mut self, chunk: &[u64]) -> Result<Option<Vec<u64>>> {
        let line: Vec<String> = chunk.iter().map(u64::to_string).collect();
        if writeln!(self.stdin, "{}", line.join(" ")).is_err() {
            return Ok(None);
        }
        let mut answer = String::new();
        if self.stdout.read_line(&mut answer).unwrap_or(0) == 0 {
            return Ok(None);
        }
        let failed = answer
            .trim()
            .strip_prefix('=')
            .with_context(|| format!("a worker answered `{answer}`"))?;
        Ok(Some(
            failed
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()?,
        ))
    }

    /// Waits for the dead child and starts a new one; how the old one ended.
    fn restart(&mut self, shrink_secs: u64) -> Result<String> {
        let status = self.stop()?;
        *self = Child::spawn(shrink_secs)?;
        Ok(status)
    }

    fn stop(&mut self) -> Result<String> {
        // It may have died already; either way it is waited for.
        let _ = self.proc.kill();
        Ok(self.proc.wait()?.to_string())
    }
}

/// The child's side: one device, kept across batches and made again after a lost launch.
/// Without `save` (a recheck on another driver) it only answers which seeds fail.
fn worker_main(shrink_secs: u64, save: bool) -> Result<()> {
    let mut ctx = Device::new()?;
    let dir = out_dir();
    let mut out = std::io::stdout().lock();
    for line in std::io::stdin().lock().lines() {
        let chunk = line?
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<u64>, _>>()?;
        let failed = one_batch(&mut ctx, &chunk, save.then_some(&dir), shrink_secs)?;
        let failed: Vec<String> = failed.iter().map(u64::to_string).collect();
        writeln!(out, "={}", failed.join(" "))?;
        out.flush()?;
    }
    Ok(())
}

/// Runs `chunk` and, with `save_to`, saves each failing program and its minimised form (a
/// recheck on a second driver only prints why each fails); the failing seeds.
fn one_batch(
    ctx: &mut Device,
    chunk: &[u64],
    save_to: Option<&Path>,
    shrink_secs: u64,
) -> Result<Vec<u64>> {
    let programs = chunk
        .iter()
        .map(|&seed| generate(seed))
        .collect::<Result<Vec<_>>>()?;
    let mut failed = Vec::new();
    for (n, why) in failing(ctx, &programs)?.into_iter().enumerate() {
        let Some(why) = why else { continue };
        let seed = chunk[n];
        failed.push(seed);
        let Some(dir) = save_to else {
            eprintln!("seed {seed} on the second driver: {why}");
            continue;
        };
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{seed}.ptx"));
        let text = case_text(&format!("seed {seed}: {why}"), &programs[n])?;
        std::fs::write(&path, text)?;
        eprintln!("seed {seed}: {why} ({})", path.display());
        let (small, why) = minimise(ctx, programs[n].clone(), why, shrink_secs)?;
        let text = case_text(&format!("seed {seed}, minimised: {why}"), &small)?;
        let path = dir.join(format!("{seed}.min.ptx"));
        std::fs::write(&path, &text)?;
        // The program without its expected words, which the file has.
        eprintln!(
            "minimised to {} statements ({}): {why}\n{}",
            small.size(),
            path.display(),
            small.to_ptx()
        );
    }
    Ok(failed)
}

/// `program` as a conformance case: its PTX after the launch and the reference's words.
fn case_text(title: &str, program: &Program) -> Result<String> {
    let expect = program
        .eval(BLOCKS, DIFF_BLOCK)
        .context("the interpreter cannot run a DIFF program")?;
    let case = RegressionCase {
        grid: BLOCKS,
        block: DIFF_BLOCK,
        words_per_thread: OUT_WORDS,
        after: CROSS_WORDS,
        expect,
    };
    Ok(regression::write(title, &case, &program.to_ptx()))
}

fn generate(seed: u64) -> Result<Program> {
    let data = seeded_bytes(seed, 2048);
    Program::generate(&mut Unstructured::new(&data), Features::DIFF)
        .context("the generator needs no more bytes than it is given")
}

/// For each program, why it fails (a mismatch or a refusal), or `None`. The programs run in one
/// kernel; if ptxvk refuses the batch, each runs alone to find the one it refuses.
fn failing(ctx: &mut Device, programs: &[Program]) -> Result<Vec<Option<String>>> {
    let expected = programs
        .iter()
        .map(|p| p.eval(BLOCKS, DIFF_BLOCK))
        .collect::<Option<Vec<_>>>()
        .context("the interpreter cannot run a DIFF program")?;
    match ctx.run(programs) {
        Ok(got) => {
            // Each program's threads' words, then every program's words across blocks.
            let per = (THREADS * OUT_WORDS) as usize;
            let (words, cross) = got.split_at(per * programs.len());
            Ok(expected
                .iter()
                .zip(words.chunks(per).zip(cross.chunks(CROSS_WORDS as usize)))
                .map(|(e, (w, c))| compare(&[w, c].concat(), e))
                .collect())
        }
        Err(_) if programs.len() > 1 => {
            let mut out = Vec::new();
            for p in programs {
                out.extend(failing(ctx, std::slice::from_ref(p))?);
            }
            Ok(out)
        }
        Err(e) => Ok(vec![Some(format!("ptxvk refused it: {e:#}"))]),
    }
}

/// The context, made again after a launch loses it (a fault or a timeout), so that one bad
/// program does not fail every later one.
struct Device {
    opts: ContextOptions,
    ctx: Context,
}

impl Device {
    fn new() -> Result<Device> {
        let mut opts = ContextOptions::from_env();
        // Every generated loop has a bound, so only a miscompile hangs; a wall-clock limit
        // alone cannot tell that from a niced run starved by other work (a 0.2 s program took
        // over 60 s that way), so the limit is long unless PTXVK_TIMEOUT_MS sets it.
        if std::env::var_os("PTXVK_TIMEOUT_MS").is_none() {
            opts.timeout = opts.timeout.max(HANG_LIMIT);
        }
        let ctx = Context::new(&opts)?;
        Ok(Device { opts, ctx })
    }

    /// A timeout is tried once more: on a machine shared with other work, a niced run can be
    /// starved past the timeout by programs that take a second when they get the CPU.
    fn run(&mut self, programs: &[Program]) -> Result<Vec<u32>> {
        let mut got = self.try_run(programs);
        for retry in [true, false] {
            let Err(e) = &got else { break };
            let lost = e.downcast_ref::<ptxvk_runtime::Error>();
            if !matches!(
                lost,
                Some(ptxvk_runtime::Error::DeviceLost | ptxvk_runtime::Error::Timeout { .. })
            ) {
                break;
            }
            self.ctx = Context::new(&self.opts)?;
            let timeout = matches!(lost, Some(ptxvk_runtime::Error::Timeout { .. }));
            if !(retry && timeout) {
                break;
            }
            got = self.try_run(programs);
        }
        got
    }

    fn try_run(&self, programs: &[Program]) -> Result<Vec<u32>> {
        let ctx = &self.ctx;
        let ptx = batch_ptx(programs, THREADS);
        let module = ctx.load_ptx("diff.ptx", &ptx)?;
        let kernel = module.kernel("k")?;
        let n = programs.len() * (THREADS * OUT_WORDS + CROSS_WORDS) as usize;
        let out = DeviceBuffer::<u32>::zeroed(ctx, n)?;
        kernel.launch(
            &LaunchConfig::new([BLOCKS, 1, 1], [DIFF_BLOCK, 1, 1]),
            &[(&out).into()],
        )?;
        Ok(out.to_vec()?)
    }
}

/// The first differing word, named.
fn compare(got: &[u32], expected: &[u32]) -> Option<String> {
    let i = got.iter().zip(expected).position(|(a, b)| a != b)?;
    if let Some(k) = (i as u32).checked_sub(THREADS * OUT_WORDS) {
        let op = cross_op(k as usize);
        return Some(format!(
            "word {} of the {op:?} reductions across blocks: ptxvk {:#010x}, reference {:#010x}",
            k % CROSS_PER_OP,
            got[i],
            expected[i]
        ));
    }
    let (t, w) = (i as u32 / OUT_WORDS, i as u32 % OUT_WORDS);
    let (nr, nd, nf) = (u32::from(NR), u32::from(ND), u32::from(NF));
    let name = if w < nr {
        format!("%r{w}")
    } else if w < nr + 2 * nd {
        format!("%rd{} word {}", (w - nr) / 2, (w - nr) % 2)
    } else if w < nr + 2 * nd + nf {
        format!("%f{}", w - nr - 2 * nd)
    } else if w < nr + 2 * nd + nf + 2 * u32::from(NFD) {
        let k = w - nr - 2 * nd - nf;
        format!("%fd{} word {}", k / 2, k % 2)
    } else {
        let k = w - nr - 2 * nd - nf - 2 * u32::from(NFD);
        format!("%rs{} (low half) and %rs{} (high half)", 2 * k, 2 * k + 1)
    };
    Some(format!(
        "thread {t}, {name}: ptxvk {:#010x}, reference {:#010x}",
        got[i], expected[i]
    ))
}

/// Greedy minimisation: the first one-edit variant that still fails replaces the program,
/// until none does or `secs` have passed.
fn minimise(
    ctx: &mut Device,
    mut program: Program,
    mut why: String,
    secs: u64,
) -> Result<(Program, String)> {
    let started = Instant::now();
    while started.elapsed().as_secs() < secs {
        let candidates = program.shrink_candidates();
        let mut next = None;
        // One at a time: lavapipe's compile grows faster than the kernel, so batches are
        // slower per program.
        for chunk in candidates.chunks(1) {
            if started.elapsed().as_secs() >= secs {
                break;
            }
            let results = failing(ctx, chunk)?;
            if let Some((n, w)) = results
                .into_iter()
                .enumerate()
                .find_map(|(n, w)| w.map(|w| (n, w)))
            {
                next = Some((chunk[n].clone(), w));
                break;
            }
        }
        match next {
            Some((p, w)) => {
                program = p;
                why = w;
            }
            None => break,
        }
    }
    Ok((program, why))
}
