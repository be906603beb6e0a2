//! Special registers (ISA 10): how each is computed from what Vulkan provides.

use super::Cx;
use crate::ast::Component;
use crate::check::SpecialReg;
use crate::ir::{BinOp, Builtin, Op, Ty, ValueId};

/// The value of a special register as a 32- or 64-bit integer.
pub fn read(cx: &mut Cx<'_>, s: SpecialReg, comp: Option<Component>) -> ValueId {
    let axis = comp.map_or(0, |c| c.index() as u8);
    match s {
        SpecialReg::Tid => cx.emit(Ty::I32, Op::Builtin(Builtin::LocalId(axis))),
        SpecialReg::Ntid => cx.emit(Ty::I32, Op::Builtin(Builtin::BlockDim(axis))),
        SpecialReg::Ctaid => {
            // Grids larger than one dispatch are split; the push constants hold this part's base.
            let id = cx.emit(Ty::I32, Op::Builtin(Builtin::WorkgroupId(axis)));
            let base = cx.emit(Ty::I32, Op::Builtin(Builtin::CtaBase(axis)));
            cx.bin(BinOp::IAdd, id, base)
        }
        SpecialReg::Nctaid => cx.emit(Ty::I32, Op::Builtin(Builtin::GridDim(axis))),
        SpecialReg::WarpSize => cx.konst(Ty::I32, 32),
        SpecialReg::DynamicSmemSize => cx.emit(Ty::I32, Op::Builtin(Builtin::DynamicSharedBytes)),
        SpecialReg::TotalSmemSize => {
            let d = cx.emit(Ty::I32, Op::Builtin(Builtin::DynamicSharedBytes));
            let s = cx.konst(
                Ty::I32,
                u64::from(cx.layout.dynamic_shared.unwrap_or(cx.layout.shared_bytes)),
            );
            cx.bin(BinOp::IAdd, d, s)
        }
        other => {
            cx.unsupported(format!("special register {other:?}"));
            cx.konst(Ty::I32, 0)
        }
    }
}
