//! The CUDA driver API source: `libcuda.so.1` / `nvcuda.dll`.

use std::ffi::{c_char, c_int, c_uint};

use super::Attempt;
use super::error::{CudaError, cuda_try};
use super::{CudaReport, CudaVersion, Device, DriverApi, Libraries, Source};
use crate::loader::{self, Loaded};
use crate::probe::ProbeConfig;

type CuResult = c_int;
type CuDevice = c_int;

/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR`.
const ATTRIBUTE_CC_MAJOR: c_int = 75;
/// `CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR`.
const ATTRIBUTE_CC_MINOR: c_int = 76;
const NAME_BUFFER: usize = 256;

/// `CUuuid`.
#[repr(C)]
#[derive(Default)]
struct Uuid {
    bytes: [u8; 16],
}

/// The driver API functions detection uses, with their `cuda.h` signatures.
struct Api {
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    driver_version: unsafe extern "C" fn(*mut c_int) -> CuResult,
    count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    attribute: unsafe extern "C" fn(*mut c_int, c_int, CuDevice) -> CuResult,
    name: unsafe extern "C" fn(*mut c_char, c_int, CuDevice) -> CuResult,
    total_memory: Option<unsafe extern "C" fn(*mut usize, CuDevice) -> CuResult>,
    uuid: Option<unsafe extern "C" fn(*mut Uuid, CuDevice) -> CuResult>,
}

impl Api {
    fn load(lib: &Loaded) -> Result<Self, &'static str> {
        // SAFETY (every `function` call below): each type is the C declaration in `cuda.h` of
        // the symbol named beside it.
        macro_rules! required {
            ($name:literal) => {
                unsafe { lib.function($name) }.ok_or($name)?
            };
        }
        Ok(Self {
            init: required!("cuInit"),
            driver_version: required!("cuDriverGetVersion"),
            count: required!("cuDeviceGetCount"),
            get: required!("cuDeviceGet"),
            attribute: required!("cuDeviceGetAttribute"),
            name: required!("cuDeviceGetName"),
            // SAFETY: as above.
            total_memory: unsafe { lib.function("cuDeviceTotalMem_v2") },
            // SAFETY: as above.
            uuid: unsafe { lib.function("cuDeviceGetUuid") },
        })
    }
}

/// Why libcuda could not be used: not there, or there and broken.
enum LoadFailure {
    NotPresent(String),
    Failed(String),
}

impl From<LoadFailure> for Attempt {
    fn from(failure: LoadFailure) -> Self {
        match failure {
            LoadFailure::NotPresent(note) => Attempt::NotPresent(note),
            LoadFailure::Failed(error) => Attempt::Failed(error),
        }
    }
}

fn load(cfg: &ProbeConfig) -> Result<(Loaded, Api), LoadFailure> {
    let candidates = loader::candidates(
        &loader::LIBCUDA,
        cfg.cuda_library.as_deref(),
        cfg.search_system,
    );
    let lib = loader::load_first(&candidates).map_err(|errors| {
        LoadFailure::NotPresent(loader::not_found_note("libcuda", &candidates, &errors))
    })?;
    let api = Api::load(&lib)
        .map_err(|symbol| LoadFailure::Failed(format!("libcuda: {} lacks `{symbol}`", lib.name)))?;
    Ok((lib, api))
}

/// Asks the driver API: `cuInit(0)`, the CUDA version, and every device's name, compute
/// capability (attributes 75 and 76), UUID and memory. The kernel driver's version is not part
/// of this API; [`super::probe`] fills it from `/proc/driver/nvidia/version`.
pub(crate) fn probe(cfg: &ProbeConfig) -> Attempt {
    let (lib, api) = match load(cfg) {
        Ok(loaded) => loaded,
        Err(failure) => return failure.into(),
    };
    // SAFETY: `cuInit` takes a flags word that must be 0.
    match cuda_try(unsafe { (api.init)(0) }) {
        Ok(()) => {}
        Err(error @ (CudaError::NoDevice | CudaError::StubLibrary)) => {
            return Attempt::NotPresent(format!("libcuda: cuInit: {error}"));
        }
        Err(error) => return Attempt::Failed(format!("libcuda: cuInit: {error}")),
    }
    match query(&api) {
        Ok(mut report) => {
            if let Some(note) = &lib.override_note {
                report.notes.insert(0, format!("libcuda: {note}"));
            }
            Attempt::Found(Box::new(report))
        }
        Err(error) => Attempt::Failed(format!("libcuda: {error}")),
    }
}

/// The CUDA version as SPEC §8.6 defines it, when another source listed the devices: load
/// libcuda, `cuInit(0)`, at least one device from `cuDeviceGetCount`, then `cuDriverGetVersion`.
#[doc(alias = "cuDriverGetVersion")]
pub(crate) fn driver_api(cfg: &ProbeConfig) -> DriverApi {
    let (_lib, api) = match load(cfg) {
        Ok(loaded) => loaded,
        Err(LoadFailure::NotPresent(note)) => return DriverApi::NotPresent { note },
        Err(LoadFailure::Failed(reason)) => return DriverApi::Failed { reason },
    };
    // SAFETY: `cuInit` takes a flags word that must be 0.
    match cuda_try(unsafe { (api.init)(0) }) {
        Ok(()) => {}
        Err(error @ (CudaError::NoDevice | CudaError::StubLibrary)) => {
            return DriverApi::NotPresent {
                note: format!("libcuda: cuInit: {error}"),
            };
        }
        Err(error) => {
            return DriverApi::Failed {
                reason: format!("libcuda: cuInit: {error}"),
            };
        }
    }
    let mut count: c_int = 0;
    // SAFETY: `count` is a valid `int` out-parameter; `cuInit` succeeded.
    if let Err(error) = cuda_try(unsafe { (api.count)(&mut count) }) {
        return DriverApi::Failed {
            reason: format!("libcuda: cuDeviceGetCount: {error}"),
        };
    }
    if count <= 0 {
        return DriverApi::NotPresent {
            note: "libcuda: cuDeviceGetCount: no device".to_owned(),
        };
    }
    match driver_version(&api) {
        Ok(version) => DriverApi::Version { version },
        Err(e) => DriverApi::Failed {
            reason: format!("libcuda: {e}"),
        },
    }
}

fn driver_version(api: &Api) -> Result<CudaVersion, String> {
    let mut raw: c_int = 0;
    // SAFETY: `raw` is a valid `int` out-parameter.
    cuda_try(unsafe { (api.driver_version)(&mut raw) })
        .map_err(|e| format!("cuDriverGetVersion: {e}"))?;
    CudaVersion::from_encoded(raw).map_err(|e| format!("cuDriverGetVersion: {e}"))
}

fn query(api: &Api) -> Result<CudaReport, String> {
    let mut notes = Vec::new();
    // Called after a successful `cuInit(0)`, as SPEC §8.6 requires.
    let mut driver_api = match driver_version(api) {
        Ok(version) => DriverApi::Version { version },
        Err(e) => {
            notes.push(format!("libcuda: {e}"));
            DriverApi::Failed {
                reason: format!("libcuda: {e}"),
            }
        }
    };

    let mut count: c_int = 0;
    // SAFETY: `count` is a valid `int` out-parameter; `cuInit` succeeded.
    cuda_try(unsafe { (api.count)(&mut count) }).map_err(|e| format!("cuDeviceGetCount: {e}"))?;

    let mut devices = Vec::new();
    for ordinal in 0..count.max(0) {
        let mut device: CuDevice = 0;
        // SAFETY: `device` is a valid out-parameter; `ordinal` is below the count.
        cuda_try(unsafe { (api.get)(&mut device, ordinal) })
            .map_err(|e| format!("cuDeviceGet({ordinal}): {e}"))?;
        let attribute = |attribute: c_int| {
            let mut value: c_int = 0;
            // SAFETY: `value` is a valid `int` out-parameter; `device` came from `cuDeviceGet`.
            cuda_try(unsafe { (api.attribute)(&mut value, attribute, device) })
                .map_err(|e| format!("cuDeviceGetAttribute({attribute}, {ordinal}): {e}"))
                .map(|()| value)
        };
        let (major, minor) = (
            attribute(ATTRIBUTE_CC_MAJOR)?,
            attribute(ATTRIBUTE_CC_MINOR)?,
        );
        let compute_capability = match (u32::try_from(major), u32::try_from(minor)) {
            (Ok(major @ 1..=99), Ok(minor @ 0..=99)) => (major, minor),
            _ => {
                return Err(format!(
                    "device {ordinal} has compute capability {major}.{minor}"
                ));
            }
        };

        let mut buffer: [c_char; NAME_BUFFER] = [0; NAME_BUFFER];
        // SAFETY: the buffer holds `NAME_BUFFER` chars, the length we pass.
        let name = match cuda_try(unsafe {
            (api.name)(buffer.as_mut_ptr(), NAME_BUFFER as c_int, device)
        }) {
            Ok(()) => loader::c_buffer_to_string(&buffer),
            Err(e) => {
                notes.push(format!("libcuda: cuDeviceGetName({ordinal}): {e}"));
                String::new()
            }
        };

        let memory_bytes = api.total_memory.and_then(|function| {
            let mut bytes: usize = 0;
            // SAFETY: `bytes` is a valid `size_t` out-parameter.
            let code = unsafe { function(&mut bytes, device) };
            cuda_try(code).ok().and_then(|()| u64::try_from(bytes).ok())
        });

        let uuid = api.uuid.and_then(|function| {
            let mut uuid = Uuid::default();
            // SAFETY: `uuid` is a valid `CUuuid` out-parameter.
            let code = unsafe { function(&mut uuid, device) };
            cuda_try(code).ok().map(|()| format_uuid(&uuid.bytes))
        });

        devices.push(Device {
            index: u32::try_from(ordinal).unwrap_or(u32::MAX),
            name,
            compute_capability,
            uuid,
            memory_bytes,
        });
    }

    if devices.is_empty() {
        driver_api = DriverApi::NotPresent {
            note: "libcuda: cuDeviceGetCount: no device".to_owned(),
        };
    }
    Ok(CudaReport {
        driver_version: None,
        driver_api,
        devices,
        libraries: Libraries::default(),
        source: Source::LibCuda,
        notes,
    })
}

/// NVML's spelling of a UUID: `GPU-` and the 16 bytes as 8-4-4-4-12 lowercase hex.
fn format_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_are_spelled_as_nvml_spells_them() {
        let bytes = [
            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
            0xcd, 0xef,
        ];
        assert_eq!(
            super::format_uuid(&bytes),
            "GPU-12345678-9abc-def0-0123-456789abcdef"
        );
    }
}
