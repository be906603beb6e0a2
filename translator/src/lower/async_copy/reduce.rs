//! `cp.reduce.async.bulk`: like the bulk copy it is done when issued (decision record 0106),
//! an element at a time (addresses and size are multiples of 16, so every element is aligned
//! in both memories), each combined into the destination by the atomic `red` does
//! ([`crate::lower::atomic::reduce_at`]), so reductions of several blocks into one global
//! buffer add up as they do on NVIDIA. A `.shared::cluster` reduction then completes its
//! `size` bytes on the mbarrier.

use super::walk::{at, base, spill};
use crate::check::inst::CpBulkReduce;
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{MemOrder, Op, Ty};
use crate::lower::cx::Cx;
use crate::types::{ScalarType, StateSpace};

pub fn bulk_reduce(cx: &mut Cx<'_>, r: &CpBulkReduce) {
    let Some(src) = cx.resolve(StateSpace::Shared, &r.src) else {
        return;
    };
    let Some(dst) = cx.resolve(r.dst_space, &r.dst) else {
        return;
    };
    let size = cx.read(&r.size, ScalarType::U32);
    let size_var = spill(cx, size, Ty::I32, "reduce.size");
    let (Some((src_var, src_global)), Some((dst_var, dst_global))) =
        (base(cx, src, "reduce.src"), base(cx, dst, "reduce.dst"))
    else {
        cx.unsupported("this `cp.reduce.async.bulk` addressing");
        return;
    };
    let step = u64::from(r.ty.bits() / 8);
    cx.counted_loop("reduce.i", size_var, step, |cx, i_var| {
        let from = at(cx, src_var, src_global, i_var);
        let v = cx.load(from, Ty::of(r.ty), MemOrder::Plain);
        let to = at(cx, dst_var, dst_global, i_var);
        crate::lower::atomic::reduce_at(cx, r.op, r.ty, to, v);
    });
    if let Some(m) = &r.mbar
        && let Some(idx) = crate::lower::mbarrier::object_word(cx, m)
    {
        let n = cx.b.emit(Ty::I32, Op::LoadVar(size_var));
        crate::lower::mbarrier::complete_tx(cx, idx, n);
    }
}
