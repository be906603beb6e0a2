//! Building control flow between blocks: the shapes lowering makes over and over, each made
//! one way, so that the blocks a shape creates, and their order, follow from the shape.
//!
//! Ending a block (`terminate`, `branch`, `jump`, `jump_to_new_block`) is the builder's own.
//! The shapes with a body (`if_then`, `if_else`, `counted_loop`) are [`Flow`]'s, for anything
//! that holds a builder: a body runs with its caller's context (lowering's reads registers and
//! reports diagnostics), and the shape moves only that context's builder.

use super::{Build, Builder};
use crate::ir::{BinOp, BlockId, Op, Terminator, Ty, ValueId, VarId};

impl Builder {
    /// Ends the current block with `term` and continues in a new (possibly unreachable) block.
    pub fn terminate(&mut self, term: Terminator) -> BlockId {
        self.f.block_mut(self.cur).term = term;
        let next = self.f.new_block();
        self.cur = next;
        next
    }

    /// Ends the current block with a branch on `cond` to `then` or `else_`.
    pub fn branch(&mut self, cond: ValueId, then: BlockId, else_: BlockId) {
        self.f.block_mut(self.cur).term = Terminator::Branch { cond, then, else_ };
    }

    /// Ends the current block with a jump to `to`.
    pub fn jump(&mut self, to: BlockId) {
        self.f.block_mut(self.cur).term = Terminator::Jump(to);
    }

    /// Ends the current block with a jump to a new one and continues there: for what must
    /// stand in a block of its own (warp operations, barriers), or a loop's head.
    pub fn jump_to_new_block(&mut self) -> BlockId {
        let next = self.f.new_block();
        self.jump(next);
        self.cur = next;
        next
    }
}

/// The control-flow shapes with a body, for a context `Self` that holds a builder.
pub trait Flow: AsMut<Builder> + Sized {
    /// Runs `then` in a new block entered when `cond` holds, and continues in a new block
    /// after it, which `then`'s last block jumps to and the branch reaches when `cond` does not
    /// hold. The blocks are made in that order: `then`'s, then the join.
    fn if_then(&mut self, cond: ValueId, then: impl FnOnce(&mut Self)) {
        let b = self.as_mut();
        let (then_block, join) = (b.f.new_block(), b.f.new_block());
        b.branch(cond, then_block, join);
        b.cur = then_block;
        then(self);
        let b = self.as_mut();
        b.jump(join);
        b.cur = join;
    }

    /// Runs `then` in a new block entered when `cond` holds and `else_` in one entered when it
    /// does not, and continues in a new block after both, which their last blocks jump to. The
    /// blocks are made in that order: `then`'s, `else_`'s, then the join; `then` is built
    /// first.
    fn if_else(
        &mut self,
        cond: ValueId,
        then: impl FnOnce(&mut Self),
        else_: impl FnOnce(&mut Self),
    ) {
        let b = self.as_mut();
        let (then_block, else_block, join) = (b.f.new_block(), b.f.new_block(), b.f.new_block());
        b.branch(cond, then_block, else_block);
        b.cur = then_block;
        then(self);
        let b = self.as_mut();
        b.jump(join);
        b.cur = else_block;
        else_(self);
        let b = self.as_mut();
        b.jump(join);
        b.cur = join;
    }

    /// A loop over a new i32 variable named `name` (which `body` is given) from 0 while it is
    /// below the value of `n` (unsigned), adding `step` after each trip; continues after the
    /// loop. The blocks are the head (the test), the body's first, and the exit, made in that
    /// order.
    fn counted_loop(
        &mut self,
        name: &'static str,
        n: VarId,
        step: u64,
        body: impl FnOnce(&mut Self, VarId),
    ) {
        let b = self.as_mut();
        let zero = b.konst(Ty::I32, 0);
        let i_var = b.f.new_var(Ty::I32, name);
        b.emit_void(Op::StoreVar(i_var, zero));
        let (head, first, exit) = (b.f.new_block(), b.f.new_block(), b.f.new_block());
        b.jump(head);
        b.cur = head;
        let i = b.emit(Ty::I32, Op::LoadVar(i_var));
        let end = b.emit(Ty::I32, Op::LoadVar(n));
        let more = b.bin(BinOp::ULt, i, end);
        b.branch(more, first, exit);
        b.cur = first;
        body(self, i_var);
        let b = self.as_mut();
        let i = b.emit(Ty::I32, Op::LoadVar(i_var));
        let step = b.konst(Ty::I32, step);
        let next = b.bin(BinOp::IAdd, i, step);
        b.emit_void(Op::StoreVar(i_var, next));
        b.jump(head);
        b.cur = exit;
    }
}

impl<T: AsMut<Builder>> Flow for T {}
