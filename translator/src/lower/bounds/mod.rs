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
use crate::ir::{BinOp, Builtin, Function, Op, Ty};
use crate::ir::{Inst, ValueId, VarId};
use crate::memfacts::{Fact, MAX_FACTS, MemFacts, Node};

mod cfg;
mod conditions;
mod loops;
mod value;
mod vars;

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
