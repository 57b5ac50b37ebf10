//! NVIDIA: the CUDA report mapped onto `cuda_version`, `nvidia_driver_version`, the compute
//! capability fields and the optional libraries' versions (SPEC §8.6 to §8.8, §8.10), under the
//! provenance layer `cuda`.

use markerspec_gpu::{CudaReport, DriverApi, LibraryStatus, Outcome, ReadState, Reading};
use markerspec_pep508::{EnvValue, Field};

use super::{Backend, all_unknown, summary};
use crate::facts::{Facts, Provenance};

/// The provenance layer of NVIDIA's facts.
const LAYER: &str = "cuda";

/// The CUDA-derived fields (Unknown together when the probe fails).
pub(crate) const FIELDS: [Field; 9] = [
    Field::CudaVersion,
    Field::NvidiaDriverVersion,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilities,
    Field::CudaComputeCapabilityMax,
    Field::CudnnVersion,
    Field::CudnnCudaVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
];

/// Where `nvidia_driver_version` comes from (SPEC §8.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DriverSource {
    /// Linux: the loaded kernel module's files (`/sys/module/nvidia/version`, then
    /// `/proc/driver/nvidia/version`), read without running vendor code.
    Module(Reading<String>),
    /// Elsewhere (Windows): what the probe's source (NVML, `nvidia-smi`) reported.
    Report,
}

/// Maps the CUDA outcome onto the CUDA fields and says whether `cuda` is a backend.
pub(crate) fn map(
    facts: &mut Facts,
    cuda: Option<&Outcome<CudaReport>>,
    driver: &DriverSource,
) -> Backend {
    let fields = &FIELDS;
    let backend = match cuda {
        Some(Outcome::Absent { notes }) => {
            let p = Provenance::new(LAYER, "probe")
                .with_detail(format!("no NVIDIA driver ({})", summary(notes)));
            for &field in fields {
                facts.absent(field, p.clone());
            }
            Backend::No
        }
        Some(Outcome::Unknown { reason }) => all_unknown(facts, LAYER, fields, reason.to_string()),
        None => {
            let why = "the detection has no CUDA report";
            all_unknown(facts, LAYER, fields, why.to_owned())
        }
        Some(Outcome::Detected(report)) => map_report(facts, report),
    };
    if let DriverSource::Module(reading) = driver {
        map_module(facts, reading);
    }
    backend
}

fn map_report(facts: &mut Facts, report: &CudaReport) -> Backend {
    let source = report.source.as_str();
    let p = || Provenance::new(LAYER, source);
    let cuda_api = || Provenance::new(LAYER, "libcuda");
    let notes = summary(&report.notes);
    let ccs: Vec<(u32, u32)> = report
        .devices
        .iter()
        .map(|d| d.compute_capability)
        .collect();
    // SPEC 0.2 §8.6: `cuda_version` is libcuda's `cuDriverGetVersion` after `cuInit`, never
    // NVML's or nvidia-smi's answer. With no device it is Absent, as conda's `__cuda`, so that
    // `"cuda" in gpu_backends` holds exactly when it is given (invariant I1); so it is when the
    // devices another source lists are not usable through the driver API (no libcuda, or
    // `cuInit` finds no device), and then the device fields are Absent too (I2).
    let mut usable = true;
    match (&report.driver_api, ccs.is_empty()) {
        (api, true) => facts.absent(
            Field::CudaVersion,
            p().with_detail(format!(
                "the driver exposes no device{}",
                api.version()
                    .map(|v| format!(" (it supports CUDA {v})"))
                    .unwrap_or_default()
            )),
        ),
        (DriverApi::Version { version }, false) => {
            facts.known(Field::CudaVersion, version.to_string(), cuda_api())
        }
        (DriverApi::NotPresent { note }, false) => {
            usable = false;
            facts.absent(
                Field::CudaVersion,
                cuda_api().with_detail(format!(
                    "{source} lists {} device(s), but no CUDA program can use them: {note}",
                    ccs.len()
                )),
            )
        }
        (DriverApi::Failed { reason }, false) => facts.unknown(
            Field::CudaVersion,
            cuda_api().with_detail(format!("the driver API failed: {reason}")),
        ),
        (_, false) => facts.unknown(
            Field::CudaVersion,
            cuda_api().with_detail(format!("the driver API was not asked ({notes})")),
        ),
    };
    match &report.driver_version {
        Some(v) => facts.known(Field::NvidiaDriverVersion, v.clone(), p()),
        None => facts.unknown(
            Field::NvidiaDriverVersion,
            p().with_detail(format!("the driver did not report it ({notes})")),
        ),
    };
    let backend = map_devices(
        facts,
        report.source.as_str(),
        if usable { &ccs } else { &[] },
    );
    let libs = &report.libraries;
    for (field, label, status) in [
        (Field::CudnnVersion, "cuDNN", &libs.cudnn),
        (Field::NcclVersion, "NCCL", &libs.nccl),
        (Field::CutensorVersion, "cuTENSOR", &libs.cutensor),
    ] {
        map_library(facts, field, label, status);
    }
    map_cudnn_cuda(facts, report);
    backend
}

/// The compute-capability fields from every device the driver enumerates (SPEC 0.2 §8.8: with
/// the device masks unset), and whether `cuda` is a backend.
fn map_devices(facts: &mut Facts, method: &'static str, ccs: &[(u32, u32)]) -> Backend {
    let (Some((lo_major, lo_minor)), Some((hi_major, hi_minor))) =
        (ccs.iter().min(), ccs.iter().max())
    else {
        let p = Provenance::new(LAYER, method).with_detail("no CUDA device");
        facts.absent(Field::CudaComputeCapability, p.clone());
        facts.absent(Field::CudaComputeCapabilities, p.clone());
        facts.absent(Field::CudaComputeCapabilityMax, p);
        return Backend::No;
    };
    let p = Provenance::new(LAYER, method).with_detail(format!("{} device(s)", ccs.len()));
    facts.known(
        Field::CudaComputeCapability,
        format!("{lo_major}.{lo_minor}"),
        p.clone(),
    );
    facts.known(
        Field::CudaComputeCapabilityMax,
        format!("{hi_major}.{hi_minor}"),
        p.clone(),
    );
    facts.known_set(
        Field::CudaComputeCapabilities,
        ccs.iter().map(|(a, b)| format!("{a}.{b}")),
        p,
    );
    Backend::Yes
}

/// `nvidia_driver_version` from the kernel module's files (SPEC 0.2 §8.7): Known when a file
/// names a version, Absent when neither file exists (no module loaded), Unknown when one exists
/// and says nothing usable.
fn map_module(facts: &mut Facts, reading: &Reading<String>) {
    let p = Provenance::new(LAYER, reading.path.display().to_string());
    match &reading.state {
        ReadState::Read { value } => {
            facts.known(Field::NvidiaDriverVersion, value.clone(), p);
        }
        ReadState::Missing => {
            facts.absent(
                Field::NvidiaDriverVersion,
                p.with_detail("no NVIDIA kernel module is loaded"),
            );
        }
        ReadState::Failed { reason } => {
            facts.unknown(Field::NvidiaDriverVersion, p.with_detail(reason.clone()));
        }
    }
}

/// `cudnn_cuda_version` (SPEC 0.2 §8.10): the CUDA runtime cuDNN was built for, Absent exactly
/// when `cudnn_version` is (invariant I6), Unknown when cuDNN is there and would not say.
fn map_cudnn_cuda(facts: &mut Facts, report: &CudaReport) {
    let p = Provenance::new(LAYER, "cuDNN");
    let value = match (
        facts.value(Field::CudnnVersion),
        report.libraries.cudnn_cuda_version,
    ) {
        (Some(EnvValue::String(_)), Some(v)) => {
            facts.known(Field::CudnnCudaVersion, v.to_string(), p);
            return;
        }
        (Some(EnvValue::String(_)), None) => {
            let why = report
                .notes
                .iter()
                .find(|n| n.contains("cudnnGetCudartVersion"))
                .cloned()
                .unwrap_or_else(|| "cuDNN did not say which CUDA it was built for".into());
            facts.unknown(Field::CudnnCudaVersion, p.with_detail(why));
            return;
        }
        (Some(EnvValue::Absent), _) => EnvValue::Absent,
        _ => EnvValue::Unknown,
    };
    let detail = facts
        .get(Field::CudnnVersion)
        .and_then(|f| f.provenance.detail())
        .unwrap_or("as cudnn_version")
        .to_owned();
    facts.insert(Field::CudnnCudaVersion, value, p.with_detail(detail));
}

/// One optional library's field from its status (SPEC §8.10): Known when it told its version,
/// Unknown when it loaded and could not, Absent when nothing loaded.
fn map_library(facts: &mut Facts, field: Field, label: &'static str, status: &LibraryStatus) {
    let p = Provenance::new(LAYER, label);
    match status {
        LibraryStatus::Loaded { version, .. } => {
            facts.known(field, version.to_string(), p);
        }
        LibraryStatus::Failed { library, reason } => {
            facts.unknown(
                field,
                p.with_detail(format!("{label}: {library}: {reason}")),
            );
        }
        LibraryStatus::NotFound => {
            facts.absent(
                field,
                p.with_detail("not loadable through the system loader"),
            );
        }
        LibraryStatus::NotProbed => {
            facts.absent(field, p.with_detail("not looked for"));
        }
        // A status this version does not know: say so rather than guess.
        other => {
            facts.unknown(
                field,
                p.with_detail(format!("unrecognised status {other:?}")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_gpu::{CudaVersion, Device, LibVersion, Libraries, Source, UnknownReason};
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
            driver_api: DriverApi::Version {
                version: CudaVersion::new(12, 8).unwrap(),
            },
            devices,
            libraries: Libraries {
                cudnn: LibraryStatus::Loaded {
                    library: "libcudnn.so.9".into(),
                    version: LibVersion {
                        major: 9,
                        minor: 1,
                        patch: 0,
                    },
                },
                nccl: LibraryStatus::NotFound,
                cutensor: LibraryStatus::NotFound,
                cudnn_cuda_version: CudaVersion::new(12, 2),
            },
            source: Source::Nvml,
            notes: vec![],
        }
    }

    fn detection(cuda: Outcome<CudaReport>) -> Outcome<CudaReport> {
        cuda
    }

    fn map(d: &Outcome<CudaReport>) -> (Facts, Backend) {
        let mut facts = Facts::new();
        let backend = super::map(&mut facts, Some(d), &DriverSource::Report);
        (facts, backend)
    }

    fn set(items: &[&str]) -> Option<EnvValue> {
        Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
    }

    #[test]
    fn an_h100_box() {
        let d = detection(Outcome::Detected(report(vec![device(0, (9, 0))])));
        let (facts, backend) = map(&d);
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
        // The CUDA version's one source (SPEC §8.6), though NVML listed the devices.
        assert_eq!(
            facts.get(Field::CudaVersion).unwrap().provenance.method(),
            "libcuda"
        );
        assert_eq!(
            facts
                .get(Field::CudaComputeCapability)
                .unwrap()
                .provenance
                .method(),
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
        let (facts, _) = map(&d);
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            set(&["8.6", "9.0"]).as_ref()
        );
    }

    #[test]
    fn zero_devices_make_cuda_absent() {
        // SPEC 0.2 §8.6: Absent with no device, so that I1 holds; the driver is still there.
        let d = detection(Outcome::Detected(report(vec![])));
        let (facts, backend) = map(&d);
        assert_eq!(backend, Backend::No);
        let cuda = facts.get(Field::CudaVersion).unwrap();
        assert_eq!(cuda.value, EnvValue::Absent);
        assert!(cuda.provenance.detail().unwrap().contains("CUDA 12.8"));
        assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("570.124.06"));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilityMax),
            Some(&EnvValue::Absent)
        );
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
        let (facts, backend) = map(&d);
        assert_eq!(backend, Backend::No);
        for field in FIELDS {
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
        let (facts, backend) = map(&d);
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in FIELDS {
            let fact = facts.get(field).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown, "{field}");
            assert!(fact.provenance.detail().unwrap().contains("timed out"));
        }
    }

    #[test]
    fn missing_versions_are_unknown() {
        let mut r = report(vec![device(0, (8, 0))]);
        r.driver_api = DriverApi::Failed {
            reason: "libcuda: cuDriverGetVersion: out of range".into(),
        };
        r.driver_version = None;
        r.notes = vec!["libcuda: cuDriverGetVersion: out of range".into()];
        r.libraries.nccl = LibraryStatus::Failed {
            library: "libnccl.so.2".into(),
            reason: "lacks `ncclGetVersion`".into(),
        };
        let (facts, _) = map(&detection(Outcome::Detected(r)));
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
        assert_eq!(
            facts.value(Field::NvidiaDriverVersion),
            Some(&EnvValue::Unknown)
        );
        let nccl = facts.get(Field::NcclVersion).unwrap();
        assert_eq!(nccl.value, EnvValue::Unknown);
        assert_eq!(
            nccl.provenance.to_string(),
            "cuda (NCCL): NCCL: libnccl.so.2: lacks `ncclGetVersion`"
        );
        assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
    }

    #[test]
    fn each_library_status_has_its_field_value() {
        let mut r = report(vec![device(0, (8, 0))]);
        // Notes no longer decide anything: a note that reads like a failure changes nothing.
        r.notes = vec!["cuTENSOR: /x/libcutensor.so.2: lacks `cutensorGetVersion`".into()];
        r.libraries.nccl = LibraryStatus::NotProbed;
        r.libraries.cutensor = LibraryStatus::NotFound;
        let (facts, _) = map(&detection(Outcome::Detected(r)));
        let fact = |field| facts.get(field).unwrap();
        assert_eq!(
            fact(Field::CudnnVersion).value,
            EnvValue::String("9.1.0".into())
        );
        assert_eq!(
            fact(Field::CudnnVersion).provenance.to_string(),
            "cuda (cuDNN)"
        );
        assert_eq!(fact(Field::NcclVersion).value, EnvValue::Absent);
        assert_eq!(
            fact(Field::NcclVersion).provenance.detail(),
            Some("not looked for")
        );
        assert_eq!(fact(Field::CutensorVersion).value, EnvValue::Absent);
        assert_eq!(
            fact(Field::CutensorVersion).provenance.detail(),
            Some("not loadable through the system loader")
        );
    }

    #[test]
    fn a_detection_without_a_cuda_report_is_unknown_not_absent() {
        let mut facts = Facts::new();
        let backend = super::map(&mut facts, None, &DriverSource::Report);
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in FIELDS {
            assert_eq!(facts.value(field), Some(&EnvValue::Unknown), "{field}");
        }
    }

    #[test]
    fn the_maximum_capability_and_cudnns_cuda() {
        let d = detection(Outcome::Detected(report(vec![
            device(0, (8, 6)),
            device(1, (10, 0)),
            device(2, (9, 0)),
        ])));
        let (facts, _) = map(&d);
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
        assert_eq!(facts.string(Field::CudaComputeCapabilityMax), Some("10.0"));
        assert_eq!(facts.string(Field::CudnnCudaVersion), Some("12.2"));
        // cuDNN that would not say: Unknown, with the note's reason.
        let mut r = report(vec![device(0, (9, 0))]);
        r.libraries.cudnn_cuda_version = None;
        r.notes = vec!["cuDNN: libcudnn.so.9: lacks `cudnnGetCudartVersion`".into()];
        let (facts, _) = map(&detection(Outcome::Detected(r)));
        let fact = facts.get(Field::CudnnCudaVersion).unwrap();
        assert_eq!(fact.value, EnvValue::Unknown);
        assert!(
            fact.provenance
                .detail()
                .unwrap()
                .contains("cudnnGetCudartVersion")
        );
        // No cuDNN: Absent with it (I6); a cuDNN that failed: Unknown with it.
        let mut r = report(vec![device(0, (9, 0))]);
        r.libraries.cudnn = LibraryStatus::NotFound;
        r.libraries.cudnn_cuda_version = None;
        let (facts, _) = map(&detection(Outcome::Detected(r.clone())));
        assert_eq!(
            facts.value(Field::CudnnCudaVersion),
            Some(&EnvValue::Absent)
        );
        r.libraries.cudnn = LibraryStatus::Failed {
            library: "libcudnn.so.9".into(),
            reason: "lacks `cudnnGetVersion`".into(),
        };
        let (facts, _) = map(&detection(Outcome::Detected(r)));
        assert_eq!(
            facts.value(Field::CudnnCudaVersion),
            Some(&EnvValue::Unknown)
        );
    }

    #[test]
    fn the_driver_version_comes_from_the_kernel_module_on_linux() {
        let module = |state| {
            DriverSource::Module(Reading {
                path: "/sys/module/nvidia/version".into(),
                state,
            })
        };
        let d = detection(Outcome::Detected(report(vec![device(0, (9, 0))])));
        let mut facts = Facts::new();
        let read = module(ReadState::Read {
            value: "580.65.06".into(),
        });
        super::map(&mut facts, Some(&d), &read);
        let fact = facts.get(Field::NvidiaDriverVersion).unwrap();
        assert_eq!(fact.value, EnvValue::String("580.65.06".into()));
        assert_eq!(
            fact.provenance.to_string(),
            "cuda (/sys/module/nvidia/version)"
        );
        // The module's answer holds even when the probe timed out: no vendor code is needed.
        let timeout = Outcome::Unknown {
            reason: UnknownReason::Timeout { after_ms: 10_000 },
        };
        let mut facts = Facts::new();
        super::map(&mut facts, Some(&timeout), &read);
        assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("580.65.06"));
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
        // No module: Absent; a file that says something else: Unknown.
        let mut facts = Facts::new();
        super::map(&mut facts, Some(&d), &module(ReadState::Missing));
        assert_eq!(
            facts.value(Field::NvidiaDriverVersion),
            Some(&EnvValue::Absent)
        );
        let mut facts = Facts::new();
        let failed = module(ReadState::Failed {
            reason: "holds \"x\"".into(),
        });
        super::map(&mut facts, Some(&d), &failed);
        assert_eq!(
            facts.value(Field::NvidiaDriverVersion),
            Some(&EnvValue::Unknown)
        );
    }

    #[test]
    fn cuda_version_is_the_driver_apis_alone() {
        // Devices listed by NVML, the driver API not usable: no CUDA program can use them, so
        // `cuda_version`, the device fields and the backend are Absent together (I1, I2).
        let mut r = report(vec![device(0, (9, 0))]);
        r.driver_api = DriverApi::NotPresent {
            note: "libcuda: cuInit: CUDA_ERROR_NO_DEVICE".into(),
        };
        let (facts, backend) = map(&detection(Outcome::Detected(r)));
        assert!(matches!(backend, Backend::No));
        let cuda = facts.get(Field::CudaVersion).unwrap();
        assert_eq!(cuda.value, EnvValue::Absent);
        assert_eq!(cuda.provenance.method(), "libcuda");
        assert!(
            cuda.provenance
                .detail()
                .unwrap()
                .contains("CUDA_ERROR_NO_DEVICE"),
            "{}",
            cuda.provenance
        );
        for f in [
            Field::CudaComputeCapability,
            Field::CudaComputeCapabilities,
            Field::CudaComputeCapabilityMax,
        ] {
            assert_eq!(facts.value(f), Some(&EnvValue::Absent), "{f}");
        }
        assert!(crate::check_invariants(|f| facts.value(f).cloned()).is_empty());
        // The driver API failed (a forward-compatibility library on an unsupported GPU):
        // Unknown, with its reason; the devices stay facts.
        let mut r = report(vec![device(0, (9, 0))]);
        r.driver_api = DriverApi::Failed {
            reason: "libcuda: cuInit: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)".into(),
        };
        let (facts, backend) = map(&detection(Outcome::Detected(r)));
        assert!(matches!(backend, Backend::Yes));
        let cuda = facts.get(Field::CudaVersion).unwrap();
        assert_eq!(cuda.value, EnvValue::Unknown);
        assert!(cuda.provenance.detail().unwrap().contains("804"));
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("9.0"));
        // Not asked: Unknown, never guessed from another source.
        let mut r = report(vec![device(0, (9, 0))]);
        r.driver_api = DriverApi::NotAsked;
        let (facts, _) = map(&detection(Outcome::Detected(r)));
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
        // The driver API's version, whichever source listed the devices.
        let (facts, _) = map(&detection(Outcome::Detected(report(vec![device(
            0,
            (9, 0),
        )]))));
        let cuda = facts.get(Field::CudaVersion).unwrap();
        assert_eq!(cuda.value, EnvValue::String("12.8".into()));
        assert_eq!(cuda.provenance.method(), "libcuda");
    }
}
