//! `tests/c/per_thread.c`: a program built for the per-thread default stream (cuda.h maps its
//! calls to the `_ptsz`/`_ptds` entry points), run on several threads at once. It checks its
//! results itself and exits non-zero on any mismatch.

mod common;

#[test]
fn per_thread_default_streams_order_each_thread_and_the_legacy_stream() {
    let include = common::cuda12_include()
        .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
    let dir = common::lib_dir("per-thread");
    let exe = common::compile_c("per_thread", &include, &dir);
    let out = common::run_c(&exe, &dir, &[], &[]);
    assert!(out.contains("per_thread: ok"), "{out}");
}
