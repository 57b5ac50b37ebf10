//! PEP 508 dependency specifiers and environment markers, exactly as the living PyPA
//! "Dependency specifiers" specification defines them (2026 text), with an opt-in extended
//! dialect for GPU, CUDA-library, ABI, interpreter-architecture and wheel-variant fields.
//!
//! # Scope of this crate
//!
//! Parsing requirements (`name [extras] (versions | @ url) ; marker`) and markers, a canonical
//! display that parses back to an equal value, evaluation against an [`Environment`] with
//! the specification's type rules and three-valued (true / false / unknown) logic, and
//! diagnostics with stable codes, byte spans and help lines. No I/O: detecting an environment
//! is the job of `markerspec-env`. Versions and specifiers come from `markerspec-pep440`.
//!
//! A resolver makes three calls: parse each `Requires-Dist` line with the profile it wants,
//! describe the target environment, and ask whether each requirement applies there with the
//! extras requested:
//!
//! ```
//! use markerspec_pep508::{Environment, Field, ParseOptions, Requirement};
//!
//! // 1. Parse (the profile and dialect are remembered by the requirement's marker).
//! let opts = ParseOptions::default();
//! let req = Requirement::parse_with(
//!     r#"numpy>=2; python_version >= "3.10" and platform_machine == "x86_64" and extra == "fast""#,
//!     &opts,
//!     &mut Vec::new(),
//! )?;
//! // 2. The target environment (markerspec-env detects one, or reads a fixture).
//! let env = Environment::new()
//!     .with(Field::PythonVersion, "3.12")?
//!     .with(Field::PlatformMachine, "x86_64")?;
//! // 3. Evaluate with the extras requested (true when there is no marker).
//! assert!(req.evaluate(&env, &["fast"])?);
//! assert!(!req.evaluate(&env, &[] as &[&str])?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Types, profiles and evaluation
//!
//! Each [`Field`] has a [`FieldType`]. Where implementations of the standard differ, a
//! [`Profile`] decides:
//!
//! - [`Profile::Spec2026`] (the default) reads the living specification as an installer does
//!   (`spec/SPEC.md` §5): `Version` fields (`python_version`, …) and `Version | String` fields
//!   (`platform_release`) compare with PEP 440 rules when both sides are versions, otherwise as
//!   strings; string rules are `==`/`!=` exact, `<=`/`>=` (and `~=`/`===`) as `==`, `<`/`>`
//!   false, `in`/`not in` substring tests (false on `Version` fields); `extra` defines `==`/`!=`
//!   against the requested extras; set fields define `"name" in field`; a comparison has
//!   exactly one variable; a value missing from the environment is Unknown.
//! - [`Profile::Packaging`] reproduces pypa/packaging 26.x, quirks included, and is checked
//!   against ~240,000 evaluations recorded from it.
//! - [`Profile::Uv`] reproduces what uv-pep508 0.0.98 accepts and how it evaluates (its
//!   printed form, a simplified decision diagram, is not reproduced): a comparison it cannot
//!   read (an invalid version, `extra` with an ordering operator, two literals, two fields,
//!   `~=` on a string, …) is dropped with a warning, so a marker left with nothing is true;
//!   `===` is not a marker operator; version fields compare release numbers only, with
//!   `python_version` read as a `python_full_version` range (`python_version <= "3.12"` is
//!   `python_full_version < "3.13"`, so `3.14.0rc1` is not `>= "3.14"`); `in`/`not in` on a
//!   version field test a whitespace-separated list of versions; `platform_release` and
//!   `platform_version` order lexicographically; quoted strings have no escapes, any Unicode
//!   whitespace separates tokens, and URLs are delimited and checked as uv does.
//!
//! A parsed [`MarkerTree`] remembers the [`Dialect`] and [`Profile`] it was read with and
//! evaluates under them; [`MarkerTree::TRUE`] and [`MarkerTree::FALSE`] are its constants.
//! Each profile's behaviour lives in one module behind one rules table; each field's value
//! format in the field registry ([`Field::format`], [`ValueFormat`]).
//!
//! Evaluation is three-valued ([`Truth`]): an [`EnvValue::Unknown`] value makes a comparison
//! unknown, and `and`/`or` follow Kleene logic, so `False and Unknown` is False. The
//! plain-`bool` API maps Unknown by an [`UnknownPolicy`], by default an error (`E004`). Under
//! the `packaging` profile every comparison is evaluated, so an undefined one is reported
//! whatever the other branches decide; a `spec-2026` marker cannot fail to evaluate, so its
//! evaluation stops once the result is decided. The set of unknown fields never depends on
//! evaluation order.
//!
//! # Diagnostics
//!
//! [`Error`] carries an [`ErrorKind`] with a stable code (`R0xx` requirement syntax, `M0xx`
//! marker syntax, `V0xx` versions, `L0xx` limits, `E0xx` evaluation, `X0xx` extended-dialect
//! types), a [`Span`], and renders with carets under the input it is given
//! ([`Error::render`]); it keeps no copy of the input, and builds its message, help line and
//! suggestion only when asked, so a failed parse is cheap. Warnings (`W0xx`) go to a
//! [`Reporter`]; they never reject input. The full table is `spec/DIAGNOSTICS.md`.
//!
//! # Input safety
//!
//! No input makes the parser panic, overflow the stack or run for more than linear time:
//! markers are parsed without recursion, and [`ParseOptions`] bounds the input length
//! (1 MiB), the parenthesis nesting (200, as pypa/packaging), the number of comparisons per
//! marker (10,000) and the length of a quoted string (64 KiB), each with its own error code.
//! The crate holds no global state; every value is `Send + Sync`.
//!
//! # Divergences from pypa/packaging
//!
//! Under [`Profile::Packaging`] only these remain: quoted strings with `\N{…}` escapes or lone
//! surrogates are errors (Rust strings cannot hold surrogates; there is no name table); the
//! `===` operator does not swallow commas (`pkg===a,,>=1`); inputs over the limits are errors;
//! version numbers are 64-bit. Under the default profile the differences are the ones the
//! specification's 2026 text implies, listed in `spec/SPEC.md` §5. Under [`Profile::Uv`]
//! markers print as written rather than in uv's simplified form, and parenthesis nesting keeps
//! its limit.

#![forbid(unsafe_code)]

mod arch;
mod builder;
mod check;
mod compare;
mod environment;
mod error;
mod evaluate;
mod field;
mod format;
#[cfg(feature = "arbitrary")]
pub mod generate;
mod guard;
mod lower;
mod marker;
mod name;
mod operator;
mod options;
mod parser;
mod profile;
mod requirement;
mod small;
mod span;
mod string;
mod syntax;
pub mod target;
mod truth;
mod variant;

pub use arch::canonical_arch;
pub use builder::MarkerBuilder;
pub use environment::{DocValue, EnvDocument, EnvError, EnvValue, Environment};
pub use error::{
    DIAGNOSTIC_CODES, Error, ErrorKind, Reporter, Severity, Warning, WarningKind, render,
};
pub use field::{Dialect, Field, FieldType, ValueFormat};
pub use marker::MarkerTree;
pub use markerspec_pep440 as pep440;
pub use name::{ExtraName, PackageName, normalize_name};
pub use operator::{MarkerOperator, MarkerValue};
pub use options::{EvalOptions, ParseOptions, Profile, UnknownPolicy};
pub use requirement::{Requirement, VersionOrUrl};
pub use small::SmallStr;
pub use span::Span;
pub use syntax::{Children, MarkerExpression, MarkerNode};
pub use truth::{Evaluation, FieldSet, Truth};

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
