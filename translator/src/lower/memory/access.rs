//! Loads and stores through a resolved address: each space's own access, and for a generic
//! address a run-time dispatch to all three, so instructions need not care which they got.

use super::Where;
use crate::ir::build::Build;
use crate::ir::{BinOp, Builtin, ConvOp, MemOrder, Op, Ptr, Scope, Terminator, Ty, ValueId};
use crate::lower::cx::Cx;
use crate::types::StateSpace;

impl Cx<'_> {
    /// Loads a value of type `ty`.
    pub fn load(&mut self, at: Where, ty: Ty, order: MemOrder) -> ValueId {
        if let Where::Global(a) = at
            && order == MemOrder::Plain
            && self.b.cur != self.b.f.entry
            && let Some(offset) = self.constant_param_offset(a, ty.bits().div_ceil(8))
        {
            return self.entry_param_load(offset, ty);
        }
        let at = self.checked(at, ty.bits().div_ceil(8), "load");
        match at {
            Where::Global(a) => self.b.emit(
                ty,
                Op::Load {
                    ptr: Ptr::Global(a),
                    align: ty.bits().div_ceil(8),
                    order,
                },
            ),
            Where::Shared(o) => self.arena_load(true, o, ty, order),
            Where::Local(o) => self.arena_load(false, o, ty, order),
            Where::ParamVar(v, o) => self.param_load(v, o, ty),
            Where::Generic(a) => {
                let result = self.b.f.new_var(ty, "generic.load");
                self.generic_dispatch(a, |cx, w| {
                    let v = cx.load(w, ty, order);
                    cx.b.emit_void(Op::StoreVar(result, v));
                });
                self.b.emit(ty, Op::LoadVar(result))
            }
        }
    }

    /// The offset of a read of `bytes` bytes at address `a` when `a` is a kernel parameter at a
    /// constant offset wholly inside the parameter block (see `resolve`).
    fn constant_param_offset(&self, a: ValueId, bytes: u32) -> Option<u64> {
        let (at, offset) = self.param_access?;
        (at == a && offset + u64::from(bytes) <= u64::from(self.param_block)).then_some(offset)
    }

    /// A kernel parameter read in the kernel's entry block. Parameters are read-only (PTX ISA,
    /// "Kernel Function Parameters") and the whole block is always readable, so the read may
    /// move there. Drivers that run lanes together on a SIMD unit (lavapipe) read a uniform
    /// address once only where every lane is known to be active, outside any branch; inside
    /// one, each parameter becomes a gather of the same address for every lane.
    fn entry_param_load(&mut self, offset: u64, ty: Ty) -> ValueId {
        self.need_ty(ty);
        let entry = self.b.f.entry;
        let base = self
            .b
            .f
            .push(entry, Ty::I64, Op::Builtin(Builtin::ParamBase));
        let a = if offset == 0 {
            base
        } else {
            let off = self.b.f.push(entry, Ty::I64, Op::Const(offset));
            self.b.f.push(
                entry,
                Ty::I64,
                Op::Bin(BinOp::IAdd, base, off, Default::default()),
            )
        };
        self.b.f.push(
            entry,
            ty,
            Op::Load {
                ptr: Ptr::Global(a),
                align: ty.bits().div_ceil(8),
                order: MemOrder::Plain,
            },
        )
    }

    /// Stores `v`.
    pub fn store(&mut self, at: Where, v: ValueId, order: MemOrder) {
        let bytes = self.b.f.ty(v).bits().div_ceil(8);
        let at = self.checked(at, bytes, "store");
        match at {
            Where::Global(a) => {
                let ty = self.b.f.ty(v);
                self.b.emit_void(Op::Store {
                    ptr: Ptr::Global(a),
                    value: v,
                    align: ty.bits().div_ceil(8),
                    order,
                });
            }
            Where::Shared(o) => self.arena_store(true, o, v, order),
            Where::Local(o) => self.arena_store(false, o, v, order),
            Where::ParamVar(var, o) => self.param_store(var, o, v),
            Where::Generic(a) => self.generic_dispatch(a, |cx, w| cx.store(w, v, order)),
        }
    }

    /// An atomic load (`ld.relaxed/.acquire/.volatile` of one 32- or 64-bit value).
    pub fn atomic_load(
        &mut self,
        at: Where,
        ty: Ty,
        scope: Scope,
        sem: crate::ir::Ordering,
    ) -> ValueId {
        let ity = Ty::int(ty.bits());
        // Other places go through `load`/`store`, which check them.
        let at = match at {
            Where::Global(_) => self.checked(at, ty.bits() / 8, "load"),
            Where::Shared(_) if ty.bits() == 32 => self.checked(at, 4, "load"),
            _ => at,
        };
        match at {
            Where::Global(a) => {
                let v = self.b.emit(
                    ity,
                    Op::AtomicLoad {
                        ptr: Ptr::Global(a),
                        scope,
                        sem,
                    },
                );
                self.b.reinterpret(v, ty)
            }
            Where::Shared(o) if ty.bits() == 32 => {
                let two = self.b.konst(Ty::I32, 2);
                let idx = self.b.bin(BinOp::LShr, o, two);
                let v = self.b.emit(
                    ity,
                    Op::AtomicLoad {
                        ptr: Ptr::Shared(idx),
                        scope: Scope::Workgroup.min_with(scope),
                        sem,
                    },
                );
                self.b.reinterpret(v, ty)
            }
            Where::Generic(a) => {
                let result = self.b.f.new_var(ty, "generic.load");
                self.generic_dispatch(a, |cx, w| {
                    let v = cx.atomic_load(w, ty, scope, sem);
                    cx.b.emit_void(Op::StoreVar(result, v));
                });
                self.b.emit(ty, Op::LoadVar(result))
            }
            // 64-bit shared words, local and parameter memory: a plain access ordered by a fence.
            other => {
                let v = self.load(other, ty, Default::default());
                if sem != crate::ir::Ordering::Relaxed {
                    self.b.emit_void(Op::Fence(scope));
                }
                v
            }
        }
    }

    /// An atomic store (`st.relaxed/.release/.volatile` of one 32- or 64-bit value).
    pub fn atomic_store(&mut self, at: Where, v: ValueId, scope: Scope, sem: crate::ir::Ordering) {
        let ty = self.b.f.ty(v);
        let ity = Ty::int(ty.bits());
        // Other places go through `load`/`store`, which check them.
        let at = match at {
            Where::Global(_) => self.checked(at, ty.bits() / 8, "store"),
            Where::Shared(_) if ty.bits() == 32 => self.checked(at, 4, "store"),
            _ => at,
        };
        match at {
            Where::Global(a) => {
                let value = self.b.reinterpret(v, ity);
                self.b.emit_void(Op::AtomicStore {
                    ptr: Ptr::Global(a),
                    value,
                    scope,
                    sem,
                });
            }
            Where::Shared(o) if ty.bits() == 32 => {
                let two = self.b.konst(Ty::I32, 2);
                let idx = self.b.bin(BinOp::LShr, o, two);
                let value = self.b.reinterpret(v, ity);
                self.b.emit_void(Op::AtomicStore {
                    ptr: Ptr::Shared(idx),
                    value,
                    scope: Scope::Workgroup.min_with(scope),
                    sem,
                });
            }
            Where::Generic(a) => {
                let var = self.b.f.new_var(ty, "generic.store");
                self.b.emit_void(Op::StoreVar(var, v));
                self.generic_dispatch(a, |cx, w| {
                    let v = cx.b.emit(ty, Op::LoadVar(var));
                    cx.atomic_store(w, v, scope, sem);
                });
            }
            other => {
                if sem != crate::ir::Ordering::Relaxed {
                    self.b.emit_void(Op::Fence(scope));
                }
                self.store(other, v, Default::default());
            }
        }
    }

    /// Runs `body` for the space a generic address turns out to be in: three blocks joined after.
    pub fn generic_dispatch(&mut self, a: ValueId, mut body: impl FnMut(&mut Self, Where)) {
        // Values are local to their block, so the address travels to the others in a var.
        let a_var = self.b.f.new_var(Ty::I64, "generic.addr");
        self.b.emit_void(Op::StoreVar(a_var, a));
        let is_shared = self.in_window(StateSpace::Shared, a);
        let (sh, not_sh, loc, glob, join) = (
            self.b.f.new_block(),
            self.b.f.new_block(),
            self.b.f.new_block(),
            self.b.f.new_block(),
            self.b.f.new_block(),
        );
        self.b.f.block_mut(self.b.cur).term = Terminator::Branch {
            cond: is_shared,
            then: sh,
            else_: not_sh,
        };
        self.b.cur = not_sh;
        let a2 = self.b.emit(Ty::I64, Op::LoadVar(a_var));
        let is_local = self.in_window(StateSpace::Local, a2);
        self.b.f.block_mut(not_sh).term = Terminator::Branch {
            cond: is_local,
            then: loc,
            else_: glob,
        };
        for (block, kind) in [(sh, 0u8), (loc, 1), (glob, 2)] {
            self.b.cur = block;
            let a = self.b.emit(Ty::I64, Op::LoadVar(a_var));
            let w = match kind {
                0 => Where::Shared(self.b.conv(ConvOp::Trunc, a, Ty::I32)),
                1 => Where::Local(self.b.conv(ConvOp::Trunc, a, Ty::I32)),
                _ => Where::Global(a),
            };
            body(self, w);
            self.b.f.block_mut(self.b.cur).term = Terminator::Jump(join);
        }
        self.b.cur = join;
    }
}
