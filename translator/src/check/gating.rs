//! `.version`/`.target` feature gating: the PTX ISA version and the `sm_XX` target each
//! instruction, modifier, type, special register and directive needs, taken from the "PTX ISA
//! Notes" and "Target ISA Notes" paragraphs of the ISA (sections 8.7.1-8.7.7 from the ISA 4.1
//! text; the later chapters and later features from NVIDIA's current PTX ISA pages).
//!
//! The table is data: [`gates`] lists `(what, conditions, minimum .version, minimum sm)` rows (each
//! catalogued instruction's own requirement from its catalog row, then [`FORM_GATES`]), and the
//! checks here apply every row whose conditions an instruction meets. A module whose
//! `.version` or `.target` is too old gets an error pointing at the opcode or modifier that needs
//! more ("`shfl.sync` requires PTX ISA 6.0 and sm_30; this module declares .version 5.0").

pub(crate) mod arch;
mod gate;
mod names;
pub(crate) mod relevant;
mod table;
pub(crate) mod target;
mod usage;

pub use arch::{ARCH_GATES, Arch, ArchGate, Suffix};
pub use gate::{Gate, Version, applies};
pub use names::is_gated_special;
pub(crate) use names::table_name;
pub(crate) use relevant::Relevant;

pub use table::{FORM_GATES, NEWEST, REMOVED, TARGETS, VERSIONS};

use std::sync::OnceLock;

use super::map::Map;

use crate::ast::{self, ExprKind, OperandKind};
use crate::diag::{Diagnostic, Span};

/// The `sm_XX` number of a target string (`sm_90a` and `compute_90` are 90).
pub fn sm_number(target: &str) -> Option<u32> {
    let num = target
        .strip_prefix("sm_")
        .or_else(|| target.strip_prefix("compute_"))?;
    let digits: String = num.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &num[digits.len()..];
    if !matches!(rest, "" | "a" | "f") {
        return None;
    }
    digits.parse().ok()
}

/// The version that introduced target `name` (`compute_XX` as `sm_XX`), if known.
pub fn target_version(name: &str) -> Option<Version> {
    let canonical = match name.strip_prefix("compute_") {
        Some(rest) => format!("sm_{rest}"),
        None => name.to_string(),
    };
    TARGETS
        .iter()
        .find(|(t, _)| *t == canonical)
        .map(|(_, v)| *v)
}

/// What a module declares, against which the table is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declared {
    pub version: Version,
    pub sm: u32,
}

impl Declared {
    fn meets(&self, ptx: Version, sm: u32) -> bool {
        self.version >= ptx && self.sm >= sm
    }
}

/// Every row of the table: what each catalogued (or known and refused) instruction needs, from
/// its catalog row, then the rows of its forms and modifiers, special registers and directives.
pub fn gates() -> &'static [Gate] {
    static GATES: OnceLock<Vec<Gate>> = OnceLock::new();
    GATES.get_or_init(|| {
        let catalog = super::catalog::CATALOG
            .iter()
            .chain(super::catalog::REFUSED)
            .filter_map(|e| {
                let since = e.since?;
                Some(gate::g(e.mnemonic, &[], since.ptx, since.sm))
            });
        catalog.chain(FORM_GATES.iter().copied()).collect()
    })
}

/// The rows of the table by the name they gate (each alternative of `a|b` separately).
fn index() -> &'static Map<&'static str, Vec<&'static Gate>> {
    static INDEX: OnceLock<Map<&'static str, Vec<&'static Gate>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut map: Map<&'static str, Vec<&'static Gate>> = Map::default();
        for gate in gates() {
            for op in gate.op.split('|') {
                map.entry(op).or_default().push(gate);
            }
        }
        map
    })
}

impl Relevant {
    pub(crate) fn new(declared: Declared) -> Relevant {
        let mut unmet: Map<&'static str, ()> = Map::default();
        for (op, rows) in index() {
            if rows.iter().any(|g| !declared.meets(g.ptx, g.sm)) {
                unmet.insert(op, ());
            }
        }
        let removed = REMOVED
            .iter()
            .filter(|g| declared.meets(g.ptx, g.sm))
            .map(|g| (g.op, ()))
            .collect();
        let specials = unmet.keys().any(|op| op.starts_with('%'));
        Relevant {
            unmet,
            removed,
            specials,
        }
    }
}

/// Whether the table has rows for `name` (an opcode, special register or directive).
pub fn has_rows(name: &str) -> bool {
    index().contains_key(table_name(name).as_ref())
}

/// The first row `op` (with these modifiers and facts) fails under `declared`, if any.
pub fn first_failure(
    declared: Declared,
    op: &str,
    modifiers: &[&str],
    facts: &[&str],
) -> Option<&'static Gate> {
    let rows = index().get(table_name(op).as_ref())?;
    rows.iter()
        .copied()
        .find(|gate| applies(gate, modifiers, facts) && !declared.meets(gate.ptx, gate.sm))
}

/// The removed form `op` uses under `declared`, if any.
pub fn removed(
    declared: Declared,
    op: &str,
    modifiers: &[&str],
    facts: &[&str],
) -> Option<&'static Gate> {
    REMOVED.iter().find(|gate| {
        gate.op == op && applies(gate, modifiers, facts) && declared.meets(gate.ptx, gate.sm)
    })
}

fn version_str(v: Version) -> String {
    format!("{}.{}", v.0, v.1)
}

/// The feature's name in messages: the row's `what`, or `` `op.mod.mod` `` from the conditions
/// that matched.
pub fn describe(gate: &Gate, modifiers: &[&str]) -> String {
    if !gate.what.is_empty() {
        return gate.what.to_string();
    }
    let mut s = gate.op.to_string();
    for cond in gate.when {
        if cond.starts_with('!') || cond.starts_with('<') {
            continue;
        }
        let cond = cond.strip_prefix('~').unwrap_or(cond);
        if let Some(m) = cond.split('|').find(|alt| modifiers.contains(alt)) {
            s.push('.');
            s.push_str(m);
        }
    }
    format!("`{s}`")
}

/// The message for a failed row: "X requires PTX ISA a.b and sm_NN; this module declares ...".
pub fn message(gate: &Gate, modifiers: &[&str], declared: Declared) -> String {
    message_for(&describe(gate, modifiers), gate, declared)
}

fn message_for(what: &str, gate: &Gate, declared: Declared) -> String {
    let need = if gate.sm > 0 {
        format!("PTX ISA {} and sm_{}", version_str(gate.ptx), gate.sm)
    } else {
        format!("PTX ISA {}", version_str(gate.ptx))
    };
    let mut have = Vec::new();
    if declared.version < gate.ptx {
        have.push(format!(".version {}", version_str(declared.version)));
    }
    if declared.sm < gate.sm {
        have.push(format!(".target sm_{}", declared.sm));
    }
    format!(
        "{what} requires {need}; this module declares {}",
        have.join(" and ")
    )
}

fn removed_message(gate: &Gate, declared: Declared) -> String {
    format!(
        "{} is not supported for sm_{} and later from PTX ISA {} (this module declares .version {} and .target sm_{})",
        gate.what,
        gate.sm,
        version_str(gate.ptx),
        version_str(declared.version),
        declared.sm
    )
}

/// Facts about an instruction's operands that its modifiers do not show, named as in [`FORM_GATES`].
pub fn operand_facts<'a>(
    i: &ast::Instruction<'a>,
    is_function: &dyn Fn(&str) -> Option<bool>,
    is_pred_reg: &dyn Fn(&str) -> bool,
) -> Vec<&'static str> {
    let mut facts = Vec::new();
    fn name_of<'a>(o: &ast::Operand<'a>) -> Option<&'a str> {
        match &o.kind {
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Name(n),
                ..
            }) => Some(*n),
            _ => None,
        }
    }
    let has_space = i.modifiers.iter().any(|m| {
        matches!(
            m.node,
            "global"
                | "shared"
                | "shared::cta"
                | "shared::cluster"
                | "local"
                | "param"
                | "param::entry"
                | "param::func"
                | "const"
        )
    });
    match i.opcode.node {
        "ld" | "st" | "atom" | "red" if !has_space => facts.push("<generic>"),
        "call" => {
            // The callee is the first operand that is not a parenthesized list.
            let callee = i
                .operands
                .iter()
                .find(|o| !matches!(o.kind, OperandKind::List(_)))
                .and_then(name_of);
            if callee.is_some_and(|n| is_function(n).is_none()) {
                facts.push("<indirect>");
            }
        }
        "bar" | "barrier" if !i.modifiers.iter().any(|m| m.node == "warp") => {
            let first_is_reg = i.operands.first().and_then(name_of).is_some();
            let sync_or_arrive = !i.modifiers.iter().any(|m| m.node == "red");
            if first_is_reg || (sync_or_arrive && i.operands.len() >= 2) {
                facts.push("<bar-operands>");
            }
        }
        "min" | "max" if i.operands.len() == 4 => facts.push("<three-inputs>"),
        "cp" if i.operands.get(3).and_then(name_of).is_some_and(is_pred_reg) => {
            facts.push("<ignore-src>");
        }
        "mov"
            if i.operands
                .iter()
                .filter_map(name_of)
                .any(|n| is_function(n) == Some(true)) =>
        {
            facts.push("<kernel-address>");
        }
        _ => {}
    }
    facts
}

/// Calls `f` with each `%`-name an instruction's operands read, and its span.
fn percent_names<'a>(i: &ast::Instruction<'a>, f: &mut dyn FnMut(&'a str, Span)) {
    fn expr<'a>(e: &ast::Expr<'a>, f: &mut dyn FnMut(&'a str, Span)) {
        match &e.kind {
            ExprKind::Name(n) if n.starts_with('%') => f(n, e.span),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => expr(a, f),
            ExprKind::Binary(_, a, b) => {
                expr(a, f);
                expr(b, f);
            }
            ExprKind::Cond(a, b, c) => {
                expr(a, f);
                expr(b, f);
                expr(c, f);
            }
            _ => {}
        }
    }
    fn operand<'a>(o: &ast::Operand<'a>, f: &mut dyn FnMut(&'a str, Span)) {
        match &o.kind {
            OperandKind::Component(n, _) if n.starts_with('%') => f(n, o.span),
            OperandKind::Imm(e) | OperandKind::Address(e) => expr(e, f),
            OperandKind::Vector(items) | OperandKind::Tuple(items) | OperandKind::List(items) => {
                for item in items {
                    operand(item, f);
                }
            }
            OperandKind::Pair(a, b) => {
                operand(a, f);
                operand(b, f);
            }
            _ => {}
        }
    }
    for o in &i.operands {
        operand(o, f);
    }
}

/// Checks one instruction against the table (its opcode's rows only when `op_rows`, which the
/// caller knows from [`has_rows`]). Returns the errors (empty when it may be used).
pub fn check_instruction(
    declared: Declared,
    i: &ast::Instruction<'_>,
    op_rows: bool,
    facts: &[&str],
    is_special: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if op_rows {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.node).collect();
        if let Some(gate) = first_failure(declared, i.opcode.node, &mods, facts) {
            let span = gate_span(gate, i);
            out.push(
                Diagnostic::error(span, message(gate, &mods, declared))
                    .with_label("needs a newer .version or .target"),
            );
        } else if let Some(gate) = removed(declared, i.opcode.node, &mods, facts) {
            out.push(
                Diagnostic::error(i.opcode.span, removed_message(gate, declared))
                    .with_label("removed form"),
            );
        }
    }
    percent_names(i, &mut |name, span| {
        if !is_special(name) {
            return;
        }
        if let Some(gate) = first_failure(declared, name, &[], &[]) {
            let msg = message_for(&format!("`{name}`"), gate, declared);
            out.push(Diagnostic::error(span, msg).with_label("needs a newer .version or .target"));
        }
    });
    out
}

/// Where to point: the first modifier a positive condition matched, else the opcode.
fn gate_span(gate: &Gate, i: &ast::Instruction<'_>) -> Span {
    for cond in gate.when {
        if cond.starts_with('!') || cond.starts_with('<') || cond.starts_with('~') {
            continue;
        }
        for alt in cond.split('|') {
            if let Some(m) = i.modifiers.iter().find(|m| m.node == alt) {
                return m.span;
            }
        }
    }
    i.opcode.span
}

/// Checks a directive (`.noreturn`, `.attribute(.managed)`, a `.target` option) named `op`.
pub fn check_directive(
    declared: Declared,
    op: &str,
    modifiers: &[&str],
    span: Span,
) -> Option<Diagnostic> {
    let gate = first_failure(declared, op, modifiers, &[])?;
    let what = if gate.what.is_empty() {
        format!("`{op}`")
    } else {
        gate.what.to_string()
    };
    Some(
        Diagnostic::error(span, message_for(&what, gate, declared))
            .with_label("needs a newer .version or .target"),
    )
}

/// Applies the table to the module-level directives: linkage, variable attributes and the
/// performance directives of functions.
pub(crate) fn module_directives(
    module: &ast::Module<'_>,
    declared: Declared,
    diags: &mut Vec<Diagnostic>,
) {
    let mut check = |op: &str, mods: &[&str], span: crate::diag::Span| {
        if let Some(d) = check_directive(declared, op, mods, span) {
            diags.push(d);
        }
    };
    let linkage = |l: &Option<crate::diag::Spanned<ast::Linkage>>| {
        l.as_ref().and_then(|l| match l.node {
            ast::Linkage::Weak => Some((".weak", l.span)),
            ast::Linkage::Common => Some((".common", l.span)),
            _ => None,
        })
    };
    for item in &module.items {
        match item {
            ast::Item::Var(d) => {
                if let Some((op, span)) = linkage(&d.linkage) {
                    check(op, &[], span);
                }
                for a in &d.attributes {
                    check(".attribute", &[a.node], a.span);
                }
            }
            ast::Item::Function(f) => {
                if let Some((op, span)) = linkage(&f.linkage) {
                    check(op, &[], span);
                }
                for d in &f.directives {
                    match d {
                        ast::FunctionDirective::NoReturn(s) => check(".noreturn", &[], *s),
                        ast::FunctionDirective::ReqNtid(_, s) => check(".reqntid", &[], *s),
                        ast::FunctionDirective::MaxNreg(_, s) => check(".maxnreg", &[], *s),
                        ast::FunctionDirective::ReqNctaPerCluster(_, s) => {
                            check(".reqnctapercluster", &[], *s)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
