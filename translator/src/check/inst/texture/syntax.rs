//! Operand forms shared by the texture instructions: the texture and sampler operands,
//! coordinate vectors, destinations, offsets and the depth-compare operand.

use super::super::int::requires;
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::mods::Mods;
use crate::check::op::TexOperand;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::check::{FnCx, Symbol};
use crate::diag::{Diagnostic, Span};
use crate::texture::{Geometry, Opaque};
use crate::types::ScalarType::{self, *};
use crate::types::TypeKind;

pub(super) fn err<T>(
    cx: &mut FnCx<'_, '_>,
    span: Span,
    msg: impl Into<String>,
    label: &str,
) -> Option<T> {
    cx.error(Diagnostic::error(span, msg).with_label(label));
    None
}

/// The geometry modifier; multisample geometries are recognized and refused.
pub(super) fn geometry(m: &mut Mods<'_, '_>, allowed: &[Geometry]) -> Option<Geometry> {
    if m.pick(&[("2dms", ()), ("a2dms", ())]).is_some() {
        m.error(
            "multisample textures (.2dms, .a2dms) are not supported by ptxvk yet",
            "CUDA cannot create them; Vulkan samples them through a different image type",
        );
        return None;
    }
    let g = m.pick(&GEOMETRIES);
    match g {
        Some(g) if allowed.contains(&g) => Some(g),
        Some(g) => {
            m.error_on(
                g.name(),
                format!("`.{}` is not a geometry of this instruction", g.name()),
                "not allowed here",
            );
            None
        }
        None => {
            let names: Vec<String> = allowed.iter().map(|g| format!(".{}", g.name())).collect();
            m.error(
                format!("`{}` needs a geometry", m.full_name()),
                format!("add one of {}", names.join(" ")),
            );
            None
        }
    }
}

/// A texture or sampler operand: a variable of type `want`, or (for textures, in unified mode)
/// a 64-bit register.
pub(super) fn tex_operand(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    want: Opaque,
    what: &str,
) -> Option<TexOperand> {
    let OperandKind::Imm(ast::Expr {
        kind: ExprKind::Name(name),
        span,
    }) = &op.kind
    else {
        return err(
            cx,
            op.span,
            format!("expected the {what}"),
            "a name or register",
        );
    };
    if let Some(Symbol::Reg(r)) = cx.lookup(name) {
        let ty = cx.func.reg(r).ty;
        if !(ty.bits() == 64 && matches!(ty.kind(), TypeKind::Bits | TypeKind::Unsigned)) {
            return err(
                cx,
                *span,
                format!("a {what} register must be .u64 or .b64, not {ty}"),
                "here",
            );
        }
        if want == Opaque::SamplerRef {
            return err(
                cx,
                *span,
                "a sampler must be a .samplerref variable",
                "indirect samplers are not allowed (ISA 8.7.7.3: indirect access is for textures in unified mode)",
            );
        }
        if cx.m.texmode_independent {
            return err(
                cx,
                *span,
                "indirect texture access is supported only in unified texture mode",
                "ISA 5.3: this module is texmode_independent",
            );
        }
        return Some(TexOperand::Reg(r));
    }
    let var = cx.var_ref(name, *span)?;
    let v = cx.var(var);
    match v.opaque {
        Some(o) if o == want => Some(TexOperand::Var(var)),
        _ => {
            let is = v
                .opaque
                .map_or_else(|| v.ty.to_string(), |o| o.name().to_string());
            err(
                cx,
                *span,
                format!(
                    "`{name}` is {is}; the {what} must be a {} variable",
                    want.name()
                ),
                "here",
            )
        }
    }
}

/// `[a, c]` or `[a, b, c]`: texture, optional sampler, coordinates.
pub(super) fn bracket<'o, 'a>(
    cx: &mut FnCx<'_, '_>,
    op: &'o ast::Operand<'a>,
) -> Option<(
    &'o ast::Operand<'a>,
    Option<&'o ast::Operand<'a>>,
    &'o ast::Operand<'a>,
)> {
    match &op.kind {
        OperandKind::Tuple(items) if items.len() == 2 => Some((&items[0], None, &items[1])),
        OperandKind::Tuple(items) if items.len() == 3 => {
            Some((&items[0], Some(&items[1]), &items[2]))
        }
        _ => err(
            cx,
            op.span,
            "expected `[texture, coordinates]` or `[texture, sampler, coordinates]`",
            "here",
        ),
    }
}

/// The elements of a vector operand (a scalar counts as one element).
pub(super) fn elements<'o, 'a>(op: &'o ast::Operand<'a>) -> Vec<&'o ast::Operand<'a>> {
    match &op.kind {
        OperandKind::Vector(items) => items.iter().collect(),
        _ => vec![op],
    }
}

/// A vector of `n` elements of type `ty` (or `n..=max` elements, the rest ignored: ISA 8.7.7.3
/// allows `.v4` coordinate vectors for any geometry, and the 4th element of 3D vectors is
/// padding).
pub(super) fn vector(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    ty: ScalarType,
    n: usize,
    max: usize,
    what: &str,
) -> Option<Vec<Src>> {
    let items = elements(op);
    if items.len() < n || items.len() > max {
        let want = if n == max {
            format!("{n}")
        } else {
            format!("{n} to {max}")
        };
        return err(
            cx,
            op.span,
            format!("{what} needs {want} elements, found {}", items.len()),
            "here",
        );
    }
    let mut out = Vec::new();
    for (k, item) in items.into_iter().enumerate() {
        // Padding elements are read as bits, whatever their type.
        let t = if k < n { ty } else { B32 };
        out.push(cx.src(item, t, TypeRule::Strict)?);
    }
    out.truncate(n);
    Some(out)
}

/// Destinations `d` or `d|p`: a vector of `n` registers of type `ty`.
pub(super) fn destinations(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    ty: ScalarType,
    n: usize,
    allow_pred: bool,
) -> Option<(Vec<Dst>, Option<Dst>)> {
    let (d, p) = match &op.kind {
        OperandKind::Pair(d, p) => (&**d, Some(&**p)),
        _ => (op, None),
    };
    let pred = match p {
        Some(p) if allow_pred => Some(cx.dst(p, Pred, TypeRule::Strict)?),
        Some(p) => {
            return err(
                cx,
                p.span,
                "no destination predicate here",
                "unexpected `|p`",
            );
        }
        None => None,
    };
    let OperandKind::Vector(items) = &d.kind else {
        return err(
            cx,
            d.span,
            format!("the destination is a vector of {n} registers"),
            "expected `{a, b, ...}`",
        );
    };
    if items.len() != n {
        return err(
            cx,
            d.span,
            format!(
                "the destination is a vector of {n} registers, found {}",
                items.len()
            ),
            "here",
        );
    }
    let mut out = Vec::new();
    for item in items {
        out.push(cx.dst(item, ty, TypeRule::Strict)?);
    }
    Some((out, pred))
}

/// The coordinate operand `c`: the array index first for layered geometries.
pub(super) fn coordinates(
    cx: &mut FnCx<'_, '_>,
    op: &ast::Operand<'_>,
    geom: Geometry,
    ctype: ScalarType,
) -> Option<(Option<Src>, Vec<Src>)> {
    let items = elements(op);
    let dims = geom.dims();
    let need = dims + usize::from(geom.is_array());
    if items.len() < need || items.len() > 4 {
        return err(
            cx,
            op.span,
            format!(
                "`.{}` coordinates have {need} element{}{}, found {}",
                geom.name(),
                if need == 1 { "" } else { "s" },
                if geom.is_array() {
                    " (the array index first)"
                } else {
                    ""
                },
                items.len()
            ),
            "here",
        );
    }
    let mut it = items.into_iter();
    let layer = if geom.is_array() {
        let first = it.next()?;
        Some(cx.src(first, U32, TypeRule::Strict)?)
    } else {
        None
    };
    let mut coords = Vec::new();
    for (k, item) in it.enumerate() {
        let t = if k < dims { ctype } else { B32 };
        let s = cx.src(item, t, TypeRule::Strict)?;
        if k < dims {
            coords.push(s);
        }
    }
    Some((layer, coords))
}

/// After the bracket: `{, e} {, f}` (an offset vector, a depth-compare value).
pub(super) fn offset_and_compare(
    cx: &mut FnCx<'_, '_>,
    m: &mut Mods<'_, '_>,
    rest: &[ast::Operand<'_>],
    geom: Geometry,
    what: &str,
) -> Option<(Option<Vec<Src>>, Option<Src>)> {
    let mut rest = rest.iter().peekable();
    let mut offset = None;
    if let Some(op) = rest.next_if(|o| matches!(o.kind, OperandKind::Vector(_))) {
        if geom.is_cube() {
            return err(
                cx,
                op.span,
                "an offset operand is not supported for cubemaps",
                "ISA 8.7.7.3",
            );
        }
        let n = geom.dims();
        offset = Some(vector(
            cx,
            op,
            S32,
            n,
            if n == 3 { 4 } else { n },
            "the offset",
        )?);
        requires(
            cx,
            m,
            &format!("the offset operand of `{what}`"),
            30,
            (4, 3),
        );
    }
    let mut compare = None;
    if let Some(op) = rest.next() {
        if matches!(geom, Geometry::D3) {
            return err(
                cx,
                op.span,
                "a depth-compare operand is not supported for 3D textures",
                "ISA 8.7.7.3",
            );
        }
        compare = Some(cx.src(op, F32, TypeRule::Strict)?);
        requires(
            cx,
            m,
            &format!("the depth-compare operand of `{what}`"),
            30,
            (4, 3),
        );
    }
    if let Some(op) = rest.next() {
        return err(
            cx,
            op.span,
            format!("too many operands for `{what}`"),
            "unexpected",
        );
    }
    Some((offset, compare))
}

pub(super) fn sampler_operand(
    cx: &mut FnCx<'_, '_>,
    op: Option<&ast::Operand<'_>>,
) -> Option<Option<TexOperand>> {
    let Some(op) = op else { return Some(None) };
    if !cx.m.texmode_independent {
        return err(
            cx,
            op.span,
            "a sampler operand needs independent texture mode",
            "add `texmode_independent` to `.target` (ISA 8.7.7.1)",
        );
    }
    Some(Some(tex_operand(cx, op, Opaque::SamplerRef, "sampler")?))
}

pub(super) fn indirect_requires(cx: &FnCx<'_, '_>, m: &mut Mods<'_, '_>, t: &TexOperand) {
    if matches!(t, TexOperand::Reg(_)) {
        requires(cx, m, "indirect texture access", 20, (3, 1));
    }
}

pub(super) const GEOMETRIES: [(&str, Geometry); 7] = [
    ("1d", Geometry::D1),
    ("2d", Geometry::D2),
    ("3d", Geometry::D3),
    ("a1d", Geometry::A1D),
    ("a2d", Geometry::A2D),
    ("cube", Geometry::Cube),
    ("acube", Geometry::ACube),
];
