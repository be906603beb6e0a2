//! Comparison and selection (ISA 8.7.4): syntax and type rules.

use super::arith::Arith;
use super::operands;
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, TypeKind};

/// Comparison operators (ISA 8.3.1, Tables 21-23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

const CMP_OPS: [(&str, CmpOp); 18] = [
    ("eq", CmpOp::Eq),
    ("ne", CmpOp::Ne),
    ("lt", CmpOp::Lt),
    ("le", CmpOp::Le),
    ("gt", CmpOp::Gt),
    ("ge", CmpOp::Ge),
    ("lo", CmpOp::Lo),
    ("ls", CmpOp::Ls),
    ("hi", CmpOp::Hi),
    ("hs", CmpOp::Hs),
    ("equ", CmpOp::Equ),
    ("neu", CmpOp::Neu),
    ("ltu", CmpOp::Ltu),
    ("leu", CmpOp::Leu),
    ("gtu", CmpOp::Gtu),
    ("geu", CmpOp::Geu),
    ("num", CmpOp::Num),
    ("nan", CmpOp::Nan),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Debug)]
pub struct Setp {
    pub cmp: CmpOp,
    pub ty: ScalarType,
    pub ftz: bool,
    /// `.and/.or/.xor` with the predicate `c` (which may be `!c`).
    pub combine: Option<(BoolOp, Src)>,
    pub p: Dst,
    /// `q` of `p|q`: the complement of the result (combined with `c` the same way).
    pub q: Option<Dst>,
    pub a: Src,
    pub b: Src,
}

const SETP_TYPES: &[ScalarType] = &[
    ScalarType::B16,
    ScalarType::B32,
    ScalarType::B64,
    ScalarType::U16,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::S16,
    ScalarType::S32,
    ScalarType::S64,
    ScalarType::F32,
    ScalarType::F64,
];

/// Which comparisons a type allows (ISA 8.3.1).
fn cmp_allowed(cmp: CmpOp, ty: ScalarType) -> bool {
    use CmpOp::*;
    match ty.kind() {
        TypeKind::Float => !matches!(cmp, Lo | Ls | Hi | Hs),
        TypeKind::Bits => matches!(cmp, Eq | Ne),
        _ => matches!(cmp, Eq | Ne | Lt | Le | Gt | Ge | Lo | Ls | Hi | Hs),
    }
}

pub fn setp(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Setp> {
    let Some(cmp) = m.pick(&CMP_OPS) else {
        m.error(
            "`setp` needs a comparison such as `.lt`",
            "add a comparison",
        );
        return None;
    };
    let bool_op = m.pick(&[
        ("and", BoolOp::And),
        ("or", BoolOp::Or),
        ("xor", BoolOp::Xor),
    ]);
    let ftz = m.flag("ftz");
    let ty = m.ty(SETP_TYPES)?;
    if !cmp_allowed(cmp, ty) {
        m.error(
            format!(
                "comparison `.{}` is not defined for {ty}",
                format!("{cmp:?}").to_lowercase()
            ),
            "see ISA 8.3.1 for the comparisons of each type",
        );
    }
    if ftz && ty != ScalarType::F32 {
        m.error("`.ftz` applies to .f32 only", "remove it");
    }
    let n = if bool_op.is_some() { 4 } else { 3 };
    let ops = operands(cx, i, n)?;
    let (p, q) = pred_dsts(cx, &ops[0])?;
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], ty, TypeRule::Strict);
    let combine = match bool_op {
        Some(op) => Some((op, cx.src(&ops[3], ScalarType::Pred, TypeRule::Strict)?)),
        None => None,
    };
    Some(Setp {
        cmp,
        ty,
        ftz,
        combine,
        p,
        q,
        a: a?,
        b: b?,
    })
}

/// `p` or `p|q`.
pub fn pred_dsts(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<(Dst, Option<Dst>)> {
    match &op.kind {
        OperandKind::Pair(p, q) => {
            let p = cx.dst(p, ScalarType::Pred, TypeRule::Strict);
            let q = cx.dst(q, ScalarType::Pred, TypeRule::Strict);
            Some((p?, Some(q?)))
        }
        OperandKind::Vector(_) => {
            cx.error(
                Diagnostic::error(op.span, "expected a predicate register").with_label("here"),
            );
            None
        }
        _ => Some((cx.dst(op, ScalarType::Pred, TypeRule::Strict)?, None)),
    }
}

/// `selp.type d, a, b, c`: `d = c ? a : b`.
pub fn selp(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Arith> {
    let ty = m.ty(SETP_TYPES)?;
    let ops = operands(cx, i, 4)?;
    let d = cx.dst(&ops[0], ty, TypeRule::Strict);
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], ty, TypeRule::Strict);
    let c = cx.src(&ops[3], ScalarType::Pred, TypeRule::Strict);
    Some(Arith::new(ty, d?, vec![a?, b?, c?]))
}
