//! The environment options that `eval` and `check` share: which environments to evaluate in
//! (`--env`, `--fixture`, `--python-platform`, or this machine) and what to change in each
//! (`--python-version`, `--set`, `--extra`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use markerspec_env::{DetectOptions, FixtureProvider};
use markerspec_pep508::target::PythonPlatform;
use markerspec_pep508::{EnvValue, Environment, Field, FieldType};

/// The environment options of `eval` and `check`.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct EnvOptions {
    /// An environment document (JSON, SPEC §11: field name → string, a list of strings for set
    /// fields, `null` for Unknown) instead of detecting this machine. Repeatable: one column
    /// per environment.
    #[arg(long = "env", value_name = "FILE")]
    pub(crate) env_files: Vec<PathBuf>,
    /// A built-in environment, e.g. `linux-x86_64-cpython-3.12`; `--fixture list` lists them.
    /// Repeatable: one column per environment.
    #[arg(long = "fixture", value_name = "NAME")]
    pub(crate) fixtures: Vec<String>,
    /// A target platform as uv names it (`linux`, `windows`, `macos`,
    /// `x86_64-unknown-linux-gnu`, `aarch64-apple-darwin`, `x86_64-pc-windows-msvc`,
    /// `x86_64-manylinux_2_28`, …) instead of detecting this machine.
    #[arg(long, value_name = "PLATFORM", conflicts_with_all = ["env_files", "fixtures"])]
    pub(crate) python_platform: Option<String>,
    /// A wheel's tags as the target: `PYTHON-ABI-PLATFORM` (`cp313-cp313-manylinux_2_28_x86_64`)
    /// or a wheel file name ending in them. The tags set the fields they decide (Python version
    /// and implementation, ABI, platform, C library floor); the others stay unknown. A
    /// compressed tag set (`cp312.cp313-abi3-manylinux_2_28_x86_64.manylinux_2_28_aarch64`)
    /// gives one environment per combination. Repeatable: one column per environment.
    #[arg(long = "wheel-tag", value_name = "TAGS")]
    pub(crate) wheel_tags: Vec<String>,
    /// The target's Python version, as CPython (`3.11`, `3.12.4`, `3.13t` for free-threaded):
    /// sets the Python fields (`python_version`, `python_full_version`, the implementation,
    /// `python_abi_tag`, the GIL member of `sys_abi_features`) in every environment.
    #[arg(long, value_name = "VERSION")]
    pub(crate) python_version: Option<String>,
    /// Set one field in every environment: `FIELD=VALUE`; comma-separated for set fields; an
    /// empty value is Absent for extended fields; `FIELD=?` is Unknown. Values are checked as
    /// in environment documents; the fields not set are then derived as for the override
    /// variables (`cuda_version=` removes `cuda` from `gpu_backends`) and the cross-field
    /// invariants are checked (SPEC §4.4, §10.3). Repeatable.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub(crate) sets: Vec<String>,
    /// Request an extra (for `extra == "…"`). Repeatable.
    #[arg(long = "extra", value_name = "NAME")]
    pub(crate) extras: Vec<String>,
    /// When detecting this machine: the Python interpreter to ask (default: `python3` on PATH).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["env_files", "fixtures", "python_platform", "wheel_tags"])]
    pub(crate) python: Option<OsString>,
    /// When detecting this machine: do not probe GPUs (the GPU fields are Unknown).
    #[arg(long, conflicts_with_all = ["env_files", "fixtures", "python_platform", "wheel_tags"])]
    pub(crate) no_gpu: bool,
}

/// One environment to evaluate in, with the name its column shows.
pub(crate) struct NamedEnv {
    /// The file, fixture or platform it came from, or `this machine`.
    pub(crate) name: String,
    /// The environment.
    pub(crate) env: Environment,
}

/// The largest environment document read, in bytes.
const ENV_FILE_LIMIT: u64 = 1 << 20;

impl EnvOptions {
    /// Whether the user asked for the list of fixtures (`--fixture list`).
    pub(crate) fn wants_fixture_list(&self) -> bool {
        self.fixtures.iter().any(|f| f == "list")
    }

    /// Every environment asked for, with `--python-version`, `--set` and `--extra` applied to
    /// each. Detects this machine when no `--env`, `--fixture`, `--python-platform` or
    /// `--wheel-tag` is given.
    pub(crate) fn build(&self) -> Result<Vec<NamedEnv>, String> {
        // Checked first: a typo is reported before any detection runs.
        let sets = self
            .sets
            .iter()
            .map(|s| parse_set(s))
            .collect::<Result<Vec<_>, _>>()?;
        let mut envs = Vec::new();
        for path in &self.env_files {
            let text = crate::files::read_user_file(path, "environment file", ENV_FILE_LIMIT)?;
            let (env, warnings) = crate::json::environment_document(&text)
                .map_err(|e| format!("invalid environment file {}: {e}", path.display()))?;
            for warning in warnings {
                eprintln!("markerspec: warning: {}: {warning}", path.display());
            }
            envs.push(NamedEnv {
                name: path.display().to_string(),
                env,
            });
        }
        for name in &self.fixtures {
            envs.push(NamedEnv {
                name: name.clone(),
                env: crate::fixtures::load(name)?,
            });
        }
        let mut version_applied = false;
        if let Some(platform) = &self.python_platform {
            let platform: PythonPlatform = platform
                .parse()
                .map_err(|e| format!("--python-platform: {e}"))?;
            let env = Environment::for_target(platform, self.python_version.as_deref())
                .map_err(|e| format!("--python-version: {e}"))?;
            version_applied = true;
            envs.push(NamedEnv {
                name: platform.to_string(),
                env,
            });
        }
        for tags in &self.wheel_tags {
            for one in expand_wheel_tags(tags)? {
                let env =
                    Environment::for_wheel_tags(&one).map_err(|e| format!("--wheel-tag: {e}"))?;
                envs.push(NamedEnv { name: one, env });
            }
        }
        if envs.is_empty() {
            crate::guard_children();
            let facts = DetectOptions {
                python: self.python.clone(),
                gpu: !self.no_gpu,
                timeout: Duration::from_secs(10),
                vars: std::env::vars_os().collect(),
            }
            .detect()
            .map_err(|e| e.to_string())?;
            for warning in facts.warnings() {
                eprintln!("markerspec: warning: {warning}");
            }
            envs.push(NamedEnv {
                name: "this machine".into(),
                env: facts.to_environment(),
            });
        }
        for named in &mut envs {
            let mut env = std::mem::take(&mut named.env);
            if let (Some(v), false) = (&self.python_version, version_applied) {
                env = env
                    .with_python_version(v)
                    .map_err(|e| format!("--python-version: {e}"))?;
            }
            let mut fields = Vec::new();
            for (field, value) in &sets {
                if *field == Field::Extra {
                    let mut all: Vec<String> = env.extras().map(str::to_owned).collect();
                    if let EnvValue::String(s) = value {
                        all.push(s.to_string());
                    }
                    env = env.with_extras(all);
                } else {
                    fields.push((*field, value.clone()));
                }
            }
            // The last layer (SPEC §10.1): the derivations of §10.3, then the invariants of
            // §4.4, as for the override variables.
            markerspec_env::apply_settings(&mut env, &fields)
                .map_err(|e| format!("--set: {} (in {})", e.message(), named.name))?;
            if !self.extras.is_empty() {
                let mut all: Vec<String> = env.extras().map(str::to_owned).collect();
                all.extend(self.extras.iter().cloned());
                env = env.with_extras(all);
            }
            named.env = env;
        }
        Ok(envs)
    }
}

/// The most environments one `--wheel-tag` may expand to.
const MAX_TAG_COMBINATIONS: usize = 64;

/// The `PYTHON-ABI-PLATFORM` triples of `--wheel-tag TAGS`: TAGS itself, or the last three
/// dash-separated parts of a wheel file name, with each compressed tag set (`cp312.cp313`)
/// expanded into every combination, in the order written.
pub(crate) fn expand_wheel_tags(tags: &str) -> Result<Vec<String>, String> {
    let trimmed = tags.strip_suffix(".whl").unwrap_or(tags);
    let parts: Vec<&str> = trimmed.split('-').collect();
    let triple = match parts.len() {
        3 if !tags.ends_with(".whl") => &parts[..],
        n if n >= 5 && tags.ends_with(".whl") => &parts[n - 3..],
        _ => {
            return Err(format!(
                "--wheel-tag: `{tags}` is not PYTHON-ABI-PLATFORM wheel tags (e.g. \
                 `cp313-cp313-manylinux_2_28_x86_64`) nor a wheel file name"
            ));
        }
    };
    let sets: Vec<Vec<&str>> = triple.iter().map(|t| t.split('.').collect()).collect();
    if sets.iter().flatten().any(|t| t.is_empty()) {
        return Err(format!("--wheel-tag: `{tags}` has an empty tag"));
    }
    let count: usize = sets.iter().map(Vec::len).product();
    if count > MAX_TAG_COMBINATIONS {
        return Err(format!(
            "--wheel-tag: `{tags}` expands to {count} tag triples, more than \
             {MAX_TAG_COMBINATIONS}"
        ));
    }
    let mut out = Vec::with_capacity(count);
    for python in &sets[0] {
        for abi in &sets[1] {
            for platform in &sets[2] {
                out.push(format!("{python}-{abi}-{platform}"));
            }
        }
    }
    Ok(out)
}

/// Reads `FIELD=VALUE` as `--set` takes it: an unknown field gets a did-you-mean, the value is
/// checked with the rules of environment documents and `MARKERSPEC_<FIELD>` overrides.
pub(crate) fn parse_set(text: &str) -> Result<(Field, EnvValue), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--set expects FIELD=VALUE, got `{text}`"))?;
    let name = name.trim();
    let field = Field::from_canonical_name(name)
        .or_else(|| Field::from_name(name, markerspec_pep508::Dialect::Extended))
        .ok_or_else(|| format!("--set: {}", unknown_field(name)))?;
    if value == "?" {
        return Ok((field, EnvValue::Unknown));
    }
    if field == Field::Extra {
        return Ok((field, EnvValue::String(value.trim().into())));
    }
    let value = if value.is_empty() && !field.is_extended() {
        if field.field_type() == FieldType::Set {
            EnvValue::Set(Vec::new())
        } else {
            EnvValue::String("".into())
        }
    } else {
        markerspec_env::parse_override(field, value)
            .map_err(|e| format!("--set {}: {e}", field.name()))?
    };
    let value = check_value(field, value).map_err(|e| format!("--set {}: {e}", field.name()))?;
    Ok((field, value))
}

/// `` `NAME` is not a marker field `` with a did-you-mean when one name is close.
pub(crate) fn unknown_field(name: &str) -> String {
    match close_field(name) {
        Some(n) => format!("`{name}` is not a marker field; did you mean `{n}`?"),
        None => format!("`{name}` is not a marker field"),
    }
}

/// The field whose name is closest to `name`, when it is close enough to be a typo.
pub(crate) fn close_field(name: &str) -> Option<&'static str> {
    Field::ALL
        .iter()
        .map(|f| (edit_distance(name, f.name()), f.name()))
        .min()
        .filter(|(d, _)| *d <= 2.max(name.len() / 4))
        .map(|(_, n)| n)
}

/// Levenshtein distance over characters (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The value rules of `--set` (and of environment documents, which also keep text in a
/// standard version field, with a warning): extended values as `markerspec_env::validate`
/// checks them, and the standard version fields must hold a PEP 440 version
/// (`python_full_version` may end in `+`, as some builds print it). A value typed by hand
/// that is no version is far likelier a mistake than an interpreter's report.
pub(crate) fn check_value(field: Field, value: EnvValue) -> Result<EnvValue, String> {
    markerspec_env::check_input(field, value)
}

/// The lines of `--fixture list`: each built-in fixture with a one-line description.
pub(crate) fn fixture_list() -> String {
    let names: Vec<&str> = markerspec_env::fixture_names().collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut out = String::new();
    for name in names {
        let description = FixtureProvider::builtin(name)
            .map(|f| describe(&f.environment()))
            .unwrap_or_else(|e| e.message().to_owned());
        out.push_str(&format!("{name:width$}  {description}\n"));
    }
    out
}

/// A one-line description of an environment from its values: system, machine,
/// interpreter, C library, GPUs.
pub(crate) fn describe(env: &Environment) -> String {
    let s = |f: Field| match env.get(f) {
        Some(EnvValue::String(v)) => Some(v.to_string()),
        _ => None,
    };
    let set = |f: Field| match env.get(f) {
        Some(EnvValue::Set(v)) => v.iter().map(|s| s.to_string()).collect(),
        _ => Vec::new(),
    };
    let mut parts = Vec::new();
    let system = s(Field::PlatformSystem).unwrap_or_else(|| "?".into());
    let machine = s(Field::PlatformMachine).unwrap_or_else(|| "?".into());
    // The CPU, when emulation hides it from `platform_machine` (Rosetta 2).
    let host = match s(Field::HostArch) {
        Some(host) if host != markerspec_env::canonical_arch(&machine, None) => {
            format!(" on {host}")
        }
        _ => String::new(),
    };
    parts.push(format!("{system} {machine}{host}"));
    let python = format!(
        "{} {}{}",
        s(Field::PlatformPythonImplementation).unwrap_or_else(|| "Python".into()),
        s(Field::PythonFullVersion).unwrap_or_else(|| "?".into()),
        if set(Field::SysAbiFeatures)
            .iter()
            .any(|f| f == "free-threading")
        {
            " (free-threaded)"
        } else if set(Field::SysAbiFeatures).iter().any(|f| f == "32-bit") {
            " (32-bit)"
        } else {
            ""
        }
    );
    parts.push(python);
    if let Some(v) = s(Field::GlibcVersion) {
        parts.push(format!("glibc {v}"));
    }
    if let Some(v) = s(Field::MuslVersion) {
        parts.push(format!("musl {v}"));
    }
    if let Some(v) = s(Field::CudaVersion) {
        let cc = match (
            s(Field::CudaComputeCapability),
            s(Field::CudaComputeCapabilityMax),
        ) {
            (Some(lo), Some(hi)) if lo != hi => format!(", compute {lo}–{hi}"),
            (Some(lo), _) => format!(", compute {lo}"),
            _ => String::new(),
        };
        parts.push(format!("CUDA {v}{cc}"));
    }
    if let Some(v) = s(Field::CudnnVersion) {
        let built = s(Field::CudnnCudaVersion)
            .map(|c| format!(" (CUDA {c})"))
            .unwrap_or_default();
        parts.push(format!("cuDNN {v}{built}"));
    }
    if let Some(v) = s(Field::RocmVersion) {
        parts.push(format!("ROCm {v} {}", set(Field::RocmGpuArchs).join(",")));
    }
    match env.get(Field::GpuBackends) {
        Some(EnvValue::Absent) => parts.push("no GPU".into()),
        Some(EnvValue::Unknown) => parts.push("GPU unknown".into()),
        None => parts.push("standard fields only".into()),
        _ => {}
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_are_checked() {
        assert_eq!(
            parse_set("python_version=3.9").unwrap(),
            (Field::PythonVersion, EnvValue::String("3.9".into()))
        );
        let e = parse_set("python_versoin=3.9").unwrap_err();
        assert!(e.contains("did you mean `python_version`"), "{e}");
        let e = parse_set("python_version=abc").unwrap_err();
        assert!(e.contains("not a PEP 440 version"), "{e}");
        let e = parse_set("cuda_version=twelve").unwrap_err();
        assert!(e.contains("cuda_version"), "{e}");
        assert_eq!(
            parse_set("gpu_backends=cuda, rocm").unwrap().1,
            EnvValue::Set(vec!["cuda".into(), "rocm".into()])
        );
        assert_eq!(parse_set("cuda_version=").unwrap().1, EnvValue::Absent);
        assert_eq!(parse_set("os_name=?").unwrap().1, EnvValue::Unknown);
        assert!(parse_set("gpu_backends=cuda,,rocm").is_err());
        assert!(parse_set("nonsense").is_err());
        assert_eq!(
            unknown_field("zzzzzzzz"),
            "`zzzzzzzz` is not a marker field"
        );
    }

    #[test]
    fn wheel_tags_expand_compressed_sets_and_file_names() {
        assert_eq!(
            expand_wheel_tags("cp313-cp313-manylinux_2_28_x86_64").unwrap(),
            ["cp313-cp313-manylinux_2_28_x86_64"]
        );
        assert_eq!(
            expand_wheel_tags("py2.py3-none-any").unwrap(),
            ["py2-none-any", "py3-none-any"]
        );
        assert_eq!(
            expand_wheel_tags(
                "numpy-2.1.0-cp312-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
            )
            .unwrap(),
            [
                "cp312-abi3-manylinux_2_17_x86_64",
                "cp312-abi3-manylinux2014_x86_64"
            ]
        );
        for bad in [
            "cp312-cp312",
            "a-b-c-d",
            "cp312..cp313-none-any",
            "x-y-z.whl",
        ] {
            assert!(expand_wheel_tags(bad).is_err(), "{bad}");
        }
        let huge = format!("{0}-{0}-{0}", ["a"; 5].join("."));
        let e = expand_wheel_tags(&huge).unwrap_err();
        assert!(e.contains("125"), "{e}");
    }

    #[test]
    fn every_fixture_has_a_description() {
        let list = fixture_list();
        assert_eq!(
            list.lines().count(),
            markerspec_env::fixture_names().count()
        );
        assert!(
            list.lines()
                .any(|l| l.starts_with("linux-x86_64-cpython-3.12-h100-cuda12.8")
                    && l.contains("CUDA 12.8")),
            "{list}"
        );
    }
}
