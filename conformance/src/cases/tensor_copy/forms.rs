//! The tile-mode forms run (ranks, edges, fills, strides, swizzles, and the reductions on each
//! element type) and those the ISA refuses.

use super::*;
use crate::cases::tensor_model::S64;

/// The boxes each run as a load and as a store.
fn specs() -> Vec<(&'static str, Spec)> {
    let mut v = vec![
        // Over the end of a row of f32.
        ("f32-past-end", spec(F32, &[10], &[], &[8], &[6])),
        // u8 from before the start: no word of the box is aligned in global memory.
        ("u8-before-start", spec(U8, &[40], &[], &[16], &[-5])),
        ("u64-inside", spec(U64, &[9], &[], &[4], &[3])),
        // Over the left and bottom edges, rows padded to 64 bytes.
        ("f32-corner", spec(F32, &[13, 10], &[64], &[8, 4], &[-3, 8])),
        // Wholly outside.
        ("s32-outside", spec(S32, &[4, 4], &[16], &[4, 2], &[0, 9])),
        (
            "u16-past-depth",
            spec(U16, &[8, 5, 3], &[32, 160], &[8, 4, 2], &[4, 3, 2]),
        ),
        (
            "u32-four-edges",
            spec(
                U32,
                &[6, 3, 5, 2],
                &[32, 96, 480],
                &[4, 2, 2, 2],
                &[4, -1, 4, 1],
            ),
        ),
        (
            "u16-five",
            spec(
                U16,
                &[8, 3, 2, 2, 3],
                &[16, 48, 96, 192],
                &[8, 2, 2, 2, 2],
                &[0, 1, 0, 1, 2],
            ),
        ),
    ];
    // Element strides (the first is ignored): every second and third element.
    let mut strided = spec(F16, &[20, 9, 7], &[48, 48 * 9], &[8, 5, 3], &[4, 1, 2]);
    strided.element_strides = vec![4, 2, 3];
    v.push(("f16-element-strides", strided));
    let mut strided5 = spec(
        F32,
        &[8, 5, 4, 3, 3],
        &[32, 160, 640, 1920],
        &[4, 3, 2, 3, 2],
        &[6, 0, -1, 1, 1],
    );
    strided5.element_strides = vec![1, 2, 3, 2, 2];
    v.push(("f32-element-strides", strided5));
    // NaN fill of each float size.
    for (name, dt, dims, strides, boxes) in [
        ("f32-nan-fill", F32, [6u64, 5], [32u64], [8u32, 4]),
        ("bf16-nan-fill", BF16, [12, 5], [32], [16, 2]),
        ("f16-nan-fill", F16, [5, 5], [16], [8, 3]),
        ("f64-nan-fill", F64, [3, 5], [32], [2, 3]),
    ] {
        let mut n = spec(dt, &dims, &strides, &boxes, &[-1, 3]);
        n.nan_fill = true;
        v.push((name, n));
    }
    // Each swizzle span with rows as wide as it, over 16 rows (two repeats of the 128B one),
    // the box over the tensor's right edge.
    for (name, swizzle, width) in [
        ("swizzle-32b", 1u32, 8u32),
        ("swizzle-64b", 2, 16),
        ("swizzle-128b", 3, 32),
        ("swizzle-128b-atom-32b", 4, 32),
        ("swizzle-128b-atom-64b", 6, 32),
    ] {
        let mut s = spec(
            F32,
            &[40, 20],
            &[160],
            &[width, 16],
            &[40 - width as i32 + 3, 3],
        );
        s.swizzle = swizzle;
        v.push((name, s));
    }
    v
}

/// Each operator on each element type the ISA lists for it, the rank cycling through 1-5 and
/// the box over the tensor's edges; one with the 128-byte swizzle.
fn reductions() -> Vec<Case> {
    let mut v = Vec::new();
    let mut k = 0usize;
    for op in Red::ALL {
        for &dt in op.types() {
            let e: u64 = match dt {
                F16 | BF16 => 2,
                U64 | S64 => 8,
                _ => 4,
            };
            let row = 16 / e as u32;
            let mut s = match k % 5 {
                0 => spec(
                    dt,
                    &[3 * u64::from(row)],
                    &[],
                    &[2 * row],
                    &[u64::from(row) as i32 * 2],
                ),
                1 => spec(dt, &[u64::from(row) + 3, 5], &[64], &[row, 3], &[-2, 3]),
                2 => spec(
                    dt,
                    &[u64::from(row), 3, 4],
                    &[32, 96],
                    &[row, 2, 2],
                    &[1, -1, 3],
                ),
                3 => spec(
                    dt,
                    &[u64::from(row), 2, 2, 3],
                    &[32, 64, 128],
                    &[row, 2, 2, 2],
                    &[0, 1, 0, 2],
                ),
                _ => spec(
                    dt,
                    &[u64::from(row), 2, 2, 2, 2],
                    &[16, 32, 64, 128],
                    &[row, 2, 1, 2, 2],
                    &[-1, 0, 1, 1, 1],
                ),
            };
            if op == Red::Add && dt == F32 {
                s = spec(F32, &[40, 20], &[160], &[32, 16], &[11, 7]);
                s.swizzle = 3;
            }
            let name = [
                "u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16",
            ][dt as usize];
            let form = Form {
                reduce: Some(op),
                ..Form::default()
            };
            v.push(case(name, &s, false, form));
            k += 1;
        }
    }
    v
}

/// A kernel around one tensor instruction, for the rejected forms.
fn module(line: &str) -> String {
    rejection_module(HEADER, line)
}

fn rejections() -> Vec<Case> {
    [
        // ".dim = { .1d, .2d, .3d, .4d, .5d }", with as many coordinates.
        (
            "three-coordinates-for-2d",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
             [t], [%rd1, {%r1, %r1, %r1}], [b];",
            "[%rd1, {%r1, %r1, %r1}]",
        ),
        // Loads complete on an mbarrier, stores in bulk async-groups.
        (
            "store-with-mbarrier",
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.mbarrier::complete_tx::bytes \
             [%rd1, {%r1}], [t];",
            "cp.async.bulk.tensor.1d.global.shared::cta.tile.mbarrier::complete_tx::bytes",
        ),
        // "Each bit position in the 16-bit ctaMask operand corresponds to the %cluster_ctarank
        // of the destination CTA": ptxvk's clusters have only rank 0.
        (
            "multicast-to-other-ctas",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
             [t], [%rd1, {%r1}], [b], 3;",
            "3",
        ),
        // ".completion_mechanism = { .mbarrier::complete_tx::bytes }" for loads: not optional.
        (
            "load-without-completion",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile [t], [%rd1, {%r1}], [b];",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile",
        ),
    ]
    .into_iter()
    .map(|form| rejected_line(FAMILY, "tensor/rejected", module, form))
    .collect()
}

pub(crate) fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (k, (name, s)) in specs().into_iter().enumerate() {
        // Loads and stores alternate in pairs so that the quick subset (every fourth case)
        // holds both.
        let first_load = k / 2 % 2 == 0;
        v.push(case(name, &s, first_load, Form::default()));
        v.push(case(name, &s, !first_load, Form::default()));
    }
    // The other ways to write the instruction, on one box each.
    let edge = spec(F32, &[13, 10], &[64], &[8, 4], &[-3, 8]);
    let forms = [
        (
            "map-in-global",
            Form {
                map_in_global: true,
                ..Form::default()
            },
        ),
        (
            "hint-prefetch-no-tile",
            Form {
                hint: true,
                prefetch: true,
                no_tile: true,
                ..Form::default()
            },
        ),
    ];
    for (name, form) in forms {
        v.push(case(name, &edge, true, form));
        v.push(case(name, &edge, false, form));
    }
    let cta = Form {
        cta_dst: true,
        ..Form::default()
    };
    v.push(case("shared-cta", &edge, true, cta));
    // Multicast to the one-block cluster: its CTA, rank 0, is the destination.
    for (name, in_register) in [("multicast", false), ("multicast-mask-register", true)] {
        let form = Form {
            multicast: Some(in_register),
            hint: in_register,
            ..Form::default()
        };
        v.push(case(name, &edge, true, form));
    }
    let hinted = Form {
        hint: true,
        prefetch: true,
        ..Form::default()
    };
    let five = spec(
        U8,
        &[40, 3, 2, 3, 2],
        &[48, 144, 288, 864],
        &[32, 2, 2, 2, 2],
        &[20, 2, 1, 1, 1],
    );
    v.push(case("u8-prefetch-hint", &five, true, hinted));
    for (name, staged) in [
        ("tensormap-replace", false),
        ("tensormap-replace-shared", true),
    ] {
        let form = Form {
            replace: Some(staged),
            ..Form::default()
        };
        v.push(case(name, &edge, true, form));
    }
    // Every field rewritten, in global memory and in shared memory: a strided 3-d f16 box
    // with NaN fill loaded, and a swizzled 2-d f32 box stored.
    let mut strided = spec(F16, &[20, 9, 7], &[48, 48 * 9], &[8, 5, 3], &[4, 1, 2]);
    strided.element_strides = vec![4, 2, 3];
    strided.nan_fill = true;
    let mut swizzled = spec(F32, &[40, 20], &[160], &[32, 16], &[11, 3]);
    swizzled.swizzle = 3;
    // The swizzle's span and atom written as two fields.
    let mut atoms = swizzled.clone();
    atoms.swizzle = 4;
    v.push(case(
        "tensormap-replace-fields-atom-32b",
        &atoms,
        true,
        Form {
            replace: Some(false),
            edit_fields: true,
            ..Form::default()
        },
    ));
    for (name, staged) in [
        ("tensormap-replace-fields", false),
        ("tensormap-replace-fields-shared", true),
    ] {
        let form = Form {
            replace: Some(staged),
            edit_fields: true,
            ..Form::default()
        };
        v.push(case(name, &strided, true, form));
        v.push(case(name, &swizzled, false, form));
    }
    v.extend(reductions());
    v.extend(rejections());
    v
}
