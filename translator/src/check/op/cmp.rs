//! The decoded forms of the instructions that `check/inst/cmp.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::types::ScalarType;

/// Comparison operators (ISA 8.3.1, Tables 21-23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Debug)]
pub struct Setp {
    pub cmp: CmpOp,
    pub ty: ScalarType,
    pub ftz: bool,
    /// `.and/.or/.xor` with the predicate `c` (which may be `!c`).
    pub combine: Option<(BoolOp, Src)>,
    pub p: Dst,
    /// `q` of `p|q`: the complement of the result (combined with `c` the same way).
    pub q: Option<Dst>,
    pub a: Src,
    pub b: Src,
}

/// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}`: the comparison as a number.
#[derive(Clone, Debug)]
pub struct Set {
    pub cmp: CmpOp,
    /// The destination type: `.u32 .s32 .f32`, or `.u16 .s16 .f16 .bf16 .f16x2 .bf16x2` with
    /// half-precision sources.
    pub dtype: ScalarType,
    pub stype: ScalarType,
    pub ftz: bool,
    pub combine: Option<(BoolOp, Src)>,
    pub d: Dst,
    pub a: Src,
    pub b: Src,
}

/// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32`: `d = c >= 0 ? a : b`.
#[derive(Clone, Debug)]
pub struct Slct {
    pub dtype: ScalarType,
    /// `.s32` or `.f32`.
    pub ctype: ScalarType,
    pub ftz: bool,
    pub d: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
}
