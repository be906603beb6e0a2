//! The meaning of the integer instructions of ISA 8.7.1 other than the common arithmetic in
//! `arith.rs`: `mul24 mad24 sad popc clz bfind brev bfe bfi bmsk szext dp4a dp2a` and the packed
//! and `.relu` forms of `add/min/max`.
//!
//! Vulkan allows the SPIR-V bit instructions (`OpBitCount`, `OpBitReverse`, `OpBitField*`,
//! `FindUMsb`/`FindSMsb`) on 32-bit integers only, so 64-bit forms work on the two halves.
//! SPIR-V leaves bit fields that reach past the width undefined; every offset and count is
//! clamped first to what the ISA's pseudocode means.

use super::cx::Cx;
use crate::check::inst::{Arith, Bfind, BitMask, Dot, MulMode, Simd, SimdOp};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Op, Ty, UnOp, ValueId};
use crate::types::ScalarType;

// Small builders.

pub(super) fn c32(cx: &mut Cx<'_>, v: u32) -> ValueId {
    cx.b.konst(Ty::I32, u64::from(v))
}

pub(super) fn umin(cx: &mut Cx<'_>, a: ValueId, b: ValueId) -> ValueId {
    cx.b.ext(ExtOp::UMin, &[a, b], FpFlags::default())
}

/// `base` bits `offset .. offset + count`, zero- or sign-extended (`offset + count <= 32`).
pub(super) fn extract(
    cx: &mut Cx<'_>,
    signed: bool,
    base: ValueId,
    offset: ValueId,
    count: ValueId,
) -> ValueId {
    cx.b.emit(
        Ty::I32,
        Op::BitExtract {
            signed,
            base,
            offset,
            count,
        },
    )
}

/// [`extract`] at constant positions.
pub(super) fn extract_at(
    cx: &mut Cx<'_>,
    signed: bool,
    base: ValueId,
    offset: u32,
    count: u32,
) -> ValueId {
    let (o, c) = (c32(cx, offset), c32(cx, count));
    extract(cx, signed, base, o, c)
}

/// `base` with bits `offset .. offset + count` replaced by the low bits of `insert`.
pub(super) fn insert(
    cx: &mut Cx<'_>,
    base: ValueId,
    insert: ValueId,
    offset: ValueId,
    count: ValueId,
) -> ValueId {
    cx.b.emit(
        Ty::I32,
        Op::BitInsert {
            base,
            insert,
            offset,
            count,
        },
    )
}

/// The low and high 32-bit halves of a 64-bit value.
fn halves(cx: &mut Cx<'_>, v: ValueId) -> (ValueId, ValueId) {
    let lo = cx.b.conv(ConvOp::Trunc, v, Ty::I32);
    let k = cx.b.konst(Ty::I64, 32);
    let shifted = cx.b.bin(BinOp::LShr, v, k);
    let hi = cx.b.conv(ConvOp::Trunc, shifted, Ty::I32);
    (lo, hi)
}

fn join(cx: &mut Cx<'_>, lo: ValueId, hi: ValueId) -> ValueId {
    let lo = cx.b.conv(ConvOp::ZExt, lo, Ty::I64);
    let hi = cx.b.conv(ConvOp::ZExt, hi, Ty::I64);
    let k = cx.b.konst(Ty::I64, 32);
    let hi = cx.b.bin(BinOp::Shl, hi, k);
    cx.b.bin(BinOp::Or, hi, lo)
}

/// The `.u32` operand `v & 0xff`: `bfe` and `bfi` read positions and lengths in 0..255.
fn low_byte(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let m = c32(cx, 0xff);
    cx.b.bin(BinOp::And, v, m)
}

// Instructions.

/// `add/min/max.{u16x2,s16x2}` work on each 16-bit half; `.relu` clamps negative results to 0.
pub fn simd(cx: &mut Cx<'_>, s: &Simd) {
    let signed = s.elem.is_signed();
    let reg = if s.elem == ScalarType::S32 {
        ScalarType::S32
    } else {
        ScalarType::B32
    };
    let a = cx.read(&s.a, reg);
    let b = cx.read(&s.b, reg);
    let op = |cx: &mut Cx<'_>, x: ValueId, y: ValueId| {
        let r = match (s.op, signed) {
            (SimdOp::Add, _) => return cx.b.bin(BinOp::IAdd, x, y),
            (SimdOp::Min, false) => cx.b.ext(ExtOp::UMin, &[x, y], FpFlags::default()),
            (SimdOp::Min, true) => cx.b.ext(ExtOp::SMin, &[x, y], FpFlags::default()),
            (SimdOp::Max, false) => cx.b.ext(ExtOp::UMax, &[x, y], FpFlags::default()),
            (SimdOp::Max, true) => cx.b.ext(ExtOp::SMax, &[x, y], FpFlags::default()),
        };
        if s.relu {
            let zero = c32(cx, 0);
            cx.b.ext(ExtOp::SMax, &[r, zero], FpFlags::default())
        } else {
            r
        }
    };
    let r = if s.elem.bits() == 32 {
        op(cx, a, b)
    } else {
        // Each half extended to 32 bits (so that signed comparisons and `.relu` see its sign);
        // the result keeps the low 16 bits of each.
        let (a0, b0) = (
            extract_at(cx, signed, a, 0, 16),
            extract_at(cx, signed, b, 0, 16),
        );
        let (a1, b1) = (
            extract_at(cx, signed, a, 16, 16),
            extract_at(cx, signed, b, 16, 16),
        );
        let lo = op(cx, a0, b0);
        let hi = op(cx, a1, b1);
        let sixteen = c32(cx, 16);
        insert(cx, lo, hi, sixteen, sixteen)
    };
    cx.write(&s.dst, r);
}

/// `mul24`/`mad24`: the 48-bit product of the low 24 bits of `a` and `b` (sign-extended for
/// `.s32`); `.lo` is its bits 0..31, `.hi` its bits 16..47.
pub fn mul24(cx: &mut Cx<'_>, a: &Arith) {
    let signed = a.ty.is_signed();
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let p = match a.mode {
        MulMode::Hi => {
            // (x << 8) * (y << 8) = x * y * 2^16 exactly in 64 bits, so its high word is bits
            // 16..47 of the 48-bit product; the top 8 bits of each operand are shifted out.
            let eight = c32(cx, 8);
            let xs = cx.b.bin(BinOp::Shl, x, eight);
            let ys = cx.b.bin(BinOp::Shl, y, eight);
            let op = if signed { BinOp::SMulHi } else { BinOp::UMulHi };
            cx.b.bin(op, xs, ys)
        }
        _ => {
            let xs = extract_at(cx, signed, x, 0, 24);
            let ys = extract_at(cx, signed, y, 0, 24);
            cx.b.bin(BinOp::IMul, xs, ys)
        }
    };
    let r = match a.src.get(2) {
        Some(c) => {
            let c = cx.read(c, a.ty);
            if a.sat {
                super::arith::sat_add_s32(cx, p, c, false)
            } else {
                cx.b.bin(BinOp::IAdd, p, c)
            }
        }
        None => p,
    };
    cx.write(&a.dst, r);
}

/// `sad`: `d = c + |a - b|`, with `a < b` compared as the type's signedness says.
pub fn sad(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let c = cx.read(&a.src[2], a.ty);
    let lt = cx.b.bin(
        if a.ty.is_signed() {
            BinOp::SLt
        } else {
            BinOp::ULt
        },
        x,
        y,
    );
    let yx = cx.b.bin(BinOp::ISub, y, x);
    let xy = cx.b.bin(BinOp::ISub, x, y);
    let diff = cx.b.select(lt, yx, xy);
    let r = cx.b.bin(BinOp::IAdd, c, diff);
    cx.write(&a.dst, r);
}

/// `popc`: the number of one bits, as `.u32`.
pub fn popc(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let r = if a.ty.bits() == 64 {
        let (lo, hi) = halves(cx, x);
        let l = cx.b.un(UnOp::BitCount, lo);
        let h = cx.b.un(UnOp::BitCount, hi);
        cx.b.bin(BinOp::IAdd, l, h)
    } else {
        cx.b.un(UnOp::BitCount, x)
    };
    cx.write(&a.dst, r);
}

/// Leading zeros of a 32-bit value: `31 - FindUMsb`, which is 32 for 0 (FindUMsb gives -1).
fn clz32(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let msb = cx.b.ext(ExtOp::FindUMsb, &[x], FpFlags::default());
    let k = c32(cx, 31);
    cx.b.bin(BinOp::ISub, k, msb)
}

/// `clz`: leading zeros, 0..=32 (0..=64 for `.b64`), as `.u32`.
pub fn clz(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let r = if a.ty.bits() == 64 {
        let (lo, hi) = halves(cx, x);
        let zero = c32(cx, 0);
        let hi_zero = cx.b.bin(BinOp::IEq, hi, zero);
        let from_hi = clz32(cx, hi);
        let from_lo = clz32(cx, lo);
        let k = c32(cx, 32);
        let from_lo = cx.b.bin(BinOp::IAdd, from_lo, k);
        cx.b.select(hi_zero, from_lo, from_hi)
    } else {
        clz32(cx, x)
    };
    cx.write(&a.dst, r);
}

/// `bfind`: the position of the most significant non-sign bit, or 0xffffffff; `.shiftamt` gives
/// `msb - position` instead (except for 0xffffffff).
pub fn bfind(cx: &mut Cx<'_>, b: &Bfind) {
    let x = cx.read(&b.a, b.ty);
    let signed = b.ty.is_signed();
    let pos = if b.ty.bits() == 64 {
        // Negative values: look for the most significant 0, i.e. the 1 of the complement.
        let x = if signed {
            let k = cx.b.konst(Ty::I64, 63);
            let sign = cx.b.bin(BinOp::AShr, x, k);
            cx.b.bin(BinOp::Xor, x, sign)
        } else {
            x
        };
        let (lo, hi) = halves(cx, x);
        let zero = c32(cx, 0);
        let hi_set = cx.b.bin(BinOp::INe, hi, zero);
        let in_hi = cx.b.ext(ExtOp::FindUMsb, &[hi], FpFlags::default());
        let k = c32(cx, 32);
        let in_hi = cx.b.bin(BinOp::IAdd, in_hi, k);
        let in_lo = cx.b.ext(ExtOp::FindUMsb, &[lo], FpFlags::default());
        cx.b.select(hi_set, in_hi, in_lo)
    } else {
        let op = if signed {
            ExtOp::FindSMsb
        } else {
            ExtOp::FindUMsb
        };
        cx.b.ext(op, &[x], FpFlags::default())
    };
    let r = if b.shiftamt {
        let none = c32(cx, u32::MAX);
        let found = cx.b.bin(BinOp::INe, pos, none);
        let msb = c32(cx, b.ty.bits() - 1);
        let amount = cx.b.bin(BinOp::ISub, msb, pos);
        cx.b.select(found, amount, pos)
    } else {
        pos
    };
    cx.write(&b.dst, r);
}

/// `brev`: bit `i` of `d` is bit `msb - i` of `a`.
pub fn brev(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let r = if a.ty.bits() == 64 {
        let (lo, hi) = halves(cx, x);
        let lo_r = cx.b.un(UnOp::BitReverse, lo);
        let hi_r = cx.b.un(UnOp::BitReverse, hi);
        join(cx, hi_r, lo_r)
    } else {
        cx.b.un(UnOp::BitReverse, x)
    };
    cx.write(&a.dst, r);
}

/// `bfe`: `len` bits of `a` from `pos` (each `& 0xff` for `.u32/.s32`; the 64-bit forms read
/// all 32 bits, as NVIDIA hardware does, docs/nvidia.md), zero-extended, or for `.s32/.s64`
/// extended with the field's top bit, where bits past the msb of `a` read as its msb.
pub fn bfe(cx: &mut Cx<'_>, a: &Arith) {
    let signed = a.ty.is_signed();
    let width = a.ty.bits();
    let x = cx.read(&a.src[0], a.ty);
    let pos = cx.read(&a.src[1], ScalarType::U32);
    let len = cx.read(&a.src[2], ScalarType::U32);
    let (pos, len) = field_operands(cx, width, pos, len);
    // Unsigned: a field starting past the msb is empty (0). Signed: it is the replicated sign,
    // which is the 1-bit field at the msb, sign-extended.
    let max_pos = c32(cx, if signed { width - 1 } else { width });
    let p = umin(cx, pos, max_pos);
    let w = c32(cx, width);
    let room = cx.b.bin(BinOp::ISub, w, p);
    let l = umin(cx, len, room);
    let r = if width == 32 {
        extract(cx, signed, x, p, l)
    } else {
        // 64 bits: shift the field down, then up against the msb and back (with the sign).
        let zero = c32(cx, 0);
        let empty = cx.b.bin(BinOp::IEq, l, zero);
        let k63 = c32(cx, 63);
        let down = umin(cx, p, k63);
        let down = cx.b.conv(ConvOp::ZExt, down, Ty::I64);
        let t = cx.b.bin(BinOp::LShr, x, down);
        let up = cx.b.bin(BinOp::ISub, w, l);
        let up = umin(cx, up, k63);
        let up = cx.b.conv(ConvOp::ZExt, up, Ty::I64);
        let t = cx.b.bin(BinOp::Shl, t, up);
        let shr = if signed { BinOp::AShr } else { BinOp::LShr };
        let t = cx.b.bin(shr, t, up);
        let z = cx.b.konst(Ty::I64, 0);
        cx.b.select(empty, z, t)
    };
    cx.write(&a.dst, r);
}

/// The position and length `bfe` and `bfi` use: the low byte of each for 32-bit fields, the
/// whole value for 64-bit ones (both are clamped to the field's width afterwards).
fn field_operands(cx: &mut Cx<'_>, width: u32, pos: ValueId, len: ValueId) -> (ValueId, ValueId) {
    if width == 64 {
        (pos, len)
    } else {
        (low_byte(cx, pos), low_byte(cx, len))
    }
}

/// `bfi`: `b` with bits `pos .. pos + len` (read as by `bfe`, cut at the msb) taken from the
/// low bits of `a`.
pub fn bfi(cx: &mut Cx<'_>, a: &Arith) {
    let width = a.ty.bits();
    let x = cx.read(&a.src[0], a.ty);
    let base = cx.read(&a.src[1], a.ty);
    let pos = cx.read(&a.src[2], ScalarType::U32);
    let len = cx.read(&a.src[3], ScalarType::U32);
    let (pos, len) = field_operands(cx, width, pos, len);
    let w = c32(cx, width);
    let p = umin(cx, pos, w);
    let room = cx.b.bin(BinOp::ISub, w, p);
    let l = umin(cx, len, room);
    let r = if width == 32 {
        insert(cx, base, x, p, l)
    } else {
        let zero = c32(cx, 0);
        let empty = cx.b.bin(BinOp::IEq, l, zero);
        let k63 = c32(cx, 63);
        let ones = cx.b.konst(Ty::I64, u64::MAX);
        let drop = cx.b.bin(BinOp::ISub, w, l);
        let drop = umin(cx, drop, k63);
        let drop = cx.b.conv(ConvOp::ZExt, drop, Ty::I64);
        let field = cx.b.bin(BinOp::LShr, ones, drop);
        let sh = umin(cx, p, k63);
        let sh = cx.b.conv(ConvOp::ZExt, sh, Ty::I64);
        let mask = cx.b.bin(BinOp::Shl, field, sh);
        let z = cx.b.konst(Ty::I64, 0);
        let mask = cx.b.select(empty, z, mask);
        let moved = cx.b.bin(BinOp::Shl, x, sh);
        let moved = cx.b.bin(BinOp::And, moved, mask);
        let keep = cx.b.un(UnOp::Not, mask);
        let kept = cx.b.bin(BinOp::And, base, keep);
        cx.b.bin(BinOp::Or, kept, moved)
    };
    cx.write(&a.dst, r);
}

/// `bmsk`: ones from bit `a` for `b` bits, cut at bit 31. `.wrap` reads `a` and `b` modulo 32;
/// `.clamp` makes `a >= 32` an empty mask and `b >= 32` a mask up to bit 31.
pub fn bmsk(cx: &mut Cx<'_>, m: &BitMask) {
    let a = cx.read(&m.a, ScalarType::U32);
    let b = cx.read(&m.b, ScalarType::U32);
    let (pos, width) = if m.wrap {
        let k = c32(cx, 31);
        (cx.b.bin(BinOp::And, a, k), cx.b.bin(BinOp::And, b, k))
    } else {
        let k = c32(cx, 32);
        (umin(cx, a, k), b)
    };
    let k = c32(cx, 32);
    let room = cx.b.bin(BinOp::ISub, k, pos);
    let count = umin(cx, width, room);
    let zero = c32(cx, 0);
    let ones = c32(cx, u32::MAX);
    let r = insert(cx, zero, ones, pos, count);
    cx.write(&m.dst, r);
}

/// `szext`: the low `N = b` bits of `a`, sign- or zero-extended; `N = 0` gives 0; `N >= 32` is
/// taken modulo 32 by `.wrap` and gives `a` itself under `.clamp`.
pub fn szext(cx: &mut Cx<'_>, m: &BitMask) {
    let a = cx.read(&m.a, m.ty);
    let b = cx.read(&m.b, ScalarType::U32);
    let n = if m.wrap {
        let k = c32(cx, 31);
        cx.b.bin(BinOp::And, b, k)
    } else {
        let k = c32(cx, 32);
        umin(cx, b, k)
    };
    let zero = c32(cx, 0);
    let r = extract(cx, m.ty.is_signed(), a, zero, n);
    cx.write(&m.dst, r);
}

/// `dp4a`/`dp2a`: `c` plus the products of the 8-bit (and for `dp2a`, 16-bit) elements,
/// each extended by its operand's type; the sum wraps in 32 bits.
pub fn dot(cx: &mut Cx<'_>, d: &Dot) {
    let acc_ty = if d.a_signed || d.b_signed {
        ScalarType::S32
    } else {
        ScalarType::U32
    };
    let a = cx.read(&d.a, ScalarType::B32);
    let b = cx.read(&d.b, ScalarType::B32);
    let mut acc = cx.read(&d.c, acc_ty);
    let (n, a_bits, b_first) = match d.hi {
        None => (4, 8, 0),
        Some(hi) => (2, 16, if hi { 2 } else { 0 }),
    };
    for k in 0..n {
        let x = extract_at(cx, d.a_signed, a, k * a_bits, a_bits);
        let y = extract_at(cx, d.b_signed, b, (b_first + k) * 8, 8);
        let p = cx.b.bin(BinOp::IMul, x, y);
        acc = cx.b.bin(BinOp::IAdd, acc, p);
    }
    cx.write(&d.dst, acc);
}
