//! The builder's block shapes and per-block caches, read back from the function it built.

use super::flow::Flow;
use super::{Build, Builder, DeviceTypes};
use crate::ir::{BinOp, Function, Op, Terminator, Ty};

fn builder(float64: bool) -> Builder {
    let types = DeviceTypes {
        float64,
        float16: true,
        int8: true,
        int16: true,
    };
    Builder::new(Function::new("k"), types)
}

#[test]
fn if_else_makes_then_else_join_in_that_order() {
    let mut b = builder(true);
    let entry = b.cur;
    let c = b.konst(Ty::Bool, 1);
    let (mut in_then, mut in_else) = (None, None);
    b.if_else(
        c,
        |b| {
            in_then = Some(b.cur);
            b.konst(Ty::I32, 1);
        },
        |b| {
            in_else = Some(b.cur);
            b.konst(Ty::I32, 2);
        },
    );
    let [then, else_, join] = [1, 2, 3].map(crate::ir::BlockId);
    assert_eq!((in_then, in_else), (Some(then), Some(else_)));
    assert_eq!(b.cur, join);
    assert_eq!(
        b.f.block(entry).term,
        Terminator::Branch {
            cond: c,
            then,
            else_
        }
    );
    assert_eq!(b.f.block(then).term, Terminator::Jump(join));
    assert_eq!(b.f.block(else_).term, Terminator::Jump(join));
    assert_eq!(b.f.block(join).term, Terminator::Unreachable);
    assert_eq!(b.f.blocks.len(), 4);
}

#[test]
fn constants_and_held_values_are_made_once_per_block() {
    let mut b = builder(true);
    let one = b.konst(Ty::I32, 1);
    assert_eq!(b.konst(Ty::I32, 1), one);
    assert_ne!(b.konst(Ty::I64, 1), one);
    let v = b.f.new_var(Ty::I32, "v");
    b.store_var(v, one);
    assert_eq!(b.load_var(v), one);
    b.jump_to_new_block();
    let again = b.konst(Ty::I32, 1);
    assert_ne!(again, one);
    let loaded = b.load_var(v);
    assert_ne!(loaded, one);
    assert_eq!(b.f.block(b.cur).insts.len(), 2);
}

#[test]
fn missing_types_are_noted_once_until_taken() {
    let mut b = builder(false);
    assert!(!b.met_missing());
    let x = b.konst(Ty::F64, 0);
    b.bin(BinOp::FAdd, x, x);
    b.konst(Ty::F32, 0);
    assert_eq!(b.take_missing(), ["float64 (shaderFloat64)"]);
    assert!(!b.met_missing());
    b.emit(Ty::F64, Op::Const(1));
    assert_eq!(b.take_missing(), ["float64 (shaderFloat64)"]);
}

#[test]
fn a_comparison_is_a_predicate() {
    let mut b = builder(true);
    let x = b.konst(Ty::I64, 3);
    let lt = b.bin(BinOp::ULt, x, x);
    let sum = b.bin(BinOp::IAdd, x, x);
    assert_eq!(b.f.ty(lt), Ty::Bool);
    assert_eq!(b.f.ty(sum), Ty::I64);
}
