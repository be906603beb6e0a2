//! The decoded forms of the instructions that `check/inst/wgmma.rs` reads.

use super::matrix::MmaType;
use crate::check::operand::{Dst, Src};

/// One `wgmma` instruction.
#[derive(Clone, Debug)]
pub enum Wgmma {
    /// `wgmma.fence.sync.aligned`: orders register accesses before the next `mma_async`.
    Fence,
    /// `wgmma.commit_group.sync.aligned`: closes a group of `mma_async` operations.
    Commit,
    /// `wgmma.wait_group.sync.aligned N`: waits until at most N groups are pending.
    Wait(u32),
    Mma(Box<WgmmaMma>),
}

/// Where A comes from: a matrix descriptor of shared memory, or this thread's fragment.
#[derive(Clone, Debug)]
pub enum WgmmaA {
    Desc(Src),
    Regs(Vec<Src>),
}

/// Whether D's old value is added (`scale-d`): a constant or a predicate.
#[derive(Clone, Debug)]
pub enum ScaleD {
    Imm(bool),
    Pred(Src),
}

/// `wgmma.mma_async{.sp}.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype d, a, b-desc,
/// {sp-meta, sp-sel,} scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b};`
#[derive(Clone, Debug)]
pub struct WgmmaMma {
    pub n: u32,
    /// K of the product (for `.sp`, twice the columns A holds).
    pub k: u32,
    pub d_ty: MmaType,
    pub a_ty: MmaType,
    pub b_ty: MmaType,
    pub satfinite: bool,
    pub d: Vec<Dst>,
    /// D's registers read as the accumulator C.
    pub c: Vec<Src>,
    pub a: WgmmaA,
    pub b: Src,
    pub scale_d: ScaleD,
    /// `imm-scale-a`/`imm-scale-b` of -1: the multiplicand is negated.
    pub neg_a: bool,
    pub neg_b: bool,
    /// `imm-trans-a`/`imm-trans-b` of 1: the matrix is M- (N-) major in shared memory.
    pub trans_a: bool,
    pub trans_b: bool,
    /// `.sp`: A is structured sparse, holding the non-zero half of each row (a 64 x K/2
    /// matrix); `sp-meta` (this thread's metadata register) gives their places in each chunk.
    pub sp_meta: Option<Src>,
    /// `sp-sel`: which threads of each group of four hold the metadata.
    pub sp_selector: u32,
}
