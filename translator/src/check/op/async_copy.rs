//! The decoded forms of the instructions that `check/inst/async_copy.rs` reads.

use super::AtomOp;
use crate::check::operand::{Address, Src};
use crate::types::StateSpace;

/// One `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src};`.
#[derive(Clone, Debug)]
pub struct CpAsync {
    pub dst: Address,
    pub src: Address,
    /// Bytes written to `dst`: 4, 8 or 16.
    pub size: u32,
    /// Bytes read from `src` (the rest of `dst` is zero-filled); `None` = `size`.
    pub src_size: Option<Src>,
    /// A predicate: when true nothing is read and `dst` is zero-filled.
    pub ignore_src: Option<Src>,
}

/// `cp.async.bulk.dst.src{.mbarrier::complete_tx::bytes | .bulk_group} [dst], [src], size{, [mbar]}`.
#[derive(Clone, Debug)]
pub struct CpBulk {
    pub dst: Address,
    /// `.shared` (`::cta`, or `::cluster` of a one-block cluster) or `.global`.
    pub dst_space: StateSpace,
    pub src: Address,
    pub src_space: StateSpace,
    /// Bytes, a multiple of 16.
    pub size: Src,
    /// The mbarrier whose tx-count the copy completes.
    pub mbar: Option<Address>,
}

/// Which way a `cp.async.bulk.tensor` copies its box.
#[derive(Clone, Debug)]
pub enum TensorDir {
    /// `.shared::cluster.global` / `.shared::cta.global`: into `dst`, completing `mbar`'s
    /// transaction.
    Load { dst: Address, mbar: Address },
    /// `.global.shared::cta.bulk_group`: from `src` into the tensor.
    Store { src: Address },
    /// `cp.reduce.async.bulk.tensor...global.shared::cta.redOp...bulk_group`: each element of
    /// `src` combined with the tensor's by `op`, in the element type of the map.
    Reduce { src: Address, op: AtomOp },
}

/// `cp.async.bulk.tensor.Nd...tile`: a box of the tensor a tensor map describes, at `coords`
/// (one signed 32-bit coordinate per dimension, innermost first).
#[derive(Clone, Debug)]
pub struct CpBulkTensor {
    /// The tensor map's address (generic, `.param`, `.const` or `.global`: device addresses).
    pub map: Address,
    pub coords: Vec<Src>,
    pub dir: TensorDir,
}

#[derive(Clone, Debug)]
pub enum AsyncCopy {
    Copy(CpAsync),
    Bulk(Box<CpBulk>),
    Tensor(Box<CpBulkTensor>),
    /// `cp.async.mbarrier.arrive{.noinc}`: an arrive-on once the thread's copies are done.
    MbarrierArrive {
        addr: Address,
        noinc: bool,
    },
    /// `tensormap.replace.tile.global_address`: `value` becomes the tensor address of the map
    /// at `map` (in `space`; `Generic` without one).
    TensormapAddress {
        map: Address,
        space: StateSpace,
        value: Src,
    },
    /// `tensormap.cp_fenceproxy`: the 128-byte map at `src` (shared) copied to `dst` (global).
    TensormapCopy {
        dst: Address,
        src: Address,
    },
    /// `cp.async.bulk.prefetch.L2`: a hint.
    Prefetch,
    CommitGroup,
    /// `cp.async.wait_group N`: wait until at most N groups are pending.
    WaitGroup(u32),
    WaitAll,
}
