//! The pass against the IR's interpreter (`crate::interp`): random straight-line blocks
//! (register variables, constants, conversions, built-ins including the clock, plain and
//! volatile memory) must leave the same memory and observable accesses before and after.
//! `interp/tests.rs` runs it on whole programs with control flow and calls as well.

use super::run;
use crate::interp::random::Rng;
use crate::interp::{Inputs, run_function};
use crate::ir::{
    BinOp, BlockId, Builtin, ConvOp, ExtOp, FpFlags, FuncId, Function, MemOrder, Op, Ptr,
    Terminator, Ty, UnOp, ValueId, VarId, WarpOp,
};

/// A function of `blocks` blocks in a row, each of random straight-line code over eight
/// register variables.
fn random_function(rng: &mut Rng, blocks: usize) -> Function {
    let mut f = Function::new("random");
    let var_tys = [
        Ty::I32,
        Ty::I32,
        Ty::I32,
        Ty::F32,
        Ty::F32,
        Ty::I64,
        Ty::I64,
        Ty::F64,
    ];
    let vars: Vec<VarId> = var_tys
        .iter()
        .enumerate()
        .map(|(i, &t)| f.new_var(t, format!("r{i}")))
        .collect();
    let mut b = f.entry;
    for _ in 0..blocks {
        let mut have: Vec<ValueId> = Vec::new();
        let of = |f: &Function, have: &[ValueId], t: Ty| -> Vec<ValueId> {
            have.iter().copied().filter(|&v| f.ty(v) == t).collect()
        };
        for _ in 0..30 {
            let choice = rng.pick(15);
            match choice {
                0..=2 => {
                    let v = vars[rng.pick(vars.len())];
                    let t = f.vars[v.0 as usize].ty;
                    have.push(f.push(b, t, Op::LoadVar(v)));
                }
                3..=5 => {
                    let v = vars[rng.pick(vars.len())];
                    let t = f.vars[v.0 as usize].ty;
                    let c = of(&f, &have, t);
                    let x = if c.is_empty() {
                        f.push(b, t, Op::Const(rng.pick(1 << 20) as u64 * 0x9E37))
                    } else {
                        c[rng.pick(c.len())]
                    };
                    f.push_void(b, Op::StoreVar(v, x));
                }
                6 => {
                    let t = [Ty::I32, Ty::I64][rng.pick(2)];
                    let bits = [0u64, 1, 5, u64::MAX, 0x8000_0000, 0xFFFF_FFFB][rng.pick(6)];
                    have.push(f.push(b, t, Op::Const(bits)));
                }
                7 => {
                    let t = [Ty::I32, Ty::I64][rng.pick(2)];
                    let c = of(&f, &have, t);
                    if !c.is_empty() {
                        let (x, y) = (c[rng.pick(c.len())], c[rng.pick(c.len())]);
                        let op = [
                            BinOp::IAdd,
                            BinOp::ISub,
                            BinOp::IMul,
                            BinOp::Xor,
                            BinOp::And,
                        ][rng.pick(5)];
                        have.push(f.push(b, t, Op::Bin(op, x, y, FpFlags::default())));
                    }
                }
                8 => {
                    // Bitcasts between same-width types, conversions between widths.
                    let (from, to, op) = [
                        (Ty::I32, Ty::F32, ConvOp::Bitcast),
                        (Ty::F32, Ty::I32, ConvOp::Bitcast),
                        (Ty::I64, Ty::F64, ConvOp::Bitcast),
                        (Ty::F64, Ty::I64, ConvOp::Bitcast),
                        (Ty::I32, Ty::I64, ConvOp::ZExt),
                        (Ty::I32, Ty::I64, ConvOp::SExt),
                        (Ty::I64, Ty::I32, ConvOp::Trunc),
                        (Ty::I32, Ty::I32, ConvOp::Bitcast),
                    ][rng.pick(8)];
                    let c = of(&f, &have, from);
                    if !c.is_empty() {
                        let x = c[rng.pick(c.len())];
                        have.push(f.push(b, to, Op::Conv(op, x)));
                    }
                }
                9 => {
                    let which =
                        [Builtin::Clock, Builtin::LocalId(0), Builtin::LocalId(1)][rng.pick(3)];
                    let t = if which == Builtin::Clock {
                        Ty::I64
                    } else {
                        Ty::I32
                    };
                    have.push(f.push(b, t, Op::Builtin(which)));
                }
                10 => {
                    let a = f.push(b, Ty::I64, Op::Const(rng.pick(4) as u64 * 8));
                    let order = [MemOrder::Plain, MemOrder::Volatile][rng.pick(2)];
                    have.push(f.push(
                        b,
                        Ty::I32,
                        Op::Load {
                            ptr: Ptr::Global(a),
                            align: 4,
                            order,
                        },
                    ));
                }
                12 => {
                    let t = [Ty::I32, Ty::I64][rng.pick(2)];
                    let c = of(&f, &have, t);
                    if !c.is_empty() {
                        let (x, y) = (c[rng.pick(c.len())], c[rng.pick(c.len())]);
                        use BinOp::*;
                        let ops = [IEq, INe, ULt, ULe, UGt, UGe, SLt, SLe, SGt, SGe];
                        let op = ops[rng.pick(ops.len())];
                        have.push(f.push(b, Ty::Bool, Op::Bin(op, x, y, FpFlags::default())));
                    }
                }
                13 => {
                    let t = [Ty::I32, Ty::I64][rng.pick(2)];
                    let (conds, c) = (of(&f, &have, Ty::Bool), of(&f, &have, t));
                    if !conds.is_empty() && !c.is_empty() {
                        let cond = conds[rng.pick(conds.len())];
                        let (x, y) = (c[rng.pick(c.len())], c[rng.pick(c.len())]);
                        have.push(f.push(b, t, Op::Select(cond, x, y)));
                    }
                }
                14 => {
                    // Shifts by constants (under the width: SPIR-V leaves the rest undefined),
                    // `or`, and integer min/max.
                    let t = [Ty::I32, Ty::I64][rng.pick(2)];
                    let c = of(&f, &have, t);
                    if !c.is_empty() {
                        let x = c[rng.pick(c.len())];
                        let op = rng.pick(7);
                        let r = if op >= 5 {
                            Op::Un([UnOp::INeg, UnOp::Not][op - 5], x)
                        } else if op < 3 {
                            let amount = [0, 1, 31, rng.pick(t.bits() as usize)][rng.pick(4)];
                            let y = f.push(b, t, Op::Const(amount as u64));
                            let op = [BinOp::Shl, BinOp::LShr, BinOp::AShr][op];
                            Op::Bin(op, x, y, FpFlags::default())
                        } else if op == 3 {
                            Op::Bin(BinOp::Or, x, c[rng.pick(c.len())], FpFlags::default())
                        } else {
                            let e =
                                [ExtOp::UMin, ExtOp::UMax, ExtOp::SMin, ExtOp::SMax][rng.pick(4)];
                            Op::Ext(e, [x, c[rng.pick(c.len())]].into(), FpFlags::default())
                        };
                        have.push(f.push(b, t, r));
                    }
                }
                _ => {
                    let c = of(&f, &have, Ty::I32);
                    if !c.is_empty() {
                        let a = f.push(b, Ty::I64, Op::Const(rng.pick(4) as u64 * 8));
                        let value = c[rng.pick(c.len())];
                        f.push_void(
                            b,
                            Op::Store {
                                ptr: Ptr::Global(a),
                                value,
                                align: 4,
                                order: MemOrder::Plain,
                            },
                        );
                    }
                }
            }
        }
        // Most integer results become observable: written to memory.
        for (k, &v) in have.iter().enumerate() {
            if matches!(f.ty(v), Ty::I32 | Ty::I64 | Ty::Bool) && rng.pick(3) > 0 {
                let a = f.push(b, Ty::I64, Op::Const(4096 + 8 * k as u64));
                f.push_void(
                    b,
                    Op::Store {
                        ptr: Ptr::Global(a),
                        value: v,
                        align: 4,
                        order: MemOrder::Plain,
                    },
                );
            }
        }
        let next = f.new_block();
        f.block_mut(b).term = Terminator::Jump(next);
        b = next;
    }
    // The registers live at the end are written to memory; the last three are dead (their
    // stores, and then they themselves, may go).
    for (i, &v) in vars.iter().take(5).enumerate() {
        let t = f.vars[v.0 as usize].ty;
        let x = f.push(b, t, Op::LoadVar(v));
        let x = match t {
            Ty::F32 => f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, x)),
            _ => x,
        };
        let a = f.push(b, Ty::I64, Op::Const(1000 + 8 * i as u64));
        f.push_void(
            b,
            Op::Store {
                ptr: Ptr::Global(a),
                value: x,
                align: 4,
                order: MemOrder::Plain,
            },
        );
    }
    f.block_mut(b).term = Terminator::Return(Vec::new());
    f
}

/// Every operand is defined earlier in the same block (the IR's rule, which the pass keeps).
fn check_block_local(f: &Function) {
    for b in &f.blocks {
        let mut defined = Vec::new();
        for i in &b.insts {
            for v in crate::ir::inline::op_values(&i.op, &f.side) {
                assert!(defined.contains(&v), "{v:?} used before its definition");
            }
            defined.extend(i.result);
        }
    }
}

/// Ends block `b` with a jump to a block that returns `vars` (they are live at the end).
fn live_out(f: &mut Function, b: BlockId, vars: &[VarId]) {
    let next = f.new_block();
    f.block_mut(b).term = Terminator::Jump(next);
    let vals = vars
        .iter()
        .map(|&v| f.push(next, f.vars[v.0 as usize].ty, Op::LoadVar(v)))
        .collect();
    f.block_mut(next).term = Terminator::Return(vals);
}

fn count(f: &Function, pred: impl Fn(&Op) -> bool) -> usize {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| pred(&i.op))
        .count()
}

#[test]
fn random_blocks_keep_their_meaning() {
    let mut rng = Rng(7);
    let (mut before_insts, mut after_insts) = (0, 0);
    for case in 0..400 {
        let f = random_function(&mut rng, 1 + case % 3);
        let mut g = f.clone();
        run(&mut g);
        check_block_local(&g);
        for seed in [1u64, 0xDEAD_BEEF] {
            // Variables never stored read a value made from their name and the seed.
            let inputs = Inputs::new(Vec::new(), seed);
            let (want, got) = (run_function(&f, &inputs), run_function(&g, &inputs));
            assert!(want.is_ok(), "case {case}: {want:?}\n{f}");
            assert_eq!(want, got, "case {case}\n{f}");
        }
        let var_access = |op: &Op| matches!(op, Op::LoadVar(_) | Op::StoreVar(..));
        before_insts += count(&f, var_access);
        after_insts += count(&g, var_access);
    }
    // The random code is full of reloads and stores; a pass that removed few is broken.
    assert!(
        after_insts * 5 < before_insts * 3,
        "{before_insts} -> {after_insts}"
    );
}

/// `r1 = a; r2 = float(r1) ...`: what lowering makes of `mov` followed by a use as `.f32`.
#[test]
fn a_store_forwards_to_later_loads_and_bitcasts_cancel() {
    let mut f = Function::new("k");
    let b = f.entry;
    let (r1, r2) = (f.new_var(Ty::F32, "%f1"), f.new_var(Ty::F32, "%f2"));
    let a = f.push(b, Ty::F32, Op::LoadVar(r1));
    let bits = f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, a));
    let back = f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, bits));
    f.push_void(b, Op::StoreVar(r2, back));
    let again = f.push(b, Ty::F32, Op::LoadVar(r2));
    let once_more = f.push(b, Ty::F32, Op::LoadVar(r1));
    let sum = f.push(
        b,
        Ty::F32,
        Op::Bin(BinOp::FAdd, again, once_more, FpFlags::default()),
    );
    f.push_void(b, Op::StoreVar(r2, sum));
    live_out(&mut f, b, &[r1, r2]);
    run(&mut f);
    let ops: Vec<&Op> = f.blocks[0].insts.iter().map(|i| &i.op).collect();
    // One load of r1; its value added to itself; only the last store to r2 is left.
    assert_eq!(
        ops,
        vec![
            &Op::LoadVar(r1),
            &Op::Bin(BinOp::FAdd, a, a, FpFlags::default()),
            &Op::StoreVar(r2, sum),
        ]
    );
}

#[test]
fn constants_fold_through_conversions() {
    let mut f = Function::new("k");
    let b = f.entry;
    let out = f.new_var(Ty::I64, "%rd1");
    let c = f.push(b, Ty::I32, Op::Const(0xFFFF_FFFC)); // -4
    let s = f.push(b, Ty::I64, Op::Conv(ConvOp::SExt, c));
    let z = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, c));
    let sum = f.push(b, Ty::I64, Op::Bin(BinOp::IAdd, s, z, FpFlags::default()));
    f.push_void(b, Op::StoreVar(out, sum));
    // A float constant is not made from integer bits (it stays a bitcast for the driver).
    let fv = f.new_var(Ty::F32, "%f1");
    let nan = f.push(b, Ty::I32, Op::Const(0x7FC0_0001));
    let nf = f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, nan));
    f.push_void(b, Op::StoreVar(fv, nf));
    live_out(&mut f, b, &[out, fv]);
    run(&mut f);
    let ops: Vec<&Op> = f.blocks[0].insts.iter().map(|i| &i.op).collect();
    // sext(-4) + zext(0xFFFFFFFC) = 0xFFFFFFFFFFFFFFFC + 0xFFFFFFFC, modulo 2^64.
    let expect = 0xFFFF_FFFF_FFFF_FFFCu64.wrapping_add(0xFFFF_FFFC);
    assert_eq!(
        ops,
        vec![
            &Op::Const(expect),
            &Op::StoreVar(out, sum),
            &Op::Const(0x7FC0_0001),
            &Op::Conv(ConvOp::Bitcast, nan),
            &Op::StoreVar(fv, nf),
        ]
    );
}

/// A block with a warp operation keeps its loads and stores (the SIMT emulation expands it and
/// rewrites the store of the result).
#[test]
fn blocks_with_synchronization_are_left_alone() {
    let mut f = Function::new("k");
    let b = f.entry;
    let (arg, res) = (
        f.new_var(Ty::I32, "sync.arg"),
        f.new_var(Ty::I32, "sync.result"),
    );
    let x = f.push(b, Ty::I32, Op::LoadVar(arg));
    let y = f.push(b, Ty::I32, Op::LoadVar(arg));
    let w = f.push(
        b,
        Ty::I32,
        Op::Warp(WarpOp::Reduce(crate::ir::ReduceOp::Add), [x].into()),
    );
    f.push_void(b, Op::StoreVar(res, w));
    f.push_void(b, Op::StoreVar(arg, y));
    live_out(&mut f, b, &[arg, res]);
    let before = f.clone();
    run(&mut f);
    // In another block the second load would be the first one's value and the store of it
    // would go.
    assert_eq!(f.blocks[0].insts.len(), before.blocks[0].insts.len());
    for (a, b) in f.blocks[0].insts.iter().zip(&before.blocks[0].insts) {
        assert_eq!((a.result, &a.op), (b.result, &b.op));
    }
}

/// A call writes its result variables: loads after it read them again.
#[test]
fn calls_end_forwarding_of_their_results() {
    let mut f = Function::new("k");
    let b = f.entry;
    let r = f.new_var(Ty::I32, "%r1");
    let c = f.push(b, Ty::I32, Op::Const(3));
    f.push_void(b, Op::StoreVar(r, c));
    let call = f.side.add_call(crate::ir::Call {
        func: FuncId(1),
        args: vec![c],
        results: vec![r],
        pure: false,
    });
    f.push_void(b, Op::Call(call));
    let l = f.push(b, Ty::I32, Op::LoadVar(r));
    let a = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, l));
    f.push_void(
        b,
        Op::Store {
            ptr: Ptr::Global(a),
            value: l,
            align: 4,
            order: MemOrder::Plain,
        },
    );
    f.block_mut(b).term = Terminator::Return(Vec::new());
    run(&mut f);
    assert_eq!(count(&f, |o| *o == Op::LoadVar(r)), 1);
    assert_eq!(count(&f, |o| matches!(o, Op::StoreVar(..))), 1);
    assert_eq!(f.block(BlockId(0)).insts.len(), 6);
}

/// A register that is only written loses its stores; the others keep theirs and their numbers
/// (emission numbers and declares only the variables still accessed, see `emit::carry`; the
/// text form leaves the unused ones out).
#[test]
fn stores_to_registers_never_read_disappear() {
    let mut f = Function::new("k");
    let b = f.entry;
    let (dead, live) = (f.new_var(Ty::I32, "r0"), f.new_var(Ty::I32, "r1"));
    let c = f.push(b, Ty::I32, Op::Const(3));
    f.push_void(b, Op::StoreVar(dead, c));
    f.push_void(b, Op::StoreVar(live, c));
    let next = f.new_block();
    f.block_mut(b).term = Terminator::Jump(next);
    let l = f.push(next, Ty::I32, Op::LoadVar(live));
    f.block_mut(next).term = Terminator::Return(vec![l]);
    run(&mut f);
    assert_eq!(
        count(&f, |o| matches!(o, Op::StoreVar(v, _) if *v == dead)),
        0
    );
    assert_eq!(f.blocks[0].insts[1].op, Op::StoreVar(live, c));
    assert_eq!(f.blocks[1].insts[0].op, Op::LoadVar(live));
    // The IR's text form lists only the variables still used.
    assert_eq!(f.mentioned_vars(), [false, true]);
    let text = f.to_string();
    assert!(text.contains("var v1: I32  // r1"), "{text}");
    assert!(!text.contains("// r0"), "{text}");
}
