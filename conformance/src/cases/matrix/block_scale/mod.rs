//! Block-scaled `mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`), and the fp8 forms
//! with `.f16` accumulators.
//!
//! The model, from the ISA text: `D = (A * scale_A) * (B * scale_B) + C`, each row of A (column
//! of B) cut along K into `.scale_vec` chunks, chunk `j` multiplied by `scale_A[row][j]`
//! (`scale_B[j][col]`). `.ue8m0` is `2^(x - 127)`; `.ue4m3` an `.e4m3` without sign. A and B sit
//! in the fragment layouts of `mma.m16n8k32` with 8-bit elements (`.e2m1` in bits 2-5 and the
//! fp6 types in bits 0-5 of their containers) for `.kind::mxf8f6f4`, and of `mma.m16n8k64` with
//! 4-bit elements for the mxf4 kinds ("no explicit padding"). The scale factors, by "Block
//! Scaling for mma.sync": `thread-id-a` picks the thread pair (threads `2 * thread-id-a` and
//! `+ 1` of each group of four) whose lower thread holds the factors of row `groupID` and
//! upper thread those of row `groupID + 8`; `thread-id-b` picks the thread of each group
//! holding column `groupID`'s; of that thread's `.b32`, byte `byte-id + j` is chunk `j`'s
//! factor. Every other byte and every other thread's register is random, so a lowering that
//! read the wrong one fails. D is judged as for every `mma`: within the accumulation bound of
//! docs/decisions/0111-mma-accumulation-order.md around the exact value.
//!
//! The sparse forms (`mma.sp::ordered_metadata`, m16n8k64 and m16n8k128) take a dense A with
//! zeros where its metadata says (2:4 for the 8-bit containers, pair-wise 4:8 for the packed
//! `.e2m1`), its non-zero elements in the sparse fragment layouts and its metadata in all four
//! threads of each group, as `sparse` builds them; the scale chunks cut the dense K, so each
//! holds half of its stored elements.

mod forms;

pub(super) use forms::cases;

use super::elem::{ElemType, pack, thread_words, unpack};
use super::fragment::{Form, Mats, c_pos, check_elem, fragment_kernel, fragments};
use super::sparse::{SparseA, sparse_rows};
use super::{for_kind, launched_case, one_warp};
use crate::cases::kernel_case::rejected_line;
use crate::values::Rng;
use crate::{Case, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

#[derive(Clone, Copy, Debug)]
struct Scaled {
    kind: Kind,
    /// A's and B's types (`.e2m1` for the mxf4 kinds).
    a: ElemType,
    b: ElemType,
    /// `.scale_vec::NX`.
    vec: u32,
    /// `.ue4m3` (else `.ue8m0`).
    ue4m3: bool,
    /// `{byte-id-a, thread-id-a}`, `{byte-id-b, thread-id-b}`.
    sel: (u32, u32, u32, u32),
    /// The selectors in `.b16` registers rather than constants.
    regs: bool,
    /// Row 3's factors are the `.ue8m0` NaN, 0xFF.
    nan: bool,
    /// `.ue8m0` factors at the ends of the range: A's near 2^-126, B's near 2^127, whose
    /// product is moderate though neither factor alone scales a product within f32's range.
    extreme: bool,
    /// `mma.sp::ordered_metadata`, A structured sparse at twice the K.
    sparse: bool,
}

impl Scaled {
    fn k(&self) -> u32 {
        let k = if self.kind == Kind::Mxf8f6f4 { 32 } else { 64 };
        if self.sparse { 2 * k } else { k }
    }

    fn mnemonic(&self) -> String {
        let kind = match self.kind {
            Kind::Mxf8f6f4 => "mxf8f6f4",
            Kind::Mxf4 => "mxf4",
            Kind::Mxf4nvf4 => "mxf4nvf4",
        };
        format!(
            "mma{}.sync.aligned.m16n8k{}.row.col.kind::{kind}.block_scale.scale_vec::{}X.f32.{}.{}.f32.{}",
            if self.sparse {
                ".sp::ordered_metadata"
            } else {
                ""
            },
            self.k(),
            self.vec,
            self.a.name(),
            self.b.name(),
            if self.ue4m3 { "ue4m3" } else { "ue8m0" }
        )
    }

    /// Bits per element in the registers: 8 (containers) or 4 (packed `.e2m1`).
    fn bits(&self) -> u32 {
        if self.kind == Kind::Mxf8f6f4 { 8 } else { 4 }
    }

    /// The value of an element's bits.
    fn value(&self, t: ElemType, b: u64) -> f64 {
        if self.bits() == 4 {
            // A packed `.e2m1` nibble is the container's bits 2-5.
            ElemType::E2m1.value((b & 0xF) << 2)
        } else {
            t.value(b)
        }
    }

    /// The value of a scale byte.
    fn scale(&self, x: u8) -> f64 {
        if self.ue4m3 {
            ElemType::E4m3.value(u64::from(x & 0x7F))
        } else if x == 0xFF {
            f64::NAN
        } else {
            2f64.powi(i32::from(x) - 127)
        }
    }
}

/// `(row, col)` of A element `i` of `lane`: the 8-bit m16n8k32 table, or the 4-bit m16n8k64 one.
fn a_pos(s: &Scaled, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    if s.bits() == 8 {
        let low = i < 4 || (8..12).contains(&i);
        (
            if low { g } else { g + 8 },
            t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 },
        )
    } else {
        let low = i < 8 || (16..24).contains(&i);
        (
            if low { g } else { g + 8 },
            t * 8 + (i & 7) + if i >= 16 { 32 } else { 0 },
        )
    }
}

/// `(row, firstcol)` of a sparse A's element `i` of `lane`, by the ISA's "Matrix fragments for
/// multiply-accumulate operation with sparse matrix A": each register's elements are the
/// non-zero ones of columns `firstcol ..` in order (the m16n8k64 8-bit and m16n8k128 4-bit
/// tables).
fn sparse_a_pos(s: &Scaled, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    let row = |low: bool| if low { g } else { g + 8 };
    if s.bits() == 8 {
        (
            row(i < 4 || (8..12).contains(&i)),
            t * 8 + if i < 8 { 0 } else { 32 },
        )
    } else {
        (
            row(i < 8 || (16..24).contains(&i)),
            t * 16 + if i < 16 { 0 } else { 64 },
        )
    }
}

/// `(row, col)` of B element `i` of `lane` (each register 16 rows on for 8-bit elements, 32 for
/// 4-bit ones, as far as K goes).
fn b_pos(s: &Scaled, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane % 4);
    if s.bits() == 8 {
        (t * 4 + (i & 3) + 16 * (i >> 2), g)
    } else {
        (t * 8 + (i & 7) + 32 * (i >> 3), g)
    }
}

/// Words of `bits`-bit elements, lowest first.
fn pack_bits(bits: u32, elems: &[u64]) -> Vec<u32> {
    let per = (32 / bits) as usize;
    elems
        .chunks(per)
        .map(|c| {
            c.iter().enumerate().fold(0u32, |w, (j, &e)| {
                w | ((e as u32 & ((1 << bits) - 1)) << (j as u32 * bits))
            })
        })
        .collect()
}

/// A random scale byte of A (`b` false) or B: `.ue8m0` within 2^±40 (so that no scaled product
/// leaves f32's normal range), or at the ends of the range; `.ue4m3` any finite one.
fn random_scale(s: &Scaled, b: bool, rng: &mut Rng) -> u8 {
    if s.ue4m3 {
        rng.below(0x7F) as u8
    } else if s.extreme {
        (if b { 235 } else { 1 } + rng.below(20)) as u8
    } else {
        (127 - 40 + rng.below(81)) as u8
    }
}

fn case(s: Scaled, seed: u64) -> Case {
    let k = s.k();
    let mut rng = Rng::new(seed);
    let elem = |t: ElemType, rng: &mut Rng| {
        if s.bits() == 4 {
            rng.below(16)
        } else {
            t.random(rng)
        }
    };
    // A sparse A: the dense matrix, each row's non-zero elements and metadata fields.
    let (a, a_nz, fields): SparseA = if s.sparse {
        // The packed `.e2m1` is pair-wise 4:8 sparse, as the 4-bit integers are.
        let layout = if s.bits() == 4 { ElemType::U4 } else { s.a };
        sparse_rows(layout, 16, k, true, &mut rng, &mut |rng| elem(s.a, rng))
    } else {
        let a = (0..16 * k).map(|_| elem(s.a, &mut rng)).collect();
        (a, Vec::new(), Vec::new())
    };
    let b: Vec<u64> = (0..k * 8).map(|_| elem(s.b, &mut rng)).collect();
    let c: Vec<u64> = (0..16 * 8)
        .map(|_| ElemType::F32.random(&mut rng))
        .collect();
    let mut sa: Vec<u8> = (0..16 * s.vec)
        .map(|_| random_scale(&s, false, &mut rng))
        .collect();
    if s.nan {
        for j in 0..s.vec {
            sa[(3 * s.vec + j) as usize] = 0xFF;
        }
    }
    let sb: Vec<u8> = (0..s.vec * 8)
        .map(|_| random_scale(&s, true, &mut rng))
        .collect();
    // The scale registers: random, then the selected bytes of the selected threads.
    let (ba, ta, bb, tb) = s.sel;
    let mut sa_reg: Vec<u32> = (0..32).map(|_| rng.next_u64() as u32).collect();
    let mut sb_reg: Vec<u32> = (0..32).map(|_| rng.next_u64() as u32).collect();
    let put = |w: &mut u32, byte: u32, v: u8| {
        *w = (*w & !(0xFF << (8 * byte))) | (u32::from(v) << (8 * byte));
    };
    for g in 0..8 {
        for j in 0..s.vec {
            put(
                &mut sa_reg[(4 * g + 2 * ta) as usize],
                ba + j,
                sa[(g * s.vec + j) as usize],
            );
            put(
                &mut sa_reg[(4 * g + 2 * ta + 1) as usize],
                ba + j,
                sa[((g + 8) * s.vec + j) as usize],
            );
            put(
                &mut sb_reg[(4 * g + tb) as usize],
                bb + j,
                sb[(j * 8 + g) as usize],
            );
        }
    }
    let per_reg = 32 / s.bits();
    let mut words = Vec::new();
    for lane in 0..32 {
        let ae: Vec<u64> = if s.sparse {
            (0..8 * k / 32)
                .map(|i| {
                    let (r, firstcol) = sparse_a_pos(&s, lane, i);
                    // Columns before `firstcol` hold half as many non-zero elements.
                    a_nz[r as usize][(firstcol / 2 + i % per_reg) as usize]
                })
                .collect()
        } else {
            (0..16 * k / 32)
                .map(|i| {
                    let (r, col) = a_pos(&s, lane, i);
                    a[(r * k + col) as usize]
                })
                .collect()
        };
        let be: Vec<u64> = (0..k * 8 / 32)
            .map(|i| {
                let (r, col) = b_pos(&s, lane, i);
                b[(r * 8 + col) as usize]
            })
            .collect();
        let ce: Vec<u64> = (0..4)
            .map(|i| {
                let (r, col) = c_pos(lane, i);
                c[(r * 8 + col) as usize]
            })
            .collect();
        words.extend(pack_bits(s.bits(), &ae));
        words.extend(pack_bits(s.bits(), &be));
        words.extend(pack(ElemType::F32, &ce));
        if s.sparse {
            // All four threads of a group hold metadata (selector 0): thread `t` chunks
            // 4t..4t+3 of row groupID in bits 0-15 and of row groupID + 8 in bits 16-31.
            let (g, t) = ((lane >> 2) as usize, (lane % 4) as usize);
            words.push((0..4).fold(0u32, |m, j| {
                m | fields[g][4 * t + j] << (4 * j) | fields[g + 8][4 * t + j] << (16 + 4 * j)
            }));
        }
        words.push(sa_reg[lane as usize]);
        words.push(sb_reg[lane as usize]);
    }
    let b_regs = k * 8 / 32 / per_reg;
    let mut inputs = vec![
        (s.a, 4, true),
        (s.b, b_regs, true),
        (ElemType::F32, 4, true),
    ];
    if s.sparse {
        inputs.push((ElemType::S32, 1, false));
    }
    inputs.extend([(ElemType::S32, 1, false), (ElemType::S32, 1, false)]);
    let (ptx, in_stride, out_stride) =
        fragment_kernel(&s.mnemonic(), &inputs, (ElemType::F32, 4), "");
    // The sparsity selector goes after the metadata, the selectors after each data register.
    let (sa_r, sb_r) = (4 + b_regs, 5 + b_regs);
    let (meta, ptx) = if s.sparse {
        let from = format!("%r{}, %r{}, %r{};", 4 + b_regs, 5 + b_regs, 6 + b_regs);
        let to = format!("%r{}, 0, %r{}, %r{};", 4 + b_regs, 5 + b_regs, 6 + b_regs);
        (1, ptx.replacen(&from, &to, 1))
    } else {
        (0, ptx)
    };
    let (sa_r, sb_r) = (sa_r + meta, sb_r + meta);
    let data = format!("%r{sa_r}, %r{sb_r};");
    let ptx = if s.regs {
        let movs = format!(
            "\t.reg .b16 %hs<4>;\n\tmov.b16 %hs0, {ba};\n\tmov.b16 %hs1, {ta};\n\
             \tmov.b16 %hs2, {bb};\n\tmov.b16 %hs3, {tb};\n\tmma."
        );
        ptx.replacen(
            &data,
            &format!("%r{sa_r}, {{%hs0, %hs1}}, %r{sb_r}, {{%hs2, %hs3}};"),
            1,
        )
        .replacen("\tmma.", &movs, 1)
    } else {
        ptx.replacen(
            &data,
            &format!("%r{sa_r}, {{{ba}, {ta}}}, %r{sb_r}, {{{bb}, {tb}}};"),
            1,
        )
    };
    let ptx = for_kind(ptx, true);
    debug_assert_eq!(words.len() as u32 * 4, in_stride * 32);
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let how = match (s.regs, s.nan, s.extreme) {
        (true, _, _) => "registers",
        (_, true, _) => "nan",
        (_, _, true) => "extreme",
        _ => "constants",
    };
    let name = format!("matrix/{}/{:?}/{how}/{seed}", s.mnemonic(), s.sel);
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    let chunk = k / s.vec;
    let mut case = launched_case(name, ptx, launch, move |out| {
        for lane in 0..32u32 {
            let got = unpack(ElemType::F32, &thread_words(&out[1], lane, out_stride), 4);
            for (i, &g) in got.iter().enumerate() {
                let (r, col) = c_pos(lane, i as u32);
                let cv = ElemType::F32.value(c[(r * 8 + col) as usize]);
                let (mut exact, mut mag) = (cv, cv.abs());
                for kk in 0..k {
                    let j = kk / chunk;
                    let p = s.value(s.a, a[(r * k + kk) as usize])
                        * s.value(s.b, b[(kk * 8 + col) as usize])
                        * s.scale(sa[(r * s.vec + j) as usize])
                        * s.scale(sb[(j * 8 + col) as usize]);
                    exact += p;
                    mag += p.abs();
                }
                let got_v = f64::from(f32::from_bits(g as u32));
                let bound =
                    f64::from(k + 2) * 2f64.powi(-24) * mag + f64::from(k + 2) * 2f64.powi(-149);
                // A NaN factor makes its row NaN, whatever the other products.
                let wrong = if exact.is_nan() {
                    !got_v.is_nan()
                } else {
                    (got_v - exact).abs() > bound || got_v.is_nan()
                };
                if wrong {
                    return Outcome::Fail(format!(
                        "D[{r}][{col}] (lane {lane}, d{i}): expected {exact} (within {bound:e}), got {got_v}"
                    ));
                }
            }
        }
        Outcome::Pass
    });
    if s.sparse {
        case.family = super::sparse::FAMILY;
    }
    case
}

/// The fp8 forms with `.f16` C or D, on small elements (|x| < 4) so that no sum leaves
/// `.f16`'s range; judged by the `mma` model of the parent module.
fn f16_acc_case(f: Form, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    // Exponent fields below the bias + 2: magnitudes under 4.
    let small = |t: ElemType, rng: &mut Rng| {
        let (m, top) = if t == ElemType::E4m3 { (3, 8) } else { (2, 16) };
        let sign = rng.below(2) << 7;
        sign | (rng.below(top + 1) << m) | rng.below(1 << m)
    };
    let (m, n, k) = (f.m as usize, f.n as usize, f.k as usize);
    let x = Mats {
        a: (0..m * k).map(|_| small(f.a, &mut rng)).collect(),
        b: (0..k * n).map(|_| small(f.b, &mut rng)).collect(),
        c: (0..m * n).map(|_| f.c.random(&mut rng)).collect(),
    };
    let words = fragments(&f, &x);
    let (ea, eb, ec) = f.elems();
    let inputs = [
        (f.a, f.regs(f.a, ea), true),
        (f.b, f.regs(f.b, eb), true),
        (f.c, f.regs(f.c, ec), true),
    ];
    let (ptx, _, out_stride) = fragment_kernel(&f.mnemonic(), &inputs, (f.d, f.regs(f.d, ec)), "");
    let input: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let name = format!("matrix/{}/{seed}", f.mnemonic());
    let launch = one_warp(
        &name,
        &ptx,
        vec![input, vec![0xA5; (out_stride * 32) as usize]],
    );
    launched_case(name, ptx, launch, move |out| {
        for lane in 0..32u32 {
            let d = unpack(f.d, &thread_words(&out[1], lane, out_stride), ec as usize);
            for (i, &got) in d.iter().enumerate() {
                let (r, col) = c_pos(lane, i as u32);
                if let Some(why) = check_elem(&f, &x, r as usize, col as usize, got) {
                    return Outcome::Fail(format!("D[{r}][{col}] (lane {lane}, d{i}): {why}"));
                }
            }
        }
        Outcome::Pass
    })
}
