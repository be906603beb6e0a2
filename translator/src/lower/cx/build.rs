//! Building IR into the current block: emitting instructions (refusing types the device cannot
//! hold), the values each block already holds for registers' variables, the block's
//! constants, and the variables of PTX registers.

use super::super::kept;
use super::{BLOCK_CONSTS, Cx, room_for};
use crate::check::RegId;
use crate::ir::{self, BinOp, ConvOp, FpFlags, Op, Ty, UnOp, ValueId, VarId};
use crate::types::ScalarType;

impl Cx<'_> {
    #[inline(always)]
    pub fn emit(&mut self, ty: Ty, op: Op) -> ValueId {
        self.need_ty(ty);
        self.make_room();
        self.f.push(self.cur, ty, op)
    }

    /// Loads a register's variable, or reuses the value the current block already holds for
    /// it (`forward` would remove the load again, after every pass had carried it).
    #[inline]
    pub(in crate::lower) fn load_var(&mut self, var: VarId) -> ValueId {
        let stamp = self.stamp();
        if let Some(&(s, x)) = self.held.get(var.0 as usize)
            && s == stamp
        {
            return x;
        }
        self.load_var_anew(var, stamp)
    }

    #[inline(never)]
    fn load_var_anew(&mut self, var: VarId, stamp: u32) -> ValueId {
        let ty = self.f.vars[var.0 as usize].ty;
        let x = self.emit(ty, Op::LoadVar(var));
        self.hold(var, x, stamp);
        x
    }

    /// The stamp of what `held` knows about the current block: a new one for each block, and
    /// after each instruction that writes variables: calls (inlining also splits the block
    /// there, and a value used across the split would need a variable of its own) and texture
    /// operations.
    #[inline]
    fn stamp(&mut self) -> u32 {
        if self.cur != self.held_block {
            self.held_block = self.cur;
            self.held_epoch += 1;
        }
        self.held_epoch
    }

    fn hold(&mut self, v: VarId, x: ValueId, stamp: u32) {
        let i = v.0 as usize;
        if self.held.len() <= i {
            self.held
                .resize(self.f.vars.len().max(i + 1), (0, ValueId(0)));
        }
        self.held[i] = (stamp, x);
    }

    /// Gives a block its expected capacity at its first instruction.
    #[inline(always)]
    fn make_room(&mut self) {
        if self.f.blocks[self.cur.0 as usize].insts.capacity() == 0 {
            self.first_room();
        }
    }

    #[inline(never)]
    fn first_room(&mut self) {
        self.f.blocks[self.cur.0 as usize].insts = kept::insts(&mut self.spare, self.room);
        // Further blocks of this PTX instruction are its own branches: short.
        self.room = room_for(1);
    }

    /// Refuses a type the device cannot hold, once per instruction and feature.
    #[inline(always)]
    pub(in crate::lower) fn need_ty(&mut self, ty: Ty) {
        let (have, feature) = match ty {
            Ty::F64 => (self.profile.float64, "float64 (shaderFloat64)"),
            Ty::F16 => (self.profile.float16, "float16 (shaderFloat16)"),
            Ty::I8 => (self.profile.int8, "8-bit integers (shaderInt8)"),
            Ty::I16 => (self.profile.int16, "16-bit integers (shaderInt16)"),
            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 => return,
        };
        if !have {
            self.refuse_once(feature);
        }
    }

    #[cold]
    #[inline(never)]
    fn refuse_once(&mut self, feature: &'static str) {
        if !self.refused.contains(&(self.span, feature)) {
            self.refused.push((self.span, feature));
            self.missing_feature(feature);
        }
    }

    pub fn emit_void(&mut self, op: Op) {
        self.make_room();
        let stored = if let Op::StoreVar(v, x) = op {
            Some((v, x))
        } else {
            None
        };
        let writes = matches!(op, Op::Call(_) | Op::Texture(_));
        self.f.push_void(self.cur, op);
        if let Some((v, x)) = stored {
            let stamp = self.stamp();
            self.hold(v, x, stamp);
        } else if writes {
            self.held_epoch += 1;
        }
    }

    #[inline]
    pub fn konst(&mut self, ty: Ty, bits: u64) -> ValueId {
        let stamp = self.stamp();
        let slot = (bits as usize ^ (ty as usize) << 3) % BLOCK_CONSTS;
        let (s, t, b, x) = self.consts[slot];
        if s == stamp && t == ty && b == bits {
            return x;
        }
        self.new_konst(ty, bits, stamp, slot)
    }

    #[inline(never)]
    fn new_konst(&mut self, ty: Ty, bits: u64, stamp: u32, slot: usize) -> ValueId {
        let x = self.emit(ty, Op::Const(bits));
        self.consts[slot] = (stamp, ty, bits, x);
        x
    }

    pub fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        self.bin_flags(op, a, b, FpFlags::default())
    }

    pub fn bin_flags(&mut self, op: BinOp, a: ValueId, b: ValueId, flags: FpFlags) -> ValueId {
        let ty = if op.is_compare() {
            Ty::Bool
        } else {
            self.f.ty(a)
        };
        self.emit(ty, Op::Bin(op, a, b, flags))
    }

    pub fn un(&mut self, op: UnOp, a: ValueId) -> ValueId {
        let ty = match op {
            UnOp::IsNan | UnOp::IsInf => Ty::Bool,
            _ => self.f.ty(a),
        };
        self.emit(ty, Op::Un(op, a))
    }

    #[inline]
    pub fn conv(&mut self, op: ConvOp, v: ValueId, to: Ty) -> ValueId {
        let from = self.f.ty(v);
        if from == to
            && matches!(
                op,
                ConvOp::Bitcast | ConvOp::ZExt | ConvOp::SExt | ConvOp::Trunc
            )
        {
            return v;
        }
        self.conv_anew(op, v, from, to)
    }

    #[inline(never)]
    fn conv_anew(&mut self, op: ConvOp, v: ValueId, from: Ty, to: Ty) -> ValueId {
        // The short form straight away where `v` was just made (a float operand read as bits
        // and back, an immediate widened); `ir::forward` catches the rest after lowering.
        let last = self.f.block(self.cur).insts.last();
        match last.filter(|i| i.result == Some(v)).map(|i| &i.op) {
            Some(&Op::Conv(ConvOp::Bitcast, src))
                if op == ConvOp::Bitcast && self.f.ty(src) == to =>
            {
                return src;
            }
            Some(&Op::Const(bits)) => {
                if let Some(bits) = crate::ir::forward::conv_const(op, bits, from, to) {
                    return self.konst(to, bits);
                }
            }
            _ => {}
        }
        self.emit(to, Op::Conv(op, v))
    }

    pub fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.f.ty(a);
        self.emit(ty, Op::Select(c, a, b))
    }

    pub fn ext(&mut self, op: ir::ExtOp, args: &[ValueId], flags: FpFlags) -> ValueId {
        let ty = self.f.ty(args[0]);
        self.emit(ty, Op::Ext(op, args.into(), flags))
    }

    /// Reinterprets `v` as an integer of its own width.
    #[inline]
    pub fn as_int(&mut self, v: ValueId) -> ValueId {
        let ty = self.f.ty(v);
        match ty {
            Ty::Bool => {
                let one = self.konst(Ty::I32, 1);
                let zero = self.konst(Ty::I32, 0);
                self.select(v, one, zero)
            }
            t if t.is_float() => self.conv(ConvOp::Bitcast, v, Ty::int(t.bits())),
            _ => v,
        }
    }

    /// Changes `v`'s representation to `to`, of the same width (bitcast), or, for a predicate,
    /// compares with zero.
    #[inline]
    pub fn reinterpret(&mut self, v: ValueId, to: Ty) -> ValueId {
        if self.f.ty(v) == to {
            return v;
        }
        self.reinterpret_as(v, to)
    }

    #[inline(never)]
    fn reinterpret_as(&mut self, v: ValueId, to: Ty) -> ValueId {
        if to == Ty::Bool {
            let i = self.as_int(v);
            let z = self.konst(self.f.ty(i), 0);
            return self.bin(BinOp::INe, i, z);
        }
        let i = self.as_int(v);
        let ib = self.f.ty(i).bits();
        let i = if ib < to.bits() {
            self.conv(ConvOp::ZExt, i, Ty::int(to.bits()))
        } else if ib > to.bits() {
            self.conv(ConvOp::Trunc, i, Ty::int(to.bits()))
        } else {
            i
        };
        self.conv(ConvOp::Bitcast, i, to)
    }

    /// Every operand asks for its register's variable: the known case is inlined, the first
    /// request (which declares it) is not.
    #[inline]
    pub fn reg_var(&mut self, reg: RegId, comp: Option<crate::ast::Component>) -> VarId {
        let slot = reg.0 as usize * 4 + comp.map_or(0, |c| c.index());
        if let Some(&v) = self.regs.get(slot)
            && v != 0
        {
            return VarId(v - 1);
        }
        self.new_reg_var(reg, comp, slot)
    }

    #[inline(never)]
    fn new_reg_var(
        &mut self,
        reg: RegId,
        comp: Option<crate::ast::Component>,
        slot: usize,
    ) -> VarId {
        let ty = Ty::of(self.func.reg(reg).ty);
        self.need_ty(ty);
        let name = ir::VarName::Reg {
            func: self.func_id.0,
            reg: reg.0,
            comp: comp.map(|c| c.index() as u8),
        };
        let v = self.f.new_var(ty, name);
        if let Some(s) = self.regs.get_mut(slot) {
            *s = v.0 + 1;
        }
        v
    }

    pub(in crate::lower) fn read_reg(
        &mut self,
        reg: RegId,
        comp: Option<crate::ast::Component>,
        ty: ScalarType,
    ) -> ValueId {
        let var = self.reg_var(reg, comp);
        let v = self.load_var(var);
        self.reinterpret(v, Ty::of(ty))
    }
}
