//! The checker: resolves names, applies the ISA's rules to every declaration and instruction, and
//! produces the typed module ([`typed::Module`]) that lowering reads.

mod consteval;
mod decls;
pub mod inst;
mod mods;
mod opaque;
mod operands;
pub mod typed;

use std::collections::HashMap;

use crate::ast::{self, FunctionKind};
use crate::diag::{Diagnostic, Span};
use crate::types::{ScalarType, StateSpace};

pub use consteval::Const;
pub use typed::*;

/// Checks a parsed module. Diagnostics go to `diags`; the typed module comes back when there
/// were no errors.
pub fn check(module: &ast::Module<'_>, diags: &mut Vec<Diagnostic>) -> Option<Module> {
    let before = diags.iter().filter(|d| is_error(d)).count();
    let header = header(module, diags);
    let mut cx = ModuleCx {
        diags,
        globals: Vec::new(),
        global_names: HashMap::new(),
        functions: Vec::new(),
        function_names: HashMap::new(),
        sm: header.sm,
        version: header.version,
        texmode_independent: header.texmode_independent,
    };
    for item in &module.items {
        match item {
            ast::Item::Var(d) => cx.declare_global(d),
            ast::Item::Function(f) => cx.declare_function(f),
            _ => {}
        }
    }
    let mut bodies = Vec::new();
    for item in &module.items {
        if let ast::Item::Function(f) = item
            && f.body.is_some()
            && let Some(&id) = cx.function_names.get(f.name.node)
        {
            bodies.push((id, &**f));
        }
    }
    for (id, f) in bodies {
        let checked = FnCx::check_body(&mut cx, id, f);
        cx.functions[id.0 as usize] = checked;
    }
    let errors = cx.diags.iter().filter(|d| is_error(d)).count();
    (errors == before).then_some(Module {
        version: header.version,
        sm: header.sm,
        address_size: header.address_size,
        texmode_independent: header.texmode_independent,
        globals: cx.globals,
        functions: cx.functions,
    })
}

fn is_error(d: &Diagnostic) -> bool {
    d.severity == crate::diag::Severity::Error
}

struct Header {
    version: (u32, u32),
    sm: u32,
    address_size: u32,
    texmode_independent: bool,
}

/// `.version`, `.target` and `.address_size` (ISA 11.1): the first two are required, in order.
fn header(module: &ast::Module<'_>, diags: &mut Vec<Diagnostic>) -> Header {
    let mut h = Header {
        version: (0, 0),
        sm: 0,
        address_size: 64,
        texmode_independent: false,
    };
    let mut texmode: Option<crate::diag::Spanned<&str>> = None;
    let mut seen_version = false;
    let mut seen_target = false;
    for item in &module.items {
        match item {
            ast::Item::Version { major, minor, span } => {
                if seen_version {
                    diags.push(Diagnostic::error(*span, "duplicate `.version` directive"));
                }
                seen_version = true;
                h.version = (*major, *minor);
                if *major < 1 || *major > 9 {
                    diags.push(
                        Diagnostic::error(
                            *span,
                            format!("unknown PTX ISA version {major}.{minor}"),
                        )
                        .with_label("ptxvk reads PTX ISA 1.0 to 9.x"),
                    );
                }
            }
            ast::Item::Target(names) => {
                seen_target = true;
                for n in names {
                    let name = n.node;
                    if let Some(num) = name.strip_prefix("sm_").or(name.strip_prefix("compute_")) {
                        let digits: String =
                            num.chars().take_while(|c| c.is_ascii_digit()).collect();
                        match digits.parse::<u32>() {
                            Ok(v) => h.sm = v,
                            Err(_) => diags.push(Diagnostic::error(
                                n.span,
                                format!("unknown target `{name}`"),
                            )),
                        }
                    } else if name.starts_with("texmode_") && name != "texmode_" {
                        // ISA 8.7.7.1: one texturing mode per module.
                        if let Some(prev) = &texmode
                            && prev.node != name
                        {
                            diags.push(
                                Diagnostic::error(
                                    n.span,
                                    "a module may declare only one texturing mode",
                                )
                                .with_secondary(prev.span, "declared here"),
                            );
                        }
                        match name {
                            "texmode_unified" => {}
                            "texmode_independent" => h.texmode_independent = true,
                            _ => diags.push(
                                Diagnostic::error(n.span, format!("unknown target `{name}`"))
                                    .with_label("expected texmode_unified or texmode_independent"),
                            ),
                        }
                        texmode = Some(crate::diag::Spanned::new(name, n.span));
                    } else if !matches!(name, "debug" | "map_f64_to_f32") {
                        diags.push(
                            Diagnostic::error(n.span, format!("unknown target `{name}`"))
                                .with_label("expected sm_XX, texmode_*, debug or map_f64_to_f32"),
                        );
                    }
                }
            }
            ast::Item::AddressSize(a) => {
                if a.node != 32 && a.node != 64 {
                    diags.push(
                        Diagnostic::error(a.span, "`.address_size` must be 32 or 64")
                            .with_label("here"),
                    );
                }
                h.address_size = a.node;
            }
            _ => {}
        }
    }
    if !seen_version {
        diags.push(
            Diagnostic::error(Span::new(0, 0), "missing `.version` directive")
                .with_note("every PTX module starts with `.version X.Y` (ISA 11.1)"),
        );
    }
    if !seen_target {
        diags.push(
            Diagnostic::error(Span::new(0, 0), "missing `.target` directive")
                .with_note("a PTX module names its target after `.version`, e.g. `.target sm_70`"),
        );
    }
    h
}

/// Module-wide state while checking.
pub(crate) struct ModuleCx<'d> {
    pub diags: &'d mut Vec<Diagnostic>,
    pub globals: Vec<Variable>,
    pub global_names: HashMap<String, GlobalId>,
    pub functions: Vec<Function>,
    pub function_names: HashMap<String, FuncId>,
    pub sm: u32,
    pub version: (u32, u32),
    /// `.target texmode_independent` (ISA 8.7.7.1).
    pub texmode_independent: bool,
}

impl ModuleCx<'_> {
    fn declare_global(&mut self, d: &ast::VarDecl<'_>) {
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

    fn declare_function(&mut self, f: &ast::Function<'_>) {
        let name = f.name.node;
        if let Some(&prev) = self.function_names.get(name) {
            let p = &self.functions[prev.0 as usize];
            if p.body.is_some() && f.body.is_some() {
                let prev_span = p.span;
                self.diags.push(
                    Diagnostic::error(f.name.span, format!("function `{name}` is defined twice"))
                        .with_secondary(prev_span, "first defined here"),
                );
            }
            if f.body.is_some() {
                // A definition after a declaration: the definition's signature is the one kept.
                let sig = decls::signature(self, f);
                self.functions[prev.0 as usize] = sig;
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
    }
}

/// What a name means inside a function.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Symbol {
    Reg(RegId),
    /// `%r<N>`: registers created on first use.
    RegRange(u32),
    Var(LocalId),
}

pub(crate) struct RegRange {
    pub count: u32,
    pub ty: ScalarType,
    pub vector: u32,
    pub span: Span,
    pub created: HashMap<u32, RegId>,
}

/// Per-function state while checking a body.
pub(crate) struct FnCx<'m, 'd> {
    pub m: &'m mut ModuleCx<'d>,
    pub func: Function,
    pub scopes: Vec<HashMap<String, Symbol>>,
    pub ranges: Vec<RegRange>,
    pub label_names: HashMap<String, LabelId>,
}

impl<'m, 'd> FnCx<'m, 'd> {
    fn check_body(m: &'m mut ModuleCx<'d>, id: FuncId, f: &ast::Function<'_>) -> Function {
        let func = m.functions[id.0 as usize].clone();
        let mut cx = FnCx {
            m,
            func,
            scopes: vec![HashMap::new()],
            ranges: Vec::new(),
            label_names: HashMap::new(),
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
                FnParam::Reg(r) => cx.func.reg(r).name.clone(),
            };
            let sym = match p {
                FnParam::Var(v) => Symbol::Var(v),
                FnParam::Reg(r) => Symbol::Reg(r),
            };
            cx.scopes[0].insert(name, sym);
        }
        let body = f.body.as_deref().unwrap_or_default();
        cx.collect_labels(body);
        let mut out = Vec::new();
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
    fn collect_labels(&mut self, body: &[ast::Statement<'_>]) {
        for s in body {
            match s {
                ast::Statement::Label(l) => {
                    if let Some(&prev) = self.label_names.get(l.node) {
                        let prev_span = self.func.labels[prev.0 as usize].span;
                        self.m.diags.push(
                            Diagnostic::error(
                                l.span,
                                format!("label `{}` is defined twice", l.node),
                            )
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
                ast::Statement::Block(inner, _) => self.collect_labels(inner),
                _ => {}
            }
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
                    if let Some(inst) = inst::decode(self, i) {
                        out.push(Statement::Inst(inst));
                    }
                }
                ast::Statement::Block(inner, _) => {
                    self.scopes.push(HashMap::new());
                    self.statements(inner, out);
                    self.scopes.pop();
                }
                ast::Statement::BranchTargets(targets, span) => {
                    let ids: Vec<LabelId> = targets.iter().filter_map(|t| self.label(t)).collect();
                    match last_label {
                        Some(l) => self.func.labels[l.0 as usize].targets = Some(ids),
                        None => self.m.diags.push(Diagnostic::error(
                            *span,
                            "`.branchtargets` must follow a label that names the list",
                        )),
                    }
                }
                ast::Statement::CallPrototype { .. }
                | ast::Statement::CallTargets(..)
                | ast::Statement::Pragma(..)
                | ast::Statement::Ignored(_)
                | ast::Statement::Error(_) => {}
            }
            last_label = None;
        }
    }

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
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = &name[base.len()..];
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
                if let Some(&r) = range.created.get(&n) {
                    return Some(Symbol::Reg(r));
                }
                let reg = Register {
                    name: name.to_string(),
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
