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
//! A family names one decoder (`check/inst/<family>.rs`) and the forms it builds
//! (`check/op/<family>.rs`); [`Family::lowering_modules`] says where those forms are lowered, and
//! [`Form::lowering`] by which functions.

mod rows;
mod types;

pub use rows::{CATALOG, REFUSED};
pub use types::{Edition, Entry, Family, Form, NO_IR, Section, Since};

use crate::ast;

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

#[cfg(test)]
mod tests;
