//! Block-scaled `mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4` with `.block_scale`)
//! and the fp8 forms with `.f16` accumulators: every form of the ISA's syntax checks,
//! translates for every warp strategy and passes SPIRV-Tools; the combinations its tables do
//! not list, selectors that select nothing, and targets without the sm_120 family's features
//! are refused with an error that names what is needed. What the forms compute is run by the
//! conformance suite's block-scaled matrix family against its reference model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

fn kernel(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         \t.reg .b32 %r<40>;\n\t.reg .b16 %h<8>;\n\t.reg .f32 %f<20>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\
         {body}\n\tst.global.f32 [%rd1], %f1;\n\tst.global.b32 [%rd1+4], %r1;\n\tret;\n}}\n"
    )
}

fn translates(version: &str, target: &str, body: &str) {
    let what = format!("{body} for {target}");
    family_support::translates_for_every_profile(&kernel(version, target, body), &what);
}

fn refused_for(version: &str, target: &str, body: &str, message: &str) {
    let what = format!("{body} for {target}");
    family_support::refused_with_message(&kernel(version, target, body), &what, message);
}

const D: &str = "{%f1, %f2, %f3, %f4}";
const C: &str = "{%f5, %f6, %f7, %f8}";
const A4: &str = "{%r10, %r11, %r12, %r13}";
const B2: &str = "{%r14, %r15}";

/// The scale operands: data registers, constant selectors.
fn scales(ba: u32, ta: u32, bb: u32, tb: u32) -> String {
    format!("%r20, {{{ba}, {ta}}}, %r21, {{{bb}, {tb}}}")
}

const MXF8: &str = "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X";
const MXF4: &str = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale";
const NVF4: &str = "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale";

#[test]
fn every_block_scaled_form_translates() {
    let body = [
        format!("\t{MXF8}.f32.e4m3.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};", scales(3, 1, 2, 3)),
        // The default `.scale_vec`, and the modifiers in the order CUTLASS writes them.
        format!(
            "\tmma.sync.aligned.kind::mxf8f6f4.block_scale.m16n8k32.row.col.f32.e3m2.e5m2.f32.ue8m0 \
             {D}, {A4}, {B2}, {C}, {};",
            scales(0, 0, 0, 0)
        ),
        format!("\t{MXF4}.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};", scales(2, 0, 0, 1)),
        format!(
            "\t{MXF4}.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
            scales(0, 1, 2, 2)
        ),
        format!(
            "\t{NVF4}.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
            scales(2, 1, 0, 0)
        ),
        format!(
            "\t{NVF4}.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
            scales(0, 0, 0, 3)
        ),
        format!(
            "\t{NVF4}.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 {D}, {A4}, {B2}, {C}, {};",
            scales(0, 1, 0, 1)
        ),
        // Selectors in 16-bit registers (CUTLASS passes them so).
        format!(
            "\tmov.b16 %h1, 1;\n\tmov.b16 %h2, 0;\n\
             \t{MXF8}.f32.e2m3.e2m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, %r20, {{%h1, %h2}}, %r21, {{%h2, %h1}};"
        ),
    ]
    .join("\n");
    for target in ["sm_120a", "sm_121a", "sm_120f", "sm_121f"] {
        translates("8.8", target, &body);
    }
}

#[test]
fn fp8_forms_accumulate_in_f16() {
    // ".f8type = {.e4m3, .e5m2}; .ctype = {.f16, .f32}; .dtype = {.f16, .f32};
    // .shape = {.m16n8k16, .m16n8k32}".
    translates(
        "8.7",
        "sm_89",
        "\tmma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r1, %r2}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r3, %r4};\n\
         \tmma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f16 {%f1, %f2, %f3, %f4}, {%r10, %r11}, {%r14}, {%r3, %r4};\n\
         \tmma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f32 {%r1, %r2}, {%r10, %r11}, {%r14}, {%f5, %f6, %f7, %f8};",
    );
    // Not the sparse fp8 form, which is ".f32.f8type.f8type.f32".
    refused_for(
        "8.7",
        "sm_89",
        "\tmma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r10, %r11, %r12, %r13}, {%r14, %r15, %r16, %r17}, {%r3, %r4}, %r20, 0;",
        "cannot accumulate .f16 into .f16",
    );
    // PTX ISA 8.7 added them.
    refused_for(
        "8.6",
        "sm_90",
        "\tmma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%r1, %r2}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r3, %r4};",
        "requires PTX ISA 8.7",
    );
}

#[test]
fn combinations_the_isa_does_not_list_are_refused() {
    let s = scales(0, 0, 0, 0);
    let cases = [
        // mxf8f6f4 is .m16n8k32 with .f32 C and D.
        (
            format!(
                "\tmma.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {s};"
            ),
            "`.kind::mxf8f6f4` is .m16n8k32",
        ),
        (
            format!(
                "\t{MXF8}.f16.e4m3.e4m3.f16.ue8m0 {{%r1, %r2}}, {A4}, {B2}, {{%r3, %r4}}, {s};"
            ),
            "`.kind::mxf8f6f4` is .m16n8k32",
        ),
        // mxf4 takes .e2m1 only, and .scale_vec::2X with .ue8m0.
        (
            format!("\t{MXF4}.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {s};"),
            "`.kind::mxf4` is .m16n8k64",
        ),
        (
            format!("\t{MXF4}.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {s};"),
            "takes .scale_vec::1X with .ue8m0",
        ),
        (
            format!("\t{MXF8}.f32.e4m3.e4m3.f32.ue4m3 {D}, {A4}, {B2}, {C}, {s};"),
            "takes .scale_vec::1X with .ue8m0",
        ),
        // .ue4m3 goes with .scale_vec::4X; mxf4nvf4 must write its size.
        (
            format!("\t{NVF4}.scale_vec::2X.f32.e2m1.e2m1.f32.ue4m3 {D}, {A4}, {B2}, {C}, {s};"),
            "takes .scale_vec::1X with .ue8m0",
        ),
        (
            format!("\t{NVF4}.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {s};"),
            "takes .scale_vec::1X with .ue8m0",
        ),
        // The kinds need `.block_scale`, and it needs them.
        (
            format!(
                "\tmma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {s};"
            ),
            "need `.block_scale`",
        ),
        (
            format!(
                "\tmma.sync.aligned.m16n8k32.row.col.block_scale.f32.e4m3.e4m3.f32 {D}, {A4}, {B2}, {C}, {s};"
            ),
            "`.block_scale` needs",
        ),
        // Selectors: byte-id 0 or 2 for 2X, 0 for 4X; thread-id-a 0-1, thread-id-b 0-3.
        (
            format!(
                "\t{MXF4}.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
                scales(1, 0, 0, 0)
            ),
            "`byte-id`",
        ),
        (
            format!(
                "\t{NVF4}.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
                scales(0, 0, 2, 0)
            ),
            "`byte-id`",
        ),
        (
            format!(
                "\t{MXF8}.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
                scales(0, 2, 0, 0)
            ),
            "`thread-id`",
        ),
        (
            format!(
                "\t{MXF8}.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
                scales(0, 0, 0, 4)
            ),
            "`thread-id`",
        ),
        // The 4-bit A of mxf4 is four registers of eight elements, not eight of four.
        (
            format!(
                "\t{MXF4}.f32.e2m1.e2m1.f32.ue8m0 {D}, {{%r10, %r11, %r12, %r13, %r16, %r17, %r18, %r19}}, {B2}, {C}, {s};"
            ),
            "takes 4 registers for A",
        ),
    ];
    for (body, message) in &cases {
        refused_for("8.8", "sm_120a", body, message);
    }
}

#[test]
fn targets_without_the_family_features_are_refused() {
    let body = format!(
        "\t{MXF8}.f32.e4m3.e4m3.f32.ue8m0 {D}, {A4}, {B2}, {C}, {};",
        scales(0, 0, 0, 0)
    );
    // A plain target of the family, or the arch-specific target of another (which is also
    // below sm_120's number).
    for target in ["sm_120", "sm_121", "sm_100a", "sm_103f"] {
        refused_for(
            "8.8",
            target,
            &body,
            &format!(
                "block-scaled `mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`) needs the architecture-specific target sm_120a or a target of its family (sm_120a, sm_121a, sm_120f, sm_121f); this module declares .target {target}"
            ),
        );
    }
    // Below sm_120, the number's error comes first.
    refused_for("8.8", "sm_90a", &body, "requires PTX ISA 8.7 and sm_120");
    // The unscaled kind follows the same rule.
    refused_for(
        "8.7",
        "sm_120",
        &format!(
            "\tmma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32 {D}, {A4}, {B2}, {C};"
        ),
        "`mma.kind::f8f6f4` needs the architecture-specific target sm_120a",
    );
}

/// The sparse forms: `mma.sp::ordered_metadata` with the metadata `e` and selector `f` before
/// the scale operands; A half as many registers as the dense form of the same K.
const SP: &str = "mma.sp::ordered_metadata.sync.aligned";
const B4: &str = "{%r14, %r15, %r16, %r17}";
const META: &str = "%r22, 0";

#[test]
fn every_sparse_block_scaled_form_translates() {
    let mxf8 = [
        format!(
            "\t{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(3, 1, 2, 3)
        ),
        // The default `.scale_vec`, and the modifiers in the order CUTLASS writes them.
        format!(
            "\t{SP}.kind::mxf8f6f4.block_scale.m16n8k64.row.col.f32.e3m2.e5m2.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(0, 0, 0, 0)
        ),
        // Selectors in 16-bit registers.
        format!(
            "\tmov.b16 %h1, 1;\n\tmov.b16 %h2, 0;\n\
             \t{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e4m3.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, %r20, {{%h1, %h2}}, %r21, {{%h2, %h1}};"
        ),
    ];
    let mxf4 = [
        format!(
            "\t{SP}.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(2, 1, 2, 3)
        ),
        format!(
            "\t{SP}.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(0, 0, 2, 1)
        ),
        format!(
            "\t{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(2, 1, 0, 0)
        ),
        format!(
            "\t{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(0, 0, 0, 3)
        ),
        format!(
            "\t{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 \
             {D}, {A4}, {B4}, {C}, {META}, {};",
            scales(0, 1, 0, 1)
        ),
    ];
    let all = format!("{}\n{}", mxf8.join("\n"), mxf4.join("\n"));
    for target in ["sm_120a", "sm_121a"] {
        translates("8.8", target, &all);
    }
    // The family targets take `.kind::mxf8f6f4`.
    translates("8.8", "sm_120f", &mxf8.join("\n"));
}

/// `line` (one instruction) is refused by the checker with one error on the token `at`, whose
/// message contains `message`.
fn refused_at(line: &str, at: &str, message: &str) {
    let src = kernel("8.8", "sm_120a", line);
    let got = family_support::rejected_in(&src, line.trim(), at, family_support::Stage::Check);
    assert!(
        got.contains(message),
        "`{line}`: the error on `{at}` says `{got}`, not `{message}`"
    );
}

#[test]
fn sparse_combinations_the_isa_does_not_list_are_refused_at_their_token() {
    let s = scales(0, 0, 0, 0);
    let line = |mods: &str, a: &str| format!("\t{mods} {D}, {a}, {B4}, {C}, {META}, {s};");
    let cases = [
        // ".spvariant = {.sp::ordered_metadata}" only.
        (
            line(
                "mma.sp.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
                A4,
            ),
            "sp",
            "`mma.sp::ordered_metadata` only",
        ),
        // The sparse shapes are m16n8k64 (mxf8f6f4) and m16n8k128 (mxf4, mxf4nvf4).
        (
            line(
                &format!(
                    "{SP}.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0"
                ),
                A4,
            ),
            "kind::mxf8f6f4",
            "`mma.sp::ordered_metadata` with `.kind::mxf8f6f4` is .m16n8k64",
        ),
        (
            line(
                &format!("{SP}.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"),
                A4,
            ),
            "kind::mxf4",
            "`mma.sp::ordered_metadata` with `.kind::mxf4` is .m16n8k128",
        ),
        (
            line(
                &format!(
                    "{SP}.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
                ),
                A4,
            ),
            "kind::mxf4nvf4",
            "`mma.sp::ordered_metadata` with `.kind::mxf4nvf4` is .m16n8k128",
        ),
        // .f32 C and D only.
        (
            format!(
                "\t{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f16.e4m3.e4m3.f16.ue8m0 \
                 {{%r1, %r2}}, {A4}, {B4}, {{%r3, %r4}}, {META}, {s};"
            ),
            "kind::mxf8f6f4",
            "with .e4m3/.e5m2/.e3m2/.e2m3/.e2m1 multiplicands and .f32 C and D",
        ),
        // Table 36's combinations, as for the dense forms.
        (
            line(
                &format!(
                    "{SP}.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"
                ),
                A4,
            ),
            "kind::mxf4",
            "takes .scale_vec::1X with .ue8m0",
        ),
        (
            line(
                &format!(
                    "{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue4m3"
                ),
                A4,
            ),
            "kind::mxf4nvf4",
            "takes .scale_vec::1X with .ue8m0",
        ),
        (
            line(
                &format!(
                    "{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"
                ),
                A4,
            ),
            "kind::mxf4nvf4",
            "must write it",
        ),
        (
            line(
                &format!(
                    "{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue4m3"
                ),
                A4,
            ),
            "kind::mxf8f6f4",
            "takes .scale_vec::1X with .ue8m0",
        ),
        // One kind at a time.
        (
            line(
                &format!(
                    "{SP}.m16n8k64.row.col.kind::f8f6f4.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0"
                ),
                A4,
            ),
            "kind::f8f6f4",
            "exclude each other",
        ),
        // A sparse A holds half the dense form's registers: 4, not 8.
        (
            line(
                &format!(
                    "{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0"
                ),
                "{%r10, %r11, %r12, %r13, %r16, %r17, %r18, %r19}",
            ),
            "{%r10, %r11, %r12, %r13, %r16, %r17, %r18, %r19}",
            "takes 4 registers for A",
        ),
    ];
    for (body, at, message) in &cases {
        refused_at(body, at, message);
    }
    // Every thread of a group holds metadata at these shapes: the sparsity selector is 0.
    let sel = format!(
        "\t{SP}.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 \
         {D}, {A4}, {B4}, {C}, %r22, 1, {s};"
    );
    refused_at(&sel, "1", "`sparsity selector`");
    // Selectors that select nothing, after the metadata.
    let bad_byte = format!(
        "\t{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 \
         {D}, {A4}, {B4}, {C}, {META}, %r20, {{2, 0}}, %r21, {{0, 0}};"
    );
    refused_at(&bad_byte, "2", "`byte-id`");
    // The scale operands are required.
    let short = format!(
        "\t{SP}.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 \
         {D}, {A4}, {B4}, {C}, {META};"
    );
    let src = kernel("8.8", "sm_120a", &short);
    family_support::refused_with_message(&src, &short, "operands");
    // The sparse mxf4 kinds are sm_120a's and sm_121a's only ("except for
    // .kind::mxf4nvf4/.kind::mxf4"), the dense ones the family's too.
    let mxf4 = line(
        &format!("{SP}.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"),
        A4,
    );
    let nvf4 = line(
        &format!(
            "{SP}.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
        ),
        A4,
    );
    refused_for(
        "8.8",
        "sm_120",
        &mxf4,
        "needs the architecture-specific target sm_120a",
    );
    for target in ["sm_120f", "sm_121f"] {
        for body in [&mxf4, &nvf4] {
            refused_for(
                "8.8",
                target,
                body,
                &format!(
                    "sparse `mma` with `.kind::mxf4` or `.kind::mxf4nvf4` needs an \
                     architecture-specific target (sm_120a, sm_121a); this module declares \
                     .target {target}"
                ),
            );
        }
    }
}
