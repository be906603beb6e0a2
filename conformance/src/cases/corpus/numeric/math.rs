//! math.cu: square roots, division, exp and log, sine and cosine, rounding, min and max; the
//! `.approx` forms within the ISA's stated bounds.

use ptxvk_translator::ScalarType;

use super::super::*;
use super::SIZES;

fn ulp32(x: f64) -> f64 {
    crate::ulp(ScalarType::F32, x)
}

pub(super) fn math(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "math", "math_sqrt_div_f32", &label, move |d| {
            let mut r = rng(120);
            let a = rand_f32s(&mut r, n, -10.0, 1e4);
            let b = rand_f32s(&mut r, n, -100.0, 100.0);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    val(n as i32),
                ],
            )?;
            let sq: Vec<f32> = a.iter().map(|x| x.sqrt()).collect();
            let q: Vec<f32> = (0..n).map(|i| a[i] / b[i]).collect();
            let rcp: Vec<f32> = b.iter().map(|x| 1.0 / x).collect();
            let show = |i: usize| format!("a={}, b={}", a[i], b[i]);
            Ok(all([
                same("sqrt", &out::<f32>(&res, 2), &sq, show),
                same("a / b", &out::<f32>(&res, 3), &q, show),
                same("1 / b", &out::<f32>(&res, 4), &rcp, show),
            ]))
        });
        add(v, "math", "math_rsqrt_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(121), n, 1e-6, 1e6);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0f32; n]), val(n as i32)],
            )?;
            let want: Vec<f64> = x.iter().map(|&a| 1.0 / f64::from(a).sqrt()).collect();
            // ISA 8.7.3.16: absolute error 2^-22.4 for inputs in [1, 4], i.e. results in
            // [0.5, 1]; scaling the input by 4^k scales the result by 2^-k, so the bound is
            // 2^-22.4 / 0.5 relative to the result.
            Ok(close(
                "rsqrt",
                &out::<f32>(&res, 1),
                &want,
                |i| want[i] * 2f64.powf(-21.4),
                |i| format!("x={}", x[i]),
            ))
        });
        add(v, "math", "math_exp_log_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(122), n, -80.0, 80.0);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    val(n as i32),
                ],
            )?;
            // __expf(x) = ex2.approx(x * log2(e)) with the product rounded to f32 first.
            // ISA 8.7.3.20: absolute error 2^-22.5 for the fraction's power (in [1, 2)), which
            // is 2^-22.5 relative to the result.
            let arg: Vec<f64> = x
                .iter()
                .map(|&a| f64::from(a * std::f32::consts::LOG2_E))
                .collect();
            let e: Vec<f64> = arg.iter().map(|&a| a.exp2()).collect();
            // __logf(y) = lg2.approx(y) * ln 2 (the constant and the product rounded to f32).
            // ISA 8.7.3.19: absolute error 2^-22.6 for the mantissa's log2, to which the
            // exponent is added and the sum rounded to f32 (half an ulp of lg2's result: an
            // H200 uses it, docs/nvidia.md); times ln 2, plus half an ulp for the product and
            // the constant's own rounding (2^-24 relative).
            let y: Vec<f32> = x.iter().map(|&a| a.abs() + 1.0).collect();
            let ln2 = f64::from(std::f32::consts::LN_2);
            let lg: Vec<f64> = y.iter().map(|&a| f64::from(a).log2()).collect();
            let l: Vec<f64> = lg.iter().map(|&a| a * ln2).collect();
            Ok(all([
                close(
                    "exp",
                    &out::<f32>(&res, 1),
                    &e,
                    |i| e[i] * 2f64.powf(-22.5) + ulp32(e[i]) / 2.0,
                    |i| format!("x={}", x[i]),
                ),
                close(
                    "log",
                    &out::<f32>(&res, 2),
                    &l,
                    |i| {
                        (2f64.powf(-22.6) + ulp32(lg[i]) / 2.0) * ln2
                            + ulp32(l[i]) / 2.0
                            + l[i].abs() * 2f64.powi(-24)
                    },
                    |i| format!("x={}", x[i]),
                ),
            ]))
        });
        add(v, "math", "math_sincos_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(123), n, 0.0, std::f32::consts::FRAC_PI_2);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    val(n as i32),
                ],
            )?;
            // ISA 8.7.3.17/18: absolute error 2^-20.9 "in quadrant 00", the inputs here.
            let tol = 2f64.powf(-20.9);
            let s: Vec<f64> = x.iter().map(|&a| f64::from(a).sin()).collect();
            let c: Vec<f64> = x.iter().map(|&a| f64::from(a).cos()).collect();
            Ok(all([
                close(
                    "sin",
                    &out::<f32>(&res, 1),
                    &s,
                    |_| tol,
                    |i| format!("x={}", x[i]),
                ),
                close(
                    "cos",
                    &out::<f32>(&res, 2),
                    &c,
                    |_| tol,
                    |i| format!("x={}", x[i]),
                ),
            ]))
        });
        add(v, "math", "math_fast_divide_f32", &label, move |d| {
            let mut r = rng(124);
            let a = rand_f32s(&mut r, n, -1e6, 1e6);
            let b: Vec<f32> = rand_f32s(&mut r, n, 1.0 / 1024.0, 1024.0)
                .iter()
                .enumerate()
                .map(|(i, &x)| if i % 3 == 0 { -x } else { x })
                .collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&a), buf(&b), buf(&vec![0f32; n]), val(n as i32)],
            )?;
            // ISA 8.7.3.8: div.approx.f32, |b| in [2^-126, 2^126]: at most 2 ulp.
            let want: Vec<f64> = (0..n).map(|i| f64::from(a[i]) / f64::from(b[i])).collect();
            Ok(close(
                "a / b",
                &out::<f32>(&res, 2),
                &want,
                |i| 2.0 * ulp32(want[i]),
                |i| format!("a={}, b={}", a[i], b[i]),
            ))
        });
        add(v, "math", "math_round_f32", &label, move |d| {
            let mut x = rand_f32s(&mut rng(125), n, -100.0, 100.0);
            for (i, s) in [2.5f32, -2.5, 0.5, -0.5, 1.5, -0.0, 8388609.0]
                .iter()
                .enumerate()
            {
                if i < n {
                    x[i] = *s;
                }
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0f32; 4 * n]), val(n as i32)],
            )?;
            let want: Vec<f32> = x
                .iter()
                .flat_map(|&a| [a.floor(), a.ceil(), a.trunc(), a.round_ties_even()])
                .collect();
            Ok(same("out", &out::<f32>(&res, 1), &want, |k| {
                format!(
                    "{} of x={}",
                    ["floor", "ceil", "trunc", "rint"][k % 4],
                    x[k / 4]
                )
            }))
        });
        add(v, "math", "math_minmax_sat_f32", &label, move |d| {
            let mut r = rng(126);
            let mut a = rand_f32s(&mut r, n, -2.0, 2.0);
            let mut b = rand_f32s(&mut r, n, -2.0, 2.0);
            for i in (0..n).step_by(7) {
                if (i / 7) % 2 == 0 {
                    a[i] = f32::NAN;
                } else {
                    b[i] = f32::NAN;
                }
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&a), buf(&b), buf(&vec![0f32; 4 * n]), val(n as i32)],
            )?;
            // min/max (ISA 8.7.3.11/12): a NaN operand gives the other; .sat clamps to [0, 1]
            // with NaN to +0 (ISA 8.7.3); abs clears the sign.
            let pick = |x: f32, y: f32, less: bool| {
                if x.is_nan() {
                    y
                } else if y.is_nan() || (x < y) == less {
                    x
                } else {
                    y
                }
            };
            let want: Vec<f32> = (0..n)
                .flat_map(|i| {
                    let sat = if a[i].is_nan() {
                        0.0
                    } else {
                        a[i].clamp(0.0, 1.0)
                    };
                    [
                        pick(a[i], b[i], true),
                        pick(a[i], b[i], false),
                        sat,
                        a[i].abs(),
                    ]
                })
                .collect();
            Ok(same("out", &out::<f32>(&res, 2), &want, |k| {
                format!(
                    "{} of a={}, b={}",
                    ["min", "max", "sat", "abs"][k % 4],
                    a[k / 4],
                    b[k / 4]
                )
            }))
        });
        add(v, "math", "math_sqrt_f64_convert", &label, move |d| {
            let mut x = rand_f64s(&mut rng(127), n, -1e9, 1e9);
            for (i, s) in [2.5f64, -3.5, 0.5, 16777217.0, -0.0].iter().enumerate() {
                if i < n {
                    x[i] = *s;
                }
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0f64; n]),
                    buf(&vec![0i32; n]),
                    buf(&vec![0f32; n]),
                    val(n as i32),
                ],
            )?;
            let sq: Vec<f64> = x.iter().map(|a| a.sqrt()).collect();
            // (float)x rounds to nearest; cvt.rni.s32.f32 rounds half to even.
            let to_int: Vec<i32> = x
                .iter()
                .map(|&a| (a as f32).round_ties_even() as i32)
                .collect();
            // (int)(long long)x truncates, then keeps the low 32 bits; then to nearest f32.
            let to_float: Vec<f32> = x.iter().map(|&a| a as i64 as i32 as f32).collect();
            Ok(all([
                same("sqrt", &out::<f64>(&res, 1), &sq, |i| format!("x={}", x[i])),
                same("to int", &out::<i32>(&res, 2), &to_int, |i| {
                    format!("x={}", x[i])
                }),
                same("to float", &out::<f32>(&res, 3), &to_float, |i| {
                    format!("x={}", x[i])
                }),
            ]))
        });
    }
}
