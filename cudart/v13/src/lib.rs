//! libcudart.so.13: ptxvk-cudart's entry points under CUDA 13's soname and symbol version.

// Linked for its exported entry points alone.
extern crate ptxvk_cudart;
