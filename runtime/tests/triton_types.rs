//! Triton's matmul and attention (shaders/triton) in every input type Triton's dot takes,
//! run on the device against numpy: `shaders/triton/reference.py` draws inputs that are values
//! of their type and computes the product in float64 with a per-element error bound (the
//! float32 accumulation's over K, the rounding of attention's probabilities and output).
//!
//! The quick set runs the smallest tiles: sm_80's ldmatrix + mma.sync in bf16 and e5m2
//! (widened to f16), sm_90a's wgmma in bf16, tf32, e5m2 and e4m3 and its attention in bf16.
//! Lavapipe's LLVM takes minutes over the emulated warp exchanges of the others (its coroutine
//! splitting at every barrier of the 32-thread warp built from 8-wide subgroups), so they are
//! ignored by default and run by `cargo xtask triton-long`: sm_80's tf32 matmul and bf16
//! attention, and the tiles of Triton's tuning configurations, whose pipelined stages take 48 KiB of shared
//! memory or more (beyond lavapipe's 32 KiB: the runtime spills the arena to device memory).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod triton_launch;

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxvk_runtime::{Context, DeviceBuffer, KernelArg};
use triton_launch::triton_support::{self, TritonKernel};
use triton_launch::{find, launch};

/// Runs `reference.py` and returns its output folder.
fn reference(python: &Path, name: &str, args: &[String]) -> PathBuf {
    let dir = common::temp_dir(&format!("triton-ref-{name}"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders/triton/reference.py");
    let out = Command::new(python)
        .arg(script)
        .arg(&dir)
        .args(args)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    assert!(
        out.status.success(),
        "reference.py {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    let path = dir.join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Every element within its bound of numpy's result.
fn within(what: &str, got: &[f64], dir: &Path) {
    let want = f64s(&read(dir, "want"));
    let bound = f64s(&read(dir, "bound"));
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut worst = 0f64;
    for (i, ((g, w), b)) in got.iter().zip(&want).zip(&bound).enumerate() {
        assert!(
            (g - w).abs() <= *b,
            "{what}[{i}]: got {g}, numpy {w}, allowed error {b}"
        );
        worst = worst.max((g - w).abs() / b);
    }
    eprintln!("{what}: largest error {worst:.3} of its bound");
}

/// The element type `reference.py` calls the variant's inputs.
fn input_type(variant: &str) -> &'static str {
    ["bf16", "tf32", "e5m2", "e4m3", "f16"]
        .into_iter()
        .find(|t| variant.contains(&format!("_{t}_")))
        .map(|t| if t == "f16" { "fp16" } else { t })
        .unwrap_or_else(|| panic!("{variant}: no input type in its name"))
}

/// `variant` for sm_`cc` with `tile` (M x N) output tiles, on an M x N x K problem.
fn matmul(
    ctx: &Context,
    python: &Path,
    all: &[TritonKernel],
    (variant, cc): (&str, u32),
    (m, n, k): (usize, usize, usize),
    tile: (usize, usize),
) {
    let kern = find(all, variant, cc);
    let ty = input_type(variant);
    let args = [m, n, k, 7].map(|x| x.to_string());
    let mut all_args = vec!["matmul".to_string(), ty.to_string()];
    all_args.extend(args);
    let dir = reference(python, &kern.file, &all_args);
    let da = DeviceBuffer::from_slice(ctx, &read(&dir, "a")).unwrap();
    let db = DeviceBuffer::from_slice(ctx, &read(&dir, "b")).unwrap();
    let dc = DeviceBuffer::<f32>::zeroed(ctx, m * n).unwrap();
    let mut launch_args: Vec<KernelArg> = vec![(&da).into(), (&db).into(), (&dc).into()];
    launch_args.extend([m, n, k, k, n, n].map(|x| KernelArg::I32(x as i32)));
    let grid = [m.div_ceil(tile.0) as u32, n.div_ceil(tile.1) as u32, 1];
    launch(ctx, kern, grid, &launch_args);
    let got: Vec<f64> = dc.to_vec().unwrap().into_iter().map(f64::from).collect();
    within(&kern.file, &got, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `variant` for sm_`cc`, `block_m` query rows a program, head dimension 16.
fn attention(
    ctx: &Context,
    python: &Path,
    all: &[TritonKernel],
    (variant, cc): (&str, u32),
    block_m: usize,
) {
    let kern = find(all, variant, cc);
    let ty = input_type(variant);
    // Not a multiple of the 16-key block nor of the query block: both are masked at the end.
    let (n_ctx, d) = (block_m + 24, 16usize);
    let args = ["attention", ty]
        .map(String::from)
        .into_iter()
        .chain([n_ctx, d, 11].map(|x| x.to_string()))
        .collect::<Vec<_>>();
    let dir = reference(python, &kern.file, &args);
    let bufs = ["q", "k", "v"].map(|x| DeviceBuffer::from_slice(ctx, &read(&dir, x)).unwrap());
    let out = DeviceBuffer::<u16>::zeroed(ctx, n_ctx * d).unwrap();
    let scale = 1.0 / (d as f32).sqrt();
    let launch_args = [
        (&bufs[0]).into(),
        (&bufs[1]).into(),
        (&bufs[2]).into(),
        (&out).into(),
        KernelArg::I32(n_ctx as i32),
        KernelArg::F32(scale),
    ];
    launch(
        ctx,
        kern,
        [n_ctx.div_ceil(block_m) as u32, 1, 1],
        &launch_args,
    );
    let got: Vec<f64> = out
        .to_vec()
        .unwrap()
        .into_iter()
        .map(|h| match ty {
            "bf16" => f64::from(f32::from_bits(u32::from(h) << 16)),
            _ => f64::from(half::f16::from_bits(h).to_f32()),
        })
        .collect();
    within(&kern.file, &got, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A context whose launches may take `minutes`.
fn context(minutes: u64) -> Context {
    let mut opts = common::options();
    // Lavapipe's LLVM takes minutes over the larger kernels' emulated warp exchanges at their
    // first launch (a warm Mesa shader cache makes it seconds), and the bound on a launch
    // counts it: the default 60 s would cut it.
    if std::env::var_os("PTXVK_TIMEOUT_MS").is_none() {
        opts.timeout = std::time::Duration::from_secs(minutes * 60);
    }
    let ctx = Context::new(&opts).unwrap();
    common::announce(&ctx);
    ctx
}

#[test]
fn triton_types_match_numpy() {
    let Some(all) = triton_support::kernels() else {
        return;
    };
    let python = triton_support::python().unwrap();
    let ctx = context(15);
    // No dimension a multiple of the tile: every mask of the kernel is used.
    for v in ["matmul_bf16_small", "matmul_e5m2_small"] {
        matmul(&ctx, &python, &all, (v, 80), (37, 21, 40), (16, 16));
    }
    for v in [
        "matmul_bf16_wg",
        "matmul_tf32_wg",
        "matmul_e5m2_wg",
        "matmul_e4m3_wg",
    ] {
        matmul(&ctx, &python, &all, (v, 90), (85, 21, 72), (64, 16));
    }
    attention(&ctx, &python, &all, ("attention_bf16_wg", 90), 64);
}

#[test]
#[ignore = "lavapipe takes minutes to compile these; run by `cargo xtask triton-long`"]
fn triton_mma_sync_tf32_and_attention_match_numpy() {
    let Some(all) = triton_support::kernels() else {
        return;
    };
    let python = triton_support::python().unwrap();
    let ctx = context(60);
    let small = (37, 21, 40);
    matmul(
        &ctx,
        &python,
        &all,
        ("matmul_tf32_small", 80),
        small,
        (16, 16),
    );
    attention(&ctx, &python, &all, ("attention_bf16_small", 80), 16);
}

/// One of the tiles of Triton's tuning configurations, `tile` (M x N) outputs a program.
fn big_tile(variant: &str, cc: u32, tile: (usize, usize)) {
    let Some(all) = triton_support::kernels() else {
        return;
    };
    let python = triton_support::python().unwrap();
    // On the loaded 2-core machine, sm_80's large tiles took over 15 minutes of LLVM.
    let ctx = context(60);
    let k = find(&all, variant, cc);
    assert!(
        k.shared >= 48 << 10,
        "{}: {} bytes of shared memory, not the 48 KiB this run is for",
        k.file,
        k.shared
    );
    let limit = ctx.info().max_shared_memory_bytes;
    eprintln!(
        "{}: {} bytes of shared memory, the device has {limit}",
        k.file, k.shared
    );
    // Multiples of 16 (the kernels are specialised for it), not of the tiles; K runs through
    // more iterations than the pipeline has stages.
    let shape = (tile.0 + 16, tile.1 + 16, 160);
    matmul(&ctx, &python, &all, (variant, cc), shape, tile);
}

#[test]
#[ignore = "lavapipe takes minutes to compile these; run by `cargo xtask triton-long`"]
fn triton_big_mma_sync_f16_matches_numpy() {
    big_tile("matmul_f16_big", 80, (128, 128));
}

#[test]
#[ignore = "lavapipe takes minutes to compile these; run by `cargo xtask triton-long`"]
fn triton_big_mma_sync_tf32_matches_numpy() {
    big_tile("matmul_tf32_big", 80, (64, 64));
}

#[test]
#[ignore = "lavapipe takes minutes to compile these; run by `cargo xtask triton-long`"]
fn triton_big_wgmma_f16_matches_numpy() {
    big_tile("matmul_f16_big_wg", 90, (128, 64));
}
