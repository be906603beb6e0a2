//! ptxvk-runtime: run NVIDIA PTX kernels on any Vulkan 1.2 device.
//!
//! A [`Context`] is one device; [`Context::load_ptx`] gives a [`Module`]; [`Module::kernel`]
//! translates a kernel to SPIR-V and prepares it; [`Kernel::launch`] runs it with typed,
//! checked arguments. Buffers ([`DeviceBuffer`]) are passed to kernels by device address.
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

mod context;
mod device;
mod error;
mod instance;
mod launch;
mod memory;
mod module;
mod probe;

pub use context::{Context, ContextOptions, devices};
pub use device::{DeviceInfo, DeviceKind, select as select_device};
pub use error::{Error, Result, install_hint};
pub use instance::Validation;
pub use launch::{KernelArg, LaunchConfig, describe_param};
pub use memory::{Buffer, DeviceBuffer};
pub use module::{Kernel, Module};
pub use ptxvk_translator as translator;
pub(crate) use ptxvk_translator::types::TypeKind;
