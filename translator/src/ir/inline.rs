//! Inlining device functions into their callers.
//!
//! Two things cannot cross a SPIR-V function call: `exit` (compute shaders can only return from
//! the entry point) and, under the SIMT emulation, synchronization (the emulation rewrites the
//! kernel's control flow around every synchronization point). Functions that hold either,
//! directly or through their callees, are inlined into the kernel.

use rustc_hash::FxHashMap as HashMap;

use super::{
    Block, BlockId, Call, FuncId, Function, Inst, Module, Op, Ptr, Side, Terminator, TexOp,
    ValueId, VarId,
};

/// Inlines, into the entry function, every call to a function that `holds` (directly or through
/// what it calls), then drops the functions nothing calls any more. The call graph must be
/// acyclic (the lowering refuses recursion first).
pub fn inline_where(module: &mut Module, holds: impl Fn(&Function) -> bool) {
    let n = module.functions.len();
    // The entry alone calls nothing (it cannot call itself: no recursion is left), and is live.
    if n < 2 {
        return;
    }
    let mut wanted: Vec<bool> = module.functions.iter().map(&holds).collect();
    // Propagate through callers until nothing changes (at most n passes on an acyclic graph).
    for _ in 0..n {
        let mut changed = false;
        for i in 0..n {
            if !wanted[i] && calls(&module.functions[i]).any(|c| wanted[c.0 as usize]) {
                wanted[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let entry = module.entry.0 as usize;
    // Only the entry function changes, so callees are read in place (copying every function
    // for each kernel was a tenth of the translation time).
    // Blocks before the last call inlined hold no more wanted calls (the rest of its block and
    // the copied body are appended), so the search resumes there.
    let mut from = 0;
    while let Some((b, k, callee)) =
        find_call(&module.functions[entry], from, |c| wanted[c.0 as usize])
    {
        from = b.0 as usize;
        let c = callee.0 as usize;
        if c == entry {
            let copy = module.functions[c].clone();
            inline_one(&mut module.functions[entry], b, k, &copy);
        } else {
            let (f, callee) = if entry < c {
                let (lo, hi) = module.functions.split_at_mut(c);
                (&mut lo[entry], &hi[0])
            } else {
                let (lo, hi) = module.functions.split_at_mut(entry);
                (&mut hi[0], &lo[c])
            };
            inline_one(f, b, k, callee);
        }
    }
    prune(module);
}

pub(super) fn calls(f: &Function) -> impl Iterator<Item = FuncId> + '_ {
    f.blocks.iter().flat_map(|b| {
        b.insts.iter().filter_map(|i| match i.op {
            Op::Call(c) => Some(f.side.call(c).func),
            _ => None,
        })
    })
}

/// The first call to a `wanted` function in block `from` or later.
fn find_call(
    f: &Function,
    from: usize,
    wanted: impl Fn(FuncId) -> bool,
) -> Option<(BlockId, usize, FuncId)> {
    for (bi, b) in f.blocks.iter().enumerate().skip(from) {
        for (k, i) in b.insts.iter().enumerate() {
            if let Op::Call(c) = i.op
                && wanted(f.side.call(c).func)
            {
                return Some((BlockId(bi as u32), k, f.side.call(c).func));
            }
        }
    }
    None
}

/// A call cut out of its block: what came before stays in `b` (which loses its terminator),
/// what came after moves to `cont`.
pub(super) struct CutCall {
    pub args: Vec<ValueId>,
    pub results: Vec<VarId>,
    pub cont: BlockId,
    /// Variables that carry values from before the call to after it (stored at the end of
    /// `b`, loaded at the start of `cont`).
    pub carried: Vec<VarId>,
}

/// Cuts the call at instruction `k` of block `b` out of its block. Values stay local to their
/// block: what the continuation uses from before the call goes through new variables.
pub(super) fn cut_call(f: &mut Function, b: BlockId, k: usize) -> Option<CutCall> {
    let block = std::mem::replace(
        f.block_mut(b),
        Block {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        },
    );
    let mut insts = block.insts;
    let rest = insts.split_off(k + 1);
    let Some(Inst {
        op: Op::Call(call), ..
    }) = insts.pop()
    else {
        return None;
    };
    let call = f.side.call_mut(call);
    let (args, results) = (
        std::mem::take(&mut call.args),
        std::mem::take(&mut call.results),
    );
    f.block_mut(b).insts = insts;
    let cont = f.new_block();
    *f.block_mut(cont) = Block {
        insts: rest,
        term: block.term,
    };
    let defined: Vec<ValueId> = f.block(b).insts.iter().filter_map(|i| i.result).collect();
    // What the continuation reads, in one pass over it (not one per value defined before).
    let mut used = vec![false; f.values.len()];
    {
        let c = f.block(cont);
        let mut mark = |v: ValueId| {
            if let Some(u) = used.get_mut(v.0 as usize) {
                *u = true;
            }
        };
        for i in &c.insts {
            for_each_value(&i.op, &f.side, &mut mark);
        }
        let mut t = c.term.clone();
        map_term(&mut t, |v| {
            mark(v);
            v
        });
    }
    let mut carried = Vec::new();
    let mut map = HashMap::default();
    let mut loads = Vec::new();
    for v in defined {
        if used[v.0 as usize] {
            let var = f.new_var(f.ty(v), "carry");
            f.push_void(b, Op::StoreVar(var, v));
            carried.push(var);
            let id = ValueId(f.values.len() as u32);
            f.values.push(f.ty(v));
            loads.push(Inst {
                result: Some(id),
                op: Op::LoadVar(var),
            });
            map.insert(v, id);
        }
    }
    if !map.is_empty() {
        let Function { blocks, side, .. } = f;
        let c = &mut blocks[cont.0 as usize];
        for i in &mut c.insts {
            map_op(
                &mut i.op,
                side,
                |v| map.get(&v).copied().unwrap_or(v),
                |x| x,
            );
        }
        map_term(&mut c.term, |v| map.get(&v).copied().unwrap_or(v));
        loads.append(&mut c.insts);
        c.insts = loads;
    }
    Some(CutCall {
        args,
        results,
        cont,
        carried,
    })
}

/// Where a copied body's pieces landed in the function it was copied into.
pub(super) struct Copied {
    pub entry: BlockId,
    pub var_base: u32,
    /// The copied blocks that ended in `Return`, with the values they return.
    pub returns: Vec<(BlockId, Vec<ValueId>)>,
}

/// Appends a copy of `callee`'s body to `f` with fresh ids; its parameters read `params`, and
/// its returning blocks are left without a terminator (listed in `Copied::returns`).
pub(super) fn copy_body(f: &mut Function, callee: &Function, params: &[VarId]) -> Copied {
    let var_base = f.vars.len() as u32;
    f.vars.extend(callee.vars.iter().cloned());
    let value_base = f.values.len() as u32;
    f.values.extend(callee.values.iter().copied());
    let block_base = f.blocks.len() as u32;
    f.may_sync |= callee.may_sync;
    let vmap = |v: ValueId| ValueId(v.0 + value_base);
    let varmap = |v: VarId| VarId(v.0 + var_base);
    let bmap = |x: BlockId| BlockId(x.0 + block_base);
    let mut returns = Vec::new();
    for (bi, cb) in callee.blocks.iter().enumerate() {
        let mut insts = Vec::with_capacity(cb.insts.len());
        for i in &cb.insts {
            let op = match &i.op {
                Op::Param(n) if (*n as usize) < params.len() => Op::LoadVar(params[*n as usize]),
                &other => {
                    // The callee's call or texture operation gets an entry of its own here.
                    let mut op = match other {
                        Op::Call(c) => Op::Call(f.side.add_call(callee.side.call(c).clone())),
                        Op::Texture(t) => Op::Texture(f.side.add_tex(callee.side.tex(t).clone())),
                        op => op,
                    };
                    map_op(&mut op, &mut f.side, vmap, varmap);
                    op
                }
            };
            insts.push(Inst {
                result: i.result.map(vmap),
                op,
            });
        }
        let term = match &cb.term {
            Terminator::Return(vals) => {
                returns.push((
                    bmap(BlockId(bi as u32)),
                    vals.iter().map(|v| vmap(*v)).collect(),
                ));
                Terminator::Unreachable
            }
            t => {
                let mut t = t.clone();
                map_term(&mut t, vmap);
                for s in t.successors_mut() {
                    *s = bmap(*s);
                }
                t
            }
        };
        f.blocks.push(Block { insts, term });
    }
    Copied {
        entry: bmap(callee.entry),
        var_base,
        returns,
    }
}

/// Replaces the call at instruction `k` of block `b` with a copy of `callee`'s body.
fn inline_one(f: &mut Function, b: BlockId, k: usize, callee: &Function) {
    let Some(cut) = cut_call(f, b, k) else {
        return;
    };
    let params: Vec<VarId> = cut
        .args
        .iter()
        .map(|a| {
            let var = f.new_var(f.ty(*a), "inline.arg");
            f.push_void(b, Op::StoreVar(var, *a));
            var
        })
        .collect();
    let body = copy_body(f, callee, &params);
    for (rb, vals) in body.returns {
        for (r, v) in cut.results.iter().zip(vals) {
            f.push_void(rb, Op::StoreVar(*r, v));
        }
        f.block_mut(rb).term = Terminator::Jump(cut.cont);
    }
    f.block_mut(b).term = Terminator::Jump(body.entry);
}

/// Drops functions the entry no longer reaches, renumbering calls.
pub(super) fn prune(module: &mut Module) {
    let n = module.functions.len();
    let mut live = vec![false; n];
    let mut stack = vec![module.entry];
    while let Some(f) = stack.pop() {
        if std::mem::replace(&mut live[f.0 as usize], true) {
            continue;
        }
        stack.extend(calls(&module.functions[f.0 as usize]));
    }
    let mut new_id = vec![None; n];
    let mut kept = Vec::new();
    for (i, f) in std::mem::take(&mut module.functions)
        .into_iter()
        .enumerate()
    {
        if live[i] {
            new_id[i] = Some(FuncId(kept.len() as u32));
            kept.push(f);
        }
    }
    // Every entry, also those of removed instructions: those are never read again.
    for f in &mut kept {
        for c in &mut f.side.calls {
            if let Some(id) = new_id[c.func.0 as usize] {
                c.func = id;
            }
        }
    }
    module.entry = new_id[module.entry.0 as usize].unwrap_or(FuncId(0));
    module.functions = kept;
}

/// The values an operation reads (`side` is its function's).
pub fn op_values(op: &Op, side: &Side) -> Vec<ValueId> {
    let mut out = Vec::new();
    for_each_value(op, side, |v| out.push(v));
    out
}

/// Calls `f` with each value an operation reads (`side` is its function's).
pub fn for_each_value(op: &Op, side: &Side, mut f: impl FnMut(ValueId)) {
    let mut visit = |v| {
        f(v);
        v
    };
    // Copies of the rare side entries, so that which of their fields are values is said in
    // `map_call`/`map_tex` alone.
    match *op {
        Op::Call(c) => map_call(&mut side.call(c).clone(), visit, |x| x),
        Op::Texture(t) => map_tex(&mut side.tex(t).clone(), visit, |x| x),
        mut op => map_op(&mut op, &mut Side::default(), &mut visit, |x| x),
    }
}

pub(super) fn map_term(t: &mut Terminator, mut v: impl FnMut(ValueId) -> ValueId) {
    match t {
        Terminator::Branch { cond, .. } => *cond = v(*cond),
        Terminator::Switch { value, .. } => *value = v(*value),
        Terminator::Return(vals) => vals.iter_mut().for_each(|x| *x = v(*x)),
        Terminator::Jump(_) | Terminator::Exit | Terminator::Unreachable => {}
    }
}

fn map_ptr(p: &mut Ptr, v: &mut impl FnMut(ValueId) -> ValueId) {
    match p {
        Ptr::Global(x) | Ptr::Shared(x) | Ptr::Local(x) => *x = v(*x),
    }
}

/// Rewrites every value and variable an operation mentions (those of a call or texture
/// operation in `side`, its function's).
pub fn map_op(
    op: &mut Op,
    side: &mut Side,
    mut v: impl FnMut(ValueId) -> ValueId,
    var: impl Fn(VarId) -> VarId,
) {
    match op {
        Op::Const(_)
        | Op::Builtin(_)
        | Op::Param(_)
        | Op::Barrier
        | Op::BarrierArrive
        | Op::Fence(_) => {}
        Op::LoadVar(x) => *x = var(*x),
        Op::StoreVar(x, a) => {
            *x = var(*x);
            *a = v(*a);
        }
        Op::Un(_, a) | Op::Conv(_, a) => *a = v(*a),
        Op::Bin(_, a, b, _) => {
            *a = v(*a);
            *b = v(*b);
        }
        Op::Select(c, a, b) => {
            *c = v(*c);
            *a = v(*a);
            *b = v(*b);
        }
        Op::Ext(_, args, _) | Op::Warp(_, args) => args.iter_mut().for_each(|a| *a = v(*a)),
        Op::Load { ptr, .. } | Op::AtomicLoad { ptr, .. } => map_ptr(ptr, &mut v),
        Op::Store { ptr, value, .. }
        | Op::Atomic { ptr, value, .. }
        | Op::AtomicStore { ptr, value, .. } => {
            map_ptr(ptr, &mut v);
            *value = v(*value);
        }
        Op::AtomicCas {
            ptr,
            compare,
            value,
            ..
        } => {
            map_ptr(ptr, &mut v);
            *compare = v(*compare);
            *value = v(*value);
        }
        Op::Call(c) => map_call(side.call_mut(*c), v, var),
        Op::BitExtract {
            base,
            offset,
            count,
            ..
        } => {
            *base = v(*base);
            *offset = v(*offset);
            *count = v(*count);
        }
        Op::BitInsert {
            base,
            insert,
            offset,
            count,
        } => {
            *base = v(*base);
            *insert = v(*insert);
            *offset = v(*offset);
            *count = v(*count);
        }
        Op::Texture(t) => map_tex(side.tex_mut(*t), v, var),
    }
}

fn map_call(c: &mut Call, mut v: impl FnMut(ValueId) -> ValueId, var: impl Fn(VarId) -> VarId) {
    c.args.iter_mut().for_each(|a| *a = v(*a));
    c.results.iter_mut().for_each(|r| *r = var(*r));
}

fn map_tex(t: &mut TexOp, mut v: impl FnMut(ValueId) -> ValueId, var: impl Fn(VarId) -> VarId) {
    match &mut t.kind {
        super::TexOpKind::SampleLod(l) | super::TexOpKind::Fetch(l) => *l = v(*l),
        super::TexOpKind::SampleGrad(dx, dy) => {
            dx.iter_mut().chain(dy.iter_mut()).for_each(|a| *a = v(*a));
        }
        super::TexOpKind::Gather(_) => {}
    }
    t.coords.iter_mut().for_each(|a| *a = v(*a));
    if let Some(d) = &mut t.dref {
        *d = v(*d);
    }
    t.results.iter_mut().for_each(|r| *r = var(*r));
}
