//! `tests/c/memory_textures.c`: texture objects over linear and pitched device memory through
//! NVIDIA's cuda.h and our libcuda. The program checks its results against the values it
//! wrote and CUDA's documented error codes, and exits non-zero on any mismatch.

mod common;

#[test]
fn texture_objects_over_linear_and_pitched_memory() {
    let include = common::cuda12_include()
        .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
    let dir = common::lib_dir("memory-textures");
    let exe = common::compile_c("memory_textures", &include, &dir);
    let out = common::run_c(&exe, &dir, &[], &[]);
    assert!(out.contains("memory_textures: ok"), "{out}");
}
