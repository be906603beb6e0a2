//! PTX operands: reading a source operand as the instruction's type and writing a destination,
//! applying the conversions the checker recorded. A source may be a special register or the
//! address of a variable, so this sits above the families that lower those.

use super::cx::Cx;
use super::{data, special};
use crate::check::{Conv, Dst, Src};
use crate::ir::build::Build;
use crate::ir::{ConvOp, Op, Ty, UnOp, ValueId};
use crate::types::ScalarType;

impl Cx<'_> {
    /// The value of a source operand, as instruction type `ty`.
    pub fn read(&mut self, src: &Src, ty: ScalarType) -> ValueId {
        let want = Ty::of(ty);
        match src {
            Src::Reg {
                reg, comp, conv, ..
            } => {
                let var = self.reg_var(*reg, *comp);
                let v = self.b.load_var(var);
                match conv {
                    Conv::Chop => {
                        // Keep the low bits (Table 27), then read them as the instruction type.
                        let i = self.b.as_int(v);
                        let t = self.b.conv(ConvOp::Trunc, i, Ty::int(want.bits().max(8)));
                        self.b.reinterpret(t, want)
                    }
                    _ => self.b.reinterpret(v, want),
                }
            }
            Src::Imm(bits) => self.b.konst(want, *bits),
            Src::Special(s, comp) => {
                let v = special::read(self, *s, *comp);
                if want == Ty::Bool {
                    return v;
                }
                let t = if want.bits() < 32 {
                    self.b.conv(ConvOp::Trunc, v, Ty::int(want.bits()))
                } else {
                    v
                };
                self.b.reinterpret(t, want)
            }
            Src::AddressOf(a) => {
                let (var, off) = **a;
                let a = data::address_of(self, var, off);
                let a = if want.bits() < 64 {
                    self.b.conv(ConvOp::Trunc, a, Ty::int(want.bits()))
                } else {
                    a
                };
                self.b.reinterpret(a, want)
            }
            Src::NotPred(inner) => {
                let v = self.read(inner, ty);
                self.b.un(UnOp::Not, v)
            }
            Src::Vector(_) => {
                self.unsupported("a vector operand here");
                self.b.konst(want, 0)
            }
            // Front end: function addresses.
            Src::FuncAddr(f) => {
                let a = self.b.konst(Ty::I64, f.address());
                let a = if want.bits() < 64 {
                    self.b.conv(ConvOp::Trunc, a, Ty::int(want.bits()))
                } else {
                    a
                };
                self.b.reinterpret(a, want)
            }
        }
    }

    /// Stores `v` into a destination operand, converted to the register's type as the operand
    /// says.
    pub fn write(&mut self, dst: &Dst, v: ValueId) {
        match dst {
            Dst::Sink => {}
            Dst::Reg {
                reg,
                comp,
                conv,
                ty: rty,
            } => {
                let var = self.reg_var(*reg, *comp);
                let vty = self.b.f.vars[var.0 as usize].ty;
                let v = match conv {
                    Conv::Zext | Conv::Sext => {
                        let i = self.b.as_int(v);
                        let wide = Ty::int(rty.bits());
                        #[cfg(feature = "fault-injection")]
                        let conv = &if crate::fault::active(crate::fault::Fault::ZeroExtendSigned) {
                            Conv::Zext
                        } else {
                            *conv
                        };
                        let op = if *conv == Conv::Sext {
                            ConvOp::SExt
                        } else {
                            ConvOp::ZExt
                        };
                        let e = self.b.conv(op, i, wide);
                        if *rty == ScalarType::B128 {
                            self.write_high_ext(*reg, *comp, e, *conv);
                        }
                        self.b.reinterpret(e, vty)
                    }
                    _ => self.b.reinterpret(v, vty),
                };
                self.b.emit_void(Op::StoreVar(var, v));
            }
            Dst::Vector(_) => self.unsupported("a vector destination here"),
        }
    }
}
