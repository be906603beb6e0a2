//! CFG analyses: reverse postorder, dominators, natural loops.

use crate::ir::{BlockId, Function};

pub struct Cfg {
    /// Successors and predecessors of reachable blocks (unreachable ones have none), block `b`'s
    /// at `edges[starts[b]..starts[b + 1]]`: one vector for all of them.
    succs: Edges,
    preds: Edges,
    /// Reachable blocks in reverse postorder.
    pub order: Vec<BlockId>,
    /// Position in `order`; `usize::MAX` for unreachable blocks.
    pub rpo: Vec<usize>,
    /// Immediate dominator (the entry is its own).
    pub idom: Vec<Option<BlockId>>,
}

/// Adjacency lists in one vector.
struct Edges {
    starts: Vec<u32>,
    edges: Vec<BlockId>,
}

impl Edges {
    fn of(&self, b: BlockId) -> &[BlockId] {
        let i = b.0 as usize;
        &self.edges[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        // Iterative DFS for the postorder.
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(BlockId, usize)> = vec![(f.entry, 0)];
        visited[f.entry.0 as usize] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            match f.block(b).term.targets().nth(*i) {
                Some(next) => {
                    *i += 1;
                    if !visited[next.0 as usize] {
                        visited[next.0 as usize] = true;
                        stack.push((next, 0));
                    }
                }
                None => {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        let order = post;
        let mut rpo = vec![usize::MAX; n];
        for (i, b) in order.iter().enumerate() {
            rpo[b.0 as usize] = i;
        }
        // Distinct successors of reachable blocks; predecessors in the order they are found
        // (reverse postorder of the predecessor, then successor order).
        let mut succ_starts = vec![0u32; n + 1];
        let mut succ_edges = Vec::with_capacity(order.len() * 2);
        let mut pred_count = vec![0u32; n + 1];
        for b in 0..n {
            succ_starts[b] = succ_edges.len() as u32;
            if rpo[b] == usize::MAX {
                continue;
            }
            let first = succ_edges.len();
            for s in f.blocks[b].term.targets() {
                if !succ_edges[first..].contains(&s) {
                    succ_edges.push(s);
                    pred_count[s.0 as usize] += 1;
                }
            }
        }
        succ_starts[n] = succ_edges.len() as u32;
        let succs = Edges {
            starts: succ_starts,
            edges: succ_edges,
        };
        let mut pred_starts = vec![0u32; n + 1];
        for b in 0..n {
            pred_starts[b + 1] = pred_starts[b] + pred_count[b];
        }
        // The counts are spent: their memory becomes the fill positions.
        let mut fill = pred_count;
        fill.copy_from_slice(&pred_starts);
        let mut pred_edges = vec![BlockId(0); succs.edges.len()];
        for &b in &order {
            for &s in succs.of(b) {
                let at = &mut fill[s.0 as usize];
                pred_edges[*at as usize] = b;
                *at += 1;
            }
        }
        let preds = Edges {
            starts: pred_starts,
            edges: pred_edges,
        };
        let idom = dominators(&order, &rpo, &preds, f.entry);
        Cfg {
            succs,
            preds,
            order,
            rpo,
            idom,
        }
    }

    /// The distinct successors of `b`.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.succs.of(b)
    }

    /// The predecessors of `b` (each once), in reverse postorder.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.preds.of(b)
    }

    /// Every retreating edge goes to a block that dominates its source (Hecht and Ullman):
    /// then no loop has a second entry.
    pub fn is_reducible(&self) -> bool {
        self.order.iter().all(|&b| {
            self.succs(b)
                .iter()
                .all(|&s| !self.is_retreating(b, s) || self.dominates(s, b))
        })
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
    preds: &Edges,
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
            for &p in preds.of(b) {
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
        // Each loop's blocks as a list (the work is the loops' sizes, not the function's size
        // per loop); `seen[b] == k + 1` marks `b` as found for the `k`th loop.
        let mut bodies: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        let mut seen = vec![0u32; n];
        let mut work = Vec::new();
        for &h in &cfg.order {
            work.clear();
            work.extend(
                cfg.preds(h)
                    .iter()
                    .copied()
                    // A header precedes what it dominates in reverse postorder: only a
                    // retreating edge can be a back edge, and checking that first keeps the
                    // walk up the dominator tree (as deep as a chain of guards) off the others.
                    .filter(|&p| cfg.is_retreating(p, h) && cfg.dominates(h, p)),
            );
            if work.is_empty() {
                continue;
            }
            is_header[h.0 as usize] = true;
            let mark = bodies.len() as u32 + 1;
            seen[h.0 as usize] = mark;
            let mut body = vec![h];
            while let Some(b) = work.pop() {
                if seen[b.0 as usize] == mark {
                    continue;
                }
                seen[b.0 as usize] = mark;
                body.push(b);
                work.extend(cfg.preds(b).iter().copied());
            }
            bodies.push((h, body));
        }
        // Innermost first: smaller loops are nested in larger ones.
        bodies.sort_by_key(|(_, body)| body.len());
        let mut containing = vec![Vec::new(); n];
        for (h, body) in &bodies {
            for b in body {
                containing[b.0 as usize].push(*h);
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
