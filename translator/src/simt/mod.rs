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

mod expand;
mod labelled;
mod lanes;
mod uniform;

pub use lanes::{call_effects, serve_in_subgroups};

use crate::check::Map as HashMap;

use crate::ir::{BinOp, BlockId, FpFlags, Function, Op, Terminator, Ty, ValueId, VarId, WarpOp};
use crate::structurize::Node;
use labelled::Labelled;

/// The state value of an active thread.
const ACTIVE: u64 = 0;
/// The state of a thread that returned (or exited).
const RETURNED: u64 = 0xFFFF_FFFF;

/// Rewrites a kernel's tree so that its synchronization points are block-uniform, then expands
/// the warp operations into shared-memory code. Replaces `tree` with the new tree and returns
/// the words of warp scratch memory used per thread (0: none); `None` (and `tree` as it was)
/// when the function has no synchronization (nothing to do).
pub fn emulate(f: &mut Function, tree: &mut Vec<Node>) -> Option<u32> {
    if !f.may_sync {
        return None;
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
        return None;
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
    body.push(Labelled::Return(Vec::new()));
    let scratch_words = expand::expand(t.f, st, &t.sync_blocks, init_block);
    *tree = from_labelled(body, &mut Vec::new());
    Some(scratch_words)
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
}

/// Whether any branch in `nodes` leaves them (or a return ends the thread).
fn escapes(nodes: &[Labelled]) -> bool {
    escapes_except(nodes, &[])
}

/// Whether any branch in `nodes` leaves them for a construct other than `native` (or a return
/// ends the thread).
fn escapes_except(nodes: &[Labelled], native: &[u32]) -> bool {
    fn walk(nodes: &[Labelled], inside: &mut Vec<u32>) -> bool {
        nodes.iter().any(|n| match n {
            Labelled::Branch(id) => !inside.contains(id),
            Labelled::Return(_) | Labelled::Exit => true,
            Labelled::If { then, else_, .. } => walk(then, inside) || walk(else_, inside),
            Labelled::Block(id, body) | Labelled::Loop(id, body) => {
                inside.push(*id);
                let r = walk(body, inside);
                inside.pop();
                r
            }
            Labelled::Switch { cases, default, .. } => {
                cases.iter().any(|c| walk(c, inside)) || walk(default, inside)
            }
            Labelled::Code(_) | Labelled::Unreachable => false,
        })
    }
    walk(nodes, &mut native.to_vec())
}

/// Whether `nodes` hold a branch to one of `targets` (constructs that enclose them).
fn branches_to(nodes: &[Labelled], targets: &[u32]) -> bool {
    nodes.iter().any(|n| match n {
        Labelled::Branch(id) => targets.contains(id),
        Labelled::If { then, else_, .. } => {
            branches_to(then, targets) || branches_to(else_, targets)
        }
        Labelled::Block(_, body) | Labelled::Loop(_, body) => branches_to(body, targets),
        Labelled::Switch { cases, default, .. } => {
            cases.iter().any(|c| branches_to(c, targets)) || branches_to(default, targets)
        }
        _ => false,
    })
}

impl Uniformizer<'_> {
    fn fresh_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id + 1_000_000
    }

    fn fresh_code(&mut self) -> u64 {
        self.next_code += 1;
        self.next_code
    }

    /// A new block of straight-line code.
    fn code(&mut self, build: impl FnOnce(&mut Function, BlockId)) -> Labelled {
        let b = self.f.new_block();
        build(self.f, b);
        // Its terminator is never used: the tree says where control goes.
        self.f.block_mut(b).term = Terminator::Unreachable;
        self.sync_blocks.push(false);
        Labelled::Code(b)
    }

    fn contains_sync(&self, n: &Labelled) -> bool {
        match n {
            Labelled::Code(b) => self.sync_blocks.get(b.0 as usize).copied().unwrap_or(false),
            Labelled::If { then, else_, .. } => {
                then.iter().chain(else_).any(|n| self.contains_sync(n))
            }
            Labelled::Block(_, body) | Labelled::Loop(_, body) => {
                body.iter().any(|n| self.contains_sync(n))
            }
            Labelled::Switch { cases, default, .. } => cases
                .iter()
                .flatten()
                .chain(default)
                .any(|n| self.contains_sync(n)),
            _ => false,
        }
    }

    /// `st = select(st == from, to, st)` for each pair, in order.
    fn transition(&mut self, pairs: &[(u64, u64)]) -> Labelled {
        let st = self.st;
        let pairs = pairs.to_vec();
        self.code(move |f, b| {
            let mut s = f.push(b, Ty::I32, Op::LoadVar(st));
            for (from, to) in pairs {
                let fc = f.push(b, Ty::I32, Op::Const(from));
                let tc = f.push(b, Ty::I32, Op::Const(to));
                let is = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, s, fc, FpFlags::default()));
                s = f.push(b, Ty::I32, Op::Select(is, tc, s));
            }
            f.push_void(b, Op::StoreVar(st, s));
        })
    }

    /// Translates a sequence; `guard` says whether some threads may be inactive on entry. Returns
    /// whether some may be inactive at its end.
    fn seq(&mut self, nodes: Vec<Labelled>, mut guard: bool, out: &mut Vec<Labelled>) -> bool {
        let mut native: Vec<Labelled> = Vec::new();
        for n in nodes {
            if self.contains_sync(&n) {
                guard = self.flush(std::mem::take(&mut native), guard, out);
                guard = self.sync_node(n, guard, out);
            } else {
                native.push(n);
            }
        }
        self.flush(native, guard, out)
    }

    /// Code without synchronization: runs natively, skipped by inactive threads; branches out of
    /// it become state changes.
    fn flush(&mut self, native: Vec<Labelled>, guard: bool, out: &mut Vec<Labelled>) -> bool {
        if native.is_empty() {
            return guard;
        }
        let leaves = escapes_except(&native, &self.native_targets);
        if !leaves && !guard {
            out.extend(native);
            return false;
        }
        let wrapper = self.fresh_id();
        if guard && branches_to(&native, &self.native_targets) {
            // Only the active threads would take a branch to a native loop.
            self.failed = true;
        }
        let body = self.rewrite_exits(native, wrapper, &mut Vec::new());
        let block = Labelled::Block(wrapper, body);
        if guard {
            let st = self.st;
            let check = self.code(|f, b| {
                let s = f.push(b, Ty::I32, Op::LoadVar(st));
                let z = f.push(b, Ty::I32, Op::Const(ACTIVE));
                f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, s, z, FpFlags::default()));
            });
            let cond = self.last_value(&check);
            out.push(check);
            out.push(Labelled::If {
                cond,
                then: vec![block],
                else_: Vec::new(),
            });
        } else {
            out.push(block);
        }
        guard || leaves
    }

    fn last_value(&self, code: &Labelled) -> ValueId {
        match code {
            Labelled::Code(b) => self
                .f
                .block(*b)
                .insts
                .last()
                .and_then(|i| i.result)
                .unwrap_or(ValueId(0)),
            _ => ValueId(0),
        }
    }

    /// The state that means "waiting at construct `id`" for a branch to it.
    fn target_code(&self, id: u32) -> u64 {
        self.cont_code
            .get(&id)
            .or_else(|| self.exit_code.get(&id))
            .copied()
            .unwrap_or(RETURNED)
    }

    /// Rewrites branches that leave `nodes` (and returns) into a state change and a branch out
    /// of the native wrapper block `wrapper`.
    fn rewrite_exits(
        &mut self,
        nodes: Vec<Labelled>,
        wrapper: u32,
        inside: &mut Vec<u32>,
    ) -> Vec<Labelled> {
        let mut out = Vec::new();
        for n in nodes {
            match n {
                Labelled::Branch(id)
                    if !inside.contains(&id) && !self.native_targets.contains(&id) =>
                {
                    let code = self.target_code(id);
                    out.push(self.set_state(code));
                    out.push(Labelled::Branch(wrapper));
                }
                Labelled::Return(_) | Labelled::Exit => {
                    out.push(self.set_state(RETURNED));
                    out.push(Labelled::Branch(wrapper));
                }
                Labelled::If { cond, then, else_ } => {
                    let then = self.rewrite_exits(then, wrapper, inside);
                    let else_ = self.rewrite_exits(else_, wrapper, inside);
                    out.push(Labelled::If { cond, then, else_ });
                }
                Labelled::Block(id, body) => {
                    inside.push(id);
                    let body = self.rewrite_exits(body, wrapper, inside);
                    inside.pop();
                    out.push(Labelled::Block(id, body));
                }
                Labelled::Loop(id, body) => {
                    inside.push(id);
                    let body = self.rewrite_exits(body, wrapper, inside);
                    inside.pop();
                    out.push(Labelled::Loop(id, body));
                }
                Labelled::Switch {
                    value,
                    cases,
                    default,
                } => {
                    let cases = cases
                        .into_iter()
                        .map(|c| self.rewrite_exits(c, wrapper, inside))
                        .collect();
                    let default = self.rewrite_exits(default, wrapper, inside);
                    out.push(Labelled::Switch {
                        value,
                        cases,
                        default,
                    });
                }
                other => out.push(other),
            }
        }
        out
    }

    fn set_state(&mut self, code: u64) -> Labelled {
        let st = self.st;
        self.code(move |f, b| {
            let c = f.push(b, Ty::I32, Op::Const(code));
            f.push_void(b, Op::StoreVar(st, c));
        })
    }

    /// Keeps a value available after the block that defines it, in a new variable.
    fn spill(&mut self, v: ValueId) -> VarId {
        let ty = self.f.ty(v);
        let var = self.f.new_var(ty, "simt.spill");
        if let Some(&Some(b)) = self.defs.get(v.0 as usize) {
            self.f.push_void(b, Op::StoreVar(var, v));
        }
        var
    }

    /// A construct that contains synchronization: executed by every thread.
    fn sync_node(&mut self, n: Labelled, guard: bool, out: &mut Vec<Labelled>) -> bool {
        match n {
            Labelled::Code(b) => {
                out.push(Labelled::Code(b));
                guard
            }
            // Every thread is active and takes the same arm: nothing to emulate at this level.
            Labelled::If { cond, then, else_ } if !guard && self.uni.value(cond) => {
                let cv = self.spill(cond);
                let read = self.code(move |f, b| {
                    f.push(b, Ty::Bool, Op::LoadVar(cv));
                });
                let cond = self.last_value(&read);
                out.push(read);
                let (mut then_out, mut else_out) = (Vec::new(), Vec::new());
                let g_then = self.seq(then, false, &mut then_out);
                let g_else = self.seq(else_, false, &mut else_out);
                out.push(Labelled::If {
                    cond,
                    then: then_out,
                    else_: else_out,
                });
                g_then || g_else
            }
            Labelled::Loop(id, body)
                if !guard
                    && self.uni.uniform_construct(id)
                    && !escapes_except(
                        &[Labelled::Loop(id, body.clone())],
                        &self.native_targets,
                    ) =>
            {
                match self.native_construct(id, body.clone()) {
                    Some((inner, g)) => {
                        out.push(Labelled::Loop(id, inner));
                        g
                    }
                    None => self.emulated_loop(id, body, guard, out),
                }
            }
            Labelled::Block(id, body) if !guard && self.uni.uniform_construct(id) => {
                match self.native_construct(id, body.clone()) {
                    Some((inner, g)) => {
                        out.push(Labelled::Block(id, inner));
                        g
                    }
                    None => self.emulated_block(id, body, guard, out),
                }
            }
            Labelled::If { cond, then, else_ } => {
                let leaves = escapes(&then) || escapes(&else_);
                let cv = self.spill(cond);
                let (wait_else, then_done) = (self.fresh_code(), self.fresh_code());
                // Active threads whose condition is false wait for the else arm.
                let st = self.st;
                out.push(self.code(move |f, b| {
                    let s = f.push(b, Ty::I32, Op::LoadVar(st));
                    let c = f.push(b, Ty::Bool, Op::LoadVar(cv));
                    let z = f.push(b, Ty::I32, Op::Const(ACTIVE));
                    let active = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, s, z, FpFlags::default()));
                    let nc = f.push(b, Ty::Bool, Op::Un(crate::ir::UnOp::Not, c));
                    let leave = f.push(
                        b,
                        Ty::Bool,
                        Op::Bin(BinOp::And, active, nc, FpFlags::default()),
                    );
                    let w = f.push(b, Ty::I32, Op::Const(wait_else));
                    let s2 = f.push(b, Ty::I32, Op::Select(leave, w, s));
                    f.push_void(b, Op::StoreVar(st, s2));
                }));
                self.seq(then, true, out);
                out.push(self.transition(&[(ACTIVE, then_done), (wait_else, ACTIVE)]));
                self.seq(else_, true, out);
                out.push(self.transition(&[(then_done, ACTIVE)]));
                guard || leaves
            }
            Labelled::Block(id, body) => self.emulated_block(id, body, guard, out),
            Labelled::Loop(id, body) => self.emulated_loop(id, body, guard, out),
            Labelled::Switch {
                value,
                cases,
                default,
            } => {
                // As a chain of ifs on the spilled value.
                let sv = self.spill(value);
                let mut chain = default;
                for (k, case) in cases.into_iter().enumerate().rev() {
                    let test = self.code(move |f, b| {
                        let v = f.push(b, Ty::I32, Op::LoadVar(sv));
                        let kc = f.push(b, Ty::I32, Op::Const(k as u64));
                        f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, v, kc, FpFlags::default()));
                    });
                    let cond = self.last_value(&test);
                    let b = match &test {
                        Labelled::Code(b) => *b,
                        _ => BlockId(0),
                    };
                    let at = cond.0 as usize;
                    if self.defs.len() <= at {
                        self.defs.resize(at + 1, None);
                    }
                    self.defs[at] = Some(b);
                    chain = vec![
                        test,
                        Labelled::If {
                            cond,
                            then: case,
                            else_: chain,
                        },
                    ];
                }
                self.seq(chain, guard, out)
            }
            // Branches, returns and straight code never contain synchronization.
            other => {
                out.push(other);
                guard
            }
        }
    }

    /// A uniform loop or block entered by every thread: branches to it stay branches. Tried, and
    /// `None` (emulate it) if such a branch turns out to be where some threads wait (their state
    /// is not "active", e.g. after a uniform early exit from an inner construct).
    fn native_construct(&mut self, id: u32, body: Vec<Labelled>) -> Option<(Vec<Labelled>, bool)> {
        let failed_before = std::mem::replace(&mut self.failed, false);
        self.native_targets.push(id);
        let mut inner = Vec::new();
        let g = self.seq(body, false, &mut inner);
        self.native_targets.pop();
        let failed = std::mem::replace(&mut self.failed, failed_before);
        (!failed).then_some((inner, g))
    }

    /// A block that some threads may leave early: they wait at its end.
    fn emulated_block(
        &mut self,
        id: u32,
        body: Vec<Labelled>,
        guard: bool,
        out: &mut Vec<Labelled>,
    ) -> bool {
        let exit = self.fresh_code();
        self.exit_code.insert(id, exit);
        self.seq(body.clone(), guard, out);
        out.push(self.transition(&[(exit, ACTIVE)]));
        guard || escapes(&[Labelled::Block(id, body)])
    }

    /// A loop that some threads may leave before others: it runs until a block-wide vote finds
    /// no thread still iterating.
    fn emulated_loop(
        &mut self,
        id: u32,
        body: Vec<Labelled>,
        guard: bool,
        out: &mut Vec<Labelled>,
    ) -> bool {
        let (cont, exit) = (self.fresh_code(), self.fresh_code());
        self.cont_code.insert(id, cont);
        self.exit_code.insert(id, exit);
        let native_loop = self.fresh_id();
        let leaves = escapes(&[Labelled::Loop(id, body.clone())]);
        let mut inner = Vec::new();
        self.seq(body, true, &mut inner);
        // End of an iteration: falling off the end leaves the loop, `continue` comes back.
        inner.push(self.transition(&[(ACTIVE, exit), (cont, ACTIVE)]));
        let st = self.st;
        let again = self.f.new_var(Ty::Bool, "simt.again");
        let vote = self.f.new_block();
        {
            let f = &mut *self.f;
            let s = f.push(vote, Ty::I32, Op::LoadVar(st));
            let z = f.push(vote, Ty::I32, Op::Const(ACTIVE));
            let active = f.push(
                vote,
                Ty::Bool,
                Op::Bin(BinOp::IEq, s, z, FpFlags::default()),
            );
            let any = f.push(
                vote,
                Ty::Bool,
                Op::Warp(WarpOp::WorkgroupAny, [active].into()),
            );
            f.push_void(vote, Op::StoreVar(again, any));
            f.block_mut(vote).term = Terminator::Unreachable;
        }
        self.sync_blocks.push(true);
        inner.push(Labelled::Code(vote));
        let read = self.code(move |f, b| {
            f.push(b, Ty::Bool, Op::LoadVar(again));
        });
        let cond = self.last_value(&read);
        inner.push(read);
        inner.push(Labelled::If {
            cond,
            then: vec![Labelled::Branch(native_loop)],
            else_: Vec::new(),
        });
        out.push(Labelled::Loop(native_loop, inner));
        out.push(self.transition(&[(exit, ACTIVE)]));
        guard || leaves
    }
}

#[cfg(test)]
pub(crate) mod interp_tests;
#[cfg(test)]
mod tests;
