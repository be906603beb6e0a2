//! The meaning of `cvt` and `cvt.pack` (ISA 8.7.6.13 and its current edition).
//!
//! Vulkan converts with round-to-nearest-even only (SPIR-V's FPRoundingMode decorations apply to
//! 16-bit stores), its float-to-integer conversions are undefined out of range, and a device may
//! flush denormals in float operations. So every conversion that involves a float is done here
//! on the bits, with 64-bit integer operations: the source is unpacked into a sign, a
//! significand `M` normalized to bit 63 and the exponent `E` of that bit (value = M * 2^(E-63)),
//! and the result is rounded once, in the requested direction, from that exact value. Every
//! result is therefore exact on every device: directed rounding, 64-bit integers to float,
//! subnormal results, overflow, NaN and saturation as the ISA defines them.

use super::Cx;
use crate::check::inst::{Cvt, CvtPack, RoundMode};
use crate::check::{Dst, Src};
use crate::ir::{BinOp, ConvOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;

/// An IEEE-style binary format: stored fraction bits and exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fmt {
    mant: u32,
    exp: u32,
}

const F16: Fmt = Fmt { mant: 10, exp: 5 };
const BF16: Fmt = Fmt { mant: 7, exp: 8 };
const TF32: Fmt = Fmt { mant: 10, exp: 8 };
const F32: Fmt = Fmt { mant: 23, exp: 8 };
const F64: Fmt = Fmt { mant: 52, exp: 11 };

impl Fmt {
    fn of(t: ScalarType) -> Fmt {
        match t {
            ScalarType::F16 | ScalarType::F16x2 => F16,
            ScalarType::Bf16 | ScalarType::Bf16x2 => BF16,
            ScalarType::Tf32 => TF32,
            ScalarType::F64 => F64,
            _ => F32,
        }
    }
    fn width(self) -> u32 {
        1 + self.exp + self.mant
    }
    fn bias(self) -> i64 {
        (1 << (self.exp - 1)) - 1
    }
    fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }
    fn inf(self) -> u64 {
        ((1 << self.exp) - 1) << self.mant
    }
    fn max_finite(self) -> u64 {
        self.inf() - 1
    }
    fn one(self) -> u64 {
        (self.bias() as u64) << self.mant
    }
    /// The NaN NVIDIA hardware produces: all bits but the sign set.
    fn canonical_nan(self) -> u64 {
        self.sign_bit() - 1
    }
}

/// A value as sign, normalized significand and exponent, with its class.
#[derive(Clone, Copy)]
struct Unpacked {
    sign: ValueId,
    /// Significand with its leading one at bit 63 (I64); meaningless for zero, inf, NaN.
    m: ValueId,
    /// The exponent of bit 63 of `m` (I64).
    e: ValueId,
    zero: ValueId,
    inf: ValueId,
    nan: ValueId,
}

// ---- small IR helpers, everything in 64 bits ----

fn k(cx: &mut Cx<'_>, v: u64) -> ValueId {
    cx.konst(Ty::I64, v)
}

fn ks(cx: &mut Cx<'_>, v: i64) -> ValueId {
    cx.konst(Ty::I64, v as u64)
}

fn and(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    cx.bin(BinOp::And, a, b)
}

fn or(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    cx.bin(BinOp::Or, a, b)
}

fn not(cx: &mut Cx<'_>, a: ValueId) -> ValueId {
    cx.un(UnOp::Not, a)
}

fn is(cx: &mut Cx<'_>, a: ValueId, v: u64) -> ValueId {
    let c = k(cx, v);
    cx.bin(BinOp::IEq, a, c)
}

fn false_(cx: &mut Cx<'_>) -> ValueId {
    cx.konst(Ty::Bool, 0)
}

/// `a >> s` for a variable shift that may be 64 or more (0 then).
fn shr_wide(cx: &mut Cx<'_>, a: ValueId, s: ValueId) -> ValueId {
    let lim = k(cx, 63);
    let big = cx.bin(BinOp::UGt, s, lim);
    let safe = cx.select(big, lim, s);
    let r = cx.bin(BinOp::LShr, a, safe);
    let zero = k(cx, 0);
    cx.select(big, zero, r)
}

/// The bits of `v` zero-extended to 64.
fn bits64(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let i = cx.as_int(v);
    cx.conv(ConvOp::ZExt, i, Ty::I64)
}

/// `x` shifted left until bit 63 is set, and the shift (binary search; Vulkan's FindUMsb is
/// 32-bit only). For 0 the result is 0.
fn normalize(cx: &mut Cx<'_>, x: ValueId) -> (ValueId, ValueId) {
    let mut x = x;
    let mut lz = k(cx, 0);
    for s in [32u64, 16, 8, 4, 2, 1] {
        let sh = k(cx, 64 - s);
        let top = cx.bin(BinOp::LShr, x, sh);
        let empty = is(cx, top, 0);
        let sv = k(cx, s);
        let moved = cx.bin(BinOp::Shl, x, sv);
        x = cx.select(empty, moved, x);
        let more = cx.bin(BinOp::IAdd, lz, sv);
        lz = cx.select(empty, more, lz);
    }
    (x, lz)
}

/// Unpacks float bits (in the low bits of an I64) of format `f`. `ftz` flushes subnormal inputs
/// to zero of the same sign.
fn unpack_float(cx: &mut Cx<'_>, bits: ValueId, f: Fmt, ftz: bool) -> Unpacked {
    let mant_sh = k(cx, u64::from(f.mant));
    let e_field = cx.bin(BinOp::LShr, bits, mant_sh);
    let emask = k(cx, (1 << f.exp) - 1);
    let e_field = and(cx, e_field, emask);
    let fmask = k(cx, (1 << f.mant) - 1);
    let frac = and(cx, bits, fmask);
    let sign_sh = k(cx, u64::from(f.width() - 1));
    let s = cx.bin(BinOp::LShr, bits, sign_sh);
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
    let sig = cx.select(sub, frac, with_hidden);
    let one_e = k(cx, 1);
    let e_eff = cx.select(sub, one_e, e_field);
    // value = sig * 2^(e_eff - bias - mant); bit 63 of the normalized significand weighs
    // 2^(e_eff - bias - mant + 63 - lz).
    let (m, lz) = normalize(cx, sig);
    let adj = ks(cx, 63 - f.bias() - i64::from(f.mant));
    let e = cx.bin(BinOp::IAdd, e_eff, adj);
    let e = cx.bin(BinOp::ISub, e, lz);
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
fn unpack_int(cx: &mut Cx<'_>, v: ValueId, signed: bool) -> Unpacked {
    let sign = if signed {
        let z = k(cx, 0);
        cx.bin(BinOp::SLt, v, z)
    } else {
        false_(cx)
    };
    let neg = cx.un(UnOp::INeg, v);
    let mag = cx.select(sign, neg, v);
    magnitude(cx, sign, mag)
}

/// The unpacked form of the integer `mag` (u64) with sign `sign`.
fn magnitude(cx: &mut Cx<'_>, sign: ValueId, mag: ValueId) -> Unpacked {
    let zero = is(cx, mag, 0);
    let (m, lz) = normalize(cx, mag);
    let c63 = k(cx, 63);
    let e = cx.bin(BinOp::ISub, c63, lz);
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
fn increment(
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
fn dropped_bits(
    cx: &mut Cx<'_>,
    m: ValueId,
    shift: ValueId,
    all_dropped: ValueId,
) -> (ValueId, ValueId) {
    let one = k(cx, 1);
    let none = is(cx, shift, 0);
    let at = cx.bin(BinOp::ISub, shift, one);
    let c63 = k(cx, 63);
    let past = cx.bin(BinOp::UGt, at, c63);
    let at = cx.select(past, c63, at);
    let r = cx.bin(BinOp::LShr, m, at);
    let r = and(cx, r, one);
    let r = is(cx, r, 1);
    let nothing = or(cx, none, all_dropped);
    let f = false_(cx);
    let round = cx.select(nothing, f, r);
    let below = cx.bin(BinOp::Shl, one, at);
    let below = cx.bin(BinOp::ISub, below, one);
    let below = and(cx, m, below);
    let clear = is(cx, below, 0);
    let s = not(cx, clear);
    let s = cx.select(none, f, s);
    let t = cx.konst(Ty::Bool, 1);
    let sticky = cx.select(all_dropped, t, s);
    (round, sticky)
}

/// Rounds a finite nonzero unpacked value to format `f` (subnormal results and overflow
/// included) and returns the bits, sign included. Zero, infinity and NaN are the caller's.
fn round_pack(cx: &mut Cx<'_>, u: &Unpacked, mode: RoundMode, f: Fmt) -> ValueId {
    let emin = 1 - f.bias();
    // Bits dropped from the right of `m`: 63 - mant, plus the distance below the normal range.
    let emin_c = ks(cx, emin);
    let under = cx.bin(BinOp::ISub, emin_c, u.e);
    let z = k(cx, 0);
    let is_sub = cx.bin(BinOp::SGt, under, z);
    let under = cx.select(is_sub, under, z);
    let base = k(cx, u64::from(63 - f.mant));
    let shift = cx.bin(BinOp::IAdd, base, under);
    // Past 64 every bit is dropped and the value is below half the smallest subnormal: 65
    // stands for all of those.
    let c65 = k(cx, 65);
    let big = cx.bin(BinOp::UGt, shift, c65);
    let shift = cx.select(big, c65, shift);
    let all_dropped = is(cx, shift, 65);
    let q = shr_wide(cx, u.m, shift);
    let (round, sticky) = dropped_bits(cx, u.m, shift, all_dropped);
    let one = k(cx, 1);
    let l = and(cx, q, one);
    let lsb = is(cx, l, 1);
    let inc = increment(cx, mode, u.sign, lsb, round, sticky);
    let inc = cx.select(inc, one, z);
    let q = cx.bin(BinOp::IAdd, q, inc);
    // Normal: exponent field (E + bias - 1) plus q, whose hidden bit carries into it; a
    // subnormal's field is 0, and rounding up to the smallest normal carries the same way.
    let bias_m1 = ks(cx, f.bias() - 1);
    let field = cx.bin(BinOp::IAdd, u.e, bias_m1);
    let field = cx.select(is_sub, z, field);
    let mant = k(cx, u64::from(f.mant));
    let field = cx.bin(BinOp::Shl, field, mant);
    let mag = cx.bin(BinOp::IAdd, field, q);
    let inf = k(cx, f.inf());
    let over = cx.bin(BinOp::UGe, mag, inf);
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
        Some(c) => cx.select(c, inf, max),
    };
    let mag = cx.select(over, ovf, mag);
    with_sign(cx, u.sign, mag, f)
}

fn with_sign(cx: &mut Cx<'_>, sign: ValueId, mag: ValueId, f: Fmt) -> ValueId {
    let sb = k(cx, f.sign_bit());
    let z = k(cx, 0);
    let s = cx.select(sign, sb, z);
    or(cx, mag, s)
}

/// The full float result for an unpacked value: zero, infinity, NaN (a quiet NaN keeping the
/// sign and the top payload bits of the source format `from`) or a rounded number.
fn to_float(
    cx: &mut Cx<'_>,
    u: &Unpacked,
    src_bits: Option<(ValueId, Fmt)>,
    mode: RoundMode,
    f: Fmt,
) -> ValueId {
    let num = round_pack(cx, u, mode, f);
    let z = k(cx, 0);
    let zero = with_sign(cx, u.sign, z, f);
    let infv = k(cx, f.inf());
    let inf = with_sign(cx, u.sign, infv, f);
    let r = cx.select(u.zero, zero, num);
    let r = cx.select(u.inf, inf, r);
    let Some((bits, from)) = src_bits else {
        return r;
    };
    let fmask = k(cx, (1 << from.mant) - 1);
    let frac = and(cx, bits, fmask);
    let payload = if from.mant >= f.mant {
        let s = k(cx, u64::from(from.mant - f.mant));
        cx.bin(BinOp::LShr, frac, s)
    } else {
        let s = k(cx, u64::from(f.mant - from.mant));
        cx.bin(BinOp::Shl, frac, s)
    };
    let quiet = k(cx, f.inf() | 1 << (f.mant - 1));
    let nan = or(cx, payload, quiet);
    let nan = with_sign(cx, u.sign, nan, f);
    cx.select(u.nan, nan, r)
}

/// Rounds to an integral magnitude: the magnitude (u64), and whether it does not fit in 64 bits.
fn to_integer(cx: &mut Cx<'_>, u: &Unpacked, mode: RoundMode) -> (ValueId, ValueId) {
    // Fraction bits below the binary point: 63 - E, clamped to 0..=65.
    let c63 = ks(cx, 63);
    let fb = cx.bin(BinOp::ISub, c63, u.e);
    let z = k(cx, 0);
    let neg = cx.bin(BinOp::SLt, fb, z);
    let fb = cx.select(neg, z, fb);
    let c65 = k(cx, 65);
    let big = cx.bin(BinOp::UGt, fb, c65);
    let fb = cx.select(big, c65, fb);
    let q = shr_wide(cx, u.m, fb);
    let one = k(cx, 1);
    let all_dropped = is(cx, fb, 65);
    let (round, sticky) = dropped_bits(cx, u.m, fb, all_dropped);
    let l = and(cx, q, one);
    let lsb = is(cx, l, 1);
    let inc = increment(cx, mode, u.sign, lsb, round, sticky);
    let incv = cx.select(inc, one, z);
    let mag = cx.bin(BinOp::IAdd, q, incv);
    let all = k(cx, u64::MAX);
    let full = cx.bin(BinOp::IEq, q, all);
    let carry = and(cx, inc, full);
    let huge = cx.bin(BinOp::SGt, u.e, c63);
    let huge = or(cx, huge, carry);
    let huge = or(cx, huge, u.inf);
    let mag = cx.select(u.zero, z, mag);
    let huge = {
        let nz = not(cx, u.zero);
        and(cx, huge, nz)
    };
    (mag, huge)
}

/// `cvt` (ISA 8.7.6.13).
pub fn cvt(cx: &mut Cx<'_>, c: &Cvt) {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let r = match c.src2.as_ref() {
        Some(b) => {
            // `.f16x2`/`.bf16x2`: `a` converted into the upper half, `b` into the lower.
            let hi = one(cx, c, &c.src);
            let lo = one(cx, c, b);
            let s = k(cx, 16);
            let hi = cx.bin(BinOp::Shl, hi, s);
            or(cx, hi, lo)
        }
        None if !st.is_float() && !dt.is_float() => {
            let v = cx.read(&c.src, st);
            let r = int_to_int(cx, c, v);
            cx.write(&c.dst, dt, r);
            return;
        }
        None => one(cx, c, &c.src),
    };
    write_bits(cx, &c.dst, dt, r);
}

/// Writes the low bits of an I64 as a value of type `ty`.
fn write_bits(cx: &mut Cx<'_>, dst: &Dst, ty: ScalarType, r: ValueId) {
    let t = cx.conv(ConvOp::Trunc, r, Ty::int(ty.bits()));
    let v = cx.reinterpret(t, Ty::of(ty));
    cx.write(dst, ty, v);
}

/// One conversion involving a float, as the destination's bits in an I64.
fn one(cx: &mut Cx<'_>, c: &Cvt, src: &Src) -> ValueId {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let v = cx.read(src, st);
    let mode = c.mode.unwrap_or(RoundMode::NearestEven);
    if !st.is_float() {
        let v = cx.as_int(v);
        let op = if st.is_signed() {
            ConvOp::SExt
        } else {
            ConvOp::ZExt
        };
        let v = cx.conv(op, v, Ty::I64);
        let u = unpack_int(cx, v, st.is_signed());
        let f = Fmt::of(dt);
        let r = to_float(cx, &u, None, mode, f);
        return float_result(cx, c, r, f);
    }
    let sf = Fmt::of(st);
    let bits = bits64(cx, v);
    let ftz_in = c.ftz && st == ScalarType::F32;
    let u = unpack_float(cx, bits, sf, ftz_in);
    if !dt.is_float() {
        return float_to_int(cx, c, &u, mode);
    }
    let f = Fmt::of(dt);
    if c.integer {
        // Same type, rounded to an integral value: values at or past 2^mant are integral
        // already; others are rounded to an integer and converted back, exactly.
        let (mag, _) = to_integer(cx, &u, mode);
        let int = magnitude(cx, u.sign, mag);
        let rounded = round_pack(cx, &int, RoundMode::NearestEven, f);
        let z = k(cx, 0);
        let signed_zero = with_sign(cx, u.sign, z, f);
        let int_zero = is(cx, mag, 0);
        let rounded = cx.select(int_zero, signed_zero, rounded);
        let lim = ks(cx, i64::from(sf.mant));
        let integral = cx.bin(BinOp::SGe, u.e, lim);
        let special = or(cx, u.inf, u.nan);
        let keep = or(cx, integral, special);
        let keep = or(cx, keep, u.zero);
        // A flushed input keeps only its sign.
        let input = if ftz_in {
            cx.select(u.zero, signed_zero, bits)
        } else {
            bits
        };
        let r = cx.select(keep, input, rounded);
        return float_result(cx, c, r, f);
    }
    let r = to_float(cx, &u, Some((bits, sf)), mode, f);
    float_result(cx, c, r, f)
}

/// `.ftz` (f32 results), `.sat`, `.relu` and `.satfinite` on a float result.
fn float_result(cx: &mut Cx<'_>, c: &Cvt, r: ValueId, f: Fmt) -> ValueId {
    let mut r = r;
    let sb = k(cx, f.sign_bit());
    let z = k(cx, 0);
    let mag_mask = k(cx, f.sign_bit() - 1);
    let mag = and(cx, r, mag_mask);
    let inf = k(cx, f.inf());
    let nan = cx.bin(BinOp::UGt, mag, inf);
    let s = and(cx, r, sb);
    let s_zero = is_zero(cx, s);
    let negative = not(cx, s_zero);
    if c.ftz && c.dst_ty == ScalarType::F32 {
        let e = k(cx, f.inf());
        let ef = and(cx, r, e);
        let sub = is(cx, ef, 0);
        r = cx.select(sub, s, r);
    }
    if c.sat {
        // Clamp to [0, 1]; NaN gives +0.
        let one = k(cx, f.one());
        let above = cx.bin(BinOp::UGt, r, one);
        let clamped = cx.select(above, one, r);
        let low = or(cx, negative, nan);
        r = cx.select(low, z, clamped);
    }
    if c.satfinite {
        let is_inf = cx.bin(BinOp::IEq, mag, inf);
        let max = k(cx, f.max_finite());
        let m = with_sign(cx, negative, max, f);
        r = cx.select(is_inf, m, r);
    }
    if c.relu {
        // After `.satfinite`, which keeps the sign: negative results still become +0.
        let canon = k(cx, f.canonical_nan());
        let clamped = cx.select(negative, z, r);
        r = cx.select(nan, canon, clamped);
    }
    if c.dst_ty == ScalarType::Tf32 {
        // A .tf32 result is held as an .f32 bit pattern whose 13 low fraction bits are zero.
        let s = k(cx, 13);
        r = cx.bin(BinOp::Shl, r, s);
    }
    r
}

fn is_zero(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    is(cx, v, 0)
}

/// Float to integer: rounded as the modifier says, clamped to the destination's range; NaN
/// gives 0, or `1 << (bits - 1)` when the source is .f64 or the destination 64-bit (the ISA's
/// rule since PTX ISA 9.0, which matches the hardware).
fn float_to_int(cx: &mut Cx<'_>, c: &Cvt, u: &Unpacked, mode: RoundMode) -> ValueId {
    let dt = c.dst_ty;
    let bits = dt.bits();
    let (mag, huge) = to_integer(cx, u, mode);
    let z = k(cx, 0);
    let r = if dt.is_signed() {
        let pos_lim = k(cx, (1u64 << (bits - 1)) - 1);
        let neg_lim = k(cx, 1u64 << (bits - 1));
        let over_pos = cx.bin(BinOp::UGt, mag, pos_lim);
        let over_pos = or(cx, over_pos, huge);
        let pos = cx.select(over_pos, pos_lim, mag);
        let over_neg = cx.bin(BinOp::UGt, mag, neg_lim);
        let over_neg = or(cx, over_neg, huge);
        let m = cx.select(over_neg, neg_lim, mag);
        let neg = cx.un(UnOp::INeg, m);
        cx.select(u.sign, neg, pos)
    } else {
        let lim = k(
            cx,
            if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
        );
        let over = cx.bin(BinOp::UGt, mag, lim);
        let over = or(cx, over, huge);
        let pos = cx.select(over, lim, mag);
        cx.select(u.sign, z, pos)
    };
    let nan_value = if c.src_ty == ScalarType::F64 || bits == 64 {
        1u64 << (bits - 1)
    } else {
        0
    };
    let nv = k(cx, nan_value);
    cx.select(u.nan, nv, r)
}

/// Integer-to-integer `cvt`: extend or truncate; `.sat` clamps to the destination's range.
fn int_to_int(cx: &mut Cx<'_>, c: &Cvt, v: ValueId) -> ValueId {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let dty = Ty::of(dt);
    let ext = if st.is_signed() {
        ConvOp::SExt
    } else {
        ConvOp::ZExt
    };
    if c.sat {
        // Compare in 64 bits, in the source's signedness.
        let x = cx.conv(ext, v, Ty::I64);
        let (lo, hi) = int_range(dt);
        let x = if st.is_signed() {
            let lo_c = cx.konst(Ty::I64, lo.max(i128::from(i64::MIN)) as i64 as u64);
            let below = cx.bin(BinOp::SLt, x, lo_c);
            let x = cx.select(below, lo_c, x);
            let hi_c = cx.konst(Ty::I64, hi.min(i128::from(i64::MAX)) as u64);
            let above = cx.bin(BinOp::SGt, x, hi_c);
            cx.select(above, hi_c, x)
        } else {
            let hi_c = cx.konst(Ty::I64, hi.min(i128::from(u64::MAX)) as u64);
            let above = cx.bin(BinOp::UGt, x, hi_c);
            cx.select(above, hi_c, x)
        };
        return cx.conv(ConvOp::Trunc, x, dty);
    }
    if dty.bits() > cx.f.ty(v).bits() {
        cx.conv(ext, v, dty)
    } else {
        cx.conv(ConvOp::Trunc, v, dty)
    }
}

/// The range of a PTX integer type.
fn int_range(ty: ScalarType) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `cvt.pack.sat`: `a` and `b` saturated to the convert type and packed, `a` above `b`, into the
/// low `2 * bits` of the result; the rest comes from the low bits of `c`.
pub fn cvt_pack(cx: &mut Cx<'_>, p: &CvtPack) {
    let (lo, hi) = if p.signed {
        (-(1i64 << (p.bits - 1)), (1i64 << (p.bits - 1)) - 1)
    } else {
        (0, (1i64 << p.bits) - 1)
    };
    let sat = |cx: &mut Cx<'_>, s: &Src| {
        let v = cx.read(s, ScalarType::S32);
        let lo_c = cx.konst(Ty::I32, lo as u64);
        let hi_c = cx.konst(Ty::I32, hi as u64);
        let below = cx.bin(BinOp::SLt, v, lo_c);
        let v = cx.select(below, lo_c, v);
        let above = cx.bin(BinOp::SGt, v, hi_c);
        let v = cx.select(above, hi_c, v);
        let mask = cx.konst(Ty::I32, (1u64 << p.bits) - 1);
        cx.bin(BinOp::And, v, mask)
    };
    let a = sat(cx, &p.a);
    let b = sat(cx, &p.b);
    let sh = cx.konst(Ty::I32, u64::from(p.bits));
    let a = cx.bin(BinOp::Shl, a, sh);
    let mut d = cx.bin(BinOp::Or, a, b);
    if let Some(c) = &p.c {
        let c = cx.read(c, ScalarType::B32);
        let sh = cx.konst(Ty::I32, u64::from(2 * p.bits));
        let c = cx.bin(BinOp::Shl, c, sh);
        d = cx.bin(BinOp::Or, d, c);
    }
    cx.write(&p.dst, ScalarType::U32, d);
}
