//! ISA 8.7.7, texture instructions: `tex` over every geometry, result type, coordinate type
//! and mip mode, with offsets, depth compare and the residency predicate; `tld4` for every
//! component and geometry; `txq` for every attribute; sampler state (filters, address modes,
//! normalized coordinates) in unified and independent mode. Expectations come from the
//! reference model in `model.rs`; point sampling and fetches are exact, linear filtering is
//! within the precision of fixed-point filter weights.
//!
//! Textures are created through ptxvk's runtime (the launch-as-data path has no textures), so
//! these cases run on ptxvk only and report "unsupported" on another backend.

mod expect;
mod kernel;
mod model;
mod txq;

use std::sync::Arc;

use ptxvk_runtime::{
    AddressMode, ChannelFormat, ChannelKind, CompareOp, Context, DeviceBuffer, FilterMode,
    KernelArg, LaunchConfig, ReadMode, Texture, TextureDesc, TextureShape,
};

use crate::values::Rng;
use crate::{Case, Outcome, outcome_of};
use expect::{check, inputs_and_expectations, texels};
use kernel::{format_of, geom_shape, ptx};
use model::Model;
use txq::{rejected, txq_case, txq_sampler_case};

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
