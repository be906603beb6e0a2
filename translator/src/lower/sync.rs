//! The meaning of barriers and fences.

use super::Cx;
use crate::check::inst::{Bar, BarKind, Scope as PtxScope};
use crate::ir::{Op, Scope};

/// `bar.sync`/`barrier.sync` for the whole block: a workgroup control barrier that also makes
/// shared and global memory writes before it visible to the block's threads after it.
pub fn bar(cx: &mut Cx<'_>, b: &Bar) {
    match (b.kind, &b.count) {
        (BarKind::Sync, None) => cx.emit_void(Op::Barrier),
        (BarKind::Sync, Some(_)) => cx.unsupported("a barrier with a thread count"),
        (BarKind::Arrive, _) => cx.unsupported("`bar.arrive`"),
        (BarKind::Red(_), _) => cx.unsupported("`bar.red`"),
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
