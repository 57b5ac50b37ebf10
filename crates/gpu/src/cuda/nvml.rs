//! The NVML source: `libnvidia-ml.so.1` / `nvml.dll`.

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::ptr;

use super::error::{NvmlError, nvml_try};
use super::{Attempt, valid_driver_version};
use super::{CudaReport, CudaVersion, Device, DriverApi, Libraries, Source};
use crate::loader::{self, Loaded};
use crate::probe::ProbeConfig;

type DeviceHandle = *mut c_void;
type Ret = c_int;

/// `NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE`.
const DRIVER_VERSION_BUFFER: usize = 80;
/// `NVML_DEVICE_NAME_V2_BUFFER_SIZE`, also enough for `NVML_DEVICE_UUID_V2_BUFFER_SIZE`.
const NAME_BUFFER: usize = 96;

/// `nvmlMemory_t`.
#[repr(C)]
#[derive(Default)]
struct Memory {
    total: c_ulonglong,
    free: c_ulonglong,
    used: c_ulonglong,
}

/// The NVML functions detection uses, with their `nvml.h` signatures.
struct Api {
    init: unsafe extern "C" fn() -> Ret,
    shutdown: unsafe extern "C" fn() -> Ret,
    driver_version: unsafe extern "C" fn(*mut c_char, c_uint) -> Ret,
    cuda_version: Option<unsafe extern "C" fn(*mut c_int) -> Ret>,
    count: unsafe extern "C" fn(*mut c_uint) -> Ret,
    handle: unsafe extern "C" fn(c_uint, *mut DeviceHandle) -> Ret,
    compute_capability: unsafe extern "C" fn(DeviceHandle, *mut c_int, *mut c_int) -> Ret,
    name: unsafe extern "C" fn(DeviceHandle, *mut c_char, c_uint) -> Ret,
    uuid: Option<unsafe extern "C" fn(DeviceHandle, *mut c_char, c_uint) -> Ret>,
    memory: Option<unsafe extern "C" fn(DeviceHandle, *mut Memory) -> Ret>,
}

impl Api {
    /// Resolves every function, preferring the `_v2` entry points and falling back to the
    /// originals that older drivers export. `Err` names a required function that is missing.
    fn load(lib: &Loaded) -> Result<Self, &'static str> {
        // SAFETY (every `function` call below): each type is the C declaration in `nvml.h` of
        // the symbol named beside it; the `_v2` and original entry points share a signature.
        macro_rules! required {
            ($($name:literal),+) => {
                None$(.or_else(|| unsafe { lib.function($name) }))+
                    .ok_or([$($name),+][0])?
            };
        }
        macro_rules! optional {
            ($($name:literal),+) => {
                None$(.or_else(|| unsafe { lib.function($name) }))+
            };
        }
        Ok(Self {
            init: required!("nvmlInit_v2", "nvmlInit"),
            shutdown: required!("nvmlShutdown"),
            driver_version: required!("nvmlSystemGetDriverVersion"),
            cuda_version: optional!(
                "nvmlSystemGetCudaDriverVersion_v2",
                "nvmlSystemGetCudaDriverVersion"
            ),
            count: required!("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
            handle: required!(
                "nvmlDeviceGetHandleByIndex_v2",
                "nvmlDeviceGetHandleByIndex"
            ),
            compute_capability: required!("nvmlDeviceGetCudaComputeCapability"),
            name: required!("nvmlDeviceGetName"),
            uuid: optional!("nvmlDeviceGetUUID"),
            memory: optional!("nvmlDeviceGetMemoryInfo"),
        })
    }
}

/// An initialized NVML: `nvmlInit_v2` succeeded, and `nvmlShutdown` runs exactly once, through
/// [`Session::shutdown`] or on drop.
struct Session<'a> {
    api: &'a Api,
    open: bool,
}

impl<'a> Session<'a> {
    #[doc(alias = "nvmlInit_v2")]
    fn init(api: &'a Api) -> Result<Self, NvmlError> {
        // SAFETY: `nvmlInit_v2` takes no arguments and may be called from any thread.
        nvml_try(unsafe { (api.init)() })?;
        Ok(Self { api, open: true })
    }

    #[doc(alias = "nvmlShutdown")]
    fn shutdown(mut self) -> Result<(), NvmlError> {
        self.open = false;
        // SAFETY: pairs the successful `nvmlInit_v2` of this session.
        nvml_try(unsafe { (self.api.shutdown)() })
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if self.open {
            // SAFETY: pairs the successful `nvmlInit_v2` of this session; an error cannot be
            // reported from drop, and the process has no further use for NVML.
            let _ = unsafe { (self.api.shutdown)() };
        }
    }
}

/// Asks NVML: driver version, CUDA version, and every device's name, compute capability, UUID
/// and memory.
pub(crate) fn probe(cfg: &ProbeConfig) -> Attempt {
    let candidates = loader::candidates(
        &loader::NVML,
        cfg.nvml_library.as_deref(),
        cfg.search_system,
    );
    let lib = match loader::load_first(&candidates) {
        Ok(lib) => lib,
        Err(errors) => {
            return Attempt::NotPresent(loader::not_found_note("NVML", &candidates, &errors));
        }
    };
    let api = match Api::load(&lib) {
        Ok(api) => api,
        Err(symbol) => {
            return Attempt::Failed(format!("NVML: {} lacks `{symbol}`", lib.name));
        }
    };
    let session = match Session::init(&api) {
        Ok(session) => session,
        Err(error @ (NvmlError::DriverNotLoaded | NvmlError::LibraryNotFound)) => {
            return Attempt::NotPresent(format!("NVML: nvmlInit_v2: {error}"));
        }
        Err(error) => return Attempt::Failed(format!("NVML: nvmlInit_v2: {error}")),
    };
    let result = query(&api);
    let shutdown = session.shutdown();
    match result {
        Ok(mut report) => {
            if let Some(note) = &lib.override_note {
                report.notes.insert(0, format!("NVML: {note}"));
            }
            if let Err(error) = shutdown {
                report.notes.push(format!("NVML: nvmlShutdown: {error}"));
            }
            Attempt::Found(Box::new(report))
        }
        Err(error) => Attempt::Failed(format!("NVML: {error}")),
    }
}

fn query(api: &Api) -> Result<CudaReport, String> {
    let mut notes = Vec::new();

    let mut buffer: [c_char; DRIVER_VERSION_BUFFER] = [0; DRIVER_VERSION_BUFFER];
    // SAFETY: the buffer holds `DRIVER_VERSION_BUFFER` chars, the length we pass.
    let code =
        unsafe { (api.driver_version)(buffer.as_mut_ptr(), DRIVER_VERSION_BUFFER as c_uint) };
    let driver_version = match nvml_try(code) {
        Ok(()) => {
            let text = loader::c_buffer_to_string(&buffer);
            if valid_driver_version(&text) {
                Some(text)
            } else {
                notes.push(format!(
                    "NVML: nvmlSystemGetDriverVersion returned {text:?}, not a driver version"
                ));
                None
            }
        }
        Err(error) => {
            notes.push(format!("NVML: nvmlSystemGetDriverVersion: {error}"));
            None
        }
    };

    // Not `cuda_version` (SPEC §8.6: only the driver API gives it); said in the notes, so that
    // a disagreement with libcuda (a forward-compatibility library) can be seen.
    if let Some(function) = api.cuda_version {
        let mut raw: c_int = 0;
        // SAFETY: `raw` is a valid `int` out-parameter.
        let said = match nvml_try(unsafe { function(&mut raw) }) {
            Ok(()) => match CudaVersion::from_encoded(raw) {
                Ok(version) => format!("CUDA {version}"),
                Err(error) => error.to_string(),
            },
            Err(error) => error.to_string(),
        };
        notes.push(format!(
            "NVML: nvmlSystemGetCudaDriverVersion: {said} (not used: the CUDA version is \
             libcuda's)"
        ));
    }

    let mut count: c_uint = 0;
    // SAFETY: `count` is a valid `unsigned int` out-parameter.
    nvml_try(unsafe { (api.count)(&mut count) })
        .map_err(|e| format!("nvmlDeviceGetCount_v2: {e}"))?;

    let mut devices = Vec::new();
    for index in 0..count {
        let mut handle: DeviceHandle = ptr::null_mut();
        // SAFETY: `handle` is a valid out-parameter; `index` is below the count NVML gave.
        match nvml_try(unsafe { (api.handle)(index, &mut handle) }) {
            Ok(()) => {}
            Err(NvmlError::NoPermission) => {
                notes.push(format!(
                    "NVML: device {index} skipped: {}",
                    NvmlError::NoPermission
                ));
                continue;
            }
            Err(e) => return Err(format!("nvmlDeviceGetHandleByIndex_v2({index}): {e}")),
        }
        devices.push(device(api, index, handle, &mut notes)?);
    }

    Ok(CudaReport {
        driver_version,
        driver_api: DriverApi::NotAsked,
        devices,
        libraries: Libraries::default(),
        source: Source::Nvml,
        notes,
    })
}

fn device(
    api: &Api,
    index: u32,
    handle: DeviceHandle,
    notes: &mut Vec<String>,
) -> Result<Device, String> {
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: `handle` came from `nvmlDeviceGetHandleByIndex_v2` in this session; both
    // out-parameters are valid `int`s.
    nvml_try(unsafe { (api.compute_capability)(handle, &mut major, &mut minor) })
        .map_err(|e| format!("nvmlDeviceGetCudaComputeCapability({index}): {e}"))?;
    let compute_capability = match (u32::try_from(major), u32::try_from(minor)) {
        (Ok(major @ 1..=99), Ok(minor @ 0..=99)) => (major, minor),
        _ => {
            return Err(format!(
                "nvmlDeviceGetCudaComputeCapability({index}) returned {major}.{minor}"
            ));
        }
    };

    let mut buffer: [c_char; NAME_BUFFER] = [0; NAME_BUFFER];
    // SAFETY: as above; the buffer holds `NAME_BUFFER` chars, the length we pass.
    let name =
        match nvml_try(unsafe { (api.name)(handle, buffer.as_mut_ptr(), NAME_BUFFER as c_uint) }) {
            Ok(()) => loader::c_buffer_to_string(&buffer),
            Err(e) => {
                notes.push(format!("NVML: nvmlDeviceGetName({index}): {e}"));
                String::new()
            }
        };

    let uuid = api.uuid.and_then(|function| {
        let mut buffer: [c_char; NAME_BUFFER] = [0; NAME_BUFFER];
        // SAFETY: as above.
        let code = unsafe { function(handle, buffer.as_mut_ptr(), NAME_BUFFER as c_uint) };
        nvml_try(code)
            .ok()
            .map(|()| loader::c_buffer_to_string(&buffer))
    });

    let memory_bytes = api.memory.and_then(|function| {
        let mut memory = Memory::default();
        // SAFETY: as above; `memory` is a valid `nvmlMemory_t`.
        let code = unsafe { function(handle, &mut memory) };
        nvml_try(code).ok().map(|()| memory.total)
    });

    Ok(Device {
        index,
        name,
        compute_capability,
        uuid,
        memory_bytes,
    })
}
