//! The meaning of the floating-point instructions (ISA 8.7.3 and the half-precision forms).
//!
//! Values are handled as bits of their format. Here: the dispatch, the bit-level instructions
//! (`abs neg copysign testp min max`) and the modifiers (`.ftz .sat .relu`); IEEE-rounded
//! arithmetic is in `rounding/`, the approximations in `approx.rs`, the classification of bit
//! patterns in `class.rs`.

pub(super) mod approx;
#[cfg(test)]
mod approx_tests;
pub(super) mod class;
pub(super) mod div_f32;
pub(super) mod exact;
pub(super) mod format;
pub(super) mod half;
pub(super) mod rounding;
pub(super) mod softfloat;

use super::cx::Cx;
use crate::check::inst::{Float, FloatOp, Precision, TestOp};
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ValueId};
use crate::types::ScalarType;
use class::{flush, is_inf, is_nan, is_special, is_zero, magnitude, mask, sign};
use rounding::{arith, div, sqrt};
use softfloat::{FloatFormat, Ops};

use BinOp::*;

pub fn lower(cx: &mut Cx<'_>, f: &Float) {
    if f.is_packed() {
        let lanes = ScalarType::B32;
        let src: Vec<ValueId> = f.src.iter().map(|s| cx.read(s, lanes)).collect();
        let fmt = FloatFormat::of(f.ty);
        let (lo, hi): (Vec<_>, Vec<_>) = src.iter().map(|&v| half::split(cx, v)).unzip();
        let r0 = scalar(cx, f, fmt, &lo);
        let r1 = scalar(cx, f, fmt, &hi);
        let r = half::join(cx, r0, r1);
        cx.write(&f.dst, r);
        return;
    }
    let fmt = FloatFormat::of(f.ty);
    let bits_ty = ScalarType::bits_of(fmt.width()).unwrap_or(ScalarType::B32);
    let src: Vec<ValueId> = f.src.iter().map(|s| cx.read(s, bits_ty)).collect();
    if let FloatOp::Testp(t) = f.op {
        let p = testp(cx, t, fmt, src[0]);
        cx.write(&f.dst, p);
        return;
    }
    let r = scalar(cx, f, fmt, &src);
    cx.write(&f.dst, r);
}

/// One lane: the bits of the result from the bits of the sources.
fn scalar(cx: &mut Cx<'_>, f: &Float, fmt: FloatFormat, src: &[ValueId]) -> ValueId {
    let flush_in = f.ftz && fmt != FloatFormat::of(ScalarType::F64);
    let v: Vec<ValueId> = if flush_in {
        src.iter().map(|&x| flush(cx, x, fmt)).collect()
    } else {
        src.to_vec()
    };
    let r = match f.op {
        FloatOp::Abs => {
            let m = cx.b.konst(fmt.int_ty(), !fmt.sign_bit() & mask(fmt));
            cx.bop(And, v[0], m)
        }
        FloatOp::Neg => {
            let m = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
            cx.bop(Xor, v[0], m)
        }
        FloatOp::Copysign => {
            // The sign of a, the rest of b (ISA 8.7.3.2).
            let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
            let m = cx.b.konst(fmt.int_ty(), !fmt.sign_bit() & mask(fmt));
            let sa = cx.bop(And, v[0], s);
            let mb = cx.bop(And, v[1], m);
            cx.bop(Or, sa, mb)
        }
        FloatOp::Min | FloatOp::Max => min_max(cx, f, fmt, &v),
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul | FloatOp::Fma => match f.precision {
            Precision::Round(mode) => arith(cx, f.op, mode, true, fmt, &v),
            _ => arith(cx, f.op, RoundMode::NearestEven, false, fmt, &v),
        },
        FloatOp::Div | FloatOp::Rcp | FloatOp::Sqrt
            if matches!(f.precision, Precision::Round(_)) =>
        {
            let Precision::Round(mode) = f.precision else {
                unreachable!()
            };
            match f.op {
                FloatOp::Div => div(cx, mode, fmt, v[0], v[1]),
                FloatOp::Rcp => {
                    let one = cx.b.konst(fmt.int_ty(), fmt.one());
                    div(cx, mode, fmt, one, v[0])
                }
                _ => sqrt(cx, mode, fmt, v[0]),
            }
        }
        _ => approx::lower(cx, f, fmt, &v),
    };
    let mut r = r;
    if f.ftz && fmt != FloatFormat::of(ScalarType::F64) {
        r = flush(cx, r, fmt);
    }
    if f.sat {
        r = saturate(cx, r, fmt);
    }
    if f.relu {
        r = relu(cx, r, fmt);
    }
    r
}

/// `.sat`: clamp to [+0, 1]; NaN and negative values (-0 too) become +0.
fn saturate(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let nan = is_nan(cx, x, fmt);
    let neg = sign(cx, x, fmt);
    let zero_case = cx.bop(Or, nan, neg);
    let one = cx.b.konst(fmt.int_ty(), fmt.one());
    let big = cx.bop(UGt, x, one);
    let r = cx.sel(big, one, x);
    let z = cx.b.konst(fmt.int_ty(), 0);
    cx.sel(zero_case, z, r)
}

/// `.relu`: negative results become +0, NaN the canonical NaN.
fn relu(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let nan = is_nan(cx, x, fmt);
    let neg = sign(cx, x, fmt);
    let z = cx.b.konst(fmt.int_ty(), 0);
    let r = cx.sel(neg, z, x);
    let cn = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    cx.sel(nan, cn, r)
}

/// `testp` (ISA 8.7.3.1); zeros count as normal numbers.
fn testp(cx: &mut Cx<'_>, t: TestOp, fmt: FloatFormat, x: ValueId) -> ValueId {
    let nan = is_nan(cx, x, fmt);
    let inf = is_inf(cx, x, fmt);
    let special = is_special(cx, x, fmt);
    let e = cx.b.konst(fmt.int_ty(), fmt.exp_mask());
    let ex = cx.bop(And, x, e);
    let exp_zero = cx.is_zero(ex);
    let zero = is_zero(cx, x, fmt);
    match t {
        TestOp::Finite => cx.not(special),
        TestOp::Infinite => inf,
        TestOp::Number => cx.not(nan),
        TestOp::NotANumber => nan,
        TestOp::Normal => {
            let not_sub = cx.not(exp_zero);
            let n = cx.bop(Or, not_sub, zero);
            let fin = cx.not(special);
            cx.bop(And, n, fin)
        }
        TestOp::Subnormal => {
            let nz = cx.not(zero);
            cx.bop(And, exp_zero, nz)
        }
    }
}

/// `min`/`max` (ISA 8.7.3.11-12 and the half forms): NaN operands are ignored unless `.NaN`,
/// -0 < +0, `.xorsign.abs` compares magnitudes and gives the result the XOR of the signs.
fn min_max(cx: &mut Cx<'_>, f: &Float, fmt: FloatFormat, v: &[ValueId]) -> ValueId {
    let max = f.op == FloatOp::Max;
    let xsign = if f.xorsign {
        let a = sign(cx, v[0], fmt);
        let b = sign(cx, v[1], fmt);
        Some(cx.bop(Xor, a, b))
    } else {
        None
    };
    let v: Vec<ValueId> = if f.abs {
        v.iter().map(|&x| magnitude(cx, x, fmt)).collect()
    } else {
        v.to_vec()
    };
    let mut r = two_min_max(cx, fmt, max, f.nan, v[0], v[1]);
    if let Some(&c) = v.get(2) {
        r = two_min_max(cx, fmt, max, f.nan, r, c);
    }
    if let Some(xs) = xsign {
        let nan = is_nan(cx, r, fmt);
        let mag = magnitude(cx, r, fmt);
        let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
        let signed = cx.bop(Or, mag, s);
        let with_sign = cx.sel(xs, signed, mag);
        r = cx.sel(nan, r, with_sign);
    }
    r
}

/// `min`/`max` of two values of the float type `ty`, as integer bits (for the reductions).
pub(super) fn min_max_bits(
    cx: &mut Cx<'_>,
    ty: ScalarType,
    max: bool,
    x: ValueId,
    y: ValueId,
) -> ValueId {
    two_min_max(cx, FloatFormat::of(ty), max, false, x, y)
}

fn two_min_max(
    cx: &mut Cx<'_>,
    fmt: FloatFormat,
    max: bool,
    nan_mode: bool,
    x: ValueId,
    y: ValueId,
) -> ValueId {
    // Order the bits as numbers, -0 below +0: negative values map to their complement.
    let xk = order_key(cx, x, fmt);
    let yk = order_key(cx, y, fmt);
    let x_first = cx.bop(if max { UGt } else { ULt }, xk, yk);
    let picked = cx.sel(x_first, x, y);
    let xn = is_nan(cx, x, fmt);
    let yn = is_nan(cx, y, fmt);
    let canonical = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    if nan_mode {
        let any = cx.bop(Or, xn, yn);
        return cx.sel(any, canonical, picked);
    }
    let r = cx.sel(xn, y, picked);
    let r = cx.sel(yn, x, r);
    let both = cx.bop(And, xn, yn);
    cx.sel(both, canonical, r)
}

/// An unsigned key that orders non-NaN floats numerically (with -0 < +0).
fn order_key(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let neg = sign(cx, x, fmt);
    let all = cx.b.konst(fmt.int_ty(), mask(fmt));
    let inv = cx.bop(Xor, x, all);
    let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    let pos = cx.bop(Or, x, s);
    cx.sel(neg, inv, pos)
}
