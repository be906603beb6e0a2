//! The meaning of logic and shift instructions (ISA 8.7.5).

use super::Cx;
use crate::check::inst::Arith;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, UnOp};

pub fn bitwise(cx: &mut Cx<'_>, a: &Arith, op: BinOp) {
    let x = cx.read(&a.src[0], a.ty);
    let y = cx.read(&a.src[1], a.ty);
    let r = cx.bin(op, x, y);
    cx.write(&a.dst, a.ty, r);
}

pub fn not(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let r = cx.un(UnOp::Not, x);
    cx.write(&a.dst, a.ty, r);
}

/// The shift amount (a `.u32`) clamped to the width, in the value's own integer type.
fn amount(cx: &mut Cx<'_>, a: &Arith, width: u32) -> (crate::ir::ValueId, crate::ir::ValueId) {
    let b = cx.read(&a.src[1], crate::types::ScalarType::U32);
    let w = cx.konst(Ty::I32, u64::from(width));
    let clamped = cx.ext(ExtOp::UMin, vec![b, w], FpFlags::default());
    let over = cx.bin(BinOp::UGe, b, w);
    let t = Ty::int(width);
    let amt = if width > 32 {
        cx.conv(ConvOp::ZExt, clamped, t)
    } else if width < 32 {
        cx.conv(ConvOp::Trunc, clamped, t)
    } else {
        clamped
    };
    (amt, over)
}

/// `shl`: amounts of the width or more give 0 (ISA 8.7.5.7: amounts are clamped to the width).
pub fn shl(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let width = cx.f.ty(x).bits();
    let (amt, over) = amount(cx, a, width);
    let zero = cx.konst(Ty::int(width), 0);
    let max = cx.konst(Ty::int(width), u64::from(width - 1));
    let safe = cx.select(over, max, amt);
    let s = cx.bin(BinOp::Shl, x, safe);
    let r = cx.select(over, zero, s);
    cx.write(&a.dst, a.ty, r);
}

/// `shr`: logical for `.b`/`.u`, arithmetic for `.s`; amounts past the width fill with zeros or
/// the sign bit.
pub fn shr(cx: &mut Cx<'_>, a: &Arith) {
    let x = cx.read(&a.src[0], a.ty);
    let width = cx.f.ty(x).bits();
    let (amt, over) = amount(cx, a, width);
    let max = cx.konst(Ty::int(width), u64::from(width - 1));
    let safe = cx.select(over, max, amt);
    let r = if a.ty.is_signed() {
        cx.bin(BinOp::AShr, x, safe)
    } else {
        let zero = cx.konst(Ty::int(width), 0);
        let s = cx.bin(BinOp::LShr, x, safe);
        cx.select(over, zero, s)
    };
    cx.write(&a.dst, a.ty, r);
}
