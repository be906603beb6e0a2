//! The decoded forms of the instructions that `check/inst/permute.rs` reads.

use crate::check::operand::{Dst, Src};

/// The byte-selection modes of `prmt`; `None` in [`Prmt::mode`] is the generic form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrmtMode {
    /// Forward 4 extract.
    F4e,
    /// Backward 4 extract.
    B4e,
    /// Replicate 8.
    Rc8,
    /// Edge clamp left.
    Ecl,
    /// Edge clamp right.
    Ecr,
    /// Replicate 16.
    Rc16,
}

/// `prmt.b32{.mode} d, a, b, c`.
#[derive(Clone, Debug)]
pub struct Prmt {
    pub mode: Option<PrmtMode>,
    pub dst: Dst,
    pub a: Src,
    pub b: Src,
    pub c: Src,
}
