//! `tests/c/launch_paths.c`, compiled against NVIDIA's cuda.h and linked with the libcuda.so
//! this crate builds, run once per group: function attributes, handles destroyed after
//! launches that used them, cooperative launches, a `void` function declared with a result
//! (as numba links one), and threads whose storage goes while logging is on. The program
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

fn run(mode: &str, env: &[(&str, &str)]) -> String {
    let (exe, dir) = program();
    let out = common::run_c(exe, dir, &[mode], env);
    assert!(out.contains(&format!("{mode}: ok")), "{out}");
    out
}

#[test]
fn constant_and_local_sizes_come_from_the_ptx() {
    run("attributes", &[]);
}

#[test]
fn handles_destroyed_after_a_launch_are_refused() {
    run("stale", &[]);
}

#[test]
fn cooperative_launches_are_checked_then_not_supported() {
    run("cooperative", &[]);
}

#[test]
fn a_void_function_declared_with_a_result_links_and_runs() {
    run("void_result", &[]);
}

/// Every event logged, while threads whose storage holds a destroyed context's last
/// references exit: the process ends normally (a panic there would abort it).
#[test]
fn threads_exit_cleanly_with_logging_on() {
    let out = run("teardown", &[("PTXVK_LOG", "trace")]);
    assert!(!out.contains("panicked"), "{out}");
}
