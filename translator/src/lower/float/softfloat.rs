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
//! docs/decisions/0032-proven-fast-paths.md).

use super::super::cx::Cx;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, FpFlags, Op, Ty, UnOp, ValueId};

pub(in crate::lower) use crate::float_format::{BF16, F16, F32, F64, FloatFormat};

/// Short names for the integer and float operations the emulations are made of.
pub(in crate::lower) trait Ops {
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
        self.b.konst(Ty::I64, v)
    }
    fn c32(&mut self, v: u32) -> ValueId {
        self.b.konst(Ty::I32, u64::from(v))
    }
    fn cb(&mut self, v: bool) -> ValueId {
        self.b.konst(Ty::Bool, u64::from(v))
    }
    fn bop(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        self.b.bin(op, a, b)
    }
    fn sel(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.b.select(c, a, b)
    }
    fn not(&mut self, a: ValueId) -> ValueId {
        self.b.un(UnOp::Not, a)
    }
    fn zext(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.b.conv(ConvOp::ZExt, v, to)
    }
    fn trunc(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.b.conv(ConvOp::Trunc, v, to)
    }
    fn bits_of(&mut self, v: ValueId) -> ValueId {
        self.b.as_int(v)
    }
    fn float_of(&mut self, v: ValueId, to: Ty) -> ValueId {
        self.b.conv(ConvOp::Bitcast, v, to)
    }
    fn is_zero(&mut self, v: ValueId) -> ValueId {
        let z = self.b.konst(self.b.f.ty(v), 0);
        self.b.bin(BinOp::IEq, v, z)
    }
    fn nonzero(&mut self, v: ValueId) -> ValueId {
        let z = self.b.konst(self.b.f.ty(v), 0);
        self.b.bin(BinOp::INe, v, z)
    }
    /// Bit `n` of `v`, as a predicate.
    fn bit(&mut self, v: ValueId, n: u32) -> ValueId {
        let m = self.b.konst(self.b.f.ty(v), 1u64 << n);
        let b = self.b.bin(BinOp::And, v, m);
        self.nonzero(b)
    }
}

use BinOp::*;

/// A finite non-zero value: `sig / 2^63 * 2^exp`, `sig` (i64) with its top bit set, `exp` i32.
#[derive(Clone, Copy, Debug)]
pub(in crate::lower) struct Unpacked {
    pub sign: ValueId,
    pub exp: ValueId,
    pub sig: ValueId,
}

/// The index of the highest set bit of a non-zero i64 (binary search; no float conversions, so
/// that formats without native support need nothing from the driver).
pub(in crate::lower) fn msb64(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
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
pub(in crate::lower) fn unpack(cx: &mut Cx<'_>, bits: ValueId, fmt: FloatFormat) -> Unpacked {
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
fn rounds_away(cx: &mut Cx<'_>, mode: RoundMode, sign: ValueId) -> ValueId {
    match mode {
        RoundMode::Zero => cx.cb(false),
        RoundMode::Down => sign,
        RoundMode::Up => cx.not(sign),
        _ => cx.cb(true),
    }
}

/// Rounds `sig / 2^63 * 2^exp` (plus something below the last bit if `sticky`) to `fmt` in
/// `mode`, with gradual underflow and overflow to infinity or the largest finite value as the
/// mode says. `sig` must have its top bit set. Returns the bits (the format's integer type).
pub(in crate::lower) fn round_pack(
    cx: &mut Cx<'_>,
    sign: ValueId,
    exp: ValueId,
    sig: ValueId,
    sticky: ValueId,
    mode: RoundMode,
    fmt: FloatFormat,
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
        RoundMode::Zero => cx.cb(false),
        RoundMode::Down => cx.bop(And, inexact, sign),
        RoundMode::Up => {
            let pos = cx.not(sign);
            cx.bop(And, inexact, pos)
        }
        _ => {
            let odd = cx.bit(kept, 0);
            let t = cx.bop(Or, st, odd);
            cx.bop(And, rb, t)
        }
    };
    let inc64 = cx.b.conv(ConvOp::BoolToInt, inc, Ty::I64);
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
pub(in crate::lower) fn signed_zero(cx: &mut Cx<'_>, sign: ValueId, fmt: FloatFormat) -> ValueId {
    let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    let z = cx.b.konst(fmt.int_ty(), 0);
    cx.sel(sign, s, z)
}

/// Rounds an f64 that holds the exact result, or its rounding to odd (enough for any narrower
/// format, Boldo and Melquiond 2008), to `fmt` in `mode`. Infinities and NaNs pass through
/// (NaNs become the canonical NaN); `zero_sign` gives the sign of a zero result.
pub(in crate::lower) fn round_from_f64(
    cx: &mut Cx<'_>,
    x: ValueId,
    mode: RoundMode,
    fmt: FloatFormat,
    zero_sign: ValueId,
) -> ValueId {
    let xb = cx.bits_of(x);
    round_bits(cx, xb, F64, mode, fmt, zero_sign)
}

/// Rounds the value with bits `xb` of format `from` to `fmt` (see [`round_from_f64`]).
pub(in crate::lower) fn round_bits(
    cx: &mut Cx<'_>,
    xb: ValueId,
    from: FloatFormat,
    mode: RoundMode,
    fmt: FloatFormat,
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
    let infb = cx.b.konst(ty, fmt.inf());
    let ninf = cx.b.konst(ty, fmt.inf() | fmt.sign_bit());
    let sinf = cx.sel(u.sign, ninf, infb);
    let r = cx.sel(inf, sinf, r);
    let nanb = cx.b.konst(ty, fmt.canonical_nan());
    cx.sel(nan, nanb, r)
}

/// The f64 nearest `a + b` rounded to odd: exact when representable, else the neighbour whose
/// last bit is 1 (TwoSum gives the exact error `e`). That is the sum truncated toward zero
/// with its last bit set when inexact; the truncation steps back from the nearest sum when `e`
/// points toward zero. When the sum is infinite or NaN (operands or overflow), `e` is NaN:
/// neither comparison holds and the sum is kept.
pub(in crate::lower) fn add_round_odd_f64(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    let exact = FpFlags { exact: true };
    let s = cx.b.bin_flags(FAdd, a, b, exact);
    let bb = cx.b.bin_flags(FSub, s, a, exact);
    let s_bb = cx.b.bin_flags(FSub, s, bb, exact);
    let da = cx.b.bin_flags(FSub, a, s_bb, exact);
    let db = cx.b.bin_flags(FSub, b, bb, exact);
    let e = cx.b.bin_flags(FAdd, da, db, exact);
    let zero = cx.b.konst(Ty::F64, 0);
    let e_pos = cx.b.bin(FOrdGt, e, zero);
    let e_neg = cx.b.bin(FOrdLt, e, zero);
    let s_neg = cx.b.bin(FOrdLt, s, zero);
    let toward_zero = cx.sel(s_neg, e_pos, e_neg);
    let inexact = cx.bop(Or, e_pos, e_neg);
    let bits = cx.bits_of(s);
    let one = cx.c64(1);
    let down = cx.bop(ISub, bits, one);
    let rz = cx.sel(toward_zero, down, bits);
    let odd = cx.bop(Or, rz, one);
    let r = cx.sel(inexact, odd, rz);
    cx.float_of(r, Ty::F64)
}

/// Emits a constant float of type `ty` from an `f64` value.
pub(in crate::lower) fn fconst(cx: &mut Cx<'_>, ty: Ty, v: f64) -> ValueId {
    let bits = match ty {
        Ty::F64 => v.to_bits(),
        Ty::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        _ => u64::from((v as f32).to_bits()),
    };
    cx.b.emit(ty, Op::Const(bits))
}

/// `2^k * y` for f64 bits `e` (a biased exponent field) shifted by `k`: builds 2^(e - 1023 + k).
pub(in crate::lower) fn pow2_field(cx: &mut Cx<'_>, e: ValueId, k: i64) -> ValueId {
    let kk = cx.c64(k as u64);
    let be = cx.bop(IAdd, e, kk);
    let sh = cx.c64(u64::from(F64.mant));
    let b = cx.bop(Shl, be, sh);
    cx.float_of(b, Ty::F64)
}
