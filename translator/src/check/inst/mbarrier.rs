//! `mbarrier` (ISA 9.7.13.15): barrier objects in shared memory with phases, arrival counts and
//! transaction counts.
//!
//! ```text
//! mbarrier.init{.shared{::cta}}.b64                 [addr], count;
//! mbarrier.inval{.shared{::cta}}.b64                [addr];
//! mbarrier.expect_tx{.sem}{.scope}{.space}.b64      [addr], txCount;
//! mbarrier.complete_tx{.sem}{.scope}{.space}.b64    [addr], txCount;
//! mbarrier.arrive{.sem}{.scope}{.space}.b64         state, [addr]{, count};
//! mbarrier.arrive.expect_tx{.sem}{.scope}{.space}.b64 state, [addr], txCount;
//! mbarrier.arrive.noComplete{.sem}{.cta}{.space}.b64 state, [addr], count;
//! mbarrier.arrive_drop{...}                          (the same three forms)
//! mbarrier.test_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64 waitComplete, [addr], state|phaseParity;
//! mbarrier.try_wait{.parity}{.sem}{.scope}{.shared{::cta}}.b64  waitComplete, [addr], state|phaseParity{, suspendTimeHint};
//! mbarrier.pending_count.b64                         count, state;
//! ```
//! With `.shared::cluster` the arrive forms write no state (`_`). A cluster is one block here
//! (docs/decisions/0102-clusters-are-one-block.md), so `.cluster` scope and `.shared::cluster`
//! addresses are the block's.

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{Mbarrier, MbarrierInst, MbarrierOp, MbarrierPending};
use crate::check::operands::TypeRule;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

const OPS: [(&str, u8); 9] = [
    ("init", 0),
    ("inval", 1),
    ("arrive", 2),
    ("arrive_drop", 3),
    ("test_wait", 4),
    ("try_wait", 5),
    ("pending_count", 6),
    ("expect_tx", 7),
    ("complete_tx", 8),
];

pub fn mbarrier(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<MbarrierInst> {
    // `arrive.expect_tx` names two operations: the arrive comes first.
    let arrive = m.pick(&[("arrive", false), ("arrive_drop", true)]);
    let kind = match arrive {
        Some(drop) => {
            if drop {
                3
            } else {
                2
            }
        }
        None => match m.pick(&OPS) {
            Some(k) => k,
            None => {
                m.error(
                    "`mbarrier` needs an operation",
                    "one of .init .inval .arrive .arrive_drop .expect_tx .complete_tx \
                     .test_wait .try_wait .pending_count",
                );
                return None;
            }
        },
    };
    let expect_tx = arrive.is_some() && m.flag("expect_tx");
    let no_complete = arrive.is_some() && m.flag("noComplete");
    let parity = matches!(kind, 4 | 5) && m.flag("parity");
    let sem = m.pick(&[("release", 0u8), ("acquire", 1), ("relaxed", 2)]);
    m.pick(&[("cta", ()), ("cluster", ())]);
    let space = m.pick(&[
        ("shared", false),
        ("shared::cta", false),
        ("shared::cluster", true),
    ]);
    m.ty(&[ScalarType::B64])?;
    match (sem, kind) {
        (Some(0), 2 | 3) | (Some(1), 4 | 5) | (Some(2), 2..=5 | 7 | 8) | (None, _) => {}
        _ => m.error(
            "this memory order is not one of this `mbarrier` operation",
            "arrives take .release or .relaxed, waits .acquire or .relaxed",
        ),
    }
    let cluster = space == Some(true);
    if cluster && !matches!(kind, 2 | 3 | 7 | 8) {
        m.error(
            "only the arrive, expect_tx and complete_tx forms take `.shared::cluster`",
            "use .shared::cta",
        );
    }
    if kind == 6 {
        let ops = operands(cx, i, 2)?;
        let dst = cx.dst(&ops[0], ScalarType::U32, TypeRule::Relaxed);
        let state = cx.src(&ops[1], ScalarType::B64, TypeRule::Relaxed);
        return Some(MbarrierInst::PendingCount(MbarrierPending {
            dst: dst?,
            state: state?,
        }));
    }
    let addr_at = match kind {
        2..=5 => 1,
        _ => 0,
    };
    let n = i.operands.len();
    let (lo, hi) = match kind {
        0 | 7 | 8 => (2, 2),
        1 => (1, 1),
        2 | 3 if expect_tx || no_complete => (3, 3),
        2 | 3 => (2, 3),
        _ if kind == 5 => (3, 4),
        _ => (3, 3),
    };
    if !(lo..=hi).contains(&n) {
        let want = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo} or {hi}")
        };
        cx.error(
            Diagnostic::error(
                i.span,
                format!("`{}` takes {want} operands, found {n}", m.full_name()),
            )
            .with_label("ISA 9.7.13.15"),
        );
        return None;
    }
    let ops = &i.operands;
    let addr = cx.address(&ops[addr_at])?;
    if let Some(s) = cx.address_space(&addr)
        && s != StateSpace::Shared
    {
        cx.error(
            Diagnostic::error(
                ops[addr_at].span,
                format!("an mbarrier object lives in shared memory, not in a {s} variable"),
            )
            .with_label("wrong state space"),
        );
        return None;
    }
    let u32_src =
        |cx: &mut FnCx<'_, '_>, k: usize| cx.src(&ops[k], ScalarType::U32, TypeRule::Relaxed);
    let op = match kind {
        0 => MbarrierOp::Init {
            count: u32_src(cx, 1)?,
        },
        1 => MbarrierOp::Inval,
        7 => MbarrierOp::ExpectTx {
            tx: u32_src(cx, 1)?,
        },
        8 => MbarrierOp::CompleteTx {
            tx: u32_src(cx, 1)?,
        },
        2 | 3 => {
            if cluster && !matches!(ops[0].kind, ast::OperandKind::Sink) {
                cx.error(
                    Diagnostic::error(
                        ops[0].span,
                        "with `.shared::cluster` the state operand must be `_`",
                    )
                    .with_label("ISA 9.7.13.15"),
                );
                return None;
            }
            let state = cx.dst(&ops[0], ScalarType::B64, TypeRule::Relaxed);
            let third = if n == 3 { Some(u32_src(cx, 2)?) } else { None };
            let (count, tx) = if expect_tx {
                (None, third)
            } else {
                (third, None)
            };
            MbarrierOp::Arrive {
                state: state?,
                count,
                tx,
                drop: kind == 3,
            }
        }
        _ => {
            let done = cx.dst(&ops[0], ScalarType::Pred, TypeRule::Strict);
            let arg = if parity {
                u32_src(cx, 2)
            } else {
                cx.src(&ops[2], ScalarType::B64, TypeRule::Relaxed)
            };
            if n == 4 {
                // The suspend-time hint bounds how long to wait; it only needs to be valid.
                u32_src(cx, 3)?;
            }
            MbarrierOp::Wait {
                done: done?,
                arg: arg?,
                parity,
                try_wait: kind == 5,
            }
        }
    };
    Some(MbarrierInst::Object(Box::new(Mbarrier { addr, op })))
}
