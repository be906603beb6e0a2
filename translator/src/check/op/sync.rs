//! The decoded forms of the instructions that `check/inst/sync.rs` reads.

use crate::check::operand::{Dst, Src};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// Wait for the barrier (and arrive at it).
    Sync,
    /// Arrive without waiting.
    Arrive,
    /// Wait, and reduce a predicate over the participating threads.
    Red(BarRed),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRed {
    Popc,
    And,
    Or,
}

#[derive(Clone, Debug)]
pub struct Bar {
    pub kind: BarKind,
    /// Barrier number, 0-15.
    pub id: Src,
    /// Number of threads expected (a multiple of the warp size); `None` = the whole block.
    pub count: Option<Src>,
    /// `bar.red`: destination and the predicate reduced.
    pub red: Option<(Dst, Src)>,
}
