//! The optional CUDA libraries (cuDNN, NCCL, cuTENSOR), probed from the target interpreter
//! (SPEC 0.2 §8.10, §10.1).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use markerspec_gpu::{CudaVersion, LibVersion};
use markerspec_pep508::{Field, FieldSet};
use markerspec_process::{Error as RunError, Run, tail};
use serde::Deserialize;

use crate::facts::{Facts, Provenance};
use crate::gpu::absolute_entries;
use crate::provider::{EnvironmentProvider, ProviderError};
use crate::python::PythonProvider;

/// The library probe, run by the target interpreter as `python -I -S -c SCRIPT LIBRARY`.
pub const LIBRARY_PROBE_SCRIPT: &str = include_str!("libprobe.py");

/// The fields the library probe answers.
pub const LIBRARY_FIELDS: [Field; 4] = [
    Field::CudnnVersion,
    Field::CudnnCudaVersion,
    Field::NcclVersion,
    Field::CutensorVersion,
];

/// The variables the probe gets (SPEC 0.2 §10.2), besides `PATH` and `LD_LIBRARY_PATH`, which
/// it gets without their empty and relative entries. The device masks are not among them.
const PASSED: [&str; 4] = ["CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH", "SystemRoot"];

/// The provenance layer.
const LAYER: &str = "libraries";

/// One library: its probe argument, its field, its label.
const LIBRARIES: [(&str, Field, &str); 3] = [
    ("cudnn", Field::CudnnVersion, "cuDNN"),
    ("nccl", Field::NcclVersion, "NCCL"),
    ("cutensor", Field::CutensorVersion, "cuTENSOR"),
];

#[derive(Deserialize)]
struct Reply {
    markerspec_library_probe: u32,
    state: String,
    library: Option<String>,
    path: Option<String>,
    step: Option<String>,
    code: Option<u64>,
    cudart: Option<u64>,
    cudart_error: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    tried: Vec<String>,
    #[serde(default)]
    errors: Vec<String>,
}

/// `cudnn_version`, `cudnn_cuda_version`, `nccl_version` and `cutensor_version` as the *target
/// interpreter* would load the libraries (SPEC 0.2 §8.10): the interpreter runs
/// [`LIBRARY_PROBE_SCRIPT`] once per library, so that its own `RPATH`/`RUNPATH` apply (a conda
/// environment's cuDNN is found through the `$ORIGIN/../lib` of its `python`), in a child
/// process with a time limit and the minimal environment of §10.2: `PATH` and
/// `LD_LIBRARY_PATH` without their empty and relative entries, `CONDA_PREFIX`, `CUDA_HOME`,
/// `CUDA_PATH`, `SystemRoot`; no device masks, nothing else.
///
/// **This provider executes the interpreter it is given**, and the interpreter loads the
/// libraries it finds (vendor code), as the python provider does.
///
/// Search order (the first that loads wins), `cuda.pathfinder`'s without its steps 0 and 1:
///
/// - Linux: `dlopen(soname, RTLD_NOW | RTLD_LOCAL)` for each soname (`libcudnn.so.9`, `.8`;
///   `libnccl.so.2`; `libcutensor.so.2`, `.1`), then by absolute path `$CUDA_HOME/lib64`,
///   `$CUDA_HOME/lib`, the same under `$CUDA_PATH`;
/// - Windows: an explicit walk (Python's `ctypes` does not search `PATH`):
///   `%CONDA_PREFIX%\Library\bin` when it is the interpreter's `sys.prefix`, each absolute
///   `PATH` entry, `%CUDA_PATH%\bin`; a DLL that exists there is loaded with
///   `LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
///   LOAD_LIBRARY_SEARCH_DEFAULT_DIRS)`;
/// - macOS: Absent, without probing.
///
/// The NVIDIA wheels in the target `site-packages` (`nvidia/cudnn/lib/…`) are not searched on
/// purpose: a marker that tests for the library must not change its answer once the dependency
/// it guards is installed (SPEC B.6).
///
/// Values: Known from the version function (decoded as [`LibVersion::from_nvidia_code`]);
/// Absent when nothing loads; Unknown when a library loads and its version function is missing
/// or fails, when the probe crashes, hangs or answers garbage, and when there is no target
/// interpreter. `cudnn_cuda_version` is `cudnnGetCudartVersion` (`12020` → `12.2`), Absent
/// exactly when `cudnn_version` is (I6). A library found through `LD_LIBRARY_PATH` or `PATH`
/// gets a warning: the answer holds only for processes started with the same variable.
#[derive(Clone, Debug)]
pub struct LibraryProvider {
    python: PythonProvider,
    vars: Option<BTreeMap<String, OsString>>,
    timeout: Duration,
}

impl LibraryProvider {
    /// Probes from `python` (its program and `PATH` decide which interpreter), 10-second limit
    /// per library, with this process's variables.
    pub fn new(python: PythonProvider) -> LibraryProvider {
        LibraryProvider {
            python,
            vars: None,
            timeout: Duration::from_secs(10),
        }
    }

    /// The variables the probe is to see, picked out of `vars` (the CLI passes
    /// `std::env::vars_os()`): `PATH`, `LD_LIBRARY_PATH`, `CONDA_PREFIX`, `CUDA_HOME`,
    /// `CUDA_PATH`, `SystemRoot`. Without this call, this process's own.
    #[must_use]
    pub fn vars<I, K, V>(mut self, vars: I) -> LibraryProvider
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        let mut kept = BTreeMap::new();
        for (k, v) in vars {
            let k: OsString = k.into();
            if let Some(name) = k.to_str()
                && (PASSED.contains(&name) || name == "PATH" || name == "LD_LIBRARY_PATH")
            {
                kept.insert(name.to_owned(), v.into());
            }
        }
        self.vars = Some(kept);
        self
    }

    /// How long each library's probe may run before it is killed.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> LibraryProvider {
        self.timeout = timeout;
        self
    }

    /// The environment the probe gets (SPEC 0.2 §10.2): the variables above, loader lists
    /// without empty and relative entries, empty lists and relative directories left out.
    pub fn child_env(&self) -> Vec<(String, OsString)> {
        let var = |name: &str| match &self.vars {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var_os(name),
        };
        let mut env = Vec::new();
        for name in ["PATH", "LD_LIBRARY_PATH"] {
            if let Some(list) = var(name).map(|v| absolute_entries(&v))
                && !list.is_empty()
            {
                env.push((name.to_owned(), list));
            }
        }
        for name in PASSED {
            if let Some(value) = var(name)
                && (name == "SystemRoot" || Path::new(&value).is_absolute())
            {
                env.push((name.to_owned(), value));
            }
        }
        env
    }

    /// One library's probe: the reply, or why there is none.
    fn run(&self, python: &Path, library: &str) -> Result<Reply, String> {
        let shown = python.display();
        let mut command = Command::new(python);
        command
            .args(["-I", "-S", "-c", LIBRARY_PROBE_SCRIPT, library])
            .env_clear()
            .envs(self.child_env());
        let finished = match Run::new(self.timeout).run(&mut command) {
            Ok(f) => f,
            Err(RunError::Spawn(e)) => return Err(format!("cannot run `{shown}`: {e}")),
            Err(RunError::TimedOut { .. }) => {
                return Err(format!(
                    "the probe in `{shown}` did not answer within {:?} and was killed",
                    self.timeout
                ));
            }
            Err(RunError::Wait(e)) => return Err(format!("`{shown}`: {e}")),
        };
        if !finished.status.success() {
            return Err(format!(
                "the probe in `{shown}` failed ({}): {}",
                finished.status,
                tail(&finished.stderr.bytes, 300)
            ));
        }
        let text = String::from_utf8_lossy(&finished.stdout.bytes);
        let line = crate::python::last_line(&text);
        let reply: Reply = serde_json::from_str(line).map_err(|e| {
            format!(
                "the probe in `{shown}` answered garbage ({e}): {:?}",
                tail(line.as_bytes(), 200)
            )
        })?;
        if reply.markerspec_library_probe != 1 {
            return Err(format!("the probe in `{shown}` speaks another version"));
        }
        Ok(reply)
    }

    /// Whether `path` lies in a folder of the probe's `LD_LIBRARY_PATH` (or `PATH` on
    /// Windows): then the answer depends on that variable.
    fn search_variable_of(&self, reply: &Reply) -> Option<&'static str> {
        let name = if cfg!(windows) {
            "PATH"
        } else {
            "LD_LIBRARY_PATH"
        };
        if reply.step.as_deref() == Some("PATH") {
            return Some("PATH");
        }
        let path = Path::new(reply.path.as_deref()?);
        let dir = path.parent()?;
        let env = self.child_env();
        let (_, list) = env.iter().find(|(k, _)| k == name)?;
        std::env::split_paths(list)
            .any(|entry| entry == dir)
            .then_some(name)
    }
}

impl EnvironmentProvider for LibraryProvider {
    fn name(&self) -> &str {
        LAYER
    }

    fn fields(&self) -> FieldSet {
        LIBRARY_FIELDS.into_iter().collect()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        let python = match self.python.resolve() {
            Ok(path) => path,
            Err(e) => {
                let p = Provenance::new(LAYER, "no target interpreter").with_detail(format!(
                    "the libraries are probed from the target interpreter (SPEC §8.10): {}",
                    e.message()
                ));
                for field in LIBRARY_FIELDS {
                    facts.unknown(field, p.clone());
                }
                facts.retain(request);
                return Ok(facts);
            }
        };
        let method = format!("probe in {}", python.display());
        for (library, field, label) in LIBRARIES {
            let wanted = request.contains(field)
                || (field == Field::CudnnVersion && request.contains(Field::CudnnCudaVersion));
            if !wanted {
                continue;
            }
            let p = Provenance::new(LAYER, method.clone());
            let reply = match self.run(&python, library) {
                Ok(reply) => reply,
                Err(why) => {
                    facts.unknown(field, p.clone().with_detail(why.clone()));
                    if field == Field::CudnnVersion {
                        facts.unknown(Field::CudnnCudaVersion, p.with_detail(why));
                    }
                    continue;
                }
            };
            map_reply(&mut facts, field, label, &reply, p);
            if let Some(var) = self.search_variable_of(&reply)
                && reply.state == "loaded"
            {
                facts.warn(format!(
                    "{label} was found through {var} ({}): the answer holds only for \
                     processes started with the same {var}",
                    reply.path.as_deref().unwrap_or("?")
                ));
            }
        }
        facts.retain(request);
        Ok(facts)
    }
}

/// One library's fields from its probe's reply.
fn map_reply(facts: &mut Facts, field: Field, label: &'static str, reply: &Reply, p: Provenance) {
    let library = reply.library.as_deref().unwrap_or("?");
    let found = || {
        let path = reply.path.as_deref().unwrap_or(library);
        match reply.step.as_deref() {
            Some("loader") | None => format!("{path} (through the interpreter's loader)"),
            Some(step) => format!("{path} (through {step})"),
        }
    };
    let cudnn = field == Field::CudnnVersion;
    match reply.state.as_str() {
        "loaded" => {
            let version = reply
                .code
                .ok_or_else(|| "no version code".to_owned())
                .and_then(|code| {
                    LibVersion::from_nvidia_code(label, code).map_err(|e| e.to_string())
                });
            match version {
                Ok(v) => facts.known(field, v.to_string(), p.clone().with_detail(found())),
                Err(e) => facts.unknown(field, p.clone().with_detail(format!("{}: {e}", found()))),
            };
            if cudnn {
                let cudart = match (reply.cudart, &reply.cudart_error) {
                    (Some(n), _) => u32::try_from(n)
                        .ok()
                        .and_then(|n| CudaVersion::new(n / 1000, n % 1000 / 10))
                        .ok_or_else(|| format!("cudnnGetCudartVersion returned {n}")),
                    (None, Some(e)) => Err(e.clone()),
                    (None, None) => Err("cuDNN did not say which CUDA it was built for".into()),
                };
                match (facts.value(field).cloned(), cudart) {
                    (Some(markerspec_pep508::EnvValue::String(_)), Ok(v)) => facts.known(
                        Field::CudnnCudaVersion,
                        v.to_string(),
                        p.with_detail(found()),
                    ),
                    (_, Ok(_)) => facts.unknown(
                        Field::CudnnCudaVersion,
                        p.with_detail("as cudnn_version, which is unknown"),
                    ),
                    (_, Err(e)) => facts.unknown(Field::CudnnCudaVersion, p.with_detail(e)),
                };
            }
        }
        "not_found" | "not_probed" => {
            let why = match reply.state.as_str() {
                "not_probed" => reply.reason.clone().unwrap_or_default(),
                _ => {
                    // A file that exists and does not load (wrong architecture, a missing
                    // dependency) is worth naming; "no such file" is not.
                    let errors: Vec<&str> = reply
                        .errors
                        .iter()
                        .map(String::as_str)
                        .filter(|e| !e.contains("No such file"))
                        .collect();
                    format!(
                        "not loadable from the target interpreter (tried {}){}",
                        reply.tried.join(", "),
                        if errors.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", errors.join("; "))
                        }
                    )
                }
            };
            facts.absent(field, p.clone().with_detail(why.clone()));
            if cudnn {
                facts.absent(Field::CudnnCudaVersion, p.with_detail(why));
            }
        }
        _ => {
            let why = format!(
                "{label}: {library}: {}",
                reply.reason.as_deref().unwrap_or("failed")
            );
            facts.unknown(field, p.clone().with_detail(why.clone()));
            if cudnn {
                facts.unknown(Field::CudnnCudaVersion, p.with_detail(why));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_gets_the_minimal_environment() {
        let provider = LibraryProvider::new(PythonProvider::new()).vars([
            ("PATH", "/usr/bin::relative/bin:."),
            ("LD_LIBRARY_PATH", ":lib:/opt/cudnn/lib"),
            ("CUDA_VISIBLE_DEVICES", ""),
            ("CUDA_HOME", "/usr/local/cuda"),
            ("CUDA_PATH", "cuda"),
            ("CONDA_PREFIX", "/opt/conda/envs/x"),
            ("HOME", "/root"),
        ]);
        let env: BTreeMap<String, OsString> = provider.child_env().into_iter().collect();
        assert_eq!(env["PATH"], OsString::from("/usr/bin"));
        assert_eq!(env["LD_LIBRARY_PATH"], OsString::from("/opt/cudnn/lib"));
        assert_eq!(env["CUDA_HOME"], OsString::from("/usr/local/cuda"));
        assert_eq!(env["CONDA_PREFIX"], OsString::from("/opt/conda/envs/x"));
        // A relative toolkit folder, the device masks and anything else: not passed.
        for absent in ["CUDA_PATH", "CUDA_VISIBLE_DEVICES", "HOME"] {
            assert!(!env.contains_key(absent), "{absent}: {env:?}");
        }
        // Only relative entries: no variable at all (an empty one is the current folder).
        let provider =
            LibraryProvider::new(PythonProvider::new()).vars([("LD_LIBRARY_PATH", ":.:lib")]);
        assert!(
            provider
                .child_env()
                .iter()
                .all(|(k, _)| k != "LD_LIBRARY_PATH")
        );
    }

    fn reply(json: &str) -> Reply {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn replies_map_to_fields() {
        use markerspec_pep508::EnvValue;
        let p = || Provenance::new(LAYER, "probe in python3");
        let mut facts = Facts::new();
        map_reply(
            &mut facts,
            Field::CudnnVersion,
            "cuDNN",
            &reply(
                r#"{"markerspec_library_probe": 1, "state": "loaded", "library": "libcudnn.so.9",
                    "path": "/opt/conda/lib/libcudnn.so.9", "step": "loader", "code": 90100,
                    "cudart": 12020}"#,
            ),
            p(),
        );
        assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
        assert_eq!(facts.string(Field::CudnnCudaVersion), Some("12.2"));
        let detail = facts.get(Field::CudnnVersion).unwrap().provenance.detail();
        assert!(detail.unwrap().contains("/opt/conda/lib/libcudnn.so.9"));
        // cuDNN 8's encoding; no cudart function: its CUDA is Unknown, never guessed.
        map_reply(
            &mut facts,
            Field::CudnnVersion,
            "cuDNN",
            &reply(
                r#"{"markerspec_library_probe": 1, "state": "loaded", "library": "libcudnn.so.8",
                    "step": "CUDA_HOME", "code": 8907,
                    "cudart_error": "cudnnGetCudartVersion: undefined symbol"}"#,
            ),
            p(),
        );
        assert_eq!(facts.string(Field::CudnnVersion), Some("8.9.7"));
        assert_eq!(
            facts.value(Field::CudnnCudaVersion),
            Some(&EnvValue::Unknown)
        );
        map_reply(
            &mut facts,
            Field::NcclVersion,
            "NCCL",
            &reply(
                r#"{"markerspec_library_probe": 1, "state": "not_found",
                    "tried": ["libnccl.so.2"]}"#,
            ),
            p(),
        );
        assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Absent));
        map_reply(
            &mut facts,
            Field::CutensorVersion,
            "cuTENSOR",
            &reply(
                r#"{"markerspec_library_probe": 1, "state": "failed",
                    "library": "libcutensor.so.2", "reason": "cutensorGetVersion: missing"}"#,
            ),
            p(),
        );
        assert_eq!(
            facts.value(Field::CutensorVersion),
            Some(&EnvValue::Unknown)
        );
        // An out-of-range code is not a version.
        map_reply(
            &mut facts,
            Field::NcclVersion,
            "NCCL",
            &reply(
                r#"{"markerspec_library_probe": 1, "state": "loaded", "library": "libnccl.so.2",
                    "step": "loader", "code": 0}"#,
            ),
            p(),
        );
        assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Unknown));
    }
}
