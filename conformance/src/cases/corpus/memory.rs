//! 64-bit indexing, structs, per-thread arrays and constant memory (index64.cu, structs.cu,
//! local_arrays.cu, constant.cu).

use super::*;

const SIZES: [usize; 3] = [1, 1000, 30_001];

pub fn cases(v: &mut Vec<Case>) {
    index64(v);
    structs(v);
    local_arrays(v);
    constant(v);
}

fn index64(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "index64", "grid_stride_scale_u64", &label, move |d| {
            let mut g = rng(190);
            let x: Vec<u64> = (0..n).map(|_| g.next_u64()).collect();
            let mul = 0x9E37_79B9_7F4A_7C15u64;
            let res = d.launch(
                [3, 1, 1],
                [96, 1, 1],
                0,
                vec![buf(&x), buf(&vec![0u64; n]), val(n as u64), val(mul)],
            )?;
            let want: Vec<u64> = (0..n)
                .map(|i| x[i].wrapping_mul(mul).wrapping_add(i as u64))
                .collect();
            Ok(same("out", &out::<u64>(&res, 1), &want, |i| {
                format!("x={:#x}", x[i])
            }))
        });
        add(v, "index64", "gather_i64_index", &label, move |d| {
            let mut g = rng(191);
            let m = 5000;
            let src = rand_f32s(&mut g, m, -1.0, 1.0);
            let idx: Vec<i64> = (0..n).map(|_| g.below(m as u64) as i64).collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&src), buf(&idx), buf(&vec![0f32; n]), val(n as i64)],
            )?;
            let want: Vec<f32> = idx.iter().map(|&k| src[k as usize]).collect();
            Ok(same("out", &out::<f32>(&res, 2), &want, |i| {
                format!("index {}", idx[i])
            }))
        });
    }
    for (width, height) in [(1usize, 1usize), (37, 19), (300, 200)] {
        add(
            v,
            "index64",
            "pitched_copy_2d",
            &format!("{width}x{height}"),
            move |d| {
                let (sp, dp) = (width * 4 + 12, width * 4 + 36);
                let src: Vec<u8> = rand_u32s(&mut rng(192), sp * height)
                    .iter()
                    .map(|&a| a as u8)
                    .collect();
                let init = vec![0xA5u8; dp * height];
                let res = d.launch(
                    [width.div_ceil(32) as u32, height.div_ceil(4) as u32, 1],
                    [32, 4, 1],
                    0,
                    vec![
                        buf(&src),
                        val(sp as u64),
                        buf(&init),
                        val(dp as u64),
                        val(width as i32),
                        val(height as i32),
                    ],
                )?;
                let mut want = init.clone();
                for y in 0..height {
                    for x in 0..width {
                        let s = u32::from_le_bytes(
                            src[y * sp + 4 * x..y * sp + 4 * x + 4]
                                .try_into()
                                .unwrap_or([0; 4]),
                        );
                        want[y * dp + 4 * x..y * dp + 4 * x + 4]
                            .copy_from_slice(&(s ^ y as u32).to_le_bytes());
                    }
                }
                Ok(same("dst", &out::<u8>(&res, 2), &want, |k| {
                    format!("row {}, byte {}", k / dp, k % dp)
                }))
            },
        );
    }
}

fn structs(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "structs", "aos_to_soa", &label, move |d| {
            let mut g = rng(200);
            let xyz = rand_f32s(&mut g, 3 * n, -10.0, 10.0);
            let ids = rand_i32s(&mut g, n, i32::MIN, i32::MAX);
            // struct particle { float x, y, z; int id; }: 16 bytes.
            let mut bytes = Vec::new();
            for i in 0..n {
                for c in 0..3 {
                    bytes.extend_from_slice(&xyz[3 * i + c].to_le_bytes());
                }
                bytes.extend_from_slice(&ids[i].to_le_bytes());
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    CorpusArg::Buf(bytes),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    buf(&vec![0f32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let comp = |c: usize| (0..n).map(|i| xyz[3 * i + c]).collect::<Vec<f32>>();
            Ok(all([
                same("x", &out::<f32>(&res, 1), &comp(0), |i| format!("i={i}")),
                same("y", &out::<f32>(&res, 2), &comp(1), |i| format!("i={i}")),
                same("z", &out::<f32>(&res, 3), &comp(2), |i| format!("i={i}")),
                same("id", &out::<i32>(&res, 4), &ids, |i| format!("i={i}")),
            ]))
        });
        add(v, "structs", "particle_step", &label, move |d| {
            // struct body { float pos[3]; float vel[3]; }: 24 bytes.
            let b = rand_f32s(&mut rng(201), 6 * n, -5.0, 5.0);
            let (dt, damping) = (0.01f32, 0.999f32);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&b), val(dt), val(damping), val(n as i32)],
            )?;
            let want: Vec<f32> = b
                .chunks(6)
                .flat_map(|q| {
                    let pos = [0, 1, 2].map(|c| dt.mul_add(q[3 + c], q[c]));
                    let vel = [0, 1, 2].map(|c| q[3 + c] * damping);
                    pos.into_iter().chain(vel)
                })
                .collect();
            Ok(same("bodies", &out::<f32>(&res, 0), &want, |k| {
                format!("body {}, field {}", k / 6, k % 6)
            }))
        });
        for flags in [0u8, 1, 2, 3] {
            add(
                v,
                "structs",
                "struct_param_affine",
                &format!("{label}/flags={flags}"),
                move |d| {
                    let stride = 3usize;
                    let x = rand_f32s(&mut rng(202), n * stride, -100.0, 100.0);
                    let (scale, offset) = (1.5f32, -7.25f32);
                    // struct affine_params { int n; float scale; float offset; int stride;
                    // unsigned char flags; }: 17 bytes of fields, padded to 20 (align 4).
                    let mut p = Vec::new();
                    p.extend_from_slice(&(n as i32).to_le_bytes());
                    p.extend_from_slice(&scale.to_le_bytes());
                    p.extend_from_slice(&offset.to_le_bytes());
                    p.extend_from_slice(&(stride as i32).to_le_bytes());
                    p.extend_from_slice(&[flags, 0, 0, 0]);
                    let res = d.launch_1d(
                        n as u32,
                        128,
                        vec![
                            CorpusArg::Val(KernelArg::Bytes(p)),
                            buf(&x),
                            buf(&vec![0f32; n]),
                        ],
                    )?;
                    let want: Vec<f32> = (0..n)
                        .map(|i| {
                            let mut v = x[i * stride].mul_add(scale, offset);
                            if flags & 1 != 0 {
                                v = -v;
                            }
                            if flags & 2 != 0 {
                                v = v.abs();
                            }
                            v
                        })
                        .collect();
                    Ok(same("out", &out::<f32>(&res, 2), &want, |i| {
                        format!("x={}", x[i * stride])
                    }))
                },
            );
        }
        add(v, "structs", "struct_record_update", &label, move |d| {
            // struct record { unsigned char tag; short delta; int value; long long total; }:
            // offsets 0, 2, 4, 8; 16 bytes.
            let mut g = rng(203);
            let recs: Vec<(u8, i16, i32, i64)> = (0..n)
                .map(|_| {
                    let w = g.next_u64();
                    (
                        (w % 3) as u8,
                        (w >> 8) as i16,
                        (w >> 24) as i32,
                        g.next_u64() as i64 >> 2,
                    )
                })
                .collect();
            let mut bytes = Vec::new();
            for &(tag, delta, value, total) in &recs {
                bytes.extend_from_slice(&[tag, 0x5a]);
                bytes.extend_from_slice(&delta.to_le_bytes());
                bytes.extend_from_slice(&value.to_le_bytes());
                bytes.extend_from_slice(&total.to_le_bytes());
            }
            let res = d.launch_1d(
                n as u32,
                128,
                vec![CorpusArg::Buf(bytes.clone()), val(n as i32)],
            )?;
            // The padding byte is copied with the struct; its value is unspecified in C, so
            // only the fields are compared.
            let got = out::<u8>(&res, 0);
            let fields = |b: &[u8]| -> Vec<u64> {
                b.chunks(16)
                    .flat_map(|r| {
                        [
                            u64::from(r[0]),
                            u64::from(u16::from_le_bytes([r[2], r[3]])),
                            u64::from(u32::from_le_bytes([r[4], r[5], r[6], r[7]])),
                            u64::from_le_bytes(r[8..16].try_into().unwrap_or([0; 8])),
                        ]
                    })
                    .collect()
            };
            let want: Vec<u64> = recs
                .iter()
                .flat_map(|&(tag, delta, value, total)| {
                    let (tag, total) = if tag != 0 {
                        (
                            tag - 1,
                            total.wrapping_add(i64::from(value) * i64::from(delta)),
                        )
                    } else {
                        (tag, total)
                    };
                    [
                        u64::from(tag),
                        u64::from(delta as u16),
                        u64::from(value as u32),
                        total as u64,
                    ]
                })
                .collect();
            Ok(same("records", &fields(&got), &want, |k| {
                format!(
                    "record {}, {}",
                    k / 4,
                    ["tag", "delta", "value", "total"][k % 4]
                )
            }))
        });
    }
}

/// The stack machine of local_rpn_eval, written from its description.
fn rpn(prog: &[i32]) -> i32 {
    const BAD: i32 = i32::MIN;
    let mut stack: Vec<i32> = Vec::new();
    for &t in prog {
        if t >= 0 {
            if stack.len() == 32 {
                return BAD;
            }
            stack.push(t);
        } else if t == -4 {
            match stack.last() {
                Some(&top) if stack.len() < 32 => stack.push(top),
                _ => return BAD,
            }
        } else {
            if stack.len() < 2 {
                return BAD;
            }
            let b = stack.pop().unwrap_or(0);
            let a = stack.pop().unwrap_or(0);
            match t {
                -1 => stack.push(a.wrapping_add(b)),
                -2 => stack.push(a.wrapping_sub(b)),
                -3 => stack.push(a.wrapping_mul(b)),
                -5 => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => stack.push(b),
            }
        }
    }
    stack.last().copied().unwrap_or(0)
}

fn local_arrays(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "local_arrays", "local_sort16", &label, move |d| {
            let x = rand_i32s(&mut rng(210), 16 * n, -30, 30);
            let res = d.launch_1d(
                n as u32,
                64,
                vec![buf(&x), buf(&vec![0i32; 16 * n]), val(n as i32)],
            )?;
            let want: Vec<i32> = x
                .chunks(16)
                .flat_map(|c| {
                    let mut c = c.to_vec();
                    c.sort_unstable();
                    c
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |k| {
                format!("thread {}", k / 16)
            }))
        });
        add(v, "local_arrays", "local_histogram", &label, move |d| {
            let len = 5;
            // Nibbles skewed toward small values, so maxima and ties vary.
            let x: Vec<u32> = rand_u32s(&mut rng(211), len * n)
                .iter()
                .map(|&w| w & 0x3737_3737)
                .collect();
            let res = d.launch_1d(
                n as u32,
                64,
                vec![buf(&x), val(len as i32), buf(&vec![0u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = x
                .chunks(len)
                .map(|ws| {
                    let mut counts = [0u32; 16];
                    for w in ws {
                        for s in (0..32).step_by(4) {
                            counts[((w >> s) & 15) as usize] += 1;
                        }
                    }
                    // The most frequent nibble, the smallest one on ties.
                    let best =
                        (0..16).fold(0usize, |b, j| if counts[j] > counts[b] { j } else { b });
                    best as u32 * 256 + counts[best]
                })
                .collect();
            Ok(same("out", &out::<u32>(&res, 2), &want, |i| {
                format!("thread {i}")
            }))
        });
        add(v, "local_arrays", "local_rpn_eval", &label, move |d| {
            let len = 24;
            let mut g = rng(212);
            // Mostly pushes, so programs both finish and overflow or underflow.
            let prog: Vec<i32> = (0..len * n)
                .map(|_| {
                    if g.below(5) < 3 {
                        g.below(100) as i32
                    } else {
                        -1 - g.below(6) as i32
                    }
                })
                .collect();
            let res = d.launch_1d(
                n as u32,
                64,
                vec![
                    buf(&prog),
                    val(len as i32),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let want: Vec<i32> = prog.chunks(len).map(rpn).collect();
            Ok(same("out", &out::<i32>(&res, 2), &want, |i| {
                format!("program {i}")
            }))
        });
    }
    // Long pushes: the 32-entry stack overflows.
    add(v, "local_arrays", "local_rpn_eval", "overflow", move |d| {
        let prog: Vec<i32> = (0..40).collect();
        let res = d.launch_1d(1, 32, vec![buf(&prog), val(40), buf(&[0i32]), val(1)])?;
        Ok(same("out", &out::<i32>(&res, 2), &[rpn(&prog)], |_| {
            String::new()
        }))
    });
}

/// CRC-32 as zlib computes it, one bit at a time.
fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn constant(v: &mut Vec<Case>) {
    // The coefficients in constant.cu's initializer.
    let coeffs = [
        1.0f32, -0.5, 0.25, -0.125, 0.0625, -0.03125, 0.015625, -0.0078125,
    ];
    let filter = [1, 2, 3, 4, 5, 4, 3, 2, 1];
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "constant", "const_poly_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(220), n, -3.0, 3.0);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0f32; n]), val(n as i32)],
            )?;
            let want: Vec<f32> = x
                .iter()
                .map(|&a| {
                    (0..7)
                        .rev()
                        .fold(coeffs[7], |acc, k| acc.mul_add(a, coeffs[k]))
                })
                .collect();
            Ok(same("p", &out::<f32>(&res, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "constant", "const_conv1d_i32", &label, move |d| {
            let x = rand_i32s(&mut rng(221), n, -1_000_000, 1_000_000);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
            )?;
            let want: Vec<i32> = (0..n as i64)
                .map(|i| {
                    (0..9i64)
                        .filter_map(|k| {
                            let j = i + k - 4;
                            (0..n as i64)
                                .contains(&j)
                                .then(|| filter[k as usize] * x[j as usize])
                        })
                        .sum()
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |i| {
                format!("i={i}")
            }))
        });
        add(v, "constant", "const_crc32", &label, move |d| {
            let len = 33;
            let data: Vec<u8> = rand_u32s(&mut rng(222), n * len)
                .iter()
                .map(|&a| (a >> 5) as u8)
                .collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&data),
                    buf(&vec![0u32; n]),
                    val(len as i32),
                    val(n as i32),
                ],
            )?;
            let want: Vec<u32> = data.chunks(len).map(crc32).collect();
            Ok(same("crc", &out::<u32>(&res, 1), &want, |i| {
                format!("row {i}")
            }))
        });
    }
}
