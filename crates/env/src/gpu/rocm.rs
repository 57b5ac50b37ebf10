//! AMD: the ROCm report mapped onto `rocm_version` and `rocm_gpu_archs` (SPEC §8.9), under the
//! provenance layer `rocm`. Every file is read by `markerspec-gpu`'s probe; this module applies
//! the visible-device variables and the SPEC's rules.

use std::path::PathBuf;

use markerspec_gpu::{GpuAgent, Outcome, ReadState, RocmReport};
use markerspec_pep508::Field;

use super::{Backend, all_unknown};
use crate::facts::{Facts, Provenance};

/// The provenance layer of AMD's facts.
const LAYER: &str = "rocm";

/// The ROCm fields.
const FIELDS: [Field; 2] = [Field::RocmVersion, Field::RocmGpuArchs];

/// Where the probe is told to read ROCm's files; named in provenance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Paths {
    /// The installation, whose `.info/version` names the release.
    pub(crate) root: PathBuf,
    /// The KFD topology folder.
    pub(crate) topology: PathBuf,
    /// The KFD device.
    pub(crate) device: PathBuf,
}

impl Paths {
    fn release_file(&self) -> PathBuf {
        self.root.join(".info").join("version")
    }
}

/// The ROCm visibility variables, as the caller's process has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Visibility {
    pub(crate) rocr: Option<String>,
    pub(crate) hip: Option<String>,
}

/// Windows: ROCm is not detected in SPEC 0.1.0.
pub(crate) fn not_on_this_platform(facts: &mut Facts) -> Backend {
    let p = Provenance::new(LAYER, "platform")
        .with_detail("ROCm is not detected on Windows in SPEC 0.1.0");
    for field in FIELDS {
        facts.absent(field, p.clone());
    }
    Backend::No
}

/// Maps the ROCm outcome onto the ROCm fields and says whether `rocm` is a backend.
pub(crate) fn map(
    facts: &mut Facts,
    rocm: Option<&Outcome<RocmReport>>,
    paths: &Paths,
    visibility: &Visibility,
) -> Backend {
    let report = match rocm {
        Some(Outcome::Detected(report)) => report,
        Some(Outcome::Absent { .. }) => {
            absent_version(facts, paths);
            absent_archs(facts, paths);
            return Backend::No;
        }
        Some(Outcome::Unknown { reason }) => {
            return all_unknown(facts, LAYER, &FIELDS, reason.to_string());
        }
        None => {
            let why = "the detection has no ROCm report";
            return all_unknown(facts, LAYER, &FIELDS, why.to_owned());
        }
    };
    map_version(facts, report, paths);
    map_agents(facts, report, paths, visibility)
}

fn absent_version(facts: &mut Facts, paths: &Paths) {
    facts.absent(
        Field::RocmVersion,
        Provenance::new(LAYER, paths.release_file().display().to_string())
            .with_detail("no ROCm installation (no version file, no HIP runtime)"),
    );
}

fn absent_archs(facts: &mut Facts, paths: &Paths) {
    facts.absent(
        Field::RocmGpuArchs,
        Provenance::new(LAYER, paths.topology.display().to_string())
            .with_detail("no visible AMD GPU agent"),
    );
}

/// `rocm_version`: the release file, else the HIP runtime's `major.minor`.
fn map_version(facts: &mut Facts, report: &RocmReport, paths: &Paths) {
    let file = paths.release_file();
    let method = file.display().to_string();
    match report.release.as_ref().map(|r| &r.state) {
        Some(ReadState::Read { value }) => {
            facts.known(
                Field::RocmVersion,
                value.clone(),
                Provenance::new(LAYER, method),
            );
        }
        Some(ReadState::Failed { reason }) => {
            facts.unknown(
                Field::RocmVersion,
                Provenance::new(LAYER, method).with_detail(reason.clone()),
            );
        }
        _ => match report.hip_version {
            Some(v) => {
                facts.known(
                    Field::RocmVersion,
                    format!("{}.{}", v.major, v.minor),
                    Provenance::new(LAYER, "hipRuntimeGetVersion")
                        .with_detail(format!("HIP runtime {v}; no {method}")),
                );
            }
            None => absent_version(facts, paths),
        },
    }
}

/// `rocm_gpu_archs` from the visible agents, and the backend: an agent is visible and the KFD
/// device opens.
fn map_agents(
    facts: &mut Facts,
    report: &RocmReport,
    paths: &Paths,
    visibility: &Visibility,
) -> Backend {
    let method = paths.topology.display().to_string();
    if let Some(ReadState::Failed { reason }) = report.topology.as_ref().map(|t| &t.state) {
        facts.unknown(
            Field::RocmGpuArchs,
            Provenance::new(LAYER, method).with_detail(reason.clone()),
        );
        return Backend::Unknown("the KFD topology cannot be read".into());
    }
    let visible = match rocm_visible(
        report.agents().to_vec(),
        visibility.rocr.as_deref(),
        visibility.hip.as_deref(),
    ) {
        Ok(visible) => visible,
        Err(e) => {
            facts.unknown(
                Field::RocmGpuArchs,
                Provenance::new(LAYER, method).with_detail(e.clone()),
            );
            return Backend::Unknown(e);
        }
    };
    if visible.is_empty() {
        absent_archs(facts, paths);
        return Backend::No;
    }
    facts.known_set(
        Field::RocmGpuArchs,
        visible.iter().map(|a| a.arch.clone()),
        Provenance::new(LAYER, method),
    );
    match &report.device {
        Some(access) => match &access.error {
            None => Backend::Yes,
            Some(e) => Backend::NotUsable(format!(
                "AMD GPUs are listed but {} cannot be opened: {e}",
                access.path.display()
            )),
        },
        None => Backend::Unknown(format!("{} was not tried", paths.device.display())),
    }
}

/// Applies `ROCR_VISIBLE_DEVICES`, then `HIP_VISIBLE_DEVICES` (indices into what ROCR left),
/// or says why that cannot be done exactly.
pub(crate) fn rocm_visible(
    agents: Vec<GpuAgent>,
    rocr: Option<&str>,
    hip: Option<&str>,
) -> Result<Vec<GpuAgent>, String> {
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
    use markerspec_gpu::{DeviceAccess, LibVersion, Reading, UnknownReason};
    use markerspec_pep508::EnvValue;

    fn agent(node: u32, arch: &str, unique_id: u64) -> GpuAgent {
        GpuAgent {
            node,
            arch: arch.into(),
            unique_id: Some(unique_id),
        }
    }

    fn set(items: &[&str]) -> Option<EnvValue> {
        Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
    }

    fn paths() -> Paths {
        Paths {
            root: "/opt/rocm".into(),
            topology: "/sys/class/kfd/kfd/topology/nodes".into(),
            device: "/dev/kfd".into(),
        }
    }

    fn report(agents: Vec<GpuAgent>) -> RocmReport {
        RocmReport {
            hip_version: None,
            release: Some(Reading {
                path: "/opt/rocm/.info/version".into(),
                state: ReadState::Read {
                    value: "6.3.1".into(),
                },
            }),
            topology: Some(Reading {
                path: paths().topology,
                state: ReadState::Read { value: agents },
            }),
            device: Some(DeviceAccess {
                path: "/dev/kfd".into(),
                error: None,
            }),
            notes: vec![],
        }
    }

    fn map_report(report: RocmReport, visibility: &Visibility) -> (Facts, Backend) {
        let mut facts = Facts::new();
        let backend = map(
            &mut facts,
            Some(&Outcome::Detected(report)),
            &paths(),
            visibility,
        );
        (facts, backend)
    }

    #[test]
    fn visibility_selects_agents_by_index_or_uuid() {
        let agents = vec![
            agent(1, "gfx90a", 0xabc),
            agent(2, "gfx942", 0xdef),
            agent(10, "gfx1100", 7),
        ];
        let archs = |a: &[GpuAgent]| a.iter().map(|a| a.arch.clone()).collect::<Vec<_>>();
        let v = |r, h| rocm_visible(agents.clone(), r, h).map(|a| archs(&a));
        assert_eq!(v(None, None), Ok(archs(&agents)));
        assert_eq!(
            v(Some("1,2"), None),
            Ok(vec!["gfx942".into(), "gfx1100".into()])
        );
        assert_eq!(v(Some("GPU-def"), None), Ok(vec!["gfx942".into()]));
        assert_eq!(v(Some("2,0"), Some("1")), Ok(vec!["gfx90a".into()]));
        assert!(v(Some("5"), None).is_err());
        assert!(v(Some(""), None).is_err());
        assert!(v(None, Some("GPU-def")).is_err());
        assert!(v(Some("0,0"), None).is_err(), "a device named twice");
    }

    #[test]
    fn a_rocm_machine_with_its_layer() {
        let (facts, backend) = map_report(
            report(vec![agent(1, "gfx90a", 1), agent(2, "gfx90a", 2)]),
            &Visibility::default(),
        );
        assert_eq!(backend, Backend::Yes);
        assert_eq!(facts.string(Field::RocmVersion), Some("6.3.1"));
        assert_eq!(facts.value(Field::RocmGpuArchs), set(&["gfx90a"]).as_ref());
        for field in FIELDS {
            assert_eq!(facts.get(field).unwrap().provenance.layer(), "rocm");
        }
        assert_eq!(
            facts
                .get(Field::RocmVersion)
                .unwrap()
                .provenance
                .to_string(),
            "rocm (/opt/rocm/.info/version)"
        );
    }

    #[test]
    fn without_the_device_the_archs_stay_and_the_backend_goes() {
        let mut r = report(vec![agent(1, "gfx90a", 1)]);
        r.device = Some(DeviceAccess {
            path: "/dev/kfd".into(),
            error: Some("Permission denied (os error 13)".into()),
        });
        let (facts, backend) = map_report(r, &Visibility::default());
        assert_eq!(
            backend,
            Backend::NotUsable(
                "AMD GPUs are listed but /dev/kfd cannot be opened: Permission denied (os error 13)"
                    .into()
            )
        );
        assert_eq!(facts.value(Field::RocmGpuArchs), set(&["gfx90a"]).as_ref());
    }

    #[test]
    fn hip_answers_when_there_is_no_release_file() {
        let mut r = report(vec![]);
        r.release = Some(Reading {
            path: "/opt/rocm/.info/version".into(),
            state: ReadState::Missing,
        });
        r.hip_version = Some(LibVersion {
            major: 6,
            minor: 2,
            patch: 41133,
        });
        let (facts, backend) = map_report(r, &Visibility::default());
        assert_eq!(backend, Backend::No);
        let version = facts.get(Field::RocmVersion).unwrap();
        assert_eq!(version.value, EnvValue::String("6.2".into()));
        assert_eq!(
            version.provenance.to_string(),
            "rocm (hipRuntimeGetVersion): HIP runtime 6.2.41133; no /opt/rocm/.info/version"
        );
        assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
    }

    #[test]
    fn files_that_cannot_be_read_are_unknown() {
        let mut r = report(vec![]);
        r.release = Some(Reading {
            path: "/opt/rocm/.info/version".into(),
            state: ReadState::Failed {
                reason: "no version on its first line".into(),
            },
        });
        r.topology = Some(Reading {
            path: paths().topology,
            state: ReadState::Failed {
                reason: "cannot read /sys/class/kfd/kfd/topology/nodes/1/properties".into(),
            },
        });
        let (facts, backend) = map_report(r, &Visibility::default());
        assert_eq!(
            backend,
            Backend::Unknown("the KFD topology cannot be read".into())
        );
        for (field, detail) in [
            (Field::RocmVersion, "no version on its first line"),
            (
                Field::RocmGpuArchs,
                "cannot read /sys/class/kfd/kfd/topology/nodes/1/properties",
            ),
        ] {
            let fact = facts.get(field).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown, "{field}");
            assert_eq!(fact.provenance.detail(), Some(detail));
        }
    }

    #[test]
    fn a_variable_that_cannot_be_applied_is_unknown() {
        let (facts, backend) = map_report(
            report(vec![agent(1, "gfx90a", 1)]),
            &Visibility {
                rocr: None,
                hip: Some("GPU-1".into()),
            },
        );
        assert!(matches!(backend, Backend::Unknown(_)));
        assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Unknown));
        assert_eq!(facts.string(Field::RocmVersion), Some("6.3.1"));
    }

    #[test]
    fn absent_and_unknown_outcomes() {
        let mut facts = Facts::new();
        let absent = Outcome::Absent { notes: vec![] };
        let backend = map(&mut facts, Some(&absent), &paths(), &Visibility::default());
        assert_eq!(backend, Backend::No);
        let version = facts.get(Field::RocmVersion).unwrap();
        assert_eq!(version.value, EnvValue::Absent);
        assert_eq!(
            version.provenance.to_string(),
            "rocm (/opt/rocm/.info/version): no ROCm installation (no version file, no HIP runtime)"
        );
        assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));

        let unknown = Outcome::Unknown {
            reason: UnknownReason::Timeout { after_ms: 10_000 },
        };
        let mut facts = Facts::new();
        let backend = map(&mut facts, Some(&unknown), &paths(), &Visibility::default());
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in FIELDS {
            let fact = facts.get(field).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown);
            assert_eq!(fact.provenance.layer(), "rocm");
            assert!(fact.provenance.detail().unwrap().contains("timed out"));
        }
    }
}
