//! The driver's result to nearest, used where an exact remainder test proves it correctly
//! rounded: the cheap path of `div`, `sqrt` and f64 `fma`, with the emulation as its fallback.

use super::emulated::emulated_call;
use crate::check::inst::FloatOp;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Op, Ty, UnOp, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::float::class::{is_special, is_zero, magnitude, sign};
use crate::lower::float::exact;
use crate::lower::float::softfloat::{self as sf, FloatFormat, Ops, pow2_field};

use BinOp::*;

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
pub(super) fn div_f32_fast(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> (ValueId, ValueId) {
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
pub(super) fn sqrt_f32_fast(cx: &mut Cx<'_>, a: ValueId) -> (ValueId, ValueId) {
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
pub(super) fn div_f64_fast(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> (ValueId, ValueId) {
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
pub(super) fn sqrt_f64_fast(cx: &mut Cx<'_>, a: ValueId) -> (ValueId, ValueId) {
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

/// Uses `fast` where `ok` holds and computes `slow(inputs)` in a branch of its own otherwise, so
/// that the exact emulation costs time only where the quick path cannot prove its result. IR
/// values live in one block, so the inputs cross into the branch through variables.
pub(super) fn with_fallback(
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
