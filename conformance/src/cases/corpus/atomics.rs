//! Atomics, histograms and stream compaction (atomics.cu, histogram.cu, compaction.cu). Where
//! the order in which threads win is unspecified, the check is what every order must give: the
//! final value, and old values that some serial order of the same operations produces.

use super::*;

const SIZES: [usize; 3] = [1, 1000, 100_003];

pub fn cases(v: &mut Vec<Case>) {
    atomics(v);
    histogram(v);
    compaction(v);
}

fn sorted<T: Ord + Clone>(x: &[T]) -> Vec<T> {
    let mut v = x.to_vec();
    v.sort();
    v
}

fn atomics(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "atomics", "atomic_cas_max_f32", &label, move |d| {
            let x = rand_f32s(&mut rng(60), n, -1e6, 1e3);
            let init = -1e30f32;
            let r = d.launch_1d(n as u32, 128, vec![buf(&x), buf(&[init]), val(n as i32)])?;
            let want = x.iter().copied().fold(init, f32::max);
            Ok(same("max", &out::<f32>(&r, 1), &[want], |_| String::new()))
        });
        add(
            v,
            "atomics",
            "atomic_cas_saturating_add",
            &label,
            move |d| {
                let x: Vec<u32> = rand_i32s(&mut rng(61), n, 1, 1000)
                    .iter()
                    .map(|&a| a as u32)
                    .collect();
                let total: u64 = x.iter().map(|&a| u64::from(a)).sum();
                // The cap is reached half way (never for one element).
                let cap = ((total / 2) as u32).max(1);
                let r = d.launch_1d(
                    n as u32,
                    128,
                    vec![
                        buf(&x),
                        buf(&[0u32]),
                        buf(&vec![0u32; n]),
                        val(cap),
                        val(n as i32),
                    ],
                )?;
                let counter = out::<u32>(&r, 1);
                let want = total.min(u64::from(cap)) as u32;
                let o = same("counter", &counter, &[want], |_| format!("cap {cap}"));
                if o != Outcome::Pass {
                    return Ok(o);
                }
                // The old values, in increasing order, must be 0 and then each the saturated sum of
                // the previous one and its thread's input (any order once the cap is reached).
                let olds = out::<u32>(&r, 2);
                let mut pairs: Vec<(u32, u32)> =
                    olds.iter().copied().zip(x.iter().copied()).collect();
                pairs.sort();
                if pairs[0].0 != 0 {
                    return Ok(Outcome::Fail(format!(
                        "the smallest old value is {}, not 0",
                        pairs[0].0
                    )));
                }
                for w in pairs.windows(2) {
                    let ((o, inc), (next, _)) = (w[0], w[1]);
                    let expect = (u64::from(o) + u64::from(inc)).min(u64::from(cap)) as u32;
                    if next != expect {
                        return Ok(Outcome::Fail(format!(
                            "old values {o} (+{inc}) then {next}: no serial order gives that (cap {cap})"
                        )));
                    }
                }
                Ok(Outcome::Pass)
            },
        );
        add(v, "atomics", "atomic_min_max", &label, move |d| {
            let x = rand_i32s(&mut rng(62), n, i32::MIN, i32::MAX);
            let init = [i32::MAX, i32::MIN, -1, 0];
            let r = d.launch_1d(n as u32, 128, vec![buf(&x), buf(&init), val(n as i32)])?;
            let want = [
                x.iter().copied().fold(init[0], i32::min),
                x.iter().copied().fold(init[1], i32::max),
                x.iter().map(|&a| a as u32).fold(u32::MAX, u32::min) as i32,
                x.iter().map(|&a| a as u32).fold(0, u32::max) as i32,
            ];
            Ok(same("minmax", &out::<i32>(&r, 1), &want, |k| {
                ["min s32", "max s32", "min u32", "max u32"][k].to_string()
            }))
        });
        add(v, "atomics", "atomic_exchange", &label, move |d| {
            let slots = 7usize;
            let x: Vec<i32> = (0..n as i32).map(|i| i * 3 + 1).collect();
            let cells: Vec<i32> = (0..slots as i32).map(|s| -1 - s).collect();
            let r = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&cells),
                    buf(&vec![0i32; n]),
                    val(slots as i32),
                    val(n as i32),
                ],
            )?;
            let (final_cells, taken) = (out::<i32>(&r, 1), out::<i32>(&r, 2));
            // Per cell: what was taken out plus what is left is what was there plus what went in.
            for s in 0..slots {
                let mut have: Vec<i32> = (s..n).step_by(slots).map(|i| taken[i]).collect();
                have.push(final_cells[s]);
                let mut put: Vec<i32> = (s..n).step_by(slots).map(|i| x[i]).collect();
                put.push(cells[s]);
                let o = same(
                    &format!("cell {s}: values"),
                    &sorted(&have),
                    &sorted(&put),
                    |_| String::new(),
                );
                if o != Outcome::Pass {
                    return Ok(o);
                }
            }
            Ok(Outcome::Pass)
        });
        add(v, "atomics", "atomic_inc_wrap", &label, move |d| {
            let limit = 37u32;
            let r = d.launch_1d(
                n as u32,
                128,
                vec![buf(&[0u32]), buf(&vec![0u32; n]), val(limit), val(n as i32)],
            )?;
            // atom.inc: old >= limit ? 0 : old + 1, so the values handed out are 0, 1, ...,
            // limit, 0, 1, ... in some order.
            let want: Vec<u32> = (0..n as u32).map(|k| k % (limit + 1)).collect();
            Ok(all([
                same(
                    "counter",
                    &out::<u32>(&r, 0),
                    &[n as u32 % (limit + 1)],
                    |_| String::new(),
                ),
                same(
                    "values handed out",
                    &sorted(&out::<u32>(&r, 1)),
                    &sorted(&want),
                    |_| String::new(),
                ),
            ]))
        });
        add(v, "atomics", "atomic_u64_and_bits", &label, move |d| {
            let mut g = rng(63);
            let x: Vec<u64> = (0..n).map(|_| g.next_u64()).collect();
            let r = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&[0u64]), buf(&[-1i32, 0, 0]), val(n as i32)],
            )?;
            let sum = x.iter().fold(0u64, |a, &b| a.wrapping_add(b));
            let mut bits = [-1i32, 0, 0];
            for (i, &w) in x.iter().enumerate() {
                bits[0] &= ((w >> 32) as i32) | (1 << (i & 31));
                bits[1] |= (w as i32) & ((0x1111_1111u32 << (i & 3)) as i32);
                bits[2] ^= w as i32;
            }
            Ok(all([
                same("sum", &out::<u64>(&r, 1), &[sum], |_| String::new()),
                same("bits", &out::<i32>(&r, 2), &bits, |k| {
                    ["and", "or", "xor"][k].to_string()
                }),
            ]))
        });
        add(v, "atomics", "atomic_add_f32", &label, move |d| {
            // Small integers: every partial sum is exact, so any order gives the same total.
            let x: Vec<f32> = rand_i32s(&mut rng(64), n, -100, 100)
                .iter()
                .map(|&a| a as f32)
                .collect();
            let blocks = n.div_ceil(128);
            let r = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&[0f32]),
                    buf(&vec![0f32; blocks]),
                    val(n as i32),
                ],
            )?;
            let per_block: Vec<f32> = x.chunks(128).map(|c| c.iter().sum()).collect();
            Ok(all([
                same(
                    "total",
                    &out::<f32>(&r, 1),
                    &[x.iter().sum::<f32>()],
                    |_| String::new(),
                ),
                same("per block", &out::<f32>(&r, 2), &per_block, |b| {
                    format!("block {b}")
                }),
            ]))
        });
        add(v, "atomics", "atomic_shared_counter", &label, move |d| {
            let x = rand_i32s(&mut rng(65), n, -5, 5);
            let r = d.launch_1d(
                n as u32,
                256,
                vec![buf(&x), buf(&vec![-1i32; n]), buf(&[0i32]), val(n as i32)],
            )?;
            let ranks = out::<i32>(&r, 1);
            let positive = x.iter().filter(|&&a| a > 0).count() as i32;
            let o = same("count", &out::<i32>(&r, 2), &[positive], |_| String::new());
            if o != Outcome::Pass {
                return Ok(o);
            }
            // In each block, the ranks of the positive elements are 0, 1, ..., count - 1.
            for (b, (xs, rs)) in x.chunks(256).zip(ranks.chunks(256)).enumerate() {
                let got: Vec<i32> = xs
                    .iter()
                    .zip(rs)
                    .filter(|(a, _)| **a > 0)
                    .map(|(_, r)| *r)
                    .collect();
                let want: Vec<i32> = (0..got.len() as i32).collect();
                let o = same(&format!("block {b} ranks"), &sorted(&got), &want, |_| {
                    String::new()
                });
                if o != Outcome::Pass {
                    return Ok(o);
                }
                let untouched: Vec<i32> = xs
                    .iter()
                    .zip(rs)
                    .filter(|(a, _)| **a <= 0)
                    .map(|(_, r)| *r)
                    .collect();
                let o = same(
                    &format!("block {b} others"),
                    &untouched,
                    &vec![-1; untouched.len()],
                    |_| String::new(),
                );
                if o != Outcome::Pass {
                    return Ok(o);
                }
            }
            Ok(Outcome::Pass)
        });
    }
}

fn histogram(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        for kernel in ["histogram_global", "histogram_shared"] {
            add(v, "histogram", kernel, &label, move |d| {
                // Skewed: a quarter of the bytes are 0x2a, so bins see contention.
                let data: Vec<u8> = rand_u32s(&mut rng(70), n)
                    .iter()
                    .map(|&a| if a % 4 == 0 { 0x2a } else { (a >> 8) as u8 })
                    .collect();
                let r = d.launch(
                    [13, 1, 1],
                    [160, 1, 1],
                    0,
                    vec![buf(&data), buf(&[0u32; 256]), val(n as i32)],
                )?;
                let mut want = [0u32; 256];
                for &b in &data {
                    want[b as usize] += 1;
                }
                Ok(same("hist", &out::<u32>(&r, 1), &want, |b| {
                    format!("bin {b}")
                }))
            });
        }
        for bits in [3u32, 8] {
            add(
                v,
                "histogram",
                "histogram_warp_aggregated",
                &format!("{label}/bits={bits}"),
                move |d| {
                    let words = rand_u32s(&mut rng(71), n);
                    let bins = 1usize << bits;
                    let r = d.launch_1d(
                        n as u32,
                        128,
                        vec![
                            buf(&words),
                            buf(&vec![0u32; bins]),
                            val(n as i32),
                            val(bits as i32),
                        ],
                    )?;
                    let mut want = vec![0u32; bins];
                    for w in &words {
                        for byte in 0..4 {
                            want[((w >> (8 * byte)) & (bins as u32 - 1)) as usize] += 1;
                        }
                    }
                    Ok(same("hist", &out::<u32>(&r, 1), &want, |b| {
                        format!("bin {b}")
                    }))
                },
            );
        }
    }
}

fn compaction(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "compaction", "compact_warp_ballot", &label, move |d| {
            let x = rand_i32s(&mut rng(80), n, -1000, 1000);
            let threshold = 250;
            let r = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![i32::MIN; n]),
                    buf(&[0u32]),
                    val(threshold),
                    val(n as i32),
                ],
            )?;
            let kept: Vec<i32> = x.iter().copied().filter(|&a| a > threshold).collect();
            let o = same("count", &out::<u32>(&r, 2), &[kept.len() as u32], |_| {
                String::new()
            });
            if o != Outcome::Pass {
                return Ok(o);
            }
            // Warps claim their ranges in any order; within a warp the order is kept. So the
            // output holds the kept values (in some order) and nothing past them changed.
            let got = out::<i32>(&r, 1);
            Ok(all([
                same(
                    "kept values",
                    &sorted(&got[..kept.len()]),
                    &sorted(&kept),
                    |_| String::new(),
                ),
                same(
                    "past the end",
                    &got[kept.len()..],
                    &vec![i32::MIN; n - kept.len()],
                    |_| String::new(),
                ),
            ]))
        });
        for block in [64u32, 1000] {
            add(
                v,
                "compaction",
                "compact_block_ordered",
                &format!("{label}/block={block}"),
                move |d| {
                    let x = rand_i32s(&mut rng(81), n, -1000, 1000);
                    let threshold = -300;
                    let b = block as usize;
                    let blocks = n.div_ceil(b);
                    let init = vec![i32::MIN; blocks * b];
                    let r = d.launch(
                        [blocks as u32, 1, 1],
                        [block, 1, 1],
                        block * 4,
                        vec![
                            buf(&x),
                            buf(&init),
                            buf(&vec![-1i32; blocks]),
                            val(threshold),
                            val(n as i32),
                        ],
                    )?;
                    let mut want = init.clone();
                    let mut counts = Vec::new();
                    for (bi, c) in x.chunks(b).enumerate() {
                        let kept: Vec<i32> = c.iter().copied().filter(|&a| a > threshold).collect();
                        want[bi * b..bi * b + kept.len()].copy_from_slice(&kept);
                        counts.push(kept.len() as i32);
                    }
                    Ok(all([
                        same("kept", &out::<i32>(&r, 2), &counts, |bi| {
                            format!("block {bi}")
                        }),
                        same("out", &out::<i32>(&r, 1), &want, |i| format!("i={i}")),
                    ]))
                },
            );
        }
    }
}
