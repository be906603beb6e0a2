//! half.cu: `f16` arithmetic, checked against the correctly rounded result.

use half::f16;

use super::super::*;
use super::SIZES;

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

pub(super) fn halfp(v: &mut Vec<Case>) {
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
