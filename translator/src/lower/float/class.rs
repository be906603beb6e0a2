//! IEEE bit patterns: what a value is (NaN, infinity, zero, its sign), flushing subnormals, and
//! the results operations give where an operand is special.

use super::super::cx::Cx;
use super::softfloat::{self as sf, FloatFormat, Ops};
use crate::ir::build::Build;
use crate::ir::{BinOp, Ty, ValueId};

use BinOp::*;

pub(in crate::lower) fn mask(fmt: FloatFormat) -> u64 {
    if fmt.width() >= 64 {
        u64::MAX
    } else {
        (1u64 << fmt.width()) - 1
    }
}

pub(in crate::lower) fn magnitude(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let m = cx.b.konst(fmt.int_ty(), !fmt.sign_bit() & mask(fmt));
    cx.bop(And, x, m)
}

pub(in crate::lower) fn is_nan(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let m = magnitude(cx, x, fmt);
    let inf = cx.b.konst(fmt.int_ty(), fmt.inf());
    cx.bop(UGt, m, inf)
}

pub(in crate::lower) fn is_inf(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let m = magnitude(cx, x, fmt);
    let inf = cx.b.konst(fmt.int_ty(), fmt.inf());
    cx.bop(IEq, m, inf)
}

/// NaN or infinity.
pub(in crate::lower) fn is_special(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let m = magnitude(cx, x, fmt);
    let inf = cx.b.konst(fmt.int_ty(), fmt.inf());
    cx.bop(UGe, m, inf)
}

pub(in crate::lower) fn is_zero(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let m = magnitude(cx, x, fmt);
    cx.is_zero(m)
}

pub(in crate::lower) fn sign(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    cx.bit(x, fmt.width() - 1)
}

/// `.ftz`: a subnormal becomes a zero of the same sign.
pub(in crate::lower) fn flush(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let e = cx.b.konst(fmt.int_ty(), fmt.exp_mask());
    let ex = cx.bop(And, x, e);
    let sub = cx.is_zero(ex);
    let s = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    let sb = cx.bop(And, x, s);
    cx.sel(sub, sb, x)
}

/// The NaN a result becomes when an input is NaN: for .f64 the first NaN input, quieted
/// (double precision keeps payloads, ISA 8.7.3); otherwise the canonical NaN.
pub(in crate::lower) fn nan_result(
    cx: &mut Cx<'_>,
    fmt: FloatFormat,
    inputs: &[ValueId],
) -> ValueId {
    let canonical = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    if fmt != sf::F64 {
        return canonical;
    }
    let quiet = cx.b.konst(fmt.int_ty(), 1u64 << (fmt.mant - 1));
    let mut r = canonical;
    for &x in inputs.iter().rev() {
        let n = is_nan(cx, x, fmt);
        let q = cx.bop(Or, x, quiet);
        r = cx.sel(n, q, r);
    }
    r
}

/// The native float type of a format, if computing in it is exact for the case at hand.
pub(in crate::lower) fn native_ty(fmt: FloatFormat) -> Option<Ty> {
    if fmt == sf::F32 {
        Some(Ty::F32)
    } else if fmt == sf::F64 {
        Some(Ty::F64)
    } else {
        None
    }
}

/// Reinterprets bits as the native float of the same width.
pub(in crate::lower) fn as_float(cx: &mut Cx<'_>, x: ValueId, ty: Ty) -> ValueId {
    cx.float_of(x, ty)
}

/// The quotient where an operand is a zero, an infinity or a NaN (ISA 8.7.3.8); `q` (the signed
/// quotient's bits) elsewhere.
pub(in crate::lower) fn div_special_cases(
    cx: &mut Cx<'_>,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
    q: ValueId,
) -> ValueId {
    let a_nan = is_nan(cx, a, fmt);
    let b_nan = is_nan(cx, b, fmt);
    let a_inf = is_inf(cx, a, fmt);
    let b_inf = is_inf(cx, b, fmt);
    let a_zero = is_zero(cx, a, fmt);
    let b_zero = is_zero(cx, b, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let s = cx.bop(Xor, sa, sb);
    let sbit = cx.b.konst(fmt.int_ty(), fmt.sign_bit());
    let zero = cx.b.konst(fmt.int_ty(), 0);
    let sz = cx.sel(s, sbit, zero);
    let inf = cx.b.konst(fmt.int_ty(), fmt.inf());
    let sinf = cx.bop(Or, inf, sz);
    let both_inf = cx.bop(And, a_inf, b_inf);
    let both_zero = cx.bop(And, a_zero, b_zero);
    let invalid = cx.bop(Or, both_inf, both_zero);
    let to_inf = cx.bop(Or, a_inf, b_zero);
    let to_zero = cx.bop(Or, a_zero, b_inf);
    let any_nan = cx.bop(Or, a_nan, b_nan);
    let nan_in = nan_result(cx, fmt, &[a, b]);
    let canonical = cx.b.konst(fmt.int_ty(), fmt.canonical_nan());
    let mut r = q;
    r = cx.sel(to_zero, sz, r);
    r = cx.sel(to_inf, sinf, r);
    r = cx.sel(invalid, canonical, r);
    cx.sel(any_nan, nan_in, r)
}
