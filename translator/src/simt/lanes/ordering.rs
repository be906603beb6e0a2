//! Lane reads that stay exchanges because their barrier orders memory accesses.

use crate::ir::{BinOp, Builtin, Function, Op, Ptr, ValueId};
use crate::structurize::Node;

/// Memory spaces an exchange's barrier orders.
const SHARED: u8 = 1;
const GLOBAL: u8 = 2;

/// What has happened since the last barrier that stays: spaces read and written, and the
/// candidate reads passed while each space had been read or written.
#[derive(Clone, Default, PartialEq)]
struct Mem {
    read: u8,
    written: u8,
    /// (candidate, spaces read before it, spaces written before it).
    crossed: Vec<(usize, u8, u8)>,
}

impl Mem {
    fn join(a: Option<Mem>, b: Option<Mem>) -> Option<Mem> {
        match (a, b) {
            (None, x) | (x, None) => x,
            (Some(mut a), Some(b)) => {
                a.read |= b.read;
                a.written |= b.written;
                for c in b.crossed {
                    match a.crossed.iter_mut().find(|x| x.0 == c.0) {
                        Some(x) => {
                            x.1 |= c.1;
                            x.2 |= c.2;
                        }
                        None => a.crossed.push(c),
                    }
                }
                a.crossed.sort_unstable_by_key(|x| x.0);
                Some(a)
            }
        }
    }
}

/// Which of the `chosen` reads (block, instruction) must stay exchanges because their
/// barrier orders memory accesses on either side of them.
pub(super) fn ordering(
    f: &Function,
    tree: &[Node],
    chosen: &[(usize, usize)],
    calls: &[(u8, u8)],
) -> Vec<bool> {
    let mut w = Order {
        f,
        chosen,
        internal: internal_addresses(f),
        calls,
        keep: vec![false; chosen.len()],
    };
    w.seq(tree, Some(Mem::default()), &mut Vec::new());
    w.keep
}

/// The values that address the kernel's parameter block (read-only) or the launch's status
/// word (ptxvk's own, which checks that fail the launch write): a base plus a constant.
fn internal_addresses(f: &Function) -> Vec<bool> {
    let mut internal = vec![false; f.values.len()];
    let mut konst = vec![false; f.values.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let Some(r) = inst.result else { continue };
        let at = |v: ValueId| v.0 as usize;
        match inst.op {
            Op::Builtin(Builtin::ParamBase | Builtin::StatusAddress) => internal[at(r)] = true,
            Op::Const(_) => konst[at(r)] = true,
            Op::Bin(BinOp::IAdd, a, b, _) => {
                internal[at(r)] =
                    (internal[at(a)] && konst[at(b)]) || (konst[at(a)] && internal[at(b)]);
            }
            _ => {}
        }
    }
    internal
}

/// The spaces an instruction of `f` reads and writes (`internal`: [`internal_addresses`];
/// `calls`: each function's, where known).
fn effect(f: &Function, op: &Op, internal: &[bool], calls: &[(u8, u8)]) -> (u8, u8) {
    let ours = |a: &ValueId| internal.get(a.0 as usize).copied().unwrap_or(false);
    match op {
        Op::Load {
            ptr: Ptr::Global(a),
            ..
        }
        | Op::AtomicCas {
            ptr: Ptr::Global(a),
            ..
        } if ours(a) => (0, 0),
        Op::Call(c) => calls
            .get(f.side.call(*c).func.0 as usize)
            .copied()
            .unwrap_or((SHARED | GLOBAL, SHARED | GLOBAL)),
        op => access(op),
    }
}

/// What each function of `m` may read and write, its callees' included.
pub fn call_effects(m: &crate::ir::Module) -> Vec<(u8, u8)> {
    let internal: Vec<Vec<bool>> = m.functions.iter().map(internal_addresses).collect();
    let mut out = vec![(0u8, 0u8); m.functions.len()];
    loop {
        let mut changed = false;
        for (fi, f) in m.functions.iter().enumerate() {
            let mut e = out[fi];
            for inst in f.blocks.iter().flat_map(|b| &b.insts) {
                let (r, w) = effect(f, &inst.op, &internal[fi], &out);
                e = (e.0 | r, e.1 | w);
            }
            changed |= e != out[fi];
            out[fi] = e;
        }
        if !changed {
            return out;
        }
    }
}

struct Order<'a> {
    f: &'a Function,
    chosen: &'a [(usize, usize)],
    /// Values that address the parameter block or the status word.
    internal: Vec<bool>,
    calls: &'a [(u8, u8)],
    keep: Vec<bool>,
}

impl Order<'_> {
    fn seq(
        &mut self,
        nodes: &[Node],
        mut st: Option<Mem>,
        stack: &mut Vec<Option<Mem>>,
    ) -> Option<Mem> {
        for n in nodes {
            st = match n {
                Node::Code(b) => st.map(|s| self.block(b.0 as usize, s)),
                Node::If { then, else_, .. } => {
                    let t = self.seq(then, st.clone(), stack);
                    let e = self.seq(else_, st, stack);
                    Mem::join(t, e)
                }
                Node::Block(body) => {
                    stack.push(None);
                    let end = self.seq(body, st, stack);
                    let broke = stack.pop().flatten();
                    Mem::join(end, broke)
                }
                Node::Loop(body) => {
                    let mut entry = st;
                    loop {
                        stack.push(None);
                        let end = self.seq(body, entry.clone(), stack);
                        let again = stack.pop().flatten();
                        let next = Mem::join(entry.clone(), again);
                        if next == entry {
                            break end;
                        }
                        entry = next;
                    }
                }
                Node::Switch { cases, default, .. } => {
                    let mut out = self.seq(default, st.clone(), stack);
                    for c in cases {
                        let x = self.seq(c, st.clone(), stack);
                        out = Mem::join(out, x);
                    }
                    out
                }
                Node::Branch(d) => {
                    let at = stack.len().checked_sub(1 + *d as usize);
                    if let Some(t) = at.and_then(|i| stack.get_mut(i)) {
                        *t = Mem::join(t.take(), st);
                    } else {
                        // A branch the tree does not resolve: nothing may go native.
                        self.keep.iter_mut().for_each(|k| *k = true);
                    }
                    None
                }
                Node::Return(_) | Node::Exit | Node::Unreachable => None,
            };
        }
        st
    }

    fn block(&mut self, bi: usize, mut s: Mem) -> Mem {
        for (ii, inst) in self.f.blocks[bi].insts.iter().enumerate() {
            if let Some(k) = self.chosen.iter().position(|&c| c == (bi, ii)) {
                if s.read | s.written != 0 {
                    s = Mem::join(
                        Some(s.clone()),
                        Some(Mem {
                            crossed: vec![(k, s.read, s.written)],
                            ..Mem::default()
                        }),
                    )
                    .unwrap_or_default();
                }
                continue;
            }
            if inst.op.is_sync() {
                s = Mem::default();
                continue;
            }
            let (read, written) = effect(self.f, &inst.op, &self.internal, self.calls);
            for &(k, r, w) in &s.crossed {
                // A write before the read and any access after it in one space, or a shared
                // read before and a shared write after.
                if w & (read | written) != 0 || r & written & SHARED != 0 {
                    self.keep[k] = true;
                }
            }
            s.read |= read;
            s.written |= written;
        }
        s
    }
}

/// The spaces an operation reads and writes (thread-local memory is no one else's).
fn access(op: &Op) -> (u8, u8) {
    let space = |p: &Ptr| match p {
        Ptr::Global(_) => GLOBAL,
        Ptr::Shared(_) => SHARED,
        Ptr::Local(_) => 0,
    };
    match op {
        Op::Load { ptr, .. } | Op::AtomicLoad { ptr, .. } => (space(ptr), 0),
        Op::Store { ptr, .. } | Op::AtomicStore { ptr, .. } => (0, space(ptr)),
        Op::Atomic { ptr, .. } | Op::AtomicCas { ptr, .. } => (space(ptr), space(ptr)),
        Op::Fence(_) | Op::Call(_) | Op::Texture(_) => (SHARED | GLOBAL, SHARED | GLOBAL),
        _ => (0, 0),
    }
}
