//! IEEE-rounded `add sub mul fma div rcp sqrt`: the driver's operation where Vulkan promises
//! the PTX result, otherwise an exact emulation, the cheapest the device allows (see
//! docs/decisions/0030-what-the-driver-is-trusted-with.md).

use super::super::cx::Cx;
use super::super::helper::Helper;
use super::class::{
    as_float, div_special_cases, is_inf, is_nan, is_special, is_zero, magnitude, nan_result,
    native_ty, sign,
};
use super::exact;
use super::half;
use super::softfloat::{self as sf, FloatFormat, Ops, Unpacked, pow2_field};
use crate::check::inst::FloatOp;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Op, Ty, UnOp, ValueId, VarId};

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

fn negate(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    cx.bop(Xor, x, s)
}

/// Widens bits of a format of at most 32 bits to an f64, exactly.
fn to_f64(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let f = half::to_f32(cx, x, fmt);
    cx.b.conv(ConvOp::FConvert, f, Ty::F64)
}

/// The sign of an exact zero sum `u + v` (IEEE 754 6.3): negative only if both are -0, except
/// when rounding toward -inf, where it is negative unless both are +0.
fn zero_sum_sign(cx: &mut Cx<'_>, mode: RoundMode, su: ValueId, sv: ValueId) -> ValueId {
    if mode == RoundMode::Down {
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
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let x = to_f64(cx, a, fmt);
    let y = to_f64(cx, b, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let (r, zs) = if op == FloatOp::Mul {
        let r = cx.b.bin_flags(FMul, x, y, FpFlags { exact: true });
        (r, cx.bop(Xor, sa, sb))
    } else {
        let r = sf::add_round_odd_f64(cx, x, y);
        (r, zero_sum_sign(cx, mode, sa, sb))
    };
    sf::round_from_f64(cx, r, mode, fmt, zs)
}

/// `fma` of formats up to 32 bits through f64: the product is exact, the sum rounded to odd
/// (in a helper function: see `helper.rs`).
fn fma_via_f64(cx: &mut Cx<'_>, v: &[ValueId], fmt: FloatFormat, mode: RoundMode) -> ValueId {
    let h = Helper {
        what: "fma",
        mode,
        fmt,
    };
    cx.out_of_line(h, &v[..3], |cx, v| fma_via_f64_body(cx, v, fmt, mode))
}

fn fma_via_f64_body(cx: &mut Cx<'_>, v: &[ValueId], fmt: FloatFormat, mode: RoundMode) -> ValueId {
    let a = to_f64(cx, v[0], fmt);
    let b = to_f64(cx, v[1], fmt);
    let c = to_f64(cx, v[2], fmt);
    let p = cx.b.bin_flags(FMul, a, b, FpFlags { exact: true });
    let s = sf::add_round_odd_f64(cx, p, c);
    let pb = cx.bits_of(p);
    let sp = cx.bit(pb, 63);
    let sc = sign(cx, v[2], fmt);
    let zs = zero_sum_sign(cx, mode, sp, sc);
    if fmt == sf::F32 && mode == RoundMode::NearestEven {
        // Rounding to nearest of the rounded-to-odd sum is the correctly rounded result, but
        // for the sign of an exactly zero sum: lavapipe takes `p + c` for `p` once inlining
        // makes `c` the constant +0.0, float controls or not
        // (docs/decisions/0198-signed-zero-inf-nan-preserve.md).
        let r = cx.b.conv(ConvOp::FConvert, s, Ty::F32);
        let rb = cx.bits_of(r);
        let sb = cx.bits_of(s);
        let exact_zero = is_zero(cx, sb, sf::F64);
        let z = sf::signed_zero(cx, zs, fmt);
        return cx.sel(exact_zero, z, rb);
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

/// [`emulated`] in a helper function (see `helper.rs`).
fn emulated_call(
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
fn div_exact_call(
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
fn sqrt_exact_call(cx: &mut Cx<'_>, mode: RoundMode, fmt: FloatFormat, a: ValueId) -> ValueId {
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

/// Uses `fast` where `ok` holds and computes `slow(inputs)` in a branch of its own otherwise, so
/// that the exact emulation costs time only where the quick path cannot prove its result. IR
/// values live in one block, so the inputs cross into the branch through variables.
fn with_fallback(
    cx: &mut Cx<'_>,
    ok: ValueId,
    fast: ValueId,
    inputs: &[ValueId],
    slow: impl FnOnce(&mut Cx<'_>, &[ValueId]) -> ValueId,
) -> ValueId {
    let ty = cx.b.f.ty(fast);
    let result = cx.b.f.new_var(ty, "rounded");
    cx.b.emit_void(Op::StoreVar(result, fast));
    let vars: Vec<VarId> = inputs
        .iter()
        .map(|&v| {
            let t = cx.b.f.ty(v);
            let var = cx.b.f.new_var(t, "operand");
            cx.b.emit_void(Op::StoreVar(var, v));
            var
        })
        .collect();
    let not_ok = cx.b.un(UnOp::Not, ok);
    cx.if_then(not_ok, |cx| {
        let vals: Vec<ValueId> = vars
            .iter()
            .map(|&var| {
                let t = cx.b.f.vars[var.0 as usize].ty;
                cx.b.emit(t, Op::LoadVar(var))
            })
            .collect();
        let r = slow(cx, &vals);
        cx.b.emit_void(Op::StoreVar(result, r));
    });
    cx.b.emit(ty, Op::LoadVar(result))
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

/// f32 bits of a positive f32 value's neighbours, as f64: (below, above).
fn neighbours_f32(cx: &mut Cx<'_>, cb: ValueId) -> (ValueId, ValueId) {
    let one = cx.c32(1);
    let dn = cx.bop(ISub, cb, one);
    let up = cx.bop(IAdd, cb, one);
    let dn = cx.float_of(dn, Ty::F32);
    let up = cx.float_of(up, Ty::F32);
    (
        cx.b.conv(ConvOp::FConvert, dn, Ty::F64),
        cx.b.conv(ConvOp::FConvert, up, Ty::F64),
    )
}

/// The midpoints between the f32 `c` (as f64) and its neighbours, exact in f64.
fn midpoints(cx: &mut Cx<'_>, c: ValueId, dn: ValueId, up: ValueId) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let half = cx.b.konst(Ty::F64, 0.5f64.to_bits());
    let lo = cx.b.bin_flags(FAdd, c, dn, x);
    let lo = cx.b.bin_flags(FMul, lo, half, x);
    let hi = cx.b.bin_flags(FAdd, c, up, x);
    let hi = cx.b.bin_flags(FMul, hi, half, x);
    (lo, hi)
}

/// Whether the f32 bits `cb` (positive) are a normal number below the largest finite one, so
/// that both neighbours are finite.
fn normal_f32(cx: &mut Cx<'_>, cb: ValueId) -> ValueId {
    let lo = cx.c32(sf::F32.min_normal() as u32);
    let hi = cx.c32(sf::F32.max_finite() as u32);
    let a = cx.bop(UGe, cb, lo);
    let b = cx.bop(ULt, cb, hi);
    cx.bop(And, a, b)
}

/// f32 division to nearest through f64: c = RN(|a| / |b|) is right iff the exact quotient lies
/// strictly between the midpoints around c, which the exact remainders `|a| - m|b|` decide (m
/// has 25 bits and |b| 24, so m|b| is exact in f64, and the subtraction is exact by Sterbenz).
fn div_f32_fast(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let fmt = sf::F32;
    let ma = magnitude(cx, a, fmt);
    let mb = magnitude(cx, b, fmt);
    let af = cx.float_of(ma, Ty::F32);
    let bf = cx.float_of(mb, Ty::F32);
    let ad = cx.b.conv(ConvOp::FConvert, af, Ty::F64);
    let bd = cx.b.conv(ConvOp::FConvert, bf, Ty::F64);
    let q = cx.b.bin_flags(FDiv, ad, bd, x);
    let c = cx.b.conv(ConvOp::FConvert, q, Ty::F32);
    let cb = cx.bits_of(c);
    let cd = cx.b.conv(ConvOp::FConvert, c, Ty::F64);
    let (dn, up) = neighbours_f32(cx, cb);
    let (m_lo, m_hi) = midpoints(cx, cd, dn, up);
    let p_lo = cx.b.bin_flags(FMul, m_lo, bd, x);
    let r_lo = cx.b.bin_flags(FSub, ad, p_lo, x);
    let p_hi = cx.b.bin_flags(FMul, m_hi, bd, x);
    let r_hi = cx.b.bin_flags(FSub, ad, p_hi, x);
    let zero = cx.b.konst(Ty::F64, 0);
    let above = cx.b.bin(FOrdGt, r_lo, zero);
    let below = cx.b.bin(FOrdLt, r_hi, zero);
    let fin_a = finite_nonzero(cx, a, fmt);
    let fin_b = finite_nonzero(cx, b, fmt);
    let ok = cx.bop(And, above, below);
    let ok = cx.bop(And, ok, fin_a);
    let ok = cx.bop(And, ok, fin_b);
    let nrm = normal_f32(cx, cb);
    let ok = cx.bop(And, ok, nrm);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let s = cx.bop(Xor, sa, sb);
    let sbit = cx.c32(fmt.sign_bit() as u32);
    let z = cx.c32(0);
    let sv = cx.sel(s, sbit, z);
    (cx.bop(Or, cb, sv), ok)
}

/// f32 square root to nearest through f64, proven like [`div_f32_fast`] with `a - m^2`.
fn sqrt_f32_fast(cx: &mut Cx<'_>, a: ValueId) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let fmt = sf::F32;
    let af = cx.float_of(a, Ty::F32);
    let ad = cx.b.conv(ConvOp::FConvert, af, Ty::F64);
    let s = cx.b.ext(ExtOp::Sqrt, &[ad], x);
    let c = cx.b.conv(ConvOp::FConvert, s, Ty::F32);
    let cb = cx.bits_of(c);
    let cd = cx.b.conv(ConvOp::FConvert, c, Ty::F64);
    let (dn, up) = neighbours_f32(cx, cb);
    let (m_lo, m_hi) = midpoints(cx, cd, dn, up);
    let p_lo = cx.b.bin_flags(FMul, m_lo, m_lo, x);
    let r_lo = cx.b.bin_flags(FSub, ad, p_lo, x);
    let p_hi = cx.b.bin_flags(FMul, m_hi, m_hi, x);
    let r_hi = cx.b.bin_flags(FSub, ad, p_hi, x);
    let zero = cx.b.konst(Ty::F64, 0);
    let above = cx.b.bin(FOrdGt, r_lo, zero);
    let below = cx.b.bin(FOrdLt, r_hi, zero);
    let ok = cx.bop(And, above, below);
    let pos = sign(cx, a, fmt);
    let pos = cx.not(pos);
    let fin = finite_nonzero(cx, a, fmt);
    let ok = cx.bop(And, ok, pos);
    let ok = cx.bop(And, ok, fin);
    let nrm = normal_f32(cx, cb);
    let ok = cx.bop(And, ok, nrm);
    (cb, ok)
}

fn finite_nonzero(cx: &mut Cx<'_>, v: ValueId, fmt: FloatFormat) -> ValueId {
    let sp = is_special(cx, v, fmt);
    let z = is_zero(cx, v, fmt);
    let bad = cx.bop(Or, sp, z);
    cx.not(bad)
}

/// A quarter or half of `ulp(q)` as f64 (a quarter when `q` is a power of two, where the
/// rounding interval below is half as wide).
fn half_ulp(cx: &mut Cx<'_>, qb: ValueId) -> ValueId {
    let e = exact::exp_field64(cx, qb);
    let half = pow2_field(cx, e, -53);
    let quarter = pow2_field(cx, e, -54);
    let fm = cx.c64(sf::F64.frac_mask());
    let frac = cx.bop(And, qb, fm);
    let pow2 = cx.is_zero(frac);
    cx.sel(pow2, quarter, half)
}

/// f64 division to nearest: the driver's quotient q is right when the exact remainder
/// `a - q b` (Dekker) is below half an ulp of q times |b|. Operands and quotient are kept
/// far from under- and overflow so that every step is exact.
fn div_f64_fast(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let af = cx.float_of(a, Ty::F64);
    let bf = cx.float_of(b, Ty::F64);
    let q = cx.b.bin_flags(FDiv, af, bf, x);
    let qb = cx.bits_of(q);
    let (p, e) = exact::two_product_f64(cx, q, bf);
    let t = cx.b.bin_flags(FSub, af, p, x);
    let r = cx.b.bin_flags(FSub, t, e, x);
    let r = cx.b.ext(ExtOp::FAbs, &[r], FpFlags::default());
    let ab = cx.b.ext(ExtOp::FAbs, &[bf], FpFlags::default());
    let h = half_ulp(cx, qb);
    let lim = cx.b.bin_flags(FMul, h, ab, x);
    let ok = cx.b.bin(FOrdLt, r, lim);
    let ra = exact::exp_in64(cx, a, 200, 1800);
    let rb = exact::exp_in64(cx, b, 200, 1800);
    let rq = exact::exp_in64(cx, qb, 200, 1800);
    let ok = cx.bop(And, ok, ra);
    let ok = cx.bop(And, ok, rb);
    let ok = cx.bop(And, ok, rq);
    (qb, ok)
}

/// f64 square root to nearest: the driver's root s is right when `|a - s^2|` (Dekker) is
/// below `(1 - 2^-10) ulp(s) s` (half that when s is a power of two), which bounds |sqrt(a) - s|
/// by half an ulp.
fn sqrt_f64_fast(cx: &mut Cx<'_>, a: ValueId) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let af = cx.float_of(a, Ty::F64);
    let s = cx.b.ext(ExtOp::Sqrt, &[af], x);
    let sb = cx.bits_of(s);
    let (p, e) = exact::two_product_f64(cx, s, s);
    let t = cx.b.bin_flags(FSub, af, p, x);
    let r = cx.b.bin_flags(FSub, t, e, x);
    let r = cx.b.ext(ExtOp::FAbs, &[r], FpFlags::default());
    // ulp(s) * s * (1 - 2^-10) = 2 * half_ulp * s * (1 - 2^-10).
    let h = half_ulp(cx, sb);
    let two = cx.b.konst(Ty::F64, 2f64.to_bits());
    let u = cx.b.bin_flags(FMul, h, two, x);
    let us = cx.b.bin_flags(FMul, u, s, x);
    let k = cx.b.konst(Ty::F64, (1.0 - 2f64.powi(-10)).to_bits());
    let lim = cx.b.bin_flags(FMul, us, k, x);
    let ok = cx.b.bin(FOrdLt, r, lim);
    let neg = sign(cx, a, sf::F64);
    let pos = cx.not(neg);
    let ra = exact::exp_in64(cx, a, 200, 1800);
    let ok = cx.bop(And, ok, ra);
    let ok = cx.bop(And, ok, pos);
    (sb, ok)
}

/// f64 fma to nearest on a driver that does not fuse: Boldo and Melquiond's emulation (exact
/// product, TwoSum with c, the two tails added with rounding to odd, one rounding to nearest),
/// used when operands and result are far from under- and overflow; the integer emulation
/// otherwise.
pub(in crate::lower) fn fma_f64_rn(cx: &mut Cx<'_>, v: &[ValueId]) -> ValueId {
    let x = FpFlags { exact: true };
    let a = cx.float_of(v[0], Ty::F64);
    let b = cx.float_of(v[1], Ty::F64);
    let c = cx.float_of(v[2], Ty::F64);
    let (uh, ul) = exact::two_product_f64(cx, a, b);
    let th = cx.b.bin_flags(FAdd, c, uh, x);
    let bb = cx.b.bin_flags(FSub, th, c, x);
    let t1 = cx.b.bin_flags(FSub, th, bb, x);
    let d1 = cx.b.bin_flags(FSub, c, t1, x);
    let d2 = cx.b.bin_flags(FSub, uh, bb, x);
    let tl = cx.b.bin_flags(FAdd, d1, d2, x);
    let vv = sf::add_round_odd_f64(cx, tl, ul);
    let r = cx.b.bin_flags(FAdd, th, vv, x);
    let rb = cx.bits_of(r);
    let ra = exact::exp_in64(cx, v[0], 600, 1450);
    let rbb = exact::exp_in64(cx, v[1], 600, 1450);
    let c_zero = is_zero(cx, v[2], sf::F64);
    let rc = exact::exp_in64(cx, v[2], 150, 1900);
    let rc = cx.bop(Or, rc, c_zero);
    let rr = exact::exp_in64(cx, rb, 150, 1900);
    let ok = cx.bop(And, ra, rbb);
    let ok = cx.bop(And, ok, rc);
    let ok = cx.bop(And, ok, rr);
    with_fallback(cx, ok, rb, v, |cx, v| {
        emulated_call(cx, FloatOp::Fma, RoundMode::NearestEven, sf::F64, v)
    })
}
