//! Constants, each declared once, the small ones cached by type and value.

use rspirv::spirv::{self, Word};

use super::{Emitter, SMALL};
use crate::ir::Ty;

impl Emitter {
    /// A constant of type `t` holding the low bits of `bits`.
    #[inline]
    pub fn konst(&mut self, t: Ty, bits: u64) -> Word {
        if bits < SMALL as u64 {
            let cached = self.small[t as usize][bits as usize];
            if cached != 0 {
                return cached;
            }
        }
        self.konst_slow(t, bits)
    }

    /// The constant of type `t` with these bits if one was declared (declares none).
    pub fn declared_konst(&self, t: Ty, bits: u64) -> Option<Word> {
        let id = if bits < SMALL as u64 {
            self.small[t as usize][bits as usize]
        } else {
            self.consts.get(&(t, bits)).copied().unwrap_or(0)
        };
        (id != 0).then_some(id)
    }

    fn konst_slow(&mut self, t: Ty, bits: u64) -> Word {
        let bits = if t.bits() >= 64 {
            bits
        } else {
            bits & ((1u64 << t.bits()) - 1)
        };
        let small = bits < SMALL as u64;
        let cached = if small {
            self.small[t as usize][bits as usize]
        } else {
            self.consts.get(&(t, bits)).copied().unwrap_or(0)
        };
        if cached != 0 {
            return cached;
        }
        let ty = self.ty(t);
        let id = self.b.id();
        match t {
            Ty::Bool if bits != 0 => self.b.global(spirv::Op::ConstantTrue, Some(ty), id, &[]),
            Ty::Bool => self.b.global(spirv::Op::ConstantFalse, Some(ty), id, &[]),
            // Wide literals: low-order word first (SPIR-V 1.6 section 2.2.1).
            Ty::I64 | Ty::F64 => {
                let words = [bits as u32, (bits >> 32) as u32];
                self.b.global(spirv::Op::Constant, Some(ty), id, &words)
            }
            _ => self
                .b
                .global(spirv::Op::Constant, Some(ty), id, &[bits as u32]),
        };
        if small {
            self.small[t as usize][bits as usize] = id;
        } else {
            self.consts.insert((t, bits), id);
        }
        id
    }

    pub fn u32_const(&mut self, v: u32) -> Word {
        self.konst(Ty::I32, u64::from(v))
    }
}
