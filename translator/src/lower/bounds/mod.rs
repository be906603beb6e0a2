//! Which checked global accesses of a kernel a launch can prove in bounds before it runs.
//!
//! For each call of the global checker in the kernel's own function, the address is followed
//! back through integer arithmetic to values a launch fixes (kernel parameters read at constant
//! offsets, the block and grid size, `%tid` and `%ctaid` within them) and bounded by the
//! comparisons of the branches that lead to the access (`if (i < n)`). The result is an
//! interval of addresses written as formulas ([`crate::memfacts`]); the runtime evaluates
//! them at each launch and turns off the check of every site whose whole interval lies in one
//! live allocation (specialization constant `abi::SPEC_MEM_PROVEN + k`, the checker's last
//! argument). Anything the analysis cannot follow leaves the site checked.
//!
//! What makes a register's value usable: a variable written once, outside every cycle of the
//! control-flow graph, by a write that dominates the read. Such a variable holds one value for
//! the whole invocation, so a comparison anywhere above the access speaks of the same value the
//! access uses. Arithmetic is bounded in exact integers, and every sum or product carries the
//! condition that it fits its PTX width ([`Node::Fit`]): a launch where the kernel's arithmetic
//! might wrap proves nothing.

use std::collections::HashMap;

use super::memcheck::checkers::Checkers;
use crate::ir::{BinOp, Builtin, ConvOp, ExtOp, Function, Op, Ptr, Terminator, Ty};
use crate::ir::{Inst, UnOp, ValueId, VarId};
use crate::memfacts::{Fact, MAX_FACTS, MemFacts, Node};

mod cfg;
mod loops;

use cfg::{cyclic_blocks, dominators, reverse_postorder};

/// Formula node index.
type NodeIdx = u32;

/// `[lo, hi]`, both inclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Iv {
    lo: NodeIdx,
    hi: NodeIdx,
}

#[derive(Clone, Copy)]
enum VarDef {
    None,
    One { block: u32, at: u32, value: ValueId },
    Many,
}

/// `x cmp y` holds where a branch's edge leads.
#[derive(Clone, Copy)]
struct Constraint {
    x: ValueId,
    cmp: BinOp,
    y: ValueId,
}

/// Deep formulas are rare and not worth their evaluation; a chain this long gives up.
const DEPTH: u32 = 160;

/// Finds the kernel's provable sites, gives each check call its flag and returns the facts.
pub fn prove(f: &mut Function, checkers: Checkers) -> MemFacts {
    let mut sites = Vec::new();
    let facts = {
        let mut a = Analysis::new(f);
        let mut index: HashMap<Fact, usize> = HashMap::new();
        let mut facts = Vec::new();
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                let Op::Call(c) = inst.op else { continue };
                let call = f.side.call(c);
                let (flag, limit) = match call.args.len() {
                    4 if call.func == checkers.global => (3, None),
                    5 if call.func == checkers.arena => (4, Some(call.args[2])),
                    _ => continue,
                };
                let Some(bytes) = a.constant(call.args[1]) else {
                    continue;
                };
                let Some(iv) = a.value(call.args[0], b as u32, 0) else {
                    continue;
                };
                // An arena's size: the smallest it can be.
                let limit = match limit {
                    Some(l) => match a.value(l, b as u32, 0) {
                        Some(l) => Some(l.lo),
                        None => continue,
                    },
                    None => None,
                };
                let fact = Fact {
                    lo: iv.lo,
                    hi: iv.hi,
                    bytes: bytes as u32,
                    limit,
                };
                let k = match index.get(&fact) {
                    Some(&k) => k,
                    None if facts.len() < MAX_FACTS => {
                        facts.push(fact);
                        index.insert(fact, facts.len() - 1);
                        facts.len() - 1
                    }
                    None => continue,
                };
                sites.push((b, i, c, flag, k));
            }
        }
        MemFacts {
            nodes: a.nodes,
            facts,
        }
    };
    // Later positions first, so that earlier ones stay where they were found.
    sites.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    for (b, i, c, flag_arg, k) in sites {
        let flag = ValueId(f.values.len() as u32);
        f.values.push(Ty::Bool);
        f.blocks[b].insts.insert(
            i,
            Inst {
                result: Some(flag),
                op: Op::Builtin(Builtin::MemProven(k as u8)),
            },
        );
        f.side.call_mut(c).args[flag_arg] = flag;
    }
    facts
}

struct Analysis<'f> {
    f: &'f Function,
    nodes: Vec<Node>,
    interned: HashMap<Node, NodeIdx>,
    /// Where each value is made: (block, index).
    def: Vec<Option<(u32, u32)>>,
    vars: Vec<VarDef>,
    /// The variables each value is written to.
    stored_in: HashMap<ValueId, Vec<VarId>>,
    idom: Vec<Option<u32>>,
    preds: Vec<Vec<u32>>,
    cyclic: Vec<bool>,
    /// Strongly connected component of each block (`u32::MAX`: unreachable).
    comp: Vec<u32>,
    succ: Vec<Vec<u32>>,
    /// By value and the block whose branch conditions bound it.
    values: HashMap<(ValueId, u32), Option<Iv>>,
    refined: HashMap<(VarId, u32), Option<Iv>>,
    /// Variables written more than once, on entry to a block.
    entries: HashMap<(VarId, u32), Option<Iv>>,
}

impl<'f> Analysis<'f> {
    fn new(f: &'f Function) -> Self {
        let n = f.blocks.len();
        let mut def = vec![None; f.values.len()];
        let mut vars = vec![VarDef::None; f.vars.len()];
        let mut preds = vec![Vec::new(); n];
        let mut stored_in: HashMap<ValueId, Vec<VarId>> = HashMap::new();
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(r) = inst.result {
                    def[r.0 as usize] = Some((b as u32, i as u32));
                }
                let mut write = |v: VarId, value: Option<ValueId>| {
                    let d = &mut vars[v.0 as usize];
                    *d = match (*d, value) {
                        (VarDef::None, Some(value)) => VarDef::One {
                            block: b as u32,
                            at: i as u32,
                            value,
                        },
                        _ => VarDef::Many,
                    };
                };
                if let Op::StoreVar(v, x) = inst.op {
                    write(v, Some(x));
                    stored_in.entry(x).or_default().push(v);
                }
                for &v in inst.op.result_vars(&f.side) {
                    write(v, None);
                }
            }
            for s in block.term.targets() {
                preds[s.0 as usize].push(b as u32);
            }
        }
        let succ: Vec<Vec<u32>> = f
            .blocks
            .iter()
            .map(|b| b.term.targets().map(|s| s.0).collect())
            .collect();
        let rpo = reverse_postorder(&succ, f.entry.0);
        // Edges from blocks nothing reaches (lowering leaves some after an unconditional
        // branch) bring nothing.
        let mut reachable = vec![false; n];
        for &b in &rpo {
            reachable[b as usize] = true;
        }
        for p in &mut preds {
            p.retain(|&q| reachable[q as usize]);
        }
        let idom = dominators(&rpo, &preds, f.entry.0, n);
        let (cyclic, comp) = cyclic_blocks(&succ, &preds, &rpo);
        Analysis {
            f,
            nodes: Vec::new(),
            interned: HashMap::new(),
            def,
            vars,
            stored_in,
            idom,
            preds,
            cyclic,
            comp,
            succ,
            values: HashMap::new(),
            refined: HashMap::new(),
            entries: HashMap::new(),
        }
    }

    fn node(&mut self, n: Node) -> NodeIdx {
        let c = |x: NodeIdx, nodes: &[Node]| match nodes[x as usize] {
            Node::Const(c) => Some(c),
            _ => None,
        };
        let folded = match n {
            Node::Add(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .and_then(|(a, b)| a.checked_add(b)),
            Node::Mul(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .and_then(|(a, b)| a.checked_mul(b)),
            Node::Sub(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .and_then(|(a, b)| a.checked_sub(b)),
            Node::Min(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .map(|(a, b)| a.min(b)),
            Node::Max(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .map(|(a, b)| a.max(b)),
            Node::Fit(a, bits) => c(a, &self.nodes).filter(|&a| bits >= 64 || a >> bits == 0),
            Node::NeLo(a, b) => c(a, &self.nodes)
                .zip(c(b, &self.nodes))
                .and_then(|(a, b)| if a == b { a.checked_add(1) } else { Some(a) }),
            _ => None,
        };
        let is = |x: NodeIdx, k: u64, nodes: &[Node]| c(x, nodes) == Some(k);
        let n = match folded {
            Some(k) => Node::Const(k),
            None => match n {
                Node::Min(a, b) | Node::Max(a, b) | Node::Else(a, b) | Node::Same(a, b)
                    if a == b =>
                {
                    return a;
                }
                // A constant always evaluates, so the fallback is never taken.
                Node::Else(a, _) if c(a, &self.nodes).is_some() => return a,
                Node::Add(a, b) | Node::Sub(a, b) if is(b, 0, &self.nodes) => return a,
                Node::Add(a, b) if is(a, 0, &self.nodes) => return b,
                Node::Mul(a, b) if is(b, 1, &self.nodes) => return a,
                Node::Mul(a, b) if is(a, 1, &self.nodes) => return b,
                Node::Mul(a, b) if is(a, 0, &self.nodes) || is(b, 0, &self.nodes) => {
                    return self.konst(0);
                }
                n => n,
            },
        };
        if let Some(&i) = self.interned.get(&n) {
            return i;
        }
        self.nodes.push(n);
        let i = self.nodes.len() as NodeIdx - 1;
        self.interned.insert(n, i);
        i
    }

    fn node_constant(&self, n: NodeIdx) -> Option<u64> {
        match self.nodes[n as usize] {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }

    fn konst(&mut self, c: u64) -> NodeIdx {
        self.node(Node::Const(c))
    }

    fn exact(&mut self, n: Node) -> Iv {
        let x = self.node(n);
        Iv { lo: x, hi: x }
    }

    fn op(&self, v: ValueId) -> Option<(u32, u32, Op)> {
        let (b, i) = self.def.get(v.0 as usize).copied().flatten()?;
        Some((b, i, self.f.blocks[b as usize].insts[i as usize].op))
    }

    fn constant(&self, v: ValueId) -> Option<u64> {
        match self.op(v)? {
            (_, _, Op::Const(c)) => Some(c),
            _ => None,
        }
    }

    fn bits(&self, v: ValueId) -> Option<u8> {
        match self.f.ty(v) {
            Ty::I32 => Some(32),
            Ty::I64 => Some(64),
            _ => None,
        }
    }

    /// `[lo, hi]` where `hi` fits `bits`; otherwise the value may have wrapped, and it is only
    /// known to lie in its type's range. Both ends change together.
    fn fit(&mut self, lo: NodeIdx, hi: NodeIdx, bits: u8) -> Iv {
        let hi = self.node(Node::Fit(hi, bits));
        let lo = self.node(Node::Min(lo, hi));
        self.or_full(Iv { lo, hi }, bits)
    }

    /// `iv`, or the whole range of `bits` where `iv` cannot be evaluated.
    fn or_full(&mut self, iv: Iv, bits: u8) -> Iv {
        let zero = self.konst(0);
        let max = self.konst(max_of(bits));
        let lo = self.node(Node::Else(iv.lo, zero));
        let hi = self.node(Node::Else(iv.hi, max));
        Iv { lo, hi }
    }

    fn full(&mut self, bits: u8) -> Iv {
        Iv {
            lo: self.konst(0),
            hi: self.konst(max_of(bits)),
        }
    }

    /// The interval of integer value `v` in block `at` (`None`: not bounded by launch values).
    /// `v` is made in `at` or in a block above it: every variable it reads holds its one value
    /// in `at` too, so the branch conditions that lead to `at` bound them there.
    fn value(&mut self, v: ValueId, at: u32, depth: u32) -> Option<Iv> {
        if let Some(r) = self.values.get(&(v, at)) {
            return *r;
        }
        // A cycle of conditions (`x < y` bounding `y` by `x`) finds nothing on its way back.
        self.values.insert((v, at), None);
        let r = if depth > DEPTH {
            None
        } else {
            self.compute(v, at, depth + 1)
        };
        self.values.insert((v, at), r);
        r
    }

    fn compute(&mut self, v: ValueId, at: u32, depth: u32) -> Option<Iv> {
        let bits = self.bits(v)?;
        let (b, i, op) = self.op(v)?;
        let one = self.konst(1);
        match op {
            Op::Const(c) => Some(self.exact(Node::Const(c))),
            Op::Builtin(Builtin::BlockDim(d)) => Some(self.exact(Node::BlockDim(d))),
            Op::Builtin(Builtin::GridDim(d)) => Some(self.exact(Node::GridDim(d))),
            Op::Builtin(Builtin::DynamicSharedBytes) => Some(self.exact(Node::DynamicShared)),
            Op::Builtin(Builtin::LocalId(d)) => {
                let n = self.node(Node::BlockDim(d));
                let hi = self.node(Node::Sub(n, one));
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Builtin(Builtin::WorkgroupId(d) | Builtin::CtaBase(d)) => Some(self.ctaid(d)),
            Op::Bin(BinOp::IAdd, x, y, _) => {
                if let Some(d) = self.ctaid_sum(x, y) {
                    return Some(self.ctaid(d));
                }
                // `x + c` with `c` negative in the value's width: `x - |c|`.
                if let Some(c) = self.constant(y) {
                    let neg = if bits == 64 {
                        (c as i64) < 0
                    } else {
                        (c as u32 as i32) < 0
                    };
                    if neg {
                        let m = if bits == 64 {
                            (c as i64).unsigned_abs()
                        } else {
                            u64::from((c as u32 as i32).unsigned_abs())
                        };
                        let a = self.value(x, at, depth)?;
                        let m = self.konst(m);
                        return Some(self.sub(a, Iv { lo: m, hi: m }, bits));
                    }
                }
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Add(a.lo, c.lo));
                let hi = self.node(Node::Add(a.hi, c.hi));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::ISub, x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                Some(self.sub(a, c, bits))
            }
            Op::Bin(BinOp::IMul, x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Mul(a.lo, c.lo));
                let hi = self.node(Node::Mul(a.hi, c.hi));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::Shl, x, y, _) => {
                let k = self.constant(y)?;
                if k >= u64::from(bits) {
                    return None;
                }
                let a = self.value(x, at, depth)?;
                let m = self.konst(1 << k);
                let lo = self.node(Node::Mul(a.lo, m));
                let hi = self.node(Node::Mul(a.hi, m));
                Some(self.fit(lo, hi, bits))
            }
            Op::Bin(BinOp::LShr, x, y, _) => {
                let k = self.constant(y)?;
                if k >= u64::from(bits) {
                    return None;
                }
                let a = self.value(x, at, depth)?;
                let k = self.konst(k);
                let lo = self.node(Node::Shr(a.lo, k));
                let hi = self.node(Node::Shr(a.hi, k));
                Some(Iv { lo, hi })
            }
            Op::Bin(BinOp::And, x, y, _) => {
                // At most either operand, whatever the other is.
                let hi = match (self.value(x, at, depth), self.value(y, at, depth)) {
                    (Some(a), Some(c)) => self.node(Node::Min(a.hi, c.hi)),
                    (Some(a), None) | (None, Some(a)) => a.hi,
                    (None, None) => return None,
                };
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Bin(op @ (BinOp::Or | BinOp::Xor), x, y, _) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let m = self.node(Node::Max(a.hi, c.hi));
                let mut hi = self.node(Node::Ones(m));
                // `(x << k) | y` with `y < 2^k` (a row's base and a column) is `(x << k) + y`.
                if op == BinOp::Or {
                    for (shifted, low, l) in [(x, c, y), (y, a, x)] {
                        if let Some((_, _, Op::Bin(BinOp::Shl, _, k, _))) = self.op(shifted)
                            && let Some(k) = self.constant(k)
                            && k < 64
                            && self.op(l).is_some()
                        {
                            let fits = self.node(Node::Fit(low.hi, k as u8));
                            let sum = self.node(Node::Add(a.hi, c.hi));
                            let sum = self.node(Node::If(sum, fits));
                            hi = self.node(Node::Else(sum, hi));
                            break;
                        }
                    }
                }
                Some(Iv {
                    lo: self.konst(0),
                    hi,
                })
            }
            Op::Ext(e @ (ExtOp::UMax | ExtOp::UMin), args, _) if args.len() == 2 => {
                let (a, c) = (
                    self.value(args[0], at, depth)?,
                    self.value(args[1], at, depth)?,
                );
                let (lo, hi) = if e == ExtOp::UMax {
                    (Node::Max(a.lo, c.lo), Node::Max(a.hi, c.hi))
                } else {
                    (Node::Min(a.lo, c.lo), Node::Min(a.hi, c.hi))
                };
                let (lo, hi) = (self.node(lo), self.node(hi));
                Some(Iv { lo, hi })
            }
            Op::Select(_, x, y) => {
                let (a, c) = (self.value(x, at, depth)?, self.value(y, at, depth)?);
                let lo = self.node(Node::Min(a.lo, c.lo));
                let hi = self.node(Node::Max(a.hi, c.hi));
                Some(Iv { lo, hi })
            }
            Op::Conv(ConvOp::ZExt | ConvOp::Bitcast, x) => {
                self.bits(x)?;
                self.value(x, at, depth)
            }
            Op::Conv(ConvOp::Trunc, x) => {
                let a = self.value(x, at, depth)?;
                Some(self.fit(a.lo, a.hi, bits))
            }
            Op::LoadVar(var) if self.written_before(var, b, i).is_some() => {
                self.var_at(var, (b, i), at, depth)
            }
            Op::LoadVar(var) => self.var_in(var, b, i, depth),
            Op::BitExtract {
                signed: false,
                count,
                ..
            } => {
                // `bfe` clamps its length in IR that is folded only later, so the length
                // is known through its interval rather than as a constant here.
                let c = match self.constant(count) {
                    Some(c) => c,
                    None => {
                        let n = self.value(count, at, depth)?;
                        self.node_constant(n.hi)?
                    }
                };
                (c < u64::from(bits)).then(|| Iv {
                    lo: self.konst(0),
                    hi: self.konst((1 << c) - 1),
                })
            }
            Op::Load {
                ptr: Ptr::Global(p),
                ..
            } => {
                let offset = self.param_offset(p)?;
                Some(self.exact(Node::Param {
                    offset: u32::try_from(offset).ok()?,
                    bytes: bits / 8,
                }))
            }
            _ => None,
        }
    }

    /// `a - c` where it cannot go below zero; otherwise the whole range of `bits`.
    fn sub(&mut self, a: Iv, c: Iv, bits: u8) -> Iv {
        let lo = self.node(Node::Sub(a.lo, c.hi));
        let lo = self.node(Node::Fit(lo, bits));
        let hi = self.node(Node::Sub(a.hi, c.lo));
        let hi = self.node(Node::Max(hi, lo));
        self.or_full(Iv { lo, hi }, bits)
    }

    /// `%ctaid.d`: in `[0, %nctaid.d)`, whichever dispatch of the grid runs it.
    fn ctaid(&mut self, d: u8) -> Iv {
        let n = self.node(Node::GridDim(d));
        let one = self.konst(1);
        let hi = self.node(Node::Sub(n, one));
        Iv {
            lo: self.konst(0),
            hi,
        }
    }

    /// The axis when `x + y` is this dispatch's workgroup id plus its first block (`%ctaid`).
    fn ctaid_sum(&self, x: ValueId, y: ValueId) -> Option<u8> {
        match (self.op(x)?.2, self.op(y)?.2) {
            (Op::Builtin(Builtin::WorkgroupId(a)), Op::Builtin(Builtin::CtaBase(b)))
            | (Op::Builtin(Builtin::CtaBase(b)), Op::Builtin(Builtin::WorkgroupId(a)))
                if a == b =>
            {
                Some(a)
            }
            _ => None,
        }
    }

    /// `p` as the parameter block's address plus a constant.
    fn param_offset(&self, p: ValueId) -> Option<u64> {
        match self.op(p)?.2 {
            Op::Builtin(Builtin::ParamBase) => Some(0),
            Op::Bin(BinOp::IAdd, x, y, _) => {
                let c = self.constant(y)?;
                self.param_offset(x)?.checked_add(c)
            }
            _ => None,
        }
    }

    /// Whether the single write of `var` comes before position `at` of block `b` on every path.
    fn written_before(&self, var: VarId, b: u32, at: u32) -> Option<(u32, ValueId)> {
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

    fn dominates(&self, a: u32, mut b: u32) -> bool {
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
    fn var_at(&mut self, var: VarId, read: (u32, u32), at: u32, depth: u32) -> Option<Iv> {
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
    fn var_in(&mut self, var: VarId, b: u32, at: u32, depth: u32) -> Option<Iv> {
        let bits = var_bits(self.f, var)?;
        match self.last_write(var, b, at) {
            Some(Some(v)) => Some(self.value(v, b, depth).unwrap_or_else(|| self.full(bits))),
            Some(None) => Some(self.full(bits)),
            None => self.var_entry(var, b, bits, depth),
        }
    }

    /// The last write of `var` in block `b` before position `at`: `Some(None)` where it is a
    /// call's or texture operation's result.
    fn last_write(&self, var: VarId, b: u32, at: u32) -> Option<Option<ValueId>> {
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
    fn leaves_with(&self, x: ValueId, var: VarId, p: u32, cmp: BinOp, depth: u32) -> bool {
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

    /// The smallest interval holding `iv` and `joined` (when there is one).
    fn join(&mut self, joined: Option<Iv>, iv: Iv) -> Iv {
        let Some(j) = joined else { return iv };
        let lo = self.node(Node::Min(j.lo, iv.lo));
        let hi = self.node(Node::Max(j.hi, iv.hi));
        Iv { lo, hi }
    }

    /// `iv` knowing that the value `cmp` `o`; where `o` cannot be evaluated (it may have
    /// wrapped), the comparison bounds nothing.
    fn apply(&mut self, iv: Iv, cmp: BinOp, o: Iv) -> Iv {
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
    fn is(&self, x: ValueId, var: VarId, cmp: BinOp, depth: u32) -> bool {
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
    fn constraints(&self, b: u32) -> Vec<Constraint> {
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

    fn conditions(&self, c: ValueId, holds: bool, out: &mut Vec<Constraint>, depth: u32) {
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

fn max_of(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn var_bits(f: &Function, v: VarId) -> Option<u8> {
    match f.vars[v.0 as usize].ty {
        Ty::I32 => Some(32),
        Ty::I64 => Some(64),
        _ => None,
    }
}
