//! `wgmma.mma_async` of sm_90a, performed synchronously: each thread computes its own elements
//! of D, reading the shared-memory operands itself through their matrix descriptors, and a
//! register A from the lanes of its own warp. `wgmma.fence`, `commit_group` and `wait_group`
//! then have nothing left to order or wait for.
//!
//! The ISA's layouts ("Register Fragments and Shared Memory Matrix Layouts"): warp `w` of the
//! warpgroup (`w = (thread / 32) % 4`) holds rows `16w ..= 16w + 15` of D, in the accumulator
//! layout of `mma.m16n8` repeated along N: register `i` is row `16w + groupID + 8 * ((i / 2) % 2)`,
//! column `8 * (i / 4) + 2 * threadID_in_group + i % 2`. A register A is `mma`'s m16 A
//! fragment of the same rows.
//!
//! A descriptor (bits 0-13 the start address, 16-29 the leading-dimension byte offset LBO,
//! 32-45 the stride-dimension byte offset SBO, each in 16-byte units; 62-63 the swizzle: none,
//! 128, 64 or 32 bytes) places element `(mn, k)` of a K-major matrix (`imm-trans` 0) at
//! `start + (mn % 8) * R + (mn / 8) * SBO + kb % R + (kb / R) * LBO`, with `kb` the byte of k in
//! its row and `R` the swizzle width (16 without swizzling: the 8x16-byte core matrices); of an
//! MN-major one at `start + mnb % R + (mnb / R) * LBO + (k % 8) * R + (k / 8) * SBO`, LBO and
//! SBO trading places without swizzling. The swizzle then XORs address bits 4.. with bits 7..,
//! `log2(R / 16)` of them, on the shared-memory address itself, as the hardware does: the
//! descriptor's base offset (for atoms not aligned to their repeat) is taken as 0.
//!
//! `wgmma.mma_async.sp` ("Sparse matrix storage"): A is the packed 64 x K/2 matrix of each
//! row's non-zero elements, in the dense form's layouts of that size; each warp's metadata is
//! laid out as `mma.sp`'s for its 16 rows (chunks of 4 elements, of 2 for `.tf32`; held by the
//! pair of threads `sp-sel` names, or by all four for the 8-bit types), so the product pairs
//! each element of A with the element of B's column its index names, as `mma.sp` does.

use super::cx::Cx;
use super::float::half;
use super::float::softfloat::{self as sf, Ops};
use super::matrix::fragment::{Batch, float_dot, gather, load_gathered};
use super::matrix::{accumulate_int, element, int_products, sparse_pick};
use super::memory::Where;
use super::special;
use crate::check::Src;
use crate::check::inst::{MmaType, ScaleD, Wgmma, WgmmaA, WgmmaMma};
use crate::ir::build::Build;
use crate::ir::{BinOp, MemOrder, Op, Ty, UnOp, ValueId, VarId};
use crate::types::ScalarType;

pub fn wgmma(cx: &mut Cx<'_>, w: &Wgmma) {
    match w {
        Wgmma::Mma(x) => mma_async(cx, x),
        Wgmma::Fence | Wgmma::Commit | Wgmma::Wait(_) => {}
    }
}

/// `(v >> sh) & mask`.
fn field(cx: &mut Cx<'_>, v: ValueId, sh: u32, mask: u32) -> ValueId {
    let s = cx.c32(sh);
    let x = cx.bop(BinOp::LShr, v, s);
    let m = cx.c32(mask);
    cx.bop(BinOp::And, x, m)
}

/// `a * b + c` on 32-bit offsets.
fn mul_add(cx: &mut Cx<'_>, a: ValueId, b: ValueId, c: ValueId) -> ValueId {
    let p = cx.bop(BinOp::IMul, a, b);
    cx.bop(BinOp::IAdd, p, c)
}

/// The shared-memory byte address of element `(mn, k)` (`mn` the row of A or the column of B)
/// of the matrix that descriptor `desc` describes, elements of `eb` bytes.
fn desc_element(
    cx: &mut Cx<'_>,
    desc: &Src,
    mn: ValueId,
    k: u32,
    eb: u32,
    mn_major: bool,
) -> ValueId {
    let d = cx.read(desc, ScalarType::B64);
    let lo = cx.trunc(d, Ty::I32);
    let s32 = cx.b.konst(Ty::I64, 32);
    let hi = cx.bop(BinOp::LShr, d, s32);
    let hi = cx.trunc(hi, Ty::I32);
    let four = cx.c32(4);
    let start = field(cx, lo, 0, 0x3FFF);
    let start = cx.bop(BinOp::Shl, start, four);
    let lbo = field(cx, lo, 16, 0x3FFF);
    let lbo = cx.bop(BinOp::Shl, lbo, four);
    let sbo = field(cx, hi, 0, 0x3FFF);
    let sbo = cx.bop(BinOp::Shl, sbo, four);
    let mode = field(cx, hi, 30, 3);
    // The swizzle width: 16 bytes (none), then 128, 64, 32 for modes 1, 2, 3.
    let zero = cx.c32(0);
    let none = cx.bop(BinOp::IEq, mode, zero);
    let eight = cx.c32(8);
    let log_sw = cx.bop(BinOp::ISub, eight, mode);
    let log_r = cx.sel(none, four, log_sw);
    let one = cx.c32(1);
    let r = cx.bop(BinOp::Shl, one, log_r);
    let r_mask = cx.bop(BinOp::ISub, r, one);
    let seven = cx.c32(7);
    let three = cx.c32(3);
    let off = if mn_major {
        let ebc = cx.c32(eb);
        let mnb = cx.bop(BinOp::IMul, mn, ebc);
        let along_mn = cx.sel(none, sbo, lbo);
        let along_k = cx.sel(none, lbo, sbo);
        let within = cx.bop(BinOp::And, mnb, r_mask);
        let atoms = cx.bop(BinOp::LShr, mnb, log_r);
        let off = mul_add(cx, atoms, along_mn, within);
        let k_row = cx.c32(k % 8);
        let off = mul_add(cx, k_row, r, off);
        let k_group = cx.c32(k / 8);
        mul_add(cx, k_group, along_k, off)
    } else {
        let row = cx.bop(BinOp::And, mn, seven);
        let group = cx.bop(BinOp::LShr, mn, three);
        let off = cx.bop(BinOp::IMul, row, r);
        let off = mul_add(cx, group, sbo, off);
        let kb = cx.c32(k * eb);
        let within = cx.bop(BinOp::And, kb, r_mask);
        let off = cx.bop(BinOp::IAdd, off, within);
        let blocks = cx.bop(BinOp::LShr, kb, log_r);
        mul_add(cx, blocks, lbo, off)
    };
    let addr = cx.bop(BinOp::IAdd, start, off);
    let chunks = cx.bop(BinOp::LShr, r, four);
    let sw_mask = cx.bop(BinOp::ISub, chunks, one);
    let sw = field(cx, addr, 7, u32::MAX);
    let sw = cx.bop(BinOp::And, sw, sw_mask);
    let sw = cx.bop(BinOp::Shl, sw, four);
    cx.bop(BinOp::Xor, addr, sw)
}

/// Row `16w + groupID + 8h` of the 64, this thread's row of D's half `h`.
fn own_row(cx: &mut Cx<'_>, h: u32) -> ValueId {
    let tid = special::linear_tid(cx);
    let five = cx.c32(5);
    let warp = cx.bop(BinOp::LShr, tid, five);
    let three = cx.c32(3);
    let warp = cx.bop(BinOp::And, warp, three);
    let (g, _) = cx.group_of_lane();
    let base = cx.lane_expr(warp, 16, 8 * h);
    cx.bop(BinOp::IAdd, base, g)
}

/// Column `8j + 2 * threadID_in_group + i`.
fn own_col(cx: &mut Cx<'_>, j: u32, i: u32) -> ValueId {
    let (_, t) = cx.group_of_lane();
    cx.lane_expr(t, 2, 8 * j + i)
}

/// Loads element `(mn, k)` from shared memory and keeps its arithmetic value (f32, or i32 for
/// the integer types) in a variable: a load may end the block, and values do not outlive it.
fn load_element(
    cx: &mut Cx<'_>,
    desc: &Src,
    ty: MmaType,
    mn: &dyn Fn(&mut Cx<'_>) -> ValueId,
    k: u32,
    mn_major: bool,
) -> VarId {
    let bits = ty.bits();
    let at_mn = mn(cx);
    let at = desc_element(cx, desc, at_mn, k, bits / 8, mn_major);
    let raw = cx.load(Where::Shared(at), Ty::int(bits), MemOrder::default());
    let raw = if bits < 32 {
        cx.zext(raw, Ty::I32)
    } else {
        raw
    };
    let v = element(cx, ty, raw, 0);
    let vty = if ty_is_int(ty) { Ty::I32 } else { Ty::F32 };
    let var = cx.b.f.new_var(vty, "wgmma.element");
    cx.b.emit_void(Op::StoreVar(var, v));
    var
}

fn ty_is_int(ty: MmaType) -> bool {
    matches!(ty, MmaType::S8 | MmaType::U8)
}

/// The metadata words of this thread's group that a sparse A's rows read, gathered from their
/// holders (none for the dense form), and the chunk width.
fn sparse_meta(cx: &mut Cx<'_>, x: &WgmmaMma) -> (Vec<VarId>, u32) {
    let w = if x.a_ty.bits() == 32 { 2 } else { 4 };
    let Some(meta) = &x.sp_meta else {
        return (Vec::new(), w);
    };
    let holders = (x.k / w / 4).max(1);
    let mut batch = Batch::new();
    let vars = (0..holders)
        .map(|p| {
            let first = x.sp_selector * holders + p;
            gather(
                cx,
                &mut batch,
                std::slice::from_ref(meta),
                0,
                false,
                &|cx| {
                    let (g, _) = cx.group_of_lane();
                    cx.lane_expr(g, 4, first)
                },
            )
        })
        .collect();
    cx.exchange_all(batch);
    (vars, w)
}

fn mma_async(cx: &mut Cx<'_>, x: &WgmmaMma) {
    let k = x.k;
    // Elements of each row of A: half of K for a sparse A.
    let ka = if x.sp_meta.is_some() { k / 2 } else { k };
    let (meta_vars, chunk) = sparse_meta(cx, x);
    // A's two rows of this thread, k in order.
    let a_vars: Vec<Vec<VarId>> = match &x.a {
        WgmmaA::Regs(regs) => {
            // From the four lanes of this lane's group, as `mma`'s A: register h + 2s holds
            // row groupID + 8h, elements of k slot s.
            let mut batch = Batch::new();
            let mut got = [Vec::new(), Vec::new()];
            for h in 0..2u32 {
                for s in 0..2u32 {
                    for tp in 0..4 {
                        let reg = (h + 2 * s) as usize;
                        let g = gather(cx, &mut batch, regs, reg, false, &|cx| {
                            let (g, _) = cx.group_of_lane();
                            cx.lane_expr(g, 4, tp)
                        });
                        got[h as usize].push(g);
                    }
                }
            }
            cx.exchange_all(batch);
            got.iter()
                .map(|row| {
                    let mut vars = Vec::new();
                    for &g in row {
                        let w = load_gathered(cx, g);
                        for j in 0..x.a_ty.per_reg() {
                            let v = element(cx, x.a_ty, w, j);
                            let vty = if ty_is_int(x.a_ty) { Ty::I32 } else { Ty::F32 };
                            let var = cx.b.f.new_var(vty, "wgmma.element");
                            cx.b.emit_void(Op::StoreVar(var, v));
                            vars.push(var);
                        }
                    }
                    vars
                })
                .collect()
        }
        WgmmaA::Desc(desc) => (0..2u32)
            .map(|h| {
                (0..ka)
                    .map(|kk| load_element(cx, desc, x.a_ty, &|cx| own_row(cx, h), kk, x.trans_a))
                    .collect()
            })
            .collect(),
    };
    // B's columns 8j + 2t + i.
    let b_vars: Vec<Vec<VarId>> = (0..x.n / 8)
        .flat_map(|j| (0..2u32).map(move |i| (j, i)))
        .map(|(j, i)| {
            (0..k)
                .map(|kk| load_element(cx, &x.b, x.b_ty, &|cx| own_col(cx, j, i), kk, x.trans_b))
                .collect()
        })
        .collect();
    let load_all = |cx: &mut Cx<'_>, vars: &[VarId], neg: bool| -> Vec<ValueId> {
        vars.iter()
            .map(|&v| {
                let ty = cx.b.f.vars[v.0 as usize].ty;
                let e = cx.b.emit(ty, Op::LoadVar(v));
                if neg { cx.b.un(UnOp::FNeg, e) } else { e }
            })
            .collect()
    };
    let mut d = Vec::with_capacity((x.n / 2) as usize);
    for j in 0..(x.n / 8) as usize {
        for (h, a_row) in a_vars.iter().enumerate() {
            for i in 0..2usize {
                let q = 4 * j + 2 * h + i;
                let a = load_all(cx, a_row, x.neg_a);
                let b = load_all(cx, &b_vars[2 * j + i], x.neg_b);
                let b = if meta_vars.is_empty() {
                    b
                } else {
                    let metas: Vec<ValueId> =
                        meta_vars.iter().map(|&g| load_gathered(cx, g)).collect();
                    sparse_pick(cx, k, chunk, h as u32, &b, &metas)
                };
                let v = if x.d_ty == MmaType::S32 {
                    let c = acc_in(cx, x, q);
                    let dot = int_products(cx, &a, &b);
                    accumulate_int(cx, c, dot, x.satfinite)
                } else {
                    let c = acc_in(cx, x, q);
                    float_dot(cx, c, &a, &b, x.d_ty)
                };
                d.push(v);
            }
        }
    }
    if x.d_ty == MmaType::F16 {
        for (pair, dst) in d.chunks(2).zip(&x.d) {
            let w = half::join(cx, pair[0], pair[1]);
            cx.write(dst, w);
        }
    } else {
        for (&v, dst) in d.iter().zip(&x.d) {
            cx.write(dst, v);
        }
    }
}

/// The accumulator's element `q` as the sum starts from it: f32 (or i32), zero when `scale-d`
/// is false.
fn acc_in(cx: &mut Cx<'_>, x: &WgmmaMma, q: usize) -> ValueId {
    let c = match x.d_ty {
        MmaType::F16 => {
            let w = cx.read(&x.c[q / 2], ScalarType::B32);
            let (lo, hi) = half::split(cx, w);
            half::to_f32(cx, if q % 2 == 0 { lo } else { hi }, sf::F16)
        }
        MmaType::S32 => cx.read(&x.c[q], ScalarType::B32),
        _ => {
            let w = cx.read(&x.c[q], ScalarType::B32);
            cx.float_of(w, Ty::F32)
        }
    };
    let zero = if x.d_ty == MmaType::S32 {
        cx.c32(0)
    } else {
        let z = cx.c32(0);
        cx.float_of(z, Ty::F32)
    };
    match &x.scale_d {
        ScaleD::Imm(true) => c,
        ScaleD::Imm(false) => zero,
        ScaleD::Pred(p) => {
            let p = cx.read(p, ScalarType::Pred);
            cx.sel(p, c, zero)
        }
    }
}
