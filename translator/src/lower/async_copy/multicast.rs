//! The one-block cluster's multicast of bulk and tensor loads.

use crate::check::Src;
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{BinOp, ConvOp, Ty};
use crate::lower::cx::Cx;
use crate::types::ScalarType;

/// `.multicast::cluster` (bulk and tensor loads): the copy reaches "the same CTA-relative
/// offset as dstMem in the shared memory of each destination CTA" that `mask`'s bits name by
/// cluster rank, each with its mbarrier's complete-tx. ptxvk's clusters hold one block, rank 0,
/// so `copy` (the copy and its transaction) runs when bit 0 is set; the other bits name no CTA.
/// Without a mask `copy` just runs.
pub(super) fn multicast(cx: &mut Cx<'_>, mask: Option<&Src>, copy: impl FnOnce(&mut Cx<'_>)) {
    let Some(mask) = mask else {
        copy(cx);
        return;
    };
    let mask = cx.read(mask, ScalarType::B16);
    let mask = cx.b.conv(ConvOp::ZExt, mask, Ty::I32);
    let one = cx.b.konst(Ty::I32, 1);
    let bit = cx.b.bin(BinOp::And, mask, one);
    let zero = cx.b.konst(Ty::I32, 0);
    let set = cx.b.bin(BinOp::INe, bit, zero);
    cx.if_then(set, copy);
}
