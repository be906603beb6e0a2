//! SIMT emulation for devices whose subgroups are smaller than a warp (`WarpStrategy::Emulated`,
//! e.g. lavapipe with subgroups of 4, 8 or 16).
//!
//! There, warp operations exchange data through shared memory between workgroup barriers, and a
//! workgroup barrier must be reached by every thread of the block together. PTX code runs warp
//! operations (and sometimes `bar.sync`) in control flow that differs between threads
//! (`if (warp == 0) { shfl... }`, loops with per-thread trip counts, early `return`). This pass
//! makes every synchronization point uniform across the block:
//!
//! - each thread has a state variable: 0 while it executes normally, otherwise the construct it
//!   waits to leave (a block's end, a loop's next iteration, an `if` arm it did not take, the end
//!   of the kernel);
//! - constructs that contain synchronization run for every thread: both arms of an `if` in turn,
//!   and a loop until no thread of the block still iterates (a block-wide vote after each
//!   iteration); code without synchronization inside them runs natively, guarded by the state;
//! - a synchronization point is executed by every thread; the ones that are not active take part
//!   without contributing (their lanes read as inactive).
//!
//! Branches, returns and loops keep their meaning for every thread; threads merely wait at the
//! points where they would otherwise have diverged. Kernels without synchronization are untouched.
//! Where it is not valid: synchronization inside device functions (`.func`) is refused for now.
//!
//! Here: the entry and the conversions between the structured tree and its labelled form. The
//! rewrite itself is in `native` (code without synchronization), `sync` (constructs that contain
//! it) and `state` (the pieces both build from).

mod expand;
mod labelled;
mod lanes;
mod native;
mod state;
mod sync;
mod uniform;

pub use lanes::{call_effects, serve_in_subgroups};

use crate::check::Map as HashMap;

use crate::ir::{BlockId, Function, Op, Ty, VarId};
use crate::structurize::Node;
use labelled::Labelled;

/// The state value of an active thread.
const ACTIVE: u64 = 0;
/// The state of a thread that returned (or exited).
const RETURNED: u64 = 0xFFFF_FFFF;

/// Rewrites a kernel's tree so that its synchronization points are block-uniform, then expands
/// the warp operations into shared-memory code. Replaces `tree` with the new tree and returns
/// the words of warp scratch memory used per thread (0: none); `None` (and `tree` as it was)
/// when the function has no synchronization (nothing to do). A kernel the emulation cannot
/// keep is an error, after which `f` and `tree` are not to be used.
pub fn emulate(f: &mut Function, tree: &mut Vec<Node>) -> Result<Option<u32>, TwoWayHandshake> {
    if !f.may_sync {
        return Ok(None);
    }
    // One walk: the blocks that synchronize, the block defining each value, and the variables
    // still mentioned (`ir::forward` leaves the ones it made unused in place: they get no
    // initial value).
    let mut sync_blocks = vec![false; f.blocks.len()];
    let mut defs = vec![None; f.values.len()];
    let mut mentioned = vec![false; f.vars.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for inst in &b.insts {
            sync_blocks[bi] |= inst.op.is_sync();
            if let Some(r) = inst.result {
                defs[r.0 as usize] = Some(BlockId(bi as u32));
            }
            inst.op.mention_vars(&f.side, &mut mentioned);
        }
    }
    if !sync_blocks.iter().any(|&s| s) {
        return Ok(None);
    }
    let mut next_id = 0;
    let labelled = to_labelled(std::mem::take(tree), &mut Vec::new(), &mut next_id);
    let uni = uniform::analyze(f, &labelled);
    let uniform_vars: Vec<VarId> = uni
        .uniform_vars()
        .filter(|v| mentioned[v.0 as usize])
        .collect();
    let st = f.new_var(Ty::I32, "simt.state");
    let mut t = Uniformizer {
        f,
        st,
        next_id,
        next_code: 1,
        sync_blocks,
        defs,
        exit_code: HashMap::default(),
        cont_code: HashMap::default(),
        uni,
        native_targets: Vec::new(),
        failed: false,
        handshake: false,
    };
    let mut body = Vec::new();
    // Every thread starts active. Registers the analysis found uniform start at zero: PTX leaves
    // a register's value undefined before its first write, and a value that differed between
    // threads would make a branch on it diverge.
    let init = t.code(|f, b| {
        let z = f.push(b, Ty::I32, Op::Const(ACTIVE));
        f.push_void(b, Op::StoreVar(st, z));
        for v in uniform_vars {
            let ty = f.vars[v.0 as usize].ty;
            let z = f.push(b, ty, Op::Const(0));
            f.push_void(b, Op::StoreVar(v, z));
        }
    });
    let init_block = match init {
        Labelled::Code(b) => b,
        _ => BlockId(0),
    };
    body.push(init);
    t.seq(labelled, false, &mut body);
    if t.handshake {
        return Err(TwoWayHandshake);
    }
    body.push(Labelled::Return(Vec::new()));
    let scratch_words = expand::expand(t.f, st, &t.sync_blocks, init_block);
    *tree = from_labelled(body, &mut Vec::new());
    Ok(Some(scratch_words))
}

fn to_labelled(nodes: Vec<Node>, stack: &mut Vec<u32>, next: &mut u32) -> Vec<Labelled> {
    nodes
        .into_iter()
        .map(|n| match n {
            Node::Code(b) => Labelled::Code(b),
            Node::If { cond, then, else_ } => Labelled::If {
                cond,
                then: to_labelled(then, stack, next),
                else_: to_labelled(else_, stack, next),
            },
            Node::Block(body) => {
                let (id, body) = labelled_body(body, stack, next);
                Labelled::Block(id, body)
            }
            Node::Loop(body) => {
                let (id, body) = labelled_body(body, stack, next);
                Labelled::Loop(id, body)
            }
            Node::Branch(d) => Labelled::Branch(stack[stack.len() - 1 - d as usize]),
            Node::Switch {
                value,
                cases,
                default,
            } => Labelled::Switch {
                value,
                cases: cases
                    .into_iter()
                    .map(|c| to_labelled(c, stack, next))
                    .collect(),
                default: to_labelled(default, stack, next),
            },
            Node::Return(v) => Labelled::Return(v),
            Node::Exit => Labelled::Exit,
            Node::Unreachable => Labelled::Unreachable,
        })
        .collect()
}

fn labelled_body(body: Vec<Node>, stack: &mut Vec<u32>, next: &mut u32) -> (u32, Vec<Labelled>) {
    let id = *next;
    *next += 1;
    stack.push(id);
    let body = to_labelled(body, stack, next);
    stack.pop();
    (id, body)
}

fn construct_body(id: u32, body: Vec<Labelled>, stack: &mut Vec<u32>) -> Vec<Node> {
    stack.push(id);
    let body = from_labelled(body, stack);
    stack.pop();
    body
}

fn from_labelled(nodes: Vec<Labelled>, stack: &mut Vec<u32>) -> Vec<Node> {
    nodes
        .into_iter()
        .map(|n| match n {
            Labelled::Code(b) => Node::Code(b),
            Labelled::If { cond, then, else_ } => Node::If {
                cond,
                then: from_labelled(then, stack),
                else_: from_labelled(else_, stack),
            },
            Labelled::Block(id, body) => Node::Block(construct_body(id, body, stack)),
            Labelled::Loop(id, body) => Node::Loop(construct_body(id, body, stack)),
            Labelled::Branch(id) => {
                let pos = stack.iter().rposition(|&s| s == id).unwrap_or(0);
                Node::Branch((stack.len() - 1 - pos) as u32)
            }
            Labelled::Switch {
                value,
                cases,
                default,
            } => Node::Switch {
                value,
                cases: cases.into_iter().map(|c| from_labelled(c, stack)).collect(),
                default: from_labelled(default, stack),
            },
            Labelled::Return(v) => Node::Return(v),
            Labelled::Exit => Node::Exit,
            Labelled::Unreachable => Node::Unreachable,
        })
        .collect()
}

struct Uniformizer<'f> {
    f: &'f mut Function,
    st: VarId,
    next_id: u32,
    next_code: u64,
    sync_blocks: Vec<bool>,
    /// The block defining each value (indexed by value; values made later may be missing).
    defs: Vec<Option<BlockId>>,
    exit_code: HashMap<u32, u64>,
    cont_code: HashMap<u32, u64>,
    uni: uniform::Uniformity,
    /// Uniform loops being run natively (innermost last): branches to them stay branches.
    native_targets: Vec<u32>,
    /// A branch to a native loop was found where some threads may be inactive: the loop being
    /// tried natively must be emulated after all.
    failed: bool,
    /// A divergent `if` holds a handshake in both directions (see [`TwoWayHandshake`]).
    handshake: bool,
}

/// A divergent `if` both of whose arms `bar.arrive`, with a wait in one of them: warps that
/// signal each other back and forth (a pipeline of producer and consumer warps). The emulation
/// runs the arms one after the other, which cannot keep such an exchange.
#[derive(Debug)]
pub struct TwoWayHandshake;

#[cfg(test)]
pub(crate) mod interp_tests;
#[cfg(test)]
mod tests;
