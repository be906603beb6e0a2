//! Applying the gating table to the instructions of a function body.

use super::{Declared, check_instruction, operand_facts};
use crate::ast::{self, ExprKind, FunctionKind, OperandKind};
use crate::check::{FnCx, Symbol};
use crate::diag::Diagnostic;
use crate::types::ScalarType;

impl FnCx<'_, '_> {
    /// The type of register `name` without creating it (`%r5` of `%r<10>` included).
    pub(crate) fn peek_register_type(&self, name: &str) -> Option<ScalarType> {
        for scope in self.scopes.iter().rev() {
            match scope.get(name) {
                Some(Symbol::Reg(r)) => return Some(self.func.reg(*r).ty),
                Some(_) => return None,
                None => {}
            }
        }
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let n: u32 = name[base.len()..].parse().ok()?;
        for scope in self.scopes.iter().rev() {
            if let Some(Symbol::RegRange(ri)) = scope.get(base) {
                let range = &self.ranges[*ri as usize];
                return (n < range.count).then_some(range.ty);
            }
        }
        None
    }

    /// Applies the `.version`/`.target` rules to a directive inside a function.
    pub(crate) fn gate_directive(&mut self, op: &str, modifiers: &[&str], span: crate::diag::Span) {
        let declared = Declared {
            version: self.m.version,
            sm: self.m.sm,
        };
        if let Some(d) = super::check_directive(declared, op, modifiers, span) {
            self.error(d);
        }
    }

    /// Applies the `.version`/`.target` rules to `i`. False when `i` must not be decoded (its
    /// errors have been reported).
    pub(crate) fn gate(&mut self, i: &ast::Instruction<'_>) -> bool {
        let declared = Declared {
            version: self.m.version,
            sm: self.m.sm,
        };
        let relevant = &self.m.gating;
        let op_rows = relevant.op_may_fail(i.opcode.node);
        let facts = if !op_rows {
            Vec::new()
        } else {
            let names = &self.m.function_names;
            let funcs = &self.m.functions;
            let is_function = |n: &str| {
                names
                    .get(n)
                    .map(|id| funcs[id.0 as usize].kind == FunctionKind::Entry)
            };
            let is_pred = |n: &str| self.peek_register_type(n) == Some(ScalarType::Pred);
            operand_facts(i, &is_function, &is_pred)
        };
        let mut errors = if op_rows || relevant.any_special() {
            check_instruction(declared, i, op_rows, &facts, &|n| {
                relevant.special_may_fail(n)
            })
        } else {
            Vec::new()
        };
        if self.m.map_f64_to_f32 && i.modifiers.iter().any(|m| m.node == "f64") {
            let span = i
                .modifiers
                .iter()
                .find(|m| m.node == "f64")
                .map_or(i.opcode.span, |m| m.span);
            errors.push(
                Diagnostic::error(
                    span,
                    "`.f64` instructions under `.target map_f64_to_f32` are not supported by ptxvk",
                )
                .with_label("would be computed in single precision")
                .with_note("the option maps .f64 arithmetic to .f32 on sm_1x targets; ptxvk computes in double precision only"),
            );
        }
        // ISA 8.7.6.2 and 8.7.9: function names are operands of `mov` and `call` only.
        if !matches!(i.opcode.node, "mov" | "call") {
            for o in &i.operands {
                if let OperandKind::Imm(ast::Expr {
                    kind: ExprKind::Name(n),
                    span,
                }) = &o.kind
                    && self.m.function_names.contains_key(*n)
                    && self.lookup(n).is_none()
                {
                    errors.push(
                        Diagnostic::error(
                            *span,
                            format!("`{n}` is a function; function names are operands of `call` and `mov` only"),
                        )
                        .with_label("here"),
                    );
                }
            }
        }
        if super::ARCH_GATES.iter().any(|g| g.op == i.opcode.node) {
            let mods: Vec<&str> = i.modifiers.iter().map(|m| m.node).collect();
            if let Some(gate) = super::arch::failing(self.m.arch, i.opcode.node, &mods) {
                let msg =
                    super::arch::failure(self.m.arch, i.opcode.node, &mods).unwrap_or_default();
                // Point at the modifier that makes the form architecture-specific: the row's
                // first condition's.
                let span = i
                    .modifiers
                    .iter()
                    .find(|m| {
                        gate.when
                            .first()
                            .is_some_and(|c| c.split('|').any(|alt| alt == m.node))
                    })
                    .map_or(i.opcode.span, |m| m.span);
                errors.push(
                    Diagnostic::error(span, msg).with_label("needs an sm_XXXa or sm_XXXf target"),
                );
            }
        }
        let ok = errors.is_empty();
        for e in errors {
            self.error(e);
        }
        ok
    }
}
