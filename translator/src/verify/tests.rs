//! Functions broken on purpose, each in one way a pass could break them, are refused with the
//! rule they break; a well-formed one passes (as does every kernel the tests translate, checked
//! after each pass in `pipeline.rs`).

use super::*;
use crate::ir::{AtomicOp, BinOp, BlockId, Call, ConvOp, FuncId, Ptr, Scope, Ty, ValueId};

fn module(f: Function) -> Module {
    Module {
        functions: vec![f],
        entry: FuncId(0),
        ..Default::default()
    }
}

fn refused(m: &Module, rule: &str) {
    match super::module(m) {
        Ok(()) => panic!("accepted, though {rule}:\n{m}"),
        Err(e) => assert!(e.to_string().contains(rule), "{e}, expected: {rule}"),
    }
}

/// `b0: x = 1; y = x + x; branch y < 7 to b1 or b2; b1: v = y; b2: return`, with `y` and the
/// condition.
fn diamond() -> (Function, ValueId, ValueId) {
    let mut f = Function::new("k");
    let (b0, b1, b2) = (f.entry, f.new_block(), f.new_block());
    let x = f.push(b0, Ty::I32, Op::Const(1));
    let y = f.push(b0, Ty::I32, Op::Bin(BinOp::IAdd, x, x, Default::default()));
    let seven = f.push(b0, Ty::I32, Op::Const(7));
    let c = f.push(
        b0,
        Ty::Bool,
        Op::Bin(BinOp::ULt, y, seven, Default::default()),
    );
    f.block_mut(b0).term = Terminator::Branch {
        cond: c,
        then: b1,
        else_: b2,
    };
    let v = f.new_var(Ty::I32, "v");
    f.push_void(b1, Op::StoreVar(v, y));
    f.block_mut(b1).term = Terminator::Jump(b2);
    f.block_mut(b2).term = Terminator::Return(vec![]);
    (f, y, c)
}

/// The structured form of [`diamond`].
fn diamond_tree(c: ValueId) -> Vec<Node> {
    vec![
        Node::Code(BlockId(0)),
        Node::If {
            cond: c,
            then: vec![Node::Code(BlockId(1))],
            else_: vec![],
        },
        Node::Code(BlockId(2)),
        Node::Return(vec![]),
    ]
}

#[test]
fn a_well_formed_function_passes_in_both_forms() {
    let (f, _, c) = diamond();
    let m = module(f);
    super::module(&m).unwrap_or_else(|e| panic!("{e}"));
    structured(&m, &[diamond_tree(c)]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_use_before_its_definition_is_refused() {
    let mut f = Function::new("k");
    let b = f.entry;
    let x = ValueId(1);
    f.push(b, Ty::I32, Op::Bin(BinOp::IAdd, x, x, Default::default()));
    assert_eq!(f.push(b, Ty::I32, Op::Const(1)), x);
    f.block_mut(b).term = Terminator::Return(vec![]);
    refused(
        &module(f),
        "b0[0] uses %1, defined at b0[1], which does not come first",
    );
}

#[test]
fn a_use_in_a_block_its_definition_does_not_dominate_is_refused() {
    let (mut f, _, _) = diamond();
    // Made in `then`, read after the merge, which `else` reaches as well.
    let z = f.push(BlockId(1), Ty::I32, Op::Const(5));
    let v = f.new_var(Ty::I32, "w");
    f.push_void(BlockId(2), Op::StoreVar(v, z));
    refused(&module(f), "b2[0] uses %4, defined at b1[1]");
    // Read in the block the definition dominates, it is fine.
    let (mut f, _, _) = diamond();
    let z = f.push(BlockId(0), Ty::I32, Op::Const(5));
    let v = f.new_var(Ty::I32, "w");
    f.push_void(BlockId(2), Op::StoreVar(v, z));
    super::module(&module(f)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn operands_of_the_wrong_type_are_refused() {
    let (mut f, y, _) = diamond();
    let h = f.push(BlockId(1), Ty::F32, Op::Const(0));
    f.push(
        BlockId(1),
        Ty::F32,
        Op::Bin(BinOp::FAdd, h, y, Default::default()),
    );
    refused(
        &module(f),
        "float operands of the result's type, not (F32, I32, F32)",
    );

    let (mut f, y, _) = diamond();
    f.push(BlockId(1), Ty::I16, Op::Conv(ConvOp::ZExt, y));
    refused(&module(f), "ZExt to I16 of a fitting type, not I32");

    let (mut f, y, _) = diamond();
    let v = f.new_var(Ty::I64, "wide");
    f.push_void(BlockId(1), Op::StoreVar(v, y));
    refused(&module(f), "store into v1 %1 is I64, not I32");

    let (mut f, y, _) = diamond();
    let one = f.push(BlockId(1), Ty::I32, Op::Const(1));
    f.push(
        BlockId(1),
        Ty::I32,
        Op::Atomic {
            op: AtomicOp::Add,
            ptr: Ptr::Global(y),
            value: one,
            scope: Scope::Device,
            sem: Default::default(),
        },
    );
    refused(&module(f), "address of Global(ValueId(1)) is I64, not I32");

    let (mut f, y, _) = diamond();
    f.push_void(BlockId(1), Op::Conv(ConvOp::ZExt, y));
    refused(&module(f), "no result for an operation that makes a value");
}

#[test]
fn bad_terminators_are_refused() {
    let (mut f, y, _) = diamond();
    f.block_mut(BlockId(0)).term = Terminator::Branch {
        cond: y,
        then: BlockId(1),
        else_: BlockId(2),
    };
    refused(&module(f), "condition %1 is I32, not Bool");

    let (mut f, y, _) = diamond();
    f.block_mut(BlockId(1)).term = Terminator::Return(vec![y]);
    refused(&module(f), "returns [I32] from a function of []");

    let (mut f, _, _) = diamond();
    f.block_mut(BlockId(1)).term = Terminator::Jump(BlockId(9));
    refused(&module(f), "b1 branches to b9, of 3 blocks");
}

#[test]
fn a_call_that_does_not_match_its_callee_is_refused() {
    let (mut f, y, _) = diamond();
    let mut g = Function::new("g");
    g.params = vec![Ty::I64];
    g.block_mut(g.entry).term = Terminator::Return(vec![]);
    let call = f.side.add_call(Call {
        func: FuncId(1),
        args: vec![y],
        results: vec![],
        pure: false,
    });
    f.push_void(BlockId(1), Op::Call(call));
    let mut m = module(f);
    m.functions.push(g);
    refused(&m, "arguments of `g` are [I64], not [I32]");
}

#[test]
fn unstructured_or_misordered_trees_are_refused() {
    let (f, _, c) = diamond();
    let m = module(f);
    let refused_tree = |tree: Vec<Node>, rule: &str| match structured(&m, &[tree]) {
        Ok(()) => panic!("accepted, though {rule}"),
        Err(e) => assert!(e.to_string().contains(rule), "{e}, expected: {rule}"),
    };
    refused_tree(
        vec![Node::Block(vec![Node::Code(BlockId(0)), Node::Branch(1)])],
        "a branch out of 1 constructs inside 1 blocks and loops",
    );
    refused_tree(
        vec![Node::Code(BlockId(0)), Node::Code(BlockId(0))],
        "the tree places b0 twice",
    );
    refused_tree(
        vec![Node::Code(BlockId(0)), Node::Code(BlockId(7))],
        "the tree places b7, of 3 blocks",
    );
    refused_tree(
        vec![
            Node::If {
                cond: c,
                then: vec![],
                else_: vec![],
            },
            Node::Code(BlockId(0)),
        ],
        "an if uses %3 before the tree defines it",
    );
    refused_tree(
        vec![Node::Code(BlockId(1)), Node::Code(BlockId(0))],
        "b1[0] uses %1 before the tree defines it",
    );
    let mut tree = diamond_tree(c);
    tree.push(Node::If {
        cond: ValueId(1),
        then: vec![],
        else_: vec![],
    });
    refused_tree(tree, "condition %1 is I32, not Bool");
    let mut deep = vec![Node::Code(BlockId(0))];
    for _ in 0..=crate::structurize::MAX_DEPTH {
        deep = vec![Node::Loop(deep)];
    }
    refused_tree(deep, "the tree nests deeper than");
}
