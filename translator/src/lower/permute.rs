//! The meaning of `prmt` (ISA 8.7.6.5).

use super::cx::Cx;
use super::int::{c32, extract, extract_at, insert};
use crate::check::Src;
use crate::check::inst::{Prmt, PrmtMode};
use crate::ir::build::Build;
use crate::ir::{BinOp, ConvOp, Ty, ValueId};
use crate::types::ScalarType;

/// The generic-form selector (four 4-bit fields, byte 0 of `d` in the lowest) that each mode
/// uses for `c & 3` = 0, 1, 2, 3 (NVIDIA's PTX ISA, `prmt` mode table).
fn mode_selectors(mode: PrmtMode) -> [u32; 4] {
    match mode {
        PrmtMode::F4e => [0x3210, 0x4321, 0x5432, 0x6543],
        PrmtMode::B4e => [0x5670, 0x6701, 0x7012, 0x0123],
        PrmtMode::Rc8 => [0x0000, 0x1111, 0x2222, 0x3333],
        PrmtMode::Ecl => [0x3210, 0x3211, 0x3222, 0x3333],
        PrmtMode::Ecr => [0x0000, 0x1110, 0x2210, 0x3210],
        PrmtMode::Rc16 => [0x1010, 0x3232, 0x1010, 0x3232],
    }
}

/// `prmt`: each byte of `d` is a byte of `{b, a}` (bytes 0-3 from `a`, 4-7 from `b`) picked by
/// a 4-bit selector, or with the selector's bit 3 set, that byte's sign bit replicated. The modes
/// pick one of four fixed selectors with `c & 3`.
pub fn prmt(cx: &mut Cx<'_>, p: &Prmt) {
    let a = cx.read(&p.a, ScalarType::B32);
    let b = cx.read(&p.b, ScalarType::B32);
    let constant = match &p.c {
        Src::Imm(c) => Some(*c as u32),
        _ => None,
    };
    let r = match (constant, p.mode) {
        (Some(c), None) => fixed(cx, a, b, c & 0xffff),
        (Some(c), Some(m)) => fixed(cx, a, b, mode_selectors(m)[(c & 3) as usize]),
        (None, mode) => {
            let c = cx.read(&p.c, ScalarType::B32);
            let sel = match mode {
                None => c,
                Some(m) => {
                    // The four selectors packed into a 64-bit constant, indexed by c & 3.
                    let table = mode_selectors(m)
                        .iter()
                        .rev()
                        .fold(0u64, |t, s| (t << 16) | u64::from(*s));
                    let three = c32(cx, 3);
                    let idx = cx.b.bin(BinOp::And, c, three);
                    let four = c32(cx, 4);
                    let bits = cx.b.bin(BinOp::Shl, idx, four);
                    let bits = cx.b.conv(ConvOp::ZExt, bits, Ty::I64);
                    let t = cx.b.konst(Ty::I64, table);
                    let t = cx.b.bin(BinOp::LShr, t, bits);
                    cx.b.conv(ConvOp::Trunc, t, Ty::I32)
                }
            };
            dynamic(cx, a, b, sel)
        }
    };
    cx.write(&p.dst, r);
}

/// A selector known at translation time: runs of consecutive bytes from one source become a
/// single bit-field extract and insert (the identity `0x3210` is just `a`).
fn fixed(cx: &mut Cx<'_>, a: ValueId, b: ValueId, sel: u32) -> ValueId {
    let nib = |i: u32| (sel >> (4 * i)) & 0xf;
    let mut acc: Option<ValueId> = None;
    let mut i = 0;
    while i < 4 {
        let s = nib(i);
        let src = if s & 4 == 0 { a } else { b };
        let byte = s & 3;
        let (value, len) = if s & 8 != 0 {
            // The byte's sign bit, replicated over 8 bits.
            (extract_at(cx, true, src, byte * 8 + 7, 1), 1)
        } else {
            // Extend the run while the next byte of d is the next byte of the same source.
            let mut len = 1;
            while i + len < 4 && nib(i + len) == s + len && byte + len < 4 {
                len += 1;
            }
            let v = if byte == 0 && len == 4 {
                src
            } else {
                extract_at(cx, false, src, byte * 8, len * 8)
            };
            (v, len)
        };
        acc = Some(match acc {
            None => value,
            Some(acc) => {
                let (o, n) = (c32(cx, 8 * i), c32(cx, 8 * len));
                insert(cx, acc, value, o, n)
            }
        });
        i += len;
    }
    // `acc` starts with byte 0 in place (an extract at offset 0 of d), so it is always set.
    acc.unwrap_or(a)
}

/// A selector known only at run time.
fn dynamic(cx: &mut Cx<'_>, a: ValueId, b: ValueId, sel: ValueId) -> ValueId {
    let zero = c32(cx, 0);
    let mut acc = zero;
    for i in 0..4 {
        let s = extract_at(cx, false, sel, 4 * i, 4);
        let four = c32(cx, 4);
        let from_b = cx.b.bin(BinOp::And, s, four);
        let from_b = cx.b.bin(BinOp::INe, from_b, zero);
        let src = cx.b.select(from_b, b, a);
        let three = c32(cx, 3);
        let byte = cx.b.bin(BinOp::And, s, three);
        let off = cx.b.bin(BinOp::Shl, byte, three);
        let eight = c32(cx, 8);
        let value = extract(cx, false, src, off, eight);
        let seven = c32(cx, 7);
        let sign_at = cx.b.bin(BinOp::IAdd, off, seven);
        let one = c32(cx, 1);
        let sign = extract(cx, true, src, sign_at, one);
        let replicate = cx.b.bin(BinOp::And, s, eight);
        let replicate = cx.b.bin(BinOp::INe, replicate, zero);
        let v = cx.b.select(replicate, sign, value);
        let at = c32(cx, 8 * i);
        acc = insert(cx, acc, v, at, eight);
    }
    acc
}
