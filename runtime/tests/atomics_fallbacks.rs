//! Atomics on a device without 64-bit buffer atomics and without float64 (some Apple GPUs
//! through MoltenVK; the `apple` profile), forced on lavapipe with `Restrictions` so that the
//! paths such a device takes run here: 32-bit atomics and CAS loops run, 64-bit atomics
//! on shared memory run under the arena's lock (which needs no 64-bit atomics), and kernels with
//! 64-bit atomics on global memory are refused naming the feature. The validation layer sees a
//! device created without `shaderBufferInt64Atomics`, so any use of it would be reported.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, Error, LaunchConfig, Module};

fn restricted() -> Context {
    let mut opts = common::options();
    opts.restrict.no_int64_atomics = true;
    opts.restrict.no_float64 = true;
    let ctx = Context::new(&opts).unwrap();
    assert!(!ctx.profile().int64_atomics);
    assert!(!ctx.profile().float64);
    ctx
}

fn load(ctx: &Context, name: &str) -> Module {
    ctx.load_ptx(name, &common::read_test_ptx(name))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

#[test]
fn thirty_two_bit_atomics_run_without_int64_atomics() {
    let ctx = restricted();
    let m = load(&ctx, "atomics.ptx");
    // `count`: every thread adds 1 to one counter; the old values are 0..n in some order.
    let (grid, block) = (8u32, 128u32);
    let n = (grid * block) as usize;
    let counter = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let olds = DeviceBuffer::<u32>::zeroed(&ctx, n).unwrap();
    m.kernel("count")
        .unwrap()
        .launch(&cfg(grid, block), &[(&counter).into(), (&olds).into()])
        .unwrap();
    assert_eq!(counter.to_vec().unwrap(), [n as u32]);
    let mut o = olds.to_vec().unwrap();
    o.sort_unstable();
    assert!(o.iter().copied().eq(0..n as u32), "old values of atom.add");
    // `histogram`: shared-memory atomics per block, merged with red.global.add.
    let input: Vec<u32> = (0..50_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 5)
        .collect();
    let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
    let hist = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    m.kernel("histogram")
        .unwrap()
        .launch(
            &cfg((input.len() as u32).div_ceil(256), 256),
            &[(&din).into(), (&hist).into(), (input.len() as u32).into()],
        )
        .unwrap();
    let mut want = [0u32; 64];
    for v in &input {
        want[(v & 63) as usize] += 1;
    }
    assert_eq!(hist.to_vec().unwrap(), want);
    // `last_block`: fences and a counter; the last block sums every block's partial.
    let blocks = 9u32;
    let partials = DeviceBuffer::<u32>::zeroed(&ctx, blocks as usize).unwrap();
    let done = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    let total = DeviceBuffer::<u32>::zeroed(&ctx, 1).unwrap();
    m.kernel("last_block")
        .unwrap()
        .launch(
            &cfg(blocks, 64),
            &[(&partials).into(), (&done).into(), (&total).into()],
        )
        .unwrap();
    assert_eq!(
        total.to_vec().unwrap(),
        [(1..=blocks).map(|b| b * 1000).sum::<u32>()]
    );
}

#[test]
fn shared_64_bit_atomics_run_without_int64_atomics() {
    let ctx = restricted();
    let m = load(&ctx, "barriers.ptx");
    let n = 192u64;
    let out = DeviceBuffer::<u64>::zeroed(&ctx, 2).unwrap();
    m.kernel("shared64")
        .unwrap()
        .launch(&cfg(1, n as u32), &[(&out).into()])
        .unwrap();
    // Thread t adds and maxes (t << 33) + t.
    let vals = (0..n).map(|t| (t << 33) + t);
    assert_eq!(
        out.to_vec().unwrap(),
        [vals.clone().sum::<u64>(), vals.max().unwrap()]
    );
}

#[test]
fn global_64_bit_atomics_are_refused_naming_the_feature() {
    let ctx = restricted();
    let m = load(&ctx, "atomics.ptx");
    // `ops` has atom.global.add.u64 and friends; `float_adds` has red.global.add.f64.
    for (kernel, feature) in [("ops", "64-bit atomics"), ("float_adds", "float64")] {
        match m.kernel(kernel) {
            Err(Error::DeviceLacks { features, .. }) => assert!(
                features.iter().any(|f| f.contains(feature)),
                "{kernel}: {features:?}"
            ),
            Ok(_) => panic!("{kernel} was accepted without {feature}"),
            Err(e) => panic!("{kernel}: {e}"),
        }
    }
}
