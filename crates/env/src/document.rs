//! Environment documents (SPEC §11): the one reader of the JSON object that fixtures,
//! `markerspec eval --env FILE` and other callers load an environment from.

use std::fmt;

use markerspec_pep508::{EnvValue, Environment, Field, FieldType};

use crate::invariants::check_invariants;
use crate::values::check_input;

/// The `$version` this reader implements and producers write (`MAJOR.MINOR`, SPEC §11).
///
/// ```
/// use markerspec_env::{DOCUMENT_VERSION, EnvironmentDocument, VERSION_KEY};
///
/// let text = format!(r#"{{"{VERSION_KEY}": "{DOCUMENT_VERSION}", "os_name": "posix"}}"#);
/// assert_eq!(EnvironmentDocument::parse(&text).unwrap().version(), (0, 2));
/// ```
pub const DOCUMENT_VERSION: &str = "0.2";

/// The key that names the specification version a document was written for.
///
/// See the example on [`DOCUMENT_VERSION`].
pub const VERSION_KEY: &str = "$version";

/// This reader's version as numbers; [`DOCUMENT_VERSION`] in text.
const READER: (u32, u32) = (0, 2);

/// A warning from reading a document: the document is used, and the warning says what was
/// not read from it. Its text starts with the diagnostic's name (`spec/DIAGNOSTICS.md`).
///
/// ```
/// use markerspec_env::{DocumentWarning, EnvironmentDocument};
///
/// let doc = EnvironmentDocument::parse(r#"{"$version": "0.9", "os_name": "posix"}"#).unwrap();
/// assert!(matches!(doc.warnings(), [DocumentWarning::NewerVersion(_)]));
/// assert_eq!(doc.warnings()[0].name(), "newer-environment-version");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DocumentWarning {
    /// `unknown-environment-key`: a key that is not a field of this reader's version, nor
    /// `$version`, `extra`, `extras` or `dependency_groups`; it is ignored.
    UnknownKey(String),
    /// `newer-environment-version`: `$version` has this reader's MAJOR and a higher MINOR; the
    /// keys this reader does not know are ignored.
    NewerVersion(String),
    /// `text-version-value`: a standard version field (`python_version`,
    /// `python_full_version`, `implementation_version`) holds text that is no PEP 440
    /// version: the key and the text. The value is kept, and markers compare it as text
    /// (PEP 508's fallback), as they would on an interpreter that reports it.
    TextVersion {
        /// The field's name.
        key: String,
        /// The text it holds.
        value: String,
    },
}

impl DocumentWarning {
    /// The diagnostic's name: `unknown-environment-key`, `newer-environment-version` or
    /// `text-version-value`.
    ///
    /// See the example on [`DocumentWarning`].
    pub fn name(&self) -> &'static str {
        match self {
            DocumentWarning::UnknownKey(_) => "unknown-environment-key",
            DocumentWarning::NewerVersion(_) => "newer-environment-version",
            DocumentWarning::TextVersion { .. } => "text-version-value",
        }
    }
}

impl fmt::Display for DocumentWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DocumentWarning::UnknownKey(key) => write!(
                f,
                "unknown-environment-key: `{key}` is not a field of environment documents \
                 {DOCUMENT_VERSION}; ignored"
            ),
            DocumentWarning::NewerVersion(version) => write!(
                f,
                "newer-environment-version: the document is for specification {version}, newer \
                 than {DOCUMENT_VERSION}; keys this reader does not know are ignored"
            ),
            DocumentWarning::TextVersion { key, value } => write!(
                f,
                "text-version-value: `{key}` holds `{value}`, which is not a PEP 440 version; \
                 markers compare it as text"
            ),
        }
    }
}

/// An environment document of SPEC §11, read and checked.
///
/// - `$version` (`"MAJOR.MINOR"`) names the specification version the document was written
///   for; without it the document is read as `0.1`. Another MAJOR than this reader's is an
///   error; a higher MINOR is read with the warning `newer-environment-version`.
/// - A key that names no field (nor `$version`, `extra`, `extras`, `dependency_groups`) is
///   ignored with the warning `unknown-environment-key`, so documents of a later version load;
///   a field this reader knows is always checked.
/// - `null` is Unknown; `""` and `[]` are Absent for extended fields and the empty string or
///   set for standard ones; a missing field is Unknown.
/// - Values are checked and canonicalised as override values are ([`check_input`]: PEP 440
///   versions, set member formats, the architecture table), except that a standard version
///   field (`python_version`, `python_full_version`, `implementation_version`) may hold text
///   that is no PEP 440 version, with the warning `text-version-value`: markers compare such
///   a value as text, and a witness environment of `markerspec solve` or `compare` names one
///   where only such text satisfies its cell (`python_full_version == "dev"`). `extra` takes
///   a string or a list of strings: the extras requested.
/// - The values satisfy the cross-field invariants of SPEC §4.4 ([`check_invariants`]) among
///   the fields the document gives.
/// - A key written twice is an error, not "the last one wins"; a UTF-8 byte-order mark is
///   accepted.
///
/// ```
/// use markerspec_env::EnvironmentDocument;
/// use markerspec_pep508::{EnvValue, Field};
///
/// let doc = EnvironmentDocument::parse(
///     r#"{"$version": "0.2", "cuda_version": "", "gpu_backends": [], "tpu_count": "4"}"#,
/// )
/// .unwrap();
/// assert_eq!(doc.version(), (0, 2));
/// assert_eq!(doc.value(Field::CudaVersion), Some(&EnvValue::Absent));
/// assert!(doc.warnings()[0].to_string().starts_with("unknown-environment-key: `tpu_count`"));
/// assert_eq!(doc.warnings()[0].name(), "unknown-environment-key");
/// assert_eq!(doc.values().count(), 2);
///
/// // Extras are the caller's request, carried into the environment.
/// let doc = EnvironmentDocument::parse(r#"{"os_name": "posix", "extra": ["cuda"]}"#).unwrap();
/// assert_eq!(doc.version(), (0, 1));
/// assert_eq!(doc.extras(), ["cuda"]);
/// let env = doc.to_environment();
/// assert_eq!(env.get(Field::OsName), Some(&EnvValue::String("posix".into())));
/// assert!(env.extras().eq(["cuda"]));
/// assert!(EnvironmentDocument::parse(r#"{"$version": "1.0"}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvironmentDocument {
    version: (u32, u32),
    values: Vec<(Field, EnvValue)>,
    extras: Vec<String>,
    warnings: Vec<DocumentWarning>,
}

impl EnvironmentDocument {
    /// Reads a document from its text.
    ///
    /// # Errors
    /// Why the document is not valid (`invalid-environment`), naming the key; the caller adds
    /// which document it is.
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn parse(text: &str) -> Result<EnvironmentDocument, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Entries(entries) = serde_json::from_str(text).map_err(|e| {
            let message = e.to_string();
            if message.contains("invalid type") && e.line() == 1 && e.column() <= 2 {
                "expected a JSON object of field name → value".to_owned()
            } else {
                message
            }
        })?;
        let mut doc = EnvironmentDocument {
            version: (0, 1),
            values: Vec::new(),
            extras: Vec::new(),
            warnings: Vec::new(),
        };
        if let Some((_, value)) = entries.iter().find(|(k, _)| k == VERSION_KEY) {
            doc.version = document_version(value)?;
            if doc.version.1 > READER.1 {
                doc.warnings.push(DocumentWarning::NewerVersion(format!(
                    "{}.{}",
                    doc.version.0, doc.version.1
                )));
            }
        }
        for (key, value) in entries {
            if key == VERSION_KEY {
                continue;
            }
            let Some(field) = Field::from_canonical_name(&key) else {
                doc.warnings.push(DocumentWarning::UnknownKey(key));
                continue;
            };
            if field == Field::Extra {
                doc.extras.extend(extra_names(&value)?);
                continue;
            }
            let value = field_value(field, &key, value)?;
            let value = match check_input(field, value.clone()) {
                Ok(v) => v,
                Err(_) if text_version(field, &value) => {
                    if let EnvValue::String(text) = &value {
                        doc.warnings.push(DocumentWarning::TextVersion {
                            key: key.clone(),
                            value: text.to_string(),
                        });
                    }
                    value
                }
                Err(why) => return Err(format!("`{key}`: {why}")),
            };
            doc.values.push((field, value));
        }
        let broken = check_invariants(|f| doc.value(f).cloned());
        if let Some(violation) = broken.first() {
            return Err(violation.to_string());
        }
        Ok(doc)
    }

    /// The specification version the document says it was written for (`(0, 1)` without
    /// `$version`).
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn version(&self) -> (u32, u32) {
        self.version
    }

    /// Every field the document gives, in document order, checked and canonicalised.
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn values(&self) -> impl Iterator<Item = (Field, &EnvValue)> {
        self.values.iter().map(|(f, v)| (*f, v))
    }

    /// The value the document gives `field`, if it names it.
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn value(&self, field: Field) -> Option<&EnvValue> {
        self.values
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, v)| v)
    }

    /// The extras the document requests (its `extra` key).
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn extras(&self) -> &[String] {
        &self.extras
    }

    /// What was not read from the document, in the order it was met.
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn warnings(&self) -> &[DocumentWarning] {
        &self.warnings
    }

    /// The document as an evaluator's environment: its values and extras; a field it does not
    /// name is left out (Unknown to the evaluator).
    ///
    /// See the example on [`EnvironmentDocument`].
    pub fn to_environment(&self) -> Environment {
        let mut env = Environment::new();
        for (field, value) in self.values() {
            // `field_value` matched the value to the field's type, so this cannot fail.
            let _ = env.set(field, value.clone());
        }
        env.with_extras(&self.extras)
    }
}

/// Whether `value` is text a document may give `field` although it is no PEP 440 version: a
/// standard `Version` field's string (the extended ones MUST hold versions, SPEC §11).
fn text_version(field: Field, value: &EnvValue) -> bool {
    !field.is_extended()
        && field.field_type() == FieldType::Version
        && matches!(value, EnvValue::String(_))
}

/// `$version`: `"MAJOR.MINOR"` with this reader's MAJOR.
fn document_version(value: &serde_json::Value) -> Result<(u32, u32), String> {
    let text = value.as_str().ok_or_else(|| {
        format!("`{VERSION_KEY}` must be a string such as \"{DOCUMENT_VERSION}\"")
    })?;
    let parsed = text.split_once('.').and_then(|(major, minor)| {
        let number = |s: &str| {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        Some((number(major)?, number(minor)?))
    });
    match parsed {
        Some((major, minor)) if major == READER.0 => Ok((major, minor)),
        Some(_) => Err(format!(
            "`{VERSION_KEY}` is {text:?}, a major version this reader ({DOCUMENT_VERSION}) \
             cannot read"
        )),
        None => Err(format!(
            "`{VERSION_KEY}` must be MAJOR.MINOR, such as \"{DOCUMENT_VERSION}\"; found {text:?}"
        )),
    }
}

/// What a JSON value is, for messages.
fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

fn strings(key: &str, items: &[serde_json::Value], what: &str) -> Result<Vec<Box<str>>, String> {
    items
        .iter()
        .map(|i| match i {
            serde_json::Value::String(s) => Ok(s.as_str().into()),
            other => Err(format!(
                "`{key}` must be {what}, found a list holding {}",
                kind(other)
            )),
        })
        .collect()
}

/// The extras of the `extra` key: a string, a list of strings, `null` or `""` for none.
fn extra_names(value: &serde_json::Value) -> Result<Vec<String>, String> {
    match value {
        serde_json::Value::Null => Ok(Vec::new()),
        serde_json::Value::String(s) if s.is_empty() => Ok(Vec::new()),
        serde_json::Value::String(s) => Ok(vec![s.clone()]),
        serde_json::Value::Array(items) => {
            Ok(strings("extra", items, "a string or a list of strings")?
                .into_iter()
                .map(String::from)
                .collect())
        }
        other => Err(format!(
            "`extra` must be a string or a list of strings, found {}",
            kind(other)
        )),
    }
}

/// A field's JSON value as an [`EnvValue`] of the field's type, unchecked.
fn field_value(field: Field, key: &str, value: serde_json::Value) -> Result<EnvValue, String> {
    let is_set = field.field_type() == FieldType::Set;
    Ok(match value {
        serde_json::Value::Null => EnvValue::Unknown,
        serde_json::Value::String(s) if !is_set => {
            if s.is_empty() && field.is_extended() {
                EnvValue::Absent
            } else {
                EnvValue::String(s.into())
            }
        }
        serde_json::Value::Array(items) if is_set => {
            let items = strings(key, &items, "a list of strings")?;
            if items.is_empty() && field.is_extended() {
                EnvValue::Absent
            } else {
                EnvValue::Set(items)
            }
        }
        other => {
            let expected = if is_set {
                "a list of strings"
            } else {
                "a string"
            };
            return Err(format!(
                "`{key}` must be {expected} (or null for Unknown), found {}",
                kind(&other)
            ));
        }
    })
}

/// A JSON object's entries in order, refusing a key written twice.
struct Entries(Vec<(String, serde_json::Value)>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object of field name → value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries, A::Error> {
                let mut entries: Vec<(String, serde_json::Value)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if !seen.insert(key.clone()) {
                        return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
                    }
                    entries.push((key, map.next_value()?));
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(text: &str) -> Vec<String> {
        EnvironmentDocument::parse(text)
            .unwrap()
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_version_key() {
        let doc = EnvironmentDocument::parse(r#"{"os_name": "nt"}"#).unwrap();
        assert_eq!(doc.version(), (0, 1));
        assert!(doc.warnings().is_empty());
        let doc = EnvironmentDocument::parse(r#"{"$version": "0.2", "os_name": "nt"}"#).unwrap();
        assert_eq!(doc.version(), (0, 2));
        assert!(doc.warnings().is_empty());
        assert_eq!(doc.values().count(), 1, "`$version` is not a field");
        // A higher MINOR is read, with a warning; its unknown keys are ignored, its known
        // fields still checked.
        let doc = EnvironmentDocument::parse(
            r#"{"$version": "0.3", "os_name": "nt", "npu_version": "1"}"#,
        )
        .unwrap();
        assert_eq!(doc.version(), (0, 3));
        let names: Vec<&str> = doc.warnings().iter().map(DocumentWarning::name).collect();
        assert_eq!(
            names,
            ["newer-environment-version", "unknown-environment-key"]
        );
        assert!(doc.warnings()[0].to_string().contains("0.3"));
        let err = EnvironmentDocument::parse(r#"{"$version": "0.3", "cuda_version": "twelve"}"#)
            .unwrap_err();
        assert!(err.contains("cuda_version"), "{err}");
        for (doc, needle) in [
            (r#"{"$version": "1.0"}"#, "major version"),
            (r#"{"$version": 0.2}"#, "must be a string"),
            (r#"{"$version": "0.2.1"}"#, "MAJOR.MINOR"),
            (r#"{"$version": "0."}"#, "MAJOR.MINOR"),
            (r#"{"$version": "v0.2"}"#, "MAJOR.MINOR"),
            (r#"{"$version": "0.2", "$version": "0.2"}"#, "duplicate key"),
        ] {
            let err = EnvironmentDocument::parse(doc).unwrap_err();
            assert!(err.contains(needle), "{doc}: {err}");
        }
    }

    #[test]
    fn unknown_keys_are_ignored_with_a_warning() {
        assert_eq!(
            warnings(r#"{"$schema": "x", "os_name": "nt", "cuda_verison": "12"}"#),
            [
                "unknown-environment-key: `$schema` is not a field of environment documents \
                 0.2; ignored",
                "unknown-environment-key: `cuda_verison` is not a field of environment \
                 documents 0.2; ignored",
            ]
        );
        // The caller's request is not an unknown key.
        assert!(
            warnings(r#"{"extra": ["a"], "extras": ["b"], "dependency_groups": []}"#).is_empty()
        );
    }

    /// SPEC §4.3: an extended `Version` value outside R is `invalid-environment`; a standard
    /// version field keeps the full PEP 440 domain.
    #[test]
    fn extended_versions_are_release_only() {
        for value in [
            "12.8rc1",
            "12.8.post1",
            "12.8.dev0",
            "12.8+local",
            "1!12.8",
            "v12.8",
        ] {
            let text = format!(r#"{{"cuda_version": "{value}"}}"#);
            let err = EnvironmentDocument::parse(&text).unwrap_err();
            assert!(err.to_string().contains("release-only"), "{value}: {err}");
        }
        let doc = EnvironmentDocument::parse(
            r#"{"cuda_version": "12.8", "gpu_backends": ["cuda"], "cudnn_version": "9.1.0",
                "cudnn_cuda_version": "12.4", "python_full_version": "3.14.0rc1"}"#,
        )
        .unwrap();
        assert_eq!(
            doc.value(Field::CudaVersion),
            Some(&EnvValue::String("12.8".into()))
        );
    }

    #[test]
    fn values_types_and_extras() {
        let doc = EnvironmentDocument::parse(
            "\u{feff}{\"python_version\": \"3.12\", \"cuda_version\": \"\", \"gpu_backends\": [], \
             \"interpreter_arch\": \"AMD64\", \"rocm_version\": null, \"extra\": [\"Test\"]}",
        )
        .unwrap();
        assert_eq!(doc.value(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(doc.value(Field::GpuBackends), Some(&EnvValue::Absent));
        assert_eq!(doc.value(Field::RocmVersion), Some(&EnvValue::Unknown));
        assert_eq!(
            doc.value(Field::InterpreterArch),
            Some(&EnvValue::String("x86_64".into()))
        );
        assert_eq!(doc.extras(), ["Test"]);
        let env = doc.to_environment();
        assert_eq!(env.extras().collect::<Vec<_>>(), ["test"]);
        assert_eq!(env.get(Field::OsName), None, "a missing field is left out");
        for (text, needle) in [
            (
                r#"{"os_name": "nt", "os_name": "posix"}"#,
                "duplicate key `os_name`",
            ),
            (
                r#"{"python_version": 3.12}"#,
                "`python_version` must be a string",
            ),
            (
                r#"{"gpu_backends": "cuda"}"#,
                "`gpu_backends` must be a list of strings",
            ),
            (r#"{"gpu_backends": [1]}"#, "found a list holding a number"),
            (r#"{"gpu_backends": ["CUDA"]}"#, "`gpu_backends`"),
            (r#"{"cuda_version": "abc"}"#, "not a PEP 440 version"),
            (r#"{"extra": 1}"#, "`extra` must be a string or a list"),
            (
                r#"{"gpu_backends": [], "cuda_version": "12.4"}"#,
                "I1 (SPEC §4.4)",
            ),
            (
                r#"{"glibc_version": "2.35", "musl_version": "1.2.5"}"#,
                "I5",
            ),
            ("[1]", "expected a JSON object"),
            ("", "EOF"),
        ] {
            let err = EnvironmentDocument::parse(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    /// A standard version field may hold text (an interpreter can report it, and a witness
    /// of `solve` can need it): kept, with a warning naming the key; an extended one may not.
    #[test]
    fn standard_version_fields_keep_text_with_a_warning() {
        let doc = EnvironmentDocument::parse(
            r#"{"python_full_version": "dev", "python_version": "3.12", "implementation_version": "x"}"#,
        )
        .unwrap();
        assert_eq!(
            doc.value(Field::PythonFullVersion),
            Some(&EnvValue::String("dev".into()))
        );
        assert_eq!(
            doc.warnings(),
            [
                DocumentWarning::TextVersion {
                    key: "python_full_version".into(),
                    value: "dev".into()
                },
                DocumentWarning::TextVersion {
                    key: "implementation_version".into(),
                    value: "x".into()
                }
            ]
        );
        assert_eq!(doc.warnings()[0].name(), "text-version-value");
        assert!(EnvironmentDocument::parse(r#"{"cuda_version": "dev"}"#).is_err());
        assert!(EnvironmentDocument::parse(r#"{"glibc_version": "dev"}"#).is_err());
    }
}
