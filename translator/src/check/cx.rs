//! The checker's state: module-wide ([`ModuleCx`]) and per function body ([`FnCx`]), with the
//! name lookups every instruction decoder uses.

use super::gating;
use super::map::Map;
use super::typed::{FuncId, Function, GlobalId, LabelId, LocalId, RegId, Register, Variable};
use crate::diag::{Diagnostic, Span};
use crate::types::ScalarType;

/// Module-wide state while checking.
pub(crate) struct ModuleCx<'d> {
    pub diags: &'d mut Vec<Diagnostic>,
    pub globals: Vec<Variable>,
    pub global_names: Map<String, GlobalId>,
    pub functions: Vec<Function>,
    pub function_names: Map<String, FuncId>,
    pub sm: u32,
    /// The target with its `a`/`f` suffix, for the architecture-specific features.
    pub arch: gating::target::Arch,
    pub version: (u32, u32),
    pub map_f64_to_f32: bool,
    /// Functions whose address is taken (`mov`, call-table initializers): the possible targets
    /// of calls through a `.callprototype`.
    pub address_taken: Vec<FuncId>,
    /// Functions with a body, and where it is.
    pub defined: Map<FuncId, Span>,
    /// `.target texmode_independent` (ISA 8.7.7.1).
    pub texmode_independent: bool,
    /// The gating rows that can fail under this module's `.version`/`.target`.
    pub gating: gating::relevant::Relevant,
    /// The body being checked calls through a `.callprototype`: such calls' candidates are
    /// found once every body is checked, walking only the bodies that have them.
    pub prototype_calls: bool,
    /// Functions defined without a result that a prototype declares with one: a call may name
    /// a result, which the call leaves unwritten.
    pub results_ignored: Vec<FuncId>,
}

/// What a name means inside a function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Symbol {
    Reg(RegId),
    /// `%r<N>`: registers created on first use.
    RegRange(u32),
    Var(LocalId),
    /// A function-scope `.global`/`.const` variable, kept with the module's variables.
    Global(GlobalId),
}

pub(crate) struct RegRange {
    pub count: u32,
    pub ty: ScalarType,
    pub vector: u32,
    pub span: Span,
    pub created: Created,
}

/// The registers of a `%r<N>` range made so far, by index. Compilers number them densely from
/// 0, so small indices are a vector lookup instead of a hash; a huge `N` cannot make it large.
#[derive(Default)]
pub(crate) struct Created {
    /// `RegId + 1`, 0 where not created yet.
    dense: Vec<u32>,
    sparse: Map<u32, RegId>,
}

impl Created {
    const DENSE: u32 = 1 << 16;

    fn get(&self, n: u32) -> Option<RegId> {
        if n < Self::DENSE {
            match self.dense.get(n as usize) {
                Some(&id) if id != 0 => Some(RegId(id - 1)),
                _ => None,
            }
        } else {
            self.sparse.get(&n).copied()
        }
    }

    fn insert(&mut self, n: u32, r: RegId) {
        if n < Self::DENSE {
            let i = n as usize;
            if self.dense.len() <= i {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] = r.0 + 1;
        } else {
            self.sparse.insert(n, r);
        }
    }
}

/// Per-function state while checking a body.
pub(crate) struct FnCx<'m, 'd> {
    pub m: &'m mut ModuleCx<'d>,
    pub func: Function,
    pub scopes: Vec<Map<String, Symbol>>,
    pub ranges: Vec<RegRange>,
    pub label_names: Map<String, LabelId>,
    /// `L: .callprototype ...;` by label name.
    pub prototypes: Map<String, Function>,
    /// `L: .calltargets f, g;` by label name.
    pub calltargets: Map<String, Vec<FuncId>>,
}
impl FnCx<'_, '_> {
    pub fn label(&mut self, name: &crate::diag::Spanned<&str>) -> Option<LabelId> {
        let found = self.label_names.get(name.node).copied();
        if found.is_none() {
            self.m.diags.push(
                Diagnostic::error(name.span, format!("unknown label `{}`", name.node))
                    .with_label("not defined in this function"),
            );
        }
        found
    }

    pub fn lookup(&mut self, name: &str) -> Option<Symbol> {
        for scope in self.scopes.iter().rev() {
            if let Some(s) = scope.get(name) {
                return Some(*s);
            }
        }
        // `%r12` from `.reg .b32 %r<20>;`
        let digits_at = name
            .bytes()
            .rposition(|c| !c.is_ascii_digit())
            .map_or(0, |k| k + 1);
        let (base, digits) = name.split_at(digits_at);
        if base.is_empty() || digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        for scope in self.scopes.iter().rev() {
            if let Some(Symbol::RegRange(ri)) = scope.get(base) {
                let ri = *ri as usize;
                let range = &self.ranges[ri];
                if n >= range.count {
                    return None;
                }
                if let Some(r) = range.created.get(n) {
                    return Some(Symbol::Reg(r));
                }
                let reg = Register {
                    name: name.into(),
                    ty: range.ty,
                    vector: range.vector,
                    span: range.span,
                };
                let id = RegId(self.func.regs.len() as u32);
                self.func.regs.push(reg);
                self.ranges[ri].created.insert(n, id);
                return Some(Symbol::Reg(id));
            }
        }
        None
    }

    pub fn error(&mut self, d: Diagnostic) {
        self.m.diags.push(d);
    }
}
