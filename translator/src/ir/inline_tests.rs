//! Inlining keeps the side tables' rule: each call instruction indexes an entry of its own
//! function's [`Side`](super::Side), and no two instructions share one (passes rewrite an
//! entry through its instruction, so a shared entry would be rewritten twice).

use super::inline::inline_where;
use super::{Call, FuncId, Function, Module, Op, Terminator};

fn call(f: &mut Function, func: u32) {
    let c = f.side.add_call(Call {
        func: FuncId(func),
        args: Vec::new(),
        results: Vec::new(),
        pure: false,
    });
    f.push_void(f.entry, Op::Call(c));
}

#[test]
fn each_inlined_call_gets_its_own_entry_naming_the_renumbered_callee() {
    // k calls f twice; f (inlined: it exits) calls g (kept: it does not).
    let mut g = Function::new("g");
    g.block_mut(g.entry).term = Terminator::Return(Vec::new());
    let mut f = Function::new("f");
    call(&mut f, 2);
    f.block_mut(f.entry).term = Terminator::Exit;
    let mut k = Function::new("k");
    call(&mut k, 1);
    call(&mut k, 1);
    k.block_mut(k.entry).term = Terminator::Return(Vec::new());
    let mut m = Module {
        functions: vec![k, f, g],
        entry: FuncId(0),
        ..Module::default()
    };
    inline_where(&mut m, |h| {
        h.blocks.iter().any(|b| b.term == Terminator::Exit)
    });
    let names: Vec<&str> = m.functions.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["k", "g"]);
    let k = &m.functions[0];
    let calls: Vec<_> = k
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i.op {
            Op::Call(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2, "one call of g per copy of f");
    assert_ne!(calls[0], calls[1]);
    for c in calls {
        assert_eq!(
            k.side.call(c).func,
            FuncId(1),
            "g is function 1 after pruning"
        );
    }
}

/// A function that gains a barrier by inlining says so (`Function::may_sync`): `forward` and
/// the SIMT emulation look for synchronization only where it is set.
#[test]
fn inlining_a_barrier_marks_the_caller_as_synchronizing() {
    let mut f = Function::new("f");
    f.push_void(f.entry, Op::Barrier);
    f.block_mut(f.entry).term = Terminator::Exit;
    assert!(f.may_sync);
    let mut k = Function::new("k");
    call(&mut k, 1);
    k.block_mut(k.entry).term = Terminator::Return(Vec::new());
    assert!(!k.may_sync);
    let mut m = Module {
        functions: vec![k, f],
        entry: FuncId(0),
        ..Module::default()
    };
    inline_where(&mut m, |_| true);
    let k = &m.functions[0];
    assert!(
        k.blocks
            .iter()
            .any(|b| b.insts.iter().any(|i| i.op == Op::Barrier))
    );
    assert!(k.may_sync);
}
