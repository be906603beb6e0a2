//! The checker: resolves names, applies the ISA's rules to every declaration and instruction, and
//! produces the typed module ([`typed::Module`]) that lowering reads.
//!
//! `header.rs` checks the module header, `declare.rs` declares the globals and functions, and
//! `body.rs` checks each function body; this file drives them.

mod body;
pub mod catalog;
mod consteval;
mod cx;
mod declare;
mod decls;
pub mod gating;
mod header;
pub mod inst;
mod map;
mod mods;
pub mod op;
mod opaque;
mod operand;
mod operands;
pub mod typed;

use self::header::header;
use crate::ast;
use crate::diag::Diagnostic;

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
