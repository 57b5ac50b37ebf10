//! The [`EnvironmentProvider`] trait, its error, and [`Layers`].

use std::fmt;

use markerspec_pep508::{EnvValue, FieldSet};

use crate::facts::{Facts, Provenance};
use crate::overrides::Overrides;

/// A source of environment facts: the host, a Python interpreter, the GPU stack, a fixture
/// file.
///
/// Providers are cheap to construct (nothing is detected until [`provide`](Self::provide)) and
/// safe to share between threads. A provider answers only the fields it knows about
/// ([`fields`](Self::fields)); for those it answers Known, Absent or Unknown with a reason, and
/// it fails with a [`ProviderError`] only when it cannot run at all (an interpreter that does
/// not exist, a fixture file that is not valid).
///
/// A provider of one's own, layered over a fixture:
///
/// ```
/// use markerspec_env::{
///     EnvironmentProvider, Facts, FixtureProvider, Layers, Provenance, ProviderError, fact_fields,
/// };
/// use markerspec_pep508::{Field, FieldSet};
///
/// /// The CI machines: always this kernel.
/// struct CiRunner;
///
/// impl EnvironmentProvider for CiRunner {
///     fn name(&self) -> &str {
///         "ci"
///     }
///     fn fields(&self) -> FieldSet {
///         FieldSet::single(Field::PlatformRelease)
///     }
///     fn provide(&self, _: FieldSet) -> Result<Facts, ProviderError> {
///         let mut facts = Facts::new();
///         facts.known(Field::PlatformRelease, "6.8.0-ci", Provenance::new("ci", "fixed"));
///         Ok(facts)
///     }
/// }
///
/// let layers = Layers::new()
///     .with(FixtureProvider::builtin("linux-x86_64-cpython-3.12")?)
///     .with(CiRunner); // later layers win
/// let facts = layers.provide(fact_fields())?;
/// assert_eq!(facts.string(Field::PlatformRelease), Some("6.8.0-ci"));
/// assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
/// # Ok::<(), ProviderError>(())
/// ```
pub trait EnvironmentProvider: Send + Sync {
    /// A short name, used as the layer in [`Provenance`] (`host`, `python`, `cuda`, …).
    fn name(&self) -> &str;

    /// The fields this provider can answer.
    ///
    /// See the example on [`EnvironmentProvider`].
    fn fields(&self) -> FieldSet;

    /// Detects the fields of `request` that this provider answers. Fields outside `request`
    /// may be answered too (when they come for free); callers ignore them or keep them.
    ///
    /// # Errors
    /// When the provider cannot run at all; see [`ProviderErrorKind`].
    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError>;
}

impl<P: EnvironmentProvider + ?Sized> EnvironmentProvider for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn fields(&self) -> FieldSet {
        (**self).fields()
    }
    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        (**self).provide(request)
    }
}

/// What kind of failure a [`ProviderError`] is.
///
/// ```
/// use markerspec_env::{FixtureProvider, ProviderErrorKind};
///
/// let err = FixtureProvider::builtin("no-such-fixture").unwrap_err();
/// assert_eq!(err.kind(), ProviderErrorKind::UnknownFixture);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// A program or file the provider needs does not exist (`python3` not on `PATH`).
    NotFound,
    /// A program ran and failed (non-zero exit, killed by a signal), or could not be started.
    Failed,
    /// A program did not finish within the time limit and was killed.
    TimedOut,
    /// A program's output was not what the provider expects.
    InvalidOutput,
    /// An override variable's value is not valid for its field (SPEC `invalid-override`).
    InvalidOverride,
    /// An environment document is not valid (SPEC `invalid-environment`).
    InvalidEnvironment,
    /// No built-in fixture has that name.
    UnknownFixture,
    /// A file could not be read.
    Io,
}

impl ProviderErrorKind {
    /// The kind's stable code, as `spec/SPEC.md` names it where it does (`invalid-override`,
    /// `invalid-environment`), in the same style otherwise.
    ///
    /// ```
    /// use markerspec_env::ProviderErrorKind;
    /// assert_eq!(ProviderErrorKind::InvalidOverride.code(), "invalid-override");
    /// ```
    pub fn code(self) -> &'static str {
        match self {
            ProviderErrorKind::NotFound => "not-found",
            ProviderErrorKind::Failed => "failed",
            ProviderErrorKind::TimedOut => "timed-out",
            ProviderErrorKind::InvalidOutput => "invalid-output",
            ProviderErrorKind::InvalidOverride => "invalid-override",
            ProviderErrorKind::InvalidEnvironment => "invalid-environment",
            ProviderErrorKind::UnknownFixture => "unknown-fixture",
            ProviderErrorKind::Io => "io",
        }
    }
}

/// A provider that could not run: which provider, what kind of failure, and a message that
/// names the program, file or variable involved.
///
/// ```
/// use markerspec_env::{ProviderError, ProviderErrorKind};
/// let e = ProviderError::new("python", ProviderErrorKind::NotFound, "`python9` not found on PATH");
/// assert_eq!(e.to_string(), "python: `python9` not found on PATH");
/// assert_eq!(e.code(), "not-found");
/// assert_eq!(e.provider(), "python");
/// assert_eq!(e.kind(), ProviderErrorKind::NotFound);
/// assert_eq!(e.message(), "`python9` not found on PATH");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{provider}: {message}")]
pub struct ProviderError {
    provider: String,
    kind: ProviderErrorKind,
    message: String,
}

impl ProviderError {
    /// A new error.
    ///
    /// See the example on [`ProviderError`].
    pub fn new(
        provider: impl Into<String>,
        kind: ProviderErrorKind,
        message: impl Into<String>,
    ) -> ProviderError {
        ProviderError {
            provider: provider.into(),
            kind,
            message: message.into(),
        }
    }

    /// The provider that failed.
    ///
    /// See the example on [`ProviderError`].
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// What kind of failure it is.
    ///
    /// See the example on [`ProviderError`].
    pub fn kind(&self) -> ProviderErrorKind {
        self.kind
    }

    /// The message, without the provider's name.
    ///
    /// See the example on [`ProviderError`].
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The stable code of its kind ([`ProviderErrorKind::code`]).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }
}

/// What a layer's failure means for the whole detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnError {
    /// The detection fails.
    Fail,
    /// The layer's fields that no lower layer knows become Unknown, with the error as the
    /// reason, and a warning.
    Unknown,
}

struct Layer {
    provider: Box<dyn EnvironmentProvider>,
    on_error: OnError,
}

/// Providers stacked in layers: each later layer's answers replace the earlier ones field by
/// field; the override variables ([`Overrides`]) apply last. Every requested field that no layer
/// answered is Unknown, with a provenance that says so.
///
/// ```
/// use markerspec_env::{Layers, FixtureProvider, Overrides, fact_fields};
/// use markerspec_pep508::Field;
///
/// let layers = Layers::new()
///     .with(FixtureProvider::builtin("linux-x86_64-cpython-3.12").unwrap())
///     .with_overrides(Overrides::from_vars([("MARKERSPEC_CUDA_VERSION", "12.4")]));
/// let facts = layers.provide(fact_fields()).unwrap();
/// assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
/// assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
/// assert_eq!(layers.names(), ["fixture", "override"]);
///
/// // A layer whose failure is not fatal: its fields become Unknown, with a warning.
/// use markerspec_env::{EnvironmentProvider, Facts, ProviderError, ProviderErrorKind};
/// use markerspec_pep508::{EnvValue, FieldSet};
///
/// struct Broken;
/// impl EnvironmentProvider for Broken {
///     fn name(&self) -> &str {
///         "broken"
///     }
///     fn fields(&self) -> FieldSet {
///         FieldSet::single(Field::PythonVersion)
///     }
///     fn provide(&self, _: FieldSet) -> Result<Facts, ProviderError> {
///         Err(ProviderError::new("broken", ProviderErrorKind::NotFound, "gone"))
///     }
/// }
/// let facts = Layers::new().with_optional(Broken).provide(fact_fields()).unwrap();
/// assert_eq!(facts.value(Field::PythonVersion), Some(&EnvValue::Unknown));
/// assert!(!facts.warnings().is_empty());
/// assert!(Layers::new().with(Broken).provide(fact_fields()).is_err());
/// ```
#[derive(Default)]
pub struct Layers {
    layers: Vec<Layer>,
    overrides: Option<Overrides>,
}

impl fmt::Debug for Layers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layers")
            .field(
                "layers",
                &self
                    .layers
                    .iter()
                    .map(|l| (l.provider.name(), l.on_error))
                    .collect::<Vec<_>>(),
            )
            .field("overrides", &self.overrides)
            .finish()
    }
}

impl Layers {
    /// No layers.
    ///
    /// See the example on [`Layers`].
    pub fn new() -> Layers {
        Layers::default()
    }

    /// Adds a layer above the others; its failure fails the detection.
    ///
    /// See the example on [`Layers`].
    #[must_use]
    pub fn with(mut self, provider: impl EnvironmentProvider + 'static) -> Layers {
        self.layers.push(Layer {
            provider: Box::new(provider),
            on_error: OnError::Fail,
        });
        self
    }

    /// Adds a layer above the others whose failure is not fatal: its fields that no lower layer
    /// knows become Unknown, with the error as the reason, and the error is kept as a warning. For the default `python3`,
    /// whose absence SPEC §8 answers with Unknown interpreter fields.
    ///
    /// See the example on [`Layers`].
    #[must_use]
    pub fn with_optional(mut self, provider: impl EnvironmentProvider + 'static) -> Layers {
        self.layers.push(Layer {
            provider: Box::new(provider),
            on_error: OnError::Unknown,
        });
        self
    }

    /// Sets the override layer, applied after every provider.
    ///
    /// See the example on [`Layers`].
    #[must_use]
    pub fn with_overrides(mut self, overrides: Overrides) -> Layers {
        self.overrides = Some(overrides);
        self
    }

    /// The names of the layers, bottom first (`override` last when set).
    ///
    /// See the example on [`Layers`].
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.layers.iter().map(|l| l.provider.name()).collect();
        if self.overrides.is_some() {
            names.push("override");
        }
        names
    }

    /// Runs every layer that answers a requested field, in order, then the overrides, and
    /// fills every requested field nobody answered with Unknown. Only requested fields are
    /// kept.
    ///
    /// # Errors
    /// The first failure of a layer added with [`with`](Self::with), or an invalid override.
    ///
    /// See the example on [`Layers`].
    pub fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        for layer in &self.layers {
            let fields = layer.provider.fields();
            let wanted: FieldSet = request.iter().filter(|f| fields.contains(*f)).collect();
            if wanted.is_empty() {
                continue;
            }
            match layer.provider.provide(wanted) {
                Ok(mut answer) => {
                    answer.retain(request);
                    facts.overlay(answer);
                }
                Err(error) if layer.on_error == OnError::Unknown => {
                    let provenance = Provenance::new(layer.provider.name().to_owned(), "failed")
                        .with_detail(error.message().to_owned());
                    // What a lower layer knows stays; the rest is Unknown for this reason.
                    for field in wanted.iter() {
                        let known = facts
                            .value(field)
                            .is_some_and(|v| !matches!(v, EnvValue::Unknown));
                        if !known {
                            facts.unknown(field, provenance.clone());
                        }
                    }
                    facts.warn(error.to_string());
                }
                Err(error) => return Err(error),
            }
        }
        for field in request.iter() {
            if facts.get(field).is_none() {
                facts.unknown(
                    field,
                    Provenance::new("none", "no layer")
                        .with_detail("no provider answers this field here"),
                );
            }
        }
        if let Some(overrides) = &self.overrides {
            overrides.apply(&mut facts, request)?;
        }
        Ok(facts)
    }
}

impl EnvironmentProvider for Layers {
    fn name(&self) -> &str {
        "layers"
    }

    fn fields(&self) -> FieldSet {
        let mut all = FieldSet::EMPTY;
        for layer in &self.layers {
            all = all.union(layer.provider.fields());
        }
        all
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        Layers::provide(self, request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_pep508::Field;

    struct Fixed(&'static str, Vec<(Field, &'static str)>);

    impl EnvironmentProvider for Fixed {
        fn name(&self) -> &str {
            self.0
        }
        fn fields(&self) -> FieldSet {
            self.1.iter().map(|(f, _)| *f).collect()
        }
        fn provide(&self, _: FieldSet) -> Result<Facts, ProviderError> {
            let mut facts = Facts::new();
            for (f, v) in &self.1 {
                facts.known(*f, *v, Provenance::new(self.0, "fixed"));
            }
            Ok(facts)
        }
    }

    struct Broken;

    impl EnvironmentProvider for Broken {
        fn name(&self) -> &str {
            "broken"
        }
        fn fields(&self) -> FieldSet {
            FieldSet::single(Field::PythonVersion)
        }
        fn provide(&self, _: FieldSet) -> Result<Facts, ProviderError> {
            Err(ProviderError::new(
                "broken",
                ProviderErrorKind::NotFound,
                "`python9` not found",
            ))
        }
    }

    fn request() -> FieldSet {
        [Field::SysPlatform, Field::PythonVersion, Field::CudaVersion]
            .into_iter()
            .collect()
    }

    #[test]
    fn later_layers_win_and_missing_fields_are_unknown() {
        let layers = Layers::new()
            .with(Fixed(
                "a",
                vec![(Field::SysPlatform, "linux"), (Field::PythonVersion, "3.9")],
            ))
            .with(Fixed("b", vec![(Field::PythonVersion, "3.12")]));
        let facts = layers.provide(request()).unwrap();
        assert_eq!(facts.string(Field::SysPlatform), Some("linux"));
        assert_eq!(facts.string(Field::PythonVersion), Some("3.12"));
        assert_eq!(
            facts.get(Field::PythonVersion).unwrap().provenance.layer(),
            "b"
        );
        let cuda = facts.get(Field::CudaVersion).unwrap();
        assert_eq!(cuda.value, EnvValue::Unknown);
        assert_eq!(cuda.provenance.layer(), "none");
        assert_eq!(facts.fields(), request());
    }

    #[test]
    fn optional_layers_fail_into_unknown_and_required_ones_fail() {
        let layers = Layers::new().with_optional(Broken);
        let facts = layers.provide(request()).unwrap();
        let fact = facts.get(Field::PythonVersion).unwrap();
        assert_eq!(fact.value, EnvValue::Unknown);
        assert_eq!(fact.provenance.detail(), Some("`python9` not found"));
        assert_eq!(facts.warnings(), ["broken: `python9` not found"]);
        // What a lower layer knows survives the failure.
        let layers = Layers::new()
            .with(Fixed("a", vec![(Field::PythonVersion, "3.9")]))
            .with_optional(Broken);
        let facts = layers.provide(request()).unwrap();
        assert_eq!(facts.string(Field::PythonVersion), Some("3.9"));

        let err = Layers::new().with(Broken).provide(request()).unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::NotFound);
    }

    #[test]
    fn layers_skip_providers_with_nothing_requested() {
        let layers = Layers::new().with(Broken);
        let facts = layers
            .provide(FieldSet::single(Field::SysPlatform))
            .unwrap();
        assert_eq!(facts.value(Field::SysPlatform), Some(&EnvValue::Unknown));
    }

    #[test]
    fn providers_cross_threads() {
        fn check<T: Send + Sync>() {}
        check::<Layers>();
        check::<Facts>();
        check::<ProviderError>();
    }
}
