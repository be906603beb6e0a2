//! Loads and hints about caching (ISA 8.7.6.8 and 8.7.6.10): `ldu`, `prefetch`, `prefetchu`.

use super::{Ld, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::diag::Diagnostic;
use crate::types::StateSpace;

/// `ldu{.global}{.v2,.v4}.type d, [a]`: a load of a value that is the same for every thread of
/// the warp, through the read-only path. Its meaning is `ld`'s, so it decodes to an [`Ld`].
pub fn ldu(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Ld> {
    if let Some(bad) = i.modifiers.iter().find(|x| {
        !matches!(x.node, "global" | "v2" | "v4")
            && crate::types::ScalarType::from_name(x.node).is_none()
    }) {
        m.errors.push(
            Diagnostic::error(
                bad.span,
                format!("`.{}` is not a modifier of `ldu`", bad.node),
            )
            .with_label("ldu takes .global, .v2/.v4 and a type"),
        );
        return None;
    }
    let ld = super::data::ld(cx, i, m)?;
    if !matches!(ld.space, StateSpace::Global | StateSpace::Generic) {
        m.error(
            "`ldu` reads global memory",
            "use .global or a generic address",
        );
        return None;
    }
    Some(ld)
}

/// `prefetch{.global,.local}.{L1,L2} [a]`, `prefetch.global.L2::evict_{last,normal} [a]`,
/// `prefetch{.const,.param}.tensormap [a]`, `prefetchu.L1 [a]`.
pub fn prefetch(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<()> {
    let uniform = i.opcode.node == "prefetchu";
    let level = if uniform {
        m.pick(&[("L1", ())])
    } else {
        m.pick(&[
            ("L1", ()),
            ("L2", ()),
            ("L2::evict_last", ()),
            ("L2::evict_normal", ()),
            ("tensormap", ()),
        ])
    };
    if level.is_none() {
        let want = if uniform { ".L1" } else { ".L1 or .L2" };
        m.error(
            format!("`{}` needs a cache level", i.opcode.node),
            format!("add {want}"),
        );
        return None;
    }
    if !uniform {
        m.pick(&[("global", ()), ("local", ()), ("const", ()), ("param", ())]);
    }
    let ops = operands(cx, i, 1)?;
    cx.address(&ops[0])?;
    Some(())
}
