//! Workgroups in the interpreter, judged by the ISA: barriers order shared memory between
//! invocations, warp operations see the lanes that reach them, a divergent barrier is
//! undefined.

use super::{Event, GroupOutcome, Inputs, Stop, Workgroup, run_workgroup, single};
use crate::ir::{BinOp, BlockId, ConvOp, FpFlags, Function, MemOrder, Op, Ptr, Terminator, Ty};
use crate::ir::{ValueId, WarpOp};

fn group(dims: [u32; 3]) -> Workgroup {
    Workgroup {
        dims,
        subgroup: 8,
        scratch_base: 1 << 16,
    }
}

fn bin(f: &mut Function, b: BlockId, op: BinOp, x: ValueId, y: ValueId) -> ValueId {
    let ty = if op.is_compare() { Ty::Bool } else { f.ty(x) };
    f.push(b, ty, Op::Bin(op, x, y, FpFlags::default()))
}

fn k(f: &mut Function, b: BlockId, x: u64) -> ValueId {
    f.push(b, Ty::I32, Op::Const(x))
}

/// The linear index of the invocation, in block `b`.
fn tid(f: &mut Function, b: BlockId) -> ValueId {
    crate::ir::linear_local_id(|ty, op| f.push(b, ty, op))
}

/// Stores the 32-bit `x` at word `tid` of global memory.
fn store_at(f: &mut Function, b: BlockId, t: ValueId, x: ValueId) {
    let t = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, t));
    let four = f.push(b, Ty::I64, Op::Const(4));
    let at = bin(f, b, BinOp::IMul, t, four);
    f.push_void(
        b,
        Op::Store {
            ptr: Ptr::Global(at),
            value: x,
            align: 4,
            order: MemOrder::Plain,
        },
    );
}

/// The word each invocation stored at its index.
fn words(o: &GroupOutcome, n: u32) -> Vec<u32> {
    (0..u64::from(n))
        .map(|t| {
            (0..4).fold(0, |w, b| {
                w | u32::from(o.global.get(&(4 * t + b)).copied().unwrap_or(0)) << (8 * b)
            })
        })
        .collect()
}

fn run(f: &Function, dims: [u32; 3]) -> Result<GroupOutcome, Stop> {
    run_workgroup(&single(f), None, &Inputs::new(Vec::new(), 7), &group(dims))
}

#[test]
fn a_barrier_orders_shared_memory_between_invocations() {
    // Each writes its word, then reads its neighbour's: after the barrier, whoever ran first.
    let mut f = Function::new("k");
    let b = f.entry;
    let t = tid(&mut f, b);
    let three = k(&mut f, b, 3);
    let x = bin(&mut f, b, BinOp::IMul, t, three);
    f.push_void(
        b,
        Op::Store {
            ptr: Ptr::Shared(t),
            value: x,
            align: 4,
            order: MemOrder::Plain,
        },
    );
    f.push_void(b, Op::Barrier);
    let one = k(&mut f, b, 1);
    let other = bin(&mut f, b, BinOp::Xor, t, one);
    let y = f.push(
        b,
        Ty::I32,
        Op::Load {
            ptr: Ptr::Shared(other),
            align: 4,
            order: MemOrder::Plain,
        },
    );
    store_at(&mut f, b, t, y);
    f.block_mut(b).term = Terminator::Return(Vec::new());
    let o = run(&f, [12, 4, 1]).expect("defined");
    let want: Vec<u32> = (0..48).map(|t| (t ^ 1) * 3).collect();
    assert_eq!(words(&o, 48), want);
    assert!(o.threads.iter().all(|t| t.events.contains(&Event::Barrier)));
}

/// A kernel where lanes whose `lane & mask` is 0 run `op` on `args(lane)` and store its result;
/// the others store 0xFFFF.
fn divergent(
    op: WarpOp,
    mask: u64,
    args: fn(&mut Function, BlockId, ValueId) -> Vec<ValueId>,
) -> Function {
    let mut f = Function::new("k");
    let b = f.entry;
    let t = tid(&mut f, b);
    let m = k(&mut f, b, 31);
    let lane = bin(&mut f, b, BinOp::And, t, m);
    let mk = k(&mut f, b, mask);
    let sel = bin(&mut f, b, BinOp::And, lane, mk);
    let zero = k(&mut f, b, 0);
    let c = bin(&mut f, b, BinOp::IEq, sel, zero);
    let (yes, no) = (f.new_block(), f.new_block());
    f.block_mut(b).term = Terminator::Branch {
        cond: c,
        then: yes,
        else_: no,
    };
    let t = tid(&mut f, yes);
    let m = k(&mut f, yes, 31);
    let lane = bin(&mut f, yes, BinOp::And, t, m);
    let a = args(&mut f, yes, lane);
    let r = f.push(yes, Ty::I32, Op::Warp(op, a.as_slice().into()));
    store_at(&mut f, yes, t, r);
    f.block_mut(yes).term = Terminator::Return(Vec::new());
    let t = tid(&mut f, no);
    let x = k(&mut f, no, 0xFFFF);
    store_at(&mut f, no, t, x);
    f.block_mut(no).term = Terminator::Return(Vec::new());
    f
}

#[test]
fn warp_operations_see_the_lanes_that_reach_them() {
    // Lanes with bit 1 clear (0, 1, 4, 5, ...) are active: 0x33333333 in a whole warp.
    let active = divergent(WarpOp::ActiveMask, 2, |_, _, _| Vec::new());
    let o = run(&active, [40, 1, 1]).expect("defined");
    let w = words(&o, 40);
    assert_eq!(w[0], 0x3333_3333);
    assert_eq!(w[2], 0xFFFF);
    // The second warp has lanes 0..7: 0, 1, 4, 5 active.
    assert_eq!(w[36], 0x33);
    // Ballot of `lane < 8` among them.
    let ballot = divergent(WarpOp::Ballot, 2, |f, b, lane| {
        let eight = k(f, b, 8);
        vec![bin(f, b, BinOp::ULt, lane, eight)]
    });
    assert_eq!(
        words(&run(&ballot, [32, 1, 1]).expect("defined"), 32)[5],
        0x33
    );
    // A sum of the lanes over the active ones: 0+1+4+5+...+28+29.
    let sum = divergent(WarpOp::Reduce(crate::ir::ReduceOp::Add), 2, |_, _, lane| {
        vec![lane]
    });
    let want: u32 = (0..32).filter(|l| l & 2 == 0).sum();
    assert_eq!(words(&run(&sum, [32, 1, 1]).expect("defined"), 32)[0], want);
}

#[test]
fn a_lane_read_gives_the_source_lanes_value_or_the_readers_own() {
    // `shfl.down` by 1 of `lane * 10` among lanes with bit 1 clear: lane 0 reads lane 1; lane 1
    // reads lane 2, which is inactive: its own value (the IR's meaning; the ISA leaves it
    // undefined). The second warp of the 40-invocation block is partial: the same there.
    let read = divergent(WarpOp::ReadLane, 2, |f, b, lane| {
        let ten = k(f, b, 10);
        let v = bin(f, b, BinOp::IMul, lane, ten);
        let one = k(f, b, 1);
        let src = bin(f, b, BinOp::IAdd, lane, one);
        vec![v, src]
    });
    let w = words(&run(&read, [40, 1, 1]).expect("defined"), 40);
    assert_eq!(&w[..6], &[10, 10, 0xFFFF, 0xFFFF, 50, 50]);
    assert_eq!(w[32 + 5], 50);
}

#[test]
fn a_divergent_barrier_is_undefined() {
    let mut f = Function::new("k");
    let b = f.entry;
    let t = tid(&mut f, b);
    let five = k(&mut f, b, 5);
    let c = bin(&mut f, b, BinOp::ULt, t, five);
    let (yes, no, end) = (f.new_block(), f.new_block(), f.new_block());
    f.block_mut(b).term = Terminator::Branch {
        cond: c,
        then: yes,
        else_: no,
    };
    for arm in [yes, no] {
        f.push_void(arm, Op::Barrier);
        f.block_mut(arm).term = Terminator::Jump(end);
    }
    f.block_mut(end).term = Terminator::Return(Vec::new());
    assert!(matches!(run(&f, [32, 1, 1]), Err(Stop::Undefined(_))));
    // One thread alone passes either.
    assert!(run(&f, [1, 1, 1]).is_ok());
}
