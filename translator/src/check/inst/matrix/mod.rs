//! Warp-level matrix instructions (the ISA's "Warp Level Matrix Multiply-Accumulate
//! Instructions"): `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync.aligned` and `mma.sp` with the
//! shapes, element types and fragment sizes the ISA lists for them, and `wmma`.
//!
//! What every fragment operand needs is in `fragments`, which `wgmma` reads as well.

mod block_scale;
mod fragments;
mod mma;
mod movement;
mod wmma;

pub(super) use fragments::{dsts, srcs, sync_aligned};
pub use mma::mma;
pub use movement::{ldmatrix, movmatrix, stmatrix};
pub use wmma::wmma;
