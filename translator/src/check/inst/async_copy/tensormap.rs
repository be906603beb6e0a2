//! `tensormap.replace.tile.global_address{.global,.shared::cta}.b1024.b64 [map], new_val` (a
//! new tensor address in a tensor map in memory) and
//! `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
//! [dst], [src], 128` (a map edited in shared memory copied back to global memory). The other
//! fields of `tensormap.replace` are refused by name (decision 0107).

use super::super::shared::{int_operand, operands};
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::AsyncCopy;
use crate::check::operands::TypeRule;
use crate::diag::Diagnostic;
use crate::types::{ScalarType, StateSpace};

/// The fields whose `new_val` encodings ptxvk does not implement.
const OTHER_FIELDS: [&str; 9] = [
    "rank",
    "box_dim",
    "global_dim",
    "global_stride",
    "element_stride",
    "elemtype",
    "interleave_layout",
    "swizzle_mode",
    "swizzle_atomicity",
];

pub fn tensormap(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    if m.flag("cp_fenceproxy") {
        return copy(cx, i, m);
    }
    if !m.flag("replace") {
        m.error(
            "`tensormap` is `tensormap.replace` or `tensormap.cp_fenceproxy`",
            "add .replace or .cp_fenceproxy",
        );
        return None;
    }
    if let Some(f) = i
        .modifiers
        .iter()
        .find(|x| OTHER_FIELDS.contains(&x.node) || x.node == "fill_mode")
    {
        m.error_on_opcode(
            format!(
                "`{}` (the `.{}` field) is not supported by ptxvk yet",
                m.full_name(),
                f.node
            ),
            "not supported yet",
        );
        return None;
    }
    if !m.flag("tile") || !m.flag("global_address") || !m.flag("b1024") {
        m.error(
            "`tensormap.replace` writes `.tile.global_address...b1024.b64`",
            "ISA: tensormap.replace",
        );
        return None;
    }
    let space = m
        .pick(&[
            ("global", StateSpace::Global),
            ("shared::cta", StateSpace::Shared),
        ])
        .unwrap_or(StateSpace::Generic);
    m.ty(&[ScalarType::B64])?;
    let ops = operands(cx, i, 2)?;
    let map = cx.address(&ops[0])?;
    let value = cx.src(&ops[1], ScalarType::B64, TypeRule::Strict)?;
    Some(AsyncCopy::TensormapAddress { map, space, value })
}

fn copy(
    cx: &mut FnCx<'_, '_>,
    i: &ast::Instruction<'_>,
    m: &mut Mods<'_, '_>,
) -> Option<AsyncCopy> {
    let global_first = i
        .modifiers
        .iter()
        .position(|x| x.node == "global")
        .zip(i.modifiers.iter().position(|x| x.node == "shared::cta"))
        .is_some_and(|(g, s)| g < s);
    let ok = global_first
        && m.flag("global")
        && m.flag("shared::cta")
        && m.flag("tensormap::generic")
        && m.flag("release")
        && m.pick(&[("cta", ()), ("cluster", ()), ("gpu", ()), ("sys", ())])
            .is_some()
        && m.flag("sync")
        && m.flag("aligned");
    if !ok {
        m.error(
            "`tensormap.cp_fenceproxy` copies `.global.shared::cta` with \
             `.tensormap::generic.release.scope.sync.aligned`",
            "ISA: tensormap.cp_fenceproxy",
        );
        return None;
    }
    let ops = operands(cx, i, 3)?;
    let dst = cx.address(&ops[0])?;
    let src = cx.address(&ops[1])?;
    if int_operand(cx, &ops[2])? != 128 {
        cx.error(
            Diagnostic::error(ops[2].span, "a tensor map is 128 bytes")
                .with_label("the size must be 128"),
        );
        return None;
    }
    Some(AsyncCopy::TensormapCopy { dst, src })
}
