//! The SIMT pass's form of the structured tree, shared by its rewrite (`mod.rs` and the files
//! beside it) and its uniformity analysis (`uniform.rs`).

use crate::ir::{BlockId, ValueId};

/// The tree with construct ids instead of branch depths.
#[derive(Clone, Debug)]
pub(super) enum Labelled {
    Code(BlockId),
    If {
        cond: ValueId,
        then: Vec<Labelled>,
        else_: Vec<Labelled>,
    },
    Block(u32, Vec<Labelled>),
    Loop(u32, Vec<Labelled>),
    Branch(u32),
    Switch {
        value: ValueId,
        cases: Vec<Vec<Labelled>>,
        default: Vec<Labelled>,
    },
    Return(Vec<ValueId>),
    Exit,
    Unreachable,
}
