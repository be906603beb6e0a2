//! Atomics with heavy contention, every operation on every integer width, float and half adds
//! (compare-and-swap loops where the device has no native operation), and the memory model: a
//! reduction whose last block reads the other blocks' results after fences.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/atomics.ptx"
    ))
    .unwrap();
    ctx.load_ptx("atomics.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            s.wrapping_mul(0x2545_F491_4F6C_DD1D)
        })
        .collect()
}

#[test]
fn every_thread_on_one_counter() {
    let ctx = common::context();
    let m = module(&ctx);
    let (grid, block) = (16u32, 256u32);
    let n = (grid * block) as usize;
    let counter = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let olds = DeviceBuffer::<u32>::zeroed(&ctx, n).unwrap();
    m.kernel("count")
        .unwrap()
        .launch(&cfg(grid, block), &[(&counter).into(), (&olds).into()])
        .unwrap();
    assert_eq!(counter.to_vec().unwrap(), [n as u32]);
    // The old values are each of 0..n exactly once.
    let mut o = olds.to_vec().unwrap();
    o.sort_unstable();
    assert!(
        o.iter().enumerate().all(|(i, &v)| v == i as u32),
        "old values are not a permutation"
    );
}

#[test]
fn histogram_shared_then_global() {
    let ctx = common::context();
    let m = module(&ctx);
    let n = 100_000usize;
    let input: Vec<u32> = words(n, 3).iter().map(|w| (*w >> 7) as u32).collect();
    let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    let hist = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    m.kernel("histogram")
        .unwrap()
        .launch(
            &cfg((n as u32).div_ceil(256), 256),
            &[(&din).into(), (&hist).into(), (n as u32).into()],
        )
        .unwrap();
    let mut want = [0u32; 64];
    for v in &input {
        want[(v & 63) as usize] += 1;
    }
    assert_eq!(hist.to_vec().unwrap(), want);
}

#[test]
fn every_operation() {
    let ctx = common::context();
    let m = module(&ctx);
    let n = 256usize;
    let w = words(n, 17);
    let in32: Vec<u32> = w.iter().map(|x| *x as u32).collect();
    let in64: Vec<u64> = w.iter().map(|x| x.rotate_left(17) >> (x % 3)).collect();
    let init32: [u32; 10] = [
        u32::MAX,
        0,
        0x1234_5678,
        0,
        i32::MAX as u32,
        i32::MIN as u32,
        u32::MAX,
        5,
        7,
        99,
    ];
    let init64: [u64; 4] = [1, i64::MIN as u64, u64::MAX, 0xFFFF_0000_FFFF_0000];
    let mut cells: Vec<u32> = init32.to_vec();
    for v in init64 {
        cells.push(v as u32);
        cells.push((v >> 32) as u32);
    }
    let dcells = DeviceBuffer::from_slice(&ctx, &cells).unwrap();
    let d32 = DeviceBuffer::from_slice(&ctx, &in32).unwrap();
    let d64 = DeviceBuffer::from_slice(&ctx, &in64).unwrap();
    let olds = DeviceBuffer::<u32>::zeroed(&ctx, n * 20).unwrap();
    m.kernel("ops")
        .unwrap()
        .launch(
            &cfg(1, n as u32),
            &[
                (&d32).into(),
                (&d64).into(),
                (&dcells).into(),
                (&olds).into(),
            ],
        )
        .unwrap();
    let got = dcells.to_vec().unwrap();
    let g64 = |k: usize| u64::from(got[10 + 2 * k]) | u64::from(got[11 + 2 * k]) << 32;
    // Order-independent operations: the final value is the fold over all threads.
    assert_eq!(got[0], in32.iter().fold(init32[0], |a, b| a & b), "and");
    assert_eq!(got[1], in32.iter().fold(init32[1], |a, b| a | b), "or");
    assert_eq!(got[2], in32.iter().fold(init32[2], |a, b| a ^ b), "xor");
    assert_eq!(
        got[3],
        in32.iter().fold(init32[3], |a, b| a.max(*b)),
        "max.u32"
    );
    assert_eq!(
        got[4] as i32,
        in32.iter().fold(init32[4] as i32, |a, b| a.min(*b as i32)),
        "min.s32"
    );
    assert_eq!(
        got[5] as i32,
        in32.iter().fold(init32[5] as i32, |a, b| a.max(*b as i32)),
        "max.s32"
    );
    assert_eq!(
        got[6],
        in32.iter().fold(init32[6], |a, b| a.min(*b)),
        "min.u32"
    );
    // inc with bound 12 counts modulo 13; dec counts down modulo 13 (ISA: wrap to b).
    assert_eq!(got[7], (init32[7] + n as u32) % 13, "inc");
    assert_eq!(got[8], (init32[8] + 13 * 100 - n as u32) % 13, "dec");
    assert_eq!(
        g64(0),
        in64.iter().fold(init64[0], |a, b| a.wrapping_add(*b)),
        "add.u64"
    );
    assert_eq!(
        g64(1) as i64,
        in64.iter().fold(init64[1] as i64, |a, b| a.max(*b as i64)),
        "max.s64"
    );
    assert_eq!(
        g64(2),
        in64.iter().fold(init64[2], |a, b| a.min(*b)),
        "min.u64"
    );
    assert_eq!(g64(3), in64.iter().fold(init64[3], |a, b| a ^ b), "xor.b64");
    // exch: the values seen (returned olds) plus the final one are the initial one plus every
    // thread's, each once.
    let o = olds.to_vec().unwrap();
    let mut seen: Vec<u32> = (0..n).map(|t| o[t * 20 + 9]).collect();
    seen.push(got[9]);
    seen.sort_unstable();
    let mut all = in32.clone();
    all.push(init32[9]);
    all.sort_unstable();
    assert_eq!(seen, all, "exch");
    // Every returned old value of an add is a prefix sum of some order: at least it is one of
    // the values the cell held, so the olds of inc are each in 0..13.
    assert!((0..n).all(|t| o[t * 20 + 7] < 13), "inc olds");
}

#[test]
fn float_adds_and_cas_loops() {
    let ctx = common::context();
    let m = module(&ctx);
    let (grid, block) = (4u32, 64u32);
    let n = grid * block;
    // Exact sums whatever the order: multiples of 0.5 far below the precision limits.
    let cells = DeviceBuffer::<u32>::zeroed(&ctx, 8).unwrap();
    m.kernel("float_adds")
        .unwrap()
        .launch(
            &cfg(grid, block),
            &[(&cells).into(), 0.5f32.into(), 0.25f64.into()],
        )
        .unwrap();
    let c = cells.to_vec().unwrap();
    assert_eq!(f32::from_bits(c[0]), 0.5 * n as f32, "atom.add.f32");
    assert_eq!(
        f64::from_bits(u64::from(c[2]) | u64::from(c[3]) << 32),
        0.25 * f64::from(n),
        "red.add.f64"
    );
    let lo = half::f16::from_bits(c[4] as u16);
    let hi = half::f16::from_bits((c[4] >> 16) as u16);
    assert_eq!(
        (lo.to_f32(), hi.to_f32()),
        (0.5 * n as f32, n as f32),
        "atom.add.f16x2"
    );
    assert_eq!(
        half::bf16::from_bits(c[5] as u16).to_f32(),
        n as f32,
        "atom.add.bf16"
    );
    assert_eq!(
        c[5] >> 16,
        0,
        "bf16 add must leave the other half of the word alone"
    );
    assert_eq!(c[6], n, "a counter incremented by atom.cas loops");
}

#[test]
fn last_block_sees_every_partial() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("last_block").unwrap();
    for blocks in [1u32, 7, 64] {
        let partials = DeviceBuffer::<u32>::zeroed(&ctx, blocks as usize).unwrap();
        let counter = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
        let total = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
        k.launch(
            &cfg(blocks, 64),
            &[(&partials).into(), (&counter).into(), (&total).into()],
        )
        .unwrap();
        let want: u32 = (1..=blocks).map(|b| b * 1000).sum();
        assert_eq!(total.to_vec().unwrap(), [want], "{blocks} blocks");
    }
}

/// Every case above in one test, for `atomics_at_every_subgroup_size` to run at each width.
#[test]
fn atomic_cases() {
    common::announce(&common::context());
    every_thread_on_one_counter();
    histogram_shared_then_global();
    every_operation();
    float_adds_and_cas_loops();
    last_block_sees_every_partial();
}

#[test]
fn atomics_at_every_subgroup_size() {
    common::at_every_subgroup_size("atomic_cases");
}
