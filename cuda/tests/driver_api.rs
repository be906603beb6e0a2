//! `tests/c/driver_api.c`, compiled against NVIDIA's cuda.h (12.x, and 13.x where its
//! entry points differ) and linked with the libcuda.so this crate builds, run once per group of
//! calls. The program checks every result itself against CUDA's documented codes and against
//! values it computes on the CPU, and exits non-zero on any mismatch.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

/// (program, its library directory) for the CUDA 12.x header.
fn program() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let include = common::cuda12_include()
            .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
        let dir = common::lib_dir("driver-api");
        (common::compile_c("driver_api", &include, &dir), dir)
    })
}

fn run(mode: &str) {
    run_with(mode, &[]);
}

fn run_with(mode: &str, env: &[(&str, &str)]) {
    let (exe, dir) = program();
    let out = common::run_c(exe, dir, &[mode], env);
    assert!(out.contains(&format!("{mode}: ok")), "{out}");
}

#[test]
fn calls_before_cuinit_report_not_initialized() {
    run("before_init");
}

#[test]
fn device_queries_errors_and_entry_points() {
    // The program expects the compute capability this sets.
    run_with("queries", &[("PTXVK_CC", "7.5")]);
}

#[test]
fn primary_and_created_contexts_on_the_context_stack() {
    run("contexts");
}

#[test]
fn each_thread_has_its_own_context_stack() {
    run("threads");
}

#[test]
fn allocations_copies_fills_and_host_memory() {
    run("memory");
}

#[test]
fn launches_with_kernel_params_and_extra() {
    run("launches");
}

#[test]
fn two_streams_ordered_by_events() {
    run("streams");
}

#[test]
fn misuse_gives_cudas_error_codes() {
    run("misuse");
}

#[test]
fn libraries_and_kernel_handles() {
    run("libraries");
}

#[test]
fn the_linker_resolves_externs_across_ptx_inputs() {
    run("linker");
}

#[test]
fn forged_handles_and_null_pointers_give_error_codes() {
    run("forged");
}

/// Whether the tests run on a CPU device (lavapipe), which offers every kind of memory both
/// sides reach: there the programs must really run on it rather than be refused.
fn on_cpu_device() -> bool {
    let devices = ptxvk_runtime::devices().unwrap_or_default();
    let chosen =
        ptxvk_runtime::select_device(&devices, std::env::var("PTXVK_DEVICE").ok().as_deref());
    chosen.is_ok_and(|i| devices[i].kind == ptxvk_runtime::DeviceKind::Cpu)
}

/// On a CPU device (lavapipe) both kinds of shared memory must really run.
#[test]
fn managed_and_mapped_memory_where_the_device_allows() {
    let (exe, dir) = program();
    let out = common::run_c(exe, dir, &["shared_memory"], &[]);
    assert!(out.contains("shared_memory: ok"), "{out}");
    if on_cpu_device() {
        assert!(
            out.contains("managed memory: ran") && out.contains("mapped memory: ran"),
            "{out}"
        );
    }
}

/// The program's own malloc'd memory registered for the device: lavapipe imports it
/// (`VK_EXT_external_memory_host`), so there the kernel must really run on it.
#[test]
fn registered_host_memory_is_written_by_kernels_in_place() {
    let (exe, dir) = program();
    let out = common::run_c(exe, dir, &["registered"], &[]);
    assert!(out.contains("registered: ok"), "{out}");
    if on_cpu_device() {
        assert!(out.contains("registered memory: ran"), "{out}");
    }
}

#[test]
fn texture_objects_over_arrays() {
    run("textures");
}

#[test]
fn a_faulting_kernel_leaves_a_sticky_error() {
    run("sticky");
}

#[test]
fn every_group_also_builds_and_runs_against_the_cuda_13_header() {
    let Some(include) = common::headers().and_then(|h| h.get(1).cloned()) else {
        return;
    };
    let dir = common::lib_dir("driver-api-13");
    let exe = common::compile_c("driver_api", &include, &dir);
    // Every group, the queries' compute capability set as for the 12.x program.
    for mode in [
        "before_init",
        "queries",
        "contexts",
        "threads",
        "memory",
        "launches",
        "streams",
        "misuse",
        "sticky",
        "libraries",
        "linker",
        "forged",
        "shared_memory",
        "registered",
        "textures",
    ] {
        let out = common::run_c(&exe, &dir, &[mode], &[("PTXVK_CC", "7.5")]);
        assert!(out.contains(&format!("{mode}: ok")), "{out}");
    }
}

#[test]
fn nvjitlink_api_links_ptx_for_the_driver_and_refuses_sass_and_lto_ir() {
    let include = common::cuda12_include()
        .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
    let dir = common::lib_dir("nvjitlink");
    let exe = common::compile_c("nvjitlink", &include, &dir);
    let out = common::run_c(&exe, &dir, &[], &[]);
    assert!(out.contains("nvjitlink: ok"), "{out}");
}
