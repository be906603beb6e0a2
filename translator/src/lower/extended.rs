//! The meaning of the extended-precision instructions (ISA 8.7.2): `add.cc addc sub.cc subc
//! mad.cc madc`.
//!
//! The condition-code register CC.CF is per thread and outlives blocks (an `addc` may follow its
//! `add.cc` after a branch), so it is a function variable of type bool, like a register. The ISA
//! does not preserve it across calls, so each function has its own.

use super::cx::Cx;
use crate::check::inst::{Carry, CarryOp};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Inst, Op, Ty, UnOp, ValueId, VarId};

/// The function's CC.CF variable, created (and cleared at function entry, so that nothing ever
/// reads an undefined value) on first use.
fn carry_flag(cx: &mut Cx<'_>) -> VarId {
    if let Some(v) = cx.carry_flag {
        return v;
    }
    let var = cx.b.f.new_var(Ty::Bool, "%cc.cf");
    let zero = ValueId(cx.b.f.values.len() as u32);
    cx.b.f.values.push(Ty::Bool);
    let entry = cx.b.f.entry;
    let insts = &mut cx.b.f.block_mut(entry).insts;
    insts.insert(
        0,
        Inst {
            result: Some(zero),
            op: Op::Const(0),
        },
    );
    insts.insert(
        1,
        Inst {
            result: None,
            op: Op::StoreVar(var, zero),
        },
    );
    cx.carry_flag = Some(var);
    var
}

/// `d = x + y (+ CC.CF)` with the carry out, or `d = x - y (- borrow)` with the borrow out,
/// computed as unsigned arithmetic of the type's width.
///
/// For subtraction CC.CF holds the carry of `x + !y + 1` as NVIDIA hardware keeps it, i.e. the
/// inverted borrow: the ISA writes `d = a - (b + CC.CF)`, but on an H200 `sub.cc 0, 0` leaves
/// CC.CF = 1 and `subc 0, 0` after a cleared CC.CF gives -1 (`--record-cuda`, docs/nvidia.md).
/// Chains of `sub.cc`/`subc` compute the same either way; the flag's value shows when it is
/// read by `addc` or set by `add.cc` before a `subc`.
pub fn carry(cx: &mut Cx<'_>, c: &Carry) {
    let x = cx.read(&c.src[0], c.ty);
    let y = cx.read(&c.src[1], c.ty);
    let (x, y) = match c.op {
        CarryOp::Mad { hi } => {
            let product = if !hi {
                BinOp::IMul
            } else if c.ty.is_signed() {
                BinOp::SMulHi
            } else {
                BinOp::UMulHi
            };
            let p = cx.b.bin(product, x, y);
            (p, cx.read(&c.src[2], c.ty))
        }
        _ => (x, y),
    };
    let sub = c.op == CarryOp::Sub;
    let carry_in = if c.carry_in {
        let flag = carry_flag(cx);
        let mut cf = cx.b.emit(Ty::Bool, Op::LoadVar(flag));
        if sub {
            cf = cx.b.un(UnOp::Not, cf);
        }
        Some(cx.b.conv(ConvOp::BoolToInt, cf, Ty::of(c.ty)))
    } else {
        None
    };
    // Only `.cc` computes the carry (borrow) out, of either step.
    let step = if sub { BinOp::ISub } else { BinOp::IAdd };
    let s = cx.b.bin(step, x, y);
    let mut out = c.carry_out.then(|| wrapped(cx, sub, x, y, s));
    let d = match carry_in {
        Some(cf) => {
            let d = cx.b.bin(step, s, cf);
            if let Some(o1) = out {
                let o2 = wrapped(cx, sub, s, cf, d);
                out = Some(cx.b.bin(BinOp::Or, o1, o2));
            }
            d
        }
        None => s,
    };
    cx.write(&c.dst, d);
    if let Some(mut out) = out {
        if sub {
            out = cx.b.un(UnOp::Not, out);
        }
        let flag = carry_flag(cx);
        cx.b.emit_void(Op::StoreVar(flag, out));
    }
}

/// Whether `to = from + by` (`from - by` if `sub`) wrapped around as unsigned arithmetic: the
/// carry out of an addition (a sum below what was added to) or the borrow out of a subtraction.
fn wrapped(cx: &mut Cx<'_>, sub: bool, from: ValueId, by: ValueId, to: ValueId) -> ValueId {
    if sub {
        cx.b.bin(BinOp::ULt, from, by)
    } else {
        cx.b.bin(BinOp::ULt, to, from)
    }
}
