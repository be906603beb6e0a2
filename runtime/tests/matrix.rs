//! The warp-level matrix instructions (`ldmatrix`, `mma`, `stmatrix`, `movmatrix`, `wmma`) in the
//! pattern compilers emit them (tests/ptx/matrix.ptx), two warps per block, against a Rust
//! model of the ISA's fragment layouts; on lavapipe at subgroup sizes 4, 8 and 16 too
//! (`matrix_at_every_subgroup_size`), where the warp is emulated.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use half::f16;
use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

/// Small integers (-4..=3) in f16: every product and sum below is exact in f32, whatever
/// the order.
fn tile(n: usize, seed: u64) -> Vec<u16> {
    common::floats(n, seed)
        .into_iter()
        .map(|f| f16::from_f32((f / 2.0).floor()).to_bits())
        .collect()
}

#[test]
fn matrix_cases() {
    let ctx = common::context();
    common::announce(&ctx);
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/matrix.ptx"))
            .unwrap();
    let m = ctx
        .load_ptx("matrix.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    wmma_tiles(&ctx, &m);
    let k = m.kernel("mma_tiles").unwrap();
    let warps = 2;
    // Per warp: A 16x16 and B 16x8, row-major.
    let a = tile(warps * 256, 1);
    let b = tile(warps * 128, 2);
    let da = DeviceBuffer::from_slice(&ctx, &a).unwrap();
    let db = DeviceBuffer::from_slice(&ctx, &b).unwrap();
    let dd = DeviceBuffer::<f32>::zeroed(&ctx, warps * 32 * 4).unwrap();
    let dt = DeviceBuffer::<u32>::zeroed(&ctx, warps * 32).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32 * warps as u32, 1, 1],
        shared_bytes: 0,
    };
    k.launch(
        &cfg,
        &[(&da).into(), (&db).into(), (&dd).into(), (&dt).into()],
    )
    .unwrap();
    let got_d = dd.to_vec().unwrap();
    let got_t = dt.to_vec().unwrap();
    let val = |h: u16| f16::from_bits(h).to_f32();
    for w in 0..warps {
        // D = A B + C, C's odd columns 1 in the top half and -1 in the bottom half.
        let d = |r: usize, c: usize| {
            let mut s = if c % 2 == 1 {
                if r < 8 { 1.0 } else { -1.0 }
            } else {
                0.0
            };
            for kk in 0..16 {
                s += val(a[w * 256 + r * 16 + kk]) * val(b[w * 128 + kk * 8 + c]);
            }
            s
        };
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            // The accumulator layout: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
            let want = [
                d(g, 2 * t),
                d(g, 2 * t + 1),
                d(g + 8, 2 * t),
                d(g + 8, 2 * t + 1),
            ];
            let at = (w * 32 + lane) * 4;
            assert_eq!(&got_d[at..at + 4], &want, "warp {w} lane {lane}");
            // movmatrix: element (g, 2t + j) of the top 8x8's transpose, as f16.
            let h = |j: usize| u32::from(f16::from_f32(d(2 * t + j, g)).to_bits());
            assert_eq!(
                got_t[w * 32 + lane],
                h(0) | h(1) << 16,
                "warp {w} lane {lane} (stmatrix, movmatrix)"
            );
        }
    }
}

/// `wmma` keeps its fragment layout to itself: only D in memory is observable.
fn wmma_tiles(ctx: &ptxvk_runtime::Context, m: &ptxvk_runtime::Module) {
    let k = m.kernel("wmma_tiles").unwrap();
    let warps = 2;
    // Per warp: A 16x16 row-major, B 16x16 column-major.
    let a = tile(warps * 256, 3);
    let b = tile(warps * 256, 4);
    let da = DeviceBuffer::from_slice(ctx, &a).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &b).unwrap();
    let dd = DeviceBuffer::<f32>::zeroed(ctx, warps * 256).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32 * warps as u32, 1, 1],
        shared_bytes: 0,
    };
    k.launch(&cfg, &[(&da).into(), (&db).into(), (&dd).into()])
        .unwrap();
    let got = dd.to_vec().unwrap();
    let val = |h: u16| f16::from_bits(h).to_f32();
    for w in 0..warps {
        for r in 0..16 {
            for c in 0..16 {
                let mut s = 2.0;
                for kk in 0..16 {
                    s += val(a[w * 256 + r * 16 + kk]) * val(b[w * 256 + c * 16 + kk]);
                }
                assert_eq!(got[w * 256 + r * 16 + c], s, "warp {w} D[{r}][{c}]");
            }
        }
    }
}

#[test]
fn matrix_at_every_subgroup_size() {
    common::at_every_subgroup_size("matrix_cases");
}
