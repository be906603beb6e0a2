//! Random instructions: integer and float arithmetic, conversions, selects, variables, the
//! local array, global memory and calls, each defined for every input.

use super::{Gen, LOCAL_WORDS};
use crate::ir::{
    BinOp, BlockId, Call, ConvOp, ExtOp, FpFlags, FuncId, MemOrder, Op, Ptr, Ty, UnOp, ValueId,
};

impl Gen<'_> {
    /// One random instruction (a few, where operands need preparing) in block `b`.
    pub(super) fn inst(&mut self, b: BlockId) {
        let ints = [Ty::I32, Ty::I64];
        match self.rng.pick(14) {
            0 | 1 => {
                let t = ints[self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                use BinOp::*;
                let op = [IAdd, ISub, IMul, Xor, And, Or, UMulHi, SMulHi][self.rng.pick(8)];
                let r = self.bin(b, t, op, x, y);
                self.have.push(r);
            }
            2 => {
                // Shifts under the width, divisions by odd numbers.
                let t = ints[self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                use BinOp::*;
                let op = [Shl, LShr, AShr, UDiv, SDiv, UMod][self.rng.pick(6)];
                let m = if matches!(op, Shl | LShr | AShr) {
                    u64::from(t.bits() - 1)
                } else {
                    1
                };
                let m = self.f.push(b, t, Op::Const(m));
                let mop = if matches!(op, Shl | LShr | AShr) {
                    And
                } else {
                    Or
                };
                let y = self.bin(b, t, mop, y, m);
                let r = self.bin(b, t, op, x, y);
                self.have.push(r);
            }
            3 | 4 => {
                let t = [Ty::F32, Ty::F64][self.rng.pick(2)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                let r = match self.rng.pick(6) {
                    4 => {
                        let z = self.value_of(b, t);
                        self.f.push(
                            b,
                            t,
                            Op::Ext(ExtOp::Fma, [x, y, z].into(), FpFlags::default()),
                        )
                    }
                    5 => {
                        let e = [ExtOp::Sqrt, ExtOp::Floor, ExtOp::FAbs, ExtOp::RoundEven]
                            [self.rng.pick(4)];
                        self.f
                            .push(b, t, Op::Ext(e, [x].into(), FpFlags::default()))
                    }
                    k => {
                        let op = [BinOp::FAdd, BinOp::FSub, BinOp::FMul, BinOp::FDiv][k];
                        self.bin(b, t, op, x, y)
                    }
                };
                self.have.push(r);
            }
            5 => {
                let (from, to, op) = [
                    (Ty::I32, Ty::F32, ConvOp::Bitcast),
                    (Ty::F32, Ty::I32, ConvOp::Bitcast),
                    (Ty::I64, Ty::F64, ConvOp::Bitcast),
                    (Ty::F64, Ty::I64, ConvOp::Bitcast),
                    (Ty::I32, Ty::I64, ConvOp::ZExt),
                    (Ty::I32, Ty::I64, ConvOp::SExt),
                    (Ty::I64, Ty::I32, ConvOp::Trunc),
                    (Ty::I32, Ty::F32, ConvOp::SToF),
                    (Ty::I64, Ty::F64, ConvOp::UToF),
                    (Ty::F32, Ty::F64, ConvOp::FConvert),
                    (Ty::F64, Ty::F32, ConvOp::FConvert),
                ][self.rng.pick(11)];
                let x = self.value_of(b, from);
                let r = self.f.push(b, to, Op::Conv(op, x));
                self.have.push(r);
            }
            6 => {
                let c = self.condition(b);
                let t = [Ty::I32, Ty::I64, Ty::F32][self.rng.pick(3)];
                let (x, y) = (self.value_of(b, t), self.value_of(b, t));
                let r = self.f.push(b, t, Op::Select(c, x, y));
                self.have.push(r);
            }
            7 => {
                let t = ints[self.rng.pick(2)];
                let x = self.value_of(b, t);
                let r = match self.rng.pick(3) {
                    0 => self.f.push(b, t, Op::Un(UnOp::INeg, x)),
                    1 => self.f.push(b, t, Op::Un(UnOp::Not, x)),
                    _ => {
                        let y = self.value_of(b, t);
                        let e = [ExtOp::UMin, ExtOp::SMax][self.rng.pick(2)];
                        self.f
                            .push(b, t, Op::Ext(e, [x, y].into(), FpFlags::default()))
                    }
                };
                self.have.push(r);
            }
            8 | 9 => {
                let v = self.vars[self.rng.pick(self.vars.len())];
                let t = self.f.vars[v.0 as usize].ty;
                let x = self.value_of(b, t);
                self.f.push_void(b, Op::StoreVar(v, x));
            }
            10 => {
                // The local array at a computed index.
                let i = self.value_of(b, Ty::I32);
                let m = self
                    .f
                    .push(b, Ty::I32, Op::Const(u64::from(LOCAL_WORDS - 1)));
                let i = self.bin(b, Ty::I32, BinOp::And, i, m);
                let base = self
                    .f
                    .push(b, Ty::I32, Op::Const(u64::from(self.me * LOCAL_WORDS)));
                let at = self.bin(b, Ty::I32, BinOp::IAdd, i, base);
                let t = [Ty::I32, Ty::F32][self.rng.pick(2)];
                if self.rng.chance(50) {
                    let x = self.value_of(b, t);
                    self.store(Ptr::Local(at), x, b);
                } else {
                    let r = self.f.push(
                        b,
                        t,
                        Op::Load {
                            ptr: Ptr::Local(at),
                            align: 4,
                            order: MemOrder::Plain,
                        },
                    );
                    self.have.push(r);
                }
            }
            11 => {
                // A global store or load at one of a few addresses.
                let at = 0x800 + 8 * self.rng.pick(4) as u64;
                let a = self.global(b, at);
                let t = ints[self.rng.pick(2)];
                if self.rng.chance(50) {
                    let x = self.value_of(b, t);
                    self.store(Ptr::Global(a), x, b);
                } else {
                    let order = [MemOrder::Plain, MemOrder::Volatile][self.rng.pick(2)];
                    let r = self.f.push(
                        b,
                        t,
                        Op::Load {
                            ptr: Ptr::Global(a),
                            align: 8,
                            order,
                        },
                    );
                    self.have.push(r);
                }
            }
            12 => self.call(b),
            _ => {
                // Results made observable mid-way.
                if let Some(&v) = self.have.last() {
                    let at = 0x900 + 8 * self.rng.pick(8) as u64;
                    let a = self.global(b, at);
                    self.store(Ptr::Global(a), v, b);
                }
            }
        }
    }

    /// A call of a later function, or of this one with one less depth (recursive functions).
    pub(super) fn call(&mut self, b: BlockId) {
        let callee = if self.recursive {
            self.me
        } else if self.me + 1 < self.count {
            self.me + 1 + self.rng.pick((self.count - self.me - 1) as usize) as u32
        } else {
            return;
        };
        if self.calls_left == 0 {
            return;
        }
        self.calls_left -= 1;
        let first = match self.depth {
            // One less deep: the entry of a recursive function skips its body at depth 0.
            Some(d) => {
                let left = self.f.push(b, Ty::I32, Op::LoadVar(d));
                let one = self.f.push(b, Ty::I32, Op::Const(1));
                self.bin(b, Ty::I32, BinOp::ISub, left, one)
            }
            None => self.value_of(b, Ty::I32),
        };
        self.emit_call(b, callee, first);
    }

    fn emit_call(&mut self, b: BlockId, callee: u32, first: ValueId) {
        let second = self.value_of_fresh(b, Ty::I64);
        let result = self.vars[self.rng.pick(3)];
        let c = self.f.side.add_call(Call {
            func: FuncId(callee),
            args: vec![first, second],
            results: vec![result],
            pure: false,
        });
        self.f.push_void(b, Op::Call(c));
    }
}
