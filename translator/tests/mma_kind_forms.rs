//! `mma` with `.kind::f8f6f4` (sm_120a): the 8-, 6- and 4-bit float multiplicands in 8-bit
//! containers, dense and sparse, check, translate for every warp strategy (lavapipe's
//! emulation, NVIDIA's native 32-wide subgroups, AMD's partitions) and pass SPIRV-Tools; forms
//! the ISA does not have are refused. What the forms compute is run by the conformance suite's
//! warp matrix families against their reference model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

fn kernel(target: &str, body: &str) -> String {
    format!(
        ".version 8.7\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<40>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\
         {body}\n\tst.global.f32 [%rd1], %f1;\n\tst.global.b32 [%rd1+4], %r1;\n\tret;\n}}\n"
    )
}

fn translates(body: &str) {
    family_support::translates_for_every_profile(&kernel("sm_120a", body), body);
}

fn refused_for(target: &str, body: &str, message: &str) {
    family_support::refused_with_message(&kernel(target, body), body, message);
}

const F32_D: &str = "{%f1, %f2, %f3, %f4}";
const F32_C: &str = "{%f5, %f6, %f7, %f8}";
const A4: &str = "{%r10, %r11, %r12, %r13}";
const B2: &str = "{%r14, %r15}";

#[test]
fn every_kind_f8f6f4_form_translates() {
    // One kernel: the forms share the exchanges' setup, and each is a small dot product.
    translates(&format!(
        "\tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32 {F32_D}, {A4}, {B2}, {F32_C};\n\
         \tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16 {{%r1, %r2}}, {A4}, {B2}, {{%r3, %r4}};\n\
         \tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m1.f16 {F32_D}, {A4}, {B2}, {{%r3, %r4}};\n\
         \tmma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32 {F32_D}, {A4}, {{%r14, %r15, %r16, %r17}}, {F32_C}, %r20, 0;"
    ));
}

#[test]
fn forms_the_isa_does_not_have_are_refused() {
    // The fp6 and fp4 types exist only in `.kind::f8f6f4` forms.
    refused_for(
        "sm_120a",
        &format!(
            "\tmma.sync.aligned.m16n8k32.row.col.f32.e2m1.e2m1.f32 {F32_D}, {A4}, {B2}, {F32_C};"
        ),
        "need `.kind::f8f6f4`",
    );
    // One shape, m16n8k32 (m16n8k64 sparse).
    refused_for(
        "sm_120a",
        &format!(
            "\tmma.sync.aligned.m16n8k16.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32 {F32_D}, {{%r10, %r11}}, {{%r14}}, {F32_C};"
        ),
        "`.kind::f8f6f4` is .m16n8k32",
    );
    // Float multiplicands only, accumulated in .f16 or .f32.
    refused_for(
        "sm_120a",
        &format!(
            "\tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.s32.s8.s8.s32 {{%r1, %r2, %r3, %r4}}, {A4}, {B2}, {{%r5, %r6, %r7, %r8}};"
        ),
        "`.kind::f8f6f4` is .m16n8k32",
    );
    // The register counts are those of the 8-bit layout: A is four registers.
    refused_for(
        "sm_120a",
        &format!(
            "\tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {F32_D}, {{%r10, %r11}}, {B2}, {F32_C};"
        ),
        "takes 4 registers for A",
    );
    // "requires sm_120a": not an sm_90 module's.
    refused_for(
        "sm_90a",
        &format!(
            "\tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32 {F32_D}, {A4}, {B2}, {F32_C};"
        ),
        "requires PTX ISA 8.7 and sm_120",
    );
}
