//! The override layer: `MARKERSPEC_<FIELD>` variables and conda's `CONDA_OVERRIDE_CUDA`,
//! `CONDA_OVERRIDE_GLIBC` and `CONDA_OVERRIDE_CUDA_ARCH` (SPEC §10.3), the derivations that
//! keep the invariants of §4.4 after a partial override, and their check.

use markerspec_pep440::Version;
use markerspec_pep508::{EnvValue, Environment, Field, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::invariants::{Violation, check_invariants};
use crate::provider::{EnvironmentProvider, ProviderError, ProviderErrorKind};
use crate::values::{check_input, parse_override};

/// The conda variable read for `cuda_version` when `MARKERSPEC_CUDA_VERSION` is unset (CEP 30,
/// `__cuda`).
///
/// See the example on [`Overrides`].
pub const CONDA_OVERRIDE_CUDA: &str = "CONDA_OVERRIDE_CUDA";

/// The conda variable read for `glibc_version` when `MARKERSPEC_GLIBC_VERSION` is unset, on
/// Linux only (CEP 30, `__glibc`).
///
/// See the example on [`Overrides`].
pub const CONDA_OVERRIDE_GLIBC: &str = "CONDA_OVERRIDE_GLIBC";

/// The conda variable read for the compute-capability fields when none of their
/// `MARKERSPEC_` variables is set (CEP 46, `__cuda_arch`): `X.Y`, or `X.Y=build` whose build
/// string is ignored.
///
/// See the example on [`Overrides`].
pub const CONDA_OVERRIDE_CUDA_ARCH: &str = "CONDA_OVERRIDE_CUDA_ARCH";

/// The compute-capability fields, which `CONDA_OVERRIDE_CUDA_ARCH` sets together.
const CC_FIELDS: [Field; 3] = [
    Field::CudaComputeCapabilities,
    Field::CudaComputeCapability,
    Field::CudaComputeCapabilityMax,
];

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

/// Whether `name` is a variable [`Overrides`] reads.
fn is_override_name(name: &str) -> bool {
    [
        CONDA_OVERRIDE_CUDA,
        CONDA_OVERRIDE_GLIBC,
        CONDA_OVERRIDE_CUDA_ARCH,
    ]
    .contains(&name)
        || Field::ALL
            .iter()
            .any(|&f| override_variable(f).as_deref() == Some(name))
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
/// Only variables named after an extended field count, and three of conda's, each read only
/// when the `MARKERSPEC_` variable of its field is unset:
///
/// - `CONDA_OVERRIDE_CUDA` for `cuda_version` (CEP 30);
/// - `CONDA_OVERRIDE_GLIBC` for `glibc_version` (CEP 30), on Linux only: elsewhere it is
///   ignored with the warning `override-ignored`;
/// - `CONDA_OVERRIDE_CUDA_ARCH` for the compute-capability fields (CEP 46), when none of
///   `MARKERSPEC_CUDA_COMPUTE_CAPABILITY`, `…_CAPABILITIES`, `…_CAPABILITY_MAX` is set: `X.Y`
///   (or `X.Y=build`, the build string ignored) sets the set to {`X.Y`} and both scalars to
///   `X.Y`. As in conda, it is ignored, with `override-ignored`, when `cuda_version` is Absent
///   after the overrides.
///
/// Then the fields that were not overridden are derived from those that were (SPEC §10.3), so
/// that one variable keeps the invariants of §4.4:
///
/// | overridden | derived, when not itself overridden |
/// | --- | --- |
/// | `cuda_version` non-empty / empty | `gpu_backends` gains / loses `cuda`; when empty, the compute-capability fields are Absent |
/// | `gpu_backends` without `cuda` / `rocm` | `cuda_version` and the compute-capability fields / `rocm_gpu_archs` Absent |
/// | `gpu_backends` with `cuda` / `rocm` while `cuda_version` / `rocm_gpu_archs` is Absent | that field Unknown |
/// | `cuda_compute_capabilities` | `cuda_compute_capability` (minimum), `cuda_compute_capability_max` (maximum) |
/// | `cuda_compute_capability` alone | the set {value}, the maximum the value |
/// | `rocm_gpu_archs` non-empty / empty | `gpu_backends` gains / loses `rocm` |
/// | `glibc_version` or `musl_version` non-empty | the other Absent |
/// | `cudnn_version` empty / non-empty | `cudnn_cuda_version` Absent / Unknown |
/// | `variant_properties` | `variant_features`, `variant_namespaces` |
///
/// A `gpu_backends` that is Unknown stays Unknown; a value that cannot be derived is Unknown.
/// Finally the invariants are checked: a violation the overrides brought in is
/// `invalid-override`, naming the invariant and the variables.
///
/// ```
/// use markerspec_env::{
///     CONDA_OVERRIDE_CUDA, CONDA_OVERRIDE_CUDA_ARCH, CONDA_OVERRIDE_GLIBC, Facts, Overrides,
///     Provenance,
/// };
/// use markerspec_pep508::{EnvValue, Field, FieldSet};
///
/// let mut facts = Facts::new();
/// facts.absent(Field::GpuBackends, Provenance::new("cuda", "nvml"));
/// let overrides = Overrides::from_vars([("CONDA_OVERRIDE_CUDA", "12.4"), ("HOME", "/root")]);
/// overrides.apply(&mut facts, markerspec_env::fact_fields()).unwrap();
/// assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
/// assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Set(vec!["cuda".into()])));
///
/// // Only the override variables are kept; each can be read as a fact of its own.
/// assert!(Overrides::new().is_empty());
/// assert_eq!(overrides.variables().collect::<Vec<_>>(), [("CONDA_OVERRIDE_CUDA", "12.4")]);
/// let conda = Overrides::from_vars_os([
///     (CONDA_OVERRIDE_GLIBC, "2.35"),
///     (CONDA_OVERRIDE_CUDA_ARCH, "8.6"),
/// ])
/// .linux(true);
/// let facts = conda.facts().unwrap();
/// assert_eq!(facts.string(Field::GlibcVersion), Some("2.35"));
/// assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
/// assert!(Overrides::from_vars([(CONDA_OVERRIDE_CUDA, "twelve")]).facts().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overrides {
    /// (field, variable, raw value), in registry order. `CONDA_OVERRIDE_CUDA_ARCH` is one
    /// entry under `cuda_compute_capability`.
    entries: Vec<(Field, String, String)>,
    /// Override variables whose values are not UTF-8: an error when the overrides are read.
    not_utf8: Vec<String>,
    /// Set-ID execution: every override is ignored, with a warning.
    ignored: bool,
    /// Whether `CONDA_OVERRIDE_GLIBC` applies (the platform is Linux).
    linux: bool,
}

impl Default for Overrides {
    fn default() -> Self {
        Overrides {
            entries: Vec::new(),
            not_utf8: Vec::new(),
            ignored: false,
            linux: cfg!(target_os = "linux"),
        }
    }
}

impl Overrides {
    /// No overrides.
    ///
    /// See the example on [`Overrides`].
    pub fn new() -> Overrides {
        Overrides::default()
    }

    /// Picks the override variables out of `vars` (any other variable is ignored).
    ///
    /// See the example on [`Overrides`].
    pub fn from_vars<I, K, V>(vars: I) -> Overrides
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let vars: Vec<(String, String)> = vars
            .into_iter()
            .filter(|(k, _)| is_override_name(k.as_ref()))
            .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
            .collect();
        let lookup = |name: &str| vars.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v);
        let mut entries = Vec::new();
        for &field in Field::ALL {
            let Some(var) = override_variable(field) else {
                continue;
            };
            let conda = match field {
                Field::CudaVersion => Some(CONDA_OVERRIDE_CUDA),
                Field::GlibcVersion => Some(CONDA_OVERRIDE_GLIBC),
                _ => None,
            };
            if let Some(value) = lookup(&var) {
                entries.push((field, var, value.clone()));
            } else if let Some(conda) = conda
                && let Some(value) = lookup(conda)
            {
                entries.push((field, conda.to_owned(), value.clone()));
            }
        }
        let cc_set = entries.iter().any(|(f, _, _)| CC_FIELDS.contains(f));
        if !cc_set && let Some(value) = lookup(CONDA_OVERRIDE_CUDA_ARCH) {
            entries.push((
                Field::CudaComputeCapability,
                CONDA_OVERRIDE_CUDA_ARCH.to_owned(),
                value.clone(),
            ));
        }
        Overrides {
            entries,
            ..Overrides::default()
        }
    }

    /// Picks the override variables out of `vars` as the process holds them: a variable whose
    /// value is not UTF-8 is kept as an error ([`facts`](Self::facts) reports it), never
    /// dropped in silence.
    ///
    /// See the example on [`Overrides`].
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
                    if is_override_name(k) {
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

    /// Whether the platform is Linux, where `CONDA_OVERRIDE_GLIBC` applies (default: whether
    /// this program was built for Linux).
    ///
    /// See the example on [`Overrides`].
    #[must_use]
    pub fn linux(mut self, linux: bool) -> Overrides {
        self.linux = linux;
        self
    }

    /// Whether no override variable is set.
    ///
    /// See the example on [`Overrides`].
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.not_utf8.is_empty()
    }

    /// The variables that are set, with their values.
    ///
    /// See the example on [`Overrides`].
    pub fn variables(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|(_, k, v)| (k.as_str(), v.as_str()))
    }

    /// The entries that apply here: `CONDA_OVERRIDE_GLIBC` only on Linux.
    fn applicable(&self) -> impl Iterator<Item = &(Field, String, String)> {
        self.entries
            .iter()
            .filter(|(_, var, _)| self.linux || var != CONDA_OVERRIDE_GLIBC)
    }

    /// Parses every variable into facts, without the derivations.
    ///
    /// # Errors
    /// `invalid-override` for the first invalid value, naming the variable.
    ///
    /// See the example on [`Overrides`].
    pub fn facts(&self) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        if self.ignored {
            return Ok(facts);
        }
        if let Some(var) = self.not_utf8.first() {
            return Err(invalid(format!("the value of {var} is not valid UTF-8")));
        }
        for (field, var, raw) in self.applicable() {
            let provenance = Provenance::new("override", var.clone());
            if var == CONDA_OVERRIDE_CUDA_ARCH {
                // CEP 46: `X.Y` or `X.Y=build`.
                let capability = raw.split_once('=').map_or(raw.as_str(), |(cc, _)| cc);
                let value = parse_override(Field::CudaComputeCapabilities, capability)
                    .map_err(|expected| invalid_value(var, raw, *field, &expected))?;
                let scalar = match &value {
                    EnvValue::Set(items) => EnvValue::String(items[0].clone()),
                    other => other.clone(),
                };
                facts.insert(Field::CudaComputeCapabilities, value, provenance.clone());
                facts.insert(
                    Field::CudaComputeCapability,
                    scalar.clone(),
                    provenance.clone(),
                );
                facts.insert(Field::CudaComputeCapabilityMax, scalar, provenance);
                continue;
            }
            let value = parse_override(*field, raw)
                .map_err(|expected| invalid_value(var, raw, *field, &expected))?;
            facts.insert(*field, value, provenance);
        }
        Ok(facts)
    }

    /// Applies the overrides to `facts` (the requested fields only), then the derivations, then
    /// checks the invariants (see the type's docs).
    ///
    /// # Errors
    /// `invalid-override` for the first invalid value, naming the variable, or for an invariant
    /// of SPEC §4.4 that the overrides break.
    ///
    /// See the example on [`Overrides`].
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
        if !self.linux
            && self
                .entries
                .iter()
                .any(|(_, v, _)| v == CONDA_OVERRIDE_GLIBC)
        {
            facts.warn(format!(
                "override-ignored: {CONDA_OVERRIDE_GLIBC} applies on Linux only (CEP 30)"
            ));
        }
        let mut values = self.facts()?;
        values.retain(request);
        let overridden = values.fields();
        // CEP 46: `CONDA_OVERRIDE_CUDA_ARCH` means nothing without `__cuda`.
        let arch = |v: &Facts| {
            v.get(Field::CudaComputeCapability)
                .is_some_and(|f| f.provenance.method() == CONDA_OVERRIDE_CUDA_ARCH)
        };
        if arch(&values) && cuda_absent_after(facts, &values) {
            for field in CC_FIELDS {
                values.remove(field);
            }
            facts.warn(format!(
                "override-ignored: {CONDA_OVERRIDE_CUDA_ARCH} is ignored because `cuda_version` \
                 is absent (CEP 46)"
            ));
        }
        if let Err(broken) = overlay_derived(facts, values, request) {
            let vars: Vec<&str> = self
                .applicable()
                .filter(|(f, _, _)| overridden.contains(*f) || broken.fields.contains(f))
                .map(|(_, var, _)| var.as_str())
                .collect();
            return Err(invalid(format!(
                "{broken}; set by {}",
                if vars.is_empty() {
                    "the override variables".to_owned()
                } else {
                    vars.join(", ")
                }
            )));
        }
        Ok(())
    }
}

/// Lays `values` over `facts`, derives the requested fields that `values` does not give from
/// those it gives (SPEC §10.3), and returns the first invariant of §4.4 that is broken after
/// this and was not broken before.
fn overlay_derived(facts: &mut Facts, values: Facts, request: FieldSet) -> Result<(), Violation> {
    let before: Vec<&'static str> = check_invariants(|f| facts.value(f).cloned())
        .into_iter()
        .map(|v| v.invariant)
        .collect();
    let overridden = values.fields();
    facts.overlay(values);
    derive(facts, overridden, request);
    match check_invariants(|f| facts.value(f).cloned())
        .into_iter()
        .find(|v| !before.contains(&v.invariant))
    {
        Some(broken) => Err(broken),
        None => Ok(()),
    }
}

/// Applies explicit per-field settings (the CLI's `--set FIELD=VALUE`, an embedding tool's
/// equivalent) to `env`, as the last layer of SPEC §10.1, with the same rules as the override
/// variables (§10.3): each value is checked as an override is ([`check_input`]); then the
/// fields that no setting names are derived from those that settings name (the table of
/// [`Overrides`]); then the invariants of §4.4 are checked. So `cuda_version=` (Absent)
/// removes `cuda` from `gpu_backends` and makes the compute-capability fields Absent, and
/// `gpu_backends=rocm` makes `cuda_version` Absent, exactly as `MARKERSPEC_CUDA_VERSION=` or
/// `MARKERSPEC_GPU_BACKENDS=rocm` would.
///
/// Settings apply in order; a later setting of the same field replaces an earlier one. An
/// [`EnvValue::Unknown`] setting makes the field Unknown (which satisfies every invariant).
/// `extra` is not a field to set: request extras with [`Environment::with_extras`].
///
/// # Errors
/// `invalid-override` ([`ProviderErrorKind::InvalidOverride`]): a value that is not valid for
/// its field, `extra`, or an invariant broken by the settings, naming the invariant and the
/// fields set. An invariant the environment already broke before the settings is not reported
/// (as for the override variables); `env` is unchanged on error.
///
/// ```
/// use markerspec_env::apply_settings;
/// use markerspec_pep508::{EnvValue, Environment, Field};
///
/// let mut env = Environment::new();
/// env.set(Field::GpuBackends, EnvValue::Set(vec!["cuda".into()])).unwrap();
/// env.set(Field::CudaVersion, EnvValue::String("12.8".into())).unwrap();
/// env.set(Field::CudaComputeCapabilities, EnvValue::Set(vec!["9.0".into()])).unwrap();
/// env.set(Field::CudaComputeCapability, EnvValue::String("9.0".into())).unwrap();
/// env.set(Field::CudaComputeCapabilityMax, EnvValue::String("9.0".into())).unwrap();
///
/// // Absent CUDA: the backend and the device fields follow.
/// let mut no_cuda = env.clone();
/// apply_settings(&mut no_cuda, &[(Field::CudaVersion, EnvValue::Absent)]).unwrap();
/// assert_eq!(no_cuda.get(Field::GpuBackends), Some(&EnvValue::Absent));
/// assert_eq!(no_cuda.get(Field::CudaComputeCapability), Some(&EnvValue::Absent));
///
/// // Two settings that contradict each other are an error, naming the invariant.
/// let err = apply_settings(
///     &mut env,
///     &[(Field::GpuBackends, EnvValue::Absent), (Field::CudaVersion, EnvValue::String("12.4".into()))],
/// )
/// .unwrap_err();
/// assert!(err.message().starts_with("invalid-override: I1 (SPEC §4.4)"));
/// ```
pub fn apply_settings(
    env: &mut Environment,
    settings: &[(Field, EnvValue)],
) -> Result<(), ProviderError> {
    let mut facts = Facts::new();
    for (field, value) in env.iter().filter(|(f, _)| *f != Field::Extra) {
        facts.insert(
            field,
            value.clone(),
            Provenance::new("given", "environment"),
        );
    }
    let mut values = Facts::new();
    for (field, value) in settings {
        if *field == Field::Extra {
            return Err(invalid_setting(
                "`extra` is not a field to set; request the extra instead".to_owned(),
            ));
        }
        let value = match value {
            EnvValue::Unknown => EnvValue::Unknown,
            v => check_input(*field, v.clone())
                .map_err(|why| invalid_setting(format!("`{field}`: {why}")))?,
        };
        values.insert(*field, value, Provenance::new("setting", field.name()));
    }
    let set = values.fields();
    let all: FieldSet = Field::ALL.iter().copied().collect();
    if let Err(broken) = overlay_derived(&mut facts, values, all) {
        let names: Vec<String> = set
            .iter()
            .filter(|f| broken.fields.contains(f))
            .chain(set.iter().filter(|f| !broken.fields.contains(f)))
            .map(|f| format!("`{f}`"))
            .collect();
        return Err(invalid_setting(format!(
            "{broken}; set by {}",
            names.join(", ")
        )));
    }
    for (field, fact) in facts.iter() {
        if env.get(field) != Some(&fact.value) {
            env.set(field, fact.value.clone())
                .map_err(|e| invalid_setting(e.to_string()))?;
        }
    }
    Ok(())
}

/// `invalid-override` from explicit settings (provider `setting`).
fn invalid_setting(message: String) -> ProviderError {
    ProviderError::new(
        "setting",
        ProviderErrorKind::InvalidOverride,
        format!("invalid-override: {message}"),
    )
}

fn invalid(message: String) -> ProviderError {
    ProviderError::new(
        "override",
        ProviderErrorKind::InvalidOverride,
        format!("invalid-override: {message}"),
    )
}

fn invalid_value(var: &str, raw: &str, field: Field, expected: &str) -> ProviderError {
    invalid(format!(
        "{var}={raw:?} is not valid for `{field}`: {expected}"
    ))
}

/// Whether `cuda_version` is Absent once `values` (the overrides) and the derivations from
/// `gpu_backends` apply over `facts`.
fn cuda_absent_after(facts: &Facts, values: &Facts) -> bool {
    if let Some(v) = values.value(Field::CudaVersion) {
        return *v == EnvValue::Absent;
    }
    match values.value(Field::GpuBackends) {
        Some(EnvValue::Absent) => true,
        Some(EnvValue::Set(items)) if !items.iter().any(|i| &**i == "cuda") => true,
        Some(EnvValue::Set(_)) => false,
        _ => facts.value(Field::CudaVersion) == Some(&EnvValue::Absent),
    }
}

/// Whether a value is present (Known and not empty), absent, or unknown.
fn presence(value: Option<&EnvValue>) -> Option<bool> {
    match value? {
        EnvValue::Unknown => None,
        EnvValue::Absent => Some(false),
        EnvValue::String(s) => Some(!s.is_empty()),
        EnvValue::Set(items) => Some(!items.is_empty()),
    }
}

/// The derivations of SPEC §10.3: each field that was not overridden is computed from the ones
/// that were.
fn derive(facts: &mut Facts, overridden: FieldSet, request: FieldSet) {
    let from = |facts: &Facts, field: Field| {
        let method = facts
            .get(field)
            .map(|f| f.provenance.method().to_owned())
            .unwrap_or_default();
        Provenance::new("override", method)
    };
    let set_derived = |facts: &mut Facts, field: Field, value: EnvValue, source: Field| {
        if overridden.contains(field) || !request.contains(field) {
            return;
        }
        let p = from(facts, source).with_detail(format!("derived from `{source}`"));
        facts.insert(field, value, p);
    };
    let ov = |f: Field| overridden.contains(f);

    // One C library.
    for (set, other) in [
        (Field::GlibcVersion, Field::MuslVersion),
        (Field::MuslVersion, Field::GlibcVersion),
    ] {
        if ov(set) && presence(facts.value(set)) == Some(true) {
            set_derived(facts, other, EnvValue::Absent, set);
        }
    }
    // cuDNN's CUDA version follows cuDNN.
    if ov(Field::CudnnVersion) {
        let v = match presence(facts.value(Field::CudnnVersion)) {
            Some(false) => EnvValue::Absent,
            _ => EnvValue::Unknown,
        };
        set_derived(facts, Field::CudnnCudaVersion, v, Field::CudnnVersion);
    }
    // Variant sets from the properties.
    if ov(Field::VariantProperties) {
        for (field, parts) in [(Field::VariantFeatures, 2), (Field::VariantNamespaces, 1)] {
            let v = match facts.value(Field::VariantProperties) {
                Some(EnvValue::Set(items)) => EnvValue::Set(
                    items
                        .iter()
                        .map(|p| {
                            p.split(" :: ")
                                .take(parts)
                                .collect::<Vec<_>>()
                                .join(" :: ")
                                .into_boxed_str()
                        })
                        .collect(),
                ),
                Some(EnvValue::Absent) => EnvValue::Absent,
                _ => EnvValue::Unknown,
            };
            set_derived(facts, field, v, Field::VariantProperties);
        }
    }
    // The compute-capability scalars from the set, or the set from the minimum.
    let cc = |facts: &Facts, f: Field| facts.value(f).cloned();
    if ov(Field::CudaComputeCapabilities) {
        let set = cc(facts, Field::CudaComputeCapabilities);
        let (min, max) = match &set {
            Some(EnvValue::Set(items)) => {
                let mut v: Vec<(Version, &str)> = items
                    .iter()
                    .filter_map(|i| Some((i.parse::<Version>().ok()?, &**i)))
                    .collect();
                v.sort();
                match (v.first(), v.last()) {
                    (Some(lo), Some(hi)) => {
                        (EnvValue::String(lo.1.into()), EnvValue::String(hi.1.into()))
                    }
                    _ => (EnvValue::Unknown, EnvValue::Unknown),
                }
            }
            Some(EnvValue::Absent) => (EnvValue::Absent, EnvValue::Absent),
            _ => (EnvValue::Unknown, EnvValue::Unknown),
        };
        let src = Field::CudaComputeCapabilities;
        set_derived(facts, Field::CudaComputeCapability, min, src);
        set_derived(facts, Field::CudaComputeCapabilityMax, max, src);
    } else if ov(Field::CudaComputeCapability) != ov(Field::CudaComputeCapabilityMax) {
        // One scalar alone: with the minimum, the set is that one capability (SPEC §10.3); the
        // maximum alone says nothing of the others, which are then Unknown.
        let src = if ov(Field::CudaComputeCapability) {
            Field::CudaComputeCapability
        } else {
            Field::CudaComputeCapabilityMax
        };
        let value = cc(facts, src);
        let (set, scalar) = match value {
            Some(EnvValue::Absent) => (EnvValue::Absent, EnvValue::Absent),
            Some(EnvValue::String(s)) if src == Field::CudaComputeCapability => {
                (EnvValue::Set(vec![s.clone()]), EnvValue::String(s))
            }
            _ => (EnvValue::Unknown, EnvValue::Unknown),
        };
        let other = if src == Field::CudaComputeCapability {
            Field::CudaComputeCapabilityMax
        } else {
            Field::CudaComputeCapability
        };
        set_derived(facts, Field::CudaComputeCapabilities, set, src);
        set_derived(facts, other, scalar, src);
    }
    // A stack's defining field and its `gpu_backends` member.
    if ov(Field::GpuBackends) {
        let backends = facts.value(Field::GpuBackends).cloned();
        let listed = |m: &str| match &backends {
            Some(EnvValue::Set(items)) => Some(items.iter().any(|i| &**i == m)),
            Some(EnvValue::Absent) => Some(false),
            _ => None,
        };
        let cuda_fields: &[Field] = &[
            Field::CudaVersion,
            Field::CudaComputeCapabilities,
            Field::CudaComputeCapability,
            Field::CudaComputeCapabilityMax,
        ];
        for (member, defining, fields) in [
            ("cuda", Field::CudaVersion, cuda_fields),
            ("rocm", Field::RocmGpuArchs, &[Field::RocmGpuArchs][..]),
        ] {
            match listed(member) {
                Some(false) => {
                    for &f in fields {
                        set_derived(facts, f, EnvValue::Absent, Field::GpuBackends);
                    }
                }
                Some(true) if presence(facts.value(defining)) == Some(false) => {
                    // The override asserts a stack without saying which version.
                    set_derived(facts, defining, EnvValue::Unknown, Field::GpuBackends);
                }
                _ => {}
            }
        }
    } else {
        for (member, field) in [("cuda", Field::CudaVersion), ("rocm", Field::RocmGpuArchs)] {
            if ov(field)
                && request.contains(Field::GpuBackends)
                && let Some(present) = presence(facts.value(field))
            {
                let var = from(facts, field).method().to_owned();
                couple(facts, member, present, &var);
            }
        }
    }
    if ov(Field::CudaVersion) && presence(facts.value(Field::CudaVersion)) == Some(false) {
        for f in CC_FIELDS {
            set_derived(facts, f, EnvValue::Absent, Field::CudaVersion);
        }
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
        self.entries
            .iter()
            .flat_map(|(f, var, _)| {
                if var == CONDA_OVERRIDE_CUDA_ARCH {
                    CC_FIELDS.to_vec()
                } else {
                    vec![*f]
                }
            })
            .collect()
    }

    fn provide(&self, _request: FieldSet) -> Result<Facts, ProviderError> {
        self.facts()
    }
}

/// Whether this process runs set-user-ID or set-group-ID (its effective user or group differs
/// from the real one), in which case override variables must be ignored: the same answer as
/// [`markerspec_process::is_set_id`], which the GPU probe consults too.
///
/// ```
/// use markerspec_env::{Overrides, process_is_setid};
///
/// let overrides = Overrides::from_vars_os(std::env::vars_os()).setid(process_is_setid());
/// # let _ = overrides;
/// ```
pub fn process_is_setid() -> bool {
    markerspec_process::is_set_id()
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

    /// SPEC §4.3: an extended `Version` override outside R is `invalid-override`, whichever
    /// variable sets it.
    #[test]
    fn version_overrides_are_release_only() {
        for (var, value) in [
            ("MARKERSPEC_CUDA_VERSION", "12.8rc1"),
            ("MARKERSPEC_GLIBC_VERSION", "2.35.post1"),
            ("MARKERSPEC_NVIDIA_DRIVER_VERSION", "1!550.1"),
            ("CONDA_OVERRIDE_CUDA", "12.4+local"),
        ] {
            let err = Overrides::from_vars([(var, value)])
                .apply(&mut base(EnvValue::Absent), fact_fields())
                .unwrap_err();
            assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride, "{var}");
            assert!(err.to_string().contains("release-only"), "{var}: {err}");
        }
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([("CONDA_OVERRIDE_CUDA", "12.4")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(
            facts.value(Field::CudaVersion),
            Some(&EnvValue::String("12.4".into()))
        );
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
        // An explicit MARKERSPEC_GPU_BACKENDS turns the coupling off; one that contradicts
        // the version breaks I1 and is refused (SPEC 0.2 §4.4).
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
            ("MARKERSPEC_GPU_BACKENDS", "cuda,rocm"),
        ])
        .apply(&mut facts, fact_fields())
        .unwrap();
        assert_eq!(
            facts.value(Field::GpuBackends),
            Some(&set(&["cuda", "rocm"]))
        );
        let err = Overrides::from_vars([
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
            ("MARKERSPEC_GPU_BACKENDS", "rocm"),
        ])
        .apply(&mut base(EnvValue::Absent), fact_fields())
        .unwrap_err();
        assert!(err.to_string().contains("I1"), "{err}");
        // rocm_gpu_archs couples to rocm (SPEC 0.2); rocm_version, a user-space fact, does not.
        let mut facts = base(set(&["cuda"]));
        facts.known(Field::CudaVersion, "12.4", Provenance::new("cuda", "test"));
        Overrides::from_vars([("MARKERSPEC_ROCM_GPU_ARCHS", "gfx90a")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(
            facts.value(Field::GpuBackends),
            Some(&set(&["cuda", "rocm"]))
        );
        let mut facts = base(EnvValue::Absent);
        Overrides::from_vars([("MARKERSPEC_ROCM_VERSION", "6.3.1")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
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
        // Tests do not run set-ID.
        assert!(!process_is_setid());
    }

    /// A GPU-less Linux login node: every GPU field Absent, glibc 2.28.
    fn login_node() -> Facts {
        let mut facts = Facts::new();
        let p = Provenance::new("gpu", "test");
        for field in [
            Field::GpuBackends,
            Field::CudaVersion,
            Field::CudaComputeCapability,
            Field::CudaComputeCapabilities,
            Field::CudaComputeCapabilityMax,
            Field::CudnnVersion,
            Field::CudnnCudaVersion,
            Field::RocmGpuArchs,
            Field::MuslVersion,
        ] {
            facts.absent(field, p.clone());
        }
        facts.known(Field::GlibcVersion, "2.28", Provenance::new("host", "test"));
        facts
    }

    fn apply(vars: &[(&str, &str)]) -> Result<Facts, ProviderError> {
        let mut facts = login_node();
        Overrides::from_vars(vars.iter().copied())
            .linux(true)
            .apply(&mut facts, fact_fields())?;
        Ok(facts)
    }

    #[test]
    fn conda_override_glibc_on_linux_only() {
        let facts = apply(&[("CONDA_OVERRIDE_GLIBC", "2.17")]).unwrap();
        assert_eq!(facts.string(Field::GlibcVersion), Some("2.17"));
        let p = &facts.get(Field::GlibcVersion).unwrap().provenance;
        assert_eq!(p.method(), "CONDA_OVERRIDE_GLIBC");
        // Empty: Absent, as CONDA_OVERRIDE_CUDA.
        let facts = apply(&[("CONDA_OVERRIDE_GLIBC", "")]).unwrap();
        assert_eq!(facts.value(Field::GlibcVersion), Some(&EnvValue::Absent));
        // The MARKERSPEC_ variable wins.
        let facts = apply(&[
            ("CONDA_OVERRIDE_GLIBC", "2.17"),
            ("MARKERSPEC_GLIBC_VERSION", "2.34"),
        ])
        .unwrap();
        assert_eq!(facts.string(Field::GlibcVersion), Some("2.34"));
        let err = apply(&[("CONDA_OVERRIDE_GLIBC", "glibc-2")]).unwrap_err();
        assert!(err.to_string().contains("CONDA_OVERRIDE_GLIBC"), "{err}");
        // Elsewhere: ignored with a warning.
        let mut facts = login_node();
        Overrides::from_vars([("CONDA_OVERRIDE_GLIBC", "2.17")])
            .linux(false)
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.string(Field::GlibcVersion), Some("2.28"));
        assert!(
            facts.warnings()[0].starts_with("override-ignored: CONDA_OVERRIDE_GLIBC"),
            "{:?}",
            facts.warnings()
        );
        // A musl override makes glibc Absent (I5).
        let facts = apply(&[("MARKERSPEC_MUSL_VERSION", "1.2.5")]).unwrap();
        assert_eq!(facts.value(Field::GlibcVersion), Some(&EnvValue::Absent));
        assert_eq!(
            facts
                .get(Field::GlibcVersion)
                .unwrap()
                .provenance
                .to_string(),
            "override (MARKERSPEC_MUSL_VERSION): derived from `musl_version`"
        );
    }

    #[test]
    fn conda_override_cuda_arch() {
        // With CUDA: the set, the minimum and the maximum; the build string is ignored.
        let facts = apply(&[
            ("CONDA_OVERRIDE_CUDA", "12.4"),
            ("CONDA_OVERRIDE_CUDA_ARCH", "9.0=sm_90a"),
        ])
        .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&set(&["cuda"])));
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            Some(&set(&["9.0"]))
        );
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("9.0"));
        assert_eq!(facts.string(Field::CudaComputeCapabilityMax), Some("9.0"));
        assert_eq!(
            facts
                .get(Field::CudaComputeCapabilityMax)
                .unwrap()
                .provenance
                .method(),
            "CONDA_OVERRIDE_CUDA_ARCH"
        );
        let arch = Overrides::from_vars([("CONDA_OVERRIDE_CUDA_ARCH", "9.0")]);
        assert_eq!(arch.fields(), CC_FIELDS.into_iter().collect());
        // Without `cuda_version` it means nothing (CEP 46): ignored, with a warning.
        let facts = apply(&[("CONDA_OVERRIDE_CUDA_ARCH", "9.0")]).unwrap();
        assert_eq!(
            facts.value(Field::CudaComputeCapability),
            Some(&EnvValue::Absent)
        );
        assert!(
            facts.warnings()[0].starts_with("override-ignored: CONDA_OVERRIDE_CUDA_ARCH"),
            "{:?}",
            facts.warnings()
        );
        // Empty is Absent.
        let facts = apply(&[
            ("CONDA_OVERRIDE_CUDA", "12.4"),
            ("CONDA_OVERRIDE_CUDA_ARCH", ""),
        ])
        .unwrap();
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            Some(&EnvValue::Absent)
        );
        // Invalid values name the variable.
        for bad in ["sm_90", "90", "9.0=", "9"] {
            let err = apply(&[
                ("CONDA_OVERRIDE_CUDA", "12.4"),
                ("CONDA_OVERRIDE_CUDA_ARCH", bad),
            ]);
            if bad == "9.0=" {
                assert!(err.is_ok(), "an empty build string is a build string");
                continue;
            }
            let err = err.unwrap_err();
            assert!(
                err.to_string().contains("CONDA_OVERRIDE_CUDA_ARCH"),
                "{bad}: {err}"
            );
        }
        // A MARKERSPEC_ compute-capability variable wins over it entirely.
        let facts = apply(&[
            ("CONDA_OVERRIDE_CUDA", "12.4"),
            ("CONDA_OVERRIDE_CUDA_ARCH", "9.0"),
            ("MARKERSPEC_CUDA_COMPUTE_CAPABILITIES", "8.6,10.0"),
        ])
        .unwrap();
        assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.6"));
        assert_eq!(facts.string(Field::CudaComputeCapabilityMax), Some("10.0"));
    }

    #[test]
    fn derivations_keep_the_invariants() {
        // gpu_backends with cuda on a machine without a driver: the version is Unknown.
        let facts = apply(&[("MARKERSPEC_GPU_BACKENDS", "cuda")]).unwrap();
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
        // An empty cuda_version takes the devices with it.
        let mut facts = login_node();
        facts.known(Field::CudaVersion, "12.8", Provenance::new("cuda", "test"));
        facts.known_set(Field::GpuBackends, ["cuda"], Provenance::new("gpu", "test"));
        facts.known_set(
            Field::CudaComputeCapabilities,
            ["9.0"],
            Provenance::new("cuda", "test"),
        );
        facts.known(
            Field::CudaComputeCapability,
            "9.0",
            Provenance::new("cuda", "t"),
        );
        facts.known(
            Field::CudaComputeCapabilityMax,
            "9.0",
            Provenance::new("cuda", "t"),
        );
        Overrides::from_vars([("MARKERSPEC_CUDA_VERSION", "")])
            .apply(&mut facts, fact_fields())
            .unwrap();
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        for f in CC_FIELDS {
            assert_eq!(facts.value(f), Some(&EnvValue::Absent), "{f}");
        }
        // The minimum alone: the set is that capability.
        let facts = apply(&[
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
            ("MARKERSPEC_CUDA_COMPUTE_CAPABILITY", "8.6"),
        ])
        .unwrap();
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            Some(&set(&["8.6"]))
        );
        assert_eq!(facts.string(Field::CudaComputeCapabilityMax), Some("8.6"));
        // cuDNN: its CUDA version is Unknown when set, Absent when empty.
        let facts = apply(&[("MARKERSPEC_CUDNN_VERSION", "9.1.0")]).unwrap();
        assert_eq!(
            facts.value(Field::CudnnCudaVersion),
            Some(&EnvValue::Unknown)
        );
        // Variant properties give the features and namespaces.
        let facts = apply(&[
            ("MARKERSPEC_VARIANT_LABEL", "cu128"),
            (
                "MARKERSPEC_VARIANT_PROPERTIES",
                "nvidia::sm_arch::90_real,nvidia::cuda_version_lower_bound::12.8",
            ),
        ])
        .unwrap();
        assert_eq!(
            facts.value(Field::VariantFeatures),
            Some(&set(&[
                "nvidia :: cuda_version_lower_bound",
                "nvidia :: sm_arch"
            ]))
        );
        assert_eq!(
            facts.value(Field::VariantNamespaces),
            Some(&set(&["nvidia"]))
        );
    }

    #[test]
    fn an_override_that_breaks_an_invariant_is_invalid() {
        for (vars, invariant) in [
            (
                &[
                    ("MARKERSPEC_GPU_BACKENDS", "cuda"),
                    ("MARKERSPEC_CUDA_VERSION", ""),
                ][..],
                "I1",
            ),
            (&[("MARKERSPEC_CUDA_COMPUTE_CAPABILITY", "9.0")][..], "I2"),
            (
                &[
                    ("MARKERSPEC_CUDA_VERSION", "12.4"),
                    ("MARKERSPEC_CUDA_COMPUTE_CAPABILITIES", "8.6,9.0"),
                    ("MARKERSPEC_CUDA_COMPUTE_CAPABILITY", "9.0"),
                ][..],
                "I2",
            ),
            (
                &[
                    ("MARKERSPEC_GLIBC_VERSION", "2.35"),
                    ("MARKERSPEC_MUSL_VERSION", "1.2.5"),
                ][..],
                "I5",
            ),
        ] {
            let err = apply(vars).unwrap_err();
            assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride, "{vars:?}");
            let text = err.to_string();
            assert!(
                text.contains(&format!("{invariant} (SPEC §4.4)")),
                "{vars:?}: {text}"
            );
            assert!(text.contains(vars[0].0), "{vars:?}: {text}");
        }
    }

    /// A machine with one H100, as detection reports it.
    fn gpu_node() -> Facts {
        let mut facts = login_node();
        let p = Provenance::new("gpu", "test");
        facts.known(Field::CudaVersion, "12.8", p.clone());
        facts.known_set(Field::GpuBackends, ["cuda"], p.clone());
        facts.known_set(Field::CudaComputeCapabilities, ["9.0"], p.clone());
        facts.known(Field::CudaComputeCapability, "9.0", p.clone());
        facts.known(Field::CudaComputeCapabilityMax, "9.0", p);
        facts
    }

    fn values(env: &Environment) -> Vec<(Field, EnvValue)> {
        env.iter().map(|(f, v)| (f, v.clone())).collect()
    }

    /// The settings that say what the variables say (`MARKERSPEC_<FIELD>` only).
    fn settings_of(vars: &[(&str, &str)]) -> Vec<(Field, EnvValue)> {
        vars.iter()
            .map(|(var, raw)| {
                let field = Field::ALL
                    .iter()
                    .copied()
                    .find(|f| override_variable(*f).as_deref() == Some(*var))
                    .unwrap();
                (field, parse_override(field, raw).unwrap())
            })
            .collect()
    }

    #[test]
    fn settings_derive_as_the_override_variables_do() {
        let cases: &[&[(&str, &str)]] = &[
            &[("MARKERSPEC_CUDA_VERSION", "")],
            &[("MARKERSPEC_CUDA_VERSION", "12.4")],
            &[("MARKERSPEC_GPU_BACKENDS", "rocm")],
            &[("MARKERSPEC_GPU_BACKENDS", "")],
            &[("MARKERSPEC_CUDA_COMPUTE_CAPABILITIES", "8.6,10.0")],
            &[("MARKERSPEC_CUDA_COMPUTE_CAPABILITY", "8.0")],
            &[("MARKERSPEC_ROCM_GPU_ARCHS", "gfx90a")],
            &[("MARKERSPEC_MUSL_VERSION", "1.2.5")],
            &[("MARKERSPEC_CUDNN_VERSION", "9.1.0")],
            &[("MARKERSPEC_CUDNN_VERSION", "")],
            &[(
                "MARKERSPEC_VARIANT_PROPERTIES",
                "nvidia::sm_arch::90_real,x86_64::level::v3",
            )],
        ];
        for start in [login_node(), gpu_node()] {
            for vars in cases {
                let mut by_vars = start.clone();
                let from_vars = Overrides::from_vars(vars.iter().copied())
                    .linux(true)
                    .apply(&mut by_vars, fact_fields());
                let mut env = start.to_environment();
                let from_settings = apply_settings(&mut env, &settings_of(vars));
                match (from_vars, from_settings) {
                    (Ok(()), Ok(())) => {
                        assert_eq!(values(&env), values(&by_vars.to_environment()), "{vars:?}");
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a.kind(), b.kind(), "{vars:?}");
                        assert_eq!(
                            a.message().split(';').next(),
                            b.message().split(';').next(),
                            "{vars:?}"
                        );
                    }
                    (a, b) => panic!("{vars:?}: variables {a:?}, settings {b:?}"),
                }
            }
        }
        // The derived values are the ones the table names.
        let mut env = gpu_node().to_environment();
        apply_settings(&mut env, &[(Field::CudaVersion, EnvValue::Absent)]).unwrap();
        assert_eq!(env.get(Field::GpuBackends), Some(&EnvValue::Absent));
        for f in CC_FIELDS {
            assert_eq!(env.get(f), Some(&EnvValue::Absent), "{f}");
        }
        let mut env = gpu_node().to_environment();
        apply_settings(&mut env, &[(Field::GpuBackends, set(&["rocm"]))]).unwrap();
        // ROCm asserted without its targets: they are Unknown, not guessed.
        assert_eq!(env.get(Field::RocmGpuArchs), Some(&EnvValue::Unknown));
        assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
        let mut env = gpu_node().to_environment();
        apply_settings(
            &mut env,
            &[
                (Field::GpuBackends, set(&["rocm"])),
                (Field::RocmGpuArchs, set(&["gfx90a"])),
            ],
        )
        .unwrap();
        assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(
            env.get(Field::CudaComputeCapabilityMax),
            Some(&EnvValue::Absent)
        );
    }

    #[test]
    fn settings_that_break_an_invariant_are_invalid_and_change_nothing() {
        for (settings, invariant, named) in [
            (
                vec![
                    (Field::GpuBackends, EnvValue::Absent),
                    (Field::CudaVersion, EnvValue::String("12.4".into())),
                ],
                "I1",
                "`gpu_backends`",
            ),
            (
                vec![
                    (Field::CudaComputeCapabilities, set(&["8.6", "9.0"])),
                    (Field::CudaComputeCapability, EnvValue::String("9.0".into())),
                ],
                "I2",
                "`cuda_compute_capability`",
            ),
            (
                vec![
                    (Field::GlibcVersion, EnvValue::String("2.35".into())),
                    (Field::MuslVersion, EnvValue::String("1.2.5".into())),
                ],
                "I5",
                "`musl_version`",
            ),
        ] {
            let mut env = gpu_node().to_environment();
            let err = apply_settings(&mut env, &settings).unwrap_err();
            assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride);
            assert_eq!(err.code(), ProviderErrorKind::InvalidOverride.code());
            let text = err.message();
            assert!(
                text.starts_with(&format!("invalid-override: {invariant} (SPEC §4.4)")),
                "{text}"
            );
            assert!(text.contains(named), "{text}");
            assert_eq!(
                values(&env),
                values(&gpu_node().to_environment()),
                "unchanged on error"
            );
        }
        // Values are checked as overrides are: release-only versions, set-member formats.
        let mut env = gpu_node().to_environment();
        for bad in [
            (Field::CudaVersion, EnvValue::String("12.8rc1".into())),
            (Field::GpuBackends, set(&["CUDA!"])),
            (Field::Extra, EnvValue::String("gpu".into())),
        ] {
            let err = apply_settings(&mut env, std::slice::from_ref(&bad)).unwrap_err();
            assert_eq!(err.kind(), ProviderErrorKind::InvalidOverride, "{bad:?}");
        }
        // Unknown satisfies every invariant.
        apply_settings(&mut env, &[(Field::CudaVersion, EnvValue::Unknown)]).unwrap();
        assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Unknown));
        assert_eq!(env.get(Field::GpuBackends), Some(&set(&["cuda"])));
    }
}
