//! `cp.reduce.async.bulk` without a tensor map (ISA: cp.reduce.async.bulk):
//! `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.redOp.type [dst], [src], size,
//! [mbar]` and `.global.shared::cta.bulk_group{.L2::cache_hint}.redOp{.noftz}.type [dst],
//! [src], size{, cache-policy}`, with the element types the ISA's table lists for each
//! destination and operator ([`reduce_types`]).

use super::super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{AsyncCopy, AtomOp, CpBulkReduce, ReduceInto, reduce_types};
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

const RED_OPS: [(&str, AtomOp); 8] = [
    ("add", AtomOp::Add),
    ("min", AtomOp::Min),
    ("max", AtomOp::Max),
    ("inc", AtomOp::Inc),
    ("dec", AtomOp::Dec),
    ("and", AtomOp::And),
    ("or", AtomOp::Or),
    ("xor", AtomOp::Xor),
];

/// The position of the first of `names` among the modifiers.
fn position(i: &ast::Instruction<'_>, names: &[&str]) -> Option<usize> {
    i.modifiers.iter().position(|x| names.contains(&x.node))
}

pub fn bulk_reduce(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    if m.flag("multicast::cluster") {
        m.error_on_opcode(
            format!(
                "`{}` (multicast) is not supported by ptxvk yet",
                m.full_name()
            ),
            "not supported yet",
        );
        return None;
    }
    // The destination's space is written before the source's.
    let (global, cluster, cta) = (
        position(i, &["global"]),
        position(i, &["shared::cluster"]),
        position(i, &["shared::cta"]),
    );
    let into = match (global, cluster, cta) {
        (Some(g), None, Some(s)) if g < s => Some(ReduceInto::Global),
        (None, Some(c), Some(s)) if c < s => Some(ReduceInto::Cluster),
        _ => None,
    };
    for name in ["global", "shared::cluster", "shared::cta"] {
        m.flag(name);
    }
    let with_mbar = m.flag("mbarrier::complete_tx::bytes");
    let group = m.flag("bulk_group");
    let hint = m.flag("L2::cache_hint");
    let into = match into {
        Some(ReduceInto::Global) if group && !with_mbar => ReduceInto::Global,
        Some(ReduceInto::Cluster) if with_mbar && !group && !hint => ReduceInto::Cluster,
        _ => {
            m.error(
                "`cp.reduce.async.bulk` reduces `.shared::cluster.shared::cta` with \
                 `.mbarrier::complete_tx::bytes`, or `.global.shared::cta` with `.bulk_group` \
                 (and an optional `.L2::cache_hint`)",
                "ISA: cp.reduce.async.bulk",
            );
            return None;
        }
    };
    let Some(op) = m.pick(&RED_OPS) else {
        m.error(
            "`cp.reduce.async.bulk` needs its operator (`.add`, `.min`, `.max`, `.inc`, `.dec`, \
             `.and`, `.or` or `.xor`)",
            "add the reduction operator",
        );
        return None;
    };
    let noftz = m.flag("noftz");
    let ty = m.ty(reduce_types(op, into))?;
    let half = matches!(ty, ScalarType::F16 | ScalarType::Bf16);
    // ".add.noftz.type: .type = { .f16, .bf16 }" is the only form with `.noftz`.
    if op == AtomOp::Add && half != noftz {
        m.error(
            "`cp.reduce.async.bulk` adds `.f16` and `.bf16` as `.add.noftz`, and only them",
            "ISA: cp.reduce.async.bulk",
        );
        return None;
    }
    if noftz && op != AtomOp::Add {
        m.error(
            "`.noftz` is written only with `.add` of `.f16` or `.bf16`",
            "ISA: cp.reduce.async.bulk",
        );
        return None;
    }
    let n = 3 + usize::from(with_mbar) + usize::from(hint);
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
    if hint {
        cx.src(&ops[n - 1], ScalarType::B64, TypeRule::Strict)?;
    }
    let dst_space = match into {
        ReduceInto::Global => StateSpace::Global,
        _ => StateSpace::Shared,
    };
    Some(AsyncCopy::BulkReduce(Box::new(CpBulkReduce {
        dst: dst?,
        dst_space,
        src: src?,
        size: size?,
        op,
        ty,
        mbar,
    })))
}
