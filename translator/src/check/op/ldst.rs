//! The decoded forms of the instructions that `check/inst/ldst.rs` reads.

use super::data::MemSem;
use crate::check::operand::{Address, Dst, Src};
use crate::types::{ScalarType, StateSpace};

#[derive(Clone, Debug)]
pub struct Ld {
    pub space: StateSpace,
    pub ty: ScalarType,
    /// 1, 2, 4 or 8 elements.
    pub vec: u32,
    pub sem: MemSem,
    /// `ld.global.nc`: through the non-coherent (read-only) path.
    pub nc: bool,
    pub dst: Dst,
    pub addr: Address,
}

#[derive(Clone, Debug)]
pub struct St {
    pub space: StateSpace,
    pub ty: ScalarType,
    pub vec: u32,
    pub sem: MemSem,
    pub addr: Address,
    pub src: Src,
}
