//! The configuration of parsing and evaluation: [`ParseOptions`] (dialect, [`Profile`],
//! limits) and [`EvalOptions`]. A parsed marker remembers its dialect and profile, so these
//! are chosen once, when the text is read.

use std::fmt;

use crate::field::Dialect;

/// Options for parsing: the dialect and the limits that make hostile input harmless.
///
/// ```
/// use markerspec_pep508::{Dialect, MarkerTree, ParseOptions, Profile};
/// let opts = ParseOptions::default().dialect(Dialect::Extended).max_nesting(8);
/// let m = MarkerTree::parse_with("cuda_version >= '12'", &opts, &mut Vec::new()).unwrap();
/// assert_eq!(m.to_string(), r#"cuda_version >= "12""#);
///
/// // Lock-file context, another profile, and the limits (each error has its code).
/// let parse = |text: &str, opts: &ParseOptions| MarkerTree::parse_with(text, opts, &mut Vec::new());
/// let lock = ParseOptions::default().lock_file(true).profile(Profile::Spec2026);
/// assert!(parse("'dev' in dependency_groups", &lock).is_ok());
/// assert_eq!(parse("'dev' in dependency_groups", &ParseOptions::default()).unwrap_err().code(), "M013");
/// let tight = ParseOptions::default().max_input_len(10);
/// assert_eq!(parse("os_name == 'posix'", &tight).unwrap_err().code(), "L001");
/// let tight = ParseOptions::default().max_clauses(1);
/// assert_eq!(parse("os_name == 'a' or os_name == 'b'", &tight).unwrap_err().code(), "L003");
/// let tight = ParseOptions::default().max_string_len(3);
/// assert_eq!(parse("os_name == 'posix'", &tight).unwrap_err().code(), "L004");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Which variables exist. Default: [`Dialect::Pep508`].
    pub dialect: Dialect,
    /// Which implementation's behaviour to follow for the standard fields. Default:
    /// [`Profile::Spec2026`]. The `packaging` profile accepts what pypa/packaging accepts
    /// (comparisons of two literals, a name ending in `_`, `extras` anywhere); the `uv` profile
    /// what uv-pep508 accepts (it drops the comparisons it cannot read, rejects `===` in
    /// markers, reads quoted strings without escapes and any Unicode whitespace as a separator).
    pub profile: Profile,
    /// Whether `extras` and `dependency_groups` exist (lock-file context). Default: false.
    /// Only the `spec-2026` profile enforces it (`M013`).
    pub lock_file: bool,
    /// Longest accepted input in bytes (`L001`). Default: 1 MiB.
    pub max_input_len: usize,
    /// Deepest accepted parenthesis nesting in a marker (`L002`). Default: 200, the limit
    /// pypa/packaging also enforces.
    pub max_nesting: usize,
    /// Most comparisons in one marker (`L003`). Default: 10,000.
    pub max_clauses: usize,
    /// Longest quoted string in bytes (`L004`). Default: 64 KiB.
    pub max_string_len: usize,
    /// Whether a parsed marker is prepared for evaluation when it is parsed (each quoted
    /// version read as a PEP 440 specifier once, kept with the tree), so that every evaluation
    /// reuses the work. Default: true. Off, nothing is prepared and each evaluation does that
    /// work for the comparisons it reads: cheaper for a marker evaluated once or never (a
    /// command that answers each line of its input once). Results are the same either way.
    pub prepare_evaluation: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            dialect: Dialect::Pep508,
            profile: Profile::Spec2026,
            lock_file: false,
            max_input_len: 1 << 20,
            max_nesting: 200,
            max_clauses: 10_000,
            max_string_len: 64 << 10,
            prepare_evaluation: true,
        }
    }
}

impl ParseOptions {
    /// Sets the dialect.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }
    /// Sets the behaviour profile.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }
    /// Enables or disables lock-file context (`extras`, `dependency_groups`).
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn lock_file(mut self, lock_file: bool) -> Self {
        self.lock_file = lock_file;
        self
    }
    /// Sets the input length limit in bytes.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn max_input_len(mut self, limit: usize) -> Self {
        self.max_input_len = limit;
        self
    }
    /// Sets the parenthesis nesting limit.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn max_nesting(mut self, limit: usize) -> Self {
        self.max_nesting = limit;
        self
    }
    /// Sets the limit on comparisons per marker.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn max_clauses(mut self, limit: usize) -> Self {
        self.max_clauses = limit;
        self
    }
    /// Sets whether a parsed marker is prepared for evaluation when it is parsed
    /// ([`ParseOptions::prepare_evaluation`]).
    #[must_use]
    pub fn prepare_evaluation(mut self, prepare: bool) -> Self {
        self.prepare_evaluation = prepare;
        self
    }
    /// Sets the limit on the length of a quoted string in bytes.
    ///
    /// See the example on [`ParseOptions`].
    #[must_use]
    pub fn max_string_len(mut self, limit: usize) -> Self {
        self.max_string_len = limit;
        self
    }
}

/// What to do with an Unknown result when a plain `bool` is wanted.
///
/// ```
/// use markerspec_pep508::{EnvValue, Environment, EvalOptions, Field, MarkerTree, UnknownPolicy};
///
/// let m: MarkerTree = "platform_machine == 'x86_64'".parse()?;
/// let mut env = Environment::new();
/// env.set(Field::PlatformMachine, EnvValue::Unknown).unwrap();
/// let install = EvalOptions::default().unknown(UnknownPolicy::True);
/// assert!(m.evaluate_with(&env, install)?);
/// assert_eq!(m.evaluate(&env).unwrap_err().code(), "E004");
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownPolicy {
    /// Return an error (`E004`) naming the unknown fields. The default: nobody installs or
    /// skips a package on a guess without saying so.
    #[default]
    Error,
    /// Treat Unknown as false (skip the dependency).
    False,
    /// Treat Unknown as true (install the dependency).
    True,
}

/// Which behaviour to follow where implementations of the standard differ.
///
/// Profiles change only the standard fields; the extended fields behave the same in every
/// profile. Parsing takes a profile too (see [`ParseOptions::profile`](crate::ParseOptions)),
/// because the profiles accept different inputs.
///
/// A parsed marker remembers its profile and evaluates under it:
///
/// ```
/// use markerspec_pep508::{Environment, Field, MarkerTree, ParseOptions, Profile};
///
/// let text = r#"python_version in "3.10 3.11""#;
/// let env = Environment::new().with(Field::PythonVersion, "3.11")?;
/// let spec: MarkerTree = text.parse()?;
/// assert!(!spec.evaluate(&env)?); // `in` on a version field is false
/// let opts = ParseOptions::default().profile(Profile::Packaging);
/// let packaging = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
/// assert_eq!(packaging.profile(), Profile::Packaging);
/// assert!(packaging.evaluate(&env)?); // packaging: a substring test
/// assert_eq!(Profile::Packaging.as_str(), "packaging");
/// assert_eq!("spec-2026".parse::<Profile>()?, Profile::Spec2026);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Profile {
    /// The living "Dependency specifiers" specification (2026 text), read as an installer:
    /// `in`/`not in` on a `Version` field is false, `~=`/`===` on a string mean `==`, ordered
    /// comparisons on strings are `==` (`<=`, `>=`) or false (`<`, `>`), `extra` defines only
    /// `==`/`!=` (anything else is false), a comparison must have exactly one variable, and a
    /// value missing from the environment is Unknown.
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "spec-2026"))]
    Spec2026,
    /// What pypa/packaging 26.x does, quirks included: substring `in` on versions,
    /// `UndefinedComparison` errors (`E002`) for `~=`/`===` on strings, a trailing `+` in
    /// `python_full_version` repaired to `+local`, a literal on the left looked up by the
    /// right-hand text, missing values are errors (`E001`). Markers print as packaging 26.4
    /// prints them, parenthesised groups kept as written (`(a and b) or c`; see
    /// [`Children::is_group`](crate::Children::is_group)).
    #[cfg_attr(feature = "serde", serde(rename = "packaging"))]
    Packaging,
    /// What uv-pep508 0.0.98 accepts and how it evaluates: a comparison it cannot interpret
    /// (an invalid version, `extra` with an ordering operator, two literals, two fields, `~=`
    /// on a string, …) is dropped from its `and`/`or` chain with a warning (a marker left with
    /// nothing is true), `===` is not a marker operator, version fields compare release numbers
    /// only with `python_version` read as a `python_full_version` range, `in`/`not in` on a
    /// version field test a whitespace-separated list of versions, and a value missing from
    /// the environment is Unknown. Printed forms differ (uv prints its simplified form); only
    /// acceptance and results are reproduced.
    #[cfg_attr(feature = "serde", serde(rename = "uv"))]
    Uv,
}

impl Profile {
    /// Every profile.
    pub const ALL: &'static [Profile] = &[Profile::Spec2026, Profile::Packaging, Profile::Uv];

    /// The profile's name: `spec-2026`, `packaging`, `uv`.
    ///
    /// See the example on [`Profile`].
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec2026 => "spec-2026",
            Profile::Packaging => "packaging",
            Profile::Uv => "uv",
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
                format!("unknown profile `{s}`, expected `spec-2026`, `packaging` or `uv`")
            })
    }
}

/// How to evaluate: what a plain-`bool` evaluation does with an Unknown result. The profile
/// and dialect are not options: a marker evaluates under the ones it was parsed with.
///
/// ```
/// use markerspec_pep508::{EnvValue, Environment, EvalOptions, Field, MarkerTree, UnknownPolicy};
/// let m: MarkerTree = "os_name == 'posix'".parse().unwrap();
/// let mut env = Environment::new();
/// env.set(Field::OsName, EnvValue::Unknown).unwrap();
/// assert!(m.evaluate(&env).is_err());
/// let skip = EvalOptions::default().unknown(UnknownPolicy::False);
/// assert_eq!(m.evaluate_with(&env, skip).unwrap(), false);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct EvalOptions {
    /// What a plain-`bool` evaluation does with Unknown. Default: [`UnknownPolicy::Error`].
    pub unknown: UnknownPolicy,
}

impl EvalOptions {
    /// Sets the Unknown policy.
    ///
    /// See the example on [`EvalOptions`].
    #[must_use]
    pub fn unknown(mut self, policy: UnknownPolicy) -> Self {
        self.unknown = policy;
        self
    }
}
