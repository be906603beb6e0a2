//! Loops with barriers and warp operations whose trip counts are the same for every thread of a
//! block (from `%ntid`, `%ctaid` and kernel parameters): the SIMT emulation runs them natively
//! (translator/src/simt/uniform.rs). Expectations are plain Rust models of each kernel's PTX.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/uniform.ptx"
    ))
    .unwrap();
    ctx.load_ptx("uniform.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn launch(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

fn data(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 12)
        .collect()
}

#[test]
fn tree_sum_over_a_halving_stride() {
    let ctx = common::context();
    let k = module(&ctx).kernel("tree_sum").unwrap();
    for (grid, block, blocks) in [(3u32, 64u32, 3u32), (2, 128, 2), (1, 256, 1), (4, 32, 2)] {
        let input = data((grid * block) as usize, block);
        let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
        let out = DeviceBuffer::from_slice(&ctx, &vec![7u32; grid as usize]).unwrap();
        k.launch(
            &launch(grid, block),
            &[(&din).into(), (&out).into(), blocks.into()],
        )
        .unwrap();
        let want: Vec<u32> = input
            .chunks(block as usize)
            .enumerate()
            .map(|(b, c)| {
                if b as u32 >= blocks {
                    7
                } else {
                    c.iter().fold(0u32, |a, &x| a.wrapping_add(x))
                }
            })
            .collect();
        assert_eq!(
            out.to_vec().unwrap(),
            want,
            "grid {grid} block {block} blocks {blocks}"
        );
    }
}

#[test]
fn shuffles_in_a_loop_bounded_by_a_parameter() {
    let ctx = common::context();
    let k = module(&ctx).kernel("shfl_rounds").unwrap();
    for block in [64u32, 96] {
        for rounds in 0..=5u32 {
            let out = DeviceBuffer::<u32>::zeroed(&ctx, block as usize).unwrap();
            k.launch(&launch(1, block), &[(&out).into(), rounds.into()])
                .unwrap();
            // Each butterfly round adds the partner's value: after k rounds a thread holds the
            // sum over its aligned group of 2^k thread ids.
            let size = 1u32 << rounds;
            let want: Vec<u32> = (0..block)
                .map(|t| {
                    let first = t - t % size;
                    (first..first + size).sum()
                })
                .collect();
            assert_eq!(out.to_vec().unwrap(), want, "block {block} rounds {rounds}");
        }
    }
}

#[test]
fn tiles_through_shared_memory_with_a_uniform_early_exit() {
    let ctx = common::context();
    let k = module(&ctx).kernel("tiles").unwrap();
    for (grid, block, tiles) in [(4u32, 64u32, 3u32), (3, 128, 6), (2, 40, 0), (5, 32, 9)] {
        let input = data((grid * tiles * block) as usize, tiles);
        let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(&ctx, (grid * block) as usize).unwrap();
        k.launch(
            &launch(grid, block),
            &[(&din).into(), (&out).into(), tiles.into()],
        )
        .unwrap();
        let mut want = Vec::new();
        for b in 0..grid {
            // Tiles 0..=b+2, or all of them if there are fewer.
            let trips = tiles.min(b + 3);
            for t in 0..block {
                let mut acc = 0u32;
                for i in 0..trips {
                    let tile = &input[((b * tiles + i) * block) as usize..][..block as usize];
                    acc = acc.wrapping_add(tile[((t + i) % block) as usize]);
                }
                want.push(acc);
            }
        }
        assert_eq!(
            out.to_vec().unwrap(),
            want,
            "grid {grid} block {block} tiles {tiles}"
        );
    }
}

/// Every case above in one test, for `uniform_at_every_subgroup_size` to run at each width.
#[test]
fn uniform_cases() {
    common::announce(&common::context());
    tree_sum_over_a_halving_stride();
    shuffles_in_a_loop_bounded_by_a_parameter();
    tiles_through_shared_memory_with_a_uniform_early_exit();
}

#[test]
fn uniform_at_every_subgroup_size() {
    common::at_every_subgroup_size("uniform_cases");
}
