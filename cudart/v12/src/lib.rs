//! libcudart.so.12: ptxvk-cudart's entry points under CUDA 12's soname, so that their symbol
//! version is the one CUDA 12 programs require. The calls whose C types differ between 12 and
//! 13 have different names (CUDA 12's header maps `cudaGetDeviceProperties` to
//! `cudaGetDeviceProperties_v2`), so one implementation serves both.

// Linked for its exported entry points alone.
extern crate ptxvk_cudart;
