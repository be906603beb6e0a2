//! IR instructions to SPIR-V instructions.

use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, GlslStd450Op, MemoryAccess, StorageClass, Word};

use super::R;
use super::func::FnEmitter;
use crate::ir::{BinOp, ConvOp, ExtOp, FpFlags, Inst, MemOrder, Op, Ptr, Ty, UnOp};

impl FnEmitter<'_, '_> {
    pub(super) fn inst(&mut self, inst: &Inst) -> R<()> {
        let rty = inst.result.map(|r| self.f.ty(r));
        let result_ty = match rty {
            Some(t) => self.e.ty(t),
            None => 0,
        };
        let id = match &inst.op {
            Op::Const(bits) => {
                let t = rty.unwrap_or(Ty::I32);
                self.e.konst(t, *bits)
            }
            Op::LoadVar(v) => {
                let var = self.vars[v.0 as usize];
                self.e.load(result_ty, var, None)?
            }
            Op::StoreVar(v, val) => {
                let var = self.vars[v.0 as usize];
                let val = self.value(*val);
                self.e.b.store(var, val, None, [])?;
                return Ok(());
            }
            Op::Un(op, a) => {
                let a = self.value(*a);
                let b = &mut self.e.b;
                match op {
                    UnOp::INeg => b.s_negate(result_ty, None, a)?,
                    UnOp::Not if rty == Some(Ty::Bool) => b.logical_not(result_ty, None, a)?,
                    UnOp::Not => b.not(result_ty, None, a)?,
                    UnOp::FNeg => b.f_negate(result_ty, None, a)?,
                    UnOp::IsNan => b.is_nan(result_ty, None, a)?,
                    UnOp::IsInf => b.is_inf(result_ty, None, a)?,
                }
            }
            Op::Bin(op, a, b, flags) => {
                let operand_ty = self.f.ty(*a);
                let (a, b) = (self.value(*a), self.value(*b));
                self.binary(*op, result_ty, operand_ty, a, b, *flags)?
            }
            Op::Select(c, a, b) => {
                let (c, a, b) = (self.value(*c), self.value(*a), self.value(*b));
                self.e.b.select(result_ty, None, c, a, b)?
            }
            Op::Conv(op, v) => {
                let from = self.f.ty(*v);
                let v = self.value(*v);
                let b = &mut self.e.b;
                match op {
                    ConvOp::Bitcast => b.bitcast(result_ty, None, v)?,
                    ConvOp::ZExt | ConvOp::Trunc => b.u_convert(result_ty, None, v)?,
                    ConvOp::SExt => b.s_convert(result_ty, None, v)?,
                    ConvOp::FToU => b.convert_f_to_u(result_ty, None, v)?,
                    ConvOp::FToS => b.convert_f_to_s(result_ty, None, v)?,
                    ConvOp::UToF => b.convert_u_to_f(result_ty, None, v)?,
                    ConvOp::SToF => b.convert_s_to_f(result_ty, None, v)?,
                    ConvOp::FConvert => b.f_convert(result_ty, None, v)?,
                    ConvOp::BoolToInt => {
                        let _ = from;
                        let t = rty.unwrap_or(Ty::I32);
                        let one = self.e.konst(t, 1);
                        let zero = self.e.konst(t, 0);
                        self.e.b.select(result_ty, None, v, one, zero)?
                    }
                }
            }
            Op::Ext(op, args, flags) => {
                let args: Vec<Operand> = args
                    .iter()
                    .map(|a| Operand::IdRef(self.value(*a)))
                    .collect();
                let glsl = self.e.glsl;
                let id = self
                    .e
                    .b
                    .ext_inst(result_ty, None, glsl, ext_opcode(*op) as u32, args)?;
                if flags.exact {
                    self.e.b.decorate(id, Decoration::NoContraction, []);
                }
                id
            }
            Op::Builtin(which) => self.e.builtin(*which)?,
            Op::Param(n) => self.params[*n as usize],
            Op::Load { ptr, align, order } => {
                let p = self.pointer(ptr, result_ty)?;
                let access = memory_access(*align, *order);
                self.e.load(result_ty, p, Some(access))?
            }
            Op::Store {
                ptr,
                value,
                align,
                order,
            } => {
                let vty = self.f.ty(*value);
                let vt = self.e.ty(vty);
                let p = self.pointer(ptr, vt)?;
                let v = self.value(*value);
                let (mask, extra) = memory_access(*align, *order);
                self.e.b.store(p, v, Some(mask), extra)?;
                return Ok(());
            }
            Op::Call {
                func,
                args,
                results,
            } => {
                let callee = self.fn_ids[func.0 as usize];
                let args: Vec<Word> = args.iter().map(|a| self.value(*a)).collect();
                let ret_tys: Vec<Ty> = results
                    .iter()
                    .map(|v| self.f.vars[v.0 as usize].ty)
                    .collect();
                let ret = match ret_tys.len() {
                    0 => self.e.b.type_void(),
                    1 => self.e.ty(ret_tys[0]),
                    _ => {
                        let m: Vec<Word> = ret_tys.iter().map(|t| self.e.ty(*t)).collect();
                        self.e.b.type_struct(m)
                    }
                };
                let r = self.e.b.function_call(ret, None, callee, args)?;
                if ret_tys.len() == 1 {
                    let var = self.vars[results[0].0 as usize];
                    self.e.b.store(var, r, None, [])?;
                } else {
                    for (i, v) in results.iter().enumerate() {
                        let t = self.e.ty(ret_tys[i]);
                        let part = self.e.b.composite_extract(t, None, r, [i as u32])?;
                        let var = self.vars[v.0 as usize];
                        self.e.b.store(var, part, None, [])?;
                    }
                }
                return Ok(());
            }
        };
        if let Some(r) = inst.result {
            self.values[r.0 as usize] = id;
        }
        Ok(())
    }

    fn pointer(&mut self, ptr: &Ptr, pointee: Word) -> R<Word> {
        match ptr {
            Ptr::Global(addr) => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let a = self.value(*addr);
                self.e.b.convert_u_to_ptr(pt, None, a)
            }
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        rt: Word,
        operand_ty: Ty,
        a: Word,
        b: Word,
        flags: FpFlags,
    ) -> R<Word> {
        let bl = &mut self.e.b;
        let boolean = operand_ty == Ty::Bool;
        let id = match op {
            BinOp::IAdd => bl.i_add(rt, None, a, b)?,
            BinOp::ISub => bl.i_sub(rt, None, a, b)?,
            BinOp::IMul => bl.i_mul(rt, None, a, b)?,
            BinOp::UDiv => bl.u_div(rt, None, a, b)?,
            BinOp::SDiv => bl.s_div(rt, None, a, b)?,
            BinOp::UMod => bl.u_mod(rt, None, a, b)?,
            BinOp::SRem => bl.s_rem(rt, None, a, b)?,
            BinOp::Shl => bl.shift_left_logical(rt, None, a, b)?,
            BinOp::LShr => bl.shift_right_logical(rt, None, a, b)?,
            BinOp::AShr => bl.shift_right_arithmetic(rt, None, a, b)?,
            BinOp::And if boolean => bl.logical_and(rt, None, a, b)?,
            BinOp::Or if boolean => bl.logical_or(rt, None, a, b)?,
            BinOp::Xor if boolean => bl.logical_not_equal(rt, None, a, b)?,
            BinOp::And => bl.bitwise_and(rt, None, a, b)?,
            BinOp::Or => bl.bitwise_or(rt, None, a, b)?,
            BinOp::Xor => bl.bitwise_xor(rt, None, a, b)?,
            BinOp::UMulHi | BinOp::SMulHi => {
                let st = bl.type_struct([rt, rt]);
                let both = if op == BinOp::UMulHi {
                    bl.u_mul_extended(st, None, a, b)?
                } else {
                    bl.s_mul_extended(st, None, a, b)?
                };
                bl.composite_extract(rt, None, both, [1])?
            }
            BinOp::FAdd => bl.f_add(rt, None, a, b)?,
            BinOp::FSub => bl.f_sub(rt, None, a, b)?,
            BinOp::FMul => bl.f_mul(rt, None, a, b)?,
            BinOp::FDiv => bl.f_div(rt, None, a, b)?,
            BinOp::IEq if boolean => bl.logical_equal(rt, None, a, b)?,
            BinOp::INe if boolean => bl.logical_not_equal(rt, None, a, b)?,
            BinOp::IEq => bl.i_equal(rt, None, a, b)?,
            BinOp::INe => bl.i_not_equal(rt, None, a, b)?,
            BinOp::ULt => bl.u_less_than(rt, None, a, b)?,
            BinOp::ULe => bl.u_less_than_equal(rt, None, a, b)?,
            BinOp::UGt => bl.u_greater_than(rt, None, a, b)?,
            BinOp::UGe => bl.u_greater_than_equal(rt, None, a, b)?,
            BinOp::SLt => bl.s_less_than(rt, None, a, b)?,
            BinOp::SLe => bl.s_less_than_equal(rt, None, a, b)?,
            BinOp::SGt => bl.s_greater_than(rt, None, a, b)?,
            BinOp::SGe => bl.s_greater_than_equal(rt, None, a, b)?,
            BinOp::FOrdEq => bl.f_ord_equal(rt, None, a, b)?,
            BinOp::FOrdNe => bl.f_ord_not_equal(rt, None, a, b)?,
            BinOp::FOrdLt => bl.f_ord_less_than(rt, None, a, b)?,
            BinOp::FOrdLe => bl.f_ord_less_than_equal(rt, None, a, b)?,
            BinOp::FOrdGt => bl.f_ord_greater_than(rt, None, a, b)?,
            BinOp::FOrdGe => bl.f_ord_greater_than_equal(rt, None, a, b)?,
            BinOp::FUnordEq => bl.f_unord_equal(rt, None, a, b)?,
            BinOp::FUnordNe => bl.f_unord_not_equal(rt, None, a, b)?,
            BinOp::FUnordLt => bl.f_unord_less_than(rt, None, a, b)?,
            BinOp::FUnordLe => bl.f_unord_less_than_equal(rt, None, a, b)?,
            BinOp::FUnordGt => bl.f_unord_greater_than(rt, None, a, b)?,
            BinOp::FUnordGe => bl.f_unord_greater_than_equal(rt, None, a, b)?,
        };
        if flags.exact && matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv) {
            self.e.b.decorate(id, Decoration::NoContraction, []);
        }
        Ok(id)
    }
}

/// Memory operands for device-address accesses: always `Aligned` (required for
/// PhysicalStorageBuffer pointers) and `NonPrivatePointer` (so barriers and fences order them).
fn memory_access(align: u32, order: MemOrder) -> (MemoryAccess, Vec<Operand>) {
    let mut mask = MemoryAccess::ALIGNED | MemoryAccess::NON_PRIVATE_POINTER;
    if order == MemOrder::Volatile {
        mask |= MemoryAccess::VOLATILE;
    }
    (mask, vec![Operand::LiteralBit32(align.max(1))])
}

fn ext_opcode(op: ExtOp) -> GlslStd450Op {
    match op {
        ExtOp::Fma => GlslStd450Op::Fma,
        ExtOp::FAbs => GlslStd450Op::FAbs,
        ExtOp::SAbs => GlslStd450Op::SAbs,
        ExtOp::FMin => GlslStd450Op::FMin,
        ExtOp::FMax => GlslStd450Op::FMax,
        ExtOp::UMin => GlslStd450Op::UMin,
        ExtOp::UMax => GlslStd450Op::UMax,
        ExtOp::SMin => GlslStd450Op::SMin,
        ExtOp::SMax => GlslStd450Op::SMax,
        ExtOp::Sqrt => GlslStd450Op::Sqrt,
        ExtOp::InverseSqrt => GlslStd450Op::InverseSqrt,
        ExtOp::Sin => GlslStd450Op::Sin,
        ExtOp::Cos => GlslStd450Op::Cos,
        ExtOp::Exp2 => GlslStd450Op::Exp2,
        ExtOp::Log2 => GlslStd450Op::Log2,
        ExtOp::Floor => GlslStd450Op::Floor,
        ExtOp::Ceil => GlslStd450Op::Ceil,
        ExtOp::Trunc => GlslStd450Op::Trunc,
        ExtOp::RoundEven => GlslStd450Op::RoundEven,
    }
}
