//! AMD: ROCm. Everything markerspec reads about an AMD machine is read here, in the probe:
//!
//! - the HIP runtime (`libamdhip64.so`), for `hipRuntimeGetVersion`;
//! - the installed release, the first line of `ROCM_PATH/.info/version`;
//! - the amdgpu kernel driver's topology, `/sys/class/kfd/kfd/topology/nodes/*/properties`: each
//!   node with a non-zero `gfx_target_version` is a GPU agent;
//! - the KFD device, `/dev/kfd`, opened for reading and writing when there is an agent.
//!
//! Paths come from the [`Detector`](crate::Detector) ([`rocm_path`](crate::Detector::rocm_path),
//! [`kfd_topology`](crate::Detector::kfd_topology), [`kfd_device`](crate::Detector::kfd_device)),
//! else, when searching the system on Linux, the defaults below.

mod report;
mod topology;

pub use report::{DeviceAccess, GpuAgent, ReadState, Reading, RocmReport};

use std::ffi::c_int;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::loader;
use crate::probe::ProbeConfig;
use crate::report::{LibVersion, Outcome};

/// The default ROCm installation, where `.info/version` names the release.
///
/// ```
/// use markerspec_gpu::rocm::DEFAULT_ROCM_PATH;
///
/// let release_file = std::path::Path::new(DEFAULT_ROCM_PATH).join(".info/version");
/// assert_eq!(release_file, std::path::Path::new("/opt/rocm/.info/version"));
/// ```
pub const DEFAULT_ROCM_PATH: &str = "/opt/rocm";
/// Where the amdgpu kernel driver publishes its topology.
///
/// ```no_run
/// use markerspec_gpu::rocm::KFD_TOPOLOGY;
///
/// // One folder per node; a GPU agent's `properties` name a non-zero `gfx_target_version`.
/// for node in std::fs::read_dir(KFD_TOPOLOGY).unwrap() {
///     let properties = std::fs::read_to_string(node.unwrap().path().join("properties")).unwrap();
///     assert!(properties.contains("gfx_target_version"));
/// }
/// ```
pub const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology/nodes";
/// The device a process opens to use an AMD GPU.
///
/// ```no_run
/// use markerspec_gpu::rocm::KFD_DEVICE;
///
/// // What `RocmReport::device` records: whether this opens for reading and writing.
/// let opened = std::fs::OpenOptions::new().read(true).write(true).open(KFD_DEVICE);
/// assert!(opened.is_ok(), "this user may not use the AMD GPUs");
/// ```
pub const KFD_DEVICE: &str = "/dev/kfd";

/// An explicit path, else the default when searching the system on Linux (the only platform
/// where these files exist).
fn path_or_default(
    cfg: &ProbeConfig,
    explicit: Option<&PathBuf>,
    default: &str,
) -> Option<PathBuf> {
    explicit
        .cloned()
        .or_else(|| (cfg.search_system && cfg!(target_os = "linux")).then(|| default.into()))
}

/// The files and folders whose change can change what [`probe`] reports, for the disk cache's
/// key: the release file, the topology folder and the device node (its change time moves when
/// its owner, group or mode does).
pub(crate) fn cache_inputs(cfg: &ProbeConfig) -> Vec<PathBuf> {
    if !cfg.rocm {
        return Vec::new();
    }
    [
        path_or_default(cfg, cfg.rocm_path.as_ref(), DEFAULT_ROCM_PATH)
            .map(|root| root.join(".info").join("version")),
        path_or_default(cfg, cfg.kfd_topology.as_ref(), KFD_TOPOLOGY),
        path_or_default(cfg, cfg.kfd_device.as_ref(), KFD_DEVICE),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Probes the AMD stack. Absent when no HIP runtime loads, there is no release file, and the
/// topology lists no GPU agent; a file that exists and cannot be read makes the report say so
/// (the caller's "unknown"), never absent.
pub(crate) fn probe(cfg: &ProbeConfig) -> Outcome<RocmReport> {
    let mut notes = Vec::new();
    let hip_version = hip_version(cfg, &mut notes);
    let release = path_or_default(cfg, cfg.rocm_path.as_ref(), DEFAULT_ROCM_PATH)
        .map(|root| read_release(&root.join(".info").join("version")));
    let topology =
        path_or_default(cfg, cfg.kfd_topology.as_ref(), KFD_TOPOLOGY).map(|dir| Reading {
            state: topology::read(&dir),
            path: dir,
        });
    let has_agent = matches!(
        topology.as_ref().map(|t| &t.state),
        Some(ReadState::Read { value }) if !value.is_empty()
    );
    let device = if has_agent {
        path_or_default(cfg, cfg.kfd_device.as_ref(), KFD_DEVICE).map(|path| open_device(&path))
    } else {
        None
    };
    let found = |reading: &Option<Reading<_>>| {
        reading
            .as_ref()
            .is_some_and(|r| !matches!(r.state, ReadState::Missing))
    };
    let topology_failed = matches!(
        topology.as_ref().map(|t| &t.state),
        Some(ReadState::Failed { .. })
    );
    if hip_version.is_none() && !found(&release) && !has_agent && !topology_failed {
        for reading in [
            release.as_ref().map(|r| &r.path),
            topology.as_ref().map(|t| &t.path),
        ]
        .into_iter()
        .flatten()
        {
            notes.push(format!("ROCm: no {}", reading.display()));
        }
        return Outcome::Absent { notes };
    }
    Outcome::Detected(RocmReport {
        hip_version,
        release,
        topology,
        device,
        notes,
    })
}

/// Loads the HIP runtime and asks `hipRuntimeGetVersion`; what goes wrong goes to `notes`.
fn hip_version(cfg: &ProbeConfig, notes: &mut Vec<String>) -> Option<LibVersion> {
    let candidates =
        loader::candidates(&loader::HIP, cfg.hip_library.as_deref(), cfg.search_system);
    let lib = match loader::load_first(&candidates) {
        Ok(lib) => lib,
        Err(errors) => {
            notes.push(loader::not_found_note("HIP", &candidates, &errors));
            return None;
        }
    };
    if let Some(note) = &lib.override_note {
        notes.push(format!("HIP: {note}"));
    }
    // SAFETY: `hipError_t hipRuntimeGetVersion(int *runtimeVersion)` in `hip_runtime_api.h`.
    let function = unsafe {
        lib.function::<unsafe extern "C" fn(*mut c_int) -> c_int>("hipRuntimeGetVersion")
    };
    let Some(function) = function else {
        notes.push(format!("HIP: {} lacks `hipRuntimeGetVersion`", lib.name));
        return None;
    };
    let mut code: c_int = 0;
    // SAFETY: `code` is a valid `int` out-parameter.
    let result = unsafe { function(&mut code) };
    if result != 0 {
        notes.push(format!(
            "HIP: hipRuntimeGetVersion returned hipError_t {result}"
        ));
        return None;
    }
    LibVersion::from_hip_code(code)
        .map_err(|e| notes.push(format!("HIP: {e}")))
        .ok()
}

/// The release in a `.info/version` file.
fn read_release(file: &Path) -> Reading<String> {
    /// The version is on the first line; more than this is not a version file.
    const MAX: u64 = 4096;
    let mut text = String::new();
    let read = std::fs::File::open(file).and_then(|f| f.take(MAX).read_to_string(&mut text));
    let state = match read {
        Ok(_) => match parse_release(&text) {
            Some(value) => ReadState::Read { value },
            None => ReadState::Failed {
                reason: "no version on its first line".to_owned(),
            },
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ReadState::Missing,
        Err(e) => ReadState::Failed {
            reason: format!("cannot read: {e}"),
        },
    };
    Reading {
        path: file.to_path_buf(),
        state,
    }
}

/// `6.3.1-48` → `6.3.1` (the first line, up to the first `-`): dot-separated numbers.
fn parse_release(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let version = line.split('-').next()?.trim();
    let ok = !version.is_empty()
        && version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then(|| version.to_owned())
}

/// Opens the KFD device for reading and writing, and closes it again.
fn open_device(path: &Path) -> DeviceAccess {
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path);
    DeviceAccess {
        path: path.to_path_buf(),
        error: opened.err().map(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_files_give_the_version_before_the_dash() {
        assert_eq!(parse_release("6.3.1-48\n").as_deref(), Some("6.3.1"));
        assert_eq!(parse_release("6.2.0\n").as_deref(), Some("6.2.0"));
        assert_eq!(parse_release("garbage"), None);
        assert_eq!(parse_release(""), None);
        assert_eq!(parse_release("6..1\n"), None);
    }

    #[test]
    fn nothing_looked_for_without_search_or_paths() {
        let cfg = ProbeConfig {
            search_system: false,
            ..ProbeConfig::default()
        };
        let Outcome::Absent { notes } = probe(&cfg) else {
            panic!("absent expected");
        };
        assert_eq!(notes, ["HIP: no library to try (system search disabled)"]);
    }
}
