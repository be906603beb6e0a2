//! `cp.async.bulk.tensor` as sm_90 compilers write it: the `.tile` forms of every rank check,
//! translate for every warp strategy and pass SPIRV-Tools; the load modes and forms ptxvk does
//! not implement, and the forms the ISA does not have, are refused by name; older targets and
//! PTX versions are gated. What the copies compute is run by the runtime's `tensor_copy` test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../family_support/mod.rs"]
mod family_support;
mod im2col;
mod tensor_map;

use family_support::Stage;

fn kernel(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\
         .visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out)\n{{\n\
         \t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n\
         \t.shared .align 8 .b64 bar;\n\t.shared .align 128 .b8 tile[1024];\n\
         \tmov.b64 %rd1, tmap;\n\tld.param.u64 %rd2, [out];\n\
         {body}\n\tret;\n}}\n"
    )
}

fn translates(body: &str) {
    translates_on("sm_90", body);
}

fn translates_on(target: &str, body: &str) {
    family_support::translates_for_every_profile(&kernel("8.6", target, body), body);
}

fn refused_with(version: &str, target: &str, body: &str, message: &str) {
    family_support::refused_with_message(&kernel(version, target, body), body, message);
}

fn refused(body: &str, message: &str) {
    refused_with("8.6", "sm_90", body, message);
}

#[test]
fn every_tile_form_translates() {
    translates(
        "\tcp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1}], [bar];\n\
         \tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2}], [bar];\n\
         \tcp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [%rd1, {%r1, %r2, 3}], [bar], %rd3;\n\
         \tcp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [tmap, {%r1, %r2, %r3, %r4}], [bar];\n\
         \tcp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];\n\
         \tcp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2}], [tile];\n\
         \tcp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint \
         [%rd2, {%r1}], [tile], %rd3;\n\
         \tcp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];\n\
         \tcp.async.bulk.prefetch.tensor.1d.L2.global.L2::cache_hint [%rd1, {%r1}], %rd3;\n\
         \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;",
    );
}

#[test]
fn every_reduction_translates() {
    for op in ["add", "min", "max", "inc", "dec", "and", "or", "xor"] {
        translates(&format!(
            "\tcp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group \
             [%rd1, {{%r1, %r2}}], [tile];\n\
             \tcp.reduce.async.bulk.tensor.5d.global.shared::cta.{op}.bulk_group.L2::cache_hint \
             [%rd1, {{%r1, %r2, %r3, %r4, %r5}}], [tile], %rd3;\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;"
        ));
    }
}

#[test]
fn reductions_outside_the_isa_are_refused() {
    refused(
        "\tcp.reduce.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd1, {%r1}], [tile];",
        "needs its operator",
    );
    refused(
        "\tcp.reduce.async.bulk.tensor.1d.shared::cta.global.add.tile.bulk_group \
         [%rd1, {%r1}], [tile];",
        "reduces `.global.shared::cta`",
    );
    refused(
        "\tcp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.mbarrier::complete_tx::bytes \
         [%rd1, {%r1}], [tile], [bar];",
        "reduces `.global.shared::cta`",
    );
    refused_with(
        "8.6",
        "sm_80",
        "\tcp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1}], [tile];",
        "sm_90",
    );
}

/// The element types the ISA's table of `cp.reduce.async.bulk` lists for each operator, into
/// global memory and into shared memory.
const GLOBAL_TYPES: [(&str, &[&str]); 8] = [
    ("add", &["u32", "s32", "u64", "f32", "f64"]),
    ("min", &["u32", "s32", "u64", "s64", "f16", "bf16"]),
    ("max", &["u32", "s32", "u64", "s64", "f16", "bf16"]),
    ("inc", &["u32"]),
    ("dec", &["u32"]),
    ("and", &["b32", "b64"]),
    ("or", &["b32", "b64"]),
    ("xor", &["b32", "b64"]),
];
const CLUSTER_TYPES: [(&str, &[&str]); 8] = [
    ("add", &["u32", "s32", "u64"]),
    ("min", &["u32", "s32"]),
    ("max", &["u32", "s32"]),
    ("inc", &["u32"]),
    ("dec", &["u32"]),
    ("and", &["b32"]),
    ("or", &["b32"]),
    ("xor", &["b32"]),
];

#[test]
fn every_bulk_reduction_translates() {
    let mut body = String::new();
    for (op, types) in GLOBAL_TYPES {
        for ty in types {
            body += &format!(
                "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.{ty} [%rd2], [tile], 64;\n"
            );
        }
    }
    for ty in ["f16", "bf16"] {
        body += &format!(
            "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.noftz.{ty} \
             [%rd2], [tile], %r1, %rd3;\n"
        );
    }
    for (op, types) in CLUSTER_TYPES {
        for ty in types {
            body += &format!(
                "\tcp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{op}.{ty} \
                 [tile+512], [tile], 32, [bar];\n"
            );
        }
    }
    body += "\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;";
    translates(&body);
}

#[test]
fn bulk_reductions_outside_the_isa_are_refused() {
    // Types the table does not list for the operator or the destination.
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.inc.s32 [%rd2], [tile], 16;",
        "does not take type .s32",
    );
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 [%rd2], [tile], 16;",
        "does not take type .f32",
    );
    refused(
        "\tcp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b64 \
         [tile+512], [tile], 16, [bar];",
        "does not take type .b64",
    );
    refused(
        "\tcp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.f32 \
         [tile+512], [tile], 16, [bar];",
        "does not take type .f32",
    );
    // Half-precision adds are `.add.noftz`, and `.noftz` goes with nothing else.
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd2], [tile], 16;",
        "as `.add.noftz`",
    );
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f32 [%rd2], [tile], 16;",
        "as `.add.noftz`",
    );
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.min.noftz.f16 [%rd2], [tile], 16;",
        "only with `.add`",
    );
    // Each destination has its own completion mechanism, and the spaces their order.
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.mbarrier::complete_tx::bytes.add.u32 \
         [%rd2], [tile], 16, [bar];",
        "`cp.reduce.async.bulk` reduces",
    );
    refused(
        "\tcp.reduce.async.bulk.shared::cta.global.bulk_group.add.u32 [tile], [%rd2], 16;",
        "`cp.reduce.async.bulk` reduces",
    );
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.u32 [%rd2], [tile], 16;",
        "needs its operator",
    );
    refused(
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [tile], 24;",
        "not a multiple of 16",
    );
    refused_with(
        "8.6",
        "sm_80",
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [tile], 16;",
        "sm_90",
    );
    refused_with(
        "7.8",
        "sm_90",
        "\tcp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [tile], 16;",
        "8.0",
    );
}

#[test]
fn multicast_to_the_one_block_cluster_translates() {
    translates(
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1, {%r1, %r2}], [bar], %rs1;\n\
         \tcp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint \
         [tile], [%rd1, {%r1}], [bar], 1, %rd3;\n\
         \tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%rs1}, %rs2;",
    );
}

#[test]
fn multicast_beyond_the_one_block_cluster_is_refused() {
    // A constant mask naming ranks other than 0 is refused at the mask.
    let body = "\tcp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
                [tile], [%rd1, {%r1}], [bar], 0x8001;";
    family_support::rejected_in(&kernel("8.6", "sm_90", body), body, "0x8001", Stage::Check);
    refused(body, "only bit 0 can be honoured");
    // Multicast is for loads into `.shared::cluster`.
    for body in [
        "\tcp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1, {%r1}], [bar], 1;",
        "\tcp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group.multicast::cluster \
         [%rd1, {%r1}], [tile], 1;",
    ] {
        family_support::rejected_in(
            &kernel("8.6", "sm_90", body),
            body,
            "multicast::cluster",
            Stage::Check,
        );
    }
}

#[test]
fn forms_outside_the_isa_are_refused() {
    refused(
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.bulk_group \
         [tile], [%rd1, {%r1, %r2}], [bar];",
        "`cp.async.bulk.tensor` copies",
    );
    refused(
        "\tcp.async.bulk.tensor.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2}], [bar];",
        "needs its dimension",
    );
    refused(
        "\tcp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2}], [bar];",
        "with 3 coordinates",
    );
    refused(
        "\tcp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1}];",
        "takes 3 operands",
    );
}

#[test]
fn coordinates_are_32_bit() {
    // "tensorCoords ... of type .s32": a 64-bit register is refused at its token.
    for body in [
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %rd4}], [bar];",
        "\tcp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group \
         [%rd1, {%rd4}], [tile];",
    ] {
        family_support::rejected_in(&kernel("8.6", "sm_90", body), body, "%rd4", Stage::Check);
    }
}

#[test]
fn older_targets_and_versions_are_gated() {
    let load = "\tcp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
                [tile], [%rd1, {%r1}], [bar];";
    refused_with("8.6", "sm_80", load, "sm_90");
    refused_with("7.8", "sm_90", load, "8.0");
    // `.shared::cta` as the destination is PTX ISA 8.6.
    refused_with(
        "8.5",
        "sm_90",
        "\tcp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1}], [bar];",
        "8.6",
    );
}
