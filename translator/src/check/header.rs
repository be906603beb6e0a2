//! The module header: `.version`, `.target` and `.address_size`, checked before anything else.

use crate::ast;
use crate::check::gating;
use crate::diag::{Diagnostic, Span};

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

pub(super) struct Header {
    pub(super) version: (u32, u32),
    pub(super) sm: u32,
    /// The target architecture with its `a`/`f` suffix (the highest named).
    pub(super) arch: gating::Arch,
    pub(super) address_size: u32,
    /// `.target ..., map_f64_to_f32` on an sm_1x target: `.f64` instructions would have to be
    /// computed in single precision, which ptxvk does not do.
    pub(super) map_f64_to_f32: bool,
    pub(super) texmode_independent: bool,
}

/// `.version`, `.target` and `.address_size` (ISA 11.1-11.3). `.version` comes first, `.target`
/// right after; each target string must exist in the declared version.
pub(super) fn header(module: &ast::Module<'_>, diags: &mut Vec<Diagnostic>) -> Header {
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
