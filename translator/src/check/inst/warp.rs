//! Warp-level instructions: `shfl(.sync)`, `vote(.sync)`, `match.sync`, `activemask`,
//! `redux.sync`, `elect.sync`, `bar.warp.sync` (ISA 8.7.6.4 and the parallel-synchronization sections of later
//! ISA versions).

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Elect, Match, Redux, ReduxOp, Shfl, ShflMode, Vote, VoteMode};
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType::{self, *};

/// `shfl.mode.b32 d[|p], a, b, c;` and `shfl.sync.mode.b32 d[|p], a, b, c, membermask;`.
pub fn shfl(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Shfl> {
    let sync = m.flag("sync");
    let mode = m.pick(&[
        ("up", ShflMode::Up),
        ("down", ShflMode::Down),
        ("bfly", ShflMode::Bfly),
        ("idx", ShflMode::Idx),
    ]);
    let Some(mode) = mode else {
        m.error("`shfl` needs a mode", "add .up, .down, .bfly or .idx");
        return None;
    };
    m.ty(&[B32])?;
    let ops = operands(cx, i, if sync { 5 } else { 4 })?;
    let (dst, pred) = match &ops[0].kind {
        ast::OperandKind::Pair(d, p) => {
            let d = cx.dst(d, B32, TypeRule::Strict);
            let p = cx.dst(p, Pred, TypeRule::Strict);
            (d?, Some(p?))
        }
        _ => (cx.dst(&ops[0], B32, TypeRule::Strict)?, None),
    };
    let a = cx.src(&ops[1], B32, TypeRule::Strict);
    let b = cx.src(&ops[2], B32, TypeRule::Strict);
    let c = cx.src(&ops[3], B32, TypeRule::Strict);
    let mask = if sync {
        Some(cx.src(&ops[4], B32, TypeRule::Strict)?)
    } else {
        None
    };
    Some(Shfl {
        mode,
        dst,
        pred,
        a: a?,
        b: b?,
        c: c?,
        mask,
    })
}

/// `vote{.sync}.mode.pred d, {!}a{, membermask};` and `vote{.sync}.ballot.b32 d, {!}a{, membermask};`.
pub fn vote(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Vote> {
    let sync = m.flag("sync");
    let mode = m.pick(&[
        ("all", VoteMode::All),
        ("any", VoteMode::Any),
        ("uni", VoteMode::Uni),
        ("ballot", VoteMode::Ballot),
    ]);
    let Some(mode) = mode else {
        m.error("`vote` needs a mode", "add .all, .any, .uni or .ballot");
        return None;
    };
    let ty = if mode == VoteMode::Ballot { B32 } else { Pred };
    m.ty(&[ty])?;
    let ops = operands(cx, i, if sync { 3 } else { 2 })?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let a = cx.src(&ops[1], Pred, TypeRule::Strict);
    let mask = if sync {
        Some(cx.src(&ops[2], B32, TypeRule::Strict)?)
    } else {
        None
    };
    Some(Vote {
        mode,
        dst: dst?,
        a: a?,
        mask,
    })
}

/// `match.any.sync.type d, a, membermask;` and `match.all.sync.type d[|p], a, membermask;`.
pub fn match_sync(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Match> {
    let all = match m.pick(&[("any", false), ("all", true)]) {
        Some(a) => a,
        None => {
            m.error("`match` needs `.any` or `.all`", "add one");
            return None;
        }
    };
    if !m.flag("sync") {
        m.error(
            "`match` needs `.sync`",
            "write match.any.sync or match.all.sync",
        );
    }
    let ty = m.ty(&[B32, B64])?;
    let ops = operands(cx, i, 3)?;
    let (dst, pred) = if all {
        pred_pair(cx, &ops[0])?
    } else {
        (cx.dst(&ops[0], B32, TypeRule::Strict)?, None)
    };
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let mask = cx.src(&ops[2], B32, TypeRule::Strict);
    Some(Match {
        all,
        ty,
        dst,
        pred,
        a: a?,
        mask: mask?,
    })
}

/// `d` or `d|p` with `d` a `.b32` register.
fn pred_pair(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<(Dst, Option<Dst>)> {
    match &op.kind {
        ast::OperandKind::Pair(d, p) => {
            let d = cx.dst(d, B32, TypeRule::Strict);
            let p = cx.dst(p, Pred, TypeRule::Strict);
            Some((d?, Some(p?)))
        }
        _ => Some((cx.dst(op, B32, TypeRule::Strict)?, None)),
    }
}

/// `activemask.b32 d;`
pub fn activemask(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Dst> {
    m.ty(&[B32])?;
    let ops = operands(cx, i, 1)?;
    cx.dst(&ops[0], B32, TypeRule::Strict)
}

/// `redux.sync.op.type d, a, membermask;` (`.add/.min/.max` on `.u32/.s32`, `.and/.or/.xor` on `.b32`).
pub fn redux(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Redux> {
    if !m.flag("sync") {
        m.error("`redux` needs `.sync`", "write redux.sync");
    }
    let op = m.pick(&[
        ("add", ReduxOp::Add),
        ("min", ReduxOp::Min),
        ("max", ReduxOp::Max),
        ("and", ReduxOp::And),
        ("or", ReduxOp::Or),
        ("xor", ReduxOp::Xor),
    ]);
    let Some(op) = op else {
        m.error(
            "`redux.sync` needs an operation",
            "add .add, .min, .max, .and, .or or .xor",
        );
        return None;
    };
    let allowed: &[ScalarType] = match op {
        ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => &[B32],
        _ => &[U32, S32],
    };
    let ty = m.ty(allowed)?;
    let ops = operands(cx, i, 3)?;
    let dst = cx.dst(&ops[0], ty, TypeRule::Strict);
    let a = cx.src(&ops[1], ty, TypeRule::Strict);
    let mask = cx.src(&ops[2], B32, TypeRule::Strict);
    Some(Redux {
        op,
        ty,
        dst: dst?,
        a: a?,
        mask: mask?,
    })
}

pub fn elect(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<Elect> {
    if !m.flag("sync") {
        m.error("`elect` needs `.sync`", "write elect.sync");
    }
    let ops = operands(cx, i, 2)?;
    let ast::OperandKind::Pair(d, p) = &ops[0].kind else {
        m.error_at(
            ops[0].span,
            "`elect.sync` writes a lane and a predicate",
            "write d|p (d may be _)",
        );
        return None;
    };
    let dst = cx.dst(d, B32, TypeRule::Strict);
    let pred = cx.dst(p, Pred, TypeRule::Strict);
    let mask = cx.src(&ops[1], B32, TypeRule::Strict);
    Some(Elect {
        dst: dst?,
        pred: pred?,
        mask: mask?,
    })
}

/// `bar.warp.sync membermask;`
pub fn warp_sync(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) -> Option<Src> {
    let ops = operands(cx, i, 1)?;
    cx.src(&ops[0], B32, TypeRule::Strict)
}
