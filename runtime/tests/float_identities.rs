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

/// What `zeros` computes for `x` and `y` in one format, in the kernel's order (f32 ops for
/// f32, and so on; `fma` single-rounded).
fn zero_forms<T: Copy>(
    x: T,
    y: T,
    mul: impl Fn(T, T) -> T,
    add: impl Fn(T, T) -> T,
    sub: impl Fn(T, T) -> T,
    fma: impl Fn(T, T, T) -> T,
    (pz, nz): (T, T),
) -> [T; 14] {
    [
        mul(x, y),
        add(x, y),
        sub(x, y),
        fma(x, y, pz),
        fma(x, y, nz),
        mul(x, pz),
        mul(x, nz),
        mul(nz, x),
        add(x, nz),
        sub(x, pz),
        sub(x, nz),
        sub(nz, x),
        fma(x, nz, y),
        fma(pz, x, y),
    ]
}

const ZERO_FORMS: [&str; 14] = [
    "x * y",
    "x + y",
    "x - y",
    "fma(x, y, +0)",
    "fma(x, y, -0)",
    "x * +0",
    "x * -0",
    "-0 * x",
    "x + -0",
    "x - +0",
    "x - -0",
    "-0 - x",
    "fma(x, -0, y)",
    "fma(+0, x, y)",
];

/// Every sign combination of zero products, sums, differences and fmas (with infinities, NaN
/// and nonzero finite operands for company) in f32, f64 and f16, zeros both loaded and
/// constant, against the host's IEEE arithmetic. The differential fuzzer found Mesa taking
/// `x * -0.0` for `+0.0` (docs/decisions/0198-signed-zero-inf-nan-preserve.md).
#[test]
fn signed_zeros_through_every_form() {
    use half::f16;
    let ctx = common::context();
    let text = common::read_test_ptx("float_identities.ptx");
    let m = ctx
        .load_ptx("float_identities.ptx", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("zeros").unwrap();
    let xs64 = [
        0.0f64,
        -0.0,
        1.5,
        -2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let xs32: Vec<f32> = xs64.iter().map(|&v| v as f32).collect();
    let xs16: Vec<u16> = xs64.iter().map(|&v| f16::from_f64(v).to_bits()).collect();
    let n = xs64.len();
    let in32 = DeviceBuffer::from_slice(&ctx, &xs32).unwrap();
    let in64 = DeviceBuffer::from_slice(&ctx, &xs64).unwrap();
    let in16 = DeviceBuffer::from_slice(&ctx, &xs16).unwrap();
    let out32 = DeviceBuffer::<f32>::zeroed(&ctx, 14 * n * n).unwrap();
    let out64 = DeviceBuffer::<f64>::zeroed(&ctx, 14 * n * n).unwrap();
    let out16 = DeviceBuffer::<u16>::zeroed(&ctx, 14 * n * n).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [(n * n) as u32, 1, 1],
        shared_bytes: 0,
    };
    k.launch(
        &cfg,
        &[
            (&in32).into(),
            (&in64).into(),
            (&in16).into(),
            (&out32).into(),
            (&out64).into(),
            (&out16).into(),
            (n as u32).into(),
        ],
    )
    .unwrap();
    let (got32, got64, got16) = (
        out32.to_vec().unwrap(),
        out64.to_vec().unwrap(),
        out16.to_vec().unwrap(),
    );
    // f16 through f64: products, sums and fmas of these operands are exact in f64, so one
    // rounding to f16 is IEEE's f16 result.
    let h = |v: f64| f16::from_f64(v);
    let mut bad = Vec::new();
    for t in 0..n * n {
        let (i, j) = (t / n, t % n);
        let w32 = zero_forms(
            std::hint::black_box(xs32[i]),
            std::hint::black_box(xs32[j]),
            |a, b| a * b,
            |a, b| a + b,
            |a, b| a - b,
            f32::mul_add,
            (0.0, -0.0),
        );
        let w64 = zero_forms(
            std::hint::black_box(xs64[i]),
            std::hint::black_box(xs64[j]),
            |a, b| a * b,
            |a, b| a + b,
            |a, b| a - b,
            f64::mul_add,
            (0.0, -0.0),
        );
        let w16 = zero_forms(
            f16::from_bits(xs16[i]),
            f16::from_bits(xs16[j]),
            |a, b| h(a.to_f64() * b.to_f64()),
            |a, b| h(a.to_f64() + b.to_f64()),
            |a, b| h(a.to_f64() - b.to_f64()),
            |a, b, c| h(a.to_f64().mul_add(b.to_f64(), c.to_f64())),
            (f16::from_bits(0), f16::from_bits(0x8000)),
        );
        for (f, what) in ZERO_FORMS.iter().enumerate() {
            let at = 14 * t + f;
            let (x, y) = (xs64[i], xs64[j]);
            if !same32(got32[at], w32[f]) {
                bad.push(format!(
                    "f32 {what}, x = {x:?}, y = {y:?}: {:?}, want {:?}",
                    got32[at], w32[f]
                ));
            }
            if !same64(got64[at], w64[f]) {
                bad.push(format!(
                    "f64 {what}, x = {x:?}, y = {y:?}: {:?}, want {:?}",
                    got64[at], w64[f]
                ));
            }
            let g16 = f16::from_bits(got16[at]);
            if !(g16.to_bits() == w16[f].to_bits() || g16.is_nan() && w16[f].is_nan()) {
                bad.push(format!(
                    "f16 {what}, x = {x:?}, y = {y:?}: {g16:?}, want {:?}",
                    w16[f]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}
