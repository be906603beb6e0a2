//! ISA 8.7.5, logic and shift instructions: reference models from the instruction descriptions.

use ptxvk_translator::ScalarType::{self, *};

use super::int::{case, elementwise, input_rows, mask, rows_with_amounts};
use crate::Case;
use crate::values::rows;

const FAMILY: &str = "8.7.5 logic and shift";

/// The function `lop3` computes for `immLut` at one bit position: the ISA defines `immLut` as
/// `F(0xF0, 0xCC, 0xAA)`, so `F(x, y, z)` is bit `k` of `immLut` for the `k` where bit `k` of
/// 0xF0, 0xCC and 0xAA are `x`, `y` and `z`.
fn lut_bit(lut: u8, x: u64, y: u64, z: u64) -> u64 {
    let (ta, tb, tc) = (0xF0u8, 0xCCu8, 0xAAu8);
    (0..8)
        .find(|&k| {
            u64::from((ta >> k) & 1) == x
                && u64::from((tb >> k) & 1) == y
                && u64::from((tc >> k) & 1) == z
        })
        .map_or(0, |k| u64::from((lut >> k) & 1))
}

fn lop3_ref(lut: u8, a: u64, b: u64, c: u64) -> u64 {
    (0..32).fold(0, |d, i| {
        d | (lut_bit(lut, (a >> i) & 1, (b >> i) & 1, (c >> i) & 1) << i)
    })
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // and/or/xor/not on predicates and bit types (8.7.5.1-4).
    for ty in [Pred, B16, B32, B64] {
        let m = mask(ty);
        type ReferenceOp = fn(u64, u64) -> u64;
        let ops: [(&str, ReferenceOp); 3] = [
            ("and", |a, b| a & b),
            ("or", |a, b| a | b),
            ("xor", |a, b| a ^ b),
        ];
        for (name, f) in ops {
            v.push(case(
                FAMILY,
                format!("logic/{name}{ty}"),
                format!("{name}{ty} %d, %a, %b;"),
                &[ty, ty],
                &[ty],
                rows(&[ty, ty], 400, 300, 43),
                move |r| vec![f(r[0], r[1]) & m],
            ));
        }
        v.push(case(
            FAMILY,
            format!("logic/not{ty}"),
            format!("not{ty} %d, %a;"),
            &[ty],
            &[ty],
            input_rows(&[ty], 47),
            move |r| vec![!r[0] & m],
        ));
    }
    // cnot: d = (a == 0) ? 1 : 0 (8.7.5.5).
    for ty in [B16, B32, B64] {
        let m = mask(ty);
        v.push(case(
            FAMILY,
            format!("logic/cnot{ty}"),
            format!("cnot{ty} %d, %a;"),
            &[ty],
            &[ty],
            input_rows(&[ty], 53),
            move |r| vec![u64::from(r[0] & m == 0)],
        ));
    }
    // lop3: every immLut.
    let lop3_rows = || rows(&[B32, B32, B32], 300, 200, 59);
    for lut in 0..=255u8 {
        v.push(case(
            FAMILY,
            format!("logic/lop3.b32/{lut:#04x}"),
            format!("lop3.b32 %d, %a, %b, %c, {lut:#04x};"),
            &[B32, B32, B32],
            &[B32],
            lop3_rows(),
            move |r| vec![lop3_ref(lut, r[0], r[1], r[2])],
        ));
    }
    // lop3.or/.and: p = (d != 0) op q, with q from bit 8 of a here; d may be the sink.
    for (op, f) in [
        ("or", (|x, y| x | y) as fn(bool, bool) -> bool),
        ("and", |x, y| x & y),
    ] {
        for lut in [0x80u8, 0x3f, 0x96, 0x00, 0xff] {
            for sink in [false, true] {
                let d = if sink { "_" } else { "%d" };
                let mut e = elementwise(
                    FAMILY,
                    format!(
                        "logic/lop3.{op}.b32/{lut:#04x}{}",
                        if sink { "/sink" } else { "" }
                    ),
                    format!(
                        ".reg .pred %q;\n.reg .b32 %t;\nand.b32 %t, %a, 0x100;\nsetp.ne.b32 %q, %t, 0;\n\
                         mov.b32 %d, 0;\nlop3.{op}.b32 {d}|%e, %a, %b, %c, {lut:#04x}, %q;"
                    ),
                    &[B32, B32, B32],
                    &[B32, Pred],
                    lop3_rows(),
                    move |r| {
                        let d = lop3_ref(lut, r[0], r[1], r[2]);
                        let q = (r[0] >> 8) & 1 == 1;
                        vec![if sink { 0 } else { d }, u64::from(f(d != 0, q))]
                    },
                );
                // The predicate form was introduced in PTX ISA 8.2.
                e.version = (8, 2);
                v.push(e.case());
            }
        }
    }
    shf(&mut v);
    shifts(&mut v);
    rotates(&mut v);
    v
}

/// Rotates written as two shifts and an `or`, on 16 bits and on 16 bits held in 32: every
/// input. NVIDIA's Vulkan driver (580.159) drops the `a << 8` half of the 16-bit byte swap
/// (docs/nvidia.md); these cases keep that visible in every run on it.
fn rotates(v: &mut Vec<Case>) {
    let rot16 = |a: u64, n: u64| ((a << n) | (a >> (16 - n))) & 0xffff;
    for n in [4u64, 8] {
        v.push(case(
            FAMILY,
            format!("logic/rotate.b16/{n}"),
            format!(
                ".reg .b16 %t, %u;\nshl.b16 %t, %a, {n};\nshr.b16 %u, %a, {};\nor.b16 %d, %t, %u;",
                16 - n
            ),
            &[B16],
            &[B16],
            input_rows(&[B16], 61),
            move |r| vec![rot16(r[0], n)],
        ));
    }
    v.push(case(
        FAMILY,
        "logic/rotate.b16-in-b32/8".to_string(),
        ".reg .b32 %w, %t, %u;\ncvt.u32.u16 %w, %a;\nshl.b32 %t, %w, 8;\nshr.b32 %u, %w, 8;\n\
         or.b32 %t, %t, %u;\ncvt.u16.u32 %d, %t;"
            .to_string(),
        &[B16],
        &[B16],
        input_rows(&[B16], 67),
        move |r| vec![rot16(r[0], 8)],
    ));
}

/// shf: shift the 64-bit {b, a} by n = min(c, 32) (.clamp) or c & 0x1f (.wrap); .l keeps the
/// upper 32 bits of the shifted value, .r the lower (8.7.5.6).
fn shf(v: &mut Vec<Case>) {
    for left in [true, false] {
        for wrap in [false, true] {
            let dir = if left { "l" } else { "r" };
            let mode = if wrap { "wrap" } else { "clamp" };
            v.push(case(
                FAMILY,
                format!("logic/shf.{dir}.{mode}.b32"),
                format!("shf.{dir}.{mode}.b32 %d, %a, %b, %c;"),
                &[B32, B32, U32],
                &[B32],
                rows_with_amounts(&[B32, B32, U32], &[false, false, true], 61),
                move |r| {
                    let (a, b, c) = (r[0], r[1], r[2]);
                    let n = if wrap { c & 0x1f } else { c.min(32) };
                    let v = (u128::from(b) << 32) | u128::from(a);
                    let d = if left { (v << n) >> 32 } else { v >> n };
                    vec![d as u64 & 0xffff_ffff]
                },
            ));
        }
    }
}

/// shl, shr: shift amounts greater than the register width N are clamped to N; shr fills with
/// the sign bit for signed types and with 0 otherwise (8.7.5.7-8).
fn shifts(v: &mut Vec<Case>) {
    let types: [(ScalarType, bool); 9] = [
        (B16, true),
        (B32, true),
        (B64, true),
        (U16, false),
        (U32, false),
        (U64, false),
        (S16, false),
        (S32, false),
        (S64, false),
    ];
    for (ty, with_shl) in types {
        let n = u64::from(ty.bits());
        let m = mask(ty);
        let rows = rows_with_amounts(&[ty, U32], &[false, true], 67);
        if with_shl {
            v.push(case(
                FAMILY,
                format!("logic/shl{ty}"),
                format!("shl{ty} %d, %a, %b;"),
                &[ty, U32],
                &[ty],
                rows.clone(),
                move |r| {
                    let s = r[1].min(n);
                    vec![if s >= 64 { 0 } else { (r[0] << s) & m }]
                },
            ));
        }
        v.push(case(
            FAMILY,
            format!("logic/shr{ty}"),
            format!("shr{ty} %d, %a, %b;"),
            &[ty, U32],
            &[ty],
            rows,
            move |r| {
                let s = r[1].min(n);
                let d = if ty.is_signed() {
                    let x = super::int::sext(ty, r[0]);
                    (x >> s.min(63)) as u64
                } else if s >= 64 {
                    0
                } else {
                    (r[0] & m) >> s
                };
                vec![d & m]
            },
        ));
    }
}
