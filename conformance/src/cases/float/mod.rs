//! ISA 8.7.3 (and the half-precision forms of newer ISA versions): floating-point instructions.
//!
//! One case per instruction x type x modifier combination. Reference models: exact IEEE
//! arithmetic from `ieee.rs` for everything the ISA rounds (`.rn .rz .rm .rp`, `.ftz`, `.sat`,
//! `.relu`), the ISA's pseudo-code for `min max abs neg copysign testp`, and for `.approx`
//! the error bound the ISA states, measured against the f64 library function (whose own error,
//! about 2^-52 relative, is far below every bound).

mod fma;

use fma::fma_mad;

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

/// `.ftz` (then `.sat`) on the result `d` of an operation whose result rounded toward zero is
/// `d_rz`: a subnormal becomes a zero of its sign. Where the exact result is below the
/// smallest normal number but rounds up to it, IEEE 754 lets tininess be detected before
/// rounding (flush it: NVIDIA hardware does, docs/nvidia.md) or after (keep it: ptxvk does);
/// the ISA does not say, so both are accepted.
pub(crate) fn ftz_result(fmt: Fmt, d: u64, d_rz: u64, sat: bool) -> Expect {
    let d = fmt.flush(d);
    let tiny = fmt.is_subnormal(d_rz) && !fmt.is_zero(d) && !fmt.is_subnormal(d);
    let zero = d & fmt.sign_bit();
    match (tiny, sat) {
        (false, false) => exact(fmt, d),
        (false, true) => clamped(fmt, saturate(fmt, d)),
        (true, false) => Expect::Either(d, zero),
        // Negative: both saturate to zero.
        (true, true) if fmt.sign(d) => clamped(fmt, 0),
        (true, true) => Expect::Either(saturate(fmt, d), zero),
    }
}

/// A zero result under `.sat`/`.relu` may be either zero (the ISA says "clamps to 0").
pub(crate) fn clamped(fmt: Fmt, bits: u64) -> Expect {
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
pub(crate) fn saturate(fmt: Fmt, r: u64) -> u64 {
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
pub(crate) fn target(_form: Form) -> (u32, (u32, u32)) {
    (90, (7, 8))
}

pub(crate) fn suffix(r: Option<Rnd>, ftz: bool, sat: bool) -> String {
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
                            let r = r.unwrap_or(Rnd::Rn);
                            let d = ieee::arith(fmt, op, r, a, b, 0);
                            if ftz {
                                let d_rz = ieee::arith(fmt, op, Rnd::Rz, a, b, 0);
                                return ftz_result(fmt, d, d_rz, sat);
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
                        let (a, b) = (f(x[0]), f(x[1]));
                        let d = ieee::arith(fmt, Arith::Div, r, a, b, 0);
                        if ftz {
                            let d_rz = ieee::arith(fmt, Arith::Div, Rnd::Rz, a, b, 0);
                            ftz_result(fmt, d, d_rz, false)
                        } else {
                            exact(fmt, d)
                        }
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
                        let a = f(x[0]);
                        let d = ieee::arith(fmt, Arith::Div, r, fmt.one(), a, 0);
                        if ftz {
                            let d_rz = ieee::arith(fmt, Arith::Div, Rnd::Rz, fmt.one(), a, 0);
                            ftz_result(fmt, d, d_rz, false)
                        } else {
                            exact(fmt, d)
                        }
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

/// `div.rn.f32` over quotients chosen where rounding is hardest: subnormal and tiny results,
/// results near overflow, exact ties in the subnormal range (small odd multiples of 2^-149 over
/// powers of two), exact quotients, and random bit patterns (ISA 8.7.3.8; reference: the IEEE
/// model). A case of its own, so that the main case's inputs stay those recorded under CUDA.
fn div_quotients(v: &mut Vec<Case>) {
    let mut g = Rng::new(0x0d1f);
    let mut rows = Vec::new();
    for i in 0..30_000u64 {
        let x = g.next_u64();
        let (a, b) = match i % 6 {
            0 => (x & 0xffff_ffff, x >> 32),
            1 => (
                (x & 0x00ff_ffff) | ((x >> 40) & 0x8000_0000),
                0x3f80_0000 + ((x >> 32) & 0x0fff_ffff),
            ),
            2 => (
                0x7f00_0000 | (x & 0x00ff_ffff),
                0x3f00_0000 | ((x >> 32) & 0x00ff_ffff),
            ),
            3 => ((x & 0xff) | 1, (127 + (x >> 8) % 24) << 23),
            4 => {
                let scale = |k: u64| 2f32.powi((k % 60) as i32 - 30);
                let c = (x & 0xfff) as f32 * scale(x >> 12);
                let d = (((x >> 20) & 0xfff) + 1) as f32 * scale(x >> 32);
                (u64::from((c * d).to_bits()), u64::from(d.to_bits()))
            }
            _ => (0x0080_0000 + (x & 0x00ff_ffff), (x >> 32) & 0x7fff_ffff),
        };
        rows.push(vec![a, b]);
    }
    v.push(case(
        FAMILY,
        "float/div.rn.f32/quotients".into(),
        "div.rn.f32".into(),
        F32F,
        2,
        rows,
        90,
        (7, 8),
        |x| {
            exact(
                Fmt::F32,
                ieee::arith(Fmt::F32, Arith::Div, Rnd::Rn, x[0], x[1], 0),
            )
        },
    ));
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    add_sub_mul(&mut v);
    fma_mad(&mut v);
    div_rcp_sqrt(&mut v);
    div_quotients(&mut v);
    super::float_bits::cases(&mut v);
    super::float_approx::cases(&mut v);
    v
}
