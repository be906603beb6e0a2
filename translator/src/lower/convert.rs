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

mod fast;
mod narrow;
mod round;

use super::cx::Cx;
use crate::check::Src;
use crate::check::inst::{Cvt, CvtNarrow, CvtPack};
use crate::float_format::{F32, FloatFormat, RoundMode, TF32};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;
use round::{
    Unpacked, and, bits64, int_range, is, k, ks, magnitude, not, or, round_pack, to_float,
    to_integer, unpack_float, unpack_int, with_sign, write_bits,
};

/// `cvt` (ISA 8.7.6.13).
pub fn cvt(cx: &mut Cx<'_>, c: &Cvt) {
    if fast::cvt(cx, c) {
        return;
    }
    let (dt, st) = (c.dst_ty, c.src_ty);
    let r = match c.src2.as_ref() {
        Some(b) => {
            // `.f16x2`/`.bf16x2`: `a` converted into the upper half, `b` into the lower.
            let hi = one(cx, c, &c.src);
            let lo = one(cx, c, b);
            let s = k(cx, 16);
            let hi = cx.b.bin(BinOp::Shl, hi, s);
            or(cx, hi, lo)
        }
        None if !st.is_float() && !dt.is_float() => {
            let v = cx.read(&c.src, st);
            let r = int_to_int(cx, c, v);
            cx.write(&c.dst, r);
            return;
        }
        None => one(cx, c, &c.src),
    };
    write_bits(cx, &c.dst, dt, r);
}

/// `cvt` to or from a pair of fp8/fp6/fp4/ue8m0 values.
pub fn cvt_narrow(cx: &mut Cx<'_>, c: &CvtNarrow) {
    narrow::cvt(cx, c);
}

/// One conversion involving a float, as the destination's bits in an I64.
fn one(cx: &mut Cx<'_>, c: &Cvt, src: &Src) -> ValueId {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let v = cx.read(src, st);
    let mode = c.mode.unwrap_or(RoundMode::NearestEven);
    #[cfg(feature = "fault-injection")]
    let mode = match mode {
        _ if !crate::fault::active(crate::fault::Fault::SwapIntegerRounding) => mode,
        _ if dt.is_float() && !c.integer => mode,
        RoundMode::NearestEven => RoundMode::Zero,
        RoundMode::Zero => RoundMode::NearestEven,
        other => other,
    };
    if !st.is_float() {
        let v = cx.b.as_int(v);
        let op = if st.is_signed() {
            ConvOp::SExt
        } else {
            ConvOp::ZExt
        };
        let v = cx.b.conv(op, v, Ty::I64);
        let u = unpack_int(cx, v, st.is_signed());
        let f = FloatFormat::of(dt);
        let r = to_float(cx, &u, None, mode, f);
        return float_result(cx, c, r, f);
    }
    let sf = FloatFormat::of(st);
    let bits = bits64(cx, v);
    let ftz_in = c.ftz && st == ScalarType::F32;
    let u = unpack_float(cx, bits, sf, ftz_in);
    if !dt.is_float() {
        return float_to_int(cx, c, &u, mode);
    }
    let f = FloatFormat::of(dt);
    if c.integer {
        // Same type, rounded to an integral value: values at or past 2^mant are integral
        // already; others are rounded to an integer and converted back, exactly.
        let (mag, _) = to_integer(cx, &u, mode);
        let int = magnitude(cx, u.sign, mag);
        let rounded = round_pack(cx, &int, RoundMode::NearestEven, f);
        let z = k(cx, 0);
        let signed_zero = with_sign(cx, u.sign, z, f);
        let int_zero = is(cx, mag, 0);
        let rounded = cx.b.select(int_zero, signed_zero, rounded);
        let lim = ks(cx, i64::from(sf.mant));
        let integral = cx.b.bin(BinOp::SGe, u.e, lim);
        let special = or(cx, u.inf, u.nan);
        let keep = or(cx, integral, special);
        let keep = or(cx, keep, u.zero);
        // A flushed input keeps only its sign.
        let input = if ftz_in {
            cx.b.select(u.zero, signed_zero, bits)
        } else {
            bits
        };
        let r = cx.b.select(keep, input, rounded);
        return float_result(cx, c, r, f);
    }
    let r = to_float(cx, &u, Some((bits, sf)), mode, f);
    float_result(cx, c, r, f)
}

/// `.ftz` (f32 results), `.sat`, `.relu` and `.satfinite` on a float result.
fn float_result(cx: &mut Cx<'_>, c: &Cvt, r: ValueId, f: FloatFormat) -> ValueId {
    let mut r = r;
    let sb = k(cx, f.sign_bit());
    let z = k(cx, 0);
    let mag_mask = k(cx, f.sign_bit() - 1);
    let mag = and(cx, r, mag_mask);
    let inf = k(cx, f.inf());
    let nan = cx.b.bin(BinOp::UGt, mag, inf);
    let s = and(cx, r, sb);
    let s_zero = is_zero(cx, s);
    let negative = not(cx, s_zero);
    if c.ftz && c.dst_ty == ScalarType::F32 {
        let e = k(cx, f.inf());
        let ef = and(cx, r, e);
        let sub = is(cx, ef, 0);
        r = cx.b.select(sub, s, r);
    }
    if c.sat {
        // Clamp to [0, 1]; NaN gives +0.
        let one = k(cx, f.one());
        let above = cx.b.bin(BinOp::UGt, r, one);
        let clamped = cx.b.select(above, one, r);
        let low = or(cx, negative, nan);
        r = cx.b.select(low, z, clamped);
    }
    if c.satfinite {
        let is_inf = cx.b.bin(BinOp::IEq, mag, inf);
        let max = k(cx, f.max_finite());
        let m = with_sign(cx, negative, max, f);
        r = cx.b.select(is_inf, m, r);
    }
    if c.relu {
        // After `.satfinite`, which keeps the sign: negative results still become +0.
        let canon = k(cx, f.canonical_nan());
        let clamped = cx.b.select(negative, z, r);
        r = cx.b.select(nan, canon, clamped);
    }
    if c.dst_ty == ScalarType::Tf32 {
        // A .tf32 result is held as an .f32 bit pattern whose low fraction bits are zero.
        let s = k(cx, u64::from(TF32.fraction_gap(F32)));
        r = cx.b.bin(BinOp::Shl, r, s);
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
        let over_pos = cx.b.bin(BinOp::UGt, mag, pos_lim);
        let over_pos = or(cx, over_pos, huge);
        let pos = cx.b.select(over_pos, pos_lim, mag);
        let over_neg = cx.b.bin(BinOp::UGt, mag, neg_lim);
        let over_neg = or(cx, over_neg, huge);
        let m = cx.b.select(over_neg, neg_lim, mag);
        let neg = cx.b.un(UnOp::INeg, m);
        cx.b.select(u.sign, neg, pos)
    } else {
        let lim = k(
            cx,
            if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
        );
        let over = cx.b.bin(BinOp::UGt, mag, lim);
        let over = or(cx, over, huge);
        let pos = cx.b.select(over, lim, mag);
        cx.b.select(u.sign, z, pos)
    };
    let nan_value = if c.src_ty == ScalarType::F64 || bits == 64 {
        1u64 << (bits - 1)
    } else {
        0
    };
    let nv = k(cx, nan_value);
    cx.b.select(u.nan, nv, r)
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
        let x = cx.b.conv(ext, v, Ty::I64);
        let (lo, hi) = int_range(dt);
        let x = if st.is_signed() {
            let lo_c =
                cx.b.konst(Ty::I64, lo.max(i128::from(i64::MIN)) as i64 as u64);
            let below = cx.b.bin(BinOp::SLt, x, lo_c);
            let x = cx.b.select(below, lo_c, x);
            let hi_c = cx.b.konst(Ty::I64, hi.min(i128::from(i64::MAX)) as u64);
            let above = cx.b.bin(BinOp::SGt, x, hi_c);
            cx.b.select(above, hi_c, x)
        } else {
            let hi_c = cx.b.konst(Ty::I64, hi.min(i128::from(u64::MAX)) as u64);
            let above = cx.b.bin(BinOp::UGt, x, hi_c);
            cx.b.select(above, hi_c, x)
        };
        return cx.b.conv(ConvOp::Trunc, x, dty);
    }
    if dty.bits() > cx.b.f.ty(v).bits() {
        cx.b.conv(ext, v, dty)
    } else {
        cx.b.conv(ConvOp::Trunc, v, dty)
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
        let lo_c = cx.b.konst(Ty::I32, lo as u64);
        let hi_c = cx.b.konst(Ty::I32, hi as u64);
        let below = cx.b.bin(BinOp::SLt, v, lo_c);
        let v = cx.b.select(below, lo_c, v);
        let above = cx.b.bin(BinOp::SGt, v, hi_c);
        let v = cx.b.select(above, hi_c, v);
        let mask = cx.b.konst(Ty::I32, (1u64 << p.bits) - 1);
        cx.b.bin(BinOp::And, v, mask)
    };
    let a = sat(cx, &p.a);
    let b = sat(cx, &p.b);
    let sh = cx.b.konst(Ty::I32, u64::from(p.bits));
    let a = cx.b.bin(BinOp::Shl, a, sh);
    let mut d = cx.b.bin(BinOp::Or, a, b);
    if let Some(c) = &p.c {
        let c = cx.read(c, ScalarType::B32);
        let sh = cx.b.konst(Ty::I32, u64::from(2 * p.bits));
        let c = cx.b.bin(BinOp::Shl, c, sh);
        d = cx.b.bin(BinOp::Or, d, c);
    }
    cx.write(&p.dst, d);
}
