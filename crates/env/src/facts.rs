//! [`Facts`]: field values with their [`Provenance`], the currency between providers.

use std::borrow::Cow;
use std::fmt;

use markerspec_pep508::{EnvValue, Environment, Field, FieldSet, FieldType};

/// Where a value came from: the layer (provider) that produced it, the method it used, and
/// optionally a detail, which for an Unknown value says why it is unknown and for an Absent one
/// what was looked for.
///
/// ```
/// use markerspec_env::Provenance;
/// let p = Provenance::new("cuda", "nvml").with_detail("no NVIDIA driver");
/// assert_eq!(p.to_string(), "cuda (nvml): no NVIDIA driver");
/// assert_eq!((p.layer(), p.method(), p.detail()), ("cuda", "nvml", Some("no NVIDIA driver")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Provenance {
    layer: Cow<'static, str>,
    method: Cow<'static, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

impl Provenance {
    /// A provenance without detail.
    ///
    /// See the example on [`Provenance`].
    pub fn new(
        layer: impl Into<Cow<'static, str>>,
        method: impl Into<Cow<'static, str>>,
    ) -> Provenance {
        Provenance {
            layer: layer.into(),
            method: method.into(),
            detail: None,
        }
    }

    /// The same provenance with a detail: why a value is Unknown, what made it Absent, or any
    /// other note a person should see beside the value.
    ///
    /// See the example on [`Provenance`].
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Provenance {
        let detail = detail.into();
        self.detail = (!detail.is_empty()).then_some(detail);
        self
    }

    /// The layer: the provider's name (`host`, `python`, `gpu`, `fixture`, `override`, …), or
    /// for the GPU provider's vendor fields the stack that answered (`cuda`, `rocm`).
    ///
    /// See the example on [`Provenance`].
    pub fn layer(&self) -> &str {
        &self.layer
    }

    /// The method within the layer: `uname`, `ld.so --version`, `nvml`, a variable's name, …
    ///
    /// See the example on [`Provenance`].
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The detail, when there is one.
    ///
    /// See the example on [`Provenance`].
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.layer, self.method)?;
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        Ok(())
    }
}

/// One field's value and where it came from.
///
/// ```
/// use markerspec_env::FixtureProvider;
/// use markerspec_pep508::{EnvValue, Field};
///
/// let facts = FixtureProvider::builtin("linux-x86_64-cpython-3.12").unwrap().facts();
/// let fact = facts.get(Field::SysPlatform).unwrap();
/// assert_eq!(fact.value, EnvValue::String("linux".into()));
/// assert_eq!(fact.provenance.layer(), "fixture");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// The value: Known (a string or a set), Absent, or Unknown.
    pub value: EnvValue,
    /// Where it came from.
    pub provenance: Provenance,
}

/// Field values with provenance: what one provider answers, and what layering builds.
///
/// A field with no entry was not answered (providers answer only what they know about);
/// [`Facts::to_environment`] leaves such fields out, which an evaluator reads as Unknown.
///
/// ```
/// use markerspec_env::{Facts, Provenance};
/// use markerspec_pep508::{EnvValue, Field, FieldSet};
///
/// let mut facts = Facts::new();
/// facts.known(Field::SysPlatform, "linux", Provenance::new("host", "uname"));
/// facts.known_set(Field::GpuBackends, ["cuda"], Provenance::new("cuda", "nvml"));
/// facts.unknown(Field::CudaVersion, Provenance::new("cuda", "nvml").with_detail("timed out"));
/// assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Unknown));
/// assert_eq!(facts.get(Field::CudaVersion).unwrap().provenance.detail(), Some("timed out"));
///
/// // Reading the entries.
/// assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
/// assert_eq!(facts.fields().iter().count(), 3);
/// assert_eq!(facts.iter().count(), 3);
/// assert!(!facts.is_empty() && Facts::new().is_empty());
///
/// // A later layer replaces entries field by field; its warnings are kept.
/// let mut later = Facts::new();
/// later.insert(Field::CudaVersion, EnvValue::String("12.4".into()), Provenance::new("override", "MARKERSPEC_CUDA_VERSION"));
/// later.absent(Field::RocmVersion, Provenance::new("rocm", "version file"));
/// later.warn("an example warning");
/// facts.overlay(later);
/// assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
/// assert_eq!(facts.warnings(), ["an example warning"]);
///
/// // Dropping entries, and what an evaluator reads.
/// assert!(facts.remove(Field::RocmVersion).is_some());
/// facts.retain(FieldSet::single(Field::SysPlatform).union(FieldSet::single(Field::CudaVersion)));
/// assert_eq!(facts.value(Field::GpuBackends), None);
/// let env = facts.to_environment();
/// assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::String("12.4".into())));
/// assert_eq!(env.get(Field::GpuBackends), None); // not answered: Unknown to the evaluator
///
/// // As an environment document, and the provenance beside it.
/// let json: serde_json::Value = serde_json::from_str(&facts.to_json()).unwrap();
/// assert_eq!(json["cuda_version"], "12.4");
/// assert_eq!(facts.provenance_json()["cuda_version"]["layer"], "override");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    slots: Vec<Option<Fact>>,
    warnings: Vec<String>,
}

impl Facts {
    /// No facts.
    ///
    /// See the example on [`Facts`].
    pub fn new() -> Facts {
        Facts::default()
    }

    fn slot_mut(&mut self, field: Field) -> &mut Option<Fact> {
        if self.slots.len() < Field::COUNT {
            self.slots.resize(Field::COUNT, None);
        }
        &mut self.slots[field.index()]
    }

    /// Records `value` for `field`, replacing what was there.
    ///
    /// A set value for a field that holds a string, or a string for a set field, is stored as
    /// Unknown with a detail saying so: providers never produce such values, and a mistake must
    /// not become a fact.
    ///
    /// See the example on [`Facts`].
    pub fn insert(&mut self, field: Field, value: EnvValue, provenance: Provenance) -> &mut Facts {
        let is_set = field.field_type() == FieldType::Set;
        let fact = match value {
            EnvValue::Set(_) if !is_set => Fact {
                value: EnvValue::Unknown,
                provenance: provenance.with_detail(format!(
                    "a list was produced for the string field `{field}`"
                )),
            },
            EnvValue::String(_) if is_set => Fact {
                value: EnvValue::Unknown,
                provenance: provenance
                    .with_detail(format!("a string was produced for the set field `{field}`")),
            },
            EnvValue::Set(mut items) => {
                items.sort();
                items.dedup();
                Fact {
                    value: if items.is_empty() && field.is_extended() {
                        EnvValue::Absent
                    } else {
                        EnvValue::Set(items)
                    },
                    provenance,
                }
            }
            value => Fact { value, provenance },
        };
        *self.slot_mut(field) = Some(fact);
        self
    }

    /// Records a known string (for a set field, a one-member set).
    ///
    /// See the example on [`Facts`].
    pub fn known(
        &mut self,
        field: Field,
        value: impl Into<String>,
        provenance: Provenance,
    ) -> &mut Facts {
        let value: String = value.into();
        let value = if field.field_type() == FieldType::Set {
            EnvValue::Set(vec![value.into()])
        } else {
            EnvValue::String(value.into())
        };
        self.insert(field, value, provenance)
    }

    /// Records a known set (sorted, without repeats); an empty set of an extended field is
    /// stored as Absent, which is the same value.
    ///
    /// See the example on [`Facts`].
    pub fn known_set<I, S>(&mut self, field: Field, items: I, provenance: Provenance) -> &mut Facts
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let items = items
            .into_iter()
            .map(|s| s.into().into_boxed_str())
            .collect();
        self.insert(field, EnvValue::Set(items), provenance)
    }

    /// Records that the fact does not exist here.
    ///
    /// See the example on [`Facts`].
    pub fn absent(&mut self, field: Field, provenance: Provenance) -> &mut Facts {
        self.insert(field, EnvValue::Absent, provenance)
    }

    /// Records that the fact could not be established; the provenance's detail should say why.
    ///
    /// See the example on [`Facts`].
    pub fn unknown(&mut self, field: Field, provenance: Provenance) -> &mut Facts {
        self.insert(field, EnvValue::Unknown, provenance)
    }

    /// Removes `field`'s entry.
    ///
    /// See the example on [`Facts`].
    pub fn remove(&mut self, field: Field) -> Option<Fact> {
        self.slot_mut(field).take()
    }

    /// The entry for `field`.
    ///
    /// See the example on [`Facts`].
    pub fn get(&self, field: Field) -> Option<&Fact> {
        self.slots.get(field.index()).and_then(Option::as_ref)
    }

    /// The value of `field`.
    ///
    /// See the example on [`Facts`].
    pub fn value(&self, field: Field) -> Option<&EnvValue> {
        self.get(field).map(|f| &f.value)
    }

    /// The value of `field` when it is a known string.
    ///
    /// See the example on [`Facts`].
    pub fn string(&self, field: Field) -> Option<&str> {
        match self.value(field) {
            Some(EnvValue::String(s)) => Some(s),
            _ => None,
        }
    }

    /// The fields that have an entry.
    ///
    /// See the example on [`Facts`].
    pub fn fields(&self) -> FieldSet {
        self.iter().map(|(f, _)| f).collect()
    }

    /// Every entry, in registry order.
    ///
    /// See the example on [`Facts`].
    pub fn iter(&self) -> impl Iterator<Item = (Field, &Fact)> {
        Field::ALL
            .iter()
            .filter_map(move |f| self.get(*f).map(|fact| (*f, fact)))
    }

    /// Whether there is no entry.
    ///
    /// See the example on [`Facts`].
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// Lays `later` over these facts: each of its entries replaces this one's, field by field;
    /// its warnings are appended.
    ///
    /// See the example on [`Facts`].
    pub fn overlay(&mut self, later: Facts) {
        let Facts { slots, warnings } = later;
        for (i, slot) in slots.into_iter().enumerate() {
            if let (Some(fact), Some(field)) = (slot, Field::ALL.get(i)) {
                *self.slot_mut(*field) = Some(fact);
            }
        }
        self.warnings.extend(warnings);
    }

    /// Keeps only the entries of `fields`.
    ///
    /// See the example on [`Facts`].
    pub fn retain(&mut self, fields: FieldSet) {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if Field::ALL.get(i).is_some_and(|f| !fields.contains(*f)) {
                *slot = None;
            }
        }
    }

    /// Adds a warning for people (an ignored override, a failed optional layer).
    ///
    /// See the example on [`Facts`].
    pub fn warn(&mut self, warning: impl Into<String>) {
        self.warnings.push(warning.into());
    }

    /// The warnings, in the order they arose.
    ///
    /// See the example on [`Facts`].
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The environment an evaluator reads: every entry's value; fields without an entry are
    /// left out (Unknown to the evaluator).
    ///
    /// See the example on [`Facts`].
    pub fn to_environment(&self) -> Environment {
        let mut env = Environment::new();
        for (field, fact) in self.iter() {
            if matches!(field, Field::Extra) {
                continue;
            }
            // `insert` keeps values and field types consistent, so this cannot fail.
            let _ = env.set(field, fact.value.clone());
        }
        env
    }

    /// The environment document of SPEC §11 (`$version` first, then every entry; Unknown as
    /// `null`, Absent as `""` or `[]`), pretty-printed, loadable by `markerspec eval --env`.
    ///
    /// See the example on [`Facts`].
    pub fn to_json(&self) -> String {
        let mut doc = serde_json::Map::new();
        doc.insert(
            crate::document::VERSION_KEY.to_owned(),
            serde_json::Value::from(crate::document::DOCUMENT_VERSION),
        );
        if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self.to_environment()) {
            doc.extend(fields);
        }
        serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into())
    }

    /// Every entry's provenance as a JSON object: field name → `{"layer", "method",
    /// "detail"?}`.
    ///
    /// See the example on [`Facts`].
    pub fn provenance_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (field, fact) in self.iter() {
            map.insert(
                field.name().to_owned(),
                serde_json::to_value(&fact.provenance).unwrap_or(serde_json::Value::Null),
            );
        }
        serde_json::Value::Object(map)
    }
}

/// Every field that describes the target rather than the caller's request: the standard and
/// extended fields, without `extra`, `extras` and `dependency_groups`.
///
/// ```
/// use markerspec_pep508::Field;
///
/// let fields = markerspec_env::fact_fields();
/// assert!(fields.contains(Field::PythonVersion) && fields.contains(Field::CudaVersion));
/// assert!(!fields.contains(Field::Extra));
/// ```
pub fn fact_fields() -> FieldSet {
    Field::ALL
        .iter()
        .copied()
        .filter(|f| !matches!(f, Field::Extra | Field::Extras | Field::DependencyGroups))
        .collect()
}

/// The variant fields (PEP 825): they describe a wheel, not a machine.
///
/// ```
/// use markerspec_pep508::Field;
///
/// assert!(markerspec_env::variant_fields().contains(Field::VariantLabel));
/// assert!(!markerspec_env::variant_fields().contains(Field::CudaVersion));
/// ```
pub fn variant_fields() -> FieldSet {
    [
        Field::VariantLabel,
        Field::VariantNamespaces,
        Field::VariantFeatures,
        Field::VariantProperties,
    ]
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> Provenance {
        Provenance::new("test", "unit")
    }

    #[test]
    fn sets_are_sorted_and_empty_extended_sets_are_absent() {
        let mut facts = Facts::new();
        facts.known_set(Field::GpuBackends, ["rocm", "cuda", "cuda"], p());
        facts.known_set(Field::CudaComputeCapabilities, Vec::<String>::new(), p());
        assert_eq!(
            facts.value(Field::GpuBackends),
            Some(&EnvValue::Set(vec!["cuda".into(), "rocm".into()]))
        );
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            Some(&EnvValue::Absent)
        );
    }

    #[test]
    fn mistyped_values_become_unknown() {
        let mut facts = Facts::new();
        facts.insert(Field::CudaVersion, EnvValue::Set(vec!["1".into()]), p());
        facts.insert(Field::GpuBackends, EnvValue::String("cuda".into()), p());
        for f in [Field::CudaVersion, Field::GpuBackends] {
            let fact = facts.get(f).unwrap();
            assert_eq!(fact.value, EnvValue::Unknown);
            assert!(fact.provenance.detail().unwrap().contains(f.name()));
        }
    }

    #[test]
    fn overlay_replaces_field_by_field() {
        let mut base = Facts::new();
        base.known(Field::SysPlatform, "linux", p());
        base.unknown(Field::PythonVersion, p());
        let mut later = Facts::new();
        later.known(
            Field::PythonVersion,
            "3.12",
            Provenance::new("python", "probe"),
        );
        later.warn("w");
        base.overlay(later);
        assert_eq!(base.string(Field::SysPlatform), Some("linux"));
        assert_eq!(base.string(Field::PythonVersion), Some("3.12"));
        assert_eq!(
            base.get(Field::PythonVersion).unwrap().provenance.layer(),
            "python"
        );
        assert_eq!(base.warnings(), ["w"]);
    }

    #[test]
    fn json_document_and_provenance() {
        let mut facts = Facts::new();
        facts.known(Field::SysPlatform, "linux", p());
        facts.absent(Field::CudaVersion, p().with_detail("no driver"));
        facts.absent(Field::GpuBackends, p());
        facts.unknown(Field::RocmVersion, p());
        let doc: serde_json::Value = serde_json::from_str(&facts.to_json()).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"$version": "0.2", "sys_platform": "linux", "gpu_backends": [],
                "cuda_version": "", "rocm_version": null})
        );
        let back: Environment = serde_json::from_str(&facts.to_json()).unwrap();
        assert_eq!(back.get(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(
            facts.provenance_json()["cuda_version"],
            serde_json::json!({"layer": "test", "method": "unit", "detail": "no driver"})
        );
    }

    #[test]
    fn fact_fields_leave_out_the_request() {
        let f = fact_fields();
        assert!(f.contains(Field::CudaVersion) && f.contains(Field::OsName));
        assert!(!f.contains(Field::Extra) && !f.contains(Field::Extras));
        assert!(!f.contains(Field::DependencyGroups));
    }
}
