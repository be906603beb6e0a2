//! ISA 8.7.3 and 9.7.4: the `.approx` (and `.full`) instructions. Reference: the f64 library
//! function (about 2^-52 relative error, far below every bound), with the special-value tables
//! exactly and finite results within the error the ISA states.

use ptxvk_translator::ScalarType::*;

use super::float::{BF16F, BF16X2, F16F, F16X2, F32F, F64F, case, float_rows};
use crate::elementwise::Elementwise;
use crate::ieee::{Fmt, Rnd};
use crate::values::Rng;
use crate::{Case, Expect};

const FAMILY: &str = "8.7.3 float";

/// A reference model of a unary approximation on the exact input value.
type Model = Box<dyn Fn(f64) -> Expect + Send + Sync>;

pub(crate) fn cases(v: &mut Vec<Case>) {
    approx(v);
}

/// A relative error bound around the f64 reference `want` (absolute below `floor`).
fn within(want: f64, rel: f64, floor: f64) -> Expect {
    if want.is_nan() {
        return Expect::AnyNan;
    }
    if want.is_infinite() {
        return Expect::Abs {
            value: want,
            tol: 0.0,
        };
    }
    Expect::Abs {
        value: want,
        tol: (want.abs() * rel).max(floor),
    }
}

/// `.approx` instructions (ISA 8.7.3.8, 13, 15-22 and 9.7.4.9-10): the special-value tables
/// exactly, finite results within the stated bound.
fn approx(v: &mut Vec<Case>) {
    let fmt = Fmt::F32;
    for ftz in [false, true] {
        let fl = move |b: u64| if ftz { fmt.flush(b) } else { b };
        let sfx = if ftz { ".ftz" } else { "" };
        let value = move |b: u64| fmt.value(fl(b));
        // Results are flushed under .ftz too: a bound on a tiny result includes zero.
        let floor = if ftz {
            f64::from(f32::MIN_POSITIVE)
        } else {
            0.0
        };
        let unary: Vec<(&str, Model)> = vec![
            // sin/cos: 2^-20.5 absolute in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi], no bound
            // beyond.
            ("sin", Box::new(|x: f64| trig(x, x.sin()))),
            ("cos", Box::new(|x: f64| trig(x, x.cos()))),
            // lg2: 2^-22 absolute in (0.5, 2), 2^-22 relative elsewhere.
            (
                "lg2",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        return Expect::Abs {
                            value: f64::NEG_INFINITY,
                            tol: 0.0,
                        };
                    }
                    let w = x.log2();
                    if x > 0.5 && x < 2.0 {
                        Expect::Abs {
                            value: w,
                            tol: 2f64.powf(-22.0),
                        }
                    } else {
                        within(w, 2f64.powf(-22.0), 0.0)
                    }
                }),
            ),
            // ex2: 2 ulp from the correctly rounded result.
            (
                "ex2",
                Box::new(move |x: f64| {
                    let w = x.exp2();
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    let rn = f64::from(w as f32);
                    if ftz && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 2 }
                }),
            ),
            // rcp.approx: 1 ulp over the full range.
            (
                "rcp",
                Box::new(move |x: f64| {
                    let w = 1.0 / x;
                    let rn = f64::from(w as f32);
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    if ftz && rn != 0.0 && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 1 }
                }),
            ),
            // sqrt.approx: 2^-23 relative; rsqrt.approx: 2^-22.9 relative.
            (
                "sqrt",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        return Expect::Bits(x.to_bits() >> 32 & 0x8000_0000);
                    }
                    within(x.sqrt(), 2f64.powf(-23.0), floor)
                }),
            ),
            (
                "rsqrt",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        let inf = if x.is_sign_negative() {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        };
                        return Expect::Abs {
                            value: inf,
                            tol: 0.0,
                        };
                    }
                    within(1.0 / x.sqrt(), 2f64.powf(-22.9), floor)
                }),
            ),
        ];
        for (name, model) in unary {
            let inst = format!("{name}.approx{sfx}.f32");
            v.push(case(
                FAMILY,
                format!("float/{inst}"),
                inst,
                F32F,
                1,
                approx_rows(name),
                90,
                (7, 8),
                move |x| match model(value(x[0])) {
                    Expect::Bits(b) => Expect::Bits(b),
                    e => flush_expect(e, ftz),
                },
            ));
        }
        // div.approx: 2 ulp for |b| in [2^-126, 2^126]; a signed zero (NaN for infinite a)
        // for 2^126 < |b| < 2^128. div.full: 2 ulp over the full range.
        for full in [false, true] {
            let inst = format!("div.{}{sfx}.f32", if full { "full" } else { "approx" });
            v.push(case(
                FAMILY,
                format!("float/{inst}"),
                inst,
                F32F,
                2,
                float_rows(F32F, 2, 1000),
                90,
                (7, 8),
                move |x| {
                    let (a, b) = (value(x[0]), value(x[1]));
                    let w = a / b;
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    let big = b.abs() > 2f64.powi(126) && b.is_finite();
                    if !full && big {
                        let neg = fmt.sign(fl(x[0])) ^ fmt.sign(fl(x[1]));
                        return if a.is_infinite() {
                            Expect::AnyNan
                        } else {
                            Expect::Bits(if neg { 0x8000_0000 } else { 0 })
                        };
                    }
                    if !full && b != 0.0 && b.abs() < 2f64.powi(-126) {
                        // Outside the range the bound is stated for.
                        return Expect::Any;
                    }
                    let rn = f64::from(w as f32);
                    if ftz && rn != 0.0 && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 2 }
                },
            ));
        }
    }
    // tanh.approx.f32: 2^-11 relative; subnormals pass through.
    v.push(case(
        FAMILY,
        "float/tanh.approx.f32".into(),
        "tanh.approx.f32".into(),
        F32F,
        1,
        approx_rows("tanh"),
        90,
        (7, 8),
        |x| within(Fmt::F32.value(x[0]).tanh(), 2f64.powf(-11.0), 0.0),
    ));
    // Half precision: ex2 (f16 2^-9.9, bf16 2^-7 relative; .bf16 only with .ftz) and tanh
    // (f16 2^-10.987, bf16 2^-8 absolute).
    for form in [F16F, F16X2, BF16F, BF16X2] {
        let fmt = form.fmt;
        let bf = fmt == Fmt::Bf16;
        let ex2 = format!("ex2.approx{}{}", if bf { ".ftz" } else { "" }, form.ty);
        v.push(case(
            FAMILY,
            format!("float/{ex2}"),
            ex2,
            form,
            1,
            float_rows(form, 1, 1100),
            90,
            (7, 8),
            move |x| {
                let a = if bf { fmt.flush(x[0]) } else { x[0] };
                let w = fmt.value(a).exp2();
                let rel = if bf { 2f64.powi(-7) } else { 2f64.powf(-9.9) };
                half_bound(fmt, w, w.abs() * rel, bf)
            },
        ));
        let tanh = format!("tanh.approx{}", form.ty);
        v.push(case(
            FAMILY,
            format!("float/{tanh}"),
            tanh,
            form,
            1,
            float_rows(form, 1, 1200),
            90,
            (7, 8),
            move |x| {
                let w = fmt.value(x[0]).tanh();
                let tol = if bf {
                    2f64.powi(-8)
                } else {
                    2f64.powf(-10.987)
                };
                half_bound(fmt, w, tol, false)
            },
        ));
    }
    // rsqrt.approx.f64: the ISA states no bound ("TBD"); ptxvk promises the .f32 bound.
    v.push(case(
        FAMILY,
        "float/rsqrt.approx.f64".into(),
        "rsqrt.approx.f64".into(),
        F64F,
        1,
        float_rows(F64F, 1, 1300),
        90,
        (7, 8),
        |x| {
            let a = f64::from_bits(x[0]);
            if a == 0.0 {
                return Expect::Abs {
                    value: 1.0 / a,
                    tol: 0.0,
                };
            }
            within(1.0 / a.sqrt(), 2f64.powf(-22.9), 0.0)
        },
    ));
    // rcp/rsqrt.approx.ftz.f64: from the upper 32 bits of a, the result's low 32 bits zero,
    // subnormals flushed, NaN to 0x7fffffff00000000 (ISA 8.7.3.14, 8.7.3.17).
    for (name, f) in [
        ("rcp", (|x: f64| 1.0 / x) as fn(f64) -> f64),
        ("rsqrt", |x: f64| 1.0 / x.sqrt()),
    ] {
        let inst = format!("{name}.approx.ftz.f64");
        let mut e = Elementwise::new(
            FAMILY,
            format!("float/{inst}"),
            format!("{inst} %d, %a;\nand.b64 %e, %d, 0xffffffff;"),
            &[F64],
            &[F64, B64],
            float_rows(F64F, 1, 1400),
            move |x| {
                let hi = Fmt::F64.flush(x[0] & 0xffff_ffff_0000_0000);
                let a = f64::from_bits(hi);
                let w = f(a);
                let low = Expect::Bits(0);
                if w.is_nan() {
                    return vec![Expect::Bits(0x7fff_ffff_0000_0000), low];
                }
                if w.is_infinite() || w == 0.0 {
                    return vec![Expect::Abs { value: w, tol: 0.0 }, low];
                }
                if w.abs() < f64::MIN_POSITIVE {
                    return vec![
                        Expect::Abs {
                            value: 0.0,
                            tol: f64::MIN_POSITIVE,
                        },
                        low,
                    ];
                }
                // 20 significant bits: within 2^-19 relative (ISA: "gross approximation").
                vec![within(w, 2f64.powi(-19), 0.0), low]
            },
        );
        e.sm = 90;
        v.push(e.case());
    }
}

/// Inputs for the approximations: the edges, the function's interesting range densely, and
/// random values.
fn approx_rows(name: &str) -> Vec<Vec<u64>> {
    let mut rows = float_rows(F32F, 1, 1500);
    let range = match name {
        "sin" | "cos" => 100.0 * std::f64::consts::PI,
        "ex2" => 130.0,
        "tanh" => 12.0,
        _ => 4.0,
    };
    let mut rng = Rng::new(77);
    for i in 0..2000 {
        let t = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let x = if i % 2 == 0 {
            t * range
        } else {
            t * 2.0 * std::f64::consts::PI
        };
        rows.push(vec![u64::from((x as f32).to_bits())]);
    }
    rows
}

/// sin/cos bounds by input range (ISA 8.7.3.18-19).
fn trig(x: f64, w: f64) -> Expect {
    if x.is_infinite() || x.is_nan() {
        return Expect::AnyNan;
    }
    let pi = std::f64::consts::PI;
    if x.abs() <= 2.0 * pi {
        Expect::Abs {
            value: w,
            tol: 2f64.powf(-20.5),
        }
    } else if x.abs() <= 100.0 * pi {
        Expect::Abs {
            value: w,
            tol: 2f64.powf(-14.7),
        }
    } else {
        Expect::Any
    }
}

/// Under `.ftz` a result that would be subnormal may come back as zero.
fn flush_expect(e: Expect, ftz: bool) -> Expect {
    match e {
        Expect::Abs { value, tol }
            if ftz && value != 0.0 && value.abs() < f64::from(f32::MIN_POSITIVE) =>
        {
            Expect::Abs {
                value,
                tol: tol.max(value.abs()),
            }
        }
        e => e,
    }
}

/// A bound for a half-precision result (lanes are compared as values): overflow to infinity
/// where the format overflows, and under `.ftz` a result below the normal range may be zero.
fn half_bound(fmt: Fmt, w: f64, tol: f64, ftz: bool) -> Expect {
    if w.is_nan() {
        return Expect::AnyNan;
    }
    let rn = fmt.value(fmt.round(w, Rnd::Rn));
    if rn.is_infinite() {
        return Expect::Abs {
            value: rn,
            tol: 0.0,
        };
    }
    let min_normal = match fmt {
        Fmt::F16 => 2f64.powi(-14),
        _ => 2f64.powi(-126),
    };
    let tol = if ftz && w.abs() < min_normal {
        tol.max(w.abs())
    } else {
        tol
    };
    // The bound cannot beat the format itself (subnormal results): allow the rounding error
    // of the correctly rounded result on top; below the normal range, rounding in either
    // direction (a whole subnormal step: an H200 rounds ex2.approx.f16's subnormal results
    // toward zero, e.g. 2^-15.21875 = 439.98 steps gives 439; docs/nvidia.md).
    let rounding = if w.abs() < min_normal {
        match fmt {
            Fmt::F16 => 2f64.powi(-24),
            Fmt::Bf16 => 2f64.powi(-133),
            _ => 2f64.powi(-149),
        }
    } else {
        (rn - w).abs()
    };
    Expect::Abs {
        value: w,
        tol: tol + rounding,
    }
}
