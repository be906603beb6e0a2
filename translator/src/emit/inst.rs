//! IR instructions to SPIR-V instructions.

use rspirv::dr::Operand;
use rspirv::spirv::{
    self, Capability, Decoration, GlslStd450Op, MemoryAccess, MemorySemantics, StorageClass, Word,
};

use super::func::FnEmitter;
use super::{Access, R};
use crate::ir::{
    AtomicOp, BinOp, ConvOp, ExtOp, FpFlags, Inst, MemOrder, Op, Ordering, Ptr, Scope, Ty, UnOp,
};

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
                self.e.store(var, val, None)?;
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
                    UnOp::BitCount => b.bit_count(result_ty, None, a)?,
                    UnOp::BitReverse => b.bit_reverse(result_ty, None, a)?,
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
                    // Sign extension as a shift pair: Mesa 22.3 (lavapipe) narrows a comparison
                    // of an `OpSConvert` result with a constant into an unsigned comparison of
                    // the narrow value (`sext(-5) < 5` is false), see docs/decisions.md.
                    ConvOp::SExt if rty.is_some_and(|t| t.bits() > from.bits()) => {
                        let to = rty.unwrap_or(Ty::I64);
                        let wide = b.u_convert(result_ty, None, v)?;
                        let s = self.e.konst(to, u64::from(to.bits() - from.bits()));
                        let b = &mut self.e.b;
                        let up = b.shift_left_logical(result_ty, None, wide, s)?;
                        b.shift_right_arithmetic(result_ty, None, up, s)?
                    }
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
                let mut ops = Vec::with_capacity(2 + args.len());
                ops.push(Operand::IdRef(self.e.glsl));
                ops.push(Operand::LiteralExtInstInteger(ext_opcode(*op) as u32));
                ops.extend(args.iter().map(|a| Operand::IdRef(self.value(*a))));
                let id = self.e.append(spirv::Op::ExtInst, Some(result_ty), ops)?;
                if flags.exact {
                    self.e.b.decorate(id, Decoration::NoContraction, []);
                }
                id
            }
            Op::Builtin(which) => self.e.builtin(*which)?,
            Op::Param(n) => self.params[*n as usize],
            Op::Load { ptr, align, order } => {
                self.storage_caps(ptr, rty.unwrap_or(Ty::I32));
                let p = self.pointer(ptr, result_ty)?;
                let access = memory_access(ptr, *align, *order);
                self.e.load(result_ty, p, access)?
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
                let p = self.pointer(ptr, vt)?;
                let v = self.value(*value);
                self.e.store(p, v, memory_access(ptr, *align, *order))?;
                return Ok(());
            }
            Op::Atomic {
                op,
                ptr,
                value,
                scope,
                sem,
            } => {
                let vty = self.f.ty(*value);
                if vty.bits() == 64 {
                    self.e.cap(Capability::Int64Atomics);
                }
                let vt = self.e.ty(vty);
                let p = self.pointer(ptr, vt)?;
                let v = self.value(*value);
                let sc = self.ordered_scope(*scope, *sem);
                let sem = self.e.u32_const(atomic_semantics(ptr, *sem).bits());
                let b = &mut self.e.b;
                match op {
                    AtomicOp::Add => b.atomic_i_add(vt, None, p, sc, sem, v)?,
                    AtomicOp::And => b.atomic_and(vt, None, p, sc, sem, v)?,
                    AtomicOp::Or => b.atomic_or(vt, None, p, sc, sem, v)?,
                    AtomicOp::Xor => b.atomic_xor(vt, None, p, sc, sem, v)?,
                    AtomicOp::Exchange => b.atomic_exchange(vt, None, p, sc, sem, v)?,
                    AtomicOp::UMin => b.atomic_u_min(vt, None, p, sc, sem, v)?,
                    AtomicOp::UMax => b.atomic_u_max(vt, None, p, sc, sem, v)?,
                    AtomicOp::SMin => b.atomic_s_min(vt, None, p, sc, sem, v)?,
                    AtomicOp::SMax => b.atomic_s_max(vt, None, p, sc, sem, v)?,
                    AtomicOp::FAdd => {
                        self.e.cap(Capability::AtomicFloat32AddEXT);
                        self.e.b.extension("SPV_EXT_shader_atomic_float_add");
                        self.e.b.atomic_f_add_ext(vt, None, p, sc, sem, v)?
                    }
                }
            }
            Op::AtomicCas {
                ptr,
                compare,
                value,
                scope,
                sem,
            } => {
                let vty = self.f.ty(*value);
                if vty.bits() == 64 {
                    self.e.cap(Capability::Int64Atomics);
                }
                let vt = self.e.ty(vty);
                let p = self.pointer(ptr, vt)?;
                let (c, v) = (self.value(*compare), self.value(*value));
                let sc = self.ordered_scope(*scope, *sem);
                let eq = self.e.u32_const(atomic_semantics(ptr, *sem).bits());
                // The failure ordering may not include release.
                let fail_sem = match sem {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    _ => Ordering::Acquire,
                };
                let ne = self.e.u32_const(atomic_semantics(ptr, fail_sem).bits());
                self.e
                    .b
                    .atomic_compare_exchange(vt, None, p, sc, eq, ne, v, c)?
            }
            Op::AtomicLoad { ptr, scope, sem } => {
                let t = rty.unwrap_or(Ty::I32);
                if t.bits() == 64 {
                    self.e.cap(Capability::Int64Atomics);
                }
                let p = self.pointer(ptr, result_ty)?;
                let sc = self.ordered_scope(*scope, *sem);
                let s = self.e.u32_const(atomic_semantics(ptr, *sem).bits());
                self.e.b.atomic_load(result_ty, None, p, sc, s)?
            }
            Op::AtomicStore {
                ptr,
                value,
                scope,
                sem,
            } => {
                let vty = self.f.ty(*value);
                if vty.bits() == 64 {
                    self.e.cap(Capability::Int64Atomics);
                }
                let vt = self.e.ty(vty);
                let p = self.pointer(ptr, vt)?;
                let sc = self.ordered_scope(*scope, *sem);
                let s = self.e.u32_const(atomic_semantics(ptr, *sem).bits());
                let v = self.value(*value);
                self.e.b.atomic_store(p, sc, s, v)?;
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
            Op::Barrier => {
                let wg = self.e.u32_const(spirv::Scope::Workgroup as u32);
                let sem = self.e.u32_const(barrier_semantics().bits());
                self.e.b.control_barrier(wg, wg, sem)?;
                return Ok(());
            }
            Op::Fence(scope) => {
                let sc = self.ordered_scope(*scope, Ordering::AcqRel);
                let sem = self.e.u32_const(barrier_semantics().bits());
                self.e.b.memory_barrier(sc, sem)?;
                return Ok(());
            }
            Op::Call(c) => {
                let crate::ir::Call {
                    func,
                    args,
                    results,
                } = &**c;
                let callee = self.fn_ids[func.0 as usize];
                let mut ops = Vec::with_capacity(1 + args.len());
                ops.push(Operand::IdRef(callee));
                ops.extend(args.iter().map(|a| Operand::IdRef(self.value(*a))));
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
                let r = self.e.append(spirv::Op::FunctionCall, Some(ret), ops)?;
                if results.len() == 1 {
                    let var = self.vars[results[0].0 as usize];
                    self.e.store(var, r, None)?;
                } else {
                    for (i, v) in results.iter().enumerate() {
                        let t = ret_ty(self, v);
                        let part = self.e.extract(t, r, i as u32)?;
                        let var = self.vars[v.0 as usize];
                        self.e.store(var, part, None)?;
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
                if *signed {
                    self.e.b.bit_field_s_extract(result_ty, None, b, o, c)?
                } else {
                    self.e.b.bit_field_u_extract(result_ty, None, b, o, c)?
                }
            }
            Op::BitInsert {
                base,
                insert,
                offset,
                count,
            } => {
                let (b, i) = (self.value(*base), self.value(*insert));
                let (o, c) = (self.value(*offset), self.value(*count));
                self.e.b.bit_field_insert(result_ty, None, b, i, o, c)?
            }
            // --- textures ---
            Op::Texture(t) => {
                self.texture(t)?;
                return Ok(());
            }
        };
        if let Some(r) = inst.result {
            self.values[r.0 as usize] = id;
        }
        Ok(())
    }

    /// The scope operand of an ordered memory operation (see `widen_workgroup_fences`).
    fn ordered_scope(&mut self, scope: Scope, sem: Ordering) -> Word {
        let scope = if self.e.widen_workgroup_fences
            && sem != Ordering::Relaxed
            && scope == Scope::Workgroup
        {
            Scope::Device
        } else {
            scope
        };
        self.e.u32_const(scope_id(scope) as u32)
    }

    fn pointer(&mut self, ptr: &Ptr, pointee: Word) -> R<Word> {
        match ptr {
            Ptr::Global(addr) => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let a = self.value(*addr);
                Ok(self.e.b.convert_u_to_ptr(pt, None, a)?)
            }
            Ptr::Shared(idx) | Ptr::Local(idx) => {
                let (arena, sc) = if matches!(ptr, Ptr::Shared(_)) {
                    (self.e.shared_arena(), StorageClass::Workgroup)
                } else {
                    (self.e.local_arena(), StorageClass::Private)
                };
                let pt = self.e.ptr(sc, pointee);
                let i = self.value(*idx);
                self.e.access_chain(pt, arena, i)
            }
        }
    }

    /// 8- and 16-bit device-address accesses need the storage capabilities.
    fn storage_caps(&mut self, ptr: &Ptr, ty: Ty) {
        if matches!(ptr, Ptr::Global(_)) {
            match ty.bits() {
                8 => self.e.cap(Capability::StorageBuffer8BitAccess),
                16 => self.e.cap(Capability::StorageBuffer16BitAccess),
                _ => {}
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
                let st = self.e.struct_of(&[rt, rt]);
                let bl = &mut self.e.b;
                let both = if op == BinOp::UMulHi {
                    bl.u_mul_extended(st, None, a, b)?
                } else {
                    bl.s_mul_extended(st, None, a, b)?
                };
                self.e.extract(rt, both, 1)?
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

/// Memory operands: device-address accesses need `Aligned`; device and shared memory accesses are
/// `NonPrivatePointer` so that barriers and fences order them (Vulkan memory model). Local memory
/// is private to the invocation.
fn memory_access(ptr: &Ptr, align: u32, order: MemOrder) -> Option<Access> {
    let volatile = if order == MemOrder::Volatile {
        MemoryAccess::VOLATILE
    } else {
        MemoryAccess::NONE
    };
    match ptr {
        Ptr::Global(_) => Some(Access {
            mask: MemoryAccess::ALIGNED | MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: Some(align.max(1)),
        }),
        Ptr::Shared(_) => Some(Access {
            mask: MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: None,
        }),
        Ptr::Local(_) => None,
    }
}

/// PTX's `.gpu` and `.sys` scopes are the queue family's: every invocation of a dispatch is in one
/// queue family, and host visibility comes from coherent memory and queue submission. (Device
/// scope would also need the vulkanMemoryModelDeviceScope feature.)
fn scope_id(s: Scope) -> spirv::Scope {
    match s {
        Scope::Subgroup => spirv::Scope::Subgroup,
        Scope::Workgroup => spirv::Scope::Workgroup,
        Scope::Device => spirv::Scope::QueueFamily,
    }
}

/// Atomic semantics: the ordering, plus (when ordering) the storage class it orders and the
/// availability/visibility operations the Vulkan memory model needs for the plain accesses around.
fn atomic_semantics(ptr: &Ptr, sem: Ordering) -> MemorySemantics {
    let storage = match ptr {
        Ptr::Shared(_) => MemorySemantics::WORKGROUP_MEMORY,
        _ => MemorySemantics::UNIFORM_MEMORY,
    };
    match sem {
        Ordering::Relaxed => MemorySemantics::RELAXED,
        Ordering::Acquire => MemorySemantics::ACQUIRE | storage | MemorySemantics::MAKE_VISIBLE,
        Ordering::Release => MemorySemantics::RELEASE | storage | MemorySemantics::MAKE_AVAILABLE,
        Ordering::AcqRel => {
            MemorySemantics::ACQUIRE_RELEASE
                | storage
                | MemorySemantics::MAKE_AVAILABLE
                | MemorySemantics::MAKE_VISIBLE
        }
    }
}

/// Barriers and fences: acquire-release over shared and device memory, with the availability and
/// visibility operations the Vulkan memory model needs for plain (non-atomic) accesses.
fn barrier_semantics() -> MemorySemantics {
    MemorySemantics::ACQUIRE_RELEASE
        | MemorySemantics::WORKGROUP_MEMORY
        | MemorySemantics::UNIFORM_MEMORY
        | MemorySemantics::MAKE_AVAILABLE
        | MemorySemantics::MAKE_VISIBLE
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
        ExtOp::FindUMsb => GlslStd450Op::FindUMsb,
        ExtOp::FindSMsb => GlslStd450Op::FindSMsb,
    }
}
