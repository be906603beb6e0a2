//! `.b128` registers (ISA 5.2.1, PTX 8.3): two 64-bit variables, low half first. The low half is
//! the register's ordinary variable, so a narrower instruction reading it (Table 27's chop)
//! needs nothing special; the high half is kept beside it.

use super::cx::Cx;
use crate::ast::Component;
use crate::check::{Conv, Dst, RegId, Src};
use crate::ir::build::Build;
use crate::ir::{BinOp, Op, Ty, ValueId, VarId};
use crate::types::ScalarType;

/// Marks the high half in the register-variable map (component indices are 0-3).
const HIGH: u8 = 0x80;

impl Cx<'_> {
    fn reg_var_high(&mut self, reg: RegId, comp: Option<Component>) -> VarId {
        let key = (reg, HIGH | comp.map_or(0, |c| c.index() as u8));
        if let Some(v) = self.regs_high.get(&key) {
            return *v;
        }
        let name = format!("{}.hi", self.func.reg(reg).name);
        let v = self.b.f.new_var(Ty::I64, name);
        self.regs_high.insert(key, v);
        v
    }

    /// The value of a `.b128` source as (low, high) 64-bit halves. Constants are zero-extended
    /// (they have at most 64 bits).
    pub fn read_b128(&mut self, src: &Src) -> (ValueId, ValueId) {
        match src {
            Src::Reg {
                reg,
                comp,
                ty: ScalarType::B128,
                ..
            } => {
                let lo = self.reg_var(*reg, *comp);
                let hi = self.reg_var_high(*reg, *comp);
                let lo = self.b.emit(Ty::I64, Op::LoadVar(lo));
                let hi = self.b.emit(Ty::I64, Op::LoadVar(hi));
                (lo, hi)
            }
            other => {
                let lo = self.read(other, ScalarType::B64);
                let hi = self.b.konst(Ty::I64, 0);
                (lo, hi)
            }
        }
    }

    /// Writes a 128-bit value given as halves.
    pub fn write_b128(&mut self, dst: &Dst, lo: ValueId, hi: ValueId) {
        match dst {
            Dst::Reg {
                reg,
                comp,
                ty: ScalarType::B128,
                ..
            } => {
                let l = self.reg_var(*reg, *comp);
                let h = self.reg_var_high(*reg, *comp);
                self.b.emit_void(Op::StoreVar(l, lo));
                self.b.emit_void(Op::StoreVar(h, hi));
            }
            Dst::Sink => {}
            _ => self.unsupported("a .b128 value in a narrower register"),
        }
    }

    /// After a narrower instruction type's result `lo` (already extended to 64 bits) went into
    /// the low half of a `.b128` register: the high half per Table 28 (sign or zeros).
    pub(super) fn write_high_ext(
        &mut self,
        reg: RegId,
        comp: Option<Component>,
        lo: ValueId,
        conv: Conv,
    ) {
        let hi = if conv == Conv::Sext {
            let sh = self.b.konst(Ty::I64, 63);
            self.b.bin(BinOp::AShr, lo, sh)
        } else {
            self.b.konst(Ty::I64, 0)
        };
        let h = self.reg_var_high(reg, comp);
        self.b.emit_void(Op::StoreVar(h, hi));
    }
}
