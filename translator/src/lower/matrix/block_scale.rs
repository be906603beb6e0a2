//! The scale factors of `mma...block_scale` and `mma.sp::ordered_metadata...block_scale`
//! (docs/decisions/0199-mma-block-scale.md, 0202-mma-sp-block-scale.md).
//!
//! Where they are, by the ISA's "Block Scaling for mma.sync": `thread-id-a` picks a thread pair
//! of each group of four (threads `2 * thread-id-a` and `2 * thread-id-a + 1`), the lower
//! giving the factors of row `groupID`, the upper those of row `groupID + 8`; `thread-id-b`
//! picks the thread of each group giving column `groupID`'s. In the `.b32` register of that
//! thread, chunk `j` of the row's (column's) K is scaled by byte `byte-id + j`.
//!
//! How they apply: each product `a * b` is formed exactly in f32 (as for the unscaled kinds),
//! then multiplied by the chunk's factors, exactly unless the scaled product leaves f32's range:
//! `.ue8m0` factors make one power of two `2^(sa + sb - 254)`, applied as three powers of two of
//! the same sign so that no step leaves the range the result stays in; `.ue4m3` factors (four
//! significant bits each, with two-bit `.e2m1` products) multiply exactly one after the other.

use super::super::cx::Cx;
use super::fragment::{Batch, Gathered, gather, load_gathered, small_float_to_f32};
use crate::check::inst::{BlockScale, ScaleType};
use crate::float_format::{F32, UE4M3, UE8M0};
use crate::ir::build::Build;
use crate::ir::{BinOp, FpFlags, Ty, ValueId};
use crate::lower::float::format::pow2;
use crate::lower::float::softfloat::Ops;
use crate::types::ScalarType;

/// The gathered scale registers: A's for rows `groupID` and `groupID + 8`, B's for columns
/// `2 * threadID_in_group` and `+ 1`.
pub(super) struct Gathers {
    a: [Gathered; 2],
    b: [Gathered; 2],
}

/// A selector operand as an I32, masked to the values the ISA gives a meaning to.
fn selector(cx: &mut Cx<'_>, s: &crate::check::Src, mask: u32) -> ValueId {
    let v = cx.read(s, ScalarType::U16);
    let v = cx.zext(v, Ty::I32);
    let m = cx.c32(mask);
    cx.bop(BinOp::And, v, m)
}

/// Adds the reads of the scale registers to `batch`.
pub(super) fn gather_scales(cx: &mut Cx<'_>, batch: &mut Batch, s: &BlockScale) -> Gathers {
    let a = [0u32, 1].map(|h| {
        gather(
            cx,
            batch,
            std::slice::from_ref(&s.a_data),
            0,
            false,
            &|cx| {
                // Lane 4 * groupID + 2 * thread-id-a + h.
                let (g, _) = cx.group_of_lane();
                let base = cx.lane_expr(g, 4, h);
                let t = selector(cx, &s.a_thread, 1);
                let t2 = cx.lane_expr(t, 2, 0);
                cx.bop(BinOp::IAdd, base, t2)
            },
        )
    });
    let b = [0u32, 1].map(|i| {
        gather(
            cx,
            batch,
            std::slice::from_ref(&s.b_data),
            0,
            false,
            &|cx| {
                // Lane 4 * (2 * threadID_in_group + i) + thread-id-b.
                let (_, t) = cx.group_of_lane();
                let base = cx.lane_expr(t, 8, 4 * i);
                let tb = selector(cx, &s.b_thread, 3);
                cx.bop(BinOp::IAdd, base, tb)
            },
        )
    });
    Gathers { a, b }
}

/// The scale byte of chunk `j` in a gathered register.
fn byte(cx: &mut Cx<'_>, g: Gathered, sel: &crate::check::Src, j: u32) -> ValueId {
    let w = load_gathered(cx, g);
    let b = selector(cx, sel, 3);
    let jc = cx.c32(j);
    let b = cx.bop(BinOp::IAdd, b, jc);
    let three = cx.c32(3);
    let b = cx.bop(BinOp::And, b, three);
    let b8 = cx.lane_expr(b, 8, 0);
    let x = cx.bop(BinOp::LShr, w, b8);
    let ff = cx.c32(0xFF);
    cx.bop(BinOp::And, x, ff)
}

/// The factors each product of chunk `j` of A's row `h` and B's column `i` is multiplied by,
/// in order.
fn factors(
    cx: &mut Cx<'_>,
    s: &BlockScale,
    g: &Gathers,
    (h, i): (usize, usize),
    j: u32,
) -> Vec<ValueId> {
    let sa = byte(cx, g.a[h], &s.a_byte, j);
    let sb = byte(cx, g.b[i], &s.b_byte, j);
    match s.stype {
        ScaleType::Ue4m3 => {
            // Seven bits: the ISA's unsigned `.e4m3`, whose 0x7F is NaN; bit 7 is not read.
            let m = cx.c32(UE4M3.magnitude_mask() as u32);
            let sa = cx.bop(BinOp::And, sa, m);
            let sb = cx.bop(BinOp::And, sb, m);
            let fa = small_float_to_f32(cx, sa, UE4M3);
            let fb = small_float_to_f32(cx, sb, UE4M3);
            vec![fa, fb]
        }
        ScaleType::Ue8m0 => {
            // E = sa + sb - 254 in -254..=254 as three steps of at most 85 each, all of E's
            // sign: e1 = E / 3 (toward zero), e2 = (E - e1) / 2, e3 = E - e1 - e2.
            let sum = cx.bop(BinOp::IAdd, sa, sb);
            let off = cx.c32(2 * UE8M0.bias() as u32);
            let e = cx.bop(BinOp::ISub, sum, off);
            let three = cx.c32(3);
            let two = cx.c32(2);
            let e1 = cx.bop(BinOp::SDiv, e, three);
            let rest = cx.bop(BinOp::ISub, e, e1);
            let e2 = cx.bop(BinOp::SDiv, rest, two);
            let e3 = cx.bop(BinOp::ISub, rest, e2);
            let f1 = pow2(cx, e1, F32);
            let f2 = pow2(cx, e2, F32);
            let f3 = pow2(cx, e3, F32);
            // 0xFF is NaN, and makes every scaled product NaN.
            let ff = cx.c32(UE8M0.canonical_nan() as u32);
            let na = cx.bop(BinOp::IEq, sa, ff);
            let nb = cx.bop(BinOp::IEq, sb, ff);
            let qnan = cx.c32(F32.quiet_nan() as u32);
            let qnan = cx.float_of(qnan, Ty::F32);
            let f1 = cx.sel(na, qnan, f1);
            let f1 = cx.sel(nb, qnan, f1);
            vec![f1, f2, f3]
        }
    }
}

/// D's element for A's row `h` and B's column `i`: from `acc` (f32), each product of `a` and
/// `b` (f32 elements in k order) scaled by its chunk's factors and added in turn, each addition
/// rounded to nearest even (the order of docs/decisions/0111-mma-accumulation-order.md).
pub(super) fn scaled_dot(
    cx: &mut Cx<'_>,
    s: &BlockScale,
    g: &Gathers,
    (h, i): (usize, usize),
    acc: ValueId,
    a: &[ValueId],
    b: &[ValueId],
) -> ValueId {
    let exact = FpFlags { exact: true };
    // `a` and `b` hold the products' operands in k order: all K of them, or for a sparse A
    // the half its metadata selects, which is half of each chunk (the 2:4 and pair-wise 4:8
    // groups lie inside a chunk), so chunk `j` is the `j`-th of `vec` equal runs either way.
    let chunk = a.len() / s.vec as usize;
    let mut acc = acc;
    for (j, (ac, bc)) in a.chunks(chunk).zip(b.chunks(chunk)).enumerate() {
        let f = factors(cx, s, g, (h, i), j as u32);
        for (&p, &q) in ac.iter().zip(bc) {
            let mut v = cx.b.bin_flags(BinOp::FMul, p, q, exact);
            for &fk in &f {
                v = cx.b.bin_flags(BinOp::FMul, v, fk, exact);
            }
            acc = cx.b.bin_flags(BinOp::FAdd, acc, v, exact);
        }
    }
    cx.bits_of(acc)
}
