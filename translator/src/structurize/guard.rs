//! Long chains of early exits as a flat sequence of guarded steps.
//!
//! `if (p1) leave1; s1; if (p2) leave2; s2; ...` is valid SPIR-V however long, but drivers
//! nest it again: Mesa moves the code after an `if` whose arm jumps into the other arm, and
//! lavapipe then ignores the conditions of `if`s nested more than 80 deep (gallivm's
//! `LP_MAX_TGSI_NESTING`), computing wrong results without a word. So past `simplify::nest`'s
//! depth a chain becomes
//!
//! ```text
//! taken = 0; if (p1) { leave1; taken = 1; }
//! if (taken == 0) { s1; if (p2) { leave2; taken = 2; } }
//! if (taken == 0) { s2; ... }
//! if (taken == 1) jump1;  if (taken == 2) jump2; ...
//! ```
//!
//! where `leave` is what an exit's arm does before its final jump (a branch out, a return),
//! and that jump waits for the end of the chain. It nests two deep whatever its length, with
//! one `if` at the end per distinct jump (most chains have one).

use super::node::{Node, split_arms};
use crate::ir::{BinOp, BlockId, Function, Op, Ty, VarId};

/// Rewrites `nodes`, whose `If`s before its last node are the structurizer's flattened ones
/// (one arm leaves, the other is empty), into guarded steps.
pub(super) fn guard_chain(f: &mut Function, nodes: &mut Vec<Node>) {
    let taken = f.new_var(Ty::I32, "exit.taken");
    let init = f.new_block();
    store(f, init, taken, 0);
    let mut out = vec![Node::Code(init)];
    // The ways of leaving; number k + 1 in `taken` stands for `arms[k]`.
    let mut arms: Vec<Vec<Node>> = Vec::new();
    // Which of them are a final jump alone (few distinct ones).
    let mut jumps: Vec<usize> = Vec::new();
    let mut step: Vec<Node> = Vec::new();
    let mut first = true;
    let last = nodes.len().saturating_sub(1);
    for (i, mut n) in std::mem::take(nodes).into_iter().enumerate() {
        let Some((_, arm)) = split_arms(&mut n).filter(|_| i != last) else {
            step.push(n);
            continue;
        };
        // The arm's code stays; only its final jump waits for the end of the chain (not a
        // return of values, which the arm's code computes: that arm moves whole).
        let jump = match arm.last() {
            Some(Node::Branch(_) | Node::Exit | Node::Unreachable) => true,
            Some(Node::Return(v)) => v.is_empty(),
            _ => false,
        };
        let k = match arm.pop() {
            Some(x) if jump => match jumps.iter().find(|&&k| arms[k][0] == x) {
                Some(&k) => k,
                None => {
                    arms.push(vec![x]);
                    jumps.push(arms.len() - 1);
                    arms.len() - 1
                }
            },
            x => {
                arm.extend(x);
                arms.push(std::mem::take(arm));
                arms.len() - 1
            }
        };
        let mark = f.new_block();
        store(f, mark, taken, k as u64 + 1);
        arm.push(Node::Code(mark));
        step.push(n);
        close(f, taken, &mut out, std::mem::take(&mut step), first);
        first = false;
    }
    close(f, taken, &mut out, step, first);
    for (k, leave) in arms.into_iter().enumerate() {
        let (test, cond) = compare(f, taken, k as u64 + 1);
        out.push(Node::Code(test));
        out.push(Node::If {
            cond,
            then: leave,
            else_: Vec::new(),
        });
    }
    *nodes = out;
}

/// Appends a step: as it is before the first exit, else run only while no exit was taken.
fn close(f: &mut Function, taken: VarId, out: &mut Vec<Node>, step: Vec<Node>, first: bool) {
    if first {
        out.extend(step);
    } else if !step.is_empty() {
        let (test, cond) = compare(f, taken, 0);
        out.push(Node::Code(test));
        out.push(Node::If {
            cond,
            then: step,
            else_: Vec::new(),
        });
    }
}

fn store(f: &mut Function, b: BlockId, var: VarId, k: u64) {
    let c = f.push(b, Ty::I32, Op::Const(k));
    f.push_void(b, Op::StoreVar(var, c));
}

/// A new block computing `var == k`.
fn compare(f: &mut Function, var: VarId, k: u64) -> (BlockId, crate::ir::ValueId) {
    let b = f.new_block();
    let v = f.push(b, Ty::I32, Op::LoadVar(var));
    let c = f.push(b, Ty::I32, Op::Const(k));
    let eq = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, v, c, Default::default()));
    (b, eq)
}
