//! Warp primitives as Vulkan subgroup operations (strategies `Native32` and `Partitioned`).
//! With the `Emulated` strategy they never get here: the `simt` pass expands them first, all
//! but the lane reads it proved stay within one subgroup (`WarpOp::SubgroupRead`).

use rspirv::spirv::{self, Capability, GroupOperation, MemorySemantics, Op as S, Word};

use super::func::FnEmitter;
use super::module::{EmitError, EmitResult};
use crate::ir::{ReduceOp, Ty, WarpOp};
use crate::profile::WarpStrategy;

impl FnEmitter<'_, '_> {
    fn subgroup(&mut self) -> Word {
        self.e.u32_const(spirv::Scope::Subgroup as u32)
    }

    /// The first lane of this warp within the subgroup (0 unless partitioned).
    fn partition_base(&mut self) -> EmitResult<Option<Word>> {
        if let WarpStrategy::Partitioned(_) = self.e.warp {
            let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane);
            let u32t = self.e.ty(Ty::I32);
            let mask = self.e.u32_const(!31);
            return Ok(Some(self.e.op(S::BitwiseAnd, u32t, [lane, mask])));
        }
        Ok(None)
    }

    /// The 32-bit slice of a subgroup ballot that holds this warp's lanes.
    fn warp_slice(&mut self, ballot: Word) -> EmitResult<Word> {
        let u32t = self.e.ty(Ty::I32);
        match self.e.warp {
            WarpStrategy::Partitioned(_) => {
                let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane);
                let five = self.e.u32_const(5);
                let idx = self.e.op(S::ShiftRightLogical, u32t, [lane, five]);
                Ok(self.e.op(S::VectorExtractDynamic, u32t, [ballot, idx]))
            }
            _ => Ok(self.e.extract(u32t, ballot, 0)),
        }
    }

    fn ballot_of(&mut self, pred: Word) -> EmitResult<Word> {
        self.e.cap(Capability::GroupNonUniformBallot);
        let u32t = self.e.ty(Ty::I32);
        let v4 = self.e.vector(u32t, 4);
        let sg = self.subgroup();
        let b = self.e.op(S::GroupNonUniformBallot, v4, [sg, pred]);
        self.warp_slice(b)
    }

    fn shuffle(&mut self, ty: Word, v: Word, lane: Word) -> EmitResult<Word> {
        self.e.cap(Capability::GroupNonUniformShuffle);
        let u32t = self.e.ty(Ty::I32);
        let src = match self.partition_base()? {
            Some(base) => self.e.op(S::IAdd, u32t, [base, lane]),
            None => lane,
        };
        let sg = self.subgroup();
        Ok(self.e.op(S::GroupNonUniformShuffle, ty, [sg, v, src]))
    }

    /// Emits a warp primitive; `None` for the ones without a result.
    pub(super) fn warp(
        &mut self,
        op: WarpOp,
        args: &[Word],
        arg_tys: &[Ty],
        rt: Word,
    ) -> EmitResult<Option<Word>> {
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
                let bit = self.e.op(S::ShiftRightLogical, u32t, [active, args[1]]);
                let bit = self.e.op(S::BitwiseAnd, u32t, [bit, one]);
                let on = self.e.op(S::INotEqual, bool_t, [bit, zero]);
                self.e.op(S::Select, rt, [on, got, args[0]])
            }
            WarpOp::SubgroupRead => {
                // `args[1]` names an invocation of this subgroup (subgroups narrower than a
                // warp: the lowest 32 invocations' ballot bits are the whole subgroup's).
                self.e.cap(Capability::GroupNonUniformShuffle);
                self.e.cap(Capability::GroupNonUniformBallot);
                let sg = self.subgroup();
                let got = self
                    .e
                    .op(S::GroupNonUniformShuffle, rt, [sg, args[0], args[1]]);
                let v4 = self.e.vector(u32t, 4);
                let ballot = self.e.op(S::GroupNonUniformBallot, v4, [sg, tru]);
                let active = self.e.extract(u32t, ballot, 0);
                let bit = self.e.op(S::ShiftRightLogical, u32t, [active, args[1]]);
                let bit = self.e.op(S::BitwiseAnd, u32t, [bit, one]);
                let on = self.e.op(S::INotEqual, bool_t, [bit, zero]);
                self.e.op(S::Select, rt, [on, got, args[0]])
            }
            WarpOp::Ballot => self.ballot_of(args[0])?,
            WarpOp::ActiveMask => self.ballot_of(tru)?,
            WarpOp::MatchAny => {
                // Compare with every lane in turn (Vulkan has no portable match operation).
                let active = self.ballot_of(tru)?;
                let inc_u = self.e.op(S::Select, u32t, [args[1], one, zero]);
                let vty = self.e.ty(arg_tys[0]);
                let mut acc = zero;
                for l in 0..32u32 {
                    let lc = self.e.u32_const(l);
                    let other = self.shuffle(vty, args[0], lc)?;
                    let other_inc = self.shuffle(u32t, inc_u, lc)?;
                    let same = self.e.op(S::IEqual, bool_t, [other, args[0]]);
                    let inc = self.e.op(S::INotEqual, bool_t, [other_inc, zero]);
                    let bit = self.e.op(S::ShiftRightLogical, u32t, [active, lc]);
                    let bit = self.e.op(S::BitwiseAnd, u32t, [bit, one]);
                    let act = self.e.op(S::INotEqual, bool_t, [bit, zero]);
                    let both = self.e.op(S::LogicalAnd, bool_t, [same, inc]);
                    let all = self.e.op(S::LogicalAnd, bool_t, [both, act]);
                    let m = self.e.u32_const(1 << l);
                    let add = self.e.op(S::Select, u32t, [all, m, zero]);
                    acc = self.e.op(S::BitwiseOr, u32t, [acc, add]);
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
                self.e.op_void(S::ControlBarrier, [sg, sg, sem]);
                return Ok(None);
            }
            WarpOp::WorkgroupAny | WarpOp::WorkgroupCount => {
                return Err(EmitError::Internal(Box::new(
                    "a workgroup vote reached the emitter (it belongs to the SIMT emulation)"
                        .into(),
                )));
            }
        }))
    }

    fn reduce(&mut self, r: ReduceOp, v: Word, rt: Word) -> EmitResult<Word> {
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
        let lane = self.e.builtin(crate::ir::Builtin::SubgroupLane);
        let five = self.e.u32_const(5);
        let mine = self.e.op(S::ShiftRightLogical, u32t, [lane, five]);
        let identity = self.e.u32_const(match r {
            ReduceOp::Add | ReduceOp::UMax | ReduceOp::Or | ReduceOp::Xor => 0,
            ReduceOp::UMin | ReduceOp::And => u32::MAX,
            ReduceOp::SMin => i32::MAX as u32,
            ReduceOp::SMax => i32::MIN as u32,
        });
        let mut result = identity;
        for p in 0..size / 32 {
            let pc = self.e.u32_const(p);
            let here = self.e.op(S::IEqual, bool_t, [mine, pc]);
            let contrib = self.e.op(S::Select, rt, [here, v, identity]);
            let red = self.group_reduce(r, GroupOperation::Reduce, None, contrib, rt)?;
            result = self.e.op(S::Select, rt, [here, red, result]);
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
    ) -> EmitResult<Word> {
        let sg = self.subgroup();
        let code = match r {
            ReduceOp::Add => S::GroupNonUniformIAdd,
            ReduceOp::UMin => S::GroupNonUniformUMin,
            ReduceOp::UMax => S::GroupNonUniformUMax,
            ReduceOp::SMin => S::GroupNonUniformSMin,
            ReduceOp::SMax => S::GroupNonUniformSMax,
            ReduceOp::And => S::GroupNonUniformBitwiseAnd,
            ReduceOp::Or => S::GroupNonUniformBitwiseOr,
            ReduceOp::Xor => S::GroupNonUniformBitwiseXor,
        };
        let op = group_op as Word;
        Ok(match extra {
            Some(c) => self.e.op(code, rt, [sg, op, v, c]),
            None => self.e.op(code, rt, [sg, op, v]),
        })
    }
}
