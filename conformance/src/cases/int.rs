//! ISA 8.7.1, integer arithmetic: reference models written from the instruction descriptions
//! (the "Semantics" pseudocode of each instruction, transcribed, not derived from ptxvk's
//! lowering). One case per instruction x type x modifier combination.

use ptxvk_translator::ScalarType::{self, *};

use crate::elementwise::Elementwise;
use crate::values::{Rng, edges, random, rows};
use crate::{Case, Expect};

const FAMILY: &str = "8.7.1 integer";

pub(super) fn mask(ty: ScalarType) -> u64 {
    mask_bits(ty.bits())
}

pub(super) fn mask_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `ty.bits()` of `v`.
pub(super) fn sext(ty: ScalarType, v: u64) -> i64 {
    sext_bits(ty.bits(), v)
}

pub(super) fn sext_bits(bits: u32, v: u64) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

/// `v` of type `ty` as an exact integer.
pub(super) fn value(ty: ScalarType, v: u64) -> i128 {
    if ty.is_signed() {
        i128::from(sext(ty, v))
    } else {
        i128::from(v & mask(ty))
    }
}

/// The full 2n-bit product `a * b` of two values of type `ty`, as 128-bit two's complement.
pub(super) fn product(ty: ScalarType, a: u64, b: u64) -> u128 {
    if ty.is_signed() {
        (i128::from(sext(ty, a)) * i128::from(sext(ty, b))) as u128
    } else {
        u128::from(a & mask(ty)) * u128::from(b & mask(ty))
    }
}

/// The type of the same signedness and twice the width.
fn wide(ty: ScalarType) -> ScalarType {
    match ty {
        U16 => U32,
        U32 => U64,
        S16 => S32,
        S32 => S64,
        other => other,
    }
}

/// An element-wise case: `body` reads `%a %b %c` of types `inputs` and writes outputs of types
/// `outputs`; `f` gives the expected bits of each output.
pub(super) fn elementwise(
    family: &'static str,
    name: String,
    body: String,
    inputs: &[ScalarType],
    outputs: &[ScalarType],
    rows: Vec<Vec<u64>>,
    f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static,
) -> Elementwise {
    Elementwise::new(family, name, body, inputs, outputs, rows, move |r| {
        f(r).into_iter().map(Expect::Bits).collect()
    })
}

/// [`elementwise`], as a case.
pub(super) fn case(
    family: &'static str,
    name: String,
    body: String,
    inputs: &[ScalarType],
    outputs: &[ScalarType],
    rows: Vec<Vec<u64>>,
    f: impl Fn(&[u64]) -> Vec<u64> + Send + Sync + 'static,
) -> Case {
    elementwise(family, name, body, inputs, outputs, rows, f).case()
}

/// `op.mods.ty d, a, b[, c]` with every operand of type `ty` (and `d` of type `dty`).
fn simple(
    op: &str,
    dty: ScalarType,
    inputs: &[ScalarType],
    f: impl Fn(&[u64]) -> u64 + Send + Sync + 'static,
) -> Case {
    let srcs: Vec<&str> = ["%a", "%b", "%c"][..inputs.len()].to_vec();
    case(
        FAMILY,
        format!("int/{op}"),
        format!("{op} %d, {};", srcs.join(", ")),
        inputs,
        &[dty],
        input_rows(inputs, 7),
        move |r| vec![f(r) & mask(dty)],
    )
}

fn binary(
    op: &str,
    ty: ScalarType,
    f: impl Fn(i128, i128) -> i128 + Send + Sync + 'static,
) -> Case {
    simple(&format!("{op}{ty}"), ty, &[ty, ty], move |r| {
        f(value(ty, r[0]), value(ty, r[1])) as u64
    })
}

/// Every value of a single input of 16 bits or less; edges and seeded random rows otherwise.
pub(super) fn input_rows(tys: &[ScalarType], seed: u64) -> Vec<Vec<u64>> {
    match tys {
        [t] if t.bits() <= 16 => (0..=mask(*t)).map(|x| vec![x]).collect(),
        _ => rows(tys, 400, 300, seed),
    }
}

/// Shift amounts, bit positions and lengths: every small value and the edges above.
pub(super) fn amounts() -> Vec<u64> {
    let mut v: Vec<u64> = (0..=70).collect();
    v.extend([
        127,
        128,
        255,
        256,
        257,
        0x1_00,
        0x1_1f,
        0xffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
    ]);
    v
}

/// Rows for inputs `tys` where the positions marked in `is_amount` are shift amounts or bit
/// positions: the edges of the value inputs crossed with [`amounts`], then random rows whose
/// amounts are mostly small.
pub(super) fn rows_with_amounts(
    tys: &[ScalarType],
    is_amount: &[bool],
    seed: u64,
) -> Vec<Vec<u64>> {
    let amounts = amounts();
    let lists: Vec<Vec<u64>> = tys
        .iter()
        .zip(is_amount)
        .map(|(t, &amt)| if amt { amounts.clone() } else { edges(*t) })
        .collect();
    let total: usize = lists.iter().map(Vec::len).product();
    let step = total.div_ceil(1500).max(1);
    let mut out = Vec::new();
    let mut k = 0;
    while k < total {
        let mut idx = k;
        out.push(
            lists
                .iter()
                .map(|l| {
                    let v = l[idx % l.len()];
                    idx /= l.len();
                    v
                })
                .collect(),
        );
        // An odd step so that every column's values all appear.
        k += step | 1;
    }
    let mut rng = Rng::new(seed);
    for _ in 0..600 {
        out.push(
            tys.iter()
                .zip(is_amount)
                .map(|(t, &amt)| match (amt, rng.below(4)) {
                    (true, 0) => random(*t, &mut rng),
                    (true, _) => rng.below(80),
                    (false, _) => random(*t, &mut rng),
                })
                .collect(),
        );
    }
    out
}

const INTS: [ScalarType; 6] = [U16, U32, U64, S16, S32, S64];

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for ty in INTS {
        let n = ty.bits();
        // add/sub: d = a + b, wrapping (8.7.1.1-2).
        v.push(binary("add", ty, |a, b| a + b));
        v.push(binary("sub", ty, |a, b| a - b));
        // mul: t = a * b; .lo is t<n-1..0>, .hi is t<2n-1..n>, .wide all of t (8.7.1.3).
        v.push(simple(&format!("mul.lo{ty}"), ty, &[ty, ty], move |r| {
            product(ty, r[0], r[1]) as u64
        }));
        v.push(simple(&format!("mul.hi{ty}"), ty, &[ty, ty], move |r| {
            (product(ty, r[0], r[1]) >> n) as u64
        }));
        // mad: the same, plus c (of the result's width) (8.7.1.4).
        v.push(simple(
            &format!("mad.lo{ty}"),
            ty,
            &[ty, ty, ty],
            move |r| (product(ty, r[0], r[1]) as u64).wrapping_add(r[2]),
        ));
        v.push(simple(
            &format!("mad.hi{ty}"),
            ty,
            &[ty, ty, ty],
            move |r| ((product(ty, r[0], r[1]) >> n) as u64).wrapping_add(r[2]),
        ));
        if n <= 32 {
            let w = wide(ty);
            v.push(simple(&format!("mul.wide{ty}"), w, &[ty, ty], move |r| {
                product(ty, r[0], r[1]) as u64
            }));
            v.push(simple(
                &format!("mad.wide{ty}"),
                w,
                &[ty, ty, w],
                move |r| (product(ty, r[0], r[1]) as u64).wrapping_add(r[2]),
            ));
        }
        // sad: d = c + ((a < b) ? b - a : a - b) (8.7.1.7).
        v.push(simple(&format!("sad{ty}"), ty, &[ty, ty, ty], move |r| {
            let (a, b, c) = (value(ty, r[0]), value(ty, r[1]), value(ty, r[2]));
            (c + if a < b { b - a } else { a - b }) as u64
        }));
        // div/rem: C semantics (truncating); by zero the ISA says "unspecified", and NVIDIA's
        // answers do not follow one simple rule (an H200 gives 0 rem 0 = all ones, and
        // MIN / 0 = -1 where -1 / 0 = 1; docs/nvidia.md), so those rows check nothing.
        for (op, rem) in [("div", false), ("rem", true)] {
            let name = format!("int/{op}{ty}");
            let body = format!("{op}{ty} %d, %a, %b;");
            v.push(
                Elementwise::new(
                    FAMILY,
                    name,
                    body,
                    &[ty, ty],
                    &[ty],
                    input_rows(&[ty, ty], 7),
                    move |r| {
                        let (a, b) = (value(ty, r[0]), value(ty, r[1]));
                        vec![match (b, rem) {
                            (0, _) => Expect::Any,
                            (_, false) => Expect::Bits((a / b) as u64 & mask(ty)),
                            (_, true) => Expect::Bits((a % b) as u64 & mask(ty)),
                        }]
                    },
                )
                .case(),
            );
        }
        // min/max (8.7.1.12-13).
        v.push(binary("min", ty, |a, b| a.min(b)));
        v.push(binary("max", ty, |a, b| a.max(b)));
        if ty.is_signed() {
            // abs/neg: two's complement, so |MIN| and -MIN are MIN (8.7.1.10-11).
            v.push(simple(&format!("abs{ty}"), ty, &[ty], move |r| {
                value(ty, r[0]).unsigned_abs() as u64
            }));
            v.push(simple(&format!("neg{ty}"), ty, &[ty], move |r| {
                (-value(ty, r[0])) as u64
            }));
        }
    }
    // .sat limits the result to MININT..MAXINT (add, sub: .s32 only; mad: .hi.s32 only).
    let sat = |x: i128| x.clamp(i128::from(i32::MIN), i128::from(i32::MAX));
    v.push(binary("add.sat", S32, move |a, b| sat(a + b)));
    v.push(binary("sub.sat", S32, move |a, b| sat(a - b)));
    v.push(simple("mad.hi.sat.s32", S32, &[S32, S32, S32], move |r| {
        let (a, b, c) = (value(S32, r[0]), value(S32, r[1]), value(S32, r[2]));
        sat(((a * b) >> 32) + c) as u64
    }));
    mul24(&mut v);
    packed(&mut v);
    dot(&mut v);
    v
}

/// mul24/mad24: t = a * b of the 24-bit values in a and b; .lo is t<31..0>, .hi t<47..16>.
fn mul24(v: &mut Vec<Case>) {
    for ty in [U32, S32] {
        let x24 = move |x: u64| {
            if ty.is_signed() {
                i128::from(sext_bits(24, x))
            } else {
                i128::from(x & 0xff_ffff)
            }
        };
        v.push(simple(&format!("mul24.lo{ty}"), ty, &[ty, ty], move |r| {
            (x24(r[0]) * x24(r[1])) as u64
        }));
        v.push(simple(&format!("mul24.hi{ty}"), ty, &[ty, ty], move |r| {
            ((x24(r[0]) * x24(r[1])) >> 16) as u64
        }));
        v.push(simple(
            &format!("mad24.lo{ty}"),
            ty,
            &[ty, ty, ty],
            move |r| (x24(r[0]) * x24(r[1]) + value(ty, r[2])) as u64,
        ));
        v.push(simple(
            &format!("mad24.hi{ty}"),
            ty,
            &[ty, ty, ty],
            move |r| (((x24(r[0]) * x24(r[1])) >> 16) + value(ty, r[2])) as u64,
        ));
    }
    // .sat: the 32-bit signed addition limited to MININT..MAXINT.
    v.push(simple("mad24.hi.sat.s32", S32, &[S32, S32, S32], |r| {
        let t = i128::from(sext_bits(24, r[0])) * i128::from(sext_bits(24, r[1]));
        ((t >> 16) + value(S32, r[2])).clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as u64
    }));
}

/// add/min/max on .u16x2/.s16x2: each half word on its own; .relu clamps negative results to 0.
fn packed(v: &mut Vec<Case>) {
    type Op = fn(i128, i128) -> i128;
    let ops: [(&str, Op); 3] = [
        ("add", |a, b| a + b),
        ("min", |a, b| a.min(b)),
        ("max", |a, b| a.max(b)),
    ];
    for (name, f) in ops {
        for (pty, ety) in [("u16x2", U16), ("s16x2", S16)] {
            for relu in [false, true] {
                if relu && (name == "add" || ety == U16) {
                    continue;
                }
                let modifier = if relu { ".relu" } else { "" };
                let op = format!("{name}{modifier}.{pty}");
                v.push(simple(&op, B32, &[B32, B32], move |r| {
                    let half = |x: u64, k: u32| value(ety, x >> (16 * k));
                    let lane = |k: u32| {
                        let d = f(half(r[0], k), half(r[1], k));
                        let d = if relu { d.max(0) } else { d };
                        (d as u64 & 0xffff) << (16 * k)
                    };
                    lane(0) | lane(1)
                }));
            }
        }
        if name != "add" {
            v.push(simple(
                &format!("{name}.relu.s32"),
                S32,
                &[S32, S32],
                move |r| f(value(S32, r[0]), value(S32, r[1])).max(0) as u64,
            ));
        }
    }
}

/// dp4a, dp2a: d = c + the products of the sign- or zero-extended elements, in 32 bits.
fn dot(v: &mut Vec<Case>) {
    for at in [U32, S32] {
        for bt in [U32, S32] {
            let acc = if at == U32 && bt == U32 { U32 } else { S32 };
            let elem = move |x: u64, k: u32, bits: u32, ty: ScalarType| {
                let e = (x >> (k * bits)) & mask_bits(bits);
                if ty == S32 {
                    i128::from(sext_bits(bits, e))
                } else {
                    i128::from(e)
                }
            };
            v.push(simple(
                &format!("dp4a{at}{bt}"),
                acc,
                &[at, bt, acc],
                move |r| {
                    let mut d = value(acc, r[2]);
                    for i in 0..4 {
                        d += elem(r[0], i, 8, at) * elem(r[1], i, 8, bt);
                    }
                    d as u64
                },
            ));
            for hi in [false, true] {
                let mode = if hi { "hi" } else { "lo" };
                v.push(simple(
                    &format!("dp2a.{mode}{at}{bt}"),
                    acc,
                    &[at, bt, acc],
                    move |r| {
                        let b_select = if hi { 2 } else { 0 };
                        let mut d = value(acc, r[2]);
                        for i in 0..2 {
                            d += elem(r[0], i, 16, at) * elem(r[1], b_select + i, 8, bt);
                        }
                        d as u64
                    },
                ));
            }
        }
    }
}
