//! Declaring a module's globals and functions, all before any body is checked, so that a body
//! may name what is declared after it.

use crate::ast;
use crate::check::cx::ModuleCx;
use crate::check::typed::*;
use crate::check::{decls, inst};
use crate::diag::Diagnostic;
use crate::types::StateSpace;

impl ModuleCx<'_> {
    pub(super) fn declare_global(&mut self, d: &ast::VarDecl<'_>) {
        if !matches!(
            d.space.node,
            StateSpace::Global
                | StateSpace::Const
                | StateSpace::Shared
                | StateSpace::Local
                | StateSpace::Tex
        ) {
            self.diags.push(
                Diagnostic::error(
                    d.space.span,
                    format!(
                        "a {} variable cannot be declared at module scope",
                        d.space.node
                    ),
                )
                .with_label("expected .global, .const, .shared or .local"),
            );
            return;
        }
        for name in &d.names {
            let Some(var) = decls::variable(self, d, name) else {
                continue;
            };
            if let Some(&prev) = self.global_names.get(name.name.node) {
                let prev_span = self.globals[prev.0 as usize].span;
                self.diags.push(
                    Diagnostic::error(
                        name.name.span,
                        format!("`{}` is declared twice", name.name.node),
                    )
                    .with_secondary(prev_span, "first declared here"),
                );
                continue;
            }
            let id = GlobalId(self.globals.len() as u32);
            self.global_names.insert(var.name.clone(), id);
            self.globals.push(var);
        }
    }

    pub(super) fn declare_function(&mut self, f: &ast::Function<'_>) {
        let name = f.name.node;
        if let Some(&prev) = self.function_names.get(name) {
            if f.body.is_some()
                && let Some(&first) = self.defined.get(&prev)
            {
                self.diags.push(
                    Diagnostic::error(f.name.span, format!("function `{name}` is defined twice"))
                        .with_secondary(first, "first defined here"),
                );
                return;
            }
            let sig = decls::signature(self, f);
            let old = &self.functions[prev.0 as usize];
            let (new_shape, old_shape) = (inst::Signature::of(&sig), inst::Signature::of(old));
            // A prototype with a result for a function defined without one (numba's C-ABI
            // `void` functions, which NVIDIA's linker accepts): calls may name the result.
            let (definition, prototype) = if f.body.is_some() {
                (&new_shape, &old_shape)
            } else {
                (&old_shape, &new_shape)
            };
            let result_ignored = sig.kind == old.kind
                && definition.params == prototype.params
                && definition.returns.is_empty()
                && !prototype.returns.is_empty()
                && (f.body.is_some() || self.defined.contains_key(&prev));
            if result_ignored {
                self.results_ignored.push(prev);
            } else if new_shape != old_shape || sig.kind != old.kind {
                let prev_span = old.span;
                self.diags.push(
                    Diagnostic::error(
                        f.name.span,
                        format!("`{name}` is declared again with a different signature"),
                    )
                    .with_secondary(prev_span, "first declared here"),
                );
                return;
            }
            if f.body.is_some() {
                // A definition after a declaration: the definition's names are the ones kept.
                self.functions[prev.0 as usize] = sig;
                self.defined.insert(prev, f.name.span);
            }
            return;
        }
        if self.global_names.contains_key(name) {
            self.diags.push(Diagnostic::error(
                f.name.span,
                format!("`{name}` is already declared as a variable"),
            ));
            return;
        }
        let sig = decls::signature(self, f);
        let id = FuncId(self.functions.len() as u32);
        self.function_names.insert(name.to_string(), id);
        self.functions.push(sig);
        if f.body.is_some() {
            self.defined.insert(id, f.name.span);
        }
    }
}
