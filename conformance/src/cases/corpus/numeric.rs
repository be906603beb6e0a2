//! Numerics (half.cu, double.cu, math.cu, intops.cu, fft.cu). Correctly rounded operations are
//! compared bit for bit; the `.approx` instructions within the ISA's stated bounds (each cited).

use half::f16;
use ptxvk_translator::ScalarType;

use super::*;

const SIZES: [usize; 3] = [1, 1000, 65_537];

pub fn cases(v: &mut Vec<Case>) {
    halfp(v);
    double(v);
    math(v);
    intops(v);
    fft(v);
}

/// Random halves in [-64, 64] whose magnitude is at least 2^-6 (or zero): products and sums of
/// three of them are exact in f64, so rounding the f64 result once is the correct rounding.
fn rand_halves(r: &mut Rng, n: usize) -> Vec<u16> {
    rand_f32s(r, n, -64.0, 64.0)
        .iter()
        .map(|&x| {
            let x = if x.abs() < 1.0 / 64.0 { 0.0 } else { x };
            f16::from_f32(x).to_bits()
        })
        .collect()
}

fn h(bits: u16) -> f64 {
    f64::from(f16::from_bits(bits))
}

/// Rounds an exact value to the nearest half (ties to even).
fn to_h(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}

fn halfp(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "half", "haxpy_f16", &label, move |d| {
            let mut r = rng(100);
            let (x, y) = (rand_halves(&mut r, n), rand_halves(&mut r, n));
            let a = 1.375f32;
            let res = d.launch_1d(n as u32, 128, vec![val(n as i32), val(a), buf(&x), buf(&y)])?;
            // fma.rn.f16: a * x + y rounded once.
            let ah = h(to_h(f64::from(a)));
            let want: Vec<u16> = (0..n).map(|i| to_h(ah * h(x[i]) + h(y[i]))).collect();
            Ok(same("y", &out::<u16>(&res, 3), &want, |i| {
                format!("x={}, y={}", h(x[i]), h(y[i]))
            }))
        });
        add(v, "half", "hdot_partial_f16", &label, move |d| {
            let mut r = rng(101);
            let (x, y) = (rand_halves(&mut r, n), rand_halves(&mut r, n));
            let (grid, block) = (5usize, 64usize);
            let threads = grid * block;
            let res = d.launch(
                [grid as u32, 1, 1],
                [block as u32, 1, 1],
                0,
                vec![buf(&x), buf(&y), buf(&vec![0f32; threads]), val(n as i32)],
            )?;
            // Per thread: products rounded to half, widened, added in f32 in index order.
            let want: Vec<f32> = (0..threads)
                .map(|t| {
                    (t..n).step_by(threads).fold(0.0f32, |acc, j| {
                        acc + f32::from(f16::from_bits(to_h(h(x[j]) * h(y[j]))))
                    })
                })
                .collect();
            Ok(same("partial", &out::<f32>(&res, 2), &want, |t| {
                format!("thread {t}")
            }))
        });
        add(v, "half", "hfma2_f16x2", &label, move |d| {
            let mut r = rng(102);
            let (a, b, c) = (
                rand_halves(&mut r, 2 * n),
                rand_halves(&mut r, 2 * n),
                rand_halves(&mut r, 2 * n),
            );
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&c),
                    buf(&vec![0u16; 2 * n]),
                    val(n as i32),
                ],
            )?;
            // Per lane: t = fma(a, b, c) rounded to half, then t + c rounded to half.
            let want: Vec<u16> = (0..2 * n)
                .map(|k| to_h(h(to_h(h(a[k]) * h(b[k]) + h(c[k]))) + h(c[k])))
                .collect();
            Ok(same("out", &out::<u16>(&res, 3), &want, |k| {
                format!("lane {} of pair {}", k % 2, k / 2)
            }))
        });
        add(v, "half", "hrelu_convert", &label, move |d| {
            let mut x = rand_f32s(&mut rng(103), n, -1000.0, 1000.0);
            // Values that round to half subnormals, a tie, and a negative zero.
            for (i, s) in [3e-6f32, -5e-7, 1.0 + 1.0 / 2048.0, -0.0]
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
                vec![
                    buf(&x),
                    buf(&vec![0f32; n]),
                    buf(&vec![0u16; n]),
                    val(n as i32),
                ],
            )?;
            // cvt.rn.f16.f32, then max with +0 as `0 < v ? v : +0`, then v - 1 rounded to half.
            let hv: Vec<u16> = x
                .iter()
                .map(|&a| {
                    let hb = f16::from_f32(a).to_bits();
                    if h(hb) > 0.0 { hb } else { 0 }
                })
                .collect();
            let want: Vec<f32> = hv
                .iter()
                .map(|&b| f32::from(f16::from_bits(to_h(h(b) - 1.0))))
                .collect();
            Ok(all([
                same("h", &out::<u16>(&res, 2), &hv, |i| format!("x={}", x[i])),
                same("out", &out::<f32>(&res, 1), &want, |i| {
                    format!("x={}", x[i])
                }),
            ]))
        });
    }
}

fn double(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "double", "daxpy_f64", &label, move |d| {
            let mut r = rng(110);
            let (x, y) = (
                rand_f64s(&mut r, n, -1e3, 1e3),
                rand_f64s(&mut r, n, -1e3, 1e3),
            );
            let a = -0.3f64;
            let res = d.launch_1d(n as u32, 128, vec![val(n as i32), val(a), buf(&x), buf(&y)])?;
            let want: Vec<f64> = (0..n).map(|i| a.mul_add(x[i], y[i])).collect();
            Ok(same("y", &out::<f64>(&res, 3), &want, |i| {
                format!("x={}, y={}", x[i], y[i])
            }))
        });
        add(v, "double", "ddot_partial_f64", &label, move |d| {
            let mut r = rng(111);
            let (x, y) = (
                rand_f64s(&mut r, n, -1.0, 1.0),
                rand_f64s(&mut r, n, -1.0, 1.0),
            );
            let blocks = n.div_ceil(128);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&y), buf(&vec![0f64; blocks]), val(n as i32)],
            )?;
            let want: Vec<f64> = (0..blocks)
                .map(|b| {
                    let mut s: Vec<f64> = (0..128)
                        .map(|t| {
                            let i = b * 128 + t;
                            if i < n { x[i] * y[i] } else { 0.0 }
                        })
                        .collect();
                    let mut stride = 64;
                    while stride > 0 {
                        for t in 0..stride {
                            s[t] += s[t + stride];
                        }
                        stride /= 2;
                    }
                    s[0]
                })
                .collect();
            Ok(same("partial", &out::<f64>(&res, 2), &want, |b| {
                format!("block {b}")
            }))
        });
        add(v, "double", "dnorm2_f64", &label, move |d| {
            let mut r = rng(112);
            let (x, y) = (
                rand_f64s(&mut r, n, -1e150, 1e150),
                rand_f64s(&mut r, n, -1e-3, 1e-3),
            );
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&y), buf(&vec![0f64; n]), val(n as i32)],
            )?;
            let want: Vec<f64> = (0..n).map(|i| (x[i] * x[i] + y[i] * y[i]).sqrt()).collect();
            Ok(same("norm", &out::<f64>(&res, 2), &want, |i| {
                format!("x={}, y={}", x[i], y[i])
            }))
        });
        add(v, "double", "dhorner_f64", &label, move |d| {
            let mut r = rng(113);
            let x = rand_f64s(&mut r, n, -2.0, 2.0);
            let c = rand_f64s(&mut r, 9, -1.0, 1.0);
            let degree = 8;
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&c),
                    val(degree),
                    buf(&vec![0f64; n]),
                    val(n as i32),
                ],
            )?;
            let want: Vec<f64> = x
                .iter()
                .map(|&xi| (0..8).rev().fold(c[8], |acc, k| acc.mul_add(xi, c[k])))
                .collect();
            Ok(same("p", &out::<f64>(&res, 3), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "double", "drecip_newton_f64", &label, move |d| {
            let mut r = rng(114);
            let x: Vec<f64> = rand_f64s(&mut r, n, 0.5, 1e6)
                .iter()
                .enumerate()
                .map(|(i, &a)| if i % 2 == 0 { a } else { -a })
                .collect();
            let iters = 3;
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0f64; n]),
                    buf(&vec![0f64; n]),
                    val(iters),
                    val(n as i32),
                ],
            )?;
            // The estimate is the correctly rounded f32 reciprocal of x rounded to f32.
            let newton: Vec<f64> = x
                .iter()
                .map(|&a| {
                    let mut rr = f64::from(1.0f32 / (a as f32));
                    for _ in 0..iters {
                        rr *= 2.0 + -(a * rr);
                    }
                    rr
                })
                .collect();
            let quotient: Vec<f64> = x.iter().map(|&a| 1.0 / a).collect();
            Ok(all([
                same("newton", &out::<f64>(&res, 1), &newton, |i| {
                    format!("x={}", x[i])
                }),
                same("quotient", &out::<f64>(&res, 2), &quotient, |i| {
                    format!("x={}", x[i])
                }),
            ]))
        });
    }
}

fn ulp32(x: f64) -> f64 {
    crate::ulp(ScalarType::F32, x)
}

fn math(v: &mut Vec<Case>) {
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

/// PTX `prmt.b32` in its default mode: byte n of the result is byte `sel & 7` of {b, a}, or
/// that byte's sign replicated when `sel & 8`.
fn prmt(a: u32, b: u32, s: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    (0..4).fold(0u32, |r, n| {
        let sel = (s >> (4 * n)) & 15;
        let byte = bytes[(sel & 7) as usize];
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 { 0xff } else { 0 }
        } else {
            byte
        };
        r | (u32::from(byte) << (8 * n))
    })
}

fn intops(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "intops", "int_bit_counts", &label, move |d| {
            let mut x = rand_u32s(&mut rng(130), n);
            for (i, s) in [0u32, u32::MAX, 1, 0x8000_0000].iter().enumerate() {
                if i < n {
                    x[i] = *s;
                }
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0u32; 4 * n]),
                    buf(&vec![0u32; 2 * n]),
                    val(n as i32),
                ],
            )?;
            let mut want = Vec::new();
            let mut want64 = Vec::new();
            for i in 0..n {
                let v = x[i];
                let ffs = if v == 0 { 0 } else { v.trailing_zeros() + 1 };
                want.extend([v.count_ones(), v.leading_zeros(), ffs, v.reverse_bits()]);
                let w = (u64::from(v) << 32) | u64::from(x[(i + 1) % n]);
                want64.extend([w.count_ones(), w.leading_zeros()]);
            }
            Ok(all([
                same("out", &out::<u32>(&res, 1), &want, |k| {
                    format!(
                        "{} of {:#x}",
                        ["popc", "clz", "ffs", "brev"][k % 4],
                        x[k / 4]
                    )
                }),
                same("out64", &out::<u32>(&res, 2), &want64, |k| {
                    format!("{} of element {}", ["popcll", "clzll"][k % 2], k / 2)
                }),
            ]))
        });
        for (pos, len) in [(0, 1), (7, 13), (31, 1), (4, 0)] {
            add(
                v,
                "intops",
                "int_bitfields",
                &format!("{label}/pos={pos}/len={len}"),
                move |d| {
                    let x = rand_u32s(&mut rng(131), n);
                    let res = d.launch_1d(
                        n as u32,
                        128,
                        vec![
                            buf(&x),
                            buf(&vec![0u32; 4 * n]),
                            val(pos),
                            val(len),
                            val(n as i32),
                        ],
                    )?;
                    let want: Vec<u32> = (0..n)
                        .flat_map(|i| {
                            let v = x[i];
                            let w = (u64::from(x[(i + 1) % n]) << 32) | u64::from(v);
                            [
                                (v >> 5) & 0x7f,
                                (((v as i32) << 3) >> 27) as u32,
                                ((w >> 20) & 0xffff_ffff) as u32,
                                (v >> pos) & ((1u32 << len) - 1),
                            ]
                        })
                        .collect();
                    Ok(same("out", &out::<u32>(&res, 1), &want, |k| {
                        format!("field {} of {:#x}", k % 4, x[k / 4])
                    }))
                },
            );
        }
        add(v, "intops", "int_mulhi", &label, move |d| {
            let mut r = rng(132);
            let (a, b) = (rand_u32s(&mut r, n), rand_u32s(&mut r, n));
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&vec![0u32; 2 * n]),
                    buf(&vec![0u64; 2 * n]),
                    val(n as i32),
                ],
            )?;
            let mut hi32 = Vec::new();
            let mut hi64 = Vec::new();
            for i in 0..n {
                let (x, y) = (a[i], b[i]);
                hi32.push(((u64::from(x) * u64::from(y)) >> 32) as u32);
                hi32.push(((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32);
                let p = (u64::from(x) << 32) | u64::from(y);
                let q = (u64::from(y) << 32) | u64::from(x);
                hi64.push(((u128::from(p) * u128::from(q)) >> 64) as u64);
                hi64.push(((i128::from(p as i64) * i128::from(q as i64)) >> 64) as u64);
            }
            Ok(all([
                same("hi32", &out::<u32>(&res, 2), &hi32, |k| {
                    format!("a={:#x}, b={:#x}", a[k / 2], b[k / 2])
                }),
                same("hi64", &out::<u64>(&res, 3), &hi64, |k| {
                    format!("a={:#x}, b={:#x}", a[k / 2], b[k / 2])
                }),
            ]))
        });
        add(v, "intops", "int_funnel_shift", &label, move |d| {
            let mut r = rng(133);
            let (lo, hi) = (rand_u32s(&mut r, n), rand_u32s(&mut r, n));
            let s: Vec<u32> = (0..n).map(|_| r.below(70) as u32).collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&lo),
                    buf(&hi),
                    buf(&s),
                    buf(&vec![0u32; 4 * n]),
                    val(n as i32),
                ],
            )?;
            let want: Vec<u32> = (0..n)
                .flat_map(|i| {
                    let w = (u64::from(hi[i]) << 32) | u64::from(lo[i]);
                    let (wrap, clamp) = (s[i] & 31, s[i].min(32));
                    [
                        ((w << wrap) >> 32) as u32,
                        (w >> wrap) as u32,
                        ((u128::from(w) << clamp) >> 32) as u32,
                        lo[i].rotate_left(wrap),
                    ]
                })
                .collect();
            Ok(same("out", &out::<u32>(&res, 3), &want, |k| {
                format!(
                    "{} of lo={:#x}, hi={:#x}, s={}",
                    ["shf.l.wrap", "shf.r.wrap", "shf.l.clamp", "rotate"][k % 4],
                    lo[k / 4],
                    hi[k / 4],
                    s[k / 4]
                )
            }))
        });
        add(v, "intops", "int_byte_perm_sad", &label, move |d| {
            let mut r = rng(134);
            let (a, b, s) = (
                rand_u32s(&mut r, n),
                rand_u32s(&mut r, n),
                rand_u32s(&mut r, n),
            );
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&s),
                    buf(&vec![0u32; 2 * n]),
                    val(n as i32),
                ],
            )?;
            // __usad(a, b, c) = |a - b| + c.
            let want: Vec<u32> = (0..n)
                .flat_map(|i| {
                    [
                        prmt(a[i], b[i], s[i]),
                        a[i].abs_diff(b[i]).wrapping_add(s[i]),
                    ]
                })
                .collect();
            Ok(same("out", &out::<u32>(&res, 3), &want, |k| {
                format!("a={:#x}, b={:#x}, s={:#x}", a[k / 2], b[k / 2], s[k / 2])
            }))
        });
        add(v, "intops", "int_div_rem", &label, move |d| {
            let mut r = rng(135);
            let mut x = rand_i32s(&mut r, n, i32::MIN, i32::MAX);
            let mut dv: Vec<i32> = (0..n)
                .map(|i| match i % 4 {
                    0 => rand_i32s(&mut r, 1, -20, 20)[0],
                    _ => rand_i32s(&mut r, 1, i32::MIN, i32::MAX)[0],
                })
                .collect();
            if n > 2 {
                x[1] = i32::MIN;
                dv[1] = -1;
                dv[2] = 0;
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&dv), buf(&vec![0i32; 6 * n]), val(n as i32)],
            )?;
            let want: Vec<i32> = (0..n)
                .flat_map(|i| {
                    let (v, dd) = (x[i], dv[i]);
                    let u = v as u32;
                    [
                        v / 7,
                        v % 10,
                        (u / 1000) as i32,
                        (u % 3) as i32,
                        if dd == 0 || (dd == -1 && v == i32::MIN) {
                            0
                        } else {
                            v / dd
                        },
                        if dd == 0 { 0 } else { (u % dd as u32) as i32 },
                    ]
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 2), &want, |k| {
                format!("result {} of x={}, d={}", k % 6, x[k / 6], dv[k / 6])
            }))
        });
    }
}

/// A complex float as the kernels store it.
type Complex32 = [f32; 2];

/// The twiddle table w[j] = exp(-2 pi i j / n), j < n / 2, rounded to f32.
fn twiddles(n: usize) -> Vec<f32> {
    (0..n / 2)
        .flat_map(|j| {
            let a = -2.0 * std::f64::consts::PI * j as f64 / n as f64;
            [a.cos() as f32, a.sin() as f32]
        })
        .collect()
}

/// The kernels' butterfly, each operation rounded as written in fft.cu.
fn butterfly(a: &mut Complex32, b: &mut Complex32, w: Complex32) {
    let tr = w[0] * b[0] - w[1] * b[1];
    let ti = w[0] * b[1] + w[1] * b[0];
    *b = [a[0] - tr, a[1] - ti];
    *a = [a[0] + tr, a[1] + ti];
}

/// Radix-2 decimation in time over one transform: bit-reversed order, then stages of
/// butterflies `half` apart with twiddle w[j * n / (2 half)].
fn fft_ref(x: &[Complex32], w: &[f32]) -> Vec<Complex32> {
    let n = x.len();
    let bits = n.trailing_zeros();
    let mut s = vec![[0f32; 2]; n];
    for (i, v) in x.iter().enumerate() {
        s[(i.reverse_bits() >> (usize::BITS - bits)) & (n - 1)] = *v;
    }
    let mut half = 1;
    while half < n {
        for t in 0..n / 2 {
            let j = t & (half - 1);
            let lo = ((t - j) << 1) + j;
            let k = j * (n / (2 * half));
            let (mut a, mut b) = (s[lo], s[lo + half]);
            butterfly(&mut a, &mut b, [w[2 * k], w[2 * k + 1]]);
            s[lo] = a;
            s[lo + half] = b;
        }
        half *= 2;
    }
    s
}

fn flat(x: &[Complex32]) -> Vec<f32> {
    x.iter().flat_map(|c| [c[0], c[1]]).collect()
}

fn fft(v: &mut Vec<Case>) {
    for (log2n, transforms) in [(1u32, 1usize), (5, 3), (11, 2)] {
        let n = 1usize << log2n;
        let label = format!("n={n}x{transforms}");
        add(v, "fft", "fft_shared_c32", &label, move |d| {
            let x = rand_f32s(&mut rng(140), 2 * n * transforms, -1.0, 1.0);
            let w = twiddles(n);
            let res = d.launch(
                [transforms as u32, 1, 1],
                [(n / 2) as u32, 1, 1],
                0,
                vec![buf(&x), buf(&w), val(log2n as i32)],
            )?;
            let cx: Vec<Complex32> = x.chunks(2).map(|c| [c[0], c[1]]).collect();
            let want: Vec<f32> = cx.chunks(n).flat_map(|t| flat(&fft_ref(t, &w))).collect();
            Ok(same("spectrum", &out::<f32>(&res, 0), &want, |k| {
                format!(
                    "transform {}, bin {}, {}",
                    k / (2 * n),
                    (k / 2) % n,
                    ["re", "im"][k % 2]
                )
            }))
        });
        add(v, "fft", "fft_sincos_c32", &label, move |d| {
            let x = rand_f32s(&mut rng(141), 2 * n * transforms, -1.0, 1.0);
            let res = d.launch(
                [transforms as u32, 1, 1],
                [(n / 2) as u32, 1, 1],
                0,
                vec![buf(&x), val(log2n as i32)],
            )?;
            // The exact DFT in f64. Bound: the ISA states 2^-20.9 absolute for sin/cos.approx
            // in the first quadrant (8.7.3.17/18); the angles here span [-pi, 0], for which we
            // allow 2^-20, plus the angle's own rounding (2^-22 at |angle| <= pi). Each of the
            // log2(n) stages at most doubles magnitudes and adds to an element's error its
            // inputs' magnitude times (twiddle error + 4 roundings of 2^-24), so the error after
            // all stages is at most log2(n) * n/2 * max|x| * (2^-20 + 2^-22 + 2^-22).
            let eps = 2f64.powi(-20) + 2.0 * 2f64.powi(-22);
            let tol = f64::from(log2n) * (n as f64 / 2.0) * eps;
            let want: Vec<f64> = x
                .chunks(2 * n)
                .flat_map(|t| {
                    (0..n).flat_map(move |k| {
                        let (mut re, mut im) = (0.0f64, 0.0f64);
                        for j in 0..n {
                            let a = -2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                            let (xr, xi) = (f64::from(t[2 * j]), f64::from(t[2 * j + 1]));
                            re += xr * a.cos() - xi * a.sin();
                            im += xr * a.sin() + xi * a.cos();
                        }
                        [re, im]
                    })
                })
                .collect();
            Ok(close(
                "spectrum",
                &out::<f32>(&res, 0),
                &want,
                |_| tol,
                |k| {
                    format!(
                        "transform {}, bin {}, {}",
                        k / (2 * n),
                        (k / 2) % n,
                        ["re", "im"][k % 2]
                    )
                },
            ))
        });
    }
    for log2n in [1u32, 10, 16] {
        let n = 1usize << log2n;
        add(v, "fft", "fft_stage_c32", &format!("n={n}"), move |d| {
            let x = rand_f32s(&mut rng(142), 2 * n, -1.0, 1.0);
            let w = twiddles(n);
            let r = d.launch_kernel(
                "fft_bitreverse_c32",
                [n.div_ceil(256) as u32, 1, 1],
                [256, 1, 1],
                0,
                vec![buf(&x), buf(&vec![0f32; 2 * n]), val(log2n as i32)],
            )?;
            let mut data = out::<f32>(&r, 1);
            let mut half = 1;
            while half < n {
                let r = d.launch_1d(
                    (n / 2) as u32,
                    128,
                    vec![buf(&data), buf(&w), val(log2n as i32), val(half as i32)],
                )?;
                data = out::<f32>(&r, 0);
                half *= 2;
            }
            let cx: Vec<Complex32> = x.chunks(2).map(|c| [c[0], c[1]]).collect();
            Ok(same("spectrum", &data, &flat(&fft_ref(&cx, &w)), |k| {
                format!("bin {}, {}", k / 2, ["re", "im"][k % 2])
            }))
        });
    }
}
