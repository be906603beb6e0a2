//! The modifier groups the sets are made of, each declared once, and the type lists they share.

use crate::check::catalog::modset::Group;
use crate::check::inst::ldst;
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
pub const PREFETCH_SIZE: Group = Group::words("prefetch size", &ldst::PREFETCH_SIZE);
pub const EVICTION: Group = Group::words("eviction priority", &ldst::EVICTION);
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

pub(super) const fn types(t: &'static [ScalarType]) -> Group {
    Group::Types(t)
}
