//! Definitions before uses in CFG form: in the same block before the use, or in a block that
//! dominates the use's block. Blocks the entry does not reach are never emitted; their uses
//! need only a definition somewhere.

use super::rules::Check;
use crate::ir::{BlockId, Function, Terminator, ValueId};

/// Where each value is defined: its block and position.
fn definitions(f: &Function) -> Vec<Option<(u32, u32)>> {
    let mut def = vec![None; f.values.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, inst) in b.insts.iter().enumerate() {
            if let Some(r) = inst.result {
                def[r.0 as usize] = Some((bi as u32, k as u32));
            }
        }
    }
    def
}

/// The reachable blocks in reverse postorder, and each block's position there.
fn reverse_postorder(f: &Function) -> (Vec<BlockId>, Vec<Option<usize>>) {
    let n = f.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    // An explicit stack: a CFG can be deeper than the thread's stack.
    let mut stack: Vec<(BlockId, usize)> = vec![(f.entry, 0)];
    seen[f.entry.0 as usize] = true;
    while let Some((b, next)) = stack.last_mut() {
        let b = *b;
        match f.block(b).term.targets().nth(*next) {
            Some(s) => {
                *next += 1;
                if !std::mem::replace(&mut seen[s.0 as usize], true) {
                    stack.push((s, 0));
                }
            }
            None => {
                post.push(b);
                stack.pop();
            }
        }
    }
    post.reverse();
    let mut rank = vec![None; n];
    for (i, b) in post.iter().enumerate() {
        rank[b.0 as usize] = Some(i);
    }
    (post, rank)
}

/// Immediate dominators of the reachable blocks, as positions in reverse postorder (Cooper,
/// Harvey and Kennedy, "A Simple, Fast Dominance Algorithm").
fn dominators(f: &Function, rpo: &[BlockId], rank: &[Option<usize>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); rpo.len()];
    for (i, b) in rpo.iter().enumerate() {
        for s in f.block(*b).term.targets() {
            if let Some(j) = rank[s.0 as usize] {
                preds[j].push(i);
            }
        }
    }
    let mut idom = vec![NONE; rpo.len()];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for i in 1..rpo.len() {
            let mut new = NONE;
            for &p in &preds[i] {
                if idom[p] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    let (mut a, mut b) = (p, new);
                    while a != b {
                        while a > b {
                            a = idom[a];
                        }
                        while b > a {
                            b = idom[b];
                        }
                    }
                    a
                };
            }
            if idom[i] != new {
                idom[i] = new;
                changed = true;
            }
        }
    }
    idom
}

pub(super) fn defined_before_use(f: &Function) -> Check {
    let def = definitions(f);
    let (rpo, rank) = reverse_postorder(f);
    let idom = dominators(f, &rpo, &rank);
    // Whether block `d` dominates block `u` (both reachable, as positions).
    let dominates = |d: usize, mut u: usize| {
        while u > d {
            u = idom[u];
        }
        u == d
    };
    for (bi, b) in f.blocks.iter().enumerate() {
        let here = rank[bi];
        let check = |v: ValueId, at: usize| -> Check {
            let Some((db, dk)) = def[v.0 as usize] else {
                return Err(format!("b{bi}[{at}] uses %{}, which nothing defines", v.0));
            };
            let ok = match (here, rank[db as usize]) {
                _ if db as usize == bi => (dk as usize) < at,
                (Some(u), Some(d)) => dominates(d, u),
                (Some(_), None) => false,
                (None, _) => true,
            };
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "b{bi}[{at}] uses %{}, defined at b{db}[{dk}], which does not come first",
                    v.0
                ))
            }
        };
        for (k, inst) in b.insts.iter().enumerate() {
            let mut found = Ok(());
            crate::ir::inline::for_each_value(&inst.op, &f.side, |v| {
                if found.is_ok() {
                    found = check(v, k);
                }
            });
            found?;
        }
        let end = b.insts.len();
        match &b.term {
            Terminator::Branch { cond: v, .. } | Terminator::Switch { value: v, .. } => {
                check(*v, end)?
            }
            Terminator::Return(vs) => vs.iter().try_for_each(|v| check(*v, end))?,
            Terminator::Jump(_) | Terminator::Exit | Terminator::Unreachable => {}
        }
    }
    Ok(())
}
