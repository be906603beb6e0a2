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

/// Vectors kept from one function's analyses to the next (`pipeline.rs`): a function's
/// analyses made about twenty allocations, a fifth of a small kernel's.
#[derive(Default)]
pub struct Buffers {
    u32s: Vec<Vec<u32>>,
    blocks: Vec<Vec<BlockId>>,
    pub(super) usizes: Vec<Vec<usize>>,
    idoms: Vec<Vec<Option<BlockId>>>,
    pub(super) bools: Vec<Vec<bool>>,
    stack: Vec<(BlockId, usize)>,
    pub(super) lists: Vec<Vec<Vec<BlockId>>>,
}

/// A kept vector holding `n` copies of `x`, or a new one.
pub(super) fn filled<T: Clone>(pool: &mut Vec<Vec<T>>, n: usize, x: T) -> Vec<T> {
    let mut v = empty(pool, n);
    v.resize(n, x);
    v
}

/// A kept vector with room for `n`, emptied, or a new one (`crate::reuse::reuse`).
fn empty<T>(pool: &mut Vec<Vec<T>>, n: usize) -> Vec<T> {
    crate::reuse::reuse(pool.pop().unwrap_or_default(), n)
}

impl Buffers {
    /// `n` empty lists (the lists themselves keep their room).
    pub(super) fn lists(&mut self, n: usize) -> Vec<Vec<BlockId>> {
        let mut v = self.lists.pop().unwrap_or_default();
        v.iter_mut().for_each(Vec::clear);
        v.resize_with(n, Vec::new);
        v
    }
}

impl Cfg {
    #[cfg(test)]
    pub fn new(f: &Function) -> Cfg {
        Cfg::new_in(f, &mut Buffers::default())
    }

    /// The analyses of `f`, in vectors from `b`.
    pub fn new_in(f: &Function, b: &mut Buffers) -> Cfg {
        let n = f.blocks.len();
        // Iterative DFS for the postorder; the same walk numbers blocks in preorder and keeps
        // the spanning tree for the dominators.
        let mut tree = DfsTree {
            pre: filled(&mut b.u32s, n, NONE),
            vertex: empty(&mut b.blocks, n),
            parent: empty(&mut b.u32s, n),
        };
        tree.pre[f.entry.0 as usize] = 0;
        tree.vertex.push(f.entry);
        tree.parent.push(0);
        let mut post = empty(&mut b.blocks, n);
        let mut stack = std::mem::take(&mut b.stack);
        stack.clear();
        stack.push((f.entry, 0));
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            match f.block(b).term.targets().nth(*i) {
                Some(next) => {
                    *i += 1;
                    if tree.pre[next.0 as usize] == NONE {
                        tree.pre[next.0 as usize] = tree.vertex.len() as u32;
                        tree.parent.push(tree.pre[b.0 as usize]);
                        tree.vertex.push(next);
                        stack.push((next, 0));
                    }
                }
                None => {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        b.stack = stack;
        post.reverse();
        let order = post;
        let mut rpo = filled(&mut b.usizes, n, usize::MAX);
        for (i, b) in order.iter().enumerate() {
            rpo[b.0 as usize] = i;
        }
        // Distinct successors of reachable blocks; predecessors in the order they are found
        // (reverse postorder of the predecessor, then successor order).
        let mut succ_starts = filled(&mut b.u32s, n + 1, 0);
        let mut succ_edges = empty(&mut b.blocks, order.len() * 2);
        let mut pred_count = filled(&mut b.u32s, n + 1, 0);
        for k in 0..n {
            succ_starts[k] = succ_edges.len() as u32;
            if rpo[k] == usize::MAX {
                continue;
            }
            let first = succ_edges.len();
            for s in f.blocks[k].term.targets() {
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
        let mut pred_starts = filled(&mut b.u32s, n + 1, 0);
        for k in 0..n {
            pred_starts[k + 1] = pred_starts[k] + pred_count[k];
        }
        // The counts are spent: their memory becomes the fill positions.
        let mut fill = pred_count;
        fill.copy_from_slice(&pred_starts);
        let mut pred_edges = filled(&mut b.blocks, succs.edges.len(), BlockId(0));
        for &x in &order {
            for &s in succs.of(x) {
                let at = &mut fill[s.0 as usize];
                pred_edges[*at as usize] = x;
                *at += 1;
            }
        }
        b.u32s.push(fill);
        let preds = Edges {
            starts: pred_starts,
            edges: pred_edges,
        };
        let idom = dominators(&tree, &preds, n, b);
        b.u32s.extend([tree.pre, tree.parent]);
        b.blocks.push(tree.vertex);
        Cfg {
            succs,
            preds,
            order,
            rpo,
            idom,
        }
    }

    /// Hands the analyses' vectors back for the next function's.
    pub fn recycle(self, b: &mut Buffers) {
        b.u32s.extend([self.succs.starts, self.preds.starts]);
        b.blocks
            .extend([self.succs.edges, self.preds.edges, self.order]);
        b.usizes.push(self.rpo);
        b.idoms.push(self.idom);
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
                .all(|&s| !self.is_retreating(b, s) || self.is_back_edge(b, s))
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

    /// An edge `from -> to` whose target dominates its source. A dominator precedes what it
    /// dominates in reverse postorder, so only a retreating edge can be one; checking that first
    /// keeps the walk up the dominator tree (as deep as a chain of guards) off the others.
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.is_retreating(from, to) && self.dominates(to, from)
    }
}

/// No block / no forest ancestor.
const NONE: u32 = u32::MAX;

/// A depth-first spanning tree: reachable blocks numbered in preorder.
struct DfsTree {
    /// Preorder number of each block; `NONE` if unreachable.
    pre: Vec<u32>,
    /// The block of each preorder number.
    vertex: Vec<BlockId>,
    /// The preorder number of each block's tree parent (the entry's own: 0).
    parent: Vec<u32>,
}

/// Immediate dominators by semi-NCA (Georgiadis): semidominators as Lengauer and Tarjan
/// compute them, with path compression, then each block's idom as the nearest common
/// ancestor of its tree parent and its semidominator. Cooper, Harvey and Kennedy's iteration,
/// used before, walked the dominator tree from every predecessor of a block: quadratic when
/// many branches reach one block (early returns to a shared `ret`).
fn dominators(t: &DfsTree, preds: &Edges, n: usize, b: &mut Buffers) -> Vec<Option<BlockId>> {
    let m = t.vertex.len();
    let mut semi = empty(&mut b.u32s, m);
    semi.extend(0..m as u32);
    let mut label = empty(&mut b.u32s, m);
    label.extend_from_slice(&semi);
    let mut ancestor = filled(&mut b.u32s, m, NONE);
    let mut path = empty(&mut b.u32s, 0);
    for w in (1..m).rev() {
        let mut s = semi[w];
        for &v in preds.of(t.vertex[w]) {
            let v = t.pre[v.0 as usize];
            if v == NONE {
                continue;
            }
            let u = eval(v, &mut ancestor, &mut label, &semi, &mut path);
            s = s.min(semi[u as usize]);
        }
        semi[w] = s;
        ancestor[w] = t.parent[w];
    }
    // Preorder: a block's tree ancestors have their idom already.
    let mut idom_pre = filled(&mut b.u32s, m, 0);
    for w in 1..m {
        let mut d = t.parent[w];
        while d > semi[w] {
            d = idom_pre[d as usize];
        }
        idom_pre[w] = d;
    }
    let mut idom = filled(&mut b.idoms, n, None);
    for (w, &x) in t.vertex.iter().enumerate() {
        idom[x.0 as usize] = Some(t.vertex[idom_pre[w] as usize]);
    }
    b.u32s.extend([semi, label, ancestor, path, idom_pre]);
    idom
}

/// The vertex of least semidominator on the forest path from `v` up to (not including) its
/// root, compressing the path (iteratively: a chain of guards makes it thousands long).
fn eval(v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32], path: &mut Vec<u32>) -> u32 {
    if ancestor[v as usize] == NONE {
        return v;
    }
    let mut x = v;
    while ancestor[ancestor[x as usize] as usize] != NONE {
        path.push(x);
        x = ancestor[x as usize];
    }
    while let Some(y) = path.pop() {
        let a = ancestor[y as usize] as usize;
        if semi[label[a] as usize] < semi[label[y as usize] as usize] {
            label[y as usize] = label[a];
        }
        ancestor[y as usize] = ancestor[a];
    }
    label[v as usize]
}

/// Natural loops of a reducible CFG.
pub struct Loops {
    /// For each block, the headers of the loops containing it, innermost first.
    pub containing: Vec<Vec<BlockId>>,
    pub is_header: Vec<bool>,
}

impl Loops {
    /// The loops of `cfg`, in vectors from `buf`.
    pub fn new_in(cfg: &Cfg, buf: &mut Buffers) -> Loops {
        let n = cfg.rpo.len();
        let mut is_header = filled(&mut buf.bools, n, false);
        // Each loop's blocks as a list (the work is the loops' sizes, not the function's size
        // per loop); `seen[b] == k + 1` marks `b` as found for the `k`th loop.
        let mut bodies: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        let mut seen = filled(&mut buf.u32s, n, 0);
        let mut work = empty(&mut buf.blocks, 0);
        for &h in &cfg.order {
            work.clear();
            work.extend(
                cfg.preds(h)
                    .iter()
                    .copied()
                    .filter(|&p| cfg.is_back_edge(p, h)),
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
        let mut containing = buf.lists(n);
        for (h, body) in &bodies {
            for b in body {
                containing[b.0 as usize].push(*h);
            }
        }
        buf.u32s.push(seen);
        buf.blocks.push(work);
        Loops {
            containing,
            is_header,
        }
    }

    /// Hands the vectors back for the next function's.
    pub fn recycle(self, buf: &mut Buffers) {
        buf.bools.push(self.is_header);
        buf.lists.push(self.containing);
    }

    pub fn contains(&self, header: BlockId, b: BlockId) -> bool {
        self.containing[b.0 as usize].contains(&header)
    }
}
