//! Logic and shift instructions (ISA 8.7.5): syntax and type rules.

use super::arith::Arith;
use super::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
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
    let src: Option<Vec<_>> = ops[1..]
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
    Some(Arith::new(ty, dst?, vec![a?, b?]))
}
