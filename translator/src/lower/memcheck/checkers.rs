//! The two checking functions a kernel with memory checking gets (see `memcheck`), and their
//! ids in its IR module.

use crate::abi;
use crate::ir::{self, BinOp, Builtin, FuncId, Function, Op, Ptr, Terminator, Ty, ValueId};

/// Bytes of scratch after the status word that failing global accesses use (a `.v8.b32`/`.v4.b64`
/// access is the widest).
pub const SINK_OFFSET: u64 = 16;

/// The checking functions' ids in the kernel's IR module.
#[derive(Clone, Copy, Debug)]
pub struct Checkers {
    pub global: FuncId,
    pub arena: FuncId,
}

/// `check_global(addr: u64, bytes: u32, site: u32, proven: bool) -> u64`: `addr` if `proven` or
/// `[addr, addr + bytes)` lies in one allocation, else the scratch address (after recording
/// `site`).
///
/// The launch's hint ranges (`abi::PUSH_MEM_HINTS`) are tried first, unrolled and without branches;
/// the binary search over the sorted entries runs only for lanes no hint covers. On lavapipe,
/// which runs both sides of every branch masked but leaves a loop once no lane goes round, the
/// search then costs one test of the loop's condition.
pub fn global_checker() -> Function {
    let mut f = Function::new("ptxvk.memcheck.global");
    f.params = vec![Ty::I64, Ty::I32, Ty::I32, Ty::Bool];
    f.returns = vec![Ty::I64];
    let e = f.entry;
    let addr = f.new_var(Ty::I64, "addr");
    let bytes = f.new_var(Ty::I32, "bytes");
    let site = f.new_var(Ty::I32, "site");
    let lo = f.new_var(Ty::I32, "lo");
    let step = f.new_var(Ty::I32, "step");
    let hinted = f.new_var(Ty::Bool, "hinted");
    for (i, v) in [addr, bytes, site].into_iter().enumerate() {
        let ty = f.vars[v.0 as usize].ty;
        let p = f.push(e, ty, Op::Param(i as u32));
        f.push_void(e, Op::StoreVar(v, p));
    }
    // A site whose range the launch proved in bounds (`lower::bounds`): the flag is a
    // specialization constant, so the driver keeps one side of this branch only.
    let proven = f.push(e, Ty::Bool, Op::Param(3));
    let (fast, rest) = (f.new_block(), f.new_block());
    f.block_mut(e).term = Terminator::Branch {
        cond: proven,
        then: fast,
        else_: rest,
    };
    let a = f.push(fast, Ty::I64, Op::LoadVar(addr));
    f.block_mut(fast).term = Terminator::Return(vec![a]);
    let e = rest;
    let in_hint = |f: &mut Function, h: u8| {
        let start = f.push(e, Ty::I64, Op::Builtin(Builtin::MemHint(2 * h)));
        let end = f.push(e, Ty::I64, Op::Builtin(Builtin::MemHint(2 * h + 1)));
        in_range(f, e, (start, end), addr, bytes)
    };
    let mut hit = in_hint(&mut f, 0);
    for h in 1..abi::MEM_HINTS as u8 {
        let inside = in_hint(&mut f, h);
        hit = bin(&mut f, e, Ty::Bool, BinOp::Or, hit, inside);
    }
    f.push_void(e, Op::StoreVar(hinted, hit));
    let zero = f.push(e, Ty::I32, Op::Const(0));
    f.push_void(e, Op::StoreVar(lo, zero));
    let count = f.push(e, Ty::I32, Op::Builtin(Builtin::MemCount));
    let one = f.push(e, Ty::I32, Op::Const(1));
    let half = bin(&mut f, e, Ty::I32, BinOp::LShr, count, one);
    let half = f.push(e, Ty::I32, Op::Select(hit, zero, half));
    f.push_void(e, Op::StoreVar(step, half));
    let (head, body, done, good, bad) = (
        f.new_block(),
        f.new_block(),
        f.new_block(),
        f.new_block(),
        f.new_block(),
    );
    f.block_mut(e).term = Terminator::Jump(head);
    // Binary search of the sorted entries for the last start <= addr.
    let s = f.push(head, Ty::I32, Op::LoadVar(step));
    let zero = f.push(head, Ty::I32, Op::Const(0));
    let more = bin(&mut f, head, Ty::Bool, BinOp::INe, s, zero);
    f.block_mut(head).term = Terminator::Branch {
        cond: more,
        then: body,
        else_: done,
    };
    let l = f.push(body, Ty::I32, Op::LoadVar(lo));
    let s = f.push(body, Ty::I32, Op::LoadVar(step));
    let mid = bin(&mut f, body, Ty::I32, BinOp::IAdd, l, s);
    let start = entry_word(&mut f, body, mid, 0);
    let a = f.push(body, Ty::I64, Op::LoadVar(addr));
    let le = bin(&mut f, body, Ty::Bool, BinOp::ULe, start, a);
    let l2 = f.push(body, Ty::I32, Op::Select(le, mid, l));
    f.push_void(body, Op::StoreVar(lo, l2));
    let one = f.push(body, Ty::I32, Op::Const(1));
    let s2 = bin(&mut f, body, Ty::I32, BinOp::LShr, s, one);
    f.push_void(body, Op::StoreVar(step, s2));
    f.block_mut(body).term = Terminator::Jump(head);
    // In a hinted allocation, or in the one the search found.
    let l = f.push(done, Ty::I32, Op::LoadVar(lo));
    let start = entry_word(&mut f, done, l, 0);
    let end = entry_word(&mut f, done, l, 8);
    let found = in_range(&mut f, done, (start, end), addr, bytes);
    let hit = f.push(done, Ty::Bool, Op::LoadVar(hinted));
    let ok = bin(&mut f, done, Ty::Bool, BinOp::Or, hit, found);
    f.block_mut(done).term = Terminator::Branch {
        cond: ok,
        then: good,
        else_: bad,
    };
    let a = f.push(good, Ty::I64, Op::LoadVar(addr));
    f.block_mut(good).term = Terminator::Return(vec![a]);
    let status = report(&mut f, bad, site);
    let k = f.push(bad, Ty::I64, Op::Const(SINK_OFFSET));
    let sink = bin(&mut f, bad, Ty::I64, BinOp::IAdd, status, k);
    f.block_mut(bad).term = Terminator::Return(vec![sink]);
    f
}

/// Whether `[addr, addr + bytes)` lies in `[start, end)`: start <= addr <= end and
/// bytes <= end - addr.
fn in_range(
    f: &mut Function,
    b: ir::BlockId,
    (start, end): (ValueId, ValueId),
    addr: ir::VarId,
    bytes: ir::VarId,
) -> ValueId {
    let a = f.push(b, Ty::I64, Op::LoadVar(addr));
    let n = f.push(b, Ty::I32, Op::LoadVar(bytes));
    let n = f.push(b, Ty::I64, Op::Conv(ir::ConvOp::ZExt, n));
    let c1 = bin(f, b, Ty::Bool, BinOp::ULe, start, a);
    let c2 = bin(f, b, Ty::Bool, BinOp::ULe, a, end);
    let room = bin(f, b, Ty::I64, BinOp::ISub, end, a);
    let c3 = bin(f, b, Ty::Bool, BinOp::ULe, n, room);
    let ok = bin(f, b, Ty::Bool, BinOp::And, c1, c2);
    bin(f, b, Ty::Bool, BinOp::And, ok, c3)
}

/// `check_arena(offset: u32, bytes: u32, size: u32, site: u32, proven: bool) -> u32`: `offset`
/// if `proven` or `[offset, offset + bytes)` lies within `size` bytes, else 0 (after recording
/// `site`).
pub fn arena_checker() -> Function {
    let mut f = Function::new("ptxvk.memcheck.arena");
    f.params = vec![Ty::I32, Ty::I32, Ty::I32, Ty::I32, Ty::Bool];
    f.returns = vec![Ty::I32];
    let entry = f.entry;
    let off = f.push(entry, Ty::I32, Op::Param(0));
    let offv = f.new_var(Ty::I32, "offset");
    f.push_void(entry, Op::StoreVar(offv, off));
    let proven = f.push(entry, Ty::Bool, Op::Param(4));
    let (fast, e) = (f.new_block(), f.new_block());
    f.block_mut(entry).term = Terminator::Branch {
        cond: proven,
        then: fast,
        else_: e,
    };
    let o = f.push(fast, Ty::I32, Op::LoadVar(offv));
    f.block_mut(fast).term = Terminator::Return(vec![o]);
    let off = f.push(e, Ty::I32, Op::LoadVar(offv));
    let n = f.push(e, Ty::I32, Op::Param(1));
    let size = f.push(e, Ty::I32, Op::Param(2));
    let site_v = f.push(e, Ty::I32, Op::Param(3));
    let site = f.new_var(Ty::I32, "site");
    f.push_void(e, Op::StoreVar(site, site_v));
    let c1 = bin(&mut f, e, Ty::Bool, BinOp::ULe, off, size);
    let room = bin(&mut f, e, Ty::I32, BinOp::ISub, size, off);
    let c2 = bin(&mut f, e, Ty::Bool, BinOp::ULe, n, room);
    let ok = bin(&mut f, e, Ty::Bool, BinOp::And, c1, c2);
    let (good, bad) = (f.new_block(), f.new_block());
    f.block_mut(e).term = Terminator::Branch {
        cond: ok,
        then: good,
        else_: bad,
    };
    let o = f.push(good, Ty::I32, Op::LoadVar(offv));
    f.block_mut(good).term = Terminator::Return(vec![o]);
    report(&mut f, bad, site);
    let zero = f.push(bad, Ty::I32, Op::Const(0));
    f.block_mut(bad).term = Terminator::Return(vec![zero]);
    f
}

/// Records `site` in the status word unless another failure came first; returns the status
/// word's address.
fn report(f: &mut Function, b: ir::BlockId, site: ir::VarId) -> ValueId {
    let code = f.push(b, Ty::I32, Op::LoadVar(site));
    f.report_status(b, code)
}

/// Word `at` (0: start, 8: end) of table entry `i`.
fn entry_word(f: &mut Function, b: ir::BlockId, i: ValueId, at: u64) -> ValueId {
    let table = f.push(b, Ty::I64, Op::Builtin(Builtin::MemTable));
    let i = f.push(b, Ty::I64, Op::Conv(ir::ConvOp::ZExt, i));
    let sixteen = f.push(b, Ty::I64, Op::Const(16));
    let off = bin(f, b, Ty::I64, BinOp::IMul, i, sixteen);
    let k = f.push(b, Ty::I64, Op::Const(at));
    let off = bin(f, b, Ty::I64, BinOp::IAdd, off, k);
    let p = bin(f, b, Ty::I64, BinOp::IAdd, table, off);
    f.push(
        b,
        Ty::I64,
        Op::Load {
            ptr: Ptr::Global(p),
            align: 8,
            order: Default::default(),
        },
    )
}

fn bin(f: &mut Function, b: ir::BlockId, ty: Ty, op: BinOp, x: ValueId, y: ValueId) -> ValueId {
    f.push(b, ty, Op::Bin(op, x, y, Default::default()))
}
