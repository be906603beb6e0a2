//! fft.cu: radix-2 FFTs, against a reference whose butterflies round as the kernels' do.

use super::super::*;

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

pub(super) fn fft(v: &mut Vec<Case>) {
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
