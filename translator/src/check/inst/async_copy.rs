//! Asynchronous copies from global to shared memory (ISA 9.7.9.25 in later numbering):
//! `cp.async`, `cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`.

use super::operands;
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::{Address, Src};
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

/// One `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src};`.
#[derive(Clone, Debug)]
pub struct CpAsync {
    pub dst: Address,
    pub src: Address,
    /// Bytes written to `dst`: 4, 8 or 16.
    pub size: u32,
    /// Bytes read from `src` (the rest of `dst` is zero-filled); `None` = `size`.
    pub src_size: Option<Src>,
    /// A predicate: when true nothing is read and `dst` is zero-filled.
    pub ignore_src: Option<Src>,
}

#[derive(Clone, Debug)]
pub enum AsyncCopy {
    Copy(CpAsync),
    CommitGroup,
    /// `cp.async.wait_group N`: wait until at most N groups are pending.
    WaitGroup(u32),
    WaitAll,
}

fn int_operand(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<i64> {
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

pub fn cp(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    if !m.flag("async") {
        m.errors.push(
            Diagnostic::error(i.opcode.span, "`cp` needs `.async` (`cp.async`)")
                .with_label("only the asynchronous copies exist"),
        );
        return None;
    }
    if m.flag("bulk") || m.flag("mbarrier") || i.modifiers.iter().any(|x| x.node == "reduce") {
        m.errors.push(
            Diagnostic::error(
                i.opcode.span,
                format!("`{}` is not supported by ptxvk yet", m.full_name()),
            )
            .with_label("not supported yet"),
        );
        return None;
    }
    if m.flag("commit_group") {
        operands(cx, i, 0)?;
        return Some(AsyncCopy::CommitGroup);
    }
    if m.flag("wait_all") {
        operands(cx, i, 0)?;
        return Some(AsyncCopy::WaitAll);
    }
    if m.flag("wait_group") {
        let ops = operands(cx, i, 1)?;
        let n = int_operand(cx, &ops[0])?;
        let Ok(n) = u32::try_from(n) else {
            cx.error(
                Diagnostic::error(
                    ops[0].span,
                    "the group count must be a non-negative 32-bit integer",
                )
                .with_label("out of range"),
            );
            return None;
        };
        return Some(AsyncCopy::WaitGroup(n));
    }
    let cg = match m.pick(&[("ca", false), ("cg", true)]) {
        Some(cg) => cg,
        None => {
            m.error("`cp.async` needs `.ca` or `.cg`", "add a cache operator");
            return None;
        }
    };
    let dst_space = m.pick(&[("shared", ()), ("shared::cta", ())]);
    let src_space = m.flag("global");
    if dst_space.is_none() || !src_space {
        m.error(
            "`cp.async` copies `.shared{::cta}.global`",
            "write cp.async.ca.shared.global",
        );
        return None;
    }
    let hint = m.flag("L2::cache_hint");
    m.pick(&[("L2::64B", ()), ("L2::128B", ()), ("L2::256B", ())]);
    let n = i.operands.len();
    // [dst], [src], cp-size, then src-size or ignore-src, then the cache policy of the hint.
    let max = 4 + usize::from(hint);
    if !(3..=max).contains(&n) {
        cx.error(
            Diagnostic::error(
                i.span,
                format!("`cp.async` takes 3 to {max} operands, found {n}"),
            )
            .with_label("expected [dst], [src], cp-size{, src-size}"),
        );
        return None;
    }
    let ops = &i.operands;
    let dst = cx.address(&ops[0]);
    let src = cx.address(&ops[1]);
    let size = int_operand(cx, &ops[2])?;
    if !matches!(size, 4 | 8 | 16) || (cg && size != 16) {
        cx.error(
            Diagnostic::error(
                ops[2].span,
                if cg {
                    "`cp.async.cg` copies 16 bytes".to_string()
                } else {
                    format!("cp-size must be 4, 8 or 16, not {size}")
                },
            )
            .with_label("invalid cp-size"),
        );
        return None;
    }
    let size = size as u32;
    let mut src_size = None;
    let mut ignore_src = None;
    let fourth_is_policy = hint && n == 4;
    if n >= 4 && !fourth_is_policy {
        let op = &ops[3];
        let is_pred = match &op.kind {
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Name(name),
                ..
            }) => cx.peek_register_type(name) == Some(ScalarType::Pred),
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Unary(ast::UnaryOp::LogicalNot, _),
                ..
            }) => true,
            _ => false,
        };
        if is_pred {
            ignore_src = Some(cx.src(op, ScalarType::Pred, TypeRule::Strict)?);
        } else {
            let s = cx.src(op, ScalarType::U32, TypeRule::Strict)?;
            if let Src::Imm(v) = s
                && v > u64::from(size)
            {
                cx.error(
                    Diagnostic::error(
                        op.span,
                        format!("src-size {v} is larger than cp-size {size}"),
                    )
                    .with_label("the ISA leaves this undefined"),
                );
                return None;
            }
            src_size = Some(s);
        }
    }
    if hint {
        // The 64-bit cache policy is a hint; it only needs to be a valid operand.
        cx.src(&ops[n - 1], ScalarType::B64, TypeRule::Strict)?;
    }
    let (dst, src) = (dst?, src?);
    for (a, want, op) in [
        (&dst, StateSpace::Shared, &ops[0]),
        (&src, StateSpace::Global, &ops[1]),
    ] {
        if let Some(space) = cx.address_space(a)
            && space != want
        {
            cx.error(
                Diagnostic::error(
                    op.span,
                    format!("this address is a {space} variable; `cp.async` expects {want}"),
                )
                .with_label("wrong state space"),
            );
            return None;
        }
    }
    Some(AsyncCopy::Copy(CpAsync {
        dst,
        src,
        size,
        src_size,
        ignore_src,
    }))
}
