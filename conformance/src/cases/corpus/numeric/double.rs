//! double.cu: `f64` axpy, dot products, norms, Horner's rule and Newton reciprocals.

use super::super::*;
use super::SIZES;

pub(super) fn double(v: &mut Vec<Case>) {
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
