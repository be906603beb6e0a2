//! Making irreducible loops reducible.
//!
//! A strongly connected region with several entry blocks gets one new header: every edge into an
//! entry (from outside or from inside the region) stores the entry's number in a variable and
//! jumps to the header, which switches on it. The region then has a single entry; nested
//! regions are handled the same way until the whole CFG is reducible.

use super::cfg::{Buffers, Cfg};
use crate::ir::{BlockId, Function, Op, Terminator, Ty, VarId};

/// Returns the analyses of the reducible result.
pub fn make_reducible(f: &mut Function, buf: &mut Buffers) -> Cfg {
    let mut var: Option<VarId> = None;
    // Each iteration removes one multi-entry region; a CFG of n blocks has fewer than n of them.
    for _ in 0..f.blocks.len() + 1 {
        let cfg = Cfg::new_in(f, buf);
        if cfg.is_reducible() {
            return cfg;
        }
        match find_multi_entry(&cfg, &cfg.order, None) {
            Some((_, entries)) => {
                let v = *var.get_or_insert_with(|| f.new_var(Ty::I32, "irreducible.entry"));
                dispatch(f, &cfg, &entries, v);
                cfg.recycle(buf);
            }
            None => return cfg,
        }
    }
    Cfg::new_in(f, buf)
}

/// Finds a strongly connected region (within `nodes`, ignoring edges into `header`) that has more
/// than one entry. Recurses into single-entry regions without their header.
pub(super) fn find_multi_entry(
    cfg: &Cfg,
    nodes: &[BlockId],
    header: Option<BlockId>,
) -> Option<(Vec<BlockId>, Vec<BlockId>)> {
    let n = cfg.rpo.len();
    let mut inside = vec![false; n];
    for b in nodes {
        inside[b.0 as usize] = true;
    }
    for scc in cyclic_sccs(cfg, nodes, &inside, header) {
        let mut in_scc = vec![false; n];
        for b in &scc {
            in_scc[b.0 as usize] = true;
        }
        let mut entries: Vec<BlockId> = scc
            .iter()
            .copied()
            .filter(|&b| {
                cfg.order.first() == Some(&b) || cfg.preds(b).iter().any(|p| !in_scc[p.0 as usize])
            })
            .collect();
        entries.sort_by_key(|&b| cfg.rpo(b));
        if entries.len() > 1 {
            return Some((scc, entries));
        }
        let h = entries[0];
        let rest: Vec<BlockId> = scc.iter().copied().filter(|&b| b != h).collect();
        if let Some(found) = find_multi_entry(cfg, &rest, Some(h)) {
            return Some(found);
        }
    }
    None
}

/// Strongly connected components (Kosaraju, iterative) of the subgraph on `nodes`.
fn cyclic_sccs(
    cfg: &Cfg,
    nodes: &[BlockId],
    inside: &[bool],
    header: Option<BlockId>,
) -> Vec<Vec<BlockId>> {
    let n = inside.len();
    let edge_ok = |to: BlockId| inside[to.0 as usize] && Some(to) != header;
    let mut seen = vec![false; n];
    let mut finish = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = Vec::new();
    for &start in nodes {
        if seen[start.0 as usize] {
            continue;
        }
        seen[start.0 as usize] = true;
        stack.push((start, 0));
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let s = cfg.succs(b);
            if *i < s.len() {
                let next = s[*i];
                *i += 1;
                if edge_ok(next) && !seen[next.0 as usize] {
                    seen[next.0 as usize] = true;
                    stack.push((next, 0));
                }
            } else {
                finish.push(b);
                stack.pop();
            }
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut out: Vec<Vec<BlockId>> = Vec::new();
    let (mut members, mut work) = (Vec::new(), Vec::new());
    for &start in finish.iter().rev() {
        if comp[start.0 as usize] != usize::MAX {
            continue;
        }
        let id = start.0 as usize;
        members.clear();
        work.push(start);
        comp[start.0 as usize] = id;
        while let Some(b) = work.pop() {
            members.push(b);
            if Some(b) == header {
                continue;
            }
            for &p in cfg.preds(b) {
                if inside[p.0 as usize] && comp[p.0 as usize] == usize::MAX && edge_ok(b) {
                    comp[p.0 as usize] = id;
                    work.push(p);
                }
            }
        }
        // Most components are one block without a loop: only cycles are kept (and allocated).
        let cyclic = members.len() > 1
            || cfg
                .succs(members[0])
                .iter()
                .any(|&s| s == members[0] && Some(s) != header);
        if cyclic {
            out.push(members.clone());
        }
    }
    out
}

fn dispatch(f: &mut Function, cfg: &Cfg, entries: &[BlockId], var: VarId) {
    let header = f.new_block();
    let value = f.push(header, Ty::I32, Op::LoadVar(var));
    let (last, first) = entries.split_last().unwrap_or((&entries[0], &[]));
    f.block_mut(header).term = Terminator::Switch {
        value,
        targets: first.to_vec(),
        default: *last,
    };
    for (k, &e) in entries.iter().enumerate() {
        for &p in cfg.preds(e) {
            let tramp = f.new_block();
            let c = f.push(tramp, Ty::I32, Op::Const(k as u64));
            f.push_void(tramp, Op::StoreVar(var, c));
            f.block_mut(tramp).term = Terminator::Jump(header);
            for s in f.block_mut(p).term.successors_mut() {
                if *s == e {
                    *s = tramp;
                }
            }
        }
        if e == f.entry {
            let start = f.new_block();
            let c = f.push(start, Ty::I32, Op::Const(k as u64));
            f.push_void(start, Op::StoreVar(var, c));
            f.block_mut(start).term = Terminator::Jump(header);
            f.entry = start;
        }
    }
}
