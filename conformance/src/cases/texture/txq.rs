//! `txq` cases, and the forms the ISA rejects.

use ptxvk_runtime::{
    AddressMode, ChannelFormat, ChannelKind, DeviceBuffer, FilterMode, LaunchConfig, ReadMode,
    Texture, TextureDesc, TextureShape,
};

use super::kernel::geom_shape;
use super::{TEX, TLD4, TXQ};
use crate::{Case, Outcome, outcome_of};

/// txq: every attribute of textures of every shape, against the ISA's definitions.
pub(super) fn txq_case(geom: &'static str, levels: u32) -> Case {
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
pub(super) fn txq_sampler_case() -> Case {
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

/// Forms the ISA rejects, and multisample textures, which ptxvk does not implement.
pub(super) fn rejected() -> Vec<Case> {
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
