//! The SIMT pass's form of the structured tree, shared by its rewrite (`mod.rs`) and its
//! uniformity analysis (`uniform.rs`).

use crate::ir::{BlockId, ValueId};

/// The tree with construct ids instead of branch depths.
#[derive(Clone, Debug)]
pub(super) enum U {
    Code(BlockId),
    If {
        cond: ValueId,
        then: Vec<U>,
        else_: Vec<U>,
    },
    Block(u32, Vec<U>),
    Loop(u32, Vec<U>),
    Branch(u32),
    Switch {
        value: ValueId,
        cases: Vec<Vec<U>>,
        default: Vec<U>,
    },
    Return(Vec<ValueId>),
    Exit,
    Unreachable,
}
