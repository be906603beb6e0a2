//! ISA 8.7.6.13, `cvt` and `cvt.pack`: one case per destination x source type x modifier
//! combination the ISA allows, over edge values, values at the rounding and range boundaries of
//! the destination, and seeded random values; expectations from `convert_model`.

use ptxvk_translator::ScalarType::{self, *};

use super::convert_model::{self as model, Format, Mode, Mods, Narrow};
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

/// Values at the rounding boundaries of narrow format `n`: every finite value, the halfway
/// points between neighbours (ties) and values just beside them, past `MAX_NORM`, below the
/// smallest subnormal, infinities, NaN; both signs. All are exact in `f64`.
fn narrow_boundaries(n: Narrow) -> Vec<f64> {
    let mut mags: Vec<f64> = (0..1u64 << (n.width() - 1))
        .map(|c| n.value(c))
        .filter(|v| v.is_finite())
        .collect();
    mags.sort_by(f64::total_cmp);
    let mut xs = Vec::new();
    for w in mags.windows(2) {
        let mid = (w[0] + w[1]) / 2.0;
        let step = (w[1] - w[0]) / 64.0;
        xs.extend([w[0], mid, mid - step, mid + step]);
    }
    let (max, _) = n.max_norm();
    let top = mags.get(mags.len().wrapping_sub(2)).copied().unwrap_or(0.0);
    let ulp = max - top;
    xs.extend([
        max,
        max + ulp / 4.0,
        max + ulp / 2.0,
        max + ulp,
        max * 4.0,
        1e30,
        f64::INFINITY,
        f64::NAN,
        0.0,
    ]);
    let tiny = mags.get(1).copied().unwrap_or(1.0);
    xs.extend([tiny / 2.0, tiny / 4.0, tiny * 0.75, 1e-30]);
    let negs: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negs);
    xs
}

/// Pairs `(v[i], v[j])` covering every value in both positions.
fn pairs(v: &[u64]) -> Vec<Vec<u64>> {
    let n = v.len();
    (0..n)
        .map(|i| vec![v[i], v[(i * 7 + 3) % n.max(1)]])
        .collect()
}

/// PTX that splits a packed narrow pair `%q` into `%d` (the upper value) and `%e`.
fn split_narrow(n: Narrow) -> String {
    let (u, slot) = if n == Narrow::E2m1 {
        ("u8", 4)
    } else {
        ("u16", 8)
    };
    format!(
        "cvt.u32.{u} %w, %q;\nshr.u32 %d, %w, {slot};\nand.b32 %e, %w, {};",
        (1 << slot) - 1
    )
}

fn narrow_reg(n: Narrow) -> &'static str {
    if n == Narrow::E2m1 { "b8" } else { "b16" }
}

/// The target and version a narrow conversion needs (fp8: sm_89 with PTX ISA 8.1, which
/// NVIDIA's ptxas asks for sm_89; the others sm_100a, PTX ISA 8.6).
fn narrow_target(e: &mut Elementwise, n: Narrow) {
    if matches!(n, Narrow::E4m3 | Narrow::E5m2) {
        e.sm = 89;
        e.version = (8, 1);
    } else {
        e.sm = 100;
        e.version = (8, 6);
    }
}

/// `cvt.rn.satfinite{.relu}.<narrow>x2.f32 d, a, b`, checked through its two values.
fn to_narrow_f32(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn.satfinite{}.{}.f32",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let mut r = rows(&[F32, F32], 400, 300, seed(&name));
    let edge: Vec<u64> = narrow_boundaries(n)
        .into_iter()
        .map(|x| u64::from((x as f32).to_bits()))
        .collect();
    r.extend(pairs(&edge));
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .{} %q;\n.reg .b32 %w;\n{op} %q, %a, %b;\n{}",
            narrow_reg(n),
            split_narrow(n)
        ),
        &[F32, F32],
        &[U32, U32],
        r,
        move |r| {
            [r[0], r[1]]
                .iter()
                .map(|&x| model::to_narrow(n, model::to_f64(x, F32), relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.rn.satfinite{.relu}.<fp8>x2.f16x2 d, a`: the upper half of `a` goes to the upper byte.
fn to_narrow_f16x2(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn.satfinite{}.{}.f16x2",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let mut halves: Vec<Vec<u64>> = rows(&[F16, F16], 400, 300, seed(&name));
    let edge: Vec<u64> = narrow_boundaries(n)
        .into_iter()
        .map(|x| u64::from(half::f16::from_f64(x).to_bits()))
        .collect();
    halves.extend(pairs(&edge));
    let r = halves
        .into_iter()
        .map(|h| vec![(h[0] & 0xffff) << 16 | (h[1] & 0xffff)])
        .collect();
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .b16 %q;\n.reg .b32 %w;\nmov.b32 %w, %a;\n{op} %q, %w;\n{}",
            split_narrow(n)
        ),
        &[U32],
        &[U32, U32],
        r,
        move |r| {
            [r[0] >> 16, r[0] & 0xffff]
                .iter()
                .map(|&x| model::to_narrow(n, model::to_f64(x, F16), relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.rn{.relu}.f16x2.<narrow>x2 d, a` over every encoding in both positions.
fn from_narrow(n: Narrow, relu: bool) -> Case {
    let op = format!(
        "cvt.rn{}.f16x2.{}",
        if relu { ".relu" } else { "" },
        n.name()
    );
    let name = format!("cvt/{op}");
    let slot = n.slot();
    let mask = (1u64 << slot) - 1;
    // The 6-bit formats' bytes have their two top bits zero.
    let codes = 1u64 << n.width();
    let r = (0..codes)
        .map(|c| vec![c << slot | ((c * 37 + 11) % codes)])
        .collect();
    let (u, reg) = if n == Narrow::E2m1 {
        ("u8", "b8")
    } else {
        ("u16", "b16")
    };
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .{reg} %q;\n.reg .b32 %p;\ncvt.{u}.u32 %q, %a;\n{op} %p, %q;\nmov.b32 {{%e, %d}}, %p;"
        ),
        &[U32],
        &[F16, F16],
        r,
        move |r| {
            [(r[0] >> slot) & mask, r[0] & mask]
                .iter()
                .map(|&c| model::from_narrow(n, c, relu))
                .collect()
        },
    );
    narrow_target(&mut e, n);
    e.case()
}

/// `cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b` and `.ue8m0x2.bf16x2 d, a`.
fn to_ue8m0(up: bool, satfinite: bool, packed: bool) -> Case {
    let op = format!(
        "cvt.{}{}.ue8m0x2.{}",
        if up { "rp" } else { "rz" },
        if satfinite { ".satfinite" } else { "" },
        if packed { "bf16x2" } else { "f32" }
    );
    let name = format!("cvt/{op}");
    let mut xs: Vec<f64> = (-130..=128)
        .flat_map(|k| {
            let p = 2f64.powi(k);
            [p, p * 1.5, p * (1.0 + 1.0 / 128.0), p * (2.0 - 1.0 / 128.0)]
        })
        .collect();
    xs.extend([0.0, f64::INFINITY, f64::NAN, 1e-45, 3e38]);
    let negs: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(negs);
    let (ty, body_in, inputs): (ScalarType, &str, &[ScalarType]) = if packed {
        (Bf16, "%h", &[U32])
    } else {
        (F32, "%a, %b", &[F32, F32])
    };
    let edge: Vec<u64> = xs
        .iter()
        .map(|&x| {
            if packed {
                u64::from(half::bf16::from_f64(x).to_bits())
            } else {
                u64::from((x as f32).to_bits())
            }
        })
        .collect();
    let mut r = rows(&[ty, ty], 400, 300, seed(&name));
    r.extend(pairs(&edge));
    let r: Vec<Vec<u64>> = if packed {
        r.into_iter()
            .map(|h| vec![(h[0] & 0xffff) << 16 | (h[1] & 0xffff)])
            .collect()
    } else {
        r
    };
    let mut e = Elementwise::new(
        FAMILY,
        name,
        format!(
            ".reg .b16 %q;\n.reg .b32 %w;\n.reg .b32 %h;\nmov.b32 %h, %a;\n{op} %q, {body_in};\n{}",
            split_narrow(Narrow::Ue8m0)
        ),
        inputs,
        &[U32, U32],
        r,
        move |r| {
            let vals = if packed {
                [r[0] >> 16, r[0] & 0xffff]
            } else {
                [r[0], r[1]]
            };
            vals.iter()
                .map(|&x| Expect::Bits(model::to_ue8m0(model::to_f64(x, ty), up, satfinite)))
                .collect()
        },
    );
    narrow_target(&mut e, Narrow::Ue8m0);
    e.case()
}

/// `cvt.rn.bf16x2.ue8m0x2 d, a` over every encoding.
fn from_ue8m0() -> Case {
    let op = "cvt.rn.bf16x2.ue8m0x2";
    let r = (0..256u64)
        .map(|c| vec![c << 8 | ((c * 37 + 11) & 0xff)])
        .collect();
    let mut e = Elementwise::new(
        FAMILY,
        format!("cvt/{op}"),
        format!(
            ".reg .b16 %q;\n.reg .b32 %p;\ncvt.u16.u32 %q, %a;\n{op} %p, %q;\nmov.b32 {{%e, %d}}, %p;"
        ),
        &[U32],
        &[Bf16, Bf16],
        r,
        |r| {
            vec![
                model::from_ue8m0(r[0] >> 8 & 0xff),
                model::from_ue8m0(r[0] & 0xff),
            ]
        },
    );
    narrow_target(&mut e, Narrow::Ue8m0);
    e.case()
}

/// Every narrow-format conversion form of the ISA's `cvt` (stochastic `.rs` rounding and the
/// four-value forms aside).
fn narrow_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for n in Narrow::FLOATS {
        for relu in [false, true] {
            v.push(to_narrow_f32(n, relu));
            if matches!(n, Narrow::E4m3 | Narrow::E5m2) {
                v.push(to_narrow_f16x2(n, relu));
            }
            v.push(from_narrow(n, relu));
        }
    }
    for up in [false, true] {
        for satfinite in [false, true] {
            for packed in [false, true] {
                v.push(to_ue8m0(up, satfinite, packed));
            }
        }
    }
    v.push(from_ue8m0());
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
    v.extend(narrow_cases());
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
