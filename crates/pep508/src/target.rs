//! Environments for a target, without writing every field: from a platform as uv names it
//! (`--python-platform`) plus a Python version, and from a wheel's tags.
//!
//! ```
//! use markerspec_pep508::{Environment, MarkerTree};
//! use markerspec_pep508::target::PythonPlatform;
//!
//! let platform: PythonPlatform = "x86_64-manylinux_2_28".parse().unwrap();
//! let env = Environment::for_target(platform, Some("3.12")).unwrap();
//! let m: MarkerTree = "sys_platform == 'linux' and python_version >= '3.10'".parse().unwrap();
//! assert!(m.evaluate(&env).unwrap());
//!
//! let wheel = Environment::for_wheel_tags("cp313t-cp313t-manylinux_2_28_x86_64").unwrap();
//! let m: MarkerTree = "platform_machine == 'x86_64' and python_version == '3.13'".parse().unwrap();
//! assert!(m.evaluate(&wheel).unwrap());
//! ```

use std::fmt;

use crate::environment::{EnvValue, Environment};
use crate::field::Field;

/// A target platform, named as uv's `--python-platform` names it.
///
/// The names are uv's: the aliases `linux` (= `x86_64-unknown-linux-gnu`), `windows`
/// (= `x86_64-pc-windows-msvc`) and `macos` (= `aarch64-apple-darwin`); the triples
/// `x86_64-unknown-linux-gnu`, `aarch64-unknown-linux-gnu`, `x86_64-unknown-linux-musl`,
/// `aarch64-unknown-linux-musl`, `x86_64-apple-darwin`, `aarch64-apple-darwin`,
/// `x86_64-pc-windows-msvc`, `i686-pc-windows-msvc`; the manylinux targets
/// `{x86_64,aarch64}-manylinux2014` and `{x86_64,aarch64}-manylinux_2_{17,28,31,…,40}`; and
/// `wasm32-pyodide2024`. See [`PythonPlatform::NAMES`].
///
/// ```
/// use markerspec_pep508::target::PythonPlatform;
/// let p: PythonPlatform = "linux".parse().unwrap();
/// assert_eq!(p.to_string(), "linux");
/// assert_eq!(p.sys_platform(), "linux");
/// assert!("x86_64-manylinux_2_29".parse::<PythonPlatform>().is_err());
///
/// // The platform fields uv sets for a target.
/// let mac: PythonPlatform = "aarch64-apple-darwin".parse().unwrap();
/// assert_eq!(
///     [mac.os_name(), mac.sys_platform(), mac.platform_system(), mac.platform_machine()],
///     ["posix", "darwin", "Darwin", "arm64"]
/// );
/// let windows: PythonPlatform = "x86_64-pc-windows-msvc".parse().unwrap();
/// assert_eq!((windows.os_name(), windows.platform_machine()), ("nt", "x86_64"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PythonPlatform {
    name: &'static str,
    os: Os,
    arch: Arch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Os {
    /// glibc Linux, with the manylinux glibc floor (major, minor).
    Glibc(u16, u16),
    /// musl Linux (musllinux 1.2, as uv assumes).
    Musl,
    Macos,
    Windows,
    Pyodide,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Arch {
    X86_64,
    Aarch64,
    I686,
    Wasm32,
}

macro_rules! platforms {
    ($($name:literal => $os:expr, $arch:ident;)*) => {
        const PLATFORMS: &[(&str, Os, Arch)] = &[$(($name, $os, Arch::$arch),)*];

        impl PythonPlatform {
            /// Every accepted name, in uv's order.
            pub const NAMES: &'static [&'static str] = &[$($name,)*];
        }
    };
}

platforms! {
    "windows" => Os::Windows, X86_64;
    "linux" => Os::Glibc(2, 17), X86_64;
    "macos" => Os::Macos, Aarch64;
    "x86_64-pc-windows-msvc" => Os::Windows, X86_64;
    "i686-pc-windows-msvc" => Os::Windows, I686;
    "x86_64-unknown-linux-gnu" => Os::Glibc(2, 17), X86_64;
    "aarch64-apple-darwin" => Os::Macos, Aarch64;
    "x86_64-apple-darwin" => Os::Macos, X86_64;
    "aarch64-unknown-linux-gnu" => Os::Glibc(2, 17), Aarch64;
    "aarch64-unknown-linux-musl" => Os::Musl, Aarch64;
    "x86_64-unknown-linux-musl" => Os::Musl, X86_64;
    "x86_64-manylinux2014" => Os::Glibc(2, 17), X86_64;
    "x86_64-manylinux_2_17" => Os::Glibc(2, 17), X86_64;
    "x86_64-manylinux_2_28" => Os::Glibc(2, 28), X86_64;
    "x86_64-manylinux_2_31" => Os::Glibc(2, 31), X86_64;
    "x86_64-manylinux_2_32" => Os::Glibc(2, 32), X86_64;
    "x86_64-manylinux_2_33" => Os::Glibc(2, 33), X86_64;
    "x86_64-manylinux_2_34" => Os::Glibc(2, 34), X86_64;
    "x86_64-manylinux_2_35" => Os::Glibc(2, 35), X86_64;
    "x86_64-manylinux_2_36" => Os::Glibc(2, 36), X86_64;
    "x86_64-manylinux_2_37" => Os::Glibc(2, 37), X86_64;
    "x86_64-manylinux_2_38" => Os::Glibc(2, 38), X86_64;
    "x86_64-manylinux_2_39" => Os::Glibc(2, 39), X86_64;
    "x86_64-manylinux_2_40" => Os::Glibc(2, 40), X86_64;
    "aarch64-manylinux2014" => Os::Glibc(2, 17), Aarch64;
    "aarch64-manylinux_2_17" => Os::Glibc(2, 17), Aarch64;
    "aarch64-manylinux_2_28" => Os::Glibc(2, 28), Aarch64;
    "aarch64-manylinux_2_31" => Os::Glibc(2, 31), Aarch64;
    "aarch64-manylinux_2_32" => Os::Glibc(2, 32), Aarch64;
    "aarch64-manylinux_2_33" => Os::Glibc(2, 33), Aarch64;
    "aarch64-manylinux_2_34" => Os::Glibc(2, 34), Aarch64;
    "aarch64-manylinux_2_35" => Os::Glibc(2, 35), Aarch64;
    "aarch64-manylinux_2_36" => Os::Glibc(2, 36), Aarch64;
    "aarch64-manylinux_2_37" => Os::Glibc(2, 37), Aarch64;
    "aarch64-manylinux_2_38" => Os::Glibc(2, 38), Aarch64;
    "aarch64-manylinux_2_39" => Os::Glibc(2, 39), Aarch64;
    "aarch64-manylinux_2_40" => Os::Glibc(2, 40), Aarch64;
    "wasm32-pyodide2024" => Os::Pyodide, Wasm32;
}

/// A target that cannot be built: an unknown platform name, an invalid Python version, or a
/// wheel tag that is not understood.
///
/// ```
/// use markerspec_pep508::Environment;
///
/// let err = Environment::for_wheel_tags("not-a-tag").unwrap_err();
/// assert!(!err.to_string().is_empty());
/// assert!("amiga".parse::<markerspec_pep508::target::PythonPlatform>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetError {
    message: String,
}

impl TargetError {
    fn new(message: impl Into<String>) -> TargetError {
        TargetError {
            message: message.into(),
        }
    }
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TargetError {}

impl std::str::FromStr for PythonPlatform {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PLATFORMS
            .iter()
            .find(|(name, _, _)| *name == s)
            .map(|&(name, os, arch)| PythonPlatform { name, os, arch })
            .ok_or_else(|| {
                TargetError::new(format!(
                    "unknown platform `{s}`; expected one of uv's: {}",
                    PythonPlatform::NAMES.join(", ")
                ))
            })
    }
}

impl fmt::Display for PythonPlatform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl PythonPlatform {
    /// `os_name`: `nt` on Windows, `posix` elsewhere.
    ///
    /// See the example on [`PythonPlatform`].
    pub fn os_name(self) -> &'static str {
        match self.os {
            Os::Windows => "nt",
            _ => "posix",
        }
    }

    /// `sys_platform`: `linux`, `darwin`, `win32` or `emscripten`.
    ///
    /// See the example on [`PythonPlatform`].
    pub fn sys_platform(self) -> &'static str {
        match self.os {
            Os::Glibc(..) | Os::Musl => "linux",
            Os::Macos => "darwin",
            Os::Windows => "win32",
            Os::Pyodide => "emscripten",
        }
    }

    /// `platform_system`: `Linux`, `Darwin`, `Windows` or `Emscripten`.
    ///
    /// See the example on [`PythonPlatform`].
    pub fn platform_system(self) -> &'static str {
        match self.os {
            Os::Glibc(..) | Os::Musl => "Linux",
            Os::Macos => "Darwin",
            Os::Windows => "Windows",
            Os::Pyodide => "Emscripten",
        }
    }

    /// `platform_machine` as uv sets it: `x86_64` (on Windows too, where CPython itself says
    /// `AMD64`), `aarch64` (`arm64` on macOS), `x86`, `wasm32`.
    ///
    /// See the example on [`PythonPlatform`].
    pub fn platform_machine(self) -> &'static str {
        match (self.arch, self.os) {
            (Arch::X86_64, _) => "x86_64",
            (Arch::Aarch64, Os::Macos) => "arm64",
            (Arch::Aarch64, _) => "aarch64",
            (Arch::I686, _) => "x86",
            (Arch::Wasm32, _) => "wasm32",
        }
    }

    fn interpreter_arch(self) -> &'static str {
        match self.arch {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::I686 => "x86",
            Arch::Wasm32 => "wasm32",
        }
    }
}

/// A Python version as `--python-version` takes it: `3.12`, `3.12.4`, or either with `t` for a
/// free-threaded build (`3.13t`). Returns (major, minor, patch, free-threaded).
fn python_version(text: &str) -> Result<(u32, u32, u32, bool), TargetError> {
    let bad = || {
        TargetError::new(format!(
            "`{text}` is not a Python version; expected MAJOR.MINOR or MAJOR.MINOR.PATCH, e.g. `3.12`"
        ))
    };
    let (digits, threaded) = match text.strip_suffix('t') {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    let parts: Vec<&str> = digits.split('.').collect();
    if !(2..=3).contains(&parts.len())
        || parts
            .iter()
            .any(|p| p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(bad());
    }
    let n = |i: usize| {
        parts
            .get(i)
            .map_or(Ok(0), |p| p.parse::<u32>().map_err(|_| bad()))
    };
    Ok((n(0)?, n(1)?, n(2)?, threaded))
}

fn set(env: &mut Environment, field: Field, value: &str) {
    // Every field set here has the type its value is written for.
    let _ = env.set(field, EnvValue::String(value.into()));
}

fn set_many(env: &mut Environment, field: Field, values: &[&str]) {
    let value = if values.is_empty() {
        EnvValue::Absent
    } else {
        EnvValue::Set(values.iter().map(|v| (*v).into()).collect())
    };
    let _ = env.set(field, value);
}

impl Environment {
    /// The environment of a target platform, as uv builds it for `--python-platform`, with an
    /// optional Python version (CPython, as uv assumes).
    ///
    /// Set: `os_name`, `sys_platform`, `platform_system`, `platform_machine` (uv's values),
    /// `platform_release` and `platform_version` (empty, as uv sets them, except Pyodide's),
    /// `interpreter_arch`, and `glibc_version` (the manylinux floor: `2.17` for `linux`,
    /// `2.28` for `x86_64-manylinux_2_28`) or `musl_version` (`1.2`), the other Absent. With a
    /// version: `python_version`, `python_full_version` (patch `0` when not given),
    /// `implementation_name`, `platform_python_implementation`, `implementation_version`,
    /// `python_abi_tag` and `sys_abi_features`. Everything else (the GPU fields, the Python
    /// fields without a version) is left unset, so that a marker reading it is Unknown.
    ///
    /// # Errors
    /// A version that is not `MAJOR.MINOR[.PATCH][t]`.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field, EnvValue};
    /// use markerspec_pep508::target::PythonPlatform;
    /// let env = Environment::for_target("windows".parse().unwrap(), Some("3.11")).unwrap();
    /// assert_eq!(env.get(Field::SysPlatform), Some(&EnvValue::String("win32".into())));
    /// assert_eq!(env.get(Field::PythonFullVersion), Some(&EnvValue::String("3.11.0".into())));
    /// assert!(Environment::for_target("linux".parse().unwrap(), Some("abc")).is_err());
    /// ```
    pub fn for_target(
        platform: PythonPlatform,
        python: Option<&str>,
    ) -> Result<Environment, TargetError> {
        let mut env = Environment::new();
        set(&mut env, Field::OsName, platform.os_name());
        set(&mut env, Field::SysPlatform, platform.sys_platform());
        set(&mut env, Field::PlatformSystem, platform.platform_system());
        set(
            &mut env,
            Field::PlatformMachine,
            platform.platform_machine(),
        );
        let (release, version) = match platform.os {
            Os::Pyodide => ("3.1.58", "#1"),
            _ => ("", ""),
        };
        set(&mut env, Field::PlatformRelease, release);
        set(&mut env, Field::PlatformVersion, version);
        set(
            &mut env,
            Field::InterpreterArch,
            platform.interpreter_arch(),
        );
        let (glibc, musl) = match platform.os {
            Os::Glibc(major, minor) => (Some(format!("{major}.{minor}")), None),
            Os::Musl => (None, Some("1.2".to_owned())),
            _ => (None, None),
        };
        for (field, value) in [(Field::GlibcVersion, glibc), (Field::MuslVersion, musl)] {
            match value {
                Some(v) => set(&mut env, field, &v),
                None => {
                    let _ = env.set(field, EnvValue::Absent);
                }
            }
        }
        let bits = match platform.arch {
            Arch::I686 | Arch::Wasm32 => "32-bit",
            _ => "64-bit",
        };
        set_many(&mut env, Field::SysAbiFeatures, &[bits]);
        match python {
            Some(v) => env.with_python_version(v),
            None => Ok(env),
        }
    }

    /// The same environment with CPython VERSION (`3.12`, `3.12.4`, `3.13t`): sets
    /// `python_version`, `python_full_version` (patch `0` when not given),
    /// `implementation_name` (`cpython`), `platform_python_implementation` (`CPython`),
    /// `implementation_version`, `python_abi_tag` (`cp312`, `cp313t`), and the
    /// `free-threading`/`gil-enabled` member of `sys_abi_features`.
    ///
    /// # Errors
    /// A version that is not `MAJOR.MINOR[.PATCH][t]`.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, MarkerTree};
    /// let env = Environment::new().with_python_version("3.13t").unwrap();
    /// let m: MarkerTree = "python_full_version == '3.13.0'".parse().unwrap();
    /// assert!(m.evaluate(&env).unwrap());
    /// assert!(Environment::new().with_python_version("3").is_err());
    /// ```
    pub fn with_python_version(mut self, version: &str) -> Result<Environment, TargetError> {
        let (major, minor, patch, threaded) = python_version(version)?;
        let full = format!("{major}.{minor}.{patch}");
        set(&mut self, Field::PythonVersion, &format!("{major}.{minor}"));
        set(&mut self, Field::PythonFullVersion, &full);
        set(&mut self, Field::ImplementationName, "cpython");
        set(&mut self, Field::PlatformPythonImplementation, "CPython");
        set(&mut self, Field::ImplementationVersion, &full);
        let t = if threaded { "t" } else { "" };
        set(
            &mut self,
            Field::PythonAbiTag,
            &format!("cp{major}{minor}{t}"),
        );
        let mut features: Vec<Box<str>> = match self.get(Field::SysAbiFeatures) {
            Some(EnvValue::Set(items)) => items
                .iter()
                .filter(|i| !matches!(&***i, "free-threading" | "gil-enabled"))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        features.push(
            if threaded {
                "free-threading"
            } else {
                "gil-enabled"
            }
            .into(),
        );
        features.sort();
        let _ = self.set(Field::SysAbiFeatures, EnvValue::Set(features));
        Ok(self)
    }

    /// The environment a wheel's tags describe: `PYTHON-ABI-PLATFORM`
    /// (`cp313t-cp313t-manylinux_2_28_x86_64`), or a wheel file name ending in them.
    ///
    /// - python tag `cpXY` (CPython X.Y) or `ppXY` (PyPy for Python X.Y) set the Python
    ///   fields; `py3`, `py2.py3` and the like leave them unset;
    /// - ABI tag `cpXY`, `cpXYt`, … sets `python_abi_tag` (and `free-threading` for `t`);
    ///   `abi3` and `none` set nothing;
    /// - platform tag `manylinux_X_Y_ARCH` (and `manylinux1`/`2010`/`2014`),
    ///   `musllinux_X_Y_ARCH`, `linux_ARCH`, `macosx_X_Y_ARCH`, `win_amd64`, `win32`,
    ///   `win_arm64` set the platform fields and the C library floor; `any` sets nothing.
    ///
    /// Fields the tags do not decide stay unset, so that a marker reading them is Unknown.
    ///
    /// # Errors
    /// Not three tags, a compressed tag set (`cp312.cp313`), or a tag not understood.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, MarkerTree};
    /// let env = Environment::for_wheel_tags("cp312-cp312-win_amd64").unwrap();
    /// let m: MarkerTree = "platform_machine == 'AMD64' and sys_platform == 'win32'".parse().unwrap();
    /// assert!(m.evaluate(&env).unwrap());
    /// assert!(Environment::for_wheel_tags("cp312-cp312").is_err());
    /// ```
    pub fn for_wheel_tags(tags: &str) -> Result<Environment, TargetError> {
        let trimmed = tags.strip_suffix(".whl").unwrap_or(tags);
        let parts: Vec<&str> = trimmed.split('-').collect();
        if parts.len() < 3 || (tags.ends_with(".whl") && parts.len() < 5) {
            return Err(TargetError::new(format!(
                "`{tags}` is not PYTHON-ABI-PLATFORM wheel tags, e.g. `cp312-cp312-manylinux_2_28_x86_64`"
            )));
        }
        let [python, abi, platform] = [
            parts[parts.len() - 3],
            parts[parts.len() - 2],
            parts[parts.len() - 1],
        ];
        for tag in [python, abi, platform] {
            if tag.contains('.') {
                return Err(TargetError::new(format!(
                    "`{tag}` is a compressed tag set; give one tag of each kind"
                )));
            }
        }
        let mut env = Environment::new();
        wheel_platform(&mut env, platform)?;
        wheel_python(&mut env, python)?;
        wheel_abi(&mut env, abi)?;
        Ok(env)
    }
}

/// `cp312` → (3, 12); `py3` → None.
fn tag_version(digits: &str) -> Option<(u32, u32)> {
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let major = digits[..1].parse().ok()?;
    let minor = digits[1..].parse().ok()?;
    Some((major, minor))
}

fn wheel_python(env: &mut Environment, tag: &str) -> Result<(), TargetError> {
    let bad = || {
        TargetError::new(format!(
            "`{tag}` is not a python tag this reads (`cp312`, `pp310`, `py3`)"
        ))
    };
    if let Some(rest) = tag.strip_prefix("py") {
        return if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            Ok(())
        } else {
            Err(bad())
        };
    }
    let (implementation, name, rest) = if let Some(rest) = tag.strip_prefix("cp") {
        ("CPython", "cpython", rest)
    } else if let Some(rest) = tag.strip_prefix("pp") {
        ("PyPy", "pypy", rest)
    } else {
        return Err(bad());
    };
    let rest = rest.strip_suffix('t').unwrap_or(rest);
    let (major, minor) = tag_version(rest).ok_or_else(bad)?;
    set(env, Field::PythonVersion, &format!("{major}.{minor}"));
    set(env, Field::PlatformPythonImplementation, implementation);
    set(env, Field::ImplementationName, name);
    Ok(())
}

fn wheel_abi(env: &mut Environment, tag: &str) -> Result<(), TargetError> {
    if matches!(tag, "none" | "abi3") {
        return Ok(());
    }
    let ok = tag
        .strip_prefix("cp")
        .or_else(|| tag.strip_prefix("pypy"))
        .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        && tag.len() > 2;
    if !ok {
        return Err(TargetError::new(format!(
            "`{tag}` is not an ABI tag this reads (`cp312`, `cp313t`, `abi3`, `none`)"
        )));
    }
    if tag.starts_with("cp") {
        set(env, Field::PythonAbiTag, tag);
        let mut features: Vec<Box<str>> = match env.get(Field::SysAbiFeatures) {
            Some(EnvValue::Set(items)) => items.clone(),
            _ => Vec::new(),
        };
        features.push(
            if tag.ends_with('t') {
                "free-threading"
            } else {
                "gil-enabled"
            }
            .into(),
        );
        features.sort();
        let _ = env.set(Field::SysAbiFeatures, EnvValue::Set(features));
    }
    Ok(())
}

fn wheel_platform(env: &mut Environment, tag: &str) -> Result<(), TargetError> {
    let bad = || {
        TargetError::new(format!(
            "`{tag}` is not a platform tag this reads (`manylinux_2_28_x86_64`, `musllinux_1_2_aarch64`, `macosx_11_0_arm64`, `win_amd64`, `any`, …)"
        ))
    };
    if tag == "any" {
        return Ok(());
    }
    let linux =
        |env: &mut Environment, machine: &str, glibc: Option<String>, musl: Option<String>| {
            set(env, Field::OsName, "posix");
            set(env, Field::SysPlatform, "linux");
            set(env, Field::PlatformSystem, "Linux");
            set(env, Field::PlatformMachine, machine);
            for (field, value) in [(Field::GlibcVersion, glibc), (Field::MuslVersion, musl)] {
                match value {
                    Some(v) => set(env, field, &v),
                    None => {
                        let _ = env.set(field, EnvValue::Absent);
                    }
                }
            }
        };
    // `X_Y_ARCH` → ("X.Y", ARCH).
    let versioned = |rest: &str| -> Option<(String, String)> {
        let mut it = rest.splitn(3, '_');
        let (x, y, arch) = (it.next()?, it.next()?, it.next()?);
        let num = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        (num(x) && num(y) && !arch.is_empty()).then(|| (format!("{x}.{y}"), arch.to_owned()))
    };
    let (machine, arch) = if let Some(rest) = tag.strip_prefix("manylinux_") {
        let (glibc, arch) = versioned(rest).ok_or_else(bad)?;
        linux(env, &arch, Some(glibc), None);
        (arch.clone(), arch)
    } else if let Some((legacy, glibc)) = [
        ("manylinux1_", "2.5"),
        ("manylinux2010_", "2.12"),
        ("manylinux2014_", "2.17"),
    ]
    .iter()
    .find(|(p, _)| tag.starts_with(p))
    {
        let arch = tag[legacy.len()..].to_owned();
        linux(env, &arch, Some((*glibc).to_owned()), None);
        (arch.clone(), arch)
    } else if let Some(rest) = tag.strip_prefix("musllinux_") {
        let (musl, arch) = versioned(rest).ok_or_else(bad)?;
        linux(env, &arch, None, Some(musl));
        (arch.clone(), arch)
    } else if let Some(arch) = tag.strip_prefix("linux_") {
        set(env, Field::OsName, "posix");
        set(env, Field::SysPlatform, "linux");
        set(env, Field::PlatformSystem, "Linux");
        set(env, Field::PlatformMachine, arch);
        (arch.to_owned(), arch.to_owned())
    } else if let Some(rest) = tag.strip_prefix("macosx_") {
        let (_, arch) = versioned(rest).ok_or_else(bad)?;
        set(env, Field::OsName, "posix");
        set(env, Field::SysPlatform, "darwin");
        set(env, Field::PlatformSystem, "Darwin");
        let _ = env.set(Field::GlibcVersion, EnvValue::Absent);
        let _ = env.set(Field::MuslVersion, EnvValue::Absent);
        match arch.as_str() {
            "arm64" | "x86_64" => set(env, Field::PlatformMachine, &arch),
            // universal2, intel, …: the machine is not decided by the tag.
            _ => return Ok(()),
        }
        (arch.clone(), arch)
    } else {
        let (machine, arch) = match tag {
            "win_amd64" => ("AMD64", "x86_64"),
            "win32" => ("x86", "x86"),
            "win_arm64" => ("ARM64", "aarch64"),
            _ => return Err(bad()),
        };
        set(env, Field::OsName, "nt");
        set(env, Field::SysPlatform, "win32");
        set(env, Field::PlatformSystem, "Windows");
        set(env, Field::PlatformMachine, machine);
        let _ = env.set(Field::GlibcVersion, EnvValue::Absent);
        let _ = env.set(Field::MuslVersion, EnvValue::Absent);
        (machine.to_owned(), arch.to_owned())
    };
    let _ = machine;
    let interpreter = match arch.as_str() {
        "x86_64" | "amd64" => "x86_64",
        "i686" | "i386" | "x86" => "x86",
        "aarch64" | "arm64" => "aarch64",
        "armv7l" | "armv6l" => "arm",
        other => other,
    };
    set(env, Field::InterpreterArch, interpreter);
    let bits = if matches!(interpreter, "x86" | "arm" | "wasm32") {
        "32-bit"
    } else {
        "64-bit"
    };
    set_many(env, Field::SysAbiFeatures, &[bits]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(env: &Environment, f: Field) -> Option<String> {
        match env.get(f) {
            Some(EnvValue::String(s)) => Some(s.to_string()),
            Some(EnvValue::Set(items)) => Some(items.join(",")),
            Some(EnvValue::Absent) => Some("<absent>".into()),
            Some(EnvValue::Unknown) | None => None,
        }
    }

    #[test]
    fn every_platform_name_parses_and_prints_back() {
        for name in PythonPlatform::NAMES {
            let p: PythonPlatform = name.parse().unwrap();
            assert_eq!(p.to_string(), *name);
            let env = Environment::for_target(p, Some("3.12")).unwrap();
            assert!(get(&env, Field::SysPlatform).is_some(), "{name}");
        }
        assert_eq!(PythonPlatform::NAMES.len(), PLATFORMS.len());
    }

    #[test]
    fn platforms_map_as_uv_does() {
        let cases = [
            ("windows", "nt", "win32", "Windows", "x86_64"),
            ("linux", "posix", "linux", "Linux", "x86_64"),
            ("macos", "posix", "darwin", "Darwin", "arm64"),
            ("i686-pc-windows-msvc", "nt", "win32", "Windows", "x86"),
            (
                "aarch64-unknown-linux-musl",
                "posix",
                "linux",
                "Linux",
                "aarch64",
            ),
            ("x86_64-apple-darwin", "posix", "darwin", "Darwin", "x86_64"),
            (
                "wasm32-pyodide2024",
                "posix",
                "emscripten",
                "Emscripten",
                "wasm32",
            ),
        ];
        for (name, os, sys, system, machine) in cases {
            let env = Environment::for_target(name.parse().unwrap(), None).unwrap();
            assert_eq!(get(&env, Field::OsName).as_deref(), Some(os), "{name}");
            assert_eq!(
                get(&env, Field::SysPlatform).as_deref(),
                Some(sys),
                "{name}"
            );
            assert_eq!(
                get(&env, Field::PlatformSystem).as_deref(),
                Some(system),
                "{name}"
            );
            assert_eq!(
                get(&env, Field::PlatformMachine).as_deref(),
                Some(machine),
                "{name}"
            );
            assert_eq!(get(&env, Field::PythonVersion), None, "{name}");
        }
        let env = Environment::for_target("x86_64-manylinux_2_28".parse().unwrap(), Some("3.11.4"))
            .unwrap();
        assert_eq!(get(&env, Field::GlibcVersion).as_deref(), Some("2.28"));
        assert_eq!(get(&env, Field::MuslVersion).as_deref(), Some("<absent>"));
        assert_eq!(get(&env, Field::PythonVersion).as_deref(), Some("3.11"));
        assert_eq!(
            get(&env, Field::PythonFullVersion).as_deref(),
            Some("3.11.4")
        );
        assert_eq!(get(&env, Field::PythonAbiTag).as_deref(), Some("cp311"));
        assert_eq!(
            get(&env, Field::SysAbiFeatures).as_deref(),
            Some("64-bit,gil-enabled")
        );
        let env =
            Environment::for_target("x86_64-unknown-linux-musl".parse().unwrap(), None).unwrap();
        assert_eq!(get(&env, Field::MuslVersion).as_deref(), Some("1.2"));
        assert_eq!(get(&env, Field::GlibcVersion).as_deref(), Some("<absent>"));
    }

    #[test]
    fn versions_are_checked() {
        for bad in [
            "3", "abc", "3.x", "3.12.1.1", "", "3..1", "3.12tt", "99999.1",
        ] {
            assert!(
                Environment::new().with_python_version(bad).is_err(),
                "{bad}"
            );
        }
        let env = Environment::new().with_python_version("3.13t").unwrap();
        assert_eq!(get(&env, Field::PythonAbiTag).as_deref(), Some("cp313t"));
        assert_eq!(
            get(&env, Field::SysAbiFeatures).as_deref(),
            Some("free-threading")
        );
        assert!(
            "nope"
                .parse::<PythonPlatform>()
                .unwrap_err()
                .to_string()
                .contains("x86_64-manylinux_2_28")
        );
    }

    #[test]
    fn wheel_tags() {
        let env = Environment::for_wheel_tags("cp313t-cp313t-manylinux_2_28_x86_64").unwrap();
        assert_eq!(get(&env, Field::PythonVersion).as_deref(), Some("3.13"));
        assert_eq!(get(&env, Field::PythonAbiTag).as_deref(), Some("cp313t"));
        assert_eq!(
            get(&env, Field::SysAbiFeatures).as_deref(),
            Some("64-bit,free-threading")
        );
        assert_eq!(get(&env, Field::GlibcVersion).as_deref(), Some("2.28"));
        assert_eq!(get(&env, Field::InterpreterArch).as_deref(), Some("x86_64"));
        let env =
            Environment::for_wheel_tags("torch-2.5.0-cp312-cp312-macosx_11_0_arm64.whl").unwrap();
        assert_eq!(get(&env, Field::SysPlatform).as_deref(), Some("darwin"));
        assert_eq!(get(&env, Field::PlatformMachine).as_deref(), Some("arm64"));
        let env = Environment::for_wheel_tags("pp310-pypy310_pp73-musllinux_1_2_aarch64").unwrap();
        assert_eq!(
            get(&env, Field::ImplementationName).as_deref(),
            Some("pypy")
        );
        assert_eq!(get(&env, Field::MuslVersion).as_deref(), Some("1.2"));
        let env = Environment::for_wheel_tags("py3-none-any").unwrap();
        assert_eq!(get(&env, Field::SysPlatform), None);
        let env = Environment::for_wheel_tags("cp39-abi3-win32").unwrap();
        assert_eq!(get(&env, Field::PlatformMachine).as_deref(), Some("x86"));
        assert_eq!(get(&env, Field::SysAbiFeatures).as_deref(), Some("32-bit"));
        for bad in [
            "cp312-cp312",
            "cp312.cp313-cp312-any",
            "xx3-none-any",
            "cp312-zz-any",
            "cp312-cp312-solaris_sparc",
            "cp312-cp312-manylinux_2_x86_64",
        ] {
            assert!(Environment::for_wheel_tags(bad).is_err(), "{bad}");
        }
    }
}
