//! Atomics: `atom` and `red` (ISA 8.7.12.x in later numbering).

use super::shared::{operands, space_modifier};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Atom, AtomOp, AtomSem, Scope};
use crate::check::operands::TypeRule;
use crate::types::ScalarType::{self, *};
use crate::types::StateSpace;

/// The types each operation takes (ISA: atom/red).
fn types_of(op: AtomOp) -> &'static [ScalarType] {
    match op {
        AtomOp::And | AtomOp::Or | AtomOp::Xor => &[B32, B64],
        AtomOp::Cas => &[B16, B32, B64],
        AtomOp::Exch => &[B32, B64],
        AtomOp::Add => &[U32, S32, U64, F32, F64, F16, F16x2, Bf16, Bf16x2],
        AtomOp::Inc | AtomOp::Dec => &[U32],
        AtomOp::Min | AtomOp::Max => &[U32, S32, U64, S64],
    }
}

/// `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c};` and `red{.sem}{.scope}{.space}.op.type [a], b;`.
pub fn atom(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
    red: bool,
) -> Option<Atom> {
    let sem = m
        .pick(&[
            ("relaxed", AtomSem::Relaxed),
            ("acquire", AtomSem::Acquire),
            ("release", AtomSem::Release),
            ("acq_rel", AtomSem::AcqRel),
        ])
        .unwrap_or(AtomSem::Relaxed);
    let scope = m
        .pick(&[
            ("cta", Scope::Cta),
            ("cluster", Scope::Cluster),
            ("gpu", Scope::Gpu),
            ("sys", Scope::Sys),
        ])
        .unwrap_or(Scope::Gpu);
    let space = space_modifier(m).unwrap_or(StateSpace::Generic);
    if !matches!(
        space,
        StateSpace::Global | StateSpace::Shared | StateSpace::Generic
    ) {
        m.error(
            format!("atomics work on .global and .shared memory, not {space}"),
            "wrong state space",
        );
        return None;
    }
    let ops_table: &[(&str, AtomOp)] = &[
        ("and", AtomOp::And),
        ("or", AtomOp::Or),
        ("xor", AtomOp::Xor),
        ("cas", AtomOp::Cas),
        ("exch", AtomOp::Exch),
        ("add", AtomOp::Add),
        ("inc", AtomOp::Inc),
        ("dec", AtomOp::Dec),
        ("min", AtomOp::Min),
        ("max", AtomOp::Max),
    ];
    let Some(op) = m.pick(ops_table) else {
        m.error(
            format!("`{}` needs an operation", i.opcode.node),
            "add .add, .min, .cas, ...",
        );
        return None;
    };
    if red && matches!(op, AtomOp::Cas | AtomOp::Exch) {
        m.error(
            "`red` has no `.cas` or `.exch` (they return a value: use `atom`)",
            "not a reduction",
        );
        return None;
    }
    m.flag("noftz");
    m.flag("L2::cache_hint");
    let ty = m.ty(types_of(op))?;
    let n = usize::from(!red) + 2 + usize::from(op == AtomOp::Cas);
    // The optional cache-policy operand of `.L2::cache_hint` comes last.
    if i.operands.len() != n && i.operands.len() != n + 1 {
        operands(cx, i, n)?;
    }
    let ops = &i.operands;
    let base = usize::from(!red);
    let dst = if red {
        None
    } else {
        Some(cx.dst(&ops[0], ty, TypeRule::Strict)?)
    };
    let addr = cx.address(&ops[base])?;
    if let Some(vs) = cx.address_space(&addr)
        && space != StateSpace::Generic
        && vs != space
    {
        m.error(
            format!("the variable is in {vs}, but the atomic accesses {space}"),
            "state spaces differ",
        );
        return None;
    }
    let b = cx.src(&ops[base + 1], ty, TypeRule::Strict)?;
    let c = if op == AtomOp::Cas {
        Some(cx.src(&ops[base + 2], ty, TypeRule::Strict)?)
    } else {
        None
    };
    Some(Atom {
        op,
        ty,
        space,
        sem,
        scope,
        dst,
        addr,
        b,
        c,
    })
}
