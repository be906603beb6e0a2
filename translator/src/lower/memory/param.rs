//! `.param` variables of device functions and call sites live in word variables, not in
//! memory: their loads and stores pick and splice those words.

use crate::check::LocalId;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Op, Ty, ValueId, VarId};
use crate::lower::cx::Cx;

impl Cx<'_> {
    /// The word variable holding byte `off` of a `.param` variable (`None` past its end).
    fn param_word(&mut self, v: LocalId, off: u32) -> Option<crate::ir::VarId> {
        let words = param_words(self, v);
        let w = words.get((off / 4) as usize).copied();
        if w.is_none() {
            self.unsupported("an access past the end of a .param variable");
        }
        w
    }

    pub(super) fn param_load(&mut self, v: LocalId, off: u32, ty: Ty) -> ValueId {
        let Some(w0) = self.param_word(v, off) else {
            return self.b.konst(ty, 0);
        };
        let lo = self.b.emit(Ty::I32, Op::LoadVar(w0));
        let bits = match ty.bits() {
            64 => {
                let Some(w1) = self.param_word(v, off + 4) else {
                    return self.b.konst(ty, 0);
                };
                let hi = self.b.emit(Ty::I32, Op::LoadVar(w1));
                let lo = self.b.conv(ConvOp::ZExt, lo, Ty::I64);
                let hi = self.b.conv(ConvOp::ZExt, hi, Ty::I64);
                let sh = self.b.konst(Ty::I64, 32);
                let hi = self.b.bin(BinOp::Shl, hi, sh);
                self.b.bin(BinOp::Or, lo, hi)
            }
            32 => lo,
            n => {
                let sh = self.b.konst(Ty::I32, u64::from(off % 4 * 8));
                let v = self.b.bin(BinOp::LShr, lo, sh);
                self.b.conv(ConvOp::Trunc, v, Ty::int(n.max(8)))
            }
        };
        self.b.reinterpret(bits, ty)
    }

    pub(super) fn param_store(&mut self, var: LocalId, off: u32, v: ValueId) {
        let ty = self.b.f.ty(v);
        let Some(w0) = self.param_word(var, off) else {
            return;
        };
        let bits = self.b.as_int(v);
        match ty.bits() {
            64 => {
                let Some(w1) = self.param_word(var, off + 4) else {
                    return;
                };
                let lo = self.b.conv(ConvOp::Trunc, bits, Ty::I32);
                let sh = self.b.konst(Ty::I64, 32);
                let hi = self.b.bin(BinOp::LShr, bits, sh);
                let hi = self.b.conv(ConvOp::Trunc, hi, Ty::I32);
                self.b.emit_void(Op::StoreVar(w0, lo));
                self.b.emit_void(Op::StoreVar(w1, hi));
            }
            32 => self.b.emit_void(Op::StoreVar(w0, bits)),
            n => {
                let n = n.max(8);
                let shift = off % 4 * 8;
                let v32 = self.b.conv(ConvOp::ZExt, bits, Ty::I32);
                let sh = self.b.konst(Ty::I32, u64::from(shift));
                let v32 = self.b.bin(BinOp::Shl, v32, sh);
                let keep = self
                    .b
                    .konst(Ty::I32, !(((1u64 << n) - 1) << shift) & 0xFFFF_FFFF);
                let old = self.b.emit(Ty::I32, Op::LoadVar(w0));
                let old = self.b.bin(BinOp::And, old, keep);
                let new = self.b.bin(BinOp::Or, old, v32);
                self.b.emit_void(Op::StoreVar(w0, new));
            }
        }
    }
}

/// The word variables of `.param` variable `v` of the current function.
pub fn param_words(cx: &mut Cx<'_>, v: LocalId) -> smallvec::SmallVec<[VarId; 4]> {
    if let Some(w) = cx.param_words.get(&v) {
        return w.as_slice().into();
    }
    let var = cx.func.var(v);
    let n = var.size().div_ceil(4).max(1);
    let name = var.name.clone();
    let words: Vec<VarId> = (0..n)
        .map(|i| cx.b.f.new_var(Ty::I32, format!("{name}.w{i}")))
        .collect();
    let out = words.as_slice().into();
    cx.param_words.insert(v, words);
    out
}
