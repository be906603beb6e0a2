//! Extended-precision integer arithmetic (ISA 8.7.2): syntax and type rules of `add.cc addc
//! sub.cc subc mad.cc madc`, the instructions that read or write the carry flag CC.CF.

use super::int::typed_operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Carry, CarryOp};
use crate::types::ScalarType::*;

/// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}`, each
/// on `.u32 .s32 .u64 .s64` (the 64-bit forms since PTX ISA 4.3).
pub fn carry(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Carry> {
    let name = i.opcode.node;
    let carry_in = name.ends_with('c');
    let carry_out = m.flag("cc");
    let hi = name.starts_with("mad").then(|| {
        let mode = m.pick(&[("lo", false), ("hi", true)]);
        // Reported, and decoding goes on so that other errors show too.
        mode.unwrap_or_else(|| {
            m.error_on_opcode(
                format!("`{}` needs `.lo` or `.hi`", m.full_name()),
                "add .lo or .hi",
            );
            false
        })
    });
    let ty = m.ty(&[U32, S32, U64, S64])?;
    let op = match (name, hi) {
        ("add" | "addc", _) => CarryOp::Add,
        ("sub" | "subc", _) => CarryOp::Sub,
        (_, Some(hi)) => CarryOp::Mad { hi },
        _ => return None,
    };
    let n = if matches!(op, CarryOp::Mad { .. }) {
        4
    } else {
        3
    };
    let (dst, src) = typed_operands(cx, i, &vec![ty; n])?;
    Some(Carry {
        op,
        carry_in,
        carry_out,
        ty,
        dst,
        src,
    })
}
