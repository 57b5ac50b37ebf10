//! The ROCm source: the HIP runtime's version, and the GPU architectures the kernel driver lists.

use std::ffi::c_int;
use std::fs;
use std::path::{Path, PathBuf};

use crate::loader;
use crate::probe::ProbeConfig;
use crate::report::{LibVersion, Outcome, RocmReport};

/// Where the amdgpu kernel driver publishes its topology.
pub(crate) const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology/nodes";

/// Loads the HIP runtime for `hipRuntimeGetVersion`, and reads the KFD topology for the
/// `gfx_target_version` of each GPU node. Absent when neither exists.
pub(crate) fn probe(cfg: &ProbeConfig) -> Outcome<RocmReport> {
    let mut notes = Vec::new();
    let candidates =
        loader::candidates(&loader::HIP, cfg.hip_library.as_deref(), cfg.search_system);
    let version = match loader::load_first(&candidates) {
        Ok(lib) => {
            if let Some(note) = &lib.override_note {
                notes.push(format!("HIP: {note}"));
            }
            // SAFETY: `hipError_t hipRuntimeGetVersion(int *runtimeVersion)` in `hip_runtime_api.h`.
            let function = unsafe {
                lib.function::<unsafe extern "C" fn(*mut c_int) -> c_int>("hipRuntimeGetVersion")
            };
            match function {
                None => {
                    notes.push(format!("HIP: {} lacks `hipRuntimeGetVersion`", lib.name));
                    None
                }
                Some(function) => {
                    let mut code: c_int = 0;
                    // SAFETY: `code` is a valid `int` out-parameter.
                    let result = unsafe { function(&mut code) };
                    if result == 0 {
                        LibVersion::from_hip_code(code)
                            .map_err(|e| notes.push(format!("HIP: {e}")))
                            .ok()
                    } else {
                        notes.push(format!(
                            "HIP: hipRuntimeGetVersion returned hipError_t {result}"
                        ));
                        None
                    }
                }
            }
        }
        Err(errors) => {
            notes.push(loader::not_found_note("HIP", &candidates, &errors));
            None
        }
    };
    let topology = cfg
        .kfd_topology
        .clone()
        .or_else(|| cfg.search_system.then(|| PathBuf::from(KFD_TOPOLOGY)));
    let gpu_archs = topology
        .map(|dir| gpu_archs(&dir, &mut notes))
        .unwrap_or_default();
    if version.is_none() && gpu_archs.is_empty() {
        return Outcome::Absent { notes };
    }
    Outcome::Detected(RocmReport {
        version,
        gpu_archs,
        notes,
    })
}

/// Every distinct `gfx…` name among the topology's nodes, sorted. CPU nodes have
/// `gfx_target_version 0` and are skipped.
fn gpu_archs(dir: &Path, notes: &mut Vec<String>) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut archs = Vec::new();
    for entry in entries.flatten() {
        let file = entry.path().join("properties");
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let value = text.lines().find_map(|line| {
            let (key, value) = line.split_once(' ')?;
            (key == "gfx_target_version").then(|| value.trim().to_owned())
        });
        match value.as_deref().map(str::parse::<u32>) {
            None | Some(Ok(0)) => {}
            Some(Ok(code)) => match arch_name(code) {
                Some(name) => archs.push(name),
                None => notes.push(format!(
                    "ROCm: {}: odd gfx_target_version {code}",
                    file.display()
                )),
            },
            Some(Err(_)) => notes.push(format!(
                "ROCm: {}: unreadable gfx_target_version",
                file.display()
            )),
        }
    }
    archs.sort();
    archs.dedup();
    archs
}

/// `gfx_target_version` is `10000 * major + 100 * minor + stepping`; the name spells minor and
/// stepping as one hex digit each: 90010 is `gfx90a`, 90402 `gfx942`, 110000 `gfx1100`.
fn arch_name(code: u32) -> Option<String> {
    let (major, minor, stepping) = (code / 10_000, (code / 100) % 100, code % 100);
    (major > 0 && minor < 16 && stepping < 16).then(|| format!("gfx{major}{minor:x}{stepping:x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_architectures_as_rocm_does() {
        assert_eq!(arch_name(90010).as_deref(), Some("gfx90a"));
        assert_eq!(arch_name(90402).as_deref(), Some("gfx942"));
        assert_eq!(arch_name(110000).as_deref(), Some("gfx1100"));
        assert_eq!(arch_name(100300).as_deref(), Some("gfx1030"));
        assert_eq!(arch_name(90016), None);
        assert_eq!(arch_name(7), None);
    }
}
