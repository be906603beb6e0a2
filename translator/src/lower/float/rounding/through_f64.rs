//! Formats up to 32 bits rounded through f64: a sum rounded to odd (or an exact product) and one
//! rounding to the format give the correctly rounded result for any rounding mode, far cheaper
//! than the integer emulation wherever the device has f64.

use super::sign::zero_sum_sign;
use crate::check::inst::FloatOp;
use crate::float_format::RoundMode;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, FpFlags, Ty, ValueId};
use crate::lower::cx::Cx;
use crate::lower::float::class::{is_zero, sign};
use crate::lower::float::half;
use crate::lower::float::softfloat::{self as sf, FloatFormat, Ops};
use crate::lower::helper::Helper;

use BinOp::*;

/// Widens bits of a format of at most 32 bits to an f64, exactly.
fn to_f64(cx: &mut Cx<'_>, x: ValueId, fmt: FloatFormat) -> ValueId {
    let f = half::to_f32(cx, x, fmt);
    cx.b.conv(ConvOp::FConvert, f, Ty::F64)
}

/// `a + b` / `a * b` of formats up to 32 bits through f64, where sums are rounded to odd and
/// products are exact, then rounded once to `fmt`.
pub(super) fn via_f64(
    cx: &mut Cx<'_>,
    op: FloatOp,
    mode: RoundMode,
    fmt: FloatFormat,
    a: ValueId,
    b: ValueId,
) -> ValueId {
    let x = to_f64(cx, a, fmt);
    let y = to_f64(cx, b, fmt);
    let sa = sign(cx, a, fmt);
    let sb = sign(cx, b, fmt);
    let (r, zs) = if op == FloatOp::Mul {
        let r = cx.b.bin_flags(FMul, x, y, FpFlags { exact: true });
        (r, cx.bop(Xor, sa, sb))
    } else {
        let r = sf::add_round_odd_f64(cx, x, y);
        (r, zero_sum_sign(cx, mode, sa, sb))
    };
    sf::round_from_f64(cx, r, mode, fmt, zs)
}

/// `fma` of formats up to 32 bits through f64: the product is exact, the sum rounded to odd
/// (in a helper function: see `helper.rs`).
pub(super) fn fma_via_f64(
    cx: &mut Cx<'_>,
    v: &[ValueId],
    fmt: FloatFormat,
    mode: RoundMode,
) -> ValueId {
    let h = Helper {
        what: "fma",
        mode,
        fmt,
    };
    cx.out_of_line(h, &v[..3], |cx, v| fma_via_f64_body(cx, v, fmt, mode))
}

fn fma_via_f64_body(cx: &mut Cx<'_>, v: &[ValueId], fmt: FloatFormat, mode: RoundMode) -> ValueId {
    let a = to_f64(cx, v[0], fmt);
    let b = to_f64(cx, v[1], fmt);
    let c = to_f64(cx, v[2], fmt);
    let p = cx.b.bin_flags(FMul, a, b, FpFlags { exact: true });
    let s = sf::add_round_odd_f64(cx, p, c);
    let pb = cx.bits_of(p);
    let sp = cx.bit(pb, 63);
    let sc = sign(cx, v[2], fmt);
    let zs = zero_sum_sign(cx, mode, sp, sc);
    if fmt == sf::F32 && mode == RoundMode::NearestEven {
        // Rounding to nearest of the rounded-to-odd sum is the correctly rounded result, but
        // for the sign of an exactly zero sum: lavapipe takes `p + c` for `p` once inlining
        // makes `c` the constant +0.0, float controls or not
        // (docs/decisions/0198-signed-zero-inf-nan-preserve.md).
        let r = cx.b.conv(ConvOp::FConvert, s, Ty::F32);
        let rb = cx.bits_of(r);
        let sb = cx.bits_of(s);
        let exact_zero = is_zero(cx, sb, sf::F64);
        let z = sf::signed_zero(cx, zs, fmt);
        return cx.sel(exact_zero, z, rb);
    }
    sf::round_from_f64(cx, s, mode, fmt, zs)
}
