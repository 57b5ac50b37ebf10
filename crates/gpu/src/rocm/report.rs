//! What the AMD stack reports: the HIP runtime, the installed release, the GPU agents the kernel
//! driver lists, and whether this user may open the GPU device.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::report::LibVersion;

/// What ROCm says about this machine. Each part says what was read and what came of it, so
/// that "not installed", "could not be read" and a value stay apart.
///
/// ```
/// use markerspec_gpu::{GpuAgent, LibVersion, ReadState, Reading, RocmReport};
///
/// let agent = |node, arch: &str| GpuAgent { node, arch: arch.to_owned(), unique_id: None };
/// let report = RocmReport {
///     hip_version: LibVersion::from_hip_code(60241133).ok(),
///     release: Some(Reading {
///         path: "/opt/rocm/.info/version".into(),
///         state: ReadState::Read { value: "6.3.1".to_owned() },
///     }),
///     topology: Some(Reading {
///         path: "/sys/class/kfd/kfd/topology/nodes".into(),
///         state: ReadState::Read { value: vec![agent(1, "gfx942"), agent(2, "gfx90a"), agent(3, "gfx942")] },
///     }),
///     device: None,
///     notes: Vec::new(),
/// };
/// assert_eq!(report.agents().len(), 3);
/// assert_eq!(report.gpu_archs(), ["gfx90a", "gfx942"]);
///
/// // A topology that exists but could not be read has no agents: unknown, not absent.
/// let unreadable = RocmReport {
///     topology: Some(Reading {
///         path: "/sys/class/kfd/kfd/topology/nodes".into(),
///         state: ReadState::Failed { reason: "permission denied".to_owned() },
///     }),
///     ..report
/// };
/// assert!(unreadable.agents().is_empty());
/// assert!(unreadable.gpu_archs().is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RocmReport {
    /// The HIP runtime version from `hipRuntimeGetVersion` (its patch is HIP's build number);
    /// `None` when no HIP runtime loaded or it could not tell (the notes say which).
    #[doc(alias = "hipRuntimeGetVersion")]
    pub hip_version: Option<LibVersion>,
    /// The installed ROCm release, from the first line of `ROCM_PATH/.info/version` up to the
    /// first `-` (`6.3.1-48` is `6.3.1`). `None` when not looked for.
    pub release: Option<Reading<String>>,
    /// The GPU agents of the amdgpu kernel driver's topology
    /// (`/sys/class/kfd/kfd/topology/nodes`), in node order, every one of them: the
    /// visible-device variables are the caller's to apply. `None` when not looked for.
    pub topology: Option<Reading<Vec<GpuAgent>>>,
    /// Whether the KFD device (`/dev/kfd`) opens for reading and writing, which a process needs
    /// to use an AMD GPU. Tried only when the topology lists a GPU agent.
    pub device: Option<DeviceAccess>,
    /// What else happened. For people, not for parsing.
    pub notes: Vec<String>,
}

impl RocmReport {
    /// The distinct GPU architectures among all the topology's agents (`gfx90a`, `gfx942`),
    /// sorted; empty when the topology was not read.
    ///
    /// See the example on [`RocmReport`].
    #[must_use]
    pub fn gpu_archs(&self) -> Vec<String> {
        let mut archs: Vec<String> = self
            .agents()
            .iter()
            .map(|agent| agent.arch.clone())
            .collect();
        archs.sort();
        archs.dedup();
        archs
    }

    /// The topology's GPU agents, or none when it was not read.
    ///
    /// See the example on [`RocmReport`].
    #[must_use]
    pub fn agents(&self) -> &[GpuAgent] {
        match self.topology.as_ref().map(|t| &t.state) {
            Some(ReadState::Read { value }) => value,
            _ => &[],
        }
    }
}

/// One file (or folder) of the ROCm stack and what reading it gave.
///
/// See the example on [`RocmReport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading<T> {
    /// What was read.
    pub path: PathBuf,
    /// What came of it.
    pub state: ReadState<T>,
}

/// What reading a file gave: nothing there, a value, or a file that exists and could not be
/// read or understood (which a caller reports as unknown, never as absent).
///
/// See the example on [`RocmReport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ReadState<T> {
    /// It does not exist.
    Missing,
    /// Read and understood.
    Read {
        /// What it says.
        value: T,
    },
    /// It exists but could not be read, or says something unexpected.
    Failed {
        /// Why, naming the file.
        reason: String,
    },
}

/// One GPU agent of the KFD topology: a node whose `gfx_target_version` is not 0.
///
/// See the example on [`RocmReport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuAgent {
    /// The node's number, its folder's name.
    pub node: u32,
    /// The LLVM target name, e.g. `gfx90a`.
    pub arch: String,
    /// The node's `unique_id`, which `ROCR_VISIBLE_DEVICES=GPU-<hex>` names; `None` when the
    /// node has none.
    pub unique_id: Option<u64>,
}

/// Whether the KFD device could be opened for reading and writing.
///
/// ```
/// use markerspec_gpu::DeviceAccess;
///
/// let denied = DeviceAccess { path: "/dev/kfd".into(), error: Some("Permission denied".to_owned()) };
/// let json = serde_json::to_string(&denied).unwrap();
/// assert_eq!(json, r#"{"path":"/dev/kfd","error":"Permission denied"}"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceAccess {
    /// The device.
    pub path: PathBuf,
    /// `None` when it opened; otherwise the operating system's error.
    pub error: Option<String>,
}
