//! The override layer: `MARKERSPEC_<FIELD>` variables and `CONDA_OVERRIDE_CUDA` (SPEC §10.3).

use markerspec_pep508::{EnvValue, Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::provider::{EnvironmentProvider, ProviderError, ProviderErrorKind};
use crate::values::parse_override;

/// The conda variable read for `cuda_version` when `MARKERSPEC_CUDA_VERSION` is unset.
pub const CONDA_OVERRIDE_CUDA: &str = "CONDA_OVERRIDE_CUDA";

/// The override variable of an extended field: `MARKERSPEC_` and the name in upper case.
///
/// ```
/// use markerspec_env::override_variable;
/// use markerspec_pep508::Field;
/// assert_eq!(override_variable(Field::CudaVersion).as_deref(), Some("MARKERSPEC_CUDA_VERSION"));
/// assert_eq!(override_variable(Field::PythonVersion), None);
/// ```
pub fn override_variable(field: Field) -> Option<String> {
    field
        .is_extended()
        .then(|| format!("MARKERSPEC_{}", field.name().to_ascii_uppercase()))
}

/// The override variables, read from a map the caller passes in (the CLI passes
/// `std::env::vars()`; tests pass their own), never from the process environment directly.
///
/// | variable state | value of the field |
/// | --- | --- |
/// | unset | detected |
/// | empty | Absent |
/// | a valid value | Known (canonicalised: sets sorted, `AMD64` → `x86_64`, …) |
/// | an invalid value | error `invalid-override`, naming the variable and the expected form |
///
/// Only variables named after an extended field count; other `MARKERSPEC_*` names are left
/// alone. `CONDA_OVERRIDE_CUDA` is read for `cuda_version` only when `MARKERSPEC_CUDA_VERSION`
/// is unset. An overridden `cuda_version` (or `rocm_version`) adds `cuda` (`rocm`) to
/// `gpu_backends` when non-empty and removes it when empty, unless `MARKERSPEC_GPU_BACKENDS`
/// is set; an Unknown `gpu_backends` stays Unknown.
///
/// ```
/// use markerspec_env::{Facts, Overrides, Provenance};
/// use markerspec_pep508::{EnvValue, Field, FieldSet};
///
/// let mut facts = Facts::new();
/// facts.absent(Field::GpuBackends, Provenance::new("cuda", "nvml"));
/// let overrides = Overrides::from_vars([("CONDA_OVERRIDE_CUDA", "12.4"), ("HOME", "/root")]);
/// overrides.apply(&mut facts, markerspec_env::fact_fields()).unwrap();
/// assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
/// assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Set(vec!["cuda".into()])));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// (field, variable, raw value), in registry order.
    entries: Vec<(Field, String, String)>,
    /// Override variables whose values are not UTF-8: an error when the overrides are read.
    not_utf8: Vec<String>,
    /// Set-ID execution: every override is ignored, with a warning.
    ignored: bool,
}

impl Overrides {
    /// No overrides.
    pub fn new() -> Overrides {
        Overrides::default()
    }

    /// Picks the override variables out of `vars` (any other variable is ignored).
    pub fn from_vars<I, K, V>(vars: I) -> Overrides
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let vars: Vec<(String, String)> = vars
            .into_iter()
            .filter(|(k, _)| {
                let k = k.as_ref();
                k.starts_with("MARKERSPEC_") || k == CONDA_OVERRIDE_CUDA
            })
            .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
            .collect();
        let lookup = |name: &str| vars.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v);
        let mut entries = Vec::new();
        for &field in Field::ALL {
            let Some(var) = override_variable(field) else {
                continue;
            };
            if let Some(value) = lookup(&var) {
                entries.push((field, var, value.clone()));
            } else if field == Field::CudaVersion {
                if let Some(value) = lookup(CONDA_OVERRIDE_CUDA) {
                    entries.push((field, CONDA_OVERRIDE_CUDA.to_owned(), value.clone()));
                }
            }
        }
        Overrides {
            entries,
            not_utf8: Vec::new(),
            ignored: false,
        }
    }

    /// Picks the override variables out of `vars` as the process holds them: a variable whose
    /// value is not UTF-8 is kept as an error ([`facts`](Self::facts) reports it), never
    /// dropped in silence.
    pub fn from_vars_os<I, K, V>(vars: I) -> Overrides
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<std::ffi::OsStr>,
        V: AsRef<std::ffi::OsStr>,
    {
        let mut text = Vec::new();
        let mut not_utf8 = Vec::new();
        for (k, v) in vars {
            let Some(k) = k.as_ref().to_str() else {
                continue;
            };
            match v.as_ref().to_str() {
                Some(v) => text.push((k.to_owned(), v.to_owned())),
                None => {
                    let named = k == CONDA_OVERRIDE_CUDA
                        || Field::ALL
                            .iter()
                            .any(|&f| override_variable(f).as_deref() == Some(k));
                    if named {
                        // A later valid value of the same variable replaces it.
                        text.retain(|(name, _)| name != k);
                        not_utf8.push(k.to_owned());
                    }
                }
            }
        }
        let mut overrides = Overrides::from_vars(text);
        let set: Vec<&str> = overrides.variables().map(|(k, _)| k).collect();
        not_utf8.retain(|k| !set.contains(&k.as_str()));
        not_utf8.dedup();
        overrides.not_utf8 = not_utf8;
        overrides
    }

    /// Marks the process as running set-user-ID or set-group-ID: every override is then
    /// ignored with the warning `override-ignored` (SPEC §10.3). See
    /// [`process_is_setid`](crate::process_is_setid).
    #[must_use]
    pub fn setid(mut self, setid: bool) -> Overrides {
        self.ignored = setid;
        self
    }

    /// Whether no override variable is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.not_utf8.is_empty()
    }

    /// The variables that are set, with their values.
    pub fn variables(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|(_, k, v)| (k.as_str(), v.as_str()))
    }

    /// Parses every variable into facts, without the `gpu_backends` coupling.
    ///
    /// # Errors
    /// `invalid-override` for the first invalid value, naming the variable.
    pub fn facts(&self) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        if self.ignored {
            return Ok(facts);
        }
        if let Some(var) = self.not_utf8.first() {
            return Err(ProviderError::new(
                "override",
                ProviderErrorKind::InvalidOverride,
                format!("invalid-override: the value of {var} is not valid UTF-8"),
            ));
        }
        for (field, var, raw) in &self.entries {
            let value = parse_override(*field, raw).map_err(|expected| {
                ProviderError::new(
                    "override",
                    ProviderErrorKind::InvalidOverride,
                    format!(
                        "invalid-override: {var}={raw:?} is not valid for `{field}`: {expected}"
                    ),
                )
            })?;
            facts.insert(*field, value, Provenance::new("override", var.clone()));
        }
        Ok(facts)
    }

    /// Applies the overrides to `facts` (the requested fields only), then the coupling of
    /// `cuda_version` and `rocm_version` to `gpu_backends`.
    ///
    /// # Errors
    /// `invalid-override` for the first invalid value, naming the variable.
    pub fn apply(&self, facts: &mut Facts, request: FieldSet) -> Result<(), ProviderError> {
        if self.ignored {
            if !self.is_empty() {
                let names: Vec<&str> = self
                    .variables()
                    .map(|(k, _)| k)
                    .chain(self.not_utf8.iter().map(String::as_str))
                    .collect();
                facts.warn(format!(
                    "override-ignored: {} ignored because the process runs set-user-ID or \
                     set-group-ID",
                    names.join(", ")
                ));
            }
            return Ok(());
        }
        let mut values = self.facts()?;
        values.retain(request);
        let set = |field: Field| self.entries.iter().find(|(f, _, _)| *f == field);
        let backends_set = set(Field::GpuBackends).is_some();
        let mut coupled = Vec::new();
        for (field, member) in [(Field::CudaVersion, "cuda"), (Field::RocmVersion, "rocm")] {
            if let (Some((_, var, _)), false) = (set(field), backends_set) {
                let present = !matches!(
                    values.value(field),
                    Some(EnvValue::Absent) | Some(EnvValue::Unknown) | None
                );
                coupled.push((member, present, var.clone()));
            }
        }
        facts.overlay(values);
        if request.contains(Field::GpuBackends) {
            for (member, present, var) in coupled {
                couple(facts, member, present, &var);
            }
        }
        Ok(())
    }
}

/// Adds or removes `member` in `gpu_backends`; an Unknown or missing value stays as it is.
fn couple(facts: &mut Facts, member: &str, present: bool, var: &str) {
    let mut items: Vec<Box<str>> = match facts.value(Field::GpuBackends) {
        Some(EnvValue::Set(items)) => items.clone(),
        Some(EnvValue::Absent) => Vec::new(),
        _ => return,
    };
    let had = items.iter().any(|i| &**i == member);
    if had == present {
        return;
    }
    if present {
        items.push(member.into());
    } else {
        items.retain(|i| &**i != member);
    }
    let detail = format!(
        "`{member}` {} because {var} is {}",
        if present { "added" } else { "removed" },
        if present { "set" } else { "empty" }
    );
    facts.insert(
        Field::GpuBackends,
        EnvValue::Set(items),
        Provenance::new("override", var.to_owned()).with_detail(detail),
    );
}

impl EnvironmentProvider for Overrides {
    fn name(&self) -> &str {
        "override"
    }

    fn fields(&self) -> FieldSet {
        self.entries.iter().map(|(f, _, _)| *f).collect()
    }

    fn provide(&self, _request: FieldSet) -> Result<Facts, ProviderError> {
        self.facts()
    }
}

/// Whether this process runs set-user-ID or set-group-ID (its effective user or group differs
/// from the real one), in which case override variables must be ignored. Read from
/// `/proc/self/status` on Linux; `false` where that cannot be read.
///
/// ```
/// use markerspec_env::{Overrides, process_is_setid};
///
/// let overrides = Overrides::from_vars_os(std::env::vars_os()).setid(process_is_setid());
/// # let _ = overrides;
/// ```
pub fn process_is_setid() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status_is_setid(&status)
}

fn status_is_setid(status: &str) -> bool {
    let differs = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|rest| {
                let ids: Vec<&str> = rest.split_whitespace().collect();
                ids.len() >= 2 && ids[0] != ids[1]
            })
            .unwrap_or(false)
    };
    differs("Uid:") || differs("Gid:")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::fact_fields;

    fn base(backends: EnvValue) -> Facts {
        let mut facts = Facts::new();
        facts.insert(
            Field::GpuBackends,
            backends,
            Provenance::new("cuda", "test"),
        );
        facts.absent(Field::CudaVersion, Provenance::new("cuda", "test"));
        facts
    }

    fn set(items: &[&str]) -> EnvValue {
        EnvValue::Set(items.iter().map(|s| (*s).into()).collect())
    }

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_utf8_is_reported() {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"12.\xff");
        let o = Overrides::from_vars_os([
            (std::ffi::OsStr::new("MARKERSPEC_CUDA_VERSION"), bad),
            (std::ffi::OsStr::new("UNRELATED"), bad),
        ]);
        assert!(!o.is_empty());
        let err = o.facts().unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride);
        assert!(err.to_string().contains("MARKERSPEC_CUDA_VERSION"), "{err}");
        assert!(err.to_string().contains("UTF-8"), "{err}");
        // An unrelated variable is not an override, whatever its bytes.
        let o = Overrides::from_vars_os([(std::ffi::OsStr::new("UNRELATED"), bad)]);
        assert!(o.is_empty());
    }

    #[test]
    fn unset_empty_valid_invalid() {
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([("PATH", "/bin")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts, base(EnvValue::Absent));

        let mut facts = base(set(&["cuda"]));
        Overrides::from_vars([("MARKERSPEC_CUDA_VERSION", "")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        let p = &facts.get(Field::CudaVersion).unwrap().provenance;
        assert_eq!(
            (p.layer(), p.method()),
            ("override", "MARKERSPEC_CUDA_VERSION")
        );

        let err = Overrides::from_vars([("MARKERSPEC_CUDA_VERSION", "twelve")])
            .apply(&mut base(EnvValue::Absent), fact_fields())
            .unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride);
        assert!(err.to_string().contains("MARKERSPEC_CUDA_VERSION"), "{err}");
        assert!(err.to_string().contains("PEP 440"), "{err}");
    }

    #[test]
    fn conda_is_read_only_without_the_markerspec_variable() {
        let o = Overrides::from_vars([
            ("CONDA_OVERRIDE_CUDA", "11.8"),
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
        ]);
        assert_eq!(o.facts().unwrap().string(Field::CudaVersion), Some("12.4"));
        let o = Overrides::from_vars([("CONDA_OVERRIDE_CUDA", "11.8")]);
        let facts = o.facts().unwrap();
        assert_eq!(facts.string(Field::CudaVersion), Some("11.8"));
        assert_eq!(
            facts.get(Field::CudaVersion).unwrap().provenance.method(),
            "CONDA_OVERRIDE_CUDA"
        );
    }

    #[test]
    fn coupling_follows_the_spec() {
        // Unknown stays Unknown.
        let mut facts = base(EnvValue::Unknown);
        Overrides::from_vars([("CONDA_OVERRIDE_CUDA", "12.4")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
        // An explicit MARKERSPEC_GPU_BACKENDS turns the coupling off.
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
            ("MARKERSPEC_GPU_BACKENDS", "rocm"),
        ])
        .apply(&mut facts, fact_fields())
        .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&set(&["rocm"])));
        // rocm_version couples to rocm.
        let mut facts = base(set(&["cuda"]));
        Overrides::from_vars([("MARKERSPEC_ROCM_VERSION", "6.3.1")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(
            facts.value(Field::GpuBackends),
            Some(&set(&["cuda", "rocm"]))
        );
        // No other variable touches another field.
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([("MARKERSPEC_NVIDIA_DRIVER_VERSION", "550.1")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    }

    #[test]
    fn other_markerspec_variables_are_not_overrides() {
        let o =
            Overrides::from_vars([("MARKERSPEC_TEST", "x"), ("MARKERSPEC_PYTHON_VERSION", "3")]);
        assert!(o.is_empty());
    }

    #[test]
    fn setid_ignores_with_a_warning() {
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([("MARKERSPEC_CUDA_VERSION", "bogus")])
            .setid(true)
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Absent));
        assert!(facts.warnings()[0].starts_with("override-ignored"));
        assert!(status_is_setid(
            "Name:\tx\nUid:\t1000\t0\t0\t0\nGid:\t1\t1\t1\t1\n"
        ));
        assert!(!status_is_setid("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"));
    }
}
