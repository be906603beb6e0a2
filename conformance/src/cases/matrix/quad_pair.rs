//! `mma.sync.aligned.m8n8k4` with `.f16` multiplicands (sm_70): the warp computes four 8x8x4
//! products, computation `q` on lanes `4q .. 4q + 3` (the low group) and `16 + 4q ..` (the high
//! group). Each computation has matrices of its own; fragments are placed by the formulas of the
//! ISA's "Matrix Fragments for mma.m8n8k4 with .f16 floating point type", for both layouts of A
//! and of B and both accumulator types, and D is judged as for the other shapes.

use super::elem::{ElemType, pack, thread_words, unpack};
use super::fragment::{Form, Mats, check_elem, fragment_kernel};
use super::{launched_case, one_warp};
use crate::values::Rng;
use crate::{Case, Outcome};

const FAMILY: &str = "warp matrix m8n8k4";

/// `(row, col)` of element `i` of lane `lane`'s A fragment (8x4).
fn a_pos(row_major: bool, lane: u32, i: u32) -> (u32, u32) {
    let high = if lane < 16 { 0 } else { 4 };
    if row_major {
        // row = %laneid % 4 (+ 4 if %laneid >= 16), col = i.
        (lane % 4 + high, i)
    } else {
        // row = i % 4 (+ 4 if %laneid >= 16), col = %laneid % 4.
        (i % 4 + high, lane % 4)
    }
}

/// `(row, col)` of element `i` of the B fragment (4x8).
fn b_pos(row_major: bool, lane: u32, i: u32) -> (u32, u32) {
    let high = if lane < 16 { 0 } else { 4 };
    if row_major {
        // row = %laneid % 4, col = i (+ 4 if %laneid >= 16).
        (lane % 4, i + high)
    } else {
        // row = i, col = %laneid % 4 (+ 4 if %laneid >= 16).
        (i, lane % 4 + high)
    }
}

/// `(row, col)` of element `i` of a C or D fragment of type `t`.
fn c_pos(t: ElemType, lane: u32, i: u32) -> (u32, u32) {
    let high = if lane < 16 { 0 } else { 4 };
    if t == ElemType::F16 {
        // row = %laneid % 4 (+ 4), col = i.
        (lane % 4 + high, i)
    } else {
        // row = X (+ 4), X = (%laneid & 0b1) + (i & 0b10); col = (i & 0b100) +
        // (%laneid & 0b10) + (i & 0b1).
        ((lane & 1) + (i & 2) + high, (i & 4) + (lane & 2) + (i & 1))
    }
}

fn layout(row: bool) -> &'static str {
    if row { "row" } else { "col" }
}

fn case(d: ElemType, c: ElemType, a_row: bool, b_row: bool, seed: u64) -> Case {
    let form = Form {
        m: 8,
        n: 8,
        k: 4,
        d,
        a: ElemType::F16,
        b: ElemType::F16,
        c,
        satfinite: false,
        and: false,
        kind: false,
    };
    let mnemonic = format!(
        "mma.sync.aligned.m8n8k4.{}.{}.{}.f16.f16.{}",
        layout(a_row),
        layout(b_row),
        d.name(),
        c.name()
    );
    let regs = |t: ElemType| if t == ElemType::F16 { 4 } else { 8 };
    let inputs = [
        (ElemType::F16, 2, true),
        (ElemType::F16, 2, true),
        (c, regs(c), true),
    ];
    let (ptx, in_stride, out_stride) = fragment_kernel(&mnemonic, &inputs, (d, regs(d)), "");
    let mut rng = Rng::new(seed);
    // One set of matrices for each computation.
    let mats: Vec<Mats> = (0..4)
        .map(|_| super::fragment::random_mats(&form, &mut rng))
        .collect();
    let mut words = Vec::new();
    for lane in 0..32u32 {
        let x = &mats[(lane as usize >> 2) & 3];
        let a: Vec<u64> = (0..4)
            .map(|i| {
                let (r, k) = a_pos(a_row, lane, i);
                x.a[(r * 4 + k) as usize]
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|i| {
                let (k, col) = b_pos(b_row, lane, i);
                x.b[(k * 8 + col) as usize]
            })
            .collect();
        let cs: Vec<u64> = (0..8)
            .map(|i| {
                let (r, col) = c_pos(c, lane, i);
                x.c[(r * 8 + col) as usize]
            })
            .collect();
        words.extend(pack(ElemType::F16, &a));
        words.extend(pack(ElemType::F16, &b));
        words.extend(pack(c, &cs));
    }
    debug_assert_eq!(words.len() as u32 * 4, in_stride * 32);
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let name = format!("matrix/{mnemonic}/{seed}");
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    let mut case = launched_case(name, ptx, launch, move |out| {
        for lane in 0..32u32 {
            let words = thread_words(&out[1], lane, out_stride);
            let x = &mats[(lane as usize >> 2) & 3];
            for (i, &got) in (0u32..).zip(&unpack(d, &words, 8)) {
                let (r, col) = c_pos(d, lane, i);
                if let Some(why) = check_elem(&form, x, r as usize, col as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{col}] (lane {lane}, d{i}): {why}"));
                }
            }
        }
        Outcome::Pass
    });
    case.family = FAMILY;
    case
}

pub(super) fn cases() -> Vec<Case> {
    let types = [
        (ElemType::F32, ElemType::F32),
        (ElemType::F16, ElemType::F16),
        (ElemType::F32, ElemType::F16),
        (ElemType::F16, ElemType::F32),
    ];
    let layouts = [(true, true), (true, false), (false, true), (false, false)];
    // Case 4a + b: layouts a, types (a + b) % 4, so that every fourth case (`--quick`) still
    // has every layout pair and every accumulator pairing.
    (0..16u64)
        .map(|i| {
            let (a, b) = (i as usize / 4, i as usize % 4);
            let (d, c) = types[(a + b) % 4];
            let (a_row, b_row) = layouts[a];
            case(d, c, a_row, b_row, 4000 + i)
        })
        .collect()
}
