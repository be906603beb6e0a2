//! The pieces every walk of a tensor copy shares: the map's fields every kind of map has, the
//! loop over the dense box, the swizzled shared address, and what happens at each piece of
//! the box (a word loaded or stored, an element reduced).

use crate::check::inst::{AtomOp, ReduceInto, reduce_types};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, MemOrder, Op, Terminator, Ty, ValueId, VarId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::tensor_map as tm;
use crate::types::ScalarType;

/// The map's fields the walk needs, each in a variable (IR values live in one block).
pub(super) struct Box5 {
    pub(super) base: VarId,
    /// log2 of the element size.
    pub(super) shift: VarId,
    /// The map's `CUtensorMapDataType`.
    pub(super) data_type: VarId,
    pub(super) swizzle_mask: VarId,
    /// log2 of the swizzle's atom size.
    pub(super) swizzle_atom: VarId,
    pub(super) nan: VarId,
    /// Per dimension: extent (I64), elements the box holds (I32), element stride (I32),
    /// the box's first coordinate (I64), byte stride (I64; dimension 0: unused).
    pub(super) dims: Vec<(VarId, VarId, VarId, VarId, VarId)>,
    /// The four-row modes' row coordinates (I64), which replace dimension 1's start and
    /// stride; empty otherwise.
    pub(super) rows: Vec<VarId>,
    pub(super) row_bytes: VarId,
    pub(super) total: VarId,
}

/// What a walk does with each piece of the box it reaches.
#[derive(Clone, Copy)]
pub(super) enum Access {
    Load,
    Store,
    Reduce(AtomOp),
}

pub(super) fn field(cx: &mut Cx<'_>, map: ValueId, off: u32, ty: Ty) -> ValueId {
    let at = cx.offset_where(Where::Global(map), off);
    cx.load(at, ty, MemOrder::Plain)
}

pub(super) fn byte_of(cx: &mut Cx<'_>, word: ValueId, k: u64) -> ValueId {
    let sh = cx.b.konst(Ty::I32, 8 * k);
    let v = cx.b.bin(BinOp::LShr, word, sh);
    let ff = cx.b.konst(Ty::I32, 0xff);
    cx.b.bin(BinOp::And, v, ff)
}

/// The fields every kind of map has in the same place: the tensor's address, log2 of the
/// element size, the data type, the swizzle's row mask and atom shift
/// ([`tm::swizzle_bits`]) and whether the fill is NaN.
pub(super) struct Head {
    pub(super) base: ValueId,
    pub(super) shift: ValueId,
    pub(super) data_type: ValueId,
    pub(super) mask: ValueId,
    pub(super) atom: ValueId,
    pub(super) nan: ValueId,
}

pub(super) fn read_head(cx: &mut Cx<'_>, map: ValueId) -> Head {
    let base = field(cx, map, tm::ADDRESS, Ty::I64);
    let shape = field(cx, map, tm::SHAPE_WORD, Ty::I32);
    let esize = byte_of(cx, shape, 1);
    // 1, 2, 4, 8 -> 0, 1, 2, 3.
    let one = cx.b.konst(Ty::I32, 1);
    let three = cx.b.konst(Ty::I32, 3);
    let half = cx.b.bin(BinOp::LShr, esize, one);
    let eighth = cx.b.bin(BinOp::LShr, esize, three);
    let shift = cx.b.bin(BinOp::ISub, half, eighth);
    let data_type = byte_of(cx, shape, 2);
    let mode = field(cx, map, tm::MODE_WORD, Ty::I32);
    let swizzle = byte_of(cx, mode, 0);
    let (mask, atom) = swizzle_bits(cx, swizzle);
    let fill = byte_of(cx, mode, 1);
    let zero = cx.b.konst(Ty::I32, 0);
    let nan = cx.b.bin(BinOp::INe, fill, zero);
    Head {
        base,
        shift,
        data_type,
        mask,
        atom,
        nan,
    }
}

/// [`tm::swizzle_bits`] on the device: the span's `.swizzle_mode` in the low nibble, the
/// `.swizzle_atomicity` in the high one.
pub(super) fn swizzle_bits(cx: &mut Cx<'_>, byte: ValueId) -> (ValueId, ValueId) {
    let (one, four, fifteen) = (
        cx.b.konst(Ty::I32, 1),
        cx.b.konst(Ty::I32, 4),
        cx.b.konst(Ty::I32, 15),
    );
    let mode = cx.b.bin(BinOp::And, byte, fifteen);
    let atomicity = cx.b.bin(BinOp::LShr, byte, four);
    let log = cx.b.bin(BinOp::IAdd, atomicity, one);
    let log = cx.b.bin(BinOp::LShr, log, one);
    let narrower = cx.b.bin(BinOp::ULt, mode, log);
    let bits = cx.b.bin(BinOp::ISub, mode, log);
    let zero = cx.b.konst(Ty::I32, 0);
    let bits = cx.b.select(narrower, zero, bits);
    let mask = cx.b.bin(BinOp::Shl, one, bits);
    let mask = cx.b.bin(BinOp::ISub, mask, one);
    let atom = cx.b.bin(BinOp::IAdd, four, log);
    (mask, atom)
}

/// A loop over the dense box's bytes from 0 to its total: `body` emits one step for the byte
/// offset held in the variable it is given and returns how far the offset then moves.
pub(super) fn over_box(
    cx: &mut Cx<'_>,
    total: VarId,
    body: impl FnOnce(&mut Cx<'_>, VarId) -> ValueId,
) {
    let zero = cx.b.konst(Ty::I32, 0);
    let w_var = spill(cx, zero, Ty::I32, "tensor.w");
    let (head, entry, exit) = (cx.b.f.new_block(), cx.b.f.new_block(), cx.b.f.new_block());
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(head);
    cx.b.cur = head;
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let n = cx.b.emit(Ty::I32, Op::LoadVar(total));
    let more = cx.b.bin(BinOp::ULt, w, n);
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
        cond: more,
        then: entry,
        else_: exit,
    };
    cx.b.cur = entry;
    let step = body(cx, w_var);
    let w = cx.b.emit(Ty::I32, Op::LoadVar(w_var));
    let next = cx.b.bin(BinOp::IAdd, w, step);
    cx.b.emit_void(Op::StoreVar(w_var, next));
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(head);
    cx.b.cur = exit;
}

/// The shared address of dense box byte `w`, swizzled.
pub(super) fn shared_at(cx: &mut Cx<'_>, b: &Box5, shared: VarId, w: ValueId) -> ValueId {
    let mask = cx.b.emit(Ty::I32, Op::LoadVar(b.swizzle_mask));
    let atom = cx.b.emit(Ty::I32, Op::LoadVar(b.swizzle_atom));
    let seven = cx.b.konst(Ty::I32, 7);
    let hi = cx.b.bin(BinOp::LShr, w, seven);
    let hi = cx.b.bin(BinOp::And, hi, mask);
    let hi = cx.b.bin(BinOp::Shl, hi, atom);
    let s = cx.b.bin(BinOp::Xor, w, hi);
    let sh = cx.b.emit(Ty::I32, Op::LoadVar(shared));
    cx.b.bin(BinOp::IAdd, sh, s)
}

/// The four bytes of dense box word `w`, at byte `col` of a row at global address `row`
/// (whose dimensions other than 0 are inside the tensor if `inside`): dimension 0's
/// coordinate of each byte decides the rest.
pub(super) fn word_of_row(
    cx: &mut Cx<'_>,
    b: &Box5,
    shared: VarId,
    w: ValueId,
    (inside, row, col): (ValueId, ValueId, ValueId),
    load: bool,
) {
    let base = cx.b.emit(Ty::I64, Op::LoadVar(b.base));
    let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
    let (extent0, _, _, start0, _) = b.dims[0];
    let extent0 = cx.b.emit(Ty::I64, Op::LoadVar(extent0));
    let start0 = cx.b.emit(Ty::I64, Op::LoadVar(start0));
    let one = cx.b.konst(Ty::I32, 1);
    let esize = cx.b.bin(BinOp::Shl, one, shift);
    let last = cx.b.bin(BinOp::ISub, esize, one);
    let shift64 = cx.b.conv(ConvOp::ZExt, shift, Ty::I64);
    // Per byte: inside or not, and its global address.
    let mut bytes = Vec::new();
    for j in 0..4u64 {
        let jj = cx.b.konst(Ty::I32, j);
        let at = cx.b.bin(BinOp::IAdd, col, jj);
        let e = cx.b.bin(BinOp::LShr, at, shift);
        let in_elem = cx.b.bin(BinOp::And, at, last);
        let e = cx.b.conv(ConvOp::ZExt, e, Ty::I64);
        let c = cx.b.bin(BinOp::IAdd, start0, e);
        let ok = cx.b.bin(BinOp::ULt, c, extent0);
        let ok = cx.b.bin(BinOp::And, inside, ok);
        let off = cx.b.bin(BinOp::Shl, c, shift64);
        let a = cx.b.bin(BinOp::IAdd, row, off);
        let in_elem64 = cx.b.conv(ConvOp::ZExt, in_elem, Ty::I64);
        let a = cx.b.bin(BinOp::IAdd, a, in_elem64);
        bytes.push((ok, a, in_elem));
    }
    let s = shared_at(cx, b, shared, w);
    if load {
        let nan = cx.b.emit(Ty::Bool, Op::LoadVar(b.nan));
        let mut word = cx.b.konst(Ty::I32, 0);
        for (j, (ok, a, in_elem)) in bytes.into_iter().enumerate() {
            let a = cx.b.select(ok, a, base);
            let v = cx.load(Where::Global(a), Ty::I8, MemOrder::Plain);
            let v = cx.b.conv(ConvOp::ZExt, v, Ty::I32);
            // The canonical NaN of every size: 0x7f in the top byte, 0xff below.
            let top = cx.b.bin(BinOp::IEq, in_elem, last);
            let (k7f, kff, k0) = (
                cx.b.konst(Ty::I32, 0x7f),
                cx.b.konst(Ty::I32, 0xff),
                cx.b.konst(Ty::I32, 0),
            );
            let nan_byte = cx.b.select(top, k7f, kff);
            let fill = cx.b.select(nan, nan_byte, k0);
            let v = cx.b.select(ok, v, fill);
            let sh = cx.b.konst(Ty::I32, 8 * j as u64);
            let v = cx.b.bin(BinOp::Shl, v, sh);
            word = cx.b.bin(BinOp::Or, word, v);
        }
        cx.store(Where::Shared(s), word, MemOrder::Plain);
        return;
    }
    let word = cx.load(Where::Shared(s), Ty::I32, MemOrder::Plain);
    let word_var = spill(cx, word, Ty::I32, "tensor.word");
    // Stores skip the bytes outside the tensor, so each is a branch; the addresses travel in
    // variables across the blocks.
    let saved: Vec<(VarId, VarId)> = bytes
        .into_iter()
        .map(|(ok, a, _)| {
            (
                spill(cx, ok, Ty::Bool, "tensor.ok"),
                spill(cx, a, Ty::I64, "tensor.at"),
            )
        })
        .collect();
    for (j, (ok, a)) in saved.into_iter().enumerate() {
        let ok = cx.b.emit(Ty::Bool, Op::LoadVar(ok));
        let (then, next) = (cx.b.f.new_block(), cx.b.f.new_block());
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: ok,
            then,
            else_: next,
        };
        cx.b.cur = then;
        let word = cx.b.emit(Ty::I32, Op::LoadVar(word_var));
        let v = byte_of(cx, word, j as u64);
        let v = cx.b.conv(ConvOp::Trunc, v, Ty::I8);
        let a = cx.b.emit(Ty::I64, Op::LoadVar(a));
        cx.store(Where::Global(a), v, MemOrder::Plain);
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
        cx.b.cur = next;
    }
}

pub(super) fn spill(cx: &mut Cx<'_>, v: ValueId, ty: Ty, name: &'static str) -> VarId {
    let var = cx.b.f.new_var(ty, name);
    cx.b.emit_void(Op::StoreVar(var, v));
    var
}

/// The `CUtensorMapDataType` of each element type a tensor reduction takes
/// ([`crate::check::inst::reduce_types`]).
pub(super) fn data_type(ty: ScalarType) -> Option<u64> {
    Some(match ty {
        ScalarType::U32 => 2,
        ScalarType::S32 => 3,
        ScalarType::U64 => 4,
        ScalarType::S64 => 5,
        ScalarType::F16 => 6,
        ScalarType::F32 => 7,
        ScalarType::F64 => 8,
        ScalarType::Bf16 => 9,
        _ => return None,
    })
}

/// The element at dense box byte `w`, at byte `col` of a row at global address `row` (whose
/// dimensions other than 0 are inside the tensor if `inside`), reduced into the tensor if it
/// lies inside; returns the element size, the walk's step.
pub(super) fn reduce_element(
    cx: &mut Cx<'_>,
    b: &Box5,
    shared: VarId,
    w: ValueId,
    (inside, row, col): (ValueId, ValueId, ValueId),
    op: AtomOp,
) -> ValueId {
    let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
    let (extent0, _, _, start0, _) = b.dims[0];
    let extent0 = cx.b.emit(Ty::I64, Op::LoadVar(extent0));
    let start0 = cx.b.emit(Ty::I64, Op::LoadVar(start0));
    let e = cx.b.bin(BinOp::LShr, col, shift);
    let e = cx.b.conv(ConvOp::ZExt, e, Ty::I64);
    let c = cx.b.bin(BinOp::IAdd, start0, e);
    let ok = cx.b.bin(BinOp::ULt, c, extent0);
    let ok = cx.b.bin(BinOp::And, inside, ok);
    let shift64 = cx.b.conv(ConvOp::ZExt, shift, Ty::I64);
    let off = cx.b.bin(BinOp::Shl, c, shift64);
    let at = cx.b.bin(BinOp::IAdd, row, off);
    let at = spill(cx, at, Ty::I64, "tensor.at");
    let s = shared_at(cx, b, shared, w);
    let s = spill(cx, s, Ty::I32, "tensor.src");
    let (then, next) = (cx.b.f.new_block(), cx.b.f.new_block());
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
        cond: ok,
        then,
        else_: next,
    };
    cx.b.cur = then;
    for (ty, code) in reduce_types(op, ReduceInto::Tensor)
        .iter()
        .filter_map(|&t| Some((t, data_type(t)?)))
    {
        let dt = cx.b.emit(Ty::I32, Op::LoadVar(b.data_type));
        let k = cx.b.konst(Ty::I32, code);
        let is = cx.b.bin(BinOp::IEq, dt, k);
        let (this, other) = (cx.b.f.new_block(), cx.b.f.new_block());
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Branch {
            cond: is,
            then: this,
            else_: other,
        };
        cx.b.cur = this;
        let from = cx.b.emit(Ty::I32, Op::LoadVar(s));
        let v = cx.load(Where::Shared(from), Ty::of(ty), MemOrder::Plain);
        let to = cx.b.emit(Ty::I64, Op::LoadVar(at));
        crate::lower::atomic::reduce_at(cx, op, ty, Where::Global(to), v);
        cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
        cx.b.cur = other;
    }
    cx.b.f.block_mut(cx.b.cur).term = Terminator::Jump(next);
    cx.b.cur = next;
    let shift = cx.b.emit(Ty::I32, Op::LoadVar(b.shift));
    let one = cx.b.konst(Ty::I32, 1);
    cx.b.bin(BinOp::Shl, one, shift)
}
