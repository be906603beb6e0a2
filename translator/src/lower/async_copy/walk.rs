//! The walk of the bulk copy and the bulk reduction: a base address per side, held in a
//! variable, and the element a byte counter reaches from it.

use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;

/// Where a bulk walk's base address lives: a global address (I64) or a shared offset (I32).
pub(super) fn base(cx: &mut Cx<'_>, w: Where, name: &'static str) -> Option<(VarId, bool)> {
    match w {
        Where::Global(a) => Some((spill(cx, a, Ty::I64, name), true)),
        Where::Shared(o) => Some((spill(cx, o, Ty::I32, name), false)),
        Where::Generic(a) => {
            // A generic address outside the shared window is undefined behaviour here (ISA).
            let o = cx.b.conv(ConvOp::Trunc, a, Ty::I32);
            Some((spill(cx, o, Ty::I32, name), false))
        }
        _ => None,
    }
}

/// Where the walk's element at byte `i_var` from the base in `var` is.
pub(super) fn at(cx: &mut Cx<'_>, var: VarId, global: bool, i_var: VarId) -> Where {
    let i = cx.b.emit(Ty::I32, Op::LoadVar(i_var));
    if global {
        let a = cx.b.emit(Ty::I64, Op::LoadVar(var));
        let i = cx.b.conv(ConvOp::ZExt, i, Ty::I64);
        Where::Global(cx.b.bin(BinOp::IAdd, a, i))
    } else {
        let o = cx.b.emit(Ty::I32, Op::LoadVar(var));
        Where::Shared(cx.b.bin(BinOp::IAdd, o, i))
    }
}

/// `v` in a new variable named `name`: values live in one block, variables cross them.
pub(super) fn spill(cx: &mut Cx<'_>, v: ValueId, ty: Ty, name: &'static str) -> VarId {
    let var = cx.b.f.new_var(ty, name);
    cx.b.emit_void(Op::StoreVar(var, v));
    var
}
