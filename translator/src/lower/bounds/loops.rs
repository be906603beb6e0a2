//! Loops: a variable stepped by a constant once per iteration (an induction variable) is
//! bounded by how many times the loop can go round, which a counter's test on the back edge
//! limits.

use super::{Analysis, Iv, NodeIdx, max_of, var_bits};
use crate::ir::{BinOp, Op, Terminator, ValueId, VarId};
use crate::memfacts::Node;

impl Analysis<'_> {
    /// `var` on entry to loop header `h`, where `var` is an induction variable of `h`'s loop and
    /// the back edge's condition bounds the trip count.
    pub(super) fn induction(&mut self, var: VarId, h: u32, bits: u8, depth: u32) -> Option<Iv> {
        let latch = self.simple_loop(h)?;
        let step = self.step(var, h, latch, bits)?;
        let trips = self.back_edges(h, latch, depth)?;
        let start = self.start(var, h, depth)?;
        let c = self.konst(step);
        let grown = self.node(Node::Mul(c, trips));
        let hi = self.node(Node::Add(start.hi, grown));
        Some(self.fit(start.lo, hi, bits))
    }

    /// The latch of `h`'s loop when it has one and no loop inside it: every iteration passes
    /// the latch once.
    fn simple_loop(&self, h: u32) -> Option<u32> {
        let comp = self.comp[h as usize];
        if !self.cyclic[h as usize] {
            return None;
        }
        let mut latches = self.preds[h as usize]
            .iter()
            .filter(|&&p| self.comp[p as usize] == comp);
        let latch = *latches.next()?;
        if latches.any(|&p| p != latch) || !self.dominates(h, latch) {
            return None;
        }
        // No cycle among the loop's blocks once the header is left out.
        let body: Vec<u32> = (0..self.comp.len() as u32)
            .filter(|&b| self.comp[b as usize] == comp && b != h)
            .collect();
        let mut state = vec![0u8; self.comp.len()];
        for &root in &body {
            if state[root as usize] != 0 {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            state[root as usize] = 1;
            while let Some((b, next)) = stack.pop() {
                let succ = &self.succ[b as usize];
                if let Some(&s) = succ.get(next) {
                    stack.push((b, next + 1));
                    if s == h || self.comp[s as usize] != comp {
                        continue;
                    }
                    match state[s as usize] {
                        0 => {
                            state[s as usize] = 1;
                            stack.push((s, 0));
                        }
                        1 => return None,
                        _ => {}
                    }
                } else {
                    state[b as usize] = 2;
                }
            }
        }
        Some(latch)
    }

    /// The constant `var` grows by in each iteration: its only write in the loop is
    /// `var = var + step` in the latch.
    fn step(&self, var: VarId, h: u32, latch: u32, bits: u8) -> Option<u64> {
        let comp = self.comp[h as usize];
        let mut found = None;
        for (b, block) in self.f.blocks.iter().enumerate() {
            if self.comp[b] != comp {
                continue;
            }
            for inst in &block.insts {
                let x = match inst.op {
                    Op::StoreVar(v, x) if v == var => x,
                    op if op.result_vars(&self.f.side).contains(&var) => return None,
                    _ => continue,
                };
                if found.is_some() || b as u32 != latch {
                    return None;
                }
                let Some((_, _, Op::Bin(BinOp::IAdd, y, k, _))) = self.op(x) else {
                    return None;
                };
                let Some((_, _, Op::LoadVar(v))) = self.op(y) else {
                    return None;
                };
                let step = self.constant(k)?;
                if v != var || step == 0 || step > max_of(bits) >> 1 {
                    return None;
                }
                found = Some(step);
            }
        }
        found
    }

    /// `var` on entry to the loop: the union over the header's edges from outside it.
    fn start(&mut self, var: VarId, h: u32, depth: u32) -> Option<Iv> {
        let comp = self.comp[h as usize];
        let outside: Vec<u32> = self.preds[h as usize]
            .iter()
            .copied()
            .filter(|&p| self.comp[p as usize] != comp)
            .collect();
        let mut joined: Option<Iv> = None;
        for p in outside {
            let len = self.f.blocks[p as usize].insts.len() as u32;
            let iv = self.var_in(var, p, len, depth + 1)?;
            joined = Some(self.join(joined, iv));
        }
        joined
    }

    /// At most how many times the back edge is taken: its condition is `r < b` (or `<=`) for
    /// an induction variable `r` after its step, so it holds for the values `r0 + s`,
    /// `r0 + 2s`, ... below `b` only (`r0`, `r0 + s`, ... where it tests `r` before the step).
    /// `r` never wraps on the way: it stays below `b + s`, which must fit its width.
    fn back_edges(&mut self, h: u32, latch: u32, depth: u32) -> Option<NodeIdx> {
        let Terminator::Branch { cond, then, else_ } = self.f.blocks[latch as usize].term else {
            return None;
        };
        if then == else_ {
            return None;
        }
        let mut found = Vec::new();
        self.conditions(cond, then.0 == h, &mut found, 0);
        for c in found {
            for (x, other, cmp) in [(c.x, c.y, c.cmp), (c.y, c.x, c.cmp.mirrored())] {
                if !matches!(cmp, BinOp::ULt | BinOp::ULe) {
                    continue;
                }
                // The counter after its step, or (`i < n; i += s` written as a test of `i`
                // before the step) before it: then the first value tested is the start.
                let (r, stepped) = match self.counter(x, latch) {
                    Some(r) => (r, true),
                    None => match self.counter_before_step(x, latch) {
                        Some(r) => (r, false),
                        None => continue,
                    },
                };
                let Some(bits) = var_bits(self.f, r) else {
                    continue;
                };
                let Some(s) = self.step(r, h, latch, bits) else {
                    continue;
                };
                let Some(b) = self.value(other, latch, depth + 1) else {
                    continue;
                };
                let offset = if stepped { s } else { 0 };
                let Some(first) = self.first_step(r, h, offset, bits, depth) else {
                    continue;
                };
                // `r < b` as `r < b + 1` for `<=`.
                let extra = u64::from(cmp == BinOp::ULe);
                let one_less = self.konst(s - 1 + extra);
                let top = self.node(Node::Add(b.hi, one_less));
                let room = self.node(Node::Sub(top, first.lo));
                let zero = self.konst(0);
                let room = self.node(Node::Max(room, zero));
                let s_n = self.konst(s);
                let trips = self.node(Node::Div(room, s_n));
                // No wrap: every value compared is at most `b - 1 + s` (`b + s` for `<=`).
                let no_wrap = self.node(Node::Fit(top, bits));
                return Some(self.node(Node::If(trips, no_wrap)));
            }
        }
        None
    }

    /// The variable `x` (a value of the latch) holds when the latch ends.
    fn counter(&self, x: ValueId, latch: u32) -> Option<VarId> {
        let mut candidates: Vec<VarId> = self.stored_in.get(&x).cloned().unwrap_or_default();
        if let Some((_, _, Op::LoadVar(v))) = self.op(x) {
            candidates.push(v);
        }
        candidates
            .into_iter()
            .find(|&v| self.leaves_with(x, v, latch, BinOp::ULt, 0))
    }

    /// The variable `x` (a value of the latch) holds when the iteration began: `x` reads it
    /// before any write of it in the latch. With [`Self::step`] (its only write in the loop is
    /// the latch's step) that read comes before the step, and no block before the latch in the
    /// iteration writes it.
    fn counter_before_step(&self, x: ValueId, latch: u32) -> Option<VarId> {
        let (b, i, Op::LoadVar(v)) = self.op(x)? else {
            return None;
        };
        (b == latch && self.last_write(v, b, i).is_none()).then_some(v)
    }

    /// `r + s` for `r`'s value on entry to the loop: the first value its test sees (`s` is the
    /// step, or 0 where the test reads `r` before its step). Where that value is `y + k` (k a
    /// constant, as `add r, t, -256` before a loop that adds 256 first), the constants are
    /// added modulo the width, as the kernel adds them.
    fn first_step(&mut self, r: VarId, h: u32, s: u64, bits: u8, depth: u32) -> Option<Iv> {
        if let Some(x) = self.only_write_outside(r, h)
            && let Some((y, k)) = self.plus_constant(x)
        {
            let (yb, _, _) = self.op(y)?;
            let k = k.wrapping_add(s) & max_of(bits);
            let base = self.value(y, yb, depth + 1)?;
            return Some(self.add_signed(base, k, bits));
        }
        let start = self.start(r, h, depth)?;
        Some(self.add_signed(start, s, bits))
    }

    /// The value of `r`'s only write outside `h`'s loop, where that write dominates `h` and runs
    /// once: every path into the loop brings it (a path from the loop back into it would put
    /// its blocks in the loop's component).
    fn only_write_outside(&self, r: VarId, h: u32) -> Option<ValueId> {
        let comp = self.comp[h as usize];
        let mut found = None;
        for (b, block) in self.f.blocks.iter().enumerate() {
            if self.comp[b] == comp {
                continue;
            }
            for inst in &block.insts {
                let x = match inst.op {
                    Op::StoreVar(v, x) if v == r => x,
                    op if op.result_vars(&self.f.side).contains(&r) => return None,
                    _ => continue,
                };
                if found.is_some() || self.cyclic[b] || !self.dominates(b as u32, h) {
                    return None;
                }
                found = Some(x);
            }
        }
        found
    }

    /// `x` as `y + k`, looking through copies of variables written once.
    fn plus_constant(&self, x: ValueId) -> Option<(ValueId, u64)> {
        match self.op(x)?.2 {
            Op::Bin(BinOp::IAdd, y, k, _) => Some((y, self.constant(k)?)),
            Op::LoadVar(v) => {
                let (b, i, _) = self.op(x)?;
                let (_, stored) = self.written_before(v, b, i)?;
                self.plus_constant(stored)
            }
            _ => None,
        }
    }

    /// `iv + k` where `k` is a constant of width `bits`, negative when its sign bit is set.
    fn add_signed(&mut self, iv: Iv, k: u64, bits: u8) -> Iv {
        let sign = 1u64 << (bits - 1);
        if k & sign != 0 {
            let m = (max_of(bits) - k).wrapping_add(1);
            let m = self.konst(m);
            return self.sub(iv, Iv { lo: m, hi: m }, bits);
        }
        let k = self.konst(k);
        let lo = self.node(Node::Add(iv.lo, k));
        let hi = self.node(Node::Add(iv.hi, k));
        self.fit(lo, hi, bits)
    }
}
