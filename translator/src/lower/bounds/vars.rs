//! The value of a variable at a read: its single write, where that write dominates, and loops
//! that keep it.

use super::{Analysis, DEPTH, Iv, VarDef, var_bits};
use crate::ir::{BinOp, ConvOp, ExtOp, Op, Terminator, ValueId, VarId};

impl Analysis<'_> {
    /// Whether the single write of `var` comes before position `at` of block `b` on every path.
    pub(super) fn written_before(&self, var: VarId, b: u32, at: u32) -> Option<(u32, ValueId)> {
        let VarDef::One {
            block,
            at: w,
            value,
        } = self.vars[var.0 as usize]
        else {
            return None;
        };
        if self.cyclic[block as usize] {
            return None;
        }
        let before = if block == b {
            w < at
        } else {
            self.dominates(block, b)
        };
        before.then_some((block, value))
    }

    pub(super) fn dominates(&self, a: u32, mut b: u32) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b as usize] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// The value of `var` read at `read` (block, position), bounded by its write and by the
    /// branches that lead to block `at`.
    pub(super) fn var_at(
        &mut self,
        var: VarId,
        read: (u32, u32),
        at: u32,
        depth: u32,
    ) -> Option<Iv> {
        let (_, value) = self.written_before(var, read.0, read.1)?;
        if let Some(r) = self.refined.get(&(var, at)) {
            return *r;
        }
        self.refined.insert((var, at), None);
        let r = self.refine(var, value, at, depth);
        self.refined.insert((var, at), r);
        r
    }

    fn refine(&mut self, var: VarId, value: ValueId, b: u32, depth: u32) -> Option<Iv> {
        let mut iv = self.value(value, b, depth)?;
        // `!=` narrows an end only where the end equals the value: the other comparisons first.
        let mut constraints = self.constraints(b);
        constraints.sort_by_key(|c| c.cmp == BinOp::INe);
        for c in constraints {
            for (subject, other, cmp) in [(c.x, c.y, c.cmp), (c.y, c.x, c.cmp.mirrored())] {
                if !self.is(subject, var, cmp, 0) {
                    continue;
                }
                let Some(o) = self.value(other, b, depth) else {
                    continue;
                };
                iv = self.apply(iv, cmp, o);
            }
        }
        Some(iv)
    }

    /// The value of `var`, written more than once or in a loop, read at position `at` of block
    /// `b`: the last write before it in `b`, or what every edge into `b` brings.
    pub(super) fn var_in(&mut self, var: VarId, b: u32, at: u32, depth: u32) -> Option<Iv> {
        let bits = var_bits(self.f, var)?;
        match self.last_write(var, b, at) {
            Some(Some(v)) => Some(self.value(v, b, depth).unwrap_or_else(|| self.full(bits))),
            Some(None) => Some(self.full(bits)),
            None => self.var_entry(var, b, bits, depth),
        }
    }

    /// The last write of `var` in block `b` before position `at`: `Some(None)` where it is a
    /// call's or texture operation's result.
    pub(super) fn last_write(&self, var: VarId, b: u32, at: u32) -> Option<Option<ValueId>> {
        let insts = &self.f.blocks[b as usize].insts;
        insts[..(at as usize).min(insts.len())]
            .iter()
            .rev()
            .find_map(|inst| match inst.op {
                Op::StoreVar(v, x) if v == var => Some(Some(x)),
                op if op.result_vars(&self.f.side).contains(&var) => Some(None),
                _ => None,
            })
    }

    /// `var` on entry to block `b`: the union, over its incoming edges, of the value leaving the
    /// predecessor bounded by the edge's branch condition. A loop that leads back here sees the
    /// whole range of the type, which only its exit conditions bound.
    fn var_entry(&mut self, var: VarId, b: u32, bits: u8, depth: u32) -> Option<Iv> {
        if let Some(r) = self.entries.get(&(var, b)) {
            return *r;
        }
        if depth > DEPTH || b == self.f.entry.0 {
            return None;
        }
        let full = self.full(bits);
        self.entries.insert((var, b), Some(full));
        if let Some(iv) = self.induction(var, b, bits, depth) {
            self.entries.insert((var, b), Some(iv));
            return Some(iv);
        }
        let preds = self.preds[b as usize].clone();
        // A loop that never writes `var` brings it back as it came in: where `b` is the loop's
        // only way in, its edges from inside the loop add nothing.
        let kept = self.cyclic[b as usize] && self.loop_keeps(var, b);
        let mut joined: Option<Iv> = None;
        for (n, &p) in preds.iter().enumerate() {
            if preds[..n].contains(&p) || (kept && self.comp[p as usize] == self.comp[b as usize]) {
                continue;
            }
            let len = self.f.blocks[p as usize].insts.len() as u32;
            let Some(mut iv) = self.var_in(var, p, len, depth + 1) else {
                joined = None;
                break;
            };
            if let Terminator::Branch { cond, then, else_ } = self.f.blocks[p as usize].term
                && then != else_
            {
                let mut found = Vec::new();
                self.conditions(cond, then.0 == b, &mut found, 0);
                for c in found {
                    for (subject, other, cmp) in [(c.x, c.y, c.cmp), (c.y, c.x, c.cmp.mirrored())] {
                        if !self.leaves_with(subject, var, p, cmp, 0) {
                            continue;
                        }
                        let Some(o) = self.value(other, p, depth + 1) else {
                            continue;
                        };
                        iv = self.apply(iv, cmp, o);
                    }
                }
            }
            joined = Some(self.join(joined, iv));
        }
        self.entries.insert((var, b), joined);
        joined
    }

    /// Whether no block of `h`'s loop (its strongly connected component) writes `var` and every
    /// edge into the loop from outside leads to `h`: on every entry to `h`, `var` then holds
    /// what it held when the loop was last entered.
    fn loop_keeps(&self, var: VarId, h: u32) -> bool {
        let comp = self.comp[h as usize];
        self.f.blocks.iter().enumerate().all(|(c, block)| {
            if self.comp[c] != comp {
                return true;
            }
            let entered_here =
                c as u32 == h || self.preds[c].iter().all(|&p| self.comp[p as usize] == comp);
            entered_here
                && !block.insts.iter().any(|inst| match inst.op {
                    Op::StoreVar(v, _) => v == var,
                    op => op.result_vars(&self.f.side).contains(&var),
                })
        })
    }

    /// Whether value `x`, made in block `p`, is what `var` holds when `p` ends (no write of
    /// `var` follows it in `p`), or for an upper bound the maximum of such values.
    pub(super) fn leaves_with(
        &self,
        x: ValueId,
        var: VarId,
        p: u32,
        cmp: BinOp,
        depth: u32,
    ) -> bool {
        if depth > 8 {
            return false;
        }
        let Some((b, i, op)) = self.op(x) else {
            return false;
        };
        let insts = &self.f.blocks[p as usize].insts;
        let len = insts.len() as u32;
        let written_after = |from: usize| {
            insts[from..].iter().any(|inst| match inst.op {
                Op::StoreVar(v, _) => v == var,
                op => op.result_vars(&self.f.side).contains(&var),
            })
        };
        if b != p {
            return false;
        }
        // The value a write of `var` in `p` stores, with no later write in `p`.
        let stored = insts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(k, inst)| match inst.op {
                Op::StoreVar(v, y) if v == var => Some((k, y)),
                _ => None,
            });
        if let Some((k, y)) = stored
            && y == x
            && !written_after(k + 1)
        {
            return true;
        }
        match op {
            Op::LoadVar(v) if v == var => !written_after(i as usize) && i < len,
            Op::Conv(ConvOp::ZExt, y) => self.leaves_with(y, var, p, cmp, depth + 1),
            Op::Ext(ExtOp::UMax, args, _) if matches!(cmp, BinOp::ULt | BinOp::ULe) => args
                .iter()
                .any(|&a| self.leaves_with(a, var, p, cmp, depth + 1)),
            _ => false,
        }
    }
}
