//! The expansion of one warp operation, and of a block of independent lane reads.

use super::emit::Emit;
use super::vars::{BatchVars, Frame, FrameVars};
use super::words::{chunks, one_word, words_of};
use crate::ir::build::Build;
use crate::ir::{
    AtomicOp, BinOp, ExtOp, FpFlags, Inst, Op, Ordering, Ptr, ReduceOp, Scope, Ty, ValueId, VarId,
    WarpOp,
};

/// Uses of `old` in `inst` become `new` (only the stores that follow a warp operation in its
/// block use its result).
pub(super) fn rename(inst: &mut Inst, old: ValueId, new: ValueId) {
    if let Op::StoreVar(_, v) = &mut inst.op
        && *v == old
    {
        *v = new;
    }
}

impl Emit<'_> {
    /// A block that [`lane_batch`](super::words::lane_batch) accepted: its reads in exchanges
    /// of at most [`BATCH_WORDS`](super::words::BATCH_WORDS) words, each taking the next batch
    /// set. Every read writes this thread's value to its own area where it stands (the loads
    /// before it stay in order), then one barrier, then every read and the stores of their
    /// results.
    pub(super) fn batches(&mut self, insts: Vec<Inst>, st: VarId, vars: &FrameVars) {
        let Some(bv) = vars.batch else {
            self.out.extend(insts);
            return;
        };
        let fr = self.frame(st, vars);
        let words: Vec<u32> = insts
            .iter()
            .filter_map(|i| match &i.op {
                Op::Warp(WarpOp::ReadLane, args) => Some(words_of(self.f.ty(args[0]))),
                _ => None,
            })
            .collect();
        let mut sizes = chunks(&words).into_iter().map(|c| c.0);
        // Per pending read: (own value, source lane, its first area, the old result).
        let mut pending: Vec<(ValueId, ValueId, ValueId, ValueId)> = Vec::new();
        let mut stores: Vec<Inst> = Vec::new();
        let mut renamed: Vec<(ValueId, ValueId)> = Vec::new();
        let mut left = 0usize;
        let mut set = None;
        let mut used = 0u32;
        for inst in insts {
            match (&inst.op, inst.result) {
                (Op::Warp(WarpOp::ReadLane, args), Some(old)) => {
                    let (v, src) = (args[0], args[1]);
                    if left == 0 {
                        left = sizes.next().unwrap_or(1);
                        set = Some(self.batch_set(&fr, bv));
                        used = 0;
                    }
                    let flag = set.unwrap_or(fr.flag);
                    let (bits, hi) = self.split(v);
                    let area = self.area(&fr, flag, 1 + used);
                    let at = self.bin(BinOp::IAdd, area, fr.t);
                    self.store(at, bits);
                    if let Some(hi) = hi {
                        let area = self.area(&fr, flag, 2 + used);
                        let at = self.bin(BinOp::IAdd, area, fr.t);
                        self.store(at, hi);
                    }
                    used += words_of(self.f.ty(v));
                    pending.push((v, src, area, old));
                    left -= 1;
                    if left == 0 {
                        self.barrier();
                        for (v, src, area, old) in pending.drain(..) {
                            let (on, slot) = self.lane(&fr, flag, src);
                            let ty = self.f.ty(v);
                            let hi = self.bin(BinOp::IAdd, area, fr.threads);
                            let x = self.read_words(area, hi, slot, ty);
                            let new = self.select(on, x, v);
                            renamed.push((old, new));
                        }
                        self.flush_stores(&mut stores, &renamed);
                    }
                }
                (Op::StoreVar(..), _) => stores.push(inst),
                _ => self.out.push(inst),
            }
        }
        self.flush_stores(&mut stores, &renamed);
    }

    /// Emits the held stores of read results, each naming the value its read made.
    fn flush_stores(&mut self, stores: &mut Vec<Inst>, renamed: &[(ValueId, ValueId)]) {
        for mut s in stores.drain(..) {
            for (old, new) in renamed {
                rename(&mut s, *old, *new);
            }
            self.out.push(s);
        }
    }

    /// The flag area of the batch set this batch takes (the sets in turn; every thread runs the
    /// same batches in the same order, so all agree), this thread's flag written to it.
    fn batch_set(&mut self, fr: &Frame, bv: BatchVars) -> ValueId {
        let w = self.emit(Ty::I32, Op::LoadVar(bv.which));
        let one = self.konst(Ty::I32, 1);
        let next = self.bin(BinOp::Xor, w, one);
        self.emit_void(Op::StoreVar(bv.which, next));
        let base = self.emit(Ty::I32, Op::LoadVar(bv.base));
        let per = self.konst(Ty::I32, u64::from(bv.set_words));
        let stride = self.bin(BinOp::IMul, fr.threads, per);
        let off = self.bin(BinOp::IMul, stride, w);
        let flag = self.bin(BinOp::IAdd, base, off);
        let zero = self.konst(Ty::I32, 0);
        let on = self.select(fr.active, one, zero);
        let at = self.bin(BinOp::IAdd, flag, fr.t);
        self.store(at, on);
        flag
    }

    /// The `n`th area of `threads` words after `first`.
    fn area(&mut self, fr: &Frame, first: ValueId, n: u32) -> ValueId {
        let n = self.konst(Ty::I32, u64::from(n));
        let off = self.bin(BinOp::IMul, fr.threads, n);
        self.bin(BinOp::IAdd, first, off)
    }

    /// An operation that exchanges values (`WarpOp::Sync`, a barrier, is expanded by the
    /// caller).
    pub(super) fn warp(
        &mut self,
        op: WarpOp,
        args: &[ValueId],
        st: VarId,
        vars: &FrameVars,
    ) -> Option<ValueId> {
        let fr = self.frame(st, vars);
        let ty = args.first().map(|&v| self.f.ty(v));
        if let (WarpOp::ReadLane, Some(alt), Some(ty)) = (op, fr.alt, ty)
            && one_word(ty)
        {
            let v = args[0];
            let (lo, flag) = self.alternate(&fr, alt);
            let one = self.konst(Ty::I32, 1);
            let zero = self.konst(Ty::I32, 0);
            let on = self.select(fr.active, one, zero);
            let at = self.bin(BinOp::IAdd, flag, fr.t);
            self.store(at, on);
            let (bits, _) = self.split(v);
            let at = self.bin(BinOp::IAdd, lo, fr.t);
            self.store(at, bits);
            self.barrier();
            let (on, slot) = self.lane(&fr, flag, args[1]);
            let x = self.read_value(&fr, lo, slot, ty);
            return Some(self.select(on, x, v));
        }
        if let Some(alt) = fr.alt {
            // This operation's areas were read last by no `ReadLane` that runs without its
            // first barrier: the next one takes the second pair.
            let zero = self.konst(Ty::I32, 0);
            self.emit_void(Op::StoreVar(alt.which, zero));
        }
        Some(match op {
            WarpOp::ReadLane => {
                let v = args[0];
                self.publish(&fr, fr.active, Some(v));
                let (on, slot) = self.lane(&fr, fr.flag, args[1]);
                let ty = self.f.ty(v);
                let x = self.read_value(&fr, fr.lo, slot, ty);
                self.select(on, x, v)
            }
            WarpOp::Ballot | WarpOp::ActiveMask => {
                let on = if op == WarpOp::Ballot {
                    self.bin(BinOp::And, fr.active, args[0])
                } else {
                    fr.active
                };
                let bit = self.lane_bit(&fr, on);
                self.combine(&fr, AtomicOp::Or, 0, bit, None)
            }
            WarpOp::MatchAny => {
                // The participating lanes by a ballot, the values published with it; then each
                // of the 32 slots compared. A lane past the block's end reads the last slot
                // (in bounds; the ballot has no bit for it).
                let (v, include) = (args[0], args[1]);
                let on = self.bin(BinOp::And, fr.active, include);
                let bit = self.lane_bit(&fr, on);
                let (lo, hi) = self.split(v);
                let (zero, one) = (self.konst(Ty::I32, 0), self.konst(Ty::I32, 1));
                let members = self.combine(&fr, AtomicOp::Or, 0, bit, Some((lo, hi)));
                let base = self.bin(BinOp::IAdd, fr.lo, fr.warp);
                let end = self.bin(BinOp::IAdd, fr.lo, fr.threads);
                let last = self.bin(BinOp::ISub, end, one);
                let mut acc = zero;
                for l in 0..32u64 {
                    let lc = self.konst(Ty::I32, l);
                    let idx = self.bin(BinOp::IAdd, base, lc);
                    let at = self.ext(ExtOp::UMin, &[idx, last], FpFlags::default());
                    let x = self.load(at);
                    let mut same = self.bin(BinOp::IEq, x, lo);
                    if let Some(hi) = hi {
                        // The high-word area follows the value area (`frame_vars`).
                        let at = self.bin(BinOp::IAdd, at, fr.threads);
                        let x = self.load(at);
                        let same_hi = self.bin(BinOp::IEq, x, hi);
                        same = self.bin(BinOp::And, same, same_hi);
                    }
                    let lane_bit = self.konst(Ty::I32, 1 << l);
                    let add = self.select(same, lane_bit, zero);
                    acc = self.bin(BinOp::Or, acc, add);
                }
                self.bin(BinOp::And, acc, members)
            }
            WarpOp::Reduce(r) => {
                let atomic = match r {
                    ReduceOp::Add => AtomicOp::Add,
                    ReduceOp::Or => AtomicOp::Or,
                    ReduceOp::Xor => AtomicOp::Xor,
                    ReduceOp::UMax => AtomicOp::UMax,
                    ReduceOp::UMin => AtomicOp::UMin,
                    ReduceOp::And => AtomicOp::And,
                    ReduceOp::SMin => AtomicOp::SMin,
                    ReduceOp::SMax => AtomicOp::SMax,
                };
                let identity = r.identity();
                let id = self.konst(Ty::I32, identity);
                let x = self.select(fr.active, args[0], id);
                self.combine(&fr, atomic, identity, x, None)
            }
            WarpOp::WorkgroupCount => {
                // Thread 0 clears the vote word, active threads with the predicate add one.
                self.barrier();
                let zero = self.konst(Ty::I32, 0);
                let is0 = self.bin(BinOp::IEq, fr.t, zero);
                let ones = self.konst(Ty::I32, 0xFFFF_FFFF);
                let keep = self.select(is0, zero, ones);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::And,
                        ptr: Ptr::Shared(fr.vote),
                        value: keep,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let on = self.bin(BinOp::And, fr.active, args[0]);
                let one = self.konst(Ty::I32, 1);
                let add = self.select(on, one, zero);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::Add,
                        ptr: Ptr::Shared(fr.vote),
                        value: add,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                self.load(fr.vote)
            }
            WarpOp::WorkgroupAny => {
                // Thread 0 clears the vote word, everyone ORs in, everyone reads.
                self.barrier();
                let zero = self.konst(Ty::I32, 0);
                let is0 = self.bin(BinOp::IEq, fr.t, zero);
                let ones = self.konst(Ty::I32, 0xFFFF_FFFF);
                let keep = self.select(is0, zero, ones);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::And,
                        ptr: Ptr::Shared(fr.vote),
                        value: keep,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let one = self.konst(Ty::I32, 1);
                let bit = self.select(args[0], one, zero);
                self.emit(
                    Ty::I32,
                    Op::Atomic {
                        op: AtomicOp::Or,
                        ptr: Ptr::Shared(fr.vote),
                        value: bit,
                        scope: Scope::Workgroup,
                        sem: Ordering::Relaxed,
                    },
                );
                self.barrier();
                let v = self.load(fr.vote);
                self.bin(BinOp::INe, v, zero)
            }
            // A subgroup read is no synchronization point: `expand` leaves it in place.
            WarpOp::Sync | WarpOp::SubgroupRead => return None,
        })
    }
}
