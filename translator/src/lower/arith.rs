//! The meaning of the arithmetic instructions (ISA 8.7.1 integer, 8.7.3 floating point).

use super::Cx;
use crate::check::inst::{Arith, MulMode, Rounding};
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, UnOp, ValueId};
use crate::types::ScalarType;

fn srcs(cx: &mut Cx<'_>, a: &Arith) -> Vec<ValueId> {
    a.src.iter().map(|s| cx.read(s, a.ty)).collect()
}

/// `.rn` (or no rounding modifier) is what Vulkan does; the directed modes need emulation.
fn float_flags(cx: &mut Cx<'_>, a: &Arith) -> Option<FpFlags> {
    match a.rnd {
        None => Some(FpFlags { exact: false }),
        Some(Rounding::Rn) => Some(FpFlags { exact: true }),
        Some(r) => {
            cx.unsupported(format!(
                "rounding mode .{}",
                format!("{r:?}").to_lowercase()
            ));
            None
        }
    }
}

/// `.ftz` on an f32 value: subnormals become zero of the same sign.
pub(super) fn flush(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let bits = cx.as_int(v);
    let exp_mask = cx.konst(Ty::I32, 0x7f80_0000);
    let exp = cx.bin(BinOp::And, bits, exp_mask);
    let zero = cx.konst(Ty::I32, 0);
    let is_sub = cx.bin(BinOp::IEq, exp, zero);
    let sign_mask = cx.konst(Ty::I32, 0x8000_0000);
    let sign = cx.bin(BinOp::And, bits, sign_mask);
    let flushed = cx.select(is_sub, sign, bits);
    cx.reinterpret(flushed, Ty::F32)
}

fn flush_all(cx: &mut Cx<'_>, a: &Arith, vs: Vec<ValueId>) -> Vec<ValueId> {
    if a.ftz && a.ty == ScalarType::F32 {
        vs.into_iter().map(|v| flush(cx, v)).collect()
    } else {
        vs
    }
}

/// `.sat` on a float: clamp to [0, 1], NaN to +0.
pub(super) fn saturate(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let ty = cx.f.ty(v);
    let (zero, one) = match ty {
        Ty::F64 => (0u64, 1f64.to_bits()),
        Ty::F16 => (0, u64::from(half::f16::ONE.to_bits())),
        _ => (0, u64::from(1f32.to_bits())),
    };
    let zero = cx.konst(ty, zero);
    let one = cx.konst(ty, one);
    let pos = cx.bin(BinOp::FOrdGt, v, zero);
    let low = cx.select(pos, v, zero);
    let lt1 = cx.bin(BinOp::FOrdLt, low, one);
    cx.select(lt1, low, one)
}

/// Rounding, `.ftz` and `.sat` around a float operation.
fn float_result(cx: &mut Cx<'_>, a: &Arith, mut r: ValueId) -> ValueId {
    if a.ftz && a.ty == ScalarType::F32 {
        r = flush(cx, r);
    }
    if a.sat {
        r = saturate(cx, r);
    }
    r
}

/// Saturating signed 32-bit result of `wide` (an i64 sum).
fn clamp_s32(cx: &mut Cx<'_>, wide: ValueId) -> ValueId {
    let max = cx.konst(Ty::I64, i32::MAX as u64);
    let min = cx.konst(Ty::I64, i32::MIN as i64 as u64);
    let hi = cx.bin(BinOp::SGt, wide, max);
    let v = cx.select(hi, max, wide);
    let lo = cx.bin(BinOp::SLt, v, min);
    let v = cx.select(lo, min, v);
    cx.conv(ConvOp::Trunc, v, Ty::I32)
}

pub(super) fn sat_add_s32(cx: &mut Cx<'_>, x: ValueId, y: ValueId, sub: bool) -> ValueId {
    let x = cx.conv(ConvOp::SExt, x, Ty::I64);
    let y = cx.conv(ConvOp::SExt, y, Ty::I64);
    let s = cx.bin(if sub { BinOp::ISub } else { BinOp::IAdd }, x, y);
    clamp_s32(cx, s)
}

fn add_sub(cx: &mut Cx<'_>, a: &Arith, sub: bool) {
    let v = srcs(cx, a);
    let r = if a.ty.is_float() {
        let Some(flags) = float_flags(cx, a) else {
            return;
        };
        let v = flush_all(cx, a, v);
        let op = if sub { BinOp::FSub } else { BinOp::FAdd };
        let r = cx.bin_flags(op, v[0], v[1], flags);
        float_result(cx, a, r)
    } else if a.sat {
        sat_add_s32(cx, v[0], v[1], sub)
    } else {
        cx.bin(if sub { BinOp::ISub } else { BinOp::IAdd }, v[0], v[1])
    };
    cx.write(&a.dst, a.ty, r);
}

pub fn add(cx: &mut Cx<'_>, a: &Arith) {
    add_sub(cx, a, false);
}

pub fn sub(cx: &mut Cx<'_>, a: &Arith) {
    add_sub(cx, a, true);
}

/// The integer product in `mode`: the low half, the high half, or the double-width product.
fn int_mul(cx: &mut Cx<'_>, ty: ScalarType, mode: MulMode, x: ValueId, y: ValueId) -> ValueId {
    match mode {
        MulMode::Lo => cx.bin(BinOp::IMul, x, y),
        MulMode::Hi => cx.bin(
            if ty.is_signed() {
                BinOp::SMulHi
            } else {
                BinOp::UMulHi
            },
            x,
            y,
        ),
        MulMode::Wide => {
            let wide = Ty::int(ty.bits() * 2);
            let ext = if ty.is_signed() {
                ConvOp::SExt
            } else {
                ConvOp::ZExt
            };
            let x = cx.conv(ext, x, wide);
            let y = cx.conv(ext, y, wide);
            cx.bin(BinOp::IMul, x, y)
        }
    }
}

fn wide_type(a: &Arith) -> ScalarType {
    if a.mode != MulMode::Wide {
        return a.ty;
    }
    let bits = a.ty.bits() * 2;
    let t = if a.ty.is_signed() {
        ScalarType::signed_of_bits(bits)
    } else {
        ScalarType::unsigned_of_bits(bits)
    };
    t.unwrap_or(a.ty)
}

pub fn mul(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    if a.ty.is_float() {
        let Some(flags) = float_flags(cx, a) else {
            return;
        };
        let v = flush_all(cx, a, v);
        let r = cx.bin_flags(BinOp::FMul, v[0], v[1], flags);
        let r = float_result(cx, a, r);
        cx.write(&a.dst, a.ty, r);
        return;
    }
    let r = int_mul(cx, a.ty, a.mode, v[0], v[1]);
    cx.write(&a.dst, wide_type(a), r);
}

pub fn mad(cx: &mut Cx<'_>, a: &Arith) {
    if a.ty.is_float() {
        // Since sm_20, `mad.rnd.f32` is fused: the same as `fma.rnd.f32` (ISA 8.7.3.7).
        fma(cx, a);
        return;
    }
    let wide = wide_type(a);
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let c = cx.read(&a.src[2], wide);
    let p = int_mul(cx, a.ty, a.mode, x, y);
    let r = if a.sat {
        sat_add_s32(cx, p, c, false)
    } else {
        cx.bin(BinOp::IAdd, p, c)
    };
    cx.write(&a.dst, wide, r);
}

pub fn fma(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    if let Some(r) = a.rnd.filter(|r| *r != Rounding::Rn) {
        cx.unsupported(format!(
            "rounding mode .{}",
            format!("{r:?}").to_lowercase()
        ));
        return;
    }
    let v = flush_all(cx, a, v);
    let fused = match a.ty {
        ScalarType::F64 => cx.profile.fused_fma64,
        _ => cx.profile.fused_fma32,
    };
    let r = if fused {
        cx.ext(ExtOp::Fma, v, FpFlags { exact: true })
    } else if a.ty == ScalarType::F32 && cx.profile.float64 {
        fma_f32_via_f64(cx, v[0], v[1], v[2])
    } else if a.ty == ScalarType::F32 {
        cx.missing_feature("a fused multiply-add or float64 (to emulate one)");
        return;
    } else {
        cx.unsupported("`fma.f64` on a device whose fma is not fused");
        return;
    };
    let r = float_result(cx, a, r);
    cx.write(&a.dst, a.ty, r);
}

/// A correctly rounded f32 fma from f64 arithmetic: the product is exact in f64; the sum is
/// rounded to odd (RN, then TwoSum's error decides the last bit), and rounding that to f32 is
/// then correct because f64 has more than 2 * 24 + 2 bits (Boldo and Melquiond, "Emulation of
/// FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008).
fn fma_f32_via_f64(cx: &mut Cx<'_>, a: ValueId, b: ValueId, c: ValueId) -> ValueId {
    let exact = FpFlags { exact: true };
    let a = cx.conv(ConvOp::FConvert, a, Ty::F64);
    let b = cx.conv(ConvOp::FConvert, b, Ty::F64);
    let c = cx.conv(ConvOp::FConvert, c, Ty::F64);
    let p = cx.bin_flags(BinOp::FMul, a, b, exact);
    let s = cx.bin_flags(BinOp::FAdd, p, c, exact);
    // TwoSum: e = (p + c) - s exactly.
    let bb = cx.bin_flags(BinOp::FSub, s, p, exact);
    let s_bb = cx.bin_flags(BinOp::FSub, s, bb, exact);
    let dp = cx.bin_flags(BinOp::FSub, p, s_bb, exact);
    let dc = cx.bin_flags(BinOp::FSub, c, bb, exact);
    let e = cx.bin_flags(BinOp::FAdd, dp, dc, exact);
    // Round to odd: if inexact and the last bit is even, step one ulp toward the exact sum.
    let zero = cx.konst(Ty::F64, 0);
    let inexact = cx.bin(BinOp::FOrdNe, e, zero);
    let bits = cx.as_int(s);
    let one = cx.konst(Ty::I64, 1);
    let low = cx.bin(BinOp::And, bits, one);
    let zero_i = cx.konst(Ty::I64, 0);
    let even = cx.bin(BinOp::IEq, low, zero_i);
    let inf = cx.un(UnOp::IsInf, s);
    let nan = cx.un(UnOp::IsNan, s);
    let special = cx.bin(BinOp::Or, inf, nan);
    let finite = cx.un(UnOp::Not, special);
    let adjust = cx.bin(BinOp::And, inexact, even);
    let adjust = cx.bin(BinOp::And, adjust, finite);
    // Same signs: away from zero (bits + 1); opposite: toward zero (bits - 1).
    let s_neg = cx.bin(BinOp::FOrdLt, s, zero);
    let e_neg = cx.bin(BinOp::FOrdLt, e, zero);
    let same = cx.bin(BinOp::IEq, s_neg, e_neg);
    let up = cx.bin(BinOp::IAdd, bits, one);
    let down = cx.bin(BinOp::ISub, bits, one);
    let stepped = cx.select(same, up, down);
    let odd_bits = cx.select(adjust, stepped, bits);
    let odd = cx.reinterpret(odd_bits, Ty::F64);
    cx.conv(ConvOp::FConvert, odd, Ty::F32)
}

pub fn div(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    if a.ty.is_float() {
        if a.rnd.is_some_and(|r| r != Rounding::Rn) {
            cx.unsupported("directed rounding of `div`");
            return;
        }
        let v = flush_all(cx, a, v);
        let exact = a.rnd.is_some();
        let r = cx.bin_flags(BinOp::FDiv, v[0], v[1], FpFlags { exact });
        let r = float_result(cx, a, r);
        cx.write(&a.dst, a.ty, r);
        return;
    }
    let r = int_div_rem(cx, a.ty, v[0], v[1], false);
    cx.write(&a.dst, a.ty, r);
}

pub fn rem(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let r = int_div_rem(cx, a.ty, v[0], v[1], true);
    cx.write(&a.dst, a.ty, r);
}

/// Integer division and remainder. The ISA leaves division by zero "unspecified"; we give what
/// NVIDIA hardware gives (quotient all ones for unsigned, -1/+1 by the dividend's sign for
/// signed; remainder = dividend), and `MIN / -1` wraps. Either way the driver never sees a
/// division it could trap on.
fn int_div_rem(cx: &mut Cx<'_>, ty: ScalarType, x: ValueId, y: ValueId, rem: bool) -> ValueId {
    let t = cx.f.ty(x);
    let zero = cx.konst(t, 0);
    let one = cx.konst(t, 1);
    let is_zero = cx.bin(BinOp::IEq, y, zero);
    let mut safe_y = cx.select(is_zero, one, y);
    let signed = ty.is_signed();
    if signed {
        // MIN / -1 overflows: divide by 1 instead and negate (wrapping gives MIN again).
        let min = cx.konst(t, 1u64 << (t.bits() - 1));
        let minus_one = cx.konst(t, u64::MAX);
        let x_min = cx.bin(BinOp::IEq, x, min);
        let y_m1 = cx.bin(BinOp::IEq, y, minus_one);
        let overflow = cx.bin(BinOp::And, x_min, y_m1);
        safe_y = cx.select(overflow, one, safe_y);
    }
    let op = match (rem, signed) {
        (false, false) => BinOp::UDiv,
        (false, true) => BinOp::SDiv,
        (true, false) => BinOp::UMod,
        (true, true) => BinOp::SRem,
    };
    let r = cx.bin(op, x, safe_y);
    if rem {
        // x % 0 = x; MIN % -1 = 0 (x % 1 = 0).
        return cx.select(is_zero, x, r);
    }
    let by_zero = if signed {
        let neg = cx.bin(BinOp::SLt, x, zero);
        let minus_one = cx.konst(t, u64::MAX);
        cx.select(neg, one, minus_one)
    } else {
        cx.konst(t, u64::MAX)
    };
    cx.select(is_zero, by_zero, r)
}

pub fn abs(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let v = flush_all(cx, a, v);
    let op = if a.ty.is_float() {
        ExtOp::FAbs
    } else {
        ExtOp::SAbs
    };
    let r = cx.ext(op, v, FpFlags::default());
    cx.write(&a.dst, a.ty, r);
}

pub fn neg(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let v = flush_all(cx, a, v);
    let op = if a.ty.is_float() {
        UnOp::FNeg
    } else {
        UnOp::INeg
    };
    let r = cx.un(op, v[0]);
    cx.write(&a.dst, a.ty, r);
}

/// `min`/`max`. Floats: a NaN operand yields the other operand; two NaNs (or any NaN with
/// `.NaN`) yield the canonical NaN.
pub fn min_max(cx: &mut Cx<'_>, a: &Arith, max: bool) {
    let v = srcs(cx, a);
    let v = flush_all(cx, a, v);
    if !a.ty.is_float() {
        let op = match (max, a.ty.is_signed()) {
            (false, false) => ExtOp::UMin,
            (false, true) => ExtOp::SMin,
            (true, false) => ExtOp::UMax,
            (true, true) => ExtOp::SMax,
        };
        let r = cx.ext(op, v, FpFlags::default());
        cx.write(&a.dst, a.ty, r);
        return;
    }
    let (x, y) = (v[0], v[1]);
    let cmp = if max { BinOp::FOrdGt } else { BinOp::FOrdLt };
    // Ordered pick; on equality prefer the operand whose sign makes -0 < +0 hold.
    let lt = cx.bin(cmp, x, y);
    let picked = cx.select(lt, x, y);
    let xi = cx.as_int(x);
    let yi = cx.as_int(y);
    let merged = if max {
        cx.bin(BinOp::And, xi, yi)
    } else {
        cx.bin(BinOp::Or, xi, yi)
    };
    let merged = cx.reinterpret(merged, cx.f.ty(x));
    let eq = cx.bin(BinOp::FOrdEq, x, y);
    let picked = cx.select(eq, merged, picked);
    let x_nan = cx.un(UnOp::IsNan, x);
    let y_nan = cx.un(UnOp::IsNan, y);
    let nan_bits = match a.ty {
        ScalarType::F64 => 0x7ff8_0000_0000_0000u64,
        _ => 0x7fff_ffff,
    };
    let ty = cx.f.ty(x);
    let nan = cx.konst(ty, nan_bits);
    let r = if a.nan {
        let any = cx.bin(BinOp::Or, x_nan, y_nan);
        cx.select(any, nan, picked)
    } else {
        let r = cx.select(x_nan, y, picked);
        let r = cx.select(y_nan, x, r);
        let both = cx.bin(BinOp::And, x_nan, y_nan);
        cx.select(both, nan, r)
    };
    cx.write(&a.dst, a.ty, r);
}
