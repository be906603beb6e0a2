//! Asynchronous copies from global to shared memory (ISA 9.7.9.25 in later numbering):
//! `cp.async`, `cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`,
//! `cp.async.mbarrier.arrive{.noinc}`; and the bulk copies `cp.async.bulk` between global and
//! shared memory (completing an mbarrier's transaction, or in bulk async-groups) with
//! `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read}` and `cp.async.bulk.prefetch`;
//! the reductions `cp.reduce.async.bulk` are in `async_copy/reduce.rs` and the tensor forms in
//! `async_copy/tensor.rs`.

mod multicast;
mod reduce;
mod tensor;
mod tensormap;

pub use tensormap::tensormap;

use super::shared::{int_operand, operands};
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{AsyncCopy, CpAsync, CpBulk};
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

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
    if m.flag("reduce") {
        if !m.flag("bulk") {
            return not_yet(i, m);
        }
        if m.flag("tensor") {
            return tensor::reduce(cx, i, m);
        }
        return reduce::bulk_reduce(cx, i, m);
    }
    if m.flag("bulk") {
        return bulk(cx, i, m);
    }
    if m.flag("mbarrier") {
        m.flag("arrive");
        let noinc = m.flag("noinc");
        m.pick(&[("shared", ()), ("shared::cta", ())]);
        m.ty(&[ScalarType::B64])?;
        let ops = operands(cx, i, 1)?;
        let addr = cx.address(&ops[0])?;
        return Some(AsyncCopy::MbarrierArrive { addr, noinc });
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

/// The bulk forms (`cp.async.bulk...`).
fn bulk(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    if m.flag("commit_group") {
        operands(cx, i, 0)?;
        return Some(AsyncCopy::CommitGroup);
    }
    if m.flag("wait_group") {
        m.flag("read");
        let ops = operands(cx, i, 1)?;
        let n = int_operand(cx, &ops[0])?;
        return Some(AsyncCopy::WaitGroup(u32::try_from(n).unwrap_or(0)));
    }
    if m.flag("prefetch") {
        if m.flag("tensor") {
            return tensor::prefetch(cx, i, m);
        }
        m.flag("L2");
        m.flag("global");
        let hint = m.flag("L2::cache_hint");
        let ops = operands(cx, i, 2 + usize::from(hint))?;
        cx.address(&ops[0])?;
        cx.src(&ops[1], ScalarType::U32, TypeRule::Relaxed)?;
        return Some(AsyncCopy::Prefetch);
    }
    if m.flag("tensor") {
        return tensor::copy(cx, i, m);
    }
    // The destination's space is written before the source's.
    let spaces: Vec<StateSpace> = i
        .modifiers
        .iter()
        .filter_map(|x| match x.node {
            "global" => Some(StateSpace::Global),
            "shared" | "shared::cta" | "shared::cluster" => Some(StateSpace::Shared),
            _ => None,
        })
        .collect();
    for name in ["global", "shared", "shared::cta", "shared::cluster"] {
        m.flag(name);
    }
    let with_mbar = m.flag("mbarrier::complete_tx::bytes");
    let group = m.flag("bulk_group");
    let hint = m.flag("L2::cache_hint");
    let multicast = m.flag("multicast::cluster");
    let (dst_space, src_space) = match spaces.as_slice() {
        [d, s] if *s == StateSpace::Global && *d == StateSpace::Shared && with_mbar => (*d, *s),
        [d, s] if *s == StateSpace::Shared && *d == StateSpace::Shared && with_mbar => (*d, *s),
        [d, s] if *d == StateSpace::Global && *s == StateSpace::Shared && group => (*d, *s),
        _ => {
            m.error(
                "`cp.async.bulk` copies `.shared::cluster.global` or `.shared::cluster.shared::cta` \
                 with `.mbarrier::complete_tx::bytes`, or `.global.shared::cta` with `.bulk_group`",
                "ISA 9.7.9.25",
            );
            return None;
        }
    };
    // "The source data is multicast to the same CTA-relative offset as dstMem in the shared
    // memory of each destination CTA": the `.shared::cluster.global` copy only.
    let from_global = src_space == StateSpace::Global;
    let cluster_dst = i.modifiers.iter().any(|x| x.node == "shared::cluster");
    if multicast && !(from_global && cluster_dst) {
        m.error_on(
            "multicast::cluster",
            "`.multicast::cluster` is for copies from `.global` into `.shared::cluster`",
            "cp.async.bulk.shared::cluster.global only",
        );
        return None;
    }
    let n = 3 + usize::from(with_mbar) + usize::from(multicast) + usize::from(hint);
    let ops = operands(cx, i, n)?;
    let dst = cx.address(&ops[0]);
    let src = cx.address(&ops[1]);
    let size = cx.src(&ops[2], ScalarType::U32, TypeRule::Relaxed);
    if let Some(Src::Imm(v)) = &size
        && v % 16 != 0
    {
        cx.error(
            Diagnostic::error(ops[2].span, format!("the size {v} is not a multiple of 16"))
                .with_label("ISA: size is a multiple of 16"),
        );
        return None;
    }
    let mbar = if with_mbar {
        Some(cx.address(&ops[3])?)
    } else {
        None
    };
    let multicast = match multicast {
        true => Some(multicast::cta_mask(cx, &ops[4])?),
        false => None,
    };
    if hint {
        cx.src(&ops[n - 1], ScalarType::B64, TypeRule::Strict)?;
    }
    Some(AsyncCopy::Bulk(Box::new(CpBulk {
        dst: dst?,
        dst_space,
        src: src?,
        src_space,
        size: size?,
        mbar,
        multicast,
    })))
}

/// The forms ptxvk does not implement yet.
fn not_yet(i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<AsyncCopy> {
    m.errors.push(
        Diagnostic::error(
            i.opcode.span,
            format!("`{}` is not supported by ptxvk yet", m.full_name()),
        )
        .with_label("not supported yet"),
    );
    None
}
