//! The invocations of a workgroup scheduled together, and what they compute where they meet.
//!
//! Each invocation runs, in order of its index, until it ends or stops at a synchronization
//! operation. When none can run, the invocations that stopped meet:
//!
//! - In each warp (32 consecutive invocations) and each device subgroup, the invocations that
//!   stopped earliest in the program's order ([`super::thread::Thread::key`]) form a group; if
//!   they stopped at a warp operation (a subgroup read), it runs for them: they are its active
//!   lanes, and a lane that is elsewhere, ended, or past the block's end is inactive. Taking the
//!   earliest first makes lanes that diverged wait for each other where the program's order
//!   joins them again, as the SIMT emulation does.
//! - When no warp can go on, every invocation that has not ended must wait at the same
//!   workgroup operation (`Op::Barrier`, `WarpOp::WorkgroupAny`/`WorkgroupCount`), which then
//!   runs; invocations at different ones, or waiting on each other, stop the run with
//!   [`Stop::Undefined`] (a divergent barrier).
//!
//! A warp operation's meaning is the IR's (`ir::WarpOp`): a lane read from an inactive or
//! missing lane gives the reader's own value. The ISA leaves a `shfl` from an inactive lane
//! undefined; the translator's every warp strategy implements the IR's choice, which is what
//! a pass must keep.

use super::machine::Machine;
use super::ops::{Stop, mask, signed};
use super::thread::{Scope, Sync, Thread};
use crate::ir::{ReduceOp, Ty, WarpOp};

impl<'a> Machine<'a> {
    /// Runs `threads` until every one has ended.
    pub(super) fn schedule(&mut self, threads: &mut [Thread<'a>]) -> Result<(), Stop> {
        let subgroup = self.group.map_or(32, |g| g.subgroup.max(1)) as usize;
        loop {
            for t in threads.iter_mut() {
                self.run(t)?;
            }
            if threads.iter().all(|t| t.own.end.is_some()) {
                return Ok(());
            }
            let warps = self.meet(threads, 32, Scope::Warp)?;
            let subgroups = self.meet(threads, subgroup, Scope::Subgroup)?;
            if !warps && !subgroups {
                self.meet_workgroup(threads)?;
            }
        }
    }

    /// In each unit of `size` invocations, runs the operation of scope `scope` the earliest
    /// waiting ones stopped at, if they did. Returns whether any ran.
    fn meet(
        &mut self,
        threads: &mut [Thread<'a>],
        size: usize,
        scope: Scope,
    ) -> Result<bool, Stop> {
        let mut ran = false;
        let n = threads.len();
        for base in (0..n).step_by(size) {
            let unit = &mut threads[base..(base + size).min(n)];
            let Some(first) = unit
                .iter()
                .filter_map(|t| t.own.wait.as_ref())
                .min_by(|a, b| a.key.cmp(&b.key))
            else {
                continue;
            };
            if first.op.scope() != scope {
                continue;
            }
            let key = first.key.clone();
            let members: Vec<usize> = (0..unit.len())
                .filter(|&k| unit[k].own.wait.as_ref().is_some_and(|w| w.key == key))
                .collect();
            self.meet_at(unit, &members)?;
            ran = true;
        }
        Ok(ran)
    }

    /// Runs the workgroup operation every remaining invocation waits at.
    fn meet_workgroup(&mut self, threads: &mut [Thread<'a>]) -> Result<(), Stop> {
        let waits: Vec<_> = threads
            .iter()
            .filter(|t| t.own.end.is_none())
            .map(|t| t.own.wait.as_ref())
            .collect();
        let Some(Some(first)) = waits.first() else {
            return Err(Stop::Undefined("the invocations wait on each other".into()));
        };
        if waits
            .iter()
            .any(|w| w.is_none_or(|w| w.op.scope() != Scope::Workgroup))
        {
            return Err(Stop::Undefined("the invocations wait on each other".into()));
        }
        // Different barriers meet only where some invocations arrive (`bar.arrive`) and the
        // others wait for them: a producer warp and its consumers.
        let handoff = waits.iter().flatten().any(|w| w.op == Sync::Arrive)
            && waits
                .iter()
                .flatten()
                .all(|w| matches!(w.op, Sync::Barrier | Sync::Arrive));
        if !handoff && waits.iter().any(|w| w.is_some_and(|w| w.key != first.key)) {
            return Err(Stop::Undefined(
                "the invocations wait at different barriers".into(),
            ));
        }
        let members: Vec<usize> = (0..threads.len())
            .filter(|&k| threads[k].own.end.is_none())
            .collect();
        self.meet_at(threads, &members)
    }

    /// Runs the operation `unit[members]` wait at, the members its active invocations, and
    /// resumes them.
    fn meet_at(&mut self, unit: &mut [Thread<'a>], members: &[usize]) -> Result<(), Stop> {
        let Some(op) = members
            .first()
            .and_then(|&k| unit[k].own.wait.as_ref())
            .map(|w| w.op)
        else {
            return Ok(());
        };
        // Per member: its index in the workgroup and its operands.
        let lanes: Vec<Lane> = members
            .iter()
            .map(|&k| {
                let w = unit[k].own.wait.as_ref();
                (
                    unit[k].own.id,
                    w.map(|w| w.args.clone()).unwrap_or_default(),
                )
            })
            .collect();
        let subgroup = self.group.map_or(32, |g| g.subgroup.max(1));
        let results = match op {
            Sync::Barrier | Sync::Arrive | Sync::Warp(WarpOp::Sync) => vec![None; lanes.len()],
            Sync::Warp(w) => (0..lanes.len())
                .map(|k| warp_result(w, &lanes, k, subgroup).map(Some))
                .collect::<Result<_, _>>()?,
        };
        for (&k, r) in members.iter().zip(results) {
            self.resume(&mut unit[k], r)?;
        }
        Ok(())
    }
}

/// An active lane of a warp operation: its index in the workgroup, its operands.
type Lane = (u32, Vec<u64>);

/// The operand `n` of a lane's operands.
fn arg(lane: &Lane, n: usize, op: WarpOp) -> Result<u64, Stop> {
    lane.1
        .get(n)
        .copied()
        .ok_or_else(|| Stop::Undefined(format!("{op:?} without operand {n}")))
}

/// What `op` gives lane `k` of `lanes` (the active lanes: workgroup index, operands).
fn warp_result(op: WarpOp, lanes: &[Lane], k: usize, subgroup: u32) -> Result<u64, Stop> {
    let me = &lanes[k];
    let bit = |l: &Lane| 1u64 << (l.0 % 32);
    let bits = |keep: &dyn Fn(&Lane) -> Result<bool, Stop>| -> Result<u64, Stop> {
        let mut m = 0;
        for l in lanes {
            if keep(l)? {
                m |= bit(l);
            }
        }
        Ok(m)
    };
    Ok(match op {
        WarpOp::ReadLane | WarpOp::SubgroupRead => {
            let width = if op == WarpOp::ReadLane { 32 } else { subgroup };
            let (own, src) = (arg(me, 0, op)?, arg(me, 1, op)? & 0xFFFF_FFFF);
            let base = u64::from(me.0 - me.0 % width);
            if src >= u64::from(width) {
                own
            } else {
                match lanes.iter().find(|l| u64::from(l.0) == base + src) {
                    Some(l) => arg(l, 0, op)?,
                    None => own,
                }
            }
        }
        WarpOp::Ballot => bits(&|l| Ok(arg(l, 0, op)? != 0))?,
        WarpOp::ActiveMask => bits(&|_| Ok(true))?,
        WarpOp::MatchAny => {
            let mine = arg(me, 0, op)?;
            bits(&|l| Ok(arg(l, 1, op)? != 0 && arg(l, 0, op)? == mine))?
        }
        WarpOp::Reduce(r) => {
            let mut acc = r.identity();
            for l in lanes {
                acc = reduce(r, acc, arg(l, 0, op)?);
            }
            acc
        }
        WarpOp::WorkgroupAny => {
            let mut any = false;
            for l in lanes {
                any |= arg(l, 0, op)? != 0;
            }
            u64::from(any)
        }
        WarpOp::WorkgroupCount => {
            let mut n = 0;
            for l in lanes {
                n += u64::from(arg(l, 0, op)? != 0);
            }
            n
        }
        WarpOp::Sync => 0,
    })
}

/// `acc op x` on 32-bit operands.
fn reduce(r: ReduceOp, acc: u64, x: u64) -> u64 {
    let (a, b) = (mask(acc, Ty::I32), mask(x, Ty::I32));
    let s = |v| signed(v, Ty::I32);
    mask(
        match r {
            ReduceOp::Add => a.wrapping_add(b),
            ReduceOp::UMin => a.min(b),
            ReduceOp::UMax => a.max(b),
            ReduceOp::SMin => s(a).min(s(b)) as u64,
            ReduceOp::SMax => s(a).max(s(b)) as u64,
            ReduceOp::And => a & b,
            ReduceOp::Or => a | b,
            ReduceOp::Xor => a ^ b,
        },
        Ty::I32,
    )
}
