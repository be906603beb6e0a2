//! `wgmma` as sm_90a compilers write it: every form checks, translates for every warp strategy
//! (lavapipe's emulation, NVIDIA's native 32-wide subgroups, AMD's partitions) and passes
//! SPIRV-Tools; forms the ISA does not have are refused. What the forms compute is run by the
//! conformance suite's warpgroup matrix family and by Triton's sm_90a matmul
//! (runtime/tests/triton.rs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

/// `.sp` came with PTX ISA 8.2.
const SPARSE: &str = "8.2";

fn kernel_at(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<140>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\
         \tld.param.u64 %rd1, [out];\n\
         {body}\n\tret;\n}}\n"
    )
}

/// `{%r<from> .. %r<from + n - 1>}`.
fn regs(from: u32, n: u32) -> String {
    let v: Vec<String> = (from..from + n).map(|i| format!("%r{i}")).collect();
    format!("{{{}}}", v.join(", "))
}

fn translates(body: &str) {
    translates_at("8.0", body);
}

fn translates_at(version: &str, body: &str) {
    family_support::translates_for_every_profile(&kernel_at(version, "sm_90a", body), body);
}

fn refused_for(target: &str, body: &str, message: &str) {
    refused_at("8.0", target, body, message);
}

fn refused_at(version: &str, target: &str, body: &str, message: &str) {
    family_support::refused_with_message(&kernel_at(version, target, body), body, message);
}

fn refused(body: &str, message: &str) {
    refused_for("sm_90a", body, message);
}

#[test]
fn every_wgmma_form_translates() {
    let d16 = regs(0, 8);
    let d64 = regs(0, 32);
    let a = regs(100, 4);
    translates(&format!(
        "\twgmma.fence.sync.aligned;\n\
         \twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, %rd2, %rd3, %p1, 1, 1, 0, 1;\n\
         \twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {d16}, %rd2, %rd3, 0, -1, 1, 1, 0;\n\
         \twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, {a}, %rd3, 1, 1, -1, 1;\n\
         \twgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {d16}, %rd2, %rd3, %p1, 1, 1, 0, 0;\n\
         \twgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {d16}, %rd2, %rd3, %p1, 1, 1;\n\
         \twgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {d16}, {a}, %rd3, 1, 1, 1;\n\
         \twgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {d16}, %rd2, %rd3, 1, -1, -1;\n\
         \twgmma.mma_async.sync.aligned.m64n32k32.f16.e5m2.e5m2 {d16}, {a}, %rd3, %p1, 1, 1;\n\
         \twgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8 {d16}, %rd2, %rd3, %p1;\n\
         \twgmma.mma_async.sync.aligned.m64n16k32.satfinite.s32.u8.s8 {d16}, {a}, %rd3, 0;\n\
         \twgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {d64}, %rd2, %rd3, 1, 1, 1, 0, 0;\n\
         \twgmma.commit_group.sync.aligned;\n\
         \twgmma.wait_group.sync.aligned 1;\n\
         \twgmma.wait_group.sync.aligned 0;"
    ));
}

#[test]
fn every_sparse_wgmma_form_translates() {
    let d16 = regs(0, 8);
    let a = regs(100, 4);
    translates_at(
        SPARSE,
        &format!(
            "\twgmma.fence.sync.aligned;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {d16}, %rd2, %rd3, %r120, 1, %p1, 1, -1, 1, 0;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 {d16}, {a}, %rd3, %r120, 0, 1, 1, 1, 1;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n32k32.f16.f16.f16 {d16}, %rd2, %rd3, %r120, 0, 0, 1, 1, 0, 0;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 {d16}, {a}, %rd3, %r120, 1, 1, 1, 1;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e5m2 {d16}, %rd2, %rd3, %r120, 0, 1, -1, 1;\n\
         \twgmma.mma_async.sp.sync.aligned.m64n16k64.satfinite.s32.u8.s8 {d16}, {a}, %rd3, %r120, 0, %p1;\n\
         \twgmma.commit_group.sync.aligned;\n\
         \twgmma.wait_group.sync.aligned 0;"
        ),
    );
}

#[test]
fn sparse_forms_the_isa_does_not_have_are_refused() {
    let d16 = regs(0, 8);
    let refused = |body: &str, message: &str| refused_at(SPARSE, "sm_90a", body, message);
    // `.sp` doubles K: k32 for .f16, not the dense k16.
    refused(
        &format!(
            "\twgmma.mma_async.sp.sync.aligned.m64n16k16.f32.f16.f16 {d16}, %rd2, %rd3, %r120, 0, 1, 1, 1, 0, 0;"
        ),
        "has no shape .m64n16k16 for .f16",
    );
    // "sp-sel ... 0 (all threads contribute)" for the 8-bit types; a pair for .f16.
    refused(
        &format!(
            "\twgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.s8 {d16}, %rd2, %rd3, %r120, 1, 1;"
        ),
        "`sp-sel` of `wgmma.mma_async.sp` is a constant: one of [0]",
    );
    refused(
        &format!(
            "\twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {d16}, %rd2, %rd3, %r120, 2, 1, 1, 1, 0, 0;"
        ),
        "`sp-sel` of `wgmma.mma_async.sp` is a constant: one of [0, 1]",
    );
    // The metadata and selector operands come before scale-d.
    refused(
        &format!(
            "\twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, 0;"
        ),
        "takes 10 operands",
    );
    // Introduced in PTX ISA 8.2, after the dense form.
    refused_at(
        "8.0",
        "sm_90a",
        &format!(
            "\twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {d16}, %rd2, %rd3, %r120, 0, 1, 1, 1, 0, 0;"
        ),
        "requires PTX ISA 8.2",
    );
}

#[test]
fn forms_the_isa_does_not_have_are_refused() {
    let d16 = regs(0, 8);
    let a = regs(100, 4);
    // K must match the type: k16 for .f16, k8 for .tf32, k32 for 8-bit types.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k8.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, 0;"
        ),
        "has no shape .m64n16k8 for .f16",
    );
    // The integer forms take N = 8, 16, 24, 32, then multiples of 16.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {}, %rd2, %rd3, 1;",
            regs(0, 20)
        ),
        "has no shape .m64n40k32 for .s8",
    );
    // .bf16 accumulates into .f32 only.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k16.f16.bf16.bf16 {}, %rd2, %rd3, 1, 1, 1, 0, 0;",
            regs(0, 4)
        ),
        "has no form .f16.bf16.bf16",
    );
    // D has N/2 registers for .f32.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, 0;"
        ),
        "takes 16 registers for D",
    );
    // The scales are 1 or -1, the transposes 0 or 1, all constants.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, %rd2, %rd3, 1, 2, 1, 0, 0;"
        ),
        "`imm-scale-a` of `wgmma.mma_async` is a constant",
    );
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, %r9;"
        ),
        "`imm-trans-b` of `wgmma.mma_async` is a constant",
    );
    // A register A takes no transpose: one operand fewer.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, {a}, %rd3, 1, 1, 1, 0, 0;"
        ),
        "takes 7 operands",
    );
    // .satfinite is for the integer forms.
    refused(
        &format!(
            "\twgmma.mma_async.sync.aligned.m64n16k16.satfinite.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, 0;"
        ),
        "`.satfinite` is for the integer forms",
    );
    refused("\twgmma.fence.aligned;", "needs `.sync`");
    refused("\twgmma.wait_group.sync.aligned %r1;", "is a constant");
    refused("\twgmma.sync.aligned;", "needs .mma_async, .fence");
    // sm_90a's instruction: an sm_80 module may not use it.
    refused_for("sm_80", "\twgmma.fence.sync.aligned;", "wgmma");
}

#[test]
fn plain_and_later_targets_are_refused_by_name() {
    // The ISA's notes for every `wgmma` instruction: "Requires sm_90a"; sm_100's generation
    // dropped them, so neither plain sm_90 nor a later a/f target has them.
    let d16 = regs(0, 8);
    let mma = format!(
        "\twgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d16}, %rd2, %rd3, 1, 1, 1, 0, 0;"
    );
    for body in [
        mma.as_str(),
        "\twgmma.fence.sync.aligned;",
        "\twgmma.commit_group.sync.aligned;",
    ] {
        for target in ["sm_90", "sm_100a", "sm_120f"] {
            refused_at(
                "8.8",
                target,
                body,
                &format!(
                    "`wgmma` needs an architecture-specific target (sm_90a); this module declares .target {target}"
                ),
            );
        }
    }
}
