//! The pieces the rewrite is built from: fresh construct ids and state codes, blocks of straight
//! code that set or test the state, and values kept across blocks.

use super::labelled::Labelled;
use super::{RETURNED, Uniformizer};
use crate::ir::{BinOp, BlockId, FpFlags, Function, Op, Terminator, Ty, ValueId, VarId};

impl Uniformizer<'_> {
    pub(super) fn fresh_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id + 1_000_000
    }

    pub(super) fn fresh_code(&mut self) -> u64 {
        self.next_code += 1;
        self.next_code
    }

    /// A new block of straight-line code.
    pub(super) fn code(&mut self, build: impl FnOnce(&mut Function, BlockId)) -> Labelled {
        let b = self.f.new_block();
        build(self.f, b);
        // Its terminator is never used: the tree says where control goes.
        self.f.block_mut(b).term = Terminator::Unreachable;
        self.sync_blocks.push(false);
        Labelled::Code(b)
    }

    pub(super) fn contains_sync(&self, n: &Labelled) -> bool {
        match n {
            Labelled::Code(b) => self.sync_blocks.get(b.0 as usize).copied().unwrap_or(false),
            Labelled::If { then, else_, .. } => {
                then.iter().chain(else_).any(|n| self.contains_sync(n))
            }
            Labelled::Block(_, body) | Labelled::Loop(_, body) => {
                body.iter().any(|n| self.contains_sync(n))
            }
            Labelled::Switch { cases, default, .. } => cases
                .iter()
                .flatten()
                .chain(default)
                .any(|n| self.contains_sync(n)),
            _ => false,
        }
    }

    /// `st = select(st == from, to, st)` for each pair, in order.
    pub(super) fn transition(&mut self, pairs: &[(u64, u64)]) -> Labelled {
        let st = self.st;
        let pairs = pairs.to_vec();
        self.code(move |f, b| {
            let mut s = f.push(b, Ty::I32, Op::LoadVar(st));
            for (from, to) in pairs {
                let fc = f.push(b, Ty::I32, Op::Const(from));
                let tc = f.push(b, Ty::I32, Op::Const(to));
                let is = f.push(b, Ty::Bool, Op::Bin(BinOp::IEq, s, fc, FpFlags::default()));
                s = f.push(b, Ty::I32, Op::Select(is, tc, s));
            }
            f.push_void(b, Op::StoreVar(st, s));
        })
    }

    pub(super) fn last_value(&self, code: &Labelled) -> ValueId {
        match code {
            Labelled::Code(b) => self
                .f
                .block(*b)
                .insts
                .last()
                .and_then(|i| i.result)
                .unwrap_or(ValueId(0)),
            _ => ValueId(0),
        }
    }

    /// The state that means "waiting at construct `id`" for a branch to it.
    pub(super) fn target_code(&self, id: u32) -> u64 {
        self.cont_code
            .get(&id)
            .or_else(|| self.exit_code.get(&id))
            .copied()
            .unwrap_or(RETURNED)
    }

    pub(super) fn set_state(&mut self, code: u64) -> Labelled {
        let st = self.st;
        self.code(move |f, b| {
            let c = f.push(b, Ty::I32, Op::Const(code));
            f.push_void(b, Op::StoreVar(st, c));
        })
    }

    /// Keeps a value available after the block that defines it, in a new variable.
    pub(super) fn spill(&mut self, v: ValueId) -> VarId {
        let ty = self.f.ty(v);
        let var = self.f.new_var(ty, "simt.spill");
        if let Some(&Some(b)) = self.defs.get(v.0 as usize) {
            self.f.push_void(b, Op::StoreVar(var, v));
        }
        var
    }
}
