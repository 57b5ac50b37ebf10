//! What detection found, common to every vendor: the [`Detection`] with one [`VendorReport`] per
//! vendor, the three-way [`Outcome`], and library versions. Serialized between the probe child
//! and its parent and into the disk cache. Each vendor's own report type lives in its module
//! ([`crate::cuda`], [`crate::rocm`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::cuda::CudaReport;
use crate::rocm::RocmReport;

/// A `major.minor.patch` library version (cuDNN, NCCL, cuTENSOR, the HIP runtime).
///
/// ```
/// use markerspec_gpu::LibVersion;
///
/// let cudnn = LibVersion::from_nvidia_code("cuDNN", 90100).unwrap();
/// assert_eq!(cudnn.to_string(), "9.1.0");
/// let nccl = LibVersion::from_nvidia_code("NCCL", 2804).unwrap();
/// assert_eq!(nccl.to_string(), "2.8.4");
/// assert!(LibVersion::from_nvidia_code("cuDNN", 7).is_err()); // major version 0: garbage
/// ```
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
///
/// ```
/// use markerspec_gpu::CudaVersion;
///
/// let err = CudaVersion::from_encoded(-1).unwrap_err();
/// assert_eq!(err.code(), -1);
/// assert_eq!(err.to_string(), "CUDA driver version code -1 is out of range");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} version code {code} is out of range")]
pub struct VersionError {
    pub(crate) what: &'static str,
    pub(crate) code: i64,
}

impl VersionError {
    /// The code as the library returned it.
    ///
    /// See the example on [`VersionError`].
    #[must_use]
    pub fn code(&self) -> i64 {
        self.code
    }
}

/// The answer for one accelerator stack: absent, detected, or unknown.
///
/// "No GPU" is [`Outcome::Absent`], an ordinary answer; [`Outcome::Unknown`] means detection did
/// not get an answer, and a caller must not read it as either of the others.
///
/// ```
/// use markerspec_gpu::{Outcome, Vendor, VendorReport};
///
/// // One vendor's answer as the probe prints it.
/// let json = r#"{"vendor":"rocm","outcome":"absent","notes":["no /dev/kfd"]}"#;
/// let report: VendorReport = serde_json::from_str(json).unwrap();
/// assert_eq!(report.vendor(), Vendor::Rocm);
/// assert!(report.is_absent());
/// let VendorReport::Rocm(Outcome::Absent { notes }) = report else { panic!("absent") };
/// assert_eq!(notes, ["no /dev/kfd"]);
/// ```
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
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn detected(&self) -> Option<&T> {
        match self {
            Outcome::Detected(report) => Some(report),
            _ => None,
        }
    }

    /// Whether the stack is absent (an answer, not a failure).
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn is_absent(&self) -> bool {
        matches!(self, Outcome::Absent { .. })
    }

    /// Why detection failed, when it did.
    ///
    /// See the example on [`Detection`].
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

/// A GPU vendor's compute stack, named as the `gpu_backends` marker field names it.
///
/// Each has a module in this crate ([`crate::cuda`], [`crate::rocm`]) and a [`VendorReport`]
/// variant. See the crate documentation for what a new vendor adds.
///
/// ```
/// use markerspec_gpu::Vendor;
///
/// let names: Vec<&str> = Vendor::ALL.iter().map(|v| v.as_str()).collect();
/// assert_eq!(names, ["cuda", "rocm"]);
/// assert_eq!(Vendor::Rocm.label(), "ROCm");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Vendor {
    /// NVIDIA: the CUDA driver (NVML, libcuda, `nvidia-smi`) and its optional libraries.
    Cuda,
    /// AMD: ROCm (the HIP runtime, the installed release, the amdgpu kernel driver's topology).
    Rocm,
}

impl Vendor {
    /// Every vendor, in the order a [`Detection`] lists them.
    pub const ALL: [Vendor; 2] = [Vendor::Cuda, Vendor::Rocm];

    /// The stack's name: `cuda`, `rocm` (the `gpu_backends` member, and the JSON tag).
    ///
    /// See the example on [`Vendor`].
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Cuda => "cuda",
            Vendor::Rocm => "rocm",
        }
    }

    /// How notes name the stack: `CUDA`, `ROCm`.
    ///
    /// See the example on [`Vendor`].
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Vendor::Cuda => "CUDA",
            Vendor::Rocm => "ROCm",
        }
    }
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One vendor's answer: which vendor, and its [`Outcome`] with that vendor's report type.
///
/// In JSON, the vendor is a `"vendor"` key beside the outcome's own keys:
/// `{"vendor":"rocm","outcome":"absent","notes":[…]}`.
///
/// ```
/// use markerspec_gpu::{UnknownReason, VendorReport};
///
/// let json = r#"{"vendor":"cuda","outcome":"unknown","reason":{"kind":"timeout","after_ms":10000}}"#;
/// let report: VendorReport = serde_json::from_str(json).unwrap();
/// assert!(!report.is_absent());
/// assert_eq!(report.unknown_reason(), Some(&UnknownReason::Timeout { after_ms: 10000 }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "vendor", rename_all = "snake_case")]
#[non_exhaustive]
pub enum VendorReport {
    /// The NVIDIA answer.
    Cuda(Outcome<CudaReport>),
    /// The AMD answer.
    Rocm(Outcome<RocmReport>),
}

impl VendorReport {
    /// Which vendor this is.
    ///
    /// See the example on [`Outcome`].
    #[must_use]
    pub fn vendor(&self) -> Vendor {
        match self {
            VendorReport::Cuda(_) => Vendor::Cuda,
            VendorReport::Rocm(_) => Vendor::Rocm,
        }
    }

    /// The same answer, Unknown for `reason`: what a vendor gets when the probe failed.
    pub(crate) fn unknown(vendor: Vendor, reason: UnknownReason) -> Self {
        match vendor {
            Vendor::Cuda => VendorReport::Cuda(Outcome::Unknown { reason }),
            Vendor::Rocm => VendorReport::Rocm(Outcome::Unknown { reason }),
        }
    }

    /// Absent with one note: what a vendor gets when it was not probed.
    pub(crate) fn absent(vendor: Vendor, note: String) -> Self {
        let notes = vec![note];
        match vendor {
            Vendor::Cuda => VendorReport::Cuda(Outcome::Absent { notes }),
            Vendor::Rocm => VendorReport::Rocm(Outcome::Absent { notes }),
        }
    }

    /// Whether the vendor's stack is absent (an answer, not a failure).
    ///
    /// See the example on [`VendorReport`].
    #[must_use]
    pub fn is_absent(&self) -> bool {
        match self {
            VendorReport::Cuda(outcome) => outcome.is_absent(),
            VendorReport::Rocm(outcome) => outcome.is_absent(),
        }
    }

    /// Why detection failed for this vendor, when it did.
    ///
    /// See the example on [`VendorReport`].
    #[must_use]
    pub fn unknown_reason(&self) -> Option<&UnknownReason> {
        match self {
            VendorReport::Cuda(outcome) => outcome.unknown_reason(),
            VendorReport::Rocm(outcome) => outcome.unknown_reason(),
        }
    }
}

/// Everything one detection found: one [`VendorReport`] per vendor, in [`Vendor::ALL`] order.
///
/// A vendor the [`Detector`](crate::Detector) was told not to probe is listed as absent with a
/// note saying so.
///
/// ```no_run
/// use markerspec_gpu::Detector;
///
/// let detection = Detector::new().rocm(false).detect();
/// for vendor in &detection.vendors {
///     println!("{}: absent {}", vendor.vendor(), vendor.is_absent());
/// }
/// println!("{}", serde_json::to_string(&detection).unwrap());
/// ```
///
/// Reading one, here built by hand:
///
/// ```
/// use markerspec_gpu::{
///     CudaReport, Detection, DriverApi, Libraries, Origin, Outcome, Source, UnknownReason,
///     Vendor, VendorReport,
/// };
///
/// let report = CudaReport {
///     driver_version: Some("550.144.03".to_owned()),
///     driver_api: DriverApi::NotAsked,
///     devices: Vec::new(),
///     libraries: Libraries::default(),
///     source: Source::Nvml,
///     notes: Vec::new(),
/// };
/// let detection = Detection {
///     vendors: vec![
///         VendorReport::Cuda(Outcome::Detected(report)),
///         VendorReport::Rocm(Outcome::Unknown { reason: UnknownReason::Timeout { after_ms: 10_000 } }),
///     ],
///     origin: Origin::Probe,
///     notes: Vec::new(),
/// };
/// let cuda = detection.cuda().unwrap();
/// assert_eq!(cuda.detected().unwrap().driver_version.as_deref(), Some("550.144.03"));
/// assert!(!cuda.is_absent());
/// assert_eq!(cuda.unknown_reason(), None);
/// let rocm = detection.rocm().unwrap();
/// assert!(rocm.detected().is_none());
/// assert_eq!(rocm.unknown_reason(), Some(&UnknownReason::Timeout { after_ms: 10_000 }));
/// assert_eq!(detection.vendor(Vendor::Rocm).map(VendorReport::vendor), Some(Vendor::Rocm));
/// assert!(detection.has_unknown());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detection {
    /// Each vendor's answer.
    pub vendors: Vec<VendorReport>,
    /// How this answer was obtained.
    pub origin: Origin,
    /// Notes about the detection itself (the cache, the probe), for people.
    pub notes: Vec<String>,
}

impl Detection {
    /// The report of `vendor`, when the detection has one.
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn vendor(&self, vendor: Vendor) -> Option<&VendorReport> {
        self.vendors.iter().find(|report| report.vendor() == vendor)
    }

    /// The NVIDIA answer, when the detection has one.
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn cuda(&self) -> Option<&Outcome<CudaReport>> {
        self.vendors.iter().find_map(|report| match report {
            VendorReport::Cuda(outcome) => Some(outcome),
            _ => None,
        })
    }

    /// The AMD answer, when the detection has one.
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn rocm(&self) -> Option<&Outcome<RocmReport>> {
        self.vendors.iter().find_map(|report| match report {
            VendorReport::Rocm(outcome) => Some(outcome),
            _ => None,
        })
    }

    /// Whether any vendor's answer is unknown (such a detection is never cached on disk).
    ///
    /// See the example on [`Detection`].
    #[must_use]
    pub fn has_unknown(&self) -> bool {
        self.vendors
            .iter()
            .any(|report| report.unknown_reason().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let absent: Outcome<LibVersion> = Outcome::Absent { notes: vec![] };
        assert_eq!(
            serde_json::to_string(&absent).unwrap(),
            r#"{"outcome":"absent","notes":[]}"#
        );
        let unknown: Outcome<LibVersion> = Outcome::Unknown {
            reason: UnknownReason::Timeout { after_ms: 5 },
        };
        let json = serde_json::to_string(&unknown).unwrap();
        assert_eq!(
            json,
            r#"{"outcome":"unknown","reason":{"kind":"timeout","after_ms":5}}"#
        );
        let back: Outcome<LibVersion> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, unknown);
        let detected = Outcome::Detected(LibVersion {
            major: 6,
            minor: 2,
            patch: 1,
        });
        let json = serde_json::to_string(&detected).unwrap();
        assert_eq!(
            json,
            r#"{"outcome":"detected","major":6,"minor":2,"patch":1}"#
        );
        assert_eq!(
            serde_json::from_str::<Outcome<LibVersion>>(&json).unwrap(),
            detected
        );
    }

    #[test]
    fn a_detection_lists_its_vendors_with_a_tag() {
        let detection = Detection {
            vendors: vec![
                VendorReport::unknown(Vendor::Cuda, UnknownReason::Timeout { after_ms: 5 }),
                VendorReport::absent(Vendor::Rocm, "ROCm: not here".into()),
            ],
            origin: Origin::Probe,
            notes: vec![],
        };
        let json = serde_json::to_value(&detection).unwrap();
        assert_eq!(
            json["vendors"],
            serde_json::json!([
                {"vendor": "cuda", "outcome": "unknown", "reason": {"kind": "timeout", "after_ms": 5}},
                {"vendor": "rocm", "outcome": "absent", "notes": ["ROCm: not here"]},
            ])
        );
        let back: Detection = serde_json::from_value(json).unwrap();
        assert_eq!(back, detection);
        assert!(back.has_unknown());
        assert!(back.rocm().is_some_and(Outcome::is_absent));
        assert_eq!(
            back.vendor(Vendor::Cuda).map(VendorReport::vendor),
            Some(Vendor::Cuda)
        );
        assert!(
            serde_json::from_str::<VendorReport>(
                r#"{"vendor":"xpu","outcome":"absent","notes":[]}"#
            )
            .is_err(),
            "a vendor this build does not know is not silently dropped"
        );
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
