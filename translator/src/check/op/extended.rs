//! The decoded forms of the instructions that `check/inst/extended.rs` reads.

use crate::check::operand::{Dst, Srcs};
use crate::types::ScalarType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryOp {
    /// `d = a + b (+ CC.CF)`
    Add,
    /// `d = a - (b + CC.CF)`; CC.CF holds the borrow.
    Sub,
    /// `d = (a * b).{lo,hi} + c (+ CC.CF)`
    Mad { hi: bool },
}

#[derive(Clone, Debug)]
pub struct Carry {
    pub op: CarryOp,
    /// `addc/subc/madc`: add CC.CF (subtract it for `subc`).
    pub carry_in: bool,
    /// `.cc`: write the carry (borrow) out of the addition to CC.CF.
    pub carry_out: bool,
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Srcs,
}
