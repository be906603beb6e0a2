//! The PTX of the texture cases.

use ptxvk_runtime::{AddressMode, ChannelFormat, ChannelKind, FilterMode, TextureShape};

use super::{Inst, Mip, Offset, Source, Spec};

pub(super) fn geom_shape(geom: &str, size: u32) -> TextureShape {
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

pub(super) fn format_of(dtype: &str) -> ChannelFormat {
    match dtype {
        "s32" => ChannelFormat::new(ChannelKind::Signed, 16, 4),
        "u32" => ChannelFormat::new(ChannelKind::Unsigned, 8, 4),
        _ => ChannelFormat::new(ChannelKind::Float, 32, 4),
    }
}

/// The PTX of a case: thread `t` reads 16 words of operands at `in + 64t` (coordinates as
/// written in the instruction, level, gradients, offsets, depth reference) and writes the four
/// results and the predicate at `out + 20t`.
pub(super) fn ptx(spec: &Spec) -> String {
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
pub(super) fn instruction(inst: &Inst, handle: &str) -> (String, bool) {
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
