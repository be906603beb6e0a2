//! intops.cu: bit counts, `mul.hi`, funnel shifts, `prmt` and `sad`, division and remainder.

use super::super::*;
use super::SIZES;

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

pub(super) fn intops(v: &mut Vec<Case>) {
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
