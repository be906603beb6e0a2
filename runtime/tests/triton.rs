//! Triton's PTX for our kernels (shaders/triton, compiled at test time; see
//! translator/tests/triton_support) run on the device against Rust references: the matmul of
//! sm_75, the tensor-core matmul and attention of sm_80 (ldmatrix, mma.sync), softmax, layer
//! norm and reductions.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod triton_launch;

use half::f16;
use ptxvk_runtime::{Context, DeviceBuffer, KernelArg};
use triton_launch::triton_support::{self, TritonKernel};
use triton_launch::{find, launch};

/// Small integers (-4..=3): every product and partial sum below is exact in f32.
fn ints(n: usize, seed: u64) -> Vec<f32> {
    common::floats(n, seed)
        .into_iter()
        .map(|f| (f / 2.0).floor())
        .collect()
}

fn halves(v: &[f32]) -> Vec<u16> {
    v.iter().map(|&x| f16::from_f32(x).to_bits()).collect()
}

fn close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}

/// `variant` for sm_`cc` on f16 tiles of `tile` (M x N) rows and columns.
fn matmul(ctx: &Context, all: &[TritonKernel], variant: &str, cc: u32, tile: (usize, usize)) {
    let k = find(all, variant, cc);
    // No dimension a multiple of the tile: every mask of the kernel is used.
    let (m, n, kk) = (tile.0 + 21, tile.1 + 5, 40usize);
    let a = ints(m * kk, 1);
    let b = ints(kk * n, 2);
    let da = DeviceBuffer::from_slice(ctx, &halves(&a)).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &halves(&b)).unwrap();
    let dc = DeviceBuffer::<f32>::zeroed(ctx, m * n).unwrap();
    let dims = [m, n, kk, kk, n, n].map(|x| KernelArg::I32(x as i32));
    let mut args = vec![(&da).into(), (&db).into(), (&dc).into()];
    args.extend(dims);
    let grid = [m.div_ceil(tile.0) as u32, n.div_ceil(tile.1) as u32, 1];
    launch(ctx, k, grid, &args);
    let want: Vec<f32> = (0..m * n)
        .map(|i| (0..kk).map(|p| a[i / n * kk + p] * b[p * n + i % n]).sum())
        .collect();
    assert_eq!(dc.to_vec().unwrap(), want, "{}", k.file);
}

/// `variant` for sm_`cc`, `block_m` query rows a program, head dimension 16.
fn attention(ctx: &Context, all: &[TritonKernel], variant: &str, cc: u32, block_m: usize) {
    let k = find(all, variant, cc);
    // Not a multiple of the 16-key block nor of the query block: both are masked at the end.
    let (n_ctx, d) = (block_m + 24, 16usize);
    let scale = 1.0 / (d as f32).sqrt();
    let make = |seed| -> Vec<f32> {
        common::floats(n_ctx * d, seed)
            .into_iter()
            .map(|x| f16::from_f32(x / 8.0).to_f32())
            .collect()
    };
    let (q, kv, v) = (make(3), make(4), make(5));
    let bufs = [&q, &kv, &v].map(|x| DeviceBuffer::from_slice(ctx, &halves(x)).unwrap());
    let out = DeviceBuffer::<u16>::zeroed(ctx, n_ctx * d).unwrap();
    let args = [
        (&bufs[0]).into(),
        (&bufs[1]).into(),
        (&bufs[2]).into(),
        (&out).into(),
        KernelArg::I32(n_ctx as i32),
        KernelArg::F32(scale),
    ];
    launch(ctx, k, [n_ctx.div_ceil(block_m) as u32, 1, 1], &args);
    let mut want = vec![0f32; n_ctx * d];
    for i in 0..n_ctx {
        let s: Vec<f64> = (0..n_ctx)
            .map(|j| {
                let dot: f64 = (0..d)
                    .map(|c| f64::from(q[i * d + c]) * f64::from(kv[j * d + c]))
                    .sum();
                dot * f64::from(scale)
            })
            .collect();
        let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = s.iter().map(|x| (x - max).exp()).collect();
        let sum: f64 = p.iter().sum();
        for c in 0..d {
            let o: f64 = (0..n_ctx).map(|j| p[j] * f64::from(v[j * d + c])).sum();
            want[i * d + c] = (o / sum) as f32;
        }
    }
    let got: Vec<f32> = out
        .to_vec()
        .unwrap()
        .into_iter()
        .map(|h| f16::from_bits(h).to_f32())
        .collect();
    // The probabilities go through f16 before the second product, and the output is f16.
    close(&k.file, &got, &want, 4e-3);
}

fn softmax(ctx: &Context, all: &[TritonKernel]) {
    let k = find(all, "softmax_f32", 80);
    let (rows, cols) = (5usize, 200usize);
    let x = common::floats(rows * cols, 6);
    let dx = DeviceBuffer::from_slice(ctx, &x).unwrap();
    let dy = DeviceBuffer::<f32>::zeroed(ctx, rows * cols).unwrap();
    let args = [
        (&dx).into(),
        (&dy).into(),
        KernelArg::I32(cols as i32),
        KernelArg::I32(cols as i32),
    ];
    launch(ctx, k, [rows as u32, 1, 1], &args);
    let mut want = Vec::new();
    for r in x.chunks(cols) {
        let max = r.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f64> = r.iter().map(|&v| f64::from(v - max).exp()).collect();
        let s: f64 = e.iter().sum();
        want.extend(e.iter().map(|v| (v / s) as f32));
    }
    // tl.exp is ex2.approx, good to 2 ulp, on a scaled argument.
    close("softmax_f32", &dy.to_vec().unwrap(), &want, 1e-5);
}

fn layernorm(ctx: &Context, all: &[TritonKernel]) {
    let k = find(all, "layernorm_f16", 80);
    let (rows, cols) = (3usize, 300usize);
    let x: Vec<f32> = common::floats(rows * cols, 7)
        .into_iter()
        .map(|v| f16::from_f32(v).to_f32())
        .collect();
    let w = common::floats(cols, 8);
    let b = common::floats(cols, 9);
    let eps = 1e-5f32;
    let dx = DeviceBuffer::from_slice(ctx, &halves(&x)).unwrap();
    let dy = DeviceBuffer::<u16>::zeroed(ctx, rows * cols).unwrap();
    let dw = DeviceBuffer::from_slice(ctx, &w).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &b).unwrap();
    let dmean = DeviceBuffer::<f32>::zeroed(ctx, rows).unwrap();
    let drstd = DeviceBuffer::<f32>::zeroed(ctx, rows).unwrap();
    let args = [
        (&dx).into(),
        (&dy).into(),
        (&dw).into(),
        (&db).into(),
        (&dmean).into(),
        (&drstd).into(),
        KernelArg::I32(cols as i32),
        KernelArg::F32(eps),
    ];
    launch(ctx, k, [rows as u32, 1, 1], &args);
    let (mut want_y, mut want_mean, mut want_rstd) = (Vec::new(), Vec::new(), Vec::new());
    for r in x.chunks(cols) {
        let mean = r.iter().map(|&v| f64::from(v)).sum::<f64>() / cols as f64;
        let var = r
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / cols as f64;
        let rstd = 1.0 / (var + f64::from(eps)).sqrt();
        want_mean.push(mean as f32);
        want_rstd.push(rstd as f32);
        for (c, &v) in r.iter().enumerate() {
            let y = (f64::from(v) - mean) * rstd * f64::from(w[c]) + f64::from(b[c]);
            want_y.push(y as f32);
        }
    }
    close("layernorm mean", &dmean.to_vec().unwrap(), &want_mean, 1e-5);
    close("layernorm rstd", &drstd.to_vec().unwrap(), &want_rstd, 1e-5);
    let got: Vec<f32> = dy
        .to_vec()
        .unwrap()
        .into_iter()
        .map(|h| f16::from_bits(h).to_f32())
        .collect();
    // The output is rounded to f16 (relative 2^-11).
    close("layernorm y", &got, &want_y, 1e-3);
}

fn reductions(ctx: &Context, all: &[TritonKernel]) {
    let k = find(all, "column_sums_f32", 80);
    let (rows, cols) = (37usize, 100usize);
    let x = ints(rows * cols, 10);
    let dx = DeviceBuffer::from_slice(ctx, &x).unwrap();
    let dout = DeviceBuffer::<f32>::zeroed(ctx, cols).unwrap();
    let args = [
        (&dx).into(),
        (&dout).into(),
        KernelArg::I32(rows as i32),
        KernelArg::I32(cols as i32),
    ];
    launch(ctx, k, [cols.div_ceil(64) as u32, 1, 1], &args);
    let want: Vec<f32> = (0..cols)
        .map(|c| (0..rows).map(|r| x[r * cols + c]).sum())
        .collect();
    assert_eq!(dout.to_vec().unwrap(), want, "column_sums_f32");

    let k = find(all, "global_stats_i32", 80);
    let n = 1500usize;
    let x: Vec<i32> = common::floats(n, 11)
        .into_iter()
        .map(|f| (f * 1000.0) as i32)
        .collect();
    let dx = DeviceBuffer::from_slice(ctx, &x).unwrap();
    let dsum = DeviceBuffer::<i32>::zeroed(ctx, 1).unwrap();
    let dmax = DeviceBuffer::from_slice(ctx, &[i32::MIN]).unwrap();
    let dneg = DeviceBuffer::<i32>::zeroed(ctx, 1).unwrap();
    let args = [
        (&dx).into(),
        (&dsum).into(),
        (&dmax).into(),
        (&dneg).into(),
        KernelArg::I32(n as i32),
    ];
    launch(ctx, k, [n.div_ceil(512) as u32, 1, 1], &args);
    assert_eq!(dsum.to_vec().unwrap(), [x.iter().sum::<i32>()], "sum");
    assert_eq!(dmax.to_vec().unwrap(), [*x.iter().max().unwrap()], "max");
    let neg = x.iter().filter(|&&v| v < 0).count() as i32;
    assert_eq!(dneg.to_vec().unwrap(), [neg], "negatives");
}

#[test]
fn triton_kernels_match_references() {
    let Some(all) = triton_support::kernels() else {
        return;
    };
    let mut opts = common::options();
    // Lavapipe's LLVM takes about two minutes over the attention kernel's emulated warp
    // exchanges at its first launch (a warm Mesa shader cache makes it seconds), which the
    // default 60 s bound on a launch would cut.
    if std::env::var_os("PTXVK_TIMEOUT_MS").is_none() {
        opts.timeout = std::time::Duration::from_secs(600);
    }
    let ctx = ptxvk_runtime::Context::new(&opts).unwrap();
    common::announce(&ctx);
    softmax(&ctx, &all);
    layernorm(&ctx, &all);
    reductions(&ctx, &all);
    // wgmma with both operands in shared memory, through 32-byte-swizzled descriptors.
    matmul(&ctx, &all, "matmul_f16_wg", 90, (64, 16));
    // Triton's dot for sm_75 (fma: its mma path starts at sm_80), then ldmatrix and mma.sync.
    matmul(&ctx, &all, "matmul_f16_small", 75, (16, 16));
    matmul(&ctx, &all, "matmul_f16_small", 80, (16, 16));
    attention(&ctx, &all, "attention_f16_small", 80, 16);
    // wgmma with A from a descriptor (Q K^T) and A from registers (P V).
    attention(&ctx, &all, "attention_f16_wg", 90, 64);
}
