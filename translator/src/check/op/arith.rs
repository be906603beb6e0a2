//! The decoded forms of the instructions that `check/inst/arith.rs` reads.

use crate::check::operand::{Dst, Srcs};
use crate::types::ScalarType;

/// The common shape of arithmetic instructions: `op.mods.type d, a, b, ...`.
#[derive(Clone, Debug)]
pub struct Arith {
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Srcs,
    pub sat: bool,
    /// `.lo/.hi/.wide` of `mul` and `mad`.
    pub mode: MulMode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

impl Arith {
    pub(crate) fn new(ty: ScalarType, dst: Dst, src: Srcs) -> Self {
        Arith {
            ty,
            dst,
            src,
            sat: false,
            mode: MulMode::Lo,
        }
    }
}
