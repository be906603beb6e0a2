//! The exact integer emulation of `add sub mul fma div sqrt`: the route of last resort, for any
//! format and rounding, kept out of line in helper functions because it is large.

use super::sign::{negate, zero_sum_sign};
use crate::check::inst::FloatOp;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ValueId};
use crate::lower::cx::Cx;
use crate::lower::float::class::{div_special_cases, is_inf, is_nan, is_zero, nan_result, sign};
use crate::lower::float::exact;
use crate::lower::float::softfloat::{self as sf, FloatFormat, Ops, Unpacked};
use crate::lower::helper::Helper;

use BinOp::*;

/// The unpacked 1.0.
fn one_unpacked(cx: &mut Cx<'_>) -> Unpacked {
    Unpacked {
        sign: cx.cb(false),
        exp: cx.c32(0),
        sig: cx.c64(1u64 << 63),
    }
}

/// [`emulated`] in a helper function (see `helper.rs`).
pub(super) fn emulated_call(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: RoundMode,
    fmt: FloatFormat,
    v: &[ValueId],
) -> ValueId {
    let (what, n) = match op {
        FloatOp::Add => ("add.int", 2),
        FloatOp::Sub => ("sub.int", 2),
        FloatOp::Mul => ("mul.int", 2),
        _ => ("fma.int", 3),
    };
    let h = Helper { what, mode, fmt };
    cx.out_of_line(h, &v[..n], |cx, v| emulated(cx, op, mode, fmt, v))
}

/// [`div_exact`] in a helper function.
pub(super) fn div_exact_call(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let h = Helper {
        what: "div.int",
        mode,
        fmt,
    };
    cx.out_of_line(h, &[a, b], |cx, v| div_exact(cx, mode, fmt, v[0], v[1]))
}

/// [`sqrt_exact`] in a helper function.
pub(super) fn sqrt_exact_call(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
) -> ValueId {
    let h = Helper {
        what: "sqrt.int",
        mode,
        fmt,
    };
    cx.out_of_line(h, &[a], |cx, v| sqrt_exact(cx, mode, fmt, v[0]))
}

/// `add sub mul fma` in integer arithmetic (any format, any rounding).
fn emulated(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: RoundMode,
    fmt: FloatFormat,
    v: &[ValueId],
) -> ValueId {
    // As a*b + c: add is a*1 + b, mul is a*b + 0.
    let (a, b, c) = match op {
        FloatOp::Add => (v[0], None, Some(v[1])),
        FloatOp::Sub => (v[0], None, Some(negate(cx, v[1], fmt))),
        FloatOp::Mul => (v[0], Some(v[1]), None),
        _ => (v[0], Some(v[1]), Some(v[2])),
    };
    let one_bits = cx.b.konst(fmt.int_ty(), fmt.one());
    let b_bits = b.unwrap_or(one_bits);
    let ua = sf::unpack(cx, a, fmt);
    let ub = match b {
        Some(b) => sf::unpack(cx, b, fmt),
        None => one_unpacked(cx),
    };
    let (core, c_bits) = match c {
        Some(c) => {
            let uc = sf::unpack(cx, c, fmt);
            let cz = is_zero(cx, c, fmt);
            let (bits, exact_zero) = exact::fma_core(cx, &ua, &ub, &uc, cz, mode, fmt);
            let neg = cx.cb(mode == RoundMode::Down);
            let z = sf::signed_zero(cx, neg, fmt);
            (cx.sel(exact_zero, z, bits), c)
        }
        None => {
            // A product alone: a zero result has the product's sign, as if `+ 0` of that sign.
            let sa = sign(cx, a, fmt);
            let sb = sign(cx, b_bits, fmt);
            let sp = cx.bop(Xor, sa, sb);
            let zero = sf::signed_zero(cx, sp, fmt);
            (exact::mul_core(cx, &ua, &ub, mode, fmt), zero)
        }
    };
    // Special operands, decided on the bits.
    let a_nan = is_nan(cx, a, fmt);
    let b_nan = is_nan(cx, b_bits, fmt);
    let c_nan = is_nan(cx, c_bits, fmt);
    let a_inf = is_inf(cx, a, fmt);
    let b_inf = is_inf(cx, b_bits, fmt);
    let c_inf = is_inf(cx, c_bits, fmt);
    let a_zero = is_zero(cx, a, fmt);
    let b_zero = is_zero(cx, b_bits, fmt);
    let c_zero = is_zero(cx, c_bits, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b_bits, fmt);
    let sc = sign(cx, c_bits, fmt);
    let sp = cx.bop(Xor, sa, sb);
    let p_inf = cx.bop(Or, a_inf, b_inf);
    let p_zero = cx.bop(Or, a_zero, b_zero);
    let t1 = cx.bop(And, a_inf, b_zero);
    let t2 = cx.bop(And, b_inf, a_zero);
    let inf_times_zero = cx.bop(Or, t1, t2);
    let opp = cx.bop(Xor, sp, sc);
    let t3 = cx.bop(And, p_inf, c_inf);
    let inf_minus_inf = cx.bop(And, t3, opp);
    let any_nan = cx.bop(Or, a_nan, b_nan);
    let any_nan = cx.bop(Or, any_nan, c_nan);
    let invalid = cx.bop(Or, inf_times_zero, inf_minus_inf);
    let nan_in = nan_result(cx, fmt, &[a, b_bits, c_bits]);
    let canonical = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    let inf = cx.b.konst(fmt.int_ty(), fmt.inf());
    let sbit = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    let zero = cx.b.konst(fmt.int_ty(), 0);
    let ps = cx.sel(sp, sbit, zero);
    let p_inf_bits = cx.bop(Or, inf, ps);
    let zs = zero_sum_sign(cx, mode, sp, sc);
    let zero_zero = sf::signed_zero(cx, zs, fmt);
    // A zero product: c, or a signed zero if c is zero too.
    let zero_product = cx.sel(c_zero, zero_zero, c_bits);
    let mut r = core;
    r = cx.sel(p_zero, zero_product, r);
    r = cx.sel(c_inf, c_bits, r);
    r = cx.sel(p_inf, p_inf_bits, r);
    r = cx.sel(invalid, canonical, r);
    cx.sel(any_nan, nan_in, r)
}

/// `div.rnd` (and `rcp.rnd` as 1/a), correctly rounded in integer arithmetic.
fn div_exact(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let ua = sf::unpack(cx, a, fmt);
    let ub = sf::unpack(cx, b, fmt);
    let q = exact::div_core(cx, &ua, &ub, mode, fmt);
    div_special_cases(cx, fmt, a, b, q)
}

/// `sqrt.rnd`, correctly rounded in integer arithmetic.
fn sqrt_exact(cx: &mut Cx<'_>, mode: RoundMode, fmt: FloatFormat, a: ValueId) -> ValueId {
    let ua = sf::unpack(cx, a, fmt);
    let r = exact::sqrt_core(cx, &ua, mode, fmt);
    let nan = is_nan(cx, a, fmt);
    let zero = is_zero(cx, a, fmt);
    let inf = is_inf(cx, a, fmt);
    let neg = sign(cx, a, fmt);
    let nz = cx.not(zero);
    let invalid = cx.bop(And, neg, nz);
    let nan_in = nan_result(cx, fmt, &[a]);
    let canonical = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    let keep = cx.bop(Or, zero, inf);
    let mut r = cx.sel(keep, a, r);
    r = cx.sel(invalid, canonical, r);
    cx.sel(nan, nan_in, r)
}
