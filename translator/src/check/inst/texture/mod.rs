//! Texture instructions (ISA 8.7.7): syntax and type rules of `tex`, `tld4` and `txq`, with
//! the newer forms (mipmaps, offsets, depth compare, `.f16`/`.f16x2` results, the destination
//! predicate, `txq.level`). What they do is in `lower/texture/`.
//!
//! The PTX ISA versions and targets that introduced each form are checked from the "PTX ISA
//! Notes" and "Target ISA Notes" of each instruction.

use super::int::requires;
use super::shared::operands;
use crate::ast::{self, ExprKind, OperandKind};
use crate::check::mods::Mods;
use crate::check::op::{Tex, TexLod, Tld4, Txq, TxqQuery};
use crate::check::operands::TypeRule;
use crate::check::{FnCx, Symbol};
use crate::texture::{Geometry, Opaque};
use crate::types::ScalarType::*;

mod syntax;

use syntax::*;

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
