//! ISA 8.7.6.5, `prmt`: the generic form and every mode, with the selector in a register and as
//! an immediate (which ptxvk translates differently).

use ptxvk_translator::ScalarType::*;

use super::int::case;
use crate::Case;
use crate::values::{Rng, rows};

const FAMILY: &str = "8.7.6.5 prmt";

const MODES: [&str; 6] = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];

/// The mode table of the ISA: for `c[1:0]` = 0..3, the source byte of d.b3, d.b2, d.b1, d.b0.
/// The `.ecl` rows are NVIDIA's current text; the ISA 4.1 copy in shared/ptx-isa has them garbled
/// (every row `3 2 1 0`), see docs/decisions/0056-prmt.md.
fn mode_table(mode: &str) -> [[u64; 4]; 4] {
    match mode {
        "f4e" => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        "b4e" => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        "rc8" => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl" => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        "ecr" => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        _ => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    }
}

/// The ISA's semantics: tmp64 = (b << 32) | a; four selectors from c (or from the mode table);
/// each byte of d is ReadByte(mode, ctl, tmp64): the selected byte, or in the generic form with
/// the selector's msb set, that byte's sign replicated.
fn reference(mode: Option<&str>, a: u64, b: u64, c: u64) -> u64 {
    let tmp64 = (b << 32) | (a & 0xffff_ffff);
    let byte = |k: u64| (tmp64 >> (8 * k)) & 0xff;
    (0..4).fold(0, |d, i| {
        let v = match mode {
            None => {
                let ctl = (c >> (4 * i)) & 0xf;
                let v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    if v & 0x80 != 0 { 0xff } else { 0 }
                } else {
                    v
                }
            }
            Some(m) => byte(mode_table(m)[(c & 3) as usize][3 - i as usize]),
        };
        d | (v << (8 * i))
    })
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut selectors = rows(&[B32, B32, B32], 300, 500, 71);
    // Selectors of every nibble value in every position.
    for k in 0..64u64 {
        selectors.push(vec![
            0x8081_7f01 ^ k,
            0xfe7f_8000 ^ (k << 8),
            k * 0x1111_1111 % 0x1_0000_0000,
        ]);
    }
    for mode in std::iter::once(None).chain(MODES.iter().map(|m| Some(*m))) {
        let suffix = mode.map_or(String::new(), |m| format!(".{m}"));
        v.push(case(
            FAMILY,
            format!("prmt/prmt.b32{suffix}"),
            format!("prmt.b32{suffix} %d, %a, %b, %c;"),
            &[B32, B32, B32],
            &[B32],
            selectors.clone(),
            move |r| vec![reference(mode, r[0], r[1], r[2])],
        ));
    }
    // Immediate selectors: every mode with c = 0..3 (and bits above the two read), and generic
    // selectors: the identity, byte swaps, runs across a and b, sign replication, random ones.
    let mut imm: Vec<(Option<&str>, u64)> = Vec::new();
    for m in MODES {
        for c in [0, 1, 2, 3, 0xfffc, 0x7] {
            imm.push((Some(m), c));
        }
    }
    let mut rng = Rng::new(73);
    let mut generic = vec![
        0x3210,
        0x0123,
        0x7654,
        0x5432,
        0x4321,
        0x6543,
        0x1032,
        0x3322,
        0x0000,
        0x7777,
        0x8888,
        0xba98,
        0xfedc,
        0x9810,
        0x3b1a,
        0x7531,
        0x4440,
        0x1_3210,
        0xffff_3210,
    ];
    for _ in 0..16 {
        generic.push(rng.next_u64() & 0xffff_ffff);
    }
    imm.extend(generic.into_iter().map(|c| (None, c)));
    for (mode, c) in imm {
        let suffix = mode.map_or(String::new(), |m| format!(".{m}"));
        v.push(case(
            FAMILY,
            format!("prmt/prmt.b32{suffix}/imm{c:#x}"),
            format!("prmt.b32{suffix} %d, %a, %b, {c:#x};"),
            &[B32, B32],
            &[B32],
            rows(&[B32, B32], 300, 300, 79),
            move |r| vec![reference(mode, r[0], r[1], c)],
        ));
    }
    v
}
