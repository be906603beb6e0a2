//! ISA 8.7.3 (and the half-precision forms of newer ISA versions): floating-point instructions.
//!
//! One case per instruction x type x modifier combination. Reference models: exact IEEE
//! arithmetic from `ieee.rs` for everything the ISA rounds (`.rn .rz .rm .rp`, `.ftz`, `.sat`,
//! `.relu`), the ISA's pseudo-code for `min max abs neg copysign testp`, and for `.approx`
//! the error bound the ISA states, measured against the f64 library function (whose own error,
//! about 2^-52 relative, is far below every bound).

use ptxvk_translator::ScalarType::{self, *};

use crate::elementwise::Elementwise;
use crate::ieee::{self, Arith, Fmt, Rnd};
use crate::values::{Rng, edges, random};
use crate::{Case, Expect};

const FAMILY: &str = "8.7.3 float";

/// A floating-point instruction type and how its operands are held in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Form {
    pub ty: ScalarType,
    pub fmt: Fmt,
    /// Packed pair (`.f16x2`, `.bf16x2`).
    pub packed: bool,
}

pub(crate) const F32F: Form = Form {
    ty: F32,
    fmt: Fmt::F32,
    packed: false,
};
pub(crate) const F64F: Form = Form {
    ty: F64,
    fmt: Fmt::F64,
    packed: false,
};
pub(crate) const F16F: Form = Form {
    ty: F16,
    fmt: Fmt::F16,
    packed: false,
};
pub(crate) const F16X2: Form = Form {
    ty: F16x2,
    fmt: Fmt::F16,
    packed: true,
};
pub(crate) const BF16F: Form = Form {
    ty: Bf16,
    fmt: Fmt::Bf16,
    packed: false,
};
pub(crate) const BF16X2: Form = Form {
    ty: Bf16x2,
    fmt: Fmt::Bf16,
    packed: true,
};

impl Form {
    /// The register type of one element (`.f16` registers for f16 so that reports show
    /// values; bf16 has no register type of its own).
    pub fn elem_reg(self) -> ScalarType {
        match self.fmt {
            Fmt::F16 => F16,
            Fmt::Bf16 => B16,
            Fmt::F32 => F32,
            Fmt::F64 => F64,
        }
    }
    /// The register type of an operand.
    pub fn reg(self) -> ScalarType {
        if self.packed { B32 } else { self.elem_reg() }
    }
    fn scalar_ty(self) -> ScalarType {
        match self.fmt {
            Fmt::F16 => F16,
            Fmt::Bf16 => Bf16,
            Fmt::F32 => F32,
            Fmt::F64 => F64,
        }
    }
}

/// Floating-point inputs: edge values (zeros, ones, subnormals, extremes, infinities, NaNs),
/// values near one, random bit patterns over the whole range, and tiny values whose products
/// and quotients round in the subnormal range.
pub(crate) fn float_values(fmt: Fmt, rng: &mut Rng, n: usize) -> Vec<u64> {
    let ty = match fmt {
        Fmt::F16 => F16,
        Fmt::Bf16 => Bf16,
        Fmt::F32 => F32,
        Fmt::F64 => F64,
    };
    let mask = fmt.mask();
    (0..n)
        .map(|i| match i % 4 {
            0 => random(ty, rng),
            1 => rng.next_u64() & mask,
            2 => {
                // Exponent in the lowest quarter of the range, random sign and fraction.
                let e = rng.below(u64::from((1u32 << fmt.exp_bits()) / 4));
                let f = rng.next_u64() & fmt.frac_mask();
                let s = rng.below(2) << (fmt.width() - 1);
                s | (e << fmt.mant()) | f
            }
            _ => {
                let e = edges(ty);
                e[rng.below(e.len() as u64) as usize]
            }
        })
        .collect()
}

/// Rows of `n` inputs: all pairs of edge values (capped), then random rows. For packed forms
/// each input is two elements.
pub(crate) fn float_rows(form: Form, n: usize, seed: u64) -> Vec<Vec<u64>> {
    let mut rng = Rng::new(seed);
    let e = edges(form.scalar_ty());
    let mut rows = Vec::new();
    let combos = e.len().pow(n.min(2) as u32);
    for k in 0..combos.min(700) {
        let row: Vec<u64> = (0..n)
            .map(|j| {
                let idx = match j {
                    0 => k % e.len(),
                    1 => (k / e.len()) % e.len(),
                    _ => (k * 7 + 3) % e.len(),
                };
                e[idx]
            })
            .collect();
        rows.push(row);
    }
    let random_rows = 1200;
    for _ in 0..random_rows {
        let v = float_values(form.fmt, &mut rng, n * 2);
        rows.push(v[..n].to_vec());
    }
    if form.packed {
        // Pair each element with another row's element.
        let len = rows.len();
        rows = (0..len)
            .map(|i| {
                let other = &rows[(i * 31 + 17) % len];
                rows[i]
                    .iter()
                    .zip(other)
                    .map(|(lo, hi)| lo | (hi << 16))
                    .collect()
            })
            .collect();
    }
    rows
}

/// The expectation for exact result bits: any NaN where the result is NaN (the ISA leaves
/// single- and half-precision NaN payloads unspecified), else the bits.
pub(crate) fn exact(fmt: Fmt, bits: u64) -> Expect {
    if fmt.is_nan(bits) {
        Expect::AnyNan
    } else {
        Expect::Bits(bits)
    }
}

/// A zero result under `.sat`/`.relu` may be either zero (the ISA says "clamps to 0").
fn clamped(fmt: Fmt, bits: u64) -> Expect {
    if fmt.is_zero(bits) {
        Expect::Abs {
            value: 0.0,
            tol: 0.0,
        }
    } else {
        exact(fmt, bits)
    }
}

/// `.sat`: [0, 1], NaN to +0.
fn saturate(fmt: Fmt, r: u64) -> u64 {
    if fmt.is_nan(r) || fmt.sign(r) {
        0
    } else if fmt.value(r) > 1.0 {
        fmt.one()
    } else {
        r
    }
}

/// Builds a case whose body computes `%d` from the inputs; packed forms unpack the result into
/// two outputs (`%d` low half, `%e` high half) so that each half has its own expectation.
/// `.bf16` results are widened to the f32 with the same value (`{0, x}`, exact) so that
/// expectations can be values; a lane's `Expect::Bits` are bits of the instruction's format.
#[allow(clippy::too_many_arguments)]
pub(crate) fn case(
    family: &'static str,
    name: String,
    inst: String,
    form: Form,
    n_in: usize,
    rows: Vec<Vec<u64>>,
    sm: u32,
    version: (u32, u32),
    lane: impl Fn(&[u64]) -> Expect + Send + Sync + 'static,
) -> Case {
    let inputs = vec![form.reg(); n_in];
    let bf = form.fmt == Fmt::Bf16;
    let (body, outputs) = match (form.packed, bf) {
        (false, false) => (format!("{inst} %d, {};", args(n_in)), vec![form.reg()]),
        (true, false) => (
            format!(
                ".reg .b32 %t;\n{inst} %t, {};\nmov.b32 {{%d, %e}}, %t;",
                args(n_in)
            ),
            vec![form.elem_reg(), form.elem_reg()],
        ),
        (false, true) => (
            format!(
                ".reg .b16 %t, %z;\nmov.b16 %z, 0;\n{inst} %t, {};\nmov.b32 %d, {{%z, %t}};",
                args(n_in)
            ),
            vec![F32],
        ),
        (true, true) => (
            format!(
                ".reg .b32 %t;\n.reg .b16 %l, %h, %z;\nmov.b16 %z, 0;\n{inst} %t, {};\nmov.b32 {{%l, %h}}, %t;\nmov.b32 %d, {{%z, %l}};\nmov.b32 %e, {{%z, %h}};",
                args(n_in)
            ),
            vec![F32, F32],
        ),
    };
    let packed = form.packed;
    let widen = move |e: Expect| match e {
        Expect::Bits(b) if bf => Expect::Bits(b << 16),
        e => e,
    };
    let mut e = Elementwise::new(family, name, body, &inputs, &outputs, rows, move |r| {
        if packed {
            let lo: Vec<u64> = r.iter().map(|x| x & 0xffff).collect();
            let hi: Vec<u64> = r.iter().map(|x| (x >> 16) & 0xffff).collect();
            vec![widen(lane(&lo)), widen(lane(&hi))]
        } else {
            vec![widen(lane(r))]
        }
    });
    e.sm = sm;
    e.version = version;
    e.case()
}

fn args(n: usize) -> String {
    ["%a", "%b", "%c"][..n].join(", ")
}

/// Target and PTX version of the generated modules: late enough for every form tested here
/// (bf16 arithmetic needs sm_90 and PTX 7.8).
fn target(_form: Form) -> (u32, (u32, u32)) {
    (90, (7, 8))
}

fn suffix(r: Option<Rnd>, ftz: bool, sat: bool) -> String {
    let mut s = String::new();
    if let Some(r) = r {
        s.push('.');
        s.push_str(r.name());
    }
    if ftz {
        s.push_str(".ftz");
    }
    if sat {
        s.push_str(".sat");
    }
    s
}

/// `add sub mul` (ISA 8.7.3.3-5, 9.7.4.1-3).
fn add_sub_mul(v: &mut Vec<Case>) {
    let forms = [F32F, F64F, F16F, F16X2, BF16F, BF16X2];
    for (name, op) in [
        ("add", Arith::Add),
        ("sub", Arith::Sub),
        ("mul", Arith::Mul),
    ] {
        for form in forms {
            let full = matches!(form.fmt, Fmt::F32 | Fmt::F64);
            let rnds: Vec<Option<Rnd>> = if full {
                std::iter::once(None).chain(Rnd::ALL.map(Some)).collect()
            } else {
                vec![None, Some(Rnd::Rn)]
            };
            let flags: &[(bool, bool)] = match form.fmt {
                Fmt::F32 | Fmt::F16 => {
                    &[(false, false), (true, false), (false, true), (true, true)]
                }
                _ => &[(false, false)],
            };
            for &r in &rnds {
                for &(ftz, sat) in flags {
                    let inst = format!("{name}{}{}", suffix(r, ftz, sat), form.ty);
                    let fmt = form.fmt;
                    let (sm, ver) = target(form);
                    let seed =
                        11 + r.map_or(0, |r| r as u64) * 7 + u64::from(ftz) * 3 + u64::from(sat);
                    v.push(case(
                        FAMILY,
                        format!("float/{inst}"),
                        inst,
                        form,
                        2,
                        float_rows(form, 2, seed),
                        sm,
                        ver,
                        move |x| {
                            let (a, b) = if ftz {
                                (fmt.flush(x[0]), fmt.flush(x[1]))
                            } else {
                                (x[0], x[1])
                            };
                            let mut d = ieee::arith(fmt, op, r.unwrap_or(Rnd::Rn), a, b, 0);
                            if ftz {
                                d = fmt.flush(d);
                            }
                            if sat {
                                return clamped(fmt, saturate(fmt, d));
                            }
                            exact(fmt, d)
                        },
                    ));
                }
            }
        }
    }
}

/// Rows for fma: besides the usual rows, `c` close to `-a*b` so that the sum cancels.
fn fma_rows(form: Form, seed: u64) -> Vec<Vec<u64>> {
    let mut rows = float_rows(form, 3, seed);
    let mut rng = Rng::new(seed ^ 0x55);
    let fmt = form.fmt;
    let elems = if form.packed { 2 } else { 1 };
    for _ in 0..400 {
        let mut row = vec![0u64; 3];
        for k in 0..elems {
            let v = float_values(fmt, &mut rng, 2);
            let (a, b) = (v[0], v[1]);
            let p = ieee::arith(fmt, Arith::Mul, Rnd::Rn, a, b, 0);
            let c = (p ^ fmt.sign_bit())
                .wrapping_add(rng.below(3))
                .wrapping_sub(1)
                & fmt.mask();
            for (j, x) in [a, b, c].into_iter().enumerate() {
                row[j] |= x << (16 * k);
            }
        }
        rows.push(row);
    }
    rows
}

/// `fma` and `mad` (ISA 8.7.3.6-7, 9.7.4.4): one rounding of the exact `a*b + c`.
fn fma_mad(v: &mut Vec<Case>) {
    for name in ["fma", "mad"] {
        for form in [F32F, F64F] {
            let flags: &[(bool, bool)] = if form.fmt == Fmt::F32 {
                &[(false, false), (true, false), (false, true), (true, true)]
            } else {
                &[(false, false)]
            };
            for r in Rnd::ALL {
                for &(ftz, sat) in flags {
                    let inst = format!("{name}{}{}", suffix(Some(r), ftz, sat), form.ty);
                    v.push(fma_case(inst, form, r, ftz, sat, false));
                }
            }
        }
    }
    for form in [F16F, F16X2, BF16F, BF16X2] {
        let mods: &[(bool, bool, bool)] = if form.fmt == Fmt::F16 {
            &[
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (true, true, false),
                (false, false, true),
                (true, false, true),
            ]
        } else {
            &[(false, false, false), (false, false, true)]
        };
        for &(ftz, sat, relu) in mods {
            let mut inst = format!("fma{}", suffix(Some(Rnd::Rn), ftz, sat));
            if relu {
                inst.push_str(".relu");
            }
            inst.push_str(&form.ty.to_string());
            v.push(fma_case(inst, form, Rnd::Rn, ftz, sat, relu));
        }
    }
}

fn fma_case(inst: String, form: Form, r: Rnd, ftz: bool, sat: bool, relu: bool) -> Case {
    let fmt = form.fmt;
    let (sm, ver) = target(form);
    let seed = 101 + r as u64 * 5 + u64::from(ftz) * 2 + u64::from(sat);
    case(
        FAMILY,
        format!("float/{inst}"),
        inst,
        form,
        3,
        fma_rows(form, seed),
        sm,
        ver,
        move |x| {
            let f = |b: u64| if ftz { fmt.flush(b) } else { b };
            let mut d = ieee::arith(fmt, Arith::Fma, r, f(x[0]), f(x[1]), f(x[2]));
            d = f(d);
            if sat {
                return clamped(fmt, saturate(fmt, d));
            }
            if relu {
                // Negative results become 0; NaN stays NaN (ISA 9.7.4.4).
                if fmt.is_nan(d) {
                    return Expect::AnyNan;
                }
                if fmt.sign(d) {
                    d = 0;
                }
                return clamped(fmt, d);
            }
            exact(fmt, d)
        },
    )
}

/// `div`, `rcp` and `sqrt` with IEEE rounding (ISA 8.7.3.8, 13, 15): correctly rounded.
fn div_rcp_sqrt(v: &mut Vec<Case>) {
    for form in [F32F, F64F] {
        let ftzs: &[bool] = if form.fmt == Fmt::F32 {
            &[false, true]
        } else {
            &[false]
        };
        for r in Rnd::ALL {
            for &ftz in ftzs {
                let fmt = form.fmt;
                let sfx = suffix(Some(r), ftz, false);
                let inst = format!("div{sfx}{}", form.ty);
                v.push(case(
                    FAMILY,
                    format!("float/{inst}"),
                    inst,
                    form,
                    2,
                    float_rows(form, 2, 200 + r as u64),
                    90,
                    (7, 8),
                    move |x| {
                        let f = |b: u64| if ftz { fmt.flush(b) } else { b };
                        let d = ieee::arith(fmt, Arith::Div, r, f(x[0]), f(x[1]), 0);
                        exact(fmt, f(d))
                    },
                ));
                let inst = format!("rcp{sfx}{}", form.ty);
                v.push(case(
                    FAMILY,
                    format!("float/{inst}"),
                    inst,
                    form,
                    1,
                    float_rows(form, 1, 300 + r as u64),
                    90,
                    (7, 8),
                    move |x| {
                        let f = |b: u64| if ftz { fmt.flush(b) } else { b };
                        let d = ieee::arith(fmt, Arith::Div, r, fmt.one(), f(x[0]), 0);
                        exact(fmt, f(d))
                    },
                ));
                let inst = format!("sqrt{sfx}{}", form.ty);
                v.push(case(
                    FAMILY,
                    format!("float/{inst}"),
                    inst,
                    form,
                    1,
                    float_rows(form, 1, 400 + r as u64),
                    90,
                    (7, 8),
                    move |x| {
                        let f = |b: u64| if ftz { fmt.flush(b) } else { b };
                        exact(fmt, f(ieee::sqrt(fmt, r, f(x[0]))))
                    },
                ));
            }
        }
    }
}

/// `abs`, `neg` (ISA 8.7.3.9-10, 9.7.4.5-6): the sign bit; NaNs may come back as any NaN.
fn abs_neg_copysign(v: &mut Vec<Case>) {
    for form in [F32F, F64F, F16F, F16X2, BF16F, BF16X2] {
        let ftzs: &[bool] = if matches!(form.fmt, Fmt::F32 | Fmt::F16) {
            &[false, true]
        } else {
            &[false]
        };
        for &ftz in ftzs {
            for (name, neg) in [("abs", false), ("neg", true)] {
                let fmt = form.fmt;
                let inst = format!("{name}{}{}", suffix(None, ftz, false), form.ty);
                let (sm, ver) = target(form);
                v.push(case(
                    FAMILY,
                    format!("float/{inst}"),
                    inst,
                    form,
                    1,
                    float_rows(form, 1, 500),
                    sm,
                    ver,
                    move |x| {
                        let a = if ftz { fmt.flush(x[0]) } else { x[0] };
                        let d = if neg {
                            a ^ fmt.sign_bit()
                        } else {
                            a & !fmt.sign_bit()
                        };
                        exact(fmt, d & fmt.mask())
                    },
                ));
            }
        }
    }
    for form in [F32F, F64F] {
        let fmt = form.fmt;
        let inst = format!("copysign{}", form.ty);
        // "Copy sign bit of a into value of b" (ISA 8.7.3.2): bit operations, NaNs included.
        v.push(case(
            FAMILY,
            format!("float/{inst}"),
            inst,
            form,
            2,
            float_rows(form, 2, 600),
            90,
            (7, 8),
            move |x| Expect::Bits((x[0] & fmt.sign_bit()) | (x[1] & !fmt.sign_bit() & fmt.mask())),
        ));
    }
}

/// The ISA's `min_num`/`min_nan` (9.7.3.11): -0 < +0; NaN operands ignored unless `.NaN`.
fn min_max_ref(fmt: Fmt, max: bool, nan_mode: bool, x: u64, y: u64) -> Option<u64> {
    let (xn, yn) = (fmt.is_nan(x), fmt.is_nan(y));
    if nan_mode && (xn || yn) || xn && yn {
        return None;
    }
    if xn {
        return Some(y);
    }
    if yn {
        return Some(x);
    }
    let (a, b) = (fmt.value(x), fmt.value(y));
    Some(if a == b {
        // Equal values differ only as zeros: -0 is the smaller.
        if fmt.sign(x) != max { x } else { y }
    } else if (a > b) == max {
        x
    } else {
        y
    })
}

fn min_max(v: &mut Vec<Case>) {
    for (name, max) in [("min", false), ("max", true)] {
        for form in [F32F, F64F, F16F, F16X2, BF16F, BF16X2] {
            let fmt = form.fmt;
            let ftzs: &[bool] = if matches!(fmt, Fmt::F32 | Fmt::F16) {
                &[false, true]
            } else {
                &[false]
            };
            let nans: &[bool] = if fmt == Fmt::F64 {
                &[false]
            } else {
                &[false, true]
            };
            let xors: &[bool] = if fmt == Fmt::F64 {
                &[false]
            } else {
                &[false, true]
            };
            for &ftz in ftzs {
                for &nan in nans {
                    for &xorsign in xors {
                        let mut inst = name.to_string();
                        if ftz {
                            inst.push_str(".ftz");
                        }
                        if nan {
                            inst.push_str(".NaN");
                        }
                        if xorsign {
                            inst.push_str(".xorsign.abs");
                        }
                        inst.push_str(&form.ty.to_string());
                        v.push(case(
                            FAMILY,
                            format!("float/{inst}"),
                            inst,
                            form,
                            2,
                            float_rows(form, 2, 700),
                            90,
                            (7, 8),
                            move |x| {
                                let f = |b: u64| if ftz { fmt.flush(b) } else { b };
                                let (mut a, mut b) = (f(x[0]), f(x[1]));
                                let sign = fmt.sign(a) ^ fmt.sign(b);
                                if xorsign {
                                    a &= !fmt.sign_bit();
                                    b &= !fmt.sign_bit();
                                }
                                match min_max_ref(fmt, max, nan, a, b) {
                                    None => Expect::AnyNan,
                                    Some(d) if xorsign => {
                                        let d = d & !fmt.sign_bit();
                                        Expect::Bits(if sign { d | fmt.sign_bit() } else { d })
                                    }
                                    Some(d) => Expect::Bits(d),
                                }
                            },
                        ));
                    }
                }
            }
        }
        // Three inputs (PTX 8.8, sm_100): .f32 with .ftz, .NaN, .abs.
        for ftz in [false, true] {
            for nan in [false, true] {
                for abs in [false, true] {
                    let fmt = Fmt::F32;
                    let mut inst = name.to_string();
                    if ftz {
                        inst.push_str(".ftz");
                    }
                    if nan {
                        inst.push_str(".NaN");
                    }
                    if abs {
                        inst.push_str(".abs");
                    }
                    inst.push_str(".f32");
                    v.push(case(
                        FAMILY,
                        format!("float/{inst}/3"),
                        inst,
                        F32F,
                        3,
                        float_rows(F32F, 3, 800),
                        100,
                        (8, 8),
                        move |x| {
                            let f = |b: u64| {
                                let b = if ftz { fmt.flush(b) } else { b };
                                if abs { b & !fmt.sign_bit() } else { b }
                            };
                            let d =
                                min_max_ref(fmt, max, nan, f(x[0]), f(x[1])).unwrap_or(0x7fff_ffff);
                            match min_max_ref(fmt, max, nan, d, f(x[2])) {
                                None => Expect::AnyNan,
                                Some(d) => Expect::Bits(d),
                            }
                        },
                    ));
                }
            }
        }
    }
}

/// A property of bits of a format.
type FmtTest = fn(Fmt, u64) -> bool;

/// A reference model of a unary approximation on the exact input value.
type Model = Box<dyn Fn(f64) -> Expect + Send + Sync>;

/// `testp` (ISA 8.7.3.1); zeros are normal.
fn testp(v: &mut Vec<Case>) {
    let ops: [(&str, FmtTest); 6] = [
        ("finite", |f, b| !f.is_nan(b) && !f.is_inf(b)),
        ("infinite", |f, b| f.is_inf(b)),
        ("number", |f, b| !f.is_nan(b)),
        ("notanumber", |f, b| f.is_nan(b)),
        ("normal", |f, b| {
            !f.is_nan(b) && !f.is_inf(b) && !f.is_subnormal(b)
        }),
        ("subnormal", |f, b| f.is_subnormal(b)),
    ];
    for (op, test) in ops {
        for form in [F32F, F64F] {
            let fmt = form.fmt;
            let inst = format!("testp.{op}{}", form.ty);
            let mut e = Elementwise::new(
                FAMILY,
                format!("float/{inst}"),
                format!("{inst} %d, %a;"),
                &[form.reg()],
                &[Pred],
                float_rows(form, 1, 900),
                move |x| vec![Expect::Bits(u64::from(test(fmt, x[0])))],
            );
            e.sm = 90;
            v.push(e.case());
        }
    }
}

/// A relative error bound around the f64 reference `want` (absolute below `floor`).
fn within(want: f64, rel: f64, floor: f64) -> Expect {
    if want.is_nan() {
        return Expect::AnyNan;
    }
    if want.is_infinite() {
        return Expect::Abs {
            value: want,
            tol: 0.0,
        };
    }
    Expect::Abs {
        value: want,
        tol: (want.abs() * rel).max(floor),
    }
}

/// `.approx` instructions (ISA 8.7.3.8, 13, 15-22 and 9.7.4.9-10): the special-value tables
/// exactly, finite results within the stated bound.
fn approx(v: &mut Vec<Case>) {
    let fmt = Fmt::F32;
    for ftz in [false, true] {
        let fl = move |b: u64| if ftz { fmt.flush(b) } else { b };
        let sfx = if ftz { ".ftz" } else { "" };
        let value = move |b: u64| fmt.value(fl(b));
        // Results are flushed under .ftz too: a bound on a tiny result includes zero.
        let floor = if ftz {
            f64::from(f32::MIN_POSITIVE)
        } else {
            0.0
        };
        let unary: Vec<(&str, Model)> = vec![
            // sin/cos: 2^-20.5 absolute in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi], no bound
            // beyond.
            ("sin", Box::new(|x: f64| trig(x, x.sin()))),
            ("cos", Box::new(|x: f64| trig(x, x.cos()))),
            // lg2: 2^-22 absolute in (0.5, 2), 2^-22 relative elsewhere.
            (
                "lg2",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        return Expect::Abs {
                            value: f64::NEG_INFINITY,
                            tol: 0.0,
                        };
                    }
                    let w = x.log2();
                    if x > 0.5 && x < 2.0 {
                        Expect::Abs {
                            value: w,
                            tol: 2f64.powf(-22.0),
                        }
                    } else {
                        within(w, 2f64.powf(-22.0), 0.0)
                    }
                }),
            ),
            // ex2: 2 ulp from the correctly rounded result.
            (
                "ex2",
                Box::new(move |x: f64| {
                    let w = x.exp2();
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    let rn = f64::from(w as f32);
                    if ftz && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 2 }
                }),
            ),
            // rcp.approx: 1 ulp over the full range.
            (
                "rcp",
                Box::new(move |x: f64| {
                    let w = 1.0 / x;
                    let rn = f64::from(w as f32);
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    if ftz && rn != 0.0 && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 1 }
                }),
            ),
            // sqrt.approx: 2^-23 relative; rsqrt.approx: 2^-22.9 relative.
            (
                "sqrt",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        return Expect::Bits(x.to_bits() >> 32 & 0x8000_0000);
                    }
                    within(x.sqrt(), 2f64.powf(-23.0), floor)
                }),
            ),
            (
                "rsqrt",
                Box::new(move |x: f64| {
                    if x == 0.0 {
                        let inf = if x.is_sign_negative() {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        };
                        return Expect::Abs {
                            value: inf,
                            tol: 0.0,
                        };
                    }
                    within(1.0 / x.sqrt(), 2f64.powf(-22.9), floor)
                }),
            ),
        ];
        for (name, model) in unary {
            let inst = format!("{name}.approx{sfx}.f32");
            v.push(case(
                FAMILY,
                format!("float/{inst}"),
                inst,
                F32F,
                1,
                approx_rows(name),
                90,
                (7, 8),
                move |x| match model(value(x[0])) {
                    Expect::Bits(b) => Expect::Bits(b),
                    e => flush_expect(e, ftz),
                },
            ));
        }
        // div.approx: 2 ulp for |b| in [2^-126, 2^126]; a signed zero (NaN for infinite a)
        // for 2^126 < |b| < 2^128. div.full: 2 ulp over the full range.
        for full in [false, true] {
            let inst = format!("div.{}{sfx}.f32", if full { "full" } else { "approx" });
            v.push(case(
                FAMILY,
                format!("float/{inst}"),
                inst,
                F32F,
                2,
                float_rows(F32F, 2, 1000),
                90,
                (7, 8),
                move |x| {
                    let (a, b) = (value(x[0]), value(x[1]));
                    let w = a / b;
                    if w.is_nan() {
                        return Expect::AnyNan;
                    }
                    let big = b.abs() > 2f64.powi(126) && b.is_finite();
                    if !full && big {
                        let neg = fmt.sign(fl(x[0])) ^ fmt.sign(fl(x[1]));
                        return if a.is_infinite() {
                            Expect::AnyNan
                        } else {
                            Expect::Bits(if neg { 0x8000_0000 } else { 0 })
                        };
                    }
                    if !full && b != 0.0 && b.abs() < 2f64.powi(-126) {
                        // Outside the range the bound is stated for.
                        return Expect::Any;
                    }
                    let rn = f64::from(w as f32);
                    if ftz && rn != 0.0 && rn.abs() < f64::from(f32::MIN_POSITIVE) {
                        return Expect::Abs {
                            value: rn,
                            tol: f64::from(f32::MIN_POSITIVE),
                        };
                    }
                    Expect::Ulps { value: rn, ulps: 2 }
                },
            ));
        }
    }
    // tanh.approx.f32: 2^-11 relative; subnormals pass through.
    v.push(case(
        FAMILY,
        "float/tanh.approx.f32".into(),
        "tanh.approx.f32".into(),
        F32F,
        1,
        approx_rows("tanh"),
        90,
        (7, 8),
        |x| within(Fmt::F32.value(x[0]).tanh(), 2f64.powf(-11.0), 0.0),
    ));
    // Half precision: ex2 (f16 2^-9.9, bf16 2^-7 relative; .bf16 only with .ftz) and tanh
    // (f16 2^-10.987, bf16 2^-8 absolute).
    for form in [F16F, F16X2, BF16F, BF16X2] {
        let fmt = form.fmt;
        let bf = fmt == Fmt::Bf16;
        let ex2 = format!("ex2.approx{}{}", if bf { ".ftz" } else { "" }, form.ty);
        v.push(case(
            FAMILY,
            format!("float/{ex2}"),
            ex2,
            form,
            1,
            float_rows(form, 1, 1100),
            90,
            (7, 8),
            move |x| {
                let a = if bf { fmt.flush(x[0]) } else { x[0] };
                let w = fmt.value(a).exp2();
                let rel = if bf { 2f64.powi(-7) } else { 2f64.powf(-9.9) };
                half_bound(fmt, w, w.abs() * rel, bf)
            },
        ));
        let tanh = format!("tanh.approx{}", form.ty);
        v.push(case(
            FAMILY,
            format!("float/{tanh}"),
            tanh,
            form,
            1,
            float_rows(form, 1, 1200),
            90,
            (7, 8),
            move |x| {
                let w = fmt.value(x[0]).tanh();
                let tol = if bf {
                    2f64.powi(-8)
                } else {
                    2f64.powf(-10.987)
                };
                half_bound(fmt, w, tol, false)
            },
        ));
    }
    // rsqrt.approx.f64: the ISA states no bound ("TBD"); ptxvk promises the .f32 bound.
    v.push(case(
        FAMILY,
        "float/rsqrt.approx.f64".into(),
        "rsqrt.approx.f64".into(),
        F64F,
        1,
        float_rows(F64F, 1, 1300),
        90,
        (7, 8),
        |x| {
            let a = f64::from_bits(x[0]);
            if a == 0.0 {
                return Expect::Abs {
                    value: 1.0 / a,
                    tol: 0.0,
                };
            }
            within(1.0 / a.sqrt(), 2f64.powf(-22.9), 0.0)
        },
    ));
    // rcp/rsqrt.approx.ftz.f64: from the upper 32 bits of a, the result's low 32 bits zero,
    // subnormals flushed, NaN to 0x7fffffff00000000 (ISA 8.7.3.14, 8.7.3.17).
    for (name, f) in [
        ("rcp", (|x: f64| 1.0 / x) as fn(f64) -> f64),
        ("rsqrt", |x: f64| 1.0 / x.sqrt()),
    ] {
        let inst = format!("{name}.approx.ftz.f64");
        let mut e = Elementwise::new(
            FAMILY,
            format!("float/{inst}"),
            format!("{inst} %d, %a;\nand.b64 %e, %d, 0xffffffff;"),
            &[F64],
            &[F64, B64],
            float_rows(F64F, 1, 1400),
            move |x| {
                let hi = Fmt::F64.flush(x[0] & 0xffff_ffff_0000_0000);
                let a = f64::from_bits(hi);
                let w = f(a);
                let low = Expect::Bits(0);
                if w.is_nan() {
                    return vec![Expect::Bits(0x7fff_ffff_0000_0000), low];
                }
                if w.is_infinite() || w == 0.0 {
                    return vec![Expect::Abs { value: w, tol: 0.0 }, low];
                }
                if w.abs() < f64::MIN_POSITIVE {
                    return vec![
                        Expect::Abs {
                            value: 0.0,
                            tol: f64::MIN_POSITIVE,
                        },
                        low,
                    ];
                }
                // 20 significant bits: within 2^-19 relative (ISA: "gross approximation").
                vec![within(w, 2f64.powi(-19), 0.0), low]
            },
        );
        e.sm = 90;
        v.push(e.case());
    }
}

/// Inputs for the approximations: the edges, the function's interesting range densely, and
/// random values.
fn approx_rows(name: &str) -> Vec<Vec<u64>> {
    let mut rows = float_rows(F32F, 1, 1500);
    let range = match name {
        "sin" | "cos" => 100.0 * std::f64::consts::PI,
        "ex2" => 130.0,
        "tanh" => 12.0,
        _ => 4.0,
    };
    let mut rng = Rng::new(77);
    for i in 0..2000 {
        let t = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let x = if i % 2 == 0 {
            t * range
        } else {
            t * 2.0 * std::f64::consts::PI
        };
        rows.push(vec![u64::from((x as f32).to_bits())]);
    }
    rows
}

/// sin/cos bounds by input range (ISA 8.7.3.18-19).
fn trig(x: f64, w: f64) -> Expect {
    if x.is_infinite() || x.is_nan() {
        return Expect::AnyNan;
    }
    let pi = std::f64::consts::PI;
    if x.abs() <= 2.0 * pi {
        Expect::Abs {
            value: w,
            tol: 2f64.powf(-20.5),
        }
    } else if x.abs() <= 100.0 * pi {
        Expect::Abs {
            value: w,
            tol: 2f64.powf(-14.7),
        }
    } else {
        Expect::Any
    }
}

/// Under `.ftz` a result that would be subnormal may come back as zero.
fn flush_expect(e: Expect, ftz: bool) -> Expect {
    match e {
        Expect::Abs { value, tol }
            if ftz && value != 0.0 && value.abs() < f64::from(f32::MIN_POSITIVE) =>
        {
            Expect::Abs {
                value,
                tol: tol.max(value.abs()),
            }
        }
        e => e,
    }
}

/// A bound for a half-precision result (lanes are compared as values): overflow to infinity
/// where the format overflows, and under `.ftz` a result below the normal range may be zero.
fn half_bound(fmt: Fmt, w: f64, tol: f64, ftz: bool) -> Expect {
    if w.is_nan() {
        return Expect::AnyNan;
    }
    let rn = fmt.value(fmt.round(w, Rnd::Rn));
    if rn.is_infinite() {
        return Expect::Abs {
            value: rn,
            tol: 0.0,
        };
    }
    let min_normal = match fmt {
        Fmt::F16 => 2f64.powi(-14),
        _ => 2f64.powi(-126),
    };
    let tol = if ftz && w.abs() < min_normal {
        tol.max(w.abs())
    } else {
        tol
    };
    // The bound cannot beat the format itself (subnormal results): allow the rounding error
    // of the correctly rounded result on top.
    Expect::Abs {
        value: w,
        tol: tol + (rn - w).abs(),
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    add_sub_mul(&mut v);
    fma_mad(&mut v);
    div_rcp_sqrt(&mut v);
    abs_neg_copysign(&mut v);
    min_max(&mut v);
    testp(&mut v);
    approx(&mut v);
    v
}
