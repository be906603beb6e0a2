//! ISA 8.7.1, the bit instructions `popc clz bfind brev bfe bfi bmsk szext`: reference models
//! transcribed from each instruction's "Semantics" pseudocode.

use ptxvk_translator::ScalarType::{self, *};

use super::int::{amounts, case, mask, mask_bits, rows_with_amounts};
use crate::Case;
use crate::values::{Rng, edges, random};

const FAMILY: &str = "8.7.1 integer";

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    bits(&mut v);
    bit_fields(&mut v);
    v
}

/// popc, clz, bfind, brev: every 32-bit single-input case exhaustively would be 2^32 rows;
/// edges, every single-bit and every low-mask value, and random values instead.
fn bits(v: &mut Vec<Case>) {
    for ty in [B32, B64] {
        let n = ty.bits();
        let inputs = single_bit_rows(ty, 11);
        // popc: the number of one bits (8.7.1.14).
        v.push(case(
            FAMILY,
            format!("int/popc{ty}"),
            format!("popc{ty} %d, %a;"),
            &[ty],
            &[U32],
            inputs.clone(),
            |r| vec![u64::from(r[0].count_ones())],
        ));
        // clz: count zeros from the msb while below the width (8.7.1.15).
        v.push(case(
            FAMILY,
            format!("int/clz{ty}"),
            format!("clz{ty} %d, %a;"),
            &[ty],
            &[U32],
            inputs.clone(),
            move |r| {
                let mut d = 0;
                while d < n && (r[0] >> (n - 1 - d)) & 1 == 0 {
                    d += 1;
                }
                vec![u64::from(d)]
            },
        ));
        // brev: d[i] = a[msb - i] (8.7.1.17).
        v.push(case(
            FAMILY,
            format!("int/brev{ty}"),
            format!("brev{ty} %d, %a;"),
            &[ty],
            &[ty],
            inputs,
            move |r| {
                let d = (0..n).fold(0u64, |d, i| d | (((r[0] >> (n - 1 - i)) & 1) << i));
                vec![d]
            },
        ));
    }
    // bfind: the most significant non-sign bit; .shiftamt: msb - that position (8.7.1.16).
    for ty in [U32, U64, S32, S64] {
        for shiftamt in [false, true] {
            let msb = ty.bits() - 1;
            let m = if shiftamt { ".shiftamt" } else { "" };
            v.push(case(
                FAMILY,
                format!("int/bfind{m}{ty}"),
                format!("bfind{m}{ty} %d, %a;"),
                &[ty],
                &[U32],
                single_bit_rows(ty, 13),
                move |r| {
                    let mut a = r[0] & mask(ty);
                    if ty.is_signed() && (a >> msb) & 1 == 1 {
                        a = !a & mask(ty);
                    }
                    let mut d = 0xffff_ffffu64;
                    for i in (0..=msb).rev() {
                        if (a >> i) & 1 == 1 {
                            d = u64::from(i);
                            break;
                        }
                    }
                    if shiftamt && d != 0xffff_ffff {
                        d = u64::from(msb) - d;
                    }
                    vec![d]
                },
            ));
        }
    }
}

/// Edges, each single bit, each low mask `2^k - 1`, their complements, and random values.
fn single_bit_rows(ty: ScalarType, seed: u64) -> Vec<Vec<u64>> {
    let n = ty.bits();
    let m = mask(ty);
    let mut out: Vec<Vec<u64>> = edges(ty).into_iter().map(|x| vec![x]).collect();
    for k in 0..n {
        for x in [1u64 << k, mask_bits(k), !(1u64 << k) & m, !mask_bits(k) & m] {
            out.push(vec![x]);
        }
    }
    let mut rng = Rng::new(seed);
    for _ in 0..500 {
        let x = random(ty, &mut rng);
        // Random values with random leading zeros or ones.
        let s = rng.below(u64::from(n)) as u32;
        out.push(vec![x]);
        out.push(vec![(x >> s) & m]);
        out.push(vec![!(x >> s) & m]);
    }
    out
}

/// bfe, bfi, bmsk, szext: positions and lengths include every value below 71 and the edges of
/// the 8-bit (bfe, bfi) and 5-bit (bmsk, szext) ranges the instructions read.
fn bit_fields(v: &mut Vec<Case>) {
    // bfe (8.7.1.18): pos = b & 0xff, len = c & 0xff; sbit = 0 for unsigned or len == 0, else
    // a[min(pos + len - 1, msb)]; d[i] = (i < len && pos + i <= msb) ? a[pos + i] : sbit.
    // The 64-bit forms read all 32 bits of pos and len on NVIDIA hardware (an H200 gives
    // bfe.u64 0x1_0000_0000, 287, 8 = 0, not the field at 287 & 0xff = 31; docs/nvidia.md).
    for ty in [U32, U64, S32, S64] {
        let msb = u64::from(ty.bits() - 1);
        v.push(case(
            FAMILY,
            format!("int/bfe{ty}"),
            format!("bfe{ty} %d, %a, %b, %c;"),
            &[ty, U32, U32],
            &[ty],
            rows_with_amounts(&[ty, U32, U32], &[false, true, true], 17),
            move |r| {
                let byte = if msb == 63 { u64::MAX } else { 0xff };
                let (a, pos, len) = (r[0], r[1] & byte, r[2] & byte);
                let sbit = if !ty.is_signed() || len == 0 {
                    0
                } else {
                    (a >> (pos + len - 1).min(msb)) & 1
                };
                let d = (0..=msb).fold(0u64, |d, i| {
                    let bit = if i < len && pos + i <= msb {
                        (a >> (pos + i)) & 1
                    } else {
                        sbit
                    };
                    d | (bit << i)
                });
                vec![d]
            },
        ));
    }
    // bfi (8.7.1.19): f = b; for (i = 0; i < len && pos + i <= msb; i++) f[pos + i] = a[i].
    // The kernel's three inputs are a, b and c = pos | len << 8 | other bits: the position
    // register is c and the length register c >> 8, so both carry bits above the 8 read.
    // As for bfe, bfi.b64 reads all 32 bits of pos and len (H200: bfi.b64 with pos 0xf60100
    // leaves b as it is).
    for ty in [B32, B64] {
        let msb = u64::from(ty.bits() - 1);
        let mut rng = Rng::new(19);
        let small: Vec<u64> = amounts().into_iter().filter(|&x| x < 256).collect();
        let a_edges = edges(ty);
        let mut rows = Vec::new();
        for (k, &pos) in small.iter().enumerate() {
            for (j, &len) in small.iter().enumerate() {
                let a = a_edges[(k + j) % a_edges.len()];
                let b = random(ty, &mut rng);
                let junk = if (k + j) % 3 == 0 {
                    0
                } else {
                    rng.next_u64() & 0xffff
                };
                rows.push(vec![a, b, pos | len << 8 | junk << 16]);
            }
        }
        for _ in 0..500 {
            let c = rng.next_u64() & 0xffff_ffff;
            rows.push(vec![random(ty, &mut rng), random(ty, &mut rng), c]);
        }
        v.push(case(
            FAMILY,
            format!("int/bfi{ty}"),
            format!(".reg .b32 %len;\nshr.b32 %len, %c, 8;\nbfi{ty} %d, %a, %b, %c, %len;"),
            &[ty, ty, U32],
            &[ty],
            rows,
            move |r| {
                let byte = if msb == 63 { u64::MAX } else { 0xff };
                let (a, b, pos, len) = (r[0], r[1], r[2] & byte, (r[2] >> 8) & byte);
                let mut f = b;
                let mut i = 0;
                while i < len && pos + i <= msb {
                    f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
                    i += 1;
                }
                vec![f]
            },
        ));
    }
    // bmsk: the ISA's pseudocode, transcribed.
    for wrap in [false, true] {
        let mode = if wrap { "wrap" } else { "clamp" };
        v.push(case(
            FAMILY,
            format!("int/bmsk.{mode}.b32"),
            format!("bmsk.{mode}.b32 %d, %a, %b;"),
            &[U32, U32],
            &[B32],
            rows_with_amounts(&[U32, U32], &[true, true], 23),
            move |r| {
                let (a, b) = (r[0] as u32, r[1] as u32);
                let a1 = a & 0x1f;
                let mut mask0: u32 = !0u32 << a1;
                let b1 = b & 0x1f;
                let sum = a1 + b1;
                let mut mask1: u32 = if sum >= 32 { 0 } else { !0u32 << sum };
                let sum_overflow = sum >= 32;
                let mut pos_overflow = false;
                let mut width_overflow = false;
                if !wrap {
                    if a >= 32 {
                        pos_overflow = true;
                        mask0 = 0;
                    }
                    if b >= 32 {
                        width_overflow = true;
                    }
                }
                if sum_overflow || pos_overflow || width_overflow {
                    mask1 = 0;
                } else if b1 == 0 {
                    mask1 = !0;
                }
                vec![u64::from(mask0 & !mask1)]
            },
        ));
    }
    // szext: the ISA's pseudocode, transcribed.
    for ty in [U32, S32] {
        for wrap in [false, true] {
            let mode = if wrap { "wrap" } else { "clamp" };
            v.push(case(
                FAMILY,
                format!("int/szext.{mode}{ty}"),
                format!("szext.{mode}{ty} %d, %a, %b;"),
                &[ty, U32],
                &[ty],
                rows_with_amounts(&[ty, U32], &[false, true], 29),
                move |r| {
                    let (a, b) = (r[0] as u32, r[1] as u32);
                    let b1 = b & 0x1f;
                    let too_large = b >= 32 && !wrap;
                    let mask: u32 = if too_large { 0 } else { !0u32 << b1 };
                    let sign_pos = b1.wrapping_sub(1) & 0x1f;
                    let sign_bit = if b1 == 0 || too_large || ty != S32 {
                        false
                    } else {
                        (a >> sign_pos) & 1 == 1
                    };
                    let d = (a & !mask) | if sign_bit { mask } else { 0 };
                    vec![u64::from(d)]
                },
            ));
        }
    }
}
