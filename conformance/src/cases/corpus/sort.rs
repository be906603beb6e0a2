//! Sorting (sort.cu): bitonic in shared memory and step by step in global memory, odd-even
//! transposition, and a least-significant-digit radix sort from its histogram and scatter passes.

use super::*;

pub fn cases(v: &mut Vec<Case>) {
    for n in [1usize, 1000, 50_000] {
        add(
            v,
            "sort",
            "bitonic_sort_block_u32",
            &format!("n={n}"),
            move |d| {
                // Few distinct values for many ties, and the padding value itself among them.
                let keys: Vec<u32> = rand_u32s(&mut rng(40), n)
                    .iter()
                    .map(|&k| if k % 7 == 0 { u32::MAX } else { k % 5000 })
                    .collect();
                let r = d.launch(
                    [n.div_ceil(512) as u32, 1, 1],
                    [256, 1, 1],
                    0,
                    vec![buf(&keys), val(n as i32)],
                )?;
                let want: Vec<u32> = keys
                    .chunks(512)
                    .flat_map(|c| {
                        let mut c = c.to_vec();
                        c.sort_unstable();
                        c
                    })
                    .collect();
                Ok(same("keys", &out::<u32>(&r, 0), &want, |i| {
                    format!("i={i}")
                }))
            },
        );
    }
    // Each step is a launch: a few dozen at most.
    for log2n in [1u32, 4, 8] {
        let n = 1usize << log2n;
        add(v, "sort", "bitonic_step_i32", &format!("n={n}"), move |d| {
            let mut keys = rand_i32s(&mut rng(41), n, i32::MIN, i32::MAX);
            let mut want = keys.clone();
            want.sort_unstable();
            let mut k = 2;
            while k <= n {
                let mut j = k / 2;
                while j > 0 {
                    let r = d.launch_1d(
                        n as u32,
                        128,
                        vec![buf(&keys), val(n as u32), val(j as u32), val(k as u32)],
                    )?;
                    keys = out::<i32>(&r, 0);
                    j /= 2;
                }
                k *= 2;
            }
            Ok(same("keys", &keys, &want, |i| format!("i={i}")))
        });
    }
    for (n, block) in [(1usize, 1u32), (1000, 100), (5000, 512)] {
        add(
            v,
            "sort",
            "odd_even_sort_i32",
            &format!("n={n}/block={block}"),
            move |d| {
                let keys = rand_i32s(&mut rng(42), n, -50, 50);
                let r = d.launch(
                    [n.div_ceil(block as usize) as u32, 1, 1],
                    [block, 1, 1],
                    block * 4,
                    vec![buf(&keys), val(n as i32)],
                )?;
                let want: Vec<i32> = keys
                    .chunks(block as usize)
                    .flat_map(|c| {
                        let mut c = c.to_vec();
                        c.sort_unstable();
                        c
                    })
                    .collect();
                Ok(same("keys", &out::<i32>(&r, 0), &want, |i| {
                    format!("i={i}")
                }))
            },
        );
    }
    for n in [1usize, 1000, 100_003] {
        add(
            v,
            "sort",
            "radix_histogram_u32",
            &format!("n={n}"),
            move |d| {
                let keys = rand_u32s(&mut rng(43), n);
                let shift = 12;
                let r = d.launch(
                    [9, 1, 1],
                    [192, 1, 1],
                    0,
                    vec![buf(&keys), buf(&[0u32; 16]), val(n as i32), val(shift)],
                )?;
                let mut want = [0u32; 16];
                for k in &keys {
                    want[((k >> shift) & 15) as usize] += 1;
                }
                Ok(same("hist", &out::<u32>(&r, 1), &want, |b| {
                    format!("digit {b}")
                }))
            },
        );
    }
    for n in [1usize, 1000, 20_000] {
        add(
            v,
            "sort",
            "radix_scatter_u32",
            &format!("n={n}"),
            move |d| {
                // 16-bit keys: four stable passes of 4 bits each, least significant first.
                let mut keys: Vec<u32> =
                    rand_u32s(&mut rng(44), n).iter().map(|k| k >> 16).collect();
                let mut want = keys.clone();
                want.sort_unstable();
                for pass in 0..4 {
                    let shift = 4 * pass;
                    let r = d.launch_kernel(
                        "radix_histogram_u32",
                        [4, 1, 1],
                        [256, 1, 1],
                        0,
                        vec![buf(&keys), buf(&[0u32; 16]), val(n as i32), val(shift)],
                    )?;
                    let hist = out::<u32>(&r, 1);
                    let r = d.launch(
                        [1, 1, 1],
                        [256, 1, 1],
                        0,
                        vec![
                            buf(&keys),
                            buf(&vec![0u32; n]),
                            buf(&hist),
                            val(n as i32),
                            val(shift),
                        ],
                    )?;
                    let next = out::<u32>(&r, 1);
                    // Each pass is a stable partition by the digit.
                    let mut stable = keys.clone();
                    stable.sort_by_key(|k| (k >> shift) & 15);
                    let o = same("pass", &next, &stable, |i| format!("pass {pass}, i={i}"));
                    if o != Outcome::Pass {
                        return Ok(o);
                    }
                    keys = next;
                }
                Ok(same("keys", &keys, &want, |i| format!("i={i}")))
            },
        );
    }
}
