//! The im2col load and store modes, the four-row forms and the wide im2col modes: every form
//! translates, and those the ISA does not have are refused and gated as it says.

use super::*;

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
