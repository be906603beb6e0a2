//! Kernels for drivers that end loops early. Mesa 22.3's lavapipe counts the loop iterations of
//! each SIMD batch in one counter and, once 65,535 have run, leaves every loop at its back edge
//! as if it had ended, silently: the kernel goes on with wrong values.
//!
//! The counter only falls, so once it is spent every later loop makes one pass (measured: a
//! loop of 70,000 trips after a cut one ran 2 iterations, the first peeled off by the driver's
//! compiler). Before the kernel ends, each thread runs a loop of a few trips whose count the
//! driver's compiler cannot know (it is read from memory) and fails the launch when the loop
//! made fewer. A kernel whose loops stayed under the limit is never refused. The report
//! overwrites any earlier one: after a cut, earlier failures (an access out of bounds computed
//! from a cut loop) are its consequences.
//!
//! Checks that a loop ended through its own exit cannot work: the driver's compiler knows the
//! exit condition holds after the loop (the only way out it knows of) and folds such a test.

use super::{
    BinOp, BlockId, Builtin, FpFlags, Function, Module, Op, Ordering, Ptr, Scope, Terminator, Ty,
};

/// Trips of the check's loop: the driver's compiler may peel one off, so a spent counter leaves
/// it at 2.
const TRIPS: u64 = 4;

/// Makes every `ret` and `exit` of the kernel `module.entry` first check that the driver did not
/// end its loops early, writing `code` to the launch's status word when it did.
pub fn check_at_exits(module: &mut Module, code: u32) {
    let f = &mut module.functions[module.entry.0 as usize];
    let ends: Vec<BlockId> = (0..f.blocks.len() as u32)
        .map(BlockId)
        .filter(|&b| matches!(f.block(b).term, Terminator::Return(_) | Terminator::Exit))
        .collect();
    let (mut to_return, mut to_exit) = (None, None);
    for b in ends {
        let term = std::mem::replace(&mut f.block_mut(b).term, Terminator::Unreachable);
        let check = match term {
            // A kernel returns nothing: one check serves every `ret`.
            Terminator::Return(_) => *to_return.get_or_insert_with(|| check(f, code, term)),
            _ => *to_exit.get_or_insert_with(|| check(f, code, term)),
        };
        f.block_mut(b).term = Terminator::Jump(check);
    }
}

/// Blocks that run the check's loop, report a short count and end with `end`; returns the
/// first.
fn check(f: &mut Function, code: u32, end: Terminator) -> BlockId {
    let (start, head, after, fail, done) = (
        f.new_block(),
        f.new_block(),
        f.new_block(),
        f.new_block(),
        f.new_block(),
    );
    let count = f.new_var(Ty::I32, "ptxvk.loop_check");
    let flags = FpFlags::default();
    // The trip count is TRIPS plus the status word, which is 0 unless the launch already failed.
    let status = f.push(start, Ty::I64, Op::Builtin(Builtin::StatusAddress));
    let word = f.push(
        start,
        Ty::I32,
        Op::AtomicLoad {
            ptr: Ptr::Global(status),
            scope: Scope::Device,
            sem: Ordering::Relaxed,
        },
    );
    let base = f.push(start, Ty::I32, Op::Const(TRIPS));
    let trips = f.push(start, Ty::I32, Op::Bin(BinOp::IAdd, word, base, flags));
    let zero = f.push(start, Ty::I32, Op::Const(0));
    f.push_void(start, Op::StoreVar(count, zero));
    f.block_mut(start).term = Terminator::Jump(head);

    let before = f.push(head, Ty::I32, Op::LoadVar(count));
    let one = f.push(head, Ty::I32, Op::Const(1));
    let now = f.push(head, Ty::I32, Op::Bin(BinOp::IAdd, before, one, flags));
    f.push_void(head, Op::StoreVar(count, now));
    let again = f.push(head, Ty::Bool, Op::Bin(BinOp::ULt, now, trips, flags));
    f.block_mut(head).term = Terminator::Branch {
        cond: again,
        then: head,
        else_: after,
    };

    // `!=`, not `<`: the compiler knows that `count < trips` is false after the loop.
    let made = f.push(after, Ty::I32, Op::LoadVar(count));
    let short = f.push(after, Ty::Bool, Op::Bin(BinOp::INe, made, trips, flags));
    f.block_mut(after).term = Terminator::Branch {
        cond: short,
        then: fail,
        else_: done,
    };

    let status = f.push(fail, Ty::I64, Op::Builtin(Builtin::StatusAddress));
    let code = f.push(fail, Ty::I32, Op::Const(u64::from(code)));
    f.push_void(
        fail,
        Op::AtomicStore {
            ptr: Ptr::Global(status),
            value: code,
            scope: Scope::Device,
            sem: Ordering::Relaxed,
        },
    );
    f.block_mut(fail).term = Terminator::Jump(done);
    f.block_mut(done).term = end;
    start
}
