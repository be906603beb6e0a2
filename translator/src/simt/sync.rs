//! Constructs that contain synchronization, which every thread must execute: both arms of an
//! `if` in turn, loops until a block-wide vote, or natively where uniformity allows.

use super::labelled::Labelled;
use super::native::{escapes, escapes_except};
use super::{ACTIVE, Uniformizer};
use crate::ir::{BinOp, BlockId, FpFlags, Op, Terminator, Ty, WarpOp};

impl Uniformizer<'_> {
    /// A construct that contains synchronization: executed by every thread.
    pub(super) fn sync_node(&mut self, n: Labelled, guard: bool, out: &mut Vec<Labelled>) -> bool {
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
                // The arms run one after the other. A `bar.arrive` does not wait, and the
                // other arm's `bar.sync` may wait for it: the arm that arrives runs first.
                let arrive = |t: &Self, nodes: &[Labelled]| t.holds(nodes, &Op::BarrierArrive);
                let (then_arrives, else_arrives) = (arrive(self, &then), arrive(self, &else_));
                // Both arms arrive and one waits: a handshake in both directions, which no
                // order of the arms keeps.
                self.handshake |= then_arrives
                    && else_arrives
                    && (self.holds(&then, &Op::Barrier) || self.holds(&else_, &Op::Barrier));
                let else_first = else_arrives && !then_arrives;
                let (first, second) = if else_first {
                    (else_, then)
                } else {
                    (then, else_)
                };
                let cv = self.spill(cond);
                let (wait_second, first_done) = (self.fresh_code(), self.fresh_code());
                // Active threads that take the second arm wait for it.
                let st = self.st;
                out.push(self.code(move |f, b| {
                    let s = f.push(b, Ty::I32, Op::LoadVar(st));
                    let c = f.push(b, Ty::Bool, Op::LoadVar(cv));
                    let z = f.push(b, Ty::I32, Op::Const(ACTIVE));
                    let active = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, s, z, FpFlags::default()));
                    let second = if else_first {
                        c
                    } else {
                        f.push(b, Ty::Bool, Op::Un(crate::ir::UnOp::Not, c))
                    };
                    let leave = f.push(
                        b,
                        Ty::Bool,
                        Op::Bin(BinOp::And, active, second, FpFlags::default()),
                    );
                    let w = f.push(b, Ty::I32, Op::Const(wait_second));
                    let s2 = f.push(b, Ty::I32, Op::Select(leave, w, s));
                    f.push_void(b, Op::StoreVar(st, s2));
                }));
                self.seq(first, true, out);
                out.push(self.transition(&[(ACTIVE, first_done), (wait_second, ACTIVE)]));
                self.seq(second, true, out);
                out.push(self.transition(&[(first_done, ACTIVE)]));
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

    /// Whether `nodes` hold `op` (nested ones included).
    fn holds(&self, nodes: &[Labelled], op: &Op) -> bool {
        nodes.iter().any(|n| match n {
            Labelled::Code(b) => self.f.blocks[b.0 as usize]
                .insts
                .iter()
                .any(|i| i.op == *op),
            Labelled::If { then, else_, .. } => self.holds(then, op) || self.holds(else_, op),
            Labelled::Block(_, body) | Labelled::Loop(_, body) => self.holds(body, op),
            Labelled::Switch { cases, default, .. } => {
                cases.iter().any(|c| self.holds(c, op)) || self.holds(default, op)
            }
            Labelled::Branch(_) | Labelled::Return(_) | Labelled::Exit | Labelled::Unreachable => {
                false
            }
        })
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
