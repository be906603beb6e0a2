//! The structured tree the structurizer builds and the later passes walk, with the helpers the
//! structurizer's own clean-up passes share.

use crate::ir::{BlockId, ValueId};

/// The structured form of a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// The instructions of a basic block (its terminator is expressed by the nodes after it).
    Code(BlockId),
    If {
        cond: ValueId,
        then: Vec<Node>,
        else_: Vec<Node>,
    },
    /// `Branch(d)` to this node continues after it.
    Block(Vec<Node>),
    /// `Branch(d)` to this node continues at its start; falling off its end leaves it.
    Loop(Vec<Node>),
    /// Branch to the `d`th enclosing `Block` or `Loop` (0 = innermost).
    Branch(u32),
    /// Runs `cases[value]`, or `default` when out of range.
    Switch {
        value: ValueId,
        cases: Vec<Vec<Node>>,
        default: Vec<Node>,
    },
    Return(Vec<ValueId>),
    Exit,
    Unreachable,
}

/// The arms of an `If` with one arm empty and the other not (the structurizer's flattened
/// ones, see `Structurizer::do_if`): the empty one, then the other.
pub(super) fn split_arms(n: &mut Node) -> Option<(&mut Vec<Node>, &mut Vec<Node>)> {
    match n {
        Node::If { then, else_, .. } if then.is_empty() != else_.is_empty() => {
            Some(if then.is_empty() {
                (then, else_)
            } else {
                (else_, then)
            })
        }
        _ => None,
    }
}
