//! Data movement and conversion (ISA 8.7.6) in the checker and the translator: every valid
//! `mov`/`ld`/`st`/`ldu`/`prefetch`/`isspacep`/`cvta`/`cvt`/`cvt.pack` form translates to SPIR-V
//! that SPIRV-Tools accepts, and invalid forms are rejected with a diagnostic whose span is the
//! offending modifier or operand.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

use family_support::{Stage, keep_live, rejected_in, translate_valid};

const DECLS: &str = "\t.reg .pred %p<4>;\n\t.reg .b8 %c<4>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<8>;\n\
    \t.reg .b64 %rd<8>;\n\t.reg .f16 %hf<4>;\n\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n\
    \t.reg .v4 .b32 %q;\n\t.shared .align 16 .b8 sh[64];\n\t.local .align 16 .b8 lo[64];\n";

/// A module with variables in every space around a kernel whose body is `body`.
fn kernel(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .global .align 16 .b8 gv[64];\n.const .align 16 .b8 cv[64] = {{1, 2, 3}};\n\
         .visible .entry k(.param .u64 out, .param .align 16 .b8 kp[32])\n{{\n{DECLS}{body}\n{keep}\tret;\n}}\n",
        keep = keep_live(&[
            ("%p", "pred", 4, 4),
            ("%c", "b8", 4, 1),
            ("%h", "b16", 8, 2),
            ("%hf", "b16", 4, 2),
            ("%r", "b32", 8, 4),
            ("%f", "b32", 4, 4),
            ("%rd", "b64", 8, 8),
            ("%fd", "b64", 4, 8),
        ])
    )
}

/// Translates `body` (in an sm_100, PTX 8.8 kernel) and validates the SPIR-V.
fn translates(body: &str) {
    translate_valid(&kernel("8.8", "sm_100", body), body);
}

/// Checks that the checker rejects `line` with an error whose span is exactly `at`.
fn rejected_with(version: &str, target: &str, line: &str, at: &str) -> String {
    rejected_in(
        &kernel(version, target, &format!("\t{line}")),
        line,
        at,
        Stage::Check,
    )
}

fn rejected(line: &str, at: &str) -> String {
    rejected_with("8.8", "sm_100", line, at)
}

#[test]
fn every_cvt_form_validates() {
    let ints = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];
    let floats = ["f16", "bf16", "f32", "f64"];
    let reg = |t: &str| match t {
        "u8" | "s8" => "%c1",
        "u16" | "s16" | "bf16" => "%h1",
        "f16" => "%hf1",
        "u32" | "s32" => "%r1",
        "f32" => "%f1",
        "f64" => "%fd1",
        _ => "%rd1",
    };
    let mut body = String::new();
    for d in ints {
        for s in ints {
            body += &format!("cvt.{d}.{s} {}, {};\n", reg(d), reg(s));
        }
        for s in floats {
            // `.sat` is refused with a .bf16 operand (as ptxas does).
            let sat = if s == "bf16" { "" } else { ".sat" };
            for r in ["rni", "rzi", "rmi", "rpi"] {
                body += &format!("cvt.{r}{sat}.{d}.{s} {}, {};\n", reg(d), reg(s));
            }
        }
    }
    for d in floats {
        for s in ints {
            for r in ["rn", "rz", "rm", "rp"] {
                body += &format!("cvt.{r}.{d}.{s} {}, {};\n", reg(d), reg(s));
            }
        }
        for s in floats {
            let narrowing = matches!(
                (d, s),
                ("f16", "bf16" | "f32" | "f64") | ("bf16", "f16" | "f32" | "f64") | ("f32", "f64")
            );
            if narrowing {
                for r in ["rn", "rz", "rm", "rp"] {
                    body += &format!("cvt.{r}.{d}.{s} {}, {};\n", reg(d), reg(s));
                }
            } else if d == s {
                body += &format!("cvt.rni.{d}.{s} {}, {};\n", reg(d), reg(s));
                if d != "bf16" {
                    body += &format!("cvt.sat.{d}.{s} {}, {};\n", reg(d), reg(s));
                }
            } else {
                body += &format!("cvt.{d}.{s} {}, {};\n", reg(d), reg(s));
            }
        }
    }
    body += "cvt.rn.ftz.sat.f32.f64 %f1, %fd1;\ncvt.rzi.ftz.s32.f32 %r1, %f1;\n\
             cvt.rn.relu.satfinite.f16.f32 %hf1, %f1;\ncvt.rz.relu.bf16.f32 %h1, %f1;\n\
             cvt.rn.f16x2.f32 %r1, %f1, %f2;\ncvt.rz.relu.satfinite.bf16x2.f32 %r1, %f1, %f2;\n\
             cvt.rna.tf32.f32 %r1, %f1;\ncvt.rna.satfinite.tf32.f32 %r1, %f1;\n\
             cvt.rn.relu.satfinite.tf32.f32 %r1, %f1;\ncvt.f64.bf16.rp %fd1, %h1;\n\
             cvt.pack.sat.s16.s32 %r1, %r2, %r3;\ncvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4;\n\
             cvt.s32.s8 %r1, %r2;\ncvt.u64.u16 %rd1, %r2;\ncvt.rn.f32.u8 %f1, %r2;\n";
    translates(&body);
}

#[test]
fn every_load_and_store_form_validates() {
    let mut body =
        String::from("mov.u64 %rd2, gv;\ncvta.global.u64 %rd3, %rd2;\nmov.u32 %r6, sh;\n");
    let types = [
        ("b8", "%c1"),
        ("u8", "%h1"),
        ("s8", "%r1"),
        ("b16", "%h1"),
        ("u16", "%r1"),
        ("s16", "%rd1"),
        ("b32", "%r1"),
        ("u32", "%rd1"),
        ("f32", "%f1"),
        ("b64", "%rd1"),
        ("s64", "%rd1"),
        ("f64", "%fd1"),
    ];
    for (t, r) in types {
        body += &format!(
            "ld.global.{t} {r}, [%rd2+8];\nst.global.{t} [%rd2+16], {r};\n\
             ld.shared.{t} {r}, [sh+8];\nst.shared.{t} [%r6+16], {r};\n\
             ld.local.{t} {r}, [lo+8];\nst.local.{t} lo[16], {r};\n\
             ld.const.{t} {r}, [cv+8];\nld.param.{t} {r}, [kp+8];\n\
             ld.{t} {r}, [%rd3+8];\nst.{t} [%rd3+16], {r};\n\
             ld.global.nc.{t} {r}, [%rd2];\nldu.global.{t} {r}, [%rd2];\n"
        );
    }
    body += "ld.global.v4.b32 %q, [gv];\nst.shared.v4.b32 [sh], %q;\n\
             ld.global.v2.f64 {%fd1, %fd2}, [gv+16];\nst.local.v2.b16 [lo+4], {%h1, %h2};\n\
             ld.global.v8.f32 {%f1, %f2, %f3, %f1, %f2, %f3, %f1, _}, [gv];\n\
             st.global.v4.b64 [gv], {%rd1, %rd2, %rd1, %rd2};\n\
             ld.volatile.shared.u32 %r1, [sh];\nst.volatile.global.u32 [gv], %r1;\n\
             ld.relaxed.gpu.global.u32 %r1, [gv];\nst.release.cta.shared.u32 [sh], %r1;\n\
             ld.acquire.sys.u32 %r1, [%rd3];\nst.relaxed.cluster.global.u64 [gv], %rd1;\n\
             ld.global.cg.u32 %r1, [gv];\nst.global.wt.u32 [gv], %r1;\nld.global.cs.L2::256B.u32 %r1, [gv];\n\
             ld.global.L1::evict_last.L2::cache_hint.u32 %r1, [gv], %rd1;\n\
             ld.mmio.relaxed.sys.global.u32 %r1, [gv];\n\
             ld.volatile.local.u32 %r1, [lo];\nst.relaxed.gpu.local.u32 [lo], %r1;\n\
             ld.acquire.gpu.param.u32 %r1, [kp];\nld.volatile.const.u32 %r1, [cv];\n\
             prefetch.global.L2 [gv];\nprefetch.local.L1 [lo];\nprefetchu.L1 [%rd3];\n\
             isspacep.global %p1, %rd3;\nisspacep.shared %p1, %rd3;\nisspacep.local %p1, %rd3;\n\
             isspacep.const %p1, %rd3;\nisspacep.param %p1, %rd3;\n\
             cvta.shared.u32 %r1, sh;\ncvta.to.shared.u32 %r2, %r1;\ncvta.const.u64 %rd1, cv+4;\n\
             cvta.param.u64 %rd1, kp;\ncvta.to.local.u64 %rd1, %rd3;\n\
             ld.local.b64 %rd1, [8];\nst.shared.b32 [4], %r1;\n";
    translates(&body);
}

#[test]
fn mov_forms_validate() {
    translates(
        "mov.pred %p1, %p2;\nmov.pred %p1, 1;\nmov.b16 %h1, 0x7fff;\nmov.u64 %rd1, gv+8;\n\
         mov.u32 %r1, sh;\nmov.u64 %rd1, gv[3];\nmov.u32 %r1, %tid.x;\nmov.u16 %h1, %ntid.y;\n\
         mov.u32 %r1, %smid;\nmov.u32 %r1, %nsmid;\nmov.u32 %r1, %lanemask_ge;\n\
         mov.b32 %r1, {%h1, %h2};\nmov.b64 {%r1, %r2}, %fd1;\nmov.b32 {%c1, %c2, %c3, _}, %r1;\n\
         mov.b16 %h1, {%c1, %c2};\nmov.v4.b32 %q, %q;\nmov.f16 %hf1, %hf2;",
    );
}

#[test]
fn cvt_rounding_rules_point_at_the_modifier() {
    // A float-to-float conversion that loses precision needs a rounding modifier.
    let m = rejected("cvt.f32.f64 %f1, %fd1;", "cvt.f32.f64");
    assert!(m.contains("rounding"), "{m}");
    // Integer rounding is illegal on int-to-float, float rounding on float-to-int.
    rejected("cvt.rni.f32.s32 %f1, %r1;", "rni");
    rejected("cvt.rn.s32.f32 %r1, %f1;", "rn");
    rejected("cvt.s32.f32 %r1, %f1;", "cvt.s32.f32");
    rejected("cvt.f32.s32 %f1, %r1;", "cvt.f32.s32");
    // Float rounding is illegal where nothing is lost; integer rounding on int-to-int too.
    rejected("cvt.rn.f32.f32 %f1, %f2;", "rn");
    rejected("cvt.rz.f64.f32 %fd1, %f1;", "rz");
    rejected("cvt.rzi.s32.s16 %r1, %h1;", "rzi");
    rejected("cvt.rni.f64.f32 %fd1, %f1;", "rni");
    // `.rna` belongs to tf32 only.
    rejected("cvt.rna.f16.f32 %hf1, %f1;", "rna");
}

#[test]
fn cvt_modifier_rules_point_at_the_modifier() {
    // `.sat` where the destination range contains the source range.
    let m = rejected("cvt.sat.u32.u16 %r1, %h1;", "sat");
    assert!(m.contains("fits"), "{m}");
    rejected("cvt.sat.s64.u32 %rd1, %r1;", "sat");
    // `.ftz` needs .f32 on one side.
    rejected("cvt.ftz.f64.f16 %fd1, %hf1;", "ftz");
    // `.relu`/`.satfinite`: f16/bf16/tf32 results of an f32 conversion, rounding .rn/.rz.
    rejected("cvt.rn.relu.f32.f64 %f1, %fd1;", "relu");
    rejected("cvt.rm.relu.f16.f32 %hf1, %f1;", "relu");
    rejected("cvt.rn.satfinite.f16.f64 %hf1, %fd1;", "satfinite");
    rejected("cvt.rm.f16x2.f32 %r1, %f1, %f2;", "rm");
    rejected("cvt.rn.f16x2.f64 %r1, %fd1, %fd2;", "f16x2.f64");
    rejected("cvt.rna.relu.tf32.f32 %r1, %f1;", "relu");
    rejected("cvt.rn.sat.f16x2.f32 %r1, %f1, %f2;", "sat");
    // `.bf16` operands cannot be wider registers.
    rejected("cvt.rn.bf16.f32 %r1, %f1;", "%r1");
    // Target gating.
    // The .version/.target table (check/gating) reports it, at the `.bf16` modifier.
    rejected_with("7.0", "sm_75", "cvt.rn.bf16.f32 %h1, %f1;", "bf16");
    rejected_with(
        "7.8",
        "sm_90",
        "cvt.rn.satfinite.f16.f32 %hf1, %f1;",
        "satfinite",
    );
    rejected_with(
        "6.0",
        "sm_70",
        "cvt.pack.sat.s16.s32 %r1, %r2, %r3;",
        "pack",
    );
}

#[test]
fn load_store_rules_point_at_the_modifier_or_operand() {
    // Stores to constant memory and to kernel parameters.
    let m = rejected("st.const.u32 [cv], %r1;", "const");
    assert!(m.contains("const"), "{m}");
    rejected("st.global.u32 [cv], %r1;", "[cv]");
    rejected("st.param.u64 [kp], %rd1;", "[kp]");
    rejected("st.u64 [kp+8], %rd1;", "[kp+8]");
    // Vector sizes: 256-bit accesses are .global only; .v8 has 32-bit elements.
    let m = rejected("ld.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd1];", "v4");
    assert!(m.contains("256"), "{m}");
    rejected(
        "ld.shared.v8.b32 {%r1, %r2, %r3, %r4, %r1, %r2, %r3, %r4}, [sh];",
        "v8",
    );
    rejected(
        "ld.global.v8.b16 {%h1, %h2, %h3, %h4, %h1, %h2, %h3, %h4}, [gv];",
        "v8",
    );
    rejected_with(
        "8.0",
        "sm_90",
        "ld.global.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [gv];",
        "v4",
    );
    rejected("ld.global.v4.b32 {%r1, %r2}, [gv];", "{%r1, %r2}");
    // Statically visible misalignment.
    let m = rejected("ld.global.v4.u32 %q, [gv+4];", "[gv+4]");
    assert!(m.contains("aligned"), "{m}");
    rejected("ld.shared.u64 %rd1, [sh+12];", "[sh+12]");
    rejected("ld.local.u32 %r1, [6];", "[6]");
    // Cache operators: per direction, not with ordering qualifiers; `.nc` global only.
    rejected("st.global.ca.u32 [gv], %r1;", "ca");
    rejected("ld.global.wb.u32 %r1, [gv];", "wb");
    rejected("ld.volatile.global.cg.u32 %r1, [gv];", "cg");
    rejected("ld.shared.nc.u32 %r1, [sh];", "nc");
    rejected("ld.global.lu.nc.u32 %r1, [gv];", "lu");
    // Orderings: scopes required, and only the orderings of the direction.
    rejected("ld.relaxed.global.u32 %r1, [gv];", "relaxed");
    rejected("ld.gpu.global.u32 %r1, [gv];", "gpu");
    rejected("st.acquire.gpu.global.u32 [gv], %r1;", "acquire");
    // State spaces of named variables; ldu reads global memory.
    rejected("ld.shared.u32 %r1, [gv];", "[gv]");
    rejected("ldu.shared.u32 %r1, [sh];", "shared");
    // A cache-policy operand needs `.L2::cache_hint`.
    rejected("ld.global.u32 %r1, [gv], %rd1;", "%rd1");
}

#[test]
fn data_movement_rules_point_at_the_operand() {
    rejected("cvta.global.u64 %rd1, sh;", "sh");
    rejected("cvta.to.shared.u64 %rd1, sh;", "sh");
    // Packing: the elements must be the instruction's part-size (here .b16).
    rejected("mov.b32 %r1, {%r2, %r3};", "%r2");
    rejected("mov.b64 %rd1, {%h1, %h2, %h3};", "{%h1, %h2, %h3}");
    rejected("mov.u16 %h1, gv;", "gv");
    rejected("mov.u32 %r1, k;", "k");
    rejected_with("7.0", "sm_70", "isspacep.param %p1, %rd1;", "param");
    rejected("prefetch.global.L1 [sh];", "[sh]");
}

// %clock64 and %gridid translate now: translator/tests/frontend.rs.
