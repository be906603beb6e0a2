//! `tests/c/tensor_map.c`: tensor maps encoded through cuTensorMapEncodeTiled and read by
//! `cp.async.bulk.tensor` in a kernel launched through the driver API, with the misuses CUDA
//! documents refused. The program checks its results itself and exits non-zero on any mismatch.

mod common;

#[test]
fn tensor_maps_encode_validate_and_copy_boxes() {
    let include = common::cuda12_include()
        .unwrap_or_else(|| panic!("PTXVK_CUDA_INCLUDE=skip: the C tests need cuda.h"));
    let dir = common::lib_dir("tensor-map");
    let exe = common::compile_c("tensor_map", &include, &dir);
    let out = common::run_c(&exe, &dir, &[], &[]);
    assert!(out.contains("tensor_map: ok"), "{out}");
}
