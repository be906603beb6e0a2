//! The operands of generated code: values a block already has, variables' loads and constants,
//! and the small helpers every instruction goes through.

use super::{Gen, LOCAL_WORDS};
use crate::ir::{BinOp, BlockId, FpFlags, MemOrder, Op, Ptr, Ty, ValueId, VarId};

impl Gen<'_> {
    /// Word `w` of this function's local array.
    pub(super) fn word(&mut self, b: BlockId, w: u32) -> ValueId {
        let at = self.me * LOCAL_WORDS + w;
        self.f.push(b, Ty::I32, Op::Const(u64::from(at)))
    }

    pub(super) fn bin(&mut self, b: BlockId, ty: Ty, op: BinOp, x: ValueId, y: ValueId) -> ValueId {
        self.f.push(b, ty, Op::Bin(op, x, y, FpFlags::default()))
    }

    pub(super) fn store(&mut self, ptr: Ptr, value: ValueId, b: BlockId) {
        self.f.push_void(
            b,
            Op::Store {
                ptr,
                value,
                align: 4,
                order: MemOrder::Plain,
            },
        );
    }

    /// A value of type `t` in block `b`: one the block has, a variable, or a constant.
    pub(super) fn value_of(&mut self, b: BlockId, t: Ty) -> ValueId {
        let have: Vec<ValueId> = self
            .have
            .iter()
            .copied()
            .filter(|&v| self.f.ty(v) == t)
            .collect();
        let v = match self.rng.pick(3) {
            0 if !have.is_empty() => have[self.rng.pick(have.len())],
            1 => {
                let of: Vec<VarId> = self
                    .vars
                    .iter()
                    .copied()
                    .filter(|v| self.f.vars[v.0 as usize].ty == t)
                    .collect();
                if of.is_empty() || b == self.f.entry {
                    self.constant(b, t)
                } else {
                    let v = of[self.rng.pick(of.len())];
                    self.f.push(b, t, Op::LoadVar(v))
                }
            }
            _ => self.constant(b, t),
        };
        self.have.push(v);
        v
    }

    pub(super) fn constant(&mut self, b: BlockId, t: Ty) -> ValueId {
        let bits = match t {
            Ty::F32 => [
                0x3F80_0000u64,
                0xC040_0000,
                0x7F80_0000,
                0x0000_0001,
                0x4B00_0001,
            ][self.rng.pick(5)],
            Ty::F64 => [
                0x3FF0_0000_0000_0000u64,
                0xBFE8_0000_0000_0000,
                0x7FF8_0000_0000_0000,
            ][self.rng.pick(3)],
            _ => [0, 1, 5, u64::MAX, 0x8000_0000, self.rng.bits()][self.rng.pick(6)],
        };
        let bits = if t.bits() < 64 {
            bits & ((1 << t.bits()) - 1)
        } else {
            bits
        };
        self.f.push(b, t, Op::Const(bits))
    }

    /// A data-dependent `Bool`.
    pub(super) fn condition(&mut self, b: BlockId) -> ValueId {
        use BinOp::*;
        let t = [Ty::I32, Ty::I64, Ty::F32][self.rng.pick(3)];
        let (x, y) = (self.value_of(b, t), self.value_of(b, t));
        let op = if t.is_float() {
            [FOrdLt, FOrdEq, FUnordGe, FUnordNe][self.rng.pick(4)]
        } else {
            [IEq, INe, ULt, UGe, SLt, SGe][self.rng.pick(6)]
        };
        self.bin(b, Ty::Bool, op, x, y)
    }

    /// A value of `t` made in `b` itself (a constant or a variable's load).
    pub(super) fn value_of_fresh(&mut self, b: BlockId, t: Ty) -> ValueId {
        if self.rng.chance(50) {
            self.constant(b, t)
        } else {
            let v = self.vars[3 + self.rng.pick(2)];
            self.f.push(b, t, Op::LoadVar(v))
        }
    }
}
