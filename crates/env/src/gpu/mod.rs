//! The GPU provider: `markerspec-gpu`'s [`Detection`] mapped onto the GPU fields (SPEC §8.5 to
//! §8.10), one module per vendor: `cuda.rs` for NVIDIA's fields, `rocm.rs` for AMD's. Each
//! vendor module maps its report onto its own fields, under a provenance layer named after the
//! stack (`cuda`, `rocm`), and says whether its stack belongs in `gpu_backends`, which this
//! module assembles (layer `gpu`). A third vendor adds a module beside them, its fields to
//! [`GPU_FIELDS`], and a line to [`GpuProvider::detect`]'s list of backends.

mod cuda;
mod rocm;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use markerspec_gpu::{Detection, Detector, Source};
use markerspec_pep508::{Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::provider::{EnvironmentProvider, ProviderError};

/// The fields the GPU provider answers.
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

/// The provider's name, and the provenance layer of `gpu_backends` and of answers about the
/// platform as a whole.
const LAYER: &str = "gpu";

/// The variables passed to the probe child besides `PATH` and `LD_LIBRARY_PATH` (SPEC §10.2).
const CHILD_VARS: [&str; 5] = [
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "ROCM_PATH",
];

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

/// GPU facts from [`markerspec_gpu::Detector`], which runs every vendor's probe in a child
/// process with a time limit and caches the answer in memory: the NVIDIA driver and libraries
/// (NVML, then libcuda, then `nvidia-smi`), and the AMD stack (the HIP runtime, the installed
/// release, the kernel driver's topology and device).
///
/// Provenance names the stack: NVIDIA's fields are in the layer `cuda` (method: the source,
/// `nvml`, `libcuda`, `nvidia_smi`, or the library), AMD's in the layer `rocm` (method: the file
/// read, or `hipRuntimeGetVersion`), and `gpu_backends` in the layer `gpu`.
///
/// What each NVIDIA field becomes (SPEC §8.5 to §8.8, §8.10):
///
/// | detection | `cuda_version`, `nvidia_driver_version` | device fields | `cuda` in `gpu_backends` |
/// | --- | --- | --- | --- |
/// | no driver (every source said "not here") | Absent | Absent | no |
/// | driver, zero visible devices | Known | Absent | no |
/// | driver, devices | Known (Unknown when the driver did not say) | Known | yes |
/// | hung, crashed, garbage, every source failed | Unknown | Unknown | `gpu_backends` Unknown |
///
/// `cuda_compute_capability` is the lowest capability among the visible devices,
/// `cuda_compute_capabilities` the set of all. cuDNN, NCCL and cuTENSOR follow each library's
/// [`LibraryStatus`](markerspec_gpu::LibraryStatus): Known when a soname loads and answers,
/// Absent when none loads (or when the detector did not look for them), Unknown when one loads
/// but its version function is missing or fails.
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
/// ROCm (Linux, SPEC §8.9), all of it read by the probe: `rocm_version` from
/// `$ROCM_PATH/.info/version` (default `/opt/rocm`) up to the first `-`, else the HIP runtime's
/// `major.minor`; `rocm_gpu_archs` from the `gfx_target_version` of each GPU node under
/// `/sys/class/kfd/kfd/topology/nodes`, filtered here by `ROCR_VISIBLE_DEVICES` then
/// `HIP_VISIBLE_DEVICES` (indices or `GPU-` UUIDs; a value that cannot be applied exactly makes
/// the field Unknown); `rocm` is in `gpu_backends` when an agent is visible and `/dev/kfd`
/// opens for reading and writing. A probe that hangs or crashes leaves the ROCm fields Unknown,
/// as it does the CUDA ones. (`getROCmVersion` from `librocm-core` is not called; the version
/// file is the SPEC's second method.)
///
/// Windows: CUDA as above; ROCm Absent (not detected in SPEC 0.1.0). macOS: every field Absent,
/// without probing.
///
/// ```no_run
/// use std::time::Duration;
/// use markerspec_env::{EnvironmentProvider, GPU_FIELDS, GpuProvider};
/// use markerspec_pep508::Field;
///
/// fn main() {
///     // The probe may run this program again as its child: this line serves it.
///     markerspec_env::run_probe_if_requested();
///     let gpu = GpuProvider::new().timeout(Duration::from_secs(5));
///     let facts = gpu.provide(GPU_FIELDS.into_iter().collect()).unwrap();
///     println!("{:?}", facts.get(Field::GpuBackends));
/// }
/// ```
#[derive(Clone, Debug)]
pub struct GpuProvider {
    detector: Detector,
    vars: BTreeMap<String, OsString>,
    kfd_topology: PathBuf,
    kfd_device: PathBuf,
    rocm_path: Option<PathBuf>,
    in_process: bool,
    platform: Platform,
}

/// The former name of [`GpuProvider`], from when it was thought of as NVIDIA's.
#[deprecated(note = "renamed `GpuProvider`: it provides the ROCm fields too")]
pub type CudaProvider = GpuProvider;

impl Default for GpuProvider {
    fn default() -> Self {
        GpuProvider::new()
    }
}

impl GpuProvider {
    /// The default detector (10-second limit, memory cache) and the system's files.
    pub fn new() -> GpuProvider {
        GpuProvider::with_detector(Detector::new())
    }

    /// A provider around a configured detector (library paths, sources, probe program, disk
    /// cache). The visible-device variables from [`vars`](Self::vars) are added to it, and the
    /// ROCm paths are this provider's ([`kfd_topology`](Self::kfd_topology),
    /// [`kfd_device`](Self::kfd_device), [`rocm_path`](Self::rocm_path)).
    pub fn with_detector(detector: Detector) -> GpuProvider {
        GpuProvider {
            detector,
            vars: BTreeMap::new(),
            kfd_topology: PathBuf::from(markerspec_gpu::rocm::KFD_TOPOLOGY),
            kfd_device: PathBuf::from(markerspec_gpu::rocm::KFD_DEVICE),
            rocm_path: None,
            in_process: false,
            platform: Platform::current(),
        }
    }

    /// The probe's time limit.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> GpuProvider {
        self.detector = self.detector.timeout(timeout);
        self
    }

    /// The environment variables detection should see: `PATH` and `LD_LIBRARY_PATH` for the
    /// probe child, the visible-device variables, `ROCM_PATH`. Others are ignored. The CLI
    /// passes `std::env::vars_os()`; without this call, the process's own `PATH` and
    /// `LD_LIBRARY_PATH` are used and no visibility variable applies.
    #[must_use]
    pub fn vars<I, K, V>(mut self, vars: I) -> GpuProvider
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
    pub fn kfd_topology(mut self, dir: impl Into<PathBuf>) -> GpuProvider {
        self.kfd_topology = dir.into();
        self
    }

    /// The KFD device opened to decide whether ROCm is usable (default `/dev/kfd`).
    #[must_use]
    pub fn kfd_device(mut self, path: impl Into<PathBuf>) -> GpuProvider {
        self.kfd_device = path.into();
        self
    }

    /// The ROCm installation (default `$ROCM_PATH` when it is an absolute path, else
    /// `/opt/rocm`).
    #[must_use]
    pub fn rocm_path(mut self, dir: impl Into<PathBuf>) -> GpuProvider {
        self.rocm_path = Some(dir.into());
        self
    }

    /// Detects inside this process instead of a child (see
    /// [`Detector::detect_in_process`]: a driver that hangs or crashes takes this process with
    /// it). For tests and for callers that cannot start processes.
    #[must_use]
    pub fn in_process(mut self, in_process: bool) -> GpuProvider {
        self.in_process = in_process;
        self
    }

    fn var(&self, name: &str) -> Option<String> {
        self.vars
            .get(name)
            .map(|v| v.to_string_lossy().into_owned())
    }

    /// Where ROCm's files are: the provider's settings, `ROCM_PATH`, the defaults.
    fn rocm_paths(&self) -> rocm::Paths {
        let root = self
            .rocm_path
            .clone()
            .or_else(|| {
                // A relative ROCM_PATH would resolve against the current folder: ignored.
                self.var("ROCM_PATH")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
            })
            .unwrap_or_else(|| PathBuf::from(markerspec_gpu::rocm::DEFAULT_ROCM_PATH));
        rocm::Paths {
            root,
            topology: self.kfd_topology.clone(),
            device: self.kfd_device.clone(),
        }
    }

    fn detector(&self, rocm: &rocm::Paths) -> Detector {
        let mut detector = self
            .detector
            .clone()
            .rocm_path(&rocm.root)
            .kfd_topology(&rocm.topology)
            .kfd_device(&rocm.device);
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
            let p = Provenance::new(LAYER, "platform").with_detail(
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
        let rocm_paths = self.rocm_paths();
        let detector = self.detector(&rocm_paths);
        let detection = self.run(&detector);
        let visibility = cuda::Visibility {
            visible_devices: self.var("CUDA_VISIBLE_DEVICES"),
            device_order: self.var("CUDA_DEVICE_ORDER"),
        };
        let driver_api = cuda::needs_driver_api(detection.cuda(), &visibility).then(|| {
            let detector = detector.clone().sources([Source::LibCuda]).rocm(false);
            self.run(&detector).cuda().cloned()
        });
        let cuda_backend = cuda::map(
            &mut facts,
            detection.cuda(),
            &visibility,
            driver_api.as_ref().and_then(Option::as_ref),
        );
        let rocm_backend = if self.platform == Platform::Linux {
            let visibility = rocm::Visibility {
                rocr: self.var("ROCR_VISIBLE_DEVICES"),
                hip: self.var("HIP_VISIBLE_DEVICES"),
            };
            rocm::map(&mut facts, detection.rocm(), &rocm_paths, &visibility)
        } else {
            rocm::not_on_this_platform(&mut facts)
        };
        backends(
            &mut facts,
            &[("cuda", cuda_backend), ("rocm", rocm_backend)],
        );
        facts
    }
}

impl EnvironmentProvider for GpuProvider {
    fn name(&self) -> &str {
        LAYER
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

/// Every field of one vendor Unknown for the same reason (its probe failed, or the detection
/// has no report for it), recorded under `layer`; the vendor's backend is Unknown too.
pub(crate) fn all_unknown(
    facts: &mut Facts,
    layer: &'static str,
    fields: &[Field],
    why: String,
) -> Backend {
    let p = Provenance::new(layer, "probe").with_detail(why.clone());
    for &field in fields {
        facts.unknown(field, p.clone());
    }
    Backend::Unknown(why)
}

/// `gpu_backends` from each stack's answer: Unknown when any is, else the usable ones.
fn backends(facts: &mut Facts, stacks: &[(&str, Backend)]) {
    let mut members = Vec::new();
    let mut details = Vec::new();
    for (name, backend) in stacks {
        match backend {
            Backend::Yes => members.push(*name),
            Backend::No => {}
            Backend::NotUsable(why) => details.push(why.as_str()),
            Backend::Unknown(why) => {
                facts.unknown(
                    Field::GpuBackends,
                    Provenance::new(LAYER, "probe").with_detail(format!("{name}: {why}")),
                );
                return;
            }
        }
    }
    let p = Provenance::new(LAYER, "probe").with_detail(details.join("; "));
    facts.known_set(Field::GpuBackends, members, p);
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

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_pep508::EnvValue;

    pub(super) fn set(items: &[&str]) -> Option<EnvValue> {
        Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
    }

    #[test]
    fn a_relative_rocm_path_is_ignored() {
        let default = PathBuf::from(markerspec_gpu::rocm::DEFAULT_ROCM_PATH);
        let relative = GpuProvider::new().vars([("ROCM_PATH", "opt/rocm-6.3")]);
        assert_eq!(relative.rocm_paths().root, default);
        let empty = GpuProvider::new().vars([("ROCM_PATH", "")]);
        assert_eq!(empty.rocm_paths().root, default);
        let absolute = GpuProvider::new().vars([("ROCM_PATH", "/opt/rocm-6.3")]);
        assert_eq!(absolute.rocm_paths().root, PathBuf::from("/opt/rocm-6.3"));
    }

    #[test]
    fn backends_combine() {
        let mut facts = Facts::new();
        backends(&mut facts, &[("cuda", Backend::Yes), ("rocm", Backend::No)]);
        assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
        let p = &facts.get(Field::GpuBackends).unwrap().provenance;
        assert_eq!((p.layer(), p.method()), ("gpu", "probe"));
        backends(
            &mut facts,
            &[
                ("cuda", Backend::No),
                ("rocm", Backend::NotUsable("x".into())),
            ],
        );
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        backends(
            &mut facts,
            &[
                ("cuda", Backend::Yes),
                ("rocm", Backend::Unknown("t".into())),
            ],
        );
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
        backends(
            &mut facts,
            &[("cuda", Backend::Yes), ("rocm", Backend::Yes)],
        );
        assert_eq!(
            facts.value(Field::GpuBackends),
            set(&["cuda", "rocm"]).as_ref()
        );
    }

    #[test]
    fn summaries_leave_out_the_paths_tried_and_stay_short() {
        let notes = vec![
            "NVML: not found (tried libnvidia-ml.so.1, /usr/lib/wsl/lib/libnvidia-ml.so.1)".into(),
            "nvidia-smi: not found".into(),
        ];
        assert_eq!(summary(&notes), "NVML: not found; nvidia-smi: not found");
        let long = vec!["é".repeat(400)];
        let short = summary(&long);
        assert!(
            short.ends_with('…') && short.len() <= 304,
            "{}",
            short.len()
        );
    }
}
