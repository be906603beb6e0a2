//! `div.rn.f32` (and `rcp.rn.f32`) on a device with float64, where the quick path's test fails
//! (subnormal or huge quotients, special operands, a driver quotient it cannot prove):
//! correctly rounded through f64 instead of the integer emulation, about 160 IR instructions
//! instead of 280, and cheaper for lavapipe, which runs the branch for a whole vector of lanes.
//!
//! With `A`, `B` the operands' magnitudes, exact in f64 (subnormals decoded from their bits, so a
//! device that flushes float32 denormals cannot lose them) and `Q = A / B` the exact quotient:
//! 1. `q = A / B` in f64, whatever the driver's error (Vulkan promises little for f64);
//! 2. `c1` = an f32 near `q` (its bits, see [`near_f32`]), `q2 = c1 + (A - c1 B) / B`: `c1 B` is
//!    exact (24 x 24 bits), the difference at worst rounded once, and the correction is a few
//!    float32 ulps at most, so whatever error the second division has is a tiny part of one ulp;
//! 3. `c` = an f32 near `q2`, now at most one step (in bits) from `RN(Q)`;
//! 4. the midpoints between `c` and its neighbours (25 significant bits) times `B` are exact, and
//!    comparing them with `A` says whether `Q` is below, above, on or between them: the answer is
//!    `c - 1`, `c + 1`, the even one of a tied pair, or `c`. Float32 bit patterns are ordered like
//!    their values, from 0 through the subnormals to infinity, so one step is one ulp everywhere,
//!    overflow included (above `MAX + ulp/2` is the infinity's bit pattern).
//!
//! Products and values stay between 2^-300 and 2^300, inside f64's normal range: no rounding but
//! the two named above, and no f64 denormals.

use super::super::cx::Cx;
use super::class::div_special_cases;
use super::softfloat::{self as sf, Ops, pow2_field};
use crate::ir::build::Build;
use crate::ir::{BinOp::*, ConvOp, FpFlags, Ty, ValueId};

const X: FpFlags = FpFlags { exact: true };
const MIN_NORMAL: u32 = sf::F32.min_normal() as u32;
const MAX_FINITE: u32 = sf::F32.max_finite() as u32;

/// The correctly rounded quotient's f32 bits (`a`, `b`: f32 bits as I32).
pub(in crate::lower) fn div_rn(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    let abs = cx.c32(sf::F32.magnitude_mask() as u32);
    let ma = cx.bop(And, a, abs);
    let mb = cx.bop(And, b, abs);
    let ad = exact_f64(cx, ma);
    let bd = exact_f64(cx, mb);
    let q = cx.b.bin_flags(FDiv, ad, bd, X);
    let c1 = near_f32(cx, q);
    let c1d = exact_f64(cx, c1);
    let p = cx.b.bin_flags(FMul, c1d, bd, X);
    let r = cx.b.bin_flags(FSub, ad, p, X);
    let d = cx.b.bin_flags(FDiv, r, bd, X);
    let q2 = cx.b.bin_flags(FAdd, c1d, d, X);
    let c = near_f32(cx, q2);
    let m = settle(cx, c, ad, bd);
    specials(cx, a, b, m)
}

/// The value of non-negative finite f32 bits `m` (or of the infinity's bits: 2^128), as f64.
/// Built from integers, `significand * 2^(exponent - 150)`.
fn exact_f64(cx: &mut Cx<'_>, m: ValueId) -> ValueId {
    let (sig, scale) = parts(cx, m, 0);
    let s = cx.b.conv(ConvOp::UToF, sig, Ty::F64);
    cx.b.bin_flags(FMul, s, scale, X)
}

/// The significand of f32 bits `m` (implicit bit included) and `2^(e - 150 - down)` as f64,
/// where `e` is the exponent field (1 for subnormals).
fn parts(cx: &mut Cx<'_>, m: ValueId, down: u32) -> (ValueId, ValueId) {
    let frac_mask = cx.c32(MIN_NORMAL - 1);
    let frac = cx.bop(And, m, frac_mask);
    let sh = cx.c32(sf::F32.mant);
    let e = cx.bop(LShr, m, sh);
    let normal = cx.nonzero(e);
    let implicit = cx.c32(MIN_NORMAL);
    let zero = cx.c32(0);
    let imp = cx.sel(normal, implicit, zero);
    let sig = cx.bop(Or, frac, imp);
    let one = cx.c32(1);
    let e =
        cx.b.ext(crate::ir::ExtOp::UMax, &[e, one], FpFlags::default());
    let e = cx.zext(e, Ty::I64);
    // `pow2_field` builds 2^(e + k - 1023); `e` is biased by f32's bias, and `sig` counts
    // units of f32's last fraction bit: 2^(e - 127 - 23).
    let (f32_bias, f32_mant) = (sf::F32.bias(), i64::from(sf::F32.mant));
    let k = sf::F64.bias() - f32_bias - f32_mant - i64::from(down);
    (sig, pow2_field(cx, e, k))
}

/// The bits of an f32 within one ulp of the non-negative f64 `q` (at most `MAX_FINITE`): the
/// driver's narrowing where the result is normal (either rounding direction will do), and
/// `floor(q * 2^149)`, the subnormal's bits, below that, where the driver might flush.
fn near_f32(cx: &mut Cx<'_>, q: ValueId) -> ValueId {
    let min_normal = cx.b.konst(Ty::F64, (2f64.powi(-126)).to_bits());
    let tiny = cx.b.bin(FOrdLt, q, min_normal);
    let f = cx.b.conv(ConvOp::FConvert, q, Ty::F32);
    let nb = cx.bits_of(f);
    let scale = cx.b.konst(Ty::F64, (2f64.powi(149)).to_bits());
    let s = cx.b.bin_flags(FMul, q, scale, X);
    // Only values in range reach the conversion (out of range it is undefined).
    let z = cx.b.konst(Ty::F64, 0);
    let s = cx.sel(tiny, s, z);
    let sb = cx.b.conv(ConvOp::FToU, s, Ty::I32);
    let c = cx.sel(tiny, sb, nb);
    let max = cx.c32(MAX_FINITE);
    cx.b.ext(crate::ir::ExtOp::UMin, &[c, max], FpFlags::default())
}

/// `RN(A / B)` from `c`, at most one step away: compares `A` with the midpoints around `c`
/// times `B` (exact products of 25 and 24 significant bits).
fn settle(cx: &mut Cx<'_>, c: ValueId, ad: ValueId, bd: ValueId) -> ValueId {
    // Above c: (2 sig + 1) 2^(e - 151). Below: the same with 2 sig - 1, or, where c is a power of
    // two with a smaller binade below it, (4 sig - 1) 2^(e - 152).
    let (sig, half_ulp) = parts(cx, c, 1);
    let one = cx.c32(1);
    let two_sig = cx.bop(Shl, sig, one);
    let hi_n = cx.bop(IAdd, two_sig, one);
    let lo_n = cx.bop(ISub, two_sig, one);
    // A power of two (where it matters, c is normal, so its significand is the implicit bit).
    let implicit = cx.c32(MIN_NORMAL);
    let at_pow2 = cx.bop(IEq, sig, implicit);
    let binade = cx.c32(2 * MIN_NORMAL);
    let above_first = cx.bop(UGe, c, binade);
    let narrower = cx.bop(And, at_pow2, above_first);
    let four_sig = cx.bop(Shl, two_sig, one);
    let lo_n2 = cx.bop(ISub, four_sig, one);
    let lo_n = cx.sel(narrower, lo_n2, lo_n);
    let half = cx.b.konst(Ty::F64, 0.5f64.to_bits());
    let quarter_ulp = cx.b.bin_flags(FMul, half_ulp, half, X);
    let lo_scale = cx.sel(narrower, quarter_ulp, half_ulp);
    // Signed: for c = 0, 2 sig - 1 = -1 puts the lower midpoint below every quotient.
    let hi_f = cx.b.conv(ConvOp::SToF, hi_n, Ty::F64);
    let lo_f = cx.b.conv(ConvOp::SToF, lo_n, Ty::F64);
    let m_hi = cx.b.bin_flags(FMul, hi_f, half_ulp, X);
    let m_lo = cx.b.bin_flags(FMul, lo_f, lo_scale, X);
    let p_hi = cx.b.bin_flags(FMul, m_hi, bd, X);
    let p_lo = cx.b.bin_flags(FMul, m_lo, bd, X);
    let below = cx.b.bin(FOrdLt, ad, p_lo);
    let above = cx.b.bin(FOrdGt, ad, p_hi);
    let tie_lo = cx.b.bin(FOrdEq, ad, p_lo);
    let tie_hi = cx.b.bin(FOrdEq, ad, p_hi);
    let dn = cx.bop(ISub, c, one);
    let up = cx.bop(IAdd, c, one);
    let odd = cx.bit(c, 0);
    let tie_lo = cx.bop(And, tie_lo, odd);
    let tie_hi = cx.bop(And, tie_hi, odd);
    let go_dn = cx.bop(Or, below, tie_lo);
    let go_up = cx.bop(Or, above, tie_hi);
    let r = cx.sel(go_dn, dn, c);
    cx.sel(go_up, up, r)
}

/// The quotient's sign (the operands' sign bits xor-ed) on `m`, then the special cases.
fn specials(cx: &mut Cx<'_>, a: ValueId, b: ValueId, m: ValueId) -> ValueId {
    let s = cx.bop(Xor, a, b);
    let sbit = cx.c32(sf::F32.sign_bit() as u32);
    let s = cx.bop(And, s, sbit);
    let q = cx.bop(Or, m, s);
    div_special_cases(cx, sf::F32, a, b, q)
}
