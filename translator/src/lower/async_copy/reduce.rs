//! `cp.reduce.async.bulk`: like the bulk copy it is done when issued (decision record 0106),
//! an element at a time (addresses and size are multiples of 16, so every element is aligned
//! in both memories), each combined into the destination by the atomic `red` does
//! ([`crate::lower::atomic::reduce_at`]), so reductions of several blocks into one global
//! buffer add up as they do on NVIDIA. A `.shared::cluster` reduction then completes its
//! `size` bytes on the mbarrier.

use crate::check::inst::CpBulkReduce;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Terminator, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::types::{ScalarType, StateSpace};

/// Where the walk's base address lives: a global address (I64) or a shared offset (I32).
fn base(cx: &mut Cx<'_>, w: Where, name: &'static str) -> Option<(VarId, bool)> {
    match w {
        Where::Global(a) => Some((spill(cx, a, Ty::I64, name), true)),
        Where::Shared(o) => Some((spill(cx, o, Ty::I32, name), false)),
        Where::Generic(a) => {
            // A generic address outside the shared window is undefined behaviour here (ISA).
            let o = cx.conv(ConvOp::Trunc, a, Ty::I32);
            Some((spill(cx, o, Ty::I32, name), false))
        }
        _ => None,
    }
}

fn at(cx: &mut Cx<'_>, var: VarId, global: bool, i_var: VarId) -> Where {
    let i = cx.emit(Ty::I32, Op::LoadVar(i_var));
    if global {
        let a = cx.emit(Ty::I64, Op::LoadVar(var));
        let i = cx.conv(ConvOp::ZExt, i, Ty::I64);
        Where::Global(cx.bin(BinOp::IAdd, a, i))
    } else {
        let o = cx.emit(Ty::I32, Op::LoadVar(var));
        Where::Shared(cx.bin(BinOp::IAdd, o, i))
    }
}

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
    let zero = cx.konst(Ty::I32, 0);
    let i_var = spill(cx, zero, Ty::I32, "reduce.i");
    let (head, body, exit) = (cx.f.new_block(), cx.f.new_block(), cx.f.new_block());
    cx.f.block_mut(cx.cur).term = Terminator::Jump(head);
    cx.cur = head;
    let i = cx.emit(Ty::I32, Op::LoadVar(i_var));
    let n = cx.emit(Ty::I32, Op::LoadVar(size_var));
    let more = cx.bin(BinOp::ULt, i, n);
    cx.f.block_mut(cx.cur).term = Terminator::Branch {
        cond: more,
        then: body,
        else_: exit,
    };
    cx.cur = body;
    let from = at(cx, src_var, src_global, i_var);
    let v = cx.load(from, Ty::of(r.ty), MemOrder::Plain);
    let to = at(cx, dst_var, dst_global, i_var);
    crate::lower::atomic::reduce_at(cx, r.op, r.ty, to, v);
    let i = cx.emit(Ty::I32, Op::LoadVar(i_var));
    let step = cx.konst(Ty::I32, u64::from(r.ty.bits() / 8));
    let next = cx.bin(BinOp::IAdd, i, step);
    cx.emit_void(Op::StoreVar(i_var, next));
    cx.f.block_mut(cx.cur).term = Terminator::Jump(head);
    cx.cur = exit;
    if let Some(m) = &r.mbar
        && let Some(idx) = crate::lower::mbarrier::object_word(cx, m)
    {
        let n = cx.emit(Ty::I32, Op::LoadVar(size_var));
        crate::lower::mbarrier::complete_tx(cx, idx, n);
    }
}

fn spill(cx: &mut Cx<'_>, v: ValueId, ty: Ty, name: &'static str) -> VarId {
    let var = cx.f.new_var(ty, name);
    cx.emit_void(Op::StoreVar(var, v));
    var
}
