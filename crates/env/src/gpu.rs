//! The cuda provider: `markerspec-gpu`'s [`Detection`] mapped onto the GPU fields (SPEC §8.5 to
//! §8.10), with the visible-device variables applied, and the ROCm facts read from the files
//! the SPEC names.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use markerspec_gpu::{CudaReport, Detection, Detector, Device, Outcome, Source};
use markerspec_pep508::{Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::provider::{EnvironmentProvider, ProviderError};

/// The fields the cuda provider answers.
pub const GPU_FIELDS: [Field; 10] = [
    Field::GpuBackends,
    Field::CudaVersion,
    Field::NvidiaDriverVersion,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilities,
    Field::CudnnVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
    Field::RocmVersion,
    Field::RocmGpuArchs,
];

/// The CUDA-derived fields (Unknown together when the probe fails).
const CUDA_FIELDS: [Field; 7] = [
    Field::CudaVersion,
    Field::NvidiaDriverVersion,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilities,
    Field::CudnnVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
];

/// The variables passed to the probe child besides `PATH` and `LD_LIBRARY_PATH` (SPEC §10.2).
const CHILD_VARS: [&str; 5] = [
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCM_PATH",
];

/// Where the amdgpu kernel driver publishes its topology.
const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology/nodes";
/// The device a process opens to use an AMD GPU.
const KFD_DEVICE: &str = "/dev/kfd";
/// The default ROCm installation.
const ROCM_PATH: &str = "/opt/rocm";

/// Which platform's rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Platform {
    Linux,
    Windows,
    MacOs,
    Other,
}

impl Platform {
    fn current() -> Platform {
        if cfg!(target_os = "linux") {
            Platform::Linux
        } else if cfg!(windows) {
            Platform::Windows
        } else if cfg!(target_os = "macos") {
            Platform::MacOs
        } else {
            Platform::Other
        }
    }
}

/// GPU facts from the NVIDIA driver and libraries ([`markerspec_gpu::Detector`]: NVML, then
/// libcuda, then `nvidia-smi`, in a child process with a time limit, cached in memory) and from
/// the AMD kernel driver's files.
///
/// What each field becomes (SPEC §8.5 to §8.10):
///
/// | detection | `cuda_version`, `nvidia_driver_version` | device fields | `cuda` in `gpu_backends` |
/// | --- | --- | --- | --- |
/// | no driver (every source said "not here") | Absent | Absent | no |
/// | driver, zero visible devices | Known | Absent | no |
/// | driver, devices | Known (Unknown when the driver did not say) | Known | yes |
/// | hung, crashed, garbage, every source failed | Unknown | Unknown | `gpu_backends` Unknown |
///
/// `cuda_compute_capability` is the lowest capability among the visible devices,
/// `cuda_compute_capabilities` the set of all. cuDNN, NCCL and cuTENSOR are Known when a soname
/// loads and answers, Absent when none loads (or there is no driver, when the detector does not
/// look for them), Unknown when one loads but its version function is missing or fails.
///
/// Visible devices: `CUDA_VISIBLE_DEVICES` and `CUDA_DEVICE_ORDER` (from [`vars`](Self::vars))
/// are passed to the probe, where libcuda applies them. NVML and `nvidia-smi` list every device,
/// so when their report is used the variable is applied here when that can be done exactly
/// (device indices under `CUDA_DEVICE_ORDER=PCI_BUS_ID`, or on a machine whose devices share one
/// capability; `GPU-` UUID prefixes; an empty value hides every device). Otherwise (`MIG-`
/// identifiers, indices in the default fastest-first order on a mixed machine) a second probe
/// asks the driver API alone, as the SPEC requires, and if that fails the device fields are
/// Unknown.
///
/// ROCm (Linux): `rocm_version` from `$ROCM_PATH/.info/version` (default `/opt/rocm`) up to the
/// first `-`, else the HIP runtime's `major.minor` from the detection; `rocm_gpu_archs` from the
/// `gfx_target_version` of each GPU node under `/sys/class/kfd/kfd/topology/nodes`, filtered by
/// `ROCR_VISIBLE_DEVICES` then `HIP_VISIBLE_DEVICES` (indices or `GPU-` UUIDs; a value that
/// cannot be applied exactly makes the field Unknown); `rocm` is in `gpu_backends` when an agent
/// is visible and `/dev/kfd` opens for reading and writing. (`getROCmVersion` from
/// `librocm-core` would need `unsafe` FFI here; the version file is the SPEC's second method.)
///
/// Windows: CUDA as above; ROCm Absent (not detected in SPEC 0.1.0). macOS: every field Absent,
/// without probing.
#[derive(Clone, Debug)]
pub struct CudaProvider {
    detector: Detector,
    vars: BTreeMap<String, OsString>,
    kfd_topology: PathBuf,
    kfd_device: PathBuf,
    rocm_path: Option<PathBuf>,
    in_process: bool,
    platform: Platform,
}

impl Default for CudaProvider {
    fn default() -> Self {
        CudaProvider::new()
    }
}

impl CudaProvider {
    /// The default detector (10-second limit, memory cache) and the system's files.
    pub fn new() -> CudaProvider {
        CudaProvider::with_detector(Detector::new())
    }

    /// A provider around a configured detector (library paths, sources, probe program, disk
    /// cache). The visible-device variables from [`vars`](Self::vars) are added to it.
    pub fn with_detector(detector: Detector) -> CudaProvider {
        CudaProvider {
            detector,
            vars: BTreeMap::new(),
            kfd_topology: PathBuf::from(KFD_TOPOLOGY),
            kfd_device: PathBuf::from(KFD_DEVICE),
            rocm_path: None,
            in_process: false,
            platform: Platform::current(),
        }
    }

    /// The probe's time limit.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> CudaProvider {
        self.detector = self.detector.timeout(timeout);
        self
    }

    /// The environment variables detection should see: `PATH` and `LD_LIBRARY_PATH` for the
    /// probe child, the visible-device variables, `ROCM_PATH`. Others are ignored. The CLI
    /// passes `std::env::vars_os()`; without this call, the process's own `PATH` and
    /// `LD_LIBRARY_PATH` are used and no visibility variable applies.
    #[must_use]
    pub fn vars<I, K, V>(mut self, vars: I) -> CudaProvider
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        for (k, v) in vars {
            let k: OsString = k.into();
            let Some(name) = k.to_str() else { continue };
            if CHILD_VARS.contains(&name) || name == "PATH" || name == "LD_LIBRARY_PATH" {
                self.vars.insert(name.to_owned(), v.into());
            }
        }
        self
    }

    /// The KFD topology folder (default `/sys/class/kfd/kfd/topology/nodes`).
    #[must_use]
    pub fn kfd_topology(mut self, dir: impl Into<PathBuf>) -> CudaProvider {
        self.kfd_topology = dir.into();
        self
    }

    /// The KFD device opened to decide whether ROCm is usable (default `/dev/kfd`).
    #[must_use]
    pub fn kfd_device(mut self, path: impl Into<PathBuf>) -> CudaProvider {
        self.kfd_device = path.into();
        self
    }

    /// The ROCm installation (default `$ROCM_PATH` when it is an absolute path, else
    /// `/opt/rocm`).
    #[must_use]
    pub fn rocm_path(mut self, dir: impl Into<PathBuf>) -> CudaProvider {
        self.rocm_path = Some(dir.into());
        self
    }

    /// Detects inside this process instead of a child (see
    /// [`Detector::detect_in_process`]: a driver that hangs or crashes takes this process with
    /// it). For tests and for callers that cannot start processes.
    #[must_use]
    pub fn in_process(mut self, in_process: bool) -> CudaProvider {
        self.in_process = in_process;
        self
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .get(name)
            .map(|v| v.to_string_lossy().into_owned())
    }

    fn detector(&self) -> Detector {
        let mut detector = self.detector.clone();
        if let Some(path) = self.vars.get("PATH") {
            detector = detector.path_var(path.clone());
        }
        if let Some(path) = self.vars.get("LD_LIBRARY_PATH") {
            detector = detector.library_path_var(path.clone());
        }
        for name in CHILD_VARS {
            if let Some(value) = self.vars.get(name) {
                detector = detector.child_env(name, value.clone());
            }
        }
        detector
    }

    fn run(&self, detector: &Detector) -> Detection {
        if self.in_process {
            detector.detect_in_process()
        } else {
            detector.detect()
        }
    }

    /// Detects and maps: the whole job of [`provide`](EnvironmentProvider::provide).
    fn detect(&self) -> Facts {
        let mut facts = Facts::new();
        if matches!(self.platform, Platform::MacOs | Platform::Other) {
            let p = Provenance::new("cuda", "platform").with_detail(
                if self.platform == Platform::MacOs {
                    "no CUDA driver or ROCm exists for macOS"
                } else {
                    "GPU detection is not defined on this platform"
                },
            );
            for field in GPU_FIELDS {
                facts.absent(field, p.clone());
            }
            return facts;
        }
        let detector = self.detector();
        let detection = self.run(&detector);
        let visibility = CudaVisibility {
            visible_devices: self.var("CUDA_VISIBLE_DEVICES"),
            device_order: self.var("CUDA_DEVICE_ORDER"),
        };
        let mut driver_api = None;
        if let Outcome::Detected(report) = &detection.cuda {
            if report.source != Source::LibCuda && visibility.apply(&report.devices).is_err() {
                driver_api = Some(self.run(&detector.clone().sources([Source::LibCuda])).cuda);
            }
        }
        let cuda_backend = map_cuda(&mut facts, &detection, &visibility, driver_api.as_ref());
        let rocm_backend = if self.platform == Platform::Linux {
            self.map_rocm(&mut facts, &detection)
        } else {
            let p = Provenance::new("cuda", "platform")
                .with_detail("ROCm is not detected on Windows in SPEC 0.1.0");
            facts.absent(Field::RocmVersion, p.clone());
            facts.absent(Field::RocmGpuArchs, p);
            Backend::No
        };
        backends(&mut facts, cuda_backend, rocm_backend);
        facts
    }

    fn map_rocm(&self, facts: &mut Facts, detection: &Detection) -> Backend {
        // rocm_version: the version file, then the HIP runtime.
        let root = self
            .rocm_path
            .clone()
            .or_else(|| {
                // A relative ROCM_PATH would resolve against the current folder: ignored.
                self.var("ROCM_PATH")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
            })
            .unwrap_or_else(|| PathBuf::from(ROCM_PATH));
        let file = root.join(".info").join("version");
        let hip = detection.rocm.detected().and_then(|r| r.version);
        match std::fs::read_to_string(&file) {
            Ok(text) => match parse_rocm_version(&text) {
                Some(v) => {
                    facts.known(
                        Field::RocmVersion,
                        v,
                        Provenance::new("cuda", file.display().to_string()),
                    );
                }
                None => {
                    facts.unknown(
                        Field::RocmVersion,
                        Provenance::new("cuda", file.display().to_string())
                            .with_detail("no version on its first line"),
                    );
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match (hip, &detection.rocm) {
                (Some(v), _) => {
                    facts.known(
                        Field::RocmVersion,
                        format!("{}.{}", v.major, v.minor),
                        Provenance::new("cuda", "hipRuntimeGetVersion")
                            .with_detail(format!("HIP runtime {v}; no {}", file.display())),
                    );
                }
                (None, Outcome::Unknown { reason }) => {
                    facts.unknown(
                        Field::RocmVersion,
                        Provenance::new("cuda", "probe").with_detail(reason.to_string()),
                    );
                }
                (None, _) => {
                    facts.absent(
                        Field::RocmVersion,
                        Provenance::new("cuda", file.display().to_string())
                            .with_detail("no ROCm installation (no version file, no HIP runtime)"),
                    );
                }
            },
            Err(e) => {
                facts.unknown(
                    Field::RocmVersion,
                    Provenance::new("cuda", file.display().to_string())
                        .with_detail(format!("cannot read: {e}")),
                );
            }
        }
        // rocm_gpu_archs and the backend.
        let method = self.kfd_topology.display().to_string();
        let agents = match read_topology(&self.kfd_topology) {
            Ok(agents) => agents,
            Err(e) => {
                facts.unknown(
                    Field::RocmGpuArchs,
                    Provenance::new("cuda", method).with_detail(e),
                );
                return Backend::Unknown("the KFD topology cannot be read".into());
            }
        };
        let visible = match rocm_visible(
            agents,
            self.var("ROCR_VISIBLE_DEVICES").as_deref(),
            self.var("HIP_VISIBLE_DEVICES").as_deref(),
        ) {
            Ok(v) => v,
            Err(e) => {
                facts.unknown(
                    Field::RocmGpuArchs,
                    Provenance::new("cuda", method).with_detail(e.clone()),
                );
                return Backend::Unknown(e);
            }
        };
        if visible.is_empty() {
            facts.absent(
                Field::RocmGpuArchs,
                Provenance::new("cuda", method).with_detail("no visible AMD GPU agent"),
            );
            return Backend::No;
        }
        facts.known_set(
            Field::RocmGpuArchs,
            visible.iter().map(|a| a.arch.clone()),
            Provenance::new("cuda", method),
        );
        let open = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.kfd_device);
        match open {
            Ok(_) => Backend::Yes,
            Err(e) => Backend::NotUsable(format!(
                "AMD GPUs are listed but {} cannot be opened: {e}",
                self.kfd_device.display()
            )),
        }
    }
}

impl EnvironmentProvider for CudaProvider {
    fn name(&self) -> &str {
        "cuda"
    }

    fn fields(&self) -> FieldSet {
        GPU_FIELDS.into_iter().collect()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = self.detect();
        facts.retain(request);
        Ok(facts)
    }
}

/// One stack's contribution to `gpu_backends`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    Yes,
    No,
    /// Present but not usable (ROCm without access to `/dev/kfd`): not a member.
    NotUsable(String),
    Unknown(String),
}

fn backends(facts: &mut Facts, cuda: Backend, rocm: Backend) {
    let mut members = Vec::new();
    let mut details = Vec::new();
    for (name, backend) in [("cuda", cuda), ("rocm", rocm)] {
        match backend {
            Backend::Yes => members.push(name),
            Backend::No => {}
            Backend::NotUsable(why) => details.push(why),
            Backend::Unknown(why) => {
                facts.unknown(
                    Field::GpuBackends,
                    Provenance::new("cuda", "probe").with_detail(format!("{name}: {why}")),
                );
                return;
            }
        }
    }
    let p = Provenance::new("cuda", "probe").with_detail(details.join("; "));
    facts.known_set(Field::GpuBackends, members, p);
}

/// The CUDA visibility variables, as the caller's process has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CudaVisibility {
    pub(crate) visible_devices: Option<String>,
    pub(crate) device_order: Option<String>,
}

impl CudaVisibility {
    /// The devices of an NVML or nvidia-smi report (every device, in PCI bus order) that a CUDA
    /// process would see, or why that cannot be told exactly.
    pub(crate) fn apply<'a>(&self, devices: &'a [Device]) -> Result<Vec<&'a Device>, String> {
        let Some(value) = self.visible_devices.as_deref() else {
            return Ok(devices.iter().collect());
        };
        let pci_order = self.device_order.as_deref() == Some("PCI_BUS_ID");
        let uniform = devices
            .windows(2)
            .all(|w| w[0].compute_capability == w[1].compute_capability);
        let mut chosen: Vec<&Device> = Vec::new();
        for entry in value.split(',').map(str::trim) {
            if entry.is_empty() {
                // `CUDA_VISIBLE_DEVICES=` hides every device; an empty entry ends the list.
                break;
            }
            let device = if let Ok(index) = entry.parse::<u32>() {
                if !pci_order && !uniform {
                    return Err(format!(
                        "CUDA_VISIBLE_DEVICES={value:?} selects by index in the driver's \
                         fastest-first order, which the report's PCI order cannot reproduce"
                    ));
                }
                // Indices into an ordering whose capabilities are all equal, or the PCI order
                // the report is in: the device at that position has the right capability.
                devices.get(index as usize)
            } else if entry.starts_with("GPU-") {
                let matches: Vec<&Device> = devices
                    .iter()
                    .filter(|d| d.uuid.as_deref().is_some_and(|u| u.starts_with(entry)))
                    .collect();
                if devices.iter().any(|d| d.uuid.is_none()) {
                    return Err(format!(
                        "CUDA_VISIBLE_DEVICES={value:?} names UUIDs, and the report lacks some"
                    ));
                }
                match matches.as_slice() {
                    [one] => Some(*one),
                    [] => None,
                    _ => {
                        return Err(format!(
                            "CUDA_VISIBLE_DEVICES entry `{entry}` matches several devices"
                        ));
                    }
                }
            } else {
                return Err(format!(
                    "CUDA_VISIBLE_DEVICES entry `{entry}` can only be applied by the driver API"
                ));
            };
            // An invalid entry hides it and every entry after it, as the driver does.
            let Some(device) = device else { break };
            if chosen.iter().any(|d| std::ptr::eq(*d, device)) {
                return Err(format!(
                    "CUDA_VISIBLE_DEVICES={value:?} names a device twice"
                ));
            }
            chosen.push(device);
        }
        Ok(chosen)
    }
}

/// Maps the CUDA outcome onto the CUDA fields and says whether `cuda` is a backend.
/// `driver_api` is the answer of a libcuda-only probe, used for the device list when the
/// visibility variable cannot be applied to the main report.
pub(crate) fn map_cuda(
    facts: &mut Facts,
    detection: &Detection,
    visibility: &CudaVisibility,
    driver_api: Option<&Outcome<CudaReport>>,
) -> Backend {
    let report = match &detection.cuda {
        Outcome::Absent { notes } => {
            let p = Provenance::new("cuda", "probe")
                .with_detail(format!("no NVIDIA driver ({})", summary(notes)));
            for field in CUDA_FIELDS {
                facts.absent(field, p.clone());
            }
            return Backend::No;
        }
        Outcome::Unknown { reason } => {
            let p = Provenance::new("cuda", "probe").with_detail(reason.to_string());
            for field in CUDA_FIELDS {
                facts.unknown(field, p.clone());
            }
            return Backend::Unknown(reason.to_string());
        }
        Outcome::Detected(report) => report,
    };
    let source = report.source.as_str();
    let p = || Provenance::new("cuda", source);
    let notes = summary(&report.notes);
    match report.cuda_driver_version {
        Some(v) => facts.known(Field::CudaVersion, v.to_string(), p()),
        None => facts.unknown(
            Field::CudaVersion,
            p().with_detail(format!("the driver did not report it ({notes})")),
        ),
    };
    match &report.driver_version {
        Some(v) => facts.known(Field::NvidiaDriverVersion, v.clone(), p()),
        None => facts.unknown(
            Field::NvidiaDriverVersion,
            p().with_detail(format!("the driver did not report it ({notes})")),
        ),
    };
    // The visible devices.
    let devices: Result<(Vec<(u32, u32)>, String), String> = if report.source == Source::LibCuda {
        Ok((
            report
                .devices
                .iter()
                .map(|d| d.compute_capability)
                .collect(),
            "libcuda".into(),
        ))
    } else {
        match visibility.apply(&report.devices) {
            Ok(devices) => Ok((
                devices.iter().map(|d| d.compute_capability).collect(),
                source.to_owned(),
            )),
            Err(why) => match driver_api {
                Some(Outcome::Detected(r)) => Ok((
                    r.devices.iter().map(|d| d.compute_capability).collect(),
                    "libcuda".into(),
                )),
                // cuInit said CUDA_ERROR_NO_DEVICE: nothing visible.
                Some(Outcome::Absent { .. }) => Ok((Vec::new(), "libcuda".into())),
                Some(Outcome::Unknown { reason }) => {
                    Err(format!("{why}; the driver API: {reason}"))
                }
                None => Err(why),
            },
        }
    };
    let backend = match devices {
        Err(why) => {
            let p = p().with_detail(why.clone());
            facts.unknown(Field::CudaComputeCapability, p.clone());
            facts.unknown(Field::CudaComputeCapabilities, p);
            Backend::Unknown(why)
        }
        Ok((ccs, method)) => match ccs.iter().min() {
            None => {
                let p = Provenance::new("cuda", method).with_detail("no visible CUDA device");
                facts.absent(Field::CudaComputeCapability, p.clone());
                facts.absent(Field::CudaComputeCapabilities, p);
                Backend::No
            }
            Some((major, minor)) => {
                let p = Provenance::new("cuda", method)
                    .with_detail(format!("{} visible device(s)", ccs.len()));
                facts.known(
                    Field::CudaComputeCapability,
                    format!("{major}.{minor}"),
                    p.clone(),
                );
                facts.known_set(
                    Field::CudaComputeCapabilities,
                    ccs.iter().map(|(a, b)| format!("{a}.{b}")),
                    p,
                );
                Backend::Yes
            }
        },
    };
    let libs = &report.libraries;
    for (field, label, version) in [
        (Field::CudnnVersion, "cuDNN", libs.cudnn),
        (Field::NcclVersion, "NCCL", libs.nccl),
        (Field::CutensorVersion, "cuTENSOR", libs.cutensor),
    ] {
        let p = Provenance::new("cuda", label);
        match version {
            Some(v) => {
                facts.known(field, v.to_string(), p);
            }
            None => match library_failure(&report.notes, label) {
                Some(note) => {
                    facts.unknown(field, p.with_detail(note.to_owned()));
                }
                None => {
                    facts.absent(
                        field,
                        p.with_detail("not loadable through the system loader"),
                    );
                }
            },
        }
    }
    backend
}

/// The note saying a library loaded but could not tell its version, when there is one. The
/// detector writes `LABEL: FILE: ERROR` for that case and `LABEL: not found (…)` or
/// `LABEL: no library to try …` when nothing loaded.
fn library_failure<'a>(notes: &'a [String], label: &str) -> Option<&'a str> {
    notes.iter().map(String::as_str).find(|note| {
        note.strip_prefix(label)
            .and_then(|rest| rest.strip_prefix(": "))
            .is_some_and(|rest| {
                !rest.starts_with("not found")
                    && !rest.starts_with("no library to try")
                    && rest.contains(": ")
            })
    })
}

/// The notes, shortened for a provenance line: the list of paths tried is left out.
fn summary(notes: &[String]) -> String {
    const MAX: usize = 300;
    let short: Vec<&str> = notes
        .iter()
        .map(|n| n.split(" (tried ").next().unwrap_or(n))
        .collect();
    let mut text = short.join("; ");
    if text.len() > MAX {
        let mut cut = MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// `6.3.1-48` → `6.3.1` (the first line, up to the first `-`).
fn parse_rocm_version(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let version = line.split('-').next()?.trim();
    let ok = !version.is_empty()
        && version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok.then(|| version.to_owned())
}

/// One GPU agent of the KFD topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Agent {
    pub(crate) arch: String,
    pub(crate) unique_id: Option<u64>,
}

/// The GPU agents (nodes with a non-zero `gfx_target_version`), in node order. A missing
/// folder means no agent.
pub(crate) fn read_topology(dir: &Path) -> Result<Vec<Agent>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut nodes: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((n, e.path()))
        })
        .collect();
    nodes.sort();
    let mut agents = Vec::new();
    for (_, node) in nodes {
        let file = node.join("properties");
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let prop = |key: &str| {
            text.lines().find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == key).then(|| v.trim().parse::<u64>().ok())?
            })
        };
        let Some(code) = prop("gfx_target_version") else {
            return Err(format!(
                "{}: no readable gfx_target_version",
                file.display()
            ));
        };
        if code == 0 {
            continue;
        }
        let (major, minor, stepping) = (code / 10_000, (code / 100) % 100, code % 100);
        if major == 0 || minor > 15 || stepping > 15 {
            return Err(format!("{}: odd gfx_target_version {code}", file.display()));
        }
        agents.push(Agent {
            arch: format!("gfx{major}{minor:x}{stepping:x}"),
            unique_id: prop("unique_id"),
        });
    }
    Ok(agents)
}

/// Applies `ROCR_VISIBLE_DEVICES`, then `HIP_VISIBLE_DEVICES` (indices into what ROCR left),
/// or says why that cannot be done exactly.
pub(crate) fn rocm_visible(
    agents: Vec<Agent>,
    rocr: Option<&str>,
    hip: Option<&str>,
) -> Result<Vec<Agent>, String> {
    let mut visible = agents;
    for (name, value, uuids) in [
        ("ROCR_VISIBLE_DEVICES", rocr, true),
        ("HIP_VISIBLE_DEVICES", hip, false),
    ] {
        let Some(value) = value else { continue };
        let cannot = || {
            format!(
                "{name}={value:?} cannot be applied exactly to the KFD topology (the HIP \
                 runtime would have to be asked)"
            )
        };
        let mut chosen = Vec::new();
        for entry in value.split(',').map(str::trim) {
            let agent = if let Ok(i) = entry.parse::<usize>() {
                visible.get(i)
            } else if let (true, Some(hex)) = (uuids, entry.strip_prefix("GPU-")) {
                let id = u64::from_str_radix(hex, 16).map_err(|_| cannot())?;
                visible.iter().find(|a| a.unique_id == Some(id))
            } else {
                return Err(cannot());
            };
            let Some(agent) = agent else {
                return Err(cannot());
            };
            if chosen.contains(agent) {
                return Err(cannot());
            }
            chosen.push(agent.clone());
        }
        visible = chosen;
    }
    Ok(visible)
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_gpu::{CudaVersion, LibVersion, Libraries, Origin, RocmReport, UnknownReason};
    use markerspec_pep508::EnvValue;

    fn device(index: u32, cc: (u32, u32)) -> Device {
        Device {
            index,
            name: format!("GPU {index}"),
            compute_capability: cc,
            uuid: Some(format!("GPU-{index:08}-aaaa")),
            memory_bytes: None,
        }
    }

    fn report(devices: Vec<Device>) -> CudaReport {
        CudaReport {
            driver_version: Some("570.124.06".into()),
            cuda_driver_version: CudaVersion::new(12, 8),
            devices,
            libraries: Libraries {
                cudnn: Some(LibVersion {
                    major: 9,
                    minor: 1,
                    patch: 0,
                }),
                nccl: None,
                cutensor: None,
            },
            source: Source::Nvml,
            notes: vec![],
        }
    }

    fn detection(cuda: Outcome<CudaReport>) -> Detection {
        Detection {
            cuda,
            rocm: Outcome::Absent { notes: vec![] },
            origin: Origin::Probe,
            notes: vec![],
        }
    }

    fn map(d: &Detection, vis: &CudaVisibility) -> (Facts, Backend) {
        let mut facts = Facts::new();
        let backend = map_cuda(&mut facts, d, vis, None);
        (facts, backend)
    }

    fn set(items: &[&str]) -> Option<EnvValue> {
        Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
    }

    #[test]
    fn an_h100_box() {
        let d = detection(Outcome::Detected(report(vec![device(0, (9, 0))])));
        let (facts, backend) = map(&d, &CudaVisibility::default());
        assert_eq!(backend, Backend::Yes);
        assert_eq!(facts.string(Field::CudaVersion), Some("12.8"));
        assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("570.124.06"));
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("9.0"));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            set(&["9.0"]).as_ref()
        );
        assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
        assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Absent));
        assert_eq!(
            facts.get(Field::CudaVersion).unwrap().provenance.method(),
            "nvml"
        );
    }

    #[test]
    fn mixed_devices_give_the_lowest_capability_and_the_set() {
        let d = detection(Outcome::Detected(report(vec![
            device(0, (9, 0)),
            device(1, (8, 6)),
            device(2, (9, 0)),
        ])));
        let (facts, _) = map(&d, &CudaVisibility::default());
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            set(&["8.6", "9.0"]).as_ref()
        );
    }

    #[test]
    fn zero_devices_keep_the_driver_facts() {
        let d = detection(Outcome::Detected(report(vec![])));
        let (facts, backend) = map(&d, &CudaVisibility::default());
        assert_eq!(backend, Backend::No);
        assert_eq!(facts.string(Field::CudaVersion), Some("12.8"));
        assert_eq!(
            facts.value(Field::CudaComputeCapability),
            Some(&EnvValue::Absent)
        );
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            Some(&EnvValue::Absent)
        );
    }

    #[test]
    fn no_driver_is_absent_and_failure_is_unknown() {
        let d = detection(Outcome::Absent {
            notes: vec!["NVML: not found (tried libnvidia-ml.so.1)".into()],
        });
        let (facts, backend) = map(&d, &CudaVisibility::default());
        assert_eq!(backend, Backend::No);
        for field in CUDA_FIELDS {
            assert_eq!(facts.value(field), Some(&EnvValue::Absent), "{field}");
        }
        assert!(
            facts
                .get(Field::CudaVersion)
                .unwrap()
                .provenance
                .detail()
                .unwrap()
                .contains("not found")
        );

        let d = detection(Outcome::Unknown {
            reason: UnknownReason::Timeout { after_ms: 10_000 },
        });
        let (facts, backend) = map(&d, &CudaVisibility::default());
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in CUDA_FIELDS {
            let fact = facts.get(field).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown, "{field}");
            assert!(fact.provenance.detail().unwrap().contains("timed out"));
        }
    }

    #[test]
    fn missing_versions_are_unknown() {
        let mut r = report(vec![device(0, (8, 0))]);
        r.cuda_driver_version = None;
        r.driver_version = None;
        r.notes = vec![
            "nvmlSystemGetCudaDriverVersion_v2: out of range".into(),
            "NCCL: libnccl.so.2: lacks `ncclGetVersion`".into(),
            "cuTENSOR: not found (tried libcutensor.so.2): /x/libcutensor.so.2: wrong ELF class"
                .into(),
        ];
        let (facts, _) = map(&detection(Outcome::Detected(r)), &CudaVisibility::default());
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
        assert_eq!(
            facts.value(Field::NvidiaDriverVersion),
            Some(&EnvValue::Unknown)
        );
        assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Unknown));
        assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
    }

    #[test]
    fn visible_devices_apply_when_exact() {
        let devices = vec![device(0, (8, 0)), device(1, (9, 0)), device(2, (9, 0))];
        let vis = |v: &str, order: Option<&str>| CudaVisibility {
            visible_devices: Some(v.into()),
            device_order: order.map(Into::into),
        };
        let ccs = |r: Result<Vec<&Device>, String>| {
            r.map(|d| d.iter().map(|d| d.compute_capability).collect::<Vec<_>>())
        };
        assert_eq!(ccs(vis("", None).apply(&devices)), Ok(vec![]));
        assert_eq!(
            ccs(vis("2,0", Some("PCI_BUS_ID")).apply(&devices)),
            Ok(vec![(9, 0), (8, 0)])
        );
        // An invalid index ends the list.
        assert_eq!(
            ccs(vis("1,7,0", Some("PCI_BUS_ID")).apply(&devices)),
            Ok(vec![(9, 0)])
        );
        assert!(vis("0", None).apply(&devices).is_err());
        assert_eq!(
            ccs(vis("GPU-00000001", None).apply(&devices)),
            Ok(vec![(9, 0)])
        );
        assert!(
            vis("GPU-0000000", None).apply(&devices).is_err(),
            "ambiguous prefix"
        );
        assert!(vis("MIG-abc", None).apply(&devices).is_err());
        // All alike: indices are exact in any order.
        let alike = vec![device(0, (9, 0)), device(1, (9, 0))];
        assert_eq!(ccs(vis("1", None).apply(&alike)), Ok(vec![(9, 0)]));
    }

    #[test]
    fn the_driver_api_decides_when_the_report_cannot() {
        let d = detection(Outcome::Detected(report(vec![
            device(0, (8, 0)),
            device(1, (9, 0)),
        ])));
        let vis = CudaVisibility {
            visible_devices: Some("1".into()),
            device_order: None,
        };
        let mut facts = Facts::new();
        let mut libcuda = report(vec![device(0, (9, 0))]);
        libcuda.source = Source::LibCuda;
        map_cuda(&mut facts, &d, &vis, Some(&Outcome::Detected(libcuda)));
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("9.0"));
        assert_eq!(
            facts
                .get(Field::CudaComputeCapability)
                .unwrap()
                .provenance
                .method(),
            "libcuda"
        );
        let mut facts = Facts::new();
        let backend = map_cuda(&mut facts, &d, &vis, None);
        assert!(matches!(backend, Backend::Unknown(_)));
        assert_eq!(
            facts.value(Field::CudaComputeCapability),
            Some(&EnvValue::Unknown)
        );
        assert_eq!(facts.string(Field::CudaVersion), Some("12.8"));
    }

    #[test]
    fn backends_combine() {
        let mut facts = Facts::new();
        backends(&mut facts, Backend::Yes, Backend::No);
        assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
        backends(&mut facts, Backend::No, Backend::NotUsable("x".into()));
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        backends(&mut facts, Backend::Yes, Backend::Unknown("t".into()));
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
        backends(&mut facts, Backend::Yes, Backend::Yes);
        assert_eq!(
            facts.value(Field::GpuBackends),
            set(&["cuda", "rocm"]).as_ref()
        );
    }

    fn topology(nodes: &[(u32, u64, u64)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "markerspec-env-kfd-{}-{}",
            std::process::id(),
            nodes.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (node, gfx, id) in nodes {
            let d = dir.join(node.to_string());
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("properties"),
                format!("cpu_cores_count 0\ngfx_target_version {gfx}\nunique_id {id}\n"),
            )
            .unwrap();
        }
        dir
    }

    #[test]
    fn rocm_topology_and_visibility() {
        let dir = topology(&[
            (0, 0, 0),
            (1, 90010, 0xabc),
            (2, 90402, 0xdef),
            (10, 110000, 7),
        ]);
        let agents = read_topology(&dir).unwrap();
        let archs = |a: &[Agent]| a.iter().map(|a| a.arch.clone()).collect::<Vec<_>>();
        assert_eq!(archs(&agents), ["gfx90a", "gfx942", "gfx1100"]);
        let v = |r, h| rocm_visible(agents.clone(), r, h).map(|a| archs(&a));
        assert_eq!(
            v(Some("1,2"), None),
            Ok(vec!["gfx942".into(), "gfx1100".into()])
        );
        assert_eq!(v(Some("GPU-def"), None), Ok(vec!["gfx942".into()]));
        assert_eq!(v(Some("2,0"), Some("1")), Ok(vec!["gfx90a".into()]));
        assert!(v(Some("5"), None).is_err());
        assert!(v(Some(""), None).is_err());
        assert!(v(None, Some("GPU-def")).is_err());
        assert_eq!(read_topology(&dir.join("missing")), Ok(vec![]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn rocm_versions() {
        assert_eq!(parse_rocm_version("6.3.1-48\n").as_deref(), Some("6.3.1"));
        assert_eq!(parse_rocm_version("6.2.0\n").as_deref(), Some("6.2.0"));
        assert_eq!(parse_rocm_version("garbage"), None);
    }

    #[test]
    fn a_relative_rocm_path_is_ignored() {
        let dir = std::env::temp_dir().join(format!("markerspec-rocm-rel-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".info")).unwrap();
        std::fs::write(dir.join(".info/version"), "6.3.1-48\n").unwrap();
        // The same folder, named relative to the current one.
        let cwd = std::env::current_dir().unwrap();
        let mut relative = PathBuf::new();
        for _ in cwd.components().skip(1) {
            relative.push("..");
        }
        relative.push(dir.strip_prefix("/").unwrap());
        assert!(relative.join(".info/version").is_file());
        let provider = CudaProvider::new()
            .vars([("ROCM_PATH", relative.as_os_str())])
            .kfd_topology(dir.join("none"));
        let mut facts = Facts::new();
        provider.map_rocm(&mut facts, &detection(Outcome::Absent { notes: vec![] }));
        let _ = std::fs::remove_dir_all(&dir);
        assert_ne!(facts.string(Field::RocmVersion), Some("6.3.1"));
        // The same folder named absolutely is used.
        std::fs::create_dir_all(dir.join(".info")).unwrap();
        std::fs::write(dir.join(".info/version"), "6.3.1-48\n").unwrap();
        let provider = CudaProvider::new()
            .vars([("ROCM_PATH", dir.as_os_str())])
            .kfd_topology(dir.join("none"));
        let mut facts = Facts::new();
        provider.map_rocm(&mut facts, &detection(Outcome::Absent { notes: vec![] }));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(facts.string(Field::RocmVersion), Some("6.3.1"));
    }

    #[test]
    fn a_rocm_machine_end_to_end_from_files() {
        let dir = topology(&[(0, 0, 0), (1, 90010, 1), (2, 90010, 2)]);
        let root = dir.join("rocm");
        std::fs::create_dir_all(root.join(".info")).unwrap();
        std::fs::write(root.join(".info/version"), "6.3.1-48\n").unwrap();
        // A regular file stands in for /dev/kfd.
        let kfd = dir.join("kfd");
        std::fs::write(&kfd, "").unwrap();
        let provider = CudaProvider::new()
            .kfd_topology(&dir)
            .kfd_device(&kfd)
            .rocm_path(&root);
        let d = detection(Outcome::Absent { notes: vec![] });
        let mut facts = Facts::new();
        let backend = provider.map_rocm(&mut facts, &d);
        assert_eq!(backend, Backend::Yes);
        assert_eq!(facts.string(Field::RocmVersion), Some("6.3.1"));
        assert_eq!(facts.value(Field::RocmGpuArchs), set(&["gfx90a"]).as_ref());
        // Without access to the device the archs stay, the backend goes.
        let provider = provider.kfd_device(dir.join("no-such-device"));
        let backend = provider.map_rocm(&mut Facts::new(), &d);
        assert!(matches!(backend, Backend::NotUsable(_)));
        // With a HIP runtime but no version file: HIP's major.minor.
        let provider = CudaProvider::new()
            .kfd_topology(dir.join("none"))
            .rocm_path(dir.join("no-rocm"));
        let mut d = d;
        d.rocm = Outcome::Detected(RocmReport {
            version: Some(LibVersion {
                major: 6,
                minor: 2,
                patch: 41133,
            }),
            gpu_archs: vec![],
            notes: vec![],
        });
        let mut facts = Facts::new();
        assert_eq!(provider.map_rocm(&mut facts, &d), Backend::No);
        assert_eq!(facts.string(Field::RocmVersion), Some("6.2"));
        assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
