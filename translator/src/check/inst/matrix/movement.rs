//! `ldmatrix`, `stmatrix` and `movmatrix`: they move 8x8 fragments between lanes and shared
//! memory without arithmetic, and share the checks of their shape, count and space.

use super::super::shared::{operands, space_modifier};
use super::fragments::{dsts, srcs, sync_aligned};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Ldmatrix, Movmatrix, Stmatrix};
use crate::check::operands::TypeRule;
use crate::types::{ScalarType, StateSpace};

/// The shape, count, `.trans` and space of `ldmatrix`/`stmatrix`.
fn matrix_mods(m: &mut Mods<'_, '_>) -> Option<(u32, bool, StateSpace)> {
    sync_aligned(m);
    if !m.flag("m8n8") {
        m.error(
            format!("`{}` needs the shape .m8n8", m.opcode()),
            "the .m16n16/.m8n16 forms of sm_100 are not translated",
        );
        return None;
    }
    let Some(num) = m.pick(&[("x1", 1), ("x2", 2), ("x4", 4)]) else {
        m.error(
            format!("`{}` needs the count .x1, .x2 or .x4", m.opcode()),
            "add .x1, .x2 or .x4",
        );
        return None;
    };
    let trans = m.flag("trans");
    let space = match space_modifier(m) {
        None => StateSpace::Generic,
        Some(StateSpace::Shared) => StateSpace::Shared,
        Some(other) => {
            m.error(
                format!(
                    "`{}` reads and writes shared memory, not {other}",
                    m.opcode()
                ),
                "use .shared (or a generic address)",
            );
            return None;
        }
    };
    m.ty(&[ScalarType::B16])?;
    Some((num, trans, space))
}

pub fn ldmatrix(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Ldmatrix> {
    let (num, trans, space) = matrix_mods(m)?;
    let ops = operands(cx, i, 2)?;
    let dst = dsts(
        cx,
        m,
        &ops[0],
        num as usize,
        ScalarType::B32,
        "the fragments",
    );
    let addr = cx.address(&ops[1]);
    Some(Ldmatrix {
        num,
        trans,
        space,
        dst: dst?,
        addr: addr?,
    })
}

pub fn stmatrix(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Stmatrix> {
    let (num, trans, space) = matrix_mods(m)?;
    let ops = operands(cx, i, 2)?;
    let addr = cx.address(&ops[0]);
    let src = srcs(
        cx,
        m,
        &ops[1],
        num as usize,
        ScalarType::B32,
        "the fragments",
    );
    Some(Stmatrix {
        num,
        trans,
        space,
        src: src?,
        addr: addr?,
    })
}

pub fn movmatrix(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Movmatrix> {
    sync_aligned(m);
    if !m.flag("m8n8") {
        m.error("`movmatrix` needs the shape .m8n8", "add .m8n8");
    }
    if !m.flag("trans") {
        m.error("`movmatrix` needs `.trans`", "add .trans");
    }
    m.ty(&[ScalarType::B16])?;
    let ops = operands(cx, i, 2)?;
    let dst = cx.dst(&ops[0], ScalarType::B32, TypeRule::Strict);
    let a = cx.src(&ops[1], ScalarType::B32, TypeRule::Strict);
    Some(Movmatrix { dst: dst?, a: a? })
}
