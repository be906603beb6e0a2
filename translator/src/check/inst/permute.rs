//! `prmt` (ISA 8.7.6.5): syntax and type rules.

use super::int::typed_operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Prmt, PrmtMode};
use crate::types::ScalarType::*;

/// `prmt` (PTX ISA 2.0, sm_20).
pub fn prmt(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Prmt> {
    m.ty(&[B32])?;
    let mode = m.pick(&[
        ("f4e", PrmtMode::F4e),
        ("b4e", PrmtMode::B4e),
        ("rc8", PrmtMode::Rc8),
        ("ecl", PrmtMode::Ecl),
        ("ecr", PrmtMode::Ecr),
        ("rc16", PrmtMode::Rc16),
    ]);
    let (dst, src) = typed_operands(cx, i, &[B32, B32, B32, B32])?;
    let [a, b, c] = crate::check::exactly::<3>(src)?;
    Some(Prmt { mode, dst, a, b, c })
}
