//! The modifier groups the rows' sets are made of, each declared once, and the sets of the
//! families whose rows share them. Names are the ISA's, without their dots; a set lists what
//! its decoder accepts, not what it reads only to reject with a message of its own (integer
//! `div` reads `.approx` to say it has none).

use super::modset::{Group, ModSet};
use crate::types::ScalarType::{self, *};

pub const ROUNDING: Group = Group::words("rounding", &["rn", "rz", "rm", "rp"]);
pub const INT_ROUNDING: Group = Group::words("integer rounding", &["rni", "rzi", "rmi", "rpi"]);
pub const RELU: Group = Group::words("relu", &["relu"]);
pub const SATFINITE: Group = Group::words("satfinite", &["satfinite"]);
pub const FTZ: Group = Group::words("ftz", &["ftz"]);
pub const SAT: Group = Group::words("sat", &["sat"]);
pub const APPROX: Group = Group::words("approx", &["approx"]);
pub const SYNC: Group = Group::words("sync", &["sync"]);
pub const UNI: Group = Group::words("uni", &["uni"]);
pub const CACHE_HINT: Group = Group::words("L2::cache_hint", &["L2::cache_hint"]);
pub const MUL_MODE: Group = Group::words("mode", &["lo", "hi", "wide"]);
pub const HALF: Group = Group::words("half", &["lo", "hi"]);
pub const CC: Group = Group::words("cc", &["cc"]);
pub const VECTOR: Group = Group::words("vector", &["v2", "v4"]);
pub const VECTOR_8: Group = Group::words("vector", &["v2", "v4", "v8"]);
pub const SCOPE: Group = Group::words("scope", &["cta", "cluster", "gpu", "sys"]);
pub const SHIFT_WRAP: Group = Group::words("shift mode", &["clamp", "wrap"]);
/// `.sync.aligned`, which the warp-collective matrix instructions need.
pub const SYNC_ALIGNED: Group = Group::words("sync", &["sync", "aligned"]);
pub const MEMORY_ORDER: Group = Group::words(
    "memory order",
    &["weak", "volatile", "relaxed", "acquire", "release", "mmio"],
);
pub const ATOM_ORDER: Group = Group::words(
    "memory order",
    &["relaxed", "acquire", "release", "acq_rel"],
);
pub const REDUCTION: Group = Group::words(
    "operation",
    &["add", "min", "max", "inc", "dec", "and", "or", "xor"],
);
pub const PREFETCH_SIZE: Group =
    Group::words("prefetch size", &["L2::64B", "L2::128B", "L2::256B"]);
pub const EVICTION: Group = Group::words(
    "eviction priority",
    &[
        "L1::evict_normal",
        "L1::evict_unchanged",
        "L1::evict_first",
        "L1::evict_last",
        "L1::no_allocate",
        "L2::evict_normal",
        "L2::evict_first",
        "L2::evict_last",
    ],
);
pub const TENSOR_DIMS: Group = Group::words("dimensions", &["1d", "2d", "3d", "4d", "5d"]);
pub const GEOMETRY: Group = Group::words(
    "geometry",
    &[
        "1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms",
    ],
);
pub const COMPARE: Group = Group::words(
    "comparison",
    &[
        "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
        "gtu", "geu", "num", "nan",
    ],
);
pub const BOOL_OP: Group = Group::words("boolean", &["and", "or", "xor"]);
/// Every state space a memory instruction may name (each decoder narrows it).
pub const SPACES: Group = Group::words(
    "state space",
    &[
        "global",
        "shared",
        "shared::cta",
        "shared::cluster",
        "local",
        "param",
        "param::entry",
        "param::func",
        "const",
    ],
);
pub const SHARED_GLOBAL: Group = Group::words(
    "state space",
    &["global", "shared", "shared::cta", "shared::cluster"],
);

pub const INTS: &[ScalarType] = &[U16, U32, U64, S16, S32, S64];
pub const SIGNED: &[ScalarType] = &[S16, S32, S64];
pub const FLOATS: &[ScalarType] = &[F16, F16x2, Bf16, Bf16x2, F32, F64];
pub const F32_F64: &[ScalarType] = &[F32, F64];
pub const BITS_32_64: &[ScalarType] = &[B32, B64];
pub const INT_32_64: &[ScalarType] = &[U32, U64, S32, S64];
pub const U32_S32: &[ScalarType] = &[U32, S32];
pub const COMPARED: &[ScalarType] = &[
    B16, B32, B64, U16, U32, U64, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32, F64,
];
pub const SELECTED: &[ScalarType] = &[B16, B32, B64, U16, U32, U64, S16, S32, S64, F32, F64];

const fn types(t: &'static [ScalarType]) -> Group {
    Group::Types(t)
}

// Integer arithmetic (8.7.1).
pub const INT_ADD: ModSet = &[SAT, types(INTS)];
pub const INT_MUL: ModSet = &[MUL_MODE, types(INTS)];
pub const INT_MAD: ModSet = &[MUL_MODE, SAT, types(INTS)];
pub const INT_PLAIN: ModSet = &[types(INTS)];
pub const INT_SIGNED: ModSet = &[types(SIGNED)];
pub const PACKED_16X2: Group = Group::words("packed type", &["u16x2", "s16x2"]);
pub const SIMD_ADD: ModSet = &[PACKED_16X2];
/// `.relu` is also `min/max.relu.s32`'s.
pub const SIMD_MIN_MAX: ModSet = &[RELU, PACKED_16X2, types(&[S32])];
pub const MUL24: ModSet = &[HALF, types(U32_S32)];
pub const MAD24: ModSet = &[HALF, SAT, types(U32_S32)];
pub const BITS: ModSet = &[types(BITS_32_64)];
pub const BFIND: ModSet = &[Group::words("shiftamt", &["shiftamt"]), types(INT_32_64)];
pub const BFE: ModSet = &[types(INT_32_64)];
pub const BMSK: ModSet = &[SHIFT_WRAP, types(&[B32])];
pub const SZEXT: ModSet = &[SHIFT_WRAP, types(U32_S32)];
/// `dp2a` takes which half of `b` it reads; `dp4a` reads all of it.
pub const DOT: ModSet = &[HALF, types(U32_S32)];
pub const DP4A: ModSet = &[types(U32_S32)];
pub const ADD_CC: ModSet = &[CC, types(INT_32_64)];
pub const MAD_CC: ModSet = &[CC, HALF, types(INT_32_64)];

// Floating point (8.7.3).
pub const F_ADD: ModSet = &[ROUNDING, FTZ, SAT, types(FLOATS)];
pub const F_FMA: ModSet = &[
    ROUNDING,
    FTZ,
    SAT,
    RELU,
    Group::words("oob", &["oob"]),
    types(FLOATS),
];
pub const F_MAD: ModSet = &[ROUNDING, FTZ, SAT, types(F32_F64)];
pub const F_DIV: ModSet = &[
    ROUNDING,
    APPROX,
    Group::words("full", &["full"]),
    FTZ,
    types(F32_F64),
];
pub const F_ABS_NEG: ModSet = &[FTZ, types(FLOATS)];
pub const F_MIN_MAX: ModSet = &[
    FTZ,
    Group::words("NaN", &["NaN"]),
    Group::words("sign", &["xorsign", "abs"]),
    types(FLOATS),
];
pub const F_COPYSIGN: ModSet = &[types(F32_F64)];
pub const F_RCP_SQRT: ModSet = &[ROUNDING, APPROX, FTZ, types(F32_F64)];
pub const F_RSQRT: ModSet = &[APPROX, FTZ, types(F32_F64)];
pub const F_SIN_COS_LG2: ModSet = &[APPROX, FTZ, types(&[F32])];
pub const F_EX2: ModSet = &[APPROX, FTZ, types(&[F16, F16x2, Bf16, Bf16x2, F32])];
pub const F_TANH: ModSet = &[APPROX, types(&[F16, F16x2, Bf16, Bf16x2, F32])];
pub const F_TESTP: ModSet = &[
    Group::words(
        "property",
        &[
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ],
    ),
    types(F32_F64),
];

// Comparison and selection (8.7.4).
pub const SETP: ModSet = &[COMPARE, BOOL_OP, FTZ, types(COMPARED)];
pub const SET: ModSet = &[
    COMPARE,
    BOOL_OP,
    FTZ,
    types(&[
        B16, B32, B64, U16, U32, U64, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32, F64,
    ]),
];
pub const SELP: ModSet = &[types(SELECTED)];
pub const SLCT: ModSet = &[FTZ, types(SELECTED)];

// Logic and shift (8.7.5).
pub const BITWISE: ModSet = &[types(&[Pred, B16, B32, B64])];
pub const CNOT: ModSet = &[types(&[B16, B32, B64])];
pub const SHL: ModSet = &[types(&[B16, B32, B64])];
pub const SHR: ModSet = &[types(&[B16, B32, B64, U16, U32, U64, S16, S32, S64])];
pub const LOP3: ModSet = &[Group::words("predicate op", &["or", "and"]), types(&[B32])];
pub const SHF: ModSet = &[
    Group::words("direction", &["l", "r"]),
    SHIFT_WRAP,
    types(&[B32]),
];

// Control flow (9.7.12).
pub const UNI_ONLY: ModSet = &[UNI];
pub const NOTHING: ModSet = &[];
pub const BRX: ModSet = &[Group::words("idx", &["idx"]), UNI];

// Data movement (8.7.6).
pub const MOV: ModSet = &[
    VECTOR,
    types(&[
        Pred, B16, B32, B64, B128, U16, U32, U64, S16, S32, S64, F16, F32, F64,
    ]),
];
pub const MEMORY: &[ScalarType] = &[
    B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, F32,
    F64,
];
pub const LD: ModSet = &[
    SPACES,
    MEMORY_ORDER,
    SCOPE,
    Group::words("cache operator", &["ca", "cg", "cs", "lu", "cv"]),
    Group::words("nc", &["nc"]),
    EVICTION,
    PREFETCH_SIZE,
    CACHE_HINT,
    VECTOR_8,
    types(MEMORY),
];
pub const LDU: ModSet = &[SPACES, VECTOR_8, types(MEMORY)];
pub const ST: ModSet = &[
    SPACES,
    MEMORY_ORDER,
    SCOPE,
    Group::words("cache operator", &["wb", "cg", "cs", "wt"]),
    EVICTION,
    CACHE_HINT,
    VECTOR_8,
    types(MEMORY),
];
pub const CVTA: ModSet = &[Group::words("to", &["to"]), SPACES, types(&[U32, U64])];
pub const ISSPACEP: ModSet = &[SPACES];
pub const PREFETCH: ModSet = &[
    Group::words("state space", &["global", "local"]),
    Group::words("level", &["L1", "L2", "L2::evict_last", "L2::evict_normal"]),
];
pub const PREFETCHU: ModSet = &[Group::words("level", &["L1"])];
pub const PRMT: ModSet = &[
    Group::words("mode", &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]),
    types(&[B32]),
];
pub const CVT: ModSet = &[
    ROUNDING,
    INT_ROUNDING,
    Group::words("rna", &["rna"]),
    FTZ,
    SAT,
    RELU,
    SATFINITE,
    types(&[
        U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, Bf16, Bf16x2, Tf32, F32, F64,
    ]),
];
pub const CVT_PACK: ModSet = &[
    Group::words("pack", &["pack"]),
    SAT,
    Group::words("narrow integer", &["u2", "s2", "u4", "s4"]),
    types(&[U8, S8, U16, S16, S32, B32]),
];
pub const CVT_NARROW: ModSet = &[
    ROUNDING,
    RELU,
    SATFINITE,
    Group::words(
        "narrow format",
        &["e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2"],
    ),
    types(&[F32, F16x2, Bf16x2]),
];

// Atomics, barriers, fences and the warp collectives (9.7.13).
pub const ATOM: ModSet = &[
    ATOM_ORDER,
    SCOPE,
    SHARED_GLOBAL,
    Group::words(
        "operation",
        &[
            "and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max",
        ],
    ),
    Group::words("noftz", &["noftz"]),
    CACHE_HINT,
    types(&[
        B16, B32, B64, U32, U64, S32, S64, F16, F16x2, Bf16, Bf16x2, F32, F64,
    ]),
];
pub const RED: ModSet = &[
    ATOM_ORDER,
    SCOPE,
    SHARED_GLOBAL,
    REDUCTION,
    Group::words("noftz", &["noftz"]),
    CACHE_HINT,
    types(&[
        B32, B64, U32, U64, S32, S64, F16, F16x2, Bf16, Bf16x2, F32, F64,
    ]),
];
pub const BAR: ModSet = &[
    Group::words("cta", &["cta"]),
    SYNC_ALIGNED,
    Group::words("operation", &["arrive", "red"]),
    Group::words("reduction", &["popc", "and", "or"]),
    types(&[U32, Pred]),
];
pub const BAR_WARP: ModSet = &[Group::words("warp", &["warp"]), SYNC];
pub const FENCE: ModSet = &[
    Group::words("semantics", &["sc", "acq_rel", "acquire", "release"]),
    Group::words("scope", &["cta", "cluster", "gpu", "sys"]),
    Group::words("mbarrier_init", &["mbarrier_init"]),
    Group::words(
        "restriction",
        &[
            "sync_restrict::shared::cta",
            "sync_restrict::shared::cluster",
        ],
    ),
    Group::words(
        "proxy",
        &[
            "proxy",
            "alias",
            "async",
            "tensormap::generic",
            "async::generic",
        ],
    ),
    Group::words("state space", &["global", "shared::cta", "shared::cluster"]),
];
/// `membar.proxy` takes `fence.proxy`'s proxy kinds (`.alias`, `.async{.global,
/// .shared::{cta,cluster}}`).
pub const MEMBAR: ModSet = &[
    Group::words("level", &["cta", "gl", "sys"]),
    Group::words("proxy", &["proxy", "alias", "async"]),
    Group::words("state space", &["global", "shared::cta", "shared::cluster"]),
];
pub const SHFL: ModSet = &[
    SYNC,
    Group::words("mode", &["up", "down", "bfly", "idx"]),
    types(&[B32]),
];
pub const VOTE: ModSet = &[
    SYNC,
    Group::words("mode", &["all", "any", "uni", "ballot"]),
    types(&[Pred, B32]),
];
pub const MATCH: ModSet = &[
    Group::words("mode", &["any", "all"]),
    SYNC,
    types(BITS_32_64),
];
pub const ACTIVEMASK: ModSet = &[types(&[B32])];
pub const REDUX: ModSet = &[
    SYNC,
    Group::words("operation", &["add", "min", "max", "and", "or", "xor"]),
    types(&[B32, U32, S32]),
];
pub const ELECT: ModSet = &[SYNC];
pub const MBARRIER: ModSet = &[
    Group::words(
        "operation",
        &[
            "init",
            "inval",
            "arrive",
            "arrive_drop",
            "expect_tx",
            "complete_tx",
            "test_wait",
            "try_wait",
            "pending_count",
        ],
    ),
    Group::words("noComplete", &["noComplete"]),
    Group::words("parity", &["parity"]),
    Group::words("semantics", &["release", "acquire", "relaxed"]),
    Group::words("scope", &["cta", "cluster"]),
    Group::words("state space", &["shared", "shared::cta", "shared::cluster"]),
    types(&[B64]),
];

// Miscellaneous (9.7.9, 9.7.19).
pub const NANOSLEEP: ModSet = &[types(&[U32])];
pub const GRIDDEPCONTROL: ModSet = &[Group::words("action", &["launch_dependents", "wait"])];
pub const SETMAXNREG: ModSet = &[
    Group::words("action", &["inc", "dec"]),
    SYNC_ALIGNED,
    types(&[U32]),
];
pub const CREATEPOLICY: ModSet = &[
    Group::words("form", &["fractional", "range", "cvt"]),
    Group::words(
        "priority",
        &[
            "L2::evict_last",
            "L2::evict_normal",
            "L2::evict_first",
            "L2::evict_unchanged",
        ],
    ),
    Group::words("level", &["L2"]),
    Group::words("state space", &["global"]),
    types(&[B64]),
];
pub const CLUSTER_QUERY: ModSet = &[
    Group::words("state space", &["shared::cluster"]),
    types(&[U32, U64]),
];

// Asynchronous copies (9.7.9.25 and on).
pub const CP: ModSet = &[
    Group::words(
        "operation",
        &[
            "async",
            "bulk",
            "tensor",
            "reduce",
            "prefetch",
            "commit_group",
            "wait_group",
            "wait_all",
            "read",
            "mbarrier",
            "arrive",
            "noinc",
        ],
    ),
    Group::words("cache operator", &["ca", "cg"]),
    SHARED_GLOBAL,
    TENSOR_DIMS,
    Group::words(
        "load mode",
        &[
            "tile",
            "im2col",
            "im2col::w",
            "im2col::w::128",
            "im2col_no_offs",
        ],
    ),
    Group::words(
        "completion",
        &["mbarrier::complete_tx::bytes", "bulk_group"],
    ),
    Group::words("multicast", &["multicast::cluster"]),
    Group::words("CTA group", &["cta_group::1", "cta_group::2"]),
    REDUCTION,
    Group::words("noftz", &["noftz"]),
    Group::words("level", &["L2"]),
    CACHE_HINT,
    PREFETCH_SIZE,
    types(&[B64, U32, S32, U64, S64, F16, Bf16, F32, F64]),
];
pub const TENSORMAP: ModSet = &[
    Group::words("operation", &["replace", "cp_fenceproxy"]),
    Group::words(
        "field",
        &[
            "global_address",
            "rank",
            "box_dim",
            "global_dim",
            "global_stride",
            "element_stride",
            "elemtype",
            "interleave_layout",
            "swizzle_mode",
            "swizzle_atomicity",
            "fill_mode",
        ],
    ),
    Group::words("mode", &["tile"]),
    Group::words("size", &["b1024"]),
    Group::words("state space", &["global", "shared::cta"]),
    Group::words("proxy", &["tensormap::generic"]),
    Group::words("semantics", &["release"]),
    SCOPE,
    SYNC_ALIGNED,
    types(&[B32, B64]),
];

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
