//! Textures over linear memory (`cudaResourceTypeLinear`, read by `tex1Dfetch`): the texels
//! are in device memory, so the shader loads and converts them itself, as a texture unit
//! would: integers as they are or as normalized floats, halves widened, absent channels
//! (0, 0, 0, 1) as Vulkan's images give them. The caller has checked the index against the
//! width (zeros outside, as for every integer-coordinate fetch).

use super::super::cx::Cx;
use super::super::float::half;
use super::super::float::softfloat as sf;
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, ExtOp, MemOrder, Op, Ptr, Ty, ValueId, VarId};
use crate::texture::{SampledKind, channel_data_type as dt, record};

/// Stores element `index`'s channels into `results` (four variables of `kind`).
pub(super) fn fetch(
    cx: &mut Cx<'_>,
    slot: u32,
    index: ValueId,
    (lo, hi): (ValueId, ValueId),
    kind: SampledKind,
    results: &[VarId],
) {
    let base = {
        let lo = cx.b.conv(ConvOp::ZExt, lo, Ty::I64);
        let hi = cx.b.conv(ConvOp::ZExt, hi, Ty::I64);
        let sh = cx.b.konst(Ty::I64, 32);
        let hi = cx.b.bin(BinOp::Shl, hi, sh);
        cx.b.bin(BinOp::Or, lo, hi)
    };
    let channels = cx.record_word(slot, record::LINEAR_CHANNELS);
    let bytes = cx.record_word(slot, record::LINEAR_CHANNEL_BYTES);
    let data_type = cx.record_word(slot, record::CHANNEL_DATA_TYPE);
    let element = cx.b.bin(BinOp::IMul, index, channels);
    let bytes64 = cx.b.conv(ConvOp::ZExt, bytes, Ty::I64);
    // Channel bits, and the shift that moves a channel's top bit to bit 31.
    let eight = cx.i32(8);
    let bits = cx.b.bin(BinOp::IMul, bytes, eight);
    let thirty_two = cx.i32(32);
    let up = cx.b.bin(BinOp::ISub, thirty_two, bits);
    for (c, r) in results.iter().enumerate() {
        let c = cx.i32(c as i32);
        let present = cx.b.bin(BinOp::ULt, c, channels);
        // An absent channel reads channel 0, which is inside the element.
        let zero = cx.i32(0);
        let ch = cx.b.select(present, c, zero);
        let at = cx.b.bin(BinOp::IAdd, element, ch);
        let at = cx.b.conv(ConvOp::ZExt, at, Ty::I64);
        let off = cx.b.bin(BinOp::IMul, at, bytes64);
        let addr = cx.b.bin(BinOp::IAdd, base, off);
        // Channels are naturally aligned, so a channel lies within one aligned word.
        let mask = cx.b.konst(Ty::I64, !3u64);
        let word_addr = cx.b.bin(BinOp::And, addr, mask);
        let word = cx.b.emit(
            Ty::I32,
            Op::Load {
                ptr: Ptr::Global(word_addr),
                align: 4,
                order: MemOrder::Plain,
            },
        );
        let three = cx.b.konst(Ty::I64, 3);
        let in_word = cx.b.bin(BinOp::And, addr, three);
        let in_word = cx.b.conv(ConvOp::Trunc, in_word, Ty::I32);
        let shift = cx.b.bin(BinOp::IMul, in_word, eight);
        let raw = cx.b.bin(BinOp::LShr, word, shift);
        let top = cx.b.bin(BinOp::Shl, raw, up);
        let unsigned = cx.b.bin(BinOp::LShr, top, up);
        let signed = cx.b.bin(BinOp::AShr, top, up);
        let (value, absent) = match kind {
            SampledKind::Uint => (unsigned, alpha_default(cx, c, Ty::I32, 1)),
            SampledKind::Sint => (signed, alpha_default(cx, c, Ty::I32, 1)),
            SampledKind::Float => {
                let v = to_float(cx, raw, unsigned, signed, bytes, data_type);
                (v, alpha_default(cx, c, Ty::F32, 1f32.to_bits().into()))
            }
        };
        let v = cx.b.select(present, value, absent);
        cx.b.emit_void(Op::StoreVar(*r, v));
    }
}

/// 1 (`one`'s bits) for the alpha channel, 0 for the others.
fn alpha_default(cx: &mut Cx<'_>, c: ValueId, ty: Ty, one: u64) -> ValueId {
    let three = cx.i32(3);
    let is_alpha = cx.b.bin(BinOp::IEq, c, three);
    let one = cx.b.konst(ty, one);
    let zero = cx.b.konst(ty, 0);
    cx.b.select(is_alpha, one, zero)
}

/// The float a channel reads as: a float or half as it is, an 8- or 16-bit integer
/// normalized (unsigned to [0, 1], signed to [-1, 1], CUDA's `cudaReadModeNormalizedFloat`).
fn to_float(
    cx: &mut Cx<'_>,
    raw: ValueId,
    unsigned: ValueId,
    signed: ValueId,
    bytes: ValueId,
    data_type: ValueId,
) -> ValueId {
    let is = |cx: &mut Cx<'_>, v: u32| {
        let k = cx.i32(v as i32);
        cx.b.bin(BinOp::IEq, data_type, k)
    };
    let f32_bits = cx.b.conv(ConvOp::Bitcast, raw, Ty::F32);
    let h = cx.b.conv(ConvOp::Trunc, raw, Ty::I16);
    let half = half::to_f32(cx, h, sf::F16);
    let one_byte = {
        let one = cx.i32(1);
        cx.b.bin(BinOp::IEq, bytes, one)
    };
    let pick = |cx: &mut Cx<'_>, a: f32, b: f32| {
        let a = cx.f32(a);
        let b = cx.f32(b);
        cx.b.select(one_byte, a, b)
    };
    let umax = pick(cx, 255.0, 65535.0);
    let u = cx.b.conv(ConvOp::UToF, unsigned, Ty::F32);
    let unorm = cx.b.bin(BinOp::FDiv, u, umax);
    let smax = pick(cx, 127.0, 32767.0);
    let s = cx.b.conv(ConvOp::SToF, signed, Ty::F32);
    let s = cx.b.bin(BinOp::FDiv, s, smax);
    let minus_one = cx.f32(-1.0);
    let snorm = cx.b.ext(ExtOp::FMax, &[s, minus_one], Default::default());
    let is_unorm = {
        let a = is(cx, dt::UNORM_INT8);
        let b = is(cx, dt::UNORM_INT16);
        cx.b.bin(BinOp::Or, a, b)
    };
    let norm = cx.b.select(is_unorm, unorm, snorm);
    let is_half = is(cx, dt::HALF_FLOAT);
    let v = cx.b.select(is_half, half, norm);
    let is_float = is(cx, dt::FLOAT);
    cx.b.select(is_float, f32_bits, v)
}
