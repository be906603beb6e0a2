//! Building IR: one vocabulary for making instructions (`emit`, `konst`, `bin`, `select`, ...),
//! spoken by lowering's [`Builder`] and by the passes that write instructions of their own (the
//! SIMT expansion's warp operations).
//!
//! [`Build`] is the vocabulary: a builder says how an instruction is made and where it goes
//! (`emit`, `emit_void`) and how a constant is made (`konst`); the operations that follow from
//! those (`bin`, `select`, ...) are the trait's, so they mean the same in every builder.
//! [`Builder`] builds a whole function, block by block: the insertion point, the room a block
//! gets, the values each block already holds for variables and the block's constants, the types
//! the device cannot hold; the control-flow shapes between blocks are in `flow`.

pub mod flow;
#[cfg(test)]
mod tests;

use super::{BinOp, BlockId, ConvOp, ExtOp, FpFlags, Function, Inst, Op, Ty, UnOp, ValueId, VarId};

/// The instruction vocabulary every IR builder speaks.
pub trait Build {
    /// The function instructions are built into (for the types of values).
    fn func(&self) -> &Function;

    /// Appends an instruction with a result of type `ty`.
    fn emit(&mut self, ty: Ty, op: Op) -> ValueId;

    /// Appends an instruction without a result.
    fn emit_void(&mut self, op: Op);

    /// The constant `bits` of type `ty` (a builder may hand out one made before).
    fn konst(&mut self, ty: Ty, bits: u64) -> ValueId;

    #[inline]
    fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        self.bin_flags(op, a, b, FpFlags::default())
    }

    #[inline]
    fn bin_flags(&mut self, op: BinOp, a: ValueId, b: ValueId, flags: FpFlags) -> ValueId {
        let ty = if op.is_compare() {
            Ty::Bool
        } else {
            self.func().ty(a)
        };
        self.emit(ty, Op::Bin(op, a, b, flags))
    }

    #[inline]
    fn un(&mut self, op: UnOp, a: ValueId) -> ValueId {
        let ty = match op {
            UnOp::IsNan | UnOp::IsInf => Ty::Bool,
            _ => self.func().ty(a),
        };
        self.emit(ty, Op::Un(op, a))
    }

    #[inline]
    fn select(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.func().ty(a);
        self.emit(ty, Op::Select(c, a, b))
    }

    #[inline]
    fn ext(&mut self, op: ExtOp, args: &[ValueId], flags: FpFlags) -> ValueId {
        let ty = self.func().ty(args[0]);
        self.emit(ty, Op::Ext(op, args.into(), flags))
    }

    /// Loads variable `var`.
    #[inline]
    fn load_var(&mut self, var: VarId) -> ValueId {
        let ty = self.func().vars[var.0 as usize].ty;
        self.emit(ty, Op::LoadVar(var))
    }

    /// Stores `x` into variable `var`.
    #[inline]
    fn store_var(&mut self, var: VarId, x: ValueId) {
        self.emit_void(Op::StoreVar(var, x));
    }
}

/// The types a device may lack, and whether it holds each.
#[derive(Clone, Copy, Debug)]
pub struct DeviceTypes {
    pub float64: bool,
    pub float16: bool,
    pub int8: bool,
    pub int16: bool,
}

impl DeviceTypes {
    /// The feature a value of type `ty` needs that the device lacks, if any.
    #[inline(always)]
    pub fn lacks(self, ty: Ty) -> Option<&'static str> {
        let (have, feature) = match ty {
            Ty::F64 => (self.float64, "float64 (shaderFloat64)"),
            Ty::F16 => (self.float16, "float16 (shaderFloat16)"),
            Ty::I8 => (self.int8, "8-bit integers (shaderInt8)"),
            Ty::I16 => (self.int16, "16-bit integers (shaderInt16)"),
            Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 => return None,
        };
        (!have).then_some(feature)
    }
}

/// Slots of [`Builder::konst`]'s table.
pub const BLOCK_CONSTS: usize = 32;

/// The instructions to make room for in a block opened with `stmts` PTX instructions to go
/// before the next label. A PTX instruction lowers to about 8 on average; a block grown one
/// push at a time was reallocated 3 or 4 times. Very long runs are capped at 1,024 instructions,
/// a quarter of the largest buffer `lower::kept` keeps.
pub fn room_for(stmts: usize) -> usize {
    stmts.clamp(1, 128) * 8
}

/// An empty instruction buffer from `spare` (or a new one) with room for `room` instructions.
/// A kept buffer too small is passed over, not grown (see `crate::reuse::reuse`; growing
/// copied about 2.5 MB of stale instructions per `translate_all` of the benchmark's 20,000
/// lines).
pub fn spare_insts(spare: &mut Vec<Vec<Inst>>, room: usize) -> Vec<Inst> {
    // The last few kept ones are looked at: blocks differ in size.
    let n = spare.len();
    match (n.saturating_sub(4)..n)
        .rev()
        .find(|&k| spare[k].capacity() >= room)
    {
        Some(k) => spare.swap_remove(k),
        None => Vec::with_capacity(room),
    }
}

/// Builds one function: instructions go to the end of block `cur`.
pub struct Builder {
    pub f: Function,
    /// The insertion point.
    pub cur: BlockId,
    /// The capacity a block gets at its first instruction (see [`room_for`]).
    pub room: usize,
    /// Per variable: the value it holds at the end of what has been built into the current
    /// block so far (its last store or load there), valid while the stamp is `held_epoch`.
    pub held: Vec<(u32, ValueId)>,
    held_epoch: u32,
    held_block: BlockId,
    /// Constants made in the current block, by a hash of value and type (a collision
    /// forgets the older one), valid under the stamp of `held`: lowering asks for 0, 1,
    /// shift counts and sizes over and over.
    consts: [(u32, Ty, u64, ValueId); BLOCK_CONSTS],
    /// Emptied instruction buffers of the kernels translated before (`lower::kept`).
    pub spare: Vec<Vec<Inst>>,
    /// The types the device holds.
    types: DeviceTypes,
    /// Features the device lacks that instructions built since the last
    /// [`take_missing`](Self::take_missing) needed, each once.
    missing: Vec<&'static str>,
}

impl Build for Builder {
    #[inline(always)]
    fn func(&self) -> &Function {
        &self.f
    }

    #[inline(always)]
    fn emit(&mut self, ty: Ty, op: Op) -> ValueId {
        self.need_ty(ty);
        self.make_room();
        self.f.push(self.cur, ty, op)
    }

    fn emit_void(&mut self, op: Op) {
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
    fn konst(&mut self, ty: Ty, bits: u64) -> ValueId {
        let stamp = self.stamp();
        let slot = (bits as usize ^ (ty as usize) << 3) % BLOCK_CONSTS;
        let (s, t, b, x) = self.consts[slot];
        if s == stamp && t == ty && b == bits {
            return x;
        }
        self.new_konst(ty, bits, stamp, slot)
    }

    /// Loads variable `var`, or reuses the value the current block already holds for it
    /// (`forward` would remove the load again, after every pass had carried it).
    #[inline]
    fn load_var(&mut self, var: VarId) -> ValueId {
        let stamp = self.stamp();
        if let Some(&(s, x)) = self.held.get(var.0 as usize)
            && s == stamp
        {
            return x;
        }
        self.load_var_anew(var, stamp)
    }
}

impl Builder {
    /// A builder of `f`, starting at its entry block, for a device holding `types`.
    pub fn new(f: Function, types: DeviceTypes) -> Self {
        Builder {
            cur: f.entry,
            f,
            room: 0,
            held: Vec::new(),
            held_epoch: 1,
            held_block: BlockId(u32::MAX),
            consts: [(0, Ty::Bool, 0, ValueId(0)); BLOCK_CONSTS],
            spare: Vec::new(),
            types,
            missing: Vec::new(),
        }
    }

    /// A new block (instructions still go to `cur`).
    pub fn new_block(&mut self) -> BlockId {
        self.f.new_block()
    }

    /// The features the device lacks that the instructions built since the last call needed,
    /// in the order first met.
    pub fn take_missing(&mut self) -> Vec<&'static str> {
        std::mem::take(&mut self.missing)
    }

    /// Whether instructions built since the last [`take_missing`](Self::take_missing) needed
    /// a feature the device lacks.
    #[inline(always)]
    pub fn met_missing(&self) -> bool {
        !self.missing.is_empty()
    }

    /// The feature a value of type `ty` needs that the device lacks, if any.
    #[inline(always)]
    pub fn lacks(&self, ty: Ty) -> Option<&'static str> {
        self.types.lacks(ty)
    }

    /// Notes a type the device cannot hold.
    #[inline(always)]
    fn need_ty(&mut self, ty: Ty) {
        if let Some(feature) = self.types.lacks(ty) {
            self.note_missing(feature);
        }
    }

    #[cold]
    #[inline(never)]
    fn note_missing(&mut self, feature: &'static str) {
        if !self.missing.contains(&feature) {
            self.missing.push(feature);
        }
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
        self.f.blocks[self.cur.0 as usize].insts = spare_insts(&mut self.spare, self.room);
        // Further blocks of this PTX instruction are its own branches: short.
        self.room = room_for(1);
    }

    #[inline(never)]
    fn new_konst(&mut self, ty: Ty, bits: u64, stamp: u32, slot: usize) -> ValueId {
        let x = self.emit(ty, Op::Const(bits));
        self.consts[slot] = (stamp, ty, bits, x);
        x
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
                if let Some(bits) = super::forward::conv_const(op, bits, from, to) {
                    return self.konst(to, bits);
                }
            }
            _ => {}
        }
        self.emit(to, Op::Conv(op, v))
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
}

impl AsMut<Builder> for Builder {
    fn as_mut(&mut self) -> &mut Builder {
        self
    }
}
