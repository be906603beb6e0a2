//! The meaning of the integer arithmetic instructions (ISA 8.7.1). Floating point is in
//! `float.rs`.

use super::cx::Cx;
use crate::check::inst::{Arith, MulMode};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, UnOp, ValueId};
use crate::types::ScalarType;

fn srcs(cx: &mut Cx<'_>, a: &Arith) -> smallvec::SmallVec<[ValueId; 3]> {
    a.src.iter().map(|s| cx.read(s, a.ty)).collect()
}

/// Saturating signed 32-bit result of `wide` (an i64 sum).
fn clamp_s32(cx: &mut Cx<'_>, wide: ValueId) -> ValueId {
    let max = cx.b.konst(Ty::I64, i32::MAX as u64);
    let min = cx.b.konst(Ty::I64, i32::MIN as i64 as u64);
    let hi = cx.b.bin(BinOp::SGt, wide, max);
    let v = cx.b.select(hi, max, wide);
    let lo = cx.b.bin(BinOp::SLt, v, min);
    let v = cx.b.select(lo, min, v);
    cx.b.conv(ConvOp::Trunc, v, Ty::I32)
}

pub(super) fn sat_add_s32(cx: &mut Cx<'_>, x: ValueId, y: ValueId, sub: bool) -> ValueId {
    let x = cx.b.conv(ConvOp::SExt, x, Ty::I64);
    let y = cx.b.conv(ConvOp::SExt, y, Ty::I64);
    let s = cx.b.bin(if sub { BinOp::ISub } else { BinOp::IAdd }, x, y);
    clamp_s32(cx, s)
}

fn add_sub(cx: &mut Cx<'_>, a: &Arith, sub: bool) {
    let v = srcs(cx, a);
    let r = if a.sat {
        sat_add_s32(cx, v[0], v[1], sub)
    } else {
        cx.b.bin(if sub { BinOp::ISub } else { BinOp::IAdd }, v[0], v[1])
    };
    cx.write(&a.dst, r);
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
        MulMode::Lo => cx.b.bin(BinOp::IMul, x, y),
        MulMode::Hi => cx.b.bin(
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
            let x = cx.b.conv(ext, x, wide);
            let y = cx.b.conv(ext, y, wide);
            cx.b.bin(BinOp::IMul, x, y)
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
    let r = int_mul(cx, a.ty, a.mode, v[0], v[1]);
    cx.write(&a.dst, r);
}

pub fn mad(cx: &mut Cx<'_>, a: &Arith) {
    let wide = wide_type(a);
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let c = cx.read(&a.src[2], wide);
    let p = int_mul(cx, a.ty, a.mode, x, y);
    let r = if a.sat {
        sat_add_s32(cx, p, c, false)
    } else {
        cx.b.bin(BinOp::IAdd, p, c)
    };
    cx.write(&a.dst, r);
}

pub fn div(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let r = int_div_rem(cx, a.ty, v[0], v[1], false);
    cx.write(&a.dst, r);
}

pub fn rem(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let r = int_div_rem(cx, a.ty, v[0], v[1], true);
    cx.write(&a.dst, r);
}

/// Integer division and remainder. The ISA leaves division by zero "unspecified"; we give
/// quotient all ones for unsigned, -1/+1 by the dividend's sign for signed, remainder =
/// dividend (close to, but not always, what an H200 gives: docs/nvidia.md), and `MIN / -1`
/// wraps. Either way the driver never sees a division it could trap on.
fn int_div_rem(cx: &mut Cx<'_>, ty: ScalarType, x: ValueId, y: ValueId, rem: bool) -> ValueId {
    let t = cx.b.f.ty(x);
    let zero = cx.b.konst(t, 0);
    let one = cx.b.konst(t, 1);
    let is_zero = cx.b.bin(BinOp::IEq, y, zero);
    let mut safe_y = cx.b.select(is_zero, one, y);
    let signed = ty.is_signed();
    if signed {
        // MIN / -1 overflows: divide by 1 instead and negate (wrapping gives MIN again).
        let min = cx.b.konst(t, 1u64 << (t.bits() - 1));
        let minus_one = cx.b.konst(t, u64::MAX);
        let x_min = cx.b.bin(BinOp::IEq, x, min);
        let y_m1 = cx.b.bin(BinOp::IEq, y, minus_one);
        let overflow = cx.b.bin(BinOp::And, x_min, y_m1);
        safe_y = cx.b.select(overflow, one, safe_y);
    }
    let r = match (rem, signed) {
        (false, false) => cx.b.bin(BinOp::UDiv, x, safe_y),
        (false, true) => cx.b.bin(BinOp::SDiv, x, safe_y),
        (true, false) => cx.b.bin(BinOp::UMod, x, safe_y),
        // x - (x / y) * y rather than OpSRem: NVIDIA's Vulkan driver (580.159, H200) gives
        // OpSRem the divisor's sign (-2147483647 rem 2 = 1; docs/nvidia.md).
        (true, true) => {
            let q = cx.b.bin(BinOp::SDiv, x, safe_y);
            let qy = cx.b.bin(BinOp::IMul, q, safe_y);
            cx.b.bin(BinOp::ISub, x, qy)
        }
    };
    if rem {
        // x % 0 = x; MIN % -1 = 0 (x % 1 = 0).
        return cx.b.select(is_zero, x, r);
    }
    let by_zero = if signed {
        let neg = cx.b.bin(BinOp::SLt, x, zero);
        let minus_one = cx.b.konst(t, u64::MAX);
        cx.b.select(neg, one, minus_one)
    } else {
        cx.b.konst(t, u64::MAX)
    };
    cx.b.select(is_zero, by_zero, r)
}

pub fn abs(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let r = cx.b.ext(ExtOp::SAbs, &v, FpFlags::default());
    cx.write(&a.dst, r);
}

pub fn neg(cx: &mut Cx<'_>, a: &Arith) {
    let v = srcs(cx, a);
    let r = cx.b.un(UnOp::INeg, v[0]);
    cx.write(&a.dst, r);
}

/// Integer `min`/`max`.
pub fn min_max(cx: &mut Cx<'_>, a: &Arith, max: bool) {
    let v = srcs(cx, a);
    let op = match (max, a.ty.is_signed()) {
        (false, false) => ExtOp::UMin,
        (false, true) => ExtOp::SMin,
        (true, false) => ExtOp::UMax,
        (true, true) => ExtOp::SMax,
    };
    let r = cx.b.ext(op, &v, FpFlags::default());
    cx.write(&a.dst, r);
}
