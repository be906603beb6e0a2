//! ptxvk-runtime: run NVIDIA PTX kernels on any Vulkan 1.2 device.
//!
//! The API follows the CUDA driver API:
//!
//! | CUDA | ptxvk |
//! |---|---|
//! | `cuDeviceGet`, `cuCtxCreate` | [`devices`], [`Context::new`] |
//! | `cuModuleLoadData`, `cuModuleGetFunction` | [`Context::load_ptx`], [`Module::kernel`] |
//! | `cuModuleGetGlobal` | [`Module::global`], [`Module::read_global`], [`Module::write_global`] |
//! | `cuMemAlloc`, `cuMemcpyHtoD`, `cuMemsetD32` | [`DeviceBuffer::zeroed`], [`DeviceBuffer::copy_from_host`], [`DeviceBuffer::fill`] |
//! | `cuLaunchKernel` | [`Kernel::launch`] (synchronous), [`Stream::launch`] (queued) |
//! | `cuStreamCreate`, `cuStreamSynchronize` | [`Context::new_stream`], [`Stream::synchronize`] |
//! | `cuEventRecord`, `cuStreamWaitEvent`, `cuEventElapsedTime` | [`Stream::record_event`], [`Stream::wait_event`], [`Event::elapsed`] |
//! | `cuCtxSynchronize` | [`Context::synchronize`] |
//!
//! Kernel arguments are checked against the kernel's PTX signature; buffers are passed by
//! device address and kept alive by the work that uses them.
//!
//! ```no_run
//! use ptxvk_runtime::{Context, ContextOptions, DeviceBuffer, LaunchConfig};
//!
//! let ctx = Context::new(&ContextOptions::from_env())?;
//! let module = ctx.load_ptx("saxpy.ptx", &std::fs::read_to_string("shaders/saxpy.ptx").unwrap())?;
//! let saxpy = module.kernel("saxpy")?;
//! let n = 1000u32;
//! let x = DeviceBuffer::from_slice(&ctx, &vec![1.0f32; n as usize])?;
//! let y = DeviceBuffer::from_slice(&ctx, &vec![2.0f32; n as usize])?;
//! saxpy.launch(&LaunchConfig::for_num_elems(n, 256), &[n.into(), 3.0f32.into(), (&x).into(), (&y).into()])?;
//! assert!(y.to_vec()?.iter().all(|&v| v == 5.0));
//! # Ok::<(), ptxvk_runtime::Error>(())
//! ```
//!
//! Errors are values ([`Error`]); every wait for the device is bounded by
//! [`ContextOptions::timeout`] (plus [`ContextOptions::compile_timeout`] where the work holds
//! a kernel's first launch), after which the context reports itself lost
//! ([`Context::is_lost`]) and a new one can be created. `tracing` logs go to the subscriber
//! the application installs (the `ptxvk` binary reads `PTXVK_LOG`).

#![warn(missing_docs)]

mod context;
mod device;
mod error;
mod event;
mod instance;
mod launch;
mod memory;
mod module;
mod pipeline;
mod printf;
mod probe;
mod services;
mod spill;
mod spirv_kernel;
mod stream;
mod texture;
mod wait;

pub use context::{Context, ContextOptions, Restrictions, devices};
pub use device::{DeviceInfo, DeviceKind, MatrixConfig, select as select_device};
pub use error::{Error, Result, install_hint};
pub use event::Event;
pub use instance::Validation;
pub use launch::TextureRef;
pub use launch::{BufferRef, KernelArg, LaunchConfig, MAX_GRID, describe_param};
pub use memory::{Buffer, DeviceBuffer, DeviceRange, DeviceSlice, Download};
pub use module::{GlobalInfo, Kernel, KernelInfo, Module};
pub use ptxvk_translator as translator;
pub use ptxvk_translator::texture::{AddressMode, FilterMode};
pub(crate) use ptxvk_translator::types::TypeKind;
pub use services::{Limit, PrintfSink};
pub use spirv_kernel::SpirvKernel;
pub use stream::{MAX_BATCH, Stream};
pub use texture::{
    ChannelFormat, ChannelKind, CompareOp, MAX_LINEAR_WIDTH, ReadMode, Texture, TextureDesc,
    TextureShape,
};
