//! Lane reads served by the device's subgroup where only lanes of one subgroup matter.
//!
//! Under the emulation every `ReadLane` is an exchange through shared memory between workgroup
//! barriers. Many read lanes close by (`shfl.down` by 4, 2, 1 of a reduction) while only some
//! lanes' results are ever looked at (lane 0's, under `if ((tid.x & 31) == 0)`). A backward
//! analysis finds, for each value, the lanes of the warp (a 32-bit mask) whose copy of it can
//! affect what the kernel does; a lane read whose needed lanes all read lanes of their own
//! aligned group of `group` lanes (one device subgroup) becomes a [`WarpOp::SubgroupRead`]: a
//! subgroup shuffle, no scratch and no barrier. The other lanes may get any value.
//!
//! - A store, atomic, call, texture access, memory address, warp operation or control decision
//!   (`if` condition, `switch` value) observes its operands in every lane that may run it. A
//!   lane that may run it is one the enclosing `if`s allow: conditions recognised as lane
//!   predicates (`(tid.x & 31) == 0`, `%laneid == 0`, `tid.x < 8`...) narrow the lanes of their
//!   arms. `%tid.x` is a lane's position only where `tid.x % 32` is the lane, which the caller
//!   promises (`DeviceProfile::lane_shaped_blocks`).
//! - Arithmetic passes its result's needed lanes to its operands, a variable load to the
//!   variable, a variable store from the variable to the stored value; variables are taken
//!   flow-insensitively (every load of one needs every store's value in those lanes), which
//!   covers loops and registers written more than once. The whole is a fixpoint.
//! - A lane read whose source lane is a function of the lane alone (constants and lane
//!   arithmetic: every `shfl` mode with constant operands) needs its value in the lanes it
//!   reads and in its own (a lane whose source is inactive keeps its value); any other needs
//!   it in every lane that may run it.
//! - Anything else observes its operands.
//!
//! A lane's activity at a read is decided by control flow, whose conditions are observed in
//! every lane that may evaluate them, so an inactive lane reads as inactive on both paths
//! (the subgroup read checks the invocation's activity with a ballot).
//!
//! The exchange's barrier also ordered memory, which CUDA does not promise of a shuffle but
//! warp-synchronous code may have relied on: a read is kept an exchange when, since the last
//! barrier that stays, a space (shared or global) was written and is accessed again after it,
//! or shared memory was read and is written after it. A global read before and a global write
//! after (a kernel loading its input, reducing and storing) do not keep it: another lane's
//! write ordered after this lane's read is a race CUDA leaves to the program.
//!
//! The analysis and its fixpoint are in `analysis.rs`, the values it knows per lane in
//! `values.rs`, the conditions it recognises as lane predicates in `guards.rs`, and the check
//! that keeps reads whose barrier orders memory in `ordering.rs`.

mod analysis;
mod bits;
mod guards;
mod ordering;
mod values;

pub use ordering::call_effects;

use crate::ir::{BinOp, Builtin, ConvOp, FpFlags, Function, Inst, Op, Ty, ValueId, WarpOp};
use crate::structurize::Node;
use analysis::Analysis;
use bits::ALL;
use ordering::ordering;

/// Rewrites the lane reads of `f` (a kernel under the emulation, structured as `tree`) that
/// only need lanes of their own aligned group of `group` lanes into subgroup reads. Returns
/// whether any was.
/// `calls`: what each function of the module may read and write ([`call_effects`]).
pub fn serve_in_subgroups(f: &mut Function, tree: &[Node], group: u32, calls: &[(u8, u8)]) -> bool {
    if !f.may_sync || !group.is_power_of_two() || !(2..32).contains(&group) {
        return false;
    }
    let chosen = candidates(f, tree, group);
    if chosen.is_empty() {
        return false;
    }
    let keep = ordering(f, tree, &chosen, calls);
    let chosen: Vec<(usize, usize)> = chosen
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !keep[*k])
        .map(|(_, c)| c)
        .collect();
    for &(bi, ii) in chosen.iter().rev() {
        rewrite(f, bi, ii, group);
    }
    !chosen.is_empty()
}

/// The lane reads (block, instruction) whose needed lanes all read their own group's, each
/// alone in its block as lowering leaves a `shfl`.
fn candidates(f: &Function, tree: &[Node], group: u32) -> Vec<(usize, usize)> {
    let mut a = Analysis::new(f);
    a.regions(tree, ALL);
    if !a.propagate() {
        return Vec::new();
    }
    let mut chosen = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        if !a.in_tree[bi] || b.insts.iter().filter(|i| i.op.is_sync()).count() != 1 {
            continue;
        }
        for (ii, inst) in b.insts.iter().enumerate() {
            if let (Op::Warp(WarpOp::ReadLane, args), Some(r)) = (inst.op, inst.result)
                && args.len() == 2
                && a.fits(r, args[0], args[1], group)
            {
                chosen.push((bi, ii));
            }
        }
    }
    chosen
}

/// `insts[ii]` of block `bi`, a `ReadLane`, as a read of its subgroup: the invocation holding
/// source lane `s` is this one's aligned group with `s`'s position in it (subgroups of any
/// size from `group` up hold whole groups, in linear order).
fn rewrite(f: &mut Function, bi: usize, ii: usize, group: u32) {
    let inst = f.blocks[bi].insts[ii];
    let (Op::Warp(_, args), Some(r)) = (inst.op, inst.result) else {
        return;
    };
    let (v, src) = (args[0], args[1]);
    let mut new = Vec::with_capacity(7);
    let mut push = |f: &mut Function, ty: Ty, op: Op| {
        let id = ValueId(f.values.len() as u32);
        f.values.push(ty);
        new.push(Inst {
            result: Some(id),
            op,
        });
        id
    };
    let src = if f.ty(src) == Ty::I32 {
        src
    } else {
        push(f, Ty::I32, Op::Conv(ConvOp::Trunc, src))
    };
    let lane = push(f, Ty::I32, Op::Builtin(Builtin::SubgroupLane));
    let high = push(f, Ty::I32, Op::Const(u64::from(!(group - 1))));
    let base = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::And, lane, high, FpFlags::default()),
    );
    let low = push(f, Ty::I32, Op::Const(u64::from(group - 1)));
    let within = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::And, src, low, FpFlags::default()),
    );
    let inv = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::Or, base, within, FpFlags::default()),
    );
    new.push(Inst {
        result: Some(r),
        op: Op::Warp(WarpOp::SubgroupRead, [v, inv].as_slice().into()),
    });
    f.blocks[bi].insts.splice(ii..=ii, new);
}
