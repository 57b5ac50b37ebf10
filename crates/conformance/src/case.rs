//! The test vectors: cases, their environments and their expected outcomes per profile.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A dialect (which field names the parser accepts): the marker library's own type, so that the
/// two cannot drift.
pub use markerspec_pep508::Dialect;

/// An environment document (`spec/SPEC.md` §11) as the vectors write it, and one of its values:
/// the marker library's own types, read into its `Environment` by
/// [`markerspec_pep508::Environment::from_document`]. The requested extras are kept apart, in
/// [`Case::extras`], so a case's document never holds the key `extra` once resolved.
pub use markerspec_pep508::{DocValue, EnvDocument};

/// A behaviour profile: whose answers a case's expectation records.
///
/// `spec-2026`, `packaging` and `uv` are the marker library's profiles
/// ([`markerspec_pep508::Profile`]) and are pinned by the vectors. `standard` is derived by the
/// suite from `spec-2026` (see [`Profile::Standard`]) for tools that implement the standard
/// fields with two-valued logic; the vectors never pin it.
///
/// ```
/// use markerspec_conformance::Profile;
///
/// let p: Profile = "spec-2026".parse().unwrap();
/// assert_eq!(p, Profile::Spec2026);
/// assert_eq!(Profile::Packaging.as_str(), "packaging");
/// // `standard` is answered by the marker library's `spec-2026` profile.
/// assert_eq!(Profile::Standard.marker_profile(), markerspec_pep508::Profile::Spec2026);
/// assert!("pip".parse::<Profile>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// The living specification as markerspec reads it (three-valued, extended fields).
    Spec2026,
    /// pypa/packaging 26.4's exact behaviour, quirks included.
    Packaging,
    /// uv-pep508's behaviour.
    Uv,
    /// The living specification for the standard fields only, two-valued: the `spec-2026`
    /// expectations of the `pep508`-dialect cases outside a lock file, without diagnostic codes
    /// or printed forms, and with an evaluation result only where `spec-2026` pins `true` or
    /// `false` in an environment that gives every standard field a string.
    Standard,
}

impl Profile {
    /// Every profile, in report order.
    pub const ALL: &'static [Profile] = &[
        Profile::Spec2026,
        Profile::Packaging,
        Profile::Uv,
        Profile::Standard,
    ];

    /// The profile's name: `spec-2026`, `packaging`, `uv`, `standard`.
    ///
    /// See the example on [`Profile`].
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec2026 => "spec-2026",
            Profile::Packaging => "packaging",
            Profile::Uv => "uv",
            Profile::Standard => "standard",
        }
    }

    /// The marker library's profile that answers this one (`standard` is answered by
    /// `spec-2026`).
    ///
    /// See the example on [`Profile`].
    pub fn marker_profile(self) -> markerspec_pep508::Profile {
        match self {
            Profile::Spec2026 | Profile::Standard => markerspec_pep508::Profile::Spec2026,
            Profile::Packaging => markerspec_pep508::Profile::Packaging,
            Profile::Uv => markerspec_pep508::Profile::Uv,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Profile::ALL
            .iter()
            .copied()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown profile `{s}`, expected `spec-2026`, `packaging`, `uv` or `standard`"
                )
            })
    }
}

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(D::Error::custom)
    }
}

/// The fields of PEP 508 (`extra` aside), which a `standard` evaluation needs as strings.
const STANDARD_FIELDS: &[&str] = &[
    "implementation_name",
    "implementation_version",
    "os_name",
    "platform_machine",
    "platform_python_implementation",
    "platform_release",
    "platform_system",
    "platform_version",
    "python_full_version",
    "python_version",
    "sys_platform",
];

/// The `standard` outcome derived from a case's `spec-2026` outcome, if the case applies.
fn standard_outcome(
    dialect: Dialect,
    lock_file: bool,
    env: &EnvDocument,
    spec: Option<&Outcome>,
) -> Option<Outcome> {
    if dialect != Dialect::Pep508 || lock_file {
        return None;
    }
    Some(match spec? {
        Outcome::Invalid { .. } => Outcome::Invalid { error: None },
        Outcome::Valid { result, .. } => {
            let complete = STANDARD_FIELDS
                .iter()
                .all(|f| matches!(env.get(*f), Some(DocValue::String(_))));
            let result = match result {
                Some(r @ (Expected::True | Expected::False)) if complete => Some(r.clone()),
                _ => None,
            };
            Outcome::Valid {
                canonical: None,
                result,
            }
        }
    })
}

/// What the input is: a whole dependency specifier or a bare marker.
///
/// ```
/// use markerspec_conformance::{Cases, Kind};
///
/// let cases = Cases::all();
/// let requirements = cases.iter().filter(|c| c.kind() == Kind::Requirement).count();
/// assert!(requirements > 0 && requirements < cases.len());
/// assert_eq!(Kind::Marker.as_str(), "marker");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `name [extras] (versions | @ url) ; marker`.
    Requirement,
    /// A marker expression, without the `;`.
    Marker,
}

impl Kind {
    /// `requirement` or `marker`.
    ///
    /// See the example on [`Kind`].
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Requirement => "requirement",
            Kind::Marker => "marker",
        }
    }
}

/// What an implementation is expected to do with a case under one profile.
///
/// In the vectors: `{"parses": false, "error": "M002"}` for an input that must be rejected, or
/// `{"canonical": "…", "result": …}` for one that must be accepted, where `canonical` (the
/// printed form) and `result` (the evaluation in the case's environment) are each optional.
///
/// ```
/// use markerspec_conformance::{Cases, Outcome, Profile};
///
/// let cases = Cases::all();
/// let outcome = cases.get("versions/prereleases-117").unwrap().expected(Profile::Spec2026).unwrap();
/// assert!(outcome.parses());
/// assert_eq!(outcome.result().map(|r| r.to_json()), Some(serde_json::json!(false)));
/// assert!(!Outcome::Invalid { error: Some("M002".into()) }.parses());
/// assert_eq!(Outcome::Invalid { error: Some("M002".into()) }.to_json(), serde_json::json!({"parses": false, "error": "M002"}));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The input must be rejected; `error` is the diagnostic code when one is pinned.
    Invalid {
        /// The diagnostic code, e.g. `M002`; compared only for implementations that report
        /// codes.
        error: Option<String>,
    },
    /// The input must be accepted.
    Valid {
        /// The expected printed form, when pinned.
        canonical: Option<String>,
        /// The expected evaluation in the case's environment, when pinned.
        result: Option<Expected>,
    },
}

/// An expected (or observed) evaluation result.
///
/// ```
/// use markerspec_conformance::Expected;
///
/// let unknown = Expected::Unknown(vec!["cuda_version".into()]);
/// assert_eq!(unknown.to_json(), "unknown: cuda_version");
/// assert_eq!(Expected::Error(Some("E002".into())).to_json(), serde_json::json!({"error": "E002"}));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expected {
    /// The marker holds.
    True,
    /// The marker does not hold.
    False,
    /// The result is Unknown because of these fields (sorted by byte order, `spec/SPEC.md`
    /// §6.1). In the vectors: `"unknown: cuda_version,gpu_backends"`.
    Unknown(Vec<String>),
    /// Evaluation fails; the code (`E001`, `E002`, …) when pinned. In the vectors:
    /// `{"error": "E002"}`.
    Error(Option<String>),
}

impl Expected {
    /// The value as the vectors write it.
    ///
    /// See the example on [`Expected`].
    pub fn to_json(&self) -> Value {
        match self {
            Expected::True => Value::Bool(true),
            Expected::False => Value::Bool(false),
            Expected::Unknown(fields) => Value::String(format!("unknown: {}", fields.join(","))),
            Expected::Error(code) => {
                let mut m = serde_json::Map::new();
                m.insert(
                    "error".into(),
                    code.clone().map(Value::String).unwrap_or(Value::Null),
                );
                Value::Object(m)
            }
        }
    }

    fn from_json(v: &Value) -> Result<Expected, String> {
        match v {
            Value::Bool(true) => Ok(Expected::True),
            Value::Bool(false) => Ok(Expected::False),
            Value::String(s) => parse_unknown(s).map(Expected::Unknown),
            Value::Object(m) if m.len() == 1 => match m.get("error") {
                Some(Value::String(c)) => Ok(Expected::Error(Some(c.clone()))),
                Some(Value::Null) => Ok(Expected::Error(None)),
                _ => Err(format!("a result object is {{\"error\": CODE}}, found {v}")),
            },
            _ => Err(format!(
                "a result is true, false, \"unknown: FIELDS\" or {{\"error\": CODE}}, found {v}"
            )),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::True => f.write_str("true"),
            Expected::False => f.write_str("false"),
            Expected::Unknown(fields) => write!(f, "unknown: {}", fields.join(",")),
            Expected::Error(Some(c)) => write!(f, "error {c}"),
            Expected::Error(None) => f.write_str("error"),
        }
    }
}

/// Reads `unknown: a,b`: at least one field, sorted, no repeats.
pub(crate) fn parse_unknown(s: &str) -> Result<Vec<String>, String> {
    let rest = s
        .strip_prefix("unknown: ")
        .ok_or_else(|| format!("a string result is \"unknown: FIELDS\", found {s:?}"))?;
    let fields: Vec<String> = rest.split(',').map(str::to_string).collect();
    if fields.iter().any(String::is_empty) {
        return Err(format!("empty field name in {s:?}"));
    }
    if fields.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!("fields must be sorted and distinct in {s:?}"));
    }
    Ok(fields)
}

impl Outcome {
    /// Whether the input is expected to parse.
    ///
    /// See the example on [`Outcome`].
    pub fn parses(&self) -> bool {
        matches!(self, Outcome::Valid { .. })
    }

    /// The expected evaluation, when one is pinned.
    ///
    /// See the example on [`Outcome`].
    pub fn result(&self) -> Option<&Expected> {
        match self {
            Outcome::Valid { result, .. } => result.as_ref(),
            Outcome::Invalid { .. } => None,
        }
    }

    /// The outcome as the vectors write it.
    ///
    /// See the example on [`Outcome`].
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        match self {
            Outcome::Invalid { error } => {
                m.insert("parses".into(), Value::Bool(false));
                if let Some(e) = error {
                    m.insert("error".into(), Value::String(e.clone()));
                }
            }
            Outcome::Valid { canonical, result } => {
                if let Some(c) = canonical {
                    m.insert("canonical".into(), Value::String(c.clone()));
                }
                if let Some(r) = result {
                    m.insert("result".into(), r.to_json());
                }
            }
        }
        Value::Object(m)
    }

    fn from_json(v: &Value) -> Result<Outcome, String> {
        let Value::Object(m) = v else {
            return Err(format!("an outcome is an object, found {v}"));
        };
        for k in m.keys() {
            if !matches!(k.as_str(), "parses" | "error" | "canonical" | "result") {
                return Err(format!("unknown key `{k}` in an outcome"));
            }
        }
        let parses = match m.get("parses") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(format!("`parses` is a boolean, found {other}")),
        };
        let string = |key: &str| -> Result<Option<String>, String> {
            match m.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("`{key}` is a string, found {other}")),
            }
        };
        if parses {
            if m.contains_key("error") {
                return Err("`error` needs `\"parses\": false`".into());
            }
            Ok(Outcome::Valid {
                canonical: string("canonical")?,
                result: m.get("result").map(Expected::from_json).transpose()?,
            })
        } else {
            if m.contains_key("canonical") || m.contains_key("result") {
                return Err("an input that does not parse has no `canonical` or `result`".into());
            }
            Ok(Outcome::Invalid {
                error: string("error")?,
            })
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Outcome, D::Error> {
        Outcome::from_json(&Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// A case as written in a vector file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: String,
    category: String,
    kind: Kind,
    input: String,
    #[serde(default)]
    dialect: Dialect,
    #[serde(default)]
    lock_file: bool,
    #[serde(default)]
    fixture: Option<String>,
    #[serde(default)]
    environment: Option<EnvDocument>,
    #[serde(default)]
    extras: Option<Vec<String>>,
    see: String,
    #[serde(default)]
    note: Option<String>,
    expect: BTreeMap<Profile, Outcome>,
}

/// A vector file: `{"cases": [...]}` with an optional `$schema` and `description`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGroup {
    #[serde(rename = "$schema", default)]
    _schema: Option<String>,
    #[serde(default)]
    description: Option<String>,
    cases: Vec<RawCase>,
}

/// One test case: an input, how to read it, an environment, and the expected outcome under each
/// profile that pins one.
///
/// ```
/// use markerspec_conformance::{Cases, Dialect, Expected, Kind, Outcome, Profile};
///
/// let cases = Cases::all();
/// let case = cases.get("versions/prereleases-117").expect("a shipped case");
/// assert_eq!(case.kind(), Kind::Marker);
/// assert_eq!(case.input(), r#"python_version < "3.14.0rc1""#);
/// assert_eq!(case.fixture(), Some("linux-x86_64-cpython-3.14.0rc1"));
/// let Some(Outcome::Valid { result, .. }) = case.expected(Profile::Spec2026) else { panic!() };
/// assert_eq!(result, &Some(Expected::False)); // `python_version` is 3.14, after 3.14.0rc1
/// assert_eq!((case.group(), case.name()), ("versions", "prereleases-117"));
/// assert_eq!(case.full_name(), "versions/prereleases-117");
/// assert_eq!(case.category(), "prereleases");
/// assert_eq!(case.dialect(), Dialect::Pep508);
/// assert!(!case.lock_file());
/// assert!(case.extras().is_empty());
/// assert!(case.see().starts_with("PEP 440"));
/// assert_eq!(case.note(), None);
/// assert_eq!(case.expectations().count(), 4); // spec-2026, packaging, uv; standard derived
/// assert!(case.evaluates());
/// ```
#[derive(Debug, Clone)]
pub struct Case {
    group: String,
    name: String,
    full_name: String,
    category: String,
    kind: Kind,
    input: String,
    dialect: Dialect,
    lock_file: bool,
    fixture: Option<String>,
    environment: EnvDocument,
    extras: Vec<String>,
    see: String,
    note: Option<String>,
    expect: BTreeMap<Profile, Outcome>,
}

impl Case {
    /// A case built from a protocol request: no name, no expectations.
    pub(crate) fn adhoc(
        kind: Kind,
        input: String,
        dialect: Dialect,
        lock_file: bool,
        environment: EnvDocument,
        extras: Vec<String>,
    ) -> Case {
        Case {
            group: "request".into(),
            name: "request-100".into(),
            full_name: "request/request-100".into(),
            category: "request".into(),
            kind,
            input,
            dialect,
            lock_file,
            fixture: None,
            environment,
            extras,
            see: String::new(),
            note: None,
            expect: BTreeMap::new(),
        }
    }

    /// The group: the stem of the vector file, e.g. `versions`.
    ///
    /// See the example on [`Case`].
    pub fn group(&self) -> &str {
        &self.group
    }
    /// The name within the group, e.g. `prereleases-117`.
    ///
    /// See the example on [`Case`].
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The full name, `group/name`, unique in a suite.
    ///
    /// See the example on [`Case`].
    pub fn full_name(&self) -> &str {
        &self.full_name
    }
    /// The category, e.g. `prereleases`; reports count results per category.
    ///
    /// See the example on [`Case`].
    pub fn category(&self) -> &str {
        &self.category
    }
    /// Whether the input is a requirement or a marker.
    ///
    /// See the example on [`Case`].
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// The input, verbatim.
    ///
    /// See the example on [`Case`].
    pub fn input(&self) -> &str {
        &self.input
    }
    /// The dialect to parse with.
    ///
    /// See the example on [`Case`].
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }
    /// Whether `extras` and `dependency_groups` are available (lock-file context, PEP 751).
    ///
    /// See the example on [`Case`].
    pub fn lock_file(&self) -> bool {
        self.lock_file
    }
    /// The fixture (`spec/environments/NAME.json`) the environment starts from, if any.
    ///
    /// See the example on [`Case`].
    pub fn fixture(&self) -> Option<&str> {
        self.fixture.as_deref()
    }
    /// The resolved environment document: the fixture, overlaid with the case's own entries,
    /// without the `extra` key (see [`Case::extras`]).
    ///
    /// ```
    /// use markerspec_conformance::{Cases, DocValue};
    ///
    /// let cases = Cases::all();
    /// let env = cases.get("versions/prereleases-117").unwrap().environment();
    /// assert_eq!(env.get("python_full_version"), Some(&DocValue::String("3.14.0rc1".into())));
    /// ```
    pub fn environment(&self) -> &EnvDocument {
        &self.environment
    }
    /// The requested extras: what `extra == "…"` is compared with. Empty by default.
    ///
    /// See the example on [`Case`].
    pub fn extras(&self) -> &[String] {
        &self.extras
    }
    /// Where the case comes from: a PEP, a specification section, a tool's test or the
    /// packaging oracle.
    ///
    /// See the example on [`Case`].
    pub fn see(&self) -> &str {
        &self.see
    }
    /// A free-form remark, if any.
    ///
    /// See the example on [`Case`].
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
    /// The expected outcome under `profile`, or `None` when the case does not pin it.
    ///
    /// See the example on [`Case`].
    pub fn expected(&self, profile: Profile) -> Option<&Outcome> {
        self.expect.get(&profile)
    }
    /// Every pinned (profile, outcome) pair.
    ///
    /// See the example on [`Case`].
    pub fn expectations(&self) -> impl Iterator<Item = (Profile, &Outcome)> {
        self.expect.iter().map(|(p, o)| (*p, o))
    }
    /// Whether some profile pins an evaluation result, so that implementations are asked to
    /// evaluate the case.
    ///
    /// See the example on [`Case`].
    pub fn evaluates(&self) -> bool {
        self.expect.values().any(|o| o.result().is_some())
    }
}

/// Why a vector file could not be loaded: where (the group, and the case when one is at
/// fault) and what is wrong.
///
/// ```
/// use markerspec_conformance::Cases;
///
/// let mut cases = Cases::new();
/// let err = cases.load_slice("mine", b"[1, 2").unwrap_err();
/// assert!(err.to_string().starts_with("mine"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {message}")]
pub struct LoadError {
    /// `group` or `group/case`.
    place: String,
    message: String,
}

impl LoadError {
    fn new(group: &str, case: Option<&str>, message: impl Into<String>) -> LoadError {
        LoadError {
            place: match case {
                Some(c) => format!("{group}/{c}"),
                None => group.to_string(),
            },
            message: message.into(),
        }
    }
}

/// A set of cases, with the environment fixtures they may name.
///
/// ```
/// use markerspec_conformance::Cases;
/// let mut cases = Cases::new();
/// cases
///     .load_slice(
///         "mine",
///         br#"{"cases": [{"name": "simple-100", "category": "example", "kind": "marker",
///             "input": "os_name == 'nt'", "fixture": "windows-amd64-cpython-3.11",
///             "see": "PEP 508", "expect": {"spec-2026": {"result": true}}}]}"#,
///     )
///     .unwrap();
/// assert_eq!(cases.iter().next().unwrap().full_name(), "mine/simple-100");
/// assert_eq!(cases.len(), 1);
/// assert!(!cases.is_empty() && Cases::new().is_empty());
/// assert_eq!(cases.get("mine/simple-100").unwrap().input(), "os_name == 'nt'");
/// assert!(cases.fixture("windows-amd64-cpython-3.11").is_some());
///
/// // Fixtures of one's own, and files and folders of vectors.
/// use markerspec_conformance::{DocValue, EnvDocument};
/// let mut beos = EnvDocument::new();
/// beos.insert("os_name".into(), DocValue::String("beos".into()));
/// cases.add_fixture("beos", beos);
/// assert!(cases.fixture("beos").is_some());
/// let dir = std::env::temp_dir().join(format!("markerspec-doc-vectors-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("environments")).unwrap();
/// std::fs::write(dir.join("environments/haiku.json"), r#"{"os_name": "haiku"}"#).unwrap();
/// std::fs::write(
///     dir.join("theirs.json"),
///     br#"{"cases": [{"name": "simple-100", "category": "example", "kind": "marker",
///         "input": "os_name == 'haiku'", "fixture": "haiku", "see": "PEP 508",
///         "expect": {"spec-2026": {"result": true}}}]}"#,
/// )
/// .unwrap();
/// let loaded = (|| {
///     cases.load_fixture_dir(&dir.join("environments"))?;
///     let mut one = cases.clone();
///     one.load_file(&dir.join("theirs.json"))?;
///     cases.load_dir(&dir)?;
///     Ok::<_, markerspec_conformance::LoadError>(one.len())
/// })();
/// std::fs::remove_dir_all(&dir).unwrap();
/// assert_eq!(loaded.unwrap(), 2);
/// assert_eq!(cases.get("theirs/simple-100").unwrap().fixture(), Some("haiku"));
/// assert!(Cases::all().len() > 1000);
/// ```
#[derive(Debug, Clone)]
pub struct Cases {
    cases: Vec<Case>,
    names: BTreeSet<String>,
    fixtures: BTreeMap<String, EnvDocument>,
}

impl Default for Cases {
    fn default() -> Cases {
        Cases::new()
    }
}

impl Cases {
    /// No cases; the fixtures of `spec/environments/` that the shipped vectors use are known
    /// (embedded in this crate).
    ///
    /// See the example on [`Cases`].
    pub fn new() -> Cases {
        let fixtures: BTreeMap<String, EnvDocument> = serde_json::from_str(crate::data::FIXTURES)
            .unwrap_or_else(|e| panic!("the embedded fixtures are invalid: {e}"));
        Cases {
            cases: Vec::new(),
            names: BTreeSet::new(),
            fixtures,
        }
    }

    /// Every shipped case (`spec/vectors/*.json`, embedded in this crate from its `vectors/`).
    ///
    /// See the example on [`Cases`].
    pub fn all() -> Cases {
        let mut cases = Cases::new();
        for (group, text) in crate::data::GROUPS {
            cases
                .load_slice(group, text.as_bytes())
                .unwrap_or_else(|e| panic!("embedded vectors are invalid: {e}"));
        }
        cases
    }

    /// Adds (or replaces) a fixture that cases may name in `fixture`. Add fixtures before
    /// loading the cases that use them.
    ///
    /// See the example on [`Cases`].
    pub fn add_fixture(&mut self, name: &str, environment: EnvDocument) {
        self.fixtures.insert(name.to_string(), environment);
    }

    /// The fixture called `name`.
    ///
    /// See the example on [`Cases`].
    pub fn fixture(&self, name: &str) -> Option<&EnvDocument> {
        self.fixtures.get(name)
    }

    /// Loads every `*.json` file of a directory as a fixture (name = file stem).
    ///
    /// # Errors
    /// An unreadable directory or file, or a file that is not an environment document.
    ///
    /// See the example on [`Cases`].
    pub fn load_fixture_dir(&mut self, dir: &Path) -> Result<(), LoadError> {
        let group = dir.display().to_string();
        let entries =
            std::fs::read_dir(dir).map_err(|e| LoadError::new(&group, None, e.to_string()))?;
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| LoadError::new(&group, Some(name), e.to_string()))?;
            let doc: EnvDocument = serde_json::from_str(&text)
                .map_err(|e| LoadError::new(&group, Some(name), e.to_string()))?;
            self.add_fixture(name, doc);
        }
        Ok(())
    }

    /// Loads one vector file's contents as group `group`.
    ///
    /// # Errors
    /// Invalid JSON, an unknown key, a name that is not `slug-NNN` or is already loaded, an
    /// unknown fixture, or an outcome of the wrong shape.
    ///
    /// See the example on [`Cases`].
    pub fn load_slice(&mut self, group: &str, data: &[u8]) -> Result<(), LoadError> {
        if !valid_slug(group) {
            return Err(LoadError::new(group, None, "a group name is [a-z0-9-]+"));
        }
        let raw: RawGroup =
            serde_json::from_slice(data).map_err(|e| LoadError::new(group, None, e.to_string()))?;
        let _ = raw.description;
        let mut loaded = Vec::with_capacity(raw.cases.len());
        let mut names = BTreeSet::new();
        for c in raw.cases {
            let full_name = format!("{group}/{}", c.name);
            let err = |m: String| LoadError::new(group, Some(&c.name), m);
            if !valid_case_name(&c.name) {
                return Err(err(
                    "a case name is a slug and a number of three or more digits, e.g. `extras-eof-100`".into(),
                ));
            }
            if self.names.contains(&full_name) || !names.insert(full_name.clone()) {
                return Err(err("duplicate case name".into()));
            }
            if c.category.is_empty() || !valid_slug(&c.category) {
                return Err(err("a category is [a-z0-9-]+".into()));
            }
            if c.see.trim().is_empty() {
                return Err(err("`see` must say where the case comes from".into()));
            }
            if c.expect.is_empty() {
                return Err(err("`expect` pins no profile".into()));
            }
            if c.expect.contains_key(&Profile::Standard) {
                return Err(err(
                    "`standard` is derived from `spec-2026`; a case does not pin it".into(),
                ));
            }
            let mut env = match &c.fixture {
                Some(f) => self
                    .fixtures
                    .get(f)
                    .cloned()
                    .ok_or_else(|| err(format!("unknown fixture `{f}`")))?,
                None => EnvDocument::new(),
            };
            if let Some(overlay) = &c.environment {
                for (k, v) in overlay {
                    env.insert(k.clone(), v.clone());
                }
            }
            let doc_extras = match env.remove("extra") {
                None | Some(DocValue::Unknown) => Vec::new(),
                Some(DocValue::String(s)) if s.is_empty() => Vec::new(),
                Some(DocValue::String(s)) => vec![s],
                Some(DocValue::List(l)) => l,
            };
            let extras = c.extras.clone().unwrap_or(doc_extras);
            let mut expect = c.expect;
            if let Some(o) =
                standard_outcome(c.dialect, c.lock_file, &env, expect.get(&Profile::Spec2026))
            {
                expect.insert(Profile::Standard, o);
            }
            loaded.push(Case {
                group: group.to_string(),
                full_name,
                name: c.name,
                category: c.category,
                kind: c.kind,
                input: c.input,
                dialect: c.dialect,
                lock_file: c.lock_file,
                fixture: c.fixture,
                environment: env,
                extras,
                see: c.see,
                note: c.note,
                expect,
            });
        }
        self.names.extend(names);
        self.cases.extend(loaded);
        Ok(())
    }

    /// Loads a vector file; the group is the file stem.
    ///
    /// # Errors
    /// As [`Cases::load_slice`], or an unreadable file.
    ///
    /// See the example on [`Cases`].
    pub fn load_file(&mut self, path: &Path) -> Result<(), LoadError> {
        let group = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let data = std::fs::read(path)
            .map_err(|e| LoadError::new(&group, None, format!("{}: {e}", path.display())))?;
        self.load_slice(&group, &data)
    }

    /// Loads every `*.json` file of a directory except `schema.json`, in name order.
    ///
    /// # Errors
    /// As [`Cases::load_file`].
    ///
    /// See the example on [`Cases`].
    pub fn load_dir(&mut self, dir: &Path) -> Result<(), LoadError> {
        let group = dir.display().to_string();
        let entries =
            std::fs::read_dir(dir).map_err(|e| LoadError::new(&group, None, e.to_string()))?;
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let is_json = path.extension().and_then(|e| e.to_str()) == Some("json");
            let is_schema = path.file_name().and_then(|n| n.to_str()) == Some("schema.json");
            if is_json && !is_schema {
                self.load_file(&path)?;
            }
        }
        Ok(())
    }

    /// The cases in load order.
    ///
    /// See the example on [`Cases`].
    pub fn iter(&self) -> impl Iterator<Item = &Case> {
        self.cases.iter()
    }

    /// The number of cases.
    ///
    /// See the example on [`Cases`].
    pub fn len(&self) -> usize {
        self.cases.len()
    }

    /// Whether there are no cases.
    ///
    /// See the example on [`Cases`].
    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    /// The case called `group/name`.
    ///
    /// See the example on [`Cases`].
    pub fn get(&self, full_name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.full_name == full_name)
    }
}

fn valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn valid_case_name(s: &str) -> bool {
    let Some((slug, number)) = s.rsplit_once('-') else {
        return false;
    };
    valid_slug(slug) && number.len() >= 3 && number.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL_ENV: &str = r#"{"implementation_name": "cpython", "implementation_version": "3.12.0",
        "os_name": "posix", "platform_machine": "x86_64", "platform_python_implementation": "CPython",
        "platform_release": "6.1", "platform_system": "Linux", "platform_version": "1",
        "python_full_version": "3.12.0", "python_version": "3.12", "sys_platform": "linux"}"#;

    fn one(fields: &str) -> Case {
        let mut cases = Cases::new();
        let json = format!(
            r#"{{"cases": [{{"name": "c-100", "category": "c", "kind": "marker", "input": "x",
                "see": "t", {fields}}}]}}"#
        );
        cases.load_slice("g", json.as_bytes()).unwrap();
        cases.iter().next().unwrap().clone()
    }

    #[test]
    fn standard_is_derived_from_spec_2026() {
        let c = one(&format!(
            r#""environment": {FULL_ENV}, "expect": {{"spec-2026": {{"canonical": "x", "result": true}}}}"#
        ));
        assert_eq!(
            c.expected(Profile::Standard),
            Some(&Outcome::Valid {
                canonical: None,
                result: Some(Expected::True)
            })
        );
        // Three-valued or error results are not standard: parsing is still checked.
        let c = one(&format!(
            r#""environment": {FULL_ENV}, "expect": {{"spec-2026": {{"result": "unknown: os_name"}}}}"#
        ));
        assert_eq!(
            c.expected(Profile::Standard),
            Some(&Outcome::Valid {
                canonical: None,
                result: None
            })
        );
        // An environment without every standard field: no result either.
        let c =
            one(r#""environment": {"os_name": "nt"}, "expect": {"spec-2026": {"result": false}}"#);
        assert_eq!(
            c.expected(Profile::Standard).and_then(Outcome::result),
            None
        );
        // Codes are not compared.
        let c = one(r#""expect": {"spec-2026": {"parses": false, "error": "M002"}}"#);
        assert_eq!(
            c.expected(Profile::Standard),
            Some(&Outcome::Invalid { error: None })
        );
        // Lock files, the extended dialect, cases without spec-2026: not standard.
        for fields in [
            r#""lock_file": true, "expect": {"spec-2026": {"result": true}}"#,
            r#""dialect": "extended", "expect": {"spec-2026": {"result": true}}"#,
            r#""expect": {"packaging": {"result": true}}"#,
        ] {
            assert_eq!(one(fields).expected(Profile::Standard), None, "{fields}");
        }
    }

    #[test]
    fn vectors_cannot_pin_standard() {
        let json = r#"{"cases": [{"name": "c-100", "category": "c", "kind": "marker",
            "input": "x", "see": "t", "expect": {"standard": {"result": true}}}]}"#;
        let e = Cases::new().load_slice("g", json.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("derived"), "{e}");
    }

    #[test]
    fn profiles_round_trip() {
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>().unwrap(), *p);
        }
        assert_eq!(
            Profile::Standard.marker_profile(),
            markerspec_pep508::Profile::Spec2026
        );
        assert!("spec-2027".parse::<Profile>().is_err());
    }
}
