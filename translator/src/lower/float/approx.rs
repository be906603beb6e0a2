//! The `.approx` (and `.full`) instructions: the driver's operations where they meet the error
//! the ISA states, with the ISA's special-value tables applied explicitly (Vulkan leaves most
//! of them undefined), and `tanh` computed from `exp2` because Vulkan's `Tanh` has no useful
//! bound near zero. The bounds are checked by the conformance suite (`cases/float/`).

use super::super::cx::Cx;
use super::class::{is_inf, is_nan, is_zero, magnitude, sign};
use super::format::pow2;
use super::half;
use super::softfloat::{self as sf, FloatFormat, Ops};
use crate::check::inst::{Float, FloatOp, Precision};
use crate::ir::build::Build;
use crate::ir::{BinOp, ExtOp, FpFlags, Ty, ValueId};

use BinOp::*;

pub fn lower(cx: &mut Cx<'_>, f: &Float, fmt: FloatFormat, v: &[ValueId]) -> ValueId {
    if fmt == sf::F64 {
        return match f.op {
            FloatOp::Rcp => gross_f64(cx, v[0], false),
            FloatOp::Rsqrt if f.ftz => gross_f64(cx, v[0], true),
            _ => {
                let x = cx.float_of(v[0], Ty::F64);
                let r = rsqrt(cx, x, Ty::F64);
                cx.bits_of(r)
            }
        };
    }
    // Everything else is .f32, or a half computed in f32 and rounded once.
    let x: Vec<ValueId> = v.iter().map(|&b| half::to_f32(cx, b, fmt)).collect();
    let r = match f.op {
        FloatOp::Div => div(cx, x[0], x[1], f.precision == Precision::Approx),
        FloatOp::Rcp => {
            let one = sf::fconst(cx, Ty::F32, 1.0);
            div(cx, one, x[0], false)
        }
        FloatOp::Sqrt => sqrt(cx, x[0]),
        FloatOp::Rsqrt => rsqrt(cx, x[0], Ty::F32),
        FloatOp::Sin | FloatOp::Cos => sin_cos(cx, x[0], f.op == FloatOp::Cos),
        FloatOp::Lg2 => lg2(cx, x[0]),
        FloatOp::Ex2 => ex2(cx, x[0]),
        FloatOp::Tanh => tanh(cx, x[0]),
        _ => {
            cx.unsupported(format!("`{:?}` in this form", f.op));
            x[0]
        }
    };
    half::from_f32(cx, r, fmt)
}

fn fc(cx: &mut Cx<'_>, ty: Ty, v: f64) -> ValueId {
    sf::fconst(cx, ty, v)
}

fn fbits(cx: &mut Cx<'_>, x: ValueId) -> (ValueId, FloatFormat) {
    let ty = cx.b.f.ty(x);
    let b = cx.bits_of(x);
    (b, if ty == Ty::F64 { sf::F64 } else { sf::F32 })
}

/// `div.approx` / `div.full` / `rcp.approx`: the driver's division, with division by zero and
/// by infinity made explicit; `.approx` also gives a signed zero (NaN for an infinite `a`) for
/// 2^126 < |b| < 2^128, as it computes `a * (1/b)` with `1/b` flushed (ISA 8.7.3.8).
fn div(cx: &mut Cx<'_>, a: ValueId, b: ValueId, approx: bool) -> ValueId {
    let q = cx.b.bin(FDiv, a, b);
    let (ab, fmt) = fbits(cx, a);
    let (bb, _) = fbits(cx, b);
    let a_nan = is_nan(cx, ab, fmt);
    let b_nan = is_nan(cx, bb, fmt);
    let a_inf = is_inf(cx, ab, fmt);
    let b_inf = is_inf(cx, bb, fmt);
    let a_zero = is_zero(cx, ab, fmt);
    let b_zero = is_zero(cx, bb, fmt);
    let sa = sign(cx, ab, fmt);
    let sb = sign(cx, bb, fmt);
    let s = cx.bop(Xor, sa, sb);
    let sbit = cx.c32(sf::F32.sign_bit() as u32);
    let z = cx.c32(0);
    let sz = cx.sel(s, sbit, z);
    let inf = cx.c32(sf::F32.inf() as u32);
    let sinf = cx.bop(Or, inf, sz);
    let nan = cx.c32(sf::F32.canonical_nan() as u32);
    let mut r = cx.bits_of(q);
    let to_zero = if approx {
        let mb = magnitude(cx, bb, fmt);
        let lim = cx.c32(2f32.powi(126).to_bits());
        let big = cx.bop(UGt, mb, lim);
        cx.bop(Or, big, b_inf)
    } else {
        b_inf
    };
    let to_inf = cx.bop(Or, b_zero, a_inf);
    let t1 = cx.bop(And, a_zero, b_zero);
    let t2 = cx.bop(And, a_inf, to_zero);
    let invalid = cx.bop(Or, t1, t2);
    let any_nan = cx.bop(Or, a_nan, b_nan);
    let invalid = cx.bop(Or, invalid, any_nan);
    let to_zero2 = cx.bop(Or, to_zero, a_zero);
    r = cx.sel(to_zero2, sz, r);
    r = cx.sel(to_inf, sinf, r);
    r = cx.sel(invalid, nan, r);
    cx.float_of(r, Ty::F32)
}

/// `sqrt.approx.f32`: negative inputs give NaN, zeros keep their sign.
fn sqrt(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let r = cx.b.ext(ExtOp::Sqrt, &[x], FpFlags::default());
    let (xb, fmt) = fbits(cx, x);
    let neg = sign(cx, xb, fmt);
    let zero = is_zero(cx, xb, fmt);
    let nz = cx.not(zero);
    let invalid = cx.bop(And, neg, nz);
    let inf = is_inf(cx, xb, fmt);
    let keep = cx.bop(Or, zero, inf);
    let r = cx.sel(keep, x, r);
    let nan = fc(cx, Ty::F32, f64::NAN);
    cx.sel(invalid, nan, r)
}

/// `rsqrt.approx`: -x gives NaN, ±0 gives ±inf, +inf gives +0.
fn rsqrt(cx: &mut Cx<'_>, x: ValueId, ty: Ty) -> ValueId {
    let r = cx.b.ext(ExtOp::InverseSqrt, &[x], FpFlags::default());
    let (xb, fmt) = fbits(cx, x);
    let neg = sign(cx, xb, fmt);
    let zero = is_zero(cx, xb, fmt);
    let inf = is_inf(cx, xb, fmt);
    let nan_in = is_nan(cx, xb, fmt);
    let nz = cx.not(zero);
    let invalid = cx.bop(And, neg, nz);
    let invalid = cx.bop(Or, invalid, nan_in);
    let pinf = fc(cx, ty, f64::INFINITY);
    let ninf = fc(cx, ty, f64::NEG_INFINITY);
    let zinf = cx.sel(neg, ninf, pinf);
    let pzero = fc(cx, ty, 0.0);
    let nan = fc(cx, ty, f64::NAN);
    let r = cx.sel(inf, pzero, r);
    let r = cx.sel(zero, zinf, r);
    cx.sel(invalid, nan, r)
}

/// `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` (ISA 8.7.3.14, 8.7.3.17): computed from the
/// upper 32 bits of `a`, the low 32 bits of the result zero, subnormals flushed, NaNs to
/// 0x7fffffff00000000.
fn gross_f64(cx: &mut Cx<'_>, a: ValueId, rsqrt_op: bool) -> ValueId {
    let hi_mask = cx.c64(0xffff_ffff_0000_0000);
    let a = cx.bop(And, a, hi_mask);
    let fmt = sf::F64;
    let a = super::class::flush(cx, a, fmt);
    let x = cx.float_of(a, Ty::F64);
    let r = if rsqrt_op {
        rsqrt(cx, x, Ty::F64)
    } else {
        let one = fc(cx, Ty::F64, 1.0);
        let q = cx.b.bin(FDiv, one, x);
        let zero = is_zero(cx, a, fmt);
        let inf = is_inf(cx, a, fmt);
        let s = sign(cx, a, fmt);
        let pinf = fc(cx, Ty::F64, f64::INFINITY);
        let ninf = fc(cx, Ty::F64, f64::NEG_INFINITY);
        let zinf = cx.sel(s, ninf, pinf);
        let pz = fc(cx, Ty::F64, 0.0);
        let nz = fc(cx, Ty::F64, -0.0);
        let z = cx.sel(s, nz, pz);
        let r = cx.sel(inf, z, q);
        cx.sel(zero, zinf, r)
    };
    let rb = cx.bits_of(r);
    let rb = cx.bop(And, rb, hi_mask);
    let rb = super::class::flush(cx, rb, fmt);
    let nan = is_nan(cx, rb, fmt);
    let canonical = cx.c64(0x7fff_ffff_0000_0000);
    cx.sel(nan, canonical, rb)
}

/// `sin.approx`/`cos.approx`: infinities give NaN; `sin` keeps the sign of zero.
fn sin_cos(cx: &mut Cx<'_>, x: ValueId, cos: bool) -> ValueId {
    let op = if cos { ExtOp::Cos } else { ExtOp::Sin };
    let r = cx.b.ext(op, &[x], FpFlags::default());
    let (xb, fmt) = fbits(cx, x);
    let inf = is_inf(cx, xb, fmt);
    let nan_in = is_nan(cx, xb, fmt);
    let bad = cx.bop(Or, inf, nan_in);
    let zero = is_zero(cx, xb, fmt);
    let at_zero = if cos { fc(cx, Ty::F32, 1.0) } else { x };
    let r = cx.sel(zero, at_zero, r);
    let nan = fc(cx, Ty::F32, f64::NAN);
    cx.sel(bad, nan, r)
}

/// `lg2.approx`: negative inputs give NaN, zeros -inf. Subnormal inputs are scaled by 2^64
/// first (drivers, lavapipe included, flush them in `Log2`).
fn lg2(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let (xb, fmt) = fbits(cx, x);
    let e = cx.c32(sf::F32.exp_mask() as u32);
    let ex = cx.bop(And, xb, e);
    let sub = cx.is_zero(ex);
    let scale = fc(cx, Ty::F32, 2f64.powi(64));
    let xs = cx.b.bin(FMul, x, scale);
    let xs = cx.sel(sub, xs, x);
    let r = cx.b.ext(ExtOp::Log2, &[xs], FpFlags::default());
    let sixty_four = fc(cx, Ty::F32, 64.0);
    let rs = cx.b.bin(FSub, r, sixty_four);
    let r = cx.sel(sub, rs, r);
    let neg = sign(cx, xb, fmt);
    let zero = is_zero(cx, xb, fmt);
    let inf = is_inf(cx, xb, fmt);
    let nan_in = is_nan(cx, xb, fmt);
    let nz = cx.not(zero);
    let invalid = cx.bop(And, neg, nz);
    let invalid = cx.bop(Or, invalid, nan_in);
    let ninf = fc(cx, Ty::F32, f64::NEG_INFINITY);
    let r = cx.sel(inf, x, r);
    let r = cx.sel(zero, ninf, r);
    let nan = fc(cx, Ty::F32, f64::NAN);
    cx.sel(invalid, nan, r)
}

/// `ex2.approx`: within 2 ulp of the correctly rounded result over the whole range, subnormal
/// results included (drivers' `Exp2` is looser and lavapipe's flushes). Computed in f32 on every
/// device: over all 2^32 inputs it is at most one step from the correctly rounded result (1.23
/// ulp from 2^x), and float64 runs at a fraction of f32's rate on CPUs and most GPUs
/// (docs/decisions/0038-approx-instructions.md).
fn ex2(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let r = ex2_f32(cx, x);
    let (xb, fmt) = fbits(cx, x);
    let neg = sign(cx, xb, fmt);
    let inf = is_inf(cx, xb, fmt);
    let nan_in = is_nan(cx, xb, fmt);
    let zero = is_zero(cx, xb, fmt);
    let one = fc(cx, Ty::F32, 1.0);
    let r = cx.sel(zero, one, r);
    let pz = fc(cx, Ty::F32, 0.0);
    let inf_r = cx.sel(neg, pz, x);
    let r = cx.sel(inf, inf_r, r);
    let nan = fc(cx, Ty::F32, f64::NAN);
    cx.sel(nan_in, nan, r)
}

/// 2^x = 2^n * 2^f with n = round(x) and f = x - n (exact, |f| <= 1/2), a degree-7 Taylor
/// series for 2^f, and the scaling by 2^n in two exact-then-rounding steps so that subnormal
/// results are rounded once.
fn ex2_f32(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let t = Ty::F32;
    let lo = fc(cx, t, -200.0);
    let hi = fc(cx, t, 200.0);
    let xc = cx.b.ext(ExtOp::FMax, &[x, lo], FpFlags::default());
    let xc = cx.b.ext(ExtOp::FMin, &[xc, hi], FpFlags::default());
    let n = cx.b.ext(ExtOp::RoundEven, &[xc], FpFlags::default());
    let f = cx.b.bin(FSub, xc, n);
    let ln2 = fc(cx, t, std::f64::consts::LN_2);
    let y = cx.b.bin(FMul, f, ln2);
    let mut p = fc(cx, t, 1.0 / 5040.0);
    let mut fact = 5040.0f64;
    for k in (0..7).rev() {
        fact /= f64::from(k + 1);
        let m = cx.b.bin(FMul, p, y);
        let c = fc(cx, t, 1.0 / fact);
        p = cx.b.bin(FAdd, m, c);
    }
    // p * 2^n = (p * 2^(n + 100)) * 2^-100 below 2^-100 (only the last product rounds), and
    // p * 2^(n/2) * 2^(n - n/2) above, each factor a normal f32 (n in [-100, 200]).
    let ni = cx.b.conv(crate::ir::ConvOp::FToS, n, Ty::I32);
    let tiny = cx.c32((-100i32) as u32);
    let is_tiny = cx.bop(SLt, ni, tiny);
    let hundred = cx.c32(100);
    let n_up = cx.bop(IAdd, ni, hundred);
    let k = cx.sel(is_tiny, n_up, ni);
    let one = cx.c32(1);
    let half_k = cx.bop(AShr, k, one);
    let rest = cx.bop(ISub, k, half_k);
    let s1 = pow2(cx, half_k, sf::F32);
    let s2 = pow2(cx, rest, sf::F32);
    let v = cx.b.bin(FMul, p, s1);
    let v = cx.b.bin(FMul, v, s2);
    let down = fc(cx, t, 2f64.powi(-100));
    let vd = cx.b.bin(FMul, v, down);
    cx.sel(is_tiny, vd, v)
}

/// `tanh.approx` (relative error 2^-11 for .f32): an odd polynomial near zero, where
/// `1 - 2/(e^2x + 1)` would cancel, and that formula elsewhere.
fn tanh(cx: &mut Cx<'_>, x: ValueId) -> ValueId {
    let t = Ty::F32;
    let ax = cx.b.ext(ExtOp::FAbs, &[x], FpFlags::default());
    // x * (1 - x^2/3 + 2x^4/15 - 17x^6/315 + 62x^8/2835 - 1382x^10/155925): |x| < 0.55.
    let x2 = cx.b.bin(FMul, x, x);
    let coeffs = [
        -1382.0 / 155925.0,
        62.0 / 2835.0,
        -17.0 / 315.0,
        2.0 / 15.0,
        -1.0 / 3.0,
        1.0,
    ];
    let mut p = fc(cx, t, coeffs[0]);
    for c in &coeffs[1..] {
        let m = cx.b.bin(FMul, p, x2);
        let k = fc(cx, t, *c);
        p = cx.b.bin(FAdd, m, k);
    }
    let small = cx.b.bin(FMul, x, p);
    // 1 - 2 / (2^(2|x| log2 e) + 1), with the sign of x.
    let k = fc(cx, t, 2.0 * std::f64::consts::LOG2_E);
    let e = cx.b.bin(FMul, ax, k);
    let e = cx.b.ext(ExtOp::Exp2, &[e], FpFlags::default());
    let one = fc(cx, t, 1.0);
    let two = fc(cx, t, 2.0);
    let d = cx.b.bin(FAdd, e, one);
    let q = cx.b.bin(FDiv, two, d);
    let big = cx.b.bin(FSub, one, q);
    let neg_big = cx.b.un(crate::ir::UnOp::FNeg, big);
    let (xb, fmt) = fbits(cx, x);
    let s = sign(cx, xb, fmt);
    let big = cx.sel(s, neg_big, big);
    // Past 10, tanh is 1 to f32 precision (and exp2 would overflow).
    let ten = fc(cx, t, 10.0);
    let huge = cx.b.bin(FOrdGt, ax, ten);
    let neg_one = fc(cx, t, -1.0);
    let unit = cx.sel(s, neg_one, one);
    let big = cx.sel(huge, unit, big);
    let lim = fc(cx, t, 0.55);
    let is_small = cx.b.bin(FOrdLt, ax, lim);
    let r = cx.sel(is_small, small, big);
    let nan_in = is_nan(cx, xb, fmt);
    cx.sel(nan_in, x, r)
}
