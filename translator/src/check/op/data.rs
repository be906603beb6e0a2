//! The decoded forms of the instructions that `check/inst/data.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::types::{ScalarType, StateSpace};

#[derive(Clone, Debug)]
pub struct Mov {
    pub ty: ScalarType,
    pub dst: Dst,
    pub src: Src,
}

/// Memory-ordering qualifiers of `ld`/`st` (ISA 8.7.6.6/8.7.6.9 and the memory model chapter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSem {
    Weak,
    Volatile,
    Relaxed(Scope),
    Acquire(Scope),
    Release(Scope),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

#[derive(Clone, Debug)]
pub struct Cvta {
    /// `cvta.space` (space -> generic) or `cvta.to.space` (generic -> space).
    pub to_generic: bool,
    pub space: StateSpace,
    /// `.u32` or `.u64`.
    pub size: ScalarType,
    pub dst: Dst,
    pub src: Src,
}

#[derive(Clone, Debug)]
pub struct Isspacep {
    pub space: StateSpace,
    /// `.u32` or `.u64`, the width of the address operand.
    pub size: ScalarType,
    pub dst: Dst,
    pub src: Src,
}
