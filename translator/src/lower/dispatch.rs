//! The dispatch from a checked PTX instruction to the function that lowers it: the guard, then
//! one arm per instruction, each naming the family file that holds its meaning.

use super::cx::Cx;
use super::{
    arith, async_copy, atomic, call, cmp, control, convert, data, extended, float, int, logic,
    matrix, mbarrier, misc, permute, sync, texture, video, warp, wgmma,
};
use crate::check;
use crate::check::inst::Op as PtxOp;
use crate::ir::build::{Build, room_for};
use crate::ir::{BinOp, Op, Terminator, Ty, UnOp};
use crate::types::ScalarType;

impl Cx<'_> {
    pub(super) fn instruction(&mut self, i: &check::Inst) {
        let Some(g) = i.guard else {
            self.op(&i.op);
            return;
        };
        let mut p = self.read_reg(g.pred, None, ScalarType::Pred);
        if g.negated {
            p = self.b.emit(Ty::Bool, Op::Un(UnOp::Not, p));
        }
        // Guarded branches and returns become conditional terminators; anything else runs in a
        // block of its own that the guard skips.
        let next = self.b.f.new_block();
        let target = match &i.op {
            PtxOp::Bra(b) => Some(self.label_block(b.target)),
            _ => None,
        };
        if let Some(t) = target {
            self.b.f.block_mut(self.b.cur).term = Terminator::Branch {
                cond: p,
                then: t,
                else_: next,
            };
            self.b.cur = next;
            return;
        }
        let then = self.b.f.new_block();
        self.b.f.block_mut(self.b.cur).term = Terminator::Branch {
            cond: p,
            then,
            else_: next,
        };
        self.b.cur = then;
        // The guarded block holds this instruction alone; the rest of the run goes to `next`.
        let room = std::mem::replace(&mut self.b.room, room_for(1));
        self.op(&i.op);
        self.b.room = room;
        if self.b.f.block(self.b.cur).term == Terminator::Unreachable {
            self.b.f.block_mut(self.b.cur).term = Terminator::Jump(next);
        }
        self.b.cur = next;
    }

    fn op(&mut self, op: &PtxOp) {
        match op {
            PtxOp::Add(a) => arith::add(self, a),
            PtxOp::Sub(a) => arith::sub(self, a),
            PtxOp::Mul(a) => arith::mul(self, a),
            PtxOp::Mad(a) => arith::mad(self, a),
            PtxOp::Div(a) => arith::div(self, a),
            PtxOp::Rem(a) => arith::rem(self, a),
            PtxOp::Abs(a) => arith::abs(self, a),
            PtxOp::Neg(a) => arith::neg(self, a),
            PtxOp::Min(a) => arith::min_max(self, a, false),
            PtxOp::Max(a) => arith::min_max(self, a, true),
            PtxOp::Setp(s) => cmp::setp(self, s),
            PtxOp::Selp(a) => cmp::selp(self, a),
            PtxOp::And(a) => logic::bitwise(self, a, BinOp::And),
            PtxOp::Or(a) => logic::bitwise(self, a, BinOp::Or),
            PtxOp::Xor(a) => logic::bitwise(self, a, BinOp::Xor),
            PtxOp::Not(a) => logic::not(self, a),
            PtxOp::Shl(a) => logic::shl(self, a),
            PtxOp::Shr(a) => logic::shr(self, a),
            PtxOp::Mov(m) => data::mov(self, m),
            PtxOp::Ld(l) => data::ld(self, l),
            PtxOp::St(s) => data::st(self, s),
            PtxOp::Cvta(c) => data::cvta(self, c),
            PtxOp::Cvt(c) => convert::cvt(self, c),
            PtxOp::Bra(b) => control::bra(self, b),
            PtxOp::Bar(b) => sync::bar(self, b),
            PtxOp::Membar(s) => sync::membar(self, *s),
            PtxOp::Isspacep(i) => data::isspacep(self, i),
            PtxOp::Shfl(s) => warp::shfl(self, s),
            PtxOp::Vote(v) => warp::vote(self, v),
            PtxOp::Match(m) => warp::match_sync(self, m),
            PtxOp::ActiveMask(d) => warp::activemask(self, d),
            PtxOp::Redux(r) => warp::redux(self, r),
            PtxOp::WarpSync(m) => warp::warp_sync(self, m),
            PtxOp::Atom(a) => atomic::atom(self, a),
            PtxOp::CvtPack(p) => convert::cvt_pack(self, p),
            PtxOp::CvtNarrow(c) => convert::cvt_narrow(self, c),
            PtxOp::Mbarrier(b) => mbarrier::mbarrier(self, b),
            PtxOp::MbarrierPending(p) => mbarrier::pending_count(self, p),
            PtxOp::Prefetch => {}
            PtxOp::Call(c) => call::call(self, c),
            PtxOp::Ret => control::ret(self),
            PtxOp::Exit => control::exit(self),
            PtxOp::Trap { breakpoint } => control::trap(self, *breakpoint),
            PtxOp::Float(f) => float::lower(self, f),
            PtxOp::Set(s) => cmp::set(self, s),
            PtxOp::Slct(s) => cmp::slct(self, s),
            PtxOp::Carry(c) => extended::carry(self, c),
            PtxOp::Simd(s) => int::simd(self, s),
            PtxOp::Mul24(a) | PtxOp::Mad24(a) => int::mul24(self, a),
            PtxOp::Sad(a) => int::sad(self, a),
            PtxOp::Popc(a) => int::popc(self, a),
            PtxOp::Clz(a) => int::clz(self, a),
            PtxOp::Bfind(b) => int::bfind(self, b),
            PtxOp::Brev(a) => int::brev(self, a),
            PtxOp::Bfe(a) => int::bfe(self, a),
            PtxOp::Bfi(a) => int::bfi(self, a),
            PtxOp::Bmsk(m) => int::bmsk(self, m),
            PtxOp::Szext(m) => int::szext(self, m),
            PtxOp::Dp4a(d) | PtxOp::Dp2a(d) => int::dot(self, d),
            PtxOp::Cnot(a) => logic::cnot(self, a),
            PtxOp::Lop3(l) => logic::lop3(self, l),
            PtxOp::Shf(s) => logic::shf(self, s),
            PtxOp::Prmt(p) => permute::prmt(self, p),
            PtxOp::BrxIdx(b) => control::brx_idx(self, b),
            PtxOp::CallIndirect(c) => call::call_indirect(self, c),
            PtxOp::AsyncCopy(a) => async_copy::async_copy(self, a),
            PtxOp::Nanosleep(t) => misc::nanosleep(self, t),
            PtxOp::NoEffect(what) => misc::no_effect(self, *what),
            PtxOp::CreatePolicy(d) => misc::create_policy(self, d),
            PtxOp::ClusterQuery(q) => misc::cluster_query(self, q),
            PtxOp::Elect(e) => warp::elect(self, e),
            PtxOp::VideoScalar(v) => video::scalar(self, v),
            PtxOp::VideoSimd(v) => video::simd(self, v),
            PtxOp::VideoMad(v) => video::mad(self, v),
            PtxOp::Ldmatrix(l) => matrix::ldmatrix(self, l),
            PtxOp::Stmatrix(s) => matrix::stmatrix(self, s),
            PtxOp::Movmatrix(m) => matrix::movmatrix(self, m),
            PtxOp::Mma(x) => matrix::mma(self, x),
            PtxOp::Wmma(w) => matrix::wmma(self, w),
            PtxOp::Wgmma(w) => wgmma::wgmma(self, w),
            PtxOp::Tex(t) => texture::tex(self, t),
            PtxOp::Tld4(t) => texture::tld4(self, t),
            PtxOp::Txq(q) => texture::txq(self, q),
        }
    }
}
