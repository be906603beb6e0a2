//! Block-local forwarding and cleanup, run on each function after inlining.
//!
//! Lowering reads every register operand with a `LoadVar` and writes every result with a
//! `StoreVar`, and handles floats as bits, so a PTX line becomes loads, bitcasts and stores that
//! the driver's SSA construction would remove again, after we paid for building and emitting
//! them. Within one basic block (IR values never outlive theirs, see the module docs) this pass:
//!
//! - forwards the value stored to a register variable to later loads of it, and reuses the
//!   first load of a variable not yet stored;
//! - drops a store of the value the variable already holds, and a store overwritten later in the
//!   block with no read in between;
//! - reads each built-in once per block (every one but the clock is fixed for the invocation);
//! - folds bitcasts of bitcasts, identity bitcasts, and conversions and simple integer
//!   arithmetic of constants (negation and `not` included), and `x & 0`, `x | ~0`, `x * 0`;
//! - finally deletes operations without side effects whose results nobody uses and stores to
//!   variables that are never loaded. Variables nothing mentions any more stay in
//!   `Function::vars`: emission numbers a variable at its first access and declares only the
//!   ones still read, so renumbering them here (a walk over every instruction) bought nothing.
//!
//! Only register variables are forwarded, never memory: function variables are private to the
//! invocation and nothing but `LoadVar`, `StoreVar` and the result variables of calls and texture
//! operations touches them, so atomics, barriers and stores through pointers cannot change them.
//! Blocks holding a synchronization operation are left as they are: the SIMT emulation expands
//! them and relies on their shape (operands and results passed through variables).

use std::mem::take;

use super::inline::{map_op, map_term};
use super::{BinOp, Builtin, ConvOp, ExtOp, Function, MemOrder, Module, Op, Ty, UnOp, ValueId};

/// Runs the pass on every function of `m`, in buffers kept from kernel to kernel.
pub fn module(m: &mut Module, b: &mut Buffers) {
    for f in &mut m.functions {
        run_in(f, b);
    }
}

/// What is known about a value inside its block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Def {
    Other,
    Const(u64),
    /// `Conv(Bitcast, source)`.
    Bitcast(ValueId),
    /// `Conv(ZExt | SExt, source)`.
    Extend(ValueId),
}

/// The pass's per-value and per-variable tables, kept from kernel to kernel (`crate::pipeline`).
#[derive(Default)]
pub struct Buffers {
    subst: Vec<ValueId>,
    def: Vec<Def>,
    /// Uses of each value so far.
    uses: Vec<u32>,
    /// Whether each variable is loaded anywhere.
    loaded: Vec<bool>,
    /// Per variable: the block (its index + 1) where the entry was made, and the value it
    /// holds / the position of its last store in that block.
    held: Vec<(u32, ValueId)>,
    stored: Vec<(u32, usize)>,
    builtins: Vec<(Builtin, ValueId)>,
    dead_stores: Vec<usize>,
    dead_at: Vec<usize>,
}

/// `v` emptied and refilled with `n` copies of `x`, in its own memory.
fn refill<T: Clone>(v: Vec<T>, n: usize, x: T) -> Vec<T> {
    let mut v = crate::reuse::reuse(v, n);
    v.resize(n, x);
    v
}

/// Runs the pass on one function.
#[cfg(test)]
pub fn run(f: &mut Function) {
    run_in(f, &mut Buffers::default());
}

fn run_in(f: &mut Function, bufs: &mut Buffers) {
    let n = f.values.len();
    let mut subst = take(&mut bufs.subst);
    subst.clear();
    subst.extend((0..n as u32).map(ValueId));
    let mut def = refill(take(&mut bufs.def), n, Def::Other);
    let mut uses = refill(take(&mut bufs.uses), n, 0);
    let mut loaded = refill(take(&mut bufs.loaded), f.vars.len(), false);
    // A value was replaced after a use of it in an earlier block: the counts must be redone.
    let mut stale = false;
    let mut held = refill(take(&mut bufs.held), f.vars.len(), (0, ValueId(0)));
    let mut stored = refill(take(&mut bufs.stored), f.vars.len(), (0, 0));
    let mut builtins = take(&mut bufs.builtins);
    let mut dead_stores = take(&mut bufs.dead_stores);
    let Function {
        blocks,
        values,
        side,
        may_sync,
        ..
    } = f;
    for (bi, block) in blocks.iter_mut().enumerate() {
        let stamp = bi as u32 + 1;
        let count = |uses: &mut Vec<u32>, v: ValueId, subst: &[ValueId]| {
            let v = resolve(subst, v);
            uses[v.0 as usize] += 1;
            v
        };
        if *may_sync && block.syncs() {
            for i in block.insts.iter_mut() {
                if let Op::LoadVar(v) = i.op {
                    loaded[v.0 as usize] = true;
                }
                map_op(&mut i.op, side, |v| count(&mut uses, v, &subst), |x| x);
            }
            map_term(&mut block.term, |v| count(&mut uses, v, &subst));
            continue;
        }
        let insts = &mut block.insts;
        builtins.clear();
        dead_stores.clear();
        // Dropped instructions leave the block as the walk goes: kept ones move down to `w`
        // (a loop of its own rather than `retain_mut`, whose closure call per instruction cost
        // a tenth of this pass).
        let mut w = 0;
        // On the slice: its length is the loop's bound, so reading at `k` needs no check.
        let all = insts.as_mut_slice();
        for k in 0..all.len() {
            let inst = &mut all[k];
            // Operands are counted as they are resolved; whatever below drops or replaces an
            // operand takes its count back. The common operations resolve theirs in their own
            // arm (a call to the generic `map_op` per instruction was a fifth of this pass).
            let result = inst.result;
            let replace = match (&mut inst.op, result) {
                (Op::LoadVar(v), Some(r)) => {
                    let h = &mut held[v.0 as usize];
                    if h.0 == stamp {
                        Some(h.1)
                    } else {
                        *h = (stamp, r);
                        loaded[v.0 as usize] = true;
                        None
                    }
                }
                (Op::StoreVar(v, x), _) => {
                    *x = count(&mut uses, *x, &subst);
                    let vi = v.0 as usize;
                    if held[vi] == (stamp, *x) {
                        uses[x.0 as usize] -= 1;
                        continue;
                    }
                    held[vi] = (stamp, *x);
                    if stored[vi].0 == stamp {
                        dead_stores.push(stored[vi].1);
                    }
                    stored[vi] = (stamp, w);
                    None
                }
                (Op::Const(bits), Some(r)) => {
                    def[r.0 as usize] = Def::Const(low_bits(*bits, values[r.0 as usize]));
                    None
                }
                (Op::Builtin(b), Some(r)) if *b != Builtin::Clock => {
                    match builtins.iter().find(|(k, _)| k == b) {
                        Some(&(_, v)) => Some(v),
                        None => {
                            builtins.push((*b, r));
                            None
                        }
                    }
                }
                (Op::Conv(op, a), Some(r)) => {
                    *a = count(&mut uses, *a, &subst);
                    let (to, from) = (values[r.0 as usize], values[a.0 as usize]);
                    match fold_conv(*op, *a, from, to, &def, values) {
                        Fold::Value(v) => {
                            uses[a.0 as usize] -= 1;
                            Some(v)
                        }
                        Fold::Const(c) => {
                            uses[a.0 as usize] -= 1;
                            inst.op = Op::Const(c);
                            def[r.0 as usize] = Def::Const(c);
                            None
                        }
                        Fold::Bitcast(src) => {
                            uses[a.0 as usize] -= 1;
                            uses[src.0 as usize] += 1;
                            *a = src;
                            def[r.0 as usize] = Def::Bitcast(src);
                            None
                        }
                        Fold::Keep => {
                            def[r.0 as usize] = match op {
                                ConvOp::Bitcast => Def::Bitcast(*a),
                                ConvOp::ZExt | ConvOp::SExt => Def::Extend(*a),
                                _ => Def::Other,
                            };
                            None
                        }
                    }
                }
                (Op::Bin(op, a, b, _), Some(r)) => {
                    *a = count(&mut uses, *a, &subst);
                    *b = count(&mut uses, *b, &subst);
                    let ty = values[a.0 as usize];
                    let (da, db) = (def[a.0 as usize], def[b.0 as usize]);
                    let konst = |d: Def| matches!(d, Def::Const(_));
                    if ty.is_float() || !(konst(da) || konst(db)) {
                        None
                    } else if let Some(c) = match (da, db) {
                        (Def::Const(x), Def::Const(y)) => fold_bin(*op, x, y, ty),
                        _ => None,
                    }
                    .or_else(|| absorb(*op, da, db, ty))
                    {
                        uses[a.0 as usize] -= 1;
                        uses[b.0 as usize] -= 1;
                        inst.op = Op::Const(c);
                        def[r.0 as usize] = Def::Const(c);
                        None
                    } else if let Some(first) = identity(*op, da, db, ty) {
                        uses[a.0 as usize] -= 1;
                        uses[b.0 as usize] -= 1;
                        Some(if first { *a } else { *b })
                    } else {
                        None
                    }
                }
                (Op::Un(op, a), Some(r)) => {
                    *a = count(&mut uses, *a, &subst);
                    if let Def::Const(x) = def[a.0 as usize]
                        && let Some(c) = fold_un(*op, x, values[r.0 as usize])
                    {
                        uses[a.0 as usize] -= 1;
                        inst.op = Op::Const(c);
                        def[r.0 as usize] = Def::Const(c);
                    }
                    None
                }
                (Op::Select(c, a, b), Some(_)) => {
                    *c = count(&mut uses, *c, &subst);
                    *a = count(&mut uses, *a, &subst);
                    *b = count(&mut uses, *b, &subst);
                    let pick = match def[c.0 as usize] {
                        Def::Const(k) => Some(if k != 0 { *a } else { *b }),
                        _ if a == b => Some(*a),
                        _ => None,
                    };
                    if pick.is_some() {
                        uses[c.0 as usize] -= 1;
                        uses[a.0 as usize] -= 1;
                        uses[b.0 as usize] -= 1;
                    }
                    pick
                }
                (Op::Ext(e, args, _), Some(r)) => {
                    for a in args.iter_mut() {
                        *a = count(&mut uses, *a, &subst);
                    }
                    if let [a, b] = args[..]
                        && let (Def::Const(x), Def::Const(y)) =
                            (def[a.0 as usize], def[b.0 as usize])
                        && let Some(c) = fold_min_max(*e, x, y, values[a.0 as usize])
                    {
                        uses[a.0 as usize] -= 1;
                        uses[b.0 as usize] -= 1;
                        inst.op = Op::Const(c);
                        def[r.0 as usize] = Def::Const(c);
                    }
                    None
                }
                (op, _) => {
                    map_op(op, side, |v| count(&mut uses, v, &subst), |x| x);
                    // Calls and texture operations write their result variables.
                    for r in op.result_vars(side) {
                        held[r.0 as usize].0 = 0;
                        stored[r.0 as usize].0 = 0;
                    }
                    None
                }
            };
            if let (Some(v), Some(r)) = (replace, result) {
                stale |= uses[r.0 as usize] > 0;
                subst[r.0 as usize] = v;
                continue;
            }
            // A copy, not a swap: the instruction at `w` was dropped (a swap moved both
            // through the stack).
            if w != k {
                all[w] = all[k];
            }
            w += 1;
        }
        insts.truncate(w);
        if !dead_stores.is_empty() {
            dead_stores.sort_unstable();
            let mut d = 0;
            let mut i = 0;
            insts.retain_mut(|inst| {
                let dead = dead_stores.get(d) == Some(&i);
                i += 1;
                if dead {
                    d += 1;
                    if let Op::StoreVar(_, x) = inst.op {
                        uses[x.0 as usize] -= 1;
                    }
                }
                !dead
            });
        }
        map_term(&mut block.term, |v| count(&mut uses, v, &subst));
    }
    if stale {
        recount(f, &subst, &mut uses);
    }
    remove_unused(f, &mut uses, &loaded, bufs);
    *bufs = Buffers {
        subst,
        def,
        uses,
        loaded,
        held,
        stored,
        builtins,
        dead_stores,
        ..take(bufs)
    };
}

/// Counts uses again, applying `subst` everywhere (a value used outside its block, before the
/// walk reached its definition, was replaced).
#[inline(never)]
fn recount(f: &mut Function, subst: &[ValueId], uses: &mut [u32]) {
    uses.iter_mut().for_each(|u| *u = 0);
    let Function { blocks, side, .. } = f;
    for b in blocks {
        for i in &mut b.insts {
            map_op(
                &mut i.op,
                side,
                |v| {
                    let v = resolve(subst, v);
                    uses[v.0 as usize] += 1;
                    v
                },
                |x| x,
            );
        }
        map_term(&mut b.term, |v| {
            let v = resolve(subst, v);
            uses[v.0 as usize] += 1;
            v
        });
    }
}

/// The value `v` stands for now. Values are replaced only by values defined before them, so
/// the chain ends; it is usually one step long.
fn resolve(subst: &[ValueId], mut v: ValueId) -> ValueId {
    while let Some(&s) = subst.get(v.0 as usize) {
        if s == v {
            break;
        }
        v = s;
    }
    v
}

fn low_bits(bits: u64, ty: Ty) -> u64 {
    if ty.bits() >= 64 {
        bits
    } else {
        bits & ((1u64 << ty.bits()) - 1)
    }
}

enum Fold {
    /// The conversion is this existing value.
    Value(ValueId),
    Const(u64),
    /// A bitcast of this value instead (a bitcast of a bitcast).
    Bitcast(ValueId),
    Keep,
}

fn fold_conv(op: ConvOp, a: ValueId, from: Ty, to: Ty, def: &[Def], values: &[Ty]) -> Fold {
    let ints = !from.is_float() && !to.is_float() && from != Ty::Bool && to != Ty::Bool;
    match (op, def[a.0 as usize]) {
        (ConvOp::Bitcast | ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc, _) if from == to => {
            Fold::Value(a)
        }
        (ConvOp::Bitcast, Def::Bitcast(src)) if values[src.0 as usize] == to => Fold::Value(src),
        (ConvOp::Bitcast, Def::Bitcast(src)) => Fold::Bitcast(src),
        // A constant's bits may become an integer; float constants stay as the driver sees them
        // written (a NaN's payload or a subnormal in `OpConstant` is the driver's to handle).
        (ConvOp::Bitcast, Def::Const(c)) if !to.is_float() && to != Ty::Bool => Fold::Const(c),
        // Except zeros: the emitter must see `±0.0` as a constant to spell out the operations a
        // driver folds with one (`emit/inst/arith.rs`, `zero_operand`).
        (ConvOp::Bitcast, Def::Const(c)) if signed_zero(c, to) => Fold::Const(c),
        (ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc, Def::Const(c)) if ints => {
            conv_const(op, c, from, to).map_or(Fold::Keep, Fold::Const)
        }
        // Truncating an extension back to the width it came from.
        (ConvOp::Trunc, Def::Extend(src)) if values[src.0 as usize] == to => Fold::Value(src),
        _ => Fold::Keep,
    }
}

/// `c` is the bits of `+0.0` or `-0.0` of the float type `ty` (f32 or f64).
fn signed_zero(c: u64, ty: Ty) -> bool {
    match ty {
        Ty::F32 => c == 0 || c == 1 << 31,
        Ty::F64 => c == 0 || c == 1 << 63,
        _ => false,
    }
}

/// The bits of an integer conversion of the constant `c` of type `from` (only its low bits
/// are its value), or `None` for other conversions and types. Lowering folds with it too.
pub(crate) fn conv_const(op: ConvOp, c: u64, from: Ty, to: Ty) -> Option<u64> {
    if from.is_float() || to.is_float() || from == Ty::Bool || to == Ty::Bool {
        return None;
    }
    let c = low_bits(c, from);
    match op {
        ConvOp::ZExt => Some(c),
        ConvOp::SExt => Some(low_bits(sign_extend(c, from), to)),
        ConvOp::Trunc => Some(low_bits(c, to)),
        _ => None,
    }
}

fn sign_extend(c: u64, from: Ty) -> u64 {
    let shift = 64 - from.bits();
    (((c << shift) as i64) >> shift) as u64
}

/// `x op y` for integer (or `Bool`) operands of type `ty`, whose low bits are their values;
/// a comparison gives 0 or 1. Shifts by the width or more are SPIR-V's undefined: not folded.
fn fold_bin(op: BinOp, x: u64, y: u64, ty: Ty) -> Option<u64> {
    let (sx, sy) = (sign_extend(x, ty) as i64, sign_extend(y, ty) as i64);
    let r = match op {
        BinOp::IAdd => x.wrapping_add(y),
        BinOp::ISub => x.wrapping_sub(y),
        BinOp::IMul => x.wrapping_mul(y),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Shl if y < u64::from(ty.bits()) => x << y,
        BinOp::LShr if y < u64::from(ty.bits()) => x >> y,
        BinOp::AShr if y < u64::from(ty.bits()) => (sx >> y) as u64,
        BinOp::IEq => u64::from(x == y),
        BinOp::INe => u64::from(x != y),
        BinOp::ULt => u64::from(x < y),
        BinOp::ULe => u64::from(x <= y),
        BinOp::UGt => u64::from(x > y),
        BinOp::UGe => u64::from(x >= y),
        BinOp::SLt => u64::from(sx < sy),
        BinOp::SLe => u64::from(sx <= sy),
        BinOp::SGt => u64::from(sx > sy),
        BinOp::SGe => u64::from(sx >= sy),
        _ => return None,
    };
    Some(if op.is_compare() { r } else { low_bits(r, ty) })
}

/// Whether `x op y` is its first operand (`Some(true)`) or its second (`Some(false)`) because
/// the other is the operation's identity: `x + 0`, `x * 1`, `x & ~0`, `x << 0`...
fn identity(op: BinOp, x: Def, y: Def, ty: Ty) -> Option<bool> {
    let ones = low_bits(u64::MAX, ty);
    let is = |d: Def, k: u64| d == Def::Const(k);
    match op {
        BinOp::IAdd | BinOp::Or | BinOp::Xor if is(y, 0) => Some(true),
        BinOp::IAdd | BinOp::Or | BinOp::Xor if is(x, 0) => Some(false),
        BinOp::ISub | BinOp::Shl | BinOp::LShr | BinOp::AShr if is(y, 0) => Some(true),
        BinOp::IMul | BinOp::UDiv | BinOp::SDiv if is(y, 1) => Some(true),
        BinOp::IMul if is(x, 1) => Some(false),
        BinOp::And if is(y, ones) => Some(true),
        BinOp::And if is(x, ones) => Some(false),
        _ => None,
    }
}

/// `x op y` where one constant decides the result whatever the other operand: `x & 0`,
/// `x | ~0`, `x * 0` (integers and `Bool`).
fn absorb(op: BinOp, x: Def, y: Def, ty: Ty) -> Option<u64> {
    let ones = low_bits(u64::MAX, ty);
    let either = |k: u64| x == Def::Const(k) || y == Def::Const(k);
    match op {
        BinOp::And | BinOp::IMul if either(0) => Some(0),
        BinOp::Or if either(ones) => Some(ones),
        _ => None,
    }
}

/// `op x` for an integer (or `Bool`) constant `x` of type `ty` (its low bits are its value).
fn fold_un(op: UnOp, x: u64, ty: Ty) -> Option<u64> {
    if ty.is_float() {
        return None;
    }
    match op {
        UnOp::INeg => Some(low_bits(x.wrapping_neg(), ty)),
        // On `Bool` (one bit) the logical not.
        UnOp::Not => Some(low_bits(!x, ty)),
        _ => None,
    }
}

/// Integer `UMin`/`UMax`/`SMin`/`SMax` of two constants of type `ty`.
fn fold_min_max(op: ExtOp, x: u64, y: u64, ty: Ty) -> Option<u64> {
    if ty.is_float() || ty == Ty::Bool {
        return None;
    }
    let (sx, sy) = (sign_extend(x, ty) as i64, sign_extend(y, ty) as i64);
    let r = match op {
        ExtOp::UMin => x.min(y),
        ExtOp::UMax => x.max(y),
        ExtOp::SMin => sx.min(sy) as u64,
        ExtOp::SMax => sx.max(sy) as u64,
        _ => return None,
    };
    Some(low_bits(r, ty))
}

/// Operations that only compute their result.
fn pure(op: &Op) -> bool {
    match op {
        Op::Const(_)
        | Op::LoadVar(_)
        | Op::Un(..)
        | Op::Bin(..)
        | Op::Select(..)
        | Op::Conv(..)
        | Op::Ext(..)
        | Op::Param(_)
        | Op::BitExtract { .. }
        | Op::BitInsert { .. } => true,
        Op::Load { order, .. } => *order == MemOrder::Plain,
        // Each clock read is a sample taken at its place in the program.
        Op::Builtin(b) => *b != Builtin::Clock,
        _ => false,
    }
}

/// Deletes pure operations whose results are unused and stores to variables that are never
/// loaded. Out of line (as `recount`): once per function, and profiles then tell it from the
/// main walk.
#[inline(never)]
fn remove_unused(f: &mut Function, uses: &mut [u32], loaded: &[bool], bufs: &mut Buffers) {
    // Positions of the block's dead instructions, last first.
    let mut dead_at = take(&mut bufs.dead_at);
    let Function { blocks, side, .. } = f;
    for b in blocks {
        dead_at.clear();
        for (k, i) in b.insts.iter_mut().enumerate().rev() {
            let dead = match (&i.op, i.result) {
                (Op::StoreVar(v, _), _) => !loaded[v.0 as usize],
                (op, Some(r)) => uses[r.0 as usize] == 0 && pure(op),
                _ => false,
            };
            if dead {
                dead_at.push(k);
                map_op(
                    &mut i.op,
                    side,
                    |v| {
                        uses[v.0 as usize] -= 1;
                        v
                    },
                    |x| x,
                );
            }
        }
        // Most blocks lose nothing here: no pass over them then.
        if !dead_at.is_empty() {
            let mut k = 0;
            b.insts.retain(|_| {
                let dead = dead_at.last() == Some(&k);
                if dead {
                    dead_at.pop();
                }
                k += 1;
                !dead
            });
        }
    }
    bufs.dead_at = dead_at;
}

#[cfg(test)]
mod tests;
