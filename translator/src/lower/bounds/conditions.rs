//! Narrowing intervals by the comparisons of the branches that lead to an access.

use super::{Analysis, Constraint, Iv, VarDef};
use crate::ir::{BinOp, ConvOp, ExtOp, Op, Terminator, UnOp, ValueId, VarId};
use crate::memfacts::Node;

impl Analysis<'_> {
    /// The smallest interval holding `iv` and `joined` (when there is one).
    pub(super) fn join(&mut self, joined: Option<Iv>, iv: Iv) -> Iv {
        let Some(j) = joined else { return iv };
        let lo = self.node(Node::Min(j.lo, iv.lo));
        let hi = self.node(Node::Max(j.hi, iv.hi));
        Iv { lo, hi }
    }

    /// `iv` knowing that the value `cmp` `o`; where `o` cannot be evaluated (it may have
    /// wrapped), the comparison bounds nothing.
    pub(super) fn apply(&mut self, iv: Iv, cmp: BinOp, o: Iv) -> Iv {
        let bounded = self.bound(iv, cmp, o);
        let lo = self.node(Node::Else(bounded.lo, iv.lo));
        let hi = self.node(Node::Else(bounded.hi, iv.hi));
        Iv { lo, hi }
    }

    fn bound(&mut self, iv: Iv, cmp: BinOp, o: Iv) -> Iv {
        let one = self.konst(1);
        let Iv { mut lo, mut hi } = iv;
        match cmp {
            BinOp::ULt => {
                let m = self.node(Node::Sub(o.hi, one));
                hi = self.node(Node::Min(hi, m));
            }
            BinOp::ULe => hi = self.node(Node::Min(hi, o.hi)),
            BinOp::UGt => {
                let m = self.node(Node::Add(o.lo, one));
                lo = self.node(Node::Max(lo, m));
            }
            BinOp::UGe => lo = self.node(Node::Max(lo, o.lo)),
            BinOp::IEq => {
                lo = self.node(Node::Max(lo, o.lo));
                hi = self.node(Node::Min(hi, o.hi));
            }
            BinOp::INe => {
                // Only where `o` is one value in this launch.
                let point = self.node(Node::Same(o.lo, o.hi));
                lo = self.node(Node::NeLo(lo, point));
                hi = self.node(Node::NeHi(hi, point));
            }
            _ => {}
        }
        Iv { lo, hi }
    }

    /// Whether value `x` is `var` as read after its write, or (for an upper bound) the maximum
    /// of values that are: `max(a, b) < n` bounds both.
    pub(super) fn is(&self, x: ValueId, var: VarId, cmp: BinOp, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        // The value the single write of `var` stores (lowering reads a register it has just
        // written in the same block without loading it again).
        if self.stored_in.get(&x).is_some_and(|vs| vs.contains(&var))
            && matches!(self.vars[var.0 as usize], VarDef::One { block, .. } if !self.cyclic[block as usize])
        {
            return true;
        }
        let Some((b, i, op)) = self.op(x) else {
            return false;
        };
        match op {
            Op::LoadVar(v) => {
                let Some((_, stored)) = self.written_before(v, b, i) else {
                    return false;
                };
                v == var
                    || (matches!(cmp, BinOp::ULt | BinOp::ULe)
                        && self.is(stored, var, cmp, depth + 1))
            }
            Op::Conv(ConvOp::ZExt, y) => self.is(y, var, cmp, depth + 1),
            Op::Ext(ExtOp::UMax, args, _) if matches!(cmp, BinOp::ULt | BinOp::ULe) => {
                args.iter().any(|&a| self.is(a, var, cmp, depth + 1))
            }
            _ => false,
        }
    }

    /// The comparisons known to hold in block `b`: those of the branches whose edges every path
    /// to `b` takes.
    pub(super) fn constraints(&self, b: u32) -> Vec<Constraint> {
        let mut out = Vec::new();
        let mut x = b;
        loop {
            if let [p] = self.preds[x as usize][..]
                && let Terminator::Branch { cond, then, else_ } = self.f.blocks[p as usize].term
                && then != else_
            {
                self.conditions(cond, then.0 == x, &mut out, 0);
            }
            match self.idom[x as usize] {
                Some(d) if d != x => x = d,
                _ => return out,
            }
        }
    }

    pub(super) fn conditions(
        &self,
        c: ValueId,
        holds: bool,
        out: &mut Vec<Constraint>,
        depth: u32,
    ) {
        if depth > 16 {
            return;
        }
        let Some((b, i, op)) = self.op(c) else { return };
        match op {
            Op::LoadVar(v) => {
                if let Some((_, stored)) = self.written_before(v, b, i) {
                    self.conditions(stored, holds, out, depth + 1);
                }
            }
            Op::Un(UnOp::Not, a) => self.conditions(a, !holds, out, depth + 1),
            Op::Bin(BinOp::Or, x, y, _) if !holds => {
                self.conditions(x, false, out, depth + 1);
                self.conditions(y, false, out, depth + 1);
            }
            Op::Bin(BinOp::And, x, y, _) if holds => {
                self.conditions(x, true, out, depth + 1);
                self.conditions(y, true, out, depth + 1);
            }
            Op::Bin(
                cmp @ (BinOp::IEq | BinOp::INe | BinOp::ULt | BinOp::ULe | BinOp::UGt | BinOp::UGe),
                x,
                y,
                _,
            ) => out.push(Constraint {
                x,
                cmp: if holds { cmp } else { cmp.negated() },
                y,
            }),
            _ => {}
        }
    }
}
