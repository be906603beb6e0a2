//! Texture instructions (ISA 8.7.7): syntax and type rules of `tex`, `tld4` and `txq`, with
//! the newer forms (mipmaps, offsets, depth compare, `.f16`/`.f16x2` results, the destination
//! predicate, `txq.level`). What they do is in `lower/texture.rs`.
//!
//! The PTX ISA versions and targets that introduced each form are checked from the "PTX ISA
//! Notes" and "Target ISA Notes" of each instruction.

use super::int::requires;
use super::operands;
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::mods::Mods;
use crate::check::operands::TypeRule;
use crate::check::typed::*;
use crate::check::{FnCx, Symbol};
use crate::diag::{Diagnostic, Span};
use crate::texture::{Geometry, Opaque};
use crate::types::ScalarType::{self, *};
use crate::types::TypeKind;

/// The texture (or sampler) operand of a texture instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum TexOperand {
    /// A `.texref`/`.samplerref` variable: module scope or a kernel parameter.
    Var(VarRef),
    /// A `.u64` register holding a handle: a texture object, or the address of a `.texref`
    /// (indirect access, ISA 8.7.7.3).
    Reg(RegId),
}

/// How `tex` picks the mip level (ISA 8.7.7.2).
#[derive(Clone, Debug, PartialEq)]
pub enum TexLod {
    /// Level 0 (`.base`, or no mipmap modifier).
    Base,
    /// `.level`: an explicit level of `.ctype`.
    Level(Src),
    /// `.grad`: the partial derivatives `dPdx`, `dPdy` (one `.f32` per spatial dimension).
    Grad(Vec<Src>, Vec<Src>),
}

/// `tex`: a texture lookup.
#[derive(Clone, Debug)]
pub struct Tex {
    pub geom: Geometry,
    /// `.u32 .s32 .f32 .f16 .f16x2`.
    pub dtype: ScalarType,
    /// `.s32` (texel coordinates, a fetch) or `.f32`.
    pub ctype: ScalarType,
    pub lod: TexLod,
    /// Four destinations (two for `.f16x2`).
    pub dst: Vec<Dst>,
    /// `d|p`: whether the texels are resident (always, without sparse textures).
    pub pred: Option<Dst>,
    pub texture: TexOperand,
    /// The `.samplerref` of independent mode.
    pub sampler: Option<TexOperand>,
    /// The array index (`.u32`) of layered geometries.
    pub layer: Option<Src>,
    /// One `.ctype` coordinate per spatial dimension.
    pub coords: Vec<Src>,
    /// Operand `e`: one `.s32` texel offset per spatial dimension.
    pub offset: Option<Vec<Src>>,
    /// Operand `f`: the depth-compare value (`.f32`).
    pub compare: Option<Src>,
}

/// `tld4`: the four texels of a bilinear footprint, one component each.
#[derive(Clone, Debug)]
pub struct Tld4 {
    /// 0-3 for `.r .g .b .a`.
    pub comp: u32,
    pub geom: Geometry,
    pub dtype: ScalarType,
    pub dst: Vec<Dst>,
    pub pred: Option<Dst>,
    pub texture: TexOperand,
    pub sampler: Option<TexOperand>,
    pub layer: Option<Src>,
    pub coords: Vec<Src>,
    pub offset: Option<Vec<Src>>,
    pub compare: Option<Src>,
}

/// What `txq` asks (ISA 8.7.7.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxqQuery {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    ForceUnnormalizedCoords,
    FilterMode,
    AddrMode(u32),
}

impl TxqQuery {
    /// Sampler attributes (`.squery`), as opposed to texture attributes.
    pub fn is_sampler(self) -> bool {
        matches!(
            self,
            TxqQuery::ForceUnnormalizedCoords | TxqQuery::FilterMode | TxqQuery::AddrMode(_)
        )
    }
}

/// `txq`: a texture or sampler attribute.
#[derive(Clone, Debug)]
pub struct Txq {
    pub query: TxqQuery,
    /// `txq.level`: the level whose size is asked.
    pub level: Option<Src>,
    pub dst: Dst,
    pub operand: TexOperand,
}

const GEOMETRIES: [(&str, Geometry); 7] = [
    ("1d", Geometry::D1),
    ("2d", Geometry::D2),
    ("3d", Geometry::D3),
    ("a1d", Geometry::A1D),
    ("a2d", Geometry::A2D),
    ("cube", Geometry::Cube),
    ("acube", Geometry::ACube),
];

fn err<T>(cx: &mut FnCx<'_, '_>, span: Span, msg: impl Into<String>, label: &str) -> Option<T> {
    cx.error(Diagnostic::error(span, msg).with_label(label));
    None
}

/// The geometry modifier; multisample geometries are recognized and refused.
fn geometry(m: &mut Mods<'_, '_>, allowed: &[Geometry]) -> Option<Geometry> {
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
fn tex_operand(
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
fn bracket<'o, 'a>(
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
fn elements<'o, 'a>(op: &'o ast::Operand<'a>) -> Vec<&'o ast::Operand<'a>> {
    match &op.kind {
        OperandKind::Vector(items) => items.iter().collect(),
        _ => vec![op],
    }
}

/// A vector of `n` elements of type `ty` (or `n..=max` elements, the rest ignored: ISA 8.7.7.3
/// allows `.v4` coordinate vectors for any geometry, and the 4th element of 3D vectors is
/// padding).
fn vector(
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
fn destinations(
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
fn coordinates(
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
fn offset_and_compare(
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

fn sampler_operand(
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

fn indirect_requires(cx: &FnCx<'_, '_>, m: &mut Mods<'_, '_>, t: &TexOperand) {
    if matches!(t, TexOperand::Reg(_)) {
        requires(cx, m, "indirect texture access", 20, (3, 1));
    }
}

/// `tex.geom.v4.dtype.ctype d[|p], [a, {b,} c] {, lod | dPdx, dPdy} {, e} {, f}`.
pub fn tex(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Tex> {
    let mip = m.pick(&[("base", 0u8), ("level", 1), ("grad", 2)]);
    let geom = geometry(m, &GEOMETRIES.map(|g| g.1))?;
    let v = m.pick(&[("v4", 4usize), ("v2", 2)]);
    let dtype = m.ty(&[U32, S32, F32, F16, F16x2])?;
    let ctype = m.ty(&[S32, F32])?;
    let n = if dtype == F16x2 { 2 } else { 4 };
    if v != Some(n) {
        m.error(
            format!("`tex` with .{} results needs .v{n}", dtype.name()),
            format!("add .v{n}"),
        );
        return None;
    }
    if geom.is_cube() && ctype != F32 {
        m.error("cubemap coordinates must be .f32", "ISA 8.7.7.3");
        return None;
    }
    match geom {
        Geometry::A1D | Geometry::A2D => requires(cx, m, "texture arrays", 0, (2, 3)),
        Geometry::Cube => requires(cx, m, "cubemap textures", 0, (3, 0)),
        Geometry::ACube => requires(cx, m, "cubemap arrays", 20, (3, 0)),
        _ => {}
    }
    if mip.is_some() {
        requires(cx, m, "texture mipmaps", 20, (3, 1));
    }
    if mip == Some(2) && geom.is_cube() {
        requires(cx, m, "`tex.grad` of cubemaps", 30, (4, 3));
    }
    if matches!(dtype, F16 | F16x2) {
        requires(cx, m, "`tex` with .f16 results", 53, (4, 2));
    }
    if i.operands.len() < 2 {
        return operands(cx, i, 2).and(None);
    }
    let ops = &i.operands;
    let (dst, pred) = destinations(cx, &ops[0], dtype, n, true)?;
    if pred.is_some() {
        requires(cx, m, "the destination predicate of `tex`", 60, (7, 1));
    }
    let (a, b, c) = bracket(cx, &ops[1])?;
    let texture = tex_operand(cx, a, Opaque::TexRef, "texture")?;
    indirect_requires(cx, m, &texture);
    let sampler = sampler_operand(cx, b)?;
    let (layer, coords) = coordinates(cx, c, geom, ctype)?;
    let mut rest = &ops[2..];
    let lod = match mip {
        None | Some(0) => TexLod::Base,
        Some(1) => {
            let Some(l) = rest.first() else {
                m.error(
                    "`tex.level` needs a level operand",
                    "add `, lod` after the brackets",
                );
                return None;
            };
            rest = &rest[1..];
            TexLod::Level(cx.src(l, ctype, TypeRule::Strict)?)
        }
        _ => {
            if rest.len() < 2 {
                m.error(
                    "`tex.grad` needs two gradient operands",
                    "add `, dPdx, dPdy` after the brackets",
                );
                return None;
            }
            let d = geom.dims();
            let max = if d == 3 { 4 } else { d };
            let dx = vector(cx, &rest[0], F32, d, max, "dPdx")?;
            let dy = vector(cx, &rest[1], F32, d, max, "dPdy")?;
            rest = &rest[2..];
            TexLod::Grad(dx, dy)
        }
    };
    let (offset, compare) = offset_and_compare(cx, m, rest, geom, "tex")?;
    if compare.is_some() && ctype != F32 {
        m.error(
            "with a depth-compare operand the coordinates must be .f32",
            "ISA 8.7.7.3",
        );
        return None;
    }
    Some(Tex {
        geom,
        dtype,
        ctype,
        lod,
        dst,
        pred,
        texture,
        sampler,
        layer,
        coords,
        offset,
        compare,
    })
}

/// `tld4.comp.geom.v4.dtype.f32 d[|p], [a, {b,} c] {, e} {, f}`.
pub fn tld4(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Tld4> {
    let comp = m.pick(&[("r", 0u32), ("g", 1), ("b", 2), ("a", 3)]);
    let geom = geometry(
        m,
        &[Geometry::D2, Geometry::A2D, Geometry::Cube, Geometry::ACube],
    )?;
    let Some(comp) = comp else {
        m.error("`tld4` needs a component", "add one of .r .g .b .a");
        return None;
    };
    if !m.flag("v4") {
        m.error("`tld4` returns .v4", "add .v4");
        return None;
    }
    let dtype = m.ty(&[U32, S32, F32])?;
    m.ty(&[F32])?;
    requires(cx, m, "`tld4`", 20, (2, 2));
    if geom != Geometry::D2 {
        requires(cx, m, &format!("`tld4.{}`", geom.name()), 30, (4, 3));
    }
    if i.operands.len() < 2 {
        return operands(cx, i, 2).and(None);
    }
    let ops = &i.operands;
    let (dst, pred) = destinations(cx, &ops[0], dtype, 4, true)?;
    if pred.is_some() {
        requires(cx, m, "the destination predicate of `tld4`", 60, (7, 1));
    }
    let (a, b, c) = bracket(cx, &ops[1])?;
    let texture = tex_operand(cx, a, Opaque::TexRef, "texture")?;
    indirect_requires(cx, m, &texture);
    let sampler = sampler_operand(cx, b)?;
    let (layer, coords) = coordinates(cx, c, geom, F32)?;
    let (offset, compare) = offset_and_compare(cx, m, &ops[2..], geom, "tld4")?;
    Some(Tld4 {
        comp,
        geom,
        dtype,
        dst,
        pred,
        texture,
        sampler,
        layer,
        coords,
        offset,
        compare,
    })
}

/// `txq.tquery.b32 d, [a]`, `txq.level.tlquery.b32 d, [a], lod`, `txq.squery.b32 d, [a]`.
pub fn txq(cx: &mut FnCx<'_, '_>, i: &ast::Instruction<'_>, m: &mut Mods<'_, '_>) -> Option<Txq> {
    use TxqQuery::*;
    let level = m.flag("level");
    let query = m.pick(&[
        ("width", Width),
        ("height", Height),
        ("depth", Depth),
        ("channel_data_type", ChannelDataType),
        ("channel_order", ChannelOrder),
        ("normalized_coords", NormalizedCoords),
        ("array_size", ArraySize),
        ("num_mipmap_levels", NumMipmapLevels),
        ("num_samples", NumSamples),
        ("force_unnormalized_coords", ForceUnnormalizedCoords),
        ("filter_mode", FilterMode),
        ("addr_mode_0", AddrMode(0)),
        ("addr_mode_1", AddrMode(1)),
        ("addr_mode_2", AddrMode(2)),
    ]);
    let Some(query) = query else {
        m.error(
            "`txq` needs an attribute",
            "e.g. .width .height .depth .num_mipmap_levels .filter_mode .addr_mode_0",
        );
        return None;
    };
    m.ty(&[B32])?;
    if level {
        if !matches!(query, Width | Height | Depth) {
            m.error(
                "`txq.level` queries .width, .height or .depth only",
                "ISA 8.7.7.5",
            );
            return None;
        }
        requires(cx, m, "`txq.level`", 30, (4, 3));
    }
    let n = if level { 3 } else { 2 };
    let ops = operands(cx, i, n)?;
    let dst = cx.dst(&ops[0], B32, TypeRule::Strict)?;
    let inner = match &ops[1].kind {
        OperandKind::Address(e) => ast::Operand {
            kind: OperandKind::Imm(e.clone()),
            span: ops[1].span,
        },
        _ => {
            return err(
                cx,
                ops[1].span,
                "expected `[texture]` or `[sampler]`",
                "a bracketed name or register",
            );
        }
    };
    // A sampler attribute of a `.samplerref` in independent mode; otherwise the texture's.
    let is_sampler_var =
        match &inner.kind {
            OperandKind::Imm(ast::Expr {
                kind: ExprKind::Name(n),
                ..
            }) => {
                !matches!(cx.lookup(n), Some(Symbol::Reg(_)))
                    && cx.m.global_names.get(*n).is_some_and(|g| {
                        cx.m.globals[g.0 as usize].opaque == Some(Opaque::SamplerRef)
                    })
            }
            _ => false,
        };
    let operand = if is_sampler_var {
        if !query.is_sampler() {
            return err(
                cx,
                ops[1].span,
                "a .samplerref has sampler attributes only",
                "expected a .texref for texture attributes",
            );
        }
        tex_operand(cx, &inner, Opaque::SamplerRef, "sampler")?
    } else {
        if query == ForceUnnormalizedCoords {
            return err(
                cx,
                ops[1].span,
                "`.force_unnormalized_coords` is an attribute of .samplerref variables",
                "ISA Table 10",
            );
        }
        tex_operand(cx, &inner, Opaque::TexRef, "texture")?
    };
    indirect_requires(cx, m, &operand);
    let level = if level {
        Some(cx.src(&ops[2], B32, TypeRule::Strict)?)
    } else {
        None
    };
    Some(Txq {
        query,
        level,
        dst,
        operand,
    })
}
