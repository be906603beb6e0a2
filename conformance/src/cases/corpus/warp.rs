//! Warp intrinsics (warp.cu). Blocks are whole warps, so every lane of a warp exists; threads
//! past `n` take part with a neutral value where the kernel says so.

use super::*;

const SIZES: [usize; 3] = [1, 1000, 50_001];

/// The 32 global thread indices of the warp holding thread `i`.
fn warp_of(i: usize) -> std::ops::Range<usize> {
    let base = i & !31;
    base..base + 32
}

/// The lanes of the warp of `i` for which `pred(j)` holds, as a mask.
fn lane_mask(i: usize, pred: impl Fn(usize) -> bool) -> u32 {
    warp_of(i)
        .enumerate()
        .filter(|&(_, j)| pred(j))
        .fold(0u32, |m, (l, _)| m | (1 << l))
}

pub fn cases(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "warp", "warp_ballot", &label, move |d| {
            let x = rand_i32s(&mut rng(90), n, -3, 3);
            let r = d.launch_1d(
                n as u32,
                96,
                vec![
                    buf(&x),
                    buf(&vec![0u32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let ballots: Vec<u32> = (0..n)
                .map(|i| lane_mask(i, |j| j < n && x[j] > 0))
                .collect();
            let ranks: Vec<i32> = (0..n)
                .map(|i| (ballots[i] & ((1u32 << (i & 31)) - 1)).count_ones() as i32)
                .collect();
            Ok(all([
                same("ballot", &out::<u32>(&r, 1), &ballots, |i| {
                    format!("x={}", x[i])
                }),
                same("rank", &out::<i32>(&r, 2), &ranks, |i| {
                    format!("x={}", x[i])
                }),
            ]))
        });
        add(v, "warp", "warp_any_all", &label, move |d| {
            // Mostly positive, so some warps are all positive and some are not.
            let x: Vec<i32> = rand_i32s(&mut rng(91), n, 0, 2000)
                .iter()
                .map(|&a| a - 2)
                .collect();
            let r = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
            )?;
            let want: Vec<i32> = (0..n)
                .map(|i| {
                    let any = warp_of(i).any(|j| j < n && x[j] > 0);
                    let every = warp_of(i).all(|j| j >= n || x[j] > 0);
                    i32::from(any) | (i32::from(every) << 1)
                })
                .collect();
            Ok(same("flags", &out::<i32>(&r, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "warp", "warp_activemask", &label, move |d| {
            let x = rand_i32s(&mut rng(92), n, 0, 3);
            let r = d.launch_1d(
                n as u32,
                64,
                vec![buf(&x), buf(&vec![7u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    if x[i] & 1 == 0 {
                        return 0;
                    }
                    let active = lane_mask(i, |j| j < n && x[j] & 1 != 0);
                    let ballot = lane_mask(i, |j| j < n && x[j] & 1 != 0 && x[j] & 2 != 0);
                    active ^ ballot
                })
                .collect();
            Ok(same("out", &out::<u32>(&r, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "warp", "warp_shuffles", &label, move |d| {
            let x = rand_i32s(&mut rng(93), n, -100_000, 100_000);
            let r = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let value = |j: usize| if j < n { x[j] } else { -1 };
            let (mut idx, mut up, mut down) = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..n {
                let (base, lane) = (i & !31, i & 31);
                idx.push(value(base + (value(i) & 31) as usize));
                up.push(if lane >= 3 { value(i - 3) } else { value(i) });
                down.push(if lane + 5 < 32 {
                    value(i + 5)
                } else {
                    value(i)
                });
            }
            Ok(all([
                same("idx", &out::<i32>(&r, 1), &idx, |i| format!("x={}", x[i])),
                same("up", &out::<i32>(&r, 2), &up, |i| format!("x={}", x[i])),
                same("down", &out::<i32>(&r, 3), &down, |i| format!("x={}", x[i])),
            ]))
        });
        add(v, "warp", "warp_shuffle_width8", &label, move |d| {
            let x = rand_i32s(&mut rng(94), n, -1000, 1000);
            let r = d.launch_1d(
                n as u32,
                64,
                vec![
                    buf(&x),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let value = |j: usize| if j < n { x[j] } else { 0 };
            let mut rot = Vec::new();
            let mut scan = Vec::new();
            for i in 0..n {
                let seg = i & !7;
                // The source lane wraps within its segment of 8 (CUDA: srcLane modulo width).
                rot.push(value(seg + ((i + 1) & 7)));
                scan.push((seg..=i).map(value).fold(0i32, i32::wrapping_add));
            }
            Ok(all([
                same("rot", &out::<i32>(&r, 1), &rot, |i| format!("x={}", x[i])),
                same("scan", &out::<i32>(&r, 2), &scan, |i| format!("x={}", x[i])),
            ]))
        });
        add(v, "warp", "warp_xor_max_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(95), n, -1e5, 1e5);
            let r = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0f32; n]), val(n as i32)],
            )?;
            let want: Vec<f32> = (0..n)
                .map(|i| {
                    warp_of(i)
                        .map(|j| if j < n { x[j] } else { -3.0e38 })
                        .fold(f32::NEG_INFINITY, f32::max)
                })
                .collect();
            Ok(same("max", &out::<f32>(&r, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "warp", "warp_match", &label, move |d| {
            // Keys from few values; a third of the warps agree on the bits above the low 8.
            let mut g = rng(96);
            let keys: Vec<u32> = (0..n)
                .map(|i| {
                    let hi = if (i / 32) % 3 == 0 {
                        0x1234
                    } else {
                        g.below(3) as u32
                    };
                    (hi << 8) | g.below(4) as u32
                })
                .collect();
            let r = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&keys),
                    buf(&vec![0u32; n]),
                    buf(&vec![0u32; n]),
                    val(n as i32),
                ],
            )?;
            let key = |j: usize| if j < n { keys[j] } else { u32::MAX };
            let any: Vec<u32> = (0..n).map(|i| lane_mask(i, |j| key(j) == key(i))).collect();
            let every: Vec<u32> = (0..n)
                .map(|i| {
                    if warp_of(i).all(|j| key(j) >> 8 == key(i) >> 8) {
                        u32::MAX
                    } else {
                        0
                    }
                })
                .collect();
            Ok(all([
                same("match.any", &out::<u32>(&r, 1), &any, |i| {
                    format!("key={:#x}", keys[i])
                }),
                same("match.all", &out::<u32>(&r, 2), &every, |i| {
                    format!("key={:#x}", keys[i])
                }),
            ]))
        });
        add(v, "warp", "warp_reduce_add", &label, move |d| {
            let x = rand_u32s(&mut rng(97), n);
            let r = d.launch_1d(
                n as u32,
                256,
                vec![buf(&x), buf(&vec![0u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    warp_of(i)
                        .map(|j| if j < n { x[j] } else { 0 })
                        .fold(0u32, u32::wrapping_add)
                })
                .collect();
            Ok(same("sum", &out::<u32>(&r, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
    }
}
