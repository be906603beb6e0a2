//! Texture instructions in the checker and the translator (ISA 5.3, 8.7.7): every valid
//! `tex`/`tld4`/`txq` form translates to SPIR-V that SPIRV-Tools accepts, the kernel ABI names
//! the slots and descriptor bindings the runtime must provide, and invalid forms are rejected
//! with a diagnostic whose span is the offending modifier or operand.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

use family_support::{Stage, rejected_in, translate_valid};
use ptxvk_translator::texture::{
    AddressMode, FilterMode, Geometry, SampledKind, SamplerSource, TextureSource,
};
use ptxvk_translator::{DeviceProfile, KernelModule, Program, SourceFile};

/// A kernel `k(.u64 out, .u64 tex)` around `body`, with `decls` at module scope.
fn module(target: &str, decls: &str, body: &str) -> String {
    format!(
        ".version 8.2\n.target {target}\n.address_size 64\n{decls}\n\
         .visible .entry k(.param .u64 out, .param .u64 tex)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \t.reg .f32 %f<16>;\n\t.reg .f16 %hf<8>;\n\
         \tld.param.u64 %rd1, [tex];\n\
         {body}\n\tret;\n}}\n"
    )
}

fn translate_src(src: &str) -> KernelModule {
    translate_valid(src, src)
}

fn translates(body: &str) -> KernelModule {
    translate_src(&module("sm_90", "", body))
}

/// `line` is rejected (by the checker or the translator) with an error whose span is exactly
/// `at`; returns its message.
fn rejected_at(target: &str, decls: &str, line: &str, at: &str) -> String {
    let src = module(target, decls, &format!("\t{line}"));
    rejected_in(&src, line, at, Stage::CheckOrTranslate)
}

#[test]
fn tex_every_geometry_result_and_coordinate_type() {
    let geoms = [
        ("1d", "{%f1}", "{%r1}"),
        ("2d", "{%f1, %f2}", "{%r1, %r2}"),
        ("3d", "{%f1, %f2, %f3, %f4}", "{%r1, %r2, %r3, %r4}"),
        ("a1d", "{%r5, %f1}", "{%r5, %r1}"),
        ("a2d", "{%r5, %f1, %f2, %f3}", "{%r5, %r1, %r2, %r3}"),
        ("cube", "{%f1, %f2, %f3, %f4}", ""),
        ("acube", "{%r5, %f1, %f2, %f3}", ""),
    ];
    for (g, fc, ic) in geoms {
        for (dtype, d) in [
            ("f32", "{%f5, %f6, %f7, %f8}"),
            ("s32", "{%r6, %r7, %r8, %r9}"),
            ("u32", "{%r6, %r7, %r8, %r9}"),
            ("f16", "{%hf1, %hf2, %hf3, %hf4}"),
        ] {
            let mut body = format!("\ttex.{g}.v4.{dtype}.f32 {d}, [%rd1, {fc}];\n");
            if !ic.is_empty() {
                body += &format!("\ttex.{g}.v4.{dtype}.s32 {d}, [%rd1, {ic}];\n");
            }
            let k = translates(&body);
            assert_eq!(k.abi.textures.slots.len(), 1, "{body}");
            assert!(!k.abi.textures.bindings.is_empty(), "{body}");
        }
        translates(&format!(
            "\ttex.{g}.v2.f16x2.f32 {{%r6, %r7}}, [%rd1, {fc}];"
        ));
    }
}

#[test]
fn mipmaps_offsets_compare_and_predicate() {
    for body in [
        "tex.base.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], %f3;",
        "tex.level.3d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], %f3;",
        "tex.level.a2d.v4.u32.s32 {%r6, %r7, %r8, %r9}, [%rd1, {%r5, %r1, %r2, %r3}], %r4;",
        "tex.grad.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {%f3, %f4}, {%f9, %f10};",
        "tex.grad.1d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1}], {%f3}, {%f9};",
        "tex.grad.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], {%f1, %f2, %f3, %f4}, {%f1, %f2, %f3, %f4};",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {1, -2};",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {%r1, %r2};",
        "tex.2d.v4.s32.s32 {%r6, %r7, %r8, %r9}, [%rd1, {%r1, %r2}], {%r3, -1};",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], %f3;",
        "tex.a2d.v4.s32.f32 {%r6, %r7, %r8, %r9}, [%rd1, {%r5, %f1, %f2}], {%r3, %r4}, %f3;",
        "tex.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], %f9;",
        "tex.3d.v4.s32.s32 {%r6, %r7, %r8, %r9}|%p1, [%rd1, {%r1, %r2, %r3, %r4}];",
    ] {
        translates(body);
    }
}

#[test]
fn tld4_every_component_geometry_and_type() {
    for comp in ["r", "g", "b", "a"] {
        for (g, c) in [
            ("2d", "{%f1, %f2}"),
            ("a2d", "{%r5, %f1, %f2, %f3}"),
            ("cube", "{%f1, %f2, %f3, %f4}"),
            ("acube", "{%r5, %f1, %f2, %f3}"),
        ] {
            for (dtype, d) in [
                ("f32", "{%f5, %f6, %f7, %f8}"),
                ("s32", "{%r6, %r7, %r8, %r9}"),
                ("u32", "{%r6, %r7, %r8, %r9}"),
            ] {
                translates(&format!("tld4.{comp}.{g}.v4.{dtype}.f32 {d}, [%rd1, {c}];"));
            }
        }
    }
    translates("tld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {1, 2};");
    translates("tld4.g.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}], {%r1, %r2};");
    translates("tld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}|%p2, [%rd1, {%f1, %f2}], %f3;");
}

#[test]
fn txq_every_query() {
    let mut body = String::new();
    for q in [
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
    ] {
        body += &format!("\ttxq.{q}.b32 %r1, [%rd1];\n");
    }
    for q in ["width", "height", "depth"] {
        body += &format!("\ttxq.level.{q}.b32 %r1, [%rd1], %r2;\n");
    }
    let k = translates(&body);
    // Queries need the record only: one slot, no descriptor binding.
    assert_eq!(k.abi.textures.slots.len(), 1);
    assert!(k.abi.textures.bindings.is_empty());
}

#[test]
fn abi_slots_and_bindings() {
    let decls = ".global .texref ta;\n.tex .u32 legacy;";
    let body = "\ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];\n\
                \ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f3, %f4}];\n\
                \ttex.3d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}];\n\
                \ttex.a1d.v4.u32.f32 {%r6, %r7, %r8, %r9}, [ta, {%r1, %f2}];\n\
                \tmov.u64 %rd2, legacy;\n\
                \ttex.1d.v4.s32.s32 {%r6, %r7, %r8, %r9}, [%rd2, {%r1}];\n\
                \ttxq.width.b32 %r1, [ta];";
    let k = translate_src(&module("sm_90", decls, body));
    let t = &k.abi.textures;
    assert_eq!(
        t.slots.iter().map(|s| s.source.clone()).collect::<Vec<_>>(),
        vec![
            TextureSource::Param {
                index: 1,
                name: "tex".into()
            },
            TextureSource::TexRef { name: "ta".into() },
            TextureSource::TexRef {
                name: "legacy".into()
            },
        ]
    );
    // Records follow the 16 bytes of parameters, 80 bytes (20 words) each.
    assert_eq!(k.abi.param_block_size, 16);
    let offs: Vec<u32> = t.slots.iter().map(|s| s.record_offset).collect();
    assert_eq!(offs, vec![16, 96, 176]);
    assert_eq!(t.records_bytes, 240);
    // The two 2D samples share a binding.
    let b: Vec<(u32, Geometry, SampledKind, bool)> = t
        .bindings
        .iter()
        .map(|b| (b.slot, b.geometry, b.kind, b.normalized_sampler))
        .collect();
    assert_eq!(
        b,
        vec![
            (0, Geometry::D2, SampledKind::Float, false),
            (0, Geometry::D3, SampledKind::Float, true),
            (1, Geometry::A1D, SampledKind::Uint, true),
            (2, Geometry::D1, SampledKind::Sint, false),
        ]
    );
    // The SPIR-V declares each binding in set 0.
    let asm = ptxvk_translator::disassemble(&k.spirv);
    for n in 0..4 {
        assert!(asm.contains(&format!("Binding {n}")), "{asm}");
    }
    assert!(asm.contains("DescriptorSet 0"), "{asm}");
}

#[test]
fn independent_mode_samplers() {
    let decls = ".global .texref t1;\n\
                 .global .samplerref s1 = { addr_mode_0 = clamp_to_border, filter_mode = linear, addr_mode_1 = wrap };\n\
                 .global .samplerref s2 = { force_unnormalized_coords = 1 };";
    let body = "\ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [t1, s1, {%f1, %f2}];\n\
                \ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [t1, s2, {%f1, %f2}];\n\
                \ttxq.addr_mode_1.b32 %r1, [s1];\n\
                \ttxq.force_unnormalized_coords.b32 %r2, [s2];\n\
                \ttxq.width.b32 %r3, [t1];";
    let k = translate_src(&module("sm_90, texmode_independent", decls, body));
    let t = &k.abi.textures;
    assert_eq!(t.slots.len(), 1);
    assert_eq!(t.bindings.len(), 2);
    let SamplerSource::Static(s) = t.bindings[0].sampler else {
        panic!("{:?}", t.bindings[0]);
    };
    assert_eq!(s.filter, FilterMode::Linear);
    assert_eq!(
        s.address,
        [
            AddressMode::ClampToBorder,
            AddressMode::Wrap,
            AddressMode::ClampToEdge
        ]
    );
    assert!(!s.force_unnormalized);
    let SamplerSource::Static(s) = t.bindings[1].sampler else {
        panic!();
    };
    assert!(s.force_unnormalized);
}

#[test]
fn texture_parameters_and_kernel_texrefs() {
    let src = ".version 8.2\n.target sm_90\n.address_size 64\n\
               .entry k(.param .texref t, .param .u64 out)\n{\n\
               \t.reg .f32 %f<8>;\n\t.reg .b32 %r<2>;\n\
               \ttex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5}];\n\
               \ttxq.width.b32 %r1, [t];\n\tret;\n}\n";
    let k = translate_src(src);
    assert_eq!(k.abi.params[0].size, 8);
    assert_eq!(
        k.abi.textures.slots[0].source,
        TextureSource::Param {
            index: 0,
            name: "t".into()
        }
    );
}

#[test]
fn rejected_forms() {
    let t = "sm_90";
    let m = rejected_at(
        t,
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7}, [%rd1, {%f1, %f2}];",
        "{%f5, %f6, %f7}",
    );
    assert!(m.contains("4 registers"), "{m}");
    rejected_at(
        t,
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1}];",
        "{%f1}",
    );
    rejected_at(
        t,
        "",
        "tex.cube.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %r2, %r3, %r4}];",
        "tex.cube.v4.f32.s32",
    );
    rejected_at(
        t,
        "",
        "tex.2d.v4.f64.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "f64",
    );
    rejected_at(
        t,
        "",
        "tex.2dms.v4.s32.s32 {%r6, %r7, %r8, %r9}, [%rd1, {%r1, %r2, %r3, %r4}];",
        "tex.2dms.v4.s32.s32",
    );
    rejected_at(
        t,
        "",
        "tex.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tex.v4.f32.f32",
    );
    rejected_at(
        t,
        "",
        "tex.2d.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tex.2d.f32.f32",
    );
    rejected_at(
        t,
        "",
        "tex.3d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], %f9;",
        "%f9",
    );
    rejected_at(
        t,
        "",
        "tex.cube.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2, %f3, %f4}], {%r1, %r2, %r3};",
        "{%r1, %r2, %r3}",
    );
    rejected_at(
        t,
        "",
        "tex.level.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tex.level.2d.v4.f32.f32",
    );
    rejected_at(
        t,
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%r1, {%f1, %f2}];",
        "%r1",
    );
    rejected_at(
        t,
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [out, {%f1, %f2}];",
        "out",
    );
    rejected_at(
        t,
        "",
        "tld4.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tld4.2d.v4.f32.f32",
    );
    rejected_at(
        t,
        "",
        "tld4.r.1d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1}];",
        "1d",
    );
    rejected_at(
        t,
        "",
        "tld4.r.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd1, {%r1, %r2}];",
        "s32",
    );
    rejected_at(t, "", "txq.b32 %r1, [%rd1];", "txq.b32");
    rejected_at(
        t,
        "",
        "txq.level.filter_mode.b32 %r1, [%rd1], %r2;",
        "txq.level.filter_mode.b32",
    );
    rejected_at(t, "", "txq.width.u32 %r1, [%rd1];", "u32");
    rejected_at(
        t,
        "",
        "txq.force_unnormalized_coords.b32 %r1, [%rd1];",
        "[%rd1]",
    );
    // A sampler operand needs independent mode; indirect access needs unified mode.
    rejected_at(
        t,
        ".global .samplerref s;",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, s, {%f1, %f2}];",
        "s",
    );
    rejected_at(
        "sm_90, texmode_independent",
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "%rd1",
    );
    // Version and target gating.
    rejected_at(
        "sm_50",
        "",
        "tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}|%p1, [%rd1, {%f1, %f2}];",
        "tex",
    );
    rejected_at(
        "sm_20",
        "",
        "tld4.r.a2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%r5, %f1, %f2, %f3}];",
        "tld4",
    );
    // `tld4` itself: sm_20 (the gating table's row, ISA 8.7.7 "Target ISA Notes").
    let msg = rejected_at(
        "sm_13",
        "",
        "tld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];",
        "tld4",
    );
    assert!(
        msg.contains("`tld4` requires PTX ISA 2.2 and sm_20"),
        "{msg}"
    );
}

#[test]
fn rejected_declarations() {
    let bad = |decls: &str, at: &str| {
        let src = module("sm_90", decls, "");
        let err = Program::parse(SourceFile::new("bad.ptx", src.clone())).expect_err(decls);
        assert!(
            err.items.iter().any(|d| &src[d.span.range()] == at),
            "{decls}: no error at `{at}`\n{err}"
        );
    };
    bad(".shared .texref t;", ".shared");
    bad(".global .texref t[4];", "t");
    bad(".global .samplerref s = { filter_mode = cubic };", "cubic");
    bad(".global .samplerref s = { colour = 1 };", "colour");
    bad(
        ".global .texref t = { filter_mode = linear };",
        "{ filter_mode = linear }",
    );
    bad(".global .surfref s;", ".surfref");
    bad(".tex .f32 t;", ".f32");
    bad(".global .u32 x = { filter_mode = linear };", "filter_mode");
    bad(
        ".target texmode_unified\n.target texmode_independent",
        "texmode_independent",
    );
}

#[test]
fn handles_that_cannot_be_traced_are_refused() {
    // Loaded from memory: unknown at translation time.
    let body = "\tld.global.u64 %rd2, [%rd1];\n\
                \ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd2, {%f1, %f2}];";
    let src = module("sm_90", "", body);
    let p = Program::parse(SourceFile::new("x.ptx", src)).unwrap();
    let e = p
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_err();
    assert!(e.to_string().contains("not a kernel parameter"), "{e}");
    // Overwritten after the `ld.param`.
    let body = "\ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];\n\
                \tadd.u64 %rd1, %rd1, 8;";
    let src = module("sm_90", "", body);
    let p = Program::parse(SourceFile::new("x.ptx", src)).unwrap();
    let e = p
        .translate_kernel("k", &DeviceProfile::lavapipe())
        .unwrap_err();
    assert!(e.to_string().contains("written 2 times"), "{e}");
}
