//! Sequences: code without synchronization runs natively, skipped by threads that wait, with
//! its branches out turned into state changes; only constructs that synchronize go to `sync`.

use super::labelled::Labelled;
use super::{ACTIVE, RETURNED, Uniformizer};
use crate::ir::{BinOp, FpFlags, Op, Ty};

/// Whether any branch in `nodes` leaves them (or a return ends the thread).
pub(super) fn escapes(nodes: &[Labelled]) -> bool {
    escapes_except(nodes, &[])
}

/// Whether any branch in `nodes` leaves them for a construct other than `native` (or a return
/// ends the thread).
pub(super) fn escapes_except(nodes: &[Labelled], native: &[u32]) -> bool {
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
    /// Translates a sequence; `guard` says whether some threads may be inactive on entry. Returns
    /// whether some may be inactive at its end.
    pub(super) fn seq(
        &mut self,
        nodes: Vec<Labelled>,
        mut guard: bool,
        out: &mut Vec<Labelled>,
    ) -> bool {
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
}
