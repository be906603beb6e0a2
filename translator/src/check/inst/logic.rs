//! Logic and shift instructions (ISA 8.7.5): syntax and type rules.

use super::int::typed_operands;
use super::shared::operands;
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Arith, BoolOp, Lop3, Lop3Pred, Shf};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::Diagnostic;
use crate::types::ScalarType;

use ScalarType::*;

/// `and/or/xor` (3 operands) and `not` (2): `.pred`, `.b16`, `.b32`, `.b64`.
pub fn bitwise(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    n: usize,
) -> Option<Arith> {
    let ty = m.ty(&[Pred, B16, B32, B64])?;
    let ops = operands(cx, i, n)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let src: Option<Srcs> = ops[1..]
        .iter()
        .map(|o| cx.src(o, ty, TypeRule::Strict))
        .collect();
    Some(Arith::new(ty, dst?, src?))
}

/// `shl.bN` and `shr.{bN,uN,sN}`; the shift amount is always `.u32` (ISA 9.4 note).
pub fn shift(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    right: bool,
) -> Option<Arith> {
    let allowed: &[ScalarType] = if right {
        &[B16, B32, B64, U16, U32, U64, S16, S32, S64]
    } else {
        &[B16, B32, B64]
    };
    let ty = m.ty(allowed)?;
    let ops = operands(cx, i, 3)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], U32, TypeRule::Strict);
    Some(Arith::new(ty, dst?, smallvec::smallvec![a?, b?]))
}

/// `cnot.{b16,b32,b64} d, a`.
pub fn cnot(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ty = m.ty(&[B16, B32, B64])?;
    let (dst, src) = typed_operands(cx, i, &[ty, ty])?;
    Some(Arith::new(ty, dst, src))
}

/// `lop3` (PTX ISA 4.3, sm_50; the predicate form since PTX ISA 8.2).
pub fn lop3(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Lop3> {
    let op = m.pick(&[("or", BoolOp::Or), ("and", BoolOp::And)]);
    m.ty(&[B32])?;
    let n = if op.is_some() { 6 } else { 5 };
    let ops = operands(cx, i, n)?;
    let (dst, p) = match (&ops[0].kind, op) {
        (OperandKind::Pair(d, p), Some(_)) => (
            cx.dst(d, B32, TypeRule::Strict),
            cx.dst(p, Pred, TypeRule::Strict),
        ),
        (_, Some(_)) => {
            cx.error(
                Diagnostic::error(ops[0].span, "`lop3.or/.and` writes `d|p`")
                    .with_label("expected a destination pair such as `%r1|%p1` or `_|%p1`"),
            );
            return None;
        }
        (OperandKind::Pair(..), None) => {
            cx.error(
                Diagnostic::error(ops[0].span, "`lop3` without `.or/.and` has one destination")
                    .with_label("add .or or .and to also write a predicate"),
            );
            return None;
        }
        _ => (cx.dst(&ops[0], B32, TypeRule::Strict), None),
    };
    let a = cx.src(&ops[1], B32, TypeRule::Strict);
    let b = cx.src(&ops[2], B32, TypeRule::Strict);
    let c = cx.src(&ops[3], B32, TypeRule::Strict);
    let lut = match &ops[4].kind {
        OperandKind::Imm(e) => {
            let v = cx.const_int(e)?;
            match u8::try_from(v) {
                Ok(v) => Some(v),
                Err(_) => {
                    cx.error(
                        Diagnostic::error(ops[4].span, format!("`immLut` must be 0..255, not {v}"))
                            .with_label("out of range"),
                    );
                    None
                }
            }
        }
        _ => None,
    };
    let Some(lut) = lut else {
        if !matches!(ops[4].kind, OperandKind::Imm(_)) {
            cx.error(
                Diagnostic::error(ops[4].span, "`immLut` must be an integer constant")
                    .with_label("expected a constant 0..255"),
            );
        }
        return None;
    };
    let pred = match op {
        Some(op) => Some(Lop3Pred {
            op,
            p: p?,
            q: cx.src(&ops[5], Pred, TypeRule::Strict)?,
        }),
        None => None,
    };
    Some(Lop3 {
        dst: dst?,
        a: a?,
        b: b?,
        c: c?,
        lut,
        pred,
    })
}

/// `shf` (PTX ISA 3.1, sm_32).
pub fn shf(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Shf> {
    let left = m.pick(&[("l", true), ("r", false)]);
    let wrap = m.pick(&[("clamp", false), ("wrap", true)]);
    m.ty(&[B32])?;
    // Missing modes are reported and decoding goes on, so that other errors show too.
    let left = left.unwrap_or_else(|| {
        m.error_on_opcode("`shf` needs a direction, `.l` or `.r`", "add .l or .r");
        true
    });
    let wrap = wrap.unwrap_or_else(|| {
        m.error_on_opcode("`shf` needs `.clamp` or `.wrap`", "add .clamp or .wrap");
        false
    });
    let (dst, src) = typed_operands(cx, i, &[B32, B32, B32, U32])?;
    let [a, b, c] = crate::check::exactly::<3>(src)?;
    Some(Shf {
        left,
        wrap,
        dst,
        a,
        b,
        c,
    })
}
