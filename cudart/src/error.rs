//! The runtime's error codes (`cudaError_t`), their names and descriptions, the calling
//! thread's last error, and the mapping from the driver's `CUresult`.

use std::cell::Cell;
use std::ffi::{CStr, c_char};

pub type CudaError = i32;

pub const SUCCESS: CudaError = 0;
pub const INVALID_VALUE: CudaError = 1;
pub const MEMORY_ALLOCATION: CudaError = 2;
pub const INITIALIZATION_ERROR: CudaError = 3;
pub const INVALID_CONFIGURATION: CudaError = 9;
pub const INVALID_SYMBOL: CudaError = 13;
pub const INVALID_DEVICE_FUNCTION: CudaError = 98;
pub const NO_DEVICE: CudaError = 100;
pub const INVALID_DEVICE: CudaError = 101;
pub const INSUFFICIENT_DRIVER: CudaError = 35;
pub const NOT_SUPPORTED: CudaError = 801;
pub const UNKNOWN: CudaError = 999;

/// A failed call: the code the runtime returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error(pub CudaError);

pub type Result<T> = std::result::Result<T, Error>;

thread_local! {
    static LAST: Cell<CudaError> = const { Cell::new(SUCCESS) };
}

/// Records a failure as the thread's last error, as every runtime call does.
pub fn record(code: CudaError) {
    if code != SUCCESS {
        LAST.with(|l| l.set(code));
    }
}

/// `cudaGetLastError` (`reset`) or `cudaPeekAtLastError`.
pub fn last(reset: bool) -> CudaError {
    LAST.with(|l| if reset { l.replace(SUCCESS) } else { l.get() })
}

/// The driver's codes equal the runtime's where both name the same failure (CUDA numbers them
/// so since 10.0); a driver code the runtime does not know is cudaErrorUnknown.
pub fn from_driver(code: i32) -> CudaError {
    if name(code).is_some() { code } else { UNKNOWN }
}

/// The enumerator's name for a code of enum cudaError (driver_types.h of CUDA 13, a superset
/// of 12's).
pub fn name(code: CudaError) -> Option<&'static CStr> {
    NAMES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// A short description of a code, as `cudaGetErrorString` gives it.
pub fn description(code: CudaError) -> &'static CStr {
    match code {
        SUCCESS => c"no error",
        INVALID_VALUE => c"invalid argument",
        MEMORY_ALLOCATION => c"out of memory",
        INITIALIZATION_ERROR => c"initialization error",
        INVALID_CONFIGURATION => c"invalid configuration argument",
        INVALID_SYMBOL => c"invalid device symbol",
        INSUFFICIENT_DRIVER => c"CUDA driver version is insufficient for CUDA runtime version",
        INVALID_DEVICE_FUNCTION => c"invalid device function",
        NO_DEVICE => c"no CUDA-capable device is detected",
        INVALID_DEVICE => c"invalid device ordinal",
        200 => c"device kernel image is invalid",
        209 => c"no kernel image is available for execution on the device (ptxvk runs the PTX a fatbinary holds)",
        400 => c"invalid resource handle",
        500 => c"named symbol not found",
        600 => c"device not ready",
        700 => c"an illegal memory access was encountered",
        701 => c"too many resources requested for launch",
        719 => c"unspecified launch failure",
        NOT_SUPPORTED => c"operation not supported",
        _ => name(code).unwrap_or(c"unrecognized error code"),
    }
}

pub fn as_ptr(s: &'static CStr) -> *const c_char {
    s.as_ptr()
}

/// Every enumerator of enum cudaError: (value, name). `tests/symbols.rs` compares the table
/// with NVIDIA's driver_types.h.
pub static NAMES: &[(CudaError, &CStr)] = &[
    (0, c"cudaSuccess"),
    (1, c"cudaErrorInvalidValue"),
    (2, c"cudaErrorMemoryAllocation"),
    (3, c"cudaErrorInitializationError"),
    (4, c"cudaErrorCudartUnloading"),
    (5, c"cudaErrorProfilerDisabled"),
    (6, c"cudaErrorProfilerNotInitialized"),
    (7, c"cudaErrorProfilerAlreadyStarted"),
    (8, c"cudaErrorProfilerAlreadyStopped"),
    (9, c"cudaErrorInvalidConfiguration"),
    (10, c"cudaErrorVersionTranslation"),
    (12, c"cudaErrorInvalidPitchValue"),
    (13, c"cudaErrorInvalidSymbol"),
    (16, c"cudaErrorInvalidHostPointer"),
    (17, c"cudaErrorInvalidDevicePointer"),
    (18, c"cudaErrorInvalidTexture"),
    (19, c"cudaErrorInvalidTextureBinding"),
    (20, c"cudaErrorInvalidChannelDescriptor"),
    (21, c"cudaErrorInvalidMemcpyDirection"),
    (22, c"cudaErrorAddressOfConstant"),
    (23, c"cudaErrorTextureFetchFailed"),
    (24, c"cudaErrorTextureNotBound"),
    (25, c"cudaErrorSynchronizationError"),
    (26, c"cudaErrorInvalidFilterSetting"),
    (27, c"cudaErrorInvalidNormSetting"),
    (28, c"cudaErrorMixedDeviceExecution"),
    (31, c"cudaErrorNotYetImplemented"),
    (32, c"cudaErrorMemoryValueTooLarge"),
    (34, c"cudaErrorStubLibrary"),
    (35, c"cudaErrorInsufficientDriver"),
    (36, c"cudaErrorCallRequiresNewerDriver"),
    (37, c"cudaErrorInvalidSurface"),
    (43, c"cudaErrorDuplicateVariableName"),
    (44, c"cudaErrorDuplicateTextureName"),
    (45, c"cudaErrorDuplicateSurfaceName"),
    (46, c"cudaErrorDevicesUnavailable"),
    (49, c"cudaErrorIncompatibleDriverContext"),
    (52, c"cudaErrorMissingConfiguration"),
    (53, c"cudaErrorPriorLaunchFailure"),
    (65, c"cudaErrorLaunchMaxDepthExceeded"),
    (66, c"cudaErrorLaunchFileScopedTex"),
    (67, c"cudaErrorLaunchFileScopedSurf"),
    (68, c"cudaErrorSyncDepthExceeded"),
    (69, c"cudaErrorLaunchPendingCountExceeded"),
    (98, c"cudaErrorInvalidDeviceFunction"),
    (100, c"cudaErrorNoDevice"),
    (101, c"cudaErrorInvalidDevice"),
    (102, c"cudaErrorDeviceNotLicensed"),
    (103, c"cudaErrorSoftwareValidityNotEstablished"),
    (127, c"cudaErrorStartupFailure"),
    (200, c"cudaErrorInvalidKernelImage"),
    (201, c"cudaErrorDeviceUninitialized"),
    (205, c"cudaErrorMapBufferObjectFailed"),
    (206, c"cudaErrorUnmapBufferObjectFailed"),
    (207, c"cudaErrorArrayIsMapped"),
    (208, c"cudaErrorAlreadyMapped"),
    (209, c"cudaErrorNoKernelImageForDevice"),
    (210, c"cudaErrorAlreadyAcquired"),
    (211, c"cudaErrorNotMapped"),
    (212, c"cudaErrorNotMappedAsArray"),
    (213, c"cudaErrorNotMappedAsPointer"),
    (214, c"cudaErrorECCUncorrectable"),
    (215, c"cudaErrorUnsupportedLimit"),
    (216, c"cudaErrorDeviceAlreadyInUse"),
    (217, c"cudaErrorPeerAccessUnsupported"),
    (218, c"cudaErrorInvalidPtx"),
    (219, c"cudaErrorInvalidGraphicsContext"),
    (220, c"cudaErrorNvlinkUncorrectable"),
    (221, c"cudaErrorJitCompilerNotFound"),
    (222, c"cudaErrorUnsupportedPtxVersion"),
    (223, c"cudaErrorJitCompilationDisabled"),
    (224, c"cudaErrorUnsupportedExecAffinity"),
    (225, c"cudaErrorUnsupportedDevSideSync"),
    (226, c"cudaErrorContained"),
    (227, c"cudaErrorInsufficientLoaderVersion"),
    (300, c"cudaErrorInvalidSource"),
    (301, c"cudaErrorFileNotFound"),
    (302, c"cudaErrorSharedObjectSymbolNotFound"),
    (303, c"cudaErrorSharedObjectInitFailed"),
    (304, c"cudaErrorOperatingSystem"),
    (400, c"cudaErrorInvalidResourceHandle"),
    (401, c"cudaErrorIllegalState"),
    (402, c"cudaErrorLossyQuery"),
    (500, c"cudaErrorSymbolNotFound"),
    (600, c"cudaErrorNotReady"),
    (700, c"cudaErrorIllegalAddress"),
    (701, c"cudaErrorLaunchOutOfResources"),
    (702, c"cudaErrorLaunchTimeout"),
    (703, c"cudaErrorLaunchIncompatibleTexturing"),
    (704, c"cudaErrorPeerAccessAlreadyEnabled"),
    (705, c"cudaErrorPeerAccessNotEnabled"),
    (708, c"cudaErrorSetOnActiveProcess"),
    (709, c"cudaErrorContextIsDestroyed"),
    (710, c"cudaErrorAssert"),
    (711, c"cudaErrorTooManyPeers"),
    (712, c"cudaErrorHostMemoryAlreadyRegistered"),
    (713, c"cudaErrorHostMemoryNotRegistered"),
    (714, c"cudaErrorHardwareStackError"),
    (715, c"cudaErrorIllegalInstruction"),
    (716, c"cudaErrorMisalignedAddress"),
    (717, c"cudaErrorInvalidAddressSpace"),
    (718, c"cudaErrorInvalidPc"),
    (719, c"cudaErrorLaunchFailure"),
    (720, c"cudaErrorCooperativeLaunchTooLarge"),
    (721, c"cudaErrorTensorMemoryLeak"),
    (800, c"cudaErrorNotPermitted"),
    (801, c"cudaErrorNotSupported"),
    (802, c"cudaErrorSystemNotReady"),
    (803, c"cudaErrorSystemDriverMismatch"),
    (804, c"cudaErrorCompatNotSupportedOnDevice"),
    (805, c"cudaErrorMpsConnectionFailed"),
    (806, c"cudaErrorMpsRpcFailure"),
    (807, c"cudaErrorMpsServerNotReady"),
    (808, c"cudaErrorMpsMaxClientsReached"),
    (809, c"cudaErrorMpsMaxConnectionsReached"),
    (810, c"cudaErrorMpsClientTerminated"),
    (811, c"cudaErrorCdpNotSupported"),
    (812, c"cudaErrorCdpVersionMismatch"),
    (900, c"cudaErrorStreamCaptureUnsupported"),
    (901, c"cudaErrorStreamCaptureInvalidated"),
    (902, c"cudaErrorStreamCaptureMerge"),
    (903, c"cudaErrorStreamCaptureUnmatched"),
    (904, c"cudaErrorStreamCaptureUnjoined"),
    (905, c"cudaErrorStreamCaptureIsolation"),
    (906, c"cudaErrorStreamCaptureImplicit"),
    (907, c"cudaErrorCapturedEvent"),
    (908, c"cudaErrorStreamCaptureWrongThread"),
    (909, c"cudaErrorTimeout"),
    (910, c"cudaErrorGraphExecUpdateFailure"),
    (911, c"cudaErrorExternalDevice"),
    (912, c"cudaErrorInvalidClusterSize"),
    (913, c"cudaErrorFunctionNotLoaded"),
    (914, c"cudaErrorInvalidResourceType"),
    (915, c"cudaErrorInvalidResourceConfiguration"),
    (917, c"cudaErrorStreamDetached"),
    (918, c"cudaErrorGraphRecaptureFailure"),
    (919, c"cudaErrorFabricNotReady"),
    (999, c"cudaErrorUnknown"),
    (10000, c"cudaErrorApiFailureBase"),
];
