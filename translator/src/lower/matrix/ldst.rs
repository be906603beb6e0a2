//! The lane exchanges the matrix instructions share, and `ldmatrix`, `stmatrix` and `movmatrix`:
//! each lane gathers its fragment's elements from the lanes that read or hold them.

use super::fragment::Batch;
use crate::check::inst::{Ldmatrix, Movmatrix, Stmatrix};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Ty, ValueId, VarId, WarpOp};
use crate::lower::cx::Cx;
use crate::lower::float::half;
use crate::lower::float::softfloat::Ops;
use crate::lower::memory::Where;
use crate::types::{ScalarType, StateSpace};

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
    pub(crate) fn exchange_all(&mut self, batch: Batch) {
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
    pub(crate) fn group_of_lane(&mut self) -> (ValueId, ValueId) {
        let lane = super::super::special::lane_id(self);
        let two = self.c32(2);
        let three = self.c32(3);
        let g = self.bop(BinOp::LShr, lane, two);
        let t = self.bop(BinOp::And, lane, three);
        (g, t)
    }

    /// `a * k + b` on lane numbers.
    pub(crate) fn lane_expr(&mut self, a: ValueId, k: u32, b: u32) -> ValueId {
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
