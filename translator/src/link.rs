//! Linking several PTX modules into one program, as nvlink and the driver's JIT linker do with
//! separately compiled device code (`nvcc -rdc=true`, `cuLinkAddData`): each `.extern`
//! function or variable a module declares meets the `.visible` (or `.weak`/`.common`)
//! definition another module gives.
//!
//! The link works on checked modules and writes one PTX text, which [`Program::parse`] then
//! checks as a whole (calls against their callee's signature, initializers naming symbols of
//! other modules):
//! - each input must check alone, so an input's own mistakes are reported in its own file;
//! - symbols are resolved over the inputs' module-scope declarations: two strong definitions
//!   of one name, an `.extern` declaration that a module uses and no module defines, and a
//!   function declared where a variable is defined (or the reverse) are errors at the place in
//!   the input that names the symbol (file:line:col);
//! - module-local symbols (no linkage directive: nvcc's `$str` constants, static functions)
//!   whose names another input also declares are renamed, so each module keeps its own;
//! - a `.weak`/`.common` definition gives way to a strong one, else to the first;
//! - the header is the newest `.version` and the newest `.target` of all inputs.
//!
//! [`Program::parse`]: crate::Program::parse

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use crate::ast::{FunctionKind, Item, Linkage, VarType};
use crate::diag::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::parse::Token;
use crate::types::StateSpace;

/// Why inputs could not be linked: diagnostics per input file.
#[derive(Debug, thiserror::Error)]
#[error("{}", render(.0))]
pub struct LinkError(pub Vec<Diagnostics>);

fn render(all: &[Diagnostics]) -> String {
    all.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Function,
    Variable,
}

/// One module-scope declaration of a name in one input.
#[derive(Clone, Debug)]
struct Decl {
    file: usize,
    kind: Kind,
    linkage: Option<Linkage>,
    /// A definition (a function with a body, a variable not `.extern`).
    defines: bool,
    /// A kernel: its name is the program's interface and is never renamed.
    entry: bool,
    /// The name where it is declared.
    name_span: Span,
    /// The whole item, removed from the output where this declaration gives way.
    item: Span,
    /// A function's results and parameters, as [`signature`] writes them.
    signature: String,
}

/// A function's results and parameters by size and shape (`(.b32) f(.b64, .b8[])`): a
/// prototype and its definition may differ in how they name a type (`.u32`, `.b32`) but not
/// in these.
fn signature(f: &crate::ast::Function<'_>) -> String {
    let one = |v: &crate::ast::VarDecl<'_>| -> String {
        let bits = match v.ty.node {
            VarType::Scalar(t) => t.bits(),
            VarType::TexRef | VarType::SamplerRef | VarType::SurfRef => 64,
        };
        let vector = v
            .vector
            .as_ref()
            .map_or(String::new(), |n| format!(".v{}", n.node));
        v.names
            .iter()
            .map(|n| format!("{vector}.b{bits}{}", "[]".repeat(n.dims.len())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let list = |vs: &[crate::ast::VarDecl<'_>]| vs.iter().map(one).collect::<Vec<_>>().join(", ");
    format!("({}) ({})", list(&f.returns), list(&f.params))
}

/// A prototype with a result for a function defined without one, the parameters alike: what
/// numba declares for a C-ABI `void` function it links from CUDA C++. NVIDIA's linker accepts
/// it; the checker then lets calls name a result, which nothing writes.
fn result_ignored(declared: &str, defined: &str) -> bool {
    defined
        .strip_prefix("() ")
        .is_some_and(|params| declared.ends_with(&format!(") {params}")))
}

/// Dynamic shared memory (`.extern .shared x[]`) is each kernel's own and resolves to no other
/// module; several inputs declare it, often under one name.
fn is_dynamic_shared(space: StateSpace, linkage: Option<Linkage>) -> bool {
    space == StateSpace::Shared && linkage == Some(Linkage::Extern)
}

/// The item's span with the `;` that ends a declaration.
fn whole_item(text: &str, span: Span) -> Span {
    let rest = &text[span.end as usize..];
    let trimmed = rest.trim_start();
    if trimmed.starts_with(';') {
        let end = span.end as usize + (rest.len() - trimmed.len()) + 1;
        return Span::new(span.start as usize, end);
    }
    span
}

/// What one input contributes: its header and its module-scope declarations.
struct Input {
    version: Option<(u32, u32)>,
    target: Option<(u32, String)>,
    address_size: Option<(u32, Span)>,
    decls: Vec<(String, Decl)>,
    /// Dynamic shared memory declarations: (name, item).
    dynamic_shared: Vec<(String, Span)>,
    /// Header items, left out of the output.
    header: Vec<Span>,
}

fn scan(file: usize, src: &SourceFile) -> Result<Input, Diagnostics> {
    let (module, diags) = crate::parse::parse(&src.text);
    let Some(module) = module.filter(|_| diags.is_empty()) else {
        return Err(Diagnostics::new(Arc::new(src.clone()), diags));
    };
    let mut input = Input {
        version: None,
        target: None,
        address_size: None,
        decls: Vec::new(),
        dynamic_shared: Vec::new(),
        header: Vec::new(),
    };
    for item in &module.items {
        match item {
            Item::Version { major, minor, span } => {
                input.version = Some((*major, *minor));
                input.header.push(line_of(&src.text, *span));
            }
            Item::Target(parts) => {
                if let Some(first) = parts.first() {
                    input.header.push(line_of(&src.text, first.span));
                }
                let text: Vec<&str> = parts.iter().map(|p| p.node).collect();
                let sm = parts
                    .iter()
                    .filter_map(|p| p.node.strip_prefix("sm_"))
                    .filter_map(|n| n.trim_end_matches(char::is_alphabetic).parse().ok())
                    .max()
                    .unwrap_or(0);
                input.target = Some((sm, text.join(", ")));
            }
            Item::AddressSize(a) => {
                input.address_size = Some((a.node, a.span));
                input.header.push(line_of(&src.text, a.span));
            }
            Item::Var(v) => {
                let linkage = v.linkage.as_ref().map(|l| l.node);
                let span = whole_item(&src.text, v.span);
                for n in &v.names {
                    if is_dynamic_shared(v.space.node, linkage) {
                        input.dynamic_shared.push((n.name.node.to_string(), span));
                        continue;
                    }
                    input.decls.push((
                        n.name.node.to_string(),
                        Decl {
                            file,
                            kind: Kind::Variable,
                            linkage,
                            defines: linkage != Some(Linkage::Extern),
                            entry: false,
                            name_span: n.name.span,
                            item: span,
                            signature: String::new(),
                        },
                    ));
                }
            }
            Item::Function(f) => input.decls.push((
                f.name.node.to_string(),
                Decl {
                    file,
                    kind: Kind::Function,
                    linkage: f.linkage.as_ref().map(|l| l.node),
                    defines: f.body.is_some(),
                    entry: f.kind == FunctionKind::Entry,
                    name_span: f.name.span,
                    item: whole_item(&src.text, f.span),
                    signature: signature(f),
                },
            )),
            Item::Ignored(_) => {}
        }
    }
    Ok(input)
}

/// The whole line around `span`: compilers write each header directive on a line of its own.
fn line_of(text: &str, span: Span) -> Span {
    let start = text[..span.start as usize].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end as usize..]
        .find('\n')
        .map_or(text.len(), |i| span.end as usize + i);
    Span::new(start, end)
}

fn position(files: &[Arc<SourceFile>], file: usize, span: Span) -> String {
    let (line, col) = files[file].line_col(span.start);
    format!("{}:{line}:{col}", files[file].name)
}

/// Links `inputs` into one PTX module, named `name`. Checks each input alone first.
pub fn link(name: &str, inputs: &[Arc<SourceFile>]) -> Result<Arc<SourceFile>, LinkError> {
    if inputs.is_empty() {
        let empty = SourceFile::new(name, "");
        return Err(LinkError(vec![Diagnostics::new(
            empty,
            vec![Diagnostic::error(Span::default(), "nothing to link")],
        )]));
    }
    let mut errors: Vec<Diagnostics> = Vec::new();
    for f in inputs {
        if let Err(d) = crate::Program::parse(f.clone()) {
            errors.push(d);
        }
    }
    if !errors.is_empty() {
        return Err(LinkError(errors));
    }
    let mut scanned = Vec::with_capacity(inputs.len());
    for (i, f) in inputs.iter().enumerate() {
        scanned.push(scan(i, f).map_err(|d| LinkError(vec![d]))?);
    }
    let mut diags: Vec<Vec<Diagnostic>> = vec![Vec::new(); inputs.len()];

    // Every module-scope name, with each input's declarations of it.
    let mut by_name: BTreeMap<&str, Vec<&Decl>> = BTreeMap::new();
    for input in &scanned {
        for (n, d) in &input.decls {
            by_name.entry(n.as_str()).or_default().push(d);
        }
    }
    // Items left out (per file) and names renamed (per file).
    let mut drop: Vec<Vec<Span>> = scanned.iter().map(|s| s.header.clone()).collect();
    let mut rename: Vec<BTreeMap<&str, String>> = vec![BTreeMap::new(); inputs.len()];
    let tokens: Vec<Vec<(Token<'_>, Span)>> = inputs
        .iter()
        .map(|f| {
            // Lexed again: the AST keeps module-scope names, not every use of them.
            crate::parse::lex(&f.text)
                .0
                .into_iter()
                .map(|(t, s)| (t, Span::new(s.start, s.end)))
                .collect()
        })
        .collect();
    let used_in = |file: usize, name: &str, decl: Span| -> Option<Span> {
        tokens[file].iter().find_map(|(t, s)| {
            (matches!(t, Token::Ident(n) if *n == name)
                && !(s.start >= decl.start && s.end <= decl.end))
                .then_some(*s)
        })
    };

    for (&sym, decls) in &by_name {
        let files: BTreeSet<usize> = decls.iter().map(|d| d.file).collect();
        // Module-local definitions: each input's own. Renamed where another input declares the
        // name too (the first input keeps it).
        let global = |d: &Decl| d.linkage.is_some() || d.entry;
        let first_global_file = decls.iter().filter(|d| global(d)).map(|d| d.file).min();
        let locals: BTreeSet<usize> = decls
            .iter()
            .filter(|d| !global(d))
            .map(|d| d.file)
            .collect();
        for &f in &locals {
            let others = files.iter().any(|&g| g != f);
            let keeps = first_global_file.is_none() && locals.iter().next() == Some(&f);
            if others && !keeps {
                let mut new = format!("{sym}_ptxvk_m{f}");
                while by_name.contains_key(new.as_str()) {
                    new.push('_');
                }
                rename[f].insert(sym, new);
            }
        }
        let globals: Vec<&Decl> = decls.iter().copied().filter(|d| global(d)).collect();
        if globals.is_empty() {
            continue;
        }
        let strong: Vec<&Decl> = globals
            .iter()
            .copied()
            .filter(|d| d.defines && matches!(d.linkage, Some(Linkage::Visible) | None))
            .collect();
        let weak: Vec<&Decl> = globals
            .iter()
            .copied()
            .filter(|d| d.defines && matches!(d.linkage, Some(Linkage::Weak | Linkage::Common)))
            .collect();
        // Several strong definitions in one input are the checker's to report.
        if let [first, rest @ ..] = strong.as_slice() {
            for d in rest.iter().filter(|d| d.file != first.file) {
                diags[d.file].push(
                    Diagnostic::error(d.name_span, format!("`{sym}` is defined in two modules"))
                        .with_label("defined again here")
                        .with_note(format!(
                            "first defined at {}",
                            position(inputs, first.file, first.name_span)
                        )),
                );
            }
        }
        let chosen = strong.first().or(weak.first()).copied();
        for d in &weak {
            if chosen.is_some_and(|c| c.file != d.file) {
                drop[d.file].push(d.item);
            }
        }
        let Some(chosen) = chosen else {
            // CUDA's device-runtime functions are defined by no module: the translator lowers
            // calls to them in place.
            if crate::abi::DeviceCall::is_name(sym)
                && globals.iter().all(|d| d.kind == Kind::Function)
            {
                continue;
            }
            // Declared, defined nowhere: an error where a module uses it.
            for d in &globals {
                if let Some(at) = used_in(d.file, sym, d.item) {
                    diags[d.file].push(
                        Diagnostic::error(
                            at,
                            format!("`{sym}` is declared `.extern` but no module defines it"),
                        )
                        .with_label("used here")
                        .with_secondary(d.name_span, "declared here"),
                    );
                }
            }
            continue;
        };
        for d in globals.iter().filter(|d| !d.defines) {
            if d.kind != chosen.kind {
                let (what, is) = match d.kind {
                    Kind::Function => ("function", "variable"),
                    Kind::Variable => ("variable", "function"),
                };
                diags[d.file].push(
                    Diagnostic::error(
                        d.name_span,
                        format!("`{sym}` is declared as a {what} but defined as a {is}"),
                    )
                    .with_note(format!(
                        "defined at {}",
                        position(inputs, chosen.file, chosen.name_span)
                    )),
                );
            } else if d.signature != chosen.signature
                && !result_ignored(&d.signature, &chosen.signature)
            {
                diags[d.file].push(
                    Diagnostic::error(
                        d.name_span,
                        format!(
                            "`{sym}` is declared as {} but defined as {}",
                            d.signature, chosen.signature
                        ),
                    )
                    .with_note(format!(
                        "defined at {}",
                        position(inputs, chosen.file, chosen.name_span)
                    )),
                );
            } else if d.kind == Kind::Variable && d.file != chosen.file {
                // The checker refuses a variable declared beside its definition; function
                // prototypes may stay.
                drop[d.file].push(d.item);
            }
        }
    }
    // Dynamic shared memory: the first declaration of each name stays.
    let mut shared_seen = BTreeSet::new();
    for (f, input) in scanned.iter().enumerate() {
        for (n, item) in &input.dynamic_shared {
            if !shared_seen.insert(n.as_str()) {
                drop[f].push(*item);
            }
        }
    }
    // One address size for all.
    if let Some((first, _)) = scanned[0].address_size {
        for (f, input) in scanned.iter().enumerate().skip(1) {
            if let Some((size, span)) = input.address_size
                && size != first
            {
                diags[f].push(
                    Diagnostic::error(span, format!("`.address_size {size}`"))
                        .with_note(format!("{} has `.address_size {first}`", inputs[0].name)),
                );
            }
        }
    }
    let errors: Vec<Diagnostics> = diags
        .into_iter()
        .enumerate()
        .filter(|(_, d)| !d.is_empty())
        .map(|(f, mut d)| {
            d.sort_by_key(|d| d.span.start);
            Diagnostics::new(inputs[f].clone(), d)
        })
        .collect();
    if !errors.is_empty() {
        return Err(LinkError(errors));
    }

    let version = scanned.iter().filter_map(|s| s.version).max();
    let target = scanned
        .iter()
        .filter_map(|s| s.target.as_ref())
        .max_by_key(|(sm, _)| *sm);
    let mut out = String::new();
    if let Some((a, b)) = version {
        let _ = writeln!(out, ".version {a}.{b}");
    }
    if let Some((_, t)) = target {
        let _ = writeln!(out, ".target {t}");
    }
    if let Some((a, _)) = scanned[0].address_size {
        let _ = writeln!(out, ".address_size {a}");
    }
    for (f, file) in inputs.iter().enumerate() {
        let _ = writeln!(out, "\n// {}", file.name.replace('\n', " "));
        let text = file.text.as_str();
        let mut cuts: Vec<(Span, &str)> = drop[f].iter().map(|&s| (s, "")).collect();
        for (t, s) in &tokens[f] {
            if let Token::Ident(n) = t
                && let Some(new) = rename[f].get(n)
            {
                cuts.push((*s, new.as_str()));
            }
        }
        cuts.sort_by_key(|(s, _)| (s.start, std::cmp::Reverse(s.end)));
        let mut at = 0usize;
        for (s, with) in cuts {
            let (start, end) = (s.start as usize, s.end as usize);
            // A rename inside a dropped item is dropped with it.
            if start < at {
                continue;
            }
            out.push_str(&text[at..start]);
            out.push_str(with);
            at = end;
        }
        out.push_str(&text[at..]);
        out.push('\n');
    }
    Ok(SourceFile::new(name, out))
}

#[cfg(test)]
mod tests;
