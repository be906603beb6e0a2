//! The sets of the matrix, texture and video instructions (ISA 8.7.7, 9.7.14, 9.7.15, 9.7.18).

use super::groups::*;
use crate::check::catalog::modset::{Group, ModSet};
use crate::types::ScalarType::*;

// Warp-level and warpgroup matrix instructions (9.7.14, 9.7.15).
pub const MMA_TYPE: Group = Group::words(
    "element type",
    &[
        "f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s4", "u4", "b1", "s32", "e4m3", "e5m2",
        "e3m2", "e2m3", "e2m1",
    ],
);
pub const LAYOUT: Group = Group::words("layout", &["row", "col"]);
pub const MMA: ModSet = &[
    SYNC_ALIGNED,
    Group::words(
        "shape",
        &[
            "m8n8k4",
            "m8n8k16",
            "m8n8k32",
            "m8n8k128",
            "m16n8k4",
            "m16n8k8",
            "m16n8k16",
            "m16n8k32",
            "m16n8k64",
            "m16n8k128",
            "m16n8k256",
        ],
    ),
    LAYOUT,
    Group::words("sparsity", &["sp", "sp::ordered_metadata"]),
    Group::words(
        "kind",
        &[
            "kind::f8f6f4",
            "kind::mxf8f6f4",
            "kind::mxf4",
            "kind::mxf4nvf4",
        ],
    ),
    Group::words("block_scale", &["block_scale"]),
    Group::words(
        "scale vector",
        &["scale_vec::1X", "scale_vec::2X", "scale_vec::4X"],
    ),
    Group::words("scale type", &["ue8m0", "ue4m3"]),
    ROUNDING,
    SATFINITE,
    Group::words("bit operation", &["xor", "and", "popc"]),
    MMA_TYPE,
];
pub const WMMA: ModSet = &[
    Group::words("operation", &["load", "store", "mma"]),
    Group::words("matrix", &["a", "b", "c", "d"]),
    SYNC_ALIGNED,
    Group::words("shape", &["m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8"]),
    LAYOUT,
    SPACES,
    SATFINITE,
    MMA_TYPE,
];
pub const LDMATRIX: ModSet = &[
    SYNC_ALIGNED,
    Group::words("shape", &["m8n8"]),
    Group::words("count", &["x1", "x2", "x4"]),
    Group::words("trans", &["trans"]),
    SPACES,
    types(&[B16]),
];
pub const MOVMATRIX: ModSet = &[
    SYNC_ALIGNED,
    Group::words("shape", &["m8n8"]),
    Group::words("trans", &["trans"]),
    types(&[B16]),
];
pub const WGMMA: ModSet = &[
    Group::words(
        "operation",
        &["fence", "commit_group", "wait_group", "mma_async"],
    ),
    SYNC_ALIGNED,
    Group::words("sparsity", &["sp"]),
    Group::Pattern {
        meaning: "shape",
        shown: ".m64nNkK (N 8..256 by 8, K 8, 16, 32 or 64)",
        test: wgmma_shape,
    },
    SATFINITE,
    MMA_TYPE,
];

fn wgmma_shape(name: &str) -> bool {
    let Some((n, k)) = name
        .strip_prefix("m64n")
        .and_then(|rest| rest.split_once('k'))
    else {
        return false;
    };
    let (Ok(n), Ok(k)) = (n.parse::<u32>(), k.parse::<u32>()) else {
        return false;
    };
    (8..=256).contains(&n) && n % 8 == 0 && [8, 16, 32, 64].contains(&k)
}

// Textures (8.7.7).
pub const TEX: ModSet = &[
    GEOMETRY,
    Group::words("level", &["base", "level", "grad"]),
    VECTOR,
    types(&[U32, S32, F32, F16, F16x2]),
];
pub const TLD4: ModSet = &[
    Group::words("component", &["r", "g", "b", "a"]),
    GEOMETRY,
    Group::words("vector", &["v4"]),
    types(&[U32, S32, F32]),
];
pub const TXQ: ModSet = &[
    Group::words("level", &["level"]),
    Group::words(
        "query",
        &[
            "width",
            "height",
            "depth",
            "channel_data_type",
            "channel_order",
            "normalized_coords",
            "array_size",
            "num_mipmap_levels",
            "num_samples",
            "force_unnormalized_coords",
            "filter_mode",
            "addr_mode_0",
            "addr_mode_1",
            "addr_mode_2",
        ],
    ),
    types(&[B32]),
];

// Video (9.7.18).
pub const VIDEO_TYPES: Group = Group::Types(&[U32, S32]);
pub const SECONDARY: Group = Group::words("secondary operation", &["add", "min", "max"]);
pub const VIDEO_SCALAR: ModSet = &[SAT, SECONDARY, VIDEO_TYPES];
pub const VIDEO_SHIFT: ModSet = &[SAT, SHIFT_WRAP, SECONDARY, VIDEO_TYPES];
pub const VIDEO_MAD: ModSet = &[
    Group::words("po", &["po"]),
    Group::words("shift", &["shr7", "shr15"]),
    SAT,
    VIDEO_TYPES,
];
pub const VIDEO_SET: ModSet = &[
    Group::words("comparison", &["eq", "ne", "lt", "le", "gt", "ge"]),
    SECONDARY,
    VIDEO_TYPES,
];
pub const VIDEO_SIMD: ModSet = &[
    SAT,
    Group::words("secondary operation", &["add"]),
    VIDEO_TYPES,
];
pub const VIDEO_SIMD_SET: ModSet = &[
    Group::words("comparison", &["eq", "ne", "lt", "le", "gt", "ge"]),
    Group::words("secondary operation", &["add"]),
    VIDEO_TYPES,
];
