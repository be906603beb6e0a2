//! `cvt` to and from the narrow float formats (fp8 `.e4m3x2 .e5m2x2`, fp6 `.e2m3x2 .e3m2x2`,
//! fp4 `.e2m1x2`, `.ue8m0x2`): every form the ISA lists checks, translates for every warp
//! strategy and passes SPIRV-Tools; the forms it does not list are refused at the modifier at
//! fault. What the forms compute is checked by the conformance suite's `cvt` family.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ptxvk_translator::{DeviceProfile, Program, SourceFile};

fn kernel(target: &str, body: &str) -> String {
    format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b8 %c<2>;\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\
         {body}\n\tret;\n}}\n"
    )
}

fn translates(target: &str, body: &str) {
    let program = Program::parse(SourceFile::new("k.ptx", kernel(target, body)))
        .unwrap_or_else(|d| panic!("{body}:\n{d}"));
    for name in ["lavapipe", "nvidia", "amd-rdna"] {
        let profile = DeviceProfile::named(name).expect("a named profile");
        let k = program
            .translate_kernel("k", &profile)
            .unwrap_or_else(|d| panic!("{body} for {name}:\n{d}"));
        if let Err(e) = ptxvk_translator::validate(&k.spirv) {
            panic!("{body} for {name}: invalid SPIR-V: {e}");
        }
    }
}

/// `body` is refused with an error containing `message` whose span starts at `at`.
fn refused(target: &str, body: &str, message: &str, at: &str) {
    let src = kernel(target, body);
    let d = match Program::parse(SourceFile::new("bad.ptx", src.clone())) {
        Ok(_) => panic!("`{body}` was accepted"),
        Err(d) => d,
    };
    let at = src.find(body).expect("body in source") + body.find(at).expect("`at` in body");
    assert!(
        d.errors()
            .any(|e| e.message.contains(message) && e.span.start as usize == at),
        "`{body}`: no error `{message}` at {at}:\n{d}"
    );
}

#[test]
fn fp8_forms_translate_for_sm_89() {
    translates(
        "sm_89",
        "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n\
         cvt.rn.satfinite.relu.e5m2x2.f32 %h1, %f1, %f2;\n\
         cvt.rn.satfinite.e4m3x2.f16x2 %h1, %r1;\n\
         cvt.rn.relu.satfinite.e5m2x2.f16x2 %h1, %r1;\n\
         cvt.rn.f16x2.e4m3x2 %r1, %h1;\n\
         cvt.rn.relu.f16x2.e5m2x2 %r1, %h1;",
    );
}

#[test]
fn fp6_fp4_and_ue8m0_forms_translate_for_sm_100a() {
    translates(
        "sm_100a",
        "cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;\n\
         cvt.rn.satfinite.relu.e3m2x2.f32 %h1, %f1, %f2;\n\
         cvt.rn.relu.f16x2.e2m3x2 %r1, %h1;\n\
         cvt.rn.f16x2.e3m2x2 %r1, %h1;\n\
         cvt.rn.satfinite.e2m1x2.f32 %c1, %f1, %f2;\n\
         cvt.rn.relu.f16x2.e2m1x2 %r1, %c1;\n\
         cvt.rz.ue8m0x2.f32 %h1, %f1, %f2;\n\
         cvt.rp.satfinite.ue8m0x2.bf16x2 %h1, %r1;\n\
         cvt.rn.bf16x2.ue8m0x2 %r1, %h1;",
    );
}

#[test]
fn forms_outside_the_isa_are_refused() {
    let t = "sm_100a";
    refused(
        t,
        "cvt.rn.e4m3x2.f32 %h1, %f1, %f2;",
        "needs `.satfinite`",
        "cvt",
    );
    refused(
        t,
        "cvt.rz.satfinite.e4m3x2.f32 %h1, %f1, %f2;",
        "needs rounding .rn",
        "cvt",
    );
    refused(
        t,
        "cvt.rn.ue8m0x2.f32 %h1, %f1, %f2;",
        "needs rounding .rz or .rp",
        "cvt",
    );
    refused(
        t,
        "cvt.rz.relu.ue8m0x2.f32 %h1, %f1, %f2;",
        "`.relu` is not a modifier",
        ".relu",
    );
    refused(
        t,
        "cvt.rn.satfinite.f16x2.e4m3x2 %r1, %h1;",
        "`.satfinite` is not a modifier",
        ".satfinite",
    );
    refused(
        t,
        "cvt.rn.satfinite.e2m1x2.f16x2 %c1, %r1;",
        "not a conversion of the ISA",
        "cvt",
    );
    refused(
        t,
        "cvt.rn.f32.e4m3x2 %f1, %h1;",
        "not a conversion of the ISA",
        "cvt",
    );
    refused(
        t,
        "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1;",
        "takes 3 operands",
        "cvt",
    );
}

#[test]
fn targets_are_gated() {
    refused(
        "sm_90",
        "cvt.rn.satfinite.e2m1x2.f32 %c1, %f1, %f2;",
        "sm_100",
        ".e2m1x2",
    );
    refused(
        "sm_80",
        "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;",
        "sm_89",
        ".e4m3x2",
    );
    // PTX ISA 7.8 has fp8 `cvt` for sm_90 only; sm_89 needs 8.1.
    let old = |target: &str| {
        format!(
            ".version 7.8\n.target {target}\n.address_size 64\n\
             .visible .entry k()\n{{\n\t.reg .b16 %h;\n\t.reg .f32 %f;\n\
             \tcvt.rn.satfinite.e5m2x2.f32 %h, %f, %f;\n\tret;\n}}\n"
        )
    };
    let d = Program::parse(SourceFile::new("k.ptx", old("sm_89"))).expect_err("sm_89 at 7.8");
    assert!(
        d.errors()
            .any(|e| e.message.contains("on sm_89 requires PTX ISA 8.1")),
        "{d}"
    );
    assert!(Program::parse(SourceFile::new("k.ptx", old("sm_90"))).is_ok());
}
