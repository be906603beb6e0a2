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
//! of word accesses (`arena`).
//!
//! Here an address is resolved to a [`Where`]; `access` loads and stores through one, and
//! `param` reaches the `.param` variables that live in word variables.

mod access;
mod arena;
mod param;

use super::cx::Cx;
use super::layout::VarKey;
use crate::abi;
use crate::check::{AddrBase, Address, Conv, LocalId, Src, VarRef};
use crate::ir::build::Build;
use crate::ir::{BinOp, Builtin, ConvOp, Op, Ty, ValueId};
use crate::types::StateSpace;

pub use param::param_words;

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
}
