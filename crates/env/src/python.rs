//! The python provider: one run of a Python interpreter with an embedded probe script.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use markerspec_pep508::{Field, FieldSet};
use serde::Deserialize;

use crate::facts::{Facts, Provenance};
use crate::host::libc_facts;
use crate::libc::{self, Libc};
use crate::provider::{EnvironmentProvider, ProviderError, ProviderErrorKind};
use crate::values::{canonical_arch, validate};
use markerspec_process::{Error as RunError, Run, tail};

/// The probe script, run as `python -I -S -c SCRIPT`.
///
/// ```
/// // Standard library only: it runs with `-I -S` on any interpreter from Python 3.4 on.
/// assert!(markerspec_env::PROBE_SCRIPT.contains("import json"));
/// ```
pub const PROBE_SCRIPT: &str = include_str!("probe.py");

/// The interpreter used when none is given: `python3` (`python` on Windows), searched in the
/// absolute folders of `PATH`.
///
/// See the example on [`PythonProvider`].
pub const DEFAULT_PYTHON: &str = if cfg!(windows) { "python" } else { "python3" };

/// The fields the probe answers.
const FIELDS: [Field; 16] = [
    Field::OsName,
    Field::SysPlatform,
    Field::PlatformMachine,
    Field::PlatformPythonImplementation,
    Field::PlatformRelease,
    Field::PlatformSystem,
    Field::PlatformVersion,
    Field::PythonVersion,
    Field::PythonFullVersion,
    Field::ImplementationName,
    Field::ImplementationVersion,
    Field::SysAbiFeatures,
    Field::PythonAbiTag,
    Field::InterpreterArch,
    Field::GlibcVersion,
    Field::MuslVersion,
];

#[derive(Deserialize)]
struct Reply {
    markerspec_python_probe: u32,
    standard: Standard,
    sys_abi_features: Vec<String>,
    python_abi_tag: Option<String>,
    arch_raw: String,
    pointer_bits: u32,
    gnu_libc: Option<String>,
    executable: Option<String>,
}

#[derive(Deserialize)]
struct Standard {
    implementation_name: String,
    implementation_version: String,
    os_name: String,
    platform_machine: String,
    platform_release: String,
    platform_system: String,
    platform_version: String,
    python_full_version: String,
    platform_python_implementation: String,
    python_version: String,
    sys_platform: String,
}

/// Identity of an interpreter file, for the cache: path, size, modification time.
type Key = (PathBuf, u64, Option<SystemTime>);

/// Facts about a Python interpreter, from one run of it with an embedded probe script.
///
/// **This provider executes the interpreter it is given.** It runs
/// `PROGRAM -I -S -c SCRIPT` (isolated mode: no `PYTHON*` variables, no user site, no `site`
/// import, so nothing from the current folder or `sitecustomize` runs); the script
/// ([`PROBE_SCRIPT`]) uses only the standard library and prints one JSON object. Give it only
/// interpreters you would run anyway. The run has a time limit (default 10 s) after which the
/// interpreter is killed.
///
/// Answers every standard field (as pypa/packaging's `default_environment()` computes them),
/// `sys_abi_features` (SPEC §8.1), `python_abi_tag` (§8.2, the ABI of
/// `packaging.tags.sys_tags()`'s first tag, computed without packaging; `none`/`abi3` are
/// Absent), `interpreter_arch` (§8.3: `sysconfig.get_platform()` mapped through the canonical
/// table, corrected for a 32-bit pointer size), and on Linux the C library the interpreter runs
/// on (§8.4: `os.confstr("CS_GNU_LIBC_VERSION")`, else the `PT_INTERP` loader of
/// `sys.executable`); on other systems both C library fields are Absent.
///
/// A missing interpreter, one that fails, hangs or prints something else is a
/// [`ProviderError`] naming the program; never a panic. The answer is kept per provider
/// value, keyed by the interpreter's path, size and modification time.
///
/// ```no_run
/// use markerspec_env::{EnvironmentProvider, PythonProvider, fact_fields};
/// use markerspec_pep508::Field;
///
/// let python = PythonProvider::with_program("/usr/bin/python3.12");
/// let facts = python.provide(fact_fields())?;
/// println!("{:?}", facts.string(Field::PythonFullVersion));
/// # Ok::<(), markerspec_env::ProviderError>(())
/// ```
///
/// Configured and looked up without running anything:
///
/// ```
/// use std::time::Duration;
/// use markerspec_env::{DEFAULT_PYTHON, ProviderErrorKind, PythonProvider};
///
/// assert_eq!(PythonProvider::new().program(), DEFAULT_PYTHON);
/// let python = PythonProvider::with_program("python3.99")
///     .path_var("/nonexistent/bin")
///     .timeout(Duration::from_secs(5));
/// assert_eq!(python.program(), "python3.99");
/// assert_eq!(python.resolve().unwrap_err().kind(), ProviderErrorKind::NotFound);
/// ```
#[derive(Debug)]
pub struct PythonProvider {
    program: OsString,
    path_var: Option<OsString>,
    timeout: Duration,
    cache: Mutex<Option<(Key, Facts)>>,
}

impl Default for PythonProvider {
    fn default() -> Self {
        PythonProvider::new()
    }
}

impl Clone for PythonProvider {
    fn clone(&self) -> Self {
        PythonProvider {
            program: self.program.clone(),
            path_var: self.path_var.clone(),
            timeout: self.timeout,
            cache: Mutex::new(None),
        }
    }
}

impl PythonProvider {
    /// The default interpreter ([`DEFAULT_PYTHON`] on `PATH`), 10-second limit.
    ///
    /// See the example on [`PythonProvider`].
    pub fn new() -> PythonProvider {
        PythonProvider::with_program(DEFAULT_PYTHON)
    }

    /// A given interpreter: a path, or a bare name searched in the absolute folders of `PATH`
    /// (empty and relative entries, which would mean the current folder, are skipped).
    ///
    /// See the example on [`PythonProvider`].
    pub fn with_program(program: impl Into<OsString>) -> PythonProvider {
        PythonProvider {
            program: program.into(),
            path_var: None,
            timeout: Duration::from_secs(10),
            cache: Mutex::new(None),
        }
    }

    /// The `PATH` searched for a bare program name (default: this process's).
    ///
    /// See the example on [`PythonProvider`].
    #[must_use]
    pub fn path_var(mut self, path: impl Into<OsString>) -> PythonProvider {
        self.path_var = Some(path.into());
        self
    }

    /// How long the interpreter may run before it is killed.
    ///
    /// See the example on [`PythonProvider`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> PythonProvider {
        self.timeout = timeout;
        self
    }

    /// The program as given.
    ///
    /// See the example on [`PythonProvider`].
    pub fn program(&self) -> &std::ffi::OsStr {
        &self.program
    }

    /// The interpreter's path: the program itself when it names a path, else the first match
    /// on `PATH`.
    ///
    /// # Errors
    /// [`ProviderErrorKind::NotFound`], naming the program.
    ///
    /// See the example on [`PythonProvider`].
    pub fn resolve(&self) -> Result<PathBuf, ProviderError> {
        let program = Path::new(&self.program);
        let shown = program.display();
        if program.components().count() > 1 || program.is_absolute() {
            return if program.is_file() {
                Ok(program.to_path_buf())
            } else {
                Err(not_found(format!(
                    "the Python interpreter `{shown}` does not exist"
                )))
            };
        }
        let path = self
            .path_var
            .clone()
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        markerspec_process::find_program(&self.program, &path).ok_or_else(|| {
            not_found(format!(
                "the Python interpreter `{shown}` was not found on PATH (only its absolute \
                 folders are searched)"
            ))
        })
    }

    fn run(&self, path: &Path) -> Result<Facts, ProviderError> {
        let shown = path.display().to_string();
        let mut command = Command::new(path);
        command.args(["-I", "-S", "-c", PROBE_SCRIPT]);
        let finished = match Run::new(self.timeout).run(&mut command) {
            Ok(f) => f,
            Err(RunError::Spawn(e)) => {
                return Err(failed(format!(
                    "cannot run the Python interpreter `{shown}`: {e}"
                )));
            }
            Err(RunError::TimedOut { .. }) => {
                return Err(ProviderError::new(
                    "python",
                    ProviderErrorKind::TimedOut,
                    format!(
                        "the Python interpreter `{shown}` did not answer within {:?} and was \
                         killed",
                        self.timeout
                    ),
                ));
            }
            Err(RunError::Wait(e)) => return Err(failed(format!("`{shown}`: {e}"))),
        };
        if !finished.status.success() {
            let stderr = tail(&finished.stderr.bytes, 600);
            return Err(failed(format!(
                "the Python interpreter `{shown}` failed ({}){}",
                finished.status,
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!(": {stderr}")
                }
            )));
        }
        let text = String::from_utf8_lossy(&finished.stdout.bytes);
        let line = last_line(&text);
        let reply: Reply = serde_json::from_str(line).map_err(|e| {
            ProviderError::new(
                "python",
                ProviderErrorKind::InvalidOutput,
                format!(
                    "`{shown}` did not answer the probe as a Python 3 interpreter would ({e}): \
                     {:?}",
                    tail(line.as_bytes(), 200)
                ),
            )
        })?;
        if reply.markerspec_python_probe != 1 {
            return Err(ProviderError::new(
                "python",
                ProviderErrorKind::InvalidOutput,
                format!("`{shown}` answered an unknown probe version"),
            ));
        }
        Ok(self.facts(&shown, reply))
    }

    fn facts(&self, shown: &str, reply: Reply) -> Facts {
        let mut facts = Facts::new();
        let p = || Provenance::new("python", format!("probe of {shown}"));
        let s = reply.standard;
        for (field, value) in [
            (Field::ImplementationName, s.implementation_name),
            (Field::ImplementationVersion, s.implementation_version),
            (Field::OsName, s.os_name),
            (Field::PlatformMachine, s.platform_machine),
            (Field::PlatformRelease, s.platform_release),
            (Field::PlatformSystem, s.platform_system),
            (Field::PlatformVersion, s.platform_version),
            (Field::PythonFullVersion, s.python_full_version),
            (
                Field::PlatformPythonImplementation,
                s.platform_python_implementation,
            ),
            (Field::PythonVersion, s.python_version),
            (Field::SysPlatform, s.sys_platform.clone()),
        ] {
            facts.known(field, value, p());
        }
        facts.known_set(
            Field::SysAbiFeatures,
            reply.sys_abi_features,
            p().with_detail("PEP 780 features of the build"),
        );
        match reply.python_abi_tag.as_deref() {
            Some("none" | "abi3" | "abi3t") => facts.absent(
                Field::PythonAbiTag,
                p().with_detail("the interpreter has no specific ABI tag"),
            ),
            Some(tag) => facts.known(Field::PythonAbiTag, tag.to_ascii_lowercase(), p()),
            None => facts.unknown(
                Field::PythonAbiTag,
                p().with_detail("sysconfig gave no usable EXT_SUFFIX"),
            ),
        };
        let arch = canonical_arch(&reply.arch_raw, Some(reply.pointer_bits));
        if arch.is_empty() {
            facts.unknown(
                Field::InterpreterArch,
                p().with_detail("neither sysconfig nor platform named an architecture"),
            );
        } else {
            facts.known(
                Field::InterpreterArch,
                arch,
                p().with_detail(format!(
                    "`{}`, {}-bit pointers",
                    reply.arch_raw, reply.pointer_bits
                )),
            );
        }
        if s.sys_platform.starts_with("linux") {
            let libc = match reply.gnu_libc.as_deref().and_then(libc::parse_confstr) {
                Some(version) => Libc::Glibc {
                    version,
                    method: format!("os.confstr in {shown}"),
                },
                None => match reply.executable.as_deref().filter(|e| !e.is_empty()) {
                    None => Libc::Unknown("the interpreter did not name its executable".into()),
                    Some(exe) => match libc::elf_interpreter(Path::new(exe)) {
                        Ok(Some(loader)) => libc::ask_loader(&loader, self.timeout),
                        Ok(None) => Libc::Unknown(format!("{exe} is statically linked")),
                        Err(e) => Libc::Unknown(e),
                    },
                },
            };
            libc_facts(&mut facts, "python", libc);
        } else {
            let p = p().with_detail("not a Linux system");
            facts.absent(Field::GlibcVersion, p.clone());
            facts.absent(Field::MuslVersion, p);
        }
        checked(facts)
    }
}

/// The longest string value taken from the probe, in bytes.
const MAX_VALUE: usize = 1024;

/// The probe's answers checked as any other source's are ([`validate`]): a value that is not
/// valid for its field (a `glibc_version` of `99999999999999999999999.1`, a string with control
/// characters, a kilobyte-long version) becomes Unknown, with a warning naming it.
fn checked(facts: Facts) -> Facts {
    let mut out = Facts::new();
    for warning in facts.warnings() {
        out.warn(warning.clone());
    }
    for (field, fact) in facts.iter() {
        let problem = match &fact.value {
            markerspec_pep508::EnvValue::String(s) if s.len() > MAX_VALUE => {
                Some(format!("a value of {} bytes", s.len()))
            }
            markerspec_pep508::EnvValue::String(s) if s.chars().any(char::is_control) => {
                Some(format!("{s:?} holds control characters"))
            }
            _ => None,
        };
        let result = match problem {
            Some(problem) => Err(problem),
            None => validate(field, fact.value.clone()),
        };
        match result {
            Ok(value) => {
                out.insert(field, value, fact.provenance.clone());
            }
            Err(why) => {
                let shown = match &fact.value {
                    markerspec_pep508::EnvValue::String(s) => {
                        markerspec_process::escape_control(&tail(s.as_bytes(), 80))
                    }
                    other => format!("{other:?}"),
                };
                out.warn(format!(
                    "the Python probe's `{field}` (`{shown}`) is not valid ({why}); it is Unknown"
                ));
                out.unknown(
                    field,
                    fact.provenance
                        .clone()
                        .with_detail(format!("the probe's value is not valid: {why}")),
                );
            }
        }
    }
    out
}

fn not_found(message: String) -> ProviderError {
    ProviderError::new("python", ProviderErrorKind::NotFound, message)
}

fn failed(message: String) -> ProviderError {
    ProviderError::new("python", ProviderErrorKind::Failed, message)
}

impl EnvironmentProvider for PythonProvider {
    fn name(&self) -> &str {
        "python"
    }

    fn fields(&self) -> FieldSet {
        FIELDS.into_iter().collect()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let path = self.resolve()?;
        let meta = std::fs::metadata(&path).ok();
        let key: Key = (
            path.clone(),
            meta.as_ref().map_or(0, std::fs::Metadata::len),
            meta.and_then(|m| m.modified().ok()),
        );
        let cached = self.cache.lock().ok().and_then(|c| {
            c.as_ref()
                .filter(|(k, _)| *k == key)
                .map(|(_, f)| f.clone())
        });
        let mut facts = match cached {
            Some(facts) => facts,
            None => {
                let facts = self.run(&path)?;
                if let Ok(mut cache) = self.cache.lock() {
                    *cache = Some((key, facts.clone()));
                }
                facts
            }
        };
        facts.retain(request);
        Ok(facts)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::facts::fact_fields;
    use markerspec_pep508::EnvValue;

    /// An executable shell script NAME running BODY, in a fresh temporary folder that is
    /// removed when the returned guard is dropped.
    fn script(name: &str, body: &str) -> (tempfile::TempDir, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("markerspec-env-py-")
            .tempdir()
            .unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, path)
    }

    /// Runs `provider` until it is not "text file busy" (a fork in another test thread while
    /// the script was being written).
    fn provide(provider: &PythonProvider) -> Result<Facts, ProviderError> {
        let mut result = provider.provide(fact_fields());
        for _ in 0..20 {
            match &result {
                Err(e) if e.message().contains("busy") => {
                    std::thread::sleep(Duration::from_millis(50));
                    result = provider.provide(fact_fields());
                }
                _ => break,
            }
        }
        result
    }

    #[test]
    fn a_missing_interpreter_is_named() {
        let err = PythonProvider::with_program("/nonexistent/python3")
            .provide(fact_fields())
            .unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::NotFound);
        assert!(err.to_string().contains("/nonexistent/python3"), "{err}");
        let err = PythonProvider::with_program("python-markerspec-nope")
            .path_var("/nonexistent")
            .provide(fact_fields())
            .unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::NotFound);
        assert!(err.to_string().contains("python-markerspec-nope"), "{err}");
        assert!(err.to_string().contains("PATH"), "{err}");
    }

    #[test]
    fn a_broken_interpreter_is_an_error_naming_it() {
        let (_dir, path) = script(
            "broken-python",
            "echo 'Fatal Python error: no encodings' >&2; exit 1",
        );
        let err = provide(&PythonProvider::with_program(&path)).unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::Failed, "{err}");
        assert!(err.to_string().contains(&*path.to_string_lossy()), "{err}");
        assert!(err.to_string().contains("no encodings"), "{err}");

        let (_dir, path) = script("chatty-python", "echo hello");
        let err = provide(&PythonProvider::with_program(&path)).unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::InvalidOutput, "{err}");
    }

    #[test]
    fn a_hanging_interpreter_is_killed() {
        let (_dir, path) = script("hanging-python", "exec sleep 60");
        let started = std::time::Instant::now();
        let err = provide(&PythonProvider::with_program(&path).timeout(Duration::from_millis(300)))
            .unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::TimedOut, "{err}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_probe_s_values_are_validated() {
        let reply = r##"{"markerspec_python_probe": 1, "standard": {"implementation_name": "cpython", "implementation_version": "3.13.1", "os_name": "posix", "platform_machine": "x86_64", "platform_release": "6.1", "platform_system": "Linux", "platform_version": "#1\u001b[2K", "python_full_version": "3.13.1", "platform_python_implementation": "CPython", "python_version": "3.13", "sys_platform": "linux"}, "sys_abi_features": ["gil-enabled", "free-threading"], "python_abi_tag": "cp313", "arch_raw": "x86_64", "pointer_bits": 64, "gnu_libc": "glibc 99999999999999999999999.1", "executable": "/usr/bin/python3.13"}"##;
        let (_dir, path) = script("lying-python", &format!("cat <<'EOF'\n{reply}\nEOF"));
        let facts = provide(&PythonProvider::with_program(&path)).unwrap();
        assert_eq!(facts.value(Field::GlibcVersion), Some(&EnvValue::Unknown));
        assert_eq!(facts.value(Field::SysAbiFeatures), Some(&EnvValue::Unknown));
        assert_eq!(
            facts.value(Field::PlatformVersion),
            Some(&EnvValue::Unknown)
        );
        assert_eq!(facts.string(Field::PythonVersion), Some("3.13"));
        let warnings = facts.warnings().join("\n");
        assert!(warnings.contains("glibc_version"), "{warnings}");
        assert!(warnings.contains("sys_abi_features"), "{warnings}");
        assert!(!warnings.contains('\u{1b}'), "{warnings}");
    }

    #[test]
    fn a_wrapper_that_leaves_a_helper_behind_does_not_hold_detection() {
        let reply = r##"{"markerspec_python_probe": 1, "standard": {"implementation_name": "cpython", "implementation_version": "3.12.1", "os_name": "posix", "platform_machine": "x86_64", "platform_release": "6.1", "platform_system": "Linux", "platform_version": "#1", "python_full_version": "3.12.1", "platform_python_implementation": "CPython", "python_version": "3.12", "sys_platform": "linux"}, "sys_abi_features": [], "python_abi_tag": "cp312", "arch_raw": "x86_64", "pointer_bits": 64, "gnu_libc": "glibc 2.36", "executable": "/usr/bin/python3"}"##;
        let (_dir, path) = script(
            "forking-python",
            &format!("(exec sleep 45) &\ncat <<'EOF'\n{reply}\nEOF"),
        );
        let started = std::time::Instant::now();
        let facts =
            provide(&PythonProvider::with_program(&path).timeout(Duration::from_secs(3))).unwrap();
        assert_eq!(facts.string(Field::PythonVersion), Some("3.12"));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn relative_path_entries_are_not_searched() {
        let err = PythonProvider::with_program("python3")
            .path_var(":.:bin:usr/bin")
            .provide(fact_fields())
            .unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::NotFound, "{err}");
    }

    #[test]
    fn a_reply_maps_to_fields() {
        // A free-threaded 3.13 on 32-bit ARM userland, through a fake interpreter.
        let reply = r##"{"markerspec_python_probe": 1, "standard": {"implementation_name": "cpython", "implementation_version": "3.13.1", "os_name": "posix", "platform_machine": "aarch64", "platform_release": "6.1", "platform_system": "Linux", "platform_version": "#1", "python_full_version": "3.13.1", "platform_python_implementation": "CPython", "python_version": "3.13", "sys_platform": "linux"}, "sys_abi_features": ["free-threading", "32-bit"], "python_abi_tag": "cp313t", "arch_raw": "aarch64", "pointer_bits": 32, "gnu_libc": "glibc 2.36", "executable": "/usr/bin/python3.13t"}"##;
        let (_dir, path) = script("fake-python", &format!("cat <<'EOF'\n{reply}\nEOF"));
        let facts = provide(&PythonProvider::with_program(&path)).unwrap();
        assert_eq!(facts.string(Field::PythonVersion), Some("3.13"));
        assert_eq!(facts.string(Field::PythonAbiTag), Some("cp313t"));
        assert_eq!(facts.string(Field::InterpreterArch), Some("arm"));
        assert_eq!(facts.string(Field::GlibcVersion), Some("2.36"));
        assert_eq!(facts.value(Field::MuslVersion), Some(&EnvValue::Absent));
        assert_eq!(
            facts.value(Field::SysAbiFeatures),
            Some(&EnvValue::Set(vec![
                "32-bit".into(),
                "free-threading".into()
            ]))
        );
        assert_eq!(facts.value(Field::CudaVersion), None);
    }

    #[test]
    fn the_real_python3_when_there_is_one() {
        let provider = PythonProvider::new();
        // Not a silent pass: a machine without python3 cannot run this test, and says so.
        assert!(
            provider.resolve().is_ok(),
            "not run: no python3 on PATH (install one; CI has it)"
        );
        let facts = provider.provide(fact_fields()).unwrap();
        let version = facts.string(Field::PythonVersion).unwrap();
        assert!(version.starts_with("3."), "{version}");
        let full = facts.string(Field::PythonFullVersion).unwrap();
        assert!(full.starts_with(version), "{full} {version}");
        let tag = facts.string(Field::PythonAbiTag).unwrap_or("");
        let implementation = facts.string(Field::ImplementationName).unwrap();
        if implementation == "cpython" {
            assert!(
                tag.starts_with(&format!("cp{}", version.replace('.', ""))),
                "{tag}"
            );
        }
        assert_eq!(
            facts.string(Field::InterpreterArch),
            Some(std::env::consts::ARCH)
        );
        let Some(EnvValue::Set(features)) = facts.value(Field::SysAbiFeatures) else {
            panic!("{:?}", facts.value(Field::SysAbiFeatures));
        };
        assert!(features.iter().any(|f| &**f == "64-bit"), "{features:?}");
        // The second call comes from the cache, identical.
        assert_eq!(provider.provide(fact_fields()).unwrap(), facts);
    }
}

/// The last line of a child's output that is not blank (`""` if none): where the probe scripts
/// write their one JSON reply, after anything an interpreter's start-up may have printed.
pub(crate) fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}
