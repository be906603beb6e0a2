//! `tensormap.replace`: one field of a tensor map in memory rewritten in ptxvk's encoding
//! ([`crate::tensor_map`], decision record 0107). Copies read maps with plain loads, so a
//! plain store is the whole edit; the byte fields (rank, element type and size, swizzle, fill)
//! share a word, which is read, changed and written back.

use crate::check::inst::MapField;
use crate::check::{Address, Src};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, MemOrder, Ty, ValueId};
use crate::lower::cx::Cx;
use crate::lower::memory::Where;
use crate::tensor_map as tm;
use crate::types::{ScalarType, StateSpace};

pub fn replace(cx: &mut Cx<'_>, map: &Address, space: StateSpace, field: MapField, value: &Src) {
    let Some(w) = cx.resolve(space, map) else {
        return;
    };
    let store = |cx: &mut Cx<'_>, off: u32, v: ValueId| {
        let at = cx.offset_where(w, off);
        cx.store(at, v, MemOrder::Plain);
    };
    match field {
        MapField::GlobalAddress => {
            let v = cx.read(value, ScalarType::B64);
            store(cx, tm::ADDRESS, v);
        }
        MapField::GlobalStride(ord) => {
            let v = cx.read(value, ScalarType::B64);
            store(cx, tm::STRIDES + 8 * ord, v);
        }
        MapField::GlobalDim(ord) => {
            let v = cx.read(value, ScalarType::B32);
            let v = cx.b.conv(ConvOp::ZExt, v, Ty::I64);
            store(cx, tm::DIMS + 8 * ord, v);
        }
        MapField::BoxDim(ord) => {
            let v = cx.read(value, ScalarType::B32);
            store(cx, tm::BOX + 4 * ord, v);
        }
        MapField::ElementStride(ord) => {
            let v = cx.read(value, ScalarType::B32);
            store(cx, tm::ELEMENT_STRIDES + 4 * ord, v);
        }
        MapField::Rank => {
            let v = cx.read(value, ScalarType::B32);
            let one = cx.b.konst(Ty::I32, 1);
            let rank = cx.b.bin(BinOp::IAdd, v, one);
            set_bytes(cx, w, tm::SHAPE_WORD, &[(0, rank)]);
        }
        MapField::ElemType { data_type, size } => {
            let size = cx.b.konst(Ty::I32, u64::from(size));
            let dt = cx.b.konst(Ty::I32, u64::from(data_type));
            set_bytes(cx, w, tm::SHAPE_WORD, &[(1, size), (2, dt)]);
        }
        // The span and the atom share the swizzle byte, a nibble each.
        MapField::Swizzle(s) => set_bits(cx, w, tm::MODE_WORD, 0xf, u64::from(s)),
        MapField::SwizzleAtomicity(a) => set_bits(cx, w, tm::MODE_WORD, 0xf0, u64::from(a) << 4),
        MapField::Fill(f) => {
            let v = cx.b.konst(Ty::I32, u64::from(f));
            set_bytes(cx, w, tm::MODE_WORD, &[(1, v)]);
        }
        MapField::Unchanged => {}
    }
}

/// The bits of `mask` in the word at `off` become those of `bits`.
fn set_bits(cx: &mut Cx<'_>, w: Where, off: u32, mask: u64, bits: u64) {
    let at = cx.offset_where(w, off);
    let word = cx.load(at, Ty::I32, MemOrder::Plain);
    let keep = cx.b.konst(Ty::I32, !mask & 0xffff_ffff);
    let word = cx.b.bin(BinOp::And, word, keep);
    let v = cx.b.konst(Ty::I32, bits & mask);
    let word = cx.b.bin(BinOp::Or, word, v);
    let at = cx.offset_where(w, off);
    cx.store(at, word, MemOrder::Plain);
}

/// Bytes `k` of the word at `off` become the low bytes of the values given.
fn set_bytes(cx: &mut Cx<'_>, w: Where, off: u32, bytes: &[(u64, ValueId)]) {
    let at = cx.offset_where(w, off);
    let mut word = cx.load(at, Ty::I32, MemOrder::Plain);
    for &(k, v) in bytes {
        let keep = cx.b.konst(Ty::I32, !(0xffu64 << (8 * k)) & 0xffff_ffff);
        word = cx.b.bin(BinOp::And, word, keep);
        let ff = cx.b.konst(Ty::I32, 0xff);
        let v = cx.b.bin(BinOp::And, v, ff);
        let sh = cx.b.konst(Ty::I32, 8 * k);
        let v = cx.b.bin(BinOp::Shl, v, sh);
        word = cx.b.bin(BinOp::Or, word, v);
    }
    let at = cx.offset_where(w, off);
    cx.store(at, word, MemOrder::Plain);
}
