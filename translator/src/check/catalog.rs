//! The instruction catalog: one row per PTX mnemonic ptxvk decodes, and everything else that
//! reads mnemonics is derived from it.
//!
//! A row ([`Entry`]) names the mnemonic, the `.version`/`.target` the bare instruction needs
//! ([`Since`]), and its forms ([`Form`]): each form is one family's reading of the mnemonic, with
//! the ISA section that defines it and the decoder that builds it. The decoder's dispatch is a
//! lookup here followed by the first form whose condition holds (`add.f32` is float, `add.cc`
//! extended, `add.u16x2` integer SIMD, the rest integer arithmetic), so the order that used to
//! live in a string match is row data. The gating table takes its per-instruction rows from
//! [`Entry::since`] (`gating::gates`), and the conformance crate counts its cases by [`Family`].
//!
//! Each form also names the modifiers it takes ([`Form::modifiers`], a [`ModSet`] of groups
//! declared once in `sets/groups.rs`): the checker reports a modifier its decoder left over
//! against that set, and the audit tests (`audit.rs`) keep the sets and the decoders in step.
//!
//! A family names one decoder (`check/inst/<family>.rs`) and the forms it builds
//! (`check/op/<family>.rs`); [`Family::lowering_modules`] says where those forms are lowered, and
//! [`Form::lowering`] by which functions.

pub mod modset;
mod rows;
mod sets;
mod types;

pub use modset::{Group, ModSet};
pub use rows::{CATALOG, REFUSED};
pub use types::{Edition, Entry, Family, Form, NO_IR, Section, Since};

use crate::ast;
use crate::diag::{Diagnostic, Span};

/// The row of `mnemonic`, if ptxvk decodes it.
pub fn lookup(mnemonic: &str) -> Option<&'static Entry> {
    CATALOG
        .binary_search_by(|e| e.mnemonic.cmp(mnemonic))
        .ok()
        .map(|k| &CATALOG[k])
}

/// The form of the catalog that reads `i`, if ptxvk decodes its mnemonic.
pub fn form_of(i: &ast::Instruction<'_>) -> Option<&'static Form> {
    lookup(i.opcode.node)?.form_for(i)
}

/// The family that reads `i`, if ptxvk decodes its mnemonic.
pub fn family_of(i: &ast::Instruction<'_>) -> Option<Family> {
    form_of(i).map(|f| f.family)
}

/// The error for modifier `.name`, written at `span` on an instruction `form` of `entry`
/// decoded without consuming it. One the form's set lacks is named with the set; one the set
/// has, or another form of the mnemonic takes, was written where the decoder does not accept
/// it.
pub(crate) fn leftover(entry: &Entry, form: &Form, name: &str, span: Span) -> Diagnostic {
    let op = entry.mnemonic;
    let here = Diagnostic::error(span, format!("`.{name}` is not a modifier of `{op}` here"));
    let Some(set) = form.modifiers else {
        return here.with_label("unexpected modifier");
    };
    if modset::takes(set, name) {
        return here.with_label("not valid in this combination");
    }
    let who = if entry.forms.len() > 1 {
        format!("`{op}` as in {}", form.section)
    } else {
        format!("`{op}`")
    };
    let elsewhere = entry
        .forms
        .iter()
        .any(|f| f.modifiers.is_some_and(|s| modset::takes(s, name)));
    let d = if elsewhere {
        here.with_label("not a modifier of this form")
    } else {
        Diagnostic::error(span, format!("`.{name}` is not a modifier of `{op}`"))
            .with_label("unknown modifier")
    };
    modset::describe(set, &format!("{who} takes "))
        .into_iter()
        .fold(d, Diagnostic::with_note)
}

#[cfg(test)]
pub(crate) mod audit;
#[cfg(test)]
mod tests;
