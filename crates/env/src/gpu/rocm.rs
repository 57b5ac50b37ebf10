//! AMD: the ROCm report mapped onto `rocm_version` and `rocm_gpu_archs` (SPEC §8.9), under the
//! provenance layer `rocm`. Every file is read by `markerspec-gpu`'s probe; this module applies
//! the SPEC's rules: every agent counts whatever the caller's device masks (SPEC 0.2 §8.5), and
//! `HSA_OVERRIDE_GFX_VERSION` renames them as the HIP runtime does (§8.9).

use std::path::PathBuf;

use markerspec_gpu::{Outcome, ReadState, RocmReport};
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

/// The `gfx` target `HSA_OVERRIDE_GFX_VERSION=M.m.s` makes the HIP runtime report for every
/// agent: `gfx` + decimal `M` + hex `m` + hex `s` (`10.3.0` → `gfx1030`, `9.0.10` → `gfx90a`);
/// `None` for a value not of that form.
pub(crate) fn gfx_override(value: &str) -> Option<String> {
    let parts: Vec<u32> = value
        .split('.')
        .map(|p| {
            (!p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        })
        .collect::<Option<_>>()?;
    match parts[..] {
        [major, minor, stepping] if major > 0 && minor < 16 && stepping < 16 => {
            Some(format!("gfx{major}{minor:x}{stepping:x}"))
        }
        _ => None,
    }
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
    hsa_override: Option<&str>,
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
    map_agents(facts, report, paths, hsa_override)
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

/// `rocm_gpu_archs` from the GPU agents, and the backend: an agent exists and the KFD device
/// opens. Agents this user cannot open make the archs Absent as well (no GPU this user may use,
/// SPEC §8.5), with the targets in the provenance, so that `"rocm" in gpu_backends` holds
/// exactly when the archs are given (invariant I3).
fn map_agents(
    facts: &mut Facts,
    report: &RocmReport,
    paths: &Paths,
    hsa_override: Option<&str>,
) -> Backend {
    let method = paths.topology.display().to_string();
    if let Some(ReadState::Failed { reason }) = report.topology.as_ref().map(|t| &t.state) {
        facts.unknown(
            Field::RocmGpuArchs,
            Provenance::new(LAYER, method).with_detail(reason.clone()),
        );
        return Backend::Unknown("the KFD topology cannot be read".into());
    }
    let agents = report.agents();
    if agents.is_empty() {
        absent_archs(facts, paths);
        return Backend::No;
    }
    let sysfs: Vec<&str> = agents.iter().map(|a| a.arch.as_str()).collect();
    let (archs, detail) = match hsa_override {
        None => (
            sysfs.iter().map(|a| (*a).to_owned()).collect(),
            String::new(),
        ),
        Some(value) => match gfx_override(value) {
            Some(gfx) => (
                vec![gfx],
                format!(
                    "HSA_OVERRIDE_GFX_VERSION={value}; the topology says {}",
                    sysfs.join(", ")
                ),
            ),
            None => {
                facts.warn(format!(
                    "override-ignored: HSA_OVERRIDE_GFX_VERSION={value:?} is not \
                     MAJOR.MINOR.STEPPING (SPEC §8.9)"
                ));
                (
                    sysfs.iter().map(|a| (*a).to_owned()).collect(),
                    String::new(),
                )
            }
        },
    };
    let backend = match &report.device {
        Some(access) => match &access.error {
            None => Backend::Yes,
            Some(e) => Backend::NotUsable(format!(
                "AMD GPUs are listed but {} cannot be opened: {e}",
                access.path.display()
            )),
        },
        None => Backend::Unknown(format!("{} was not tried", paths.device.display())),
    };
    match &backend {
        Backend::NotUsable(why) => facts.absent(
            Field::RocmGpuArchs,
            Provenance::new(LAYER, method)
                .with_detail(format!("{why} (the topology lists {})", archs.join(", "))),
        ),
        _ => facts.known_set(
            Field::RocmGpuArchs,
            archs,
            Provenance::new(LAYER, method).with_detail(detail),
        ),
    };
    backend
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_gpu::{DeviceAccess, GpuAgent, LibVersion, Reading, UnknownReason};
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

    fn map_report(report: RocmReport) -> (Facts, Backend) {
        let mut facts = Facts::new();
        let backend = map(&mut facts, Some(&Outcome::Detected(report)), &paths(), None);
        (facts, backend)
    }

    #[test]
    fn the_hsa_override_renames_every_agent() {
        for (value, want) in [
            ("10.3.0", Some("gfx1030")),
            ("9.0.10", Some("gfx90a")),
            ("11.0.0", Some("gfx1100")),
            ("9.4.2", Some("gfx942")),
            ("10.3", None),
            ("gfx1030", None),
            ("10.3.0.1", None),
            ("0.3.0", None),
            ("10.16.0", None),
            ("", None),
        ] {
            assert_eq!(gfx_override(value).as_deref(), want, "{value}");
        }
        let r = report(vec![agent(1, "gfx1031", 1), agent(2, "gfx1032", 2)]);
        let mut facts = Facts::new();
        map(
            &mut facts,
            Some(&Outcome::Detected(r.clone())),
            &paths(),
            Some("10.3.0"),
        );
        let archs = facts.get(Field::RocmGpuArchs).unwrap();
        assert_eq!(Some(&archs.value), set(&["gfx1030"]).as_ref());
        assert!(
            archs
                .provenance
                .detail()
                .unwrap()
                .contains("gfx1031, gfx1032"),
            "the sysfs targets stay in the provenance: {}",
            archs.provenance
        );
        // A value of another form is ignored, with a warning.
        let mut facts = Facts::new();
        map(
            &mut facts,
            Some(&Outcome::Detected(r)),
            &paths(),
            Some("10.3"),
        );
        assert_eq!(
            facts.value(Field::RocmGpuArchs),
            set(&["gfx1031", "gfx1032"]).as_ref()
        );
        assert!(facts.warnings()[0].starts_with("override-ignored: HSA_OVERRIDE_GFX_VERSION"));
    }

    #[test]
    fn a_rocm_machine_with_its_layer() {
        let (facts, backend) =
            map_report(report(vec![agent(1, "gfx90a", 1), agent(2, "gfx90a", 2)]));
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
    fn without_the_device_the_archs_and_the_backend_go() {
        let mut r = report(vec![agent(1, "gfx90a", 1)]);
        r.device = Some(DeviceAccess {
            path: "/dev/kfd".into(),
            error: Some("Permission denied (os error 13)".into()),
        });
        let (facts, backend) = map_report(r);
        assert_eq!(
            backend,
            Backend::NotUsable(
                "AMD GPUs are listed but /dev/kfd cannot be opened: Permission denied (os error 13)"
                    .into()
            )
        );
        let archs = facts.get(Field::RocmGpuArchs).unwrap();
        assert_eq!(archs.value, EnvValue::Absent);
        assert!(archs.provenance.detail().unwrap().contains("gfx90a"));
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
        let (facts, backend) = map_report(r);
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
        let (facts, backend) = map_report(r);
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
    fn absent_and_unknown_outcomes() {
        let mut facts = Facts::new();
        let absent = Outcome::Absent { notes: vec![] };
        let backend = map(&mut facts, Some(&absent), &paths(), None);
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
        let backend = map(&mut facts, Some(&unknown), &paths(), None);
        assert!(matches!(backend, Backend::Unknown(_)));
        for field in FIELDS {
            let fact = facts.get(field).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown);
            assert_eq!(fact.provenance.layer(), "rocm");
            assert!(fact.provenance.detail().unwrap().contains("timed out"));
        }
    }
}
