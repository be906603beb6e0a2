//! The sets of the arithmetic, comparison, logic and control-flow instructions (ISA 8.7.1-8.7.5,
//! 9.7.12).

use super::groups::*;
use crate::check::catalog::modset::{Group, ModSet};
use crate::types::ScalarType::*;

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
