//! The sets of data movement, conversion, memory, synchronization and the asynchronous copies
//! (ISA 8.7.6, 9.7.9, 9.7.13, 9.7.19).

use super::groups::*;
use crate::check::catalog::modset::{Group, ModSet};
use crate::types::ScalarType::{self, *};

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
            "tile::gather4",
            "tile::scatter4",
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
