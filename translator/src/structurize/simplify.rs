//! Removes `Block`s that nothing needs: those whose every branch to their end is the last thing
//! done on its path anyway (`if (c) { ...; break } else { ...; break }` at the end of the block,
//! the shape Ramsey's algorithm gives an `if` whose arms meet again). Emission turns every
//! `Block` into a one-iteration SPIR-V loop; drivers that do not remove those pay for loop
//! bookkeeping in code that never loops.

use super::Node;

/// Simplifies a tree, innermost constructs first.
pub fn simplify(nodes: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        match n {
            Node::Block(body) => {
                let body = simplify(body);
                if only_tail_branches(&body, 0, true) {
                    out.extend(strip(body, 0, true));
                } else {
                    out.push(Node::Block(body));
                }
            }
            Node::Loop(body) => out.push(Node::Loop(simplify(body))),
            Node::If { cond, then, else_ } => out.push(Node::If {
                cond,
                then: simplify(then),
                else_: simplify(else_),
            }),
            Node::Switch {
                value,
                cases,
                default,
            } => out.push(Node::Switch {
                value,
                cases: cases.into_iter().map(simplify).collect(),
                default: simplify(default),
            }),
            other => out.push(other),
        }
    }
    out
}

/// Whether every branch to the construct `depth` levels out (a `Block`) is the last node of
/// a path that ends at that construct's end anyway (`tail`: `nodes` end where the block ends).
fn only_tail_branches(nodes: &[Node], depth: u32, tail: bool) -> bool {
    let last = nodes.len().saturating_sub(1);
    nodes.iter().enumerate().all(|(i, n)| {
        let at_tail = tail && i == last;
        match n {
            Node::Branch(d) => *d != depth || at_tail,
            Node::If { then, else_, .. } => {
                only_tail_branches(then, depth, at_tail)
                    && only_tail_branches(else_, depth, at_tail)
            }
            Node::Switch { cases, default, .. } => {
                cases.iter().all(|c| only_tail_branches(c, depth, at_tail))
                    && only_tail_branches(default, depth, at_tail)
            }
            // Inside a nested construct a branch here is never a fall-through.
            Node::Block(body) | Node::Loop(body) => only_tail_branches(body, depth + 1, false),
            _ => true,
        }
    })
}

/// The block's body without it: branches to it (all in tail position) disappear, branches
/// further out lose one level.
fn strip(nodes: Vec<Node>, depth: u32, tail: bool) -> Vec<Node> {
    let last = nodes.len().saturating_sub(1);
    let mut out = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.into_iter().enumerate() {
        let at_tail = tail && i == last;
        match n {
            Node::Branch(d) if d == depth => {}
            Node::Branch(d) if d > depth => out.push(Node::Branch(d - 1)),
            Node::If { cond, then, else_ } => out.push(Node::If {
                cond,
                then: strip(then, depth, at_tail),
                else_: strip(else_, depth, at_tail),
            }),
            Node::Switch {
                value,
                cases,
                default,
            } => out.push(Node::Switch {
                value,
                cases: cases
                    .into_iter()
                    .map(|c| strip(c, depth, at_tail))
                    .collect(),
                default: strip(default, depth, at_tail),
            }),
            Node::Block(body) => out.push(Node::Block(strip(body, depth + 1, false))),
            Node::Loop(body) => out.push(Node::Loop(strip(body, depth + 1, false))),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ir::{Function, Op, Terminator, Ty};
    use crate::structurize::{Node, structurize};

    /// `if (c) A else B; C` and `if (c) A; C` need no `Block`. (That each tree means its CFG
    /// is checked by the random CFG tests in `tests.rs`, which run the whole structurizer.)
    #[test]
    fn diamonds_lose_their_block() {
        for with_else in [true, false] {
            let mut f = Function::new("t");
            let (a, b, c) = (f.new_block(), f.new_block(), f.new_block());
            let cond = f.push(f.entry, Ty::Bool, Op::Const(1));
            let else_ = if with_else { b } else { c };
            f.block_mut(f.entry).term = Terminator::Branch {
                cond,
                then: a,
                else_,
            };
            f.block_mut(a).term = Terminator::Jump(c);
            f.block_mut(b).term = Terminator::Jump(c);
            f.block_mut(c).term = Terminator::Return(Vec::new());
            let tree = structurize(&mut f);
            let then = vec![Node::Code(a)];
            let else_ = if with_else {
                vec![Node::Code(b)]
            } else {
                Vec::new()
            };
            assert_eq!(
                tree,
                vec![
                    Node::Code(f.entry),
                    Node::If { cond, then, else_ },
                    Node::Code(c),
                    Node::Return(Vec::new()),
                ],
                "with else: {with_else}"
            );
        }
    }
}
