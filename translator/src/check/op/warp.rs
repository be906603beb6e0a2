//! The decoded forms of the instructions that `check/inst/warp.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::types::ScalarType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Debug)]
pub struct Shfl {
    pub mode: ShflMode,
    pub dst: Dst,
    /// The optional `|p`: whether the source lane was in range.
    pub pred: Option<Dst>,
    pub a: Src,
    pub b: Src,
    pub c: Src,
    /// `shfl.sync`'s membermask; `None` for the legacy form (the whole warp).
    pub mask: Option<Src>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Debug)]
pub struct Vote {
    pub mode: VoteMode,
    pub dst: Dst,
    /// The predicate voted on (`!p` allowed).
    pub a: Src,
    pub mask: Option<Src>,
}

#[derive(Clone, Debug)]
pub struct Match {
    pub all: bool,
    pub ty: ScalarType,
    pub dst: Dst,
    pub pred: Option<Dst>,
    pub a: Src,
    pub mask: Src,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Clone, Debug)]
pub struct Redux {
    pub op: ReduxOp,
    pub ty: ScalarType,
    pub dst: Dst,
    pub a: Src,
    pub mask: Src,
}

/// `elect.sync d|p, membermask;`: `d` (or `_`) gets the elected lane, `p` whether it is this one.
#[derive(Clone, Debug)]
pub struct Elect {
    pub dst: Dst,
    pub pred: Dst,
    pub mask: Src,
}
