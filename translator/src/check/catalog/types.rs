//! The catalog's row types: families, ISA sections, requirements and forms.

use crate::ast;
use crate::check::FnCx;
use crate::check::mods::Mods;
use crate::check::op::Op;

use super::modset::ModSet;

/// An instruction family: the stem of its decoder's and its forms' files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Arith,
    AsyncCopy,
    Atom,
    Cmp,
    Control,
    Convert,
    Data,
    Extended,
    Fence,
    Float,
    Int,
    Ldst,
    Logic,
    Matrix,
    Mbarrier,
    Misc,
    Narrow,
    Permute,
    Sync,
    Texture,
    Video,
    Warp,
    Wgmma,
}

impl Family {
    pub const ALL: [Family; 23] = [
        Family::Arith,
        Family::AsyncCopy,
        Family::Atom,
        Family::Cmp,
        Family::Control,
        Family::Convert,
        Family::Data,
        Family::Extended,
        Family::Fence,
        Family::Float,
        Family::Int,
        Family::Ldst,
        Family::Logic,
        Family::Matrix,
        Family::Mbarrier,
        Family::Misc,
        Family::Narrow,
        Family::Permute,
        Family::Sync,
        Family::Texture,
        Family::Video,
        Family::Warp,
        Family::Wgmma,
    ];

    /// The file stem under `check/inst/` and `check/op/`, and the family's name in the
    /// conformance suite's coverage inventory.
    pub fn name(self) -> &'static str {
        match self {
            Family::Arith => "arith",
            Family::AsyncCopy => "async_copy",
            Family::Atom => "atom",
            Family::Cmp => "cmp",
            Family::Control => "control",
            Family::Convert => "convert",
            Family::Data => "data",
            Family::Extended => "extended",
            Family::Fence => "fence",
            Family::Float => "float",
            Family::Int => "int",
            Family::Ldst => "ldst",
            Family::Logic => "logic",
            Family::Matrix => "matrix",
            Family::Mbarrier => "mbarrier",
            Family::Misc => "misc",
            Family::Narrow => "narrow",
            Family::Permute => "permute",
            Family::Sync => "sync",
            Family::Texture => "texture",
            Family::Video => "video",
            Family::Warp => "warp",
            Family::Wgmma => "wgmma",
        }
    }

    /// The modules of `lower/` that lower the family's forms (`lower/<module>.rs`, or
    /// `lower/<module>/mod.rs`): the family's own name, except where lowering groups families
    /// by the code they share. Atomics are lowered beside the memory access they build on
    /// (`atomic`), `ld`/`st` with the other data movement (`data`), fences with the barriers
    /// (`sync`), the narrow-float conversions with the other conversions (`convert`, in
    /// `lower/convert/narrow.rs`); calls have a module of their own beside the rest of
    /// control flow (`call`).
    pub fn lowering_modules(self) -> &'static [&'static str] {
        match self {
            Family::Atom => &["atomic"],
            Family::Ldst => &["data"],
            Family::Fence => &["sync"],
            Family::Narrow => &["convert"],
            Family::Control => &["control", "call"],
            Family::Arith => &["arith"],
            Family::AsyncCopy => &["async_copy"],
            Family::Cmp => &["cmp"],
            Family::Convert => &["convert"],
            Family::Data => &["data"],
            Family::Extended => &["extended"],
            Family::Float => &["float"],
            Family::Int => &["int"],
            Family::Logic => &["logic"],
            Family::Matrix => &["matrix"],
            Family::Mbarrier => &["mbarrier"],
            Family::Misc => &["misc"],
            Family::Permute => &["permute"],
            Family::Sync => &["sync"],
            Family::Texture => &["texture"],
            Family::Video => &["video"],
            Family::Warp => &["warp"],
            Family::Wgmma => &["wgmma"],
        }
    }

    /// The family named `name`, if any.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The lowering of a form that builds no IR (a hint ptxvk has no use for): `Cx::op`'s arm for
/// it is empty.
pub const NO_IR: &str = "none";

/// Which text of the PTX ISA a section number refers to: numbers moved between editions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edition {
    /// The ISA 4.1 text in `/work/shared/ptx-isa` (chapters 1-8.7.7).
    Isa41,
    /// NVIDIA's current PTX ISA pages (9.x numbering); instructions the 4.1 text does not have.
    Current,
}

/// Where the ISA defines a form: `8.7.1.1`, "Integer Arithmetic Instructions: add".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    pub edition: Edition,
    /// The section number; for [`Edition::Current`], as deep as ptxvk's coverage lists name it.
    pub number: &'static str,
    /// The section title before its colon ("Integer Arithmetic Instructions").
    pub chapter: &'static str,
    /// What the section's title names after the chapter (`add`, `add.cc`, `prefetch, prefetchu`).
    pub name: &'static str,
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.number, self.chapter, self.name)
    }
}

/// The PTX ISA version and `sm_` target the bare instruction needs, from its "PTX ISA Notes"
/// and "Target ISA Notes" (`sm` 0: every target).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Since {
    pub ptx: (u32, u32),
    pub sm: u32,
}

/// A decoder: an `ast::Instruction` to its typed form, with errors reported on `cx`.
pub(crate) type Decode =
    fn(&mut FnCx<'_, '_>, &ast::Instruction<'_>, &mut Mods<'_, '_>) -> Option<Op>;

/// A condition on the syntax alone (opcode, modifiers, operands) that picks a form.
pub(crate) type When = fn(&ast::Instruction<'_>) -> bool;

/// One family's reading of a mnemonic.
#[derive(Clone, Copy)]
pub struct Form {
    pub family: Family,
    pub section: Section,
    /// `None`: this form takes whatever the forms before it did not.
    pub(crate) when: Option<When>,
    pub(crate) decode: Decode,
    /// The functions of `lower/` that lower what the decoder builds, as `module::function`
    /// (the arms of `Cx::op` in `lower/dispatch.rs`). Empty: the one named after the mnemonic in
    /// the family's module ([`Form::lowering`]). Set with [`Form::lowered_by`].
    pub(crate) lower: &'static [&'static str],
    /// The modifiers the form takes ([`Form::takes`]). `None` only for a row whose set is
    /// not written yet: its stray modifiers get the generic message.
    pub modifiers: Option<ModSet>,
}

impl std::fmt::Debug for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Form")
            .field("family", &self.family)
            .field("section", &self.section)
            .field("conditional", &self.when.is_some())
            .field("lower", &self.lower)
            .field("modifiers", &self.modifiers)
            .finish()
    }
}

impl Form {
    pub(crate) fn applies(&self, i: &ast::Instruction<'_>) -> bool {
        self.when.is_none_or(|w| w(i))
    }

    /// The form, lowered by `lower` (`module::function` each) rather than by the function
    /// named after its mnemonic.
    pub const fn lowered_by(self, lower: &'static [&'static str]) -> Form {
        Form { lower, ..self }
    }

    /// The form, taking the modifiers of `set`.
    pub const fn takes(self, set: ModSet) -> Form {
        Form {
            modifiers: Some(set),
            ..self
        }
    }

    /// The lowering functions of this form of `mnemonic`, as `module::function` under
    /// `lower/`: [`Form::lowered_by`]'s, or by default the function named after the mnemonic
    /// in the family's (first) module (`atom` is `atomic::atom`). [`NO_IR`] for a form that
    /// lowers to nothing.
    pub fn lowering(&self, mnemonic: &str) -> Vec<String> {
        if self.lower.is_empty() {
            let module = self.family.lowering_modules()[0];
            vec![format!("{module}::{mnemonic}")]
        } else {
            self.lower.iter().map(|l| l.to_string()).collect()
        }
    }
}

/// One mnemonic (the opcode before its first modifier).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub mnemonic: &'static str,
    /// `None`: the bare instruction is in PTX ISA 1.0 for every target; its forms and
    /// modifiers may still have rows of their own in the gating table.
    pub since: Option<Since>,
    /// Tried in order; the last has no condition. Empty for the refused rows (`REFUSED`).
    pub forms: &'static [Form],
}

impl Entry {
    /// The form that reads `i` (whose opcode is this row's mnemonic).
    pub fn form_for(&self, i: &ast::Instruction<'_>) -> Option<&'static Form> {
        self.forms.iter().find(|f| f.applies(i))
    }

    /// The families of the forms, each once, in form order.
    pub fn families(&self) -> impl Iterator<Item = Family> + '_ {
        self.forms
            .iter()
            .enumerate()
            .filter(|(k, f)| !self.forms[..*k].iter().any(|g| g.family == f.family))
            .map(|(_, f)| f.family)
    }
}
