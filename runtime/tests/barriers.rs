//! Barrier forms (bar.red, named barriers with counts and bar.arrive), 64-bit atomics in shared
//! memory, and synchronization after early exits and inside loops whose trip count varies by
//! thread.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig, Module};

fn module(ctx: &Context) -> Module {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/ptx/barriers.ptx"
    ))
    .unwrap();
    ctx.load_ptx("barriers.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn block(n: u32) -> LaunchConfig {
    LaunchConfig {
        grid: [1, 1, 1],
        block: [n, 1, 1],
        shared_bytes: 0,
    }
}

#[test]
fn bar_red_popc_and_or() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("reds").unwrap();
    for (n, scale) in [(64usize, 7i32), (100, 3), (256, 11)] {
        let input: Vec<i32> = (0..n as i32)
            .map(|i| (i * scale) % 1000 - 50 + i % 2)
            .collect();
        let din = DeviceBuffer::from_slice(&ctx, &input).unwrap();
        let out = DeviceBuffer::<u32>::zeroed(&ctx, n * 3).unwrap();
        k.launch(&block(n as u32), &[(&din).into(), (&out).into()])
            .unwrap();
        let popc = input.iter().filter(|v| *v & 1 != 0).count() as u32;
        let all = u32::from(input.iter().all(|v| *v > 0));
        let any = u32::from(input.iter().any(|v| *v > 900));
        let got = out.to_vec().unwrap();
        for t in 0..n {
            assert_eq!(
                &got[t * 3..t * 3 + 3],
                &[popc, all, any],
                "n={n} thread {t}"
            );
        }
    }
}

#[test]
fn producer_consumer_named_barrier() {
    let ctx = common::context();
    let m = module(&ctx);
    let out = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    m.kernel("producer_consumer")
        .unwrap()
        .launch(&block(128), &[(&out).into()])
        .unwrap();
    let want: Vec<u32> = (0..64).map(|t| t * t + 11).collect();
    assert_eq!(out.to_vec().unwrap(), want);
}

#[test]
fn shared_64_bit_atomics() {
    let ctx = common::context();
    let m = module(&ctx);
    let n = 200u64;
    let out = DeviceBuffer::<u64>::zeroed(&ctx, 2).unwrap();
    m.kernel("shared64")
        .unwrap()
        .launch(&block(n as u32), &[(&out).into()])
        .unwrap();
    let vals: Vec<u64> = (0..n).map(|t| (t << 33) + t).collect();
    assert_eq!(
        out.to_vec().unwrap(),
        [vals.iter().sum::<u64>(), *vals.iter().max().unwrap()]
    );
}

#[test]
fn sync_after_early_exit_and_in_divergent_loops() {
    let ctx = common::context();
    let m = module(&ctx);
    let k = m.kernel("early_exit").unwrap();
    // n is a multiple of 8: a butterfly partner never left early (reading such a lane is undefined).
    for (threads, n) in [(128u32, 128u32), (128, 104), (96, 64), (96, 8)] {
        let out = DeviceBuffer::<u32>::zeroed(&ctx, threads as usize * 2).unwrap();
        k.launch(&block(threads), &[(&out).into(), n.into()])
            .unwrap();
        let got = out.to_vec().unwrap();
        // After k rounds of butterflies with distances 1, 2, 4, ... a thread holds the sum of the
        // thread ids in its aligned group of 2^k.
        let value = |t: u32| {
            let rounds = ((t % 32) / 8) % 3 + 1;
            let size = 1u32 << rounds;
            let first = t - t % size;
            (first..first + size).sum::<u32>()
        };
        for t in 0..threads {
            if t >= n {
                assert_eq!(
                    &got[t as usize * 2..t as usize * 2 + 2],
                    &[0, 0],
                    "thread {t} left early"
                );
                continue;
            }
            let other = if (t ^ 1) >= n { t } else { t ^ 1 };
            assert_eq!(
                got[t as usize * 2],
                value(t),
                "threads={threads} n={n} thread {t} sum"
            );
            assert_eq!(
                got[t as usize * 2 + 1],
                value(other),
                "threads={threads} n={n} thread {t} neighbour"
            );
        }
    }
}

/// Every case above in one test, for `barriers_at_every_subgroup_size` to run at each width.
#[test]
fn barrier_cases() {
    common::announce(&common::context());
    bar_red_popc_and_or();
    producer_consumer_named_barrier();
    shared_64_bit_atomics();
    sync_after_early_exit_and_in_divergent_loops();
}

#[test]
fn barriers_at_every_subgroup_size() {
    common::at_every_subgroup_size("barrier_cases");
}

/// A barrier, then a loop whose first statement leaves it (tests/ptx/barrier_then_loop.ptx):
/// lavapipe crashed creating the pipeline for it while the loop sat in a once-run wrapper loop.
/// By the ISA the loop is left before its counter moves when `start < 7`, and otherwise runs
/// its three iterations (its exit test then compares `max(start, 2^31 - 1) < 2`, false).
#[test]
fn barrier_then_loop_left_at_once() {
    let ctx = common::context();
    let text = common::read_test_ptx("barrier_then_loop.ptx");
    let m = ctx
        .load_ptx("barrier_then_loop.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = DeviceBuffer::<u32>::from_slice(&ctx, &[u32::MAX]).unwrap();
    for n in [1, 32, 64] {
        let k = m.kernel("left_at_once").unwrap();
        k.launch(&block(n), &[(&out).into()]).unwrap();
        assert_eq!(out.to_vec().unwrap(), [0], "left_at_once, {n} threads");
        let k = m.kernel("left_later").unwrap();
        for start in [0u32, 6, 7, 100, u32::MAX] {
            let want = if start < 7 { 0 } else { 3 };
            k.launch(&block(n), &[(&out).into(), start.into()]).unwrap();
            assert_eq!(
                out.to_vec().unwrap(),
                [want],
                "left_later, start {start}, {n} threads"
            );
        }
    }
}

/// `from_if` of tests/ptx/barrier_then_loop_nested.ptx, by the PTX's meaning: (sum, counter).
fn model_from_if(stop: u32) -> [u32; 2] {
    let (mut lc, mut acc) = (0u32, 0u32);
    loop {
        lc += 1;
        if lc % 2 == 0 {
            acc += 100 + 2;
        } else {
            acc += 10;
            if lc != 3 {
                if lc >= stop {
                    // To `$L_out`, past the join and the 1000.
                    return [acc, lc];
                }
                acc += 20 + 2;
            }
        }
        acc += 1;
        if lc >= 5 {
            return [acc + 1000, lc];
        }
    }
}

/// `from_inner_loop` of tests/ptx/barrier_then_loop_nested.ptx, by the PTX's meaning.
fn model_from_inner_loop(stop: u32) -> [u32; 2] {
    let (mut lc, mut acc) = (0u32, 0u32);
    loop {
        lc += 1;
        let mut j = 0;
        loop {
            j += 1;
            acc += 1;
            if acc >= stop {
                // Out of both loops, past the 1000.
                return [acc, lc];
            }
            if j >= lc {
                break;
            }
        }
        acc += 100;
        if lc >= 4 {
            return [acc + 1000, lc];
        }
    }
}

/// A barrier, then a loop left past the code after it from a construct nested in the loop:
/// from an `if` inside a block of its own in the loop, and from an inner loop
/// (tests/ptx/barrier_then_loop_nested.ptx). ptxvk writes the loop and the code after it as one
/// loop construct with no test of the branch variable after it (the shape lavapipe builds).
/// Each thread's stop value is `start + (tid & 3)` (wrapping, as `add.u32`), so threads leave
/// at different iterations, or never.
#[test]
fn barrier_then_loop_left_from_nested_constructs() {
    let ctx = common::context();
    let text = common::read_test_ptx("barrier_then_loop_nested.ptx");
    let m = ctx
        .load_ptx("barrier_then_loop_nested.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    type Model = fn(u32) -> [u32; 2];
    let kernels: [(&str, Model, &[u32]); 2] = [
        ("from_if", model_from_if, &[0, 1, 2, 3, 5, 6, 100, u32::MAX]),
        (
            "from_inner_loop",
            model_from_inner_loop,
            &[0, 1, 3, 4, 10, 104, 106, 1000, u32::MAX],
        ),
    ];
    for n in [1u32, 32, 64] {
        let out = DeviceBuffer::<u32>::from_slice(&ctx, &vec![u32::MAX; 2 * n as usize]).unwrap();
        for (name, model, starts) in kernels {
            let k = m.kernel(name).unwrap();
            for &start in starts {
                k.launch(&block(n), &[(&out).into(), start.into()]).unwrap();
                let want: Vec<u32> = (0..n)
                    .flat_map(|tid| model(start.wrapping_add(tid & 3)))
                    .collect();
                assert_eq!(
                    out.to_vec().unwrap(),
                    want,
                    "{name}, start {start}, {n} threads"
                );
            }
        }
    }
}
