//! The warp-level matrix instructions (`ldmatrix`, `stmatrix`, `movmatrix`, `mma`) as lane
//! exchanges ([`WarpOp::ReadLane`](crate::ir::WarpOp::ReadLane), the primitive `shfl` is made of) plus ordinary arithmetic,
//! so they run wherever `shfl` does: native subgroups, partitions of wider ones, and the SIMT
//! emulation on small subgroups. Each lane gathers from the lanes that hold them the elements
//! its own fragment needs, following the ISA's fragment layout tables, and computes alone.
//!
//! `mma`'s layouts for every shape but the sm_70 `.m8n8k4.f16` one share one pattern (the
//! tables of "Matrix Fragments for mma.mXnYkZ"): with `groupID = lane >> 2`,
//! `threadID_in_group = lane % 4` and `e` elements of the multiplicand type per register,
//! A's register `r` holds row `groupID + 8 * (r % (M/8))`, columns
//! `4e * (r / (M/8)) + e * threadID_in_group + j`; B's register `s` holds column `groupID`, rows
//! `4e * s + e * threadID_in_group + j`; C and D element `q` is row `groupID + 8 * (q / 2)`,
//! column `2 * threadID_in_group + q % 2`. Floating-point accumulation order:
//! docs/decisions/0111-mma-accumulation-order.md.

mod block_scale;
pub(super) mod fragment;
mod ldst;
mod mma;
mod quad_pair;
mod wmma;

pub use ldst::{ldmatrix, movmatrix, stmatrix};
pub use mma::mma;
pub(super) use mma::{accumulate_int, element, int_products, sparse_pick};
pub use wmma::wmma;
