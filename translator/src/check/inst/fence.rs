//! Memory and proxy fences: `membar` and `fence` in every form the ISA lists.
//!
//! ```text
//! fence{.sem}.scope;                       .sem = .sc .acq_rel .acquire .release
//! fence.acquire.sync_restrict::shared::cluster.cluster;
//! fence.release.sync_restrict::shared::cta.cluster;
//! fence.mbarrier_init.release.cluster;
//! fence.proxy.proxykind;                   .alias .async .async.global .async.shared::{cta,cluster}
//! fence.proxy.tensormap::generic.release.scope;
//! fence.proxy.tensormap::generic.acquire.scope [addr], 128;
//! fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
//! fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;
//! membar.level;                            .level = .cta .gl .sys
//! membar.proxy.proxykind;
//! ```

use super::shared::operands;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::{NoEffect, Op, Scope};
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::types::ScalarType;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sem {
    Acquire,
    Release,
}

const SCOPES: [(&str, Scope); 5] = [
    ("cta", Scope::Cta),
    ("cluster", Scope::Cluster),
    ("gl", Scope::Gpu),
    ("gpu", Scope::Gpu),
    ("sys", Scope::Sys),
];

/// Decodes `membar`/`fence`: a fence at a scope, or a proxy fence without one.
pub fn fence(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Op> {
    if m.flag("proxy") {
        return proxy(cx, i, m);
    }
    let is_fence = i.opcode.node == "fence";
    if is_fence && m.flag("mbarrier_init") {
        if !m.flag("release") {
            m.error(
                "`fence.mbarrier_init` needs `.release`",
                "write fence.mbarrier_init.release.cluster",
            );
        }
        cluster_scope(m, "fence.mbarrier_init")?;
        operands(cx, i, 0)?;
        return Some(Op::Membar(Scope::Cluster));
    }
    let sem = m.pick(&[
        ("sc", None),
        ("acq_rel", None),
        ("acquire", Some(Sem::Acquire)),
        ("release", Some(Sem::Release)),
    ]);
    if is_fence && restriction(m, sem.flatten(), "fence")? {
        cluster_scope(m, "fence.sync_restrict")?;
        operands(cx, i, 0)?;
        return Some(Op::Membar(Scope::Cluster));
    }
    let Some(scope) = m.pick(&SCOPES) else {
        m.error(
            format!("`{}` needs a scope", i.opcode.node),
            "add .cta, .cluster, .gpu (.gl for membar) or .sys",
        );
        return None;
    };
    operands(cx, i, 0)?;
    Some(Op::Membar(scope))
}

/// `.sync_restrict::shared::cta` (with `.release`) or `::cluster` (with `.acquire`), if written.
fn restriction(m: &mut Mods<'_, '_>, sem: Option<Sem>, what: &str) -> Option<bool> {
    let restrict = m.pick_span(&[
        ("sync_restrict::shared::cta", Sem::Release),
        ("sync_restrict::shared::cluster", Sem::Acquire),
    ]);
    let Some((needs, span)) = restrict else {
        return Some(false);
    };
    if sem != Some(needs) {
        let (want, space) = match needs {
            Sem::Release => ("release", "shared::cta"),
            Sem::Acquire => ("acquire", "shared::cluster"),
        };
        m.error_at(
            span,
            format!("`{what}.sync_restrict::{space}` needs `.{want}`"),
            format!("add .{want}"),
        );
        return None;
    }
    Some(true)
}

fn cluster_scope(m: &mut Mods<'_, '_>, what: &str) -> Option<()> {
    if m.pick(&SCOPES) == Some(Scope::Cluster) {
        return Some(());
    }
    m.error(
        format!("`{what}` has scope `.cluster` only"),
        "add .cluster",
    );
    None
}

/// The proxy fences. The bidirectional ones order this thread's accesses across memory proxies
/// and have no scope; the unidirectional ones are also a release or an acquire at a scope.
fn proxy(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Op> {
    if m.flag("alias") {
        operands(cx, i, 0)?;
        return Some(Op::NoEffect(NoEffect::ProxyFence));
    }
    if m.flag("async") {
        m.pick(&[("global", ()), ("shared::cta", ()), ("shared::cluster", ())]);
        operands(cx, i, 0)?;
        return Some(Op::NoEffect(NoEffect::ProxyFence));
    }
    let membar = i.opcode.node == "membar";
    let kind = if membar {
        None
    } else {
        m.pick(&[("tensormap::generic", false), ("async::generic", true)])
    };
    let Some(async_generic) = kind else {
        m.error(
            format!("`{}.proxy` needs a proxy kind", i.opcode.node),
            if membar {
                "add .alias or .async{.global,.shared::cta,.shared::cluster}"
            } else {
                "add .alias, .async{.global,.shared::cta,.shared::cluster}, .tensormap::generic or .async::generic"
            },
        );
        return None;
    };
    let Some(sem) = m.pick(&[("acquire", Sem::Acquire), ("release", Sem::Release)]) else {
        m.error(
            "a unidirectional proxy fence needs `.acquire` or `.release`",
            "add one",
        );
        return None;
    };
    if async_generic {
        if !restriction(m, Some(sem), "fence.proxy.async::generic")? {
            m.error(
                "`fence.proxy.async::generic` needs `.sync_restrict::shared::cta` or `::cluster`",
                "add one",
            );
            return None;
        }
        cluster_scope(m, "fence.proxy.async::generic")?;
        operands(cx, i, 0)?;
        return Some(Op::Membar(Scope::Cluster));
    }
    let Some(scope) = m.pick(&SCOPES) else {
        m.error(
            "`fence.proxy.tensormap::generic` needs a scope",
            "add .cta, .cluster, .gpu or .sys",
        );
        return None;
    };
    if sem == Sem::Release {
        operands(cx, i, 0)?;
        return Some(Op::Membar(scope));
    }
    // The acquire form names the 128-byte tensor map it is about to use.
    let ops = operands(cx, i, 2)?;
    cx.address(&ops[0])?;
    let size = cx.src(&ops[1], ScalarType::U32, TypeRule::Strict)?;
    if size != Src::Imm(128) {
        m.error_at(
            ops[1].span,
            "the size of `fence.proxy.tensormap::generic.acquire` is the constant 128",
            "write 128",
        );
        return None;
    }
    Some(Op::Membar(scope))
}
