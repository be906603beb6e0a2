//! Rewriting calls to a cycle's members: inside the merged function a call becomes a push of
//! the caller's frame and a jump, outside it a call to the merged function with a selector.

use super::layout::{LocalArena, Member, STACK_WORDS};
use super::live::VarSet;
use super::words::{
    at_const, bin, from_words, load_word, new_value, store_word, to_words, words_of,
};
use crate::ir::inline::CutCall;
use crate::ir::{
    BinOp, BlockId, Call, ConvOp, FuncId, Function, Inst, Op, Terminator, Ty, ValueId, VarId,
};

/// The first call in `g` to a member, in block `from` or later.
pub(super) fn find_member_call(
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
pub(super) fn call_member(
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

pub(super) fn redirect_calls(
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
            *f.side.call_mut(call) = Call {
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
