//! Instructions of sm_90 compilers run on the device: `elect.sync` against the ISA's rule (the
//! leader is the lowest active lane of the mask, and exactly one lane per mask is elected) at
//! every subgroup size lavapipe offers, and the cluster registers, `mapa`, `getctarank`,
//! `.shared::cta`/`.shared::cluster`, proxy fences, `griddepcontrol`, `setmaxnreg` and
//! `createpolicy` against the ISA's values for a launch without clusters (each block a cluster
//! of one); function-scope `.global` variables and vector registers as `mov` pack/unpack
//! operands and function arguments and results.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/modern.ptx"))
            .unwrap();
    ctx.load_ptx("modern.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn elect(ctx: &Context, m: &Module) {
    let k = m.kernel("elect_lanes").unwrap();
    let masks: [u32; 3] = [0xffff_ffff, 0xf0f0_0f00, 0x8000_0001];
    let sets: [&[u32]; 3] = [
        &masks,
        &[0x0000_0100, 0xffff_fffe, 0x7fff_0000],
        &[0xffff_ffff; 3],
    ];
    for set in sets {
        let threads = 32 * set.len();
        let dmasks = DeviceBuffer::from_slice(ctx, set).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(ctx, threads * 2).unwrap();
        let counts = DeviceBuffer::<u32>::zeroed(ctx, set.len()).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [threads as u32, 1, 1],
            shared_bytes: 0,
        };
        k.launch(&cfg, &[(&dmasks).into(), (&out).into(), (&counts).into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        for t in 0..threads {
            let (w, lane) = (t / 32, (t % 32) as u32);
            let mask = set[w];
            let want = if mask >> lane & 1 == 1 {
                let leader = mask.trailing_zeros();
                [leader, u32::from(lane == leader)]
            } else {
                [7, 7]
            };
            assert_eq!(got[2 * t..2 * t + 2], want, "mask {mask:#x} thread {t}");
        }
        assert_eq!(counts.to_vec().unwrap(), vec![1; set.len()], "{set:x?}");
    }
}

fn clusters(ctx: &Context, m: &Module) {
    let k = m.kernel("cluster_regs").unwrap();
    let (gx, gy) = (3u32, 2u32);
    let blocks = (gx * gy) as usize;
    let src: Vec<u32> = (0..blocks as u32).map(|b| b * 7 + 5).collect();
    let dsrc = DeviceBuffer::from_slice(ctx, &src).unwrap();
    let out = DeviceBuffer::<u32>::zeroed(ctx, blocks * 16).unwrap();
    let cfg = LaunchConfig {
        grid: [gx, gy, 1],
        block: [4, 2, 1],
        shared_bytes: 0,
    };
    k.launch(&cfg, &[(&out).into(), (&dsrc).into()]).unwrap();
    let got = out.to_vec().unwrap();
    for b in 0..blocks {
        let (x, y) = (b as u32 % gx, b as u32 / gx);
        // %clusterid is the block's cluster in the grid; %nclusterid the grid in clusters;
        // %cluster_ctaid 0 and %cluster_nctaid 1 in each dimension; rank 0 of 1.
        let want = [x, y, gx, gy, 0, 0, 0, 1, 1, 1, 0, 1];
        assert_eq!(got[12 * b..12 * b + 12], want, "registers of block {b}");
        let at = 12 * blocks + 4 * b;
        // Not an explicit cluster; the word read back; rank 0; the hinted load.
        let want = [0, b as u32 + 1000, 0, src[b]];
        assert_eq!(
            got[at..at + 4],
            want,
            "shared memory and hints of block {b}"
        );
    }
}

fn real_file_forms(ctx: &Context, m: &Module) {
    let k = m.kernel("real_file_forms").unwrap();
    let (blocks, threads) = (3usize, 40usize);
    let n = blocks * threads;
    let cfg = LaunchConfig {
        grid: [blocks as u32, 1, 1],
        block: [threads as u32, 1, 1],
        shared_bytes: 0,
    };
    let table = [10u64, 20, 30, 40];
    for launch in 0..2 {
        let out = DeviceBuffer::<u32>::zeroed(ctx, n * 8).unwrap();
        k.launch(&cfg, &[(&out).into()]).unwrap();
        let got = out.to_vec().unwrap();
        let mut seen = Vec::new();
        for g in 0..n {
            let w = &got[8 * g..8 * g + 8];
            // swap({g, table}) = {table, g}; mov.b64 puts .x in the low half.
            let packed = table[g % 4] | (g as u64) << 32;
            assert_eq!(
                u64::from(w[0]) | u64::from(w[1]) << 32,
                packed,
                "thread {g}"
            );
            let shifted = packed << 8;
            assert_eq!(
                [w[2], w[3]],
                [shifted as u32, (shifted >> 32) as u32],
                "thread {g}"
            );
            seen.push(w[4]);
        }
        // One counter for every thread of the module, kept from one launch to the next.
        seen.sort_unstable();
        let from = (launch * n) as u32;
        assert_eq!(
            seen,
            (from..from + n as u32).collect::<Vec<_>>(),
            "launch {launch}"
        );
    }
}

#[test]
fn modern_cases() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = module(&ctx);
    elect(&ctx, &m);
    clusters(&ctx, &m);
    real_file_forms(&ctx, &m);
}

#[test]
fn modern_cases_at_every_subgroup_size() {
    common::at_every_subgroup_size("modern_cases");
}
