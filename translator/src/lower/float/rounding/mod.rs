//! IEEE-rounded `add sub mul fma div rcp sqrt`: the driver's operation where Vulkan promises
//! the PTX result, otherwise an exact emulation, the cheapest the device allows (see
//! docs/decisions/0030-what-the-driver-is-trusted-with.md).
//!
//! The entries here (`arith`, `div`, `sqrt`) choose a route: rounding to odd through f64
//! (`through_f64`), the driver's result where a remainder test proves it (`proven`), or exact
//! integer arithmetic (`emulated`).

mod emulated;
mod proven;
mod sign;
mod through_f64;

use super::super::cx::Cx;
use super::super::helper::Helper;
use super::class::{as_float, is_inf, is_special, is_zero, native_ty, sign};
use super::softfloat::{self as sf, FloatFormat, Ops};
use crate::check::inst::FloatOp;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ExtOp, FpFlags, Ty, ValueId};

use emulated::{div_exact_call, emulated_call, sqrt_exact_call};
use proven::{div_f32_fast, div_f64_fast, fma_f64_rn, sqrt_f32_fast, sqrt_f64_fast, with_fallback};
use sign::negate;
use through_f64::{fma_via_f64, via_f64};

use BinOp::*;

/// `add sub mul fma` with rounding `mode`; `explicit` says a rounding modifier was written
/// (only then is the driver kept from contracting the operation).
pub(in crate::lower) fn arith(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: RoundMode,
    explicit: bool,
    fmt: FloatFormat,
    v: &[ValueId],
) -> ValueId {
    let flags = FpFlags { exact: explicit };
    if let (Some(ty), RoundMode::NearestEven) = (native_ty(fmt), mode) {
        let fused = if ty == Ty::F64 {
            cx.profile.fused_fma64
        } else {
            cx.profile.fused_fma32
        };
        let x: Vec<ValueId> = v.iter().map(|&b| as_float(cx, b, ty)).collect();
        let r = match op {
            FloatOp::Add => Some(cx.b.bin_flags(FAdd, x[0], x[1], flags)),
            FloatOp::Sub => Some(cx.b.bin_flags(FSub, x[0], x[1], flags)),
            FloatOp::Mul => Some(cx.b.bin_flags(FMul, x[0], x[1], flags)),
            _ if fused => Some(cx.b.ext(ExtOp::Fma, &x, FpFlags { exact: true })),
            _ if ty == Ty::F32 && cx.profile.float64 => {
                return fma_via_f64(cx, v, fmt, mode);
            }
            _ => None,
        };
        if let Some(r) = r {
            return cx.bits_of(r);
        }
    }
    if let (Some(ty), FloatOp::Add | FloatOp::Sub) = (native_ty(fmt), op) {
        let b = if op == FloatOp::Sub {
            negate(cx, v[1], fmt)
        } else {
            v[1]
        };
        return add_directed(cx, mode, ty, fmt, v[0], b);
    }
    // Formats narrower than f32 (and f32 fma) are exact through f64 with rounding to odd.
    if fmt != sf::F64 && cx.profile.float64 {
        return match op {
            FloatOp::Fma => fma_via_f64(cx, v, fmt, mode),
            _ => {
                let b = if op == FloatOp::Sub {
                    negate(cx, v[1], fmt)
                } else {
                    v[1]
                };
                via_f64(cx, op, mode, fmt, v[0], b)
            }
        };
    }
    if op == FloatOp::Fma && mode == RoundMode::NearestEven && fmt == sf::F64 {
        return fma_f64_rn(cx, v);
    }
    emulated_call(cx, op, mode, fmt, v)
}

/// `a + b` rounded toward zero, -inf or +inf in the format's own arithmetic: the rounded-to-
/// nearest sum and its exact error (TwoSum, exact for any finite inputs, subnormal results
/// included) say whether to step one unit toward the exact sum.
fn add_directed(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    ty: Ty,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let exact = FpFlags { exact: true };
    let x = as_float(cx, a, ty);
    let y = as_float(cx, b, ty);
    let s = cx.b.bin_flags(FAdd, x, y, exact);
    let bb = cx.b.bin_flags(FSub, s, x, exact);
    let s_bb = cx.b.bin_flags(FSub, s, bb, exact);
    let dx = cx.b.bin_flags(FSub, x, s_bb, exact);
    let dy = cx.b.bin_flags(FSub, y, bb, exact);
    let e = cx.b.bin_flags(FAdd, dx, dy, exact);
    let zero = cx.b.konst(ty, 0);
    let e_pos = cx.b.bin(FOrdGt, e, zero);
    let e_neg = cx.b.bin(FOrdLt, e, zero);
    let sb = cx.bits_of(s);
    let neg = sign(cx, sb, fmt);
    let one = cx.b.konst(fmt.int_ty(), 1);
    let bigger = cx.bop(IAdd, sb, one);
    let smaller = cx.bop(ISub, sb, one);
    // Toward zero is always `bits - 1`; up and down depend on the sign.
    let (step, stepped) = match mode {
        RoundMode::Zero => {
            let t = cx.sel(neg, e_pos, e_neg);
            (t, smaller)
        }
        RoundMode::Down => (e_neg, cx.sel(neg, bigger, smaller)),
        _ => (e_pos, cx.sel(neg, smaller, bigger)),
    };
    let mut r = cx.sel(step, stepped, sb);
    // Overflow of the nearest sum: the directed result may be the largest finite value.
    let s_inf = is_inf(cx, sb, fmt);
    let a_fin = is_special(cx, a, fmt);
    let b_fin = is_special(cx, b, fmt);
    let any_special = cx.bop(Or, a_fin, b_fin);
    let finite_in = cx.not(any_special);
    let ovf = cx.bop(And, s_inf, finite_in);
    let to_max = match mode {
        RoundMode::Zero => cx.cb(true),
        RoundMode::Down => cx.not(neg),
        _ => neg,
    };
    let clamp = cx.bop(And, ovf, to_max);
    r = cx.sel(clamp, smaller, r);
    if mode == RoundMode::Down {
        // An exact zero sum is -0 when rounding down, unless both operands are +0.
        let z = is_zero(cx, sb, fmt);
        let sa = sign(cx, a, fmt);
        let sbn = sign(cx, b, fmt);
        let either = cx.bop(Or, sa, sbn);
        let nz = sf::signed_zero(cx, either, fmt);
        r = cx.sel(z, nz, r);
    }
    r
}

/// `div.rnd` (and `rcp.rnd` as 1/a), correctly rounded. To nearest, the driver's quotient is
/// used when an exact remainder test proves it correct (always, on a correctly rounding driver).
pub(in crate::lower) fn div(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let fast = match (mode, fmt) {
        (RoundMode::NearestEven, f) if f == sf::F32 && cx.profile.float64 => {
            // The branch is rarely taken; its exact path needs no integer emulation.
            let (r, ok) = div_f32_fast(cx, a, b);
            return with_fallback(cx, ok, r, &[a, b], |cx, v| {
                let h = Helper {
                    what: "div",
                    mode,
                    fmt,
                };
                cx.out_of_line(h, v, |cx, v| super::div_f32::div_rn(cx, v[0], v[1]))
            });
        }
        (RoundMode::NearestEven, f) if f == sf::F64 => Some(div_f64_fast(cx, a, b)),
        _ => None,
    };
    match fast {
        Some((r, ok)) => with_fallback(cx, ok, r, &[a, b], |cx, v| {
            div_exact_call(cx, mode, fmt, v[0], v[1])
        }),
        None => div_exact_call(cx, mode, fmt, a, b),
    }
}

/// `sqrt.rnd`, correctly rounded; to nearest, the driver's root where a remainder test proves it.
pub(in crate::lower) fn sqrt(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
) -> ValueId {
    let fast = match (mode, fmt) {
        (RoundMode::NearestEven, f) if f == sf::F32 && cx.profile.float64 => {
            Some(sqrt_f32_fast(cx, a))
        }
        (RoundMode::NearestEven, f) if f == sf::F64 => Some(sqrt_f64_fast(cx, a)),
        _ => None,
    };
    match fast {
        Some((r, ok)) => with_fallback(cx, ok, r, &[a], |cx, v| {
            sqrt_exact_call(cx, mode, fmt, v[0])
        }),
        None => sqrt_exact_call(cx, mode, fmt, a),
    }
}
