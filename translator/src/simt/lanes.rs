//! Lane reads served by the device's subgroup where only lanes of one subgroup matter.
//!
//! Under the emulation every `ReadLane` is an exchange through shared memory between workgroup
//! barriers. Many read lanes close by (`shfl.down` by 4, 2, 1 of a reduction) while only some
//! lanes' results are ever looked at (lane 0's, under `if ((tid.x & 31) == 0)`). A backward
//! analysis finds, for each value, the lanes of the warp (a 32-bit mask) whose copy of it can
//! affect what the kernel does; a lane read whose needed lanes all read lanes of their own
//! aligned group of `group` lanes (one device subgroup) becomes a [`WarpOp::SubgroupRead`]: a
//! subgroup shuffle, no scratch and no barrier. The other lanes may get any value.
//!
//! - A store, atomic, call, texture access, memory address, warp operation or control decision
//!   (`if` condition, `switch` value) observes its operands in every lane that may run it. A
//!   lane that may run it is one the enclosing `if`s allow: conditions recognised as lane
//!   predicates (`(tid.x & 31) == 0`, `%laneid == 0`, `tid.x < 8`...) narrow the lanes of their
//!   arms. `%tid.x` is a lane's position only where `tid.x % 32` is the lane, which the caller
//!   promises (`DeviceProfile::lane_shaped_blocks`).
//! - Arithmetic passes its result's needed lanes to its operands, a variable load to the
//!   variable, a variable store from the variable to the stored value; variables are taken
//!   flow-insensitively (every load of one needs every store's value in those lanes), which
//!   covers loops and registers written more than once. The whole is a fixpoint.
//! - A lane read whose source lane is a function of the lane alone (constants and lane
//!   arithmetic: every `shfl` mode with constant operands) needs its value in the lanes it
//!   reads and in its own (a lane whose source is inactive keeps its value); any other needs
//!   it in every lane that may run it.
//! - Anything else observes its operands.
//!
//! A lane's activity at a read is decided by control flow, whose conditions are observed in
//! every lane that may evaluate them, so an inactive lane reads as inactive on both paths
//! (the subgroup read checks the invocation's activity with a ballot).
//!
//! The exchange's barrier also ordered memory, which CUDA does not promise of a shuffle but
//! warp-synchronous code may have relied on: a read is kept an exchange when, since the last
//! barrier that stays, a space (shared or global) was written and is accessed again after it,
//! or shared memory was read and is written after it. A global read before and a global write
//! after (a kernel loading its input, reducing and storing) do not keep it: another lane's
//! write ordered after this lane's read is a race CUDA leaves to the program.

use crate::check::Map as HashMap;
use crate::ir::{
    BinOp, Builtin, ConvOp, FpFlags, Function, Inst, Op, Ptr, Ty, UnOp, ValueId, VarId, WarpOp,
};
use crate::structurize::Node;

const ALL: u32 = u32::MAX;
/// Passes over the function before the analysis gives up (every read stays an exchange).
const MAX_PASSES: usize = 200;

/// A value in each of the 32 lanes.
type Lanes = [u64; 32];

/// Rewrites the lane reads of `f` (a kernel under the emulation, structured as `tree`) that
/// only need lanes of their own aligned group of `group` lanes into subgroup reads. Returns
/// whether any was.
/// `calls`: what each function of the module may read and write ([`call_effects`]).
pub fn serve_in_subgroups(f: &mut Function, tree: &[Node], group: u32, calls: &[(u8, u8)]) -> bool {
    if !f.may_sync || !group.is_power_of_two() || !(2..32).contains(&group) {
        return false;
    }
    let chosen = candidates(f, tree, group);
    if chosen.is_empty() {
        return false;
    }
    let keep = ordering(f, tree, &chosen, calls);
    let chosen: Vec<(usize, usize)> = chosen
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !keep[*k])
        .map(|(_, c)| c)
        .collect();
    for &(bi, ii) in chosen.iter().rev() {
        rewrite(f, bi, ii, group);
    }
    !chosen.is_empty()
}

/// The lane reads (block, instruction) whose needed lanes all read their own group's, each
/// alone in its block as lowering leaves a `shfl`.
fn candidates(f: &Function, tree: &[Node], group: u32) -> Vec<(usize, usize)> {
    let mut a = Analysis::new(f);
    a.regions(tree, ALL);
    if !a.propagate() {
        return Vec::new();
    }
    let mut chosen = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        if !a.in_tree[bi] || b.insts.iter().filter(|i| i.op.is_sync()).count() != 1 {
            continue;
        }
        for (ii, inst) in b.insts.iter().enumerate() {
            if let (Op::Warp(WarpOp::ReadLane, args), Some(r)) = (inst.op, inst.result)
                && args.len() == 2
                && a.fits(r, args[0], args[1], group)
            {
                chosen.push((bi, ii));
            }
        }
    }
    chosen
}

/// `insts[ii]` of block `bi`, a `ReadLane`, as a read of its subgroup: the invocation holding
/// source lane `s` is this one's aligned group with `s`'s position in it (subgroups of any
/// size from `group` up hold whole groups, in linear order).
fn rewrite(f: &mut Function, bi: usize, ii: usize, group: u32) {
    let inst = f.blocks[bi].insts[ii];
    let (Op::Warp(_, args), Some(r)) = (inst.op, inst.result) else {
        return;
    };
    let (v, src) = (args[0], args[1]);
    let mut new = Vec::with_capacity(7);
    let mut push = |f: &mut Function, ty: Ty, op: Op| {
        let id = ValueId(f.values.len() as u32);
        f.values.push(ty);
        new.push(Inst {
            result: Some(id),
            op,
        });
        id
    };
    let src = if f.ty(src) == Ty::I32 {
        src
    } else {
        push(f, Ty::I32, Op::Conv(ConvOp::Trunc, src))
    };
    let lane = push(f, Ty::I32, Op::Builtin(Builtin::SubgroupLane));
    let high = push(f, Ty::I32, Op::Const(u64::from(!(group - 1))));
    let base = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::And, lane, high, FpFlags::default()),
    );
    let low = push(f, Ty::I32, Op::Const(u64::from(group - 1)));
    let within = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::And, src, low, FpFlags::default()),
    );
    let inv = push(
        f,
        Ty::I32,
        Op::Bin(BinOp::Or, base, within, FpFlags::default()),
    );
    new.push(Inst {
        result: Some(r),
        op: Op::Warp(WarpOp::SubgroupRead, [v, inv].as_slice().into()),
    });
    f.blocks[bi].insts.splice(ii..=ii, new);
}

struct Analysis<'f> {
    f: &'f Function,
    /// Each value's defining instruction (block, index).
    def: Vec<Option<(u32, u32)>>,
    /// The value stored into each variable where it is stored exactly once.
    single: Vec<Option<ValueId>>,
    /// Lanes that may run each block.
    region: Vec<u32>,
    in_tree: Vec<bool>,
    need: Vec<u32>,
    need_var: Vec<u32>,
    lanes: HashMap<ValueId, Option<Box<Lanes>>>,
    busy: Vec<bool>,
}

impl<'f> Analysis<'f> {
    fn new(f: &'f Function) -> Self {
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

    fn op(&self, v: ValueId) -> Option<Op> {
        let (b, i) = (*self.def.get(v.0 as usize)?)?;
        Some(self.f.blocks[b as usize].insts[i as usize].op)
    }

    /// The value a load of `var` reads, where the variable is stored once.
    fn stored(&self, var: VarId) -> Option<ValueId> {
        self.single.get(var.0 as usize).copied().flatten()
    }

    /// Seeds the observations of the tree's control decisions and records each block's lanes.
    fn regions(&mut self, nodes: &[Node], lanes: u32) {
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

    fn observe(&mut self, v: ValueId, lanes: u32) {
        if let Some(n) = self.need.get_mut(v.0 as usize) {
            *n |= lanes;
        }
    }

    /// Runs the backward propagation to its fixpoint; `false` if it did not settle.
    fn propagate(&mut self) -> bool {
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
    fn step(&mut self, inst: &Inst, region: u32) -> bool {
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
    fn fits(&mut self, r: ValueId, v: ValueId, src: ValueId, group: u32) -> bool {
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

    /// `v` in each lane, where it depends on the lane alone.
    fn lanes_of(&mut self, v: ValueId) -> Option<Lanes> {
        if let Some(known) = self.lanes.get(&v) {
            return known.as_deref().copied();
        }
        let i = v.0 as usize;
        if *self.busy.get(i)? {
            return None;
        }
        self.busy[i] = true;
        let got = self.compute_lanes(v);
        self.busy[i] = false;
        self.lanes.insert(v, got.map(Box::new));
        got
    }

    fn compute_lanes(&mut self, v: ValueId) -> Option<Lanes> {
        let ty = self.f.ty(v);
        if ty.is_float() {
            return None;
        }
        let mask = width_mask(ty.bits());
        let each = |g: &dyn Fn(usize) -> Option<u64>| -> Option<Lanes> {
            let mut out = [0u64; 32];
            for (l, o) in out.iter_mut().enumerate() {
                *o = g(l)? & mask;
            }
            Some(out)
        };
        match self.op(v)? {
            Op::Const(c) => Some([c & mask; 32]),
            Op::LoadVar(var) => self.lanes_of(self.stored(var)?),
            Op::Bin(op, a, b, _) => {
                // A thread index masked to its low five bits is the lane's.
                if matches!(op, BinOp::And | BinOp::UMod) {
                    let pairs: &[(ValueId, ValueId)] = if op == BinOp::And {
                        &[(a, b), (b, a)]
                    } else {
                        &[(a, b)]
                    };
                    for &(x, k) in pairs {
                        if self.residue(x).is_some()
                            && let Some(k) = self.lanes_of(k)
                            && k.iter().all(|&c| c == k[0])
                        {
                            let c = k[0];
                            if op == BinOp::And && c < 32 {
                                return each(&|l| Some(l as u64 & c));
                            }
                            if op == BinOp::UMod && c == 32 {
                                return each(&|l| Some(l as u64));
                            }
                        }
                    }
                }
                let (x, y) = (self.lanes_of(a)?, self.lanes_of(b)?);
                let bits = self.f.ty(a).bits();
                each(&|l| binary(op, x[l], y[l], bits))
            }
            Op::Un(op, a) => {
                let x = self.lanes_of(a)?;
                match op {
                    UnOp::Not => each(&|l| Some(!x[l])),
                    UnOp::INeg => each(&|l| Some(x[l].wrapping_neg())),
                    _ => None,
                }
            }
            Op::Select(c, a, b) => {
                let (c, x, y) = (self.lanes_of(c)?, self.lanes_of(a)?, self.lanes_of(b)?);
                each(&|l| Some(if c[l] & 1 != 0 { x[l] } else { y[l] }))
            }
            Op::Conv(op, a) => {
                let from = self.f.ty(a);
                let x = self.lanes_of(a)?;
                match op {
                    ConvOp::ZExt | ConvOp::Trunc | ConvOp::Bitcast => each(&|l| Some(x[l])),
                    ConvOp::SExt => each(&|l| Some(sext(x[l], from.bits()) as u64)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether `v` is a thread index that equals the lane modulo 32 (`Some(nonnegative)`:
    /// whether it is also known to be below 2^31, so that signed comparisons order it as
    /// unsigned ones do).
    fn residue(&mut self, v: ValueId) -> Option<bool> {
        let i = v.0 as usize;
        if *self.busy.get(i)? {
            return None;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(0))) => Some(true),
            Some(Op::LoadVar(var)) => self.stored(var).and_then(|s| self.residue(s)),
            Some(Op::Conv(ConvOp::ZExt, a)) => self.residue(a).map(|_| true),
            Some(Op::Bin(BinOp::IAdd, a, b, _)) => {
                let mut found = None;
                for (x, y) in [(a, b), (b, a)] {
                    if let Some(n) = self.residue(x)
                        && self.multiple_of_32(y)
                    {
                        found = Some(n && self.small_index(y));
                        break;
                    }
                }
                found
            }
            _ => None,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is a multiple of 32 in every lane (given lane-shaped blocks).
    fn multiple_of_32(&mut self, v: ValueId) -> bool {
        let i = v.0 as usize;
        if self.busy.get(i).copied().unwrap_or(true) {
            return false;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Const(c)) => c % 32 == 0,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.multiple_of_32(s)),
            Some(Op::Bin(BinOp::IMul, a, b, _)) => {
                self.multiple_of_32(a)
                    || self.multiple_of_32(b)
                    || (self.vanishes_in_1d(a) && self.is_builtin(b, Builtin::BlockDim(0)))
                    || (self.vanishes_in_1d(b) && self.is_builtin(a, Builtin::BlockDim(0)))
            }
            Some(Op::Bin(BinOp::IAdd | BinOp::ISub, a, b, _)) => {
                self.multiple_of_32(a) && self.multiple_of_32(b)
            }
            Some(Op::Bin(BinOp::Shl, a, b, _)) => {
                let bits = u64::from(self.f.ty(a).bits());
                self.lanes_of(b)
                    .is_some_and(|k| k.iter().all(|&k| (5..bits).contains(&k)))
            }
            _ => false,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is 0 in a one-dimensional block: built from `%tid.y`, `%tid.z` by sums and
    /// products (so that times `%ntid.x` it is a multiple of 32 in every lane-shaped block).
    fn vanishes_in_1d(&mut self, v: ValueId) -> bool {
        let i = v.0 as usize;
        if self.busy.get(i).copied().unwrap_or(true) {
            return false;
        }
        self.busy[i] = true;
        let got = match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(1 | 2))) => true,
            Some(Op::Const(0)) => true,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.vanishes_in_1d(s)),
            Some(Op::Bin(BinOp::IAdd, a, b, _)) => self.vanishes_in_1d(a) && self.vanishes_in_1d(b),
            Some(Op::Bin(BinOp::IMul, a, b, _)) => self.vanishes_in_1d(a) || self.vanishes_in_1d(b),
            _ => false,
        };
        self.busy[i] = false;
        got
    }

    /// Whether `v` is a small non-negative thread-index term (the linear index's `y`, `z` part).
    fn small_index(&self, v: ValueId) -> bool {
        match self.op(v) {
            Some(Op::Builtin(Builtin::LocalId(_) | Builtin::BlockDim(_))) => true,
            Some(Op::Bin(BinOp::IAdd | BinOp::IMul, a, b, _)) => {
                self.small_index(a) && self.small_index(b)
            }
            _ => false,
        }
    }

    fn is_builtin(&self, v: ValueId, b: Builtin) -> bool {
        match self.op(v) {
            Some(Op::Builtin(x)) => x == b,
            Some(Op::LoadVar(var)) => self.stored(var).is_some_and(|s| self.is_builtin(s, b)),
            _ => false,
        }
    }

    /// The lanes in which the condition `c` may be `want` (all of them unless recognised).
    fn may(&mut self, c: ValueId, want: bool) -> u32 {
        if let Some(x) = self.lanes_of(c) {
            return lane_mask(|l| (x[l as usize] & 1 != 0) == want);
        }
        match self.op(c) {
            Some(Op::LoadVar(var)) => match self.stored(var) {
                Some(s) => self.may(s, want),
                None => ALL,
            },
            Some(Op::Un(UnOp::Not, a)) if self.f.ty(a) == Ty::Bool => self.may(a, !want),
            Some(Op::Bin(BinOp::And, a, b, _)) if self.f.ty(a) == Ty::Bool => {
                if want {
                    self.may(a, true) & self.may(b, true)
                } else {
                    self.may(a, false) | self.may(b, false)
                }
            }
            Some(Op::Bin(BinOp::Or, a, b, _)) if self.f.ty(a) == Ty::Bool => {
                if want {
                    self.may(a, true) | self.may(b, true)
                } else {
                    self.may(a, false) & self.may(b, false)
                }
            }
            Some(Op::Bin(op, a, b, _)) if op.is_compare() && !op.is_float_compare() => {
                self.compare(op, a, b, want)
            }
            _ => ALL,
        }
    }

    /// The lanes in which `a op b` may be `want`, where one side is a thread index congruent
    /// to the lane and the other a constant.
    fn compare(&mut self, op: BinOp, a: ValueId, b: ValueId, want: bool) -> u32 {
        let bits = self.f.ty(a).bits();
        let (op, x, k) = if self.residue(a).is_some() {
            (op, a, b)
        } else if self.residue(b).is_some() {
            (op.mirrored(), b, a)
        } else {
            return ALL;
        };
        let Some(nonneg) = self.residue(x) else {
            return ALL;
        };
        let Some(k) = self.lanes_of(k) else {
            return ALL;
        };
        if k.iter().any(|&c| c != k[0]) {
            return ALL;
        }
        let c = k[0];
        let op = if want { op } else { op.negated() };
        // `x` is `32 m + lane` for some m >= 0 (modulo 2^bits): its smallest value is the lane.
        let below = |limit: i128| lane_mask(|l| i128::from(l) < limit);
        match op {
            BinOp::IEq => 1 << (c & 31),
            BinOp::ULt => below(i128::from(c)),
            BinOp::ULe => below(i128::from(c) + 1),
            BinOp::SLt if nonneg => below(i128::from(sext(c, bits))),
            BinOp::SLe if nonneg => below(i128::from(sext(c, bits)) + 1),
            _ => ALL,
        }
    }
}

fn lane_mask(p: impl Fn(u32) -> bool) -> u32 {
    (0..32).filter(|&l| p(l)).fold(0, |m, l| m | 1 << l)
}

/// The lanes `lane(l)` names for each lane `l` in `lanes`; `None` if one is not a lane.
fn lane_set(lanes: u32, lane: impl Fn(u32) -> u64) -> Option<u32> {
    let mut m = 0u32;
    for l in (0..32).filter(|l| lanes >> l & 1 != 0) {
        let s = lane(l);
        if s >= 32 {
            return None;
        }
        m |= 1 << s;
    }
    Some(m)
}

fn width_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        let sh = 64 - bits;
        ((x << sh) as i64) >> sh
    }
}

/// An integer operation on operands of `bits` bits (the result is masked by the caller);
/// `None` where the IR leaves it undefined or it is not an integer operation.
fn binary(op: BinOp, a: u64, b: u64, bits: u32) -> Option<u64> {
    use BinOp::*;
    let m = width_mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    Some(match op {
        IAdd => a.wrapping_add(b),
        ISub => a.wrapping_sub(b),
        IMul => a.wrapping_mul(b),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl if b < u64::from(bits) => a << b,
        LShr if b < u64::from(bits) => a >> b,
        AShr if b < u64::from(bits) => (sa >> b) as u64,
        UDiv if b != 0 => a / b,
        UMod if b != 0 => a % b,
        IEq => u64::from(a == b),
        INe => u64::from(a != b),
        ULt => u64::from(a < b),
        ULe => u64::from(a <= b),
        UGt => u64::from(a > b),
        UGe => u64::from(a >= b),
        SLt => u64::from(sa < sb),
        SLe => u64::from(sa <= sb),
        SGt => u64::from(sa > sb),
        SGe => u64::from(sa >= sb),
        _ => return None,
    })
}

/// Memory spaces an exchange's barrier orders.
const SHARED: u8 = 1;
const GLOBAL: u8 = 2;

/// What has happened since the last barrier that stays: spaces read and written, and the
/// candidate reads passed while each space had been read or written.
#[derive(Clone, Default, PartialEq)]
struct Mem {
    read: u8,
    written: u8,
    /// (candidate, spaces read before it, spaces written before it).
    crossed: Vec<(usize, u8, u8)>,
}

impl Mem {
    fn join(a: Option<Mem>, b: Option<Mem>) -> Option<Mem> {
        match (a, b) {
            (None, x) | (x, None) => x,
            (Some(mut a), Some(b)) => {
                a.read |= b.read;
                a.written |= b.written;
                for c in b.crossed {
                    match a.crossed.iter_mut().find(|x| x.0 == c.0) {
                        Some(x) => {
                            x.1 |= c.1;
                            x.2 |= c.2;
                        }
                        None => a.crossed.push(c),
                    }
                }
                a.crossed.sort_unstable_by_key(|x| x.0);
                Some(a)
            }
        }
    }
}

/// Which of the `chosen` reads (block, instruction) must stay exchanges because their
/// barrier orders memory accesses on either side of them.
fn ordering(
    f: &Function,
    tree: &[Node],
    chosen: &[(usize, usize)],
    calls: &[(u8, u8)],
) -> Vec<bool> {
    let mut w = Order {
        f,
        chosen,
        internal: internal_addresses(f),
        calls,
        keep: vec![false; chosen.len()],
    };
    w.seq(tree, Some(Mem::default()), &mut Vec::new());
    w.keep
}

/// The values that address the kernel's parameter block (read-only) or the launch's status
/// word (ptxvk's own, which checks that fail the launch write): a base plus a constant.
fn internal_addresses(f: &Function) -> Vec<bool> {
    let mut internal = vec![false; f.values.len()];
    let mut konst = vec![false; f.values.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let Some(r) = inst.result else { continue };
        let at = |v: ValueId| v.0 as usize;
        match inst.op {
            Op::Builtin(Builtin::ParamBase | Builtin::StatusAddress) => internal[at(r)] = true,
            Op::Const(_) => konst[at(r)] = true,
            Op::Bin(BinOp::IAdd, a, b, _) => {
                internal[at(r)] =
                    (internal[at(a)] && konst[at(b)]) || (konst[at(a)] && internal[at(b)]);
            }
            _ => {}
        }
    }
    internal
}

/// The spaces an instruction of `f` reads and writes (`internal`: [`internal_addresses`];
/// `calls`: each function's, where known).
fn effect(f: &Function, op: &Op, internal: &[bool], calls: &[(u8, u8)]) -> (u8, u8) {
    let ours = |a: &ValueId| internal.get(a.0 as usize).copied().unwrap_or(false);
    match op {
        Op::Load {
            ptr: Ptr::Global(a),
            ..
        }
        | Op::AtomicCas {
            ptr: Ptr::Global(a),
            ..
        } if ours(a) => (0, 0),
        Op::Call(c) => calls
            .get(f.side.call(*c).func.0 as usize)
            .copied()
            .unwrap_or((SHARED | GLOBAL, SHARED | GLOBAL)),
        op => access(op),
    }
}

/// What each function of `m` may read and write, its callees' included.
pub fn call_effects(m: &crate::ir::Module) -> Vec<(u8, u8)> {
    let internal: Vec<Vec<bool>> = m.functions.iter().map(internal_addresses).collect();
    let mut out = vec![(0u8, 0u8); m.functions.len()];
    loop {
        let mut changed = false;
        for (fi, f) in m.functions.iter().enumerate() {
            let mut e = out[fi];
            for inst in f.blocks.iter().flat_map(|b| &b.insts) {
                let (r, w) = effect(f, &inst.op, &internal[fi], &out);
                e = (e.0 | r, e.1 | w);
            }
            changed |= e != out[fi];
            out[fi] = e;
        }
        if !changed {
            return out;
        }
    }
}

struct Order<'a> {
    f: &'a Function,
    chosen: &'a [(usize, usize)],
    /// Values that address the parameter block or the status word.
    internal: Vec<bool>,
    calls: &'a [(u8, u8)],
    keep: Vec<bool>,
}

impl Order<'_> {
    fn seq(
        &mut self,
        nodes: &[Node],
        mut st: Option<Mem>,
        stack: &mut Vec<Option<Mem>>,
    ) -> Option<Mem> {
        for n in nodes {
            st = match n {
                Node::Code(b) => st.map(|s| self.block(b.0 as usize, s)),
                Node::If { then, else_, .. } => {
                    let t = self.seq(then, st.clone(), stack);
                    let e = self.seq(else_, st, stack);
                    Mem::join(t, e)
                }
                Node::Block(body) => {
                    stack.push(None);
                    let end = self.seq(body, st, stack);
                    let broke = stack.pop().flatten();
                    Mem::join(end, broke)
                }
                Node::Loop(body) => {
                    let mut entry = st;
                    loop {
                        stack.push(None);
                        let end = self.seq(body, entry.clone(), stack);
                        let again = stack.pop().flatten();
                        let next = Mem::join(entry.clone(), again);
                        if next == entry {
                            break end;
                        }
                        entry = next;
                    }
                }
                Node::Switch { cases, default, .. } => {
                    let mut out = self.seq(default, st.clone(), stack);
                    for c in cases {
                        let x = self.seq(c, st.clone(), stack);
                        out = Mem::join(out, x);
                    }
                    out
                }
                Node::Branch(d) => {
                    let at = stack.len().checked_sub(1 + *d as usize);
                    if let Some(t) = at.and_then(|i| stack.get_mut(i)) {
                        *t = Mem::join(t.take(), st);
                    } else {
                        // A branch the tree does not resolve: nothing may go native.
                        self.keep.iter_mut().for_each(|k| *k = true);
                    }
                    None
                }
                Node::Return(_) | Node::Exit | Node::Unreachable => None,
            };
        }
        st
    }

    fn block(&mut self, bi: usize, mut s: Mem) -> Mem {
        for (ii, inst) in self.f.blocks[bi].insts.iter().enumerate() {
            if let Some(k) = self.chosen.iter().position(|&c| c == (bi, ii)) {
                if s.read | s.written != 0 {
                    s = Mem::join(
                        Some(s.clone()),
                        Some(Mem {
                            crossed: vec![(k, s.read, s.written)],
                            ..Mem::default()
                        }),
                    )
                    .unwrap_or_default();
                }
                continue;
            }
            if inst.op.is_sync() {
                s = Mem::default();
                continue;
            }
            let (read, written) = effect(self.f, &inst.op, &self.internal, self.calls);
            for &(k, r, w) in &s.crossed {
                // A write before the read and any access after it in one space, or a shared
                // read before and a shared write after.
                if w & (read | written) != 0 || r & written & SHARED != 0 {
                    self.keep[k] = true;
                }
            }
            s.read |= read;
            s.written |= written;
        }
        s
    }
}

/// The spaces an operation reads and writes (thread-local memory is no one else's).
fn access(op: &Op) -> (u8, u8) {
    let space = |p: &Ptr| match p {
        Ptr::Global(_) => GLOBAL,
        Ptr::Shared(_) => SHARED,
        Ptr::Local(_) => 0,
    };
    match op {
        Op::Load { ptr, .. } | Op::AtomicLoad { ptr, .. } => (space(ptr), 0),
        Op::Store { ptr, .. } | Op::AtomicStore { ptr, .. } => (0, space(ptr)),
        Op::Atomic { ptr, .. } | Op::AtomicCas { ptr, .. } => (space(ptr), space(ptr)),
        Op::Fence(_) | Op::Call(_) | Op::Texture(_) => (SHARED | GLOBAL, SHARED | GLOBAL),
        _ => (0, 0),
    }
}
