//! Inputs and expected outputs of the texture cases, from the reference model.

use ptxvk_runtime::{AddressMode, ChannelKind, FilterMode, ReadMode, TextureDesc, TextureShape};

use super::model::{self, Model};
use super::{Inst, Mip, Offset, Spec, THREADS};
use crate::values::Rng;

/// Random texel values of `desc`'s format, as bytes and as the model reads them.
pub(super) fn texels(desc: &TextureDesc, rng: &mut Rng) -> (Vec<Vec<u8>>, Vec<Vec<[f64; 4]>>) {
    let f = desc.format;
    let mut bytes = Vec::new();
    let mut read = Vec::new();
    for level in 0..desc.mip_levels {
        let [w, h, d] = desc.shape.level_extent(level);
        let n = (w * h * d * desc.shape.layers()) as usize;
        let mut b = Vec::with_capacity(n * f.texel_bytes() as usize);
        let mut r = Vec::with_capacity(n);
        for _ in 0..n {
            let mut t = [0.0, 0.0, 0.0, 1.0];
            for channel in t.iter_mut().take(f.channels as usize) {
                let raw = rng.next_u64();
                let v = match (f.kind, f.bits) {
                    (ChannelKind::Float, 32) => {
                        // Values on a coarse grid: sums of filter weights stay exact-ish.
                        let x = (raw % 2001) as f32 / 8.0 - 125.0;
                        b.extend_from_slice(&x.to_le_bytes());
                        f64::from(x)
                    }
                    (ChannelKind::Float, _) => {
                        let x = half::f16::from_f32((raw % 2001) as f32 / 16.0 - 62.5);
                        b.extend_from_slice(&x.to_le_bytes());
                        f64::from(x)
                    }
                    (kind, bits) => {
                        let v = raw & ((1u64 << bits) - 1);
                        b.extend_from_slice(&v.to_le_bytes()[..(bits / 8) as usize]);
                        let signed = kind == ChannelKind::Signed;
                        let sv = if signed {
                            ((v << (64 - bits)) as i64 >> (64 - bits)) as f64
                        } else {
                            v as f64
                        };
                        if desc.read_mode == ReadMode::NormalizedFloat {
                            let max = if signed {
                                ((1u64 << (bits - 1)) - 1) as f64
                            } else {
                                ((1u64 << bits) - 1) as f64
                            };
                            (sv / max).max(-1.0)
                        } else {
                            sv
                        }
                    }
                };
                *channel = v;
            }
            if desc.depth_compare.is_some() {
                // A depth texture reads (d, 0, 0, 1) with d in [0, 1].
                let x = (rng.next_u64() % 1001) as f32 / 1000.0;
                b.truncate(b.len() - 4);
                b.extend_from_slice(&x.to_le_bytes());
                t = [f64::from(x), 0.0, 0.0, 1.0];
            }
            r.push(t);
        }
        bytes.push(b);
        read.push(r);
    }
    (bytes, read)
}

/// A coordinate in texel units, inside texel `i` and away from its edges.
pub(super) fn texel_coord(rng: &mut Rng, lo: i64, hi: i64) -> f64 {
    let i = lo + rng.below((hi - lo) as u64) as i64;
    let f = 0.05 + (rng.below(900) as f64) / 1000.0;
    i as f64 + f
}

pub(super) fn f32_word(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// One expected output word.
#[derive(Clone, Copy, Debug)]
pub(super) enum Want {
    /// These bits.
    Bits(u32),
    /// An f32 within `tol`.
    F32(f64, f64),
    /// Two f16 (low, high) within `tol`.
    F16x2([f64; 2], f64),
}

pub(super) fn check(want: &Want, got: u32) -> bool {
    match *want {
        Want::Bits(b) => b == got,
        Want::F32(v, tol) => {
            let g = f64::from(f32::from_bits(got));
            g == f64::from(v as f32) || (g - v).abs() <= tol
        }
        Want::F16x2(v, tol) => (0..2).all(|k| {
            let g = f64::from(half::f16::from_bits((got >> (16 * k)) as u16));
            let w = f64::from(half::f16::from_f64(v[k]));
            let ulp = (w.abs().max(6.1e-5)).log2().floor().exp2() / 1024.0;
            g == w || (g - v[k]).abs() <= tol + ulp
        }),
    }
}

/// The four results as output words for `dtype`, with the error bound of float results.
pub(super) fn outputs(dtype: &str, v: [f64; 4], tol: f64) -> Vec<Want> {
    // Normalized integer reads may be converted with an error of about one float ulp.
    let tol = tol + 1e-6 * v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    match dtype {
        "s32" | "u32" => v.iter().map(|x| Want::Bits(*x as i64 as u32)).collect(),
        "f16" => vec![
            Want::F16x2([v[0], v[1]], tol),
            Want::F16x2([v[2], v[3]], tol),
            Want::Bits(0),
            Want::Bits(0),
        ],
        "f16x2" => vec![
            Want::F16x2([v[0], v[1]], tol),
            Want::F16x2([v[2], v[3]], tol),
            Want::Bits(0),
            Want::Bits(0),
        ],
        _ => v.iter().map(|x| Want::F32(*x, tol)).collect(),
    }
}

/// How far a linearly filtered read of an integer format as normalized floats may be from
/// the exact blend: one unit of the format. Filtering may run at the format's own precision
/// (llvmpipe blends 8-bit channels in 8-bit fixed point and rounds the result to a multiple of
/// 1/255); NVIDIA's texture unit blends with 9-bit weights, inside the same bound.
pub(super) fn filter_quantum(desc: &TextureDesc, filter: FilterMode) -> f64 {
    let f = desc.format;
    if filter != FilterMode::Linear
        || f.kind == ChannelKind::Float
        || desc.read_mode != ReadMode::NormalizedFloat
    {
        return 0.0;
    }
    let magnitude_bits = if f.kind == ChannelKind::Signed {
        f.bits - 1
    } else {
        f.bits
    };
    1.0 / ((1u64 << magnitude_bits) - 1) as f64
}

/// Inputs (16 words per thread) and expected outputs (5 per thread) of a case.
pub(super) fn inputs_and_expectations(
    spec: &Spec,
    m: &Model,
    rng: &mut Rng,
) -> (Vec<u32>, Vec<Vec<Want>>) {
    let shape = spec.desc.shape;
    let ext = shape.extent().map(i64::from);
    let layers = match shape {
        TextureShape::Layered1D { layers, .. } | TextureShape::Layered2D { layers, .. } => {
            i64::from(layers)
        }
        TextureShape::CubeLayered { cubes, .. } => i64::from(cubes),
        _ => 1,
    };
    let normalized = m.normalized;
    let mut input = Vec::new();
    let mut want = Vec::new();
    for _ in 0..THREADS {
        let mut w = [0u32; 16];
        let (geom, ctype, mip, offset, compare, pred, tld4) = match &spec.inst {
            Inst::Tex {
                geom,
                ctype,
                mip,
                offset,
                compare,
                pred,
                ..
            } => (*geom, *ctype, *mip, *offset, *compare, *pred, None),
            Inst::Tld4 {
                geom,
                comp,
                offset,
                compare,
                ..
            } => (
                *geom,
                "f32",
                Mip::None,
                *offset,
                *compare,
                false,
                Some(*comp),
            ),
        };
        let cube = geom.contains("cube");
        let array = geom.starts_with('a');
        let n = match geom {
            "1d" | "a1d" => 1,
            "2d" | "a2d" => 2,
            _ => 3,
        };
        let layer = if array {
            rng.below(layers as u64) as i64
        } else {
            0
        };
        // Offsets: immediates (1, -2, 3) or registers in [-8, 7].
        let offs: [i64; 3] = match offset {
            Offset::None => [0; 3],
            Offset::Const => [1, -2, 3],
            Offset::Regs => [0, 1, 2].map(|_| rng.below(16) as i64 - 8),
        };
        for (k, o) in offs.iter().enumerate() {
            w[11 + k] = *o as i32 as u32;
        }
        let reference = f64::from((rng.below(1001) as f32) / 1000.0);
        w[14] = f32_word(reference);
        // Depth compare: every texel compared with the reference (passes when
        // `reference <= texel`, the texture's LessOrEqual), then filtered as usual.
        let compared;
        let m = if compare {
            compared = Model {
                levels: m
                    .levels
                    .iter()
                    .map(|l| {
                        l.iter()
                            .map(|t| [if reference <= t[0] { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0])
                            .collect()
                    })
                    .collect(),
                ..m.clone()
            };
            &compared
        } else {
            m
        };
        let mut first = 0;
        if array {
            w[0] = layer as u32;
            first = 1;
        }
        let (val, tol): ([f64; 4], f64);
        if ctype == "s32" {
            // Texel coordinates, some outside; a level for .level.
            let level = if mip == Mip::Level {
                rng.below(spec.desc.mip_levels as u64 + 1) as i64
            } else {
                0
            };
            w[4] = level as u32;
            let mut ijk = [0i64; 3];
            for d in 0..n {
                let c = rng.below((ext[d] + 4) as u64) as i64 - 2;
                w[first + d] = c as i32 as u32;
                ijk[d] = c + offs[d];
            }
            let lyr = if array { layer } else { 0 };
            val = m.fetch(ijk, lyr, if array { layers } else { 1 }, level);
            tol = 0.0;
        } else if cube {
            // A direction whose major axis is clear, and for linear filtering away from the
            // face's edges (where Vulkan filters across faces).
            let dir = loop {
                let d = [0, 1, 2].map(|_| (rng.below(2001) as f64 - 1000.0) / 1000.0);
                let mut a = d.map(f64::abs);
                a.sort_by(f64::total_cmp);
                let (_, s, t) = model::cube_face(d[0], d[1], d[2]);
                let size = ext[0] as f64;
                let footprint = m.filter == FilterMode::Linear || tld4.is_some();
                let margin = if footprint { 1.0 / size } else { 0.01 / size };
                // Point samples away from texel edges; gathers away from texel centres.
                let shift = if tld4.is_some() { 0.5 } else { 0.0 };
                let frac = |x: f64| (x * size - shift).rem_euclid(1.0);
                let clear = |x: f64| frac(x) > 0.02 && frac(x) < 0.98;
                let inner = s > margin && s < 1.0 - margin && t > margin && t < 1.0 - margin;
                let off_edge =
                    (m.filter == FilterMode::Linear && tld4.is_none()) || (clear(s) && clear(t));
                if a[2] > 0.05 && a[2] - a[1] > 0.01 && inner && off_edge {
                    break d;
                }
            };
            for d in 0..3 {
                w[first + d] = f32_word(dir[d]);
            }
            let cube_index = if array { layer as u32 } else { 0 };
            if let Some(c) = tld4 {
                let (face, s, t) = model::cube_face(dir[0], dir[1], dir[2]);
                let flat = Model {
                    shape: TextureShape::Layered2D {
                        width: ext[0] as u32,
                        height: ext[1] as u32,
                        layers: shape.layers(),
                    },
                    levels: m.levels.clone(),
                    filter: m.filter,
                    mip_filter: m.mip_filter,
                    address: [AddressMode::ClampToEdge; 3],
                    normalized: true,
                };
                val = flat.gather(&[s, t], 6 * cube_index + face, c);
                tol = 0.0;
            } else {
                (val, tol) = m.sample_cube(dir, cube_index);
            }
        } else {
            // Float coordinates: inside a texel (or a wrapped/mirrored copy), away from its
            // edges; for clamp and border modes some outside the texture.
            let mut coords = [0f64; 3];
            let mut lod = 0.0;
            if mip == Mip::Level {
                lod = [0.0, 0.25, 0.75, 1.0, 1.25, 2.0, 3.0, -1.0][rng.below(8) as usize];
                w[4] = f32_word(lod);
            }
            let mut grad_level = 0usize;
            if mip == Mip::Grad {
                // Gradients along the axes, a power of two texels: the level is exact.
                grad_level = rng.below(u64::from(spec.desc.mip_levels)) as usize;
            }
            let level_for_coords = if mip == Mip::Level {
                (lod.clamp(0.0, spec.desc.mip_levels as f64 - 1.0)).round() as usize
            } else {
                grad_level
            };
            let lext = m.level_extent(level_for_coords);
            for d in 0..n {
                let (lo, hi) = (-2, lext[d] + 2);
                let t = if tld4.is_some() {
                    // Away from texel centres, where the footprint moves.
                    texel_coord(rng, lo, hi) + 0.5
                } else if m.filter == FilterMode::Linear {
                    // Anywhere: filtering is continuous.
                    lo as f64 + rng.below(((hi - lo) * 1000) as u64) as f64 / 1000.0
                } else {
                    texel_coord(rng, lo, hi)
                };
                let c = if normalized { t / lext[d] as f64 } else { t };
                // What the kernel is given (as f32) is what the model sees.
                let c = f64::from(c as f32);
                w[first + d] = f32_word(c);
                coords[d] = c;
            }
            if mip == Mip::Grad {
                // dPdx along x, dPdy along y (along x too in 1D), each 2^level texels of
                // level 0 long: every formula Vulkan allows for the level gives `level`.
                let g = |d: usize| {
                    let texels = (1u64 << grad_level) as f64;
                    f64::from((texels / if normalized { ext[d] as f64 } else { 1.0 }) as f32)
                };
                w[5] = f32_word(g(0));
                w[8] = f32_word(if n == 1 { g(0) } else { 0.0 });
                if n >= 2 {
                    w[9] = f32_word(g(1));
                }
                lod = grad_level as f64;
            }
            // Offsets move the coordinates by whole texels of the level sampled.
            let level_ext = m.level_extent(if mip == Mip::None || mip == Mip::Base {
                0
            } else {
                ((lod + 0.5).ceil() - 1.0).clamp(0.0, spec.desc.mip_levels as f64 - 1.0) as usize
            });
            let mut moved = coords;
            for d in 0..n {
                let o = offs[d] as f64;
                moved[d] += if normalized {
                    o / level_ext[d] as f64
                } else {
                    o
                };
            }
            if let Some(c) = tld4 {
                val = m.gather(&moved[..2], layer as u32, c);
                tol = 0.0;
            } else {
                (val, tol) = m.sample(&moved[..n], layer as u32, lod);
            }
        }
        // A depth-compare sample is one value, read as (v, 0, 0, 1).
        let val = if compare && tld4.is_none() {
            [val[0], 0.0, 0.0, 1.0]
        } else {
            val
        };
        let dtype = match &spec.inst {
            Inst::Tex { dtype, .. } | Inst::Tld4 { dtype, .. } => *dtype,
        };
        let mut out = outputs(dtype, val, tol + filter_quantum(&spec.desc, m.filter));
        out.push(Want::Bits(u32::from(pred)));
        if !pred {
            out[4] = Want::Bits(0);
        }
        input.extend_from_slice(&w);
        want.push(out);
    }
    (input, want)
}
