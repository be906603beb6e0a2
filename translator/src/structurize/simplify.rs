//! Drops the `Block`s that falling through already expresses, after nesting early exits back
//! (`nest`).
//!
//! The structurizer puts a `Block` before every merge node, so an `if` whose arms meet again
//! becomes `Block { ..; If { .., Branch(0) } }`. When every branch to a `Block` is the last thing
//! its path does before the block's end, removing the branches and the `Block` changes nothing
//! but saves a SPIR-V loop construct (four blocks) per merge. Nodes do not move, so
//! synchronization keeps its place in the tree.

use super::node::{Node, split_arms};
use crate::ir::Function;

/// How deep `nest` may nest the code after early exits. Below SPIR-V's 1,023 nested constructs
/// and below the 80 nested `if`s that lavapipe handles (see `guard.rs`), with room for the
/// kernel's own nesting.
const NEST_DEPTH: usize = 64;

/// Moves the code after each `If` of `nodes` with an empty arm (see `Structurizer::do_if`) into
/// that arm, `If { c, [Branch], [] }; rest` becoming `If { c, [Branch], [rest] }`, whose branch
/// `drop_blocks` can then usually drop. Where that would nest deeper than `NEST_DEPTH`, the
/// chain becomes guarded steps instead (`guard.rs`). `depth` counts the constructs around
/// `nodes`.
fn nest(f: &mut Function, nodes: &mut Vec<Node>, depth: usize) {
    // Only the structurizer's flattened ifs stand before other nodes here.
    let last = nodes.len().saturating_sub(1);
    let flat = nodes[..last].iter_mut().filter_map(split_arms).count();
    if flat > 0 && depth + flat <= NEST_DEPTH {
        // From the last one back, each takes what follows it.
        let mut end = last;
        while let Some(q) = nodes[..end]
            .iter_mut()
            .rposition(|n| split_arms(n).is_some())
        {
            let rest = nodes.split_off(q + 1);
            if let Some((empty, _)) = split_arms(&mut nodes[q]) {
                *empty = rest;
            }
            end = q;
        }
    } else if flat > 0 {
        super::guard::guard_chain(f, nodes);
    }
}

/// Which constructs around a sequence its branches go to: bit `k` for the construct `k` levels
/// out, in `tail` for a branch in tail position (with the sequence itself in tail position, see
/// [`tail_only`]), else in `other`. `deep`: a branch went further out than the bits reach.
#[derive(Clone, Copy, Default)]
pub(super) struct Escapes {
    tail: u128,
    other: u128,
    deep: bool,
}

impl Escapes {
    /// A `Branch(d)` (in tail position until `add` says otherwise).
    fn branch(d: u32) -> Escapes {
        match 1u128.checked_shl(d) {
            Some(tail) => Escapes {
                tail,
                ..Escapes::default()
            },
            None => Escapes {
                deep: true,
                ..Escapes::default()
            },
        }
    }

    /// `self`'s branches as seen from the sequence around a construct holding it.
    fn outward(self) -> Escapes {
        Escapes {
            tail: self.tail >> 1,
            other: self.other >> 1,
            deep: self.deep,
        }
    }

    /// Adds a part reached at a position that is a tail (`tail`) or not.
    fn add(&mut self, e: Escapes, tail: bool) {
        if tail {
            self.tail |= e.tail;
            self.other |= e.other;
        } else {
            self.other |= e.tail | e.other;
        }
        self.deep |= e.deep;
    }
}

/// Nests `nodes` (outermost first), then drops, innermost first, every `Block` whose branches
/// are all in tail position. `depth` counts the constructs around `nodes`. Returns where the
/// branches of `nodes` go, so that each `Block` is judged from its body's summary: walking the
/// body again (`tail_only`) for each enclosing `Block` was quadratic in their nesting.
pub(super) fn drop_blocks(f: &mut Function, nodes: &mut Vec<Node>, depth: usize) -> Escapes {
    nest(f, nodes, depth);
    let d = depth + 1;
    let last = nodes.len().saturating_sub(1);
    let mut out = Escapes::default();
    // Positions of the blocks that go, each checked once.
    let mut gone: Vec<usize> = Vec::new();
    for (i, n) in nodes.iter_mut().enumerate() {
        let e = match n {
            Node::Block(body) => {
                let e = drop_blocks(f, body, d);
                let tails = if e.deep {
                    tail_only(body, 0, true)
                } else {
                    e.other & 1 == 0
                };
                debug_assert_eq!(tails, tail_only(body, 0, true));
                if tails {
                    strip(body, 0);
                    gone.push(i);
                }
                e.outward()
            }
            Node::Loop(body) => drop_blocks(f, body, d).outward(),
            Node::If { then, else_, .. } => {
                let mut e = drop_blocks(f, then, d);
                e.add(drop_blocks(f, else_, d), true);
                e
            }
            Node::Switch { cases, default, .. } => {
                let mut e = drop_blocks(f, default, d);
                for c in cases.iter_mut() {
                    e.add(drop_blocks(f, c, d), true);
                }
                e
            }
            Node::Branch(b) => Escapes::branch(*b),
            Node::Code(_) | Node::Return(_) | Node::Exit | Node::Unreachable => continue,
        };
        // A dropped block's body takes its place: its nodes keep their tail positions.
        out.add(e, i == last);
    }
    // Most sequences keep their blocks: rebuilt only when one goes.
    if gone.is_empty() {
        return out;
    }
    let old = std::mem::take(nodes);
    nodes.reserve(old.len());
    let mut gone = gone.into_iter().peekable();
    for (i, n) in old.into_iter().enumerate() {
        match n {
            Node::Block(mut body) if gone.next_if_eq(&i).is_some() => nodes.append(&mut body),
            other => nodes.push(other),
        }
    }
    out
}

/// Whether every `Branch` of `nodes` to the construct `depth` levels out is in tail position:
/// reached at the end of `nodes` (when `tail`), where falling off would leave that construct
/// just the same. Falling off a nested `Block` or `Loop` leaves it, so their ends are tails too.
fn tail_only(nodes: &[Node], depth: u32, tail: bool) -> bool {
    let last = nodes.len().saturating_sub(1);
    nodes.iter().enumerate().all(|(i, n)| {
        let t = tail && i == last;
        match n {
            Node::Branch(d) => *d != depth || t,
            Node::If { then, else_, .. } => tail_only(then, depth, t) && tail_only(else_, depth, t),
            Node::Switch { cases, default, .. } => {
                cases.iter().all(|c| tail_only(c, depth, t)) && tail_only(default, depth, t)
            }
            Node::Block(body) | Node::Loop(body) => tail_only(body, depth + 1, t),
            Node::Code(_) | Node::Return(_) | Node::Exit | Node::Unreachable => true,
        }
    })
}

/// Removes the branches to the construct `depth` levels out (all in tail position) and
/// renumbers the branches that cross it, which no longer exists.
fn strip(nodes: &mut Vec<Node>, depth: u32) {
    nodes.retain(|n| !matches!(n, Node::Branch(d) if *d == depth));
    for n in nodes {
        match n {
            Node::Branch(d) if *d > depth => *d -= 1,
            Node::If { then, else_, .. } => {
                strip(then, depth);
                strip(else_, depth);
            }
            Node::Switch { cases, default, .. } => {
                cases.iter_mut().for_each(|c| strip(c, depth));
                strip(default, depth);
            }
            Node::Block(body) | Node::Loop(body) => strip(body, depth + 1),
            _ => {}
        }
    }
}
