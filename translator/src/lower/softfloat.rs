//! Exact floating-point arithmetic out of integer operations, for what Vulkan does not promise:
//! directed rounding, correctly rounded division and square root, fused multiply-add on drivers
//! that split it, and rounding to `.bf16`/`.f16` without relying on the driver's conversions.
//!
//! Values are unpacked into a sign, an exponent and a 64-bit significand whose top bit is set
//! (`value = sig / 2^63 * 2^exp`); each operation computes its exact result, or enough of it
//! plus a sticky bit, and [`round_pack`] rounds that once, in the requested direction, to the
//! requested format, with subnormal results and overflow as IEEE 754 defines them. Division and
//! square root start from the driver's floating-point estimate and make it exact with an integer
//! remainder, so they rely only on that estimate being accurate to about 2^-40 (see
//! docs/decisions.md).

use super::Cx;
use crate::check::inst::Rounding;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Op, Ty, UnOp, ValueId};
use crate::types::ScalarType;

/// An IEEE binary interchange format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fmt {
    /// Stored fraction bits.
    pub mant: u32,
    /// Exponent bits.
    pub exp: u32,
}

pub(super) const F16: Fmt = Fmt { mant: 10, exp: 5 };
pub(super) const BF16: Fmt = Fmt { mant: 7, exp: 8 };
pub(super) const F32: Fmt = Fmt { mant: 23, exp: 8 };
pub(super) const F64: Fmt = Fmt { mant: 52, exp: 11 };

impl Fmt {
    pub fn of(ty: ScalarType) -> Fmt {
        match ty {
            ScalarType::F16 | ScalarType::F16x2 => F16,
            ScalarType::Bf16 | ScalarType::Bf16x2 => BF16,
            ScalarType::F64 => F64,
            _ => F32,
        }
    }
    pub fn width(self) -> u32 {
        1 + self.exp + self.mant
    }
    pub fn bias(self) -> i64 {
        (1i64 << (self.exp - 1)) - 1
    }
    /// Significand bits, the implicit one included.
    pub fn precision(self) -> u32 {
        self.mant + 1
    }
    pub fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }
    pub fn exp_mask(self) -> u64 {
        ((1u64 << self.exp) - 1) << self.mant
    }
    pub fn frac_mask(self) -> u64 {
        (1u64 << self.mant) - 1
    }
    pub fn inf(self) -> u64 {
        self.exp_mask()
    }
    pub fn max_finite(self) -> u64 {
        self.exp_mask() - 1
    }
    /// The quiet NaN NVIDIA hardware produces (all bits but the sign set).
    pub fn canonical_nan(self) -> u64 {
        self.sign_bit() - 1
    }
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.mant
    }
    /// The integer type holding the format's bits.
    pub fn int_ty(self) -> Ty {
        Ty::int(self.width())
    }
}

/// Short names for the integer and float operations the emulations are made of.
pub(super) trait Ops {
    fn c64(&mut self, v: u64) -> ValueId;
    fn c32(&mut self, v: u32) -> ValueId;
    fn cb(&mut self, v: bool) -> ValueId;
    fn bop(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId;
    fn sel(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId;
    fn not(&mut self, a: ValueId) -> ValueId;
    fn zext(&mut self, v: ValueId, to: Ty) -> ValueId;
    fn trunc(&mut self, v: ValueId, to: Ty) -> ValueId;
    fn bits_of(&mut self, v: ValueId) -> ValueId;
    fn float_of(&mut self, v: ValueId, to: Ty) -> ValueId;
    fn is_zero(&mut self, v: ValueId) -> ValueId;
    fn nonzero(&mut self, v: ValueId) -> ValueId;
    fn bit(&mut self, v: ValueId, n: u32) -> ValueId;
}

impl Ops for Cx<'_> {
    fn c64(&mut self, v: u64) -> ValueId {
        self.konst(Ty::I64, v)
    }
    fn c32(&mut self, v: u32) -> ValueId {
        self.konst(Ty::I32, u64::from(v))
    }
    fn cb(&mut self, v: bool) -> ValueId {
        self.konst(Ty::Bool, u64::from(v))
    }
    fn bop(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        self.bin(op, a, b)
    }
    fn sel(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.select(c, a, b)
    }
    fn not(&mut self, a: ValueId) -> ValueId {
        self.un(UnOp::Not, a)
    }
    fn zext(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.conv(ConvOp::ZExt, v, to)
    }
    fn trunc(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.conv(ConvOp::Trunc, v, to)
    }
    fn bits_of(&mut self, v: ValueId) -> ValueId {
        self.as_int(v)
    }
    fn float_of(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.conv(ConvOp::Bitcast, v, to)
    }
    fn is_zero(&mut self, v: ValueId) -> ValueId {
        let z = self.konst(self.f.ty(v), 0);
        self.bin(BinOp::IEq, v, z)
    }
    fn nonzero(&mut self, v: ValueId) -> ValueId {
        let z = self.konst(self.f.ty(v), 0);
        self.bin(BinOp::INe, v, z)
    }
    /// Bit `n` of `v`, as a predicate.
    fn bit(&mut self, v: ValueId, n: u32) -> ValueId {
        let m = self.konst(self.f.ty(v), 1u64 << n);
        let b = self.bin(BinOp::And, v, m);
        self.nonzero(b)
    }
}

use BinOp::*;

/// A finite non-zero value: `sig / 2^63 * 2^exp`, `sig` (i64) with its top bit set, `exp` i32.
#[derive(Clone, Copy, Debug)]
pub(super) struct Unpacked {
    pub sign: ValueId,
    pub exp: ValueId,
    pub sig: ValueId,
}

/// The index of the highest set bit of a non-zero i64 (binary search; no float conversions, so
/// that formats without native support need nothing from the driver).
pub(super) fn msb64(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let mut x = x;
    let mut n = cx.c64(0);
    for k in [32u64, 16, 8, 4, 2, 1] {
        let kk = cx.c64(k);
        let t = cx.bop(LShr, x, kk);
        let c = cx.nonzero(t);
        let nk = cx.bop(IAdd, n, kk);
        n = cx.sel(c, nk, n);
        x = cx.sel(c, t, x);
    }
    cx.trunc(n, Ty::I32)
}

/// Splits the bits of a finite non-zero value of `fmt` (any integer type) into [`Unpacked`];
/// subnormals are normalized.
pub(super) fn unpack(cx: &mut Cx<'_>, bits: ValueId, fmt: Fmt) -> Unpacked {
    let b = cx.zext(bits, Ty::I64);
    let sign = cx.bit(b, fmt.width() - 1);
    let sh = cx.c64(u64::from(fmt.mant));
    let e = cx.bop(LShr, b, sh);
    let emask = cx.c64((1u64 << fmt.exp) - 1);
    let e = cx.bop(And, e, emask);
    let fmask = cx.c64(fmt.frac_mask());
    let frac = cx.bop(And, b, fmask);
    let sub = cx.is_zero(e);
    let implicit = cx.c64(1u64 << fmt.mant);
    let with_one = cx.bop(Or, frac, implicit);
    let m = cx.sel(sub, frac, with_one);
    let msb_sub = msb64(cx, frac);
    let mant = cx.c32(fmt.mant);
    let msb = cx.sel(sub, msb_sub, mant);
    let c63 = cx.c32(63);
    let shift = cx.bop(ISub, c63, msb);
    let shift = cx.zext(shift, Ty::I64);
    let sig = cx.bop(Shl, m, shift);
    // exp = max(e, 1) - bias - (mant - msb)
    let e32 = cx.trunc(e, Ty::I32);
    let one = cx.c32(1);
    let e_eff = cx.sel(sub, one, e32);
    let bias = cx.c32((fmt.bias() + i64::from(fmt.mant)) as u32);
    let t = cx.bop(ISub, e_eff, bias);
    let exp = cx.bop(IAdd, t, msb);
    Unpacked { sign, exp, sig }
}

/// Whether the rounding `mode` moves a result of sign `sign` away from zero when inexact and
/// not decided by nearness (overflow, directed rounding).
fn rounds_away(cx: &mut Cx<'_>, mode: Rounding, sign: ValueId) -> ValueId {
    match mode {
        Rounding::Rz => cx.cb(false),
        Rounding::Rm => sign,
        Rounding::Rp => cx.not(sign),
        _ => cx.cb(true),
    }
}

/// Rounds `sig / 2^63 * 2^exp` (plus something below the last bit if `sticky`) to `fmt` in
/// `mode`, with gradual underflow and overflow to infinity or the largest finite value as the
/// mode says. `sig` must have its top bit set. Returns the bits (the format's integer type).
pub(super) fn round_pack(
    cx: &mut Cx<'_>,
    sign: ValueId,
    exp: ValueId,
    sig: ValueId,
    sticky: ValueId,
    mode: Rounding,
    fmt: Fmt,
) -> ValueId {
    let p = fmt.precision();
    let bias = cx.c32(fmt.bias() as u32);
    let be = cx.bop(IAdd, exp, bias);
    let one = cx.c32(1);
    let normal = cx.bop(SGe, be, one);
    // Bits of `sig` below the result's last place: 64 - p, more for subnormal results.
    let base = cx.c32(64 - p);
    let extra = cx.bop(ISub, one, be);
    let sub_shift = cx.bop(IAdd, base, extra);
    let shift = cx.sel(normal, base, sub_shift);
    let c64 = cx.c32(64);
    let beyond = cx.bop(SGt, shift, c64);
    let s = cx.sel(beyond, c64, shift);
    let s_is_64 = cx.bop(IEq, s, c64);
    let c63 = cx.c32(63);
    let s_cl = cx.sel(s_is_64, c63, s);
    let s64 = cx.zext(s_cl, Ty::I64);
    let kept_sh = cx.bop(LShr, sig, s64);
    let zero = cx.c64(0);
    let kept = cx.sel(s_is_64, zero, kept_sh);
    // The round bit is bit s-1; everything below it (and `sticky`) is the sticky bit.
    let one64 = cx.c64(1);
    let s_full = cx.zext(s, Ty::I64);
    let sm1 = cx.bop(ISub, s_full, one64);
    let rb_sh = cx.bop(LShr, sig, sm1);
    let rb = cx.bop(And, rb_sh, one64);
    let rb = cx.nonzero(rb);
    let low_mask = cx.bop(Shl, one64, sm1);
    let low_mask = cx.bop(ISub, low_mask, one64);
    let low = cx.bop(And, sig, low_mask);
    let low_nz = cx.nonzero(low);
    let all_nz = cx.nonzero(sig);
    let f = cx.cb(false);
    let rb = cx.sel(beyond, f, rb);
    let st_bits = cx.sel(beyond, all_nz, low_nz);
    let st = cx.bop(Or, st_bits, sticky);
    let inexact = cx.bop(Or, rb, st);
    let inc = match mode {
        Rounding::Rz => cx.cb(false),
        Rounding::Rm => cx.bop(And, inexact, sign),
        Rounding::Rp => {
            let pos = cx.not(sign);
            cx.bop(And, inexact, pos)
        }
        _ => {
            let odd = cx.bit(kept, 0);
            let t = cx.bop(Or, st, odd);
            cx.bop(And, rb, t)
        }
    };
    let inc64 = cx.conv(ConvOp::BoolToInt, inc, Ty::I64);
    let kept = cx.bop(IAdd, kept, inc64);
    // Pack: (biased exponent - 1) << mant, plus the significand with its implicit bit, which
    // carries into the exponent (also from the largest subnormal to the smallest normal).
    let top = cx.c32(1 << fmt.exp);
    let be_c = cx.sel(normal, be, one);
    let big = cx.bop(SGt, be_c, top);
    let be_c = cx.sel(big, top, be_c);
    let be_m1 = cx.bop(ISub, be_c, one);
    let be64 = cx.zext(be_m1, Ty::I64);
    let mant = cx.c64(u64::from(fmt.mant));
    let e_bits = cx.bop(Shl, be64, mant);
    let mag = cx.bop(IAdd, e_bits, kept);
    let inf = cx.c64(fmt.inf());
    let overflow = cx.bop(UGe, mag, inf);
    let away = rounds_away(cx, mode, sign);
    let maxf = cx.c64(fmt.max_finite());
    let ovf = cx.sel(away, inf, maxf);
    let mag = cx.sel(overflow, ovf, mag);
    let sbit = cx.c64(fmt.sign_bit());
    let sb = cx.sel(sign, sbit, zero);
    let r = cx.bop(Or, mag, sb);
    cx.trunc(r, fmt.int_ty())
}

/// The bits of a signed zero of `fmt`.
pub(super) fn signed_zero(cx: &mut Cx<'_>, sign: ValueId, fmt: Fmt) -> ValueId {
    let s = cx.konst(fmt.int_ty(), fmt.sign_bit());
    let z = cx.konst(fmt.int_ty(), 0);
    cx.sel(sign, s, z)
}

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
    let l = cx.conv(ConvOp::BoolToInt, lost, Ty::I64);
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
pub(super) fn fma_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    c: &Unpacked,
    c_zero: ValueId,
    mode: Rounding,
    fmt: Fmt,
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
    let carry = cx.conv(ConvOp::BoolToInt, carry, Ty::I64);
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
    let borrow = cx.conv(ConvOp::BoolToInt, borrow, Ty::I64);
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
pub(super) fn mul_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    mode: Rounding,
    fmt: Fmt,
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

/// The float type used for estimates: f64 where the device has it, else f32 (enough for
/// formats of up to 24 bits).
fn estimate_ty(cx: &Cx<'_>, fmt: Fmt) -> Ty {
    if cx.profile.float64 || fmt == F64 {
        Ty::F64
    } else {
        Ty::F32
    }
}

/// `a / b` for finite non-zero `a`, `b`, correctly rounded to `fmt` in `mode`.
pub(super) fn div_core(
    cx: &mut Cx<'_>,
    a: &Unpacked,
    b: &Unpacked,
    mode: Rounding,
    fmt: Fmt,
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
    let ft = estimate_ty(cx, fmt);
    let af = cx.conv(ConvOp::UToF, aa, ft);
    let bf = cx.conv(ConvOp::UToF, bb, ft);
    let qf = cx.bin(FDiv, af, bf);
    let scale = pow2(cx, k, ft);
    let qf = cx.bin(FMul, qf, scale);
    let q = cx.conv(ConvOp::FToU, qf, Ty::I64);
    let k64 = cx.zext(k, Ty::I64);
    let ak = cx.bop(Shl, aa, k64);
    let qb = cx.bop(IMul, q, bb);
    // The remainder is small, so its low 64 bits are all of it.
    let r = cx.bop(ISub, ak, qb);
    let rf = cx.conv(ConvOp::SToF, r, ft);
    let t = cx.bin(FDiv, rf, bf);
    let t = cx.ext(ExtOp::Floor, vec![t], FpFlags::default());
    let t = cx.conv(ConvOp::FToS, t, Ty::I64);
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
pub(super) fn sqrt_core(cx: &mut Cx<'_>, a: &Unpacked, mode: Rounding, fmt: Fmt) -> ValueId {
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
    let ft = estimate_ty(cx, fmt);
    // Estimate: sqrt(A * 2^(s & 1)) * 2^(s >> 1).
    let s_lo = cx.bop(And, s, one);
    let s_lo64 = cx.zext(s_lo, Ty::I64);
    let a2 = cx.bop(Shl, aa, s_lo64);
    let af = cx.conv(ConvOp::UToF, a2, ft);
    let rt = cx.ext(ExtOp::Sqrt, vec![af], FpFlags::default());
    let s_hi = cx.bop(LShr, s, one);
    let scale = pow2(cx, s_hi, ft);
    let qf = cx.bin(FMul, rt, scale);
    let q = cx.conv(ConvOp::FToU, qf, Ty::I64);
    // One Newton step on the exact remainder, then at most one unit each way.
    let qq = cx.bop(IMul, q, q);
    let r = cx.bop(ISub, x, qq);
    let rf = cx.conv(ConvOp::SToF, r, ft);
    let qfl = cx.conv(ConvOp::UToF, q, ft);
    let two = cx.konst(
        ft,
        if ft == Ty::F64 {
            2f64.to_bits()
        } else {
            u64::from(2f32.to_bits())
        },
    );
    let den = cx.bin(FMul, qfl, two);
    let t = cx.bin(FDiv, rf, den);
    let t = cx.ext(ExtOp::Floor, vec![t], FpFlags::default());
    let t = cx.conv(ConvOp::FToS, t, Ty::I64);
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

/// 2^k as a float of type `ft`, for an i32 `k` in the format's normal range.
fn pow2(cx: &mut Cx<'_>, k: ValueId, ft: Ty) -> ValueId {
    let (bias, mant, it) = if ft == Ty::F64 {
        (1023u32, 52u64, Ty::I64)
    } else {
        (127, 23, Ty::I32)
    };
    let b = cx.c32(bias);
    let e = cx.bop(IAdd, k, b);
    let e = if it == Ty::I64 {
        cx.zext(e, Ty::I64)
    } else {
        e
    };
    let sh = cx.konst(it, mant);
    let bits = cx.bop(Shl, e, sh);
    cx.float_of(bits, ft)
}

/// Rounds an f64 that holds the exact result, or its rounding to odd (enough for any narrower
/// format, Boldo and Melquiond 2008), to `fmt` in `mode`. Infinities and NaNs pass through
/// (NaNs become the canonical NaN); `zero_sign` gives the sign of a zero result.
pub(super) fn round_from_f64(
    cx: &mut Cx<'_>,
    x: ValueId,
    mode: Rounding,
    fmt: Fmt,
    zero_sign: ValueId,
) -> ValueId {
    let xb = cx.bits_of(x);
    round_bits(cx, xb, F64, mode, fmt, zero_sign)
}

/// Rounds the value with bits `xb` of format `from` to `fmt` (see [`round_from_f64`]).
pub(super) fn round_bits(
    cx: &mut Cx<'_>,
    xb: ValueId,
    from: Fmt,
    mode: Rounding,
    fmt: Fmt,
    zero_sign: ValueId,
) -> ValueId {
    let xb = cx.zext(xb, Ty::I64);
    let mag = cx.c64(!from.sign_bit() & (from.sign_bit() | (from.sign_bit() - 1)));
    let m = cx.bop(And, xb, mag);
    let is_zero = cx.is_zero(m);
    let inf_bits = cx.c64(from.inf());
    let nan = cx.bop(UGt, m, inf_bits);
    let inf = cx.bop(IEq, m, inf_bits);
    let u = unpack(cx, xb, from);
    let f = cx.cb(false);
    let r = round_pack(cx, u.sign, u.exp, u.sig, f, mode, fmt);
    let ty = fmt.int_ty();
    let z = signed_zero(cx, zero_sign, fmt);
    let r = cx.sel(is_zero, z, r);
    let infb = cx.konst(ty, fmt.inf());
    let ninf = cx.konst(ty, fmt.inf() | fmt.sign_bit());
    let sinf = cx.sel(u.sign, ninf, infb);
    let r = cx.sel(inf, sinf, r);
    let nanb = cx.konst(ty, fmt.canonical_nan());
    cx.sel(nan, nanb, r)
}

/// The f64 nearest `a + b` rounded to odd: exact when representable, else the neighbour whose
/// last bit is 1 (TwoSum gives the exact error).
pub(super) fn add_round_odd_f64(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    let exact = FpFlags { exact: true };
    let s = cx.bin_flags(FAdd, a, b, exact);
    let bb = cx.bin_flags(FSub, s, a, exact);
    let s_bb = cx.bin_flags(FSub, s, bb, exact);
    let da = cx.bin_flags(FSub, a, s_bb, exact);
    let db = cx.bin_flags(FSub, b, bb, exact);
    let e = cx.bin_flags(FAdd, da, db, exact);
    let zero = cx.konst(Ty::F64, 0);
    let inexact = cx.bin(FOrdNe, e, zero);
    let bits = cx.bits_of(s);
    let even = cx.bit(bits, 0);
    let even = cx.not(even);
    let inf = cx.un(UnOp::IsInf, s);
    let nan = cx.un(UnOp::IsNan, s);
    let special = cx.bop(Or, inf, nan);
    let finite = cx.not(special);
    let adjust = cx.bop(And, inexact, even);
    let adjust = cx.bop(And, adjust, finite);
    // Same signs: away from zero (bits + 1); opposite: toward zero (bits - 1).
    let s_neg = cx.bit(bits, 63);
    let e_neg = cx.bin(FOrdLt, e, zero);
    let same = cx.bop(IEq, s_neg, e_neg);
    let one = cx.c64(1);
    let up = cx.bop(IAdd, bits, one);
    let down = cx.bop(ISub, bits, one);
    let stepped = cx.sel(same, up, down);
    let odd = cx.sel(adjust, stepped, bits);
    cx.float_of(odd, Ty::F64)
}

/// Emits a constant float of type `ty` from an `f64` value.
pub(super) fn fconst(cx: &mut Cx<'_>, ty: Ty, v: f64) -> ValueId {
    let bits = match ty {
        Ty::F64 => v.to_bits(),
        Ty::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        _ => u64::from((v as f32).to_bits()),
    };
    cx.emit(ty, Op::Const(bits))
}
