//! libcudart.so: NVIDIA's CUDA runtime API over the driver API, so that programs nvcc built
//! with `-cudart shared` run unmodified on ptxvk (`ptxvk exec -- ./program`).
//!
//! Like NVIDIA's runtime it sits on `libcuda.so.1`, loaded at run time ([`driver`]), so that
//! the runtime and driver APIs share primary contexts, pointers, streams and events. nvcc's
//! host code registers each translation unit's fatbinary, kernels and variables before `main`
//! ([`state`]); `kernel<<<...>>>` launches the kernel registered for its host stub from the
//! module loaded from that fatbinary. Typed Rust inside; the C ABI only in `capi`, where every
//! entry point catches panics and returns a `cudaError_t`. Every function of
//! cuda_runtime_api.h is exported; those not implemented return cudaErrorNotSupported.

mod capi;
mod driver;
mod error;
mod props;
mod state;
