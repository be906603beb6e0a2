//! The structurizer is checked by running both forms in the IR's interpreter (`crate::interp`):
//! the CFG and the tree it produced must visit the same blocks in the same order and leave the
//! same state. `interp/tests.rs` runs it on random programs with data as well.

use super::*;
use crate::interp::random::Rng;
use crate::interp::{Inputs, run, run_structured, single};
use crate::ir::{BinOp, ConvOp, FpFlags, MemOrder, Op, Ptr, Ty};

/// Builds a function whose block `i` branches to `succs[i]` (0: return, 1: jump, 2: branch,
/// more: switch). Each block records its number with a store (the run's trace) and steps a
/// random state kept in a variable, whose bits pick the branch: where control goes is data.
fn build(succs: &[Vec<u32>]) -> Function {
    let mut f = Function::new("t");
    while f.blocks.len() < succs.len() {
        f.new_block();
    }
    let state = f.new_var(Ty::I64, "state");
    let flags = FpFlags::default();
    for (i, s) in succs.iter().enumerate() {
        let b = BlockId(i as u32);
        let at = f.push(b, Ty::I64, Op::Const(0x100));
        let me = f.push(b, Ty::I32, Op::Const(i as u64));
        f.push_void(
            b,
            Op::Store {
                ptr: Ptr::Global(at),
                value: me,
                align: 4,
                order: MemOrder::Plain,
            },
        );
        let old = f.push(b, Ty::I64, Op::LoadVar(state));
        let a = f.push(b, Ty::I64, Op::Const(6364136223846793005));
        let c = f.push(b, Ty::I64, Op::Const(1442695040888963407));
        let x = f.push(b, Ty::I64, Op::Bin(BinOp::IMul, old, a, flags));
        let new = f.push(b, Ty::I64, Op::Bin(BinOp::IAdd, x, c, flags));
        f.push_void(b, Op::StoreVar(state, new));
        let shift = f.push(b, Ty::I64, Op::Const(33));
        let high = f.push(b, Ty::I64, Op::Bin(BinOp::LShr, new, shift, flags));
        let n = f.push(b, Ty::I64, Op::Const(s.len().max(1) as u64));
        let pick = f.push(b, Ty::I64, Op::Bin(BinOp::UMod, high, n, flags));
        f.block_mut(b).term = match s.len() {
            0 => Terminator::Return(Vec::new()),
            1 => Terminator::Jump(BlockId(s[0])),
            2 => {
                let zero = f.push(b, Ty::I64, Op::Const(0));
                let cond = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, pick, zero, flags));
                Terminator::Branch {
                    cond,
                    then: BlockId(s[0]),
                    else_: BlockId(s[1]),
                }
            }
            _ => Terminator::Switch {
                value: f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, pick)),
                targets: s[..s.len() - 1].iter().map(|&t| BlockId(t)).collect(),
                default: BlockId(s[s.len() - 1]),
            },
        };
    }
    f
}

/// Blocks visited per run: random CFGs may loop forever, and both forms stop at the same
/// visit.
const STEPS: usize = 400;

fn check(succs: &[Vec<u32>]) {
    let original = build(succs);
    // The dominance test for reducibility (the structurizer's fast path) agrees with the
    // search for loops with several entries that makes the CFG reducible.
    let first = Cfg::new(&original);
    assert_eq!(
        first.is_reducible(),
        irreducible::find_multi_entry(&first, &first.order, None).is_none(),
        "cfg {succs:?}"
    );
    let mut f = original.clone();
    let tree = structurize(&mut f).expect("shallow");
    // Every reachable block of the final CFG appears exactly once.
    let cfg = Cfg::new(&f);
    let mut seen = vec![0; f.blocks.len()];
    fn count(nodes: &[Node], seen: &mut [u32]) {
        for n in nodes {
            match n {
                Node::Code(b) => seen[b.0 as usize] += 1,
                Node::If { then, else_, .. } => {
                    count(then, seen);
                    count(else_, seen);
                }
                Node::Block(b) | Node::Loop(b) => count(b, seen),
                Node::Switch { cases, default, .. } => {
                    for c in cases {
                        count(c, seen);
                    }
                    count(default, seen);
                }
                _ => {}
            }
        }
    }
    count(&tree, &mut seen);
    for &b in &cfg.order {
        assert_eq!(
            seen[b.0 as usize], 1,
            "block {b:?} placed {} times in {tree:#?}",
            seen[b.0 as usize]
        );
    }
    let (m, structured) = (single(&original), single(&f));
    let trees = [tree];
    for seed in 0..40u64 {
        let mut inputs = Inputs::new(Vec::new(), seed);
        inputs.max_events = STEPS;
        let want = run(&m, &inputs).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let got = run_structured(&structured, &trees, &inputs)
            .unwrap_or_else(|e| panic!("seed {seed}, cfg {succs:?}: {e:?}\n{:#?}", trees[0]));
        if let Some(d) = want.difference(&got) {
            panic!("seed {seed}, cfg {succs:?}: {d}\ntree {:#?}", trees[0]);
        }
    }
}

fn v(x: &[u32]) -> Vec<u32> {
    x.to_vec()
}

#[test]
fn straight_line_and_diamond() {
    check(&[v(&[1]), v(&[2]), v(&[])]);
    check(&[v(&[1, 2]), v(&[3]), v(&[3]), v(&[])]);
}

#[test]
fn nested_loops_with_breaks() {
    // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> {2, 4}; 4 -> {1, 5}; 3 may break to 5.
    check(&[
        v(&[1]),
        v(&[2]),
        v(&[3]),
        v(&[2, 6]),
        v(&[1, 5]),
        v(&[]),
        v(&[4, 5]),
    ]);
}

#[test]
fn loop_exit_runs_after_the_loop() {
    // The exit block 3 has a single predecessor inside the loop; it must not be nested in it.
    let mut f = build(&[v(&[1]), v(&[2, 3]), v(&[1]), v(&[])]);
    let tree = structurize(&mut f).expect("shallow");
    fn loop_contains(nodes: &[Node], b: u32, in_loop: bool) -> bool {
        nodes.iter().any(|n| match n {
            Node::Code(x) => in_loop && x.0 == b,
            Node::Loop(body) => loop_contains(body, b, true),
            Node::Block(body) => loop_contains(body, b, in_loop),
            Node::If { then, else_, .. } => {
                loop_contains(then, b, in_loop) || loop_contains(else_, b, in_loop)
            }
            _ => false,
        })
    }
    assert!(!loop_contains(&tree, 3, false), "{tree:#?}");
    check(&[v(&[1]), v(&[2, 3]), v(&[1]), v(&[])]);
}

#[test]
fn switch_and_early_returns() {
    check(&[
        v(&[1, 2, 3, 4]),
        v(&[5]),
        v(&[]),
        v(&[5]),
        v(&[0, 5]),
        v(&[]),
    ]);
}

#[test]
fn irreducible_two_entry_loop() {
    // 0 branches into the middle of the cycle 1 <-> 2 from both sides.
    check(&[v(&[1, 2]), v(&[2, 3]), v(&[1, 3]), v(&[])]);
}

#[test]
fn irreducible_nested_in_loop() {
    check(&[
        v(&[1]),
        v(&[2, 3]),
        v(&[3, 4]),
        v(&[2, 4]),
        v(&[1, 5]),
        v(&[]),
    ]);
}

#[test]
fn random_cfgs() {
    let mut o = Rng(12345);
    for _ in 0..300 {
        let n = 2 + o.pick(12);
        let mut succs = Vec::new();
        for i in 0..n {
            let k = if i == n - 1 { 0 } else { o.pick(4) };
            let s: Vec<u32> = (0..k).map(|_| o.pick(n) as u32).collect();
            // Keep the last block as the exit, reachable from somewhere.
            succs.push(if k == 0 && i != n - 1 {
                vec![(i + 1) as u32]
            } else {
                s
            });
        }
        check(&succs);
    }
}

/// Counts the `Block`s and `Loop`s of a tree.
fn constructs(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Block(b) | Node::Loop(b) => 1 + constructs(b),
            Node::If { then, else_, .. } => constructs(then) + constructs(else_),
            Node::Switch { cases, default, .. } => {
                cases.iter().map(|c| constructs(c)).sum::<usize>() + constructs(default)
            }
            _ => 0,
        })
        .sum()
}

#[test]
fn merges_reached_by_falling_through_need_no_block() {
    // if-then and if-then-else: the arms end where the merge begins.
    for succs in [
        vec![v(&[1, 2]), v(&[2]), v(&[])],
        vec![v(&[1, 2]), v(&[3]), v(&[3]), v(&[])],
    ] {
        let mut f = build(&succs);
        let tree = structurize(&mut f).expect("shallow");
        assert_eq!(constructs(&tree), 0, "{tree:#?}");
        check(&succs);
    }
    // 1 skips block 2 (1 -> 3) while the other paths run it first: that branch to the merge 3
    // is followed by block 2's code, so one block stays (the one of merge 3).
    let succs = [v(&[1, 2]), v(&[2, 3]), v(&[3]), v(&[])];
    let mut f = build(&succs);
    let tree = structurize(&mut f).expect("shallow");
    assert_eq!(constructs(&tree), 1, "{tree:#?}");
    check(&succs);
}

/// Immediate dominators by definition: `Dom(b) = {b} ∪ ⋂ Dom(p)` over reachable predecessors,
/// iterated to the fixed point on bit sets; the idom is the strict dominator with the most
/// dominators of its own.
fn idom_by_definition(succs: &[Vec<u32>]) -> Vec<Option<u32>> {
    let n = succs.len();
    let mut reach = vec![false; n];
    let mut work = vec![0usize];
    reach[0] = true;
    while let Some(b) = work.pop() {
        for &s in &succs[b] {
            if !reach[s as usize] {
                reach[s as usize] = true;
                work.push(s as usize);
            }
        }
    }
    let all = (1u64 << n) - 1;
    let mut dom: Vec<u64> = (0..n).map(|b| if b == 0 { 1 } else { all }).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !reach[b] {
                continue;
            }
            let mut d = all;
            for p in (0..n).filter(|&p| reach[p] && succs[p].contains(&(b as u32))) {
                d &= dom[p];
            }
            d |= 1 << b;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|b| {
            if !reach[b] {
                return None;
            }
            if b == 0 {
                return Some(0);
            }
            let strict = dom[b] & !(1 << b);
            (0..n as u32)
                .filter(|&d| strict & (1 << d) != 0)
                .max_by_key(|&d| dom[d as usize].count_ones())
        })
        .collect()
}

#[test]
fn dominators_match_their_definition() {
    let mut o = Rng(777);
    for _ in 0..2000 {
        let n = 2 + o.pick(30);
        let succs: Vec<Vec<u32>> = (0..n)
            .map(|_| {
                let k = o.pick(4);
                (0..k).map(|_| o.pick(n) as u32).collect()
            })
            .collect();
        let cfg = Cfg::new(&build(&succs));
        let got: Vec<Option<u32>> = cfg.idom.iter().map(|d| d.map(|b| b.0)).collect();
        assert_eq!(got, idom_by_definition(&succs), "{succs:?}");
    }
}

/// Early exits of a long kernel: every block of a chain may branch to the last one, whose
/// idom is then the first block of the chain, and the blocks after it follow in a chain.
#[test]
fn many_branches_to_one_block() {
    let n = 3000u32;
    let mut succs: Vec<Vec<u32>> = (0..n - 3).map(|i| vec![n - 3, i + 1]).collect();
    succs[0] = vec![1, n - 3];
    succs.push(vec![n - 2]);
    succs.push(vec![n - 2, n - 1]);
    succs.push(Vec::new());
    let cfg = Cfg::new(&build(&succs));
    assert_eq!(cfg.idom[(n - 3) as usize], Some(BlockId(0)));
    assert_eq!(cfg.idom[(n - 2) as usize], Some(BlockId(n - 3)));
    assert_eq!(cfg.idom[(n - 1) as usize], Some(BlockId(n - 2)));
    assert_eq!(cfg.idom[1000], Some(BlockId(999)));
}

/// How deeply constructs nest in a tree.
fn depth(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Block(b) | Node::Loop(b) => 1 + depth(b),
            Node::If { then, else_, .. } => 1 + depth(then).max(depth(else_)),
            Node::Switch { cases, default, .. } => {
                1 + cases
                    .iter()
                    .map(|c| depth(c))
                    .max()
                    .unwrap_or(0)
                    .max(depth(default))
            }
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// `n` blocks that each exit early to the last block (`bra $Lend`) or, with `returns`, to a
/// block of their own that returns (`@p ret`).
fn exit_chain(n: u32, returns: bool) -> Vec<Vec<u32>> {
    let end = 2 * n;
    let mut succs: Vec<Vec<u32>> = Vec::new();
    for i in 0..n {
        let exit = if returns { n + i } else { end };
        succs.push(vec![exit, if i + 1 < n { i + 1 } else { end }]);
    }
    for _ in 0..n {
        succs.push(Vec::new());
    }
    succs.push(Vec::new());
    succs
}

/// A chain of early exits nests each exit's `if` in the one before, up to a depth; longer
/// chains become guarded steps that nest three deep (a `Block`, a step, an exit), whatever
/// their length (spirv-val refuses more than 1,023 nested constructs, lavapipe miscomputes past
/// 80, and the structurizer would recurse once per exit).
#[test]
fn early_exit_chains_nest_only_as_deep_as_allowed() {
    for returns in [false, true] {
        let short = exit_chain(20, returns);
        let mut f = build(&short);
        let tree = structurize(&mut f).expect("shallow");
        assert_eq!(constructs(&tree), 0, "{tree:#?}");
        assert_eq!(depth(&tree), 20);
        check(&short);

        let long = exit_chain(400, returns);
        let mut f = build(&long);
        let tree = structurize(&mut f).expect("shallow");
        assert!(depth(&tree) <= 3, "depth {}", depth(&tree));
        check(&long);

        // The walk and the passes after it stay within a test thread's stack.
        let mut f = build(&exit_chain(50_000, returns));
        let tree = structurize(&mut f).expect("shallow");
        assert!(depth(&tree) <= 3, "depth {}", depth(&tree));
    }
}
