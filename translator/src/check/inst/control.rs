//! Control flow (ISA 8.7.8 in later numbering): `bra`, `ret`, `exit`.

use super::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::typed::LabelId;

#[derive(Clone, Debug)]
pub struct Bra {
    pub target: LabelId,
    /// `.uni`: the compiler promises the branch is not divergent.
    pub uni: bool,
}

pub fn bra(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Bra> {
    let uni = m.flag("uni");
    let ops = operands(cx, i, 1)?;
    let target = cx.label_operand(&ops[0])?;
    Some(Bra { target, uni })
}

/// Instructions without operands; `allowed` lists their optional modifiers.
pub fn no_operands(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    allowed: &[&str],
) -> Option<()> {
    for a in allowed {
        m.flag(a);
    }
    operands(cx, i, 0).map(|_| ())
}
