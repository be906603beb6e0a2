//! Launching Triton's kernels (translator/tests/triton_support) as Triton's own launcher does:
//! a block of `num_warps * 32` threads, `shared` bytes of dynamic shared memory (its
//! `global_smem`), and after the kernel's own parameters two scratch pointers (global and
//! profiling scratch), null where their sizes are 0.

#![allow(dead_code)]

#[path = "../../../translator/tests/triton_support/mod.rs"]
pub mod triton_support;

use ptxvk_runtime::{Context, KernelArg, LaunchConfig};
use triton_support::TritonKernel;

pub fn find<'a>(all: &'a [TritonKernel], variant: &str, cc: u32) -> &'a TritonKernel {
    all.iter()
        .find(|k| k.variant == variant && k.cc == cc)
        .unwrap_or_else(|| panic!("no {variant} for sm_{cc}"))
}

/// Launches `k` over `grid` with Triton's block, shared memory and scratch arguments.
pub fn launch(ctx: &Context, k: &TritonKernel, grid: [u32; 3], args: &[KernelArg]) {
    assert_eq!(
        (k.global_scratch_size, k.profile_scratch_size),
        (0, 0),
        "{}: a kernel that needs scratch memory",
        k.file
    );
    // Lavapipe compiles at the first launch: the time is mostly LLVM's.
    let start = std::time::Instant::now();
    let m = ctx
        .load_ptx(&k.file, &k.ptx)
        .unwrap_or_else(|e| panic!("{}: {e}", k.file));
    let kernel = m.kernel(&k.kernel).unwrap();
    let mut all = args.to_vec();
    all.extend([KernelArg::Ptr(0), KernelArg::Ptr(0)]);
    let cfg = LaunchConfig {
        grid,
        block: [k.num_warps * 32, 1, 1],
        shared_bytes: k.shared,
    };
    kernel
        .launch(&cfg, &all)
        .unwrap_or_else(|e| panic!("{}: {e}", k.file));
    ctx.synchronize().unwrap();
    eprintln!(
        "{}: loaded and run in {:.1} s ({} bytes of shared memory)",
        k.file,
        start.elapsed().as_secs_f64(),
        k.shared
    );
}
