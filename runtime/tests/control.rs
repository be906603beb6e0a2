//! Control flow (tests/ptx/control.ptx) against Rust models of the same programs: loops left
//! through several levels at once, a loop with two entries, early `ret` and `exit` (also inside
//! a device function) in divergent code, barriers inside a loop, and warp shuffles and barriers
//! inside device functions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/control.ptx"
    ))
    .unwrap();
    ctx.load_ptx("control.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn cfg(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        shared_bytes: 0,
    }
}

/// Runs `kernel(out, n)` over n threads (blocks of 64) and returns out (`words` u32 per thread).
fn run_n(ctx: &Context, m: &Module, kernel: &str, n: u32, words: usize) -> Vec<u32> {
    let out = DeviceBuffer::<u32>::from_slice(ctx, &vec![0xDEAD_BEEF; n as usize * words]).unwrap();
    m.kernel(kernel)
        .unwrap()
        .launch(&cfg(n.div_ceil(64), 64), &[(&out).into(), n.into()])
        .unwrap();
    out.to_vec().unwrap()
}

fn nested_breaks_model(i: u32) -> u32 {
    let mut acc = 0u32;
    'a: for a in 0..8u32 {
        for b in 0..8u32 {
            for c in 0..8u32 {
                let t = (i.wrapping_mul(7) + a * 5 + b * 3 + c) % 23;
                if t == 0 {
                    continue 'a;
                }
                if t == 1 && a > 4 {
                    break 'a;
                }
                if t % 5 == 2 {
                    continue;
                }
                acc += t;
            }
        }
    }
    acc
}

fn irreducible_model(i: u32) -> [u32; 2] {
    let (mut x, mut steps) = (i, 0u32);
    let mut at_a = i & 1 == 0;
    loop {
        if at_a {
            x = x.wrapping_add(3);
            steps += 1;
            if x > 1000 {
                return [x, steps];
            }
        }
        x = (x << 1) ^ i;
        steps += 1;
        if steps >= 40 {
            return [x, steps];
        }
        at_a = x & 4 != 0;
    }
}

fn ret_and_exit_model(i: u32) -> u32 {
    if i % 3 == 0 {
        return i + 10;
    }
    for k in 0..i % 5 + 1 {
        if k == 2 && i % 3 == 1 {
            return 1;
        }
        if (i + k) % 7 == 3 {
            return 1;
        }
    }
    i + 100
}

#[test]
fn control_flow_cases() {
    let ctx = common::context();
    common::announce(&ctx);
    let m = module(&ctx);
    for n in [1u32, 100, 1000] {
        let got = run_n(&ctx, &m, "nested_breaks", n, 1);
        for i in 0..n {
            assert_eq!(
                got[i as usize],
                nested_breaks_model(i),
                "nested_breaks thread {i}"
            );
        }
        let got = run_n(&ctx, &m, "irreducible", n, 2);
        for i in 0..n {
            let w = &got[i as usize * 2..i as usize * 2 + 2];
            assert_eq!(w, irreducible_model(i), "irreducible thread {i}");
        }
        let got = run_n(&ctx, &m, "ret_and_exit", n, 1);
        for i in 0..n {
            assert_eq!(
                got[i as usize],
                ret_and_exit_model(i),
                "ret_and_exit thread {i}"
            );
        }
    }
    barrier_in_loop(&ctx, &m);
    sync_in_functions(&ctx, &m);
}

fn barrier_in_loop(ctx: &Context, m: &Module) {
    for (grid, block, rounds) in [(1u32, 32u32, 0u32), (2, 96, 5), (3, 256, 17)] {
        let out = DeviceBuffer::<u32>::zeroed(ctx, (grid * block) as usize).unwrap();
        m.kernel("barrier_in_loop")
            .unwrap()
            .launch(&cfg(grid, block), &[(&out).into(), rounds.into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        for b in 0..grid {
            let mut v: Vec<u32> = (0..block).map(|t| b * 1000 + t * 3 + 1).collect();
            for r in 0..rounds {
                v = (0..block)
                    .map(|t| v[((t + 1) % block) as usize] + r)
                    .collect();
            }
            let start = (b * block) as usize;
            assert_eq!(
                &got[start..start + block as usize],
                &v[..],
                "grid {grid} block {block} rounds {rounds}, block {b}"
            );
        }
    }
}

fn sync_in_functions(ctx: &Context, m: &Module) {
    for (grid, block) in [(1u32, 32u32), (3, 64), (2, 256)] {
        let n = (grid * block) as usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let din = DeviceBuffer::from_slice(ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(ctx, grid as usize).unwrap();
        let warps = DeviceBuffer::<u32>::zeroed(ctx, n).unwrap();
        m.kernel("sync_in_functions")
            .unwrap()
            .launch(
                &cfg(grid, block),
                &[(&din).into(), (&out).into(), (&warps).into()],
            )
            .unwrap();
        let sums: Vec<u32> = input
            .chunks(block as usize)
            .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(*x)))
            .collect();
        assert_eq!(
            out.to_vec().unwrap(),
            sums,
            "block sums, grid {grid} block {block}"
        );
        let got = warps.to_vec().unwrap();
        for (w, chunk) in input.chunks(32).enumerate() {
            let s = chunk.iter().fold(0u32, |a, x| a.wrapping_add(*x));
            assert!(
                got[w * 32..w * 32 + 32].iter().all(|g| *g == s),
                "warp {w} sums, grid {grid} block {block}"
            );
        }
    }
}

#[test]
fn control_at_every_subgroup_size() {
    common::at_every_subgroup_size("control_flow_cases");
}
