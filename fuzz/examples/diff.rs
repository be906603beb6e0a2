//! The differential fuzzer: random well-typed PTX programs (`ptxvk_fuzz_harness::ptxgen` with
//! `Features::DIFF`: integer and float arithmetic, conversions, predicates, branches, loops,
//! calls, warp operations, barriers, shared memory and atomics) run through ptxvk on the
//! default device and through the generator's own interpreter of PTX semantics, compared bit for
//! bit for every thread.
//!
//! `cargo xtask fuzz diff --count N [--seed S] [--time S]` (and, run directly, `--batch B`,
//! `--shrink-secs S`). Programs `S..S+N` run `B` to a kernel (one module, one pipeline, one
//! launch per batch; 1 by default, since lavapipe's compile time grows faster than the kernel).
//! A mismatching or refused program is minimised (one-edit variants, kept while they still
//! fail) and saved as `fuzz/artifacts/diff/SEED.ptx`, the smallest as `SEED.min.ptx`, with both
//! results; the run fails at the end.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use arbitrary::Unstructured;
use ptxvk_fuzz_harness::ptxgen::{
    DIFF_BLOCK, Features, ND, NF, NFD, NR, OUT_WORDS, Program, batch_ptx, seeded_bytes,
};
use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

/// Two blocks, so that `%ctaid` matters and shared memory is per block.
const BLOCKS: u32 = 2;
const THREADS: u32 = BLOCKS * DIFF_BLOCK;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut count, mut first, mut batch) = (1000u64, 1u64, 1usize);
    let mut shrink_secs = 120u64;
    let mut time = u64::MAX;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().with_context(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--count" => count = v.parse()?,
            "--seed" => first = v.parse()?,
            "--batch" => batch = v.parse::<usize>()?.max(1),
            "--shrink-secs" => shrink_secs = v.parse()?,
            "--time" => time = v.parse()?,
            _ => bail!(
                "unknown argument `{a}` (--count N, --seed S, --time S, --batch B, --shrink-secs S)"
            ),
        }
    }
    let mut ctx = Device::new()?;
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("artifacts/diff");
    let started = Instant::now();
    let mut failures = Vec::new();
    let seeds: Vec<u64> = (first..first + count).collect();
    let mut done = 0u64;
    for chunk in seeds.chunks(batch) {
        if started.elapsed().as_secs() >= time {
            break;
        }
        let programs = chunk
            .iter()
            .map(|&seed| generate(seed))
            .collect::<Result<Vec<_>>>()?;
        for (n, why) in failing(&mut ctx, &programs)?.into_iter().enumerate() {
            let Some(why) = why else { continue };
            let seed = chunk[n];
            std::fs::create_dir_all(&out_dir)?;
            let path = out_dir.join(format!("{seed}.ptx"));
            std::fs::write(
                &path,
                format!("// seed {seed}: {why}\n{}", programs[n].to_ptx()),
            )?;
            eprintln!("seed {seed}: {why} ({})", path.display());
            let (small, why) = minimise(&mut ctx, programs[n].clone(), why, shrink_secs)?;
            let text = format!("// seed {seed}, minimised: {why}\n{}", small.to_ptx());
            let path = out_dir.join(format!("{seed}.min.ptx"));
            std::fs::write(&path, &text)?;
            eprintln!(
                "minimised to {} statements ({}):\n{text}",
                small.size(),
                path.display()
            );
            failures.push(seed);
        }
        let before = done;
        done += chunk.len() as u64;
        if done / 1000 != before / 1000 {
            eprintln!(
                "{done} programs, {} mismatches, {:.1} programs/s",
                failures.len(),
                done as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "compared {done} programs (seeds {first}..{}) in {:.0} s: {} mismatches",
        first + done,
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    if !failures.is_empty() {
        bail!("mismatching seeds: {failures:?}");
    }
    Ok(())
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
            let per = (THREADS * OUT_WORDS) as usize;
            Ok(expected
                .iter()
                .zip(got.chunks(per))
                .map(|(e, g)| compare(g, e))
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
        let opts = ContextOptions::from_env();
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
        let n = programs.len() * (THREADS * OUT_WORDS) as usize;
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
    let (t, w) = (i as u32 / OUT_WORDS, i as u32 % OUT_WORDS);
    let (nr, nd, nf) = (u32::from(NR), u32::from(ND), u32::from(NF));
    let name = if w < nr {
        format!("%r{w}")
    } else if w < nr + 2 * nd {
        format!("%rd{} word {}", (w - nr) / 2, (w - nr) % 2)
    } else if w < nr + 2 * nd + nf {
        format!("%f{}", w - nr - 2 * nd)
    } else {
        let k = w - nr - 2 * nd - nf;
        debug_assert!(k < 2 * u32::from(NFD));
        format!("%fd{} word {}", k / 2, k % 2)
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
