//! The meaning of barriers and fences.

use super::cx::Cx;
use crate::check::inst::{Bar, BarKind, BarRed, Scope as PtxScope};
use crate::ir::build::Build;
use crate::ir::build::flow::Flow;
use crate::ir::{AtomicOp, BinOp, Builtin, Op, Ordering, Ptr, Scope, Ty, UnOp, ValueId, WarpOp};
use crate::profile::WarpStrategy;
use crate::types::ScalarType;

/// `bar.sync`/`barrier.sync`: a workgroup control barrier that also makes shared and global memory
/// writes before it visible to the block's threads after it.
///
/// Named barriers, thread counts and `bar.arrive` let parts of a block synchronize among
/// themselves (producer/consumer warps). Under the SIMT emulation every synchronization point is
/// reached by the whole block in program order, so each of them is a whole-block barrier there:
/// stronger than asked, with the same outcome as long as an arm of an `if` that arrives runs
/// before the other arm, which may wait for it (`simt/sync.rs`). With native 32-wide subgroups they are counters
/// in shared memory (`counted`); when two warps share a subgroup, one of them waiting for the
/// other inside that subgroup would never end, so they are refused there.
pub fn bar(cx: &mut Cx<'_>, b: &Bar) {
    let strategy = cx.profile.warp_strategy();
    let partial = b.count.is_some() || b.kind == BarKind::Arrive;
    if partial && strategy != WarpStrategy::Emulated {
        if let WarpStrategy::Partitioned(n) = strategy {
            cx.missing_feature(&format!(
                "a subgroup of one warp for a barrier with a thread count or `bar.arrive` \
                 (subgroups are {n} wide, two warps in one subgroup cannot wait for each other)"
            ));
            return;
        }
        let (BarKind::Sync | BarKind::Arrive) = b.kind else {
            cx.unsupported("`bar.red` with a thread count on a device with native warps");
            return;
        };
        let id = cx.read(&b.id, ScalarType::U32);
        let count = match &b.count {
            Some(c) => cx.read(c, ScalarType::U32),
            None => block_threads(cx),
        };
        counted(cx, id, count, b.kind == BarKind::Sync);
        return;
    }
    match b.kind {
        BarKind::Sync => cx.barrier(),
        // Marked, so that the emulation runs it before the waits it releases.
        BarKind::Arrive => cx.barrier_op(Op::BarrierArrive),
        BarKind::Red(op) => {
            let Some((dst, pred)) = &b.red else { return };
            let p = cx.read(pred, ScalarType::Pred);
            // popc counts the predicate; and = nobody false; or = somebody true.
            let p = if op == BarRed::And {
                cx.b.un(UnOp::Not, p)
            } else {
                p
            };
            let count = if strategy == WarpStrategy::Emulated {
                let Some(c) = cx.sync_op(WarpOp::WorkgroupCount, &[p], Some(Ty::I32)) else {
                    return;
                };
                c
            } else {
                native_count(cx, p)
            };
            match op {
                BarRed::Popc => cx.write(dst, count),
                BarRed::And => {
                    let zero = cx.b.konst(Ty::I32, 0);
                    let r = cx.b.bin(BinOp::IEq, count, zero);
                    cx.write(dst, r);
                }
                BarRed::Or => {
                    let zero = cx.b.konst(Ty::I32, 0);
                    let r = cx.b.bin(BinOp::INe, count, zero);
                    cx.write(dst, r);
                }
            }
        }
    }
}

/// The number of threads in the block.
fn block_threads(cx: &mut Cx<'_>) -> ValueId {
    let x = cx.b.emit(Ty::I32, Op::Builtin(Builtin::BlockDim(0)));
    let y = cx.b.emit(Ty::I32, Op::Builtin(Builtin::BlockDim(1)));
    let z = cx.b.emit(Ty::I32, Op::Builtin(Builtin::BlockDim(2)));
    let xy = cx.b.bin(BinOp::IMul, x, y);
    cx.b.bin(BinOp::IMul, xy, z)
}

/// Barrier `id` awaiting `count` threads, as an arrival counter and a generation word in shared
/// memory (`Builtin::BarrierWords`): each thread notes the generation, counts itself in, and
/// the last to arrive resets the counter and advances the generation; `bar.sync` threads then
/// wait for the generation to change, `bar.arrive` threads go on. The fences give the barrier
/// its memory ordering (the counter's read-modify-writes chain the arrivals' releases to the
/// last arrival, whose release the waiters acquire through the generation word). Waiting relies
/// on subgroups of a workgroup making progress independently, which GPUs give in practice.
fn counted(cx: &mut Cx<'_>, id: ValueId, count: ValueId, wait: bool) {
    cx.uses_barrier_words = true;
    let base = cx.b.emit(Ty::I32, Op::Builtin(Builtin::BarrierWords));
    let fifteen = cx.b.konst(Ty::I32, 15);
    let id = cx.b.bin(BinOp::And, id, fifteen);
    let two = cx.b.konst(Ty::I32, 2);
    let off = cx.b.bin(BinOp::IMul, id, two);
    let counter = cx.b.bin(BinOp::IAdd, base, off);
    let one = cx.b.konst(Ty::I32, 1);
    let generation = cx.b.bin(BinOp::IAdd, counter, one);
    let relaxed = |ptr| (Ptr::Shared(ptr), Scope::Workgroup, Ordering::Relaxed);
    cx.b.emit_void(Op::Fence(Scope::Workgroup));
    let (ptr, scope, sem) = relaxed(generation);
    let seen = cx.b.emit(Ty::I32, Op::AtomicLoad { ptr, scope, sem });
    let (ptr, scope, sem) = relaxed(counter);
    let value = one;
    let before = cx.b.emit(
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Add,
            ptr,
            value,
            scope,
            sem,
        },
    );
    let arrived = cx.b.bin(BinOp::IAdd, before, one);
    let last = cx.b.bin(BinOp::IEq, arrived, count);
    cx.if_then(last, |cx| {
        cx.b.emit_void(Op::Fence(Scope::Workgroup));
        let zero = cx.b.konst(Ty::I32, 0);
        let (ptr, scope, sem) = relaxed(counter);
        cx.b.emit_void(Op::AtomicStore {
            ptr,
            value: zero,
            scope,
            sem,
        });
        let (ptr, scope, sem) = relaxed(generation);
        cx.b.emit(
            Ty::I32,
            Op::Atomic {
                op: AtomicOp::Add,
                ptr,
                value: one,
                scope,
                sem,
            },
        );
    });
    if !wait {
        return;
    }
    let spin = cx.b.jump_to_new_block();
    let done = cx.b.f.new_block();
    let (ptr, scope, sem) = relaxed(generation);
    let now = cx.b.emit(Ty::I32, Op::AtomicLoad { ptr, scope, sem });
    let moved = cx.b.bin(BinOp::INe, now, seen);
    cx.b.branch(moved, done, spin);
    cx.b.cur = done;
    cx.b.emit_void(Op::Fence(Scope::Workgroup));
}

/// How many threads of the block hold `p`, with native warps (every thread reaches this, as
/// `bar.red` requires). The count goes through the shared arena's lock word: at a barrier nobody
/// holds the lock, so the word is 0; each thread adds its 1 or 0, reads the total after a
/// second barrier and takes its own part out after a third. Until the last part is out the
/// word is non-zero, so a thread that hurries on to a 64-bit shared atomic waits for the lock
/// as it would for another holder.
fn native_count(cx: &mut Cx<'_>, p: crate::ir::ValueId) -> crate::ir::ValueId {
    cx.uses_shared_lock = true;
    let one = cx.b.konst(Ty::I32, 1);
    let zero = cx.b.konst(Ty::I32, 0);
    let mine = cx.b.select(p, one, zero);
    cx.barrier();
    let word = |cx: &mut Cx<'_>, op: AtomicOp, value| {
        let lock = cx.b.emit(Ty::I32, Op::Builtin(Builtin::SharedLock));
        cx.b.emit(
            Ty::I32,
            Op::Atomic {
                op,
                ptr: Ptr::Shared(lock),
                value,
                scope: Scope::Workgroup,
                sem: Ordering::Relaxed,
            },
        )
    };
    word(cx, AtomicOp::Add, mine);
    cx.barrier();
    let zero = cx.b.konst(Ty::I32, 0);
    let count = word(cx, AtomicOp::Or, zero);
    cx.barrier();
    let back = cx.b.un(UnOp::INeg, mine);
    word(cx, AtomicOp::Add, back);
    count
}

/// `membar`/`fence`: `.cta` orders within the workgroup, wider scopes device-wide.
pub fn membar(cx: &mut Cx<'_>, scope: PtxScope) {
    let s = match scope {
        PtxScope::Cta => Scope::Workgroup,
        PtxScope::Cluster | PtxScope::Gpu | PtxScope::Sys => Scope::Device,
    };
    cx.b.emit_void(Op::Fence(s));
}
