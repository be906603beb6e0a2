//! Reductions, scans, stencils and dynamic shared memory (reduce.cu, scan.cu, stencil.cu,
//! dynsmem.cu).

use super::*;

const SIZES: [usize; 3] = [1, 1000, 131_075];

pub fn cases(v: &mut Vec<Case>) {
    reduce(v);
    scan(v);
    stencil(v);
    dynsmem(v);
}

/// Sums of consecutive chunks of `chunk` elements (wrapping).
fn chunk_sums(x: &[i32], chunk: usize) -> Vec<i32> {
    x.chunks(chunk)
        .map(|c| c.iter().fold(0i32, |a, &b| a.wrapping_add(b)))
        .collect()
}

fn reduce(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "reduce", "reduce_tree_i32", &label, move |d| {
            let x = rand_i32s(&mut rng(1), n, i32::MIN, i32::MAX);
            let blocks = n.div_ceil(256);
            let r = d.launch_1d(
                n as u32,
                256,
                vec![buf(&x), buf(&vec![0i32; blocks]), val(n as i32)],
            )?;
            Ok(same(
                "partial",
                &out::<i32>(&r, 1),
                &chunk_sums(&x, 256),
                |b| format!("block {b}"),
            ))
        });
        add(v, "reduce", "reduce_tree_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(2), n, -1000.0, 1000.0);
            let blocks = n.div_ceil(512);
            let r = d.launch(
                [blocks as u32, 1, 1],
                [256, 1, 1],
                0,
                vec![buf(&x), buf(&vec![0f32; blocks]), val(n as i32)],
            )?;
            // Each thread adds x[t] and x[t + 256] (0 past the end), then the tree halves the
            // stride from 128 to 1; every addition is a rounded f32 addition in that order.
            let want: Vec<f32> = x
                .chunks(512)
                .map(|c| {
                    let get = |i: usize| c.get(i).copied().unwrap_or(0.0);
                    let mut s: Vec<f32> = (0..256).map(|t| get(t) + get(t + 256)).collect();
                    let mut stride = 128;
                    while stride > 0 {
                        for t in 0..stride {
                            s[t] += s[t + stride];
                        }
                        stride /= 2;
                    }
                    s[0]
                })
                .collect();
            Ok(same("partial", &out::<f32>(&r, 1), &want, |b| {
                format!("block {b}")
            }))
        });
        for block in [64u32, 256] {
            let label = format!("n={n}/block={block}");
            add(v, "reduce", "reduce_warp_i32", &label, move |d| {
                let x = rand_i32s(&mut rng(3), n, -1 << 20, 1 << 20);
                let blocks = n.div_ceil(block as usize);
                let r = d.launch_1d(
                    n as u32,
                    block,
                    vec![buf(&x), buf(&vec![0i32; blocks]), val(n as i32)],
                )?;
                Ok(same(
                    "partial",
                    &out::<i32>(&r, 1),
                    &chunk_sums(&x, block as usize),
                    |b| format!("block {b}"),
                ))
            });
        }
        add(v, "reduce", "reduce_atomic_u64", &label, move |d| {
            let x = rand_u32s(&mut rng(4), n);
            let r = d.launch(
                [7, 1, 1],
                [96, 1, 1],
                0,
                vec![buf(&x), buf(&[0u64]), val(n as i32)],
            )?;
            let want: u64 = x.iter().map(|&a| u64::from(a)).sum();
            Ok(same("total", &out::<u64>(&r, 1), &[want], |_| {
                String::new()
            }))
        });
        add(v, "reduce", "reduce_max_u32", &label, move |d| {
            let x: Vec<u32> = rand_u32s(&mut rng(5), n).iter().map(|a| a >> 3).collect();
            let r = d.launch_1d(n as u32, 128, vec![buf(&x), buf(&[0u32]), val(n as i32)])?;
            let want = x.iter().copied().max().unwrap_or(0);
            Ok(same("max", &out::<u32>(&r, 1), &[want], |_| String::new()))
        });
    }
}

/// Inclusive prefix sums of each chunk, and the chunk totals (wrapping).
fn chunk_scans(x: &[u32], chunk: usize, inclusive: bool) -> (Vec<u32>, Vec<u32>) {
    let mut scans = Vec::with_capacity(x.len());
    let mut sums = Vec::new();
    for c in x.chunks(chunk) {
        let mut acc = 0u32;
        for &a in c {
            if inclusive {
                acc = acc.wrapping_add(a);
                scans.push(acc);
            } else {
                scans.push(acc);
                acc = acc.wrapping_add(a);
            }
        }
        sums.push(acc);
    }
    (scans, sums)
}

fn as_u32(x: &[i32]) -> Vec<u32> {
    x.iter().map(|&a| a as u32).collect()
}

fn scan(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "scan", "scan_hillis_steele_i32", &label, move |d| {
            let x = rand_i32s(&mut rng(10), n, -1000, 1000);
            let blocks = n.div_ceil(256);
            let r = d.launch_1d(
                n as u32,
                256,
                vec![
                    buf(&x),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; blocks]),
                    val(n as i32),
                ],
            )?;
            let (scans, sums) = chunk_scans(&as_u32(&x), 256, true);
            Ok(all([
                same("out", &as_u32(&out::<i32>(&r, 1)), &scans, |i| {
                    format!("x={}", x[i])
                }),
                same("sums", &as_u32(&out::<i32>(&r, 2)), &sums, |b| {
                    format!("block {b}")
                }),
            ]))
        });
        add(v, "scan", "scan_blelloch_u32", &label, move |d| {
            let x = rand_u32s(&mut rng(11), n);
            let blocks = n.div_ceil(512);
            let r = d.launch(
                [blocks as u32, 1, 1],
                [256, 1, 1],
                0,
                vec![
                    buf(&x),
                    buf(&vec![0u32; n]),
                    buf(&vec![0u32; blocks]),
                    val(n as i32),
                ],
            )?;
            let (scans, sums) = chunk_scans(&x, 512, false);
            Ok(all([
                same("out", &out::<u32>(&r, 1), &scans, |i| format!("x={}", x[i])),
                same("sums", &out::<u32>(&r, 2), &sums, |b| format!("block {b}")),
            ]))
        });
        for block in [96u32, 1024] {
            let label = format!("n={n}/block={block}");
            add(v, "scan", "scan_warp_i32", &label, move |d| {
                let x = rand_i32s(&mut rng(12), n, i32::MIN, i32::MAX);
                let r = d.launch_1d(
                    n as u32,
                    block,
                    vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
                )?;
                let (scans, _) = chunk_scans(&as_u32(&x), block as usize, true);
                Ok(same("out", &as_u32(&out::<i32>(&r, 1)), &scans, |i| {
                    format!("x={}", x[i])
                }))
            });
        }
    }
    // A whole-array inclusive scan: block scans, a scan of the block sums (one block), and the
    // pass adding each block's offset.
    for n in [1usize, 5000, 65_536] {
        add(
            v,
            "scan",
            "scan_add_offsets_i32",
            &format!("n={n}"),
            move |d| {
                let x = rand_i32s(&mut rng(13), n, -1 << 16, 1 << 16);
                let blocks = n.div_ceil(256);
                let grid = [blocks as u32, 1, 1];
                let r = d.launch_kernel(
                    "scan_hillis_steele_i32",
                    grid,
                    [256, 1, 1],
                    0,
                    vec![
                        buf(&x),
                        buf(&vec![0i32; n]),
                        buf(&vec![0i32; blocks]),
                        val(n as i32),
                    ],
                )?;
                let (scanned, sums) = (out::<i32>(&r, 1), out::<i32>(&r, 2));
                let r = d.launch_kernel(
                    "scan_hillis_steele_i32",
                    [1, 1, 1],
                    [256, 1, 1],
                    0,
                    vec![
                        buf(&sums),
                        buf(&vec![0i32; blocks]),
                        buf(&[0i32]),
                        val(blocks as i32),
                    ],
                )?;
                let scanned_sums = out::<i32>(&r, 1);
                let r = d.launch(
                    grid,
                    [64, 1, 1],
                    0,
                    vec![
                        buf(&scanned),
                        buf(&scanned_sums),
                        val(n as i32),
                        val(256i32),
                    ],
                )?;
                let (want, _) = chunk_scans(&as_u32(&x), n, true);
                Ok(same("scan", &as_u32(&out::<i32>(&r, 0)), &want, |i| {
                    format!("x={}", x[i])
                }))
            },
        );
    }
}

fn stencil(v: &mut Vec<Case>) {
    for n in SIZES {
        add(
            v,
            "stencil",
            "stencil_1d_i32",
            &format!("n={n}"),
            move |d| {
                let x = rand_i32s(&mut rng(20), n, i32::MIN, i32::MAX);
                let r = d.launch_1d(
                    n as u32,
                    128,
                    vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
                )?;
                let want: Vec<i32> = (0..n as i64)
                    .map(|g| {
                        (-3i64..=3).fold(0i32, |acc, o| {
                            let j = g + o;
                            let xv = if (0..n as i64).contains(&j) {
                                x[j as usize]
                            } else {
                                0
                            };
                            acc.wrapping_add(xv.wrapping_mul(4 - o.abs() as i32))
                        })
                    })
                    .collect();
                Ok(same("out", &out::<i32>(&r, 1), &want, |i| format!("i={i}")))
            },
        );
    }
    for (w, h) in [(1usize, 1usize), (37, 23), (300, 200)] {
        let label = format!("{w}x{h}");
        for kernel in ["jacobi_2d_f32", "jacobi_2d_shared_f32"] {
            add(v, "stencil", kernel, &label, move |d| {
                let x = rand_f32s(&mut rng(21), w * h, -10.0, 10.0);
                let r = d.launch(
                    [w.div_ceil(16) as u32, h.div_ceil(16) as u32, 1],
                    [16, 16, 1],
                    0,
                    vec![
                        buf(&x),
                        buf(&vec![0f32; w * h]),
                        val(w as i32),
                        val(h as i32),
                    ],
                )?;
                let want: Vec<f32> = (0..w * h)
                    .map(|i| {
                        let (px, py) = (i % w, i / w);
                        if px == 0 || py == 0 || px == w - 1 || py == h - 1 {
                            x[i]
                        } else {
                            0.25 * (((x[i - w] + x[i + w]) + x[i - 1]) + x[i + 1])
                        }
                    })
                    .collect();
                Ok(same("out", &out::<f32>(&r, 1), &want, |i| {
                    format!("x={}, y={}", i % w, i / w)
                }))
            });
        }
    }
    for (nx, ny, nz) in [(1usize, 1usize, 1usize), (13, 9, 7), (64, 40, 24)] {
        add(
            v,
            "stencil",
            "stencil_3d_7pt_f32",
            &format!("{nx}x{ny}x{nz}"),
            move |d| {
                let x = rand_f32s(&mut rng(22), nx * ny * nz, -4.0, 4.0);
                let (c0, c1) = (-6.0f32 / 7.0, 1.0f32 / 7.0);
                let r = d.launch(
                    [
                        nx.div_ceil(8) as u32,
                        ny.div_ceil(8) as u32,
                        nz.div_ceil(4) as u32,
                    ],
                    [8, 8, 4],
                    0,
                    vec![
                        buf(&x),
                        buf(&vec![0f32; x.len()]),
                        val(nx as i32),
                        val(ny as i32),
                        val(nz as i32),
                        val(c0),
                        val(c1),
                    ],
                )?;
                let (sy, sz) = (nx, nx * ny);
                let want: Vec<f32> = (0..x.len())
                    .map(|i| {
                        let (px, py, pz) = (i % nx, (i / nx) % ny, i / sz);
                        if px == 0
                            || py == 0
                            || pz == 0
                            || px == nx - 1
                            || py == ny - 1
                            || pz == nz - 1
                        {
                            return x[i];
                        }
                        let s = ((((x[i - 1] + x[i + 1]) + x[i - sy]) + x[i + sy]) + x[i - sz])
                            + x[i + sz];
                        // fmaf rounds once (Rust's mul_add is the correctly rounded fused operation).
                        c1.mul_add(s, c0 * x[i])
                    })
                    .collect();
                Ok(same("out", &out::<f32>(&r, 1), &want, |i| format!("i={i}")))
            },
        );
    }
}

fn dynsmem(v: &mut Vec<Case>) {
    for (n, block) in [(1usize, 32u32), (1000, 100), (70_001, 256)] {
        let label = format!("n={n}/block={block}");
        add(v, "dynsmem", "dyn_reverse_i32", &label, move |d| {
            let x = rand_i32s(&mut rng(30), n, i32::MIN, i32::MAX);
            let r = d.launch(
                [n.div_ceil(block as usize) as u32, 1, 1],
                [block, 1, 1],
                block * 4,
                vec![buf(&x), val(n as i32)],
            )?;
            let want: Vec<i32> = x
                .chunks(block as usize)
                .flat_map(|c| c.iter().rev().copied())
                .collect();
            Ok(same("data", &out::<i32>(&r, 0), &want, |i| {
                format!("i={i}")
            }))
        });
        add(v, "dynsmem", "dyn_rank_sort_f32", &label, move |d| {
            let b = block as usize;
            let blocks = n.div_ceil(b);
            // Few distinct values, so ties are common.
            let x: Vec<f32> = rand_i32s(&mut rng(31), n, -20, 20)
                .iter()
                .map(|&a| a as f32 * 0.5)
                .collect();
            let init = vec![-99.0f32; blocks * b];
            let r = d.launch(
                [blocks as u32, 1, 1],
                [block, 1, 1],
                block * 8,
                vec![buf(&x), buf(&init), buf(&vec![0i32; n]), val(n as i32)],
            )?;
            let mut want_out = init.clone();
            let mut want_rank = vec![0i32; n];
            for (bi, c) in x.chunks(b).enumerate() {
                for (t, &val) in c.iter().enumerate() {
                    let rank = c
                        .iter()
                        .enumerate()
                        .filter(|&(j, &o)| o < val || (o == val && j < t))
                        .count();
                    want_rank[bi * b + t] = rank as i32;
                    want_out[bi * b + rank] = val;
                }
            }
            Ok(all([
                same("ranks", &out::<i32>(&r, 2), &want_rank, |i| {
                    format!("x={}", x[i])
                }),
                same("out", &out::<f32>(&r, 1), &want_out, |i| format!("i={i}")),
            ]))
        });
        add(v, "dynsmem", "dyn_reduce_any_i32", &label, move |d| {
            let x = rand_i32s(&mut rng(32), n, i32::MIN, i32::MAX);
            let blocks = n.div_ceil(block as usize);
            let r = d.launch(
                [blocks as u32, 1, 1],
                [block, 1, 1],
                block * 4,
                vec![buf(&x), buf(&vec![0i32; blocks]), val(n as i32)],
            )?;
            Ok(same(
                "partial",
                &out::<i32>(&r, 1),
                &chunk_sums(&x, block as usize),
                |b| format!("block {b}"),
            ))
        });
    }
}
