//! `mma.m8n8k4` with `.f16` multiplicands (sm_70): four independent 8x8x4 products, one per quad
//! pair (lanes `4q .. 4q + 3`, the low group, and `16 + 4q ..`, the high group), with the layouts
//! of the ISA's "Matrix Fragments for mma.m8n8k4 with .f16 floating point type". Every row,
//! column, lane and element index those layouts use is made of bits of `%laneid` and constant
//! bits ([`Bit`]), so each lane names the holder of each element it needs that way: the lane's
//! registers are gathered whole (once per holder) and the element picked by the bits that only
//! this lane knows. D element `i` is then `C + sum_k A[row][k] * B[k][col]` in the order and
//! rounding of the other shapes (docs/decisions/0111-mma-accumulation-order.md).

use std::collections::HashMap;

use super::super::cx::Cx;
use super::super::float::half;
use super::super::float::softfloat::{self as sf, Ops};
use super::fragment::{Batch, float_dot, gather, load_gathered, write_acc};
use crate::check::Src;
use crate::check::inst::{Mma, MmaType};
use crate::ir::{BinOp, Ty, ValueId, VarId};
use crate::types::ScalarType;

/// One bit of a position: a constant, or bit `n` of this lane's `%laneid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Bit {
    C(bool),
    L(u8),
}

/// Bits `0..n` of `v`, low first.
fn konst(v: u32, n: u32) -> Vec<Bit> {
    (0..n).map(|i| Bit::C(v >> i & 1 == 1)).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Frag {
    A,
    B,
    C,
}

/// Where element `(row, col)` of a fragment is: the lane (five bits: two of the position in
/// the group, `%laneid` bits 2-3 naming the quad pair, the low or high group) and the element
/// index in that lane's fragment.
fn holder(x: &Mma, frag: Frag, row: &[Bit], col: &[Bit]) -> ([Bit; 5], Vec<Bit>) {
    let lane = |p0: Bit, p1: Bit, high: Bit| [p0, p1, Bit::L(2), Bit::L(3), high];
    let (a_row, b_row) = x.row_major;
    match frag {
        // A (8x4): .row: row = %laneid % 4 (+ 4 in the high group), col = i; .col: row = i % 4
        // (+ 4), col = %laneid % 4.
        Frag::A if a_row => (lane(row[0], row[1], row[2]), col.to_vec()),
        Frag::A => (lane(col[0], col[1], row[2]), row[..2].to_vec()),
        // B (4x8): .row: row = %laneid % 4, col = i (+ 4 in the high group); .col: row = i,
        // col = %laneid % 4 (+ 4).
        Frag::B if b_row => (lane(row[0], row[1], col[2]), col[..2].to_vec()),
        Frag::B => (lane(col[0], col[1], col[2]), row.to_vec()),
        // C .f16: row = %laneid % 4 (+ 4), col = i.
        Frag::C if x.c_ty == MmaType::F16 => (lane(row[0], row[1], row[2]), col.to_vec()),
        // C .f32: row = (%laneid & 1) + (i & 2) (+ 4), col = (i & 4) + (%laneid & 2) + (i & 1).
        Frag::C => (lane(row[0], col[1], row[2]), vec![col[0], row[1], col[2]]),
    }
}

/// Row and column of this lane's D element `i`, by the layout of `.dtype`.
fn d_place(x: &Mma, i: u32) -> (Vec<Bit>, Vec<Bit>) {
    let b = |n: u32| Bit::C(i >> n & 1 == 1);
    if x.d_ty == MmaType::F16 {
        (vec![Bit::L(0), Bit::L(1), Bit::L(4)], konst(i, 3))
    } else {
        (
            vec![Bit::L(0), b(1), Bit::L(4)],
            vec![b(0), Bit::L(1), b(2)],
        )
    }
}

/// The number the bits make, in this lane.
fn value(cx: &mut Cx<'_>, bits: &[Bit]) -> ValueId {
    let konst: u32 = (0u32..)
        .zip(bits)
        .map(|(p, b)| if *b == Bit::C(true) { 1 << p } else { 0 })
        .sum();
    let mut v = cx.c32(konst);
    for (p, b) in (0u32..).zip(bits) {
        if let Bit::L(n) = *b {
            let lane = super::super::special::lane_id(cx);
            let sh = cx.c32(u32::from(n));
            let x = cx.bop(BinOp::LShr, lane, sh);
            let one = cx.c32(1);
            let x = cx.bop(BinOp::And, x, one);
            let up = cx.c32(p);
            let x = cx.bop(BinOp::Shl, x, up);
            v = cx.bop(BinOp::Or, v, x);
        }
    }
    v
}

/// The registers of one holder: this lane's own, or gathered from another.
enum Regs {
    Own,
    Gathered(Vec<VarId>),
}

struct Holders {
    regs: HashMap<(Frag, [Bit; 5]), Regs>,
}

const OWN: [Bit; 5] = [Bit::L(0), Bit::L(1), Bit::L(2), Bit::L(3), Bit::L(4)];

impl Holders {
    fn want(
        &mut self,
        cx: &mut Cx<'_>,
        batch: &mut Batch,
        regs: &[Src],
        frag: Frag,
        lane: [Bit; 5],
    ) {
        if self.regs.contains_key(&(frag, lane)) {
            return;
        }
        let got = if lane == OWN {
            Regs::Own
        } else {
            Regs::Gathered(
                (0..regs.len())
                    .map(|r| gather(cx, batch, regs, r, false, &|cx| value(cx, &lane)))
                    .collect(),
            )
        };
        self.regs.insert((frag, lane), got);
    }

    /// The bits (I32) of register `reg` (a number made of bits) of a holder.
    fn word(
        &self,
        cx: &mut Cx<'_>,
        regs: &[Src],
        frag: Frag,
        lane: [Bit; 5],
        reg: &[Bit],
    ) -> ValueId {
        let words: Vec<ValueId> = match &self.regs[&(frag, lane)] {
            Regs::Own => regs.iter().map(|r| cx.read(r, ScalarType::B32)).collect(),
            Regs::Gathered(g) => g.iter().map(|&g| load_gathered(cx, g)).collect(),
        };
        if reg.iter().all(|b| matches!(b, Bit::C(_))) {
            let at: usize = (0..)
                .zip(reg)
                .map(|(p, b)| if *b == Bit::C(true) { 1usize << p } else { 0 })
                .sum();
            return words[at];
        }
        let idx = value(cx, reg);
        let mut v = words[words.len() - 1];
        for r in (0..words.len() - 1).rev() {
            let rc = cx.c32(r as u32);
            let is = cx.bop(BinOp::IEq, idx, rc);
            v = cx.sel(is, words[r], v);
        }
        v
    }
}

/// Element `elem` of a holder's fragment as f32: a half of a packed pair, or a whole `.f32`.
fn element(
    cx: &mut Cx<'_>,
    h: &Holders,
    regs: &[Src],
    frag: Frag,
    lane: [Bit; 5],
    elem: &[Bit],
    f16: bool,
) -> ValueId {
    if !f16 {
        let w = h.word(cx, regs, frag, lane, elem);
        return cx.float_of(w, Ty::F32);
    }
    let w = h.word(cx, regs, frag, lane, &elem[1..]);
    let sh = value(
        cx,
        &[
            Bit::C(false),
            Bit::C(false),
            Bit::C(false),
            Bit::C(false),
            elem[0],
        ],
    );
    let x = cx.bop(BinOp::LShr, w, sh);
    let lo = cx.trunc(x, Ty::I16);
    half::to_f32(cx, lo, sf::F16)
}

pub fn mma(cx: &mut Cx<'_>, x: &Mma) {
    let mut holders = Holders {
        regs: HashMap::new(),
    };
    let mut batch = Batch::new();
    let places: Vec<(Vec<Bit>, Vec<Bit>)> = (0..8).map(|i| d_place(x, i)).collect();
    for (row, col) in &places {
        for k in 0..4 {
            let kb = konst(k, 2);
            let (la, _) = holder(x, Frag::A, row, &kb);
            holders.want(cx, &mut batch, &x.a, Frag::A, la);
            let (lb, _) = holder(x, Frag::B, &kb, col);
            holders.want(cx, &mut batch, &x.b, Frag::B, lb);
        }
        let (lc, _) = holder(x, Frag::C, row, col);
        holders.want(cx, &mut batch, &x.c, Frag::C, lc);
    }
    cx.exchange_all(batch);
    let mut d = Vec::with_capacity(8);
    for (row, col) in &places {
        let mut a = Vec::with_capacity(4);
        let mut b = Vec::with_capacity(4);
        for k in 0..4 {
            let kb = konst(k, 2);
            let (la, ea) = holder(x, Frag::A, row, &kb);
            a.push(element(cx, &holders, &x.a, Frag::A, la, &ea, true));
            let (lb, eb) = holder(x, Frag::B, &kb, col);
            b.push(element(cx, &holders, &x.b, Frag::B, lb, &eb, true));
        }
        let (lc, ec) = holder(x, Frag::C, row, col);
        let f16 = x.c_ty == MmaType::F16;
        let acc = element(cx, &holders, &x.c, Frag::C, lc, &ec, f16);
        d.push(float_dot(cx, acc, &a, &b, x.d_ty));
    }
    write_acc(cx, x, &d);
}
