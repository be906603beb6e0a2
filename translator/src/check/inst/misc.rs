//! Miscellaneous instructions (ISA 9.7.19 in later numbering): `nanosleep`.

use super::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::types::ScalarType;

/// `nanosleep.u32 t;`: suspend the thread for about `t` nanoseconds (at most 1 ms).
pub fn nanosleep(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Src> {
    m.ty(&[ScalarType::U32])?;
    let ops = operands(cx, i, 1)?;
    cx.src(&ops[0], ScalarType::U32, TypeRule::Strict)
}
