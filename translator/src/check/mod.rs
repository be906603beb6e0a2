//! The checker: resolves names, applies the ISA's rules to every declaration and instruction, and
//! produces the typed module ([`typed::Module`]) that lowering reads.

pub mod catalog;
mod consteval;
mod cx;
mod decls;
pub mod gating;
pub mod inst;
mod map;
mod mods;
pub mod op;
mod opaque;
mod operand;
mod operands;
pub mod typed;

use crate::ast::{self, FunctionKind};
use crate::diag::{Diagnostic, Span};
use crate::types::StateSpace;

pub use consteval::Const;
pub(crate) use cx::{Created, FnCx, ModuleCx, RegRange, Symbol};
pub use map::Map;
pub use typed::*;

/// Checks a parsed module. Diagnostics go to `diags`; the typed module comes back when there
/// were no errors. Each function body is freed once checked, while it is still in cache (a
/// walk over the whole tree afterwards cost as much again as reading it).
pub fn check(module: &mut ast::Module<'_>, diags: &mut Vec<Diagnostic>) -> Option<Module> {
    let before = diags.iter().filter(|d| is_error(d)).count();
    let header = header(module, diags);
    if header.version != (0, 0) {
        let declared = gating::Declared {
            version: header.version,
            sm: header.sm,
        };
        gating::module_directives(module, declared, diags);
    }
    let mut cx = ModuleCx {
        diags,
        globals: Vec::new(),
        global_names: Map::default(),
        functions: Vec::new(),
        function_names: Map::default(),
        sm: header.sm,
        arch: header.arch,
        version: header.version,
        map_f64_to_f32: header.map_f64_to_f32,
        address_taken: Vec::new(),
        defined: Map::default(),
        texmode_independent: header.texmode_independent,
        gating: gating::Relevant::new(gating::Declared {
            version: header.version,
            sm: header.sm,
        }),
        prototype_calls: false,
        results_ignored: Vec::new(),
    };
    for item in &module.items {
        match item {
            ast::Item::Var(d) => cx.declare_global(d),
            ast::Item::Function(f) => cx.declare_function(f),
            _ => {}
        }
    }
    let mut bodies = Vec::new();
    for (k, item) in module.items.iter().enumerate() {
        if let ast::Item::Function(f) = item
            && f.body.is_some()
            && let Some(&id) = cx.function_names.get(f.name.node)
            && cx.defined.get(&id) == Some(&f.name.span)
        {
            bodies.push((id, k));
        }
    }
    let mut with_prototype_calls = Vec::new();
    for (id, k) in bodies {
        let ast::Item::Function(f) = &mut module.items[k] else {
            continue;
        };
        cx.prototype_calls = false;
        let checked = FnCx::check_body(&mut cx, id, f);
        f.body = None;
        cx.functions[id.0 as usize] = checked;
        if cx.prototype_calls {
            with_prototype_calls.push(id);
        }
    }
    if !with_prototype_calls.is_empty() {
        inst::resolve_prototype_calls(&mut cx.functions, &with_prototype_calls, &cx.address_taken);
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

/// A `.version` ptxvk does not list: a version after the newest it knows is read with a
/// warning (compilers move to a new version before using anything it adds, and every feature
/// keeps its own gate); one that was never published is an error.
fn version_diagnostic(version: gating::Version, span: Span) -> Option<Diagnostic> {
    let (major, minor) = version;
    let (newest_major, newest_minor) = gating::NEWEST;
    if gating::VERSIONS.contains(&version) {
        None
    } else if version > gating::NEWEST {
        Some(
            Diagnostic::warning(
                span,
                format!("PTX ISA {major}.{minor} is newer than ptxvk knows"),
            )
            .with_label(format!("read as PTX ISA {newest_major}.{newest_minor}"))
            .with_note(format!(
                "instructions and modifiers ptxvk knows are checked as usual; anything added after PTX ISA {newest_major}.{newest_minor} is refused by name"
            )),
        )
    } else {
        Some(
            Diagnostic::error(span, format!("unknown PTX ISA version {major}.{minor}"))
                .with_label(format!(
                    "ptxvk reads PTX ISA 1.0 to {newest_major}.{newest_minor}"
                ))
                .with_note(
                    "the versions are 1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0, 6.0-6.5, 7.0-7.8, 8.0-8.8, 9.0-9.5",
                ),
        )
    }
}

struct Header {
    version: (u32, u32),
    sm: u32,
    /// The target architecture with its `a`/`f` suffix (the highest named).
    arch: gating::Arch,
    address_size: u32,
    /// `.target ..., map_f64_to_f32` on an sm_1x target: `.f64` instructions would have to be
    /// computed in single precision, which ptxvk does not do.
    map_f64_to_f32: bool,
    texmode_independent: bool,
}

/// `.version`, `.target` and `.address_size` (ISA 11.1-11.3). `.version` comes first, `.target`
/// right after; each target string must exist in the declared version.
fn header(module: &ast::Module<'_>, diags: &mut Vec<Diagnostic>) -> Header {
    let mut h = Header {
        version: (0, 0),
        sm: 0,
        arch: gating::Arch::default(),
        address_size: 64,
        map_f64_to_f32: false,
        texmode_independent: false,
    };
    let mut version_span = None;
    let mut seen_target = false;
    let mut address_size = None;
    let mut seen_code = false;
    let mut options: Vec<&crate::diag::Spanned<&str>> = Vec::new();
    let mut texmode: Option<&crate::diag::Spanned<&str>> = None;
    let mut targets: Vec<&crate::diag::Spanned<&str>> = Vec::new();
    for item in &module.items {
        match item {
            ast::Item::Version { major, minor, span } => {
                if version_span.is_some() {
                    diags.push(Diagnostic::error(*span, "duplicate `.version` directive"));
                    continue;
                }
                if seen_target || seen_code {
                    diags.push(
                        Diagnostic::error(*span, "`.version` must be the first directive")
                            .with_note("ISA 11.1: each PTX module begins with `.version`"),
                    );
                }
                version_span = Some(*span);
                h.version = (*major, *minor);
                if let Some(d) = version_diagnostic(h.version, *span) {
                    diags.push(d);
                }
            }
            ast::Item::Target(names) => {
                if version_span.is_none() && !seen_target {
                    if let Some(first) = names.first() {
                        diags.push(
                            Diagnostic::error(first.span, "`.target` must follow `.version`")
                                .with_note("ISA 11.1: `.version` first, then `.target`"),
                        );
                    }
                }
                seen_target = true;
                let mut arch = false;
                for n in names {
                    let name = n.node;
                    if let Some(sm) = gating::sm_number(name) {
                        arch = true;
                        h.sm = h.sm.max(sm);
                        if let Some(a) = gating::Arch::parse(name)
                            && a.sm >= h.arch.sm
                        {
                            h.arch = a;
                        }
                        targets.push(n);
                    } else if matches!(name, "texmode_unified" | "texmode_independent") {
                        if let Some(prev) = texmode
                            && prev.node != name
                        {
                            diags.push(
                                Diagnostic::error(n.span, "a module declares one texturing mode")
                                    .with_secondary(prev.span, "the other one is declared here"),
                            );
                        }
                        texmode = Some(n);
                        h.texmode_independent = name == "texmode_independent";
                        options.push(n);
                    } else if matches!(name, "debug" | "map_f64_to_f32") {
                        options.push(n);
                    } else {
                        diags.push(
                            Diagnostic::error(n.span, format!("unknown target `{name}`"))
                                .with_label("expected sm_XX, compute_XX, texmode_*, debug or map_f64_to_f32"),
                        );
                    }
                }
                if !arch {
                    let span = names
                        .first()
                        .map_or(Span::default(), |f| f.span.to(names[names.len() - 1].span));
                    diags.push(
                        Diagnostic::error(span, "`.target` names no target architecture")
                            .with_label("add one such as sm_70"),
                    );
                }
            }
            ast::Item::AddressSize(a) => {
                if address_size.is_some() {
                    diags.push(Diagnostic::error(
                        a.span,
                        "duplicate `.address_size` directive",
                    ));
                }
                if seen_code {
                    diags.push(
                        Diagnostic::error(a.span, "`.address_size` must follow `.target`")
                            .with_label("after declarations"),
                    );
                }
                address_size = Some(a);
                match a.node {
                    64 => h.address_size = 64,
                    32 => diags.push(
                        Diagnostic::error(a.span, "`.address_size 32` is not supported")
                            .with_label("32-bit addresses")
                            .with_note(
                                "ptxvk's global and generic addresses are 64-bit Vulkan device addresses; compile for a 64-bit address size",
                            ),
                    ),
                    _ => diags.push(
                        Diagnostic::error(a.span, "`.address_size` must be 32 or 64")
                            .with_label("here"),
                    ),
                }
            }
            ast::Item::Var(_) | ast::Item::Function(_) => seen_code = true,
            ast::Item::Ignored(_) => {}
        }
    }
    let declared = gating::Declared {
        version: h.version,
        sm: h.sm,
    };
    for t in &targets {
        match gating::target_version(t.node) {
            Some(v) if h.version < v && version_span.is_some() => diags.push(
                Diagnostic::error(
                    t.span,
                    format!(
                        "target `{}` requires PTX ISA {}.{}; this module declares .version {}.{}",
                        t.node, v.0, v.1, h.version.0, h.version.1
                    ),
                )
                .with_label("too new for this .version"),
            ),
            Some(_) => {}
            None => diags.push(
                Diagnostic::warning(t.span, format!("unknown target `{}`", t.node)).with_label(
                    format!("read as sm_{}", gating::sm_number(t.node).unwrap_or(0)),
                ),
            ),
        }
    }
    for o in &options {
        if version_span.is_some()
            && let Some(d) = gating::check_directive(declared, o.node, &[], o.span)
        {
            diags.push(d);
        }
        if o.node == "map_f64_to_f32" {
            if h.sm >= 13 {
                diags.push(
                    Diagnostic::error(
                        o.span,
                        "`map_f64_to_f32` is not allowed for sm_13 and later",
                    )
                    .with_note("ISA `.target`: sm_13 \"disallows use of map_f64_to_f32\""),
                );
            } else {
                h.map_f64_to_f32 = true;
            }
        }
    }
    if let Some(a) = address_size
        && version_span.is_some()
        && let Some(d) = gating::check_directive(declared, ".address_size", &[], a.span)
    {
        diags.push(d);
    }
    if version_span.is_none() {
        diags.push(
            Diagnostic::error(Span::new(0, 0), "missing `.version` directive")
                .with_note("every PTX module starts with `.version X.Y` (ISA 11.1)"),
        );
    }
    if !seen_target {
        diags.push(
            Diagnostic::error(
                version_span.unwrap_or_default(),
                "missing `.target` directive",
            )
            .with_note("a PTX module names its target after `.version`, e.g. `.target sm_70`"),
        );
    }
    if address_size.is_none() && h.version >= (2, 3) {
        diags.push(
            Diagnostic::warning(
                version_span.unwrap_or_default(),
                "no `.address_size`: the ISA's default is 32-bit addresses; ptxvk translates with 64-bit addresses",
            )
            .with_note("add `.address_size 64` after `.target`"),
        );
    }
    h
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

impl<'m, 'd> FnCx<'m, 'd> {
    fn check_body(m: &'m mut ModuleCx<'d>, id: FuncId, f: &ast::Function<'_>) -> Function {
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
