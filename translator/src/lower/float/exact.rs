//! The exact operations behind the emulated instructions: products, fused multiply-adds,
//! quotients and square roots computed in integers to all their bits (or enough of them and a
//! sticky bit), each rounded once by [`round_pack`]. Division and square root start from the
//! driver's floating-point estimate and make it exact with the integer remainder.

use super::super::cx::Cx;
use super::format::pow2;
use super::softfloat::{F32, F64, FloatFormat, Ops, Unpacked, msb64, round_pack};
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, ValueId};

use BinOp::*;

/// Shifts the 128-bit `(hi, lo)` right by `n` (i32, >= 0), OR-ing every bit shifted out into the
/// lowest bit ("jamming"), which keeps enough information for rounding.
fn shr128_jam(cx: &mut Cx<'_>, hi: ValueId, lo: ValueId, n: ValueId) -> (ValueId, ValueId) {
    let zero = cx.c64(0);
    let c0 = cx.c32(0);
    let c64 = cx.c32(64);
    let c127 = cx.c32(127);
    let n_zero = cx.bop(IEq, n, c0);
    let small = cx.bop(SLt, n, c64);
    let huge = cx.bop(SGt, n, c127);
    // 0 < n < 64
    let one = cx.c32(1);
    let n1 = cx.sel(n_zero, one, n);
    let n1 = clamp_i32(cx, n1, 1, 63);
    let n1_64 = cx.zext(n1, Ty::I64);
    let inv = cx.bop(ISub, c64, n1);
    let inv64 = cx.zext(inv, Ty::I64);
    let lo_s = cx.bop(LShr, lo, n1_64);
    let hi_to_lo = cx.bop(Shl, hi, inv64);
    let lo_a = cx.bop(Or, lo_s, hi_to_lo);
    let hi_a = cx.bop(LShr, hi, n1_64);
    let lost_a = cx.bop(Shl, lo, inv64);
    let lost_a = cx.nonzero(lost_a);
    // 64 <= n < 128
    let m = cx.bop(ISub, n, c64);
    let m = clamp_i32(cx, m, 0, 63);
    let m64 = cx.zext(m, Ty::I64);
    let lo_b = cx.bop(LShr, hi, m64);
    let m_zero = cx.bop(IEq, m, c0);
    let inv_b = cx.bop(ISub, c64, m);
    let inv_b = clamp_i32(cx, inv_b, 1, 63);
    let inv_b64 = cx.zext(inv_b, Ty::I64);
    let hi_lost = cx.bop(Shl, hi, inv_b64);
    let hi_lost = cx.nonzero(hi_lost);
    let f = cx.cb(false);
    let hi_lost = cx.sel(m_zero, f, hi_lost);
    let lo_nz = cx.nonzero(lo);
    let lost_b = cx.bop(Or, hi_lost, lo_nz);
    // n >= 128
    let any = cx.bop(Or, hi, lo);
    let lost_c = cx.nonzero(any);
    let lo_r = cx.sel(small, lo_a, lo_b);
    let hi_r = cx.sel(small, hi_a, zero);
    let lost = cx.sel(small, lost_a, lost_b);
    let lo_r = cx.sel(huge, zero, lo_r);
    let hi_r = cx.sel(huge, zero, hi_r);
    let lost = cx.sel(huge, lost_c, lost);
    let lost = cx.sel(n_zero, f, lost);
    let lo_r = cx.sel(n_zero, lo, lo_r);
    let hi_r = cx.sel(n_zero, hi, hi_r);
    let l = cx.b.conv(ConvOp::BoolToInt, lost, Ty::I64);
    let lo_r = cx.bop(Or, lo_r, l);
    (hi_r, lo_r)
}

fn clamp_i32(cx: &mut Cx<'_>, v: ValueId, lo: u32, hi: u32) -> ValueId {
    let l = cx.c32(lo);
    let h = cx.c32(hi);
    let below = cx.bop(SLt, v, l);
    let v = cx.sel(below, l, v);
    let above = cx.bop(SGt, v, h);
    cx.sel(above, h, v)
}

/// Normalizes a non-zero 128-bit value so that its top bit is bit 127; returns the top word,
/// whether anything is left in the low word, and how far the value was shifted left.
fn normalize128(cx: &mut Cx<'_>, hi: ValueId, lo: ValueId) -> (ValueId, ValueId, ValueId) {
    let zero = cx.c64(0);
    let hi_zero = cx.is_zero(hi);
    let h = cx.sel(hi_zero, lo, hi);
    let l = cx.sel(hi_zero, zero, lo);
    let c64 = cx.c32(64);
    let c0 = cx.c32(0);
    let base = cx.sel(hi_zero, c64, c0);
    let msb = msb64(cx, h);
    let c63 = cx.c32(63);
    let s = cx.bop(ISub, c63, msb);
    let s64 = cx.zext(s, Ty::I64);
    let h2 = cx.bop(Shl, h, s64);
    // bits of l moving up: l >> (64 - s), none when s == 0
    let s_zero = cx.bop(IEq, s, c0);
    let inv = cx.bop(ISub, c64, s);
    let inv = clamp_i32(cx, inv, 1, 63);
    let inv64 = cx.zext(inv, Ty::I64);
    let up = cx.bop(LShr, l, inv64);
    let up = cx.sel(s_zero, zero, up);
    let h2 = cx.bop(Or, h2, up);
    let l2 = cx.bop(Shl, l, s64);
    let rest = cx.nonzero(l2);
    let shift = cx.bop(IAdd, base, s);
    (h2, rest, shift)
}

/// `a * b + c` for finite `a`, `b` with non-zero product and finite `c` (possibly zero), rounded
/// once to `fmt` in `mode` (`None` for an exact zero result, which the caller signs).
/// `c_zero` says that `c` is zero (its unpacked fields are then ignored).
pub(in crate::lower) fn fma_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    c: &Unpacked,
    c_zero: ValueId,
    mode: RoundMode,
    fmt: FloatFormat,
) -> (ValueId, ValueId) {
    // Product: 128 bits with its top bit at 127 or 126; one bit of headroom for the sum.
    let ph = cx.bop(UMulHi, a.sig, b.sig);
    let pl = cx.bop(IMul, a.sig, b.sig);
    let one = cx.c32(1);
    let (ph, pl) = shr128_jam(cx, ph, pl, one);
    // In a frame where bit 126 is worth 2^E, the halved product has E = ea + eb + 1.
    let ep = cx.bop(IAdd, a.exp, b.exp);
    let ep = cx.bop(IAdd, ep, one);
    // c: its top bit at 126 (value 2^ec there).
    let zero = cx.c64(0);
    let c1 = cx.c64(1);
    let ch = cx.bop(LShr, c.sig, c1);
    let ch = cx.sel(c_zero, zero, ch);
    let cl = cx.c64(0);
    let ec = c.exp;
    let d = cx.bop(ISub, ep, ec);
    let c0 = cx.c32(0);
    let p_big = cx.bop(SGe, d, c0);
    let nd = cx.bop(ISub, c0, d);
    // c far below the product (or zero): shift c; else shift the product.
    let p_big = cx.bop(Or, p_big, c_zero);
    let dc = cx.sel(p_big, d, c0);
    let dp = cx.sel(p_big, c0, nd);
    let (ch, cl) = shr128_jam(cx, ch, cl, dc);
    let (ph, pl) = shr128_jam(cx, ph, pl, dp);
    let e = cx.sel(p_big, ep, ec);
    let psign = cx.bop(Xor, a.sign, b.sign);
    let same = cx.bop(IEq, psign, c.sign);
    let same = cx.bop(Or, same, c_zero);
    // Sum.
    let sl = cx.bop(IAdd, pl, cl);
    let carry = cx.bop(ULt, sl, pl);
    let carry = cx.b.conv(ConvOp::BoolToInt, carry, Ty::I64);
    let sh = cx.bop(IAdd, ph, ch);
    let sh = cx.bop(IAdd, sh, carry);
    // Difference, larger minus smaller.
    let hi_lt = cx.bop(ULt, ph, ch);
    let hi_eq = cx.bop(IEq, ph, ch);
    let lo_lt = cx.bop(ULt, pl, cl);
    let t = cx.bop(And, hi_eq, lo_lt);
    let p_lt = cx.bop(Or, hi_lt, t);
    let (xh, xl) = (cx.sel(p_lt, ch, ph), cx.sel(p_lt, cl, pl));
    let (yh, yl) = (cx.sel(p_lt, ph, ch), cx.sel(p_lt, pl, cl));
    let dl = cx.bop(ISub, xl, yl);
    let borrow = cx.bop(ULt, xl, yl);
    let borrow = cx.b.conv(ConvOp::BoolToInt, borrow, Ty::I64);
    let dh = cx.bop(ISub, xh, yh);
    let dh = cx.bop(ISub, dh, borrow);
    let rh = cx.sel(same, sh, dh);
    let rl = cx.sel(same, sl, dl);
    let dsign = cx.sel(p_lt, c.sign, psign);
    let sign = cx.sel(same, psign, dsign);
    let any = cx.bop(Or, rh, rl);
    let exact_zero = cx.is_zero(any);
    // Keep the normalization away from zero (the caller replaces that result).
    let rl = cx.sel(exact_zero, c1, rl);
    let (top, rest, shift) = normalize128(cx, rh, rl);
    // Bit 127 of the frame is worth 2^(e + 1); after shifting left by `shift`, bit 127 holds
    // what was at bit 127 - shift.
    let e1 = cx.bop(IAdd, e, one);
    let exp = cx.bop(ISub, e1, shift);
    let bits = round_pack(cx, sign, exp, top, rest, mode, fmt);
    (bits, exact_zero)
}

/// `a * b` for finite non-zero `a`, `b`, rounded once to `fmt` in `mode`.
pub(in crate::lower) fn mul_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    mode: RoundMode,
    fmt: FloatFormat,
) -> ValueId {
    let ph = cx.bop(UMulHi, a.sig, b.sig);
    let pl = cx.bop(IMul, a.sig, b.sig);
    let (top, rest, shift) = normalize128(cx, ph, pl);
    // Bit 127 of the product is worth 2^(ea + eb + 1).
    let e = cx.bop(IAdd, a.exp, b.exp);
    let one = cx.c32(1);
    let e = cx.bop(IAdd, e, one);
    let exp = cx.bop(ISub, e, shift);
    let sign = cx.bop(Xor, a.sign, b.sign);
    round_pack(cx, sign, exp, top, rest, mode, fmt)
}

/// The format used for estimates: f64 where the device has it, else f32 (enough for formats
/// of up to 24 bits).
fn estimate_format(cx: &Cx<'_>, fmt: FloatFormat) -> FloatFormat {
    if cx.profile.float64 || fmt == F64 {
        F64
    } else {
        F32
    }
}

/// `a / b` for finite non-zero `a`, `b`, correctly rounded to `fmt` in `mode`.
pub(in crate::lower) fn div_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    mode: RoundMode,
    fmt: FloatFormat,
) -> ValueId {
    let p = fmt.precision();
    let to_p = cx.c64(u64::from(64 - p));
    // A, B: the p-bit significands.
    let aa = cx.bop(LShr, a.sig, to_p);
    let bb = cx.bop(LShr, b.sig, to_p);
    let a_ge = cx.bop(UGe, aa, bb);
    // Q = floor(A * 2^k / B) has p + 2 bits.
    let k1 = cx.c32(p + 1);
    let k2 = cx.c32(p + 2);
    let k = cx.sel(a_ge, k1, k2);
    let ef = estimate_format(cx, fmt);
    let ft = ef.float_ty();
    let af = cx.b.conv(ConvOp::UToF, aa, ft);
    let bf = cx.b.conv(ConvOp::UToF, bb, ft);
    let qf = cx.b.bin(FDiv, af, bf);
    let scale = pow2(cx, k, ef);
    let qf = cx.b.bin(FMul, qf, scale);
    let q = cx.b.conv(ConvOp::FToU, qf, Ty::I64);
    let k64 = cx.zext(k, Ty::I64);
    let ak = cx.bop(Shl, aa, k64);
    let qb = cx.bop(IMul, q, bb);
    // The remainder is small, so its low 64 bits are all of it.
    let r = cx.bop(ISub, ak, qb);
    let rf = cx.b.conv(ConvOp::SToF, r, ft);
    let t = cx.b.bin(FDiv, rf, bf);
    let t = cx.b.ext(ExtOp::Floor, &[t], FpFlags::default());
    let t = cx.b.conv(ConvOp::FToS, t, Ty::I64);
    let q = cx.bop(IAdd, q, t);
    let tb = cx.bop(IMul, t, bb);
    let r = cx.bop(ISub, r, tb);
    // Now |r| < B at most once over; step into [0, B).
    let zero = cx.c64(0);
    let one = cx.c64(1);
    let neg = cx.bop(SLt, r, zero);
    let q_dn = cx.bop(ISub, q, one);
    let r_up = cx.bop(IAdd, r, bb);
    let q = cx.sel(neg, q_dn, q);
    let r = cx.sel(neg, r_up, r);
    let over = cx.bop(SGe, r, bb);
    let q_up = cx.bop(IAdd, q, one);
    let r_dn = cx.bop(ISub, r, bb);
    let q = cx.sel(over, q_up, q);
    let r = cx.sel(over, r_dn, r);
    let sticky = cx.nonzero(r);
    // Q's top bit is bit p+1; the quotient is Q * 2^(ea - eb - k).
    let sh = cx.c64(u64::from(63 - (p + 1)));
    let sig = cx.bop(Shl, q, sh);
    let e = cx.bop(ISub, a.exp, b.exp);
    let pp1 = cx.c32(p + 1);
    let e = cx.bop(IAdd, e, pp1);
    let exp = cx.bop(ISub, e, k);
    let sign = cx.bop(Xor, a.sign, b.sign);
    round_pack(cx, sign, exp, sig, sticky, mode, fmt)
}

/// `sqrt(a)` for finite positive `a`, correctly rounded to `fmt` in `mode`.
pub(in crate::lower) fn sqrt_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    mode: RoundMode,
    fmt: FloatFormat,
) -> ValueId {
    let p = fmt.precision();
    let to_p = cx.c64(u64::from(64 - p));
    let aa = cx.bop(LShr, a.sig, to_p);
    // a = A * 2^g with g = ea - mant. X = A * 2^s, s in {p+3, p+4} with s = g (mod 2), has
    // 2p+3 or 2p+4 bits, so Q = isqrt(X) has p+2 bits and sqrt(a) = sqrt(X) * 2^((g-s)/2).
    let mant = cx.c32(fmt.mant);
    let g = cx.bop(ISub, a.exp, mant);
    let one = cx.c32(1);
    let g_odd = cx.bop(And, g, one);
    let g_odd = cx.nonzero(g_odd);
    let s_even = cx.c32(if (p + 3) % 2 == 0 { p + 3 } else { p + 4 });
    let s_odd = cx.c32(if (p + 3) % 2 == 1 { p + 3 } else { p + 4 });
    let s = cx.sel(g_odd, s_odd, s_even);
    let s64 = cx.zext(s, Ty::I64);
    let x = cx.bop(Shl, aa, s64);
    let ef = estimate_format(cx, fmt);
    let ft = ef.float_ty();
    // Estimate: sqrt(A * 2^(s & 1)) * 2^(s >> 1).
    let s_lo = cx.bop(And, s, one);
    let s_lo64 = cx.zext(s_lo, Ty::I64);
    let a2 = cx.bop(Shl, aa, s_lo64);
    let af = cx.b.conv(ConvOp::UToF, a2, ft);
    let rt = cx.b.ext(ExtOp::Sqrt, &[af], FpFlags::default());
    let s_hi = cx.bop(LShr, s, one);
    let scale = pow2(cx, s_hi, ef);
    let qf = cx.b.bin(FMul, rt, scale);
    let q = cx.b.conv(ConvOp::FToU, qf, Ty::I64);
    // One Newton step on the exact remainder, then at most one unit each way.
    let qq = cx.bop(IMul, q, q);
    let r = cx.bop(ISub, x, qq);
    let rf = cx.b.conv(ConvOp::SToF, r, ft);
    let qfl = cx.b.conv(ConvOp::UToF, q, ft);
    let two = cx.b.konst(
        ft,
        if ft == Ty::F64 {
            2f64.to_bits()
        } else {
            u64::from(2f32.to_bits())
        },
    );
    let den = cx.b.bin(FMul, qfl, two);
    let t = cx.b.bin(FDiv, rf, den);
    let t = cx.b.ext(ExtOp::Floor, &[t], FpFlags::default());
    let t = cx.b.conv(ConvOp::FToS, t, Ty::I64);
    let q = cx.bop(IAdd, q, t);
    let qq = cx.bop(IMul, q, q);
    let r = cx.bop(ISub, x, qq);
    let zero = cx.c64(0);
    let one64 = cx.c64(1);
    // r < 0: q -= 1, r += 2q + 1 (with the new q).
    let neg = cx.bop(SLt, r, zero);
    let q_dn = cx.bop(ISub, q, one64);
    let tq = cx.bop(IAdd, q_dn, q_dn);
    let tq = cx.bop(IAdd, tq, one64);
    let r_up = cx.bop(IAdd, r, tq);
    let q = cx.sel(neg, q_dn, q);
    let r = cx.sel(neg, r_up, r);
    // r > 2q: q += 1, r -= 2q - 1 (with the new q).
    let two_q = cx.bop(IAdd, q, q);
    let over = cx.bop(SGt, r, two_q);
    let q_up = cx.bop(IAdd, q, one64);
    let tq = cx.bop(IAdd, q_up, q_up);
    let tq = cx.bop(ISub, tq, one64);
    let r_dn = cx.bop(ISub, r, tq);
    let q = cx.sel(over, q_up, q);
    let r = cx.sel(over, r_dn, r);
    let sticky = cx.nonzero(r);
    let sh = cx.c64(u64::from(63 - (p + 1)));
    let sig = cx.bop(Shl, q, sh);
    // exp = p + 1 + (g - s) / 2 (g - s is even).
    let gs = cx.bop(ISub, g, s);
    let half = cx.bop(AShr, gs, one);
    let pp1 = cx.c32(p + 1);
    let exp = cx.bop(IAdd, half, pp1);
    let sign = cx.cb(false);
    round_pack(cx, sign, exp, sig, sticky, mode, fmt)
}

/// Dekker's exact product (Veltkamp splitting): `p + e == a * b` exactly, `p = RN(a * b)`,
/// provided neither the product nor its error under- or overflows. Every operation is marked
/// `NoContraction`: a driver fusing any of them would break the identity.
pub(in crate::lower) fn two_product_f64(
    cx: &mut Cx<'_>,
    a: ValueId,
    b: ValueId,
) -> (ValueId, ValueId) {
    let x = FpFlags { exact: true };
    let split = |cx: &mut Cx<'_>, v: ValueId| {
        let c = cx.b.konst(Ty::F64, 134_217_729f64.to_bits()); // 2^27 + 1
        let t = cx.b.bin_flags(FMul, c, v, x);
        let d = cx.b.bin_flags(FSub, t, v, x);
        let hi = cx.b.bin_flags(FSub, t, d, x);
        let lo = cx.b.bin_flags(FSub, v, hi, x);
        (hi, lo)
    };
    let (ah, al) = split(cx, a);
    let (bh, bl) = split(cx, b);
    let p = cx.b.bin_flags(FMul, a, b, x);
    let hh = cx.b.bin_flags(FMul, ah, bh, x);
    let t = cx.b.bin_flags(FSub, hh, p, x);
    let hl = cx.b.bin_flags(FMul, ah, bl, x);
    let t = cx.b.bin_flags(FAdd, t, hl, x);
    let lh = cx.b.bin_flags(FMul, al, bh, x);
    let t = cx.b.bin_flags(FAdd, t, lh, x);
    let ll = cx.b.bin_flags(FMul, al, bl, x);
    let e = cx.b.bin_flags(FAdd, t, ll, x);
    (p, e)
}

/// The biased exponent field of f64 bits, as i64.
pub(in crate::lower) fn exp_field64(cx: &mut Cx<'_>, bits: ValueId) -> ValueId {
    let sh = cx.c64(u64::from(F64.mant));
    let e = cx.bop(LShr, bits, sh);
    let m = cx.c64(F64.exp_mask() >> F64.mant);
    cx.bop(And, e, m)
}

/// Whether the biased exponent of f64 bits lies in `[lo, hi]`.
pub(in crate::lower) fn exp_in64(cx: &mut Cx<'_>, bits: ValueId, lo: u64, hi: u64) -> ValueId {
    let e = exp_field64(cx, bits);
    let l = cx.c64(lo);
    let h = cx.c64(hi);
    let a = cx.bop(UGe, e, l);
    let b = cx.bop(ULe, e, h);
    cx.bop(And, a, b)
}
