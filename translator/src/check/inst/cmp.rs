//! Comparison and selection (ISA 8.7.4): syntax and type rules.

use super::shared::operands;
use crate::ast::{self, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Arith, BoolOp, CmpOp, Set, Setp, Slct};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, TypeKind};

/// The comparisons of `setp`/`set`; the first six are also `vset`'s (`check/inst/video.rs`).
pub(super) const CMP_OPS: [(&str, CmpOp); 18] = [
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

/// The source types of `set`/`setp` and the types of `selp`/`slct` (ISA 8.7.4).
pub const SETP_TYPES: &[ScalarType] = &[
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

/// `set`/`setp` source types with the half-precision forms (ISA 9.7.7 in newer versions).
const COMPARE_TYPES: &[ScalarType] = &[
    ScalarType::B16,
    ScalarType::B32,
    ScalarType::B64,
    ScalarType::U16,
    ScalarType::U32,
    ScalarType::U64,
    ScalarType::S16,
    ScalarType::S32,
    ScalarType::S64,
    ScalarType::F16,
    ScalarType::F16x2,
    ScalarType::Bf16,
    ScalarType::Bf16x2,
    ScalarType::F32,
    ScalarType::F64,
];

/// Which comparisons a type allows (ISA 8.3.1).
fn cmp_allowed(cmp: CmpOp, ty: ScalarType) -> bool {
    use CmpOp::*;
    match ty.kind() {
        TypeKind::Float => !matches!(cmp, Lo | Ls | Hi | Hs),
        TypeKind::Bits => matches!(cmp, Eq | Ne),
        // lo/ls/hi/hs are "for unsigned values" (ISA 8.7.4.1-2).
        TypeKind::Signed => matches!(cmp, Eq | Ne | Lt | Le | Gt | Ge),
        _ => matches!(cmp, Eq | Ne | Lt | Le | Gt | Ge | Lo | Ls | Hi | Hs),
    }
}

/// The comparison, `.BoolOp` and `.ftz` shared by `set` and `setp`.
struct Compare {
    cmp: CmpOp,
    bool_op: Option<BoolOp>,
    ftz: bool,
}

fn compare_mods(m: &mut Mods<'_, '_>, name: &str) -> Option<(Compare, Option<crate::diag::Span>)> {
    let Some(cmp) = m.pick(&CMP_OPS) else {
        m.error(
            format!("`{name}` needs a comparison such as `.lt`"),
            "add a comparison",
        );
        return None;
    };
    let bool_op = m.pick(&[
        ("and", BoolOp::And),
        ("or", BoolOp::Or),
        ("xor", BoolOp::Xor),
    ]);
    let ftz = m.flag_span("ftz");
    Some((
        Compare {
            cmp,
            bool_op,
            ftz: ftz.is_some(),
        },
        ftz,
    ))
}

/// Checks the comparison against the source type; `.ftz` only for .f32/.f16. (The targets of
/// the half-precision forms are in the gating table.)
fn check_compare(
    m: &mut Mods<'_, '_>,
    c: &Compare,
    ftz: Option<crate::diag::Span>,
    ty: ScalarType,
) {
    if !cmp_allowed(c.cmp, ty) {
        m.error(
            format!(
                "comparison `.{}` is not defined for {ty}",
                format!("{:?}", c.cmp).to_lowercase()
            ),
            "see ISA 8.3.1 for the comparisons of each type",
        );
    }
    if let Some(sp) = ftz {
        if !matches!(ty, ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2) {
            m.error_at(
                sp,
                format!("`.ftz` applies to .f32 and .f16 comparisons, not {ty}"),
                "remove it",
            );
        }
    }
}

pub fn setp(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Setp> {
    let (c, ftz) = compare_mods(m, "setp")?;
    let ty = m.ty(COMPARE_TYPES)?;
    check_compare(m, &c, ftz, ty);
    let n = if c.bool_op.is_some() { 4 } else { 3 };
    let ops = operands(cx, i, n)?;
    let (p, q) = pred_dsts(cx, &ops[0])?;
    if q.is_none() && matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
        m.error(
            format!("`setp{ty}` writes one predicate per half: `p|q`"),
            "write two destinations",
        );
    }
    // The ISA lists `p|q` for the packed half forms only; NVIDIA's ptxas rejects it for
    // `.f16`/`.bf16` ("Predicate output not allowed").
    if q.is_some() && matches!(ty, ScalarType::F16 | ScalarType::Bf16) {
        m.error(
            format!("`setp{ty}` writes one predicate: `p|q` is for .f16x2 and .bf16x2"),
            "write one destination",
        );
    }
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let b = cx.src(&ops[2], ty, TypeRule::Strict);
    let combine = match c.bool_op {
        Some(op) => Some((op, cx.src(&ops[3], ScalarType::Pred, TypeRule::Strict)?)),
        None => None,
    };
    Some(Setp {
        cmp: c.cmp,
        ty,
        ftz: c.ftz,
        combine,
        p,
        q,
        a: a?,
        b: b?,
    })
}

/// Which destination types `set` allows for a source type (ISA 8.7.4.1 and its half forms).
fn set_dtypes(stype: ScalarType) -> &'static [ScalarType] {
    use ScalarType::*;
    match stype {
        F16 => &[U16, S16, U32, S32, F16, Bf16],
        Bf16 => &[U16, S16, U32, S32],
        F16x2 => &[F16x2, U32, S32],
        Bf16x2 => &[Bf16x2, U32, S32],
        _ => &[U32, S32, F32, F16, Bf16],
    }
}

pub fn set(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Set> {
    use ScalarType::*;
    let (c, ftz) = compare_mods(m, "set")?;
    let Some(dtype) = m.next_type() else {
        m.error(
            "`set` needs a destination and a source type",
            "add e.g. .u32.f32",
        );
        return None;
    };
    let stype = m.ty(COMPARE_TYPES)?;
    check_compare(m, &c, ftz, stype);
    // The `.bf16`/`.bf16x2` results have no `.ftz` form (ISA 9.7.4.4; ptxas: "Illegal
    // modifier").
    if let Some(sp) = ftz {
        if matches!(dtype.node, Bf16 | Bf16x2) {
            m.error_at(
                sp,
                format!("`set{}` has no `.ftz` form", dtype.node),
                "remove it",
            );
        }
    }
    let allowed = set_dtypes(stype);
    if !allowed.contains(&dtype.node) {
        let names: Vec<String> = allowed.iter().map(|t| t.to_string()).collect();
        m.error_at(
            dtype.span,
            format!("`set` with {stype} sources cannot write {}", dtype.node),
            format!("expected one of {}", names.join(" ")),
        );
        return None;
    }
    // Integer results of half comparisons came with PTX 6.5 (ISA 9.7.7.1). The gating table
    // has the `.f16` (PTX 4.2) and `.bf16` (PTX 7.8, sm_90) forms, but its conditions cannot
    // tell the destination type from the source type, which this rule depends on.
    let need = (matches!(stype, F16 | F16x2) && matches!(dtype.node, U16 | S16 | U32 | S32))
        .then_some((53, (6, 5)));
    if let Some((sm, v)) = need {
        if (cx.m.sm != 0 && cx.m.sm < sm) || cx.m.version < v {
            m.error_at(
                dtype.span,
                format!(
                    "`set{}{stype}` requires sm_{sm} and PTX ISA {}.{}",
                    dtype.node, v.0, v.1
                ),
                "not available on this target",
            );
        }
    }
    let n = if c.bool_op.is_some() { 4 } else { 3 };
    let ops = operands(cx, i, n)?;
    let d = cx.dst(&ops[0], dtype.node, TypeRule::Strict);
    let a = cx.src(&ops[1], stype, TypeRule::Strict);
    let b = cx.src(&ops[2], stype, TypeRule::Strict);
    let combine = match c.bool_op {
        Some(op) => Some((op, cx.src(&ops[3], Pred, TypeRule::Strict)?)),
        None => None,
    };
    Some(Set {
        cmp: c.cmp,
        dtype: dtype.node,
        stype,
        ftz: c.ftz,
        combine,
        d: d?,
        a: a?,
        b: b?,
    })
}

pub fn slct(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Slct> {
    use ScalarType::*;
    let ftz = m.flag_span("ftz");
    let dtype = m.ty(SETP_TYPES)?;
    let ctype = m.ty(&[S32, F32])?;
    if let (Some(sp), S32) = (ftz, ctype) {
        m.error_at(
            sp,
            "`.ftz` applies to `slct` with an .f32 operand `c` only",
            "remove it",
        );
    }
    let ops = operands(cx, i, 4)?;
    // d, a and b are "treated as a bitsize type of the same width" as dtype (ISA 8.7.4.4).
    let bits = ScalarType::bits_of(dtype.bits()).unwrap_or(dtype);
    let d = cx.dst(&ops[0], bits, TypeRule::Strict);
    let a = cx.src(&ops[1], bits, TypeRule::Strict);
    let b = cx.src(&ops[2], bits, TypeRule::Strict);
    let c = cx.src(&ops[3], ctype, TypeRule::Strict);
    Some(Slct {
        dtype: bits,
        ctype,
        ftz: ftz.is_some(),
        d: d?,
        a: a?,
        b: b?,
        c: c?,
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
    Some(Arith::new(ty, d?, smallvec::smallvec![a?, b?, c?]))
}
