//! The backward analysis of which lanes need each value, to its fixpoint.

use super::bits::{Lanes, lane_set};
use crate::check::Map as HashMap;
use crate::ir::{Function, Inst, Op, Ptr, Ty, ValueId, VarId, WarpOp};
use crate::structurize::Node;

/// Passes over the function before the analysis gives up (every read stays an exchange).
const MAX_PASSES: usize = 200;

pub(super) struct Analysis<'f> {
    pub(super) f: &'f Function,
    /// Each value's defining instruction (block, index).
    pub(super) def: Vec<Option<(u32, u32)>>,
    /// The value stored into each variable where it is stored exactly once.
    pub(super) single: Vec<Option<ValueId>>,
    /// Lanes that may run each block.
    pub(super) region: Vec<u32>,
    pub(super) in_tree: Vec<bool>,
    pub(super) need: Vec<u32>,
    pub(super) need_var: Vec<u32>,
    pub(super) lanes: HashMap<ValueId, Option<Box<Lanes>>>,
    pub(super) busy: Vec<bool>,
}

impl<'f> Analysis<'f> {
    pub(super) fn new(f: &'f Function) -> Self {
        let mut def = vec![None; f.values.len()];
        let mut stores = vec![0u32; f.vars.len()];
        let mut single = vec![None; f.vars.len()];
        for (bi, b) in f.blocks.iter().enumerate() {
            for (ii, inst) in b.insts.iter().enumerate() {
                if let Some(r) = inst.result {
                    def[r.0 as usize] = Some((bi as u32, ii as u32));
                }
                if let Op::StoreVar(v, x) = inst.op {
                    stores[v.0 as usize] += 1;
                    single[v.0 as usize] = Some(x);
                }
                for v in inst.op.result_vars(&f.side) {
                    stores[v.0 as usize] += 2;
                }
            }
        }
        for (s, n) in single.iter_mut().zip(&stores) {
            if *n != 1 {
                *s = None;
            }
        }
        Analysis {
            f,
            def,
            single,
            region: vec![0; f.blocks.len()],
            in_tree: vec![false; f.blocks.len()],
            need: vec![0; f.values.len()],
            need_var: vec![0; f.vars.len()],
            lanes: HashMap::default(),
            busy: vec![false; f.values.len()],
        }
    }

    pub(super) fn op(&self, v: ValueId) -> Option<Op> {
        let (b, i) = (*self.def.get(v.0 as usize)?)?;
        Some(self.f.blocks[b as usize].insts[i as usize].op)
    }

    /// The value a load of `var` reads, where the variable is stored once.
    pub(super) fn stored(&self, var: VarId) -> Option<ValueId> {
        self.single.get(var.0 as usize).copied().flatten()
    }

    /// Seeds the observations of the tree's control decisions and records each block's lanes.
    pub(super) fn regions(&mut self, nodes: &[Node], lanes: u32) {
        for n in nodes {
            match n {
                Node::Code(b) => {
                    self.region[b.0 as usize] |= lanes;
                    self.in_tree[b.0 as usize] = true;
                }
                Node::If { cond, then, else_ } => {
                    self.observe(*cond, lanes);
                    let t = lanes & self.may(*cond, true);
                    let e = lanes & self.may(*cond, false);
                    self.regions(then, t);
                    self.regions(else_, e);
                }
                Node::Block(body) | Node::Loop(body) => self.regions(body, lanes),
                Node::Switch {
                    value,
                    cases,
                    default,
                } => {
                    self.observe(*value, lanes);
                    for c in cases {
                        self.regions(c, lanes);
                    }
                    self.regions(default, lanes);
                }
                Node::Return(vals) => {
                    for v in vals {
                        self.observe(*v, lanes);
                    }
                }
                Node::Branch(_) | Node::Exit | Node::Unreachable => {}
            }
        }
    }

    pub(super) fn observe(&mut self, v: ValueId, lanes: u32) {
        if let Some(n) = self.need.get_mut(v.0 as usize) {
            *n |= lanes;
        }
    }

    /// Runs the backward propagation to its fixpoint; `false` if it did not settle.
    pub(super) fn propagate(&mut self) -> bool {
        let f = self.f;
        for _ in 0..MAX_PASSES {
            let mut changed = false;
            for (bi, b) in f.blocks.iter().enumerate().rev() {
                let region = self.region[bi];
                for inst in b.insts.iter().rev() {
                    changed |= self.step(inst, region);
                }
            }
            if !changed {
                return true;
            }
        }
        false
    }

    /// One instruction's transfer; whether any mask grew.
    pub(super) fn step(&mut self, inst: &Inst, region: u32) -> bool {
        let grown = std::cell::Cell::new(false);
        let add = |need: &mut Vec<u32>, v: ValueId, lanes: u32| {
            if let Some(n) = need.get_mut(v.0 as usize)
                && *n | lanes != *n
            {
                *n |= lanes;
                grown.set(true);
            }
        };
        let out = inst.result.map_or(0, |r| self.need[r.0 as usize]);
        match inst.op {
            Op::Const(_) | Op::Builtin(_) | Op::Param(_) => {}
            Op::LoadVar(var) => {
                if let Some(n) = self.need_var.get_mut(var.0 as usize)
                    && *n | out != *n
                {
                    *n |= out;
                    grown.set(true);
                }
            }
            Op::StoreVar(var, x) => {
                let n = self.need_var[var.0 as usize];
                add(&mut self.need, x, n);
            }
            Op::Un(_, a) | Op::Conv(_, a) => add(&mut self.need, a, out),
            Op::Bin(_, a, b, _) => {
                add(&mut self.need, a, out);
                add(&mut self.need, b, out);
            }
            Op::Select(c, a, b) => {
                for x in [c, a, b] {
                    add(&mut self.need, x, out);
                }
            }
            Op::Ext(_, args, _) => {
                for &x in args.iter() {
                    add(&mut self.need, x, out);
                }
            }
            Op::BitExtract {
                base,
                offset,
                count,
                ..
            } => {
                for x in [base, offset, count] {
                    add(&mut self.need, x, out);
                }
            }
            Op::BitInsert {
                base,
                insert,
                offset,
                count,
            } => {
                for x in [base, insert, offset, count] {
                    add(&mut self.need, x, out);
                }
            }
            // The address is observed: a wild one faults whatever its result feeds.
            Op::Load { ptr, .. } => {
                let (Ptr::Global(p) | Ptr::Shared(p) | Ptr::Local(p)) = ptr;
                add(&mut self.need, p, region);
            }
            Op::Warp(WarpOp::ReadLane, args) if args.len() == 2 => {
                let (v, src) = (args[0], args[1]);
                add(&mut self.need, src, out);
                let read = match self.lanes_of(src) {
                    Some(s) => lane_set(out, |l| s[l as usize]).map(|m| m | out),
                    None => None,
                };
                add(&mut self.need, v, read.unwrap_or(region));
            }
            op => crate::ir::inline::for_each_value(&op, &self.f.side, |x| {
                add(&mut self.need, x, region)
            }),
        }
        grown.get()
    }

    /// Whether the read `r` of `v` from lane `src` needs only lanes of its own aligned groups.
    pub(super) fn fits(&mut self, r: ValueId, v: ValueId, src: ValueId, group: u32) -> bool {
        let ty = self.f.ty(v);
        if ty == Ty::Bool || !matches!(ty.bits(), 32 | 64) {
            return false;
        }
        let Some(s) = self.lanes_of(src) else {
            return false;
        };
        let need = self.need[r.0 as usize];
        (0..32u32)
            .filter(|l| need >> l & 1 != 0)
            .all(|l| s[l as usize] < 32 && s[l as usize] as u32 / group == l / group)
    }
}
