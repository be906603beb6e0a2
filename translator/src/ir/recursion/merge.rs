//! The merge of one cycle: the members' bodies copied into one function, its entry that
//! dispatches on the selector and its exit that returns or resumes a caller; kept apart from
//! the call sites it rewrites, which are the intricate part.

use super::call_sites::{call_member, find_member_call, redirect_calls};
use super::layout::{LocalArena, Member};
use super::live::live_in;
use super::words::{bin, load_word};
use crate::ir::inline::{copy_body, cut_call};
use crate::ir::{BinOp, FuncId, Function, Module, Op, Terminator, Ty, ValueId, VarId};

pub(super) fn merge(module: &mut Module, scc: &[FuncId], arena: &LocalArena) {
    // The members are taken out of the module, not copied: once calls from outside go to the
    // merged function, nothing reaches them and `prune` drops what is left in their place.
    // (The entry stays: nothing may call a kernel, but it is the entry all the same.)
    let entry = module.entry;
    let members_src: Vec<Function> = scc
        .iter()
        .map(|&f| {
            let m = &mut module.functions[f.0 as usize];
            if f == entry {
                m.clone()
            } else {
                std::mem::replace(m, Function::new(""))
            }
        })
        .collect();
    let names: Vec<&str> = members_src.iter().map(|f| f.name.as_str()).collect();
    let mut g = Function::new(format!("ptxvk.recursive.{}", names.join(".")));
    let start = g.entry;
    // Parameters: each member's, in order, then the selector.
    for m in &members_src {
        g.params.extend(m.params.iter().copied());
        g.returns.extend(m.returns.iter().copied());
    }
    g.params.push(Ty::I32);
    let mut members = Vec::new();
    let mut returning = Vec::new();
    // Which member's copy each block belongs to.
    let mut owner: Vec<Option<usize>> = vec![None; g.blocks.len()];
    for (i, src) in members_src.iter().enumerate() {
        let params: Vec<VarId> = src
            .params
            .iter()
            .map(|t| g.new_var(*t, format!("{}.param", src.name)))
            .collect();
        let rets: Vec<VarId> = src
            .returns
            .iter()
            .map(|t| g.new_var(*t, format!("{}.ret", src.name)))
            .collect();
        let body = copy_body(&mut g, src, &params);
        owner.resize(g.blocks.len(), Some(i));
        let mut vars: Vec<VarId> = (body.var_base..body.var_base + src.vars.len() as u32)
            .map(VarId)
            .collect();
        vars.extend(params.iter().copied());
        let base = arena
            .bases
            .get(scc[i].0 as usize)
            .copied()
            .flatten()
            .map(|b| VarId(body.var_base + b.0));
        // The copy's entry would reset its base: the merged function sets it instead.
        if let Some(b) = base {
            let insts = &mut g.block_mut(body.entry).insts;
            if let Some(k) = insts
                .iter()
                .position(|i| matches!(i.op, Op::StoreVar(v, _) if v == b))
            {
                insts.remove(k);
            }
        }
        returning.push((i, body.returns));
        members.push(Member {
            entry: body.entry,
            params,
            rets,
            vars,
            frame: arena.frames.get(scc[i].0 as usize).cloned().unwrap_or(0..0),
            base,
        });
    }
    // Entry: parameters into the member's parameter variables, note the stack's base, dispatch.
    let sp_ptr = |g: &mut Function, b| g.push(b, Ty::I32, Op::Const(arena.stack_pointer.into()));
    let mut n = 0u32;
    for m in &members {
        for p in &m.params {
            let v = g.push(start, g.vars[p.0 as usize].ty, Op::Param(n));
            g.push_void(start, Op::StoreVar(*p, v));
            n += 1;
        }
    }
    // Calls from outside run in the members' own frames.
    for b in members.iter().filter_map(|m| m.base) {
        let zero = g.push(start, Ty::I64, Op::Const(0));
        g.push_void(start, Op::StoreVar(b, zero));
    }
    let base = g.new_var(Ty::I32, "stack.base");
    let at = sp_ptr(&mut g, start);
    let sp = load_word(&mut g, start, at);
    g.push_void(start, Op::StoreVar(base, sp));
    let selector = g.push(start, Ty::I32, Op::Param(n));
    g.block_mut(start).term = Terminator::Switch {
        value: selector,
        targets: members.iter().map(|m| m.entry).collect(),
        default: members[0].entry,
    };
    // Returns: store the values, then leave or go back to the caller's return site.
    let dispatch = g.new_block();
    for (i, rets) in returning {
        for (rb, vals) in rets {
            for (var, v) in members[i].rets.iter().zip(vals) {
                g.push_void(rb, Op::StoreVar(*var, v));
            }
            g.block_mut(rb).term = Terminator::Jump(dispatch);
        }
    }
    let leave = g.new_block();
    let back = g.new_block();
    let at = sp_ptr(&mut g, dispatch);
    let sp = load_word(&mut g, dispatch, at);
    let b0 = g.push(dispatch, Ty::I32, Op::LoadVar(base));
    let done = bin(&mut g, dispatch, Ty::Bool, BinOp::IEq, sp, b0);
    g.block_mut(dispatch).term = Terminator::Branch {
        cond: done,
        then: leave,
        else_: back,
    };
    let all_rets: Vec<VarId> = members.iter().flat_map(|m| m.rets.clone()).collect();
    let vals: Vec<ValueId> = all_rets
        .iter()
        .map(|r| g.push(leave, g.vars[r.0 as usize].ty, Op::LoadVar(*r)))
        .collect();
    g.block_mut(leave).term = Terminator::Return(vals);
    // Calls between members.
    let member_of = |f: FuncId| scc.iter().position(|x| *x == f);
    let mut sites = Vec::new();
    // Blocks whose successors liveness does not follow: past them, a frame is on the stack.
    let mut stops = vec![dispatch, back];
    // Blocks before the last call found hold no more calls to members: the search resumes
    // there (the rest of a cut block and the new blocks come after it).
    let mut from = 0;
    while let Some((b, k, callee)) = find_member_call(&g, from, &member_of) {
        from = b.0 as usize;
        let Some(caller) = owner.get(b.0 as usize).copied().flatten() else {
            break;
        };
        let Some(cut) = cut_call(&mut g, b, k) else {
            break;
        };
        let site = sites.len() as u32;
        let cont = cut.cont;
        owner.resize(g.blocks.len(), None);
        owner[cont.0 as usize] = Some(caller);
        let live = live_in(&g, cont, &stops);
        let push = call_member(
            &mut g,
            b,
            &cut,
            &members[caller],
            &members[callee],
            (site, &live),
            arena,
        );
        stops.push(push);
        owner.resize(g.blocks.len(), None);
        sites.push(cont);
    }
    let at = sp_ptr(&mut g, back);
    let sp = load_word(&mut g, back, at);
    // The return site is the top word: stack word sp - 1, after the stack pointer's own word.
    let k = g.push(back, Ty::I32, Op::Const(arena.stack_pointer.into()));
    let top = bin(&mut g, back, Ty::I32, BinOp::IAdd, sp, k);
    let site = load_word(&mut g, back, top);
    let unreachable = g.new_block();
    g.block_mut(back).term = Terminator::Switch {
        value: site,
        targets: sites,
        default: unreachable,
    };
    // Calls from outside the cycle go to the merged function.
    let gid = FuncId(module.functions.len() as u32);
    let offsets: Vec<(usize, usize)> = {
        let (mut p, mut r) = (0, 0);
        members_src
            .iter()
            .map(|m| {
                let o = (p, r);
                p += m.params.len();
                r += m.returns.len();
                o
            })
            .collect()
    };
    let g_params = g.params.clone();
    let g_returns = g.returns.clone();
    module.functions.push(g);
    for (fi, f) in module.functions.iter_mut().enumerate() {
        if scc.iter().any(|s| s.0 as usize == fi) || fi == gid.0 as usize {
            continue;
        }
        redirect_calls(f, &member_of, gid, &offsets, &g_params, &g_returns);
    }
}
