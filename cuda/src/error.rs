//! Typed errors inside the library, mapped to NVIDIA's `CUresult` codes at the C edge.

use crate::error_names::NAMES;

/// `CUresult`.
pub type CUresult = u32;

pub const CUDA_SUCCESS: CUresult = 0;
pub const CUDA_ERROR_INVALID_VALUE: CUresult = 1;
pub const CUDA_ERROR_OUT_OF_MEMORY: CUresult = 2;
pub const CUDA_ERROR_NOT_INITIALIZED: CUresult = 3;
pub const CUDA_ERROR_NO_DEVICE: CUresult = 100;
pub const CUDA_ERROR_INVALID_DEVICE: CUresult = 101;
pub const CUDA_ERROR_INVALID_IMAGE: CUresult = 200;
pub const CUDA_ERROR_NO_BINARY_FOR_GPU: CUresult = 209;
pub const CUDA_ERROR_INVALID_CONTEXT: CUresult = 201;
pub const CUDA_ERROR_UNSUPPORTED_LIMIT: CUresult = 215;
pub const CUDA_ERROR_INVALID_PTX: CUresult = 218;
pub const CUDA_ERROR_FILE_NOT_FOUND: CUresult = 301;
pub const CUDA_ERROR_INVALID_HANDLE: CUresult = 400;
pub const CUDA_ERROR_NOT_FOUND: CUresult = 500;
pub const CUDA_ERROR_NOT_READY: CUresult = 600;
pub const CUDA_ERROR_ILLEGAL_ADDRESS: CUresult = 700;
pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: CUresult = 701;
pub const CUDA_ERROR_LAUNCH_TIMEOUT: CUresult = 702;
pub const CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: CUresult = 708;
pub const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: CUresult = 712;
pub const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: CUresult = 713;
pub const CUDA_ERROR_LAUNCH_FAILED: CUresult = 719;
pub const CUDA_ERROR_NOT_SUPPORTED: CUresult = 801;
pub const CUDA_ERROR_UNKNOWN: CUresult = 999;

/// What a call can fail with. Each variant is one CUDA code; the message is what the debug log
/// shows (CUDA itself only returns the code).
#[derive(Debug, thiserror::Error)]
pub enum CuError {
    #[error("cuInit has not been called")]
    NotInitialized,
    #[error("invalid value: {0}")]
    InvalidValue(String),
    #[error("out of memory: {0}")]
    OutOfMemory(String),
    #[error("no usable Vulkan device")]
    NoDevice,
    #[error("invalid device ordinal {0}")]
    InvalidDevice(i32),
    #[error("no current context")]
    InvalidContext,
    #[error("invalid {0} handle")]
    InvalidHandle(&'static str),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("not ready")]
    NotReady,
    #[error("invalid PTX: {0}")]
    InvalidPtx(String),
    #[error("invalid image: {0}")]
    InvalidImage(String),
    #[error("no binary for the device: {0}")]
    NoBinaryForGpu(String),
    #[error("file not found: {0}")]
    FileNotFound(String),
    #[error("unsupported limit {0}")]
    UnsupportedLimit(u32),
    #[error("host memory already registered")]
    HostMemoryAlreadyRegistered,
    #[error("host memory not registered")]
    HostMemoryNotRegistered,
    #[error("primary context already active")]
    PrimaryContextActive,
    #[error("launch out of resources: {0}")]
    LaunchOutOfResources(String),
    #[error("illegal address: {0}")]
    IllegalAddress(String),
    #[error("launch failed: {0}")]
    LaunchFailed(String),
    #[error("launch timed out: {0}")]
    LaunchTimeout(String),
    #[error("not supported: {0}")]
    NotSupported(String),
    #[error("{0}")]
    Unknown(String),
    /// An earlier kernel fault, which every later call in the context reports (`code` is
    /// CUDA_ERROR_ILLEGAL_ADDRESS or CUDA_ERROR_LAUNCH_FAILED).
    #[error("the context is unusable after an earlier error: {message}")]
    Sticky { code: CUresult, message: String },
}

pub type CuResult<T> = std::result::Result<T, CuError>;

impl CuError {
    /// The `CUresult` CUDA returns for this failure.
    pub fn code(&self) -> CUresult {
        match self {
            CuError::NotInitialized => CUDA_ERROR_NOT_INITIALIZED,
            CuError::InvalidValue(_) => CUDA_ERROR_INVALID_VALUE,
            CuError::OutOfMemory(_) => CUDA_ERROR_OUT_OF_MEMORY,
            CuError::NoDevice => CUDA_ERROR_NO_DEVICE,
            CuError::InvalidDevice(_) => CUDA_ERROR_INVALID_DEVICE,
            CuError::InvalidContext => CUDA_ERROR_INVALID_CONTEXT,
            CuError::InvalidHandle(_) => CUDA_ERROR_INVALID_HANDLE,
            CuError::NotFound(_) => CUDA_ERROR_NOT_FOUND,
            CuError::NotReady => CUDA_ERROR_NOT_READY,
            CuError::InvalidPtx(_) => CUDA_ERROR_INVALID_PTX,
            CuError::InvalidImage(_) => CUDA_ERROR_INVALID_IMAGE,
            CuError::NoBinaryForGpu(_) => CUDA_ERROR_NO_BINARY_FOR_GPU,
            CuError::FileNotFound(_) => CUDA_ERROR_FILE_NOT_FOUND,
            CuError::UnsupportedLimit(_) => CUDA_ERROR_UNSUPPORTED_LIMIT,
            CuError::PrimaryContextActive => CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,
            CuError::HostMemoryAlreadyRegistered => CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
            CuError::HostMemoryNotRegistered => CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
            CuError::LaunchOutOfResources(_) => CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            CuError::IllegalAddress(_) => CUDA_ERROR_ILLEGAL_ADDRESS,
            CuError::LaunchFailed(_) => CUDA_ERROR_LAUNCH_FAILED,
            CuError::LaunchTimeout(_) => CUDA_ERROR_LAUNCH_TIMEOUT,
            CuError::NotSupported(_) => CUDA_ERROR_NOT_SUPPORTED,
            CuError::Unknown(_) => CUDA_ERROR_UNKNOWN,
            CuError::Sticky { code, .. } => *code,
        }
    }

    /// Whether CUDA makes this error sticky: a kernel that faulted leaves its context unusable.
    pub fn is_sticky(&self) -> bool {
        matches!(
            self,
            CuError::IllegalAddress(_) | CuError::LaunchFailed(_) | CuError::Sticky { .. }
        )
    }

    pub fn invalid(what: impl Into<String>) -> CuError {
        CuError::InvalidValue(what.into())
    }
}

impl From<crate::fatbin::FatbinError> for CuError {
    fn from(e: crate::fatbin::FatbinError) -> CuError {
        CuError::InvalidImage(e.to_string())
    }
}

impl From<ptxvk_runtime::Error> for CuError {
    fn from(e: ptxvk_runtime::Error) -> CuError {
        use ptxvk_runtime::Error as E;
        let msg = e.to_string();
        match e {
            E::LoaderMissing { .. } | E::NoDevice | E::DeviceUnsuitable { .. } => CuError::NoDevice,
            E::DeviceNotFound { .. } => CuError::NoDevice,
            E::OutOfDeviceMemory { .. } | E::Allocation(_) => CuError::OutOfMemory(msg),
            E::Translate(_) => CuError::InvalidPtx(msg),
            E::DeviceLacks { .. } | E::Unsupported { .. } | E::HostImportUnsupported(_) => {
                CuError::NotSupported(msg)
            }
            E::KernelNotFound { .. } | E::GlobalNotFound { .. } => CuError::NotFound(msg),
            E::InvalidArgument(_)
            | E::ArgCount { .. }
            | E::ArgType { .. }
            | E::BufferTooSmall { .. } => CuError::InvalidValue(msg),
            // CUDA reports a launch the device cannot hold (too much shared memory, too many
            // threads for the kernel) as out of resources; the dimension checks against the
            // device's limits happen before the runtime is asked (`launch.rs`).
            E::InvalidLaunch { .. } => CuError::LaunchOutOfResources(msg),
            E::Timeout { .. } => CuError::LaunchTimeout(msg),
            // The memory checker reports a wild access, which CUDA's reports as an illegal
            // address; a `trap` is a failed launch.
            E::KernelFailed { ref reason, .. } if reason.contains("out-of-bounds") => {
                CuError::IllegalAddress(msg)
            }
            E::KernelFailed { .. } | E::DeviceLost => CuError::LaunchFailed(msg),
            _ => CuError::Unknown(msg),
        }
    }
}

/// The enumerator name of a code (`cuGetErrorName`).
pub fn name(code: CUresult) -> Option<&'static str> {
    NAMES.iter().find(|(v, _)| *v == code).map(|(_, n)| *n)
}

type Strings = Vec<(u32, std::ffi::CString, std::ffi::CString)>;

/// NUL-terminated name and description of every code, built once and kept for the process: the
/// C API hands out pointers that never expire.
fn strings() -> &'static Strings {
    static TABLE: std::sync::OnceLock<Strings> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        NAMES
            .iter()
            .filter_map(|&(v, n)| {
                // "CUDA_ERROR_INVALID_VALUE" reads as "invalid value".
                let words = match v {
                    CUDA_SUCCESS => "no error".to_string(),
                    _ => n
                        .trim_start_matches("CUDA_ERROR_")
                        .replace('_', " ")
                        .to_lowercase(),
                };
                Some((
                    v,
                    std::ffi::CString::new(n).ok()?,
                    std::ffi::CString::new(words).ok()?,
                ))
            })
            .collect()
    })
}

/// `cuGetErrorName`.
pub fn c_name(code: CUresult) -> Option<&'static std::ffi::CStr> {
    let (_, n, _) = strings().iter().find(|(v, _, _)| *v == code)?;
    Some(n.as_c_str())
}

/// `cuGetErrorString`.
pub fn c_description(code: CUresult) -> Option<&'static std::ffi::CStr> {
    let (_, _, d) = strings().iter().find(|(v, _, _)| *v == code)?;
    Some(d.as_c_str())
}
