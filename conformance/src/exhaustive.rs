//! Exhaustive 32-bit cases (docs/decisions/0184-exhaustive-cases.md): each
//! single-input element-wise case of ISA 8.7.1-8.7.5 and `cvt` whose input is 32 bits wide runs
//! again over all 2^32 inputs. The kernel counts its input from a base (no input buffer), each
//! launch covers [`CHUNK`] inputs, and each chunk is compared with the reference model before
//! the next one runs, so memory stays at one chunk's outputs whatever the case.
//!
//! The 8- and 16-bit cases need none of this: they run every input in the ordinary suite
//! ([`crate::elementwise::Elementwise::case`]). These run with the runner's `--exhaustive`.

use std::sync::Arc;

use ptxvk_runtime::{Context, LaunchConfig};
use ptxvk_translator::ScalarType;

use crate::elementwise::{Elementwise, collecting, storage_bytes};
use crate::launch::{self, Arg, Launch, LaunchError};
use crate::{Case, Outcome, cases, launch_outcome};

/// Inputs per launch: 2^24 (64 MiB of 32-bit results).
pub const CHUNK: u64 = 1 << 24;

/// Every exhaustive 32-bit case, named `exhaustive/` + the name of the case it extends.
pub fn cases() -> Vec<Case> {
    let (_, specs) = collecting(cases::all);
    specs
        .into_iter()
        .filter(|s| eligible(s))
        .map(|s| case(s, 1u64 << 32))
        .collect()
}

/// A single 32-bit input, an instruction of 8.7.1-8.7.5 or `cvt`, and not a packed form (each
/// half of `.f16x2`/`.bf16x2`/`.u16x2` is the 16-bit instruction, exhaustive already).
fn eligible(s: &Elementwise) -> bool {
    let section = ["8.7.1 ", "8.7.2 ", "8.7.3 ", "8.7.4 ", "8.7.5 "]
        .iter()
        .any(|f| s.family.starts_with(f));
    let cvt = s.name.starts_with("cvt/") || s.name.contains("/cvt");
    matches!(s.inputs[..], [ty] if ty != ScalarType::Pred && ty.bits() == 32)
        && (section || cvt)
        && !s.name.contains("16x2")
}

/// `spec` over the inputs `0..count` (`count` a multiple of [`CHUNK`] or below it).
pub fn case(spec: Arc<Elementwise>, count: u64) -> Case {
    let ptx = spec.counted_ptx();
    let text: Arc<str> = ptx.clone().into();
    Case {
        name: format!("exhaustive/{}", spec.name),
        family: "exhaustive 32-bit",
        ptx,
        run: Box::new(move |ctx| run(&spec, &text, ctx, count).unwrap_or_else(launch_outcome)),
    }
}

fn run(
    spec: &Elementwise,
    ptx: &Arc<str>,
    ctx: &Context,
    count: u64,
) -> Result<Outcome, LaunchError> {
    // Each chunk is checked on a second thread while the next one runs on the device: the
    // reference models cost about as much as lavapipe's dispatch.
    std::thread::scope(|s| {
        let mut pending: Option<std::thread::ScopedJoinHandle<'_, Option<String>>> = None;
        let mut base = 0u64;
        while base < count {
            let n = CHUNK.min(count - base);
            let out = launch::execute(ctx, &chunk_launch(spec, ptx, base, n))?;
            if let Some(why) = pending.take().and_then(join) {
                return Ok(Outcome::Fail(why));
            }
            pending = Some(s.spawn(move || check_chunk(spec, base, n, &out)));
            base += n;
        }
        Ok(match pending.and_then(join) {
            Some(why) => Outcome::Fail(why),
            None => Outcome::Pass,
        })
    })
}

fn join(h: std::thread::ScopedJoinHandle<'_, Option<String>>) -> Option<String> {
    h.join()
        .unwrap_or_else(|_| Some("the reference model panicked".into()))
}

/// The first input of `base..base + n` whose outputs (`out`, one buffer per output) differ from
/// the reference, described.
fn check_chunk(spec: &Elementwise, base: u64, n: u64, out: &[Vec<u8>]) -> Option<String> {
    let sizes: Vec<usize> = spec
        .outputs
        .iter()
        .map(|t| storage_bytes(*t) as usize)
        .collect();
    let mut got = vec![None; sizes.len()];
    for j in 0..n as usize {
        for (k, size) in sizes.iter().enumerate() {
            got[k] = out
                .get(k)
                .and_then(|b| b.get(j * size..(j + 1) * size))
                .map(|c| {
                    let mut w = [0u8; 8];
                    w[..c.len()].copy_from_slice(c);
                    u64::from_le_bytes(w)
                });
        }
        let x = base + j as u64;
        if let Some(why) = spec.check_row(&[x], &got) {
            return Some(format!("input {x:#010x}: {why}"));
        }
    }
    None
}

/// One launch: inputs `base..base + n`; the buffers are the outputs, pre-filled so that an
/// output never written shows.
fn chunk_launch(spec: &Elementwise, ptx: &Arc<str>, base: u64, n: u64) -> Launch {
    let buffers: Vec<Vec<u8>> = spec
        .outputs
        .iter()
        .map(|ty| vec![0xA5; storage_bytes(*ty) as usize * n as usize])
        .collect();
    let mut args = vec![Arg::Value((base as u32).into())];
    args.extend((0..buffers.len()).map(Arg::Buffer));
    args.push(Arg::Value((n as u32).into()));
    let cfg = LaunchConfig::for_num_elems(n as u32, 256);
    Launch {
        module_name: format!("exhaustive_{}.ptx", spec.name.replace('/', "_")),
        ptx: ptx.clone(),
        kernel: "elementwise".into(),
        grid: cfg.grid,
        block: cfg.block,
        dynamic_shared: 0,
        buffers,
        args,
    }
}
