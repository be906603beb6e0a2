//! The benchmark's kernels: sizes, inputs, launches and the CPU reference each output is
//! checked against.

use super::{Arg, Case, Check, Step, Work};

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn read_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Deterministic words (xorshift32).
fn words(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

/// Deterministic values in [-1, 1).
fn noise(n: usize, seed: u32) -> Vec<f32> {
    words(n, seed)
        .into_iter()
        .map(|w| (w >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
        .collect()
}

/// Every element within `tol` (relative, with an absolute floor of `tol`) of the reference.
fn close(want: Vec<f32>, tol: f32) -> Check {
    Box::new(move |b| {
        let got = read_f32(b);
        match want
            .iter()
            .zip(&got)
            .position(|(w, g)| (w - g).abs() > tol * w.abs().max(1.0))
        {
            Some(i) => Err(format!("element {i}: {} instead of {}", got[i], want[i])),
            None => Ok(()),
        }
    })
}

fn exact(want: Vec<u32>) -> Check {
    Box::new(move |b| {
        let got = read_u32(b);
        match want.iter().zip(&got).position(|(w, g)| w != g) {
            Some(i) => Err(format!("element {i}: {} instead of {}", got[i], want[i])),
            None => Ok(()),
        }
    })
}

fn step(grid: [u32; 3], block: [u32; 3], ptx_args: Vec<Arg>, push: Vec<Arg>) -> Step {
    Step {
        grid,
        block,
        ptx_args,
        push,
    }
}

/// A step whose twin takes the kernel's arguments in the same order.
fn same(grid: [u32; 3], block: [u32; 3], args: Vec<Arg>) -> Step {
    step(grid, block, args.clone(), args)
}

fn groups(n: usize, per: usize) -> u32 {
    n.div_ceil(per) as u32
}

/// Every case at full size (`full`) or smoke-test size.
pub fn all(full: bool) -> Vec<Case> {
    // About 16 M elements: as many groups of 256 as one dispatch may have.
    let big = if full { 65_535 * 256 } else { 1 << 12 };
    vec![
        saxpy(big),
        reduce(big),
        transpose("transpose_naive", if full { 2048 } else { 64 }),
        transpose("transpose_tiled", if full { 2048 } else { 64 }),
        sgemm(if full { 512 } else { 32 }),
        stencil3d(if full { 256 } else { 16 }),
        scan(big),
        histogram(big / 4),
        bitonic(if full { 1 << 20 } else { 1 << 10 }),
        softmax(if full { 4096 } else { 4 }),
        warp_reduce(big),
    ]
}

fn saxpy(n: usize) -> Case {
    let (a, x, y) = (2.5f32, noise(n, 1), noise(n, 2));
    let want = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();
    let g = [groups(n, 256), 1, 1];
    Case {
        name: "saxpy",
        size: format!("{n} f32"),
        work: Work::Bytes(12.0 * n as f64),
        buffers: vec![f32s(&x), f32s(&y)],
        steps: vec![step(
            g,
            [256, 1, 1],
            vec![Arg::U32(n as u32), Arg::F32(a), Arg::Buf(0), Arg::Buf(1)],
            vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n as u32), Arg::F32(a)],
        )],
        output: 1,
        check: close(want, 1e-6),
    }
}

fn reduce(n: usize) -> Case {
    let x = noise(n, 3);
    let blocks = n.div_ceil(512);
    let want = (0..blocks)
        .map(|b| x[b * 512..((b + 1) * 512).min(n)].iter().sum())
        .collect();
    let args = vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n as u32)];
    Case {
        name: "reduce",
        size: format!("{n} f32"),
        work: Work::Bytes(4.0 * n as f64),
        buffers: vec![f32s(&x), vec![0; blocks * 4]],
        steps: vec![same([blocks as u32, 1, 1], [256, 1, 1], args)],
        output: 1,
        check: close(want, 1e-4),
    }
}

fn transpose(name: &'static str, n: usize) -> Case {
    let x = noise(n * n, 4);
    let mut want = vec![0.0; n * n];
    for r in 0..n {
        for c in 0..n {
            want[c * n + r] = x[r * n + c];
        }
    }
    let (grid, block) = if name == "transpose_tiled" {
        ([groups(n, 32), groups(n, 32), 1], [32, 8, 1])
    } else {
        ([groups(n, 16), groups(n, 16), 1], [16, 16, 1])
    };
    let args = vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n as u32)];
    Case {
        name,
        size: format!("{n} x {n} f32"),
        work: Work::Bytes(8.0 * (n * n) as f64),
        buffers: vec![f32s(&x), vec![0; n * n * 4]],
        steps: vec![same(grid, block, args)],
        output: 1,
        check: close(want, 0.0),
    }
}

fn sgemm(n: usize) -> Case {
    let (a, b) = (noise(n * n, 5), noise(n * n, 6));
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n)
                .map(|k| f64::from(a[i * n + k]) * f64::from(b[k * n + j]))
                .sum();
            want[i * n + j] = s as f32;
        }
    }
    let args = vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::U32(n as u32)];
    Case {
        name: "sgemm",
        size: format!("{n} x {n} f32"),
        work: Work::Flops(2.0 * (n * n * n) as f64),
        buffers: vec![f32s(&a), f32s(&b), vec![0; n * n * 4]],
        steps: vec![same([groups(n, 16), groups(n, 16), 1], [16, 16, 1], args)],
        output: 2,
        check: close(want, 1e-4),
    }
}

fn stencil3d(n: usize) -> Case {
    let x = noise(n * n * n, 7);
    let at = |x_: usize, y: usize, z: usize| (z * n + y) * n + x_;
    let mut want = x.clone();
    for z in 1..n - 1 {
        for y in 1..n - 1 {
            for c in 1..n - 1 {
                let i = at(c, y, z);
                let s = x[i - 1] + x[i + 1] + x[i - n] + x[i + n] + x[i - n * n] + x[i + n * n];
                want[i] = 0.4 * x[i] + 0.1 * s;
            }
        }
    }
    let args = vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n as u32)];
    Case {
        name: "stencil3d",
        size: format!("{n}^3 f32"),
        work: Work::Bytes(8.0 * (n * n * n) as f64),
        buffers: vec![f32s(&x), vec![0; n * n * n * 4]],
        steps: vec![same(
            [groups(n, 8), groups(n, 8), groups(n, 4)],
            [8, 8, 4],
            args,
        )],
        output: 1,
        check: close(want, 1e-5),
    }
}

fn scan(n: usize) -> Case {
    let x: Vec<u32> = words(n, 8).iter().map(|w| w & 0xffff).collect();
    let mut want = x.clone();
    for chunk in want.chunks_mut(256) {
        for i in 1..chunk.len() {
            chunk[i] = chunk[i].wrapping_add(chunk[i - 1]);
        }
    }
    let args = vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n as u32)];
    Case {
        name: "scan",
        size: format!("{n} u32"),
        work: Work::Bytes(8.0 * n as f64),
        buffers: vec![u32s(&x), vec![0; n * 4]],
        steps: vec![same([groups(n, 256), 1, 1], [256, 1, 1], args)],
        output: 1,
        check: exact(want),
    }
}

fn histogram(n_words: usize) -> Case {
    let w = words(n_words, 9);
    let mut want = vec![0u32; 256];
    for v in &w {
        for s in [0, 8, 16, 24] {
            want[((v >> s) & 255) as usize] += 1;
        }
    }
    let blocks = groups(n_words, 256).min(256);
    Case {
        name: "histogram",
        size: format!("{} bytes", n_words * 4),
        work: Work::Bytes(4.0 * n_words as f64),
        buffers: vec![u32s(&w), vec![0; 256 * 4]],
        steps: vec![step(
            [blocks, 1, 1],
            [256, 1, 1],
            vec![Arg::Buf(0), Arg::U32(n_words as u32), Arg::Buf(1)],
            vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(n_words as u32)],
        )],
        output: 1,
        check: exact(want),
    }
}

fn bitonic(n: usize) -> Case {
    let keys = words(n, 10);
    let mut want = keys.clone();
    want.sort_unstable();
    let mut steps = Vec::new();
    let mut k = 2;
    while k <= n {
        let mut j = k / 2;
        while j > 0 {
            let args = vec![Arg::Buf(0), Arg::U32(j as u32), Arg::U32(k as u32)];
            steps.push(same([groups(n, 256), 1, 1], [256, 1, 1], args));
            j /= 2;
        }
        k *= 2;
    }
    let bytes = 8.0 * (n * steps.len()) as f64;
    Case {
        name: "bitonic_step",
        size: format!("{n} u32, {} steps", steps.len()),
        work: Work::Bytes(bytes),
        buffers: vec![u32s(&keys)],
        steps,
        output: 0,
        check: exact(want),
    }
}

fn softmax(rows: usize) -> Case {
    let x: Vec<f32> = noise(rows * 1024, 11).iter().map(|v| v * 8.0).collect();
    let mut want = Vec::with_capacity(x.len());
    for row in x.chunks(1024) {
        let m = row.iter().fold(f32::MIN, |a, &b| a.max(b));
        let sum: f64 = row.iter().map(|v| f64::from(v - m).exp()).sum();
        want.extend(row.iter().map(|v| (f64::from(v - m).exp() / sum) as f32));
    }
    let args = vec![Arg::Buf(0), Arg::Buf(1)];
    Case {
        name: "softmax",
        size: format!("{rows} x 1024 f32"),
        work: Work::Bytes(8.0 * (rows * 1024) as f64),
        buffers: vec![f32s(&x), vec![0; rows * 1024 * 4]],
        steps: vec![same([rows as u32, 1, 1], [256, 1, 1], args)],
        output: 1,
        // `ex2.approx` has 2 ulp of error, and the row sums add it up.
        check: close(want, 1e-4),
    }
}

fn warp_reduce(n: usize) -> Case {
    let x: Vec<u32> = words(n, 12).iter().map(|w| w & 0xff).collect();
    let want = x
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
        .collect();
    let args = vec![Arg::Buf(0), Arg::Buf(1)];
    Case {
        name: "warp_reduce",
        size: format!("{n} u32"),
        work: Work::Bytes(4.0 * n as f64),
        buffers: vec![u32s(&x), vec![0; n.div_ceil(256) * 4]],
        steps: vec![same([groups(n, 256), 1, 1], [256, 1, 1], args)],
        output: 1,
        check: exact(want),
    }
}
