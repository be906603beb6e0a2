//! The runtime's error type.

use ash::vk;
use ptxvk_translator::Diagnostics;

/// Everything that can go wrong in the runtime, with enough detail to act on.
#[derive(Debug, thiserror::Error)]
#[allow(missing_docs)] // each variant's message says what it means
pub enum Error {
    #[error(
        "the Vulkan loader (libvulkan) could not be loaded: {detail}\n{}",
        install_hint()
    )]
    LoaderMissing { detail: String },
    #[error(
        "no Vulkan device found (is a Vulkan driver installed?)\n{}",
        install_hint()
    )]
    NoDevice,
    #[error("no Vulkan device matches `{selector}`; devices: {available}")]
    DeviceNotFound { selector: String, available: String },
    #[error("device `{device}` cannot run ptxvk kernels: it lacks {missing}")]
    DeviceUnsuitable { device: String, missing: String },
    #[error("Vulkan call {call} failed: {result}")]
    Vulkan {
        call: &'static str,
        result: vk::Result,
    },
    #[error("out of device memory allocating {bytes} bytes")]
    OutOfDeviceMemory { bytes: u64 },
    #[error("memory allocation failed: {0}")]
    Allocation(String),
    #[error("{0}")]
    Translate(Diagnostics),
    #[error("kernel `{kernel}` cannot run on this device: it needs {}\n{diagnostics}", features.join(", "))]
    DeviceLacks {
        kernel: String,
        features: Vec<String>,
        diagnostics: Diagnostics,
    },
    #[error("not supported: {what}")]
    Unsupported { what: String },
    #[error("host memory cannot be imported as device memory here: {0}")]
    HostImportUnsupported(String),
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    #[error("no kernel named `{name}`; the module has: {available}")]
    KernelNotFound { name: String, available: String },
    #[error("internal error: the SPIR-V of kernel `{kernel}` is invalid: {message}")]
    InvalidSpirv { kernel: String, message: String },
    #[error("the module has no .global or .const variable named `{name}`")]
    GlobalNotFound { name: String },
    #[error("kernel `{kernel}` takes {expected} argument(s), {got} given")]
    ArgCount {
        kernel: String,
        expected: usize,
        got: usize,
    },
    #[error("argument {index} of kernel `{kernel}` (`{param}`: {expected}) cannot take {got}")]
    ArgType {
        kernel: String,
        index: usize,
        param: String,
        expected: String,
        got: String,
    },
    #[error("invalid launch of `{kernel}`: {reason}")]
    InvalidLaunch { kernel: String, reason: String },
    #[error("{what}: buffer holds {have} bytes, {need} needed")]
    BufferTooSmall { what: String, have: u64, need: u64 },
    /// `millis` is all the wait took: the hang timeout, plus `compile_allowance_ms` where the
    /// work held pipelines' first dispatches (which some drivers compile then).
    #[error(
        "the device did not finish {what} within {millis} ms{}",
        timeout_hint(.compile_allowance_ms)
    )]
    Timeout {
        what: String,
        millis: u64,
        compile_allowance_ms: u64,
    },
    #[error("the device was lost (a kernel faulted, hung or was stopped); create a new context")]
    DeviceLost,
    /// A kernel stopped itself (its launch status word, `ptxvk_translator::abi`).
    #[error("kernel `{kernel}` failed: {reason}")]
    KernelFailed {
        /// The kernel's name.
        kernel: String,
        /// What its status word says.
        reason: String,
    },
    #[error("Vulkan validation layer reported:\n{}", .0.join("\n"))]
    Validation(Vec<String>),
    #[error(
        "the Khronos validation layer was required (PTXVK_VALIDATION=required) but is not installed\n  install it with: apt-get install vulkan-validationlayers"
    )]
    ValidationLayerMissing,
}

/// The end of a timeout's message: what the wait was made of, and what to set to wait longer.
fn timeout_hint(compile_allowance_ms: &u64) -> String {
    match compile_allowance_ms {
        0 => " (set PTXVK_TIMEOUT_MS to wait longer)".into(),
        ms => format!(
            ", {ms} ms of it allowed for compiling kernels launched for the first time \
             (set PTXVK_TIMEOUT_MS or PTXVK_COMPILE_TIMEOUT_MS to wait longer)"
        ),
    }
}

/// How to install what is missing, for the platform we run on.
pub fn install_hint() -> &'static str {
    if cfg!(target_os = "linux") {
        "  on Debian/Ubuntu: apt-get install libvulkan1 mesa-vulkan-drivers (lavapipe runs kernels on the CPU)\n  on Fedora: dnf install vulkan-loader mesa-vulkan-drivers"
    } else if cfg!(target_os = "macos") {
        "  install MoltenVK and the Vulkan loader: brew install molten-vk vulkan-loader"
    } else {
        "  install your GPU vendor's driver (it ships the Vulkan loader), or the LunarG Vulkan SDK"
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Converts a `vk::Result` error from `call` into [`Error`].
pub(crate) fn vk_err(call: &'static str) -> impl Fn(vk::Result) -> Error {
    move |result| match result {
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => Error::OutOfDeviceMemory { bytes: 0 },
        _ => Error::Vulkan { call, result },
    }
}
