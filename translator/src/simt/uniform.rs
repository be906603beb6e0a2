//! Block-uniformity analysis for the SIMT emulation: which values are the same in every thread of
//! the block that computes them, and which loops every thread iterates the same number of times.
//!
//! The emulation needs this to leave alone constructs that contain synchronization but cannot
//! diverge: an `if` whose condition is uniform, a loop whose every exit and back edge is decided
//! uniformly. The rules (docs/decisions/0082-uniformity-analysis.md):
//!
//! - uniform values: constants; the built-ins that are the same for the whole block (`%ntid`,
//!   `%nctaid`, `%ctaid`, the parameter block's and the globals' addresses, the shared arena's
//!   layout); loads of the kernel parameter block (read-only for the kernel, ISA 5.1.6.1) at
//!   constant offsets; block-wide votes; and operations whose operands are all uniform. `%tid`,
//!   lane and subgroup ids, other loads, atomics, warp operations and the results of calls and
//!   texture operations are not.
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
//! changes (each pass can only remove), so the result is the greatest fixed point of the rules.
//! A register removed counts as divergent for the rest of its pass already (the same fixed
//! point in fewer passes: 1.85 on average over the bench module's kernels under lavapipe, where
//! judging each pass by the registers of the last took 2.77).

use std::collections::BTreeSet;

use super::labelled::Labelled;
use crate::ir::{BinOp, Builtin, Function, Op, Ptr, ValueId, WarpOp};

/// The result: per value, per variable, and the ids of uniform loops and blocks.
pub struct Uniformity {
    /// Per value, `UNIFORM` and the other facts `sweep` found.
    value: Vec<u8>,
    var: Vec<bool>,
    constructs: BTreeSet<u32>,
}

impl Uniformity {
    /// Whether `v` is the same in every thread of the block that computes it. Values created
    /// after the analysis are not uniform.
    pub fn value(&self, v: ValueId) -> bool {
        self.value
            .get(v.0 as usize)
            .is_some_and(|x| x & UNIFORM != 0)
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

/// Per value: uniform, an address inside the parameter block, the block's base, a constant.
const UNIFORM: u8 = 1;
const PARAM: u8 = 2;
const BASE: u8 = 4;
const KONST: u8 = 8;

pub fn analyze(f: &Function, tree: &[Labelled]) -> Uniformity {
    let mut var = vec![true; f.vars.len()];
    let mut flags = vec![0u8; f.values.len()];
    let mut divergent = vec![false; f.blocks.len()];
    loop {
        let stale = sweep(f, &mut var, &mut flags, &divergent);
        let mut w = Walk {
            flags: &flags,
            divergent_block: vec![false; f.blocks.len()],
            constructs: Vec::new(),
        };
        w.seq(tree, false);
        if !stale && w.divergent_block == divergent {
            let constructs = w.constructs.into_iter().collect();
            return Uniformity {
                value: flags,
                var,
                constructs,
            };
        }
        divergent = w.divergent_block;
    }
}

fn uniform_if(u: bool) -> u8 {
    if u { UNIFORM } else { 0 }
}

/// One pass in block order: the uniformity of values given that of the variables, and of the
/// variables given the stores seen (under the control found `divergent` by the last walk).
/// Values are local to their block and defined before use. A variable found divergent counts
/// as such for the rest of the pass already: iterating from "all uniform" that way reaches the
/// same greatest fixed point in fewer passes. Returns whether some variable became divergent
/// after a load of it was judged in this pass (those values must be judged again).
fn sweep(f: &Function, var: &mut [bool], flags: &mut [u8], divergent: &[bool]) -> bool {
    let mut loaded = vec![false; var.len()];
    let mut stale = false;
    let demote = |var: &mut [bool], v: crate::ir::VarId, stale: &mut bool, loaded: &[bool]| {
        let i = v.0 as usize;
        if var[i] {
            var[i] = false;
            *stale |= loaded[i];
        }
    };
    let uni = |flags: &[u8], v: &ValueId| flags.get(v.0 as usize).is_some_and(|x| x & UNIFORM != 0);
    let has =
        |flags: &[u8], v: &ValueId, bit: u8| flags.get(v.0 as usize).is_some_and(|x| x & bit != 0);
    for (bi, b) in f.blocks.iter().enumerate() {
        let control = divergent[bi];
        for inst in &b.insts {
            let all = |flags: &[u8], vs: &[ValueId]| vs.iter().all(|v| uni(flags, v));
            let x = match &inst.op {
                Op::StoreVar(v, x) => {
                    if control || !uni(flags, x) {
                        demote(var, *v, &mut stale, &loaded);
                    }
                    continue;
                }
                // A pure call (a helper function) writes what it computes from its arguments:
                // uniform from uniform arguments under uniform control, like a store.
                Op::Call(c)
                    if f.side.call(*c).pure && !control && all(flags, &f.side.call(*c).args) =>
                {
                    0
                }
                // Other calls and texture operations write their result variables: never
                // uniform.
                Op::Call(_) | Op::Texture(_) => {
                    for r in inst.op.result_vars(&f.side) {
                        demote(var, *r, &mut stale, &loaded);
                    }
                    0
                }
                Op::Const(_) => UNIFORM | KONST,
                Op::LoadVar(v) => {
                    loaded[v.0 as usize] = true;
                    uniform_if(var[v.0 as usize])
                }
                Op::Un(_, a) | Op::Conv(_, a) => uniform_if(uni(flags, a)),
                Op::Bin(op, a, b, _) => {
                    // The parameter block's base plus a constant: inside the block (reading past
                    // its end is undefined), so read-only.
                    let par = *op == BinOp::IAdd
                        && ((has(flags, a, BASE) && has(flags, b, KONST))
                            || (has(flags, a, KONST) && has(flags, b, BASE)));
                    uniform_if(all(flags, &[*a, *b])) | if par { PARAM } else { 0 }
                }
                Op::Select(c, a, b) => uniform_if(all(flags, &[*c, *a, *b])),
                Op::Ext(_, args, _) => uniform_if(all(flags, args)),
                Op::BitExtract {
                    base,
                    offset,
                    count,
                    ..
                } => uniform_if(all(flags, &[*base, *offset, *count])),
                Op::BitInsert {
                    base,
                    insert,
                    offset,
                    count,
                } => uniform_if(all(flags, &[*base, *insert, *offset, *count])),
                // Listed one by one: a built-in added later is divergent until someone decides.
                // The first parameter's address is the base (forwarding folds `ParamBase + 0`).
                Op::Builtin(Builtin::ParamBase) => UNIFORM | PARAM | BASE,
                Op::Builtin(
                    Builtin::WorkgroupId(_)
                    | Builtin::BlockDim(_)
                    | Builtin::GridDim(_)
                    | Builtin::CtaBase(_)
                    | Builtin::GlobalsBase
                    | Builtin::DynamicSharedBytes
                    | Builtin::ScratchBase
                    | Builtin::SharedLock
                    | Builtin::StatusAddress
                    | Builtin::BarrierWords,
                ) => UNIFORM,
                // The kernel's parameters are read-only: the same address reads the same value.
                Op::Load {
                    ptr: Ptr::Global(a),
                    ..
                } => uniform_if(uni(flags, a) && has(flags, a, PARAM)),
                Op::Warp(WarpOp::WorkgroupAny | WarpOp::WorkgroupCount, _) => UNIFORM,
                _ => 0,
            };
            if let Some(r) = inst.result {
                flags[r.0 as usize] = x;
            }
        }
    }
    stale
}

struct Walk<'a> {
    flags: &'a [u8],
    /// Blocks reached under divergent control (somewhere in the tree).
    divergent_block: Vec<bool>,
    /// Uniform loops and blocks.
    constructs: Vec<u32>,
}

impl Walk<'_> {
    fn uniform(&self, v: ValueId) -> bool {
        self.flags
            .get(v.0 as usize)
            .is_some_and(|x| x & UNIFORM != 0)
    }

    /// Walks a sequence entered under divergent control or not (`d`); returns the targets of
    /// branches (and returns) that some threads may take while others do not.
    fn seq(&mut self, nodes: &[Labelled], mut d: bool) -> BTreeSet<Target> {
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

    fn node(&mut self, n: &Labelled, d: bool) -> BTreeSet<Target> {
        let single = |t| {
            if d {
                BTreeSet::from([t])
            } else {
                BTreeSet::new()
            }
        };
        match n {
            Labelled::Code(b) => {
                if let Some(x) = self.divergent_block.get_mut(b.0 as usize) {
                    *x |= d;
                }
                BTreeSet::new()
            }
            Labelled::If { cond, then, else_ } => {
                let dd = d || !self.uniform(*cond);
                let mut de = self.seq(then, dd);
                de.extend(self.seq(else_, dd));
                de
            }
            Labelled::Switch {
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
            Labelled::Block(id, body) => {
                let mut de = self.seq(body, d);
                if !d && !de.contains(&Target::Construct(*id)) {
                    self.constructs.push(*id);
                }
                de.remove(&Target::Construct(*id));
                de
            }
            Labelled::Loop(id, body) => {
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
            Labelled::Branch(t) => single(Target::Construct(*t)),
            Labelled::Return(_) | Labelled::Exit => single(Target::Out),
            Labelled::Unreachable => BTreeSet::new(),
        }
    }
}
