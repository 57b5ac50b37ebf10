//! The driver's return codes as error enums: one mapping function per API.

/// A failed NVML call: every `nvmlReturn_t` other than `NVML_SUCCESS`.
///
/// ```
/// use markerspec_gpu::cuda::{NvmlError, nvml_try};
///
/// assert_eq!(nvml_try(0), Ok(()));
/// assert_eq!(nvml_try(9), Err(NvmlError::DriverNotLoaded));
/// assert_eq!(NvmlError::DriverNotLoaded.code(), 9);
/// assert_eq!(nvml_try(12345), Err(NvmlError::Unexpected(12345)));
/// assert_eq!(NvmlError::Unexpected(12345).code(), 12345);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is the NVML constant its message names
pub enum NvmlError {
    #[error("NVML was not initialized (NVML_ERROR_UNINITIALIZED)")]
    Uninitialized,
    #[error("invalid argument (NVML_ERROR_INVALID_ARGUMENT)")]
    InvalidArgument,
    #[error("not supported by this device (NVML_ERROR_NOT_SUPPORTED)")]
    NotSupported,
    #[error("no permission (NVML_ERROR_NO_PERMISSION)")]
    NoPermission,
    #[error("already initialized (NVML_ERROR_ALREADY_INITIALIZED)")]
    AlreadyInitialized,
    #[error("not found (NVML_ERROR_NOT_FOUND)")]
    NotFound,
    #[error("buffer too small (NVML_ERROR_INSUFFICIENT_SIZE)")]
    InsufficientSize,
    #[error("insufficient external power (NVML_ERROR_INSUFFICIENT_POWER)")]
    InsufficientPower,
    #[error("the NVIDIA driver is not loaded (NVML_ERROR_DRIVER_NOT_LOADED)")]
    DriverNotLoaded,
    #[error("timed out (NVML_ERROR_TIMEOUT)")]
    Timeout,
    #[error("interrupt request issue (NVML_ERROR_IRQ_ISSUE)")]
    IrqIssue,
    #[error("a library NVML needs was not found (NVML_ERROR_LIBRARY_NOT_FOUND)")]
    LibraryNotFound,
    #[error("function not found in this NVML (NVML_ERROR_FUNCTION_NOT_FOUND)")]
    FunctionNotFound,
    #[error("corrupted inforom (NVML_ERROR_CORRUPTED_INFOROM)")]
    CorruptedInforom,
    #[error("the GPU has fallen off the bus (NVML_ERROR_GPU_IS_LOST)")]
    GpuIsLost,
    #[error("the GPU needs a reset (NVML_ERROR_RESET_REQUIRED)")]
    ResetRequired,
    #[error("the operating system blocked the call (NVML_ERROR_OPERATING_SYSTEM)")]
    OperatingSystem,
    #[error("NVML and the kernel driver versions differ (NVML_ERROR_LIB_RM_VERSION_MISMATCH)")]
    LibRmVersionMismatch,
    #[error("the GPU is in use (NVML_ERROR_IN_USE)")]
    InUse,
    #[error("out of memory (NVML_ERROR_MEMORY)")]
    Memory,
    #[error("no data (NVML_ERROR_NO_DATA)")]
    NoData,
    #[error("ECC not supported on vGPU (NVML_ERROR_VGPU_ECC_NOT_SUPPORTED)")]
    VgpuEccNotSupported,
    #[error("insufficient resources (NVML_ERROR_INSUFFICIENT_RESOURCES)")]
    InsufficientResources,
    #[error("frequency not supported (NVML_ERROR_FREQ_NOT_SUPPORTED)")]
    FreqNotSupported,
    #[error("argument version mismatch (NVML_ERROR_ARGUMENT_VERSION_MISMATCH)")]
    ArgumentVersionMismatch,
    #[error("deprecated (NVML_ERROR_DEPRECATED)")]
    Deprecated,
    #[error("not ready (NVML_ERROR_NOT_READY)")]
    NotReady,
    #[error("GPU not found (NVML_ERROR_GPU_NOT_FOUND)")]
    GpuNotFound,
    #[error("invalid state (NVML_ERROR_INVALID_STATE)")]
    InvalidState,
    #[error("unknown error (NVML_ERROR_UNKNOWN)")]
    Unknown,
    /// A code this crate does not know.
    #[error("unexpected NVML return code {0}")]
    Unexpected(i32),
}

/// `(nvmlReturn_t, error)` for every code with its own variant.
const NVML_CODES: [(i32, NvmlError); 30] = {
    use NvmlError::*;
    [
        (1, Uninitialized),
        (2, InvalidArgument),
        (3, NotSupported),
        (4, NoPermission),
        (5, AlreadyInitialized),
        (6, NotFound),
        (7, InsufficientSize),
        (8, InsufficientPower),
        (9, DriverNotLoaded),
        (10, Timeout),
        (11, IrqIssue),
        (12, LibraryNotFound),
        (13, FunctionNotFound),
        (14, CorruptedInforom),
        (15, GpuIsLost),
        (16, ResetRequired),
        (17, OperatingSystem),
        (18, LibRmVersionMismatch),
        (19, InUse),
        (20, Memory),
        (21, NoData),
        (22, VgpuEccNotSupported),
        (23, InsufficientResources),
        (24, FreqNotSupported),
        (25, ArgumentVersionMismatch),
        (26, Deprecated),
        (27, NotReady),
        (28, GpuNotFound),
        (29, InvalidState),
        (999, Unknown),
    ]
};

/// Maps an `nvmlReturn_t` to `Ok(())` (`NVML_SUCCESS`) or the matching [`NvmlError`]; codes this
/// crate does not know become [`NvmlError::Unexpected`].
///
/// # Errors
///
/// Every code except 0.
pub fn nvml_try(code: i32) -> Result<(), NvmlError> {
    if code == 0 {
        return Ok(());
    }
    Err(NVML_CODES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(NvmlError::Unexpected(code), |(_, e)| *e))
}

/// A failed CUDA driver API call: every `CUresult` other than `CUDA_SUCCESS`.
///
/// The codes that matter for detection have their own variant; every other one is
/// [`CudaError::Unexpected`] with the raw number, which `cuda.h` names.
///
/// ```
/// use markerspec_gpu::cuda::{CudaError, cuda_try};
///
/// assert_eq!(cuda_try(0), Ok(()));
/// assert_eq!(cuda_try(100), Err(CudaError::NoDevice));
/// assert_eq!(CudaError::NoDevice.code(), 100);
/// assert_eq!(cuda_try(-7), Err(CudaError::Unexpected(-7)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is the CUDA constant its message names
pub enum CudaError {
    #[error("invalid value (CUDA_ERROR_INVALID_VALUE)")]
    InvalidValue,
    #[error("out of memory (CUDA_ERROR_OUT_OF_MEMORY)")]
    OutOfMemory,
    #[error("the driver was not initialized (CUDA_ERROR_NOT_INITIALIZED)")]
    NotInitialized,
    #[error("the driver is shutting down (CUDA_ERROR_DEINITIALIZED)")]
    Deinitialized,
    #[error("this is the toolkit's stub library, not a driver (CUDA_ERROR_STUB_LIBRARY)")]
    StubLibrary,
    #[error("the driver is older than the runtime needs (CUDA_ERROR_INSUFFICIENT_DRIVER)")]
    InsufficientDriver,
    #[error("the device is unavailable (CUDA_ERROR_DEVICE_UNAVAILABLE)")]
    DeviceUnavailable,
    #[error("no CUDA-capable device (CUDA_ERROR_NO_DEVICE)")]
    NoDevice,
    #[error("invalid device ordinal (CUDA_ERROR_INVALID_DEVICE)")]
    InvalidDevice,
    #[error("device not licensed (CUDA_ERROR_DEVICE_NOT_LICENSED)")]
    DeviceNotLicensed,
    #[error("the operating system blocked the call (CUDA_ERROR_OPERATING_SYSTEM)")]
    OperatingSystem,
    #[error("invalid handle (CUDA_ERROR_INVALID_HANDLE)")]
    InvalidHandle,
    #[error("not found (CUDA_ERROR_NOT_FOUND)")]
    NotFound,
    #[error("not permitted (CUDA_ERROR_NOT_PERMITTED)")]
    NotPermitted,
    #[error("not supported (CUDA_ERROR_NOT_SUPPORTED)")]
    NotSupported,
    #[error("the system is not ready (CUDA_ERROR_SYSTEM_NOT_READY)")]
    SystemNotReady,
    #[error("the driver and kernel module versions differ (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)")]
    SystemDriverMismatch,
    #[error(
        "forward compatibility is not supported on this device (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)"
    )]
    CompatNotSupportedOnDevice,
    #[error("unknown error (CUDA_ERROR_UNKNOWN)")]
    Unknown,
    /// Any other code.
    #[error("unexpected CUresult {0}")]
    Unexpected(i32),
}

/// `(CUresult, error)` for every code with its own variant.
const CUDA_CODES: [(i32, CudaError); 19] = {
    use CudaError::*;
    [
        (1, InvalidValue),
        (2, OutOfMemory),
        (3, NotInitialized),
        (4, Deinitialized),
        (34, StubLibrary),
        (35, InsufficientDriver),
        (46, DeviceUnavailable),
        (100, NoDevice),
        (101, InvalidDevice),
        (102, DeviceNotLicensed),
        (304, OperatingSystem),
        (400, InvalidHandle),
        (500, NotFound),
        (800, NotPermitted),
        (801, NotSupported),
        (802, SystemNotReady),
        (803, SystemDriverMismatch),
        (804, CompatNotSupportedOnDevice),
        (999, Unknown),
    ]
};

/// Maps a `CUresult` to `Ok(())` (`CUDA_SUCCESS`) or the matching [`CudaError`]; codes without
/// their own variant become [`CudaError::Unexpected`].
///
/// # Errors
///
/// Every code except 0.
pub fn cuda_try(code: i32) -> Result<(), CudaError> {
    if code == 0 {
        return Ok(());
    }
    Err(CUDA_CODES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(CudaError::Unexpected(code), |(_, e)| *e))
}

impl NvmlError {
    /// The raw `nvmlReturn_t`.
    ///
    /// See the example on [`NvmlError`].
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            NvmlError::Unexpected(code) => code,
            known => NVML_CODES
                .iter()
                .find(|(_, e)| *e == known)
                .map_or(-1, |(c, _)| *c),
        }
    }
}

impl CudaError {
    /// The raw `CUresult`.
    ///
    /// See the example on [`CudaError`].
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            CudaError::Unexpected(code) => code,
            known => CUDA_CODES
                .iter()
                .find(|(_, e)| *e == known)
                .map_or(-1, |(c, _)| *c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nvml_code_round_trips() {
        assert_eq!(nvml_try(0), Ok(()));
        for code in (1..=40).chain([998, 999, 1000, -1]) {
            let err = nvml_try(code).unwrap_err();
            assert_eq!(err.code(), code, "{err}");
        }
        assert_eq!(nvml_try(9), Err(NvmlError::DriverNotLoaded));
        assert_eq!(nvml_try(30), Err(NvmlError::Unexpected(30)));
        assert!(
            nvml_try(18)
                .unwrap_err()
                .to_string()
                .contains("LIB_RM_VERSION_MISMATCH")
        );
    }

    #[test]
    fn every_cuda_code_round_trips() {
        assert_eq!(cuda_try(0), Ok(()));
        for code in (1..=1000).chain([-1, i32::MAX]) {
            let err = cuda_try(code).unwrap_err();
            assert_eq!(err.code(), code, "{err}");
        }
        assert_eq!(cuda_try(100), Err(CudaError::NoDevice));
        assert_eq!(cuda_try(200), Err(CudaError::Unexpected(200)));
    }
}
