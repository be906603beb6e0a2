//! `mma` and `mma.sp` in the common fragment layout: elements of the multiplicand registers,
//! sparse selection, and the integer and floating-point dot products.

use super::fragment::{
    Batch, Gathered, float_dot, gather, load_gathered, small_float_to_f32, write_acc,
};
use super::{block_scale, quad_pair};
use crate::check::inst::{BitOp, FloatOp, Mma, MmaType};
use crate::float_format::{E2M1, E2M3, E3M2, E4M3, E5M2, F32, TF32};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Ty, UnOp, ValueId};
use crate::lower::cx::Cx;
use crate::lower::float::half;
use crate::lower::float::rounding;
use crate::lower::float::softfloat::{self as sf, Ops};
use crate::types::ScalarType;

/// Element `j` of a multiplicand register as the value the arithmetic uses: F32 for the
/// floating-point types (all exact in f32), I64 bits for `.f64`, I32 for the integers.
pub(crate) fn element(cx: &mut Cx<'_>, ty: MmaType, reg: ValueId, j: u32) -> ValueId {
    let bits = ty.bits();
    let field = |cx: &mut Cx<'_>| {
        let sh = cx.c32(j * bits);
        let x = cx.bop(BinOp::LShr, reg, sh);
        let m = cx.c32(((1u64 << bits) - 1) as u32);
        cx.bop(BinOp::And, x, m)
    };
    match ty {
        MmaType::F16 | MmaType::Bf16 => {
            let x = field(cx);
            let h = cx.trunc(x, Ty::I16);
            let fmt = if ty == MmaType::F16 {
                sf::F16
            } else {
                sf::BF16
            };
            half::to_f32(cx, h, fmt)
        }
        MmaType::Tf32 => {
            // The low bits of a .tf32 register, below its fraction, are not part of the value.
            let m = cx.c32(!((1 << TF32.fraction_gap(F32)) - 1));
            let x = cx.bop(BinOp::And, reg, m);
            cx.float_of(x, Ty::F32)
        }
        MmaType::E4m3 => {
            let x = field(cx);
            small_float_to_f32(cx, x, E4M3)
        }
        MmaType::E5m2 => {
            let x = field(cx);
            small_float_to_f32(cx, x, E5M2)
        }
        // Padding around the value in its 8-bit container is ignored: the low 6 bits hold
        // `.e3m2`/`.e2m3`, bits 2-5 `.e2m1`.
        MmaType::E3m2 | MmaType::E2m3 => {
            let x = field(cx);
            let fmt = if ty == MmaType::E3m2 { E3M2 } else { E2M3 };
            let m = cx.c32((1 << fmt.width()) - 1);
            let x = cx.bop(BinOp::And, x, m);
            small_float_to_f32(cx, x, fmt)
        }
        MmaType::E2m1x => {
            let x = field(cx);
            small_float_to_f32(cx, x, E2M1)
        }
        MmaType::E2m1 => {
            let x = field(cx);
            let two = cx.c32(2);
            let x = cx.bop(BinOp::LShr, x, two);
            let m = cx.c32((1 << E2M1.width()) - 1);
            let x = cx.bop(BinOp::And, x, m);
            small_float_to_f32(cx, x, E2M1)
        }
        MmaType::S8 | MmaType::S4 => {
            let up = cx.c32(32 - (j + 1) * bits);
            let x = cx.bop(BinOp::Shl, reg, up);
            let down = cx.c32(32 - bits);
            cx.bop(BinOp::AShr, x, down)
        }
        MmaType::F64 | MmaType::F32 | MmaType::S32 => reg,
        MmaType::U8 | MmaType::U4 | MmaType::B1 => field(cx),
    }
}

/// `mma.sync.aligned` and `mma.sp` for every shape and type of the common layout; the sm_70
/// `.m8n8k4.f16` form in [`quad_pair`].
pub fn mma(cx: &mut Cx<'_>, x: &Mma) {
    if x.a_ty == MmaType::F16 && (x.m, x.k) == (8, 4) {
        quad_pair::mma(cx, x);
        return;
    }
    let halves = x.m / 8;
    let slots = x.k / x.k_slot();
    // A sparse A's registers hold the non-zero half of each row.
    let a_slots = if x.sparse.is_some() { slots / 2 } else { slots };
    let wide = x.a_ty == MmaType::F64;
    // A: rows groupID + 8h, from the four lanes of this lane's group.
    let mut batch = Batch::new();
    let mut a_regs: Vec<(u32, u32, u32, Gathered)> = Vec::new();
    for h in 0..halves {
        for s in 0..a_slots {
            for tp in 0..4 {
                let reg = (h + s * halves) as usize;
                let g = gather(cx, &mut batch, &x.a, reg, wide, &|cx| {
                    let (g, _) = cx.group_of_lane();
                    cx.lane_expr(g, 4, tp)
                });
                a_regs.push((h, s, tp, g));
            }
        }
    }
    // B: columns 2 * threadID_in_group + i, from the group of lanes holding each column.
    let mut b_regs: Vec<(u32, u32, u32, Gathered)> = Vec::new();
    for i in 0..2 {
        for s in 0..slots {
            for tp in 0..4 {
                let g = gather(cx, &mut batch, &x.b, s as usize, wide, &|cx| {
                    let (_, t) = cx.group_of_lane();
                    // 4 * (2t + i) + tp
                    cx.lane_expr(t, 8, 4 * i + tp)
                });
                b_regs.push((i, s, tp, g));
            }
        }
    }
    // The metadata registers of the group's holders (sparse forms).
    let meta_regs: Vec<Gathered> = match &x.sparse {
        Some(sp) => (0..x.meta_threads())
            .map(|p| {
                let first = sp.selector * x.meta_threads() + p;
                gather(
                    cx,
                    &mut batch,
                    std::slice::from_ref(&sp.meta),
                    0,
                    false,
                    &|cx| {
                        let (g, _) = cx.group_of_lane();
                        cx.lane_expr(g, 4, first)
                    },
                )
            })
            .collect(),
        None => Vec::new(),
    };
    let scales = x
        .scale
        .as_ref()
        .map(|s| (s.as_ref(), block_scale::gather_scales(cx, &mut batch, s)));
    cx.exchange_all(batch);
    // Element k of A's row h and of B's column i, in k order: gathered in (slot, lane of
    // group, j) order, which is k order (for a sparse A, the non-zero elements in chunk order).
    let (a_words, a_row) = unpack(cx, x.a_ty, halves as usize, &a_regs);
    let (b_words, b_col) = unpack(cx, x.b_ty, 2, &b_regs);
    let metas: Vec<ValueId> = meta_regs.iter().map(|&g| load_gathered(cx, g)).collect();
    let mut d = Vec::with_capacity(2 * halves as usize);
    for h in 0..halves as usize {
        for i in 0..2usize {
            let q = 2 * h + i;
            let (a, b) = if x.sparse.is_some() {
                let b = sparse_b(cx, x, h as u32, &b_col[i], &metas);
                (a_row[h].clone(), b)
            } else {
                (a_row[h].clone(), b_col[i].clone())
            };
            let (a, b) = (&a, &b);
            let r = match x.d_ty {
                MmaType::S32 => int_dot(cx, x, q, a, b, &a_words[h], &b_words[i]),
                MmaType::F64 => {
                    let mut acc = read_acc(cx, x, q);
                    for (&a, &b) in a.iter().zip(b) {
                        // A product and a sum, each rounded: a fused chain would need
                        // fma, emulated (slowly) where the device does not fuse.
                        let p =
                            rounding::arith(cx, FloatOp::Mul, x.rounding, true, sf::F64, &[a, b]);
                        acc =
                            rounding::arith(cx, FloatOp::Add, x.rounding, true, sf::F64, &[acc, p]);
                    }
                    acc
                }
                _ => {
                    let c = read_acc(cx, x, q);
                    if let Some((s, g)) = &scales {
                        let acc = cx.float_of(c, Ty::F32);
                        block_scale::scaled_dot(cx, s, g, (h, i), acc, a, b)
                    } else {
                        let acc = if x.c_ty == MmaType::F16 {
                            half::to_f32(cx, c, sf::F16)
                        } else {
                            cx.float_of(c, Ty::F32)
                        };
                        float_dot(cx, acc, a, b, x.d_ty)
                    }
                }
            };
            d.push(r);
        }
    }
    write_acc(cx, x, &d);
}

/// For each non-zero element of a sparse A's row `groupID + 8h` (in A's order), the element of
/// B's column `col` it multiplies: chunk `c`'s 4-bit metadata field is bits `16h + 4(c % 4)` of
/// holder `c / 4`, and its 2-bit index `j` (bits `2j`) places non-zero element `j` of the chunk
/// (for the 4-bit types, pair `j`; for `.tf32`, the one element is at index 0 or 2).
fn sparse_b(cx: &mut Cx<'_>, x: &Mma, h: u32, col: &[ValueId], metas: &[ValueId]) -> Vec<ValueId> {
    sparse_pick(cx, x.k, x.chunk_width(), h, col, metas)
}

/// [`sparse_b`] for a product of depth `k` in chunks of `w` elements (shared with the sparse
/// `wgmma`, whose warps lay out metadata as `mma.sp` does).
pub(crate) fn sparse_pick(
    cx: &mut Cx<'_>,
    k: u32,
    w: u32,
    h: u32,
    col: &[ValueId],
    metas: &[ValueId],
) -> Vec<ValueId> {
    let nz = w / 2;
    let chunks = k / w;
    let mut out = Vec::with_capacity((chunks * nz) as usize);
    for c in 0..chunks {
        let sh = cx.c32(16 * h + 4 * (c % 4));
        let field = cx.bop(BinOp::LShr, metas[(c / 4) as usize], sh);
        for e in 0..nz {
            // The index field this element reads, and the columns of the chunk that each of
            // its four values names.
            let (j, place): (u32, Box<dyn Fn(u32) -> u32>) = match w {
                2 => (0, Box::new(|idx| idx / 2)),
                8 => (e / 2, Box::new(move |idx| 2 * idx + e % 2)),
                _ => (e, Box::new(|idx| idx)),
            };
            let jsh = cx.c32(2 * j);
            let f = cx.bop(BinOp::LShr, field, jsh);
            let three = cx.c32(3);
            let idx = cx.bop(BinOp::And, f, three);
            let base = (c * w) as usize;
            let mut v = col[base + place(3) as usize];
            for k in (0..3).rev() {
                let kc = cx.c32(k);
                let is = cx.bop(BinOp::IEq, idx, kc);
                v = cx.sel(is, col[base + place(k) as usize], v);
            }
            out.push(v);
        }
    }
    out
}

/// The gathered registers of each of `lines` rows (A) or columns (B), loaded, and their
/// elements in gathering order (none for `.b1`, whose words are used whole).
type Lines = Vec<Vec<ValueId>>;

fn unpack(
    cx: &mut Cx<'_>,
    ty: MmaType,
    lines: usize,
    regs: &[(u32, u32, u32, Gathered)],
) -> (Lines, Lines) {
    let mut words: Lines = vec![Vec::new(); lines];
    let mut elems: Lines = vec![Vec::new(); lines];
    for (line, _, _, g) in regs {
        let reg = load_gathered(cx, *g);
        words[*line as usize].push(reg);
        if ty != MmaType::B1 {
            for j in 0..ty.per_reg() {
                let v = element(cx, ty, reg, j);
                elems[*line as usize].push(v);
            }
        }
    }
    (words, elems)
}

/// C's element `q` (bits: I32, I16 for `.f16`, I64 for `.f64`).
fn read_acc(cx: &mut Cx<'_>, x: &Mma, q: usize) -> ValueId {
    match x.c_ty {
        MmaType::F16 => {
            let w = cx.read(&x.c[q / 2], ScalarType::B32);
            let (lo, hi) = half::split(cx, w);
            if q % 2 == 0 { lo } else { hi }
        }
        MmaType::F64 => cx.read(&x.c[q], ScalarType::B64),
        _ => cx.read(&x.c[q], ScalarType::B32),
    }
}

/// An integer D element: the exact dot product (it fits in 32 bits for every shape: at most
/// 256 products of magnitude 255 * 255) plus C, wrapped or, with `.satfinite`, clamped to s32.
fn int_dot(
    cx: &mut Cx<'_>,
    x: &Mma,
    q: usize,
    a: &[ValueId],
    b: &[ValueId],
    a_words: &[ValueId],
    b_words: &[ValueId],
) -> ValueId {
    let mut dot = cx.c32(0);
    if let Some(op) = x.bit_op {
        for (&wa, &wb) in a_words.iter().zip(b_words) {
            let bin = match op {
                BitOp::Xor => BinOp::Xor,
                BitOp::And => BinOp::And,
            };
            let v = cx.bop(bin, wa, wb);
            let n = cx.b.un(UnOp::BitCount, v);
            dot = cx.bop(BinOp::IAdd, dot, n);
        }
    } else {
        dot = int_products(cx, a, b);
    }
    let c = read_acc(cx, x, q);
    accumulate_int(cx, c, dot, x.satfinite)
}

/// The exact sum of the products of two integer element lists (it fits in 32 bits).
pub(crate) fn int_products(cx: &mut Cx<'_>, a: &[ValueId], b: &[ValueId]) -> ValueId {
    let mut dot = cx.c32(0);
    for (&va, &vb) in a.iter().zip(b) {
        let p = cx.bop(BinOp::IMul, va, vb);
        dot = cx.bop(BinOp::IAdd, dot, p);
    }
    dot
}

/// `c + dot` in s32: wrapped, or clamped to the s32 range with `.satfinite`.
pub(crate) fn accumulate_int(
    cx: &mut Cx<'_>,
    c: ValueId,
    dot: ValueId,
    satfinite: bool,
) -> ValueId {
    if !satfinite {
        return cx.bop(BinOp::IAdd, c, dot);
    }
    let c64 = cx.b.conv(ConvOp::SExt, c, Ty::I64);
    let d64 = cx.b.conv(ConvOp::SExt, dot, Ty::I64);
    let sum = cx.bop(BinOp::IAdd, c64, d64);
    let lo = cx.b.konst(Ty::I64, i64::from(i32::MIN) as u64);
    let hi = cx.b.konst(Ty::I64, i64::from(i32::MAX) as u64);
    let s = cx.b.ext(ExtOp::SMax, &[sum, lo], FpFlags::default());
    let s = cx.b.ext(ExtOp::SMin, &[s, hi], FpFlags::default());
    cx.trunc(s, Ty::I32)
}
