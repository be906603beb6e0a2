//! The meaning of logic and shift instructions (ISA 8.7.5).

use super::cx::Cx;
use super::truth_table;
use crate::check::inst::{Arith, BoolOp, Lop3, Shf};
use crate::check::typed::Src;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, UnOp};
use crate::types::ScalarType;

pub fn bitwise(cx: &mut Cx<'_>, a: &Arith, op: BinOp) {
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let r = cx.b.bin(op, x, y);
    cx.write(&a.dst, r);
}

pub fn not(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let r = cx.b.un(UnOp::Not, x);
    cx.write(&a.dst, r);
}

/// The shift amount (a `.u32`) clamped to the width, in the value's own integer type.
fn amount(cx: &mut Cx<'_>, a: &Arith, width: u32) -> (crate::ir::ValueId, crate::ir::ValueId) {
    let b = cx.read(&a.src[1], crate::types::ScalarType::U32);
    let w = cx.b.konst(Ty::I32, u64::from(width));
    let clamped = cx.b.ext(ExtOp::UMin, &[b, w], FpFlags::default());
    let over = cx.b.bin(BinOp::UGe, b, w);
    let t = Ty::int(width);
    let amt = if width > 32 {
        cx.b.conv(ConvOp::ZExt, clamped, t)
    } else if width < 32 {
        cx.b.conv(ConvOp::Trunc, clamped, t)
    } else {
        clamped
    };
    (amt, over)
}

/// An immediate shift amount below the width (`shl.b32 %r1, %r2, 2`, most shifts compilers
/// write), as the shifted value's type: no clamp to build and fold away again.
fn small_amount(cx: &mut Cx<'_>, a: &Arith, width: u32) -> Option<crate::ir::ValueId> {
    match a.src[1] {
        Src::Imm(k) if k < u64::from(width) => Some(cx.b.konst(Ty::int(width), k)),
        _ => None,
    }
}

/// `shl`: amounts of the width or more give 0 (ISA 8.7.5.7: amounts are clamped to the width).
pub fn shl(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let width = cx.b.f.ty(x).bits();
    if let Some(k) = small_amount(cx, a, width) {
        let r = cx.b.bin(BinOp::Shl, x, k);
        return cx.write(&a.dst, r);
    }
    let (amt, over) = amount(cx, a, width);
    let zero = cx.b.konst(Ty::int(width), 0);
    let max = cx.b.konst(Ty::int(width), u64::from(width - 1));
    let safe = cx.b.select(over, max, amt);
    let s = cx.b.bin(BinOp::Shl, x, safe);
    let r = cx.b.select(over, zero, s);
    cx.write(&a.dst, r);
}

/// `shr`: logical for `.b`/`.u`, arithmetic for `.s`; amounts past the width fill with zeros or
/// the sign bit.
pub fn shr(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let width = cx.b.f.ty(x).bits();
    let op = if a.ty.is_signed() {
        BinOp::AShr
    } else {
        BinOp::LShr
    };
    if let Some(k) = small_amount(cx, a, width) {
        let r = cx.b.bin(op, x, k);
        return cx.write(&a.dst, r);
    }
    let (amt, over) = amount(cx, a, width);
    let max = cx.b.konst(Ty::int(width), u64::from(width - 1));
    let safe = cx.b.select(over, max, amt);
    let r = if op == BinOp::AShr {
        cx.b.bin(op, x, safe)
    } else {
        let zero = cx.b.konst(Ty::int(width), 0);
        let s = cx.b.bin(op, x, safe);
        cx.b.select(over, zero, s)
    };
    cx.write(&a.dst, r);
}

/// `cnot`: `d = (a == 0) ? 1 : 0`.
pub fn cnot(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let t = cx.b.f.ty(x);
    let zero = cx.b.konst(t, 0);
    let one = cx.b.konst(t, 1);
    let is_zero = cx.b.bin(BinOp::IEq, x, zero);
    let r = cx.b.select(is_zero, one, zero);
    cx.write(&a.dst, r);
}

/// `lop3`: `d = F(a, b, c)` for the function whose truth table is `immLut` (ISA 8.7.5; bit
/// `4a + 2b + c` of `immLut` is `F(a, b, c)`); with `.or/.and`, also `p = (d != 0) op q`.
pub fn lop3(cx: &mut Cx<'_>, l: &Lop3) {
    let a = cx.read(&l.a, ScalarType::B32);
    let b = cx.read(&l.b, ScalarType::B32);
    let c = cx.read(&l.c, ScalarType::B32);
    let d = truth_table::emit(cx, &truth_table::lop3_expr(l.lut), &[a, b, c]);
    cx.write(&l.dst, d);
    if let Some(p) = &l.pred {
        let zero = cx.b.konst(Ty::I32, 0);
        let nonzero = cx.b.bin(BinOp::INe, d, zero);
        let q = cx.read(&p.q, ScalarType::Pred);
        let op = match p.op {
            BoolOp::And => BinOp::And,
            BoolOp::Or => BinOp::Or,
            BoolOp::Xor => BinOp::Xor,
        };
        let r = cx.b.bin(op, nonzero, q);
        cx.write(&p.p, r);
    }
}

/// `shf`: a funnel shift of the 64-bit `{b, a}` by `n` (`.clamp`: `min(c, 32)`; `.wrap`:
/// `c & 31`); `.l` keeps the high word, `.r` the low word.
pub fn shf(cx: &mut Cx<'_>, s: &Shf) {
    let a = cx.read(&s.a, ScalarType::B32);
    let b = cx.read(&s.b, ScalarType::B32);
    let c = cx.read(&s.c, ScalarType::U32);
    let k31 = cx.b.konst(Ty::I32, 31);
    let n = if s.wrap {
        cx.b.bin(BinOp::And, c, k31)
    } else {
        super::int::umin(cx, c, k31)
    };
    // For n in 0..=31, with every shift amount below 32:
    //   .l: (b << n) | ((a >> 1) >> (31 - n))      .r: (a >> n) | ((b << 1) << (31 - n))
    let one = cx.b.konst(Ty::I32, 1);
    let rest = cx.b.bin(BinOp::ISub, k31, n);
    let (keep, keep_shift, spill, spill_once, spill_shift) = if s.left {
        (b, BinOp::Shl, a, BinOp::LShr, BinOp::LShr)
    } else {
        (a, BinOp::LShr, b, BinOp::Shl, BinOp::Shl)
    };
    let kept = cx.b.bin(keep_shift, keep, n);
    let spilled = cx.b.bin(spill_once, spill, one);
    let spilled = cx.b.bin(spill_shift, spilled, rest);
    let r = cx.b.bin(BinOp::Or, kept, spilled);
    let r = if s.wrap {
        r
    } else {
        // A clamped shift by 32 moves the other word in whole.
        let k32 = cx.b.konst(Ty::I32, 32);
        let all = cx.b.bin(BinOp::UGe, c, k32);
        cx.b.select(all, spill, r)
    };
    cx.write(&s.dst, r);
}
