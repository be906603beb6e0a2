//! Texture instructions (ISA 8.7.7): `tex`, `tld4`, `txq`.
//!
//! Textures are bound per launch (see `crate::texture`): each texture operand must be known at
//! translation time to be a kernel parameter or a `.texref`, so that the runtime can put the
//! texture the launch passes into a fixed descriptor binding. A handle in a register qualifies
//! when the register's only write is `ld.param` of a 64-bit kernel parameter (or a `mov` from
//! such a register, or of a `.texref`'s address): what compilers emit for texture objects.
//!
//! Coordinates follow CUDA: a texture's sampler state (normalized coordinates, filter, address
//! modes) belongs to the texture (unified mode) or to a `.samplerref` (independent mode), so
//! the shader reads it from the slot's record in the parameter block where Vulkan's samplers
//! cannot express it (unnormalized coordinates beyond plain 1D/2D sampling). Integer
//! coordinates (`.s32`) fetch one texel, with zeros outside the texture.

use super::cx::Cx;
use crate::check::Src;
use crate::check::inst::{Tex, TexLod, TexOperand, Tld4, Txq, TxqQuery};
use crate::check::{Dst, VarRef};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, Op, Terminator, TexOp, TexOpKind, Ty, ValueId, VarId};
use crate::texture::{
    FilterMode, Geometry, SampledKind, SamplerSource, SamplerState, TextureBinding, record,
};
use crate::types::ScalarType;

mod handles;
mod linear;
mod slots;

pub use slots::KernelTextures;

/// Offsets that are all immediates become `ConstOffset`; otherwise they are values.
enum Offsets {
    None,
    Const(Vec<i32>),
    Values(Vec<ValueId>),
}

fn offsets(cx: &mut Cx<'_>, offset: &Option<Vec<Src>>) -> Offsets {
    let Some(srcs) = offset else {
        return Offsets::None;
    };
    let consts: Option<Vec<i32>> = srcs
        .iter()
        .map(|s| match s {
            Src::Imm(b) => Some(*b as u32 as i32),
            _ => None,
        })
        .collect();
    match consts {
        Some(c) => Offsets::Const(c),
        None => Offsets::Values(srcs.iter().map(|s| cx.read(s, ScalarType::S32)).collect()),
    }
}

/// How coordinates reach the sampler.
struct Coords {
    /// The texture's coordinates are unnormalized and the sampler's are not: divide (Bool).
    unnorm: Option<ValueId>,
    /// Point filtering (Bool), for the unnormalized path.
    point: Option<ValueId>,
    /// Sizes of the spatial dimensions (F32).
    sizes: Vec<ValueId>,
}

/// Decides, at run time where needed, whether the shader must turn unnormalized coordinates
/// into normalized ones (for a binding whose sampler must be normalized).
fn coord_mode(
    cx: &mut Cx<'_>,
    slot: u32,
    geom: Geometry,
    sampler: SamplerSource,
    normalized_sampler: bool,
) -> Coords {
    if !normalized_sampler || geom.is_cube() {
        return Coords {
            unnorm: None,
            point: None,
            sizes: Vec::new(),
        };
    }
    let unnorm = match sampler {
        SamplerSource::Static(SamplerState {
            force_unnormalized: true,
            ..
        }) => cx.b.konst(Ty::Bool, 1),
        _ => {
            let n = cx.record_word(slot, record::NORMALIZED_COORDS);
            let zero = cx.i32(0);
            cx.b.bin(BinOp::IEq, n, zero)
        }
    };
    let point = match sampler {
        SamplerSource::Static(s) => {
            cx.b.konst(Ty::Bool, u64::from(s.filter == FilterMode::Nearest))
        }
        SamplerSource::Texture => {
            let f = cx.record_word(slot, record::FILTER_MODE);
            let zero = cx.i32(0);
            cx.b.bin(BinOp::IEq, f, zero)
        }
    };
    let sizes = (0..geom.dims() as u32)
        .map(|k| {
            let w = cx.record_word(slot, record::WIDTH + k);
            cx.b.conv(ConvOp::UToF, w, Ty::F32)
        })
        .collect();
    Coords {
        unnorm: Some(unnorm),
        point: Some(point),
        sizes,
    }
}

/// Float coordinates for sampling or gathering: offsets given as values are added here (in
/// texels), and unnormalized coordinates are divided by the size when the sampler needs
/// normalized ones. Point sampling goes through the texel's centre so that the division's
/// rounding cannot move the result to a neighbour.
fn float_coords(
    cx: &mut Cx<'_>,
    raw: Vec<ValueId>,
    mode: &Coords,
    offs: &Offsets,
    centre_point: bool,
) -> Vec<ValueId> {
    let mut out = Vec::new();
    for (k, u) in raw.into_iter().enumerate() {
        let off = match offs {
            Offsets::Values(v) => v.get(k).map(|o| cx.b.conv(ConvOp::SToF, *o, Ty::F32)),
            _ => None,
        };
        let (Some(unnorm), Some(point)) = (mode.unnorm, mode.point) else {
            // The sampler takes the coordinates as they are (cubemaps take no offsets).
            out.push(u);
            continue;
        };
        let size = mode.sizes[k];
        // Unnormalized texture: (u + o) / size, through the texel centre for point sampling.
        let ut = match off {
            Some(o) => cx.b.bin(BinOp::FAdd, u, o),
            None => u,
        };
        let ut = if centre_point {
            let fl = cx.b.ext(ExtOp::Floor, &[ut], Default::default());
            let half = cx.f32(0.5);
            let c = cx.b.bin(BinOp::FAdd, fl, half);
            cx.b.select(point, c, ut)
        } else {
            ut
        };
        let un = cx.b.bin(BinOp::FDiv, ut, size);
        // Normalized texture: u + o / size.
        let nn = match off {
            Some(o) => {
                let d = cx.b.bin(BinOp::FDiv, o, size);
                cx.b.bin(BinOp::FAdd, u, d)
            }
            None => u,
        };
        out.push(cx.b.select(unnorm, un, nn));
    }
    out
}

/// The binding's sampled kind for a destination type.
fn kind_of(dtype: ScalarType) -> SampledKind {
    match dtype {
        ScalarType::S32 => SampledKind::Sint,
        ScalarType::U32 => SampledKind::Uint,
        _ => SampledKind::Float,
    }
}

/// Four result variables of the binding's kind.
fn result_vars(cx: &mut Cx<'_>, kind: SampledKind) -> Vec<VarId> {
    let ty = if kind == SampledKind::Float {
        Ty::F32
    } else {
        Ty::I32
    };
    (0..4)
        .map(|k| cx.b.f.new_var(ty, format!("tex.{k}")))
        .collect()
}

/// Writes the four results to the destinations as `dtype` (`.f16` converted, `.f16x2` packed
/// as (r, g) and (b, a)), and `true` to the residency predicate.
fn write_results(
    cx: &mut Cx<'_>,
    results: &[VarId],
    dtype: ScalarType,
    dst: &[Dst],
    pred: &Option<Dst>,
) {
    let vals: Vec<ValueId> = results
        .iter()
        .map(|v| {
            let ty = cx.b.f.vars[v.0 as usize].ty;
            cx.b.emit(ty, Op::LoadVar(*v))
        })
        .collect();
    match dtype {
        ScalarType::F16 => {
            for (d, v) in dst.iter().zip(vals) {
                let h = cx.b.conv(ConvOp::FConvert, v, Ty::F16);
                cx.write(d, h);
            }
        }
        ScalarType::F16x2 => {
            for (k, d) in dst.iter().enumerate() {
                let half = |cx: &mut Cx<'_>, v: ValueId| {
                    let h = cx.b.conv(ConvOp::FConvert, v, Ty::F16);
                    let b = cx.b.conv(ConvOp::Bitcast, h, Ty::I16);
                    cx.b.conv(ConvOp::ZExt, b, Ty::I32)
                };
                let lo = half(cx, vals[2 * k]);
                let hi = half(cx, vals[2 * k + 1]);
                let sh = cx.i32(16);
                let hi = cx.b.bin(BinOp::Shl, hi, sh);
                let both = cx.b.bin(BinOp::Or, lo, hi);
                cx.write(d, both);
            }
        }
        _ => {
            for (d, v) in dst.iter().zip(vals) {
                cx.write(d, v);
            }
        }
    }
    if let Some(p) = pred {
        let t = cx.b.konst(Ty::Bool, 1);
        cx.write(p, t);
    }
}

/// `tex` (ISA 8.7.7.3).
pub fn tex(cx: &mut Cx<'_>, t: &Tex) {
    let Some(slot) = cx.texture_slot(&t.texture) else {
        return;
    };
    let Some(sampler) = cx.sampler_source(&t.sampler) else {
        return;
    };
    // Depth comparisons give floats whatever the destination type.
    let kind = if t.compare.is_some() {
        SampledKind::Float
    } else {
        kind_of(t.dtype)
    };
    let fetch = t.ctype == ScalarType::S32;
    if fetch && t.compare.is_some() {
        cx.unsupported("depth compare with integer coordinates");
        return;
    }
    let results = result_vars(cx, kind);
    if fetch {
        tex_fetch(cx, t, slot, sampler, kind, &results);
    } else {
        tex_sample(cx, t, slot, sampler, kind, &results);
    }
    write_results(cx, &results, t.dtype, &t.dst, &t.pred);
}

fn tex_sample(
    cx: &mut Cx<'_>,
    t: &Tex,
    slot: u32,
    sampler: SamplerSource,
    kind: SampledKind,
    results: &[VarId],
) {
    let offs = offsets(cx, &t.offset);
    let plain = matches!(t.geom, Geometry::D1 | Geometry::D2)
        && matches!(t.lod, TexLod::Base)
        && matches!(offs, Offsets::None)
        && t.compare.is_none();
    let binding = TextureBinding {
        slot,
        geometry: t.geom,
        kind,
        compare: t.compare.is_some(),
        normalized_sampler: !plain,
        base_level: matches!(t.lod, TexLod::Base),
        sampler,
    };
    let b = cx.texture_binding(binding);
    let mode = coord_mode(cx, slot, t.geom, sampler, !plain);
    let raw: Vec<ValueId> = t
        .coords
        .iter()
        .map(|c| cx.read(c, ScalarType::F32))
        .collect();
    let mut coords = float_coords(cx, raw, &mode, &offs, true);
    if let Some(l) = &t.layer {
        let l = cx.read(l, ScalarType::U32);
        coords.push(cx.b.conv(ConvOp::UToF, l, Ty::F32));
    }
    let kind = match &t.lod {
        TexLod::Base => TexOpKind::SampleLod(cx.f32(0.0)),
        TexLod::Level(l) => TexOpKind::SampleLod(cx.read(l, ScalarType::F32)),
        TexLod::Grad(dx, dy) => {
            let scale = |cx: &mut Cx<'_>, v: &[Src]| -> Vec<ValueId> {
                v.iter()
                    .enumerate()
                    .map(|(k, s)| {
                        let g = cx.read(s, ScalarType::F32);
                        match (mode.unnorm, mode.sizes.get(k)) {
                            (Some(u), Some(size)) => {
                                let n = cx.b.bin(BinOp::FDiv, g, *size);
                                cx.b.select(u, n, g)
                            }
                            _ => g,
                        }
                    })
                    .collect()
            };
            let gx = scale(cx, dx);
            let gy = scale(cx, dy);
            TexOpKind::SampleGrad(gx, gy)
        }
    };
    let dref = t.compare.as_ref().map(|c| cx.read(c, ScalarType::F32));
    let tex = cx.b.f.side.add_tex(TexOp {
        binding: b,
        kind,
        coords,
        dref,
        offset: match offs {
            Offsets::Const(c) => Some(c),
            _ => None,
        },
        results: results.to_vec(),
    });
    cx.b.emit_void(Op::Texture(tex));
}

/// Integer coordinates: one texel, or zeros outside the texture (or past its levels).
fn tex_fetch(
    cx: &mut Cx<'_>,
    t: &Tex,
    slot: u32,
    sampler: SamplerSource,
    kind: SampledKind,
    results: &[VarId],
) {
    let level_given = matches!(t.lod, TexLod::Level(_));
    let binding = TextureBinding {
        slot,
        geometry: t.geom,
        kind,
        compare: false,
        normalized_sampler: false,
        base_level: !level_given,
        sampler,
    };
    let b = cx.texture_binding(binding);
    let level = match &t.lod {
        TexLod::Level(l) => cx.read(l, ScalarType::S32),
        _ => cx.i32(0),
    };
    let mut coords: Vec<ValueId> = t
        .coords
        .iter()
        .map(|c| cx.read(c, ScalarType::S32))
        .collect();
    match offsets(cx, &t.offset) {
        Offsets::None => {}
        Offsets::Const(c) => {
            for (k, o) in c.into_iter().enumerate() {
                let o = cx.i32(o);
                coords[k] = cx.b.bin(BinOp::IAdd, coords[k], o);
            }
        }
        Offsets::Values(v) => {
            for (k, o) in v.into_iter().enumerate() {
                coords[k] = cx.b.bin(BinOp::IAdd, coords[k], o);
            }
        }
    }
    // In bounds: level < levels, each coordinate < max(1, size >> level) (unsigned, so that
    // negative ones are out), layer < layers.
    let levels = cx.record_word(slot, record::LEVELS);
    let mut ok = cx.b.bin(BinOp::ULt, level, levels);
    let lvl = {
        let max = cx.i32(31);
        cx.b.ext(ExtOp::UMin, &[level, max], Default::default())
    };
    for (k, c) in coords.iter().enumerate() {
        let size = cx.record_word(slot, record::WIDTH + k as u32);
        let s = cx.b.bin(BinOp::LShr, size, lvl);
        let one = cx.i32(1);
        let s = cx.b.ext(ExtOp::UMax, &[s, one], Default::default());
        let inside = cx.b.bin(BinOp::ULt, *c, s);
        ok = cx.b.bin(BinOp::And, ok, inside);
    }
    if let Some(l) = &t.layer {
        let l = cx.read(l, ScalarType::U32);
        let layers = cx.record_word(slot, record::ARRAY_SIZE);
        let inside = cx.b.bin(BinOp::ULt, l, layers);
        ok = cx.b.bin(BinOp::And, ok, inside);
        coords.push(l);
    }
    let ty = cx.b.f.vars[results[0].0 as usize].ty;
    for r in results {
        let z = cx.b.konst(ty, 0);
        cx.b.emit_void(Op::StoreVar(*r, z));
    }
    let then = cx.b.f.new_block();
    let join = cx.b.f.new_block();
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
        cond: ok,
        then,
        else_: join,
    };
    cx.b.cur = then;
    // `tex1Dfetch` of a texture over linear memory compiles to this very form; which kind of
    // texture a launch passes is known from its record only.
    if t.geom == Geometry::D1 && t.layer.is_none() && matches!(t.lod, TexLod::Base) {
        let lo = cx.record_word(slot, record::LINEAR_ADDRESS);
        let hi = cx.record_word(slot, record::LINEAR_ADDRESS + 1);
        let any = cx.b.bin(BinOp::Or, lo, hi);
        let zero = cx.i32(0);
        let linear = cx.b.bin(BinOp::INe, any, zero);
        let memory = cx.b.f.new_block();
        let image = cx.b.f.new_block();
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: linear,
            then: memory,
            else_: image,
        };
        cx.b.cur = memory;
        linear::fetch(cx, slot, coords[0], (lo, hi), kind, results);
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(join);
        cx.b.cur = image;
    }
    let tex = cx.b.f.side.add_tex(TexOp {
        binding: b,
        kind: TexOpKind::Fetch(level),
        coords,
        dref: None,
        offset: None,
        results: results.to_vec(),
    });
    cx.b.emit_void(Op::Texture(tex));
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(join);
    cx.b.cur = join;
}

/// `tld4` (ISA 8.7.7.4): the bilinear footprint's four texels, lower left first and counter-
/// clockwise, which is the order of Vulkan's gathers.
pub fn tld4(cx: &mut Cx<'_>, t: &Tld4) {
    let Some(slot) = cx.texture_slot(&t.texture) else {
        return;
    };
    let Some(sampler) = cx.sampler_source(&t.sampler) else {
        return;
    };
    let kind = if t.compare.is_some() {
        SampledKind::Float
    } else {
        kind_of(t.dtype)
    };
    let results = result_vars(cx, kind);
    let binding = TextureBinding {
        slot,
        geometry: t.geom,
        kind,
        compare: t.compare.is_some(),
        normalized_sampler: true,
        base_level: true,
        sampler,
    };
    let b = cx.texture_binding(binding);
    let offs = offsets(cx, &t.offset);
    let mode = coord_mode(cx, slot, t.geom, sampler, true);
    let raw: Vec<ValueId> = t
        .coords
        .iter()
        .map(|c| cx.read(c, ScalarType::F32))
        .collect();
    let mut coords = float_coords(cx, raw, &mode, &offs, false);
    if let Some(l) = &t.layer {
        let l = cx.read(l, ScalarType::U32);
        coords.push(cx.b.conv(ConvOp::UToF, l, Ty::F32));
    }
    let dref = t.compare.as_ref().map(|c| cx.read(c, ScalarType::F32));
    let tex = cx.b.f.side.add_tex(TexOp {
        binding: b,
        kind: TexOpKind::Gather(t.comp),
        coords,
        dref,
        offset: match offs {
            Offsets::Const(c) => Some(c),
            _ => None,
        },
        results: results.clone(),
    });
    cx.b.emit_void(Op::Texture(tex));
    write_results(cx, &results, t.dtype, &t.dst, &t.pred);
}

/// `txq` (ISA 8.7.7.5): texture attributes from the slot's record; sampler attributes of a
/// `.samplerref` from its initializer.
pub fn txq(cx: &mut Cx<'_>, q: &Txq) {
    let v = match &q.operand {
        TexOperand::Var(VarRef::Global(g))
            if cx.module.global(*g).opaque == Some(crate::texture::Opaque::SamplerRef) =>
        {
            let s = cx.module.global(*g).sampler_init.unwrap_or_default();
            let bits = match q.query {
                TxqQuery::FilterMode => s.filter as u64,
                TxqQuery::AddrMode(k) => s.address[k as usize] as u64,
                TxqQuery::ForceUnnormalizedCoords => u64::from(s.force_unnormalized),
                _ => 0,
            };
            cx.b.konst(Ty::I32, bits)
        }
        TexOperand::Var(VarRef::Local(l))
            if cx.func.var(*l).opaque == Some(crate::texture::Opaque::SamplerRef) =>
        {
            cx.unsupported("samplers passed as kernel parameters (`.param .samplerref`)");
            return;
        }
        t => {
            let Some(slot) = cx.texture_slot(t) else {
                return;
            };
            let word = match q.query {
                TxqQuery::Width => record::WIDTH,
                TxqQuery::Height => record::HEIGHT,
                TxqQuery::Depth => record::DEPTH,
                TxqQuery::ChannelDataType => record::CHANNEL_DATA_TYPE,
                TxqQuery::ChannelOrder => record::CHANNEL_ORDER,
                TxqQuery::NormalizedCoords => record::NORMALIZED_COORDS,
                TxqQuery::ArraySize => record::ARRAY_SIZE,
                TxqQuery::NumMipmapLevels => record::NUM_MIPMAP_LEVELS,
                TxqQuery::NumSamples => record::NUM_SAMPLES,
                TxqQuery::FilterMode => record::FILTER_MODE,
                TxqQuery::AddrMode(k) => record::ADDR_MODE_0 + k,
                // The checker allows it on `.samplerref`s only.
                TxqQuery::ForceUnnormalizedCoords => record::NORMALIZED_COORDS,
            };
            let v = cx.record_word(slot, word);
            match &q.level {
                // A level's size: max(1, size >> level), and 0 stays 0 (unused dimensions).
                Some(l) => {
                    let l = cx.read(l, ScalarType::B32);
                    let max = cx.i32(31);
                    let l = cx.b.ext(ExtOp::UMin, &[l, max], Default::default());
                    let s = cx.b.bin(BinOp::LShr, v, l);
                    let one = cx.i32(1);
                    let nonzero = cx.b.ext(ExtOp::UMin, &[v, one], Default::default());
                    cx.b.ext(ExtOp::UMax, &[s, nonzero], Default::default())
                }
                None => v,
            }
        }
    };
    cx.write(&q.dst, v);
}
