//! What detection found: the report types, serialized between the probe child and its parent and
//! into the disk cache.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A `major.minor` CUDA version, as the driver reports the highest version it supports.
///
/// The driver encodes it as `1000 * major + 10 * minor` (`12040` is 12.4); see
/// [`CudaVersion::from_encoded`]. Ordered by `(major, minor)`.
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

/// A `major.minor.patch` library version (cuDNN, NCCL, cuTENSOR, the HIP runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LibVersion {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
    /// The patch version (for HIP, the build number).
    pub patch: u32,
}

impl LibVersion {
    /// Decodes the integer that cuDNN, NCCL and cuTENSOR return from their version functions.
    ///
    /// Two encodings exist. Codes of 10000 and above are `10000 * major + 100 * minor + patch`:
    /// cuDNN 9 (`90100` is 9.1.0), NCCL 2.9 and later (`22105` is 2.21.5), every cuTENSOR
    /// (`20001` is 2.0.1). Codes below 10000 are `1000 * major + 100 * minor + patch`: cuDNN 8
    /// and older (`8907` is 8.9.7) and NCCL before 2.9 (`2804` is 2.8.4). The two ranges do not
    /// overlap, so the code alone tells which applies.
    ///
    /// # Errors
    ///
    /// [`VersionError`] when the code decodes to a major version of 0 or above 99.
    #[doc(alias = "cudnnGetVersion")]
    #[doc(alias = "ncclGetVersion")]
    #[doc(alias = "cutensorGetVersion")]
    pub fn from_nvidia_code(what: &'static str, code: u64) -> Result<Self, VersionError> {
        let (major, minor, patch) = if code >= 10_000 {
            (code / 10_000, (code % 10_000) / 100, code % 100)
        } else {
            (code / 1000, (code % 1000) / 100, code % 100)
        };
        Self::checked(what, code, major, minor, patch)
    }

    /// Decodes `hipRuntimeGetVersion`'s `10_000_000 * major + 100_000 * minor + patch`
    /// (`60241133` is 6.2.41133).
    ///
    /// # Errors
    ///
    /// [`VersionError`] when the code is negative or decodes to a major version of 0 or above 99.
    #[doc(alias = "hipRuntimeGetVersion")]
    pub fn from_hip_code(code: i32) -> Result<Self, VersionError> {
        let raw = i64::from(code);
        let code = u64::try_from(code).map_err(|_| VersionError {
            what: "HIP runtime",
            code: raw,
        })?;
        Self::checked(
            "HIP runtime",
            code,
            code / 10_000_000,
            (code / 100_000) % 100,
            code % 100_000,
        )
    }

    fn checked(
        what: &'static str,
        code: u64,
        major: u64,
        minor: u64,
        patch: u64,
    ) -> Result<Self, VersionError> {
        let error = || VersionError {
            what,
            code: i64::try_from(code).unwrap_or(i64::MAX),
        };
        if !(1..=99).contains(&major) {
            return Err(error());
        }
        Ok(Self {
            major: u32::try_from(major).map_err(|_| error())?,
            minor: u32::try_from(minor).map_err(|_| error())?,
            patch: u32::try_from(patch).map_err(|_| error())?,
        })
    }
}

impl fmt::Display for LibVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A version code that no real library returns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} version code {code} is out of range")]
pub struct VersionError {
    what: &'static str,
    code: i64,
}

impl VersionError {
    /// The code as the library returned it.
    #[must_use]
    pub fn code(&self) -> i64 {
        self.code
    }
}

/// Where a [`CudaReport`] came from.
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

/// Optional CUDA libraries that load here, with the versions they report.
///
/// `None` means the library could not be loaded (or was not asked about); why is in
/// [`CudaReport::notes`] when it was something other than "not installed".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Libraries {
    /// cuDNN (`libcudnn.so.9`, `.8`, `.7`), from `cudnnGetVersion`.
    #[doc(alias = "cudnnGetVersion")]
    pub cudnn: Option<LibVersion>,
    /// NCCL (`libnccl.so.2`), from `ncclGetVersion`.
    #[doc(alias = "ncclGetVersion")]
    pub nccl: Option<LibVersion>,
    /// cuTENSOR (`libcutensor.so.2`, `.1`), from `cutensorGetVersion`.
    #[doc(alias = "cutensorGetVersion")]
    pub cutensor: Option<LibVersion>,
}

/// What the NVIDIA driver says about this machine.
///
/// A report with no [`devices`](Self::devices) means the driver is loaded but exposes no GPU;
/// a `None` field means the source could not tell (the reason is in [`notes`](Self::notes)),
/// which is "unknown", not "absent".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CudaReport {
    /// The kernel-mode driver version, e.g. `550.144.03`.
    #[doc(alias = "nvmlSystemGetDriverVersion")]
    pub driver_version: Option<String>,
    /// The highest CUDA version the driver supports (conda's `__cuda`).
    #[doc(alias = "cuDriverGetVersion")]
    pub cuda_driver_version: Option<CudaVersion>,
    /// Every device the source lists, in index order.
    pub devices: Vec<Device>,
    /// Optional CUDA libraries found.
    pub libraries: Libraries,
    /// The source that produced the report.
    pub source: Source,
    /// What else happened: sources skipped and why, values rejected, gaps filled from another
    /// source. For people, not for parsing.
    pub notes: Vec<String>,
}

impl CudaReport {
    /// The lowest compute capability among the devices (conda's `__cuda_arch` choice), or `None`
    /// without devices.
    #[must_use]
    pub fn min_compute_capability(&self) -> Option<(u32, u32)> {
        self.devices.iter().map(|d| d.compute_capability).min()
    }

    /// Every distinct compute capability among the devices, in ascending order.
    #[must_use]
    pub fn compute_capabilities(&self) -> Vec<(u32, u32)> {
        let mut all: Vec<_> = self.devices.iter().map(|d| d.compute_capability).collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// What the ROCm/HIP runtime says about this machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RocmReport {
    /// The HIP runtime version from `hipRuntimeGetVersion` (its patch is HIP's build number).
    #[doc(alias = "hipRuntimeGetVersion")]
    pub version: Option<LibVersion>,
    /// The distinct GPU architectures from the kernel driver's topology (`gfx90a`, `gfx942`),
    /// sorted.
    pub gpu_archs: Vec<String>,
    /// What else happened. For people, not for parsing.
    pub notes: Vec<String>,
}

/// The answer for one accelerator stack: absent, detected, or unknown.
///
/// "No GPU" is [`Outcome::Absent`], an ordinary answer; [`Outcome::Unknown`] means detection did
/// not get an answer, and a caller must not read it as either of the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome<T> {
    /// Nothing of this stack is installed or running here. `notes` say what was looked for.
    Absent {
        /// What was tried, for people.
        notes: Vec<String>,
    },
    /// The stack answered.
    Detected(T),
    /// Detection failed: it hung, crashed, printed garbage, or every source that exists failed.
    Unknown {
        /// Why.
        reason: UnknownReason,
    },
}

impl<T> Outcome<T> {
    /// The report, when detected.
    #[must_use]
    pub fn detected(&self) -> Option<&T> {
        match self {
            Outcome::Detected(report) => Some(report),
            _ => None,
        }
    }

    /// Whether the stack is absent (an answer, not a failure).
    #[must_use]
    pub fn is_absent(&self) -> bool {
        matches!(self, Outcome::Absent { .. })
    }

    /// Why detection failed, when it did.
    #[must_use]
    pub fn unknown_reason(&self) -> Option<&UnknownReason> {
        match self {
            Outcome::Unknown { reason } => Some(reason),
            _ => None,
        }
    }
}

/// Why an [`Outcome`] is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum UnknownReason {
    /// The probe did not finish in time and was killed.
    Timeout {
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The probe died: killed by a signal (a driver that crashed it) or exited with a failure.
    Crashed {
        /// The signal that ended it, on Unix.
        signal: Option<i32>,
        /// Its exit code, when it exited.
        exit_code: Option<i32>,
        /// The end of what it wrote to stderr.
        stderr: String,
    },
    /// The probe's output was not a report this crate understands.
    Garbage {
        /// What was wrong, with a short excerpt.
        detail: String,
    },
    /// The probe program could not be started.
    Spawn {
        /// The program.
        program: String,
        /// The operating system's error.
        error: String,
    },
    /// Some part of the stack is installed, but every source that exists failed.
    Driver {
        /// One line per failed source.
        errors: Vec<String>,
    },
    /// The program run as the probe does not act as one: it is the calling program itself
    /// (no `markerspec-gpu-probe` beside it) and its `main` does not start with
    /// `run_probe_if_requested()`. The probe child stopped at once instead of detecting again.
    NoProbeEntryPoint {
        /// The program that was run.
        program: String,
    },
    /// Detection was asked for inside a probe child (a process marked by the detector that
    /// started it), where a probe never starts another one.
    InsideProbe,
}

impl fmt::Display for UnknownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownReason::Timeout { after_ms } => {
                write!(f, "detection timed out after {after_ms} ms")
            }
            UnknownReason::Crashed {
                signal: Some(signal),
                ..
            } => write!(f, "detection crashed: killed by signal {signal}"),
            UnknownReason::Crashed {
                exit_code, stderr, ..
            } => {
                match exit_code {
                    Some(code) => write!(f, "detection failed: probe exited with code {code}")?,
                    None => f.write_str("detection failed: probe ended abnormally")?,
                }
                if let Some(line) = stderr.lines().rev().find(|l| !l.trim().is_empty()) {
                    write!(f, " ({})", line.trim())?;
                }
                Ok(())
            }
            UnknownReason::Garbage { detail } => {
                write!(f, "detection produced unreadable output: {detail}")
            }
            UnknownReason::Spawn { program, error } => {
                write!(f, "could not start the probe `{program}`: {error}")
            }
            UnknownReason::Driver { errors } => {
                write!(
                    f,
                    "the driver is installed but failed: {}",
                    errors.join("; ")
                )
            }
            UnknownReason::NoProbeEntryPoint { program } => write!(
                f,
                "`{program}` was run as the GPU probe but does not act as one: call \
                 `markerspec_env::run_probe_if_requested()` (or `markerspec_gpu::…`) first \
                 thing in its `main`, install `markerspec-gpu-probe` beside it, or name a \
                 probe program with `Detector::probe_program`"
            ),
            UnknownReason::InsideProbe => f.write_str(
                "detection was asked for inside the GPU probe child, which never starts \
                 another probe",
            ),
        }
    }
}

/// How a [`Detection`] was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Origin {
    /// Just now, in an isolated child process.
    Probe,
    /// Just now, inside the calling process ([`Detector::detect_in_process`](crate::Detector::detect_in_process)).
    InProcess,
    /// From this process's memory cache.
    MemoryCache,
    /// From a validated disk cache entry.
    DiskCache,
}

/// Everything one detection found: the NVIDIA and the ROCm answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detection {
    /// The NVIDIA CUDA answer.
    pub cuda: Outcome<CudaReport>,
    /// The AMD ROCm answer.
    pub rocm: Outcome<RocmReport>,
    /// How this answer was obtained.
    pub origin: Origin,
    /// Notes about the detection itself (the cache, the probe), for people.
    pub notes: Vec<String>,
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
    fn library_codes_decode_both_encodings() {
        let v = |code| {
            LibVersion::from_nvidia_code("x", code)
                .map(|v| v.to_string())
                .unwrap()
        };
        assert_eq!(v(90100), "9.1.0"); // cuDNN 9
        assert_eq!(v(91002), "9.10.2"); // cuDNN 9, two-digit minor
        assert_eq!(v(8907), "8.9.7"); // cuDNN 8
        assert_eq!(v(7605), "7.6.5"); // cuDNN 7
        assert_eq!(v(22105), "2.21.5"); // NCCL >= 2.9
        assert_eq!(v(2804), "2.8.4"); // NCCL < 2.9
        assert_eq!(v(20001), "2.0.1"); // cuTENSOR 2
        assert_eq!(v(10700), "1.7.0"); // cuTENSOR 1
        assert!(LibVersion::from_nvidia_code("x", 0).is_err());
        assert!(LibVersion::from_nvidia_code("x", 999).is_err());
        assert!(LibVersion::from_nvidia_code("x", 1_000_000).is_err());
        assert!(LibVersion::from_nvidia_code("x", u64::MAX).is_err());
    }

    #[test]
    fn hip_codes_decode() {
        let v = LibVersion::from_hip_code(60_241_133).unwrap();
        assert_eq!(v.to_string(), "6.2.41133");
        assert_eq!(
            LibVersion::from_hip_code(50_700_000).unwrap().to_string(),
            "5.7.0"
        );
        assert!(LibVersion::from_hip_code(-1).is_err());
        assert!(LibVersion::from_hip_code(99_999).is_err());
    }

    #[test]
    fn outcome_serializes_with_a_tag() {
        let absent: Outcome<RocmReport> = Outcome::Absent { notes: vec![] };
        assert_eq!(
            serde_json::to_string(&absent).unwrap(),
            r#"{"outcome":"absent","notes":[]}"#
        );
        let unknown: Outcome<RocmReport> = Outcome::Unknown {
            reason: UnknownReason::Timeout { after_ms: 5 },
        };
        let json = serde_json::to_string(&unknown).unwrap();
        assert_eq!(
            json,
            r#"{"outcome":"unknown","reason":{"kind":"timeout","after_ms":5}}"#
        );
        let back: Outcome<RocmReport> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, unknown);
        let detected = Outcome::Detected(RocmReport {
            version: None,
            gpu_archs: vec!["gfx90a".into()],
            notes: vec![],
        });
        let json = serde_json::to_string(&detected).unwrap();
        assert_eq!(
            serde_json::from_str::<Outcome<RocmReport>>(&json).unwrap(),
            detected
        );
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
            cuda_driver_version: None,
            devices: vec![dev(0, (9, 0)), dev(1, (8, 0)), dev(2, (9, 0))],
            libraries: Libraries::default(),
            source: Source::Nvml,
            notes: vec![],
        };
        assert_eq!(report.min_compute_capability(), Some((8, 0)));
        assert_eq!(report.compute_capabilities(), vec![(8, 0), (9, 0)]);
    }

    #[test]
    fn unknown_reasons_render() {
        let crashed = UnknownReason::Crashed {
            signal: Some(11),
            exit_code: None,
            stderr: String::new(),
        };
        assert_eq!(
            crashed.to_string(),
            "detection crashed: killed by signal 11"
        );
        let exited = UnknownReason::Crashed {
            signal: None,
            exit_code: Some(2),
            stderr: "first\nlast line\n\n".into(),
        };
        assert_eq!(
            exited.to_string(),
            "detection failed: probe exited with code 2 (last line)"
        );
    }
}
