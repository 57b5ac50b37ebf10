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
//! ```
//! use markerspec_pep508::{Environment, Field, Requirement};
//!
//! let req: Requirement = r#"numpy>=2; python_version >= "3.10" and platform_machine == "x86_64""#
//!     .parse()
//!     .unwrap();
//! let env = Environment::new()
//!     .with(Field::PythonVersion, "3.12")
//!     .with(Field::PlatformMachine, "x86_64");
//! assert!(req.marker().unwrap().evaluate(&env).unwrap());
//! ```
//!
//! # Types and evaluation
//!
//! Each [`Field`] has a [`FieldType`]. `Version` fields (`python_version`, …) and
//! `Version | String` fields (`platform_release`) compare with PEP 440 rules when the operator
//! and the quoted value form a valid version specifier, and otherwise as strings. String rules:
//! `==` and `!=` are exact, `<=` and `>=` mean `==`, `<` and `>` are false, `in` and `not in`
//! are substring tests, `~=` and `===` are undefined (`E002`). Set fields (`extras`,
//! `dependency_groups`) define `"name" in field`. `extra` compares with the requested extras,
//! names normalised (PEP 685). Every comparison is evaluated, so an undefined one is reported
//! whatever the other branches decide, as pypa/packaging does.
//!
//! # Diagnostics
//!
//! [`Error`] carries an [`ErrorKind`] with a stable code (`R0xx` requirement syntax, `M0xx`
//! marker syntax, `V0xx` versions, `L0xx` limits, `E0xx` evaluation, `X0xx` extended-dialect
//! types), a [`Span`], and renders with carets ([`Error::render`]). Warnings (`W0xx`) go to a
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
//! Where packaging's behaviour contradicts the specification's grammar, this crate follows the
//! specification: a name or extra ending in `_` (`foo_`) is rejected (`R002`) where packaging's
//! regular expression lets it through. Quoted strings with backslashes are read as Python
//! literals, as packaging does, except `\N{…}` escapes and lone surrogates, which are errors.

#![forbid(unsafe_code)]

mod environment;
mod error;
mod evaluate;
mod field;
mod marker;
mod name;
mod parser;
mod requirement;
mod string;
mod variant;

pub use environment::{EnvError, EnvValue, Environment};
pub use error::{
    DIAGNOSTIC_CODES, Error, ErrorKind, Reporter, Severity, Span, Warning, WarningKind, render,
};
pub use evaluate::{Evaluation, FieldSet, Truth, UnknownPolicy};
pub use field::{Dialect, Field, FieldType};
pub use marker::{MarkerExpression, MarkerOperator, MarkerTree, MarkerValue};
pub use markerspec_pep440 as pep440;
pub use name::{ExtraName, PackageName, is_valid_identifier, normalize_name};
pub use parser::ParseOptions;
pub use requirement::{Requirement, VersionOrUrl};
