//! The common conversions done with the driver's own instructions where those are exact, instead
//! of unpacking and rounding the bits (about 10 IR instructions instead of 130, on the GPU too).
//!
//! What makes each exact: Vulkan converts a value that the destination represents exactly to
//! that value (only values between two representable ones may round either way), `OpFAdd` is
//! correctly rounded to nearest even (as `add.rn` already relies on), and `OpConvertFToS/U`
//! round toward zero (SPIR-V) for values in range, which the range checks here guarantee.
//! Anything else (directed rounding of wide integers, 64-bit integers to `.f32`, half
//! precision, modifiers that act on the result) takes the exact path in `convert.rs`.

use super::super::cx::Cx;
use super::round::int_range;
use crate::check::inst::Cvt;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, FpFlags, Ty, ValueId};
use crate::types::ScalarType;

/// Lowers `c` here when one of the cases above applies; `false` (nothing emitted) otherwise.
pub(super) fn cvt(cx: &mut Cx<'_>, c: &Cvt) -> bool {
    let (dt, st) = (c.dst_ty, c.src_ty);
    let plain = c.src2.is_none() && !c.sat && !c.relu && !c.satfinite;
    let f64_ok = cx.profile.float64;
    let float_ok = |t: ScalarType| t == ScalarType::F32 || (t == ScalarType::F64 && f64_ok);
    if !plain {
        return false;
    }
    let mode = c.mode.unwrap_or(RoundMode::NearestEven);
    if !st.is_float() && float_ok(dt) {
        // A result never subnormal, so `.ftz` changes nothing.
        let exact = st.bits() <= if dt == ScalarType::F32 { 16 } else { 32 };
        let split = mode == RoundMode::NearestEven && st.bits() == dt.bits();
        if !(exact || split) {
            return false;
        }
        let v = cx.read(&c.src, st);
        let v = cx.b.as_int(v);
        let r = if exact {
            to_float(cx, v, st, dt)
        } else {
            split_sum(cx, v, st, dt)
        };
        cx.write(&c.dst, r);
        return true;
    }
    if float_ok(st) && !dt.is_float() && c.integer && mode == RoundMode::Zero {
        let v = cx.read(&c.src, st);
        let r = truncate(cx, v, st, dt);
        cx.write(&c.dst, r);
        return true;
    }
    false
}

/// An integer the float type `dt` holds exactly, converted.
fn to_float(cx: &mut Cx<'_>, v: ValueId, st: ScalarType, dt: ScalarType) -> ValueId {
    let (ext, op) = if st.is_signed() {
        (ConvOp::SExt, ConvOp::SToF)
    } else {
        (ConvOp::ZExt, ConvOp::UToF)
    };
    let v = cx.b.conv(ext, v, Ty::int(st.bits().max(32)));
    cx.b.conv(op, v, Ty::of(dt))
}

/// A 32-bit integer to `.f32` or a 64-bit one to `.f64`, to nearest even: the value is split
/// into its high and low halves of bits, each converted exactly (the high half has at most half
/// the width of significant bits above its zeros), and added with one correctly rounded `FAdd`.
fn split_sum(cx: &mut Cx<'_>, v: ValueId, st: ScalarType, dt: ScalarType) -> ValueId {
    let bits = st.bits();
    let ity = Ty::int(bits);
    let low_mask = (1u64 << (bits / 2)) - 1;
    let m = cx.b.konst(ity, low_mask);
    let lo = cx.b.bin(BinOp::And, v, m);
    let m = cx.b.konst(ity, !low_mask & (u64::MAX >> (64 - bits)));
    let hi = cx.b.bin(BinOp::And, v, m);
    let hi_op = if st.is_signed() {
        ConvOp::SToF
    } else {
        ConvOp::UToF
    };
    let fty = Ty::of(dt);
    let hi = cx.b.conv(hi_op, hi, fty);
    let lo = cx.b.conv(ConvOp::UToF, lo, fty);
    cx.b.bin_flags(BinOp::FAdd, hi, lo, FpFlags { exact: true })
}

/// `cvt.rzi.{s,u}N.{f32,f64}`: out-of-range values clamp to the destination's range, NaN gives
/// what NVIDIA hardware gives (0 from `.f32` to 32 bits or fewer, else the sign bit alone);
/// in range, the driver's conversion truncates.
fn truncate(cx: &mut Cx<'_>, x: ValueId, st: ScalarType, dt: ScalarType) -> ValueId {
    let fty = Ty::of(st);
    let float = |cx: &mut Cx<'_>, v: f64| match st {
        ScalarType::F32 => cx.b.konst(fty, u64::from((v as f32).to_bits())),
        _ => cx.b.konst(fty, v.to_bits()),
    };
    let bits = dt.bits();
    let (lo, hi) = int_range(dt);
    // Both bounds are powers of two (or 0), exact in either float type.
    let above = float(cx, (hi + 1) as f64);
    let above = cx.b.bin(BinOp::FOrdGe, x, above);
    let below = float(cx, lo as f64);
    let below = cx.b.bin(BinOp::FOrdLt, x, below);
    let nan = cx.b.bin(BinOp::FUnordNe, x, x);
    let out = cx.b.bin(BinOp::Or, above, below);
    let out = cx.b.bin(BinOp::Or, out, nan);
    let zero = float(cx, 0.0);
    let safe = cx.b.select(out, zero, x);
    let wide = Ty::int(bits.max(32));
    let op = if dt.is_signed() {
        ConvOp::FToS
    } else {
        ConvOp::FToU
    };
    let r = cx.b.conv(op, safe, wide);
    let mask = u64::MAX >> (64 - wide.bits());
    let konst = |cx: &mut Cx<'_>, v: i128| cx.b.konst(wide, (v as u64) & mask);
    let nan_value = if st == ScalarType::F64 || bits == 64 {
        1i128 << (bits - 1)
    } else {
        0
    };
    let nv = konst(cx, nan_value);
    let r = cx.b.select(nan, nv, r);
    let lo = konst(cx, lo);
    let r = cx.b.select(below, lo, r);
    let hi = konst(cx, hi);
    let r = cx.b.select(above, hi, r);
    cx.b.conv(ConvOp::Trunc, r, Ty::of(dt))
}
