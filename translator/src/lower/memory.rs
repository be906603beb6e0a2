//! Memory spaces (DESIGN.md "Memory spaces"): how an address in each space is reached.
//!
//! - global, const, param: 64-bit device addresses (buffer device addresses);
//! - shared: byte offsets into the workgroup's arena of 32-bit words;
//! - local: byte offsets into the invocation's arena of 32-bit words;
//! - generic: 64-bit; the shared and local windows are tagged in the top byte
//!   ([`abi::SHARED_WINDOW`], [`abi::LOCAL_WINDOW`]), everything else is a device address. An access
//!   through a generic address tests the tag at run time.
//!
//! The arenas are arrays of words because SPIR-V without `VK_KHR_workgroup_memory_explicit_layout`
//! cannot view the same workgroup memory as several types; narrower and wider accesses are made
//! of word accesses here.

use super::cx::Cx;
use super::layout::VarKey;
use crate::abi;
use crate::check::{AddrBase, Address, Conv, LocalId, Src, VarRef};
use crate::ir::build::Build;
use crate::ir::{
    AtomicOp, BinOp, Builtin, ConvOp, MemOrder, Op, Ptr, Scope, Terminator, Ty, ValueId, VarId,
};
use crate::types::StateSpace;

/// A resolved address.
#[derive(Clone, Copy, Debug)]
pub enum Where {
    /// Device address (u64).
    Global(ValueId),
    /// Byte offset (u32) in the shared arena.
    Shared(ValueId),
    /// Byte offset (u32) in the local arena.
    Local(ValueId),
    /// Generic address (u64), space known only at run time.
    Generic(ValueId),
    /// A byte offset into a `.param` variable of a device function or call site, held in
    /// word variables (`call.rs`).
    ParamVar(LocalId, u32),
}

impl Cx<'_> {
    fn var_key(&self, v: VarRef) -> VarKey {
        match v {
            VarRef::Global(g) => VarKey::Global(g),
            VarRef::Local(l) => VarKey::Local(self.func_id, l),
        }
    }

    /// The address of variable `v` in its own state space (what `mov.u64 %rd, v` gives): a
    /// device address for global, const and kernel-parameter variables, an offset for shared
    /// and local ones. Returned as u64.
    pub fn var_address(&mut self, v: VarRef) -> Option<ValueId> {
        let space = self.space_of(v);
        let key = self.var_key(v);
        match (space, v) {
            (StateSpace::Global | StateSpace::Const, VarRef::Global(g)) => {
                let Some(&off) = self.layout.globals.get(&g) else {
                    self.unsupported("`.extern` global variables");
                    return None;
                };
                let base = self.b.emit(Ty::I64, Op::Builtin(Builtin::GlobalsBase));
                let off = self.b.konst(Ty::I64, off);
                Some(self.b.bin(BinOp::IAdd, base, off))
            }
            (StateSpace::Param, VarRef::Local(l)) => self.param_address(l),
            (StateSpace::Shared, _) => {
                let off = self.layout.shared.get(&key).copied();
                off.map(|o| self.b.konst(Ty::I64, u64::from(o)))
            }
            (StateSpace::Local, _) => {
                let off = self.layout.local.get(&key).copied()?;
                let off = self.b.konst(Ty::I64, u64::from(off));
                match self.local_base {
                    Some(b) => {
                        let base = self.b.emit(Ty::I64, Op::LoadVar(b));
                        Some(self.b.bin(BinOp::IAdd, base, off))
                    }
                    None => Some(off),
                }
            }
            (space, _) => {
                self.unsupported(format!("addresses of {space} variables"));
                None
            }
        }
    }

    /// Resolves `[base+offset]` for an access in `space`.
    pub fn resolve(&mut self, space: StateSpace, addr: &Address) -> Option<Where> {
        let param_offset = match addr.base {
            AddrBase::Var(VarRef::Local(l)) => self.params.get(&l).copied(),
            _ => None,
        };
        let base = match &addr.base {
            AddrBase::Reg(r, ty) => {
                let src = Src::Reg {
                    reg: *r,
                    comp: None,
                    conv: Conv::None,
                    ty: *ty,
                };
                let v = self.read(&src, *ty);
                self.b.conv(ConvOp::ZExt, v, Ty::I64)
            }
            AddrBase::Var(VarRef::Local(l))
                if self.space_of(VarRef::Local(*l)) == StateSpace::Param
                    && !self.params.contains_key(l) =>
            {
                if !(0..=i64::from(u32::MAX)).contains(&addr.offset) {
                    self.unsupported("a negative offset into a .param variable");
                    return None;
                }
                return Some(Where::ParamVar(*l, addr.offset as u32));
            }
            AddrBase::Var(v) => {
                let vs = self.space_of(*v);
                if space != StateSpace::Generic && vs != space {
                    self.unsupported(format!("a {space} access to a {vs} variable"));
                    return None;
                }
                let a = self.var_address(*v)?;
                // A variable named in a generic access means its generic address.
                if space == StateSpace::Generic {
                    return Some(self.generic_var_where(vs, a, addr.offset));
                }
                a
            }
            AddrBase::Absolute => self.b.konst(Ty::I64, 0),
        };
        let a = if addr.offset == 0 {
            base
        } else {
            let off = self.b.konst(Ty::I64, addr.offset as u64);
            self.b.bin(BinOp::IAdd, base, off)
        };
        if let Some(at) = param_offset
            && let Ok(offset) = u64::try_from(addr.offset)
        {
            self.param_access = Some((a, u64::from(at) + offset));
        }
        Some(self.space_where(space, a))
    }

    fn generic_var_where(&mut self, vs: StateSpace, a: ValueId, offset: i64) -> Where {
        let off = self.b.konst(Ty::I64, offset as u64);
        let a = self.b.bin(BinOp::IAdd, a, off);
        self.space_where(vs, a)
    }

    /// An address (u64 value) in `space` as a [`Where`].
    fn space_where(&mut self, space: StateSpace, a: ValueId) -> Where {
        match space {
            StateSpace::Shared => Where::Shared(self.b.conv(ConvOp::Trunc, a, Ty::I32)),
            StateSpace::Local => Where::Local(self.b.conv(ConvOp::Trunc, a, Ty::I32)),
            StateSpace::Generic => Where::Generic(a),
            _ => Where::Global(a),
        }
    }

    /// `cvta.space`: a space-specific address to a generic one.
    pub fn generic_of(&mut self, space: StateSpace, a: ValueId) -> ValueId {
        let a = self.b.conv(ConvOp::ZExt, a, Ty::I64);
        let window = match space {
            StateSpace::Shared => abi::SHARED_WINDOW,
            StateSpace::Local => abi::LOCAL_WINDOW,
            _ => return a,
        };
        let lo_mask = self.b.konst(Ty::I64, 0xFFFF_FFFF);
        let lo = self.b.bin(BinOp::And, a, lo_mask);
        let w = self.b.konst(Ty::I64, window);
        self.b.bin(BinOp::Or, lo, w)
    }

    /// `cvta.to.space`: a generic address to a space-specific one.
    pub fn specific_of(&mut self, space: StateSpace, a: ValueId) -> ValueId {
        let a = self.b.conv(ConvOp::ZExt, a, Ty::I64);
        match space {
            StateSpace::Shared | StateSpace::Local => {
                let lo_mask = self.b.konst(Ty::I64, 0xFFFF_FFFF);
                self.b.bin(BinOp::And, a, lo_mask)
            }
            _ => a,
        }
    }

    /// Whether a generic address is in `space`'s window (`isspacep`).
    pub fn in_window(&mut self, space: StateSpace, a: ValueId) -> ValueId {
        let a = self.b.conv(ConvOp::ZExt, a, Ty::I64);
        let mask = self.b.konst(Ty::I64, abi::WINDOW_MASK);
        let tag = self.b.bin(BinOp::And, a, mask);
        let is = |cx: &mut Self, w: u64| {
            let w = cx.b.konst(Ty::I64, w);
            cx.b.bin(BinOp::IEq, tag, w)
        };
        match space {
            StateSpace::Shared => is(self, abi::SHARED_WINDOW),
            StateSpace::Local => is(self, abi::LOCAL_WINDOW),
            _ => {
                let s = is(self, abi::SHARED_WINDOW);
                let l = is(self, abi::LOCAL_WINDOW);
                let either = self.b.bin(BinOp::Or, s, l);
                self.b.un(crate::ir::UnOp::Not, either)
            }
        }
    }

    /// `w` advanced by `bytes`.
    pub fn offset_where(&mut self, w: Where, bytes: u32) -> Where {
        if bytes == 0 {
            return w;
        }
        match w {
            Where::ParamVar(v, o) => Where::ParamVar(v, o + bytes),
            Where::Global(a) | Where::Generic(a) => {
                let b = self.b.konst(Ty::I64, u64::from(bytes));
                let r = self.b.bin(BinOp::IAdd, a, b);
                if matches!(w, Where::Global(_)) {
                    Where::Global(r)
                } else {
                    Where::Generic(r)
                }
            }
            Where::Shared(o) | Where::Local(o) => {
                let b = self.b.konst(Ty::I32, u64::from(bytes));
                let r = self.b.bin(BinOp::IAdd, o, b);
                if matches!(w, Where::Shared(_)) {
                    Where::Shared(r)
                } else {
                    Where::Local(r)
                }
            }
        }
    }

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

    /// The word variable holding byte `off` of a `.param` variable (`None` past its end).
    fn param_word(&mut self, v: LocalId, off: u32) -> Option<crate::ir::VarId> {
        let words = param_words(self, v);
        let w = words.get((off / 4) as usize).copied();
        if w.is_none() {
            self.unsupported("an access past the end of a .param variable");
        }
        w
    }

    fn param_load(&mut self, v: LocalId, off: u32, ty: Ty) -> ValueId {
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

    fn param_store(&mut self, var: LocalId, off: u32, v: ValueId) {
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

    fn arena_load(&mut self, shared: bool, off: ValueId, ty: Ty, order: MemOrder) -> ValueId {
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

    fn arena_store(&mut self, shared: bool, off: ValueId, v: ValueId, order: MemOrder) {
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
