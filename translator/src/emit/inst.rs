//! IR instructions to SPIR-V instructions.
//!
//! Memory operands (pointers, access masks, scopes, semantics) live in `inst/memory.rs`,
//! arithmetic in `inst/arith.rs`.

mod arith;
mod memory;

use rspirv::spirv::{self, Capability, Decoration, Op as S, Word};

use self::arith::ext_opcode;
use self::memory::{atomic_semantics, barrier_semantics, memory_access};
use super::func::FnEmitter;
use super::module::EmitResult;
use crate::ir::{AtomicOp, ConvOp, Inst, Op, Ordering, Ty, UnOp};

impl FnEmitter<'_, '_> {
    pub(super) fn inst(&mut self, inst: &Inst) -> EmitResult<()> {
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
            Op::LoadVar(v) => self.load_var(*v, result_ty),
            Op::StoreVar(v, val) => {
                let val = self.value(*val);
                self.store_var(*v, val);
                return Ok(());
            }
            Op::Un(op, a) => {
                let a = self.value(*a);
                let code = match op {
                    UnOp::INeg => S::SNegate,
                    UnOp::Not if rty == Some(Ty::Bool) => S::LogicalNot,
                    UnOp::Not => S::Not,
                    UnOp::FNeg => S::FNegate,
                    UnOp::IsNan => S::IsNan,
                    UnOp::IsInf => S::IsInf,
                    UnOp::BitCount => S::BitCount,
                    UnOp::BitReverse => S::BitReverse,
                };
                self.e.op(code, result_ty, [a])
            }
            Op::Bin(op, a, b, flags) => {
                let operand_ty = self.f.ty(*a);
                let (a, b) = (self.value(*a), self.value(*b));
                self.binary(*op, result_ty, operand_ty, a, b, *flags)
            }
            Op::Select(c, a, b) => {
                let (c, a, b) = (self.value(*c), self.value(*a), self.value(*b));
                self.e.op(S::Select, result_ty, [c, a, b])
            }
            Op::Conv(op, v) => {
                let from = self.f.ty(*v);
                let v = self.value(*v);
                let code = match op {
                    // A float `+0.0` immediate as the float constant, which `zero_operand` knows.
                    ConvOp::Bitcast
                        if matches!(
                            (from, rty),
                            (Ty::I32, Some(Ty::F32)) | (Ty::I64, Some(Ty::F64))
                        ) && v == self.e.konst(from, 0) =>
                    {
                        let z = self.e.konst(rty.unwrap_or(Ty::F32), 0);
                        self.set(inst, z);
                        return Ok(());
                    }
                    ConvOp::Bitcast => S::Bitcast,
                    ConvOp::ZExt | ConvOp::Trunc => S::UConvert,
                    // Sign extension as a shift pair: Mesa 22.3 (lavapipe) narrows a comparison
                    // of an `OpSConvert` result with a constant into an unsigned comparison of
                    // the narrow value (`sext(-5) < 5` is false), see
                    // docs/decisions/0077-lavapipe-sign-extension.md.
                    ConvOp::SExt if rty.is_some_and(|t| t.bits() > from.bits()) => {
                        let to = rty.unwrap_or(Ty::I64);
                        let wide = self.e.op(S::UConvert, result_ty, [v]);
                        let s = self.e.konst(to, u64::from(to.bits() - from.bits()));
                        let up = self.e.op(S::ShiftLeftLogical, result_ty, [wide, s]);
                        let r = self.e.op(S::ShiftRightArithmetic, result_ty, [up, s]);
                        self.set(inst, r);
                        return Ok(());
                    }
                    ConvOp::SExt => S::SConvert,
                    ConvOp::FToU => S::ConvertFToU,
                    ConvOp::FToS => S::ConvertFToS,
                    ConvOp::UToF => S::ConvertUToF,
                    ConvOp::SToF => S::ConvertSToF,
                    ConvOp::FConvert => {
                        // Exact: without NoContraction Mesa 25's compiler takes a widening of a
                        // narrowed value for the value itself, skipping the rounding that
                        // chained emulated f32 fmas rely on (runtime/tests/kernels.rs).
                        let id = self.e.op(S::FConvert, result_ty, [v]);
                        self.e.b.decorate(id, Decoration::NoContraction, []);
                        self.set(inst, id);
                        return Ok(());
                    }
                    ConvOp::BoolToInt => {
                        let t = rty.unwrap_or(Ty::I32);
                        let one = self.e.konst(t, 1);
                        let zero = self.e.konst(t, 0);
                        let r = self.e.op(S::Select, result_ty, [v, one, zero]);
                        self.set(inst, r);
                        return Ok(());
                    }
                };
                self.e.op(code, result_ty, [v])
            }
            Op::Ext(op, args, flags) => {
                let mut ops = Vec::with_capacity(2 + args.len());
                ops.push(self.e.glsl);
                ops.push(ext_opcode(*op) as u32);
                ops.extend(args.iter().map(|a| self.value(*a)));
                let id = self.e.op_n(S::ExtInst, result_ty, &ops);
                if flags.exact {
                    self.e.b.decorate(id, Decoration::NoContraction, []);
                }
                id
            }
            Op::Builtin(which) => self.e.builtin(*which),
            Op::Param(n) => self.params[*n as usize],
            Op::Load { ptr, align, order } => {
                self.storage_caps(ptr, rty.unwrap_or(Ty::I32));
                let p = self.pointer(ptr, result_ty);
                let access = memory_access(ptr, *align, *order, self.e.shared_spilled);
                self.e.load(result_ty, p, access)
            }
            Op::Store {
                ptr,
                value,
                align,
                order,
            } => {
                let vty = self.f.ty(*value);
                self.storage_caps(ptr, vty);
                let vt = self.e.ty(vty);
                let p = self.pointer(ptr, vt);
                let v = self.value(*value);
                let access = memory_access(ptr, *align, *order, self.e.shared_spilled);
                self.e.store(p, v, access);
                return Ok(());
            }
            Op::Atomic {
                op,
                ptr,
                value,
                scope,
                sem,
            } => {
                let (vt, p) = self.atomic_target(ptr, self.f.ty(*value));
                let v = self.value(*value);
                let (sc, sem) = self.atomic_order(ptr, *scope, *sem);
                let code = match op {
                    AtomicOp::Add => S::AtomicIAdd,
                    AtomicOp::And => S::AtomicAnd,
                    AtomicOp::Or => S::AtomicOr,
                    AtomicOp::Xor => S::AtomicXor,
                    AtomicOp::Exchange => S::AtomicExchange,
                    AtomicOp::UMin => S::AtomicUMin,
                    AtomicOp::UMax => S::AtomicUMax,
                    AtomicOp::SMin => S::AtomicSMin,
                    AtomicOp::SMax => S::AtomicSMax,
                    AtomicOp::FAdd => {
                        self.e.cap(Capability::AtomicFloat32AddEXT);
                        self.e.b.extension("SPV_EXT_shader_atomic_float_add");
                        S::AtomicFAddEXT
                    }
                };
                self.e.op(code, vt, [p, sc, sem, v])
            }
            Op::AtomicCas {
                ptr,
                compare,
                value,
                scope,
                sem,
            } => {
                let (vt, p) = self.atomic_target(ptr, self.f.ty(*value));
                let (c, v) = (self.value(*compare), self.value(*value));
                let (sc, eq) = self.atomic_order(ptr, *scope, *sem);
                // The failure ordering may not include release.
                let fail_sem = match sem {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    _ => Ordering::Acquire,
                };
                let fail = atomic_semantics(ptr, fail_sem, self.e.shared_spilled);
                let ne = self.e.u32_const(fail.bits());
                self.e
                    .op(S::AtomicCompareExchange, vt, [p, sc, eq, ne, v, c])
            }
            Op::AtomicLoad { ptr, scope, sem } => {
                let (t, p) = self.atomic_target(ptr, rty.unwrap_or(Ty::I32));
                let (sc, s) = self.atomic_order(ptr, *scope, *sem);
                self.e.op(S::AtomicLoad, t, [p, sc, s])
            }
            Op::AtomicStore {
                ptr,
                value,
                scope,
                sem,
            } => {
                let (_, p) = self.atomic_target(ptr, self.f.ty(*value));
                let (sc, s) = self.atomic_order(ptr, *scope, *sem);
                let v = self.value(*value);
                self.e.op_void(S::AtomicStore, [p, sc, s, v]);
                return Ok(());
            }
            Op::Warp(op, args) => {
                let arg_tys: Vec<Ty> = args.iter().map(|a| self.f.ty(*a)).collect();
                let args: Vec<Word> = args.iter().map(|a| self.value(*a)).collect();
                match self.warp(*op, &args, &arg_tys, result_ty)? {
                    Some(id) => id,
                    None => return Ok(()),
                }
            }
            Op::Barrier | Op::BarrierArrive => {
                let wg = self.e.u32_const(spirv::Scope::Workgroup as u32);
                let sem = self.e.u32_const(barrier_semantics().bits());
                self.e.op_void(S::ControlBarrier, [wg, wg, sem]);
                return Ok(());
            }
            Op::Fence(scope) => {
                let sc = self.ordered_scope(*scope, Ordering::AcqRel);
                let sem = self.e.u32_const(barrier_semantics().bits());
                self.e.op_void(S::MemoryBarrier, [sc, sem]);
                return Ok(());
            }
            Op::Call(c) => {
                let crate::ir::Call {
                    func,
                    args,
                    results,
                    ..
                } = self.f.side.call(*c);
                let callee = self.fn_ids[func.0 as usize];
                let mut ops = Vec::with_capacity(1 + args.len());
                ops.push(callee);
                ops.extend(args.iter().map(|a| self.value(*a)));
                let ret_ty = |fe: &mut Self, v: &crate::ir::VarId| {
                    let t = fe.f.vars[v.0 as usize].ty;
                    fe.e.ty(t)
                };
                let ret = match results.as_slice() {
                    [] => self.e.void(),
                    [v] => ret_ty(self, v),
                    _ => {
                        let m: Vec<Word> = results.iter().map(|v| ret_ty(self, v)).collect();
                        self.e.struct_of(&m)
                    }
                };
                let r = self.e.op_n(S::FunctionCall, ret, &ops);
                if results.len() == 1 {
                    self.store_var(results[0], r);
                } else {
                    for (i, v) in results.iter().enumerate() {
                        let t = ret_ty(self, v);
                        let part = self.e.extract(t, r, i as u32);
                        self.store_var(*v, part);
                    }
                }
                return Ok(());
            }
            Op::BitExtract {
                signed,
                base,
                offset,
                count,
            } => {
                let (b, o, c) = (self.value(*base), self.value(*offset), self.value(*count));
                let code = if *signed {
                    S::BitFieldSExtract
                } else {
                    S::BitFieldUExtract
                };
                self.e.op(code, result_ty, [b, o, c])
            }
            Op::BitInsert {
                base,
                insert,
                offset,
                count,
            } => {
                let (b, i) = (self.value(*base), self.value(*insert));
                let (o, c) = (self.value(*offset), self.value(*count));
                self.e.op(S::BitFieldInsert, result_ty, [b, i, o, c])
            }
            // Textures.
            Op::Texture(t) => {
                self.texture(self.f.side.tex(*t))?;
                return Ok(());
            }
        };
        self.set(inst, id);
        Ok(())
    }

    fn set(&mut self, inst: &Inst, id: Word) {
        if let Some(r) = inst.result {
            self.values[r.0 as usize] = id;
        }
    }
}
