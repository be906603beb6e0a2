//! The meaning of the video instructions (ISA 9.7.18), computed as the ISA's pseudocode says:
//! the selected bytes or half-words sign- or zero-extended to 64-bit integers (the ISA's `.s33`
//! inputs and `.s34` intermediate results fit), the operation, the optional clamp to the
//! destination's range, then the secondary operation or merge, of which the low 32 bits are
//! written.

use super::cx::Cx;
use crate::check::inst::{CmpOp, Part, Secondary, VideoMad, VideoOp, VideoScalar, VideoSimd};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;

fn k64(cx: &mut Cx<'_>, v: i64) -> ValueId {
    cx.b.konst(Ty::I64, v as u64)
}

/// `width` bits of `x` (64-bit) from bit `shift`, sign- or zero-extended.
fn field(cx: &mut Cx<'_>, x: ValueId, shift: u32, width: u32, signed: bool) -> ValueId {
    if signed {
        let up = k64(cx, i64::from(64 - shift - width));
        let down = k64(cx, i64::from(64 - width));
        let t = cx.b.bin(BinOp::Shl, x, up);
        cx.b.bin(BinOp::AShr, t, down)
    } else {
        let s = k64(cx, i64::from(shift));
        let t = cx.b.bin(BinOp::LShr, x, s);
        let m = k64(cx, ((1u64 << width) - 1) as i64);
        cx.b.bin(BinOp::And, t, m)
    }
}

/// A 32-bit source as a 64-bit value of its low bits.
fn wide(cx: &mut Cx<'_>, src: &crate::check::Src) -> ValueId {
    let v = cx.read(src, ScalarType::U32);
    cx.b.conv(ConvOp::ZExt, v, Ty::I64)
}

fn min_max(cx: &mut Cx<'_>, a: ValueId, b: ValueId, max: bool) -> ValueId {
    let op = if max { BinOp::SGt } else { BinOp::SLt };
    let pick_a = cx.b.bin(op, a, b);
    cx.b.select(pick_a, a, b)
}

/// `x` clamped to the range of a `width`-bit signed or unsigned integer.
fn clamp(cx: &mut Cx<'_>, x: ValueId, width: u32, signed: bool) -> ValueId {
    let (lo, hi) = if signed {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (0, (1i64 << width) - 1)
    };
    let lo = k64(cx, lo);
    let hi = k64(cx, hi);
    let x = min_max(cx, x, lo, true);
    min_max(cx, x, hi, false)
}

/// The primary operation on two extended inputs (the shifts are the scalar forms').
fn primary(cx: &mut Cx<'_>, op: VideoOp, a: ValueId, b: ValueId) -> ValueId {
    match op {
        VideoOp::Add => cx.b.bin(BinOp::IAdd, a, b),
        VideoOp::Sub => cx.b.bin(BinOp::ISub, a, b),
        VideoOp::AbsDiff => {
            let d = cx.b.bin(BinOp::ISub, a, b);
            let zero = k64(cx, 0);
            let neg = cx.b.bin(BinOp::ISub, zero, d);
            let below = cx.b.bin(BinOp::SLt, d, zero);
            cx.b.select(below, neg, d)
        }
        VideoOp::Min => min_max(cx, a, b, false),
        VideoOp::Max => min_max(cx, a, b, true),
        // ISA: (a + b + 1) >> 1 when the sum is not negative, else (a + b) >> 1.
        VideoOp::Avrg => {
            let s = cx.b.bin(BinOp::IAdd, a, b);
            let zero = k64(cx, 0);
            let one = k64(cx, 1);
            let up = cx.b.bin(BinOp::IAdd, s, one);
            let non_negative = cx.b.bin(BinOp::SGe, s, zero);
            let t = cx.b.select(non_negative, up, s);
            cx.b.bin(BinOp::AShr, t, one)
        }
        VideoOp::Shl => cx.b.bin(BinOp::Shl, a, b),
        VideoOp::Shr => cx.b.bin(BinOp::AShr, a, b),
        VideoOp::Set(cmp) => {
            let op = match cmp {
                CmpOp::Eq => BinOp::IEq,
                CmpOp::Ne => BinOp::INe,
                CmpOp::Lt => BinOp::SLt,
                CmpOp::Le => BinOp::SLe,
                CmpOp::Gt => BinOp::SGt,
                _ => BinOp::SGe,
            };
            let holds = cx.b.bin(op, a, b);
            let one = k64(cx, 1);
            let zero = k64(cx, 0);
            cx.b.select(holds, one, zero)
        }
    }
}

fn part(cx: &mut Cx<'_>, x: ValueId, p: Part, signed: bool) -> ValueId {
    field(cx, x, p.width * p.index, p.width, signed)
}

/// `vadd vsub vabsdiff vmin vmax vshl vshr`.
pub fn scalar(cx: &mut Cx<'_>, v: &VideoScalar) {
    let [d_signed, a_signed, b_signed] = v.signed;
    let a = wide(cx, &v.a);
    let ta = part(cx, a, v.asel, a_signed);
    let b = wide(cx, &v.b);
    let mut tb = part(cx, b, v.bsel, b_signed);
    let shift = matches!(v.op, VideoOp::Shl | VideoOp::Shr);
    if shift {
        // ISA: `.clamp` makes a shift over 32 a shift by 32, `.wrap` takes it modulo 32.
        tb = if v.clamp {
            let k32 = k64(cx, 32);
            let over = cx.b.bin(BinOp::UGt, tb, k32);
            cx.b.select(over, k32, tb)
        } else {
            let k31 = k64(cx, 31);
            cx.b.bin(BinOp::And, tb, k31)
        };
    }
    let mut tmp = primary(cx, v.op, ta, tb);
    if v.sat && v.op == VideoOp::Shl {
        // A 33-bit input shifted by up to 32 may pass 64 bits; such a result is beyond every
        // clamp range, on the side of the input's sign.
        let back = cx.b.bin(BinOp::AShr, tmp, tb);
        let lost = cx.b.bin(BinOp::INe, back, ta);
        let zero = k64(cx, 0);
        let negative = cx.b.bin(BinOp::SLt, ta, zero);
        let low = k64(cx, i64::MIN / 2);
        let high = k64(cx, i64::MAX / 2);
        let beyond = cx.b.select(negative, low, high);
        tmp = cx.b.select(lost, beyond, tmp);
    }
    if v.sat {
        let width = if v.secondary == Secondary::Merge {
            v.dsel.width
        } else {
            32
        };
        tmp = clamp(cx, tmp, width, d_signed);
    }
    let result = match (v.secondary, &v.c) {
        (Secondary::None, _) | (_, None) => tmp,
        (Secondary::Merge, Some(c)) => {
            let c = wide(cx, c);
            let Part { width, index } = v.dsel;
            let shift = width * index;
            let low = ((1u64 << width) - 1) as i64;
            let m = k64(cx, low);
            let kept = k64(cx, !(low << shift));
            let s = k64(cx, i64::from(shift));
            let t = cx.b.bin(BinOp::And, tmp, m);
            let t = cx.b.bin(BinOp::Shl, t, s);
            let c = cx.b.bin(BinOp::And, c, kept);
            cx.b.bin(BinOp::Or, t, c)
        }
        (op, Some(c)) => {
            // The sign of `c` is `dtype`'s.
            let c = wide(cx, c);
            let c = field(cx, c, 0, 32, d_signed);
            match op {
                Secondary::Add => cx.b.bin(BinOp::IAdd, tmp, c),
                Secondary::Min => min_max(cx, tmp, c, false),
                _ => min_max(cx, tmp, c, true),
            }
        }
    };
    let d = cx.b.conv(ConvOp::Trunc, result, Ty::I32);
    cx.write(&v.dst, d);
}

/// `vadd2 ... vmax2` and `vadd4 ... vmax4`.
pub fn simd(cx: &mut Cx<'_>, v: &VideoSimd) {
    let [d_signed, a_signed, b_signed] = v.signed;
    let width = 32 / v.lanes;
    let a = wide(cx, &v.a);
    let b = wide(cx, &v.b);
    let k32 = k64(cx, 32);
    let b_high = cx.b.bin(BinOp::Shl, b, k32);
    let both = cx.b.bin(BinOp::Or, b_high, a);
    let mut d = wide(cx, &v.c);
    let lane_bits = ((1u64 << width) - 1) as i64;
    for lane in 0..v.lanes {
        if v.mask >> lane & 1 == 0 {
            continue;
        }
        let i = lane as usize;
        let va = field(cx, both, width * v.asel[i], width, a_signed);
        let vb = field(cx, both, width * v.bsel[i], width, b_signed);
        let mut t = primary(cx, v.op, va, vb);
        if v.sat {
            t = clamp(cx, t, width, d_signed);
        }
        if v.accumulate {
            d = cx.b.bin(BinOp::IAdd, d, t);
        } else {
            let shift = width * lane;
            let m = k64(cx, lane_bits);
            let kept = k64(cx, !(lane_bits << shift));
            let s = k64(cx, i64::from(shift));
            let t = cx.b.bin(BinOp::And, t, m);
            let t = cx.b.bin(BinOp::Shl, t, s);
            let rest = cx.b.bin(BinOp::And, d, kept);
            d = cx.b.bin(BinOp::Or, t, rest);
        }
    }
    let d = cx.b.conv(ConvOp::Trunc, d, Ty::I32);
    cx.write(&v.dst, d);
}

/// `vmad` as the ISA's pseudocode computes it, in 128 bits held as two 64-bit halves: the
/// product of two 33-bit inputs, `c` and the `lsb` of a negation or `.po` need up to 66 bits.
pub fn mad(cx: &mut Cx<'_>, v: &VideoMad) {
    let [a_signed, b_signed] = v.signed;
    let signed_final = a_signed || b_signed || v.negate_product || v.negate_c;
    let a = wide(cx, &v.a);
    let ta = part(cx, a, v.asel, a_signed);
    let b = wide(cx, &v.b);
    let tb = part(cx, b, v.bsel, b_signed);
    // |ta|, |tb| < 2^32: a product with a signed input lies within (-2^63, 2^63), one of two
    // unsigned inputs within [0, 2^64); either way its low 64 bits and that sign are all of it.
    let mut lo = cx.b.bin(BinOp::IMul, ta, tb);
    let mut hi = if a_signed || b_signed {
        let k63 = k64(cx, 63);
        cx.b.bin(BinOp::AShr, lo, k63)
    } else {
        k64(cx, 0)
    };
    // ISA: `~tmp` or `~c`, then `+ 1` (the negation), or `+ 1` alone for `.po`.
    if v.negate_product {
        lo = cx.b.un(UnOp::Not, lo);
        hi = cx.b.un(UnOp::Not, hi);
    }
    let mut c = cx.read(&v.c, ScalarType::U32);
    if v.negate_c {
        c = cx.b.un(UnOp::Not, c);
    }
    let (c, c_hi) = if signed_final {
        let c = cx.b.conv(ConvOp::SExt, c, Ty::I64);
        let k63 = k64(cx, 63);
        (c, cx.b.bin(BinOp::AShr, c, k63))
    } else {
        (cx.b.conv(ConvOp::ZExt, c, Ty::I64), k64(cx, 0))
    };
    (lo, hi) = add128(cx, (lo, hi), (c, c_hi));
    if v.po || v.negate_product || v.negate_c {
        let one = k64(cx, 1);
        let zero = k64(cx, 0);
        (lo, hi) = add128(cx, (lo, hi), (one, zero));
    }
    let result = if v.shift > 0 {
        // Bits `shift..shift + 64` of the sum: the scaled result, whose sign is the sum's.
        let s = k64(cx, i64::from(v.shift));
        let up = k64(cx, i64::from(64 - v.shift));
        let low = cx.b.bin(BinOp::LShr, lo, s);
        let high = cx.b.bin(BinOp::Shl, hi, up);
        let r = cx.b.bin(BinOp::Or, low, high);
        if v.sat {
            saturate32(cx, r, None, signed_final)
        } else {
            r
        }
    } else if v.sat {
        saturate32(cx, lo, Some(hi), signed_final)
    } else {
        lo
    };
    let d = cx.b.conv(ConvOp::Trunc, result, Ty::I32);
    cx.write(&v.dst, d);
}

/// `(lo, hi) + (x, x_hi)` in 128 bits.
fn add128(
    cx: &mut Cx<'_>,
    (lo, hi): (ValueId, ValueId),
    (x, x_hi): (ValueId, ValueId),
) -> (ValueId, ValueId) {
    let sum = cx.b.bin(BinOp::IAdd, lo, x);
    let wrapped = cx.b.bin(BinOp::ULt, sum, lo);
    let carry = cx.b.conv(ConvOp::BoolToInt, wrapped, Ty::I64);
    let hi = cx.b.bin(BinOp::IAdd, hi, x_hi);
    (sum, cx.b.bin(BinOp::IAdd, hi, carry))
}

/// The 64-bit `x` (with high half `hi` when it is the low half of a 128-bit value) clamped to
/// the signed or unsigned 32-bit range.
fn saturate32(cx: &mut Cx<'_>, x: ValueId, hi: Option<ValueId>, signed: bool) -> ValueId {
    let Some(hi) = hi else {
        if signed {
            return clamp(cx, x, 32, true);
        }
        let max = k64(cx, i64::from(u32::MAX));
        let over = cx.b.bin(BinOp::UGt, x, max);
        return cx.b.select(over, max, x);
    };
    if signed {
        let k63 = k64(cx, 63);
        let sign = cx.b.bin(BinOp::AShr, x, k63);
        // Beyond 64 bits the value is past either bound, on the side of its sign.
        let fits = cx.b.bin(BinOp::IEq, hi, sign);
        let zero = k64(cx, 0);
        let negative = cx.b.bin(BinOp::SLt, hi, zero);
        let min = k64(cx, i64::from(i32::MIN));
        let max = k64(cx, i64::from(i32::MAX));
        let beyond = cx.b.select(negative, min, max);
        let clamped = clamp(cx, x, 32, true);
        cx.b.select(fits, clamped, beyond)
    } else {
        // An unsigned final result is never negative: anything in the high half is too big.
        let zero = k64(cx, 0);
        let high = cx.b.bin(BinOp::INe, hi, zero);
        let max = k64(cx, i64::from(u32::MAX));
        let over = cx.b.bin(BinOp::UGt, x, max);
        let too_big = cx.b.bin(BinOp::Or, high, over);
        cx.b.select(too_big, max, x)
    }
}
