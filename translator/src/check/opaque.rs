//! Declarations of the opaque types `.texref`, `.samplerref` and `.surfref` (ISA 5.3), and the
//! legacy `.tex` state space (ISA 5.1.8): where they may be declared and what their
//! initializers may say.

use super::ModuleCx;
use super::consteval::{self, Const};
use crate::ast::{self, ExprKind, Initializer, VarType};
use crate::check::typed::Variable;
use crate::diag::Diagnostic;
use crate::texture::{AddressMode, FilterMode, Opaque, SamplerState};
use crate::types::{ScalarType, StateSpace};

/// The opaque type a declaration has, if any. `.tex .u32 t` is a `.texref` (ISA 5.1.8).
pub(super) fn kind_of(d: &ast::VarDecl<'_>) -> Option<Opaque> {
    match d.ty.node {
        VarType::TexRef => Some(Opaque::TexRef),
        VarType::SamplerRef => Some(Opaque::SamplerRef),
        VarType::SurfRef => Some(Opaque::SurfRef),
        VarType::Scalar(_) if d.space.node == StateSpace::Tex => Some(Opaque::TexRef),
        VarType::Scalar(_) => None,
    }
}

/// An opaque variable: a 64-bit handle (at module scope, a `.global` variable whose address is
/// what `mov.u64 %rd, tex` gives; as a kernel parameter, an 8-byte parameter).
pub(super) fn variable(
    m: &mut ModuleCx<'_>,
    d: &ast::VarDecl<'_>,
    name: &ast::DeclName<'_>,
    kind: Opaque,
) -> Option<Variable> {
    let space = match d.space.node {
        StateSpace::Global | StateSpace::Param => d.space.node,
        StateSpace::Tex => {
            if let VarType::Scalar(t) = d.ty.node
                && !matches!(t, ScalarType::U32 | ScalarType::U64)
            {
                m.diags.push(
                    Diagnostic::error(d.ty.span, "a `.tex` variable must be .u32 or .u64")
                        .with_label("ISA 5.1.8"),
                );
                return None;
            }
            StateSpace::Global
        }
        other => {
            m.diags.push(
                Diagnostic::error(
                    d.space.span,
                    format!("a {} variable cannot be in the {other} space", kind.name()),
                )
                .with_label("expected .global (module scope) or .param (kernel parameter)"),
            );
            return None;
        }
    };
    if !name.dims.is_empty() || d.vector.is_some() || name.count.is_some() {
        m.diags.push(
            Diagnostic::error(
                name.name.span,
                format!("a {} variable cannot be an array or a vector", kind.name()),
            )
            .with_label("one handle per name"),
        );
        return None;
    }
    if kind == Opaque::SurfRef {
        m.diags.push(
            Diagnostic::error(
                d.ty.span,
                "surfaces (`.surfref`) are not supported by ptxvk yet",
            )
            .with_label("surface instructions are outside ISA 8.7.1-8.7.7"),
        );
        return None;
    }
    let sampler_init = match &name.init {
        None => None,
        Some(init) => initializer(m, init, kind),
    };
    Some(Variable {
        name: name.name.node.to_string(),
        space,
        ty: ScalarType::B64,
        vector: 1,
        count: Some(1),
        align: 8,
        init: None,
        external: d
            .linkage
            .as_ref()
            .is_some_and(|l| l.node == ast::Linkage::Extern),
        ptr_space: None,
        opaque: Some(kind),
        sampler_init,
        span: name.name.span,
    })
}

/// `{ member = value, ... }` (ISA 5.3): sampler members are kept (for a `.samplerref`, and for
/// a `.texref` in unified mode, where they would be the texture's defaults); a texture's size
/// and format come from the texture bound at run time, so giving them is an error.
fn initializer(m: &mut ModuleCx<'_>, init: &Initializer<'_>, kind: Opaque) -> Option<SamplerState> {
    let Initializer::List(items, span) = init else {
        m.diags.push(
            Diagnostic::error(
                init_span(init),
                format!(
                    "a {} initializer is a list of `member = value`",
                    kind.name()
                ),
            )
            .with_label("e.g. { filter_mode = linear, addr_mode_0 = wrap }"),
        );
        return None;
    };
    if kind == Opaque::TexRef {
        m.diags.push(
            Diagnostic::error(
                *span,
                "ptxvk takes a .texref's properties from the texture bound at run time",
            )
            .with_label("initializers of .texref variables are not supported"),
        );
        return None;
    }
    let mut s = SamplerState::default();
    let mut ok = true;
    for item in items {
        let Initializer::Member(member, value) = item else {
            m.diags.push(
                Diagnostic::error(init_span(item), "expected `member = value`").with_label("here"),
            );
            ok = false;
            continue;
        };
        let word = match &value.kind {
            ExprKind::Name(n) if consteval::named_constant(n).is_none() => Some(*n),
            _ => None,
        };
        let int = || match consteval::eval(value) {
            Ok(c @ (Const::S64(_) | Const::U64(_))) => Some(c.as_bits_u64()),
            _ => None,
        };
        let bad = |m: &mut ModuleCx<'_>, expected: &str| {
            m.diags.push(
                Diagnostic::error(value.span, format!("invalid value for `{}`", member.node))
                    .with_label(format!("expected {expected}")),
            );
        };
        match member.node {
            "filter_mode" => match word {
                Some("nearest") => s.filter = FilterMode::Nearest,
                Some("linear") => s.filter = FilterMode::Linear,
                _ => {
                    bad(m, "nearest or linear");
                    ok = false;
                }
            },
            "addr_mode_0" | "addr_mode_1" | "addr_mode_2" => {
                let dim = usize::from(member.node.as_bytes()[10] - b'0');
                match word.and_then(AddressMode::from_name) {
                    Some(a) => s.address[dim] = a,
                    None => {
                        bad(
                            m,
                            "wrap, mirror, clamp_ogl, clamp_to_edge or clamp_to_border",
                        );
                        ok = false;
                    }
                }
            }
            "force_unnormalized_coords" => match int() {
                Some(v @ (0 | 1)) => s.force_unnormalized = v == 1,
                _ => {
                    bad(m, "0 or 1");
                    ok = false;
                }
            },
            other => {
                m.diags.push(
                    Diagnostic::error(
                        member.span,
                        format!("`{other}` is not a member of a .samplerref"),
                    )
                    .with_label(
                        "expected filter_mode, addr_mode_0/1/2 or force_unnormalized_coords",
                    ),
                );
                ok = false;
            }
        }
    }
    ok.then_some(s)
}

fn init_span(i: &Initializer<'_>) -> crate::diag::Span {
    match i {
        Initializer::Expr(e) => e.span,
        Initializer::List(_, s) => *s,
        Initializer::Member(n, e) => n.span.to(e.span),
    }
}
