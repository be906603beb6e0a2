//! `tests/c/launch_paths.c`, compiled against NVIDIA's cuda.h and linked with the libcuda.so
//! this crate builds, run once per group: function attributes, the dynamic shared memory limit, handles destroyed after
//! launches that used them, cooperative launches, a `void` function declared with a result
//! (as numba links one), and a thread whose storage goes while logging is on. The program
//! checks every result itself and exits non-zero on any mismatch.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

fn program() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let include = common::cuda12_include()
            .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
        let dir = common::lib_dir("launch-paths");
        (common::compile_c("launch_paths", &include, &dir), dir)
    })
}

fn run(args: &[&str], env: &[(&str, &str)]) -> String {
    let (exe, dir) = program();
    let out = common::run_c(exe, dir, args, env);
    assert!(out.contains(&format!("{}: ok", args[0])), "{out}");
    out
}

#[test]
fn constant_and_local_sizes_come_from_the_ptx() {
    run(&["attributes"], &[]);
}

#[test]
fn handles_destroyed_after_a_launch_are_refused() {
    run(&["stale"], &[]);
}

#[test]
fn dynamic_shared_memory_is_limited_by_the_function_attribute() {
    run(&["shared_limit"], &[]);
}

#[test]
fn cooperative_launches_are_checked_then_not_supported() {
    run(&["cooperative"], &[]);
}

#[test]
fn a_void_function_declared_with_a_result_links_and_runs() {
    run(&["void_result"], &[]);
}

/// A thread exits holding a destroyed context's last references; the module they drop saves
/// its pipeline cache and logs that at debug level, after the formatter's thread-local buffer
/// is gone. The process ends normally (a panic there aborted it).
#[test]
fn a_thread_exits_cleanly_with_logging_on() {
    let cache = std::env::temp_dir().join(format!("ptxvk-teardown-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let dir = cache.to_string_lossy().into_owned();
    let out = run(&["teardown", &dir], &[("PTXVK_LOG", "ptxvk_runtime=debug")]);
    let _ = std::fs::remove_dir_all(&cache);
    assert!(!out.contains("panicked"), "{out}");
}
