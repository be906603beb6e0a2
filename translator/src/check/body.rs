//! Checking a function body: its parameters' scope, its labels, and each statement with the
//! directives that attach to labels (`.branchtargets`, `.callprototype`, `.calltargets`).

use crate::ast::{self, FunctionKind};
use crate::check::cx::{FnCx, ModuleCx, Symbol};
use crate::check::map::Map;
use crate::check::typed::*;
use crate::check::{decls, inst};
use crate::diag::Diagnostic;

impl<'m, 'd> FnCx<'m, 'd> {
    pub(super) fn check_body(
        m: &'m mut ModuleCx<'d>,
        id: FuncId,
        f: &ast::Function<'_>,
    ) -> Function {
        let func = m.functions[id.0 as usize].clone();
        let mut cx = FnCx {
            m,
            func,
            scopes: vec![Map::default()],
            ranges: Vec::new(),
            label_names: Map::default(),
            prototypes: Map::default(),
            calltargets: Map::default(),
        };
        // Parameters are in the function's outermost scope.
        let params: Vec<FnParam> = cx
            .func
            .params
            .iter()
            .chain(&cx.func.returns)
            .copied()
            .collect();
        for p in params {
            let name = match p {
                FnParam::Var(v) => cx.func.var(v).name.clone(),
                FnParam::Reg(r) => cx.func.reg(r).name.to_string(),
            };
            let sym = match p {
                FnParam::Var(v) => Symbol::Var(v),
                FnParam::Reg(r) => Symbol::Reg(r),
            };
            cx.scopes[0].insert(name, sym);
        }
        let body = f.body.as_deref().unwrap_or_default();
        cx.collect_labels(&f.labels);
        // Nearly every statement becomes one typed statement.
        let mut out = Vec::with_capacity(body.len());
        cx.statements(body, &mut out);
        cx.func.body = Some(out);
        if f.kind == FunctionKind::Entry && !cx.func.returns.is_empty() {
            cx.m.diags.push(Diagnostic::error(
                f.name.span,
                "a kernel (`.entry`) cannot have return parameters",
            ));
        }
        cx.func
    }

    /// Labels are visible in the whole function, before their definition too.
    fn collect_labels(&mut self, labels: &[crate::diag::Spanned<&str>]) {
        for l in labels {
            if let Some(&prev) = self.label_names.get(l.node) {
                let prev_span = self.func.labels[prev.0 as usize].span;
                self.m.diags.push(
                    Diagnostic::error(l.span, format!("label `{}` is defined twice", l.node))
                        .with_secondary(prev_span, "first defined here"),
                );
                continue;
            }
            let id = LabelId(self.func.labels.len() as u32);
            self.func.labels.push(Label {
                name: l.node.to_string(),
                span: l.span,
                targets: None,
            });
            self.label_names.insert(l.node.to_string(), id);
        }
    }

    fn statements(&mut self, body: &[ast::Statement<'_>], out: &mut Vec<Statement>) {
        let mut last_label: Option<LabelId> = None;
        for s in body {
            match s {
                ast::Statement::Label(l) => {
                    if let Some(&id) = self.label_names.get(l.node) {
                        out.push(Statement::Label(id));
                        last_label = Some(id);
                    }
                    continue;
                }
                ast::Statement::Var(d) => decls::local(self, d),
                ast::Statement::Instruction(i) => {
                    // Version/target gating first: an instruction the module may not use is not
                    // decoded further, so it gets one error.
                    if self.gate(i)
                        && let Some(inst) = inst::decode(self, i)
                    {
                        self.func.guarded += u32::from(inst.guard.is_some());
                        out.push(Statement::Inst(inst));
                    }
                }
                ast::Statement::Block(inner, _) => {
                    self.scopes.push(Map::default());
                    self.statements(inner, out);
                    self.scopes.pop();
                }
                ast::Statement::BranchTargets(targets, span) => {
                    self.gate_directive(".branchtargets", &[], *span);
                    let mut ids = Vec::new();
                    for (name, count) in targets {
                        match count {
                            None => ids.extend(self.label(name)),
                            // `N<3>` is `N0, N1, N2` (ISA: the parameterized-name shorthand).
                            Some(c) => {
                                for k in 0..c.node.min(1 << 16) {
                                    let n = format!("{}{k}", name.node);
                                    ids.extend(
                                        self.label(&crate::diag::Spanned::new(&n, name.span)),
                                    );
                                }
                            }
                        }
                    }
                    match last_label {
                        Some(l) => self.func.labels[l.0 as usize].targets = Some(ids),
                        None => self.m.diags.push(Diagnostic::error(
                            *span,
                            "`.branchtargets` must follow a label that names the list",
                        )),
                    }
                }
                ast::Statement::CallPrototype {
                    returns,
                    params,
                    noreturn,
                    span,
                } => {
                    self.gate_directive(".callprototype", &[], *span);
                    if let Some(n) = noreturn {
                        self.gate_directive(".callprototype", &["noreturn"], *n);
                    }
                    match last_label {
                        Some(l) => {
                            let name = self.func.labels[l.0 as usize].name.clone();
                            let proto = decls::prototype(
                                self.m,
                                &name,
                                returns,
                                params,
                                noreturn.is_some(),
                                *span,
                            );
                            self.prototypes.insert(name, proto);
                        }
                        None => self.m.diags.push(Diagnostic::error(
                            *span,
                            "`.callprototype` must follow a label that names the prototype",
                        )),
                    }
                }
                ast::Statement::CallTargets(names, span) => {
                    self.gate_directive(".calltargets", &[], *span);
                    let funcs = self.call_targets(names);
                    match last_label {
                        Some(l) => {
                            let name = self.func.labels[l.0 as usize].name.clone();
                            if let Some(funcs) = funcs {
                                self.calltargets.insert(name, funcs);
                            }
                        }
                        None => self.m.diags.push(Diagnostic::error(
                            *span,
                            "`.calltargets` must follow a label that names the list",
                        )),
                    }
                }
                ast::Statement::Pragma(..)
                | ast::Statement::Ignored(_)
                | ast::Statement::Error(_) => {}
            }
            last_label = None;
        }
    }
}
