//! The markerspec conformance suite: test vectors for PEP 508 requirements and environment
//! markers (and markerspec's extended dialect), as data any implementation can run.
//!
//! # Scope of this crate
//!
//! The vectors of `spec/vectors/*.json` (this crate's `vectors/`, embedded: [`Cases::all`]), an
//! [`Implementation`] trait for the code under test, a [`Runner`] with include/exclude filters
//! and declared divergences, and the client and server of the JSON-lines adapter protocol
//! (`spec/PROTOCOL.md`, [`protocol`]) through which the `markerspec conformance` command drives
//! implementations written in any language. It depends on `markerspec-pep508` only for the
//! built-in implementation ([`builtin::Markerspec`]).
//!
//! # The vectors
//!
//! Each file is a group (its stem); each case has a name unique in its group (`slug-NNN`, so
//! the full name `group/name` is unique), a category, the input and its kind (`requirement`
//! or `marker`), the dialect, an optional lock-file context, an environment (a fixture from
//! `spec/environments/`, an inline environment document as `spec/SPEC.md` §11 defines it, or
//! both, plus the requested extras), a `see` reference, and the expected outcome under each
//! behaviour profile that pins one:
//!
//! ```json
//! {"name": "prerelease-104", "category": "prereleases", "kind": "marker",
//!  "input": "python_full_version < \"3.14\"", "dialect": "pep508",
//!  "fixture": "linux-x86_64-cpython-3.14.0rc1", "see": "PEP 440 exclusive ordering",
//!  "expect": {"spec-2026": {"canonical": "python_full_version < \"3.14\"", "result": false},
//!             "packaging": {"canonical": "python_full_version < \"3.14\"", "result": false}}}
//! ```
//!
//! An outcome is `{"parses": false, "error": "M002"}` or `{"canonical": "…", "result": R}`
//! where `R` is `true`, `false`, `"unknown: f1,f2"` or `{"error": "E002"}`; `canonical` and
//! `result` are each optional. `vectors/schema.json` is the JSON Schema.
//!
//! # Running the suite from another crate
//!
//! Implement [`Implementation`] for your parser and evaluator, list what you knowingly do
//! differently, and run:
//!
//! ```
//! use markerspec_conformance::{
//!     Cases, Evaluated, Expected, Implementation, Parsed, Profile, Request, Runner, TestResult,
//! };
//!
//! /// Another PEP 508 implementation (here markerspec's own parser stands in for it).
//! struct MyParser;
//!
//! impl Implementation for MyParser {
//!     fn name(&self) -> &str {
//!         "my-parser"
//!     }
//!     fn supports(&self, profile: Profile, _: markerspec_conformance::Dialect) -> bool {
//!         profile == Profile::Packaging
//!     }
//!     fn parse(&mut self, r: &Request<'_>) -> TestResult<Parsed> {
//!         let opts = markerspec_pep508::ParseOptions::default()
//!             .profile(markerspec_pep508::Profile::Packaging);
//!         if r.case.kind() != markerspec_conformance::Kind::Marker {
//!             return TestResult::Skip("markers only".into());
//!         }
//!         TestResult::Ok(
//!             match markerspec_pep508::MarkerTree::parse_with(r.input(), &opts, &mut |_| {}) {
//!                 Ok(m) => Parsed::Valid { canonical: Some(m.to_string()) },
//!                 Err(_) => Parsed::Invalid { code: None, message: None },
//!             },
//!         )
//!     }
//!     fn evaluate(&mut self, _: &Request<'_>) -> TestResult<Evaluated> {
//!         TestResult::Skip("parsing only".into())
//!     }
//! }
//!
//! const BLACKLIST: &[(&str, &str)] = &[
//!     ("packaging:@parentheses#canonical", "we drop redundant parentheses when printing"),
//!     ("packaging:@boolean-logic#canonical", "we drop redundant parentheses when printing"),
//!     ("packaging:@escapes#parse", "we do not decode `\\N{NAME}` escapes"),
//! ];
//!
//! Runner::new()
//!     .include("marker-syntax")
//!     .blacklist(BLACKLIST)
//!     .run(&Cases::all(), &mut MyParser)
//!     .assert();
//! ```
//!
//! [`Report::assert`] panics with every failure, not just the first. The environment variable
//! `MARKERSPEC_TEST` narrows a run (`MARKERSPEC_TEST=versions,-versions/prereleases-117`; see
//! [`Filter`]). External programs are run through the protocol by [`protocol::Adapter`], which
//! implements [`Implementation`] too.

#![forbid(unsafe_code)]

pub mod builtin;
mod case;
mod data;
pub mod fuzz;
pub mod protocol;
pub mod report;
mod runner;

pub use case::{
    Case, Cases, Dialect, DocValue, EnvDocument, Expected, Kind, LoadError, Outcome, Profile,
};
pub use runner::{
    CaseResult, Cause, Check, Divergence, Evaluated, Filter, Implementation, Observed, Parsed,
    Report, Request, Runner, Status, TestResult,
};

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
