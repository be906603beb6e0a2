//! One invocation's state, kept explicit so that it can stop at a synchronization point and
//! resume there: a stack of activations, each with its values, variables and position (a block
//! and instruction of a CFG, or a path of cursors through a structured tree).

use std::collections::HashMap;

use super::model::Event;
use super::ops::Stop;
use crate::ir::{BlockId, Function, ValueId, VarId, WarpOp};
use crate::structurize::Node;

/// How a function's body ended.
#[derive(Clone, Debug)]
pub(super) enum End {
    Return(Vec<u64>),
    Exit,
}

/// One call's values and variables.
pub(super) struct Frame<'a> {
    /// The function, and its index in the module.
    pub(super) f: &'a Function,
    pub(super) index: usize,
    pub(super) params: Vec<u64>,
    pub(super) values: Vec<Option<u64>>,
    pub(super) vars: Vec<u64>,
    /// Per variable, whether its stores are events; empty when none are.
    pub(super) traced: Vec<bool>,
}

/// What kind of construct a cursor runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A function's body, an arm of an `if`, a case of a `switch`.
    Seq,
    Block,
    Loop,
}

/// A position in a list of structured nodes.
pub(super) struct Cursor<'a> {
    pub(super) nodes: &'a [Node],
    /// The node to run next.
    pub(super) next: usize,
    pub(super) kind: Kind,
    /// Orders positions of different runs of the list: the arm or case a `Seq` is, a loop's
    /// iteration.
    pub(super) tag: u64,
}

/// Where an activation is.
pub(super) enum Pos<'a> {
    Cfg {
        block: BlockId,
        inst: usize,
    },
    Tree {
        cursors: Vec<Cursor<'a>>,
        /// The block of a `Node::Code` being run, and its next instruction.
        code: Option<(BlockId, usize)>,
    },
}

/// A call the activation waits on: the variables its results go to, and the caller's local
/// words to restore when it returns.
pub(super) struct Pending {
    pub(super) results: Vec<VarId>,
    pub(super) saved: Vec<(u64, Option<u32>)>,
}

pub(super) struct Activation<'a> {
    pub(super) fr: Frame<'a>,
    pub(super) pos: Pos<'a>,
    pub(super) call: Option<Pending>,
}

/// A synchronization operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sync {
    Barrier,
    /// A barrier a `bar.arrive` stands for: it may meet the other barriers its invocations'
    /// partners wait at.
    Arrive,
    Warp(WarpOp),
}

/// Who meets at a synchronization operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    /// The invocations of one device subgroup.
    Subgroup,
    Warp,
    Workgroup,
}

impl Sync {
    pub(super) fn scope(self) -> Scope {
        match self {
            Sync::Barrier
            | Sync::Arrive
            | Sync::Warp(WarpOp::WorkgroupAny | WarpOp::WorkgroupCount) => Scope::Workgroup,
            Sync::Warp(WarpOp::SubgroupRead) => Scope::Subgroup,
            Sync::Warp(_) => Scope::Warp,
        }
    }
}

/// What an instruction did besides giving a result.
pub(super) enum Effect {
    Value(Option<u64>),
    Call {
        func: usize,
        args: Vec<u64>,
        results: Vec<VarId>,
    },
    Sync(Sync, Vec<u64>),
}

/// An invocation stopped at a synchronization operation.
pub(super) struct Wait {
    pub(super) op: Sync,
    pub(super) args: Vec<u64>,
    /// Where it stopped, ordered as the program runs (see [`Thread::key`]).
    pub(super) key: Vec<u64>,
    /// The instruction's result, if it has one.
    pub(super) result: Option<ValueId>,
}

/// What belongs to the invocation besides its stack.
pub(super) struct Own {
    /// Linear index in the workgroup, and position in the block.
    pub(super) id: u32,
    pub(super) coord: [u32; 3],
    pub(super) local: HashMap<u64, u32>,
    pub(super) events: Vec<Event>,
    pub(super) fuel: u64,
    pub(super) end: Option<End>,
    pub(super) wait: Option<Wait>,
}

pub(super) struct Thread<'a> {
    pub(super) stack: Vec<Activation<'a>>,
    pub(super) own: Own,
}

impl Thread<'_> {
    /// Whether the invocation can run now: it neither ended nor waits.
    pub(super) fn runnable(&self) -> bool {
        self.own.end.is_none() && self.own.wait.is_none()
    }

    /// Where the invocation is, as a sequence compared lexicographically: earlier in the
    /// program's order is less. In a tree that order is the one the SIMT emulation runs
    /// constructs in (an `if`'s then arm before its else arm, a loop's iterations in turn), so
    /// the invocations that meet at a warp operation are the ones that run it together there;
    /// a CFG has only its blocks' numbering.
    pub(super) fn key(&self) -> Vec<u64> {
        let mut key = Vec::new();
        for a in &self.stack {
            match &a.pos {
                Pos::Cfg { block, inst } => key.extend([u64::from(block.0), *inst as u64]),
                Pos::Tree { cursors, code } => {
                    for c in cursors {
                        key.extend([c.tag, c.next as u64]);
                    }
                    if let Some((_, inst)) = code {
                        key.push(*inst as u64);
                    }
                }
            }
        }
        key
    }
}

/// The value `v` holds in frame `fr`.
pub(super) fn get(fr: &Frame<'_>, v: ValueId) -> Result<u64, Stop> {
    fr.values
        .get(v.0 as usize)
        .copied()
        .flatten()
        .ok_or_else(|| Stop::Undefined(format!("{v:?} used where it is not defined")))
}

pub(super) fn gets(fr: &Frame<'_>, vs: &[ValueId]) -> Result<Vec<u64>, Stop> {
    vs.iter().map(|&v| get(fr, v)).collect()
}
