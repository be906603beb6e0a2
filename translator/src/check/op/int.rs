//! The decoded forms of the instructions that `check/inst/int.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::types::ScalarType;

/// `add`/`min`/`max` on two 16-bit halves, and the `.relu` forms of `min`/`max`.
#[derive(Clone, Debug)]
pub struct Simd {
    pub op: SimdOp,
    /// The element type: `.u16`/`.s16` for the packed forms, `.s32` for `min/max.relu.s32`.
    pub elem: ScalarType,
    /// `.relu`: negative results become 0.
    pub relu: bool,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdOp {
    Add,
    Min,
    Max,
}

#[derive(Clone, Debug)]
pub struct Bfind {
    pub ty: ScalarType,
    /// `.shiftamt`: the left shift that moves the found bit to the msb.
    pub shiftamt: bool,
    pub dst: Dst,
    pub a: Src,
}

/// `bmsk` and `szext`: a bit position or width that is `.clamp`ed or `.wrap`ped.
#[derive(Clone, Debug)]
pub struct BitMask {
    /// `.b32` for `bmsk`; `.u32`/`.s32` for `szext`.
    pub ty: ScalarType,
    pub wrap: bool,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
}

/// `dp4a.atype.btype d, a, b, c` and `dp2a.{lo,hi}.atype.btype d, a, b, c`.
#[derive(Clone, Debug)]
pub struct Dot {
    pub a_signed: bool,
    pub b_signed: bool,
    /// `dp2a`: which half of `b`'s bytes (`.hi` = bytes 2 and 3); `None` for `dp4a`.
    pub hi: Option<bool>,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
}
