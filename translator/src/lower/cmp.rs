//! The meaning of comparison and selection (ISA 8.7.4, and the half-precision `set`/`setp`).

use super::cx::Cx;
use super::float::class::flush;
use super::float::half;
use super::float::softfloat::{FloatFormat, Ops};
use crate::check::inst::{Arith, BoolOp, CmpOp, Set, Setp, Slct};
use crate::ir::build::Build;
use crate::ir::{BinOp, Ty, UnOp, ValueId};
use crate::types::ScalarType;

/// `a cmp b` as a predicate (ISA 8.3.1, Tables 21-23), for values of an integer or f32/f64 type.
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
                let an = cx.b.un(UnOp::IsNan, a);
                let bn = cx.b.un(UnOp::IsNan, b);
                let any = cx.b.bin(BinOp::Or, an, bn);
                return if cmp == Nan {
                    any
                } else {
                    cx.b.un(UnOp::Not, any)
                };
            }
            // Rejected by the checker for floats.
            Lo | Ls | Hi | Hs => BinOp::FOrdEq,
        };
        return cx.b.bin(op, a, b);
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
    cx.b.bin(op, a, b)
}

fn combine(cx: &mut Cx<'_>, op: BoolOp, a: ValueId, b: ValueId) -> ValueId {
    let op = match op {
        BoolOp::And => BinOp::And,
        BoolOp::Or => BinOp::Or,
        BoolOp::Xor => BinOp::Xor,
    };
    cx.b.bin(op, a, b)
}

fn is_half(ty: ScalarType) -> bool {
    matches!(
        ty,
        ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2
    )
}

/// The comparison results of `a cmp b`: one, or one per half of a packed pair. `.ftz`
/// flushes subnormal inputs first.
fn compare_operands(
    cx: &mut Cx<'_>,
    cmp: CmpOp,
    ty: ScalarType,
    ftz: bool,
    a: ValueId,
    b: ValueId,
) -> smallvec::SmallVec<[ValueId; 2]> {
    if !is_half(ty) {
        let (a, b) = if ftz {
            let fmt = FloatFormat::of(ty);
            let ai = cx.b.as_int(a);
            let bi = cx.b.as_int(b);
            let (ai, bi) = (flush(cx, ai, fmt), flush(cx, bi, fmt));
            let ft = cx.b.f.ty(a);
            (cx.float_of(ai, ft), cx.float_of(bi, ft))
        } else {
            (a, b)
        };
        return smallvec::smallvec![compare(cx, cmp, ty, a, b)];
    }
    let fmt = FloatFormat::of(ty);
    let lanes: smallvec::SmallVec<[(ValueId, ValueId); 2]> =
        if matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
            let (a0, a1) = half::split(cx, a);
            let (b0, b1) = half::split(cx, b);
            smallvec::smallvec![(a0, b0), (a1, b1)]
        } else {
            smallvec::smallvec![(a, b)]
        };
    lanes
        .into_iter()
        .map(|(x, y)| {
            let (x, y) = if ftz {
                (flush(cx, x, fmt), flush(cx, y, fmt))
            } else {
                (x, y)
            };
            let xf = half::to_f32(cx, x, fmt);
            let yf = half::to_f32(cx, y, fmt);
            compare(cx, cmp, ScalarType::F32, xf, yf)
        })
        .collect()
}

/// Reads a comparison operand: half types as their bits, others as values.
fn read_operand(cx: &mut Cx<'_>, src: &crate::check::Src, ty: ScalarType) -> ValueId {
    if is_half(ty) {
        let bits = ScalarType::bits_of(ty.bits()).unwrap_or(ty);
        cx.read(src, bits)
    } else {
        cx.read(src, ty)
    }
}

/// `setp`: `p = (a cmp b) op c`, `q = !(a cmp b) op c`; for packed halves `p` and `q` are the
/// two halves' results.
pub fn setp(cx: &mut Cx<'_>, s: &Setp) {
    let a = read_operand(cx, &s.a, s.ty);
    let b = read_operand(cx, &s.b, s.ty);
    let t = compare_operands(cx, s.cmp, s.ty, s.ftz, a, b);
    let c = s
        .combine
        .as_ref()
        .map(|(op, c)| (*op, cx.read(c, ScalarType::Pred)));
    let apply = |cx: &mut Cx<'_>, t: ValueId| match c {
        Some((op, c)) => combine(cx, op, t, c),
        None => t,
    };
    let p = apply(cx, t[0]);
    cx.write(&s.p, p);
    if let Some(q) = &s.q {
        let qt = match t.get(1) {
            Some(&t1) => t1,
            None => cx.b.un(UnOp::Not, t[0]),
        };
        let qv = apply(cx, qt);
        cx.write(q, qv);
    }
}

/// `set`: the combined comparison as 0xffffffff/0 for integer destinations (0xffff for 16-bit
/// ones), 1.0/0.0 for floating-point ones; packed sources give one result per half.
pub fn set(cx: &mut Cx<'_>, s: &Set) {
    use ScalarType::*;
    let a = read_operand(cx, &s.a, s.stype);
    let b = read_operand(cx, &s.b, s.stype);
    let t = compare_operands(cx, s.cmp, s.stype, s.ftz, a, b);
    let c = s
        .combine
        .as_ref()
        .map(|(op, c)| (*op, cx.read(c, ScalarType::Pred)));
    let t: Vec<ValueId> = t
        .into_iter()
        .map(|t| match c {
            Some((op, c)) => combine(cx, op, t, c),
            None => t,
        })
        .collect();
    if t.len() == 2 {
        // Per half: 1.0 in the half format for .f16x2/.bf16x2 destinations, else 0xffff.
        let one = match s.dtype {
            F16x2 => 0x3c00,
            Bf16x2 => 0x3f80,
            _ => 0xffff,
        };
        let one = cx.b.konst(Ty::I16, one);
        let zero = cx.b.konst(Ty::I16, 0);
        let lo = cx.sel(t[0], one, zero);
        let hi = cx.sel(t[1], one, zero);
        let r = half::join(cx, lo, hi);
        cx.write(&s.d, r);
        return;
    }
    let (ty, one) = match s.dtype {
        F32 => (Ty::I32, u64::from(1f32.to_bits())),
        F16 => (Ty::I16, 0x3c00),
        Bf16 => (Ty::I16, 0x3f80),
        U16 | S16 => (Ty::I16, 0xffff),
        _ => (Ty::I32, 0xffff_ffff),
    };
    let one = cx.b.konst(ty, one);
    let zero = cx.b.konst(ty, 0);
    let r = cx.sel(t[0], one, zero);
    cx.write(&s.d, r);
}

/// `selp`: `d = c ? a : b`.
pub fn selp(cx: &mut Cx<'_>, s: &Arith) {
    let a = cx.read(&s.src[0], s.ty);
    let b = cx.read(&s.src[1], s.ty);
    let c = cx.read(&s.src[2], ScalarType::Pred);
    debug_assert_eq!(cx.b.f.ty(c), Ty::Bool);
    let r = cx.b.select(c, a, b);
    cx.write(&s.dst, r);
}

/// `slct`: `d = c >= 0 ? a : b`; for an .f32 `c`, -0 counts as 0 and NaN selects `b`
/// (ISA 8.7.4.4); `.ftz` flushes a subnormal `c` to zero, which selects `a`.
pub fn slct(cx: &mut Cx<'_>, s: &Slct) {
    let a = cx.read(&s.a, s.dtype);
    let b = cx.read(&s.b, s.dtype);
    let c = cx.read(&s.c, s.ctype);
    let ge = if s.ctype == ScalarType::F32 {
        let c = if s.ftz {
            let ci = cx.b.as_int(c);
            let f = flush(cx, ci, FloatFormat::of(ScalarType::F32));
            cx.float_of(f, Ty::F32)
        } else {
            c
        };
        let zero = cx.b.konst(Ty::F32, 0);
        cx.b.bin(BinOp::FOrdGe, c, zero)
    } else {
        let zero = cx.b.konst(Ty::I32, 0);
        cx.b.bin(BinOp::SGe, c, zero)
    };
    let r = cx.b.select(ge, a, b);
    cx.write(&s.d, r);
}
