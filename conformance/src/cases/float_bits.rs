//! ISA 8.7.3 and 9.7.4: the floating-point instructions that only move bits or compare
//! (`abs neg copysign min max testp`), with reference models written from the ISA's semantics.

use ptxvk_translator::ScalarType::*;

use super::float::{
    BF16F, BF16X2, F16F, F16X2, F32F, F64F, case, exact, float_rows, suffix, target,
};
use crate::elementwise::Elementwise;
use crate::ieee::Fmt;
use crate::{Case, Expect};

const FAMILY: &str = "8.7.3 float";

pub(crate) fn cases(v: &mut Vec<Case>) {
    abs_neg_copysign(v);
    min_max(v);
    testp(v);
}

/// `abs`, `neg` (ISA 8.7.3.9-10, 9.7.4.5-6): the sign bit; NaNs may come back as any NaN.
fn abs_neg_copysign(v: &mut Vec<Case>) {
    for form in [F32F, F64F, F16F, F16X2, BF16F, BF16X2] {
        let ftzs: &[bool] = if matches!(form.fmt, Fmt::F32 | Fmt::F16) {
            &[false, true]
        } else {
            &[false]
        };
        for &ftz in ftzs {
            for (name, neg) in [("abs", false), ("neg", true)] {
                let fmt = form.fmt;
                let inst = format!("{name}{}{}", suffix(None, ftz, false), form.ty);
                let (sm, ver) = target(form);
                v.push(case(
                    FAMILY,
                    format!("float/{inst}"),
                    inst,
                    form,
                    1,
                    float_rows(form, 1, 500),
                    sm,
                    ver,
                    move |x| {
                        let a = if ftz { fmt.flush(x[0]) } else { x[0] };
                        let d = if neg {
                            a ^ fmt.sign_bit()
                        } else {
                            a & !fmt.sign_bit()
                        };
                        exact(fmt, d & fmt.mask())
                    },
                ));
            }
        }
    }
    for form in [F32F, F64F] {
        let fmt = form.fmt;
        let inst = format!("copysign{}", form.ty);
        // "Copy sign bit of a into value of b" (ISA 8.7.3.2): bit operations, NaNs included.
        v.push(case(
            FAMILY,
            format!("float/{inst}"),
            inst,
            form,
            2,
            float_rows(form, 2, 600),
            90,
            (7, 8),
            move |x| Expect::Bits((x[0] & fmt.sign_bit()) | (x[1] & !fmt.sign_bit() & fmt.mask())),
        ));
    }
}

/// The ISA's `min_num`/`min_nan` (9.7.3.11): -0 < +0; NaN operands ignored unless `.NaN`.
fn min_max_ref(fmt: Fmt, max: bool, nan_mode: bool, x: u64, y: u64) -> Option<u64> {
    let (xn, yn) = (fmt.is_nan(x), fmt.is_nan(y));
    if nan_mode && (xn || yn) || xn && yn {
        return None;
    }
    if xn {
        return Some(y);
    }
    if yn {
        return Some(x);
    }
    let (a, b) = (fmt.value(x), fmt.value(y));
    Some(if a == b {
        // Equal values differ only as zeros: -0 is the smaller.
        if fmt.sign(x) != max { x } else { y }
    } else if (a > b) == max {
        x
    } else {
        y
    })
}

fn min_max(v: &mut Vec<Case>) {
    for (name, max) in [("min", false), ("max", true)] {
        for form in [F32F, F64F, F16F, F16X2, BF16F, BF16X2] {
            let fmt = form.fmt;
            let ftzs: &[bool] = if matches!(fmt, Fmt::F32 | Fmt::F16) {
                &[false, true]
            } else {
                &[false]
            };
            let nans: &[bool] = if fmt == Fmt::F64 {
                &[false]
            } else {
                &[false, true]
            };
            let xors: &[bool] = if fmt == Fmt::F64 {
                &[false]
            } else {
                &[false, true]
            };
            for &ftz in ftzs {
                for &nan in nans {
                    for &xorsign in xors {
                        let mut inst = name.to_string();
                        if ftz {
                            inst.push_str(".ftz");
                        }
                        if nan {
                            inst.push_str(".NaN");
                        }
                        if xorsign {
                            inst.push_str(".xorsign.abs");
                        }
                        inst.push_str(&form.ty.to_string());
                        v.push(case(
                            FAMILY,
                            format!("float/{inst}"),
                            inst,
                            form,
                            2,
                            float_rows(form, 2, 700),
                            90,
                            (7, 8),
                            move |x| {
                                let f = |b: u64| if ftz { fmt.flush(b) } else { b };
                                let (mut a, mut b) = (f(x[0]), f(x[1]));
                                let sign = fmt.sign(a) ^ fmt.sign(b);
                                if xorsign {
                                    a &= !fmt.sign_bit();
                                    b &= !fmt.sign_bit();
                                }
                                match min_max_ref(fmt, max, nan, a, b) {
                                    None => Expect::AnyNan,
                                    Some(d) if xorsign => {
                                        let d = d & !fmt.sign_bit();
                                        Expect::Bits(if sign { d | fmt.sign_bit() } else { d })
                                    }
                                    Some(d) => Expect::Bits(d),
                                }
                            },
                        ));
                    }
                }
            }
        }
        // Three inputs (PTX 8.8, sm_100): .f32 with .ftz, .NaN, .abs.
        for ftz in [false, true] {
            for nan in [false, true] {
                for abs in [false, true] {
                    let fmt = Fmt::F32;
                    let mut inst = name.to_string();
                    if ftz {
                        inst.push_str(".ftz");
                    }
                    if nan {
                        inst.push_str(".NaN");
                    }
                    if abs {
                        inst.push_str(".abs");
                    }
                    inst.push_str(".f32");
                    v.push(case(
                        FAMILY,
                        format!("float/{inst}/3"),
                        inst,
                        F32F,
                        3,
                        float_rows(F32F, 3, 800),
                        100,
                        (8, 8),
                        move |x| {
                            let f = |b: u64| {
                                let b = if ftz { fmt.flush(b) } else { b };
                                if abs { b & !fmt.sign_bit() } else { b }
                            };
                            let d =
                                min_max_ref(fmt, max, nan, f(x[0]), f(x[1])).unwrap_or(0x7fff_ffff);
                            match min_max_ref(fmt, max, nan, d, f(x[2])) {
                                None => Expect::AnyNan,
                                Some(d) => Expect::Bits(d),
                            }
                        },
                    ));
                }
            }
        }
    }
}

/// A property of bits of a format.
type FmtTest = fn(Fmt, u64) -> bool;

/// `testp` (ISA 8.7.3.1); zeros are normal.
fn testp(v: &mut Vec<Case>) {
    let ops: [(&str, FmtTest); 6] = [
        ("finite", |f, b| !f.is_nan(b) && !f.is_inf(b)),
        ("infinite", |f, b| f.is_inf(b)),
        ("number", |f, b| !f.is_nan(b)),
        ("notanumber", |f, b| f.is_nan(b)),
        ("normal", |f, b| {
            !f.is_nan(b) && !f.is_inf(b) && !f.is_subnormal(b)
        }),
        ("subnormal", |f, b| f.is_subnormal(b)),
    ];
    for (op, test) in ops {
        for form in [F32F, F64F] {
            let fmt = form.fmt;
            let inst = format!("testp.{op}{}", form.ty);
            let mut e = Elementwise::new(
                FAMILY,
                format!("float/{inst}"),
                format!("{inst} %d, %a;"),
                &[form.reg()],
                &[Pred],
                float_rows(form, 1, 900),
                move |x| vec![Expect::Bits(u64::from(test(fmt, x[0])))],
            );
            e.sm = 90;
            v.push(e.case());
        }
    }
}
