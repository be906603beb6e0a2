//! Function bodies: the structured tree to SPIR-V blocks and merge instructions.
//!
//! The tree's `Block` and `Loop` both become SPIR-V loop constructs (a `Block` is a loop whose
//! back edge is never taken), so every tree branch is a SPIR-V break or continue. A branch that
//! leaves several constructs at once stores its target in a variable, breaks out of the innermost
//! construct, and the code after each construct's merge that it may pass forwards it outward
//! (each frame records the outermost target passing its merge, so the tests stop there).
//!
//! A `Block` that begins with a `Loop` is one loop construct for both (`loop_then_rest`), so that
//! a branch from the loop past the rest of the block is a break of that construct: lavapipe
//! crashes on some kernels given a once-run loop around the real one with a test of the branch
//! variable after it instead (docs/testing.md, decision 0203). From directly inside the loop
//! the branch is a plain break. From a construct nested in the loop it is forwarded like any
//! other, and the test at the merge of the nested construct that sits directly in the loop
//! clears the variable and breaks the one construct, so nothing after the loop tests for it.
//! That is sound by the tree's meaning: the block is entered only at its start, the loop, and
//! left only by falling off its rest or by a branch to it, and both leave the one construct to
//! its merge, the block's; a branch to the loop is still its continue. It is valid structured
//! SPIR-V: every break targets the merge of the innermost loop construct it is written in (the
//! nested construct's own, or, after that construct's merge, the one construct's).
//!
//! Register values are carried from block to block as the tree is written (`carry.rs`), so a
//! register is loaded only where its value may differ along the paths that reach the load.

use rspirv::spirv::{self, LoopControl, Op, SelectionControl, StorageClass, Word};

use super::carry::{Carry, Mark};
use super::module::{EmitResult, Emitter};
use crate::ir::{Function, RegisterNames, Ty, ValueId};
use crate::structurize::Node;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    Loop,
}

pub(super) struct Frame {
    kind: Kind,
    merge: Word,
    cont: Word,
    /// The outermost frame (lowest index) that a multi-level branch passing through this
    /// construct's merge targets, if one does.
    reach: Option<usize>,
}

pub(super) struct FnEmitter<'e, 'f> {
    pub e: &'e mut Emitter,
    pub f: &'f Function,
    pub values: Vec<Word>,
    pub vars: Vec<Word>,
    pub params: Vec<Word>,
    pub fn_ids: &'f [Word],
    /// The checked module the IR was lowered from: the names of register variables.
    pub source: Option<&'f dyn RegisterNames>,
    frames: Vec<Frame>,
    /// The current SPIR-V block has been terminated (what follows is unreachable).
    done: bool,
    /// Target of a multi-level branch in flight (0 = none), created on first use.
    pending: Option<Word>,
    pub(super) carry: Carry,
}

/// A function's tables, kept by the emitter from function to function and kernel to kernel
/// (see `crate::lower::Buffers` for why).
#[derive(Default)]
pub(super) struct FnBuffers {
    param_tys: Vec<Word>,
    values: Vec<Word>,
    vars: Vec<Word>,
    params: Vec<Word>,
    frames: Vec<Frame>,
    carry: Carry,
}

pub(super) fn emit_function(
    e: &mut Emitter,
    kept: &mut FnBuffers,
    (f, tree): (&Function, &[Node]),
    id: Word,
    fn_ids: &[Word],
    source: Option<&dyn RegisterNames>,
    kernel: bool,
) -> EmitResult<()> {
    let FnBuffers {
        mut param_tys,
        mut values,
        mut vars,
        mut params,
        mut frames,
        carry,
    } = std::mem::take(kept);
    let void = e.void();
    param_tys.clear();
    param_tys.extend(f.params.iter().map(|t| e.ty(*t)));
    let ret_ty = match f.returns.len() {
        0 => void,
        1 => e.ty(f.returns[0]),
        _ => {
            let members: Vec<Word> = f.returns.iter().map(|t| e.ty(*t)).collect();
            e.struct_of(&members)
        }
    };
    let fn_ty = e.fn_type(ret_ty, &param_tys);
    let control = spirv::FunctionControl::NONE.bits();
    e.body
        .head(Op::Function, Some(ret_ty), Some(id), &[control, fn_ty]);
    params.clear();
    for t in &param_tys {
        let p = e.b.id();
        e.body.head(Op::FunctionParameter, Some(*t), Some(p), &[]);
        params.push(p);
    }
    let entry = e.b.id();
    e.body.head(Op::Label, None, Some(entry), &[]);
    if kernel {
        e.init_spill_slice();
    }
    // Numbered at their first access and declared at the end, those still read then
    // (`carry.rs`): the variables `ir::forward` left unused take no id.
    vars.clear();
    vars.resize(f.vars.len(), 0);
    values.clear();
    values.resize(f.values.len(), 0);
    frames.clear();
    let mut fe = FnEmitter {
        e,
        f,
        values,
        vars,
        params,
        fn_ids,
        source,
        frames,
        done: false,
        pending: None,
        carry: carry.reset(f.vars.len()),
    };
    fe.seq(tree)?;
    if !fe.done {
        fe.e.op_void(Op::Return, []);
    }
    fe.finish_vars();
    fe.e.body.end_function();
    let FnEmitter {
        values,
        vars,
        params,
        frames,
        carry,
        ..
    } = fe;
    *kept = FnBuffers {
        param_tys,
        values,
        vars,
        params,
        frames,
        carry,
    };
    Ok(())
}

impl FnEmitter<'_, '_> {
    pub fn value(&self, v: ValueId) -> Word {
        self.values[v.0 as usize]
    }

    fn seq(&mut self, nodes: &[Node]) -> EmitResult<()> {
        for n in nodes {
            if self.done {
                // Unreachable: nothing can branch into a node after a terminator.
                return Ok(());
            }
            self.node(n)?;
        }
        Ok(())
    }

    fn begin(&mut self, label: Word) {
        self.e.body.inst(Op::Label, None, Some(label), []);
        self.done = false;
    }

    fn branch(&mut self, target: Word) {
        self.e.op_void(Op::Branch, [target]);
        self.done = true;
    }

    fn node(&mut self, n: &Node) -> EmitResult<()> {
        match n {
            Node::Code(b) => {
                let insts = &self.f.block(*b).insts;
                // Most IR instructions become one SPIR-V instruction: grow the block once.
                self.e.body.reserve(insts.len());
                for inst in insts {
                    self.inst(inst)?;
                }
                Ok(())
            }
            Node::If { cond, then, else_ } => {
                if then.is_empty() && else_.is_empty() {
                    return Ok(());
                }
                let c = self.value(*cond);
                let empty = [then.is_empty(), else_.is_empty()];
                let m = self.carry.mark();
                self.selection_of(
                    c,
                    empty,
                    |fe| fe.seq(then),
                    |fe| {
                        fe.carry.restore(m);
                        fe.seq(else_)
                    },
                )?;
                self.carry.join(m);
                Ok(())
            }
            Node::Switch {
                value,
                cases,
                default,
            } => {
                let m = self.carry.mark();
                self.switch(*value, 0, cases, default, m)?;
                self.carry.join(m);
                Ok(())
            }
            Node::Block(body) => match body.split_first() {
                Some((Node::Loop(inner), rest)) => self.loop_then_rest(inner, rest),
                _ => self.construct(Kind::Block, body),
            },
            Node::Loop(body) => self.construct(Kind::Loop, body),
            Node::Branch(d) => self.tree_branch(*d),
            Node::Return(vals) => {
                match vals.len() {
                    0 => self.e.op_void(Op::Return, []),
                    1 => {
                        let v = self.value(vals[0]);
                        self.e.op_void(Op::ReturnValue, [v]);
                    }
                    _ => {
                        let ret_ty = self.struct_of_returns();
                        let parts: Vec<Word> = vals.iter().map(|v| self.value(*v)).collect();
                        let s = self.e.op_n(Op::CompositeConstruct, ret_ty, &parts);
                        self.e.op_void(Op::ReturnValue, [s]);
                    }
                }
                self.done = true;
                Ok(())
            }
            Node::Exit => {
                // In the kernel's own body `exit` ends the invocation like `ret`.
                self.e.op_void(Op::Return, []);
                self.done = true;
                Ok(())
            }
            Node::Unreachable => {
                self.e.op_void(Op::Unreachable, []);
                self.done = true;
                Ok(())
            }
        }
    }

    fn struct_of_returns(&mut self) -> Word {
        let members: Vec<Word> = self.f.returns.iter().map(|t| self.e.ty(*t)).collect();
        self.e.struct_of(&members)
    }

    /// `if (c) { then } else { else_ }` as a selection construct.
    fn selection(
        &mut self,
        c: Word,
        then: impl FnOnce(&mut Self) -> EmitResult<()>,
        else_: impl FnOnce(&mut Self) -> EmitResult<()>,
    ) -> EmitResult<()> {
        self.selection_of(c, [false; 2], then, else_)
    }

    /// [`FnEmitter::selection`] where an arm known to be `empty` branches to the merge block
    /// directly instead of through a block of its own.
    fn selection_of(
        &mut self,
        c: Word,
        empty: [bool; 2],
        then: impl FnOnce(&mut Self) -> EmitResult<()>,
        else_: impl FnOnce(&mut Self) -> EmitResult<()>,
    ) -> EmitResult<()> {
        let t = (!empty[0]).then(|| self.e.b.id());
        let e = (!empty[1]).then(|| self.e.b.id());
        let m = self.e.b.id();
        self.e
            .op_void(Op::SelectionMerge, [m, SelectionControl::NONE.bits()]);
        let (tl, el) = (t.unwrap_or(m), e.unwrap_or(m));
        self.e.op_void(Op::BranchConditional, [c, tl, el]);
        // An empty arm reaches the merge.
        let mut reached = t.is_none() || e.is_none();
        if let Some(t) = t {
            self.begin(t);
            then(self)?;
            if !self.done {
                self.branch(m);
                reached = true;
            }
        }
        if let Some(e) = e {
            self.begin(e);
            else_(self)?;
            if !self.done {
                self.branch(m);
                reached = true;
            }
        }
        self.begin(m);
        if !reached {
            // Nothing reaches the merge block.
            self.e.op_void(Op::Unreachable, []);
            self.done = true;
        }
        Ok(())
    }

    /// A switch as a chain of `if (value == k)`.
    fn switch(
        &mut self,
        value: ValueId,
        k: usize,
        cases: &[Vec<Node>],
        default: &[Node],
        m: Mark,
    ) -> EmitResult<()> {
        // Each case starts from what held before the switch.
        self.carry.restore(m);
        if k == cases.len() {
            return self.seq(default);
        }
        let v = self.value(value);
        let ty = self.f.ty(value);
        let kc = self.e.konst(ty, k as u64);
        let bool_t = self.e.ty(Ty::Bool);
        let c = self.e.op(Op::IEqual, bool_t, [v, kc]);
        self.selection(
            c,
            |fe| fe.seq(&cases[k]),
            |fe| fe.switch(value, k + 1, cases, default, m),
        )
    }

    fn construct(&mut self, kind: Kind, body: &[Node]) -> EmitResult<()> {
        let (header, merge, cont) = self.open_loop();
        self.frames.push(Frame {
            kind,
            merge,
            cont,
            reach: None,
        });
        let m = match kind {
            Kind::Block => self.carry.mark(),
            Kind::Loop => self.carry.enter_loop(self.f, body),
        };
        self.seq(body)?;
        match kind {
            Kind::Block => self.carry.join(m),
            Kind::Loop => self.carry.leave_loop(m),
        }
        // Falling off the end leaves either kind of construct.
        if !self.done {
            self.branch(merge);
        }
        let reach = self.frames.pop().and_then(|f| f.reach);
        self.close_loop(header, merge, cont);
        if let Some(r) = reach {
            self.forward_pending(r)?;
        }
        Ok(())
    }

    /// `Block([Loop(inner), rest..])` as one loop construct: the loop's continue target is
    /// the continue target of `inner`, its merge the block's; falling off `inner` runs `rest`
    /// inside the construct and then leaves it. Two frames share the construct (the loop's
    /// directly above the block's, see [`Self::loop_half`]), so a branch to the block from
    /// directly inside `inner` is a break (`tree_branch`), and one from a construct nested in
    /// `inner` is forwarded to the loop's frame and becomes a break there (`forward_pending`).
    fn loop_then_rest(&mut self, inner: &[Node], rest: &[Node]) -> EmitResult<()> {
        let block_mark = self.carry.mark();
        let (header, merge, cont) = self.open_loop();
        for kind in [Kind::Block, Kind::Loop] {
            self.frames.push(Frame {
                kind,
                merge,
                cont,
                reach: None,
            });
        }
        let loop_mark = self.carry.enter_loop(self.f, inner);
        self.seq(inner)?;
        self.carry.leave_loop(loop_mark);
        let in_loop = self.frames.pop().and_then(|f| f.reach);
        self.seq(rest)?;
        if !self.done {
            self.branch(merge);
        }
        let in_block = self.frames.pop().and_then(|f| f.reach);
        self.close_loop(header, merge, cont);
        self.carry.join(block_mark);
        // Only branches to frames outside the block are still in flight here.
        if let Some(r) = in_loop.into_iter().chain(in_block).min() {
            self.forward_pending(r)?;
        }
        Ok(())
    }

    /// Frame `i` is the loop half of a `loop_then_rest` construct, whose block half is frame
    /// `i - 1`.
    fn loop_half(&self, i: usize) -> bool {
        i > 0
            && i < self.frames.len()
            && self.frames[i].kind == Kind::Loop
            && self.frames[i - 1].merge == self.frames[i].merge
    }

    /// Starts a loop construct (its header with the merge declaration, then its first block)
    /// and returns its header, merge and continue target.
    fn open_loop(&mut self) -> (Word, Word, Word) {
        let header = self.e.b.id();
        let start = self.e.b.id();
        let merge = self.e.b.id();
        let cont = self.e.b.id();
        self.branch(header);
        self.begin(header);
        self.e
            .op_void(Op::LoopMerge, [merge, cont, LoopControl::NONE.bits()]);
        self.branch(start);
        self.begin(start);
        (header, merge, cont)
    }

    /// Ends what [`Self::open_loop`] started: the continue target's back edge, then the merge.
    fn close_loop(&mut self, header: Word, merge: Word, cont: Word) {
        self.begin(cont);
        self.branch(header);
        self.begin(merge);
    }

    fn pending_var(&mut self) -> Word {
        if let Some(v) = self.pending {
            return v;
        }
        // Function variables must be declared in the first block.
        let t = self.e.ty(Ty::I32);
        let pt = self.e.ptr(StorageClass::Function, t);
        let zero = self.e.u32_const(0);
        let var = self.e.b.id();
        self.e
            .body
            .var(pt, var, &[StorageClass::Function as Word, zero], true);
        self.e.b.name(var, "ptxvk.branch_target");
        self.pending = Some(var);
        var
    }

    /// The tree's `Branch(d)`.
    fn tree_branch(&mut self, d: u32) -> EmitResult<()> {
        let n = self.frames.len();
        let target = n - 1 - d as usize;
        if d == 0 {
            let f = &self.frames[target];
            let to = if f.kind == Kind::Block {
                f.merge
            } else {
                f.cont
            };
            self.branch(to);
            return Ok(());
        }
        // A branch to the block half of a `loop_then_rest` construct leaves the constructs
        // nested in its loop half and then breaks the one construct; the loop half's merge
        // (the block's) is not passed by it.
        let first = if self.loop_half(target + 1) {
            target + 2
        } else {
            target + 1
        };
        if first == n {
            // From directly inside the loop half.
            let merge = self.frames[target].merge;
            self.branch(merge);
            return Ok(());
        }
        let var = self.pending_var();
        let code = self.e.u32_const(target as u32 + 1);
        self.e.store(var, code, None);
        for f in &mut self.frames[first..] {
            f.reach = Some(f.reach.map_or(target, |r| r.min(target)));
        }
        let merge = self.frames[n - 1].merge;
        self.branch(merge);
        Ok(())
    }

    /// After a construct's merge, where multi-level branches to frames from `reach` on may be
    /// in flight: take one here when this is its target, else break out of the enclosing
    /// construct too.
    fn forward_pending(&mut self, reach: usize) -> EmitResult<()> {
        let Some(parent) = self.frames.len().checked_sub(1) else {
            return Ok(());
        };
        let var = self.pending_var();
        let u32t = self.e.ty(Ty::I32);
        let bool_t = self.e.ty(Ty::Bool);
        let p = self.e.load(u32t, var, None);
        let zero = self.e.u32_const(0);
        let active = self.e.op(Op::INotEqual, bool_t, [p, zero]);
        let here_code = self.e.u32_const(parent as u32 + 1);
        let (kind, merge, cont) = {
            let f = &self.frames[parent];
            (f.kind, f.merge, f.cont)
        };
        let take = move |fe: &mut Self| {
            fe.e.store(var, zero, None);
            fe.branch(if kind == Kind::Block { merge } else { cont });
            Ok(())
        };
        self.selection(
            active,
            |fe| {
                if reach >= parent {
                    // Only this frame's own code can be in flight.
                    return take(fe);
                }
                let here = fe.e.op(Op::IEqual, bool_t, [p, here_code]);
                fe.selection(here, take, |fe| fe.leave_for(parent, reach, p))
            },
            |_| Ok(()),
        )
    }

    /// A multi-level branch in flight past frame `parent` (its code `p`, targeting a frame
    /// from `reach` on): break out of the construct. When `parent` is the loop half of a
    /// `loop_then_rest` construct, that break is also a branch to its block half, which ends
    /// the branch there: its code is cleared, so the code after the construct need not test
    /// for it, and does not at all when no branch goes further out.
    fn leave_for(&mut self, parent: usize, reach: usize, p: Word) -> EmitResult<()> {
        let merge = self.frames[parent].merge;
        if self.loop_half(parent) {
            let block = parent - 1;
            let var = self.pending_var();
            let zero = self.e.u32_const(0);
            if reach >= block {
                self.e.store(var, zero, None);
            } else {
                let u32t = self.e.ty(Ty::I32);
                let bool_t = self.e.ty(Ty::Bool);
                let block_code = self.e.u32_const(block as u32 + 1);
                let to_block = self.e.op(Op::IEqual, bool_t, [p, block_code]);
                let left = self.e.op(Op::Select, u32t, [to_block, zero, p]);
                self.e.store(var, left, None);
                self.mark_reach(parent, reach);
            }
        } else {
            self.mark_reach(parent, reach);
        }
        self.branch(merge);
        Ok(())
    }

    fn mark_reach(&mut self, frame: usize, reach: usize) {
        let f = &mut self.frames[frame];
        f.reach = Some(f.reach.map_or(reach, |r| r.min(reach)));
    }
}
