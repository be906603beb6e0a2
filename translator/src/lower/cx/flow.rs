//! Building control flow between blocks: the shapes lowering makes over and over, each made
//! one way, so that the blocks a lowering creates, and their order, follow from the shape.

use super::Cx;
use crate::ir::{BinOp, BlockId, Op, Terminator, Ty, ValueId, VarId};

impl Cx<'_> {
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

    /// Runs `then` in a new block entered when `cond` holds, and continues in a new block
    /// after it, which `then`'s last block jumps to and the branch reaches when `cond` does not
    /// hold. The blocks are made in that order: `then`'s, then the join.
    pub fn if_then(&mut self, cond: ValueId, then: impl FnOnce(&mut Self)) {
        let (then_block, join) = (self.f.new_block(), self.f.new_block());
        self.branch(cond, then_block, join);
        self.cur = then_block;
        then(self);
        self.jump(join);
        self.cur = join;
    }

    /// A loop over a new i32 variable named `name` (which `body` is given) from 0 while it is
    /// below the value of `n` (unsigned), adding `step` after each trip; continues after the
    /// loop. The blocks are the head (the test), the body's first, and the exit, made in that
    /// order.
    pub fn counted_loop(
        &mut self,
        name: &'static str,
        n: VarId,
        step: u64,
        body: impl FnOnce(&mut Self, VarId),
    ) {
        let zero = self.konst(Ty::I32, 0);
        let i_var = self.f.new_var(Ty::I32, name);
        self.emit_void(Op::StoreVar(i_var, zero));
        let (head, first, exit) = (self.f.new_block(), self.f.new_block(), self.f.new_block());
        self.jump(head);
        self.cur = head;
        let i = self.emit(Ty::I32, Op::LoadVar(i_var));
        let end = self.emit(Ty::I32, Op::LoadVar(n));
        let more = self.bin(BinOp::ULt, i, end);
        self.branch(more, first, exit);
        self.cur = first;
        body(self, i_var);
        let i = self.emit(Ty::I32, Op::LoadVar(i_var));
        let step = self.konst(Ty::I32, step);
        let next = self.bin(BinOp::IAdd, i, step);
        self.emit_void(Op::StoreVar(i_var, next));
        self.jump(head);
        self.cur = exit;
    }
}
