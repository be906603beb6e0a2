//! The warp-level matrix instructions (`ldmatrix`, `stmatrix`, `movmatrix`, `mma`) as lane
//! exchanges ([`WarpOp::ReadLane`], the primitive `shfl` is made of) plus ordinary arithmetic,
//! so they run wherever `shfl` does: native subgroups, partitions of wider ones, and the SIMT
//! emulation on small subgroups. Each lane gathers from the lanes that hold them the elements
//! its own fragment needs, following the ISA's fragment layout tables, and computes alone.
//!
//! `mma`'s layouts for every shape but the sm_70 `.m8n8k4.f16` one share one pattern (the
//! tables of "Matrix Fragments for mma.mXnYkZ"): with `groupID = lane >> 2`,
//! `threadID_in_group = lane % 4` and `e` elements of the multiplicand type per register,
//! A's register `r` holds row `groupID + 8 * (r % (M/8))`, columns
//! `4e * (r / (M/8)) + e * threadID_in_group + j`; B's register `s` holds column `groupID`, rows
//! `4e * s + e * threadID_in_group + j`; C and D element `q` is row `groupID + 8 * (q / 2)`,
//! column `2 * threadID_in_group + q % 2`. Floating-point accumulation order:
//! docs/decisions/0111-mma-accumulation-order.md.

use super::cx::Cx;
use super::float::half;
use super::float::rounding;
use super::float::softfloat::{self as sf, Ops};
use crate::check::Src;
use crate::check::inst::{
    BitOp, FloatOp, Ldmatrix, Mma, MmaType, Movmatrix, Stmatrix, Wmma, WmmaFrag, WmmaOp,
};
use crate::float_format::{E2M1, E2M3, E3M2, E4M3, E5M2, F32, TF32};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, MemOrder, Op, Ty, UnOp, ValueId, VarId, WarpOp};
use crate::types::{ScalarType, StateSpace};

use super::memory::Where;

mod block_scale;
pub(super) mod fragment;
mod quad_pair;

use fragment::{Batch, Gathered, float_dot, gather, load_gathered, small_float_to_f32, write_acc};

impl Cx<'_> {
    /// The 32-bit `v` of lane `src` (each exchange a synchronization point of its own), kept
    /// in a variable: values do not outlive the block that made them.
    fn exchange(&mut self, v: ValueId, src: ValueId) -> VarId {
        let var = self.b.f.new_var(Ty::I32, "matrix.lane_value");
        if let Some(r) = self.sync_op(WarpOp::ReadLane, &[v, src], Some(Ty::I32)) {
            self.b.emit_void(Op::StoreVar(var, r));
        }
        var
    }

    /// Makes the lane reads of `batch` (values of this block) in one synchronization block:
    /// under the SIMT emulation each is still an exchange through shared memory, but the
    /// control flow made uniform around them is made once.
    pub(super) fn exchange_all(&mut self, batch: Batch) {
        let args: Vec<(VarId, VarId, VarId)> = batch
            .into_iter()
            .map(|(v, s, r)| {
                let av = self.b.f.new_var(self.b.f.ty(v), "matrix.value");
                self.b.emit_void(Op::StoreVar(av, v));
                let sv = self.b.f.new_var(Ty::I32, "matrix.source_lane");
                self.b.emit_void(Op::StoreVar(sv, s));
                (av, sv, r)
            })
            .collect();
        self.b.jump_to_new_block();
        for (av, sv, r) in args {
            let ty = self.b.f.vars[av.0 as usize].ty;
            let v = self.b.emit(ty, Op::LoadVar(av));
            let s = self.b.emit(Ty::I32, Op::LoadVar(sv));
            let x = self
                .b
                .emit(ty, Op::Warp(WarpOp::ReadLane, [v, s].as_slice().into()));
            self.b.emit_void(Op::StoreVar(r, x));
        }
        self.b.jump_to_new_block();
    }

    /// `(groupID, threadID_in_group)` of this lane.
    pub(super) fn group_of_lane(&mut self) -> (ValueId, ValueId) {
        let lane = super::special::lane_id(self);
        let two = self.c32(2);
        let three = self.c32(3);
        let g = self.bop(BinOp::LShr, lane, two);
        let t = self.bop(BinOp::And, lane, three);
        (g, t)
    }

    /// `a * k + b` on lane numbers.
    pub(super) fn lane_expr(&mut self, a: ValueId, k: u32, b: u32) -> ValueId {
        let kc = self.c32(k);
        let bc = self.c32(b);
        let m = self.bop(BinOp::IMul, a, kc);
        self.bop(BinOp::IAdd, m, bc)
    }

    /// This lane's row address of an `ldmatrix`/`stmatrix` as a shared-memory offset: the ISA
    /// makes a generic one point into shared memory, where its low word is the offset.
    fn matrix_row_address(
        &mut self,
        space: StateSpace,
        addr: &crate::check::Address,
    ) -> Option<ValueId> {
        match self.resolve(space, addr)? {
            Where::Shared(o) => Some(o),
            Where::Generic(a) => Some(self.b.conv(ConvOp::Trunc, a, Ty::I32)),
            _ => {
                self.unsupported("a matrix address outside shared memory");
                None
            }
        }
    }
}

/// Where this lane's elements of each of `num` matrices are in shared memory: one 32-bit pair
/// per matrix (row `lane / 4`, byte `4 * (lane % 4)`), or with `trans` two halves (rows
/// `2 * (lane % 4) + j`, byte `2 * (lane / 4)`). Lane `i` gives the address of row `i % 8` of
/// matrix `i / 8`; all the addresses are read in one block.
fn element_offsets(
    cx: &mut Cx<'_>,
    space: StateSpace,
    addr: &crate::check::Address,
    num: u32,
    trans: bool,
) -> Option<Vec<Vec<VarId>>> {
    let own = cx.matrix_row_address(space, addr)?;
    let per = if trans { 2 } else { 1 };
    let mut batch = Batch::new();
    let mut rows = Vec::new();
    for mi in 0..num {
        let mut m = Vec::new();
        for j in 0..per {
            let (g, t) = cx.group_of_lane();
            let src = if trans {
                cx.lane_expr(t, 2, 8 * mi + j)
            } else {
                cx.lane_expr(g, 1, 8 * mi)
            };
            let var = cx.b.f.new_var(Ty::I32, "matrix.row");
            batch.push((own, src, var));
            m.push(var);
        }
        rows.push(m);
    }
    cx.exchange_all(batch);
    for m in &rows {
        for &var in m {
            let row = cx.b.emit(Ty::I32, Op::LoadVar(var));
            let (g, t) = cx.group_of_lane();
            let col = if trans {
                cx.lane_expr(g, 2, 0)
            } else {
                cx.lane_expr(t, 4, 0)
            };
            let at = cx.bop(BinOp::IAdd, row, col);
            cx.b.emit_void(Op::StoreVar(var, at));
        }
    }
    Some(rows)
}

/// `ldmatrix`: each lane then holds of every matrix the elements
/// `(lane / 4, 2 * (lane % 4) + j)`, of the transposed matrix with `.trans`.
pub fn ldmatrix(cx: &mut Cx<'_>, l: &Ldmatrix) {
    let Some(places) = element_offsets(cx, l.space, &l.addr, l.num, l.trans) else {
        return;
    };
    let mut out = Vec::with_capacity(l.dst.len());
    for m in places {
        let var = cx.b.f.new_var(Ty::I32, "ldmatrix.fragment");
        if let [p0, p1] = m[..] {
            let mut halves = Vec::new();
            for p in [p0, p1] {
                let at = cx.b.emit(Ty::I32, Op::LoadVar(p));
                let h = cx.load(Where::Shared(at), Ty::I16, MemOrder::default());
                let hv = cx.b.f.new_var(Ty::I16, "ldmatrix.half");
                cx.b.emit_void(Op::StoreVar(hv, h));
                halves.push(hv);
            }
            let lo = cx.b.emit(Ty::I16, Op::LoadVar(halves[0]));
            let hi = cx.b.emit(Ty::I16, Op::LoadVar(halves[1]));
            let w = half::join(cx, lo, hi);
            cx.b.emit_void(Op::StoreVar(var, w));
        } else {
            let at = cx.b.emit(Ty::I32, Op::LoadVar(m[0]));
            let w = cx.load(Where::Shared(at), Ty::I32, MemOrder::default());
            cx.b.emit_void(Op::StoreVar(var, w));
        }
        out.push(var);
    }
    for (d, var) in l.dst.iter().zip(out) {
        let w = cx.b.emit(Ty::I32, Op::LoadVar(var));
        cx.write(d, w);
    }
}

/// `stmatrix`: the inverse of `ldmatrix`; each lane stores its own elements at the rows whose
/// addresses other lanes give.
pub fn stmatrix(cx: &mut Cx<'_>, s: &Stmatrix) {
    let Some(places) = element_offsets(cx, s.space, &s.addr, s.num, s.trans) else {
        return;
    };
    for (m, src_reg) in places.iter().zip(&s.src) {
        for (j, &p) in m.iter().enumerate() {
            let w = cx.read(src_reg, ScalarType::B32);
            let v = if s.trans {
                let (lo, hi) = half::split(cx, w);
                if j == 0 { lo } else { hi }
            } else {
                w
            };
            let at = cx.b.emit(Ty::I32, Op::LoadVar(p));
            cx.store(Where::Shared(at), v, MemOrder::default());
        }
    }
}

/// `movmatrix.trans`: lane `l` holds elements `(l / 4, 2 * (l % 4) + j)` of the matrix before
/// and of its transpose after; element `(r, c)` lives in lane `4r + c / 2`, half `c % 2`.
pub fn movmatrix(cx: &mut Cx<'_>, mv: &Movmatrix) {
    let mut halves = Vec::new();
    for j in 0..2 {
        // Result element (g, 2t + j) is source element (2t + j, g).
        let (g, t) = cx.group_of_lane();
        let row = cx.lane_expr(t, 2, j);
        let four = cx.c32(4);
        let base = cx.bop(BinOp::IMul, row, four);
        let one = cx.c32(1);
        let half_col = cx.bop(BinOp::LShr, g, one);
        let src = cx.bop(BinOp::IAdd, base, half_col);
        let a = cx.read(&mv.a, ScalarType::B32);
        let got = cx.exchange(a, src);
        halves.push(got);
    }
    let mut parts = Vec::new();
    for v in halves {
        let w = cx.b.emit(Ty::I32, Op::LoadVar(v));
        let (g, _) = cx.group_of_lane();
        let one = cx.c32(1);
        let odd = cx.bop(BinOp::And, g, one);
        let sixteen = cx.c32(16);
        let sh = cx.bop(BinOp::IMul, odd, sixteen);
        let x = cx.bop(BinOp::LShr, w, sh);
        parts.push(cx.trunc(x, Ty::I16));
    }
    let d = half::join(cx, parts[0], parts[1]);
    cx.write(&mv.dst, d);
}

/// Element `j` of a multiplicand register as the value the arithmetic uses: F32 for the
/// floating-point types (all exact in f32), I64 bits for `.f64`, I32 for the integers.
pub(super) fn element(cx: &mut Cx<'_>, ty: MmaType, reg: ValueId, j: u32) -> ValueId {
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
pub(super) fn sparse_pick(
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
pub(super) fn int_products(cx: &mut Cx<'_>, a: &[ValueId], b: &[ValueId]) -> ValueId {
    let mut dot = cx.c32(0);
    for (&va, &vb) in a.iter().zip(b) {
        let p = cx.bop(BinOp::IMul, va, vb);
        dot = cx.bop(BinOp::IAdd, dot, p);
    }
    dot
}

/// `c + dot` in s32: wrapped, or clamped to the s32 range with `.satfinite`.
pub(super) fn accumulate_int(
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

// Wmma.
//
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
    let lane = super::special::lane_id(cx);
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
        let lane = super::special::lane_id(cx);
        let q = cx.lane_expr(lane, 8, 0);
        let sh = cx.c32(w.n.trailing_zeros());
        cx.bop(BinOp::LShr, q, sh)
    };
    let col0 = |cx: &mut Cx<'_>| {
        let lane = super::special::lane_id(cx);
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
