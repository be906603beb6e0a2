//! IEEE-rounded `add sub mul fma div rcp sqrt`: the driver's operation where Vulkan promises
//! the PTX result, otherwise an exact emulation, the cheapest the device allows (see
//! docs/decisions.md, "Floating point").

use super::Cx;
use super::exact;
use super::float::{as_float, is_inf, is_nan, is_special, is_zero, nan_result, native_ty, sign};
use super::half;
use super::softfloat::{self as sf, Fmt, Ops, Unpacked};
use crate::check::inst::{FloatOp, Rounding};
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, ValueId};

use BinOp::*;

/// `add sub mul fma` with rounding `mode`; `explicit` says a rounding modifier was written
/// (only then is the driver kept from contracting the operation).
pub(super) fn arith(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: Rounding,
    explicit: bool,
    fmt: Fmt,
    v: &[ValueId],
) -> ValueId {
    let flags = FpFlags { exact: explicit };
    if let (Some(ty), Rounding::Rn) = (native_ty(fmt), mode) {
        let fused = if ty == Ty::F64 {
            cx.profile.fused_fma64
        } else {
            cx.profile.fused_fma32
        };
        let x: Vec<ValueId> = v.iter().map(|&b| as_float(cx, b, ty)).collect();
        let r = match op {
            FloatOp::Add => Some(cx.bin_flags(FAdd, x[0], x[1], flags)),
            FloatOp::Sub => Some(cx.bin_flags(FSub, x[0], x[1], flags)),
            FloatOp::Mul => Some(cx.bin_flags(FMul, x[0], x[1], flags)),
            _ if fused => Some(cx.ext(ExtOp::Fma, x, FpFlags { exact: true })),
            _ if ty == Ty::F32 && cx.profile.float64 => {
                let r = fma_via_f64(cx, v, fmt, mode);
                return r;
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
    emulated(cx, op, mode, fmt, v)
}

/// `a + b` rounded toward zero, -inf or +inf in the format's own arithmetic: the rounded-to-
/// nearest sum and its exact error (TwoSum, exact for any finite inputs, subnormal results
/// included) say whether to step one unit toward the exact sum.
fn add_directed(
    cx: &mut Cx<'_>,
    mode: Rounding,
    ty: Ty,
    fmt: Fmt,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let exact = FpFlags { exact: true };
    let x = as_float(cx, a, ty);
    let y = as_float(cx, b, ty);
    let s = cx.bin_flags(FAdd, x, y, exact);
    let bb = cx.bin_flags(FSub, s, x, exact);
    let s_bb = cx.bin_flags(FSub, s, bb, exact);
    let dx = cx.bin_flags(FSub, x, s_bb, exact);
    let dy = cx.bin_flags(FSub, y, bb, exact);
    let e = cx.bin_flags(FAdd, dx, dy, exact);
    let zero = cx.konst(ty, 0);
    let e_pos = cx.bin(FOrdGt, e, zero);
    let e_neg = cx.bin(FOrdLt, e, zero);
    let sb = cx.bits_of(s);
    let neg = sign(cx, sb, fmt);
    let one = cx.konst(fmt.int_ty(), 1);
    let bigger = cx.bop(IAdd, sb, one);
    let smaller = cx.bop(ISub, sb, one);
    // Toward zero is always `bits - 1`; up and down depend on the sign.
    let (step, stepped) = match mode {
        Rounding::Rz => {
            let t = cx.sel(neg, e_pos, e_neg);
            (t, smaller)
        }
        Rounding::Rm => (e_neg, cx.sel(neg, bigger, smaller)),
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
        Rounding::Rz => cx.cb(true),
        Rounding::Rm => cx.not(neg),
        _ => neg,
    };
    let clamp = cx.bop(And, ovf, to_max);
    r = cx.sel(clamp, smaller, r);
    if mode == Rounding::Rm {
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

fn negate(cx: &mut Cx<'_>, x: ValueId, fmt: Fmt) -> ValueId {
    let s = cx.konst(fmt.int_ty(), fmt.sign_bit());
    cx.bop(Xor, x, s)
}

/// Widens bits of a format of at most 32 bits to an f64, exactly.
fn to_f64(cx: &mut Cx<'_>, x: ValueId, fmt: Fmt) -> ValueId {
    let f = half::to_f32(cx, x, fmt);
    cx.conv(ConvOp::FConvert, f, Ty::F64)
}

/// The sign of an exact zero sum `u + v` (IEEE 754 6.3): negative only if both are -0, except
/// when rounding toward -inf, where it is negative unless both are +0.
fn zero_sum_sign(cx: &mut Cx<'_>, mode: Rounding, su: ValueId, sv: ValueId) -> ValueId {
    if mode == Rounding::Rm {
        cx.bop(Or, su, sv)
    } else {
        cx.bop(And, su, sv)
    }
}

/// `a + b` / `a * b` of formats up to 32 bits through f64, where sums are rounded to odd and
/// products are exact, then rounded once to `fmt`.
fn via_f64(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: Rounding,
    fmt: Fmt,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let x = to_f64(cx, a, fmt);
    let y = to_f64(cx, b, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let (r, zs) = if op == FloatOp::Mul {
        let r = cx.bin_flags(FMul, x, y, FpFlags { exact: true });
        (r, cx.bop(Xor, sa, sb))
    } else {
        let r = sf::add_round_odd_f64(cx, x, y);
        (r, zero_sum_sign(cx, mode, sa, sb))
    };
    sf::round_from_f64(cx, r, mode, fmt, zs)
}

/// `fma` of formats up to 32 bits through f64: the product is exact, the sum rounded to odd.
fn fma_via_f64(cx: &mut Cx<'_>, v: &[ValueId], fmt: Fmt, mode: Rounding) -> ValueId {
    let a = to_f64(cx, v[0], fmt);
    let b = to_f64(cx, v[1], fmt);
    let c = to_f64(cx, v[2], fmt);
    let p = cx.bin_flags(FMul, a, b, FpFlags { exact: true });
    let s = sf::add_round_odd_f64(cx, p, c);
    let pb = cx.bits_of(p);
    let sp = cx.bit(pb, 63);
    let sc = sign(cx, v[2], fmt);
    let zs = zero_sum_sign(cx, mode, sp, sc);
    if fmt == sf::F32 && mode == Rounding::Rn {
        // Rounding to nearest of the rounded-to-odd sum is the correctly rounded result.
        let _ = zs;
        let r = cx.conv(ConvOp::FConvert, s, Ty::F32);
        return cx.bits_of(r);
    }
    sf::round_from_f64(cx, s, mode, fmt, zs)
}

/// The unpacked 1.0.
fn one_unpacked(cx: &mut Cx<'_>) -> Unpacked {
    Unpacked {
        sign: cx.cb(false),
        exp: cx.c32(0),
        sig: cx.c64(1u64 << 63),
    }
}

/// `add sub mul fma` in integer arithmetic (any format, any rounding).
fn emulated(cx: &mut Cx<'_>, op: FloatOp, mode: Rounding, fmt: Fmt, v: &[ValueId]) -> ValueId {
    // As a*b + c: add is a*1 + b, mul is a*b + 0.
    let (a, b, c) = match op {
        FloatOp::Add => (v[0], None, Some(v[1])),
        FloatOp::Sub => (v[0], None, Some(negate(cx, v[1], fmt))),
        FloatOp::Mul => (v[0], Some(v[1]), None),
        _ => (v[0], Some(v[1]), Some(v[2])),
    };
    let one_bits = cx.konst(fmt.int_ty(), fmt.one());
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
            let neg = cx.cb(mode == Rounding::Rm);
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
    let canonical = cx.konst(fmt.int_ty(), fmt.canonical_nan());
    let inf = cx.konst(fmt.int_ty(), fmt.inf());
    let sbit = cx.konst(fmt.int_ty(), fmt.sign_bit());
    let zero = cx.konst(fmt.int_ty(), 0);
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
pub(super) fn div(cx: &mut Cx<'_>, mode: Rounding, fmt: Fmt, a: ValueId, b: ValueId) -> ValueId {
    let ua = sf::unpack(cx, a, fmt);
    let ub = sf::unpack(cx, b, fmt);
    let q = exact::div_core(cx, &ua, &ub, mode, fmt);
    let a_nan = is_nan(cx, a, fmt);
    let b_nan = is_nan(cx, b, fmt);
    let a_inf = is_inf(cx, a, fmt);
    let b_inf = is_inf(cx, b, fmt);
    let a_zero = is_zero(cx, a, fmt);
    let b_zero = is_zero(cx, b, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let s = cx.bop(Xor, sa, sb);
    let sbit = cx.konst(fmt.int_ty(), fmt.sign_bit());
    let zero = cx.konst(fmt.int_ty(), 0);
    let sz = cx.sel(s, sbit, zero);
    let inf = cx.konst(fmt.int_ty(), fmt.inf());
    let sinf = cx.bop(Or, inf, sz);
    let both_inf = cx.bop(And, a_inf, b_inf);
    let both_zero = cx.bop(And, a_zero, b_zero);
    let invalid = cx.bop(Or, both_inf, both_zero);
    let to_inf = cx.bop(Or, a_inf, b_zero);
    let to_zero = cx.bop(Or, a_zero, b_inf);
    let any_nan = cx.bop(Or, a_nan, b_nan);
    let nan_in = nan_result(cx, fmt, &[a, b]);
    let canonical = cx.konst(fmt.int_ty(), fmt.canonical_nan());
    let mut r = q;
    r = cx.sel(to_zero, sz, r);
    r = cx.sel(to_inf, sinf, r);
    r = cx.sel(invalid, canonical, r);
    cx.sel(any_nan, nan_in, r)
}

/// `sqrt.rnd`, correctly rounded in integer arithmetic.
pub(super) fn sqrt(cx: &mut Cx<'_>, mode: Rounding, fmt: Fmt, a: ValueId) -> ValueId {
    let ua = sf::unpack(cx, a, fmt);
    let r = exact::sqrt_core(cx, &ua, mode, fmt);
    let nan = is_nan(cx, a, fmt);
    let zero = is_zero(cx, a, fmt);
    let inf = is_inf(cx, a, fmt);
    let neg = sign(cx, a, fmt);
    let nz = cx.not(zero);
    let invalid = cx.bop(And, neg, nz);
    let nan_in = nan_result(cx, fmt, &[a]);
    let canonical = cx.konst(fmt.int_ty(), fmt.canonical_nan());
    let keep = cx.bop(Or, zero, inf);
    let mut r = cx.sel(keep, a, r);
    r = cx.sel(invalid, canonical, r);
    cx.sel(nan, nan_in, r)
}
