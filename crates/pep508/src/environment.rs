//! The marker environment: a typed value (or Absent, or Unknown) per field, plus the extras
//! being requested.

use std::fmt;

use markerspec_pep440::Version;

use crate::field::{Field, FieldType};
use crate::name::normalize_name;

/// The value of one field in an [`Environment`].
///
/// Set-valued fields hold [`EnvValue::Set`]; every other field holds [`EnvValue::String`],
/// even version-typed ones (the evaluator reads the version out of the string, as the
/// specification says).
///
/// ```
/// use markerspec_pep508::{Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions};
///
/// let opts = ParseOptions::default().dialect(Dialect::Extended);
/// let m = MarkerTree::parse_with(r#""cuda" in gpu_backends"#, &opts, &mut Vec::new())?;
/// let mut env = Environment::new();
/// env.set(Field::GpuBackends, EnvValue::Set(vec!["cuda".into()])).unwrap();
/// assert!(m.evaluate(&env)?);
/// env.set(Field::GpuBackends, EnvValue::Absent).unwrap(); // no GPU: the empty set
/// assert!(!m.evaluate(&env)?);
/// env.set(Field::GpuBackends, EnvValue::Unknown).unwrap(); // detection failed
/// assert!(m.evaluate(&env).is_err()); // E004 under the default policy
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EnvValue {
    /// A known string value.
    String(Box<str>),
    /// A known set of strings.
    Set(Vec<Box<str>>),
    /// Known not to exist here: no GPU, so no `cuda_version`. On an extended field it is the
    /// absent value of `spec/SPEC.md` §4.3: it equals only `""`, so `!=` and `not in` are true
    /// on it and every other comparison but `field == ""` is false; an absent set is the empty
    /// set.
    Absent,
    /// Could not be determined (detection failed or timed out, or the target is only partly
    /// known). Comparisons with it are unknown.
    Unknown,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    value: Option<EnvValue>,
    /// The value read as a PEP 440 version, for version-typed fields.
    version: Option<Version>,
}

/// What the evaluator knows about the target environment.
///
/// Each field holds a value, [`EnvValue::Absent`], [`EnvValue::Unknown`], or nothing. A field
/// with nothing is Unknown under the `spec-2026` profile and an error (`E001`) under the
/// `packaging` profile, as `UndefinedEnvironmentName` is there; `extras` and
/// `dependency_groups` with nothing are the empty set. The `extra` variable reads
/// [`Environment::extras`], the extras being requested (none by default).
///
/// ```
/// use markerspec_pep508::{EnvValue, Environment, Field, MarkerTree};
/// let env = Environment::new()
///     .with(Field::PythonVersion, "3.12")?
///     .with(Field::SysPlatform, "linux")?
///     .with_extras(["Test"]);
/// let m: MarkerTree = "python_version >= '3.10' and extra == 'test'".parse()?;
/// assert!(m.evaluate(&env)?);
/// assert!(env.extras().eq(["test"])); // normalised
///
/// // Values one by one: sets, Absent, and none at all.
/// let mut env = Environment::new();
/// env.set(Field::GpuBackends, EnvValue::Set(vec!["cuda".into()]))?;
/// env.set(Field::CudaVersion, EnvValue::Absent)?;
/// env.set(Field::OsName, EnvValue::String("posix".into()))?;
/// assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Absent));
/// env.unset(Field::OsName);
/// assert_eq!(env.get(Field::OsName), None);
/// let fields: Vec<Field> = env.iter().map(|(field, _)| field).collect();
/// assert_eq!(fields, [Field::GpuBackends, Field::CudaVersion]); // registry order
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct Environment {
    slots: Vec<Slot>,
    extras: Vec<Box<str>>,
}

/// What one evaluation reads: the values of an [`Environment`] and the extras requested for
/// this evaluation (the environment's own, or those passed to
/// [`Requirement::evaluate`](crate::Requirement::evaluate)), so that a resolver evaluating one
/// requirement with several sets of extras never copies the environment.
#[derive(Clone, Copy)]
pub(crate) struct EvalEnv<'a> {
    values: &'a Environment,
    extras: &'a [Box<str>],
}

impl<'a> EvalEnv<'a> {
    /// `env`'s values with `extras` (normalised, sorted, without repeats) requested.
    pub(crate) fn with_extras(env: &'a Environment, extras: &'a [Box<str>]) -> EvalEnv<'a> {
        EvalEnv {
            values: env,
            extras,
        }
    }

    #[inline]
    pub(crate) fn get(&self, field: Field) -> Option<&'a EnvValue> {
        self.values.get(field)
    }

    #[inline]
    pub(crate) fn version(&self, field: Field) -> Option<&'a Version> {
        self.values.version(field)
    }

    #[inline]
    pub(crate) fn extras_slice(&self) -> &'a [Box<str>] {
        self.extras
    }
}

/// A value that does not fit its field, e.g. a list for `python_version`.
///
/// ```
/// use markerspec_pep508::{EnvValue, Environment, Field};
///
/// let err = Environment::new().with(Field::PythonVersion, "three").unwrap_err();
/// assert_eq!(err.field, Field::PythonVersion);
/// let mut env = Environment::new();
/// assert!(env.set(Field::OsName, EnvValue::Set(vec!["posix".into()])).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvError {
    /// The field.
    pub field: Field,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value for `{}`: {}", self.field, self.reason)
    }
}

impl std::error::Error for EnvError {}

impl Environment {
    /// An environment with no values and no extras requested.
    ///
    /// See the example on [`Environment`].
    pub fn new() -> Environment {
        Environment {
            slots: vec![Slot::default(); Field::COUNT],
            extras: Vec::new(),
        }
    }

    fn slots_mut(&mut self) -> &mut Vec<Slot> {
        if self.slots.len() != Field::COUNT {
            self.slots.resize(Field::COUNT, Slot::default());
        }
        &mut self.slots
    }

    /// Sets a string (or, for a set field, a comma-separated list), checked where it is set as
    /// overrides and `--set` are ([`EnvValue::from_text`]) and, for the standard version
    /// fields, as a PEP 440 version: a value that could only make comparisons silently false
    /// is an error here rather than a wrong answer later.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field};
    /// let env = Environment::new()
    ///     .with(Field::PythonVersion, "3.12")?
    ///     .with(Field::GpuBackends, "cuda,rocm")?;
    /// assert!(env.clone().with(Field::PythonVersion, "abc").is_err());
    /// # Ok::<(), markerspec_pep508::EnvError>(())
    /// ```
    ///
    /// This is the checked form; [`Environment::with_unchecked`] stores any string as given
    /// (for values no detector reports, such as a test of how a malformed version compares).
    ///
    /// # Errors
    /// A value that does not fit the field's format.
    pub fn with(mut self, field: Field, value: &str) -> Result<Environment, EnvError> {
        if field.field_type() == FieldType::Version && !field.is_extended() {
            value.trim().parse::<Version>().map_err(|e| EnvError {
                field,
                reason: format!("`{value}` is not a PEP 440 version: {e}"),
            })?;
        }
        let value = EnvValue::from_text(field, value)?;
        self.set(field, value)?;
        Ok(self)
    }

    /// Sets a string value as given, without the checks of [`Environment::with`]: a string for
    /// a set field is stored as a one-element set, and a version field may hold a string that
    /// is no version (its comparisons then follow the profile's rules for such values). Use
    /// [`Environment::set`] for sets, Absent and Unknown.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field, MarkerTree};
    /// let env = Environment::new().with_unchecked(Field::PythonFullVersion, "3.13.1+");
    /// let m: MarkerTree = "python_full_version == '3.13.1+'".parse().unwrap();
    /// assert!(m.evaluate(&env).unwrap());
    /// ```
    #[must_use]
    pub fn with_unchecked(mut self, field: Field, value: impl Into<String>) -> Environment {
        let value: String = value.into();
        let v = if field.field_type() == FieldType::Set {
            EnvValue::Set(vec![value.into()])
        } else {
            EnvValue::String(value.into())
        };
        // A string always fits: a set field gets a one-element set.
        let _ = self.set(field, v);
        self
    }

    /// Sets the value of `field`.
    ///
    /// # Errors
    /// A set for a field that is not set-valued, or a string for a set-valued field.
    ///
    /// See the example on [`Environment`].
    pub fn set(&mut self, field: Field, value: EnvValue) -> Result<(), EnvError> {
        let ty = field.field_type();
        match (&value, ty) {
            (EnvValue::Set(_), t) if t != FieldType::Set => {
                return Err(EnvError {
                    field,
                    reason: format!("a list was given, but `{field}` holds a single string"),
                });
            }
            (EnvValue::String(_), FieldType::Set) => {
                return Err(EnvError {
                    field,
                    reason: format!("a string was given, but `{field}` holds a list of strings"),
                });
            }
            _ => {}
        }
        let version = match &value {
            EnvValue::String(s)
                if matches!(ty, FieldType::Version | FieldType::VersionOrString) =>
            {
                s.parse::<Version>().ok()
            }
            _ => None,
        };
        let value = match value {
            // Set members of `extras` and `dependency_groups` compare normalised (PEP 685, 735).
            EnvValue::Set(items) if matches!(field, Field::Extras | Field::DependencyGroups) => {
                EnvValue::Set(
                    items
                        .iter()
                        .map(|s| normalize_name(s).into_boxed_str())
                        .collect(),
                )
            }
            v => v,
        };
        self.slots_mut()[field.index()] = Slot {
            value: Some(value),
            version,
        };
        Ok(())
    }

    /// Removes the value of `field`, so that it has none: the evaluator reads it as Unknown
    /// under the `spec-2026` profile, standard and extended fields alike, and as an error
    /// (`E001`, packaging's `UndefinedEnvironmentName`) under the `packaging` profile (`extras`
    /// and `dependency_groups` with none are the empty set). To make a field Absent,
    /// [`set`](Environment::set) it to [`EnvValue::Absent`].
    ///
    /// See the example on [`Environment`].
    pub fn unset(&mut self, field: Field) {
        self.slots_mut()[field.index()] = Slot::default();
    }

    /// The value of `field` as given, or `None` when none was given.
    ///
    /// See the example on [`Environment`].
    pub fn get(&self, field: Field) -> Option<&EnvValue> {
        self.slots.get(field.index()).and_then(|s| s.value.as_ref())
    }

    /// The value of a version-typed field, parsed, when it is a valid PEP 440 version.
    pub(crate) fn version(&self, field: Field) -> Option<&Version> {
        self.slots
            .get(field.index())
            .and_then(|s| s.version.as_ref())
    }

    /// Sets the extras being requested; `extra == "x"` is true when `x` is one of them.
    /// Names are compared normalised.
    ///
    /// See the example on [`Environment`].
    #[must_use]
    pub fn with_extras<I, S>(mut self, extras: I) -> Environment
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.extras = extras
            .into_iter()
            .map(|s| normalize_name(s.as_ref()).into_boxed_str())
            .collect();
        self.extras.sort();
        self.extras.dedup();
        self
    }

    /// The extras being requested, normalised.
    ///
    /// See the example on [`Environment`].
    pub fn extras(&self) -> impl Iterator<Item = &str> {
        self.extras.iter().map(|s| &**s)
    }

    /// The environment as the evaluator reads it, with its own requested extras.
    #[inline]
    pub(crate) fn eval(&self) -> EvalEnv<'_> {
        EvalEnv {
            values: self,
            extras: &self.extras,
        }
    }

    /// Every field that has a value, in registry order.
    ///
    /// See the example on [`Environment`].
    pub fn iter(&self) -> impl Iterator<Item = (Field, &EnvValue)> {
        Field::ALL
            .iter()
            .filter_map(|f| self.get(*f).map(|v| (*f, v)))
    }
}

impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for (field, v) in self.iter() {
            m.entry(&field.name(), v);
        }
        if !self.extras.is_empty() {
            m.entry(&"(requested extras)", &self.extras);
        }
        m.finish()
    }
}

/// One value of an environment document (`spec/SPEC.md` §11) as written: what
/// [`Environment::from_document`] reads, and what tools that pass documents on unchanged (the
/// conformance runner, a lock file) hold. In JSON: `null`, a string or a list of strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DocValue {
    /// `null`: Unknown.
    Unknown,
    /// A string; `""` is Absent for an extended field and the empty string for a standard one.
    String(String),
    /// A list of strings (set fields, `extra`); `[]` is Absent for an extended field.
    List(Vec<String>),
}

/// An environment document (`spec/SPEC.md` §11) as written: field name → value, in key order.
/// Read it into an [`Environment`] with [`Environment::from_document`].
pub type EnvDocument = std::collections::BTreeMap<String, DocValue>;

#[cfg(feature = "serde")]
impl serde::Serialize for DocValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DocValue::Unknown => s.serialize_none(),
            DocValue::String(v) => s.serialize_str(v),
            DocValue::List(v) => serde::Serialize::serialize(v, s),
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for DocValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DocValue, D::Error> {
        use serde::de::Error as _;
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Str(String),
            List(Vec<String>),
        }
        match Option::<Raw>::deserialize(d) {
            Ok(None) => Ok(DocValue::Unknown),
            Ok(Some(Raw::Str(s))) => Ok(DocValue::String(s)),
            Ok(Some(Raw::List(items))) => Ok(DocValue::List(items)),
            Err(_) => Err(D::Error::custom(
                "an environment value is a string, a list of strings or null",
            )),
        }
    }
}

impl Environment {
    /// Builds an environment from the entries of a `spec/SPEC.md` §11 document (an
    /// [`EnvDocument`], or any field name → [`DocValue`] pairs). `extra` sets the requested
    /// extras; extended values are checked and canonicalised ([`EnvValue::checked`]); `$version`,
    /// the document's specification version, is skipped (`markerspec-env`'s reader checks it);
    /// any other unknown key is an error that names it.
    ///
    /// ```
    /// use markerspec_pep508::{DocValue, EnvDocument, EnvValue, Environment, Field};
    /// let doc = EnvDocument::from([
    ///     ("python_version".into(), DocValue::String("3.12".into())),
    ///     ("gpu_backends".into(), DocValue::List(vec!["cuda".into()])),
    ///     ("cuda_version".into(), DocValue::Unknown),
    ///     ("glibc_version".into(), DocValue::String("".into())),
    /// ]);
    /// let env = Environment::from_document(&doc).unwrap();
    /// assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Unknown));
    /// assert_eq!(env.get(Field::GlibcVersion), Some(&EnvValue::Absent));
    /// ```
    ///
    /// # Errors
    /// An unknown key, or a value that does not fit its field, in words.
    pub fn from_document<'a, K, I>(entries: I) -> Result<Environment, String>
    where
        K: AsRef<str> + 'a,
        I: IntoIterator<Item = (K, &'a DocValue)>,
    {
        let mut env = Environment::new();
        for (key, value) in entries {
            let key = key.as_ref();
            if key == "$version" {
                continue;
            }
            let Some(field) = Field::from_canonical_name(key) else {
                return Err(format!("unknown marker field `{key}` in the environment"));
            };
            if field == Field::Extra {
                env = match value {
                    DocValue::Unknown => env.with_extras(&[] as &[&str]),
                    DocValue::String(s) if s.is_empty() => env.with_extras(&[] as &[&str]),
                    DocValue::String(s) => env.with_extras([s]),
                    DocValue::List(items) => env.with_extras(items),
                };
                continue;
            }
            let value = match value {
                DocValue::Unknown => EnvValue::Unknown,
                DocValue::String(s) if s.is_empty() && field.is_extended() => EnvValue::Absent,
                DocValue::List(items) if items.is_empty() && field.is_extended() => {
                    EnvValue::Absent
                }
                DocValue::String(s) => EnvValue::String(s.as_str().into()),
                DocValue::List(items) => {
                    EnvValue::Set(items.iter().map(|s| s.as_str().into()).collect())
                }
            };
            let value = value.checked(field).map_err(|e| e.to_string())?;
            env.set(field, value).map_err(|e| e.to_string())?;
        }
        Ok(env)
    }
}

/// Reads the environment document of `spec/SPEC.md` §11 ([`EnvDocument`],
/// [`Environment::from_document`]): a JSON object of field name → string (a list of strings
/// for set fields and `extra`), `null` for Unknown.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Environment {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let doc = EnvDocument::deserialize(d)?;
        Environment::from_document(&doc).map_err(D::Error::custom)
    }
}

impl EnvValue {
    /// Checks a value of `field` against the field registry ([`Field::format`]) and returns it
    /// canonical: a list for a set field and a string otherwise; extended versions must be PEP
    /// 440 versions (trimmed) and release-only, `N(.N)*` (§4.3); set members must have the field's format (variant strings
    /// re-spaced, names normalised, duplicates collapsed, PEP 780's exclusive pairs refused);
    /// `interpreter_arch` is mapped through the table of §8.3; an empty extended set is Absent.
    /// Standard string and version values are kept as given. Absent and Unknown pass.
    ///
    /// Environment documents, the `MARKERSPEC_<FIELD>` overrides and the command line's
    /// `--set` all check values here.
    ///
    /// ```
    /// use markerspec_pep508::{EnvValue, Field};
    /// let v = EnvValue::Set(vec!["gil-enabled".into(), "64-bit".into()]);
    /// assert!(v.checked(Field::SysAbiFeatures).is_ok());
    /// let bad = EnvValue::String("twelve".into()).checked(Field::CudaVersion).unwrap_err();
    /// assert!(bad.to_string().contains("is not a PEP 440 version"));
    /// let pre = EnvValue::String("12.8rc1".into()).checked(Field::CudaVersion).unwrap_err();
    /// assert!(pre.to_string().contains("release-only"));
    /// ```
    ///
    /// # Errors
    /// What is wrong, naming the field.
    pub fn checked(self, field: Field) -> Result<EnvValue, EnvError> {
        let err = |reason: String| EnvError { field, reason };
        let format = field.format();
        match self {
            EnvValue::Absent | EnvValue::Unknown => Ok(self),
            EnvValue::String(_) if field.field_type() == FieldType::Set => Err(err(format!(
                "a string was given, but `{field}` holds a list of strings"
            ))),
            EnvValue::Set(_) if field.field_type() != FieldType::Set => Err(err(format!(
                "a list was given, but `{field}` holds a single string"
            ))),
            EnvValue::String(s) if !field.is_extended() => Ok(EnvValue::String(s)),
            EnvValue::String(s) => {
                let value = match format.check(&s).map_err(err)? {
                    std::borrow::Cow::Borrowed(b) if b.len() == s.len() => EnvValue::String(s),
                    c => EnvValue::String(c.into_owned().into_boxed_str()),
                };
                if field.field_type() == FieldType::Version {
                    if let EnvValue::String(v) = &value {
                        if !is_release_only(v) {
                            return Err(err(format!(
                                "`{v}` is not a release-only version `N(.N)*`: an extended \
                                 version value has no epoch, pre-, post-, development release \
                                 or local label (spec/SPEC.md §4.3)"
                            )));
                        }
                    }
                }
                Ok(value)
            }
            EnvValue::Set(items) => {
                let items = format.check_members(&items).map_err(err)?;
                if items.is_empty() && field.is_extended() {
                    Ok(EnvValue::Absent)
                } else {
                    Ok(EnvValue::Set(items))
                }
            }
        }
    }

    /// Reads a value of `field` from the text form of overrides and `--set` (`spec/SPEC.md`
    /// §10.3): empty is Absent; a set field takes a comma-separated list (whitespace around
    /// items ignored, an empty item refused); the value is then [`checked`](EnvValue::checked).
    ///
    /// ```
    /// use markerspec_pep508::{EnvValue, Field};
    /// assert_eq!(EnvValue::from_text(Field::GpuBackends, "").unwrap(), EnvValue::Absent);
    /// assert_eq!(
    ///     EnvValue::from_text(Field::GpuBackends, "rocm, cuda").unwrap(),
    ///     EnvValue::Set(vec!["cuda".into(), "rocm".into()])
    /// );
    /// assert!(EnvValue::from_text(Field::GpuBackends, "cuda,,rocm").is_err());
    /// ```
    ///
    /// # Errors
    /// As [`EnvValue::checked`], and an empty item in a list.
    pub fn from_text(field: Field, text: &str) -> Result<EnvValue, EnvError> {
        if text.is_empty() {
            return Ok(EnvValue::Absent);
        }
        if field.field_type() == FieldType::Set {
            let items: Vec<Box<str>> = text.split(',').map(|s| s.trim().into()).collect();
            if items.iter().any(|s| s.is_empty()) {
                return Err(EnvError {
                    field,
                    reason: format!("`{text}` has an empty item; expected a comma-separated list"),
                });
            }
            EnvValue::Set(items).checked(field)
        } else {
            EnvValue::String(text.into()).checked(field)
        }
    }
}

/// Writes the environment in the same shape [`Deserialize`](serde::Deserialize) reads:
/// Unknown as `null`, Absent as `""` or `[]`.
#[cfg(feature = "serde")]
impl serde::Serialize for Environment {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for (field, value) in self.iter() {
            match value {
                EnvValue::String(v) => map.serialize_entry(field.name(), &**v)?,
                EnvValue::Set(items) => {
                    let items: Vec<&str> = items.iter().map(|s| &**s).collect();
                    map.serialize_entry(field.name(), &items)?
                }
                EnvValue::Absent if field.field_type() == FieldType::Set => {
                    map.serialize_entry(field.name(), &[] as &[&str])?
                }
                EnvValue::Absent => map.serialize_entry(field.name(), "")?,
                EnvValue::Unknown => map.serialize_entry(field.name(), &None::<&str>)?,
            }
        }
        if !self.extras.is_empty() {
            let extras: Vec<&str> = self.extras().collect();
            map.serialize_entry("extra", &extras)?;
        }
        map.end()
    }
}

/// Whether `text` is a release-only version, `N(.N)*` with N a decimal integer: the domain R of
/// the extended `Version` fields (`spec/SPEC.md` §4.3).
fn is_release_only(text: &str) -> bool {
    text.split('.')
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
