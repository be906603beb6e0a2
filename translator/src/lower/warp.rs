//! The meaning of warp-level instructions, in terms of the IR's warp primitives
//! ([`WarpOp`]): the lane arithmetic of `shfl`, votes from ballots, and so on. How a primitive runs
//! depends on the device's warp strategy (native subgroups, or the SIMT emulation).

use super::cx::Cx;
use crate::check::inst::{Elect, Match, Redux, ReduxOp, Shfl, ShflMode, Vote, VoteMode};
use crate::check::{Dst, Src};
use crate::ir::build::Build;
use crate::ir::{BinOp, ExtOp, FpFlags, Op, ReduceOp, Ty, UnOp, ValueId, VarId, WarpOp};
use crate::types::ScalarType;

impl Cx<'_> {
    /// Emits a synchronization operation in a block of its own, with its operands and result
    /// passed through variables: the SIMT emulation needs each one alone to make the control
    /// flow around it uniform. Returns the result, if the operation has one.
    pub fn sync_op(&mut self, op: WarpOp, args: &[ValueId], result: Option<Ty>) -> Option<ValueId> {
        let arg_vars: smallvec::SmallVec<[VarId; 3]> = args
            .iter()
            .map(|&a| {
                let v = self.b.f.new_var(self.b.f.ty(a), "sync.arg");
                self.b.emit_void(Op::StoreVar(v, a));
                v
            })
            .collect();
        self.b.jump_to_new_block();
        let loaded: smallvec::SmallVec<[ValueId; 3]> = arg_vars
            .iter()
            .map(|&v| {
                let ty = self.b.f.vars[v.0 as usize].ty;
                self.b.emit(ty, Op::LoadVar(v))
            })
            .collect();
        let out = result.map(|ty| {
            let r = self.b.emit(ty, Op::Warp(op, loaded.as_slice().into()));
            let v = self.b.f.new_var(ty, "sync.result");
            self.b.emit_void(Op::StoreVar(v, r));
            v
        });
        if result.is_none() {
            self.b.emit_void(Op::Warp(op, loaded.as_slice().into()));
        }
        self.b.jump_to_new_block();
        out.map(|v| {
            let ty = self.b.f.vars[v.0 as usize].ty;
            self.b.emit(ty, Op::LoadVar(v))
        })
    }

    /// A block-wide barrier, alone in its block like the warp operations.
    pub fn barrier(&mut self) {
        self.barrier_op(Op::Barrier);
    }

    /// `op` (`Barrier` or `BarrierArrive`) alone in its block.
    pub fn barrier_op(&mut self, op: Op) {
        self.b.jump_to_new_block();
        self.b.emit_void(op);
        self.b.jump_to_new_block();
    }

    fn u32c(&mut self, v: u32) -> ValueId {
        self.b.konst(Ty::I32, u64::from(v))
    }

    /// The lanes of `membermask` as a predicate for this lane.
    fn in_mask(&mut self, mask: Option<&Src>) -> ValueId {
        let Some(mask) = mask else {
            return self.b.konst(Ty::Bool, 1);
        };
        let m = self.read(mask, ScalarType::B32);
        let lane = super::special::lane_id(self);
        let bit = self.b.bin(BinOp::LShr, m, lane);
        let one = self.u32c(1);
        let b = self.b.bin(BinOp::And, bit, one);
        let zero = self.konst_zero();
        self.b.bin(BinOp::INe, b, zero)
    }

    fn konst_zero(&mut self) -> ValueId {
        self.u32c(0)
    }

    fn ballot(&mut self, p: ValueId) -> ValueId {
        self.sync_op(WarpOp::Ballot, &[p], Some(Ty::I32))
            .unwrap_or_else(|| self.b.konst(Ty::I32, 0))
    }

    fn mask_value(&mut self, mask: Option<&Src>) -> ValueId {
        match mask {
            Some(m) => self.read(m, ScalarType::B32),
            None => self.u32c(u32::MAX),
        }
    }
}

/// `shfl(.sync)` with the ISA's lane computation (ISA 8.7.6.4 "Semantics").
pub fn shfl(cx: &mut Cx<'_>, s: &Shfl) {
    let a = cx.read(&s.a, ScalarType::B32);
    let b = cx.read(&s.b, ScalarType::B32);
    let c = cx.read(&s.c, ScalarType::B32);
    let lane = super::special::lane_id(cx);
    let k31 = cx.u32c(31);
    let bval = cx.b.bin(BinOp::And, b, k31);
    let cval = cx.b.bin(BinOp::And, c, k31);
    let eight = cx.u32c(8);
    let seg = cx.b.bin(BinOp::LShr, c, eight);
    let mask = cx.b.bin(BinOp::And, seg, k31);
    let not_mask = cx.b.un(UnOp::Not, mask);
    let lane_m = cx.b.bin(BinOp::And, lane, mask);
    let cval_nm = cx.b.bin(BinOp::And, cval, not_mask);
    let max_lane = cx.b.bin(BinOp::Or, lane_m, cval_nm);
    let min_lane = lane_m;
    // Lane arithmetic in signed 32-bit integers: `lane - bval` may be negative.
    let (j, pval) = match s.mode {
        ShflMode::Up => {
            let j = cx.b.bin(BinOp::ISub, lane, bval);
            (j, cx.b.bin(BinOp::SGe, j, max_lane))
        }
        ShflMode::Down => {
            let j = cx.b.bin(BinOp::IAdd, lane, bval);
            (j, cx.b.bin(BinOp::SLe, j, max_lane))
        }
        ShflMode::Bfly => {
            let j = cx.b.bin(BinOp::Xor, lane, bval);
            (j, cx.b.bin(BinOp::SLe, j, max_lane))
        }
        ShflMode::Idx => {
            let bn = cx.b.bin(BinOp::And, bval, not_mask);
            let j = cx.b.bin(BinOp::Or, min_lane, bn);
            (j, cx.b.bin(BinOp::SLe, j, max_lane))
        }
    };
    let src = cx.b.select(pval, j, lane);
    // Values do not cross the synchronization point: the predicate goes there in a var.
    let pvar = cx.b.f.new_var(Ty::Bool, "shfl.in_range");
    cx.b.emit_void(Op::StoreVar(pvar, pval));
    let Some(d) = cx.sync_op(WarpOp::ReadLane, &[a, src], Some(Ty::I32)) else {
        return;
    };
    cx.write(&s.dst, d);
    if let Some(p) = &s.pred {
        let pval = cx.b.emit(Ty::Bool, Op::LoadVar(pvar));
        cx.write(p, pval);
    }
}

/// `vote(.sync)`: over the active lanes of `membermask`. (Values computed before a
/// synchronization point are not used after it: each is in a block of its own.)
pub fn vote(cx: &mut Cx<'_>, v: &Vote) {
    let a = cx.read(&v.a, ScalarType::Pred);
    match v.mode {
        VoteMode::Ballot => {
            let b = cx.ballot(a);
            let mask = cx.mask_value(v.mask.as_ref());
            let r = cx.b.bin(BinOp::And, b, mask);
            cx.write(&v.dst, r);
        }
        VoteMode::Any => {
            let b = cx.ballot(a);
            let mask = cx.mask_value(v.mask.as_ref());
            let r = cx.b.bin(BinOp::And, b, mask);
            let zero = cx.konst_zero();
            let any = cx.b.bin(BinOp::INe, r, zero);
            cx.write(&v.dst, any);
        }
        VoteMode::All => {
            let na = cx.b.un(UnOp::Not, a);
            let b = cx.ballot(na);
            let mask = cx.mask_value(v.mask.as_ref());
            let r = cx.b.bin(BinOp::And, b, mask);
            let zero = cx.konst_zero();
            let all = cx.b.bin(BinOp::IEq, r, zero);
            cx.write(&v.dst, all);
        }
        VoteMode::Uni => {
            let yes = cx.ballot(a);
            let yes_var = cx.b.f.new_var(Ty::I32, "vote.yes");
            cx.b.emit_void(Op::StoreVar(yes_var, yes));
            let a = cx.read(&v.a, ScalarType::Pred);
            let na = cx.b.un(UnOp::Not, a);
            let no = cx.ballot(na);
            let yes = cx.b.emit(Ty::I32, Op::LoadVar(yes_var));
            let mask = cx.mask_value(v.mask.as_ref());
            let yes = cx.b.bin(BinOp::And, yes, mask);
            let no = cx.b.bin(BinOp::And, no, mask);
            let zero = cx.konst_zero();
            let none = cx.b.bin(BinOp::IEq, yes, zero);
            let all = cx.b.bin(BinOp::IEq, no, zero);
            let uni = cx.b.bin(BinOp::Or, none, all);
            cx.write(&v.dst, uni);
        }
    }
}

/// `match.any.sync` / `match.all.sync`.
pub fn match_sync(cx: &mut Cx<'_>, m: &Match) {
    let a = cx.read(&m.a, m.ty);
    let include = cx.in_mask(Some(&m.mask));
    let Some(same) = cx.sync_op(WarpOp::MatchAny, &[a, include], Some(Ty::I32)) else {
        return;
    };
    let mask = cx.mask_value(Some(&m.mask));
    let same = cx.b.bin(BinOp::And, same, mask);
    if !m.all {
        cx.write(&m.dst, same);
        return;
    }
    let same_var = cx.b.f.new_var(Ty::I32, "match.same");
    cx.b.emit_void(Op::StoreVar(same_var, same));
    let Some(active) = cx.sync_op(WarpOp::ActiveMask, &[], Some(Ty::I32)) else {
        return;
    };
    let same = cx.b.emit(Ty::I32, Op::LoadVar(same_var));
    let mask = cx.mask_value(Some(&m.mask));
    let members = cx.b.bin(BinOp::And, active, mask);
    let all = cx.b.bin(BinOp::IEq, same, members);
    let zero = cx.konst_zero();
    let d = cx.b.select(all, members, zero);
    cx.write(&m.dst, d);
    if let Some(p) = &m.pred {
        cx.write(p, all);
    }
}

pub fn activemask(cx: &mut Cx<'_>, d: &Dst) {
    if let Some(m) = cx.sync_op(WarpOp::ActiveMask, &[], Some(Ty::I32)) {
        cx.write(d, m);
    }
}

/// `redux.sync`: lanes outside `membermask` take no part.
pub fn redux(cx: &mut Cx<'_>, r: &Redux) {
    let a = cx.read(&r.a, r.ty);
    let include = cx.in_mask(Some(&r.mask));
    let signed = r.ty == ScalarType::S32;
    let op = match r.op {
        ReduxOp::Add => ReduceOp::Add,
        ReduxOp::Min if signed => ReduceOp::SMin,
        ReduxOp::Max if signed => ReduceOp::SMax,
        ReduxOp::Min => ReduceOp::UMin,
        ReduxOp::Max => ReduceOp::UMax,
        ReduxOp::And => ReduceOp::And,
        ReduxOp::Or => ReduceOp::Or,
        ReduxOp::Xor => ReduceOp::Xor,
    };
    // Lanes outside the mask contribute the operation's identity.
    let id = cx.b.konst(Ty::I32, op.identity());
    let v = cx.b.select(include, a, id);
    if let Some(d) = cx.sync_op(WarpOp::Reduce(op), &[v], Some(Ty::I32)) {
        cx.write(&r.dst, d);
    }
}

/// `elect.sync`: the leader is the lowest lane that is active and in `membermask`, so the same
/// mask elects the same lane as the ISA asks. Lanes of the mask that did not arrive take no part,
/// as in `vote`: the ballot counts only the lanes here.
pub fn elect(cx: &mut Cx<'_>, e: &Elect) {
    let include = cx.in_mask(Some(&e.mask));
    let members = cx.ballot(include);
    let zero = cx.konst_zero();
    let negated = cx.b.bin(BinOp::ISub, zero, members);
    let lowest = cx.b.bin(BinOp::And, members, negated);
    let leader = cx.b.ext(ExtOp::FindUMsb, &[lowest], FpFlags::default());
    let lane = super::special::lane_id(cx);
    let is_leader = cx.b.bin(BinOp::IEq, lane, leader);
    cx.write(&e.dst, leader);
    cx.write(&e.pred, is_leader);
}

pub fn warp_sync(cx: &mut Cx<'_>, _mask: &Src) {
    cx.sync_op(WarpOp::Sync, &[], None);
}
