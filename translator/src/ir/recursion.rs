//! Recursion without recursion: SPIR-V forbids recursive calls, so the functions of each cycle
//! of the call graph become one function that loops over an explicit per-thread stack.
//!
//! For a strongly connected set of functions `S`, the merged function holds a copy of each
//! member's body. A call between members saves the caller's frame (its variables, the values
//! carried over the call and its words of the local arena) and a return-site number on the
//! stack, passes the arguments through the callee's parameter variables and jumps to the
//! callee's entry. A return stores the return values, then either leaves the merged function
//! (when the stack is back where it was on entry) or jumps to the return site found on top of
//! the stack, which restores the caller's frame. Calls from outside `S` call the merged
//! function with a selector saying which member they mean.
//!
//! The stack is in the local arena: a stack-pointer word and `STACK_WORDS` words. A call that
//! would overflow it reports `TrapKind::StackOverflow` and ends the thread.

use super::inline::{CutCall, calls, copy_body, cut_call, prune};
use super::{
    BinOp, BlockId, ConvOp, FuncId, Function, Inst, Module, Op, Ptr, Terminator, Ty, ValueId, VarId,
};

/// Words of per-thread stack for recursive calls: 4 KiB (CUDA's default stack is 1 KiB, but it
/// does not hold registers, which frames here do).
pub const STACK_WORDS: u32 = 1024;

/// What the pass needs to know about the module's local arena.
pub struct LocalArena {
    /// Word index of the stack pointer; the stack follows it.
    pub stack_pointer: u32,
    /// For each function, the words of the local arena its own `.local` variables occupy.
    pub frames: Vec<std::ops::Range<u32>>,
    /// The value a stack overflow writes to the launch's status word.
    pub overflow_status: u32,
    /// For each function that calls others, the variable its `.local` addresses are relative
    /// to. Its entry sets it to 0 (the words in `frames`); a call between members of a cycle
    /// gives the callee a frame of its own on the stack instead, so that a pointer into the
    /// caller's frame (a return value passed by address) stays valid during the call.
    pub bases: Vec<Option<VarId>>,
}

/// Merges every cycle of the call graph. Returns whether there was one.
pub fn eliminate(module: &mut Module, arena: &LocalArena) -> bool {
    let sccs = cycles(module);
    if sccs.is_empty() {
        return false;
    }
    for scc in &sccs {
        merge(module, scc, arena);
    }
    init_stack_pointer(module, arena);
    prune(module);
    true
}

/// Strongly connected components with a cycle (Tarjan's algorithm, iteratively).
fn cycles(module: &Module) -> Vec<Vec<FuncId>> {
    let n = module.functions.len();
    let succ: Vec<Vec<usize>> = module
        .functions
        .iter()
        .map(|f| calls(f).map(|c| c.0 as usize).collect())
        .collect();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(&w) = succ[v].get(*i) {
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(FuncId(w as u32));
                    if w == v {
                        break;
                    }
                }
                let cyclic = comp.len() > 1 || succ[v].contains(&v);
                if cyclic {
                    comp.sort_by_key(|f| f.0);
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// One member's copy inside the merged function.
struct Member {
    entry: BlockId,
    params: Vec<VarId>,
    rets: Vec<VarId>,
    /// Variables of the member's copy (its frame, with the parameters).
    vars: Vec<VarId>,
    frame: std::ops::Range<u32>,
    /// The copy's `.local` base variable.
    base: Option<VarId>,
}

fn merge(module: &mut Module, scc: &[FuncId], arena: &LocalArena) {
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

/// The first call in `g` to a member, in block `from` or later.
fn find_member_call(
    g: &Function,
    from: usize,
    member_of: &impl Fn(FuncId) -> Option<usize>,
) -> Option<(BlockId, usize, usize)> {
    for (bi, b) in g.blocks.iter().enumerate().skip(from) {
        for (k, i) in b.insts.iter().enumerate() {
            if let Op::Call(c) = i.op
                && let Some(callee) = member_of(g.side.call(c).func)
            {
                return Some((BlockId(bi as u32), k, callee));
            }
        }
    }
    None
}

/// Saves the caller's frame (the variables `live` after the call) and the return site `site`,
/// passes the arguments, jumps to the callee; at the return site, restores the frame and
/// collects the results. Returns the block that pushes the frame.
fn call_member(
    g: &mut Function,
    b: BlockId,
    cut: &CutCall,
    owner: &Member,
    callee: &Member,
    (site, live): (u32, &VarSet),
    arena: &LocalArena,
) -> BlockId {
    // The caller's variables that are still needed after the call.
    let mut saved: Vec<VarId> = owner.vars.clone();
    saved.extend(cut.carried.iter().copied());
    saved.retain(|v| live.contains(v));
    // The caller's `.local` words are saved when its addresses are fixed; with a base, the
    // callee's frame is on the stack instead, and the caller's words stay where they are.
    let saved_frame = if owner.base.is_some() {
        0..0
    } else {
        owner.frame.clone()
    };
    let callee_frame = if callee.base.is_some() {
        callee.frame.len() as u32
    } else {
        0
    };
    let var_words: u32 = saved
        .iter()
        .map(|v| words_of(g.vars[v.0 as usize].ty))
        .sum::<u32>();
    let frame_words = var_words + saved_frame.len() as u32 + callee_frame;
    let total = frame_words + 1;
    // Overflow check.
    let at = g.push(b, Ty::I32, Op::Const(arena.stack_pointer.into()));
    let sp = load_word(g, b, at);
    let limit = g.push(
        b,
        Ty::I32,
        Op::Const(u64::from(STACK_WORDS.saturating_sub(total))),
    );
    let over = bin(g, b, Ty::Bool, BinOp::UGt, sp, limit);
    let (push, overflow) = (g.new_block(), g.new_block());
    g.block_mut(b).term = Terminator::Branch {
        cond: over,
        then: overflow,
        else_: push,
    };
    let code = g.push(overflow, Ty::I32, Op::Const(arena.overflow_status.into()));
    g.report_status(overflow, code);
    g.block_mut(overflow).term = Terminator::Exit;
    // Push the frame: variables, local words, then the return site.
    let stack0 = arena.stack_pointer + 1;
    let mut callee_base = None;
    let mut off = 0u32;
    let at = at_const(g, push, arena.stack_pointer);
    let sp = load_word(g, push, at);
    let slot = |g: &mut Function, blk, sp, off: u32| {
        let k = g.push(blk, Ty::I32, Op::Const(u64::from(stack0 + off)));
        bin(g, blk, Ty::I32, BinOp::IAdd, sp, k)
    };
    for v in &saved {
        let ty = g.vars[v.0 as usize].ty;
        let val = g.push(push, ty, Op::LoadVar(*v));
        for (j, w) in to_words(g, push, val, ty).into_iter().enumerate() {
            let idx = slot(g, push, sp, off + j as u32);
            store_word(g, push, idx, w);
        }
        off += words_of(ty);
    }
    for w in saved_frame.clone() {
        let src = g.push(push, Ty::I32, Op::Const(w.into()));
        let val = load_word(g, push, src);
        let idx = slot(g, push, sp, off);
        store_word(g, push, idx, val);
        off += 1;
    }
    if let Some(b) = callee.base {
        // Byte base such that the callee's first `.local` word lands on stack word `off`.
        let idx = slot(g, push, sp, off);
        let start = g.push(push, Ty::I32, Op::Const(callee.frame.start.into()));
        let word = bin(g, push, Ty::I32, BinOp::ISub, idx, start);
        let four = g.push(push, Ty::I32, Op::Const(4));
        let bytes = bin(g, push, Ty::I32, BinOp::IMul, word, four);
        let wide = g.push(push, Ty::I64, Op::Conv(ConvOp::ZExt, bytes));
        // Set after the caller's variables are saved: in self-recursion it is the same one.
        callee_base = Some((b, wide));
        off += callee_frame;
    }
    let idx = slot(g, push, sp, off);
    let s = g.push(push, Ty::I32, Op::Const(site.into()));
    store_word(g, push, idx, s);
    let t = g.push(push, Ty::I32, Op::Const(total.into()));
    let new_sp = bin(g, push, Ty::I32, BinOp::IAdd, sp, t);
    let at = at_const(g, push, arena.stack_pointer);
    store_word(g, push, at, new_sp);
    for (p, a) in callee.params.iter().zip(&cut.args) {
        g.push_void(push, Op::StoreVar(*p, *a));
    }
    if let Some((b, v)) = callee_base {
        g.push_void(push, Op::StoreVar(b, v));
    }
    g.block_mut(push).term = Terminator::Jump(callee.entry);
    // The return site: pop, restore, take the results, before the continuation's own
    // instructions (which begin by loading the carried values). Built in a scratch block.
    let rb = g.new_block();
    let at = at_const(g, rb, arena.stack_pointer);
    let sp = load_word(g, rb, at);
    let t = g.push(rb, Ty::I32, Op::Const(total.into()));
    let old_sp = bin(g, rb, Ty::I32, BinOp::ISub, sp, t);
    let at = at_const(g, rb, arena.stack_pointer);
    store_word(g, rb, at, old_sp);
    let mut off = 0u32;
    for v in &saved {
        let ty = g.vars[v.0 as usize].ty;
        let ws: Vec<ValueId> = (0..words_of(ty))
            .map(|j| {
                let idx = slot(g, rb, old_sp, off + j);
                load_word(g, rb, idx)
            })
            .collect();
        let val = from_words(g, rb, &ws, ty);
        g.push_void(rb, Op::StoreVar(*v, val));
        off += words_of(ty);
    }
    for w in saved_frame {
        let idx = slot(g, rb, old_sp, off);
        let val = load_word(g, rb, idx);
        let dst = g.push(rb, Ty::I32, Op::Const(w.into()));
        store_word(g, rb, dst, val);
        off += 1;
    }
    for (res, ret) in cut.results.iter().zip(&callee.rets) {
        let ty = g.vars[ret.0 as usize].ty;
        let v = g.push(rb, ty, Op::LoadVar(*ret));
        g.push_void(rb, Op::StoreVar(*res, v));
    }
    let mut pre = std::mem::take(&mut g.block_mut(rb).insts);
    let c = g.block_mut(cut.cont);
    pre.append(&mut c.insts);
    c.insts = pre;
    push
}

/// A set of a function's variables, one bit each.
struct VarSet(Vec<u64>);

impl VarSet {
    fn contains(&self, v: &VarId) -> bool {
        has(&self.0, *v)
    }
}

fn has(set: &[u64], v: VarId) -> bool {
    set.get(v.0 as usize / 64)
        .is_some_and(|w| w >> (v.0 % 64) & 1 != 0)
}

fn add(set: &mut [u64], v: VarId) {
    set[v.0 as usize / 64] |= 1 << (v.0 % 64);
}

/// The variables live on entry to `start`: read before being written on some path from it
/// (not following the successors of `stops`). Bit sets over the variables and a table of
/// the reached blocks: hash sets per block and call site cost a twentieth of a recursive
/// kernel's translation.
fn live_in(g: &Function, start: BlockId, stops: &[BlockId]) -> VarSet {
    let followed = |b: BlockId| (!stops.contains(&b)).then(|| g.block(b).term.targets());
    // The reached blocks, and each block's place among them.
    let mut pos = vec![u32::MAX; g.blocks.len()];
    let mut reach = vec![start];
    pos[start.0 as usize] = 0;
    let mut i = 0;
    while i < reach.len() {
        for s in followed(reach[i]).into_iter().flatten() {
            if pos[s.0 as usize] == u32::MAX {
                pos[s.0 as usize] = reach.len() as u32;
                reach.push(s);
            }
        }
        i += 1;
    }
    let words = g.vars.len().div_ceil(64);
    let at = |k: usize| k * words..(k + 1) * words;
    // Per reached block: variables read before any write, and variables written.
    let mut uses = vec![0u64; reach.len() * words];
    let mut defs = vec![0u64; reach.len() * words];
    for (k, &b) in reach.iter().enumerate() {
        let (u, d) = (&mut uses[at(k)], &mut defs[at(k)]);
        for inst in &g.block(b).insts {
            match &inst.op {
                Op::LoadVar(v) if !has(d, *v) => add(u, *v),
                Op::StoreVar(v, _) => add(d, *v),
                Op::Call(c) => g.side.call(*c).results.iter().for_each(|v| add(d, *v)),
                _ => {}
            }
        }
    }
    let mut live = vec![0u64; reach.len() * words];
    let mut set = vec![0u64; words];
    loop {
        let mut changed = false;
        for k in (0..reach.len()).rev() {
            set.copy_from_slice(&uses[at(k)]);
            for s in followed(reach[k]).into_iter().flatten() {
                let after = &live[at(pos[s.0 as usize] as usize)];
                for ((x, l), d) in set.iter_mut().zip(after).zip(&defs[at(k)]) {
                    *x |= l & !d;
                }
            }
            if live[at(k)] != set[..] {
                live[at(k)].copy_from_slice(&set);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    live.truncate(words);
    VarSet(live)
}

fn redirect_calls(
    f: &mut Function,
    member_of: &impl Fn(FuncId) -> Option<usize>,
    gid: FuncId,
    offsets: &[(usize, usize)],
    g_params: &[Ty],
    g_returns: &[Ty],
) {
    for bi in 0..f.blocks.len() {
        let mut k = 0;
        while k < f.blocks[bi].insts.len() {
            // Only calls to members are rewritten: their operands are taken, nothing is copied
            // (the call's entry is rewritten below).
            let (m, call, args, results) = match f.blocks[bi].insts[k].op {
                Op::Call(c) => match member_of(f.side.call(c).func) {
                    Some(m) => {
                        let entry = f.side.call_mut(c);
                        (
                            m,
                            c,
                            std::mem::take(&mut entry.args),
                            std::mem::take(&mut entry.results),
                        )
                    }
                    None => {
                        k += 1;
                        continue;
                    }
                },
                _ => {
                    k += 1;
                    continue;
                }
            };
            let (p0, r0) = offsets[m];
            // Zeros for the other members' parameters, made just before the call.
            let mut before = Vec::new();
            let mut full_args = Vec::new();
            for (j, ty) in g_params.iter().enumerate() {
                if j >= p0 && j < p0 + args.len() {
                    full_args.push(args[j - p0]);
                } else if j == g_params.len() - 1 {
                    let id = new_value(f, Ty::I32);
                    before.push(Inst {
                        result: Some(id),
                        op: Op::Const(m as u64),
                    });
                    full_args.push(id);
                } else {
                    let id = new_value(f, *ty);
                    before.push(Inst {
                        result: Some(id),
                        op: Op::Const(0),
                    });
                    full_args.push(id);
                }
            }
            let full_results: Vec<VarId> = g_returns
                .iter()
                .enumerate()
                .map(|(j, ty)| {
                    if j >= r0 && j < r0 + results.len() {
                        results[j - r0]
                    } else {
                        f.new_var(*ty, "unused.ret")
                    }
                })
                .collect();
            let n = before.len();
            *f.side.call_mut(call) = super::Call {
                func: gid,
                args: full_args,
                results: full_results,
                pure: false,
            };
            f.blocks[bi].insts.splice(k..k, before);
            k += n + 1;
        }
    }
}

/// Kernel entry: the stack starts empty.
fn init_stack_pointer(module: &mut Module, arena: &LocalArena) {
    let f = &mut module.functions[module.entry.0 as usize];
    let b = f.new_block();
    let at = at_const(f, b, arena.stack_pointer);
    let zero = f.push(b, Ty::I32, Op::Const(0));
    store_word(f, b, at, zero);
    f.block_mut(b).term = Terminator::Jump(f.entry);
    f.entry = b;
}

fn new_value(f: &mut Function, ty: Ty) -> ValueId {
    let id = ValueId(f.values.len() as u32);
    f.values.push(ty);
    id
}

fn at_const(f: &mut Function, b: BlockId, word: u32) -> ValueId {
    f.push(b, Ty::I32, Op::Const(word.into()))
}

fn bin(f: &mut Function, b: BlockId, ty: Ty, op: BinOp, x: ValueId, y: ValueId) -> ValueId {
    f.push(b, ty, Op::Bin(op, x, y, Default::default()))
}

fn load_word(f: &mut Function, b: BlockId, idx: ValueId) -> ValueId {
    f.push(
        b,
        Ty::I32,
        Op::Load {
            ptr: Ptr::Local(idx),
            align: 4,
            order: Default::default(),
        },
    )
}

fn store_word(f: &mut Function, b: BlockId, idx: ValueId, value: ValueId) {
    f.push_void(
        b,
        Op::Store {
            ptr: Ptr::Local(idx),
            value,
            align: 4,
            order: Default::default(),
        },
    );
}

fn words_of(ty: Ty) -> u32 {
    if ty.bits() == 64 { 2 } else { 1 }
}

/// A value as 32-bit words (low word first).
fn to_words(f: &mut Function, b: BlockId, v: ValueId, ty: Ty) -> Vec<ValueId> {
    match ty {
        Ty::Bool => {
            let one = f.push(b, Ty::I32, Op::Const(1));
            let zero = f.push(b, Ty::I32, Op::Const(0));
            vec![f.push(b, Ty::I32, Op::Select(v, one, zero))]
        }
        Ty::I8 | Ty::I16 => vec![f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v))],
        Ty::F16 => {
            let bits = f.push(b, Ty::I16, Op::Conv(ConvOp::Bitcast, v));
            vec![f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, bits))]
        }
        Ty::I32 => vec![v],
        Ty::F32 => vec![f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v))],
        Ty::I64 | Ty::F64 => {
            let bits = if ty == Ty::F64 {
                f.push(b, Ty::I64, Op::Conv(ConvOp::Bitcast, v))
            } else {
                v
            };
            let lo = f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, bits));
            let k = f.push(b, Ty::I64, Op::Const(32));
            let hi = bin(f, b, Ty::I64, BinOp::LShr, bits, k);
            let hi = f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, hi));
            vec![lo, hi]
        }
    }
}

fn from_words(f: &mut Function, b: BlockId, w: &[ValueId], ty: Ty) -> ValueId {
    match ty {
        Ty::Bool => {
            let zero = f.push(b, Ty::I32, Op::Const(0));
            bin(f, b, Ty::Bool, BinOp::INe, w[0], zero)
        }
        Ty::I8 | Ty::I16 => f.push(b, ty, Op::Conv(ConvOp::Trunc, w[0])),
        Ty::F16 => {
            let bits = f.push(b, Ty::I16, Op::Conv(ConvOp::Trunc, w[0]));
            f.push(b, Ty::F16, Op::Conv(ConvOp::Bitcast, bits))
        }
        Ty::I32 => w[0],
        Ty::F32 => f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, w[0])),
        Ty::I64 | Ty::F64 => {
            let lo = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, w[0]));
            let hi = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, w[1]));
            let k = f.push(b, Ty::I64, Op::Const(32));
            let hi = bin(f, b, Ty::I64, BinOp::Shl, hi, k);
            let bits = bin(f, b, Ty::I64, BinOp::Or, lo, hi);
            if ty == Ty::F64 {
                f.push(b, Ty::F64, Op::Conv(ConvOp::Bitcast, bits))
            } else {
                bits
            }
        }
    }
}
