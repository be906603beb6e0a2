//! The meaning of comparison and selection (ISA 8.7.4).

use super::Cx;
use crate::check::inst::{Arith, BoolOp, CmpOp, Setp};
use crate::ir::{BinOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;

/// `a cmp b` as a predicate (ISA 8.3.1, Tables 21-23).
pub(super) fn compare(
    cx: &mut Cx<'_>,
    cmp: CmpOp,
    ty: ScalarType,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    use CmpOp::*;
    if ty.is_float() {
        let op = match cmp {
            Eq => BinOp::FOrdEq,
            Ne => BinOp::FOrdNe,
            Lt => BinOp::FOrdLt,
            Le => BinOp::FOrdLe,
            Gt => BinOp::FOrdGt,
            Ge => BinOp::FOrdGe,
            Equ => BinOp::FUnordEq,
            Neu => BinOp::FUnordNe,
            Ltu => BinOp::FUnordLt,
            Leu => BinOp::FUnordLe,
            Gtu => BinOp::FUnordGt,
            Geu => BinOp::FUnordGe,
            Num | Nan => {
                let an = cx.un(UnOp::IsNan, a);
                let bn = cx.un(UnOp::IsNan, b);
                let any = cx.bin(BinOp::Or, an, bn);
                return if cmp == Nan {
                    any
                } else {
                    cx.un(UnOp::Not, any)
                };
            }
            // Rejected by the checker for floats.
            Lo | Ls | Hi | Hs => BinOp::FOrdEq,
        };
        return cx.bin(op, a, b);
    }
    let signed = ty.is_signed();
    let op = match cmp {
        Eq | Equ => BinOp::IEq,
        Ne | Neu => BinOp::INe,
        Lt | Ltu if signed => BinOp::SLt,
        Le | Leu if signed => BinOp::SLe,
        Gt | Gtu if signed => BinOp::SGt,
        Ge | Geu if signed => BinOp::SGe,
        Lt | Ltu | Lo => BinOp::ULt,
        Le | Leu | Ls => BinOp::ULe,
        Gt | Gtu | Hi => BinOp::UGt,
        Ge | Geu | Hs => BinOp::UGe,
        // Rejected by the checker for integers.
        Num | Nan => BinOp::IEq,
    };
    cx.bin(op, a, b)
}

fn combine(cx: &mut Cx<'_>, op: BoolOp, a: ValueId, b: ValueId) -> ValueId {
    let op = match op {
        BoolOp::And => BinOp::And,
        BoolOp::Or => BinOp::Or,
        BoolOp::Xor => BinOp::Xor,
    };
    cx.bin(op, a, b)
}

/// `setp`: `p = (a cmp b) op c`, `q = !(a cmp b) op c`.
pub fn setp(cx: &mut Cx<'_>, s: &Setp) {
    let mut a = cx.read(&s.a, s.ty);
    let mut b = cx.read(&s.b, s.ty);
    if s.ftz {
        a = super::arith::flush(cx, a);
        b = super::arith::flush(cx, b);
    }
    let t = compare(cx, s.cmp, s.ty, a, b);
    let c = s
        .combine
        .as_ref()
        .map(|(op, c)| (*op, cx.read(c, ScalarType::Pred)));
    let p = match c {
        Some((op, c)) => combine(cx, op, t, c),
        None => t,
    };
    cx.write(&s.p, ScalarType::Pred, p);
    if let Some(q) = &s.q {
        let nt = cx.un(UnOp::Not, t);
        let qv = match c {
            Some((op, c)) => combine(cx, op, nt, c),
            None => nt,
        };
        cx.write(q, ScalarType::Pred, qv);
    }
}

/// `selp`: `d = c ? a : b`.
pub fn selp(cx: &mut Cx<'_>, s: &Arith) {
    let a = cx.read(&s.src[0], s.ty);
    let b = cx.read(&s.src[1], s.ty);
    let c = cx.read(&s.src[2], ScalarType::Pred);
    debug_assert_eq!(cx.f.ty(c), Ty::Bool);
    let r = cx.select(c, a, b);
    cx.write(&s.dst, s.ty, r);
}
