//! NVIDIA: the CUDA report mapped onto `cuda_version`, `nvidia_driver_version`, the compute
//! capability fields and the optional libraries' versions (SPEC §8.6 to §8.8, §8.10), under the
//! provenance layer `cuda`.

use markerspec_gpu::{CudaReport, Device, LibraryStatus, Outcome, Source};
use markerspec_pep508::Field;

use super::{Backend, all_unknown, summary};
use crate::facts::{Facts, Provenance};

/// The provenance layer of NVIDIA's facts.
const LAYER: &str = "cuda";

/// The CUDA-derived fields (Unknown together when the probe fails).
pub(crate) const FIELDS: [Field; 7] = [
    Field::CudaVersion,
    Field::NvidiaDriverVersion,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilities,
    Field::CudnnVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
];

/// The CUDA visibility variables, as the caller's process has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Visibility {
    pub(crate) visible_devices: Option<String>,
    pub(crate) device_order: Option<String>,
}

impl Visibility {
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

/// Whether the device list needs a second, libcuda-only probe: the report came from NVML or
/// `nvidia-smi`, which list every device, and the visibility variable cannot be applied to it
/// exactly.
pub(crate) fn needs_driver_api(
    cuda: Option<&Outcome<CudaReport>>,
    visibility: &Visibility,
) -> bool {
    matches!(cuda, Some(Outcome::Detected(report))
        if report.source != Source::LibCuda && visibility.apply(&report.devices).is_err())
}

/// Maps the CUDA outcome onto the CUDA fields and says whether `cuda` is a backend.
/// `driver_api` is the answer of a libcuda-only probe, used for the device list when the
/// visibility variable cannot be applied to the main report.
pub(crate) fn map(
    facts: &mut Facts,
    cuda: Option<&Outcome<CudaReport>>,
    visibility: &Visibility,
    driver_api: Option<&Outcome<CudaReport>>,
) -> Backend {
    let report = match cuda {
        Some(Outcome::Absent { notes }) => {
            let p = Provenance::new(LAYER, "probe")
                .with_detail(format!("no NVIDIA driver ({})", summary(notes)));
            for field in FIELDS {
                facts.absent(field, p.clone());
            }
            return Backend::No;
        }
        Some(Outcome::Unknown { reason }) => {
            return all_unknown(facts, LAYER, &FIELDS, reason.to_string());
        }
        None => {
            let why = "the detection has no CUDA report";
            return all_unknown(facts, LAYER, &FIELDS, why.to_owned());
        }
        Some(Outcome::Detected(report)) => report,
    };
    let source = report.source.as_str();
    let p = || Provenance::new(LAYER, source);
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
    let backend = map_devices(facts, report, visibility, driver_api);
    let libs = &report.libraries;
    for (field, label, status) in [
        (Field::CudnnVersion, "cuDNN", &libs.cudnn),
        (Field::NcclVersion, "NCCL", &libs.nccl),
        (Field::CutensorVersion, "cuTENSOR", &libs.cutensor),
    ] {
        map_library(facts, field, label, status);
    }
    backend
}

/// The compute capability fields from the visible devices, and whether `cuda` is a backend.
fn map_devices(
    facts: &mut Facts,
    report: &CudaReport,
    visibility: &Visibility,
    driver_api: Option<&Outcome<CudaReport>>,
) -> Backend {
    let source = report.source.as_str();
    let capabilities = |devices: &[Device]| -> Vec<(u32, u32)> {
        devices.iter().map(|d| d.compute_capability).collect()
    };
    // The visible devices' capabilities and the method that listed them, or why they cannot be
    // told.
    type Visible<'a> = Result<(Vec<(u32, u32)>, &'a str), String>;
    let devices: Visible = if report.source == Source::LibCuda {
        Ok((capabilities(&report.devices), "libcuda"))
    } else {
        match visibility.apply(&report.devices) {
            Ok(devices) => Ok((
                devices.iter().map(|d| d.compute_capability).collect(),
                source,
            )),
            Err(why) => match driver_api {
                Some(Outcome::Detected(r)) => Ok((capabilities(&r.devices), "libcuda")),
                // cuInit said CUDA_ERROR_NO_DEVICE: nothing visible.
                Some(Outcome::Absent { .. }) => Ok((Vec::new(), "libcuda")),
                Some(Outcome::Unknown { reason }) => {
                    Err(format!("{why}; the driver API: {reason}"))
                }
                None => Err(why),
            },
        }
    };
    match devices {
        Err(why) => {
            let p = Provenance::new(LAYER, source).with_detail(why.clone());
            facts.unknown(Field::CudaComputeCapability, p.clone());
            facts.unknown(Field::CudaComputeCapabilities, p);
            Backend::Unknown(why)
        }
        Ok((ccs, method)) => match ccs.iter().min() {
            None => {
                let p = Provenance::new(LAYER, method).with_detail("no visible CUDA device");
                facts.absent(Field::CudaComputeCapability, p.clone());
                facts.absent(Field::CudaComputeCapabilities, p);
                Backend::No
            }
            Some((major, minor)) => {
                let p = Provenance::new(LAYER, method)
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
    }
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
    use markerspec_gpu::{CudaVersion, LibVersion, Libraries, UnknownReason};
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
            },
            source: Source::Nvml,
            notes: vec![],
        }
    }

    fn detection(cuda: Outcome<CudaReport>) -> Outcome<CudaReport> {
        cuda
    }

    fn map(d: &Outcome<CudaReport>, vis: &Visibility) -> (Facts, Backend) {
        let mut facts = Facts::new();
        let backend = super::map(&mut facts, Some(d), vis, None);
        (facts, backend)
    }

    fn set(items: &[&str]) -> Option<EnvValue> {
        Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
    }

    #[test]
    fn an_h100_box() {
        let d = detection(Outcome::Detected(report(vec![device(0, (9, 0))])));
        let (facts, backend) = map(&d, &Visibility::default());
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
        let (facts, _) = map(&d, &Visibility::default());
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            set(&["8.6", "9.0"]).as_ref()
        );
    }

    #[test]
    fn zero_devices_keep_the_driver_facts() {
        let d = detection(Outcome::Detected(report(vec![])));
        let (facts, backend) = map(&d, &Visibility::default());
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
        let (facts, backend) = map(&d, &Visibility::default());
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
        let (facts, backend) = map(&d, &Visibility::default());
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
        r.cuda_driver_version = None;
        r.driver_version = None;
        r.notes = vec!["nvmlSystemGetCudaDriverVersion_v2: out of range".into()];
        r.libraries.nccl = LibraryStatus::Failed {
            library: "libnccl.so.2".into(),
            reason: "lacks `ncclGetVersion`".into(),
        };
        let (facts, _) = map(&detection(Outcome::Detected(r)), &Visibility::default());
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
        let (facts, _) = map(&detection(Outcome::Detected(r)), &Visibility::default());
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
        let backend = super::map(&mut facts, None, &Visibility::default(), None);
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in FIELDS {
            assert_eq!(facts.value(field), Some(&EnvValue::Unknown), "{field}");
        }
    }

    #[test]
    fn visible_devices_apply_when_exact() {
        let devices = vec![device(0, (8, 0)), device(1, (9, 0)), device(2, (9, 0))];
        let vis = |v: &str, order: Option<&str>| Visibility {
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
        let vis = Visibility {
            visible_devices: Some("1".into()),
            device_order: None,
        };
        let mut facts = Facts::new();
        let mut libcuda = report(vec![device(0, (9, 0))]);
        libcuda.source = Source::LibCuda;
        super::map(
            &mut facts,
            Some(&d),
            &vis,
            Some(&Outcome::Detected(libcuda)),
        );
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
        let backend = super::map(&mut facts, Some(&d), &vis, None);
        assert!(matches!(backend, Backend::Unknown(_)));
        assert_eq!(
            facts.value(Field::CudaComputeCapability),
            Some(&EnvValue::Unknown)
        );
        assert_eq!(facts.string(Field::CudaVersion), Some("12.8"));
    }
}
