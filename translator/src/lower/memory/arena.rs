//! The shared and local arenas are arrays of 32-bit words: accesses of other widths are made
//! of word accesses here, with atomics where another thread may write the same shared word.

use crate::ir::build::Build;
use crate::ir::{AtomicOp, BinOp, ConvOp, MemOrder, Op, Ptr, Scope, Ty, ValueId};
use crate::lower::cx::Cx;

impl Cx<'_> {
    fn arena_ptr(&self, shared: bool, idx: ValueId) -> Ptr {
        if shared {
            Ptr::Shared(idx)
        } else {
            Ptr::Local(idx)
        }
    }

    fn word_index(&mut self, off: ValueId, extra: u64) -> ValueId {
        let two = self.b.konst(Ty::I32, 2);
        let idx = self.b.bin(BinOp::LShr, off, two);
        if extra == 0 {
            return idx;
        }
        let e = self.b.konst(Ty::I32, extra);
        self.b.bin(BinOp::IAdd, idx, e)
    }

    fn load_word(&mut self, shared: bool, idx: ValueId, order: MemOrder) -> ValueId {
        let ptr = self.arena_ptr(shared, idx);
        self.b.emit(
            Ty::I32,
            Op::Load {
                ptr,
                align: 4,
                order,
            },
        )
    }

    pub(super) fn arena_load(
        &mut self,
        shared: bool,
        off: ValueId,
        ty: Ty,
        order: MemOrder,
    ) -> ValueId {
        match ty.bits() {
            64 => {
                let i0 = self.word_index(off, 0);
                let i1 = self.word_index(off, 1);
                let lo = self.load_word(shared, i0, order);
                let hi = self.load_word(shared, i1, order);
                let lo = self.b.conv(ConvOp::ZExt, lo, Ty::I64);
                let hi = self.b.conv(ConvOp::ZExt, hi, Ty::I64);
                let sh = self.b.konst(Ty::I64, 32);
                let hi = self.b.bin(BinOp::Shl, hi, sh);
                let w = self.b.bin(BinOp::Or, lo, hi);
                self.b.reinterpret(w, ty)
            }
            32 => {
                let i = self.word_index(off, 0);
                let w = self.load_word(shared, i, order);
                self.b.reinterpret(w, ty)
            }
            bits => {
                let i = self.word_index(off, 0);
                let w = self.load_word(shared, i, order);
                let shift = self.byte_shift(off);
                let v = self.b.bin(BinOp::LShr, w, shift);
                let v = self.b.conv(ConvOp::Trunc, v, Ty::int(bits.max(8)));
                self.b.reinterpret(v, ty)
            }
        }
    }

    /// `(off & 3) * 8`: where a byte or half-word sits in its word.
    fn byte_shift(&mut self, off: ValueId) -> ValueId {
        let three = self.b.konst(Ty::I32, 3);
        let b = self.b.bin(BinOp::And, off, three);
        self.b.bin(BinOp::Shl, b, three)
    }

    fn store_word(&mut self, shared: bool, idx: ValueId, v: ValueId, order: MemOrder) {
        let ptr = self.arena_ptr(shared, idx);
        self.b.emit_void(Op::Store {
            ptr,
            value: v,
            align: 4,
            order,
        });
    }

    pub(super) fn arena_store(&mut self, shared: bool, off: ValueId, v: ValueId, order: MemOrder) {
        let ty = self.b.f.ty(v);
        match ty.bits() {
            64 => {
                let w = self.b.as_int(v);
                let lo = self.b.conv(ConvOp::Trunc, w, Ty::I32);
                let sh = self.b.konst(Ty::I64, 32);
                let hi = self.b.bin(BinOp::LShr, w, sh);
                let hi = self.b.conv(ConvOp::Trunc, hi, Ty::I32);
                let i0 = self.word_index(off, 0);
                let i1 = self.word_index(off, 1);
                self.store_word(shared, i0, lo, order);
                self.store_word(shared, i1, hi, order);
            }
            32 => {
                let w = self.b.reinterpret(v, Ty::I32);
                let i = self.word_index(off, 0);
                self.store_word(shared, i, w, order);
            }
            bits => {
                // Part of a word: other threads may write the word's other bytes at the same
                // time, so shared memory uses atomic and/or (each touches only its own bits).
                let bits = bits.max(8);
                let v = self.b.as_int(v);
                let v = self.b.conv(ConvOp::ZExt, v, Ty::I32);
                let shift = self.byte_shift(off);
                let ones = self.b.konst(Ty::I32, (1u64 << bits) - 1);
                let mask = self.b.bin(BinOp::Shl, ones, shift);
                let keep = self.b.un(crate::ir::UnOp::Not, mask);
                let val = self.b.bin(BinOp::Shl, v, shift);
                let i = self.word_index(off, 0);
                if shared {
                    for (op, operand) in [(AtomicOp::And, keep), (AtomicOp::Or, val)] {
                        self.b.emit(
                            Ty::I32,
                            Op::Atomic {
                                op,
                                ptr: Ptr::Shared(i),
                                value: operand,
                                scope: Scope::Workgroup,
                                sem: crate::ir::Ordering::Relaxed,
                            },
                        );
                    }
                } else {
                    let w = self.load_word(false, i, order);
                    let w = self.b.bin(BinOp::And, w, keep);
                    let w = self.b.bin(BinOp::Or, w, val);
                    self.store_word(false, i, w, order);
                }
            }
        }
    }
}
