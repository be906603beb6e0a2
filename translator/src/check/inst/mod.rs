//! Instruction decoding: opcode + modifiers + operands -> a typed [`Op`].
//!
//! One file per instruction family; each decoder applies the ISA's syntax and type rules for its
//! instructions, and the catalog (`check/catalog.rs`) says which decoder reads which form. The forms they produce are in `check/op/`, a file per family of the same name;
//! what an instruction *does* is in `lower/`.

pub(in crate::check) mod arith;
pub(in crate::check) mod async_copy;
pub(in crate::check) mod atom;
pub(in crate::check) mod cmp;
pub(in crate::check) mod control;
pub(in crate::check) mod convert;
pub(in crate::check) mod data;
pub(in crate::check) mod extended;
pub(in crate::check) mod fence;
pub(in crate::check) mod float;
mod float_rules;
pub(in crate::check) mod int;
pub(in crate::check) mod ldst;
pub(in crate::check) mod logic;
pub(in crate::check) mod matrix;
pub(in crate::check) mod mbarrier;
pub(in crate::check) mod misc;
pub(in crate::check) mod narrow;
pub(in crate::check) mod permute;
mod shared;
pub(in crate::check) mod sync;
pub(in crate::check) mod texture;
pub(in crate::check) mod video;
pub(in crate::check) mod warp;
pub(in crate::check) mod wgmma;

// The decoded forms, by the paths the lowering names them.
pub use super::op::*;
pub use cmp::SETP_TYPES;
pub(crate) use control::resolve_prototype_calls;

use super::FnCx;
use super::mods::Mods;
use super::typed::*;
use crate::ast;
use crate::diag::Diagnostic;

/// Decodes one instruction statement. Errors are reported on `cx`; `None` means it was invalid.
pub(crate) fn decode(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) -> Option<Inst> {
    let guard = match &i.guard {
        Some(g) => Some(cx.guard(g)?),
        None => None,
    };
    let mut m = Mods::new(i);
    // The catalog lists what is decoded, and which decoder reads each form.
    let Some((entry, form)) =
        super::catalog::lookup(i.opcode.node).and_then(|e| Some((e, e.form_for(i)?)))
    else {
        unknown(cx, i);
        return None;
    };
    let op = (form.decode)(cx, i, &mut m);
    #[cfg(test)]
    super::catalog::audit::record(entry, form, &m);
    let errors = if op.is_some() {
        m.finish(|name, span| super::catalog::leftover(entry, form, name, span))
    } else {
        std::mem::take(&mut m.errors)
    };
    let failed = !errors.is_empty();
    for e in errors {
        cx.error(e);
    }
    if failed {
        return None;
    }
    Some(Inst {
        guard,
        op: op?,
        span: i.span,
    })
}

fn unknown(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>) {
    cx.error(
        Diagnostic::error(
            i.opcode.span,
            format!("unknown or unsupported instruction `{}`", i.opcode.node),
        )
        .with_label("not an instruction ptxvk translates yet"),
    );
}
