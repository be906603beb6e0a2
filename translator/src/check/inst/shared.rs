//! What several decoders share: the rounding and type lists they accept, the operand count
//! checks and the state-space modifier of memory instructions.

use crate::ast::{self, ExprKind, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::Rounding;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

use ScalarType::*;

pub const FLOAT_ROUNDING: [(&str, Rounding); 4] = [
    ("rn", Rounding::Rn),
    ("rz", Rounding::Rz),
    ("rm", Rounding::Rm),
    ("rp", Rounding::Rp),
];

pub const INT_ROUNDING: [(&str, Rounding); 4] = [
    ("rni", Rounding::Rni),
    ("rzi", Rounding::Rzi),
    ("rmi", Rounding::Rmi),
    ("rpi", Rounding::Rpi),
];

pub const INTS: &[ScalarType] = &[U16, U32, U64, S16, S32, S64];

pub const SIGNED: &[ScalarType] = &[S16, S32, S64];

/// The operands, which must be exactly `n`.
pub(crate) fn operands<'o, 'a>(
    cx: &mut FnCx<'_, '_>,
    i: &'o ast::Instruction<'a>,
    n: usize,
) -> Option<&'o [ast::Operand<'a>]> {
    if i.operands.len() != n {
        let found = i.operands.len();
        cx.error(
            Diagnostic::error(
                i.span,
                format!(
                    "`{}` takes {n} operand{}, found {found}",
                    i.opcode.node,
                    if n == 1 { "" } else { "s" }
                ),
            )
            .with_label(format!("expected {n}")),
        );
        return None;
    }
    Some(&i.operands)
}

/// State-space modifiers of memory instructions; `None` means generic.
pub(crate) fn space_modifier(m: &mut Mods<'_, '_>) -> Option<StateSpace> {
    m.pick(&[
        ("global", StateSpace::Global),
        ("shared", StateSpace::Shared),
        ("shared::cta", StateSpace::Shared),
        // A cluster is one block (docs/decisions/0102-clusters-are-one-block.md): its shared
        // memory is the block's.
        ("shared::cluster", StateSpace::Shared),
        ("local", StateSpace::Local),
        ("param", StateSpace::Param),
        ("param::entry", StateSpace::Param),
        ("param::func", StateSpace::Param),
        ("const", StateSpace::Const),
    ])
}

/// An immediate operand of `inst` that must be one of `allowed`.
pub(crate) fn imm(
    m: &mut Mods<'_, '_>,
    op: &ast::Operand<'_>,
    allowed: &[i64],
    what: &str,
    inst: &str,
) -> Option<i64> {
    let v = match &op.kind {
        OperandKind::Imm(e) => match &e.kind {
            ExprKind::Int { value, .. } => Some(*value as i64),
            ExprKind::Unary(ast::UnaryOp::Neg, inner) => match inner.kind {
                ExprKind::Int { value, .. } => Some(-(value as i64)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    match v {
        Some(v) if allowed.contains(&v) => Some(v),
        _ => {
            m.error_at(
                op.span,
                format!("`{what}` of `{inst}` is a constant: one of {allowed:?}"),
                "here",
            );
            None
        }
    }
}

/// A brace-enclosed vector operand of exactly `n` registers (a scalar when `n` is 1 and the
/// ISA writes one).
pub(crate) fn vector_items<'o, 'a>(
    m: &mut Mods<'_, '_>,
    op: &'o ast::Operand<'a>,
    n: usize,
    what: &str,
) -> Option<Vec<&'o ast::Operand<'a>>> {
    let items: Vec<&ast::Operand<'a>> = match &op.kind {
        OperandKind::Vector(items) => items.iter().collect(),
        _ => vec![op],
    };
    if items.len() != n {
        m.error_at(
            op.span,
            format!(
                "`{}` takes {n} register{} for {what}, found {}",
                m.full_name(),
                if n == 1 { "" } else { "s" },
                items.len()
            ),
            format!("expected {{...}} of {n}"),
        );
        return None;
    }
    Some(items)
}

/// An integer constant operand (an immediate that is no name).
pub(crate) fn int_operand(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<i64> {
    match &op.kind {
        OperandKind::Imm(e) if !matches!(e.kind, ExprKind::Name(_)) => cx.const_int(e),
        _ => {
            cx.error(
                Diagnostic::error(op.span, "expected an integer constant")
                    .with_label("must be an immediate"),
            );
            None
        }
    }
}
