//! Structurization: any CFG to a tree of blocks, loops and ifs that SPIR-V's structured control
//! flow can express.
//!
//! The translation follows Norman Ramsey's "Beyond Relooper" (ICFP 2022): walk the dominator
//! tree; a node with several forward predecessors ("merge node") is placed after a `Block` that
//! its predecessors exit; a loop header becomes a `Loop` that back edges continue. One change for
//! GPUs: blocks outside a loop that are reached from inside it are placed *after* the loop rather
//! than inside its body, so code after a loop (barriers in particular) runs once, outside the
//! loop construct, in the same dynamic instance for every thread.
//!
//! Irreducible regions (loops with several entries) are first made reducible by routing their
//! entries through one dispatch block that switches on a variable (`irreducible.rs`); that adds
//! one block and one store per entry edge, so code size grows linearly.

mod cfg;
mod guard;
mod irreducible;
mod node;
mod simplify;

pub use cfg::Buffers;
use cfg::{Cfg, Loops};
pub use node::Node;

use crate::ir::{BlockId, Function, Terminator, ValueId};

/// Control flow nested deeper than [`MAX_DEPTH`] constructs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep;

/// How deep the structured tree may nest (ifs, loops and blocks around a node). The walks of the
/// tree (here, the SIMT pass, emission) recurse on it; this keeps them within a 2 MiB stack,
/// below SPIR-V's limit of 1,023 nested constructs.
pub const MAX_DEPTH: usize = crate::parse::MAX_NESTING;

/// Structurizes `f` (which may gain blocks and a variable if it had irreducible loops).
pub fn structurize(f: &mut Function) -> Result<Vec<Node>, TooDeep> {
    structurize_in(f, &mut Buffers::default())
}

/// `structurize`, with the analyses' vectors from (and back to) `buf`.
pub fn structurize_in(f: &mut Function, buf: &mut Buffers) -> Result<Vec<Node>, TooDeep> {
    let cfg = irreducible::make_reducible(f, buf);
    let loops = Loops::new_in(&cfg, buf);
    let n = f.blocks.len();

    // Children in the dominator tree, with loop exits lifted to the outermost loop they leave.
    let mut merges = buf.lists(n);
    let mut follows = buf.lists(n);
    let mut is_merge = cfg::filled(&mut buf.bools, n, false);
    // Count edges with multiplicity: `Branch` to the same block twice makes a merge too.
    let mut forward = cfg::filled(&mut buf.usizes, n, 0);
    for &p in &cfg.order {
        for s in f.block(p).term.targets() {
            if !cfg.is_retreating(p, s) {
                forward[s.0 as usize] += 1;
            }
        }
    }
    for &b in &cfg.order {
        is_merge[b.0 as usize] = forward[b.0 as usize] >= 2;
    }
    for &b in cfg.order.iter().skip(1) {
        let Some(d) = cfg.idom[b.0 as usize] else {
            continue;
        };
        // The outermost loop around `d` that does not contain `b`, if any.
        let left = loops.containing[d.0 as usize]
            .iter()
            .copied()
            .take_while(|&h| !loops.contains(h, b))
            .last();
        if let Some(outer) = left {
            follows[outer.0 as usize].push(b);
        } else if is_merge[b.0 as usize] {
            merges[d.0 as usize].push(b);
        }
    }
    for list in merges.iter_mut().chain(follows.iter_mut()) {
        list.sort_by_key(|&b| std::cmp::Reverse(cfg.rpo(b)));
    }
    let mut s = Structurizer {
        f,
        cfg: &cfg,
        loops: &loops,
        merges,
        follows,
        ctx: Vec::new(),
        depth: 0,
        too_deep: false,
    };
    let mut out = Vec::with_capacity(SEQ_ROOM);
    let entry = s.f.entry;
    s.do_tree(entry, &mut out);
    let Structurizer {
        merges,
        follows,
        too_deep,
        ..
    } = s;
    buf.lists.extend([merges, follows]);
    buf.bools.push(is_merge);
    buf.usizes.push(forward);
    loops.recycle(buf);
    cfg.recycle(buf);
    if too_deep {
        return Err(TooDeep);
    }
    simplify::drop_blocks(f, &mut out, 0);
    Ok(out)
}

/// Room for the nodes of a function's sequence and of each `Block` and `Loop` body: they hold
/// the chains of blocks, and grown from empty one push at a time each was reallocated once or
/// twice (`If` arms, mostly a single branch, start empty).
const SEQ_ROOM: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    BlockFollowedBy(BlockId),
    LoopHeadedBy(BlockId),
}

struct Structurizer<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    loops: &'a Loops,
    merges: Vec<Vec<BlockId>>,
    follows: Vec<Vec<BlockId>>,
    ctx: Vec<Ctx>,
    /// Calls of `do_tree` open; past `MAX_DEPTH` the walk stops and sets `too_deep`.
    depth: usize,
    too_deep: bool,
}

impl Structurizer<'_> {
    /// Appends the code of `x`'s subtree; loops instead of recursing on tail positions, so long
    /// chains of blocks do not grow the stack.
    fn do_tree(&mut self, x: BlockId, out: &mut Vec<Node>) {
        if self.too_deep || self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        self.depth += 1;
        self.do_tree_at(x, out);
        self.depth -= 1;
    }

    fn do_tree_at(&mut self, mut x: BlockId, out: &mut Vec<Node>) {
        loop {
            let next = if self.loops.is_header[x.0 as usize] {
                self.with_list(|s| &mut s.follows, x, |s, l| s.wrap_follows(x, l, out))
            } else {
                self.with_list(|s| &mut s.merges, x, |s, l| s.node_within(x, l, out))
            };
            match next {
                Some(y) => x = y,
                None => return,
            }
        }
    }

    /// Runs `f` on block `x`'s list in `lists` (`merges` or `follows`). Each block is placed
    /// once (the walk follows the dominator tree), so the list is taken, not copied; it goes
    /// back emptied, keeping its room for the next function (`Buffers::lists`).
    fn with_list<R>(
        &mut self,
        lists: fn(&mut Self) -> &mut Vec<Vec<BlockId>>,
        x: BlockId,
        f: impl FnOnce(&mut Self, &[BlockId]) -> R,
    ) -> R {
        let mut list = std::mem::take(&mut lists(self)[x.0 as usize]);
        let r = f(self, &list);
        list.clear();
        lists(self)[x.0 as usize] = list;
        r
    }

    /// `Block { Block { Loop { x } } f1 } f2 ...`: the loop, then what it exits to.
    fn wrap_follows(
        &mut self,
        x: BlockId,
        follows: &[BlockId],
        out: &mut Vec<Node>,
    ) -> Option<BlockId> {
        match follows.split_first() {
            None => {
                self.ctx.push(Ctx::LoopHeadedBy(x));
                let mut body = Vec::with_capacity(SEQ_ROOM);
                let tail =
                    self.with_list(|s| &mut s.merges, x, |s, l| s.node_within(x, l, &mut body));
                if let Some(t) = tail {
                    self.do_tree(t, &mut body);
                }
                self.ctx.pop();
                out.push(Node::Loop(body));
                None
            }
            Some((&f, rest)) => {
                self.ctx.push(Ctx::BlockFollowedBy(f));
                let mut inner = Vec::with_capacity(SEQ_ROOM);
                if let Some(t) = self.wrap_follows(x, rest, &mut inner) {
                    self.do_tree(t, &mut inner);
                }
                self.ctx.pop();
                out.push(Node::Block(inner));
                Some(f)
            }
        }
    }

    /// The code of `x` wrapped in a `Block` per merge child (highest reverse postorder outermost).
    /// Returns the block whose subtree follows as a tail.
    fn node_within(
        &mut self,
        x: BlockId,
        merges: &[BlockId],
        out: &mut Vec<Node>,
    ) -> Option<BlockId> {
        if let Some((&y, rest)) = merges.split_first() {
            self.ctx.push(Ctx::BlockFollowedBy(y));
            let mut inner = Vec::with_capacity(SEQ_ROOM);
            if let Some(t) = self.node_within(x, rest, &mut inner) {
                self.do_tree(t, &mut inner);
            }
            self.ctx.pop();
            out.push(Node::Block(inner));
            return Some(y);
        }
        out.push(Node::Code(x));
        let f = self.f;
        match &f.block(x).term {
            &Terminator::Jump(t) => self.do_branch(x, t, out),
            &Terminator::Branch { cond, then, else_ } => self.do_if(x, cond, then, else_, out),
            &Terminator::Switch {
                value,
                ref targets,
                default,
            } => {
                let cases = targets.iter().map(|&t| self.branch_seq(x, t)).collect();
                let default = self.branch_seq(x, default);
                out.push(Node::Switch {
                    value,
                    cases,
                    default,
                });
                None
            }
            Terminator::Return(v) => {
                out.push(Node::Return(v.clone()));
                None
            }
            Terminator::Exit => {
                out.push(Node::Exit);
                None
            }
            Terminator::Unreachable => {
                out.push(Node::Unreachable);
                None
            }
        }
    }

    /// A two-way branch. When one arm leaves (a branch out, or a block that returns), the other
    /// arm's code follows the `If` in the same sequence instead of nesting in its arm: the walk
    /// stays a loop along chains of early exits, and `simplify::nest` nests them back where the
    /// nesting depth allows.
    fn do_if(
        &mut self,
        x: BlockId,
        cond: ValueId,
        then: BlockId,
        else_: BlockId,
        out: &mut Vec<Node>,
    ) -> Option<BlockId> {
        let mut t = Vec::new();
        let mut e = Vec::new();
        let tail = match (
            self.do_branch(x, then, &mut t),
            self.do_branch(x, else_, &mut e),
        ) {
            (None, None) => None,
            (None, Some(y)) | (Some(y), None) => Some(y),
            (Some(a), Some(b)) => {
                let leaves = |y: BlockId| {
                    matches!(
                        self.f.block(y).term,
                        Terminator::Return(_) | Terminator::Exit | Terminator::Unreachable
                    )
                };
                if leaves(a) {
                    self.do_tree(a, &mut t);
                    Some(b)
                } else if leaves(b) {
                    self.do_tree(b, &mut e);
                    Some(a)
                } else {
                    self.do_tree(a, &mut t);
                    self.do_tree(b, &mut e);
                    None
                }
            }
        };
        out.push(Node::If {
            cond,
            then: t,
            else_: e,
        });
        tail
    }

    fn branch_seq(&mut self, x: BlockId, y: BlockId) -> Vec<Node> {
        let mut v = Vec::new();
        if let Some(t) = self.do_branch(x, y, &mut v) {
            self.do_tree(t, &mut v);
        }
        v
    }

    /// A branch `x -> y`: continue a loop, exit a block, or (single predecessor) inline `y`.
    fn do_branch(&mut self, x: BlockId, y: BlockId, out: &mut Vec<Node>) -> Option<BlockId> {
        let want = if self.cfg.is_retreating(x, y) {
            Ctx::LoopHeadedBy(y)
        } else {
            Ctx::BlockFollowedBy(y)
        };
        if let Some(pos) = self.ctx.iter().rposition(|c| *c == want) {
            let depth = self.ctx.len() - 1 - pos;
            out.push(Node::Branch(depth as u32));
            return None;
        }
        Some(y)
    }
}

#[cfg(test)]
mod tests;
