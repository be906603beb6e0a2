//! The stack holds 32-bit words in the local arena: these build the loads and stores of words
//! and split values into words and back, so the frame code reads as what it saves.

use crate::ir::{BinOp, BlockId, ConvOp, Function, Op, Ptr, Ty, ValueId};

pub(super) fn new_value(f: &mut Function, ty: Ty) -> ValueId {
    let id = ValueId(f.values.len() as u32);
    f.values.push(ty);
    id
}

pub(super) fn at_const(f: &mut Function, b: BlockId, word: u32) -> ValueId {
    f.push(b, Ty::I32, Op::Const(word.into()))
}

pub(super) fn bin(
    f: &mut Function,
    b: BlockId,
    ty: Ty,
    op: BinOp,
    x: ValueId,
    y: ValueId,
) -> ValueId {
    f.push(b, ty, Op::Bin(op, x, y, Default::default()))
}

pub(super) fn load_word(f: &mut Function, b: BlockId, idx: ValueId) -> ValueId {
    f.push(
        b,
        Ty::I32,
        Op::Load {
            ptr: Ptr::Local(idx),
            align: 4,
            order: Default::default(),
        },
    )
}

pub(super) fn store_word(f: &mut Function, b: BlockId, idx: ValueId, value: ValueId) {
    f.push_void(
        b,
        Op::Store {
            ptr: Ptr::Local(idx),
            value,
            align: 4,
            order: Default::default(),
        },
    );
}

pub(super) fn words_of(ty: Ty) -> u32 {
    if ty.bits() == 64 { 2 } else { 1 }
}

/// A value as 32-bit words (low word first).
pub(super) fn to_words(f: &mut Function, b: BlockId, v: ValueId, ty: Ty) -> Vec<ValueId> {
    match ty {
        Ty::Bool => {
            let one = f.push(b, Ty::I32, Op::Const(1));
            let zero = f.push(b, Ty::I32, Op::Const(0));
            vec![f.push(b, Ty::I32, Op::Select(v, one, zero))]
        }
        Ty::I8 | Ty::I16 => vec![f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, v))],
        Ty::F16 => {
            let bits = f.push(b, Ty::I16, Op::Conv(ConvOp::Bitcast, v));
            vec![f.push(b, Ty::I32, Op::Conv(ConvOp::ZExt, bits))]
        }
        Ty::I32 => vec![v],
        Ty::F32 => vec![f.push(b, Ty::I32, Op::Conv(ConvOp::Bitcast, v))],
        Ty::I64 | Ty::F64 => {
            let bits = if ty == Ty::F64 {
                f.push(b, Ty::I64, Op::Conv(ConvOp::Bitcast, v))
            } else {
                v
            };
            let lo = f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, bits));
            let k = f.push(b, Ty::I64, Op::Const(32));
            let hi = bin(f, b, Ty::I64, BinOp::LShr, bits, k);
            let hi = f.push(b, Ty::I32, Op::Conv(ConvOp::Trunc, hi));
            vec![lo, hi]
        }
    }
}

pub(super) fn from_words(f: &mut Function, b: BlockId, w: &[ValueId], ty: Ty) -> ValueId {
    match ty {
        Ty::Bool => {
            let zero = f.push(b, Ty::I32, Op::Const(0));
            bin(f, b, Ty::Bool, BinOp::INe, w[0], zero)
        }
        Ty::I8 | Ty::I16 => f.push(b, ty, Op::Conv(ConvOp::Trunc, w[0])),
        Ty::F16 => {
            let bits = f.push(b, Ty::I16, Op::Conv(ConvOp::Trunc, w[0]));
            f.push(b, Ty::F16, Op::Conv(ConvOp::Bitcast, bits))
        }
        Ty::I32 => w[0],
        Ty::F32 => f.push(b, Ty::F32, Op::Conv(ConvOp::Bitcast, w[0])),
        Ty::I64 | Ty::F64 => {
            let lo = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, w[0]));
            let hi = f.push(b, Ty::I64, Op::Conv(ConvOp::ZExt, w[1]));
            let k = f.push(b, Ty::I64, Op::Const(32));
            let hi = bin(f, b, Ty::I64, BinOp::Shl, hi, k);
            let bits = bin(f, b, Ty::I64, BinOp::Or, lo, hi);
            if ty == Ty::F64 {
                f.push(b, Ty::F64, Op::Conv(ConvOp::Bitcast, bits))
            } else {
                bits
            }
        }
    }
}
