//! The meaning of `mbarrier` (ISA 9.7.13.15): the object's four parts, as the ISA names them,
//! packed into its 64 bits, changed under the workgroup's lock word.
//!
//! | bits  | part                                    |
//! |-------|-----------------------------------------|
//! | 0-19  | pending arrival count                   |
//! | 20-39 | expected arrival count                  |
//! | 40-60 | tx-count (21-bit two's complement)      |
//! | 63    | phase parity                            |
//!
//! The ISA leaves the object opaque and bounds each count to 2^20 - 1 in magnitude, so the parts
//! fit. A phase completes when an arrive-on or complete-tx operation leaves both the pending
//! count and the tx-count at zero: the parity flips and the pending count is reloaded from the
//! expected count. The state an arrive returns is the object as it was before the arrive.
//!
//! Shared memory is an array of 32-bit words (no 64-bit shared atomics here), so each
//! read-modify-write takes the lock word the 64-bit shared atomics use, reads and writes the two
//! words atomically, and releases it. The waits read the word holding the parity with an acquire
//! load and take no lock. Under the SIMT emulation every wait is also a block-wide barrier, so
//! that a thread polling in a loop lets the rest of the block run up to it (lavapipe runs one
//! subgroup of a workgroup until it reaches a barrier): a waiting loop ends once the arrivals
//! it waits for come earlier in program order, which is how compilers write them.

use super::cx::Cx;
use crate::check::inst::{Mbarrier, MbarrierOp, MbarrierPending};
use crate::check::{Address, Src};
use crate::ir::build::Build;
use crate::ir::{AtomicOp, BinOp, ConvOp, Op, Ordering, Ptr, Scope, Ty, ValueId};
use crate::profile::WarpStrategy;
use crate::types::{ScalarType, StateSpace};

const COUNT_MASK: u64 = (1 << 20) - 1;
const EXPECTED_SHIFT: u64 = 20;
const TX_SHIFT: u64 = 40;
const TX_MASK: u64 = (1 << 21) - 1;
const PHASE_SHIFT: u64 = 63;

pub fn mbarrier(cx: &mut Cx<'_>, b: &Mbarrier) {
    let Some(idx) = object_word(cx, &b.addr) else {
        return;
    };
    match &b.op {
        MbarrierOp::Init { count } => {
            update(cx, idx, |cx, _| {
                let c = operand(cx, count);
                let m = k(cx, COUNT_MASK);
                let c = cx.b.bin(BinOp::And, c, m);
                let sh = k(cx, EXPECTED_SHIFT);
                let e = cx.b.bin(BinOp::Shl, c, sh);
                cx.b.bin(BinOp::Or, c, e)
            });
        }
        MbarrierOp::Inval => {
            update(cx, idx, |cx, _| k(cx, 0));
        }
        MbarrierOp::ExpectTx { tx } => {
            update(cx, idx, |cx, old| {
                let t = operand(cx, tx);
                add_tx(cx, old, t)
            });
        }
        MbarrierOp::CompleteTx { tx } => {
            update(cx, idx, |cx, old| {
                let t = operand(cx, tx);
                let t = cx.b.un(crate::ir::UnOp::INeg, t);
                let v = add_tx(cx, old, t);
                complete(cx, v)
            });
        }
        MbarrierOp::Arrive {
            state,
            count,
            tx,
            drop,
        } => {
            let old = update(cx, idx, |cx, old| {
                let mut v = old;
                if let Some(tx) = tx {
                    let t = operand(cx, tx);
                    v = add_tx(cx, v, t);
                }
                let c = match count {
                    Some(c) => operand(cx, c),
                    None => k(cx, 1),
                };
                if *drop {
                    let sh = k(cx, EXPECTED_SHIFT);
                    let d = cx.b.bin(BinOp::Shl, c, sh);
                    v = cx.b.bin(BinOp::ISub, v, d);
                }
                v = cx.b.bin(BinOp::ISub, v, c);
                complete(cx, v)
            });
            cx.write(state, old);
        }
        MbarrierOp::Wait {
            done,
            arg,
            parity,
            try_wait: _,
        } => {
            // The barrier, then the parity of the current phase. A thread that calls the wait
            // in a loop meets the others at each turn.
            if cx.profile.warp_strategy() == WarpStrategy::Emulated {
                let v = cx.b.f.new_var(Ty::I32, "mbarrier.word");
                cx.b.emit_void(Op::StoreVar(v, idx));
                cx.barrier();
                let idx = cx.b.emit(Ty::I32, Op::LoadVar(v));
                wait(cx, idx, arg, *parity, done);
            } else {
                wait(cx, idx, arg, *parity, done);
            }
        }
    }
}

fn wait(cx: &mut Cx<'_>, idx: ValueId, arg: &Src, parity: bool, done: &crate::check::Dst) {
    let one = cx.b.konst(Ty::I32, 1);
    let hi = cx.b.bin(BinOp::IAdd, idx, one);
    let w = word_load(cx, hi, Ordering::Acquire);
    let s31 = cx.b.konst(Ty::I32, 31);
    let phase = cx.b.bin(BinOp::LShr, w, s31);
    let want = if parity {
        let p = cx.read(arg, ScalarType::U32);
        cx.b.bin(BinOp::And, p, one)
    } else {
        let s = cx.read(arg, ScalarType::B64);
        let s = cx.b.as_int(s);
        let sh = k(cx, PHASE_SHIFT);
        let p = cx.b.bin(BinOp::LShr, s, sh);
        cx.b.conv(ConvOp::Trunc, p, Ty::I32)
    };
    // The phase `want` names has completed once the current parity differs from it.
    let r = cx.b.bin(BinOp::INe, phase, want);
    cx.write(done, r);
}

/// `mbarrier.pending_count`: the pending arrival count of a state.
pub fn pending_count(cx: &mut Cx<'_>, p: &MbarrierPending) {
    let s = cx.read(&p.state, ScalarType::B64);
    let s = cx.b.as_int(s);
    let m = k(cx, COUNT_MASK);
    let c = cx.b.bin(BinOp::And, s, m);
    let c = cx.b.conv(ConvOp::Trunc, c, Ty::I32);
    cx.write(&p.dst, c);
}

/// One arrive-on operation on the object at word `idx` (`cp.async.mbarrier.arrive.noinc`).
pub fn arrive_on(cx: &mut Cx<'_>, idx: ValueId) {
    update(cx, idx, |cx, old| {
        let one = k(cx, 1);
        let v = cx.b.bin(BinOp::ISub, old, one);
        complete(cx, v)
    });
}

/// A complete-tx operation of `bytes` (an I32 value) on the object at word `idx`.
pub fn complete_tx(cx: &mut Cx<'_>, idx: ValueId, bytes: ValueId) {
    let var = cx.b.f.new_var(Ty::I32, "mbarrier.bytes");
    cx.b.emit_void(Op::StoreVar(var, bytes));
    update(cx, idx, |cx, old| {
        let b = cx.b.emit(Ty::I32, Op::LoadVar(var));
        let b = cx.b.conv(ConvOp::ZExt, b, Ty::I64);
        let t = cx.b.un(crate::ir::UnOp::INeg, b);
        let v = add_tx(cx, old, t);
        complete(cx, v)
    });
}

/// The index of the object's first word in the shared arena.
pub fn object_word(cx: &mut Cx<'_>, addr: &Address) -> Option<ValueId> {
    // A generic address outside the shared window is undefined behaviour (ISA), so its low 32
    // bits are taken as the shared offset.
    let off = match cx.resolve(StateSpace::Shared, addr)? {
        super::memory::Where::Shared(o) => o,
        super::memory::Where::Generic(a) => cx.b.conv(ConvOp::Trunc, a, Ty::I32),
        _ => {
            cx.unsupported("an mbarrier object outside shared memory");
            return None;
        }
    };
    let two = cx.b.konst(Ty::I32, 2);
    Some(cx.b.bin(BinOp::LShr, off, two))
}

fn k(cx: &mut Cx<'_>, v: u64) -> ValueId {
    cx.b.konst(Ty::I64, v)
}

/// A 32-bit operand zero-extended to 64 bits.
fn operand(cx: &mut Cx<'_>, s: &Src) -> ValueId {
    let v = cx.read(s, ScalarType::U32);
    let v = cx.b.as_int(v);
    cx.b.conv(ConvOp::ZExt, v, Ty::I64)
}

/// `v` with `t` (an I64 taken modulo 2^21) added to its tx-count.
fn add_tx(cx: &mut Cx<'_>, v: ValueId, t: ValueId) -> ValueId {
    let sh = k(cx, TX_SHIFT);
    let field = cx.b.bin(BinOp::LShr, v, sh);
    let m = k(cx, TX_MASK);
    let field = cx.b.bin(BinOp::And, field, m);
    let sum = cx.b.bin(BinOp::IAdd, field, t);
    let sum = cx.b.bin(BinOp::And, sum, m);
    let keep = k(cx, !(TX_MASK << TX_SHIFT));
    let rest = cx.b.bin(BinOp::And, v, keep);
    let sum = cx.b.bin(BinOp::Shl, sum, sh);
    cx.b.bin(BinOp::Or, rest, sum)
}

/// Completes the phase of `v` if its pending count and tx-count are both zero.
fn complete(cx: &mut Cx<'_>, v: ValueId) -> ValueId {
    let m = k(cx, COUNT_MASK);
    let pending = cx.b.bin(BinOp::And, v, m);
    let sh = k(cx, TX_SHIFT);
    let tx = cx.b.bin(BinOp::LShr, v, sh);
    let txm = k(cx, TX_MASK);
    let tx = cx.b.bin(BinOp::And, tx, txm);
    let z = k(cx, 0);
    let p0 = cx.b.bin(BinOp::IEq, pending, z);
    let t0 = cx.b.bin(BinOp::IEq, tx, z);
    let done = cx.b.bin(BinOp::And, p0, t0);
    let esh = k(cx, EXPECTED_SHIFT);
    let expected = cx.b.bin(BinOp::LShr, v, esh);
    let expected = cx.b.bin(BinOp::And, expected, m);
    let phase_bit = k(cx, 1 << PHASE_SHIFT);
    let flipped = cx.b.bin(BinOp::Xor, v, phase_bit);
    let next = cx.b.bin(BinOp::Or, flipped, expected);
    cx.b.select(done, next, v)
}

fn word_load(cx: &mut Cx<'_>, idx: ValueId, sem: Ordering) -> ValueId {
    cx.b.emit(
        Ty::I32,
        Op::AtomicLoad {
            ptr: Ptr::Shared(idx),
            scope: Scope::Workgroup,
            sem,
        },
    )
}

fn word_store(cx: &mut Cx<'_>, idx: ValueId, v: ValueId, sem: Ordering) {
    cx.b.emit(
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Exchange,
            ptr: Ptr::Shared(idx),
            value: v,
            scope: Scope::Workgroup,
            sem,
        },
    );
}

/// Replaces the object at word `idx` by `f(old)` under the workgroup's lock word, as the 64-bit
/// shared atomics do (`atomic::under_lock`). Returns the old value.
fn update(
    cx: &mut Cx<'_>,
    idx: ValueId,
    f: impl FnOnce(&mut Cx<'_>, ValueId) -> ValueId,
) -> ValueId {
    let idx_v = cx.b.f.new_var(Ty::I32, "mbarrier.idx");
    cx.b.emit_void(Op::StoreVar(idx_v, idx));
    let result = cx.b.f.new_var(Ty::I64, "mbarrier.old");
    super::atomic::under_lock(cx, |cx| {
        let i0 = cx.b.emit(Ty::I32, Op::LoadVar(idx_v));
        let one = cx.b.konst(Ty::I32, 1);
        let i1 = cx.b.bin(BinOp::IAdd, i0, one);
        let lo = word_load(cx, i0, Ordering::Relaxed);
        let hi = word_load(cx, i1, Ordering::Relaxed);
        let lo = cx.b.conv(ConvOp::ZExt, lo, Ty::I64);
        let hi = cx.b.conv(ConvOp::ZExt, hi, Ty::I64);
        let s32 = k(cx, 32);
        let hi = cx.b.bin(BinOp::Shl, hi, s32);
        let old = cx.b.bin(BinOp::Or, lo, hi);
        cx.b.emit_void(Op::StoreVar(result, old));
        let new = f(cx, old);
        let lo = cx.b.conv(ConvOp::Trunc, new, Ty::I32);
        let hi = cx.b.bin(BinOp::LShr, new, s32);
        let hi = cx.b.conv(ConvOp::Trunc, hi, Ty::I32);
        word_store(cx, i0, lo, Ordering::Relaxed);
        // The word with the parity is written with release: a waiter that sees the new phase
        // through its acquire load sees what the arrivals released.
        word_store(cx, i1, hi, Ordering::Release);
    });
    cx.b.emit(Ty::I64, Op::LoadVar(result))
}
