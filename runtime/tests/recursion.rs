//! Recursive device functions (tests/ptx/recursion.ptx) against Rust models: SPIR-V has no
//! recursion, so ptxvk runs them on a per-thread stack (`translator/src/ir/recursion.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

fn fib(n: u32) -> u32 {
    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
}

fn sumloc(n: u32) -> u32 {
    if n == 0 { 0 } else { 11 * n + sumloc(n - 1) }
}

fn ev(x: u64, acc: f64) -> f64 {
    if x == 0 {
        acc
    } else {
        od(x - 1, acc * 0.5 + 1.0)
    }
}

fn od(x: u64, acc: f64) -> f64 {
    if x == 0 {
        return -acc;
    }
    let r = ev(x - 1, acc + x as f64);
    if x & 1 != 0 { r + 0.25 } else { r }
}

#[test]
fn recursive_functions() {
    let ctx = common::context();
    common::announce(&ctx);
    let text = common::read_test_ptx("recursion.ptx");
    let m = ctx
        .load_ptx("recursion.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("recursion").unwrap();
    for n in [1u32, 77, 300] {
        let out32 = DeviceBuffer::<u32>::zeroed(&ctx, 2 * n as usize).unwrap();
        let out64 = DeviceBuffer::<f64>::zeroed(&ctx, n as usize).unwrap();
        let cfg = LaunchConfig {
            grid: [n.div_ceil(64), 1, 1],
            block: [64, 1, 1],
            shared_bytes: 0,
        };
        k.launch(
            &cfg,
            &[(&out32).into(), (&out64).into(), n.into(), 0u32.into()],
        )
        .unwrap();
        let got32 = out32.to_vec().unwrap();
        let got64 = out64.to_vec().unwrap();
        for i in 0..n {
            let at = 2 * i as usize;
            assert_eq!(got32[at], fib(i % 20), "fib, thread {i}");
            assert_eq!(got32[at + 1], sumloc(i % 40), "sumloc, thread {i}");
            let want = ev(u64::from(i % 25), f64::from(i));
            assert_eq!(
                got64[i as usize].to_bits(),
                want.to_bits(),
                "ev, thread {i}"
            );
        }
    }
}

/// Recursion deeper than the per-thread stack ends the thread and fails the launch with the
/// reason; the context stays usable.
#[test]
fn stack_overflow_is_an_error() {
    let ctx = common::context();
    let text = common::read_test_ptx("recursion.ptx");
    let m = ctx
        .load_ptx("recursion.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("recursion").unwrap();
    let out32 = DeviceBuffer::<u32>::zeroed(&ctx, 64).unwrap();
    let out64 = DeviceBuffer::<f64>::zeroed(&ctx, 32).unwrap();
    let cfg = LaunchConfig::for_num_elems(32, 32);
    let err = k
        .launch(
            &cfg,
            &[
                (&out32).into(),
                (&out64).into(),
                32u32.into(),
                100_000u32.into(),
            ],
        )
        .expect_err("100,000 nested calls cannot fit");
    let text = err.to_string();
    assert!(text.contains("kernel `recursion` failed"), "{text}");
    assert!(text.contains("per-thread stack"), "{text}");
    // The same kernel still works afterwards.
    k.launch(
        &cfg,
        &[(&out32).into(), (&out64).into(), 32u32.into(), 3u32.into()],
    )
    .unwrap();
    let got = out32.to_vec().unwrap();
    assert_eq!(got[1], sumloc(3));
}

/// A recursive function that returns through a pointer into its caller's `.local` frame
/// (numba's shape): each activation needs a frame of its own, not a shared one swapped out.
#[test]
fn results_through_caller_frames() {
    let ctx = common::context();
    let text = common::read_test_ptx("recursion_byref.ptx");
    let m = ctx
        .load_ptx("recursion_byref.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("fib_byref").unwrap();
    let n = 100u32;
    let out = DeviceBuffer::<u64>::zeroed(&ctx, n as usize).unwrap();
    let cfg = LaunchConfig {
        grid: [n.div_ceil(64), 1, 1],
        block: [64, 1, 1],
        shared_bytes: 0,
    };
    k.launch(&cfg, &[(&out).into(), n.into()]).unwrap();
    let got = out.to_vec().unwrap();
    for i in 0..n {
        assert_eq!(got[i as usize], u64::from(fib(i % 20)), "thread {i}");
    }
}
