//! Warp primitives as Vulkan subgroup operations (strategies `Native32` and `Partitioned`).
//! With the `Emulated` strategy they never get here: the `simt` pass expands them first.

use rspirv::spirv::{self, Capability, GroupOperation, MemorySemantics, Word};

use super::func::FnEmitter;
use super::{EmitError, R};
use crate::ir::{ReduceOp, Ty, WarpOp};
use crate::profile::WarpStrategy;

impl FnEmitter<'_, '_> {
    fn subgroup(&mut self) -> Word {
        self.e.u32_const(spirv::Scope::Subgroup as u32)
    }

    /// The first lane of this warp within the subgroup (0 unless partitioned).
    fn partition_base(&mut self) -> R<Option<Word>> {
        if let WarpStrategy::Partitioned(_) = self.e.warp {
            let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane)?;
            let u32t = self.e.ty(Ty::I32);
            let mask = self.e.u32_const(!31);
            return Ok(Some(self.e.b.bitwise_and(u32t, None, lane, mask)?));
        }
        Ok(None)
    }

    /// The 32-bit slice of a subgroup ballot that holds this warp's lanes.
    fn warp_slice(&mut self, ballot: Word) -> R<Word> {
        let u32t = self.e.ty(Ty::I32);
        match self.e.warp {
            WarpStrategy::Partitioned(_) => {
                let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane)?;
                let five = self.e.u32_const(5);
                let idx = self.e.b.shift_right_logical(u32t, None, lane, five)?;
                Ok(self.e.b.vector_extract_dynamic(u32t, None, ballot, idx)?)
            }
            _ => self.e.extract(u32t, ballot, 0),
        }
    }

    fn ballot_of(&mut self, pred: Word) -> R<Word> {
        self.e.cap(Capability::GroupNonUniformBallot);
        let u32t = self.e.ty(Ty::I32);
        let v4 = self.e.b.type_vector(u32t, 4);
        let sg = self.subgroup();
        let b = self.e.b.group_non_uniform_ballot(v4, None, sg, pred)?;
        self.warp_slice(b)
    }

    fn shuffle(&mut self, ty: Word, v: Word, lane: Word) -> R<Word> {
        self.e.cap(Capability::GroupNonUniformShuffle);
        let u32t = self.e.ty(Ty::I32);
        let src = match self.partition_base()? {
            Some(base) => self.e.b.i_add(u32t, None, base, lane)?,
            None => lane,
        };
        let sg = self.subgroup();
        Ok(self.e.b.group_non_uniform_shuffle(ty, None, sg, v, src)?)
    }

    /// Emits a warp primitive; `None` for the ones without a result.
    pub(super) fn warp(
        &mut self,
        op: WarpOp,
        args: &[Word],
        arg_tys: &[Ty],
        rt: Word,
    ) -> R<Option<Word>> {
        self.e.cap(Capability::GroupNonUniform);
        let u32t = self.e.ty(Ty::I32);
        let bool_t = self.e.ty(Ty::Bool);
        let tru = self.e.konst(Ty::Bool, 1);
        let zero = self.e.u32_const(0);
        let one = self.e.u32_const(1);
        Ok(Some(match op {
            WarpOp::ReadLane => {
                let got = self.shuffle(rt, args[0], args[1])?;
                // An inactive source lane gives the caller's own value.
                let active = self.ballot_of(tru)?;
                let bit = self.e.b.shift_right_logical(u32t, None, active, args[1])?;
                let bit = self.e.b.bitwise_and(u32t, None, bit, one)?;
                let on = self.e.b.i_not_equal(bool_t, None, bit, zero)?;
                self.e.b.select(rt, None, on, got, args[0])?
            }
            WarpOp::Ballot => self.ballot_of(args[0])?,
            WarpOp::ActiveMask => self.ballot_of(tru)?,
            WarpOp::MatchAny => {
                // Compare with every lane in turn (Vulkan has no portable match operation).
                let active = self.ballot_of(tru)?;
                let inc_u = self.e.b.select(u32t, None, args[1], one, zero)?;
                let vty = self.e.ty(arg_tys[0]);
                let mut acc = zero;
                for l in 0..32u32 {
                    let lc = self.e.u32_const(l);
                    let other = self.shuffle(vty, args[0], lc)?;
                    let other_inc = self.shuffle(u32t, inc_u, lc)?;
                    let same = self.e.b.i_equal(bool_t, None, other, args[0])?;
                    let inc = self.e.b.i_not_equal(bool_t, None, other_inc, zero)?;
                    let bit = self.e.b.shift_right_logical(u32t, None, active, lc)?;
                    let bit = self.e.b.bitwise_and(u32t, None, bit, one)?;
                    let act = self.e.b.i_not_equal(bool_t, None, bit, zero)?;
                    let both = self.e.b.logical_and(bool_t, None, same, inc)?;
                    let all = self.e.b.logical_and(bool_t, None, both, act)?;
                    let m = self.e.u32_const(1 << l);
                    let add = self.e.b.select(u32t, None, all, m, zero)?;
                    acc = self.e.b.bitwise_or(u32t, None, acc, add)?;
                }
                acc
            }
            WarpOp::Reduce(r) => self.reduce(r, args[0], rt)?,
            WarpOp::Sync => {
                let sg = self.subgroup();
                let sem = MemorySemantics::ACQUIRE_RELEASE
                    | MemorySemantics::WORKGROUP_MEMORY
                    | MemorySemantics::UNIFORM_MEMORY
                    | MemorySemantics::MAKE_AVAILABLE
                    | MemorySemantics::MAKE_VISIBLE;
                let sem = self.e.u32_const(sem.bits());
                self.e.b.control_barrier(sg, sg, sem)?;
                return Ok(None);
            }
            WarpOp::WorkgroupAny | WarpOp::WorkgroupCount => {
                return Err(EmitError::Internal(
                    "a workgroup vote reached the emitter (it belongs to the SIMT emulation)"
                        .into(),
                ));
            }
        }))
    }

    fn reduce(&mut self, r: ReduceOp, v: Word, rt: Word) -> R<Word> {
        self.e.cap(Capability::GroupNonUniformArithmetic);
        let WarpStrategy::Partitioned(size) = self.e.warp else {
            return self.group_reduce(r, GroupOperation::Reduce, None, v, rt);
        };
        if self.e.subgroup_clustered {
            self.e.cap(Capability::GroupNonUniformClustered);
            let c = self.e.u32_const(32);
            return self.group_reduce(r, GroupOperation::ClusteredReduce, Some(c), v, rt);
        }
        // One reduction per partition, each lane contributing the identity to the others'.
        let u32t = self.e.ty(Ty::I32);
        let bool_t = self.e.ty(Ty::Bool);
        let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane)?;
        let five = self.e.u32_const(5);
        let mine = self.e.b.shift_right_logical(u32t, None, lane, five)?;
        let identity = self.e.u32_const(match r {
            ReduceOp::Add | ReduceOp::UMax | ReduceOp::Or | ReduceOp::Xor => 0,
            ReduceOp::UMin | ReduceOp::And => u32::MAX,
            ReduceOp::SMin => i32::MAX as u32,
            ReduceOp::SMax => i32::MIN as u32,
        });
        let mut result = identity;
        for p in 0..size / 32 {
            let pc = self.e.u32_const(p);
            let here = self.e.b.i_equal(bool_t, None, mine, pc)?;
            let contrib = self.e.b.select(rt, None, here, v, identity)?;
            let red = self.group_reduce(r, GroupOperation::Reduce, None, contrib, rt)?;
            result = self.e.b.select(rt, None, here, red, result)?;
        }
        Ok(result)
    }

    fn group_reduce(
        &mut self,
        r: ReduceOp,
        group_op: GroupOperation,
        extra: Option<Word>,
        v: Word,
        rt: Word,
    ) -> R<Word> {
        let sg = self.subgroup();
        let b = &mut self.e.b;
        Ok(match r {
            ReduceOp::Add => b.group_non_uniform_i_add(rt, None, sg, group_op, v, extra)?,
            ReduceOp::UMin => b.group_non_uniform_u_min(rt, None, sg, group_op, v, extra)?,
            ReduceOp::UMax => b.group_non_uniform_u_max(rt, None, sg, group_op, v, extra)?,
            ReduceOp::SMin => b.group_non_uniform_s_min(rt, None, sg, group_op, v, extra)?,
            ReduceOp::SMax => b.group_non_uniform_s_max(rt, None, sg, group_op, v, extra)?,
            ReduceOp::And => b.group_non_uniform_bitwise_and(rt, None, sg, group_op, v, extra)?,
            ReduceOp::Or => b.group_non_uniform_bitwise_or(rt, None, sg, group_op, v, extra)?,
            ReduceOp::Xor => b.group_non_uniform_bitwise_xor(rt, None, sg, group_op, v, extra)?,
        })
    }
}
