//! ISA 8.7.6.13, `cvt` and `cvt.pack`: one case per destination x source type x modifier
//! combination the ISA allows, over edge values, values at the rounding and range boundaries of
//! the destination, and seeded random values; expectations from `convert_model`.

use ptxvk_translator::ScalarType::{self, *};

use super::convert_model::{self as model, Format, Mode, Mods};
use crate::elementwise::Elementwise;
use crate::values::{Rng, random, rows};
use crate::{Case, Expect};

const FAMILY: &str = "8.7.6 cvt";

const INTS: [ScalarType; 8] = [U8, U16, U32, U64, S8, S16, S32, S64];
const FLOATS: [ScalarType; 4] = [F16, Bf16, F32, F64];

const FLOAT_MODES: [(&str, Mode); 4] = [
    ("rn", Mode::Even),
    ("rz", Mode::Zero),
    ("rm", Mode::Down),
    ("rp", Mode::Up),
];
const INT_MODES: [(&str, Mode); 4] = [
    ("rni", Mode::Even),
    ("rzi", Mode::Zero),
    ("rmi", Mode::Down),
    ("rpi", Mode::Up),
];

/// The modifier text of a `cvt`, in the ISA's order.
fn text(rnd: Option<&str>, m: &Mods) -> String {
    let mut s = String::from("cvt");
    if let Some(r) = rnd {
        s += ".";
        s += r;
    }
    for (on, name) in [
        (m.ftz, "ftz"),
        (m.sat, "sat"),
        (m.relu, "relu"),
        (m.satfinite, "satfinite"),
    ] {
        if on {
            s += ".";
            s += name;
        }
    }
    s
}

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn mask(ty: ScalarType) -> u64 {
    if ty.bits() >= 64 {
        u64::MAX
    } else {
        (1 << ty.bits()) - 1
    }
}

/// `x` rounded to float type `ty` (nearest even) and its two neighbours, as bits.
fn float_near(x: f64, ty: ScalarType) -> Vec<u64> {
    let f = Format::of(ty);
    let b = match model::decode(x.to_bits(), model::DOUBLE) {
        model::Value::Num { neg, n, e } => model::round(neg, n, e, f, Mode::Even),
        _ => return Vec::new(),
    };
    let mag = b & !f.sign_bit();
    if mag >= f.inf() {
        return vec![b];
    }
    let mut v = vec![b, b + 1];
    if mag > 0 {
        v.push(b - 1);
    }
    v
}

/// Inputs at the boundaries that matter for converting `src` to `dst`: around the destination's
/// largest value, smallest normal and subnormal, 1, the end of its exact integers and the
/// halfway points between its neighbouring values there; around an integer destination's range
/// ends and at halves.
fn boundaries(dst: ScalarType, src: ScalarType) -> Vec<u64> {
    let mut xs: Vec<f64> = Vec::new();
    if dst.is_float() {
        let f = Format::of(dst);
        let max = (2.0 - 2f64.powi(-(f.mant as i32))) * 2f64.powi(f.bias());
        let min_normal = 2f64.powi(1 - f.bias());
        let min_sub = 2f64.powi(1 - f.bias() - f.mant as i32);
        let exact_int = 2f64.powi(f.mant as i32 + 1);
        for (p, ulp) in [
            (max, 2f64.powi(f.bias() - f.mant as i32)),
            (min_normal, min_sub),
            (min_sub, min_sub),
            (1.0, 2f64.powi(-(f.mant as i32))),
            (exact_int, 2.0),
            (3.0 * exact_int, 4.0),
        ] {
            for q in [-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5] {
                xs.push(p + q * ulp);
            }
        }
    } else {
        let b = dst.bits() as i32;
        let (lo, hi) = if dst.is_signed() {
            (-(2f64.powi(b - 1)), 2f64.powi(b - 1) - 1.0)
        } else {
            (0.0, 2f64.powi(b) - 1.0)
        };
        for p in [lo, hi, hi + 1.0, lo - 1.0] {
            for q in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                xs.push(p + q);
            }
        }
        for q in [0.5, 1.5, 2.5, 3.5, 0.25, 0.75, 1e-3, 1e-30] {
            xs.push(q);
            xs.push(-q);
        }
    }
    let mut out = Vec::new();
    if src.is_float() {
        for x in xs {
            out.extend(float_near(x, src));
            out.extend(float_near(-x, src));
        }
    } else {
        let (lo, hi) = if src.is_signed() {
            (
                -(1i128 << (src.bits() - 1)),
                (1i128 << (src.bits() - 1)) - 1,
            )
        } else {
            (0, (1i128 << src.bits()) - 1)
        };
        let mut ints: Vec<i128> = Vec::new();
        for x in xs {
            if x.is_finite() && x.abs() < 2f64.powi(100) {
                ints.push(x.floor() as i128);
                ints.push(x.ceil() as i128);
            }
        }
        // Just above the destination's exact integers: every rounding case.
        if dst.is_float() {
            let p = Format::of(dst).mant + 1;
            for shift in p..=src.bits() {
                let base = 1i128 << shift;
                for k in [-3i128, -2, -1, 0, 1, 2, 3] {
                    let step = 1i128 << (shift - p).min(126);
                    ints.push(base + k * step / 2);
                    ints.push(base + k * step / 2 + 1);
                    ints.push(-(base + k * step / 2));
                }
            }
        }
        for v in ints {
            if (lo..=hi).contains(&v) {
                out.push((v as u64) & mask(src));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The scalar type whose format `ty` has (for packed and tf32 destinations).
fn dst_scalar(ty: ScalarType) -> ScalarType {
    match ty {
        F16x2 => F16,
        Bf16x2 => Bf16,
        Tf32 => F32,
        t => t,
    }
}

fn input_rows(dst: ScalarType, src: ScalarType, name: &str) -> Vec<Vec<u64>> {
    let mut r = rows(&[src], 400, 300, seed(name));
    r.extend(boundaries(dst, src).into_iter().map(|v| vec![v]));
    r
}

fn case(dst: ScalarType, src: ScalarType, rnd: Option<(&str, Mode)>, m: Mods) -> Case {
    let m = Mods {
        mode: rnd.map(|r| r.1),
        ..m
    };
    let op = format!("{}{dst}{src}", text(rnd.map(|r| r.0), &m));
    let name = format!("cvt/{op}");
    let rows = input_rows(dst, src, &name);
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!("{op} %d, %a;"),
        &[src],
        &[dst],
        rows,
        move |r| vec![model::cvt(dst, src, m, r[0])],
    );
    e.sm = 100;
    e.version = (8, 6);
    e.lowest_target = true;
    e.case()
}

/// `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`, checked through its two halves.
fn packed(dst: ScalarType, rnd: (&str, Mode), m: Mods) -> Case {
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
fn tf32(rnd: (&str, Mode), m: Mods) -> Case {
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
fn pack(bits: u32, signed: bool) -> Case {
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
fn wider(op: &str, dst: ScalarType, src: ScalarType, dreg: ScalarType, sreg: ScalarType) -> Case {
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

/// Whether every value of integer type `src` fits in `dst`.
fn int_fits(dst: ScalarType, src: ScalarType) -> bool {
    match (dst.is_signed(), src.is_signed()) {
        (true, true) | (false, false) => dst.bits() >= src.bits(),
        (true, false) => dst.bits() > src.bits(),
        (false, true) => false,
    }
}

/// Whether a float conversion can lose precision or range.
fn narrows(dst: ScalarType, src: ScalarType) -> bool {
    let (d, s) = (Format::of(dst), Format::of(src));
    d.exp < s.exp || d.mant < s.mant
}

/// `.ftz` (where allowed) and `.sat` (not with a `.bf16` operand: ptxas refuses it) on and
/// off.
fn flag_sets(ftz_allowed: bool, bf16: bool) -> Vec<Mods> {
    let mut v = Vec::new();
    for ftz in [false, true] {
        if ftz && !ftz_allowed {
            continue;
        }
        for sat in [false, true] {
            if sat && bf16 {
                continue;
            }
            v.push(Mods {
                ftz,
                sat,
                ..Mods::default()
            });
        }
    }
    v
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    // Integer to integer.
    for dst in INTS {
        for src in INTS {
            v.push(case(dst, src, None, Mods::default()));
            if !int_fits(dst, src) {
                let sat = Mods {
                    sat: true,
                    ..Mods::default()
                };
                v.push(case(dst, src, None, sat));
            }
        }
    }
    // Float to integer: an integer rounding is required; `.sat` is redundant but allowed.
    for dst in INTS {
        for src in FLOATS {
            for rnd in INT_MODES {
                for m in flag_sets(src == F32, src == Bf16) {
                    let m = Mods { integer: true, ..m };
                    v.push(case(dst, src, Some(rnd), m));
                }
            }
        }
    }
    // Integer to float: a floating-point rounding is required.
    for dst in FLOATS {
        for src in INTS {
            for rnd in FLOAT_MODES {
                for m in flag_sets(dst == F32, dst == Bf16) {
                    v.push(case(dst, src, Some(rnd), m));
                }
            }
        }
    }
    // Float to float.
    for dst in FLOATS {
        for src in FLOATS {
            let ftz = dst == F32 || src == F32;
            if dst == src {
                for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                    v.push(case(dst, src, None, m));
                    for rnd in INT_MODES {
                        let m = Mods { integer: true, ..m };
                        v.push(case(dst, src, Some(rnd), m));
                    }
                }
            } else if narrows(dst, src) {
                for rnd in FLOAT_MODES {
                    for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                        v.push(case(dst, src, Some(rnd), m));
                    }
                }
                if src == F32 && matches!(dst, F16 | Bf16) {
                    for rnd in &FLOAT_MODES[..2] {
                        for (relu, satfinite) in [(true, false), (false, true), (true, true)] {
                            let m = Mods {
                                relu,
                                satfinite,
                                ..Mods::default()
                            };
                            v.push(case(dst, src, Some(*rnd), m));
                        }
                    }
                }
            } else {
                for m in flag_sets(ftz, dst == Bf16 || src == Bf16) {
                    v.push(case(dst, src, None, m));
                }
            }
        }
    }
    // The ISA's own example gives a (meaningless) rounding to a widening conversion from .bf16.
    v.push(case(F64, Bf16, Some(("rp", Mode::Up)), Mods::default()));
    // Packing conversions and tf32.
    for dst in [F16x2, Bf16x2] {
        for rnd in &FLOAT_MODES[..2] {
            for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
                let m = Mods {
                    relu,
                    satfinite,
                    ..Mods::default()
                };
                v.push(packed(dst, *rnd, m));
            }
        }
    }
    for satfinite in [false, true] {
        let m = Mods {
            satfinite,
            ..Mods::default()
        };
        v.push(tf32(("rna", Mode::Away), m));
        for rnd in &FLOAT_MODES[..2] {
            for relu in [false, true] {
                v.push(tf32(*rnd, Mods { relu, ..m }));
            }
        }
    }
    v.push(wider("cvt", S8, S32, S32, S32));
    v.push(wider("cvt", U8, S32, U32, S32));
    v.push(wider("cvt", S16, U64, S64, U64));
    v.push(wider("cvt", S32, S8, S32, B32));
    v.push(wider("cvt", U64, U16, U64, B64));
    v.push(wider("cvt.rn", F16, F32, B32, F32));
    v.push(wider("cvt", F32, F16, F32, B32));
    v.push(wider("cvt.rzi", S8, F32, S32, F32));
    for (bits, signed) in [
        (16, false),
        (16, true),
        (8, false),
        (8, true),
        (4, false),
        (4, true),
        (2, false),
        (2, true),
    ] {
        v.push(pack(bits, signed));
    }
    v
}

#[cfg(test)]
mod tests {
    use crate::elementwise::collecting;

    /// The cvt forms are generated for sm_100 but declare the lowest target ptxvk's checks
    /// accept, so that an older GPU's driver runs them (`--record-cuda`): `cvt.rn.f32.f64` is
    /// sm_70 code, `cvt.rn.satfinite.f16x2.f32` needs sm_80 (ISA 9.7.9.21).
    #[test]
    fn cvt_cases_declare_the_lowest_target_they_need() {
        let (_, specs) = collecting(super::cases);
        let target = |name: &str| {
            let spec = specs.iter().find(|s| s.name == name);
            spec.map(|s| {
                let ptx = s.ptx();
                ptx.lines()
                    .find(|l| l.starts_with(".target"))
                    .map(str::to_string)
            })
        };
        assert_eq!(
            target("cvt/cvt.rn.f32.f64"),
            Some(Some(".target sm_70".into()))
        );
        assert_eq!(
            target("cvt/cvt.rn.satfinite.f16x2.f32"),
            Some(Some(".target sm_80".into()))
        );
    }
}
