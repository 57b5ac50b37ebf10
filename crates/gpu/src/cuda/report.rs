//! What the NVIDIA stack reports: the driver, its devices and the optional libraries.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::report::{LibVersion, VersionError};

/// A `major.minor` CUDA version, as the driver reports the highest version it supports.
///
/// The driver encodes it as `1000 * major + 10 * minor` (`12040` is 12.4); see
/// [`CudaVersion::from_encoded`]. Ordered by `(major, minor)`.
///
/// ```
/// use markerspec_gpu::CudaVersion;
///
/// let v = CudaVersion::from_encoded(12040).unwrap();
/// assert_eq!(v.to_string(), "12.4");
/// assert!(v > CudaVersion::new(11, 8).unwrap());
/// assert_eq!(CudaVersion::new(100, 0), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CudaVersion {
    /// The major version, 1 to 99.
    pub major: u32,
    /// The minor version, 0 to 99.
    pub minor: u32,
}

impl CudaVersion {
    /// Decodes the driver's integer form (`cuDriverGetVersion`, `nvmlSystemGetCudaDriverVersion`):
    /// `12040` is 12.4.
    ///
    /// # Errors
    ///
    /// [`VersionError`] when the code is negative or decodes to a major version of 0 or above 99:
    /// no real driver reports such a value, so it is garbage rather than a fact.
    #[doc(alias = "cuDriverGetVersion")]
    #[doc(alias = "nvmlSystemGetCudaDriverVersion_v2")]
    pub fn from_encoded(code: i32) -> Result<Self, VersionError> {
        let error = VersionError {
            what: "CUDA driver",
            code: i64::from(code),
        };
        let code = u32::try_from(code).map_err(|_| error.clone())?;
        Self::new(code / 1000, (code % 1000) / 10).ok_or(error)
    }

    /// A version from its parts, or `None` when `major` is not 1 to 99 or `minor` is above 99.
    ///
    /// See the example on [`CudaVersion`].
    #[must_use]
    pub fn new(major: u32, minor: u32) -> Option<Self> {
        ((1..=99).contains(&major) && minor <= 99).then_some(Self { major, minor })
    }
}

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Where a [`CudaReport`] came from.
///
/// ```
/// use markerspec_gpu::Source;
///
/// let names: Vec<&str> = Source::ALL.iter().map(|s| s.as_str()).collect();
/// assert_eq!(names, ["nvml", "libcuda", "nvidia_smi"]);
/// assert_eq!(Source::LibCuda.to_string(), "libcuda");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Source {
    /// The NVIDIA Management Library, `libnvidia-ml.so.1` (`nvml.dll`).
    Nvml,
    /// The CUDA driver API, `libcuda.so.1` (`nvcuda.dll`).
    #[serde(rename = "libcuda")]
    LibCuda,
    /// The `nvidia-smi` program.
    NvidiaSmi,
}

impl Source {
    /// Every source, in the default detection order.
    pub const ALL: [Source; 3] = [Source::Nvml, Source::LibCuda, Source::NvidiaSmi];

    /// The name used in notes and in JSON: `nvml`, `libcuda`, `nvidia_smi`.
    ///
    /// See the example on [`Source`].
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Nvml => "nvml",
            Source::LibCuda => "libcuda",
            Source::NvidiaSmi => "nvidia_smi",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One GPU as the driver lists it.
///
/// See the example on [`CudaReport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    /// The driver's index for the device (NVML and nvidia-smi index, or CUDA ordinal).
    pub index: u32,
    /// The marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// The compute capability `(major, minor)`, e.g. `(9, 0)`.
    #[doc(alias = "nvmlDeviceGetCudaComputeCapability")]
    #[doc(alias = "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")]
    pub compute_capability: (u32, u32),
    /// The device UUID, `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, where the source gives it.
    pub uuid: Option<String>,
    /// Total device memory in bytes, where the source gives it.
    pub memory_bytes: Option<u64>,
}

/// What detection learned about one optional library (cuDNN, NCCL, cuTENSOR).
///
/// The three answers a caller must tell apart are separate variants, not note wording: the
/// library is not there ([`NotFound`](Self::NotFound)), it loaded and could not tell its
/// version ([`Failed`](Self::Failed), "unknown"), or it told ([`Loaded`](Self::Loaded)).
///
/// ```
/// use markerspec_gpu::{LibVersion, LibraryStatus};
///
/// let nccl = LibraryStatus::Loaded {
///     library: "libnccl.so.2".to_owned(),
///     version: LibVersion::from_nvidia_code("NCCL", 22105).unwrap(),
/// };
/// assert_eq!(nccl.version(), Some(LibVersion { major: 2, minor: 21, patch: 5 }));
/// let broken = LibraryStatus::Failed {
///     library: "libcudnn.so.9".to_owned(),
///     reason: "cudnnGetVersion is missing".to_owned(),
/// };
/// assert_eq!(broken.version(), None); // unknown: not the same as NotFound
/// assert_ne!(broken, LibraryStatus::NotFound);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum LibraryStatus {
    /// Not looked for: no driver answered, or optional libraries were turned off
    /// ([`Detector::optional_libraries`](crate::Detector::optional_libraries)).
    #[default]
    NotProbed,
    /// No candidate file loaded: not installed (or, for a file that exists, not loadable here,
    /// which [`CudaReport::notes`] then says).
    NotFound,
    /// A file loaded, but its version function is missing, failed, or returned a code out of
    /// range.
    Failed {
        /// What was loaded: the path or the soname.
        library: String,
        /// Why no version came of it.
        reason: String,
    },
    /// A file loaded and reported its version.
    Loaded {
        /// What was loaded: the path or the soname.
        library: String,
        /// The version it reported.
        version: LibVersion,
    },
}

impl LibraryStatus {
    /// The version, when the library loaded and told it.
    ///
    /// See the example on [`LibraryStatus`].
    #[must_use]
    pub fn version(&self) -> Option<LibVersion> {
        match self {
            LibraryStatus::Loaded { version, .. } => Some(*version),
            _ => None,
        }
    }
}

/// The optional CUDA libraries, each with its own [`LibraryStatus`].
///
/// See the example on [`CudaReport`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Libraries {
    /// cuDNN (`libcudnn.so.9`, `.8`, `.7`), from `cudnnGetVersion`.
    #[doc(alias = "cudnnGetVersion")]
    pub cudnn: LibraryStatus,
    /// NCCL (`libnccl.so.2`), from `ncclGetVersion`.
    #[doc(alias = "ncclGetVersion")]
    pub nccl: LibraryStatus,
    /// cuTENSOR (`libcutensor.so.2`, `.1`), from `cutensorGetVersion`.
    #[doc(alias = "cutensorGetVersion")]
    pub cutensor: LibraryStatus,
    /// The CUDA runtime version the loaded cuDNN was built for, from `cudnnGetCudartVersion`
    /// (`12020` is 12.2). `None` when cuDNN did not load, or when it loaded and the function is
    /// missing or answered out of range (then the report's notes say why).
    #[doc(alias = "cudnnGetCudartVersion")]
    #[serde(default)]
    pub cudnn_cuda_version: Option<CudaVersion>,
}

/// What the CUDA driver API said about the CUDA version: the one normative source of
/// `cuda_version` (SPEC §8.6), `cuDriverGetVersion` of `libcuda.so.1` (`nvcuda.dll`) after
/// `cuInit(0)` succeeded with at least one device, in the probe (whose device masks are unset).
/// NVML's `nvmlSystemGetCudaDriverVersion` and `nvidia-smi`'s `CUDA Version:` are never used
/// for it: under a forward-compatibility `libcuda.so.1` they report another version than the
/// one a CUDA program gets. Their answers, when they differ, are in the report's notes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DriverApi {
    /// The driver API was not asked (`libcuda` is not among the [`Detector::sources`]).
    ///
    /// [`Detector::sources`]: crate::Detector::sources
    #[default]
    NotAsked,
    /// `cuInit(0)` succeeded, at least one device, and `cuDriverGetVersion` answered.
    Version {
        /// The highest CUDA version the loaded driver library supports.
        version: CudaVersion,
    },
    /// No CUDA here for a CUDA program: `libcuda` is not found, or `cuInit` returned
    /// `CUDA_ERROR_NO_DEVICE` (or the stub library's error), or it enumerates no device.
    NotPresent {
        /// Why, for people.
        note: String,
    },
    /// `libcuda` is there and failed: another `cuInit` error (for example
    /// `CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE` from a forward-compatibility library), a
    /// missing symbol, a failing or out-of-range `cuDriverGetVersion`.
    Failed {
        /// What failed, with the driver's error code.
        reason: String,
    },
}

impl DriverApi {
    /// The CUDA version, when the driver API told it.
    #[must_use]
    pub fn version(&self) -> Option<CudaVersion> {
        match self {
            DriverApi::Version { version } => Some(*version),
            _ => None,
        }
    }
}

/// What the NVIDIA driver says about this machine.
///
/// A report with no [`devices`](Self::devices) means the driver is loaded but exposes no GPU;
/// a `None` field means the source could not tell (the reason is in [`notes`](Self::notes)),
/// which is "unknown", not "absent".
///
/// ```
/// use markerspec_gpu::{
///     CudaReport, CudaVersion, Device, DriverApi, LibVersion, Libraries, LibraryStatus, Source,
/// };
///
/// let device = |index, name: &str, compute_capability| Device {
///     index,
///     name: name.to_owned(),
///     compute_capability,
///     uuid: None,
///     memory_bytes: Some(80 << 30),
/// };
/// let report = CudaReport {
///     driver_version: Some("550.144.03".to_owned()),
///     driver_api: DriverApi::Version { version: CudaVersion::new(12, 4).unwrap() },
///     devices: vec![
///         device(0, "NVIDIA H100 80GB HBM3", (9, 0)),
///         device(1, "NVIDIA A100-SXM4-80GB", (8, 0)),
///         device(2, "NVIDIA H100 80GB HBM3", (9, 0)),
///     ],
///     libraries: Libraries {
///         cudnn: LibraryStatus::Loaded {
///             library: "libcudnn.so.9".to_owned(),
///             version: LibVersion::from_nvidia_code("cuDNN", 90100).unwrap(),
///         },
///         nccl: LibraryStatus::NotFound,
///         ..Libraries::default()
///     },
///     source: Source::Nvml,
///     notes: Vec::new(),
/// };
/// assert_eq!(report.cuda_driver_version(), CudaVersion::new(12, 4));
/// assert_eq!(report.min_compute_capability(), Some((8, 0)));
/// assert_eq!(report.compute_capabilities(), [(8, 0), (9, 0)]);
/// assert_eq!(report.libraries.cudnn.version().map(|v| v.to_string()), Some("9.1.0".to_owned()));
/// assert_eq!(report.libraries.nccl.version(), None);
/// assert_eq!(report.libraries.cutensor, LibraryStatus::NotProbed);
/// assert_eq!(report.source.as_str(), "nvml");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CudaReport {
    /// The kernel-mode driver version, e.g. `550.144.03`.
    #[doc(alias = "nvmlSystemGetDriverVersion")]
    pub driver_version: Option<String>,
    /// The highest CUDA version the driver supports, from the driver API only (see
    /// [`DriverApi`]), whichever source listed the devices.
    #[doc(alias = "cuDriverGetVersion")]
    pub driver_api: DriverApi,
    /// Every device the source lists, in index order.
    pub devices: Vec<Device>,
    /// The optional CUDA libraries, each with its status.
    pub libraries: Libraries,
    /// The source that produced the report.
    pub source: Source,
    /// What else happened: sources skipped and why, values rejected, gaps filled from another
    /// source. For people, not for parsing.
    pub notes: Vec<String>,
}

impl CudaReport {
    /// The highest CUDA version the driver supports, when the driver API told it
    /// ([`DriverApi::version`]).
    #[must_use]
    #[doc(alias = "cuDriverGetVersion")]
    pub fn cuda_driver_version(&self) -> Option<CudaVersion> {
        self.driver_api.version()
    }

    /// The lowest compute capability among the devices (conda's `__cuda_arch` choice), or `None`
    /// without devices.
    ///
    /// See the example on [`CudaReport`].
    #[must_use]
    pub fn min_compute_capability(&self) -> Option<(u32, u32)> {
        self.devices.iter().map(|d| d.compute_capability).min()
    }

    /// Every distinct compute capability among the devices, in ascending order.
    ///
    /// See the example on [`CudaReport`].
    #[must_use]
    pub fn compute_capabilities(&self) -> Vec<(u32, u32)> {
        let mut all: Vec<_> = self.devices.iter().map(|d| d.compute_capability).collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_version_decodes_driver_codes() {
        let v = |code| CudaVersion::from_encoded(code).map(|v| v.to_string());
        assert_eq!(v(12040).unwrap(), "12.4");
        assert_eq!(v(11080).unwrap(), "11.8");
        assert_eq!(v(13000).unwrap(), "13.0");
        assert_eq!(v(99990).unwrap(), "99.99");
        for bad in [0, 999, -12040, 100_000, 1_000_000, i32::MAX] {
            let err = CudaVersion::from_encoded(bad).unwrap_err();
            assert_eq!(err.code(), i64::from(bad));
            assert!(err.to_string().contains("out of range"), "{err}");
        }
        assert!(CudaVersion::new(12, 100).is_none());
        assert!(CudaVersion::new(12, 4) < CudaVersion::new(12, 10));
    }

    #[test]
    fn compute_capability_helpers() {
        let dev = |i, cc| Device {
            index: i,
            name: String::new(),
            compute_capability: cc,
            uuid: None,
            memory_bytes: None,
        };
        let report = CudaReport {
            driver_version: None,
            driver_api: DriverApi::NotAsked,
            devices: vec![dev(0, (9, 0)), dev(1, (8, 0)), dev(2, (9, 0))],
            libraries: Libraries::default(),
            source: Source::Nvml,
            notes: vec![],
        };
        assert_eq!(report.min_compute_capability(), Some((8, 0)));
        assert_eq!(report.compute_capabilities(), vec![(8, 0), (9, 0)]);
    }
}
