//! Block-uniformity analysis for the SIMT emulation: which values are the same in every thread of
//! the block that computes them, and which loops every thread iterates the same number of times.
//!
//! The emulation needs this to leave alone constructs that contain synchronization but cannot
//! diverge: an `if` whose condition is uniform, a loop whose every exit and back edge is decided
//! uniformly. The rules (docs/decisions.md, "Uniformity"):
//!
//! - uniform values: constants; the built-ins that are the same for the whole block (`%ntid`,
//!   `%nctaid`, `%ctaid`, the parameter block's and the globals' addresses, the shared arena's
//!   layout); loads of the kernel parameter block (read-only for the kernel, ISA 5.1.6.1) at
//!   constant offsets; block-wide votes; and operations whose operands are all uniform. `%tid`,
//!   lane and subgroup ids, other loads, atomics, warp operations and call results are not.
//! - a register (IR variable) is uniform when every store to it stores a uniform value at a point
//!   of uniform control (every live thread of the block gets there the same number of times, in
//!   the same order). Stores under divergent control, or of divergent values, make it divergent
//!   everywhere (flow-insensitive, hence also sound for values carried out of divergent loops).
//! - control becomes divergent inside an `if`/`switch` on a divergent value, after a branch,
//!   `return` or `exit` taken under divergent control (until the construct that branch leaves to
//!   ends: the threads meet again there), and in the whole body of a loop that some threads may
//!   leave or continue while others do not.
//!
//! The analysis starts from "every register is uniform" and removes registers until nothing
//! changes (each round can only remove), so the result is the greatest fixed point of the rules.

use std::collections::BTreeSet;

use super::U;
use crate::ir::{BinOp, Builtin, Function, Op, Ptr, ValueId, WarpOp};

/// The result: per value, per variable, and the ids of uniform loops and blocks.
pub struct Uniformity {
    value: Vec<bool>,
    var: Vec<bool>,
    constructs: BTreeSet<u32>,
}

impl Uniformity {
    /// Whether `v` is the same in every thread of the block that computes it. Values created
    /// after the analysis are not uniform.
    pub fn value(&self, v: ValueId) -> bool {
        self.value.get(v.0 as usize).copied().unwrap_or(false)
    }

    /// Whether all threads of the block reach construct `id` together or not at all, and every
    /// branch to it (a loop's next iteration, a block's end) is taken by all of them or none:
    /// a loop they iterate the same number of times, a block they leave the same way.
    pub fn uniform_construct(&self, id: u32) -> bool {
        self.constructs.contains(&id)
    }

    /// The variables found uniform (the emulation gives them a defined initial value).
    pub fn uniform_vars(&self) -> impl Iterator<Item = crate::ir::VarId> + '_ {
        self.var
            .iter()
            .enumerate()
            .filter(|(_, u)| **u)
            .map(|(i, _)| crate::ir::VarId(i as u32))
    }
}

/// Where a branch goes: a construct's id, or out of the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Construct(u32),
    Out,
}

pub fn analyze(f: &Function, tree: &[U]) -> Uniformity {
    let mut var = vec![true; f.vars.len()];
    loop {
        let value = values(f, &var);
        let mut w = Walk {
            value: &value,
            divergent_block: vec![false; f.blocks.len()],
            constructs: Vec::new(),
        };
        w.seq(tree, false);
        let mut changed = false;
        for (bi, b) in f.blocks.iter().enumerate() {
            let divergent = w.divergent_block[bi];
            for inst in &b.insts {
                match &inst.op {
                    Op::StoreVar(v, x) => {
                        let bad = divergent || !value.get(x.0 as usize).copied().unwrap_or(false);
                        if bad && var[v.0 as usize] {
                            var[v.0 as usize] = false;
                            changed = true;
                        }
                    }
                    Op::Call(c) => {
                        for r in &f.side.call(*c).results {
                            if var[r.0 as usize] {
                                var[r.0 as usize] = false;
                                changed = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if !changed {
            let constructs = w.constructs.into_iter().collect();
            return Uniformity {
                value,
                var,
                constructs,
            };
        }
    }
}

/// Value uniformity given variable uniformity. Values are local to their block and defined
/// before use, so one pass in block order suffices.
fn values(f: &Function, var: &[bool]) -> Vec<bool> {
    let mut u = vec![false; f.values.len()];
    // Addresses inside the kernel parameter block, the block's base, constants.
    let mut param = vec![false; f.values.len()];
    let mut base = vec![false; f.values.len()];
    let mut konst = vec![false; f.values.len()];
    let get = |u: &[bool], v: &ValueId| u.get(v.0 as usize).copied().unwrap_or(false);
    for b in &f.blocks {
        for inst in &b.insts {
            let Some(r) = inst.result else { continue };
            let all = |vs: &[ValueId]| vs.iter().all(|v| get(&u, v));
            let (uni, par) = match &inst.op {
                Op::Const(_) => (true, false),
                Op::LoadVar(v) => (var.get(v.0 as usize).copied().unwrap_or(false), false),
                Op::Un(_, a) | Op::Conv(_, a) => (get(&u, a), false),
                Op::Bin(op, a, b, _) => {
                    // The parameter block's base plus a constant: inside the block (reading past
                    // its end is undefined), so read-only.
                    let par = *op == BinOp::IAdd
                        && ((get(&base, a) && get(&konst, b)) || (get(&konst, a) && get(&base, b)));
                    (all(&[*a, *b]), par)
                }
                Op::Select(c, a, b) => (all(&[*c, *a, *b]), false),
                Op::Ext(_, args, _) => (all(args), false),
                Op::BitExtract {
                    base,
                    offset,
                    count,
                    ..
                } => (all(&[*base, *offset, *count]), false),
                Op::BitInsert {
                    base,
                    insert,
                    offset,
                    count,
                } => (all(&[*base, *insert, *offset, *count]), false),
                // Listed one by one: a built-in added later is divergent until someone decides.
                Op::Builtin(b) => (
                    matches!(
                        b,
                        Builtin::WorkgroupId(_)
                            | Builtin::BlockDim(_)
                            | Builtin::GridDim(_)
                            | Builtin::CtaBase(_)
                            | Builtin::ParamBase
                            | Builtin::GlobalsBase
                            | Builtin::DynamicSharedBytes
                            | Builtin::ScratchBase
                            | Builtin::SharedLock
                            | Builtin::StatusAddress
                            | Builtin::BarrierWords
                    ),
                    // The first parameter's address (forwarding folds `ParamBase + 0`).
                    *b == Builtin::ParamBase,
                ),
                // The kernel's parameters are read-only: the same address reads the same value.
                Op::Load {
                    ptr: Ptr::Global(a),
                    ..
                } => (get(&u, a) && get(&param, a), false),
                Op::Warp(WarpOp::WorkgroupAny | WarpOp::WorkgroupCount, _) => (true, false),
                _ => (false, false),
            };
            u[r.0 as usize] = uni;
            param[r.0 as usize] = par;
            base[r.0 as usize] = matches!(inst.op, Op::Builtin(Builtin::ParamBase));
            konst[r.0 as usize] = matches!(inst.op, Op::Const(_));
        }
    }
    u
}

struct Walk<'a> {
    value: &'a [bool],
    /// Blocks reached under divergent control (somewhere in the tree).
    divergent_block: Vec<bool>,
    /// Uniform loops and blocks.
    constructs: Vec<u32>,
}

impl Walk<'_> {
    fn uniform(&self, v: ValueId) -> bool {
        self.value.get(v.0 as usize).copied().unwrap_or(false)
    }

    /// Walks a sequence entered under divergent control or not (`d`); returns the targets of
    /// branches (and returns) that some threads may take while others do not.
    fn seq(&mut self, nodes: &[U], mut d: bool) -> BTreeSet<Target> {
        let mut all = BTreeSet::new();
        for n in nodes {
            let de = self.node(n, d);
            if !de.is_empty() {
                // The threads that branched away are missing from the rest of the sequence.
                d = true;
                all.extend(de);
            }
        }
        all
    }

    fn node(&mut self, n: &U, d: bool) -> BTreeSet<Target> {
        let single = |t| {
            if d {
                BTreeSet::from([t])
            } else {
                BTreeSet::new()
            }
        };
        match n {
            U::Code(b) => {
                if let Some(x) = self.divergent_block.get_mut(b.0 as usize) {
                    *x |= d;
                }
                BTreeSet::new()
            }
            U::If { cond, then, else_ } => {
                let dd = d || !self.uniform(*cond);
                let mut de = self.seq(then, dd);
                de.extend(self.seq(else_, dd));
                de
            }
            U::Switch {
                value,
                cases,
                default,
            } => {
                let dd = d || !self.uniform(*value);
                let mut de = self.seq(default, dd);
                for c in cases {
                    de.extend(self.seq(c, dd));
                }
                de
            }
            U::Block(id, body) => {
                let mut de = self.seq(body, d);
                if !d && !de.contains(&Target::Construct(*id)) {
                    self.constructs.push(*id);
                }
                de.remove(&Target::Construct(*id));
                de
            }
            U::Loop(id, body) => {
                let mark = self.constructs.len();
                let mut de = self.seq(body, d);
                if !de.is_empty() && !d {
                    // Some threads iterate again while others leave: every iteration after the
                    // first is divergent, and so is everything in it.
                    self.constructs.truncate(mark);
                    de = self.seq(body, true);
                } else if !d {
                    self.constructs.push(*id);
                }
                de.remove(&Target::Construct(*id));
                de
            }
            U::Branch(t) => single(Target::Construct(*t)),
            U::Return(_) | U::Exit => single(Target::Out),
            U::Unreachable => BTreeSet::new(),
        }
    }
}
