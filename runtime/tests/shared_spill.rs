//! Kernels whose shared memory exceeds the device's run with their shared arena in device memory
//! (docs/decisions/0078-shared-memory-in-device-memory.md): barriers order its accesses, shared
//! atomics work on it, each block has a slice of its own, and grids larger than the buffer's
//! budget run in several dispatches. Results are checked against a computation on the host.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig, Module};
use ptxvk_translator::abi;

const WORDS: usize = 12288;

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/shared_spill.ptx"
    ))
    .unwrap();
    ctx.load_ptx("shared_spill.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn static_and_dynamic_shared_beyond_the_device_with_barriers_and_atomics() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("stage_count").unwrap();
    let device_max = ctx.info().max_shared_memory_bytes;
    // The 48 KiB of static words go to device memory where the device has less.
    assert_eq!(
        k.abi().shared_spilled,
        k.abi().static_shared_bytes > device_max
    );
    let blocks = 5usize;
    let mut seed = 0x2545_f491_u64;
    let input: Vec<u32> = (0..blocks * WORDS)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 16) as u32
        })
        .collect();
    let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    // 16 KiB of bins: 64 KiB of shared memory in all, beyond lavapipe's 32 KiB and CUDA's 48.
    for (bins, threads) in [(4096u32, 256u32), (1000, 96)] {
        let hist = DeviceBuffer::<u32>::zeroed(&ctx, blocks * bins as usize).unwrap();
        let rev = DeviceBuffer::<u32>::zeroed(&ctx, blocks * WORDS).unwrap();
        let stats = DeviceBuffer::<u64>::zeroed(&ctx, blocks * 2).unwrap();
        let cfg =
            LaunchConfig::new([blocks as u32, 1, 1], [threads, 1, 1]).with_shared_bytes(bins * 4);
        k.launch(
            &cfg,
            &[
                (&din).into(),
                (&hist).into(),
                (&rev).into(),
                (&stats).into(),
                bins.into(),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (hist, rev, stats) = (
            hist.to_vec().unwrap(),
            rev.to_vec().unwrap(),
            stats.to_vec().unwrap(),
        );
        for b in 0..blocks {
            let words = &input[b * WORDS..(b + 1) * WORDS];
            let mut want = vec![0u32; bins as usize];
            for w in words {
                want[(w % bins) as usize] += 1;
            }
            let got = &hist[b * bins as usize..(b + 1) * bins as usize];
            assert_eq!(got, &want[..], "block {b}, {bins} bins: histogram");
            let reversed: Vec<u32> = words.iter().rev().copied().collect();
            assert_eq!(&rev[b * WORDS..(b + 1) * WORDS], &reversed[..], "block {b}");
            let biggest = u64::from(*words.iter().max().unwrap());
            let total: u64 = words.iter().map(|&w| u64::from(w)).sum();
            assert_eq!(stats[2 * b] & 0xffff_ffff, biggest, "block {b}: max");
            assert_eq!(stats[2 * b + 1], total, "block {b}: 64-bit sum");
        }
    }
}

/// A grid whose slices would take more than the buffer's budget runs as several dispatches
/// (blocks in x and y); every block still sees its own words and its own %ctaid.
#[test]
fn grids_beyond_the_budget_run_in_several_dispatches() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("slices").unwrap();
    // 200 KiB per block: about 320 blocks' slices fit 64 MiB, so 40 x 20 blocks take three
    // dispatches.
    let (gx, gy) = (40u32, 20u32);
    let out = DeviceBuffer::<u32>::zeroed(&ctx, (gx * gy * 3) as usize).unwrap();
    let cfg = LaunchConfig::new([gx, gy, 1], [32, 1, 1]).with_shared_bytes(200 * 1024);
    k.launch(&cfg, &[(&out).into()])
        .unwrap_or_else(|e| panic!("{e}"));
    let got = out.to_vec().unwrap();
    for y in 0..gy {
        for x in 0..gx {
            let b = (y * gx + x) as usize;
            assert_eq!(&got[3 * b..3 * b + 3], &[x, y, 0], "block ({x}, {y})");
        }
    }
}

/// Up to CUDA's opt-in limit is allowed; beyond it the launch is refused.
#[test]
fn more_than_the_opt_in_limit_is_refused() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("slices").unwrap();
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 3).unwrap();
    let at_limit =
        LaunchConfig::new([1, 1, 1], [32, 1, 1]).with_shared_bytes(abi::MAX_SHARED_BYTES);
    k.launch(&at_limit, &[(&out).into()]).unwrap();
    assert_eq!(out.to_vec().unwrap(), [0, 0, 0]);
    let over = at_limit.with_shared_bytes(abi::MAX_SHARED_BYTES + 4);
    let err = k.launch(&over, &[(&out).into()]).unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
    assert!(err.to_string().contains("ptxvk's limit"), "{err}");
}

/// A kernel that fits the device gives the same results with its shared arena in device memory:
/// the tiled matmul (16 x 16 tiles of two matrices, barriers between loading and using them) on
/// a context that pretends the device has 1 KiB of shared memory, against the same kernel in
/// workgroup memory and against fused multiply-adds in k order on the host.
#[test]
fn a_kernel_that_fits_gives_the_same_results_in_device_memory() {
    let small = {
        let mut opts = common::options();
        opts.restrict.max_shared_memory_bytes = Some(1024);
        ptxvk_runtime::Context::new(&opts).unwrap_or_else(|e| panic!("{e}"))
    };
    let normal = common::context();
    let n = 70usize;
    let a = common::floats(n * n, 5);
    let b = common::floats(n * n, 6);
    let mut results = Vec::new();
    for (ctx, spilled) in [(&normal, false), (&small, true)] {
        let m = ctx
            .load_ptx("matmul_clang.ptx", &common::shader("matmul_clang.ptx"))
            .unwrap();
        let k = m.kernel("matmul").unwrap();
        assert_eq!(k.abi().shared_spilled, spilled);
        let da = DeviceBuffer::from_slice(ctx, &a).unwrap();
        let db = DeviceBuffer::from_slice(ctx, &b).unwrap();
        let dc = DeviceBuffer::<f32>::zeroed(ctx, n * n).unwrap();
        let tiles = n.div_ceil(16) as u32;
        let cfg = LaunchConfig::new([tiles, tiles, 1], [16, 16, 1]);
        let args = [(&da).into(), (&db).into(), (&dc).into(), (n as u32).into()];
        k.launch(&cfg, &args).unwrap_or_else(|e| panic!("{e}"));
        results.push(dc.to_vec().unwrap());
    }
    assert_eq!(results[0], results[1]);
    let want = common::tiled_matmul_reference(&a, &b, n);
    for (i, (got, want)) in results[1].iter().zip(&want).enumerate() {
        assert_eq!(got, want, "({},{})", i / n, i % n);
    }
}
