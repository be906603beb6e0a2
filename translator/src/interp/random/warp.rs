//! The parts of [`super::warp_kernel`]'s kernels that a single thread's programs lack: the
//! invocation's index and what starts from it, its own global words, warp operations alone in
//! their blocks, and the exchange around a workgroup barrier.

use super::{Gen, THREAD_BYTES};
use crate::ir::{
    BinOp, BlockId, ConvOp, MemOrder, Op, Ptr, ReduceOp, Terminator, Ty, ValueId, VarId, WarpOp,
};

impl Gen<'_> {
    /// The global address `at`, in this invocation's own range for a workgroup's kernel.
    pub(super) fn global(&mut self, b: BlockId, at: u64) -> ValueId {
        let at = self.f.push(b, Ty::I64, Op::Const(at));
        let Some(tid) = self.tid else {
            return at;
        };
        let t = self.f.push(b, Ty::I32, Op::LoadVar(tid));
        let t = self.f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, t));
        let size = self.f.push(b, Ty::I64, Op::Const(THREAD_BYTES));
        let off = self.bin(b, Ty::I64, BinOp::IMul, t, size);
        self.bin(b, Ty::I64, BinOp::IAdd, at, off)
    }

    /// In the entry of a workgroup's kernel: the invocation's index, and variables that start
    /// from it so that control flow diverges.
    pub(super) fn per_invocation(&mut self, entry: BlockId) {
        let t = crate::ir::linear_local_id(|ty, op| self.f.push(entry, ty, op));
        let tid = self.f.new_var(Ty::I32, "tid");
        self.f.push_void(entry, Op::StoreVar(tid, t));
        let pred = self.f.new_var(Ty::Bool, "pred");
        let src = self.f.new_var(Ty::I32, "src");
        let zero = self.f.push(entry, Ty::I32, Op::Const(0));
        let no = self.f.push(entry, Ty::Bool, Op::Const(0));
        self.f.push_void(entry, Op::StoreVar(src, zero));
        self.f.push_void(entry, Op::StoreVar(pred, no));
        (self.tid, self.pred, self.src) = (Some(tid), Some(pred), Some(src));
        for k in [0, 1, 2] {
            let v = self.vars[k];
            let x = self.f.push(entry, Ty::I32, Op::LoadVar(v));
            let m = self.constant(entry, Ty::I32);
            let odd = self.f.push(entry, Ty::I32, Op::Const(1));
            let m = self.bin(entry, Ty::I32, BinOp::Or, m, odd);
            let d = self.bin(entry, Ty::I32, BinOp::IMul, t, m);
            let y = self.bin(entry, Ty::I32, [BinOp::Xor, BinOp::IAdd][k % 2], x, d);
            self.f.push_void(entry, Op::StoreVar(v, y));
        }
        let wide = self.f.push(entry, Ty::I64, Op::Conv(ConvOp::ZExt, t));
        let v = self.vars[3];
        let x = self.f.push(entry, Ty::I64, Op::LoadVar(v));
        let y = self.bin(entry, Ty::I64, BinOp::Xor, x, wide);
        self.f.push_void(entry, Op::StoreVar(v, y));
        let v = self.vars[5];
        let x = self.f.push(entry, Ty::F32, Op::Conv(ConvOp::UToF, t));
        self.f.push_void(entry, Op::StoreVar(v, x));
    }

    /// This invocation's lane: its index's low five bits.
    fn lane(&mut self, b: BlockId) -> Option<ValueId> {
        let t = self.f.push(b, Ty::I32, Op::LoadVar(self.tid?));
        let m = self.f.push(b, Ty::I32, Op::Const(31));
        Some(self.bin(b, Ty::I32, BinOp::And, t, m))
    }

    /// A warp operation after block `b`, in a block of its own (its operands loaded from
    /// variables there, its result stored to a variable of its own, as lowering leaves it for
    /// the SIMT emulation); returns the block the code goes on in.
    pub(super) fn warp(&mut self, b: BlockId) -> BlockId {
        let (Some(pred), Some(src), Some(lane)) = (self.pred, self.src, self.lane(b)) else {
            return b;
        };
        // The source lane by a `shfl` mode's arithmetic (ISA 9.7.8.6), or from data.
        let k = self.f.push(b, Ty::I32, Op::Const(self.rng.pick(32) as u64));
        let s = match self.rng.pick(5) {
            0 => {
                let j = self.bin(b, Ty::I32, BinOp::IAdd, lane, k);
                let last = self.f.push(b, Ty::I32, Op::Const(31));
                let ok = self.bin(b, Ty::Bool, BinOp::ULe, j, last);
                self.f.push(b, Ty::I32, Op::Select(ok, j, lane))
            }
            1 => {
                let j = self.bin(b, Ty::I32, BinOp::ISub, lane, k);
                let ok = self.bin(b, Ty::Bool, BinOp::UGe, lane, k);
                self.f.push(b, Ty::I32, Op::Select(ok, j, lane))
            }
            2 => self.bin(b, Ty::I32, BinOp::Xor, lane, k),
            3 => k,
            _ => {
                let x = self.value_of(b, Ty::I32);
                let m = self.f.push(b, Ty::I32, Op::Const(31));
                self.bin(b, Ty::I32, BinOp::And, x, m)
            }
        };
        self.f.push_void(b, Op::StoreVar(src, s));
        let c = self.condition(b);
        self.f.push_void(b, Op::StoreVar(pred, c));
        let w = self.f.new_block();
        let next = self.f.new_block();
        self.f.block_mut(b).term = Terminator::Jump(w);
        self.f.block_mut(w).term = Terminator::Jump(next);
        self.have.clear();
        let var_of = |g: &mut Gen<'_>, t: Ty| {
            let of: Vec<VarId> = g
                .vars
                .iter()
                .copied()
                .filter(|v| g.f.vars[v.0 as usize].ty == t)
                .collect();
            of[g.rng.pick(of.len())]
        };
        let (ty, op, args) = match self.rng.pick(6) {
            0 | 1 => {
                let t = [Ty::I32, Ty::I64, Ty::F32, Ty::F64][self.rng.pick(4)];
                let v = var_of(self, t);
                let x = self.f.push(w, t, Op::LoadVar(v));
                let s = self.f.push(w, Ty::I32, Op::LoadVar(src));
                (t, WarpOp::ReadLane, vec![x, s])
            }
            2 => {
                let p = self.f.push(w, Ty::Bool, Op::LoadVar(pred));
                (Ty::I32, WarpOp::Ballot, vec![p])
            }
            3 => (Ty::I32, WarpOp::ActiveMask, Vec::new()),
            4 => {
                let t = [Ty::I32, Ty::I64][self.rng.pick(2)];
                let v = var_of(self, t);
                let x = self.f.push(w, t, Op::LoadVar(v));
                let p = self.f.push(w, Ty::Bool, Op::LoadVar(pred));
                (Ty::I32, WarpOp::MatchAny, vec![x, p])
            }
            _ => {
                use ReduceOp::*;
                let r = [Add, UMin, UMax, SMin, SMax, And, Or, Xor][self.rng.pick(8)];
                let v = var_of(self, Ty::I32);
                let x = self.f.push(w, Ty::I32, Op::LoadVar(v));
                (Ty::I32, WarpOp::Reduce(r), vec![x])
            }
        };
        // The result passes through a variable of its own: under the SIMT emulation every
        // invocation runs the block, the inactive ones too, and only the active ones read it.
        let r = self.f.push(w, ty, Op::Warp(op, args.as_slice().into()));
        let result = self.f.new_var(ty, "sync.result");
        self.f.push_void(w, Op::StoreVar(result, r));
        let x = self.f.push(next, ty, Op::LoadVar(result));
        let dst = var_of(self, ty);
        self.f.push_void(next, Op::StoreVar(dst, x));
        next
    }

    /// Before the exit's code: each invocation writes a shared word, all meet at a workgroup
    /// barrier, and each reads its neighbour's word into a variable. Returns the block the
    /// exit's code goes on in.
    pub(super) fn exchange(&mut self, exit: BlockId) -> BlockId {
        let Some(tid) = self.tid else {
            return exit;
        };
        let t = self.f.push(exit, Ty::I32, Op::LoadVar(tid));
        let x = self.f.push(exit, Ty::I32, Op::LoadVar(self.vars[0]));
        self.store(Ptr::Shared(t), x, exit);
        let bar = self.f.new_block();
        let after = self.f.new_block();
        self.f.block_mut(exit).term = Terminator::Jump(bar);
        self.f.push_void(bar, Op::Barrier);
        self.f.block_mut(bar).term = Terminator::Jump(after);
        let t = self.f.push(after, Ty::I32, Op::LoadVar(tid));
        let one = self.f.push(after, Ty::I32, Op::Const(1));
        let other = self.bin(after, Ty::I32, BinOp::Xor, t, one);
        let y = self.f.push(
            after,
            Ty::I32,
            Op::Load {
                ptr: Ptr::Shared(other),
                align: 4,
                order: MemOrder::Plain,
            },
        );
        self.f.push_void(after, Op::StoreVar(self.vars[1], y));
        after
    }
}
