//! What the printf and heap lowerings share: the runtime's memory, reached past the memory
//! checker (the services slot, loads, stores, atomic adds), a call's 64-bit arguments and its
//! result.

use crate::check::Src;
use crate::check::inst::CallArg;
use crate::ir::build::Build;
use crate::ir::{AtomicOp, BinOp, Builtin, ConvOp, Op, Ordering, Ptr, Scope, Ty, ValueId};
use crate::lower::cx::Cx;

/// The address held in the services slot at `slot`.
pub(super) fn service(cx: &mut Cx<'_>, slot: u64) -> ValueId {
    let base = cx.b.emit(Ty::I64, Op::Builtin(Builtin::GlobalsBase));
    let at = offset(cx, base, slot);
    load(cx, Ty::I64, at)
}

pub(super) fn offset(cx: &mut Cx<'_>, a: ValueId, by: u64) -> ValueId {
    if by == 0 {
        return a;
    }
    let k = cx.b.konst(Ty::I64, by);
    cx.b.bin(BinOp::IAdd, a, k)
}

// The FIFO and the heap's bookkeeping are the runtime's memory, not an allocation of the
// program's, so these accesses bypass `Cx::load`/`Cx::store` and the memory checker there.
pub(super) fn load(cx: &mut Cx<'_>, ty: Ty, a: ValueId) -> ValueId {
    cx.b.emit(
        ty,
        Op::Load {
            ptr: Ptr::Global(a),
            align: ty.bits() / 8,
            order: Default::default(),
        },
    )
}

pub(super) fn store(cx: &mut Cx<'_>, a: ValueId, value: ValueId) {
    let align = cx.b.f.ty(value).bits() / 8;
    cx.b.emit_void(Op::Store {
        ptr: Ptr::Global(a),
        value,
        align,
        order: Default::default(),
    });
}

pub(super) fn atomic_add(cx: &mut Cx<'_>, a: ValueId, value: ValueId) -> ValueId {
    cx.b.emit(
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Add,
            ptr: Ptr::Global(a),
            value,
            scope: Scope::Device,
            sem: Ordering::Relaxed,
        },
    )
}

/// A 64-bit argument's value.
pub(super) fn arg64(cx: &mut Cx<'_>, a: &CallArg) -> ValueId {
    match a {
        CallArg::Param(v) => {
            let words = crate::lower::memory::param_words(cx, *v);
            let lo = cx.b.emit(Ty::I32, Op::LoadVar(words[0]));
            let lo = cx.b.conv(ConvOp::ZExt, lo, Ty::I64);
            let Some(&w1) = words.get(1) else {
                return lo;
            };
            let hi = cx.b.emit(Ty::I32, Op::LoadVar(w1));
            let hi = cx.b.conv(ConvOp::ZExt, hi, Ty::I64);
            let sh = cx.b.konst(Ty::I64, 32);
            let hi = cx.b.bin(BinOp::Shl, hi, sh);
            cx.b.bin(BinOp::Or, lo, hi)
        }
        CallArg::Value(src, ty) => {
            let v = cx.read(src, *ty);
            let v = cx.b.as_int(v);
            cx.b.conv(ConvOp::ZExt, v, Ty::I64)
        }
    }
}

/// Writes a call's result (32 or 64 bits) to its return parameter or register.
pub(super) fn set_result(cx: &mut Cx<'_>, r: &CallArg, v: ValueId) {
    match r {
        CallArg::Param(p) => {
            let words = crate::lower::memory::param_words(cx, *p);
            let ty = cx.b.f.ty(v);
            let lo = cx.b.conv(ConvOp::Trunc, v, Ty::I32);
            cx.b.emit_void(Op::StoreVar(words[0], lo));
            if ty == Ty::I64
                && let Some(&w1) = words.get(1)
            {
                let sh = cx.b.konst(Ty::I64, 32);
                let hi = cx.b.bin(BinOp::LShr, v, sh);
                let hi = cx.b.conv(ConvOp::Trunc, hi, Ty::I32);
                cx.b.emit_void(Op::StoreVar(w1, hi));
            }
        }
        CallArg::Value(Src::Reg { reg, comp, .. }, ty) => {
            let var = cx.reg_var(*reg, *comp);
            let want = Ty::int(ty.bytes() * 8);
            let v = if cx.b.f.ty(v).bits() > want.bits() {
                cx.b.conv(ConvOp::Trunc, v, want)
            } else {
                cx.b.conv(ConvOp::ZExt, v, want)
            };
            let v = cx.b.reinterpret(v, cx.b.f.vars[var.0 as usize].ty);
            cx.b.emit_void(Op::StoreVar(var, v));
        }
        CallArg::Value(..) => cx.unsupported("a call result that is not a register"),
    }
}
