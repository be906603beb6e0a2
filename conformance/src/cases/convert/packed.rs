//! The packing conversions (`.f16x2`, `.bf16x2`, `cvt.pack`), `.tf32`, and registers wider than
//! the instruction types.

use ptxvk_translator::ScalarType::{self, *};

use crate::cases::convert_model::{self as model, Mode, Mods};
use crate::elementwise::Elementwise;
use crate::values::{Rng, random, rows};
use crate::{Case, Expect};

use super::scalar::{FAMILY, boundaries, dst_scalar, input_rows, mask, seed, text};

/// `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`, checked through its two halves.
pub(super) fn packed(dst: ScalarType, rnd: (&str, Mode), m: Mods) -> Case {
    let half = dst_scalar(dst);
    let m = Mods {
        mode: Some(rnd.1),
        ..m
    };
    let op = format!("{}{dst}.f32", text(Some(rnd.0), &m));
    let name = format!("cvt/{op}");
    let mut rows = rows(&[F32, F32], 400, 300, seed(&name));
    let b = boundaries(half, F32);
    let mut rng = Rng::new(seed(&name) ^ 1);
    for (i, v) in b.iter().enumerate() {
        let other = b
            .get((i * 7 + 3) % b.len())
            .copied()
            .unwrap_or_else(|| random(F32, &mut rng));
        rows.push(vec![*v, other]);
    }
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(".reg .b32 %packed;\n{op} %packed, %a, %b;\nmov.b32 {{%e, %d}}, %packed;"),
        &[F32, F32],
        &[half, half],
        rows,
        move |r| {
            vec![
                model::cvt(half, F32, m, r[0]),
                model::cvt(half, F32, m, r[1]),
            ]
        },
    );
    e.sm = 100;
    e.version = (8, 6);
    e.lowest_target = true;
    e.case()
}

/// `cvt.{rna,rn,rz}{.relu}{.satfinite}.tf32.f32`: the result is read as the .f32 bit pattern
/// ptxvk defines for .tf32 (the value, with the 13 low fraction bits zero).
pub(super) fn tf32(rnd: (&str, Mode), m: Mods) -> Case {
    let m = Mods {
        mode: Some(rnd.1),
        ..m
    };
    let op = format!("{}.tf32.f32", text(Some(rnd.0), &m));
    let name = format!("cvt/{op}");
    let rows = input_rows(Tf32, F32, &name);
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(".reg .b32 %t;\n{op} %t, %a;\nmov.b32 %d, %t;"),
        &[F32],
        &[F32],
        rows,
        move |r| {
            vec![match model::cvt(Tf32, F32, m, r[0]) {
                Expect::Bits(b) => Expect::Bits(b << 13),
                other => other,
            }]
        },
    );
    e.sm = 100;
    e.version = (8, 6);
    e.lowest_target = true;
    e.case()
}

/// `cvt.pack.sat.convertType.s32{.b32}`.
pub(super) fn pack(bits: u32, signed: bool) -> Case {
    let ty = format!("{}{bits}", if signed { "s" } else { "u" });
    let with_c = bits < 16;
    let op = if with_c {
        format!("cvt.pack.sat.{ty}.s32.b32")
    } else {
        format!("cvt.pack.sat.{ty}.s32")
    };
    let name = format!("cvt/{op}");
    let inputs: &[ScalarType] = if with_c {
        &[S32, S32, B32]
    } else {
        &[S32, S32]
    };
    let operands = if with_c {
        "%d, %a, %b, %c"
    } else {
        "%d, %a, %b"
    };
    let mut r = rows(inputs, 400, 300, seed(&name));
    // Values around the convert type's range.
    let lim = 1i64 << (bits - 1);
    let around: Vec<i64> = [
        -2 * lim - 1,
        -lim - 1,
        -lim,
        -1,
        0,
        1,
        lim - 1,
        lim,
        2 * lim,
    ]
    .into_iter()
    .collect();
    for (i, a) in around.iter().enumerate() {
        for b in &around {
            let mut row = vec![*a as u64 & 0xffff_ffff, *b as u64 & 0xffff_ffff];
            if with_c {
                row.push(0x9e37_79b9_u64.rotate_left(i as u32) & 0xffff_ffff);
            }
            r.push(row);
        }
    }
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!("{op} {operands};"),
        inputs,
        &[U32],
        r,
        move |r| {
            vec![Expect::Bits(model::pack(
                bits,
                signed,
                r[0],
                r[1],
                r.get(2).copied(),
            ))]
        },
    );
    e.sm = 90;
    e.version = (8, 0);
    e.case()
}

/// `cvt` with registers wider than the instruction types (ISA 8.7.6.13 Notes): the source's low
/// bits are converted; the result is sign-extended into the destination register for signed
/// integer types and zero-extended otherwise.
pub(super) fn wider(
    op: &str,
    dst: ScalarType,
    src: ScalarType,
    dreg: ScalarType,
    sreg: ScalarType,
) -> Case {
    let name = format!(
        "cvt/wider-registers/{op}{dst}{src}-{}-from-{}",
        dreg.name(),
        sreg.name()
    );
    // NaN results are checked by the other cases; here a NaN in a .b32 register could not be
    // told from other bits.
    let rows: Vec<Vec<u64>> = rows(&[sreg], 400, 300, seed(&name))
        .into_iter()
        .filter(|r| !(src.is_float() && model::to_f64(r[0] & mask(src), src).is_nan()))
        .collect();
    let m = Mods {
        mode: match op {
            "cvt.rn" => Some(Mode::Even),
            "cvt.rzi" => Some(Mode::Zero),
            _ => None,
        },
        integer: op == "cvt.rzi",
        ..Mods::default()
    };
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!("{op}{dst}{src} %d, %a;"),
        &[sreg],
        &[dreg],
        rows,
        move |r| {
            let a = r[0] & mask(src);
            vec![match model::cvt(dst, src, m, a) {
                Expect::Bits(b) => {
                    let b = b & mask(dst);
                    let s = 64 - dst.bits();
                    Expect::Bits(if dst.is_signed() {
                        (((b << s) as i64) >> s) as u64
                    } else {
                        b
                    })
                }
                other => other,
            }]
        },
    );
    e.sm = 90;
    e.version = (8, 0);
    e.case()
}
