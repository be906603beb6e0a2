//! `mma.sp` and `mma.sp::ordered_metadata`: A is structured sparse (2:4; 1:2 for `.tf32`; pairs
//! 4:8 for the 4-bit types), its registers holding the non-zero elements of each chunk and a
//! metadata register the places of those elements, held by the threads of each group of four
//! that the sparsity selector names. The model builds a dense A with random zero places, places
//! the non-zero elements by the ISA's "Matrix fragments for multiply-accumulate operation with
//! sparse matrix A" formulas (row and first column of each element) and the metadata by the
//! layout of its figures as they read in text (threads `2f`, `2f + 1` of the pair forms holding
//! columns 0-15 and 16-31 of the chunks, 16 bits for row `groupID` then 16 for row
//! `groupID + 8`, each chunk a 4-bit field of two 2-bit indices, lowest first), gives the other
//! threads random metadata, and judges D against the dense product as for `mma`.

use super::elem::{ElemType, pack, thread_words, unpack};
use super::fragment::{Form, Mats, b_pos, c_pos, check_elem, fragment_kernel, random_mats};
use super::{for_kind, launched_case, one_warp};
use crate::values::Rng;
use crate::{Case, Outcome};

pub(super) const FAMILY: &str = "sparse warp matrix";

/// Elements of a chunk, which one 4-bit metadata field describes.
pub(in crate::cases) fn chunk_width(a: ElemType) -> u32 {
    match a.bits() {
        32 => 2,
        4 => 8,
        _ => 4,
    }
}

/// `(row, firstcol)` of element `i` of lane `lane`'s A fragment: the ISA's tables, each
/// register's elements being the non-zero ones of columns `firstcol ..` in order.
fn a_pos(f: &Form, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    let row = |low: bool| if low { g } else { g + 8 };
    match (f.a, f.k) {
        (ElemType::F16 | ElemType::Bf16, 16) => (row(i < 2), t * 4),
        (ElemType::F16 | ElemType::Bf16, 32) => (
            row(i < 2 || (4..6).contains(&i)),
            t * 4 + if i < 4 { 0 } else { 16 },
        ),
        (ElemType::Tf32, 8) => (row(i == 0), t * 2),
        (ElemType::Tf32, 16) => (row(i % 2 == 0), t * 2 + if i < 2 { 0 } else { 8 }),
        (ElemType::S8 | ElemType::U8, 32) => (row(i < 4), t * 8),
        (
            ElemType::S8
            | ElemType::U8
            | ElemType::E4m3
            | ElemType::E5m2
            | ElemType::E3m2
            | ElemType::E2m3
            | ElemType::E2m1,
            64,
        ) => (
            row(i < 4 || (8..12).contains(&i)),
            t * 8 + if i < 8 { 0 } else { 32 },
        ),
        (ElemType::S4 | ElemType::U4, 64) => (row(i < 8), t * 16),
        (ElemType::S4 | ElemType::U4, 128) => (
            row(i < 8 || (16..24).contains(&i)),
            t * 16 + if i < 16 { 0 } else { 64 },
        ),
        _ => (0, 0),
    }
}

/// One form: the dense form it computes, the variant and the sparsity selector.
#[derive(Clone, Copy)]
struct Sp {
    f: Form,
    ordered: bool,
    selector: u32,
}

impl Sp {
    fn mnemonic(&self) -> String {
        let f = &self.f;
        let mut s = format!(
            "mma.sp{}.sync.aligned.m16n8k{}.row.col",
            if self.ordered {
                "::ordered_metadata"
            } else {
                ""
            },
            f.k
        );
        if f.kind {
            s.push_str(".kind::f8f6f4");
        }
        if f.satfinite {
            s.push_str(".satfinite");
        }
        for t in [f.d, f.a, f.b, f.c] {
            s.push('.');
            s.push_str(t.name());
        }
        s
    }
}

/// A random sparse A: the dense matrix (zeros where the metadata says), each row's non-zero
/// elements in order, and each row's metadata fields (one per chunk).
fn sparse_a(sp: &Sp, rng: &mut Rng) -> SparseA {
    let a = sp.f.a;
    sparse_rows(a, 16, sp.f.k, sp.ordered, rng, &mut |rng| a.random(rng))
}

/// A sparse A's dense matrix, each row's non-zero elements in order, and each row's metadata
/// fields.
pub(in crate::cases) type SparseA = (Vec<u64>, Vec<Vec<u64>>, Vec<Vec<u32>>);

/// [`sparse_a`] for `rows` rows of `k` elements of `a`, each element drawn by `random`.
pub(in crate::cases) fn sparse_rows(
    a: ElemType,
    rows: usize,
    k: u32,
    ordered: bool,
    rng: &mut Rng,
    random: &mut dyn FnMut(&mut Rng) -> u64,
) -> SparseA {
    let (k, w) = (k as usize, chunk_width(a));
    let mut dense = vec![0u64; rows * k];
    let mut packed = Vec::new();
    let mut fields = Vec::new();
    for r in 0..rows {
        let mut nz = Vec::new();
        let mut fr = Vec::new();
        for c in 0..k as u32 / w {
            // Two distinct 2-bit indices, increasing for `::ordered_metadata`.
            let (i0, i1) = loop {
                let (i0, i1) = (rng.below(4) as u32, rng.below(4) as u32);
                if i0 != i1 && (!ordered || i0 < i1) {
                    break (i0, i1);
                }
            };
            // The columns the chunk's non-zero elements go to, in A's order.
            let cols: Vec<u32> = match w {
                // `.tf32`: 0b0100 (the first element) or 0b1110 (the second).
                2 => {
                    let second = rng.below(2) == 1;
                    fr.push(if second { 0b1110 } else { 0b0100 });
                    vec![u32::from(second)]
                }
                8 => {
                    fr.push(i0 | i1 << 2);
                    vec![2 * i0, 2 * i0 + 1, 2 * i1, 2 * i1 + 1]
                }
                _ => {
                    fr.push(i0 | i1 << 2);
                    vec![i0, i1]
                }
            };
            for col in cols {
                let v = random(rng);
                dense[r * k + (c * w + col) as usize] = v;
                nz.push(v);
            }
        }
        packed.push(nz);
        fields.push(fr);
    }
    (dense, packed, fields)
}

fn case(sp: Sp, seed: u64) -> Case {
    let f = sp.f;
    let mut rng = Rng::new(seed);
    let mut x: Mats = random_mats(&f, &mut rng);
    let (dense, packed, fields) = sparse_a(&sp, &mut rng);
    x.a = dense;
    let (_, eb, ec) = f.elems();
    let ea = f.k / 4;
    let inputs = [
        (f.a, f.regs(f.a, ea), true),
        (f.b, f.regs(f.b, eb), true),
        (f.c, f.regs(f.c, ec), true),
        (ElemType::S32, 1, false),
    ];
    let tail = format!(", {}", sp.selector);
    let mnemonic = sp.mnemonic();
    let (ptx, in_stride, out_stride) =
        fragment_kernel(&mnemonic, &inputs, (f.d, f.regs(f.d, ec)), &tail);
    let ptx = for_kind(ptx, f.kind);
    // Threads of a group holding metadata, and the first of them.
    let holders = (f.k / chunk_width(f.a) / 4).max(1);
    let first = sp.selector * holders;
    let per_reg = f.a.per_reg();
    let n = f.n as usize;
    let mut words = Vec::new();
    for lane in 0..32u32 {
        let a: Vec<u64> = (0..ea)
            .map(|i| {
                let (r, firstcol) = a_pos(&f, lane, i);
                // Columns before `firstcol` hold half as many non-zero elements.
                packed[r as usize][(firstcol / 2 + i % per_reg) as usize]
            })
            .collect();
        let b: Vec<u64> = (0..eb)
            .map(|i| {
                let (r, col) = b_pos(&f, lane, i);
                x.b[r as usize * n + col as usize]
            })
            .collect();
        let c: Vec<u64> = (0..ec)
            .map(|i| {
                let (r, col) = c_pos(lane, i);
                x.c[r as usize * n + col as usize]
            })
            .collect();
        let (g, t) = (lane as usize >> 2, lane % 4);
        let meta = if (first..first + holders).contains(&t) {
            let p = (t - first) as usize;
            (0..4).fold(0u32, |m, j| {
                m | fields[g][4 * p + j] << (4 * j) | fields[g + 8][4 * p + j] << (16 + 4 * j)
            })
        } else {
            rng.next_u64() as u32
        };
        words.extend(pack(f.a, &a));
        words.extend(pack(f.b, &b));
        words.extend(pack(f.c, &c));
        words.push(meta);
    }
    debug_assert_eq!(words.len() as u32 * 4, in_stride * 32);
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let name = format!("matrix/{mnemonic}/{}/{seed}", sp.selector);
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    let mut case = launched_case(name, ptx, launch, move |out| {
        for lane in 0..32u32 {
            let words = thread_words(&out[1], lane, out_stride);
            for (i, &got) in (0u32..).zip(&unpack(f.d, &words, ec as usize)) {
                let (r, col) = c_pos(lane, i);
                if let Some(why) = check_elem(&f, &x, r as usize, col as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{col}] (lane {lane}, d{i}): {why}"));
                }
            }
        }
        Outcome::Pass
    });
    case.family = FAMILY;
    case
}

fn forms() -> Vec<Sp> {
    let sp = |k, d, a, b, satfinite, ordered, selector| Sp {
        f: Form {
            m: 16,
            n: 8,
            k,
            d,
            a,
            b,
            c: d,
            satfinite,
            and: false,
            kind: false,
        },
        ordered,
        selector,
    };
    use ElemType::*;
    // In an order that gives `--quick` (every fourth case) both variants, one, two and four
    // metadata holders and 16-bit, 32-bit, 8-bit integer and 8-bit float elements.
    vec![
        sp(16, F32, F16, F16, false, false, 1),
        sp(16, F16, F16, F16, false, true, 2),
        sp(32, F16, F16, F16, false, false, 0),
        sp(16, F32, Bf16, Bf16, false, true, 3),
        sp(32, F32, Bf16, Bf16, false, false, 1),
        sp(8, F32, Tf32, Tf32, false, true, 0),
        sp(32, F32, F16, F16, false, true, 1),
        sp(64, F32, E5m2, E4m3, false, false, 0),
        sp(16, F32, Tf32, Tf32, false, false, 1),
        sp(32, S32, S8, S8, false, false, 1),
        sp(128, S32, S4, U4, false, true, 0),
        sp(64, S32, S8, U8, false, true, 0),
        sp(32, S32, U8, S8, true, true, 0),
        sp(64, S32, U8, U8, true, false, 0),
        sp(64, S32, S4, S4, false, false, 1),
        sp(64, S32, U4, S4, true, true, 0),
        sp(64, F32, E4m3, E5m2, false, true, 0),
        sp(128, S32, U4, U4, true, false, 0),
        sp(8, F32, Tf32, Tf32, false, false, 0),
        // `.kind::f8f6f4`: fp6 by fp4, `.f16` accumulators.
        Sp {
            f: Form {
                kind: true,
                ..sp(64, F16, E3m2, E2m1, false, true, 0).f
            },
            ..sp(64, F16, E3m2, E2m1, false, true, 0)
        },
    ]
}

pub(super) fn cases() -> Vec<Case> {
    (0u64..)
        .zip(forms())
        .map(|(i, sp)| case(sp, 5000 + i))
        .collect()
}
