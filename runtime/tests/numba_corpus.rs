//! numba-cuda's PTX for our kernels (shaders/numba, compiled at test time by numba's
//! compile_ptx; see translator/tests/numba_support) run on the device against numpy: the
//! inputs and expected outputs are `shaders/numba/kernels.py`'s `runs`, written by its
//! build script.
//!
//! numba's kernel ABI, which the launch below follows: a scalar is one parameter; an array is
//! its data model flattened, `meminfo`, `parent` (both unused on the device), the element
//! count, the item size, the data pointer, then its shape and its strides in bytes, one
//! 64-bit parameter each.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "../../translator/tests/numba_support/mod.rs"]
mod numba_support;

use std::path::Path;

use ptxvk_runtime::{Context, DeviceBuffer, KernelArg, LaunchConfig};

fn three(words: &[&str]) -> [u32; 3] {
    [0, 1, 2].map(|i| words[i + 1].parse().unwrap())
}

/// Reads the array of `bytes` as `ty` (numpy's dtype code) widened to f64.
fn as_f64(ty: &str, bytes: &[u8]) -> Vec<f64> {
    let words = |n: usize| bytes.chunks_exact(n);
    match ty {
        "f4" => words(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "f8" => words(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        "i4" => words(4)
            .map(|c| f64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        "u4" => words(4)
            .map(|c| f64::from(u32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        _ => panic!("no reading of {ty}"),
    }
}

/// One run: launches its kernel (sm_80's PTX) and checks its outputs.
fn run(ctx: &Context, kernels: &[numba_support::NumbaKernel], dir: &Path) {
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let spec = String::from_utf8(read("spec.txt")).unwrap();
    let (mut name, mut grid, mut block, mut shared) = (String::new(), [1; 3], [1; 3], 0);
    let mut args = Vec::new();
    let mut bufs: Vec<Option<DeviceBuffer<u8>>> = Vec::new();
    let mut checks = Vec::new();
    for line in spec.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "kernel" => name = w[1].to_string(),
            "grid" => grid = three(&w),
            "block" => block = three(&w),
            "shared" => shared = w[1].parse().unwrap(),
            "scalar" => {
                args.push(match w[1] {
                    "f32" => KernelArg::F32(w[2].parse().unwrap()),
                    "f64" => KernelArg::F64(w[2].parse().unwrap()),
                    "i32" => KernelArg::I32(w[2].parse().unwrap()),
                    "i64" => KernelArg::I64(w[2].parse().unwrap()),
                    t => panic!("scalar type {t}"),
                });
                bufs.push(None);
            }
            "array" => {
                let buf = DeviceBuffer::from_slice(ctx, &read(w[1])).unwrap();
                let item: u64 = w[2].parse().unwrap();
                let ndim: usize = w[3].parse().unwrap();
                let shape: Vec<u64> = w[4..4 + ndim].iter().map(|s| s.parse().unwrap()).collect();
                let mut strides = vec![item; ndim];
                for d in (0..ndim.saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * shape[d + 1];
                }
                let count = shape.iter().product::<u64>();
                args.extend([KernelArg::U64(0), KernelArg::U64(0)]);
                args.extend([KernelArg::U64(count), KernelArg::U64(item)]);
                args.push((&buf).into());
                args.extend(shape.iter().chain(&strides).map(|&x| KernelArg::U64(x)));
                bufs.push(Some(buf));
            }
            "check" => checks.push((w[1].parse::<usize>().unwrap(), w[2], w[3], w[4], w[5])),
            other => panic!("{}: unknown line {other}", dir.display()),
        }
    }
    let k = kernels
        .iter()
        .find(|k| k.name == name && k.cc == 80)
        .unwrap_or_else(|| panic!("no {name}.sm80"));
    let start = std::time::Instant::now();
    let m = ctx
        .load_ptx(&k.file, &k.ptx)
        .unwrap_or_else(|e| panic!("{}: {e}", k.file));
    let cfg = LaunchConfig {
        grid,
        block,
        shared_bytes: shared,
    };
    m.kernel(&k.entry)
        .unwrap()
        .launch(&cfg, &args)
        .unwrap_or_else(|e| panic!("{}: {e}", k.file));
    ctx.synchronize().unwrap();
    for (arg, ty, want, rtol, atol) in checks {
        let got = as_f64(ty, &bufs[arg].as_ref().unwrap().to_vec().unwrap());
        let want = as_f64("f8", &read(want));
        let atol = as_f64("f8", &read(atol));
        let rtol: f64 = rtol.parse().unwrap();
        assert_eq!(got.len(), want.len(), "{name}: argument {arg}");
        for (i, ((g, w), a)) in got.iter().zip(&want).zip(&atol).enumerate() {
            assert!(
                (g - w).abs() <= a + rtol * w.abs(),
                "{name} argument {arg}[{i}]: got {g}, numpy {w}"
            );
        }
    }
    eprintln!(
        "{name}: run and checked in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

#[test]
fn numba_kernels_match_numpy() {
    let Some(dir) = numba_support::build() else {
        return;
    };
    let kernels = numba_support::kernels(&dir);
    let ctx = common::context();
    let mut runs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("spec.txt").is_file())
        .collect();
    runs.sort();
    assert!(!runs.is_empty(), "{}: no runs", dir.display());
    for r in &runs {
        run(&ctx, &kernels, r);
    }
}
