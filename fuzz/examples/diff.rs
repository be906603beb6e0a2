//! The differential fuzzer: random well-typed PTX programs (`ptxvk_fuzz::ptxgen`, integer code
//! with branches, loops and calls) run through ptxvk on the default device and through the
//! generator's own interpreter of PTX semantics, compared bit for bit for every thread.
//!
//! `cargo xtask fuzz diff --count N [--seed S]`. A mismatch or a refused program is saved as
//! `fuzz/artifacts/diff/SEED.ptx` with both results, and the run fails at the end.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use arbitrary::Unstructured;
use ptxvk_fuzz::ptxgen::{Features, OUT_WORDS, Program, seeded_bytes};
use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};

/// Threads per program: two blocks, so that `%ctaid` and `%ntid` matter too.
const BLOCKS: u32 = 2;
const BLOCK: u32 = 64;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut count = 1000u64;
    let mut first = 1u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().with_context(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--count" => count = v.parse()?,
            "--seed" => first = v.parse()?,
            _ => bail!("unknown argument `{a}` (--count N, --seed S)"),
        }
    }
    let ctx = Context::new(&ContextOptions::from_env())?;
    let threads = BLOCKS * BLOCK;
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("artifacts/diff");
    let started = Instant::now();
    let mut failures = Vec::new();
    for seed in first..first + count {
        let data = seeded_bytes(seed, 2048);
        let mut u = Unstructured::new(&data);
        let program = Program::generate(&mut u, Features::THREAD_LOCAL)
            .context("the generator needs no more bytes than it is given")?;
        let ptx = program.to_ptx();
        let Some(expected) = program.eval(threads) else {
            bail!("the interpreter cannot run a THREAD_LOCAL program");
        };
        let got = (|| -> Result<Vec<u32>> {
            let module = ctx.load_ptx(&format!("diff-{seed}.ptx"), &ptx)?;
            let out = DeviceBuffer::<u32>::zeroed(&ctx, (threads * OUT_WORDS) as usize)?;
            module.kernel("k")?.launch(
                &LaunchConfig::new([BLOCKS, 1, 1], [BLOCK, 1, 1]),
                &[(&out).into()],
            )?;
            Ok(out.to_vec()?)
        })();
        let report = match got {
            Ok(got) if got == expected => None,
            Ok(got) => {
                let i = got
                    .iter()
                    .zip(&expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                let (t, w) = (i as u32 / OUT_WORDS, i as u32 % OUT_WORDS);
                Some(format!(
                    "thread {t}, word {w}: ptxvk {:#010x}, reference {:#010x}",
                    got[i], expected[i]
                ))
            }
            Err(e) => Some(format!("ptxvk refused it: {e:#}")),
        };
        if let Some(why) = report {
            std::fs::create_dir_all(&out_dir)?;
            let path = out_dir.join(format!("{seed}.ptx"));
            std::fs::write(&path, format!("// seed {seed}: {why}\n{ptx}"))?;
            eprintln!("seed {seed}: {why} ({})", path.display());
            failures.push(seed);
        }
        let done = seed - first + 1;
        if done.is_multiple_of(100) {
            eprintln!(
                "{done} programs, {} mismatches, {:.1} programs/s",
                failures.len(),
                done as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "compared {count} programs (seeds {first}..{}) in {:.0} s: {} mismatches",
        first + count,
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    if !failures.is_empty() {
        bail!("mismatching seeds: {failures:?}");
    }
    Ok(())
}
