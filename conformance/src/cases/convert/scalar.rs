//! One `cvt` between scalar types: its modifier text, the values at the destination's
//! rounding and range boundaries, and the case.

use ptxvk_translator::ScalarType::{self, *};

use crate::Case;
use crate::cases::convert_model::{self as model, Format, Mode, Mods};
use crate::elementwise::Elementwise;
use crate::values::rows;

pub(super) const FAMILY: &str = "8.7.6 cvt";

/// The modifier text of a `cvt`, in the ISA's order.
pub(super) fn text(rnd: Option<&str>, m: &Mods) -> String {
    let mut s = String::from("cvt");
    if let Some(r) = rnd {
        s += ".";
        s += r;
    }
    for (on, name) in [
        (m.ftz, "ftz"),
        (m.sat, "sat"),
        (m.relu, "relu"),
        (m.satfinite, "satfinite"),
    ] {
        if on {
            s += ".";
            s += name;
        }
    }
    s
}

pub(super) fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

pub(super) fn mask(ty: ScalarType) -> u64 {
    if ty.bits() >= 64 {
        u64::MAX
    } else {
        (1 << ty.bits()) - 1
    }
}

/// `x` rounded to float type `ty` (nearest even) and its two neighbours, as bits.
fn float_near(x: f64, ty: ScalarType) -> Vec<u64> {
    let f = Format::of(ty);
    let b = match model::decode(x.to_bits(), model::DOUBLE) {
        model::Value::Num { neg, n, e } => model::round(neg, n, e, f, Mode::Even),
        _ => return Vec::new(),
    };
    let mag = b & !f.sign_bit();
    if mag >= f.inf() {
        return vec![b];
    }
    let mut v = vec![b, b + 1];
    if mag > 0 {
        v.push(b - 1);
    }
    v
}

/// Inputs at the boundaries that matter for converting `src` to `dst`: around the destination's
/// largest value, smallest normal and subnormal, 1, the end of its exact integers and the
/// halfway points between its neighbouring values there; around an integer destination's range
/// ends and at halves.
pub(super) fn boundaries(dst: ScalarType, src: ScalarType) -> Vec<u64> {
    let mut xs: Vec<f64> = Vec::new();
    if dst.is_float() {
        let f = Format::of(dst);
        let max = (2.0 - 2f64.powi(-(f.mant as i32))) * 2f64.powi(f.bias());
        let min_normal = 2f64.powi(1 - f.bias());
        let min_sub = 2f64.powi(1 - f.bias() - f.mant as i32);
        let exact_int = 2f64.powi(f.mant as i32 + 1);
        for (p, ulp) in [
            (max, 2f64.powi(f.bias() - f.mant as i32)),
            (min_normal, min_sub),
            (min_sub, min_sub),
            (1.0, 2f64.powi(-(f.mant as i32))),
            (exact_int, 2.0),
            (3.0 * exact_int, 4.0),
        ] {
            for q in [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5] {
                xs.push(p + q * ulp);
            }
        }
    } else {
        let b = dst.bits() as i32;
        let (lo, hi) = if dst.is_signed() {
            (-(2f64.powi(b - 1)), 2f64.powi(b - 1) - 1.0)
        } else {
            (0.0, 2f64.powi(b) - 1.0)
        };
        for p in [lo, hi, hi + 1.0, lo - 1.0] {
            for q in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                xs.push(p + q);
            }
        }
        for q in [0.5, 1.5, 2.5, 3.5, 0.25, 0.75, 1e-3, 1e-30] {
            xs.push(q);
            xs.push(-q);
        }
    }
    let mut out = Vec::new();
    if src.is_float() {
        for x in xs {
            out.extend(float_near(x, src));
            out.extend(float_near(-x, src));
        }
    } else {
        let (lo, hi) = if src.is_signed() {
            (
                -(1i128 << (src.bits() - 1)),
                (1i128 << (src.bits() - 1)) - 1,
            )
        } else {
            (0, (1i128 << src.bits()) - 1)
        };
        let mut ints: Vec<i128> = Vec::new();
        for x in xs {
            if x.is_finite() && x.abs() < 2f64.powi(100) {
                ints.push(x.floor() as i128);
                ints.push(x.ceil() as i128);
            }
        }
        // Just above the destination's exact integers: every rounding case.
        if dst.is_float() {
            let p = Format::of(dst).mant + 1;
            for shift in p..=src.bits() {
                let base = 1i128 << shift;
                for k in [-3i128, -2, -1, 0, 1, 2, 3] {
                    let step = 1i128 << (shift - p).min(126);
                    ints.push(base + k * step / 2);
                    ints.push(base + k * step / 2 + 1);
                    ints.push(-(base + k * step / 2));
                }
            }
        }
        for v in ints {
            if (lo..=hi).contains(&v) {
                out.push((v as u64) & mask(src));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The scalar type whose format `ty` has (for packed and tf32 destinations).
pub(super) fn dst_scalar(ty: ScalarType) -> ScalarType {
    match ty {
        F16x2 => F16,
        Bf16x2 => Bf16,
        Tf32 => F32,
        t => t,
    }
}

pub(super) fn input_rows(dst: ScalarType, src: ScalarType, name: &str) -> Vec<Vec<u64>> {
    let mut r = rows(&[src], 400, 300, seed(name));
    r.extend(boundaries(dst, src).into_iter().map(|v| vec![v]));
    r
}

pub(super) fn case(dst: ScalarType, src: ScalarType, rnd: Option<(&str, Mode)>, m: Mods) -> Case {
    let m = Mods {
        mode: rnd.map(|r| r.1),
        ..m
    };
    let op = format!("{}{dst}{src}", text(rnd.map(|r| r.0), &m));
    let name = format!("cvt/{op}");
    let rows = input_rows(dst, src, &name);
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!("{op} %d, %a;"),
        &[src],
        &[dst],
        rows,
        move |r| vec![model::cvt(dst, src, m, r[0])],
    );
    e.sm = 100;
    e.version = (8, 6);
    e.lowest_target = true;
    e.case()
}
