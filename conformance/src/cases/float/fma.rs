//! `fma` and `mad`: every rounding, `.ftz` and `.sat` form on each float type, over inputs
//! drawn so that the sum cancels the product, and over sums near a tie, where a single
//! rounding and two differ.

use super::*;

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

/// Rows for fma whose exact `a*b + c` lies `h * 2^-2m` beside a rounding boundary of `c`'s
/// format (`h` half an ulp of `c`, `m` the mantissa bits): `a = ±(1 + 2^-m)` and
/// `b = h (1 - 2^-m)` make `a*b = ±h (1 - 2^-2m)`. For f32 the distance is below f64's
/// precision, so an emulation that rounds the sum to f64 first and then to f32 rounds twice and
/// misses; for f64 it needs more than a double-double.
fn fma_near_tie_rows(form: Form, seed: u64) -> Vec<Vec<u64>> {
    let fmt = form.fmt;
    let (m, bias) = (u64::from(fmt.mant()), fmt.bias() as u64);
    let mut rng = Rng::new(seed ^ 0x7e5);
    let elems = if form.packed { 2 } else { 1 };
    (0..256)
        .map(|_| {
            let mut row = vec![0u64; 3];
            for k in 0..elems {
                // c's exponent keeps b's (m + 2 below it) normal and the sum finite.
                let e_c = (m + 3).max(bias - 20) + rng.below(40);
                let c = (rng.below(2) * fmt.sign_bit())
                    | (e_c << m)
                    | (rng.next_u64() & fmt.frac_mask());
                let a = (rng.below(2) * fmt.sign_bit()) | (bias << m) | 1;
                let b = ((e_c - m - 2) << m) | (fmt.frac_mask() - 1);
                for (j, x) in [a, b, c].into_iter().enumerate() {
                    row[j] |= x << (16 * k);
                }
            }
            row
        })
        .collect()
}

/// `fma` and `mad` (ISA 8.7.3.6-7, 9.7.4.4): one rounding of the exact `a*b + c`.
pub(super) fn fma_mad(v: &mut Vec<Case>) {
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
                    v.push(fma_case(inst, form, r, (ftz, sat, false), false));
                }
                if name == "fma" {
                    let inst = format!("fma{}{}", suffix(Some(r), false, false), form.ty);
                    v.push(fma_case(inst, form, r, (false, false, false), true));
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
            v.push(fma_case(inst, form, Rnd::Rn, (ftz, sat, relu), false));
        }
    }
}

/// One fma case; `mods` are `.ftz`, `.sat`, `.relu`; `near_ties` takes the rows of
/// [`fma_near_tie_rows`] (a case of its own, so recorded NVIDIA runs of the other rows still
/// compare).
fn fma_case(inst: String, form: Form, r: Rnd, mods: (bool, bool, bool), near_ties: bool) -> Case {
    let (ftz, sat, relu) = mods;
    let fmt = form.fmt;
    let (sm, ver) = target(form);
    let seed = 101 + r as u64 * 5 + u64::from(ftz) * 2 + u64::from(sat);
    let (name, rows) = if near_ties {
        (
            format!("float/{inst}/near-ties"),
            fma_near_tie_rows(form, seed),
        )
    } else {
        (format!("float/{inst}"), fma_rows(form, seed))
    };
    case(FAMILY, name, inst, form, 3, rows, sm, ver, move |x| {
        let f = |b: u64| if ftz { fmt.flush(b) } else { b };
        let (a, b, c) = (f(x[0]), f(x[1]), f(x[2]));
        let mut d = ieee::arith(fmt, Arith::Fma, r, a, b, c);
        if ftz && !relu {
            let d_rz = ieee::arith(fmt, Arith::Fma, Rnd::Rz, a, b, c);
            return ftz_result(fmt, d, d_rz, sat);
        }
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
    })
}
