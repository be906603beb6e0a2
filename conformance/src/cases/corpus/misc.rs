//! Calls, recursion and control flow (devfunc.cu, funcptr.cu, recursion.cu, switch.cu,
//! loops.cu), and the memory-layout kernels (index64.cu, structs.cu, local_arrays.cu,
//! constant.cu) in `memory`.

#[path = "memory.rs"]
mod memory;

use super::*;

const SIZES: [usize; 3] = [1, 1000, 30_001];

pub fn cases(v: &mut Vec<Case>) {
    calls(v);
    recursion(v);
    switch(v);
    loops(v);
    memory::cases(v);
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn mix1(x: u32) -> u32 {
    (x ^ (x >> 16)).wrapping_mul(0x45d_9f3b)
}

fn mix2(x: u32) -> u32 {
    mix1(mix1(x).wrapping_add(0x9e37_79b9))
}

fn calls(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "devfunc", "call_gcd", &label, move |d| {
            let mut r = rng(150);
            // Common factors make the answers interesting; zeros are edge cases.
            let f = rand_u32s(&mut r, n);
            let a: Vec<u32> = (0..n)
                .map(|i| (f[i] % 1000) * ((r.below(5000) as u32) % 7 * 6))
                .collect();
            let b: Vec<u32> = (0..n)
                .map(|i| (f[i] % 1000) * (r.below(5000) as u32))
                .collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&a), buf(&b), buf(&vec![0u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = (0..n).map(|i| gcd(a[i], b[i])).collect();
            Ok(same("gcd", &out::<u32>(&res, 2), &want, |i| {
                format!("a={}, b={}", a[i], b[i])
            }))
        });
        add(v, "devfunc", "call_divmod", &label, move |d| {
            let mut r = rng(151);
            let a = rand_i32s(&mut r, n, -1_000_000, 1_000_000);
            let b = rand_i32s(&mut r, n, -50, 50);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            // Floor division: q = floor(a / b) (the f64 quotient of these small integers is
            // never within rounding distance of the wrong integer), r = a - q b (b = 0 is 1).
            let (q, m): (Vec<i32>, Vec<i32>) = (0..n)
                .map(|i| {
                    let bb = if b[i] == 0 { 1 } else { b[i] };
                    let q = (f64::from(a[i]) / f64::from(bb)).floor() as i32;
                    (q, a[i] - q * bb)
                })
                .unzip();
            Ok(all([
                same("q", &out::<i32>(&res, 2), &q, |i| {
                    format!("a={}, b={}", a[i], b[i])
                }),
                same("r", &out::<i32>(&res, 3), &m, |i| {
                    format!("a={}, b={}", a[i], b[i])
                }),
            ]))
        });
        add(v, "devfunc", "call_struct_return", &label, move |d| {
            let x = rand_i32s(&mut rng(152), n, i32::MIN, i32::MAX);
            let w = 5;
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i64; n]),
                    val(w as i32),
                    val(n as i32),
                ],
            )?;
            let window = |i: usize| &x[i..(i + w).min(n)];
            let lo: Vec<i32> = (0..n)
                .map(|i| *window(i).iter().min().unwrap_or(&0))
                .collect();
            let hi: Vec<i32> = (0..n)
                .map(|i| *window(i).iter().max().unwrap_or(&0))
                .collect();
            let sum: Vec<i64> = (0..n)
                .map(|i| window(i).iter().map(|&a| i64::from(a)).sum())
                .collect();
            Ok(all([
                same("lo", &out::<i32>(&res, 1), &lo, |i| format!("i={i}")),
                same("hi", &out::<i32>(&res, 2), &hi, |i| format!("i={i}")),
                same("sum", &out::<i64>(&res, 3), &sum, |i| format!("i={i}")),
            ]))
        });
        add(v, "devfunc", "call_chain", &label, move |d| {
            let x = rand_u32s(&mut rng(153), n);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = (0..n)
                .map(|i| mix2(x[i]) ^ mix2((i as u32).wrapping_add(1)))
                .collect();
            Ok(same("out", &out::<u32>(&res, 1), &want, |i| {
                format!("x={:#x}", x[i])
            }))
        });
        let ops: [fn(i32, i32) -> i32; 4] = [
            i32::wrapping_add,
            i32::wrapping_sub,
            i32::wrapping_mul,
            i32::min,
        ];
        add(v, "funcptr", "call_indirect", &label, move |d| {
            let mut r = rng(154);
            let a = rand_i32s(&mut r, n, i32::MIN, i32::MAX);
            let b = rand_i32s(&mut r, n, i32::MIN, i32::MAX);
            let which = rand_i32s(&mut r, n, -100, 100);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&b),
                    buf(&which),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let want: Vec<i32> = (0..n)
                .map(|i| ops[(which[i] & 3) as usize](a[i], b[i]))
                .collect();
            Ok(same("out", &out::<i32>(&res, 3), &want, |i| {
                format!("a={}, b={}, op={}", a[i], b[i], which[i] & 3)
            }))
        });
        add(v, "funcptr", "call_indirect_loop", &label, move |d| {
            let mut r = rng(155);
            let a = rand_i32s(&mut r, n, -1000, 1000);
            let prog = rand_i32s(&mut r, 12, 0, 3);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&a),
                    buf(&prog),
                    val(prog.len() as i32),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            let want: Vec<i32> = a
                .iter()
                .map(|&x| {
                    prog.iter().enumerate().fold(x, |acc, (j, &p)| {
                        ops[(p & 3) as usize](acc, x.wrapping_add(j as i32))
                    })
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 3), &want, |i| {
                format!("a={}", a[i])
            }))
        });
    }
}

fn fib(n: u32) -> u32 {
    let (mut a, mut b) = (0u32, 1u32);
    for _ in 0..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    a
}

/// A forest in arrays: node j's children are 2j + 1 and 2j + 2 where they exist and a coin says
/// so (-1 otherwise); depth is at most log2(nodes) + 1.
fn random_forest(r: &mut Rng, nodes: usize) -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    let mut child = |c: usize| {
        if c < nodes && r.below(5) != 0 {
            c as i32
        } else {
            -1
        }
    };
    let left: Vec<i32> = (0..nodes).map(|j| child(2 * j + 1)).collect();
    let right: Vec<i32> = (0..nodes).map(|j| child(2 * j + 2)).collect();
    let value = rand_i32s(r, nodes, i32::MIN, i32::MAX);
    (left, right, value)
}

fn recursion(v: &mut Vec<Case>) {
    // Small sizes: the recursion runs on an emulated call stack, and a thread computes up to
    // fib(15) with 1973 calls.
    for n in [1usize, 300, 3000] {
        let label = format!("n={n}");
        add(v, "recursion", "recursive_fib", &label, move |d| {
            let x = rand_u32s(&mut rng(160), n);
            let res = d.launch_1d(
                n as u32,
                64,
                vec![buf(&x), buf(&vec![0u32; n]), val(n as i32)],
            )?;
            let want: Vec<u32> = x.iter().map(|&a| fib(a % 16)).collect();
            Ok(same("fib", &out::<u32>(&res, 1), &want, |i| {
                format!("n={}", x[i] % 16)
            }))
        });
        add(v, "recursion", "recursive_factorial", &label, move |d| {
            let x = rand_u32s(&mut rng(161), n);
            let res = d.launch_1d(
                n as u32,
                64,
                vec![buf(&x), buf(&vec![0u64; n]), val(n as i32)],
            )?;
            // In 64 bits, wrapping from 21! on.
            let want: Vec<u64> = x
                .iter()
                .map(|&a| (1..=u64::from(a % 26)).fold(1u64, u64::wrapping_mul))
                .collect();
            Ok(same("factorial", &out::<u64>(&res, 1), &want, |i| {
                format!("n={}", x[i] % 26)
            }))
        });
        add(v, "recursion", "recursive_tree", &label, move |d| {
            let mut r = rng(162);
            let nodes = 600;
            let (left, right, value) = random_forest(&mut r, nodes);
            let roots: Vec<i32> = (0..n)
                .map(|_| {
                    if r.below(20) == 0 {
                        -1
                    } else {
                        r.below(nodes as u64) as i32
                    }
                })
                .collect();
            let res = d.launch_1d(
                n as u32,
                64,
                vec![
                    buf(&left),
                    buf(&right),
                    buf(&value),
                    buf(&roots),
                    buf(&vec![0i64; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            fn walk(l: &[i32], r: &[i32], val: &[i32], node: i32) -> (i64, i32) {
                if node < 0 {
                    return (0, 0);
                }
                let (a, da) = walk(l, r, val, l[node as usize]);
                let (b, db) = walk(l, r, val, r[node as usize]);
                (i64::from(val[node as usize]) + a + b, 1 + da.max(db))
            }
            let (sums, depths): (Vec<i64>, Vec<i32>) = roots
                .iter()
                .map(|&root| walk(&left, &right, &value, root))
                .unzip();
            Ok(all([
                same("sum", &out::<i64>(&res, 4), &sums, |i| {
                    format!("root {}", roots[i])
                }),
                same("depth", &out::<i32>(&res, 5), &depths, |i| {
                    format!("root {}", roots[i])
                }),
            ]))
        });
    }
}

fn switch(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "switch", "switch_dense", &label, move |d| {
            // |x| < 40000 keeps every case free of signed overflow.
            let x = rand_i32s(&mut rng(170), n, -40_000, 40_000);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
            )?;
            let want: Vec<i32> = (0..n)
                .map(|i| {
                    let x = x[i];
                    match x & 15 {
                        0 => x + 1,
                        1 => x * 3,
                        2 => x ^ 0x55,
                        3 => x >> 2,
                        4 => -x,
                        5 => x * x,
                        6 => x | 0x100,
                        7 => x - 1000,
                        8 => x << 3,
                        9 => !x,
                        10 => x & 0xff0,
                        11 => x % 7,
                        12 => x / 5,
                        13 => 42,
                        14 => x + i as i32,
                        _ => i as i32,
                    }
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "switch", "switch_sparse", &label, move |d| {
            let cases = [-100, 3, 77, 1000, 65536, 123_456_789];
            let mut r = rng(171);
            let x: Vec<i32> = (0..n)
                .map(|_| {
                    if r.below(2) == 0 {
                        cases[r.below(6) as usize]
                    } else {
                        rand_i32s(&mut r, 1, -200, 200)[0]
                    }
                })
                .collect();
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0i32; n]), val(n as i32)],
            )?;
            let want: Vec<i32> = x
                .iter()
                .map(|a| {
                    cases
                        .iter()
                        .position(|c| c == a)
                        .map_or(0, |p| p as i32 + 1)
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        add(v, "switch", "switch_state_machine", &label, move |d| {
            let len = 61;
            let alphabet = b"ab Z 09 -x1y  7";
            let mut r = rng(172);
            let text: Vec<u8> = (0..n * len)
                .map(|_| alphabet[r.below(alphabet.len() as u64) as usize])
                .collect();
            let res = d.launch_1d(
                n as u32,
                64,
                vec![
                    buf(&text),
                    val(len as i32),
                    buf(&vec![0i32; n]),
                    buf(&vec![0i32; n]),
                    val(n as i32),
                ],
            )?;
            // Runs: a letter run counts as a word, a digit run as a number; a change of class
            // starts a new run.
            let (mut words, mut numbers) = (Vec::new(), Vec::new());
            for line in text.chunks(len) {
                let (mut w, mut num, mut prev) = (0, 0, 0);
                for &c in line {
                    let class = if c.is_ascii_alphabetic() {
                        1
                    } else if c.is_ascii_digit() {
                        2
                    } else {
                        0
                    };
                    if class != prev {
                        match class {
                            1 => w += 1,
                            2 => num += 1,
                            _ => {}
                        }
                    }
                    prev = class;
                }
                words.push(w);
                numbers.push(num);
            }
            Ok(all([
                same("words", &out::<i32>(&res, 2), &words, |i| {
                    format!("line {i}")
                }),
                same("numbers", &out::<i32>(&res, 3), &numbers, |i| {
                    format!("line {i}")
                }),
            ]))
        });
    }
}

fn loops(v: &mut Vec<Case>) {
    for n in SIZES {
        let label = format!("n={n}");
        add(v, "loops", "loop_break_continue", &label, move |d| {
            let width = 40;
            let x = rand_i32s(&mut rng(180), n * width, -3, 1000);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![
                    buf(&x),
                    buf(&vec![0i32; n]),
                    val(width as i32),
                    val(n as i32),
                ],
            )?;
            let want: Vec<i32> = x
                .chunks(width)
                .map(|row| {
                    row.iter()
                        .take_while(|&&v| v >= 0)
                        .filter(|&&v| v % 3 != 0)
                        .sum()
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |i| {
                format!("row {i}")
            }))
        });
        add(v, "loops", "loop_nested_goto", &label, move |d| {
            let limit = 60;
            let t = rand_i32s(&mut rng(181), n, 0, 2 * 59 * 59 + 10);
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&t), buf(&vec![0i32; n]), val(limit), val(n as i32)],
            )?;
            let want: Vec<i32> = t
                .iter()
                .map(|&target| {
                    for a in 0..limit {
                        for b in a..limit {
                            let s = a * a + b * b;
                            if s > target {
                                break;
                            }
                            if s == target {
                                return a * 65536 + b;
                            }
                        }
                    }
                    -1
                })
                .collect();
            Ok(same("out", &out::<i32>(&res, 1), &want, |i| {
                format!("target {}", t[i])
            }))
        });
        add(v, "loops", "loop_collatz", &label, move |d| {
            let mut x: Vec<u32> = rand_u32s(&mut rng(182), n)
                .iter()
                .map(|a| a % 100_000)
                .collect();
            x[0] = u32::MAX;
            let cap = 300;
            let res = d.launch_1d(
                n as u32,
                128,
                vec![buf(&x), buf(&vec![0u32; n]), val(cap), val(n as i32)],
            )?;
            let want: Vec<u32> = x
                .iter()
                .map(|&a| {
                    let (mut y, mut s) = (u64::from(a), 0u32);
                    while y > 1 && s < cap {
                        y = if y & 1 == 1 { 3 * y + 1 } else { y >> 1 };
                        s += 1;
                    }
                    s
                })
                .collect();
            Ok(same("steps", &out::<u32>(&res, 1), &want, |i| {
                format!("x={}", x[i])
            }))
        });
        for base in [2u32, 10, 255] {
            add(
                v,
                "loops",
                "loop_do_while_digits",
                &format!("{label}/base={base}"),
                move |d| {
                    let mut x = rand_u32s(&mut rng(183), n);
                    x[0] = 0;
                    let res = d.launch_1d(
                        n as u32,
                        128,
                        vec![
                            buf(&x),
                            buf(&vec![0u32; n]),
                            buf(&vec![0u32; n]),
                            val(base),
                            val(n as i32),
                        ],
                    )?;
                    let (mut sums, mut counts) = (Vec::new(), Vec::new());
                    for &a in &x {
                        let (mut y, mut s, mut c) = (a, 0, 0);
                        loop {
                            s += y % base;
                            y /= base;
                            c += 1;
                            if y == 0 {
                                break;
                            }
                        }
                        sums.push(s);
                        counts.push(c);
                    }
                    Ok(all([
                        same("sum", &out::<u32>(&res, 1), &sums, |i| {
                            format!("x={}", x[i])
                        }),
                        same("count", &out::<u32>(&res, 2), &counts, |i| {
                            format!("x={}", x[i])
                        }),
                    ]))
                },
            );
        }
        for len in [0usize, 7, 64] {
            add(
                v,
                "loops",
                "loop_unrolled_hash",
                &format!("{label}/len={len}"),
                move |d| {
                    let data: Vec<u8> = rand_u32s(&mut rng(184), n * len)
                        .iter()
                        .map(|&a| a as u8)
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
                    // 32-bit FNV-1a.
                    let want: Vec<u32> = (0..n)
                        .map(|r| {
                            data[r * len..(r + 1) * len]
                                .iter()
                                .fold(2_166_136_261u32, |h, &b| {
                                    (h ^ u32::from(b)).wrapping_mul(16_777_619)
                                })
                        })
                        .collect();
                    Ok(same("hash", &out::<u32>(&res, 1), &want, |i| {
                        format!("row {i}")
                    }))
                },
            );
        }
    }
}
