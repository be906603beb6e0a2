//! libcuda.so.1: NVIDIA's CUDA driver API over ptxvk-runtime, so that programs written against
//! `cuInit`/`cuModuleLoadData`/`cuLaunchKernel` run unmodified on any Vulkan device.
//!
//! Typed Rust inside (contexts, modules, memory, launches, streams, with [`error::CuError`]);
//! the C ABI only in `capi`, where every entry point catches panics, checks pointers and
//! handles, and returns a `CUresult`. Every function of cuda.h (12.x and 13.x) is exported;
//! those not implemented yet return `CUDA_ERROR_NOT_SUPPORTED` and log their name once.

mod capi;
mod context;
mod copy;
pub mod device;
pub mod error;
mod error_names;
pub mod fatbin;
mod handles;
mod host;
mod launch;
mod launch_cache;
mod library;
mod link;
mod log;
mod memory;
mod module;
mod nvjitlink;
mod pointer;
pub mod proc_address;
mod stream;
mod texture;
mod thread_state;

/// `name` if it is one of the exported entry points (`symbols.txt`).
pub(crate) fn symbols_exported(name: &str) -> Option<&'static str> {
    include_str!("symbols.txt").lines().find(|l| *l == name)
}
