//! The amdgpu kernel driver's topology: which nodes are GPU agents, and their architectures.

use std::path::{Path, PathBuf};

use super::{GpuAgent, ReadState};

/// Reads every node folder (named by its number) in node order. A missing folder is
/// [`ReadState::Missing`] (no amdgpu driver); a node whose `properties` cannot be read, lacks a
/// numeric `gfx_target_version`, or has one that names no architecture makes the whole topology
/// [`ReadState::Failed`], since an agent list with a hole in it is not an answer. Nodes with
/// `gfx_target_version 0` are CPUs and are skipped.
pub(crate) fn read(dir: &Path) -> ReadState<Vec<GpuAgent>> {
    match agents(dir) {
        Ok(Some(value)) => ReadState::Read { value },
        Ok(None) => ReadState::Missing,
        Err(reason) => ReadState::Failed { reason },
    }
}

fn agents(dir: &Path) -> Result<Option<Vec<GpuAgent>>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut nodes: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let node = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((node, entry.path()))
        })
        .collect();
    nodes.sort();
    let mut agents = Vec::new();
    for (node, folder) in nodes {
        let file = folder.join("properties");
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let property = |key: &str| {
            text.lines().find_map(|line| {
                let (k, v) = line.split_once(' ')?;
                (k == key).then(|| v.trim().parse::<u64>().ok())?
            })
        };
        let Some(code) = property("gfx_target_version") else {
            return Err(format!(
                "{}: no readable gfx_target_version",
                file.display()
            ));
        };
        if code == 0 {
            continue;
        }
        let Some(arch) = arch_name(code) else {
            return Err(format!("{}: odd gfx_target_version {code}", file.display()));
        };
        agents.push(GpuAgent {
            node,
            arch,
            unique_id: property("unique_id"),
        });
    }
    Ok(Some(agents))
}

/// `gfx_target_version` is `10000 * major + 100 * minor + stepping`; the name spells minor and
/// stepping as one hex digit each: 90010 is `gfx90a`, 90402 `gfx942`, 110000 `gfx1100`.
fn arch_name(code: u64) -> Option<String> {
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

    fn tree(name: &str, nodes: &[(&str, &str)]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("markerspec-gpu-kfd-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (node, properties) in nodes {
            std::fs::create_dir_all(dir.join(node)).unwrap();
            std::fs::write(dir.join(node).join("properties"), properties).unwrap();
        }
        dir
    }

    #[test]
    fn agents_come_in_node_order_with_their_ids() {
        let dir = tree(
            "order",
            &[
                ("10", "gfx_target_version 110000\nunique_id 7\n"),
                ("0", "cpu_cores_count 16\ngfx_target_version 0\n"),
                ("2", "gfx_target_version 90402\n"),
                ("1", "gfx_target_version 90010\nunique_id 2748\n"),
                ("not-a-node", "gfx_target_version 90010\n"),
            ],
        );
        let ReadState::Read { value } = read(&dir) else {
            panic!("{:?}", read(&dir));
        };
        let got: Vec<_> = value
            .iter()
            .map(|a| (a.node, a.arch.as_str(), a.unique_id))
            .collect();
        assert_eq!(
            got,
            [
                (1, "gfx90a", Some(2748)),
                (2, "gfx942", None),
                (10, "gfx1100", Some(7))
            ]
        );
        assert_eq!(read(&dir.join("missing")), ReadState::Missing);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_node_that_cannot_be_read_fails_the_topology() {
        for (name, properties, expected) in [
            (
                "no-version",
                "simd_count 4\n",
                "no readable gfx_target_version",
            ),
            (
                "bad-number",
                "gfx_target_version x\n",
                "no readable gfx_target_version",
            ),
            (
                "odd",
                "gfx_target_version 90016\n",
                "odd gfx_target_version 90016",
            ),
        ] {
            let dir = tree(name, &[("0", "gfx_target_version 0\n"), ("1", properties)]);
            match read(&dir) {
                ReadState::Failed { reason } => assert!(reason.contains(expected), "{reason}"),
                other => panic!("{name}: {other:?}"),
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        // A node folder without a properties file.
        let dir = tree("no-properties", &[]);
        std::fs::create_dir_all(dir.join("3")).unwrap();
        match read(&dir) {
            ReadState::Failed { reason } => assert!(reason.starts_with("cannot read"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
