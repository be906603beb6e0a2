//! Half-precision values (`.f16`, `.bf16` and their packed pairs) as bits, and their exact
//! conversions to f32. Arithmetic on them is done wider and rounded once (`float.rs`), so the
//! driver's half-precision arithmetic is never relied on.

use super::super::cx::Cx;
use super::softfloat::{self as sf, FloatFormat, Ops};
use crate::float_format::RoundMode;
use crate::ir::{BinOp, ConvOp, Ty, ValueId};

/// The two 16-bit lanes of a packed pair: element 0 in the low half (ISA: `a[0:15]`).
pub(in crate::lower) fn split(cx: &mut Cx<'_>, v: ValueId) -> (ValueId, ValueId) {
    let lo = cx.trunc(v, Ty::I16);
    let sh = cx.c32(16);
    let hi = cx.bop(BinOp::LShr, v, sh);
    let hi = cx.trunc(hi, Ty::I16);
    (lo, hi)
}

pub(in crate::lower) fn join(cx: &mut Cx<'_>, lo: ValueId, hi: ValueId) -> ValueId {
    let lo = cx.zext(lo, Ty::I32);
    let hi = cx.zext(hi, Ty::I32);
    let sh = cx.c32(16);
    let hi = cx.bop(BinOp::Shl, hi, sh);
    cx.bop(BinOp::Or, lo, hi)
}

/// The exact f32 value of bits of `.f16`, `.bf16` or `.f32`.
pub(in crate::lower) fn to_f32(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    if fmt == sf::F32 {
        let b = cx.zext(x, Ty::I32);
        return cx.float_of(b, Ty::F32);
    }
    if fmt == sf::BF16 {
        // bf16 is the top half of an f32.
        let b = cx.zext(x, Ty::I32);
        let sh = cx.c32(16);
        let b = cx.bop(BinOp::Shl, b, sh);
        return cx.float_of(b, Ty::F32);
    }
    if cx.profile.float16 {
        let h = cx.trunc(x, Ty::I16);
        let h = cx.float_of(h, Ty::F16);
        return cx.b.conv(ConvOp::FConvert, h, Ty::F32);
    }
    // Without float16, widen in integers: the value is exact in f32, so nothing rounds.
    let sign = cx.bit(x, 15);
    let bits = sf::round_bits(cx, x, sf::F16, RoundMode::NearestEven, sf::F32, sign);
    cx.float_of(bits, Ty::F32)
}

/// Bits of `fmt` nearest to the f32 `x` (ties to even); NaN becomes the canonical NaN.
pub(in crate::lower) fn from_f32(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let b = cx.bits_of(x);
    if fmt == sf::F32 {
        return b;
    }
    let sign = cx.bit(b, 31);
    sf::round_bits(cx, b, sf::F32, RoundMode::NearestEven, fmt, sign)
}
