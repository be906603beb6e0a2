//! Dense and sparse linear algebra (matmul.cu, transpose.cu, spmv.cu).

use super::*;

pub fn cases(v: &mut Vec<Case>) {
    matmul(v);
    transpose(v);
    spmv(v);
}

/// A warp's 32 lanes after `x += shfl.down(x, d)` for d = 16, 8, 4, 2, 1 (a lane past the end
/// reads its own value, as shfl does out of range).
fn warp_sum_down(mut lanes: [f32; 32]) -> [f32; 32] {
    let mut d = 16;
    while d > 0 {
        let prev = lanes;
        for l in 0..32 {
            let other = if l + d < 32 { prev[l + d] } else { prev[l] };
            lanes[l] = prev[l] + other;
        }
        d /= 2;
    }
    lanes
}

/// The same with `x += shfl.xor(x, m)` for m = 16, 8, 4, 2, 1.
fn warp_sum_xor(mut lanes: [f32; 32]) -> [f32; 32] {
    let mut m = 16;
    while m > 0 {
        let prev = lanes;
        for l in 0..32 {
            lanes[l] = prev[l] + prev[l ^ m];
        }
        m /= 2;
    }
    lanes
}

fn matmul(v: &mut Vec<Case>) {
    for (m, n, k) in [(1usize, 1usize, 1usize), (37, 45, 29), (128, 96, 150)] {
        let label = format!("{m}x{n}x{k}");
        for kernel in ["matmul_naive_f32", "matmul_tiled_f32"] {
            add(v, "matmul", kernel, &label, move |d| {
                let mut r = rng(50);
                let a = rand_f32s(&mut r, m * k, -2.0, 2.0);
                let b = rand_f32s(&mut r, k * n, -2.0, 2.0);
                let res = d.launch(
                    [n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1],
                    [16, 16, 1],
                    0,
                    vec![
                        buf(&a),
                        buf(&b),
                        buf(&vec![0f32; m * n]),
                        val(m as i32),
                        val(n as i32),
                        val(k as i32),
                    ],
                )?;
                // acc = fma(a[row][e], b[e][col], acc) for e = 0, 1, ..., k - 1 from +0.
                let want: Vec<f32> = (0..m * n)
                    .map(|i| {
                        let (row, col) = (i / n, i % n);
                        (0..k).fold(0.0f32, |acc, e| a[row * k + e].mul_add(b[e * n + col], acc))
                    })
                    .collect();
                Ok(same("c", &out::<f32>(&res, 2), &want, |i| {
                    format!("row {}, col {}", i / n, i % n)
                }))
            });
        }
        add(v, "matmul", "matmul_tiled_i32", &label, move |d| {
            let mut r = rng(51);
            let a = rand_i32s(&mut r, m * k, i32::MIN, i32::MAX);
            let b = rand_i32s(&mut r, k * n, i32::MIN, i32::MAX);
            let res = d.launch(
                [n.div_ceil(32) as u32, m.div_ceil(8) as u32, 1],
                [32, 8, 1],
                0,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&vec![0i32; m * n]),
                    val(m as i32),
                    val(n as i32),
                    val(k as i32),
                ],
            )?;
            let want: Vec<i32> = (0..m * n)
                .map(|i| {
                    let (row, col) = (i / n, i % n);
                    (0..k).fold(0i32, |acc, e| {
                        acc.wrapping_add(a[row * k + e].wrapping_mul(b[e * n + col]))
                    })
                })
                .collect();
            Ok(same("c", &out::<i32>(&res, 2), &want, |i| {
                format!("row {}, col {}", i / n, i % n)
            }))
        });
    }
    for (rows, cols) in [(1usize, 1usize), (45, 100), (300, 1000)] {
        add(
            v,
            "matmul",
            "matvec_warp_f32",
            &format!("{rows}x{cols}"),
            move |d| {
                let mut r = rng(52);
                let a = rand_f32s(&mut r, rows * cols, -1.0, 1.0);
                let x = rand_f32s(&mut r, cols, -1.0, 1.0);
                let res = d.launch_1d(
                    (rows * 32) as u32,
                    128,
                    vec![
                        buf(&a),
                        buf(&x),
                        buf(&vec![0f32; rows]),
                        val(rows as i32),
                        val(cols as i32),
                    ],
                )?;
                let want: Vec<f32> = (0..rows)
                    .map(|row| {
                        let mut lanes = [0f32; 32];
                        for (l, acc) in lanes.iter_mut().enumerate() {
                            let mut j = l;
                            while j < cols {
                                *acc = a[row * cols + j].mul_add(x[j], *acc);
                                j += 32;
                            }
                        }
                        warp_sum_down(lanes)[0]
                    })
                    .collect();
                Ok(same("y", &out::<f32>(&res, 2), &want, |i| {
                    format!("row {i}")
                }))
            },
        );
    }
}

fn transpose(v: &mut Vec<Case>) {
    for (rows, cols) in [(1usize, 1usize), (33, 65), (300, 512)] {
        let label = format!("{rows}x{cols}");
        for kernel in ["transpose_naive_f32", "transpose_tiled_f32"] {
            add(v, "transpose", kernel, &label, move |d| {
                let x = rand_f32s(&mut rng(53), rows * cols, -1e6, 1e6);
                let grid = if kernel == "transpose_naive_f32" {
                    [cols.div_ceil(32) as u32, rows.div_ceil(8) as u32, 1]
                } else {
                    [cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1]
                };
                let res = d.launch(
                    grid,
                    [32, 8, 1],
                    0,
                    vec![
                        buf(&x),
                        buf(&vec![0f32; x.len()]),
                        val(rows as i32),
                        val(cols as i32),
                    ],
                )?;
                let want: Vec<f32> = (0..x.len())
                    .map(|o| {
                        let (c, r) = (o / rows, o % rows);
                        x[r * cols + c]
                    })
                    .collect();
                Ok(same("out", &out::<f32>(&res, 1), &want, |o| {
                    format!("out row {}, col {}", o / rows, o % rows)
                }))
            });
        }
        add(v, "transpose", "transpose_padded_u16", &label, move |d| {
            let x: Vec<u16> = rand_u32s(&mut rng(54), rows * cols)
                .iter()
                .map(|&a| a as u16)
                .collect();
            let res = d.launch(
                [cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1],
                [32, 8, 1],
                0,
                vec![
                    buf(&x),
                    buf(&vec![0u16; x.len()]),
                    val(rows as i32),
                    val(cols as i32),
                ],
            )?;
            let want: Vec<u16> = (0..x.len())
                .map(|o| x[(o % rows) * cols + o / rows])
                .collect();
            Ok(same("out", &out::<u16>(&res, 1), &want, |o| {
                format!("out row {}, col {}", o / rows, o % rows)
            }))
        });
    }
}

/// A random CSR matrix: row lengths from 0 to `max_len` (some rows empty, some longer than a
/// warp), columns below `cols`.
fn random_csr(
    r: &mut Rng,
    rows: usize,
    cols: usize,
    max_len: usize,
) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let mut row_ptr = vec![0i32];
    let mut col = Vec::new();
    for _ in 0..rows {
        let len = r.below(max_len as u64 + 1) as usize;
        for _ in 0..len {
            col.push(r.below(cols as u64) as i32);
        }
        row_ptr.push(col.len() as i32);
    }
    let vals = rand_f32s(r, col.len(), -1.0, 1.0);
    (row_ptr, col, vals)
}

fn spmv(v: &mut Vec<Case>) {
    for (rows, cols, max_len) in [(1usize, 1usize, 1usize), (100, 80, 70), (2000, 3000, 40)] {
        let label = format!("{rows}x{cols}");
        for kernel in ["spmv_csr_scalar", "spmv_csr_vector"] {
            add(v, "spmv", kernel, &label, move |d| {
                let mut r = rng(55);
                let (row_ptr, col, vals) = random_csr(&mut r, rows, cols, max_len);
                let x = rand_f32s(&mut r, cols, -1.0, 1.0);
                let threads = if kernel == "spmv_csr_scalar" {
                    rows
                } else {
                    rows * 32
                };
                let res = d.launch_1d(
                    threads as u32,
                    128,
                    vec![
                        buf(&row_ptr),
                        buf(&col),
                        buf(&vals),
                        buf(&x),
                        buf(&vec![0f32; rows]),
                        val(rows as i32),
                    ],
                )?;
                let want: Vec<f32> = (0..rows)
                    .map(|row| {
                        let (s, e) = (row_ptr[row] as usize, row_ptr[row + 1] as usize);
                        let term = |j: usize| (vals[j], x[col[j] as usize]);
                        if kernel == "spmv_csr_scalar" {
                            (s..e).fold(0.0f32, |acc, j| {
                                let (a, b) = term(j);
                                a.mul_add(b, acc)
                            })
                        } else {
                            let mut lanes = [0f32; 32];
                            for (l, acc) in lanes.iter_mut().enumerate() {
                                let mut j = s + l;
                                while j < e {
                                    let (a, b) = term(j);
                                    *acc = a.mul_add(b, *acc);
                                    j += 32;
                                }
                            }
                            warp_sum_xor(lanes)[0]
                        }
                    })
                    .collect();
                Ok(same("y", &out::<f32>(&res, 4), &want, |i| {
                    format!("row {i}")
                }))
            });
        }
    }
}
