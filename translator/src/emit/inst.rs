//! IR instructions to SPIR-V instructions.

use rspirv::spirv::{
    self, Capability, Decoration, GlslStd450Op, MemoryAccess, MemorySemantics, Op as S,
    StorageClass, Word,
};

use super::func::FnEmitter;
use super::module::{Access, EmitResult};
use crate::ir::{
    AtomicOp, BinOp, ConvOp, ExtOp, FpFlags, Inst, MemOrder, Op, Ordering, Ptr, Scope, Ty, UnOp,
};

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
            Op::Barrier => {
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

    /// An atomic operation's value type and pointer.
    fn atomic_target(&mut self, ptr: &Ptr, t: Ty) -> (Word, Word) {
        if t.bits() == 64 {
            self.e.cap(Capability::Int64Atomics);
        }
        let ty = self.e.ty(t);
        (ty, self.pointer(ptr, ty))
    }

    /// An atomic operation's scope and semantics operands.
    fn atomic_order(&mut self, ptr: &Ptr, scope: Scope, sem: Ordering) -> (Word, Word) {
        let sc = self.ordered_scope(scope, sem);
        let sem = atomic_semantics(ptr, sem, self.e.shared_spilled);
        (sc, self.e.u32_const(sem.bits()))
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

    fn pointer(&mut self, ptr: &Ptr, pointee: Word) -> Word {
        match ptr {
            Ptr::Global(addr) => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let a = self.value(*addr);
                self.e.op(S::ConvertUToPtr, pt, [a])
            }
            Ptr::Shared(idx) if self.e.shared_spilled => {
                let pt = self.e.ptr(StorageClass::PhysicalStorageBuffer, pointee);
                let i = self.value(*idx);
                self.e.spilled_word(pt, i)
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
    ) -> Word {
        if let Some(id) = self.zero_operand(op, rt, operand_ty, a, b) {
            return id;
        }
        let boolean = operand_ty == Ty::Bool;
        let code = match op {
            BinOp::IAdd => S::IAdd,
            BinOp::ISub => S::ISub,
            BinOp::IMul => S::IMul,
            BinOp::UDiv => S::UDiv,
            BinOp::SDiv => S::SDiv,
            BinOp::UMod => S::UMod,
            BinOp::Shl => S::ShiftLeftLogical,
            BinOp::LShr => S::ShiftRightLogical,
            BinOp::AShr => S::ShiftRightArithmetic,
            BinOp::And if boolean => S::LogicalAnd,
            BinOp::Or if boolean => S::LogicalOr,
            BinOp::Xor if boolean => S::LogicalNotEqual,
            BinOp::And => S::BitwiseAnd,
            BinOp::Or => S::BitwiseOr,
            BinOp::Xor => S::BitwiseXor,
            BinOp::UMulHi | BinOp::SMulHi => {
                let st = self.e.struct_of(&[rt, rt]);
                let code = if op == BinOp::UMulHi {
                    S::UMulExtended
                } else {
                    S::SMulExtended
                };
                let both = self.e.op(code, st, [a, b]);
                return self.e.extract(rt, both, 1);
            }
            BinOp::FAdd => S::FAdd,
            BinOp::FSub => S::FSub,
            BinOp::FMul => S::FMul,
            BinOp::FDiv => S::FDiv,
            BinOp::IEq if boolean => S::LogicalEqual,
            BinOp::INe if boolean => S::LogicalNotEqual,
            BinOp::IEq => S::IEqual,
            BinOp::INe => S::INotEqual,
            BinOp::ULt => S::ULessThan,
            BinOp::ULe => S::ULessThanEqual,
            BinOp::UGt => S::UGreaterThan,
            BinOp::UGe => S::UGreaterThanEqual,
            BinOp::SLt => S::SLessThan,
            BinOp::SLe => S::SLessThanEqual,
            BinOp::SGt => S::SGreaterThan,
            BinOp::SGe => S::SGreaterThanEqual,
            BinOp::FOrdEq => S::FOrdEqual,
            BinOp::FOrdNe => S::FOrdNotEqual,
            BinOp::FOrdLt => S::FOrdLessThan,
            BinOp::FOrdLe => S::FOrdLessThanEqual,
            BinOp::FOrdGt => S::FOrdGreaterThan,
            BinOp::FOrdGe => S::FOrdGreaterThanEqual,
            BinOp::FUnordEq => S::FUnordEqual,
            BinOp::FUnordNe => S::FUnordNotEqual,
            BinOp::FUnordLt => S::FUnordLessThan,
            BinOp::FUnordLe => S::FUnordLessThanEqual,
            BinOp::FUnordGt => S::FUnordGreaterThan,
            BinOp::FUnordGe => S::FUnordGreaterThanEqual,
        };
        let id = self.e.op(code, rt, [a, b]);
        // Every add, sub and mul is exact: Mesa folds `x - x`, `x + 0`, `x * 0` and `0 - -x`
        // of the others, wrong for infinities, NaNs and signed zeros (PTX only lets a driver
        // fuse them into fmas). docs/decisions/0192-float-arithmetic-is-exact.md.
        if matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul) || flags.exact && op == BinOp::FDiv
        {
            self.e.b.decorate(id, Decoration::NoContraction, []);
        }
        id
    }
}

impl FnEmitter<'_, '_> {
    /// An add, sub or mul with a constant zero operand, spelled without it. lavapipe's code
    /// builder takes `x + 0.0` for `x` and `x * 0.0` for `+0.0` whatever the float controls say,
    /// and Mesa's NIR rewrites `x - -0.0` to `x + 0.0` and `0.0 - x` to `-x`: wrong for signed
    /// zeros, infinities and NaNs (docs/decisions/0192-float-arithmetic-is-exact.md,
    /// docs/decisions/0198-signed-zero-inf-nan-preserve.md).
    fn zero_operand(&mut self, op: BinOp, rt: Word, ty: Ty, a: Word, b: Word) -> Option<Word> {
        let int = match ty {
            Ty::F32 => Ty::I32,
            Ty::F64 => Ty::I64,
            _ => return None,
        };
        if !matches!(op, BinOp::FAdd | BinOp::FSub | BinOp::FMul) {
            return None;
        }
        let sign_bit = 1u64 << (int.bits() - 1);
        let zero = self.e.konst(ty, 0);
        // (0 is no id: with no `-0.0` declared, no operand is one.)
        let neg_zero = self.e.declared_konst(ty, sign_bit).unwrap_or(0);
        let is_zero = |w: Word| w == zero || w == neg_zero;
        if !is_zero(a) && !is_zero(b) {
            return None;
        }
        let bool_ty = self.e.ty(Ty::Bool);
        // `+0.0` for a zero `x` (`-0.0 + 0.0` and `0.0 - 0.0` are `+0.0`), else `other`.
        let zero_or = |s: &mut Self, x: Word, other: Word| {
            let is_zero = s.e.op(S::FOrdEqual, bool_ty, [x, zero]);
            s.e.op(S::Select, rt, [is_zero, zero, other])
        };
        match op {
            // `x + -0.0` is `x` for every `x`.
            BinOp::FAdd if a == neg_zero => Some(b),
            BinOp::FAdd if b == neg_zero => Some(a),
            BinOp::FAdd => {
                let x = if a == zero { b } else { a };
                Some(zero_or(self, x, x))
            }
            // `x - 0.0` is `x + -0.0`; `x - -0.0` is `x + 0.0`.
            BinOp::FSub if b == zero => Some(a),
            BinOp::FSub if b == neg_zero => Some(zero_or(self, a, a)),
            BinOp::FSub => {
                let neg = self.e.op(S::FNegate, rt, [b]);
                // `-0.0 - x` is `-x` for every `x`.
                Some(if a == zero {
                    zero_or(self, b, neg)
                } else {
                    neg
                })
            }
            _ => {
                // `x - x` is `+0.0` for a finite `x` and NaN otherwise; the product's sign is
                // `x`'s, flipped by a `-0.0`.
                let (x, k) = if is_zero(a) { (b, a) } else { (a, b) };
                let diff = self.e.op(S::FSub, rt, [x, x]);
                self.e.b.decorate(diff, Decoration::NoContraction, []);
                let it = self.e.ty(int);
                let sign = self.e.konst(int, sign_bit);
                let xb = self.e.op(S::Bitcast, it, [x]);
                let db = self.e.op(S::Bitcast, it, [diff]);
                let mut xs = self.e.op(S::BitwiseAnd, it, [xb, sign]);
                if k == neg_zero {
                    xs = self.e.op(S::BitwiseXor, it, [xs, sign]);
                }
                let r = self.e.op(S::BitwiseOr, it, [db, xs]);
                Some(self.e.op(S::Bitcast, rt, [r]))
            }
        }
    }
}

/// Memory operands: device-address accesses need `Aligned`; device and shared memory accesses are
/// `NonPrivatePointer` so that barriers and fences order them (Vulkan memory model). Local memory
/// is private to the invocation. A spilled shared arena is device memory, so needs `Aligned` too
/// (its words are 4-byte aligned).
fn memory_access(ptr: &Ptr, align: u32, order: MemOrder, spilled: bool) -> Option<Access> {
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
        Ptr::Shared(_) if spilled => Some(Access {
            mask: MemoryAccess::ALIGNED | MemoryAccess::NON_PRIVATE_POINTER | volatile,
            align: Some(4),
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
/// A spilled shared arena is device memory (`UniformMemory`).
fn atomic_semantics(ptr: &Ptr, sem: Ordering, spilled: bool) -> MemorySemantics {
    let storage = match ptr {
        Ptr::Shared(_) if !spilled => MemorySemantics::WORKGROUP_MEMORY,
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
