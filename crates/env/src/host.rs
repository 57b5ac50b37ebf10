//! The host provider: what the operating system says, without Python.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use markerspec_pep508::{Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::host_arch::{self, HostOs};
use crate::libc::{self, Libc};
use crate::provider::{EnvironmentProvider, ProviderError};

/// The standard fields the host answers from the kernel.
const OS_FIELDS: [Field; 6] = [
    Field::OsName,
    Field::SysPlatform,
    Field::PlatformSystem,
    Field::PlatformRelease,
    Field::PlatformVersion,
    Field::PlatformMachine,
];

/// Fields only an interpreter can answer; the host marks them Unknown.
const INTERPRETER_FIELDS: [Field; 8] = [
    Field::PlatformPythonImplementation,
    Field::PythonVersion,
    Field::PythonFullVersion,
    Field::ImplementationName,
    Field::ImplementationVersion,
    Field::SysAbiFeatures,
    Field::PythonAbiTag,
    Field::InterpreterArch,
];

/// The programs whose ELF interpreter names the C library's loader (SPEC §8.4).
const LIBC_PROGRAMS: [&str; 4] = ["/bin/sh", "/usr/bin/env", "/bin/dash", "/bin/ls"];

/// Operating-system facts without Python: `os_name`, `sys_platform`, `platform_system`,
/// `platform_release`, `platform_version`, `platform_machine`, `host_arch` and the C library
/// (`glibc_version`, `musl_version`).
///
/// The values are those Python's `os.name`, `sys.platform` and `platform` module give on the
/// same machine for an interpreter built for it:
///
/// - Unix: `uname(2)` (through `rustix`, no `unsafe` here): `platform_system` is `sysname`,
///   `platform_release` `release`, `platform_version` `version`, `platform_machine` `machine`;
///   `sys_platform` is `linux`, `darwin`, or the lowercased `sysname` followed by the release's
///   major number (`freebsd14`), as CPython builds it.
/// - Windows: `nt`, `win32`, `Windows`; `platform_machine` from `PROCESSOR_ARCHITEW6432`, else
///   `PROCESSOR_ARCHITECTURE` (`AMD64`, `ARM64`, `x86`); `platform_version` (`10.0.22631`) and
///   `platform_release` (`10`, or `11` from build 22000, as Python 3.12 reports it) from
///   `cmd /c ver`.
///
/// `host_arch` (SPEC §8.12), the CPU's architecture seen through emulation, mapped through the
/// table of §8.3: on macOS, `sysctl -in sysctl.proc_translated` (`1` in a process Rosetta 2
/// translates, whose host is then `aarch64`; `uname -m` otherwise); on Windows, the native
/// machine of `IsWow64Process2` (through `markerspec-gpu`, which holds the workspace's
/// `unsafe` code), which sees through WoW64 and the x64 emulation of Windows on Arm, else
/// `PROCESSOR_ARCHITEW6432`, else `PROCESSOR_ARCHITECTURE` (§8.12's fallback);
/// elsewhere the kernel's `uname().machine`, without the pointer-size correction of
/// `interpreter_arch`. Emulation by `qemu-user` is not seen.
///
/// The C library (Linux only; Absent elsewhere): the `PT_INTERP` program header of `/bin/sh`
/// (then `/usr/bin/env`, `/bin/dash`, `/bin/ls`) names the dynamic loader. A musl loader
/// (`ld-musl-*.so.1`) is run without arguments and its `Version X.Y.Z` banner read (PEP 656);
/// any other loader is run with `--version` and the glibc version read from its first line
/// (`ld.so (… GLIBC 2.36-9) stable release version 2.36.`), reduced to `major.minor`. The
/// loader is run as a program, with a time limit; nothing is loaded into this process.
/// (`gnu_get_libc_version` would need `unsafe` FFI, which this crate does not have.)
///
/// Interpreter-dependent fields (`python_version`, `sys_abi_features`, …) are answered
/// Unknown: they are the python provider's business. Results are computed once per provider
/// value and kept.
///
/// ```
/// use markerspec_env::{EnvironmentProvider, HostProvider, fact_fields};
/// use markerspec_pep508::Field;
///
/// let facts = HostProvider::new().provide(fact_fields()).unwrap();
/// # #[cfg(target_os = "linux")]
/// assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
///
/// // Other programs to ask, and a shorter limit.
/// let host = HostProvider::new()
///     .libc_programs(["/bin/sh", "/usr/bin/env"])
///     .sysctl_program("/usr/sbin/sysctl")
///     .timeout(std::time::Duration::from_secs(2));
/// let facts = host.provide(fact_fields()).unwrap();
/// # #[cfg(unix)]
/// assert_eq!(facts.string(Field::OsName), Some("posix"));
/// ```
#[derive(Debug)]
pub struct HostProvider {
    libc_programs: Vec<PathBuf>,
    sysctl: PathBuf,
    timeout: Duration,
    cache: OnceLock<Facts>,
}

impl Default for HostProvider {
    fn default() -> Self {
        HostProvider::new()
    }
}

impl Clone for HostProvider {
    fn clone(&self) -> Self {
        HostProvider {
            libc_programs: self.libc_programs.clone(),
            sysctl: self.sysctl.clone(),
            timeout: self.timeout,
            cache: OnceLock::new(),
        }
    }
}

impl HostProvider {
    /// The host provider with the standard programs and a 5-second limit for the loader.
    ///
    /// See the example on [`HostProvider`].
    pub fn new() -> HostProvider {
        HostProvider {
            libc_programs: LIBC_PROGRAMS.iter().map(PathBuf::from).collect(),
            sysctl: PathBuf::from(host_arch::SYSCTL),
            timeout: Duration::from_secs(5),
            cache: OnceLock::new(),
        }
    }

    /// The programs whose loader is asked for the C library, first match wins.
    ///
    /// See the example on [`HostProvider`].
    #[must_use]
    pub fn libc_programs<I, P>(mut self, programs: I) -> HostProvider
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.libc_programs = programs.into_iter().map(Into::into).collect();
        self
    }

    /// The `sysctl` program asked on macOS whether this process runs under Rosetta 2 (default
    /// `/usr/sbin/sysctl`).
    ///
    /// See the example on [`HostProvider`].
    #[must_use]
    pub fn sysctl_program(mut self, program: impl Into<PathBuf>) -> HostProvider {
        self.sysctl = program.into();
        self
    }

    /// How long the C library's loader (and, on macOS, `sysctl`) may run.
    ///
    /// See the example on [`HostProvider`].
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> HostProvider {
        self.timeout = timeout;
        self
    }

    fn detect(&self) -> Facts {
        let mut facts = Facts::new();
        os_facts(&mut facts);
        let os = HostOs::current();
        let translated = if os == HostOs::MacOs {
            host_arch::proc_translated(&self.sysctl, self.timeout)
        } else {
            Ok(None)
        };
        let native = if os == HostOs::Windows {
            markerspec_gpu::machine::wow64_machines().map(|m| m.map(|m| m.native))
        } else {
            Ok(None)
        };
        let (value, provenance) =
            host_arch::host_arch(os, facts.string(Field::PlatformMachine), translated, native);
        facts.insert(Field::HostArch, value, provenance);
        let unknown = Provenance::new("host", "none")
            .with_detail("interpreter-dependent: the host provider does not run Python");
        for field in INTERPRETER_FIELDS {
            facts.unknown(field, unknown.clone());
        }
        if cfg!(target_os = "linux") {
            let programs: Vec<&std::path::Path> =
                self.libc_programs.iter().map(PathBuf::as_path).collect();
            libc_facts(
                &mut facts,
                "host",
                libc::detect_from(&programs, self.timeout),
            );
        } else {
            let p = Provenance::new("host", "platform").with_detail("not a Linux system");
            facts.absent(Field::GlibcVersion, p.clone());
            facts.absent(Field::MuslVersion, p);
        }
        facts
    }
}

/// Records what the C library question came to: one Known and the other Absent, or both
/// Unknown.
pub(crate) fn libc_facts(facts: &mut Facts, layer: &'static str, libc: Libc) {
    match libc {
        Libc::Glibc { version, method } => {
            facts.known(
                Field::GlibcVersion,
                version,
                Provenance::new(layer, method.clone()),
            );
            facts.absent(
                Field::MuslVersion,
                Provenance::new(layer, method).with_detail("the C library is glibc"),
            );
        }
        Libc::Musl { version, method } => {
            facts.known(
                Field::MuslVersion,
                version,
                Provenance::new(layer, method.clone()),
            );
            facts.absent(
                Field::GlibcVersion,
                Provenance::new(layer, method).with_detail("the C library is musl"),
            );
        }
        Libc::Unknown(reason) => {
            let p = Provenance::new(layer, "PT_INTERP").with_detail(reason);
            facts.unknown(Field::GlibcVersion, p.clone());
            facts.unknown(Field::MuslVersion, p);
        }
    }
}

impl EnvironmentProvider for HostProvider {
    fn name(&self) -> &str {
        "host"
    }

    fn fields(&self) -> FieldSet {
        OS_FIELDS
            .into_iter()
            .chain(INTERPRETER_FIELDS)
            .chain([Field::GlibcVersion, Field::MuslVersion, Field::HostArch])
            .collect()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = self.cache.get_or_init(|| self.detect()).clone();
        facts.retain(request);
        Ok(facts)
    }
}

/// `sys.platform` as CPython derives it from `uname` at build time (Unix; Windows is `win32`).
#[cfg(any(unix, test))]
fn sys_platform(sysname: &str, release: &str) -> String {
    match sysname {
        "Linux" => "linux".into(),
        "Darwin" => "darwin".into(),
        _ if sysname.starts_with("CYGWIN") => "cygwin".into(),
        "AIX" => "aix".into(),
        _ => {
            let major: String = release.chars().take_while(char::is_ascii_digit).collect();
            format!("{}{major}", sysname.to_lowercase())
        }
    }
}

#[cfg(unix)]
fn os_facts(facts: &mut Facts) {
    let uname = rustix::system::uname();
    let text = |s: &std::ffi::CStr| s.to_string_lossy().into_owned();
    let (sysname, release, version, machine) = (
        text(uname.sysname()),
        text(uname.release()),
        text(uname.version()),
        text(uname.machine()),
    );
    let p = || Provenance::new("host", "uname");
    facts.known(Field::OsName, "posix", Provenance::new("host", "platform"));
    facts.known(Field::SysPlatform, sys_platform(&sysname, &release), p());
    facts.known(Field::PlatformSystem, sysname, p());
    facts.known(Field::PlatformRelease, release, p());
    facts.known(Field::PlatformVersion, version, p());
    facts.known(Field::PlatformMachine, machine, p());
}

#[cfg(windows)]
fn os_facts(facts: &mut Facts) {
    let p = |m: &'static str| Provenance::new("host", m);
    facts.known(Field::OsName, "nt", p("platform"));
    facts.known(Field::SysPlatform, "win32", p("platform"));
    facts.known(Field::PlatformSystem, "Windows", p("platform"));
    let machine = std::env::var("PROCESSOR_ARCHITEW6432")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("PROCESSOR_ARCHITECTURE").ok());
    match machine {
        Some(m) => facts.known(Field::PlatformMachine, m, p("PROCESSOR_ARCHITECTURE")),
        None => facts.unknown(
            Field::PlatformMachine,
            p("PROCESSOR_ARCHITECTURE").with_detail("the variable is not set"),
        ),
    };
    let ver = std::process::Command::new("cmd")
        .args(["/c", "ver"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    match ver.as_deref().and_then(windows_version) {
        Some((release, version)) => {
            facts.known(Field::PlatformRelease, release, p("cmd /c ver"));
            facts.known(Field::PlatformVersion, version, p("cmd /c ver"));
        }
        None => {
            let why = p("cmd /c ver").with_detail("no version in the output of `ver`");
            facts.unknown(Field::PlatformRelease, why.clone());
            facts.unknown(Field::PlatformVersion, why);
        }
    }
}

#[cfg(not(any(unix, windows)))]
fn os_facts(facts: &mut Facts) {
    let why = Provenance::new("host", "none").with_detail("unsupported operating system");
    for field in OS_FIELDS {
        facts.unknown(field, why.clone());
    }
}

/// `Microsoft Windows [Version 10.0.22631.4460]` → (`11`, `10.0.22631`).
#[cfg_attr(not(windows), allow(dead_code))]
fn windows_version(text: &str) -> Option<(String, String)> {
    let start = text.find("Version ")? + "Version ".len();
    let rest = &text[start..];
    let end = rest.find(']').unwrap_or(rest.len());
    let parts: Vec<&str> = rest[..end].trim().split('.').collect();
    if parts.len() < 3 || !parts.iter().all(|p| p.parse::<u32>().is_ok()) {
        return None;
    }
    let build: u32 = parts[2].parse().ok()?;
    let release = if parts[0] == "10" && build >= 22000 {
        "11".to_owned()
    } else {
        parts[0].to_owned()
    };
    Some((release, parts[..3].join(".")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::fact_fields;
    use markerspec_pep508::EnvValue;

    #[test]
    fn sys_platform_follows_cpython() {
        assert_eq!(sys_platform("Linux", "6.8.0"), "linux");
        assert_eq!(sys_platform("Darwin", "24.1.0"), "darwin");
        assert_eq!(sys_platform("FreeBSD", "14.1-RELEASE"), "freebsd14");
        assert_eq!(sys_platform("CYGWIN_NT-10.0", "3.5"), "cygwin");
    }

    #[test]
    fn windows_versions() {
        assert_eq!(
            windows_version("\r\nMicrosoft Windows [Version 10.0.22631.4460]\r\n"),
            Some(("11".into(), "10.0.22631".into()))
        );
        assert_eq!(
            windows_version("Microsoft Windows [Version 10.0.19045.5247]"),
            Some(("10".into(), "10.0.19045".into()))
        );
        assert_eq!(windows_version("nothing"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_linux_host() {
        let facts = HostProvider::new().provide(fact_fields()).unwrap();
        assert_eq!(facts.string(Field::OsName), Some("posix"));
        assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
        assert_eq!(facts.string(Field::PlatformSystem), Some("Linux"));
        assert!(!facts.string(Field::PlatformRelease).unwrap().is_empty());
        assert_eq!(
            facts.string(Field::PlatformMachine),
            Some(std::env::consts::ARCH)
        );
        // The kernel's machine, canonical: this test's own architecture on a native build.
        assert_eq!(
            facts.string(Field::HostArch),
            Some(markerspec_pep508::canonical_arch(std::env::consts::ARCH, None).as_str())
        );
        // This machine runs glibc or musl; exactly one of them is known.
        let glibc = facts.value(Field::GlibcVersion).unwrap();
        let musl = facts.value(Field::MuslVersion).unwrap();
        assert!(
            matches!(
                (glibc, musl),
                (EnvValue::String(_), EnvValue::Absent) | (EnvValue::Absent, EnvValue::String(_))
            ),
            "{glibc:?} {musl:?}"
        );
        assert_eq!(facts.value(Field::PythonVersion), Some(&EnvValue::Unknown));
        assert_eq!(
            facts.get(Field::PythonVersion).unwrap().provenance.layer(),
            "host"
        );
        assert_eq!(facts.value(Field::CudaVersion), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn no_dynamic_program_means_unknown_libc() {
        let facts = HostProvider::new()
            .libc_programs(["/nonexistent/sh"])
            .provide(fact_fields())
            .unwrap();
        let glibc = facts.get(Field::GlibcVersion).unwrap();
        assert_eq!(glibc.value, EnvValue::Unknown);
        assert!(
            glibc
                .provenance
                .detail()
                .unwrap()
                .contains("/nonexistent/sh"),
            "{:?}",
            glibc.provenance
        );
    }
}
