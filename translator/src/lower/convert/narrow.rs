//! `cvt` to and from pairs of narrow floats (fp8, fp6, fp4, ue8m0), exact on the bits like the
//! other conversions. Into a narrow format: `.rn` with `.satfinite` (which the ISA requires),
//! so a magnitude past `MAX_NORM`, infinity included, becomes `MAX_NORM`; NaN becomes the
//! format's NaN, or `+MAX_NORM` where the format has none; `.relu` makes negative results +0.
//! Out of one: every value is exact in .f16 (.bf16 for ue8m0).

use super::super::cx::Cx;
use super::round::{
    Unpacked, and, bits64, is, k, not, or, round_magnitude, to_float, unpack_float, write_bits,
};
use crate::check::inst::{CvtNarrow, Narrow};
use crate::float_format::{BF16, F16, F32, FloatFormat, RoundMode, Specials};
use crate::ir::build::Build;
use crate::ir::{BinOp, ValueId};
use crate::types::ScalarType;

pub(super) fn cvt(cx: &mut Cx<'_>, c: &CvtNarrow) {
    if c.to_narrow {
        to_narrow(cx, c);
    } else {
        from_narrow(cx, c);
    }
}

/// The two wide values, `a`'s first, as bits in I64s with their format.
fn wide_values(cx: &mut Cx<'_>, c: &CvtNarrow) -> ([ValueId; 2], FloatFormat) {
    let a = cx.read(&c.a, c.wide);
    let a = bits64(cx, a);
    if let Some(b) = &c.b {
        let b = cx.read(b, c.wide);
        let b = bits64(cx, b);
        return ([a, b], F32);
    }
    // A packed source: the upper half is `a`'s value.
    let sh = k(cx, 16);
    let hi = cx.b.bin(BinOp::LShr, a, sh);
    let mask = k(cx, 0xffff);
    let lo = and(cx, a, mask);
    let f = if c.wide == ScalarType::Bf16x2 {
        BF16
    } else {
        F16
    };
    ([hi, lo], f)
}

fn to_narrow(cx: &mut Cx<'_>, c: &CvtNarrow) {
    let ([hi, lo], from) = wide_values(cx, c);
    let slot = c.fmt.slot();
    let (hi, lo) = if c.fmt == Narrow::Ue8m0 {
        (to_ue8m0(cx, c, hi, from), to_ue8m0(cx, c, lo, from))
    } else {
        (
            to_small_float(cx, c, hi, from),
            to_small_float(cx, c, lo, from),
        )
    };
    let sh = k(cx, u64::from(slot));
    let hi = cx.b.bin(BinOp::Shl, hi, sh);
    let r = or(cx, hi, lo);
    write_bits(cx, &c.dst, c.fmt.packed_type(), r);
}

/// One value rounded to nearest even into fp8/fp6/fp4 with `.satfinite` (and `.relu`).
fn to_small_float(cx: &mut Cx<'_>, c: &CvtNarrow, bits: ValueId, from: FloatFormat) -> ValueId {
    let n = c.fmt.format();
    let u = unpack_float(cx, bits, from, false);
    let mag = round_magnitude(cx, &u, RoundMode::NearestEven, n);
    let max = k(cx, n.max_norm());
    let over = cx.b.bin(BinOp::UGt, mag, max);
    let mag = cx.b.select(over, max, mag);
    let mag = cx.b.select(u.inf, max, mag);
    let z = k(cx, 0);
    let mag = cx.b.select(u.zero, z, mag);
    let sb = k(cx, n.sign_bit());
    let s = cx.b.select(u.sign, sb, z);
    let mut r = or(cx, mag, s);
    if c.relu {
        r = cx.b.select(u.sign, z, r);
    }
    // Formats without a NaN give +MAX_NORM for one.
    let nan = k(cx, n.nan().unwrap_or(n.max_norm()));
    cx.b.select(u.nan, nan, r)
}

/// One value into `.ue8m0` (2^(bits - 127); 0xFF is NaN), rounded toward zero or up. The
/// format has no sign and no zero: the magnitude is converted, and magnitudes below 2^-127
/// give 0x00 toward zero, as zero does both ways. Past 2^127 the result is NaN, or the largest
/// value with `.satfinite`.
fn to_ue8m0(cx: &mut Cx<'_>, c: &CvtNarrow, bits: ValueId, from: FloatFormat) -> ValueId {
    // `.f32` and `.bf16` share the exponent field of `.ue8m0`: 8 bits, bias 127.
    let sh = k(cx, u64::from(from.mant));
    let field = cx.b.bin(BinOp::LShr, bits, sh);
    let emask = k(cx, 0xff);
    let field = and(cx, field, emask);
    let fmask = k(cx, (1 << from.mant) - 1);
    let frac = and(cx, bits, fmask);
    let frac_zero = is(cx, frac, 0);
    let special = is(cx, field, 0xff);
    let nan = {
        let nz = not(cx, frac_zero);
        and(cx, special, nz)
    };
    let too_big = if c.satfinite { 0xfe } else { 0xff };
    let r = if c.mode == RoundMode::Up {
        // Normal: up one unless exact. Subnormal: 2^-126 above 2^-127, else 2^-127.
        let one = k(cx, 1);
        let z = k(cx, 0);
        let inexact = not(cx, frac_zero);
        let inc = cx.b.select(inexact, one, z);
        let up = cx.b.bin(BinOp::IAdd, field, inc);
        let half = k(cx, 1 << (from.mant - 1));
        let above = cx.b.bin(BinOp::UGt, frac, half);
        let sub = cx.b.select(above, one, z);
        let is_sub = is(cx, field, 0);
        cx.b.select(is_sub, sub, up)
    } else {
        field
    };
    let past = is(cx, r, 0xff);
    let inf = and(cx, special, frac_zero);
    let past = or(cx, past, inf);
    let big = k(cx, too_big);
    let r = cx.b.select(past, big, r);
    let nanv = k(cx, 0xff);
    cx.b.select(nan, nanv, r)
}

fn from_narrow(cx: &mut Cx<'_>, c: &CvtNarrow) {
    let v = cx.read(&c.a, c.fmt.packed_type());
    let v = bits64(cx, v);
    let slot = c.fmt.slot();
    let sh = k(cx, u64::from(slot));
    let hi = cx.b.bin(BinOp::LShr, v, sh);
    let mask = k(cx, (1 << slot) - 1);
    let hi = and(cx, hi, mask);
    let lo = and(cx, v, mask);
    let (hi, lo) = if c.fmt == Narrow::Ue8m0 {
        (ue8m0_to_bf16(cx, hi), ue8m0_to_bf16(cx, lo))
    } else {
        (small_float_to_f16(cx, c, hi), small_float_to_f16(cx, c, lo))
    };
    let s16 = k(cx, 16);
    let hi = cx.b.bin(BinOp::Shl, hi, s16);
    let r = or(cx, hi, lo);
    write_bits(cx, &c.dst, c.wide, r);
}

/// One fp8/fp6/fp4 value as .f16 bits (exact); NaN gives the canonical NaN, `.relu` makes
/// negative values +0.
fn small_float_to_f16(cx: &mut Cx<'_>, c: &CvtNarrow, bits: ValueId) -> ValueId {
    let n = c.fmt.format();
    let width_mask = k(cx, (1 << n.width()) - 1);
    let bits = and(cx, bits, width_mask);
    let u = unpack_float(cx, bits, n, false);
    // Only e5m2 follows IEEE at its top exponent; e4m3 has numbers there and one NaN, the
    // fp6/fp4 formats only numbers.
    let f = cx.b.konst(crate::ir::Ty::Bool, 0);
    let mag_mask = k(cx, n.magnitude_mask());
    let mag = and(cx, bits, mag_mask);
    let (inf, nan) = match n.specials {
        Specials::Ieee => (u.inf, u.nan),
        Specials::NanOnly => (f, is(cx, mag, n.canonical_nan())),
        Specials::Finite => (f, f),
    };
    let u = Unpacked { inf, nan, ..u };
    let r = to_float(cx, &u, None, RoundMode::NearestEven, F16);
    let canon = k(cx, 0x7fff);
    let mut r = r;
    if c.relu {
        let z = k(cx, 0);
        r = cx.b.select(u.sign, z, r);
    }
    cx.b.select(nan, canon, r)
}

/// One `.ue8m0` value as .bf16 bits: 2^-127 is .bf16's subnormal 0x0040, 0xFF its NaN.
fn ue8m0_to_bf16(cx: &mut Cx<'_>, e: ValueId) -> ValueId {
    let s7 = k(cx, 7);
    let normal = cx.b.bin(BinOp::Shl, e, s7);
    let sub = k(cx, 0x40);
    let is_sub = is(cx, e, 0);
    let r = cx.b.select(is_sub, sub, normal);
    let nan = k(cx, 0x7fff);
    let is_nan = is(cx, e, 0xff);
    cx.b.select(is_nan, nan, r)
}
