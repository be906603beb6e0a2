//! `wmma` loads, stores and products in the fragment layout ptxvk picks.

use super::fragment::{Batch, Gathered, float_dot, gather, load_gathered};
use super::mma::{accumulate_int, element, int_products};
use crate::check::Src;
use crate::check::inst::{MmaType, Wmma, WmmaFrag, WmmaOp};
use crate::ir::build::Build;
use crate::ir::{BinOp, MemOrder, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::float::half;
use crate::lower::float::softfloat::{self as sf, Ops};
use crate::lower::memory::Where;
use crate::types::{ScalarType, StateSpace};

// The ISA leaves `wmma` fragments unspecified, so ptxvk picks one that makes the loads and
// stores exchange-free and `wmma.mma` gather only B: with D numbered row-major, lane `l` holds
// D (and C) elements `8l .. 8l + 8` (row `8l / N`, columns `8l % N ..`), A's whole row `8l / N`
// (16 halves in 8 registers) and B's whole column `l % N`.

/// The byte address of element `(row, col)` of a matrix at `addr` with `stride` elements
/// between its rows (`.row`) or columns (`.col`), as a [`Where`].
fn wmma_element(
    cx: &mut Cx<'_>,
    space: StateSpace,
    addr: &crate::check::Address,
    stride: ValueId,
    row_major: bool,
    (r, c): (ValueId, ValueId),
    size: u32,
) -> Option<Where> {
    let (major, minor) = if row_major { (r, c) } else { (c, r) };
    let m = cx.bop(BinOp::IMul, major, stride);
    let idx = cx.bop(BinOp::IAdd, m, minor);
    let sz = cx.c32(size);
    let off = cx.bop(BinOp::IMul, idx, sz);
    Some(match cx.resolve(space, addr)? {
        Where::Shared(o) => Where::Shared(cx.bop(BinOp::IAdd, o, off)),
        Where::Local(o) => Where::Local(cx.bop(BinOp::IAdd, o, off)),
        Where::Global(a) => {
            let off = cx.zext(off, Ty::I64);
            Where::Global(cx.bop(BinOp::IAdd, a, off))
        }
        Where::Generic(a) => {
            let off = cx.zext(off, Ty::I64);
            Where::Generic(cx.bop(BinOp::IAdd, a, off))
        }
        Where::ParamVar(..) => {
            cx.unsupported("a wmma matrix in .param space");
            return None;
        }
    })
}

/// `(row, col)` of this lane's element `s` of a fragment of `ty`.
fn wmma_place(
    cx: &mut Cx<'_>,
    w: &Wmma,
    frag: WmmaFrag,
    ty: MmaType,
    s: u32,
) -> (ValueId, ValueId) {
    let lane = super::super::special::lane_id(cx);
    let n_log = w.n.trailing_zeros();
    let k_log = w.k.trailing_zeros();
    match (frag, ty) {
        // .f16 A: row 8l / N, column s.
        (WmmaFrag::A, MmaType::F16) => {
            let q = cx.lane_expr(lane, 8, 0);
            let sh = cx.c32(n_log);
            let r = cx.bop(BinOp::LShr, q, sh);
            (r, cx.c32(s))
        }
        // .f16 B: row s, column l % N.
        (WmmaFrag::B, MmaType::F16) => {
            let m = cx.c32(w.n - 1);
            let c = cx.bop(BinOp::And, lane, m);
            (cx.c32(s), c)
        }
        // Other A: row-major element e * l + s, e = M * K / 32.
        (WmmaFrag::A, _) => {
            let q = cx.lane_expr(lane, w.m * w.k / 32, s);
            let sh = cx.c32(k_log);
            let r = cx.bop(BinOp::LShr, q, sh);
            let m = cx.c32(w.k - 1);
            (r, cx.bop(BinOp::And, q, m))
        }
        // Other B: column-major element e * l + s, e = K * N / 32.
        (WmmaFrag::B, _) => {
            let q = cx.lane_expr(lane, w.k * w.n / 32, s);
            let sh = cx.c32(k_log);
            let c = cx.bop(BinOp::LShr, q, sh);
            let m = cx.c32(w.k - 1);
            (cx.bop(BinOp::And, q, m), c)
        }
        // C/D: element 8l + s, row-major.
        (WmmaFrag::C, _) => {
            let q = cx.lane_expr(lane, 8, s);
            let sh = cx.c32(n_log);
            let r = cx.bop(BinOp::LShr, q, sh);
            let m = cx.c32(w.n - 1);
            (r, cx.bop(BinOp::And, q, m))
        }
    }
}

fn wmma_stride(
    cx: &mut Cx<'_>,
    w: &Wmma,
    frag: WmmaFrag,
    row: bool,
    stride: &Option<Src>,
) -> ValueId {
    if let Some(s) = stride {
        return cx.read(s, ScalarType::U32);
    }
    // The leading dimension: K or M for A (M x K), N or K for B (K x N), N or M for C.
    let ld = match (frag, row) {
        (WmmaFrag::A, true) => w.k,
        (WmmaFrag::A, false) | (WmmaFrag::C, false) => w.m,
        (WmmaFrag::B, true) | (WmmaFrag::C, true) => w.n,
        (WmmaFrag::B, false) => w.k,
    };
    cx.c32(ld)
}

pub fn wmma(cx: &mut Cx<'_>, w: &Wmma) {
    match &w.op {
        WmmaOp::Load {
            frag,
            row,
            space,
            ty,
            dst,
            addr,
            stride,
        } => {
            let bits = ty.bits();
            let per = ty.per_reg();
            let elem_ty = Ty::int(bits);
            let vars: Vec<VarId> = (0..dst.len() as u32 * per)
                .map(|s| {
                    let var = cx.b.f.new_var(elem_ty, "wmma.element");
                    let st = wmma_stride(cx, w, *frag, *row, stride);
                    let at = wmma_place(cx, w, *frag, *ty, s);
                    if let Some(at) = wmma_element(cx, *space, addr, st, *row, at, bits / 8) {
                        let v = cx.load(at, elem_ty, MemOrder::default());
                        cx.b.emit_void(Op::StoreVar(var, v));
                    }
                    var
                })
                .collect();
            for (d, elems) in dst.iter().zip(vars.chunks(per as usize)) {
                let mut word = cx.c32(0);
                for (j, &e) in (0u32..).zip(elems) {
                    let v = cx.b.emit(elem_ty, Op::LoadVar(e));
                    let v = cx.zext(v, Ty::I32);
                    let sh = cx.c32(j * bits);
                    let v = cx.bop(BinOp::Shl, v, sh);
                    word = cx.bop(BinOp::Or, word, v);
                }
                cx.write(d, word);
            }
        }
        WmmaOp::Store {
            row,
            space,
            ty,
            addr,
            src,
            stride,
        } => {
            let half_pairs = *ty == MmaType::F16;
            let size = ty.bits() / 8;
            for s in 0..8u32 {
                let reg = cx.read(
                    &src[(if half_pairs { s / 2 } else { s }) as usize],
                    ScalarType::B32,
                );
                let v = if half_pairs {
                    let (lo, hi) = half::split(cx, reg);
                    if s % 2 == 0 { lo } else { hi }
                } else {
                    reg
                };
                let st = wmma_stride(cx, w, WmmaFrag::C, *row, stride);
                let at = wmma_place(cx, w, WmmaFrag::C, *ty, s);
                if let Some(at) = wmma_element(cx, *space, addr, st, *row, at, size) {
                    cx.store(at, v, MemOrder::default());
                }
            }
        }
        WmmaOp::Mma {
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            satfinite,
            d,
            a,
            b,
            c,
        } => {
            let tys = WmmaTypes {
                d: *d_ty,
                a: *a_ty,
                b: *b_ty,
                c: *c_ty,
                satfinite: *satfinite,
            };
            wmma_mma(cx, w, tys, d, a, b, c)
        }
    }
}

/// The types of a `wmma.mma`.
#[derive(Clone, Copy)]
struct WmmaTypes {
    d: MmaType,
    a: MmaType,
    b: MmaType,
    c: MmaType,
    satfinite: bool,
}

/// D's elements `8l + s` (row `r = 8l / N`, columns `c0 + s`, `c0 = 8l % N`): A's row `r`
/// (this lane's own for `.f16`, else gathered from the lanes holding it) times B's columns
/// gathered from the lanes holding them, in the order and rounding of `mma`
/// (docs/decisions/0112-wmma-fragments.md).
fn wmma_mma(
    cx: &mut Cx<'_>,
    w: &Wmma,
    t: WmmaTypes,
    d: &[crate::check::Dst],
    a: &[Src],
    b: &[Src],
    c: &[Src],
) {
    let f16 = t.a == MmaType::F16;
    let per = t.a.per_reg();
    let row_of_lane = |cx: &mut Cx<'_>| {
        let lane = super::super::special::lane_id(cx);
        let q = cx.lane_expr(lane, 8, 0);
        let sh = cx.c32(w.n.trailing_zeros());
        cx.bop(BinOp::LShr, q, sh)
    };
    let col0 = |cx: &mut Cx<'_>| {
        let lane = super::super::special::lane_id(cx);
        let q = cx.lane_expr(lane, 8, 0);
        let m = cx.c32(w.n - 1);
        cx.bop(BinOp::And, q, m)
    };
    let mut batch = Batch::new();
    // Lanes holding a row of A (a column of B) and the first of them for row r (column c).
    let a_lanes = if f16 { 0 } else { w.k / (w.m * w.k / 32) };
    let b_lanes = if f16 { 1 } else { w.k / (w.k * w.n / 32) };
    let mut a_got: Vec<Gathered> = Vec::new();
    for i in 0..a_lanes {
        for reg in 0..a.len() {
            a_got.push(gather(cx, &mut batch, a, reg, false, &|cx| {
                let r = row_of_lane(cx);
                cx.lane_expr(r, a_lanes, i)
            }));
        }
    }
    let mut b_got: Vec<Gathered> = Vec::new();
    for j in 0..8 {
        for i in 0..b_lanes {
            for reg in 0..b.len() {
                b_got.push(gather(cx, &mut batch, b, reg, false, &|cx| {
                    let c0 = col0(cx);
                    let jc = cx.c32(j);
                    let col = cx.bop(BinOp::IAdd, c0, jc);
                    cx.lane_expr(col, b_lanes, i)
                }));
            }
        }
    }
    cx.exchange_all(batch);
    let elements = |cx: &mut Cx<'_>, ty: MmaType, words: Vec<ValueId>| -> Vec<ValueId> {
        let mut out = Vec::new();
        for v in words {
            for e in 0..per {
                out.push(element(cx, ty, v, e));
            }
        }
        out
    };
    // In gathering order (lane, register, element), which is k order.
    let a_words: Vec<ValueId> = if f16 {
        a.iter().map(|r| cx.read(r, ScalarType::B32)).collect()
    } else {
        a_got.iter().map(|&g| load_gathered(cx, g)).collect()
    };
    let a_row = elements(cx, t.a, a_words);
    let per_col = b_got.len() / 8;
    let mut out = Vec::with_capacity(8);
    for (s, col) in b_got.chunks(per_col).enumerate() {
        let words: Vec<ValueId> = col.iter().map(|&g| load_gathered(cx, g)).collect();
        let b_col = elements(cx, t.b, words);
        let r = match t.c {
            MmaType::S32 => {
                let dot = int_products(cx, &a_row, &b_col);
                let cv = cx.read(&c[s], ScalarType::B32);
                accumulate_int(cx, cv, dot, t.satfinite)
            }
            _ => {
                let cv = if t.c == MmaType::F16 {
                    let w32 = cx.read(&c[s / 2], ScalarType::B32);
                    let (lo, hi) = half::split(cx, w32);
                    half::to_f32(cx, if s % 2 == 0 { lo } else { hi }, sf::F16)
                } else {
                    let w32 = cx.read(&c[s], ScalarType::B32);
                    cx.float_of(w32, Ty::F32)
                };
                float_dot(cx, cv, &a_row, &b_col, t.d)
            }
        };
        out.push(r);
    }
    if t.d == MmaType::F16 {
        for (pair, dst) in out.chunks(2).zip(d) {
            let v = half::join(cx, pair[0], pair[1]);
            cx.write(dst, v);
        }
    } else {
        for (&v, dst) in out.iter().zip(d) {
            cx.write(dst, v);
        }
    }
}
