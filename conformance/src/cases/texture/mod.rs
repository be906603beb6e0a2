//! ISA 8.7.7, texture instructions: `tex` over every geometry, result type, coordinate type
//! and mip mode, with offsets, depth compare and the residency predicate; `tld4` for every
//! component and geometry; `txq` for every attribute; sampler state (filters, address modes,
//! normalized coordinates) in unified and independent mode. Expectations come from the
//! reference model in `model.rs`; point sampling and fetches are exact, linear filtering is
//! within the precision of fixed-point filter weights.
//!
//! Textures are created through ptxvk's runtime (the launch-as-data path has no textures), so
//! these cases run on ptxvk only and report "unsupported" on another backend.

mod model;

use std::sync::Arc;

use ptxvk_runtime::{
    AddressMode, ChannelFormat, ChannelKind, CompareOp, Context, DeviceBuffer, FilterMode,
    KernelArg, LaunchConfig, ReadMode, Texture, TextureDesc, TextureShape,
};

use crate::values::Rng;
use crate::{Case, Outcome, outcome_of};
use model::Model;

const TEX: &str = "8.7.7.3 tex";
const TLD4: &str = "8.7.7.4 tld4";
const TXQ: &str = "8.7.7.5 txq";

/// Threads (samples) per case.
const THREADS: u32 = 64;

/// How the instruction picks its level.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mip {
    None,
    Base,
    Level,
    Grad,
}

/// Offset operand `e`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Offset {
    None,
    /// Immediates (`ConstOffset`).
    Const,
    /// Registers.
    Regs,
}

/// What a case's instruction is.
#[derive(Clone, Debug)]
enum Inst {
    Tex {
        geom: &'static str,
        dtype: &'static str,
        ctype: &'static str,
        mip: Mip,
        offset: Offset,
        compare: bool,
        pred: bool,
    },
    Tld4 {
        comp: usize,
        geom: &'static str,
        dtype: &'static str,
        offset: Offset,
        compare: bool,
    },
}

/// Where the kernel gets its texture.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    /// A `.u64` texture-object parameter.
    Object,
    /// A module `.texref` bound with `bind_texref`.
    TexRef,
    /// Independent mode: a `.param .texref` and a `.samplerref` with this state.
    Independent(FilterMode, AddressMode, bool),
}

#[derive(Clone, Debug)]
struct Spec {
    name: String,
    family: &'static str,
    inst: Inst,
    desc: TextureDesc,
    source: Source,
    seed: u64,
}

fn geom_shape(geom: &str, size: u32) -> TextureShape {
    match geom {
        "1d" => TextureShape::D1 { width: size },
        "2d" => TextureShape::D2 {
            width: size,
            height: size - 1,
        },
        "3d" => TextureShape::D3 {
            width: size,
            height: size - 1,
            depth: size - 2,
        },
        "a1d" => TextureShape::Layered1D {
            width: size,
            layers: 3,
        },
        "a2d" => TextureShape::Layered2D {
            width: size,
            height: size - 1,
            layers: 3,
        },
        "cube" => TextureShape::Cube { size },
        _ => TextureShape::CubeLayered { size, cubes: 2 },
    }
}

fn format_of(dtype: &str) -> ChannelFormat {
    match dtype {
        "s32" => ChannelFormat::new(ChannelKind::Signed, 16, 4),
        "u32" => ChannelFormat::new(ChannelKind::Unsigned, 8, 4),
        _ => ChannelFormat::new(ChannelKind::Float, 32, 4),
    }
}

/// The PTX of a case: thread `t` reads 16 words of operands at `in + 64t` (coordinates as
/// written in the instruction, level, gradients, offsets, depth reference) and writes the four
/// results and the predicate at `out + 20t`.
fn ptx(spec: &Spec) -> String {
    let (target, decls, params, handle) = match spec.source {
        Source::Object => (
            "sm_70",
            String::new(),
            ".param .u64 tex, ",
            "%rd1".to_string(),
        ),
        Source::TexRef => (
            "sm_70",
            ".global .texref tref;\n".to_string(),
            "",
            "tref".to_string(),
        ),
        Source::Independent(filter, addr, force) => {
            let f = if filter == FilterMode::Linear {
                "linear"
            } else {
                "nearest"
            };
            let a = match addr {
                AddressMode::Wrap => "wrap",
                AddressMode::Mirror => "mirror",
                AddressMode::ClampToBorder => "clamp_to_border",
                _ => "clamp_to_edge",
            };
            (
                "sm_70, texmode_independent",
                format!(
                    ".global .samplerref samp = {{ filter_mode = {f}, addr_mode_0 = {a}, addr_mode_1 = {a}, addr_mode_2 = {a}, force_unnormalized_coords = {} }};\n",
                    u8::from(force)
                ),
                ".param .texref tex, ",
                "tex, samp".to_string(),
            )
        }
    };
    let load_handle = if spec.source == Source::Object {
        "\tld.param.u64 %rd1, [tex];\n"
    } else {
        ""
    };
    let (inst, half) = instruction(&spec.inst, &handle);
    let store = match &spec.inst {
        _ if half => {
            "\tmov.b32 %r20, {%h1, %h2};\n\tmov.b32 %r21, {%h3, %h4};\n\tmov.b32 %r22, 0;\n\tmov.b32 %r23, 0;\n"
        }
        Inst::Tex { dtype: "f16x2", .. } => "\tmov.b32 %r22, 0;\n\tmov.b32 %r23, 0;\n",
        _ => "",
    };
    format!(
        ".version 8.0\n.target {target}\n.address_size 64\n{decls}\
         .visible .entry k({params}.param .u64 in, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<32>;\n\t.reg .b16 %h<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<2>;\n\
         {load_handle}\
         \tld.param.u64 %rd2, [in];\n\tld.param.u64 %rd3, [out];\n\
         \tmov.u32 %r0, %tid.x;\n\
         \tmul.wide.u32 %rd4, %r0, 64;\n\tadd.s64 %rd2, %rd2, %rd4;\n\
         \tmul.wide.u32 %rd5, %r0, 20;\n\tadd.s64 %rd3, %rd3, %rd5;\n\
         \tld.global.v4.b32 {{%r1, %r2, %r3, %r4}}, [%rd2];\n\
         \tld.global.v4.b32 {{%r5, %r6, %r7, %r8}}, [%rd2+16];\n\
         \tld.global.v4.b32 {{%r9, %r10, %r11, %r12}}, [%rd2+32];\n\
         \tld.global.v4.b32 {{%r13, %r14, %r15, %r16}}, [%rd2+48];\n\
         \tsetp.ne.u32 %p1, %r0, %r0;\n\
         \t{inst}\n{store}\
         \tst.global.v4.b32 [%rd3], {{%r20, %r21, %r22, %r23}};\n\
         \tselp.u32 %r24, 1, 0, %p1;\n\tst.global.b32 [%rd3+16], %r24;\n\tret;\n}}\n"
    )
}

/// The instruction's text, and whether its results are 16-bit registers.
fn instruction(inst: &Inst, handle: &str) -> (String, bool) {
    let coords = |geom: &str| match geom {
        "1d" => "{%r1}",
        "2d" | "a1d" => "{%r1, %r2}",
        "a2d" => "{%r1, %r2, %r3}",
        _ => "{%r1, %r2, %r3, %r4}",
    };
    let spatial = |geom: &str| match geom {
        "1d" | "a1d" => 1,
        "2d" | "a2d" => 2,
        _ => 3,
    };
    let vec = |regs: &[&str], n: usize| {
        let mut v: Vec<&str> = regs[..n].to_vec();
        if n == 3 {
            v.push(regs[2]);
        }
        format!("{{{}}}", v.join(", "))
    };
    let offset = |o: Offset, n: usize| match o {
        Offset::None => String::new(),
        Offset::Const => format!(", {}", vec(&["1", "-2", "3"], n)),
        Offset::Regs => format!(", {}", vec(&["%r12", "%r13", "%r14"], n)),
    };
    match inst {
        Inst::Tex {
            geom,
            dtype,
            ctype,
            mip,
            offset: off,
            compare,
            pred,
        } => {
            let n = spatial(geom);
            let (v, dst, half) = match *dtype {
                "f16" => ("v4", "{%h1, %h2, %h3, %h4}", true),
                "f16x2" => ("v2", "{%r20, %r21}", false),
                _ => ("v4", "{%r20, %r21, %r22, %r23}", false),
            };
            let m = match mip {
                Mip::None => "",
                Mip::Base => ".base",
                Mip::Level => ".level",
                Mip::Grad => ".grad",
            };
            let lod = match mip {
                Mip::Level => ", %r5".to_string(),
                Mip::Grad => format!(
                    ", {}, {}",
                    vec(&["%r6", "%r7", "%r8"], n),
                    vec(&["%r9", "%r10", "%r11"], n)
                ),
                _ => String::new(),
            };
            let p = if *pred { "|%p1" } else { "" };
            let f = if *compare { ", %r15" } else { "" };
            (
                format!(
                    "tex{m}.{geom}.{v}.{dtype}.{ctype} {dst}{p}, [{handle}, {}]{lod}{}{f};",
                    coords(geom),
                    offset(*off, n)
                ),
                half,
            )
        }
        Inst::Tld4 {
            comp,
            geom,
            dtype,
            offset: off,
            compare,
        } => {
            let c = ["r", "g", "b", "a"][*comp];
            let f = if *compare { ", %r15" } else { "" };
            (
                format!(
                    "tld4.{c}.{geom}.v4.{dtype}.f32 {{%r20, %r21, %r22, %r23}}, [{handle}, {}]{}{f};",
                    coords(geom),
                    offset(*off, 2)
                ),
                false,
            )
        }
    }
}

/// Random texel values of `desc`'s format, as bytes and as the model reads them.
fn texels(desc: &TextureDesc, rng: &mut Rng) -> (Vec<Vec<u8>>, Vec<Vec<[f64; 4]>>) {
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
fn texel_coord(rng: &mut Rng, lo: i64, hi: i64) -> f64 {
    let i = lo + rng.below((hi - lo) as u64) as i64;
    let f = 0.05 + (rng.below(900) as f64) / 1000.0;
    i as f64 + f
}

fn f32_word(v: f64) -> u32 {
    (v as f32).to_bits()
}

/// One expected output word.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// These bits.
    Bits(u32),
    /// An f32 within `tol`.
    F32(f64, f64),
    /// Two f16 (low, high) within `tol`.
    F16x2([f64; 2], f64),
}

fn check(want: &Want, got: u32) -> bool {
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
fn outputs(dtype: &str, v: [f64; 4], tol: f64) -> Vec<Want> {
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
fn filter_quantum(desc: &TextureDesc, filter: FilterMode) -> f64 {
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
fn inputs_and_expectations(spec: &Spec, m: &Model, rng: &mut Rng) -> (Vec<u32>, Vec<Vec<Want>>) {
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

fn run(ctx: &Context, spec: &Spec) -> Outcome {
    if let Some(b) = crate::launch::other_backend() {
        return Outcome::Unsupported(format!(
            "texture cases create textures through ptxvk's runtime; not on {b}"
        ));
    }
    let mut rng = Rng::new(spec.seed);
    let (bytes, read) = texels(&spec.desc, &mut rng);
    let (filter, address, normalized) = match spec.source {
        Source::Independent(f, a, force) => (f, [a; 3], spec.desc.normalized_coords && !force),
        _ => (
            spec.desc.filter,
            spec.desc.address,
            spec.desc.normalized_coords,
        ),
    };
    let is_cube = matches!(
        spec.desc.shape,
        TextureShape::Cube { .. } | TextureShape::CubeLayered { .. }
    );
    let m = Model {
        shape: spec.desc.shape,
        levels: read,
        filter: if spec.desc.format.kind != ChannelKind::Float
            && spec.desc.read_mode == ReadMode::ElementType
        {
            FilterMode::Nearest
        } else {
            filter
        },
        mip_filter: spec.desc.mip_filter,
        address,
        normalized: normalized || is_cube,
    };
    let (input, want) = inputs_and_expectations(spec, &m, &mut rng);
    let result = (|| -> Result<Vec<u32>, ptxvk_runtime::Error> {
        let tex = Texture::new(ctx, &spec.desc)?;
        for (l, b) in bytes.iter().enumerate() {
            tex.upload(l as u32, b)?;
        }
        let module = ctx.load_ptx(&format!("{}.ptx", spec.name.replace('/', "_")), &ptx(spec))?;
        let kernel = module.kernel("k")?;
        let din = DeviceBuffer::from_slice(ctx, &input)?;
        let dout = DeviceBuffer::<u32>::zeroed(ctx, 5 * THREADS as usize)?;
        let mut args: Vec<KernelArg> = Vec::new();
        match spec.source {
            Source::TexRef => module.bind_texref("tref", &tex)?,
            _ => args.push((&tex).into()),
        }
        args.push((&din).into());
        args.push((&dout).into());
        kernel.launch(&LaunchConfig::new([1, 1, 1], [THREADS, 1, 1]), &args)?;
        dout.to_vec()
    })();
    let got = match result {
        Ok(g) => g,
        // The device cannot hold or filter this texture.
        Err(ptxvk_runtime::Error::Unsupported { what }) => return Outcome::Unsupported(what),
        Err(e) => return outcome_of(e),
    };
    for (t, w) in want.iter().enumerate() {
        for (k, wk) in w.iter().enumerate() {
            let g = got[5 * t + k];
            if !check(wk, g) {
                let ins = &input[16 * t..16 * t + 16];
                return Outcome::Fail(format!(
                    "thread {t}, output {k}: expected {wk:?}, got 0x{g:08x} ({}); operands {:08x?}",
                    f32::from_bits(g),
                    ins
                ));
            }
        }
    }
    Outcome::Pass
}

fn case(spec: Spec) -> Case {
    let text = ptx(&spec);
    let spec = Arc::new(spec);
    Case {
        name: spec.name.clone(),
        family: spec.family,
        ptx: text,
        run: Box::new(move |ctx| run(ctx, &spec)),
    }
}

fn tex(geom: &'static str, dtype: &'static str, ctype: &'static str) -> Inst {
    Inst::Tex {
        geom,
        dtype,
        ctype,
        mip: Mip::None,
        offset: Offset::None,
        compare: false,
        pred: false,
    }
}

/// txq: every attribute of textures of every shape, against the ISA's definitions.
fn txq_case(geom: &'static str, levels: u32) -> Case {
    let shape = geom_shape(geom, 8);
    let desc = TextureDesc::new(shape, ChannelFormat::new(ChannelKind::Unsigned, 16, 2))
        .read_mode(ReadMode::NormalizedFloat)
        .filter(FilterMode::Linear)
        .address_modes([
            AddressMode::Wrap,
            AddressMode::Mirror,
            AddressMode::ClampToBorder,
        ])
        .normalized(true)
        .mip_levels(levels);
    let queries = [
        "width",
        "height",
        "depth",
        "channel_data_type",
        "channel_order",
        "normalized_coords",
        "array_size",
        "num_mipmap_levels",
        "num_samples",
        "filter_mode",
        "addr_mode_0",
        "addr_mode_1",
        "addr_mode_2",
    ];
    let [w, h, d] = shape.extent();
    // ISA 8.7.7.5 and 5.3: sizes in elements (0 for dimensions the shape does not have),
    // layers of layered textures (cubemaps of cubemap arrays), levels of mipmapped textures,
    // OpenCL's CL_UNORM_INT16 and CL_RG (Tables 11, 12), the filter and address enums.
    let (h, d) = match geom {
        "1d" | "a1d" => (0, 0),
        "3d" => (h, d),
        _ => (h, 0),
    };
    let layers = match shape {
        TextureShape::Layered1D { layers, .. } | TextureShape::Layered2D { layers, .. } => layers,
        TextureShape::CubeLayered { cubes, .. } => cubes,
        _ => 0,
    };
    let expected: Vec<u32> = vec![
        w,
        h,
        d,
        0x10D3,
        0x10B2,
        1,
        layers,
        if levels > 1 { levels } else { 0 },
        0,
        1,
        0,
        1,
        4,
    ];
    // txq.level: each level's size (levels 0..2), max(1, size >> level), 0 for absent ones.
    let lvl = |v: u32, l: u32| if v == 0 { 0 } else { (v >> l).max(1) };
    let mut level_expected = Vec::new();
    for l in 0..3 {
        level_expected.extend([lvl(w, l), lvl(h, l), lvl(d, l)]);
    }
    let mut body = String::new();
    for (k, q) in queries.iter().enumerate() {
        body += &format!(
            "\ttxq.{q}.b32 %r1, [%rd1];\n\tst.global.b32 [%rd2+{}], %r1;\n",
            4 * k
        );
    }
    for l in 0..3 {
        for (k, q) in ["width", "height", "depth"].iter().enumerate() {
            let at = 4 * (queries.len() + 3 * l + k);
            body += &format!(
                "\tmov.u32 %r2, {l};\n\ttxq.level.{q}.b32 %r1, [%rd1], %r2;\n\tst.global.b32 [%rd2+{at}], %r1;\n"
            );
        }
    }
    let ptx = format!(
        ".version 8.0\n.target sm_70\n.address_size 64\n\
         .visible .entry k(.param .u64 tex, .param .u64 out)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [tex];\n\tld.param.u64 %rd2, [out];\n{body}\tret;\n}}\n"
    );
    let name = format!("txq/{geom}/levels{levels}");
    let text = ptx.clone();
    Case {
        name: name.clone(),
        family: TXQ,
        ptx: ptx.clone(),
        run: Box::new(move |ctx| {
            if let Some(b) = crate::launch::other_backend() {
                return Outcome::Unsupported(format!("texture cases run on ptxvk only, not {b}"));
            }
            let all: Vec<u32> = expected.iter().chain(&level_expected).copied().collect();
            let r = (|| -> Result<Vec<u32>, ptxvk_runtime::Error> {
                let tex = Texture::new(ctx, &desc)?;
                let m = ctx.load_ptx("txq.ptx", &text)?;
                let out = DeviceBuffer::<u32>::zeroed(ctx, all.len())?;
                m.kernel("k")?.launch(
                    &LaunchConfig::new([1, 1, 1], [1, 1, 1]),
                    &[(&tex).into(), (&out).into()],
                )?;
                out.to_vec()
            })();
            match r {
                Err(e) => outcome_of(e),
                Ok(got) => {
                    let names: Vec<String> = queries
                        .iter()
                        .map(|q| q.to_string())
                        .chain((0..3).flat_map(|l| {
                            ["width", "height", "depth"].map(|q| format!("level {l} {q}"))
                        }))
                        .collect();
                    for (k, (g, w)) in got.iter().zip(&all).enumerate() {
                        if g != w {
                            return Outcome::Fail(format!("{}: expected {w}, got {g}", names[k]));
                        }
                    }
                    Outcome::Pass
                }
            }
        }),
    }
}

/// The sampler attributes of a `.samplerref` in independent mode (ISA Table 10).
fn txq_sampler_case() -> Case {
    let ptx = ".version 8.0\n.target sm_70, texmode_independent\n.address_size 64\n\
               .global .samplerref s = { filter_mode = linear, addr_mode_0 = mirror, addr_mode_1 = clamp_to_border, force_unnormalized_coords = 1 };\n\
               .global .samplerref s2;\n\
               .visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\
               \tld.param.u64 %rd1, [out];\n\
               \ttxq.filter_mode.b32 %r1, [s];\n\ttxq.addr_mode_0.b32 %r2, [s];\n\
               \ttxq.addr_mode_1.b32 %r3, [s];\n\ttxq.addr_mode_2.b32 %r4, [s];\n\
               \ttxq.force_unnormalized_coords.b32 %r5, [s];\n\
               \ttxq.filter_mode.b32 %r6, [s2];\n\ttxq.force_unnormalized_coords.b32 %r7, [s2];\n\
               \tst.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};\n\
               \tst.global.v4.b32 [%rd1+16], {%r5, %r6, %r7, %r7};\n\tret;\n}\n";
    // linear = 1, mirror = 1, clamp_to_border = 4, unset address mode clamp_to_edge = 3
    // (ptxvk's default), forced unnormalized 1; an uninitialized sampler: nearest, not forced.
    let want = [1u32, 1, 4, 3, 1, 0, 0, 0];
    Case {
        name: "txq/samplerref".into(),
        family: TXQ,
        ptx: ptx.into(),
        run: Box::new(move |ctx| {
            let r = (|| -> Result<Vec<u32>, ptxvk_runtime::Error> {
                let m = ctx.load_ptx("txq.ptx", ptx)?;
                let out = DeviceBuffer::<u32>::zeroed(ctx, 8)?;
                m.kernel("k")?
                    .launch(&LaunchConfig::new([1, 1, 1], [1, 1, 1]), &[(&out).into()])?;
                out.to_vec()
            })();
            match r {
                Err(e) => outcome_of(e),
                Ok(got) if got == want => Outcome::Pass,
                Ok(got) => Outcome::Fail(format!("expected {want:?}, got {got:?}")),
            }
        }),
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut seed = 0x7e57_0000u64;
    let mut add = |v: &mut Vec<Case>, name: String, family, inst, desc: TextureDesc, source| {
        seed += 1;
        v.push(case(Spec {
            name,
            family,
            inst,
            desc,
            source,
            seed,
        }));
    };
    let geoms = ["1d", "2d", "3d", "a1d", "a2d", "cube", "acube"];
    // Every geometry x result type x coordinate type, point sampling.
    for geom in geoms {
        for dtype in ["f32", "s32", "u32", "f16", "f16x2"] {
            let ctypes: &[&str] = if geom.contains("cube") {
                &["f32"]
            } else {
                &["f32", "s32"]
            };
            for ctype in ctypes {
                let fdt = if dtype.starts_with("f16") {
                    "f32"
                } else {
                    dtype
                };
                let desc = TextureDesc::new(geom_shape(geom, 7), format_of(fdt))
                    .normalized(geom.contains("cube"));
                add(
                    &mut v,
                    format!("tex/{geom}/{dtype}.{ctype}"),
                    TEX,
                    tex(geom, dtype, ctype),
                    desc,
                    Source::Object,
                );
            }
        }
    }
    // Sampler state: filter x address mode x normalized coordinates, 1D to 3D and layered.
    for geom in ["1d", "2d", "3d", "a2d"] {
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            for (addr, normalized) in [
                (AddressMode::ClampToEdge, false),
                (AddressMode::ClampToBorder, false),
                (AddressMode::ClampToEdge, true),
                (AddressMode::ClampToBorder, true),
                (AddressMode::Wrap, true),
                (AddressMode::Mirror, true),
            ] {
                let desc = TextureDesc::new(geom_shape(geom, 6), format_of("f32"))
                    .filter(filter)
                    .address(addr)
                    .normalized(normalized);
                add(
                    &mut v,
                    format!(
                        "tex/{geom}/f32.f32/{filter:?}/{addr:?}/{}",
                        if normalized {
                            "normalized"
                        } else {
                            "unnormalized"
                        }
                    )
                    .to_lowercase(),
                    TEX,
                    tex(geom, "f32", "f32"),
                    desc,
                    Source::Object,
                );
            }
        }
    }
    // Linear cubemaps; normalized-float reads of 8- and 16-bit integers, filtered.
    for geom in ["cube", "acube"] {
        let desc = TextureDesc::new(geom_shape(geom, 6), format_of("f32"))
            .filter(FilterMode::Linear)
            .normalized(true);
        add(
            &mut v,
            format!("tex/{geom}/f32.f32/linear"),
            TEX,
            tex(geom, "f32", "f32"),
            desc,
            Source::Object,
        );
    }
    for (kind, bits) in [
        (ChannelKind::Unsigned, 8),
        (ChannelKind::Signed, 8),
        (ChannelKind::Unsigned, 16),
        (ChannelKind::Signed, 16),
        (ChannelKind::Float, 16),
    ] {
        for channels in [1, 2, 4] {
            let mut desc = TextureDesc::new(
                geom_shape("2d", 6),
                ChannelFormat::new(kind, bits, channels),
            )
            .filter(FilterMode::Linear);
            if kind != ChannelKind::Float {
                desc = desc.read_mode(ReadMode::NormalizedFloat);
            }
            add(
                &mut v,
                format!("tex/2d/f32.f32/linear/{kind:?}{bits}x{channels}").to_lowercase(),
                TEX,
                tex("2d", "f32", "f32"),
                desc,
                Source::Object,
            );
        }
    }
    // Element-type integer formats of every size and channel count (fetch and point sample).
    for (kind, dtype) in [(ChannelKind::Unsigned, "u32"), (ChannelKind::Signed, "s32")] {
        for bits in [8, 16, 32] {
            for channels in [1, 2, 4] {
                for ctype in ["f32", "s32"] {
                    let desc = TextureDesc::new(
                        geom_shape("2d", 5),
                        ChannelFormat::new(kind, bits, channels),
                    );
                    add(
                        &mut v,
                        format!("tex/2d/{dtype}.{ctype}/{kind:?}{bits}x{channels}").to_lowercase(),
                        TEX,
                        tex("2d", dtype, ctype),
                        desc,
                        Source::Object,
                    );
                }
            }
        }
    }
    // Mipmaps: .base, .level (float and integer), .grad, with point and linear mip filtering.
    for geom in ["1d", "2d", "3d", "a1d", "a2d"] {
        for (mip, ctype) in [
            (Mip::Base, "f32"),
            (Mip::Level, "f32"),
            (Mip::Level, "s32"),
            (Mip::Grad, "f32"),
        ] {
            for mip_filter in [FilterMode::Nearest, FilterMode::Linear] {
                if ctype == "s32" && mip_filter == FilterMode::Linear {
                    continue;
                }
                let desc = TextureDesc::new(geom_shape(geom, 16), format_of("f32"))
                    .normalized(true)
                    .filter(FilterMode::Linear)
                    .mip_levels(4)
                    .mip_filter(mip_filter);
                let mut inst = tex(geom, "f32", ctype);
                if let Inst::Tex { mip: m, .. } = &mut inst {
                    *m = mip;
                }
                add(
                    &mut v,
                    format!("tex/{geom}/f32.{ctype}/{mip:?}/{mip_filter:?}").to_lowercase(),
                    TEX,
                    inst,
                    desc,
                    Source::Object,
                );
            }
        }
    }
    // Offsets (immediate and register), depth compare, the destination predicate.
    for geom in ["1d", "2d", "3d", "a1d", "a2d"] {
        for offset in [Offset::Const, Offset::Regs] {
            for (ctype, filter, normalized) in [
                ("f32", FilterMode::Nearest, false),
                ("f32", FilterMode::Linear, true),
                ("s32", FilterMode::Nearest, false),
            ] {
                let desc = TextureDesc::new(geom_shape(geom, 16), format_of("f32"))
                    .filter(filter)
                    .normalized(normalized);
                let mut inst = tex(geom, "f32", ctype);
                if let Inst::Tex { offset: o, .. } = &mut inst {
                    *o = offset;
                }
                add(
                    &mut v,
                    format!("tex/{geom}/f32.{ctype}/offset-{offset:?}/{filter:?}").to_lowercase(),
                    TEX,
                    inst,
                    desc,
                    Source::Object,
                );
            }
        }
    }
    for geom in ["1d", "2d", "a1d", "a2d", "cube", "acube"] {
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            let desc = TextureDesc::new(
                geom_shape(geom, 8),
                ChannelFormat::new(ChannelKind::Float, 32, 1),
            )
            .filter(filter)
            .normalized(true)
            .depth_compare(CompareOp::LessOrEqual);
            let mut inst = tex(geom, "f32", "f32");
            if let Inst::Tex { compare, .. } = &mut inst {
                *compare = true;
            }
            add(
                &mut v,
                format!("tex/{geom}/f32.f32/compare/{filter:?}").to_lowercase(),
                TEX,
                inst,
                desc,
                Source::Object,
            );
        }
    }
    for geom in ["2d", "3d"] {
        let mut inst = tex(geom, "s32", "s32");
        if let Inst::Tex { pred, .. } = &mut inst {
            *pred = true;
        }
        let desc = TextureDesc::new(geom_shape(geom, 6), format_of("s32"));
        add(
            &mut v,
            format!("tex/{geom}/s32.s32/predicate"),
            TEX,
            inst,
            desc,
            Source::Object,
        );
    }
    // Texture references (unified mode) and independent mode with samplers.
    for geom in ["1d", "2d", "3d"] {
        let desc =
            TextureDesc::new(geom_shape(geom, 6), format_of("f32")).filter(FilterMode::Linear);
        add(
            &mut v,
            format!("tex/{geom}/f32.f32/texref"),
            TEX,
            tex(geom, "f32", "f32"),
            desc,
            Source::TexRef,
        );
    }
    for (filter, addr, normalized, force) in [
        (FilterMode::Linear, AddressMode::Wrap, true, false),
        (FilterMode::Nearest, AddressMode::Mirror, true, false),
        (FilterMode::Nearest, AddressMode::ClampToBorder, true, true),
        (FilterMode::Linear, AddressMode::ClampToEdge, false, false),
    ] {
        let desc = TextureDesc::new(geom_shape("2d", 6), format_of("f32")).normalized(normalized);
        add(
            &mut v,
            format!(
                "tex/2d/f32.f32/independent/{filter:?}/{addr:?}{}",
                if force { "/force-unnormalized" } else { "" }
            )
            .to_lowercase(),
            TEX,
            tex("2d", "f32", "f32"),
            desc,
            Source::Independent(filter, addr, force),
        );
    }
    // tld4: every component x geometry x result type; offsets and depth compare.
    for comp in 0..4 {
        for geom in ["2d", "a2d", "cube", "acube"] {
            for dtype in ["f32", "s32", "u32"] {
                let desc = TextureDesc::new(geom_shape(geom, 6), format_of(dtype)).normalized(true);
                add(
                    &mut v,
                    format!("tld4/{}/{geom}/{dtype}", ["r", "g", "b", "a"][comp]),
                    TLD4,
                    Inst::Tld4 {
                        comp,
                        geom,
                        dtype,
                        offset: Offset::None,
                        compare: false,
                    },
                    desc,
                    Source::Object,
                );
            }
        }
    }
    for (geom, offset, compare) in [
        ("2d", Offset::Const, false),
        ("2d", Offset::Regs, false),
        ("a2d", Offset::Const, false),
        ("2d", Offset::None, true),
        ("a2d", Offset::Regs, true),
    ] {
        let mut desc = TextureDesc::new(geom_shape(geom, 8), format_of("f32")).normalized(true);
        if compare {
            desc = TextureDesc::new(
                geom_shape(geom, 8),
                ChannelFormat::new(ChannelKind::Float, 32, 1),
            )
            .normalized(true)
            .depth_compare(CompareOp::LessOrEqual);
        }
        add(
            &mut v,
            format!(
                "tld4/r/{geom}/f32/{}{}",
                format!("offset-{offset:?}").to_lowercase(),
                if compare { "/compare" } else { "" }
            ),
            TLD4,
            Inst::Tld4 {
                comp: 0,
                geom,
                dtype: "f32",
                offset,
                compare,
            },
            desc,
            Source::Object,
        );
    }
    // Unnormalized coordinates with tld4 (the shader scales them).
    let desc = TextureDesc::new(geom_shape("2d", 6), format_of("f32"));
    add(
        &mut v,
        "tld4/g/2d/f32/unnormalized".into(),
        TLD4,
        Inst::Tld4 {
            comp: 1,
            geom: "2d",
            dtype: "f32",
            offset: Offset::None,
            compare: false,
        },
        desc,
        Source::Object,
    );
    // txq.
    for geom in geoms {
        v.push(txq_case(geom, 1));
        if !geom.contains("cube") {
            v.push(txq_case(geom, 3));
        }
    }
    v.push(txq_sampler_case());
    v.extend(rejected());
    v
}

/// Forms the ISA rejects, and multisample textures, which ptxvk does not implement.
fn rejected() -> Vec<Case> {
    let wrap = |line: &str| {
        let head = ".version 8.0\n.target sm_70\n.address_size 64\n\
                    .visible .entry k(.param .u64 t)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<2>;\n\
                    \tld.param.u64 %rd1, [t];\n\t";
        (format!("{head}{line}\n\tret;\n}}\n"), head.len())
    };
    let mut v = Vec::new();
    for (family, name, line, at, rule) in [
        (
            TEX,
            "tex/rejected/cube-s32",
            "tex.cube.v4.f32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r2, %r3, %r4}];",
            "tex.cube.v4.f32.s32",
            ".cube and .acube require .f32 coordinates",
        ),
        (
            TEX,
            "tex/rejected/3d-compare",
            "tex.3d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r2, %r3, %r4}], %r5;",
            "%r5",
            "depth compare is not supported for 3d textures",
        ),
        (
            TLD4,
            "tld4/rejected/1d",
            "tld4.r.1d.v4.f32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1}];",
            ".1d",
            "tld4 reads 2d, a2d, cube and acube textures",
        ),
        (
            TXQ,
            "txq/rejected/level-filter",
            "txq.level.filter_mode.b32 %r1, [%rd1], %r2;",
            "txq.level.filter_mode.b32",
            "txq.level queries width, height and depth",
        ),
    ] {
        let (ptx, start) = wrap(line);
        let off = line.find(at).unwrap_or(0);
        let range = start + off..start + off + at.len();
        v.push(crate::rejected::rejected(family, name, ptx, range, rule));
    }
    for geom in ["2dms", "a2dms"] {
        let (ptx, _) = wrap(&format!(
            "tex.{geom}.v4.s32.s32 {{%r1, %r2, %r3, %r4}}, [%rd1, {{%r1, %r2, %r3, %r4}}];"
        ));
        v.push(Case {
            name: format!("tex/{geom}"),
            family: TEX,
            ptx,
            run: Box::new(move |_| {
                Outcome::Unsupported(format!(
                    "multisample textures (.{geom}) are not implemented: CUDA cannot create them, and Vulkan samples them through another image type"
                ))
            }),
        });
    }
    v
}
