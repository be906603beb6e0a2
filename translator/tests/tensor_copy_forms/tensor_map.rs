//! `tensormap.replace` and the tensor-map values ptxvk reads: every field translates, values
//! it cannot hold and values outside their ranges are refused by name.

use super::*;

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
