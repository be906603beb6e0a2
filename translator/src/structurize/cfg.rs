//! CFG analyses: reverse postorder, dominators, natural loops.

use crate::ir::{BlockId, Function};

pub struct Cfg {
    /// Successors and predecessors of reachable blocks (unreachable ones have none).
    pub succs: Vec<Vec<BlockId>>,
    pub preds: Vec<Vec<BlockId>>,
    /// Reachable blocks in reverse postorder.
    pub order: Vec<BlockId>,
    /// Position in `order`; `usize::MAX` for unreachable blocks.
    pub rpo: Vec<usize>,
    /// Immediate dominator (the entry is its own).
    pub idom: Vec<Option<BlockId>>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut succs: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        // Iterative DFS for the postorder.
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(BlockId, usize)> = vec![(f.entry, 0)];
        visited[f.entry.0 as usize] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let s = f.successors(b);
            if *i < s.len() {
                let next = s[*i];
                *i += 1;
                if !visited[next.0 as usize] {
                    visited[next.0 as usize] = true;
                    stack.push((next, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let order: Vec<BlockId> = post.into_iter().rev().collect();
        let mut rpo = vec![usize::MAX; n];
        for (i, b) in order.iter().enumerate() {
            rpo[b.0 as usize] = i;
        }
        for &b in &order {
            for s in f.successors(b) {
                if !succs[b.0 as usize].contains(&s) {
                    succs[b.0 as usize].push(s);
                    preds[s.0 as usize].push(b);
                }
            }
        }
        let idom = dominators(&order, &rpo, &preds, f.entry);
        Cfg {
            succs,
            preds,
            order,
            rpo,
            idom,
        }
    }

    pub fn rpo(&self, b: BlockId) -> usize {
        self.rpo[b.0 as usize]
    }

    pub fn dominates(&self, a: BlockId, mut b: BlockId) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b.0 as usize] {
                Some(p) if p != b => b = p,
                _ => return false,
            }
        }
    }

    /// An edge `from -> to` that goes backwards in reverse postorder.
    pub fn is_retreating(&self, from: BlockId, to: BlockId) -> bool {
        self.rpo(to) <= self.rpo(from)
    }
}

/// Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm".
fn dominators(
    order: &[BlockId],
    rpo: &[usize],
    preds: &[Vec<BlockId>],
    entry: BlockId,
) -> Vec<Option<BlockId>> {
    let n = rpo.len();
    let mut idom: Vec<Option<BlockId>> = vec![None; n];
    idom[entry.0 as usize] = Some(entry);
    let intersect = |idom: &[Option<BlockId>], mut a: BlockId, mut b: BlockId| {
        while a != b {
            while rpo[a.0 as usize] > rpo[b.0 as usize] {
                a = idom[a.0 as usize].unwrap_or(entry);
            }
            while rpo[b.0 as usize] > rpo[a.0 as usize] {
                b = idom[b.0 as usize].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<BlockId> = None;
            for &p in &preds[b.0 as usize] {
                if idom[p.0 as usize].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new.is_some() && idom[b.0 as usize] != new {
                idom[b.0 as usize] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Natural loops of a reducible CFG.
pub struct Loops {
    /// For each block, the headers of the loops containing it, innermost first.
    pub containing: Vec<Vec<BlockId>>,
    pub is_header: Vec<bool>,
}

impl Loops {
    pub fn new(cfg: &Cfg) -> Loops {
        let n = cfg.rpo.len();
        let mut is_header = vec![false; n];
        let mut bodies: Vec<(BlockId, Vec<bool>)> = Vec::new();
        for &h in &cfg.order {
            let back: Vec<BlockId> = cfg.preds[h.0 as usize]
                .iter()
                .copied()
                .filter(|&p| cfg.dominates(h, p))
                .collect();
            if back.is_empty() {
                continue;
            }
            is_header[h.0 as usize] = true;
            let mut body = vec![false; n];
            body[h.0 as usize] = true;
            let mut work = back;
            while let Some(b) = work.pop() {
                if body[b.0 as usize] {
                    continue;
                }
                body[b.0 as usize] = true;
                work.extend(cfg.preds[b.0 as usize].iter().copied());
            }
            bodies.push((h, body));
        }
        // Innermost first: smaller loops are nested in larger ones.
        bodies.sort_by_key(|(_, body)| body.iter().filter(|&&x| x).count());
        let mut containing = vec![Vec::new(); n];
        for (h, body) in &bodies {
            for (b, inside) in body.iter().enumerate() {
                if *inside {
                    containing[b].push(*h);
                }
            }
        }
        Loops {
            containing,
            is_header,
        }
    }

    pub fn contains(&self, header: BlockId, b: BlockId) -> bool {
        self.containing[b.0 as usize].contains(&header)
    }
}
