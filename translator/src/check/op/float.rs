//! The decoded forms of the instructions that `check/inst/float.rs` reads.

use crate::check::operand::{Dst, Srcs};
use crate::float_format::RoundMode;
use crate::types::ScalarType;

/// What a [`Float`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    /// `fma`, and `mad` (the same instruction since sm_20).
    Fma,
    Div,
    Abs,
    Neg,
    Min,
    Max,
    Copysign,
    Rcp,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
    Testp(TestOp),
}

/// The properties `testp` tests (ISA 8.7.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestOp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// How the result is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// No modifier on `add/sub/mul` (and the half forms): round to nearest even, but the
    /// optimizer may contract it into a multiply-add.
    Default,
    /// An explicit IEEE rounding mode (`.rn .rz .rm .rp`).
    Round(RoundMode),
    /// `.approx`: the ISA states an error bound instead.
    Approx,
    /// `.full` of `div.f32`.
    Full,
    /// Operations with no rounding at all (`abs neg min max copysign testp`).
    Exact,
}

#[derive(Clone, Debug)]
pub struct Float {
    pub op: FloatOp,
    /// `.f16 .f16x2 .bf16 .bf16x2 .f32 .f64`.
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Srcs,
    pub precision: Precision,
    pub ftz: bool,
    /// `.sat`: clamp to [0, 1], NaN to +0.
    pub sat: bool,
    /// `.relu` of half `fma`: negative results become +0, NaN the canonical NaN.
    pub relu: bool,
    /// `.NaN` of `min`/`max`.
    pub nan: bool,
    /// `.xorsign.abs` of `min`/`max` (two inputs).
    pub xorsign: bool,
    /// `.abs` of `min`/`max` (with `.xorsign`, or alone with three inputs).
    pub abs: bool,
}

impl Float {
    pub fn is_packed(&self) -> bool {
        matches!(self.ty, ScalarType::F16x2 | ScalarType::Bf16x2)
    }
}
