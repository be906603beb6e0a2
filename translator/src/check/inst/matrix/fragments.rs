//! What every fragment operand of the matrix instructions needs (a vector of registers, the
//! mandatory `.sync.aligned`), kept apart so that `mma`, `wmma`, the fragment moves and
//! `wgmma` read it without depending on each other.

use super::super::shared::vector_items;
use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::types::ScalarType;

/// Each register of a vector operand of `n`, read by `each`.
fn each_item<T>(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    op: &ast::Operand<'_>,
    n: usize,
    what: &str,
    each: impl Fn(&mut FnCx<'_, '_>, &ast::Operand<'_>) -> Option<T>,
) -> Option<Vec<T>> {
    let items = vector_items(m, op, n, what)?;
    let out: Vec<Option<T>> = items.into_iter().map(|i| each(cx, i)).collect();
    out.into_iter().collect()
}

pub(in crate::check::inst) fn srcs(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    op: &ast::Operand<'_>,
    n: usize,
    ty: ScalarType,
    what: &str,
) -> Option<Vec<Src>> {
    each_item(cx, m, op, n, what, |cx, i| cx.src(i, ty, TypeRule::Strict))
}

pub(in crate::check::inst) fn dsts(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    op: &ast::Operand<'_>,
    n: usize,
    ty: ScalarType,
    what: &str,
) -> Option<Vec<Dst>> {
    each_item(cx, m, op, n, what, |cx, i| cx.dst(i, ty, TypeRule::Strict))
}

/// `.sync.aligned`, both mandatory.
pub(in crate::check::inst) fn sync_aligned(m: &mut Mods<'_, '_>) {
    for q in ["sync", "aligned"] {
        if !m.flag(q) {
            let op = m.opcode().to_string();
            m.error_on_opcode(
                format!("`{op}` needs `.{q}`"),
                format!("write {op}.sync.aligned"),
            );
        }
    }
}
