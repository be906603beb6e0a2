//! Inlining device functions into their callers.
//!
//! Two things cannot cross a SPIR-V function call: `exit` (compute shaders can only return from
//! the entry point) and, under the SIMT emulation, synchronization (the emulation rewrites the
//! kernel's control flow around every synchronization point). Functions that hold either,
//! directly or through their callees, are inlined into the kernel.

use std::collections::HashMap;

use super::{Block, BlockId, FuncId, Function, Inst, Module, Op, Ptr, Terminator, ValueId, VarId};

/// Inlines, into the entry function, every call to a function that `holds` (directly or through
/// what it calls), then drops the functions nothing calls any more. The call graph must be
/// acyclic (the lowering refuses recursion first).
pub fn inline_where(module: &mut Module, holds: impl Fn(&Function) -> bool) {
    let n = module.functions.len();
    let mut wanted: Vec<bool> = module.functions.iter().map(&holds).collect();
    // Propagate through callers until nothing changes (at most n rounds on an acyclic graph).
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
    let callees = module.functions.clone();
    let f = &mut module.functions[entry];
    while let Some((b, k, callee)) = find_call(f, |c| wanted[c.0 as usize]) {
        inline_one(f, b, k, &callees[callee.0 as usize]);
    }
    prune(module);
}

fn calls(f: &Function) -> impl Iterator<Item = FuncId> + '_ {
    f.blocks.iter().flat_map(|b| {
        b.insts.iter().filter_map(|i| match &i.op {
            Op::Call { func, .. } => Some(*func),
            _ => None,
        })
    })
}

fn find_call(f: &Function, wanted: impl Fn(FuncId) -> bool) -> Option<(BlockId, usize, FuncId)> {
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.insts.iter().enumerate() {
            if let Op::Call { func, .. } = &i.op
                && wanted(*func)
            {
                return Some((BlockId(bi as u32), k, *func));
            }
        }
    }
    None
}

/// Replaces the call at instruction `k` of block `b` with a copy of `callee`'s body.
fn inline_one(f: &mut Function, b: BlockId, k: usize, callee: &Function) {
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
        op: Op::Call { args, results, .. },
        ..
    }) = insts.pop()
    else {
        return;
    };
    f.block_mut(b).insts = insts;
    let cont = f.new_block();
    *f.block_mut(cont) = Block {
        insts: rest,
        term: block.term,
    };
    // Values stay local to their block: what the continuation uses from before the call goes
    // through variables.
    let defined: Vec<ValueId> = f.block(b).insts.iter().filter_map(|i| i.result).collect();
    let mut carried = HashMap::new();
    for v in defined {
        let used = {
            let c = f.block(cont);
            c.insts.iter().any(|i| op_values(&i.op).contains(&v))
                || term_values(&c.term).contains(&v)
        };
        if used {
            let var = f.new_var(f.ty(v), "inline.carry");
            f.push_void(b, Op::StoreVar(var, v));
            carried.insert(v, var);
        }
    }
    if !carried.is_empty() {
        let mut loads = Vec::new();
        let mut map = HashMap::new();
        for (v, var) in &carried {
            let id = ValueId(f.values.len() as u32);
            f.values.push(f.ty(*v));
            loads.push(Inst {
                result: Some(id),
                op: Op::LoadVar(*var),
            });
            map.insert(*v, id);
        }
        let c = f.block_mut(cont);
        for i in &mut c.insts {
            map_op(&mut i.op, |v| map.get(&v).copied().unwrap_or(v), |x| x);
        }
        map_term(&mut c.term, |v| map.get(&v).copied().unwrap_or(v));
        loads.append(&mut c.insts);
        c.insts = loads;
    }
    let arg_vars: Vec<VarId> = args
        .iter()
        .map(|a| {
            let var = f.new_var(f.ty(*a), "inline.arg");
            f.push_void(b, Op::StoreVar(var, *a));
            var
        })
        .collect();
    // Copy the callee with fresh ids.
    let var_base = f.vars.len() as u32;
    f.vars.extend(callee.vars.iter().cloned());
    let value_base = f.values.len() as u32;
    f.values.extend(callee.values.iter().copied());
    let block_base = f.blocks.len() as u32;
    let vmap = |v: ValueId| ValueId(v.0 + value_base);
    let varmap = |v: VarId| VarId(v.0 + var_base);
    let bmap = |x: BlockId| BlockId(x.0 + block_base);
    for cb in &callee.blocks {
        let mut insts = Vec::with_capacity(cb.insts.len());
        for i in &cb.insts {
            let op = match &i.op {
                Op::Param(n) if (*n as usize) < arg_vars.len() => {
                    Op::LoadVar(arg_vars[*n as usize])
                }
                other => {
                    let mut op = other.clone();
                    map_op(&mut op, vmap, varmap);
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
                for (r, v) in results.iter().zip(vals) {
                    insts.push(Inst {
                        result: None,
                        op: Op::StoreVar(*r, vmap(*v)),
                    });
                }
                Terminator::Jump(cont)
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
    f.block_mut(b).term = Terminator::Jump(bmap(callee.entry));
}

/// Drops functions the entry no longer reaches, renumbering calls.
fn prune(module: &mut Module) {
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
    for f in &mut kept {
        for b in &mut f.blocks {
            for i in &mut b.insts {
                if let Op::Call { func, .. } = &mut i.op
                    && let Some(id) = new_id[func.0 as usize]
                {
                    *func = id;
                }
            }
        }
    }
    module.entry = new_id[module.entry.0 as usize].unwrap_or(FuncId(0));
    module.functions = kept;
}

/// The values an operation reads.
pub fn op_values(op: &Op) -> Vec<ValueId> {
    let mut out = Vec::new();
    let mut op = op.clone();
    map_op(
        &mut op,
        |v| {
            out.push(v);
            v
        },
        |x| x,
    );
    out
}

fn term_values(t: &Terminator) -> Vec<ValueId> {
    match t {
        Terminator::Branch { cond, .. } => vec![*cond],
        Terminator::Switch { value, .. } => vec![*value],
        Terminator::Return(v) => v.clone(),
        Terminator::Jump(_) | Terminator::Exit | Terminator::Unreachable => Vec::new(),
    }
}

fn map_term(t: &mut Terminator, mut v: impl FnMut(ValueId) -> ValueId) {
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

/// Rewrites every value and variable an operation mentions.
pub fn map_op(op: &mut Op, mut v: impl FnMut(ValueId) -> ValueId, var: impl Fn(VarId) -> VarId) {
    match op {
        Op::Const(_) | Op::Builtin(_) | Op::Param(_) | Op::Barrier | Op::Fence(_) => {}
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
        Op::Call { args, results, .. } => {
            args.iter_mut().for_each(|a| *a = v(*a));
            results.iter_mut().for_each(|r| *r = var(*r));
        }
    }
}
