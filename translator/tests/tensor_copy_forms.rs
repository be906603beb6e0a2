//! `cp.async.bulk.tensor` as sm_90 compilers write it: the `.tile` forms of every rank check,
//! translate for every warp strategy and pass SPIRV-Tools; the load modes and forms ptxvk does
//! not implement, and the forms the ISA does not have, are refused by name; older targets and
//! PTX versions are gated. What the copies compute is run by the runtime's `tensor_copy` test.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod family_support;

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
fn tensor_map_edits_translate() {
    translates_on(
        "sm_90a",
        "\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd3;\n\
         \ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [tile], %rd3;\n\
         \ttensormap.replace.tile.global_address.b1024.b64 [%rd2+128], %rd3;\n\
         \ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
         [%rd2], [tile], 128;\n\
         \tfence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;",
    );
}

#[test]
fn every_tensor_map_field_translates() {
    translates_on(
        "sm_90a",
        "\ttensormap.replace.tile.rank.global.b1024.b32 [%rd2], %r1;\n\
         \ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tile], 1, %r1;\n\
         \ttensormap.replace.tile.global_dim.b1024.b32 [%rd2], 4, %r2;\n\
         \ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd2], 3, %rd3;\n\
         \ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tile], 0, 2;\n\
         \ttensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 7;\n\
         \ttensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd2], 0;\n\
         \ttensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [tile], 3;\n\
         \ttensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd2], 0;\n\
         \ttensormap.replace.tile.fill_mode.global.b1024.b32 [%rd2], 1;",
    );
}

#[test]
fn wide_swizzle_atoms_translate() {
    translates_on(
        "sm_90a",
        "\ttensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd2], 1;\n\
         \ttensormap.replace.tile.swizzle_atomicity.shared::cta.b1024.b32 [tile], 3;",
    );
}

#[test]
fn tensor_map_values_ptxvk_cannot_hold_are_refused_by_name() {
    let refused_90a = |body: &str, message: &str| refused_with("8.6", "sm_90a", body, message);
    refused_90a(
        "\ttensormap.replace.tile.elemtype.global.b1024.b32 [%rd2], 10;",
        "(element type 10 in the `.elemtype` field) is not supported by ptxvk yet",
    );
    refused_90a(
        "\ttensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd2], 1;",
        "(an interleaved layout in the `.interleave_layout` field) is not supported",
    );
    refused_90a(
        "\ttensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [%rd2], 2;",
        "(32-byte swizzle atoms with the 8-byte flip in the `.swizzle_atomicity` field)",
    );
    refused_90a(
        "\ttensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd2], 4;",
        "(swizzle mode 4 in the `.swizzle_mode` field)",
    );
    refused_90a(
        "\ttensormap.replace.tile.fill_mode.global.b1024.b32 [%rd2], 2;",
        "`.fill_mode` has no value 2",
    );
    refused_90a(
        "\ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd2], 4, %rd3;",
        "`ord` of `.global_stride` is 0 to 3, not 4",
    );
    refused_90a(
        "\ttensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 5, %r1;",
        "`ord` of `.box_dim` is 0 to 4, not 5",
    );
    refused_90a(
        "\ttensormap.replace.tile.rank.global.b1024.b64 [%rd2], %rd3;",
        "does not take type .b64",
    );
    refused(
        "\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
         [%rd2], [tile], 64;",
        "a tensor map is 128 bytes",
    );
    refused_with(
        "8.2",
        "sm_90a",
        "\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd3;",
        "8.3",
    );
}

/// Constant values outside a field's range (the ISA's "Tensor-map" section, CUDA's encoder)
/// are refused at the value; the bounds themselves are accepted.
#[test]
fn tensor_map_fields_outside_their_ranges_are_refused() {
    let refused_90a = |body: &str, message: &str| refused_with("8.6", "sm_90a", body, message);
    let line = |field: &str, ty: &str, operands: &str| {
        format!("\ttensormap.replace.tile.{field}.global.b1024.{ty} [%rd2], {operands};")
    };
    for (field, ty, bad, good, message) in [
        ("rank", "b32", "5", "4", "rank is 1 to 5"),
        (
            "box_dim",
            "b32",
            "1, 0",
            "1, 1",
            "box dimensions are 1 to 256",
        ),
        (
            "box_dim",
            "b32",
            "4, 257",
            "4, 256",
            "box dimensions are 1 to 256",
        ),
        (
            "element_stride",
            "b32",
            "2, 0",
            "2, 1",
            "element strides are 1 to 8",
        ),
        (
            "element_stride",
            "b32",
            "0, 9",
            "0, 8",
            "element strides are 1 to 8",
        ),
        (
            "global_dim",
            "b32",
            "3, 0",
            "3, 4294967295",
            "dimensions are 1 to 2^32",
        ),
        (
            "global_stride",
            "b64",
            "0, 24",
            "0, 32",
            "multiples of 16 below 2^40",
        ),
        (
            "global_stride",
            "b64",
            "3, 1099511627776",
            "3, 1099511627760",
            "multiples of 16 below 2^40",
        ),
        ("global_address", "b64", "8", "4096", "16-byte aligned"),
    ] {
        refused_90a(&line(field, ty, bad), message);
        translates_on("sm_90a", &line(field, ty, good));
    }
    // A register is written as it is.
    translates_on(
        "sm_90a",
        "\tmov.b32 %r1, 0;\n\ttensormap.replace.tile.box_dim.global.b1024.b32 [%rd2], 0, %r1;",
    );
}

#[test]
fn tensor_map_replacement_needs_an_architecture_specific_target() {
    let replace = "\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd2], %rd3;";
    for target in ["sm_90", "sm_100", "sm_120"] {
        refused_with("8.8", target, replace, "`tensormap.replace` needs");
    }
    for target in ["sm_90a", "sm_100a", "sm_100f", "sm_120f"] {
        family_support::translates_for_every_profile(&kernel("8.8", target, replace), replace);
    }
    // The copy back to global memory is plain sm_90's.
    translates(
        "\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned \
         [%rd2], [tile], 128;",
    );
}

#[test]
fn every_im2col_form_translates() {
    translates(
        "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%rs1};\n\
         \tcp.async.bulk.tensor.4d.shared::cta.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [tmap, {%r1, %r2, %r3, %r4}], [bar], {%rs1, %rs2}, %rd3;\n\
         \tcp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar], {%rs1, %rs2, %rs3};\n\
         \tcp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%rd1, {%r1, %r2, %r3, %r4}], {%rs1, %rs2};\n\
         \tcp.async.bulk.prefetch.tensor.3d.L2.global.im2col.L2::cache_hint \
         [%rd1, {%r1, %r2, %r3}], {%rs3}, %rd3;",
    );
}

#[test]
fn im2col_forms_outside_the_isa_are_refused() {
    // "im2col mode supports 3d, 4d and 5d tensors": refused at the mode.
    let at_mode = |body: &str| {
        family_support::rejected_in(&kernel("8.6", "sm_90", body), body, "im2col", Stage::Check);
    };
    at_mode(
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2}], [bar], {%rs1};",
    );
    // A load mode: stores take `.tile`, `.tile::scatter4` or `.im2col_no_offs`.
    at_mode(
        "\tcp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd1, {%r1, %r2, %r3}], [tile];",
    );
    at_mode(
        "\tcp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col.bulk_group \
         [%rd1, {%r1, %r2, %r3}], [tile];",
    );
    refused(
        "\tcp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4}], [bar], {%rs1};",
        "takes 2 im2col offsets, found 1",
    );
    refused(
        "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar];",
        "takes 4 operands",
    );
    // The offsets are 16-bit values: a 32-bit register is refused at its token.
    let body = "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes \
                [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%r4};";
    family_support::rejected_in(&kernel("8.6", "sm_90", body), body, "%r4", Stage::Check);
}

#[test]
fn im2col_stores_translate() {
    translates(
        "\tcp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group \
         [%rd1, {%r1, %r2, %r3}], [tile];\n\
         \tcp.async.bulk.tensor.5d.global.shared::cta.im2col_no_offs.bulk_group.L2::cache_hint \
         [tmap, {%r1, %r2, %r3, %r4, %r5}], [tile], %rd3;\n\
         \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;",
    );
    // The reductions' im2col mode (ISA: `.load_mode = { .tile, .im2col_no_offs }`).
    for op in ["add", "min", "max", "inc", "dec", "and", "or", "xor"] {
        translates(&format!(
            "\tcp.reduce.async.bulk.tensor.3d.global.shared::cta.{op}.im2col_no_offs.bulk_group \
             [%rd1, {{%r1, %r2, %r3}}], [tile];\n\
             \tcp.reduce.async.bulk.tensor.5d.global.shared::cta.{op}.im2col_no_offs.bulk_group.L2::cache_hint \
             [tmap, {{%r1, %r2, %r3, %r4, %r5}}], [tile], %rd3;\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;"
        ));
    }
}

#[test]
fn im2col_store_forms_outside_the_isa_are_refused() {
    let at_mode = |body: &str| {
        family_support::rejected_in(
            &kernel("8.6", "sm_90", body),
            body,
            "im2col_no_offs",
            Stage::Check,
        );
    };
    // The mode of copies into the tensor: not a load's or a prefetch's, and 3d to 5d.
    at_mode(
        "\tcp.async.bulk.tensor.3d.shared::cta.global.im2col_no_offs.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar];",
    );
    at_mode("\tcp.async.bulk.prefetch.tensor.3d.L2.global.im2col_no_offs [%rd1, {%r1, %r2, %r3}];");
    at_mode(
        "\tcp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group \
         [%rd1, {%r1, %r2}], [tile];",
    );
    at_mode(
        "\tcp.reduce.async.bulk.tensor.2d.global.shared::cta.add.im2col_no_offs.bulk_group \
         [%rd1, {%r1, %r2}], [tile];",
    );
    // No im2colInfo.
    refused(
        "\tcp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group \
         [%rd1, {%r1, %r2, %r3}], [tile], {%rs1};",
        "takes 2 operands",
    );
    refused(
        "\tcp.reduce.async.bulk.tensor.3d.global.shared::cta.or.im2col_no_offs.bulk_group \
         [%rd1, {%r1, %r2, %r3}], [tile], {%rs1};",
        "takes 2 operands",
    );
}

#[test]
fn every_four_row_form_translates() {
    // `.tile::gather4` into `.shared::cta` on any sm_100 target; into `.shared::cluster`, the
    // prefetch and `.tile::scatter4` on the sm_100a family.
    translates_on(
        "sm_100",
        "\tcp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
    );
    translates_on(
        "sm_100a",
        "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [tmap, {%r1, %r2, %r3, %r4, 7}], [bar], %rd3;\n\
         \tcp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar], %rs1;\n\
         \tcp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 [%rd1, {%r1, %r2, %r3, %r4, %r5}];\n\
         \tcp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group \
         [%rd1, {%r1, %r2, %r3, %r4, %r5}], [tile];\n\
         \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;",
    );
}

#[test]
fn four_row_forms_outside_the_isa_are_refused() {
    let at_mode = |body: &str, mode: &str| {
        family_support::rejected_in(&kernel("8.6", "sm_100a", body), body, mode, Stage::Check);
    };
    // "These modes work only on 2D tensor data."
    at_mode(
        "\tcp.async.bulk.tensor.3d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
        "tile::gather4",
    );
    // Gather into shared memory, scatter into the tensor; reductions have neither.
    at_mode(
        "\tcp.async.bulk.tensor.2d.global.shared::cta.tile::gather4.bulk_group \
         [%rd1, {%r1, %r2, %r3, %r4, %r5}], [tile];",
        "tile::gather4",
    );
    at_mode(
        "\tcp.async.bulk.tensor.2d.shared::cta.global.tile::scatter4.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
        "tile::scatter4",
    );
    at_mode(
        "\tcp.async.bulk.prefetch.tensor.2d.L2.global.tile::scatter4 [%rd1, {%r1, %r2, %r3, %r4, %r5}];",
        "tile::scatter4",
    );
    at_mode(
        "\tcp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile::scatter4.bulk_group \
         [%rd1, {%r1, %r2, %r3, %r4, %r5}], [tile];",
        "tile::scatter4",
    );
    // `{col, row0, row1, row2, row3}`: five coordinates.
    let refused_100a = |body: &str, message: &str| refused_with("8.6", "sm_100a", body, message);
    refused_100a(
        "\tcp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2}], [bar];",
        "with 5 coordinates",
    );
}

#[test]
fn four_row_modes_are_gated_as_the_isa_says() {
    let cta = "\tcp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes \
               [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];";
    refused_with("8.6", "sm_90a", cta, "sm_100");
    refused_with("8.5", "sm_100", cta, "8.6");
    let cluster = cta.replace("shared::cta", "shared::cluster");
    refused_with("8.6", "sm_100", &cluster, "sm_100a");
    let scatter = "\tcp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group \
                   [%rd1, {%r1, %r2, %r3, %r4, %r5}], [tile];";
    refused_with("8.6", "sm_100", scatter, "`.tile::scatter4`");
    let prefetch = "\tcp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4 \
                    [%rd1, {%r1, %r2, %r3, %r4, %r5}];";
    refused_with("8.6", "sm_100", prefetch, "sm_100a");
}

#[test]
fn every_wide_im2col_form_translates() {
    // Into `.shared::cta` any sm_100 target; `.shared::cluster`, `.im2col::w::128` and the
    // prefetches need the sm_100a family.
    translates_on(
        "sm_100",
        "\tcp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%rs1, %rs2};\n\
         \tcp.async.bulk.tensor.5d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes.L2::cache_hint \
         [tile], [%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar], {2, 1}, %rd3;",
    );
    translates_on(
        "sm_100a",
        "\tcp.async.bulk.tensor.4d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3, %r4}], [bar], {%rs1, %rs2};\n\
         \tcp.async.bulk.tensor.4d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes.multicast::cluster \
         [tile], [tmap, {%r1, %r2, %r3, %r4}], [bar], {%rs1, %rs2}, %rs3;\n\
         \tcp.async.bulk.tensor.3d.shared::cta.global.im2col::w::128.mbarrier::complete_tx::bytes \
         [tile], [%rd1, {%r1, %r2, %r3}], [bar], {31, 0};\n\
         \tcp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w [%rd1, {%r1, %r2, %r3}], {%rs1, %rs2};\n\
         \tcp.async.bulk.prefetch.tensor.5d.L2.global.im2col::w::128.L2::cache_hint \
         [%rd1, {%r1, %r2, %r3, %r4, %r5}], {%rs1, %rs2}, %rd3;",
    );
    let family = "\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes \
                  [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%rs1, %rs2};";
    family_support::translates_for_every_profile(&kernel("9.0", "sm_110f", family), family);
}

#[test]
fn wide_im2col_forms_outside_the_isa_are_refused() {
    let body = |mode: &str, dims: &str, coords: &str, info: &str| {
        format!(
            "\tcp.async.bulk.tensor.{dims}.shared::cta.global.{mode}.mbarrier::complete_tx::bytes \
             [tile], [%rd1, {{{coords}}}], [bar], {info};"
        )
    };
    let at = |body: &str, token: &str| {
        family_support::rejected_in(&kernel("8.6", "sm_100a", body), body, token, Stage::Check);
    };
    // 3d to 5d, like `.im2col`.
    at(
        &body("im2col::w", "2d", "%r1, %r2", "{%rs1, %rs2}"),
        "im2col::w",
    );
    // `{wHalo, wOffset}`, not the im2col offsets.
    at(
        &body("im2col::w", "4d", "%r1, %r2, %r3, %r4", "{%rs1}"),
        "{%rs1}",
    );
    // wHalo lies in [0, 512) for `.im2col::w`, [0, 32) for `.im2col::w::128`; wOffset in
    // [0, 32).
    at(&body("im2col::w", "3d", "%r1, %r2, %r3", "{512, 0}"), "512");
    at(
        &body("im2col::w::128", "3d", "%r1, %r2, %r3", "{32, 0}"),
        "32",
    );
    at(&body("im2col::w", "3d", "%r1, %r2, %r3", "{0, 32}"), "32");
    // 16-bit values.
    at(
        &body("im2col::w", "3d", "%r1, %r2, %r3", "{%r4, %rs1}"),
        "%r4",
    );
    // Load modes only.
    let store = "\tcp.async.bulk.tensor.3d.global.shared::cta.im2col::w.bulk_group \
                 [%rd1, {%r1, %r2, %r3}], [tile];";
    at(store, "im2col::w");
    let reduce = "\tcp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col::w::128.bulk_group \
                  [%rd1, {%r1, %r2, %r3}], [tile];";
    at(reduce, "im2col::w::128");
    // One load mode.
    at(
        &body("im2col::w.tile", "3d", "%r1, %r2, %r3", "{%rs1, %rs2}"),
        "im2col::w",
    );
}

#[test]
fn wide_im2col_modes_are_gated_as_the_isa_says() {
    let cta = "\tcp.async.bulk.tensor.3d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes \
               [tile], [%rd1, {%r1, %r2, %r3}], [bar], {%rs1, %rs2};";
    refused_with("8.6", "sm_90a", cta, "sm_100");
    refused_with("8.5", "sm_100", cta, "8.6");
    let cluster = cta.replace("shared::cta", "shared::cluster");
    refused_with("8.6", "sm_100", &cluster, "sm_100a");
    refused_with("8.8", "sm_120a", &cluster, "sm_100a");
    let w128 = cta.replace("im2col::w", "im2col::w::128");
    refused_with("8.6", "sm_100", &w128, "`.im2col::w::128`");
    let prefetch = "\tcp.async.bulk.prefetch.tensor.3d.L2.global.im2col::w \
                    [%rd1, {%r1, %r2, %r3}], {%rs1, %rs2};";
    refused_with("8.6", "sm_100", prefetch, "sm_100a");
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
