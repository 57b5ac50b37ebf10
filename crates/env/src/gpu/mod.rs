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

use markerspec_gpu::{Detection, Detector};
use markerspec_pep508::{Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::provider::{EnvironmentProvider, ProviderError};

/// The fields the GPU provider answers.
///
/// See the examples on [`GpuProvider`].
pub const GPU_FIELDS: [Field; 12] = [
    Field::GpuBackends,
    Field::CudaVersion,
    Field::NvidiaDriverVersion,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilities,
    Field::CudaComputeCapabilityMax,
    Field::CudnnVersion,
    Field::CudnnCudaVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
    Field::RocmVersion,
    Field::RocmGpuArchs,
];

/// The provider's name, and the provenance layer of `gpu_backends` and of answers about the
/// platform as a whole.
const LAYER: &str = "gpu";

/// The variables passed to the probe child besides `PATH` and `LD_LIBRARY_PATH` (SPEC 0.2
/// §10.2). The device masks are not among them (§8.5).
const CHILD_VARS: [&str; 2] = ["ROCM_PATH", "HSA_OVERRIDE_GFX_VERSION"];

/// The device masks: never passed to the probe, whatever the caller's values (SPEC 0.2 §8.5),
/// and recorded in the provenance of `gpu_backends` when set.
///
/// See the second example on [`GpuProvider`], which passes one.
pub const DEVICE_MASKS: [&str; 4] = [
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
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
/// `nvml`, `libcuda`, `nvidia_smi`, the library, or the file read), AMD's in the layer `rocm`
/// (method: the file read, or `hipRuntimeGetVersion`), and `gpu_backends` in the layer `gpu`.
///
/// What each NVIDIA field becomes (SPEC §8.5 to §8.8, §8.10):
///
/// | detection | `cuda_version` | device fields | `cuda` in `gpu_backends` |
/// | --- | --- | --- | --- |
/// | no driver (every source said "not here") | Absent | Absent | no |
/// | driver, zero devices | Absent (SPEC 0.2 §8.6, invariant I1) | Absent | no |
/// | driver, devices | Known (Unknown when the driver did not say) | Known | yes |
/// | hung, crashed, garbage, every source failed | Unknown | Unknown | `gpu_backends` Unknown |
///
/// `cuda_compute_capability` is the lowest capability among the devices,
/// `cuda_compute_capability_max` the highest, `cuda_compute_capabilities` the set of all. cuDNN,
/// NCCL and cuTENSOR follow each library's [`LibraryStatus`](markerspec_gpu::LibraryStatus):
/// Known when a soname loads and answers, Absent when none loads (or when the detector did not
/// look for them), Unknown when one loads but its version function is missing or fails.
/// `cudnn_cuda_version` is cuDNN's `cudnnGetCudartVersion`, Absent exactly when
/// `cudnn_version` is.
///
/// `nvidia_driver_version` (SPEC 0.2 §8.7), on Linux: the loaded kernel module's
/// `/sys/module/nvidia/version`, else the `NVRM version:` line of `/proc/driver/nvidia/version`
/// (read here, no vendor code runs); Absent when neither exists; Unknown when one exists and
/// names no version. Elsewhere, what the probe's source reported.
///
/// Device masks (SPEC 0.2 §8.5): `CUDA_VISIBLE_DEVICES`, `ROCR_VISIBLE_DEVICES`,
/// `HIP_VISIBLE_DEVICES` and `GPU_DEVICE_ORDINAL` are never passed to the probe, so every
/// device counts, as conda's `__cuda` detector does: an install run with
/// `CUDA_VISIBLE_DEVICES=""` (a CI step, a scheduler's setting) describes the machine the
/// installed code will run on with its GPUs, not the masked install step. The caller's values
/// are recorded in the provenance of `gpu_backends`. (Detection [in
/// process](Self::in_process) cannot unset them: there this process's own masks apply.)
///
/// ROCm (Linux, SPEC §8.9), all of it read by the probe: `rocm_version` from
/// `$ROCM_PATH/.info/version` (default `/opt/rocm`) up to the first `-`, else the HIP runtime's
/// `major.minor`; `rocm_gpu_archs` from the `gfx_target_version` of each GPU node under
/// `/sys/class/kfd/kfd/topology/nodes`, renamed as the HIP runtime does when
/// `HSA_OVERRIDE_GFX_VERSION=M.m.s` is set (`10.3.0` → `gfx1030`; the sysfs targets stay in the
/// provenance); `rocm` is in `gpu_backends` when an agent exists and `/dev/kfd` opens for
/// reading and writing (when it does not, the archs are Absent too, invariant I3). A probe that
/// hangs or crashes leaves the ROCm fields Unknown, as it does the CUDA ones.
/// (`getROCmVersion` from `librocm-core` is not called; the version file is the SPEC's second
/// method.)
///
/// Loader variables (SPEC 0.2 §10.2): the probe gets `PATH` and `LD_LIBRARY_PATH` with their
/// empty and relative entries removed (glibc reads an empty entry as the current folder).
///
/// Windows: CUDA as above; ROCm Absent (not detected). macOS: every field Absent, without
/// probing.
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
///
/// With every file it reads missing and nothing else searched, both stacks are absent on any
/// machine (on Linux; macOS answers Absent without looking):
///
/// ```
/// use markerspec_env::{EnvironmentProvider, DEVICE_MASKS, GPU_FIELDS, GpuProvider};
/// use markerspec_gpu::Detector;
/// use markerspec_pep508::{EnvValue, Field};
///
/// let missing = std::env::temp_dir().join("markerspec-doc-no-such-dir");
/// let detector = Detector::new()
///     .search_system(false)
///     .memory_cache(false)
///     .nvml_library(missing.join("libnvidia-ml.so.1"))
///     .cuda_library(missing.join("libcuda.so.1"))
///     .nvidia_smi(missing.join("nvidia-smi"));
/// let gpu = GpuProvider::with_detector(detector)
///     .timeout(std::time::Duration::from_secs(5))
///     .vars([(DEVICE_MASKS[0], "0"), ("PATH", "/nonexistent")])
///     .kfd_topology(missing.join("nodes"))
///     .kfd_device(missing.join("kfd"))
///     .rocm_path(&missing)
///     .nvidia_module_files(missing.join("version"), missing.join("proc-version"))
///     .in_process(true);
/// let facts = gpu.provide(GPU_FIELDS.into_iter().collect()).unwrap();
/// # #[cfg(target_os = "linux")]
/// assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
/// ```
#[derive(Clone, Debug)]
pub struct GpuProvider {
    detector: Detector,
    vars: BTreeMap<String, OsString>,
    kfd_topology: PathBuf,
    kfd_device: PathBuf,
    rocm_path: Option<PathBuf>,
    nvidia_module: (PathBuf, PathBuf),
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
    ///
    /// See the example on [`GpuProvider`].
    pub fn new() -> GpuProvider {
        GpuProvider::with_detector(Detector::new())
    }

    /// A provider around a configured detector (library paths, sources, probe program, disk
    /// cache). The visible-device variables from [`vars`](Self::vars) are added to it, and the
    /// ROCm paths are this provider's ([`kfd_topology`](Self::kfd_topology),
    /// [`kfd_device`](Self::kfd_device), [`rocm_path`](Self::rocm_path)).
    ///
    /// See the example on [`GpuProvider`].
    pub fn with_detector(detector: Detector) -> GpuProvider {
        GpuProvider {
            detector,
            vars: BTreeMap::new(),
            kfd_topology: PathBuf::from(markerspec_gpu::rocm::KFD_TOPOLOGY),
            kfd_device: PathBuf::from(markerspec_gpu::rocm::KFD_DEVICE),
            rocm_path: None,
            nvidia_module: (
                PathBuf::from(markerspec_gpu::cuda::SYS_MODULE_VERSION),
                PathBuf::from(markerspec_gpu::cuda::PROC_DRIVER_VERSION),
            ),
            in_process: false,
            platform: Platform::current(),
        }
    }

    /// Whether the GPU probe also looks for cuDNN, NCCL and cuTENSOR (default: yes). Detection
    /// of a whole environment turns it off and asks the target interpreter instead
    /// ([`LibraryProvider`](crate::LibraryProvider), SPEC 0.2 §8.10): the GPU probe runs in a
    /// child of this program, whose loader is not the interpreter's.
    #[must_use]
    pub fn optional_libraries(mut self, look: bool) -> GpuProvider {
        self.detector = self.detector.optional_libraries(look);
        self
    }

    /// The probe's time limit.
    ///
    /// See the example on [`GpuProvider`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> GpuProvider {
        self.detector = self.detector.timeout(timeout);
        self
    }

    /// The environment variables detection should see: `PATH` and `LD_LIBRARY_PATH` for the
    /// probe child (their empty and relative entries removed), `ROCM_PATH`,
    /// `HSA_OVERRIDE_GFX_VERSION`, and the device masks, which are only recorded ([`DEVICE_MASKS`]).
    /// Others are ignored. The CLI passes `std::env::vars_os()`; without this call, the
    /// process's own `PATH` and `LD_LIBRARY_PATH` are used.
    ///
    /// See the example on [`GpuProvider`].
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
            if CHILD_VARS.contains(&name)
                || DEVICE_MASKS.contains(&name)
                || name == "PATH"
                || name == "LD_LIBRARY_PATH"
            {
                self.vars.insert(name.to_owned(), v.into());
            }
        }
        self
    }

    /// The KFD topology folder (default `/sys/class/kfd/kfd/topology/nodes`).
    ///
    /// See the example on [`GpuProvider`].
    #[must_use]
    pub fn kfd_topology(mut self, dir: impl Into<PathBuf>) -> GpuProvider {
        self.kfd_topology = dir.into();
        self
    }

    /// The KFD device opened to decide whether ROCm is usable (default `/dev/kfd`).
    ///
    /// See the example on [`GpuProvider`].
    #[must_use]
    pub fn kfd_device(mut self, path: impl Into<PathBuf>) -> GpuProvider {
        self.kfd_device = path.into();
        self
    }

    /// The ROCm installation (default `$ROCM_PATH` when it is an absolute path, else
    /// `/opt/rocm`).
    ///
    /// See the example on [`GpuProvider`].
    #[must_use]
    pub fn rocm_path(mut self, dir: impl Into<PathBuf>) -> GpuProvider {
        self.rocm_path = Some(dir.into());
        self
    }

    /// The files that name the loaded NVIDIA kernel module's version, read on Linux for
    /// `nvidia_driver_version` (default `/sys/module/nvidia/version`, then
    /// `/proc/driver/nvidia/version`).
    ///
    /// See the example on [`GpuProvider`].
    #[must_use]
    pub fn nvidia_module_files(
        mut self,
        module_version: impl Into<PathBuf>,
        proc_version: impl Into<PathBuf>,
    ) -> GpuProvider {
        self.nvidia_module = (module_version.into(), proc_version.into());
        self
    }

    /// Detects inside this process instead of a child (see
    /// [`Detector::detect_in_process`]: a driver that hangs or crashes takes this process with
    /// it). For tests and for callers that cannot start processes.
    ///
    /// See the example on [`GpuProvider`].
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
            detector = detector.path_var(absolute_entries(path));
        }
        if let Some(path) = self.vars.get("LD_LIBRARY_PATH") {
            detector = detector.library_path_var(absolute_entries(path));
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
        let driver = if self.platform == Platform::Linux {
            cuda::DriverSource::Module(markerspec_gpu::cuda::kernel_module_version(
                &self.nvidia_module.0,
                &self.nvidia_module.1,
            ))
        } else {
            cuda::DriverSource::Report
        };
        let cuda_backend = cuda::map(&mut facts, detection.cuda(), &driver);
        let rocm_backend = if self.platform == Platform::Linux {
            let hsa = self.var("HSA_OVERRIDE_GFX_VERSION");
            rocm::map(&mut facts, detection.rocm(), &rocm_paths, hsa.as_deref())
        } else {
            rocm::not_on_this_platform(&mut facts)
        };
        let masks: Vec<String> = DEVICE_MASKS
            .iter()
            .filter_map(|name| Some(format!("{name}={:?}", self.var(name)?)))
            .collect();
        backends(
            &mut facts,
            &[("cuda", cuda_backend), ("rocm", rocm_backend)],
            &masks,
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

/// `gpu_backends` from each stack's answer: Unknown when any is, else the usable ones. `masks`
/// are the caller's device masks, which were not applied (SPEC 0.2 §8.5).
fn backends(facts: &mut Facts, stacks: &[(&str, Backend)], masks: &[String]) {
    let mut members = Vec::new();
    let mut details = Vec::new();
    let masks = (!masks.is_empty())
        .then(|| format!("device masks not applied (SPEC §8.5): {}", masks.join(", ")));
    for (name, backend) in stacks {
        match backend {
            Backend::Yes => members.push(*name),
            Backend::No => {}
            Backend::NotUsable(why) => details.push(why.as_str()),
            Backend::Unknown(why) => {
                let mut detail = format!("{name}: {why}");
                if let Some(masks) = &masks {
                    detail = format!("{detail}; {masks}");
                }
                facts.unknown(
                    Field::GpuBackends,
                    Provenance::new(LAYER, "probe").with_detail(detail),
                );
                return;
            }
        }
    }
    details.extend(masks.as_deref());
    let p = Provenance::new(LAYER, "probe").with_detail(details.join("; "));
    facts.known_set(Field::GpuBackends, members, p);
}

/// A `PATH`-style list without its empty and relative entries, which would name the current
/// folder (SPEC 0.2 §10.2).
pub(crate) fn absolute_entries(list: &OsString) -> OsString {
    let kept: Vec<PathBuf> = std::env::split_paths(list)
        .filter(|p| p.is_absolute())
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
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
    fn loader_lists_lose_empty_and_relative_entries() {
        assert_eq!(
            absolute_entries(&OsString::from(":/usr/lib:lib:.::/opt/cuda/lib64:")),
            OsString::from("/usr/lib:/opt/cuda/lib64")
        );
        assert_eq!(absolute_entries(&OsString::from("")), OsString::from(""));
    }

    #[test]
    fn backends_combine() {
        let mut facts = Facts::new();
        backends(
            &mut facts,
            &[("cuda", Backend::Yes), ("rocm", Backend::No)],
            &[],
        );
        assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
        let p = &facts.get(Field::GpuBackends).unwrap().provenance;
        assert_eq!((p.layer(), p.method()), ("gpu", "probe"));
        backends(
            &mut facts,
            &[
                ("cuda", Backend::No),
                ("rocm", Backend::NotUsable("x".into())),
            ],
            &[],
        );
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        backends(
            &mut facts,
            &[
                ("cuda", Backend::Yes),
                ("rocm", Backend::Unknown("t".into())),
            ],
            &[],
        );
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
        backends(
            &mut facts,
            &[("cuda", Backend::Yes), ("rocm", Backend::Yes)],
            &["CUDA_VISIBLE_DEVICES=\"\"".to_owned()],
        );
        assert_eq!(
            facts.get(Field::GpuBackends).unwrap().provenance.detail(),
            Some("device masks not applied (SPEC §8.5): CUDA_VISIBLE_DEVICES=\"\"")
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
