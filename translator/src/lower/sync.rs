//! The meaning of barriers and fences.

use super::Cx;
use crate::check::inst::{Bar, BarKind, BarRed, Scope as PtxScope};
use crate::ir::{BinOp, Op, Scope, Ty, UnOp, WarpOp};
use crate::profile::WarpStrategy;
use crate::types::ScalarType;

/// `bar.sync`/`barrier.sync`: a workgroup control barrier that also makes shared and global memory
/// writes before it visible to the block's threads after it.
///
/// Named barriers, thread counts and `bar.arrive` let parts of a block synchronize among
/// themselves (producer/consumer warps). Under the SIMT emulation every synchronization point is
/// reached by the whole block in program order, so each of them is a whole-block barrier there:
/// stronger than asked, with the same outcome. Natively that would deadlock, so it is refused.
pub fn bar(cx: &mut Cx<'_>, b: &Bar) {
    let emulated = cx.profile.warp_strategy() == WarpStrategy::Emulated;
    let partial = b.count.is_some() || b.kind == BarKind::Arrive;
    if partial && !emulated {
        cx.unsupported(
            "a barrier with a thread count or `bar.arrive` on a device with native warps",
        );
        return;
    }
    match b.kind {
        BarKind::Sync | BarKind::Arrive => cx.barrier(),
        BarKind::Red(op) => {
            if !emulated {
                cx.unsupported("`bar.red` on a device with native warps");
                return;
            }
            let Some((dst, pred)) = &b.red else { return };
            let p = cx.read(pred, ScalarType::Pred);
            // popc counts the predicate; and = nobody false; or = somebody true.
            let p = if op == BarRed::And {
                cx.un(UnOp::Not, p)
            } else {
                p
            };
            let Some(count) = cx.sync_op(WarpOp::WorkgroupCount, vec![p], Some(Ty::I32)) else {
                return;
            };
            match op {
                BarRed::Popc => cx.write(dst, ScalarType::U32, count),
                BarRed::And => {
                    let zero = cx.konst(Ty::I32, 0);
                    let r = cx.bin(BinOp::IEq, count, zero);
                    cx.write(dst, ScalarType::Pred, r);
                }
                BarRed::Or => {
                    let zero = cx.konst(Ty::I32, 0);
                    let r = cx.bin(BinOp::INe, count, zero);
                    cx.write(dst, ScalarType::Pred, r);
                }
            }
        }
    }
}

/// `membar`/`fence`: `.cta` orders within the workgroup, wider scopes device-wide.
pub fn membar(cx: &mut Cx<'_>, scope: PtxScope) {
    let s = match scope {
        PtxScope::Cta => Scope::Workgroup,
        PtxScope::Cluster | PtxScope::Gpu | PtxScope::Sys => Scope::Device,
    };
    cx.emit_void(Op::Fence(s));
}
