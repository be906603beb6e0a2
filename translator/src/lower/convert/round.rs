//! Rounding for conversions, on the bits with 64-bit integer operations: a value is unpacked
//! into a sign, a significand `m` normalized to bit 63 and the exponent `e` of that bit
//! (value = m * 2^(e-63)), and rounded once, in the requested direction, to a float format or
//! to an integer.

use super::super::cx::Cx;
use crate::check::Dst;
use crate::float_format::{FloatFormat, RoundMode};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;

/// A value as sign, normalized significand and exponent, with its class.
#[derive(Clone, Copy)]
pub(super) struct Unpacked {
    pub sign: ValueId,
    /// Significand with its leading one at bit 63 (I64); meaningless for zero, inf, NaN.
    pub m: ValueId,
    /// The exponent of bit 63 of `m` (I64).
    pub e: ValueId,
    pub zero: ValueId,
    pub inf: ValueId,
    pub nan: ValueId,
}

// Small IR helpers, everything in 64 bits.

pub(super) fn k(cx: &mut Cx<'_>, v: u64) -> ValueId {
    cx.b.konst(Ty::I64, v)
}

pub(super) fn ks(cx: &mut Cx<'_>, v: i64) -> ValueId {
    cx.b.konst(Ty::I64, v as u64)
}

pub(super) fn and(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    cx.b.bin(BinOp::And, a, b)
}

pub(super) fn or(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    cx.b.bin(BinOp::Or, a, b)
}

pub(super) fn not(cx: &mut Cx<'_>, a: ValueId) -> ValueId {
    cx.b.un(UnOp::Not, a)
}

pub(super) fn is(cx: &mut Cx<'_>, a: ValueId, v: u64) -> ValueId {
    let c = k(cx, v);
    cx.b.bin(BinOp::IEq, a, c)
}

pub(super) fn false_(cx: &mut Cx<'_>) -> ValueId {
    cx.b.konst(Ty::Bool, 0)
}

/// `a >> s` for a variable shift that may be 64 or more (0 then).
pub(super) fn shr_wide(cx: &mut Cx<'_>, a: ValueId, s: ValueId) -> ValueId {
    let lim = k(cx, 63);
    let big = cx.b.bin(BinOp::UGt, s, lim);
    let safe = cx.b.select(big, lim, s);
    let r = cx.b.bin(BinOp::LShr, a, safe);
    let zero = k(cx, 0);
    cx.b.select(big, zero, r)
}

/// The bits of `v` zero-extended to 64.
pub(super) fn bits64(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let i = cx.b.as_int(v);
    cx.b.conv(ConvOp::ZExt, i, Ty::I64)
}

/// `x` shifted left until bit 63 is set, and the shift (binary search; Vulkan's FindUMsb is
/// 32-bit only). For 0 the result is 0.
pub(super) fn normalize(cx: &mut Cx<'_>, x: ValueId) -> (ValueId, ValueId) {
    let mut x = x;
    let mut lz = k(cx, 0);
    for s in [32u64, 16, 8, 4, 2, 1] {
        let sh = k(cx, 64 - s);
        let top = cx.b.bin(BinOp::LShr, x, sh);
        let empty = is(cx, top, 0);
        let sv = k(cx, s);
        let moved = cx.b.bin(BinOp::Shl, x, sv);
        x = cx.b.select(empty, moved, x);
        let more = cx.b.bin(BinOp::IAdd, lz, sv);
        lz = cx.b.select(empty, more, lz);
    }
    (x, lz)
}

/// Unpacks float bits (in the low bits of an I64) of format `f`. `ftz` flushes subnormal inputs
/// to zero of the same sign.
pub(super) fn unpack_float(cx: &mut Cx<'_>, bits: ValueId, f: FloatFormat, ftz: bool) -> Unpacked {
    let mant_sh = k(cx, u64::from(f.mant));
    let e_field = cx.b.bin(BinOp::LShr, bits, mant_sh);
    let emask = k(cx, (1 << f.exp) - 1);
    let e_field = and(cx, e_field, emask);
    let fmask = k(cx, (1 << f.mant) - 1);
    let frac = and(cx, bits, fmask);
    let sign_sh = k(cx, u64::from(f.width() - 1));
    let s = cx.b.bin(BinOp::LShr, bits, sign_sh);
    let one = k(cx, 1);
    let s = and(cx, s, one);
    let sign = is(cx, s, 1);
    let sub = is(cx, e_field, 0);
    let frac_zero = is(cx, frac, 0);
    let max = is(cx, e_field, (1 << f.exp) - 1);
    let mut zero = and(cx, sub, frac_zero);
    if ftz {
        zero = sub;
    }
    let inf = and(cx, max, frac_zero);
    let frac_nz = not(cx, frac_zero);
    let nan = and(cx, max, frac_nz);
    let hidden = k(cx, 1 << f.mant);
    let with_hidden = or(cx, frac, hidden);
    let sig = cx.b.select(sub, frac, with_hidden);
    let one_e = k(cx, 1);
    let e_eff = cx.b.select(sub, one_e, e_field);
    // value = sig * 2^(e_eff - bias - mant); bit 63 of the normalized significand weighs
    // 2^(e_eff - bias - mant + 63 - lz).
    let (m, lz) = normalize(cx, sig);
    let adj = ks(cx, 63 - f.bias() - i64::from(f.mant));
    let e = cx.b.bin(BinOp::IAdd, e_eff, adj);
    let e = cx.b.bin(BinOp::ISub, e, lz);
    Unpacked {
        sign,
        m,
        e,
        zero,
        inf,
        nan,
    }
}

/// Unpacks an integer held in an I64 (sign-extended if `signed`).
pub(super) fn unpack_int(cx: &mut Cx<'_>, v: ValueId, signed: bool) -> Unpacked {
    let sign = if signed {
        let z = k(cx, 0);
        cx.b.bin(BinOp::SLt, v, z)
    } else {
        false_(cx)
    };
    let neg = cx.b.un(UnOp::INeg, v);
    let mag = cx.b.select(sign, neg, v);
    magnitude(cx, sign, mag)
}

/// The unpacked form of the integer `mag` (u64) with sign `sign`.
pub(super) fn magnitude(cx: &mut Cx<'_>, sign: ValueId, mag: ValueId) -> Unpacked {
    let zero = is(cx, mag, 0);
    let (m, lz) = normalize(cx, mag);
    let c63 = k(cx, 63);
    let e = cx.b.bin(BinOp::ISub, c63, lz);
    let f = false_(cx);
    Unpacked {
        sign,
        m,
        e,
        zero,
        inf: f,
        nan: f,
    }
}

/// Whether to add one unit to a truncated magnitude, given its last kept bit, the first dropped
/// bit and whether any further dropped bit is set.
pub(super) fn increment(
    cx: &mut Cx<'_>,
    mode: RoundMode,
    sign: ValueId,
    lsb: ValueId,
    round: ValueId,
    sticky: ValueId,
) -> ValueId {
    match mode {
        RoundMode::NearestEven => {
            let either = or(cx, sticky, lsb);
            and(cx, round, either)
        }
        RoundMode::NearestAway => round,
        RoundMode::Zero => false_(cx),
        RoundMode::Down => {
            let inexact = or(cx, round, sticky);
            and(cx, sign, inexact)
        }
        RoundMode::Up => {
            let inexact = or(cx, round, sticky);
            let pos = not(cx, sign);
            and(cx, pos, inexact)
        }
    }
}

/// The first bit dropped when `m` is shifted right by `shift` (0..=65), and whether any bit
/// below it is set. At 0 nothing is dropped; at 65 (`all_dropped`) the whole nonzero `m` lies
/// below the first dropped position.
pub(super) fn dropped_bits(
    cx: &mut Cx<'_>,
    m: ValueId,
    shift: ValueId,
    all_dropped: ValueId,
) -> (ValueId, ValueId) {
    let one = k(cx, 1);
    let none = is(cx, shift, 0);
    let at = cx.b.bin(BinOp::ISub, shift, one);
    let c63 = k(cx, 63);
    let past = cx.b.bin(BinOp::UGt, at, c63);
    let at = cx.b.select(past, c63, at);
    let r = cx.b.bin(BinOp::LShr, m, at);
    let r = and(cx, r, one);
    let r = is(cx, r, 1);
    let nothing = or(cx, none, all_dropped);
    let f = false_(cx);
    let round = cx.b.select(nothing, f, r);
    let below = cx.b.bin(BinOp::Shl, one, at);
    let below = cx.b.bin(BinOp::ISub, below, one);
    let below = and(cx, m, below);
    let clear = is(cx, below, 0);
    let s = not(cx, clear);
    let s = cx.b.select(none, f, s);
    let t = cx.b.konst(Ty::Bool, 1);
    let sticky = cx.b.select(all_dropped, t, s);
    (round, sticky)
}

/// Rounds a finite nonzero unpacked value to format `f` (subnormal results and overflow
/// included) and returns the bits, sign included. Zero, infinity and NaN are the caller's.
pub(super) fn round_pack(
    cx: &mut Cx<'_>,
    u: &Unpacked,
    mode: RoundMode,
    f: FloatFormat,
) -> ValueId {
    let mag = round_magnitude(cx, u, mode, f);
    let inf = k(cx, f.inf());
    let over = cx.b.bin(BinOp::UGe, mag, inf);
    // Overflow gives infinity when rounding away from zero, else the largest finite value.
    let max = k(cx, f.max_finite());
    let to_inf = match mode {
        RoundMode::NearestEven | RoundMode::NearestAway => None,
        RoundMode::Zero => Some(false_(cx)),
        RoundMode::Down => Some(u.sign),
        RoundMode::Up => Some(not(cx, u.sign)),
    };
    let ovf = match to_inf {
        None => inf,
        Some(c) => cx.b.select(c, inf, max),
    };
    let mag = cx.b.select(over, ovf, mag);
    with_sign(cx, u.sign, mag, f)
}

/// The rounded magnitude of a finite nonzero unpacked value in format `f`, as if the exponent
/// field had no upper end: a result at or past `f.inf()` has overflowed, which the caller
/// resolves as the format and the instruction say.
pub(super) fn round_magnitude(
    cx: &mut Cx<'_>,
    u: &Unpacked,
    mode: RoundMode,
    f: FloatFormat,
) -> ValueId {
    let emin = 1 - f.bias();
    // Bits dropped from the right of `m`: 63 - mant, plus the distance below the normal range.
    let emin_c = ks(cx, emin);
    let under = cx.b.bin(BinOp::ISub, emin_c, u.e);
    let z = k(cx, 0);
    let is_sub = cx.b.bin(BinOp::SGt, under, z);
    let under = cx.b.select(is_sub, under, z);
    let base = k(cx, u64::from(63 - f.mant));
    let shift = cx.b.bin(BinOp::IAdd, base, under);
    // Past 64 every bit is dropped and the value is below half the smallest subnormal: 65
    // stands for all of those.
    let c65 = k(cx, 65);
    let big = cx.b.bin(BinOp::UGt, shift, c65);
    let shift = cx.b.select(big, c65, shift);
    let all_dropped = is(cx, shift, 65);
    let q = shr_wide(cx, u.m, shift);
    let (round, sticky) = dropped_bits(cx, u.m, shift, all_dropped);
    let one = k(cx, 1);
    let l = and(cx, q, one);
    let lsb = is(cx, l, 1);
    let inc = increment(cx, mode, u.sign, lsb, round, sticky);
    let inc = cx.b.select(inc, one, z);
    let q = cx.b.bin(BinOp::IAdd, q, inc);
    // Normal: exponent field (E + bias - 1) plus q, whose hidden bit carries into it; a
    // subnormal's field is 0, and rounding up to the smallest normal carries the same way.
    let bias_m1 = ks(cx, f.bias() - 1);
    let field = cx.b.bin(BinOp::IAdd, u.e, bias_m1);
    let field = cx.b.select(is_sub, z, field);
    let mant = k(cx, u64::from(f.mant));
    let field = cx.b.bin(BinOp::Shl, field, mant);
    cx.b.bin(BinOp::IAdd, field, q)
}

pub(super) fn with_sign(cx: &mut Cx<'_>, sign: ValueId, mag: ValueId, f: FloatFormat) -> ValueId {
    let sb = k(cx, f.sign_bit());
    let z = k(cx, 0);
    let s = cx.b.select(sign, sb, z);
    or(cx, mag, s)
}

/// The full float result for an unpacked value: zero, infinity, NaN (a quiet NaN keeping the
/// sign and the top payload bits of the source format `from`) or a rounded number.
pub(super) fn to_float(
    cx: &mut Cx<'_>,
    u: &Unpacked,
    src_bits: Option<(ValueId, FloatFormat)>,
    mode: RoundMode,
    f: FloatFormat,
) -> ValueId {
    let num = round_pack(cx, u, mode, f);
    let z = k(cx, 0);
    let zero = with_sign(cx, u.sign, z, f);
    let infv = k(cx, f.inf());
    let inf = with_sign(cx, u.sign, infv, f);
    let r = cx.b.select(u.zero, zero, num);
    let r = cx.b.select(u.inf, inf, r);
    let Some((bits, from)) = src_bits else {
        return r;
    };
    let fmask = k(cx, (1 << from.mant) - 1);
    let frac = and(cx, bits, fmask);
    let payload = if from.mant >= f.mant {
        let s = k(cx, u64::from(from.mant - f.mant));
        cx.b.bin(BinOp::LShr, frac, s)
    } else {
        let s = k(cx, u64::from(f.mant - from.mant));
        cx.b.bin(BinOp::Shl, frac, s)
    };
    let quiet = k(cx, f.inf() | 1 << (f.mant - 1));
    let nan = or(cx, payload, quiet);
    let nan = with_sign(cx, u.sign, nan, f);
    cx.b.select(u.nan, nan, r)
}

/// Rounds to an integral magnitude: the magnitude (u64), and whether it does not fit in 64 bits.
pub(super) fn to_integer(cx: &mut Cx<'_>, u: &Unpacked, mode: RoundMode) -> (ValueId, ValueId) {
    // Fraction bits below the binary point: 63 - E, clamped to 0..=65.
    let c63 = ks(cx, 63);
    let fb = cx.b.bin(BinOp::ISub, c63, u.e);
    let z = k(cx, 0);
    let neg = cx.b.bin(BinOp::SLt, fb, z);
    let fb = cx.b.select(neg, z, fb);
    let c65 = k(cx, 65);
    let big = cx.b.bin(BinOp::UGt, fb, c65);
    let fb = cx.b.select(big, c65, fb);
    let q = shr_wide(cx, u.m, fb);
    let one = k(cx, 1);
    let all_dropped = is(cx, fb, 65);
    let (round, sticky) = dropped_bits(cx, u.m, fb, all_dropped);
    let l = and(cx, q, one);
    let lsb = is(cx, l, 1);
    let inc = increment(cx, mode, u.sign, lsb, round, sticky);
    let incv = cx.b.select(inc, one, z);
    let mag = cx.b.bin(BinOp::IAdd, q, incv);
    let all = k(cx, u64::MAX);
    let full = cx.b.bin(BinOp::IEq, q, all);
    let carry = and(cx, inc, full);
    let huge = cx.b.bin(BinOp::SGt, u.e, c63);
    let huge = or(cx, huge, carry);
    let huge = or(cx, huge, u.inf);
    let mag = cx.b.select(u.zero, z, mag);
    let huge = {
        let nz = not(cx, u.zero);
        and(cx, huge, nz)
    };
    (mag, huge)
}

/// The range of a PTX integer type.
pub(super) fn int_range(ty: ScalarType) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Writes the low bits of an I64 (how a conversion computes its result) as a value of type
/// `ty`.
pub(super) fn write_bits(cx: &mut Cx<'_>, dst: &Dst, ty: ScalarType, r: ValueId) {
    let t = cx.b.conv(ConvOp::Trunc, r, Ty::int(ty.bits()));
    let v = cx.b.reinterpret(t, Ty::of(ty));
    cx.write(dst, v);
}
