//! The decoded forms of the instructions that `check/inst/atom.rs` reads.

use super::data::Scope;
use crate::check::operand::{Address, Dst, Src};
use crate::types::{ScalarType, StateSpace};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    And,
    Or,
    Xor,
    Cas,
    Exch,
    Add,
    Inc,
    Dec,
    Min,
    Max,
}

/// Memory-ordering semantics of an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomSem {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

#[derive(Clone, Debug)]
pub struct Atom {
    pub op: AtomOp,
    pub ty: ScalarType,
    pub space: StateSpace,
    pub sem: AtomSem,
    pub scope: Scope,
    /// `None` for `red` (no result).
    pub dst: Option<Dst>,
    pub addr: Address,
    pub b: Src,
    /// The new value of `cas`.
    pub c: Option<Src>,
}
