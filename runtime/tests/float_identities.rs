//! Float arithmetic that a driver's algebraic simplifications would get wrong for infinities,
//! NaNs and signed zeros (tests/ptx/float_identities.ptx), against the host's IEEE arithmetic.
//! numba's `isfinite` is `x - x` tested for NaN; its complex functions add and multiply by
//! constant zeros.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{DeviceBuffer, LaunchConfig};

/// Same value, or both NaN (the payload of a NaN result is not specified).
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

#[test]
fn infinities_nans_and_signed_zeros_survive() {
    let ctx = common::context();
    let text = common::read_test_ptx("float_identities.ptx");
    let m = ctx
        .load_ptx("float_identities.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("identities").unwrap();
    let xs32 = [
        0.0f32,
        -0.0,
        1.5,
        -2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let xs64 = [
        0.0f64,
        -0.0,
        1.5,
        -2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let n = xs32.len();
    let in32 = DeviceBuffer::from_slice(&ctx, &xs32).unwrap();
    let in64 = DeviceBuffer::from_slice(&ctx, &xs64).unwrap();
    let out32 = DeviceBuffer::<f32>::zeroed(&ctx, 5 * n).unwrap();
    let out64 = DeviceBuffer::<f64>::zeroed(&ctx, 2 * n).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [n as u32, 1, 1],
        shared_bytes: 0,
    };
    k.launch(
        &cfg,
        &[
            (&in32).into(),
            (&in64).into(),
            (&out32).into(),
            (&out64).into(),
            (n as u32).into(),
        ],
    )
    .unwrap();
    let got32 = out32.to_vec().unwrap();
    let got64 = out64.to_vec().unwrap();
    for i in 0..n {
        let (x, y) = (std::hint::black_box(xs32[i]), std::hint::black_box(xs64[i]));
        let want32 = [x - x, x * 1.0, x + 0.0, x * 0.0, 0.0 - x];
        for (j, (w, what)) in want32
            .iter()
            .zip(["x - x", "x * 1", "x + 0", "x * 0", "0 - x"])
            .enumerate()
        {
            let g = got32[5 * i + j];
            assert!(same32(g, *w), "f32 {what} for x = {x}: {g}, want {w}");
        }
        let want64 = [y - y, y * 0.0];
        for (j, (w, what)) in want64.iter().zip(["x - x", "x * 0"]).enumerate() {
            let g = got64[2 * i + j];
            assert!(same64(g, *w), "f64 {what} for x = {y}: {g}, want {w}");
        }
    }
}
