//! The decoded forms of the instructions that `check/inst/misc.rs` reads.

use crate::check::operand::{Dst, Src};
use crate::types::ScalarType;

/// Instructions accepted with nothing to do; why each has no effect is with its lowering
/// (`lower/misc.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoEffect {
    /// `fence.proxy.alias`, `fence.proxy.async{...}`, `membar.proxy...`.
    ProxyFence,
    /// `griddepcontrol.launch_dependents` and `griddepcontrol.wait`.
    GridDepControl,
    /// `setmaxnreg.inc/.dec.sync.aligned.u32 n`.
    SetMaxNreg,
}

/// `mapa` and `getctarank` (ISA "Data Movement": distributed shared memory).
#[derive(Clone, Debug)]
pub struct ClusterQuery {
    /// `mapa` (the address in block `b` of the cluster) or `getctarank` (the rank of the block
    /// whose shared memory holds `a`).
    pub mapa: bool,
    pub ty: ScalarType,
    pub dst: Dst,
    pub a: Src,
}
