//! The [`Detector`] builder: what to look for, where, how long to wait, and which caches to use.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::cache;
use markerspec_process::{Error as RunError, Output, Run, tail};

use crate::cuda::{Source, smi};
use crate::probe::{self, NO_ENTRY_POINT, PROBE_FLAG, PROBE_TOKEN_VAR, ProbeConfig, ProbeReply};
use crate::report::{Detection, Origin, UnknownReason, VendorReport};

/// The name of the probe binary this crate ships.
///
/// ```no_run
/// use markerspec_gpu::{Detector, PROBE_BINARY};
///
/// // Where the detector looks for it by default: beside the current executable.
/// let beside = std::env::current_exe().unwrap().with_file_name(PROBE_BINARY);
/// assert!(beside.exists());
/// let detection = Detector::new().probe_program(&beside).detect();
/// assert!(!detection.vendors.is_empty());
/// ```
pub const PROBE_BINARY: &str = "markerspec-gpu-probe";

/// The variable the system loader reads for extra library folders, passed through to the probe.
#[cfg(not(windows))]
const LIBRARY_PATH_VAR: Option<&str> = Some("LD_LIBRARY_PATH");
/// Windows searches `PATH` for DLLs; there is no separate variable.
#[cfg(windows)]
const LIBRARY_PATH_VAR: Option<&str> = None;

/// Default time limit for a detection.
///
/// ```
/// use std::time::Duration;
/// use markerspec_gpu::{DEFAULT_TIMEOUT, Detector};
///
/// assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(10));
/// let patient = Detector::new().timeout(DEFAULT_TIMEOUT * 3);
/// # let _ = patient;
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

const STDOUT_CAP: usize = 1024 * 1024;
const STDERR_CAP: usize = 64 * 1024;

/// Detects the NVIDIA and ROCm stacks. Build one with [`Detector::new`], adjust it with the
/// builder methods, then call [`detect`](Self::detect).
///
/// ```no_run
/// use std::time::Duration;
/// use markerspec_gpu::{Detector, Outcome};
///
/// let detection = Detector::new().timeout(Duration::from_secs(5)).detect();
/// match detection.cuda() {
///     Some(Outcome::Detected(report)) => println!("CUDA {:?}", report.cuda_driver_version()),
///     Some(Outcome::Absent { .. }) => println!("no NVIDIA GPU"),
///     Some(Outcome::Unknown { reason }) => println!("could not tell: {reason}"),
///     _ => println!("not asked"),
/// }
/// ```
///
/// Every setting is explicit: this crate reads no override from the environment. The CLI (or
/// any embedding program) maps its own flags and variables onto these methods. Here every file
/// named is missing and nothing else is searched, so both stacks are absent on any machine:
///
/// ```
/// use std::time::Duration;
/// use markerspec_gpu::cuda::Source;
/// use markerspec_gpu::{Detector, Origin};
///
/// let missing = std::env::temp_dir().join("markerspec-doc-no-such-dir");
/// let detector = Detector::new()
///     .timeout(Duration::from_secs(5))
///     .sources([Source::LibCuda, Source::Nvml, Source::NvidiaSmi])
///     .search_system(false)
///     .memory_cache(false)
///     .nvml_library(missing.join("libnvidia-ml.so.1"))
///     .cuda_library(missing.join("libcuda.so.1"))
///     .nvidia_smi(missing.join("nvidia-smi"))
///     .optional_libraries(true)
///     .cudnn_library(missing.join("libcudnn.so.9"))
///     .nccl_library(missing.join("libnccl.so.2"))
///     .cutensor_library(missing.join("libcutensor.so.2"))
///     .driver_version_file(missing.join("version"))
///     .rocm(true)
///     .hip_library(missing.join("libamdhip64.so"))
///     .rocm_path(&missing)
///     .kfd_topology(missing.join("nodes"))
///     .kfd_device(missing.join("kfd"))
///     .path_var(&missing)
///     .library_path_var(&missing)
///     .child_env("ROCM_PATH", &missing);
/// // In this process: nothing exists to load, so nothing is loaded.
/// let detection = detector.detect_in_process();
/// assert_eq!(detection.origin, Origin::InProcess);
/// assert!(detection.cuda().unwrap().is_absent());
/// assert!(detection.rocm().unwrap().is_absent());
/// assert!(!detection.has_unknown());
/// ```
#[derive(Clone, Debug)]
pub struct Detector {
    config: ProbeConfig,
    timeout: Duration,
    probe_program: Option<PathBuf>,
    path_var: Option<OsString>,
    library_path_var: Option<OsString>,
    child_env: Vec<(OsString, OsString)>,
    memory_cache: bool,
    disk_cache: Option<PathBuf>,
}

impl Default for Detector {
    fn default() -> Self {
        Self::new()
    }
}

fn absolute(path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Detector {
    /// Every source in the default order, the system searched, optional libraries and ROCm
    /// included, a 10-second limit, the memory cache on and no disk cache.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn new() -> Self {
        Self {
            config: ProbeConfig::default(),
            timeout: DEFAULT_TIMEOUT,
            probe_program: None,
            path_var: None,
            library_path_var: None,
            child_env: Vec::new(),
            memory_cache: true,
            disk_cache: None,
        }
    }

    /// How long the probe may run before it is killed and the answer is
    /// [`UnknownReason::Timeout`]. Each `nvidia-smi` run inside gets three quarters of it.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The program to run as the probe child. It is run as `PROGRAM --markerspec-gpu-probe
    /// CONFIG_JSON` and must answer as [`probe_main`](crate::probe_main) does: the
    /// `markerspec-gpu-probe` binary, or a program that calls
    /// [`run_probe_if_requested`](crate::run_probe_if_requested) first thing in `main`.
    ///
    /// Default: `markerspec-gpu-probe` beside the current executable when it exists (and, when
    /// it answers in another reply schema, left there by an older install, the current
    /// executable instead), else the current executable itself. A current executable without the call never recurses: its
    /// child stops when it reaches detection, and the answer is
    /// [`UnknownReason::NoProbeEntryPoint`].
    #[must_use]
    pub fn probe_program(mut self, program: impl AsRef<Path>) -> Self {
        self.probe_program = Some(absolute(program));
        self
    }

    /// Which sources to try, in order (default [`Source::ALL`]: NVML, libcuda, nvidia-smi).
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn sources(mut self, sources: impl IntoIterator<Item = Source>) -> Self {
        self.config.sources = sources.into_iter().collect();
        self
    }

    /// Whether to look beyond the explicit paths: sonames through the system loader, the per-OS
    /// folder lists, `nvidia-smi` on `PATH`, `/proc/driver/nvidia/version`, `/opt/rocm`, the KFD
    /// topology and device.
    /// Default `true`; with `false`, only what was given explicitly is used.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn search_system(mut self, search: bool) -> Self {
        self.config.search_system = search;
        self
    }

    /// An NVML library file to try before any other.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libnvidia-ml.so.1")]
    pub fn nvml_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.nvml_library = Some(absolute(path));
        self
    }

    /// A CUDA driver library file to try before any other.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libcuda.so.1")]
    pub fn cuda_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.cuda_library = Some(absolute(path));
        self
    }

    /// The `nvidia-smi` program to run instead of searching `PATH`.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn nvidia_smi(mut self, path: impl AsRef<Path>) -> Self {
        self.config.nvidia_smi = Some(absolute(path));
        self
    }

    /// Whether to look for cuDNN, NCCL and cuTENSOR when a driver is found (default `true`).
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn optional_libraries(mut self, look: bool) -> Self {
        self.config.libraries = look;
        self
    }

    /// A cuDNN library file to try before the sonames.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libcudnn.so.9")]
    pub fn cudnn_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.cudnn_library = Some(absolute(path));
        self
    }

    /// An NCCL library file to try before the soname.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libnccl.so.2")]
    pub fn nccl_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.nccl_library = Some(absolute(path));
        self
    }

    /// A cuTENSOR library file to try before the sonames.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libcutensor.so.2")]
    pub fn cutensor_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.cutensor_library = Some(absolute(path));
        self
    }

    /// Whether to detect ROCm (default `true`).
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn rocm(mut self, detect: bool) -> Self {
        self.config.rocm = detect;
        self
    }

    /// A HIP runtime library file to try before the sonames.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    #[doc(alias = "libamdhip64.so")]
    pub fn hip_library(mut self, path: impl AsRef<Path>) -> Self {
        self.config.hip_library = Some(absolute(path));
        self
    }

    /// The ROCm installation whose `.info/version` names the installed release, instead of
    /// `/opt/rocm`. (`markerspec-env` passes `ROCM_PATH` here.)
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn rocm_path(mut self, dir: impl AsRef<Path>) -> Self {
        self.config.rocm_path = Some(absolute(dir));
        self
    }

    /// The KFD topology folder to read GPU agents from, instead of
    /// `/sys/class/kfd/kfd/topology/nodes`.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn kfd_topology(mut self, dir: impl AsRef<Path>) -> Self {
        self.config.kfd_topology = Some(absolute(dir));
        self
    }

    /// The KFD device to open to learn whether this user may use the AMD GPUs, instead of
    /// `/dev/kfd`.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn kfd_device(mut self, path: impl AsRef<Path>) -> Self {
        self.config.kfd_device = Some(absolute(path));
        self
    }

    /// The file to read the kernel driver's version from when the source does not report it,
    /// instead of `/proc/driver/nvidia/version`.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn driver_version_file(mut self, path: impl AsRef<Path>) -> Self {
        self.config.driver_version_file = Some(absolute(path));
        self
    }

    /// The `PATH` given to the probe child, and searched for `nvidia-smi`. Default: this
    /// process's `PATH`.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn path_var(mut self, value: impl Into<OsString>) -> Self {
        self.path_var = Some(value.into());
        self
    }

    /// The `LD_LIBRARY_PATH` given to the probe child, which its system loader searches first.
    /// Default: this process's. (In-process detection uses this process's loader as it is.)
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn library_path_var(mut self, value: impl Into<OsString>) -> Self {
        self.library_path_var = Some(value.into());
        self
    }

    /// One more environment variable for the probe child, which otherwise gets only `PATH` and
    /// `LD_LIBRARY_PATH` (on Windows also `SystemRoot` and `ProgramFiles`). For example
    /// `ROCM_PATH`, or `CUDA_VISIBLE_DEVICES` when a caller wants libcuda to see what its own
    /// process sees. (Marker facts are detected with the device masks unset, SPEC §8.5:
    /// `markerspec-env` passes none of them.)
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn child_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.child_env.push((key.into(), value.into()));
        self
    }

    /// Whether to remember detections in this process's memory, keyed by the whole
    /// configuration (default `true`). See [`clear_memory_cache`](crate::clear_memory_cache).
    #[must_use]
    pub fn memory_cache(mut self, remember: bool) -> Self {
        self.memory_cache = remember;
        self
    }

    /// Keep detections on disk in `dir` (created with mode 0700; entries 0600, written
    /// atomically, validated on every read; see the crate docs). Unknown outcomes are never
    /// stored. [`default_cache_dir`](crate::default_cache_dir) gives the usual folder.
    #[must_use]
    pub fn disk_cache(mut self, dir: impl AsRef<Path>) -> Self {
        self.disk_cache = Some(absolute(dir));
        self
    }

    /// Detects in a child process: the probe loads the driver libraries there, so a driver that
    /// hangs or crashes yields [`Outcome::Unknown`](crate::Outcome::Unknown) and the caller
    /// lives on. The child gets stdin closed, a minimal environment, `/` as its working folder
    /// and capped output, and it is killed (with everything it started) when the time limit
    /// passes.
    ///
    /// Never fails: every failure is an [`Outcome::Unknown`](crate::Outcome::Unknown) with its
    /// reason, for every vendor asked for.
    ///
    /// Never recursive: in a process that is itself a probe child (marked by the detector
    /// that started it), nothing is started. A child that was run as the probe but reached
    /// detection instead (its `main` lacks
    /// [`run_probe_if_requested`](crate::run_probe_if_requested)) exits at once, and its
    /// parent reports [`UnknownReason::NoProbeEntryPoint`]; any other marked process gets
    /// [`UnknownReason::InsideProbe`].
    #[must_use]
    pub fn detect(&self) -> Detection {
        if probe::stop_if_probe_child().is_err() {
            return self.unknown_detection(UnknownReason::InsideProbe, Origin::Probe);
        }
        self.cached(Mode::Child)
    }

    fn unknown_detection(&self, reason: UnknownReason, origin: Origin) -> Detection {
        Detection {
            vendors: probe::all_unknown(&self.probe_config(true), &reason),
            origin,
            notes: Vec::new(),
        }
    }

    /// Detects inside the calling process, with no isolation: a driver that hangs hangs the
    /// caller, and one that crashes kills it. For callers that accept that risk (or cannot start
    /// processes). Libraries loaded here stay loaded until the process ends, since a driver
    /// library that started threads cannot be unloaded safely. `library_path_var` and
    /// `child_env` do not apply: this process's loader is used as it is.
    ///
    /// See the example on [`Detector`].
    #[must_use]
    pub fn detect_in_process(&self) -> Detection {
        self.cached(Mode::InProcess)
    }

    fn cached(&self, mode: Mode) -> Detection {
        if self.memory_cache {
            cache::memoized(self.memory_key(mode), || self.uncached(mode))
        } else {
            self.uncached(mode)
        }
    }

    fn memory_key(&self, mode: Mode) -> String {
        format!(
            "{mode:?}\n{}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
            serde_json::to_string(&self.config).unwrap_or_default(),
            self.timeout,
            self.probe_program,
            self.effective_path(),
            self.effective_library_path(),
            self.child_env,
            self.disk_cache,
        )
    }

    fn effective_path(&self) -> Option<OsString> {
        self.path_var.clone().or_else(|| std::env::var_os("PATH"))
    }

    fn effective_library_path(&self) -> Option<OsString> {
        self.library_path_var
            .clone()
            .or_else(|| LIBRARY_PATH_VAR.and_then(std::env::var_os))
    }

    fn probe_config(&self, in_child: bool) -> ProbeConfig {
        let tool_ms = u64::try_from(self.timeout.as_millis() * 3 / 4).unwrap_or(u64::MAX);
        ProbeConfig {
            tool_timeout_ms: tool_ms.max(1),
            in_child,
            path_var: self.effective_path(),
            ..self.config.clone()
        }
    }

    fn uncached(&self, mode: Mode) -> Detection {
        let mut notes = Vec::new();
        let cfg = self.probe_config(mode == Mode::Child);
        let disk = self.disk_cache.as_deref().map(|dir| {
            let library_path = match mode {
                Mode::Child => self.effective_library_path(),
                Mode::InProcess => LIBRARY_PATH_VAR.and_then(std::env::var_os),
            };
            // Everything the memory key holds that the configuration does not.
            let context = format!(
                "{mode:?} probe {:?} path {:?} env {:?}",
                self.probe_program,
                self.effective_path(),
                self.child_env
            );
            let key = cache::disk_key(&cfg, library_path.as_deref(), smi::resolved(&cfg), &context);
            (dir, key)
        });
        if let Some((dir, key)) = &disk {
            if let Some(mut detection) = cache::load(dir, key, &mut notes) {
                detection.notes.extend(notes);
                return detection;
            }
        }
        let (vendors, origin) = match mode {
            Mode::Child => match self.run_child(&cfg) {
                Ok(vendors) => (vendors, Origin::Probe),
                Err(reason) => (probe::all_unknown(&cfg, &reason), Origin::Probe),
            },
            Mode::InProcess => (probe::probe_all(&cfg), Origin::InProcess),
        };
        let mut detection = Detection {
            vendors,
            origin,
            notes: Vec::new(),
        };
        if let Some((dir, key)) = &disk {
            if !detection.has_unknown() {
                cache::store(dir, key, &detection, &mut notes);
            }
        }
        detection.notes = notes;
        detection
    }

    /// The probe program: the one given, else the probe binary beside this program, else
    /// this program itself.
    fn program(&self) -> Result<Program, UnknownReason> {
        if let Some(program) = &self.probe_program {
            return Ok(Program::Given(program.clone()));
        }
        let exe = current_exe()?;
        let sibling = exe.with_file_name(format!("{PROBE_BINARY}{}", std::env::consts::EXE_SUFFIX));
        Ok(if sibling.is_file() {
            Program::Sibling(sibling)
        } else {
            Program::Itself(exe)
        })
    }

    fn run_child(&self, cfg: &ProbeConfig) -> Result<Vec<VendorReport>, UnknownReason> {
        let program = self.program()?;
        let (path, itself) = match &program {
            Program::Given(p) | Program::Sibling(p) => (p, false),
            Program::Itself(p) => (p, true),
        };
        match self.run_program(path, itself, cfg) {
            // A probe binary left beside a newer program (an earlier install or build) speaks
            // an older schema: this program answers for itself instead.
            Err(UnknownReason::Garbage { detail })
                if matches!(program, Program::Sibling(_))
                    && detail.starts_with(probe::OTHER_SCHEMA) =>
            {
                let exe = current_exe()?;
                self.run_program(&exe, true, cfg)
            }
            answer => answer,
        }
    }

    fn run_program(
        &self,
        program: &Path,
        itself: bool,
        cfg: &ProbeConfig,
    ) -> Result<Vec<VendorReport>, UnknownReason> {
        let garbage = |detail: String| UnknownReason::Garbage { detail };
        // A token for this run marks the child (so that it never starts another probe) and
        // proves to it that the detection code asked.
        let cfg = ProbeConfig {
            token: probe::new_token(),
            ..cfg.clone()
        };
        let json = serde_json::to_string(&cfg)
            .map_err(|e| garbage(format!("could not encode the configuration: {e}")))?;
        let mut command = Command::new(program);
        command
            .arg(PROBE_FLAG)
            .arg(json)
            .env_clear()
            .env(PROBE_TOKEN_VAR, &cfg.token);
        if let Some(path) = self.effective_path() {
            command.env("PATH", path);
        }
        if let (Some(var), Some(value)) = (LIBRARY_PATH_VAR, self.effective_library_path()) {
            command.env(var, value);
        }
        #[cfg(windows)]
        for var in ["SystemRoot", "ProgramFiles"] {
            if let Some(value) = std::env::var_os(var) {
                command.env(var, value);
            }
        }
        for (key, value) in &self.child_env {
            command.env(key, value);
        }
        if cfg!(unix) {
            // An empty entry in LD_LIBRARY_PATH means the working folder; make that `/`.
            command.current_dir("/");
        }
        // One deadline for the whole run; the probe's group (nvidia-smi included) is killed
        // when it ends, however it ends.
        let ran = Run::new(self.timeout)
            .stdout_cap(STDOUT_CAP)
            .stderr_cap(STDERR_CAP)
            .run(&mut command);
        interpret(ran, self.timeout, program, itself)
    }
}

/// Where the probe child's program came from.
enum Program {
    /// [`Detector::probe_program`].
    Given(PathBuf),
    /// The probe binary beside the current executable.
    Sibling(PathBuf),
    /// The current executable.
    Itself(PathBuf),
}

fn current_exe() -> Result<PathBuf, UnknownReason> {
    std::env::current_exe().map_err(|error| UnknownReason::Spawn {
        program: "(the current executable)".to_owned(),
        error: error.to_string(),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Child,
    InProcess,
}

fn interpret(
    ran: Result<Output, RunError>,
    timeout: Duration,
    program: &Path,
    itself: bool,
) -> Result<Vec<VendorReport>, UnknownReason> {
    let no_entry_point = || UnknownReason::NoProbeEntryPoint {
        program: program.display().to_string(),
    };
    let Output {
        status,
        stdout,
        stderr,
    } = match ran {
        Ok(output) => output,
        Err(RunError::Spawn(error)) => {
            return Err(UnknownReason::Spawn {
                program: program.display().to_string(),
                error: error.to_string(),
            });
        }
        Err(RunError::TimedOut { .. }) => {
            return Err(UnknownReason::Timeout {
                after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            });
        }
        Err(RunError::Wait(error)) => {
            return Err(UnknownReason::Crashed {
                signal: None,
                exit_code: None,
                stderr: format!("waiting for the probe failed: {error}"),
            });
        }
    };
    let stderr_text = String::from_utf8_lossy(&stderr.bytes);
    if stderr_text.contains(NO_ENTRY_POINT) {
        return Err(no_entry_point());
    }
    // This program run as the probe, which said nothing as the probe would (the probe's own
    // messages start with `markerspec-gpu-probe:`) and exited by itself: its `main` does not
    // start with the entry point (it may have failed on the unknown flag before detecting).
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    let spoke_as_probe = stderr_text.contains("markerspec-gpu-probe:")
        || String::from_utf8_lossy(&stdout.bytes).contains("\"markerspec_gpu_probe\"");
    if itself && signal.is_none() && !spoke_as_probe {
        return Err(no_entry_point());
    }
    if !status.success() {
        return Err(UnknownReason::Crashed {
            signal,
            exit_code: status.code(),
            stderr: tail(&stderr.bytes, 2000),
        });
    }
    let garbage = |detail: String| UnknownReason::Garbage { detail };
    if stdout.truncated {
        return Err(garbage(format!("more than {STDOUT_CAP} bytes of output")));
    }
    let text = String::from_utf8_lossy(&stdout.bytes);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    ProbeReply::decode(line).map_err(|e| garbage(format!("{e}: {:?}", tail(line.as_bytes(), 200))))
}

/// Detects with the defaults: `Detector::new().detect()`.
///
/// ```no_run
/// let detection = markerspec_gpu::detect();
/// println!("{detection:?}");
/// ```
#[must_use]
pub fn detect() -> Detection {
    Detector::new().detect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detectors_and_detections_cross_threads() {
        fn check<T: Send + Sync>() {}
        check::<Detector>();
        check::<Detection>();
    }

    #[test]
    fn explicit_paths_become_absolute() {
        let detector = Detector::new().nvml_library("relative/libnvidia-ml.so.1");
        let path = detector.config.nvml_library.unwrap();
        assert!(path.is_absolute());
        assert!(path.ends_with("relative/libnvidia-ml.so.1"));
    }

    #[test]
    fn the_tool_gets_three_quarters_of_the_time() {
        let cfg = Detector::new()
            .timeout(Duration::from_secs(4))
            .probe_config(true);
        assert_eq!(cfg.tool_timeout_ms, 3000);
        assert!(cfg.in_child);
    }
}
