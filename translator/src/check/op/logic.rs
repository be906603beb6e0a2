//! The decoded forms of the instructions that `check/inst/logic.rs` reads.

use super::cmp::BoolOp;
use crate::check::operand::{Dst, Src};

/// `lop3.b32 d, a, b, c, immLut` and `lop3.{or,and}.b32 d|p, a, b, c, immLut, q`.
#[derive(Clone, Debug)]
pub struct Lop3 {
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
    /// The truth table: bit `(a << 2) | (b << 1) | c` of `lut` is `F(a, b, c)` (ISA: `F(0xF0,
    /// 0xCC, 0xAA)`).
    pub lut: u8,
    /// `.or/.and`: `p = (d != 0) op q`.
    pub pred: Option<Lop3Pred>,
}

#[derive(Clone, Debug)]
pub struct Lop3Pred {
    pub op: BoolOp,
    pub p: Dst,
    pub q: Src,
}

/// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: a funnel shift of `{b, a}` by `c` (`.u32`).
#[derive(Clone, Debug)]
pub struct Shf {
    pub left: bool,
    pub wrap: bool,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
}
