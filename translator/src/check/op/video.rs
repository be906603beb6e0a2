//! The decoded forms of the instructions that `check/inst/video.rs` reads.

use super::cmp::CmpOp;
use crate::check::operand::{Dst, Src};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoOp {
    Add,
    Sub,
    Avrg,
    AbsDiff,
    Min,
    Max,
    Shl,
    Shr,
    /// `vset`: 1 where the comparison holds, else 0 (unsigned, as `d` and `c` are).
    Set(CmpOp),
}

/// What the scalar forms do with the intermediate result and `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Secondary {
    None,
    Add,
    Min,
    Max,
    /// `d.dsel`: the result's low byte or half-word replaces that part of `c`.
    Merge,
}

/// A byte or half-word of a 32-bit register (or the whole word): `width` bits from bit
/// `width * index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub width: u32,
    pub index: u32,
}

/// `vadd vsub vabsdiff vmin vmax vshl vshr`.
#[derive(Clone, Debug)]
pub struct VideoScalar {
    pub op: VideoOp,
    /// Whether `dtype`, `atype`, `btype` are `.s32`.
    pub signed: [bool; 3],
    pub sat: bool,
    /// `vshl`/`vshr`: `.clamp` (the shift saturates at 32) rather than `.wrap` (modulo 32).
    pub clamp: bool,
    pub secondary: Secondary,
    pub dst: Dst,
    /// The part of `d` a merge writes; the whole word otherwise.
    pub dsel: Part,
    pub a: Src,
    pub asel: Part,
    pub b: Src,
    pub bsel: Part,
    pub c: Option<Src>,
}

/// `vadd2 ... vmax2` (lanes of half-words) and `vadd4 ... vmax4` (lanes of bytes).
#[derive(Clone, Debug)]
pub struct VideoSimd {
    pub op: VideoOp,
    /// 2 or 4.
    pub lanes: u32,
    pub signed: [bool; 3],
    pub sat: bool,
    /// `.add`: the selected lanes' results are summed into `c`; otherwise they are merged
    /// into `c`'s lanes.
    pub accumulate: bool,
    pub dst: Dst,
    /// Bit `i`: lane `i` takes part (`d.mask`).
    pub mask: u32,
    pub a: Src,
    /// Lane `i` of `a`'s operand is part `asel[i]` of the 64-bit value `{b, a}`.
    pub asel: [u32; 4],
    pub b: Src,
    pub bsel: [u32; 4],
    pub c: Src,
}

/// `vmad`: `(a*b) + c`, with the product or `c` negated, or plus one (`.po`), scaled.
#[derive(Clone, Debug)]
pub struct VideoMad {
    /// Whether `atype`, `btype` are `.s32`.
    pub signed: [bool; 2],
    pub sat: bool,
    pub po: bool,
    /// `.shr7`, `.shr15`: the right shift of the result (0 without).
    pub shift: u32,
    /// Exactly one of `a` and `b` is negated: the product is.
    pub negate_product: bool,
    pub negate_c: bool,
    pub dst: Dst,
    pub a: Src,
    pub asel: Part,
    pub b: Src,
    pub bsel: Part,
    pub c: Src,
}
