//! PEP 440 versions and version specifiers, exactly as pypa/packaging 26.4 reads, prints, orders
//! and matches them, without panics and without global state.
//!
//! ```
//! use markerspec_pep440::{Version, VersionSpecifiers};
//!
//! let version: Version = "1.0-RC.1".parse()?;
//! assert_eq!(version.to_string(), "1.0rc1");
//!
//! let specs: VersionSpecifiers = ">=1.0.dev0, <2".parse()?;
//! assert!(specs.contains(&version));
//! assert!(!specs.contains(&"2.0a1".parse()?)); // `<2` excludes pre-releases of 2
//! # Ok::<(), markerspec_pep440::Error>(())
//! ```
//!
//! # Scope of this crate
//!
//! [`Version`] (packaging's `Version`), [`VersionSpecifier`] (`Specifier`) and
//! [`VersionSpecifiers`] (`SpecifierSet`): parsing, normalisation, canonical display, the total
//! order, and `contains` with packaging's pre-release rules. Not here: requirements and markers
//! (the `markerspec-pep508` crate), choosing among many candidate versions (packaging's
//! `filter`), set algebra over specifiers, and any I/O.
//!
//! # Syntax accepted
//!
//! A version is what packaging's `VERSION_PATTERN` matches, ignoring ASCII case, with any
//! whitespace around it (Python's `\s`: Unicode whitespace and `\x1c`..`\x1f`):
//!
//! ```text
//! v? (N!)? N(.N)* ([._-]? (alpha|a|beta|b|preview|pre|c|rc) [._-]? N?)?
//!                 (-N | [._-]? (post|rev|r) [._-]? N?)?
//!                 ([._-]? dev [._-]? N?)?
//!                 (+ L([._-]L)*)?
//! ```
//!
//! `N` is a run of ASCII digits and `L` a run of ASCII letters and digits. Normalisation follows
//! packaging: `alpha`/`beta` are `a`/`b`; `c`, `pre` and `preview` are `rc`; `rev` and `r` are
//! `post`; a missing number is `0` (`1.0a` is `1.0a0`, `1.0.post` is `1.0.post0`); `1.0-1` is
//! `1.0.post1`; a leading `v` is dropped; numbers lose leading zeros; local labels are lowercased,
//! and their separators become `.` and their all-digit parts numbers. `Display` writes
//! packaging's `str(Version(text))`, for example `1!2.0rc1.post2.dev3+ubuntu.1`.
//!
//! A specifier is an operator and a version, with optional whitespace around both:
//!
//! * `==`, `!=`: a version with a local label, or a release followed by `.*` (a wildcard,
//!   [`Operator::EqualStar`] / [`Operator::NotEqualStar`]); a wildcard cannot follow a pre-, post-
//!   or dev-release or a local label;
//! * `~=`: a version with at least two release numbers and no local label or wildcard;
//! * `<`, `<=`, `>`, `>=`: a version without a local label or wildcard;
//! * `===`: any text without whitespace, `;` or `)`.
//!
//! A list of specifiers is split on `,`, and empty pieces are skipped (`""` is the empty list).
//!
//! # Total ordering
//!
//! [`Version`] implements `Ord` with PEP 440's order, which is packaging's comparison key:
//!
//! 1. the epoch;
//! 2. the release, compared number by number with the shorter padded with zeros, so
//!    `1.0 == 1.0.0` (and their hashes are equal);
//! 3. the pre/post/dev suffix: a dev-only release comes first (`1.0.dev0 < 1.0a0`), then alpha,
//!    beta, rc (each by number), then the final release; within each of those, post-releases come
//!    after (`1.0 < 1.0.post0`, `1.0a1 < 1.0a1.post0 < 1.0a2`), and a dev-release comes before
//!    what it develops (`1.0a1.dev0 < 1.0a1`, `1.0.post0.dev0 < 1.0.post0`);
//! 4. the local label: none first, then segment by segment, where any string sorts before any
//!    number, strings by their bytes and numbers by value, and a shorter label first when one is a
//!    prefix of the other (`1.0 < 1.0+abc < 1.0+abc.1 < 1.0+1`).
//!
//! # Specifier semantics
//!
//! `contains` answers as packaging's `Specifier.contains` / `SpecifierSet.contains`. For a version
//! `v` and a specifier version `V`:
//!
//! * `==V`: `v` equals `V`; when `V` has no local label, `v`'s local label is ignored
//!   (`==1.0` contains `1.0+abc`, `==1.0+abc` does not contain `1.0`). `!=` is the negation.
//! * `==V.*`: `v`'s epoch is `V`'s and its release starts with `V`'s release (padded with zeros:
//!   `==1.0.*` contains `1`, `1.0.5` and `1.0a1`, not `1.1.dev0`). `!=V.*` is the negation.
//! * `~=V`: `>=V` and `==P.*` where `P` is `V`'s release without its last number
//!   (`~=1.4.5` is `>=1.4.5, ==1.4.*`).
//! * `<V`: `v < V`, and if `V` is not a pre-release, `v` is not a pre- or dev-release of `V`'s
//!   release either (`<3.0` excludes `3.0rc1` and `3.0.dev0`; `<3.0rc1` includes `3.0a1`).
//! * `>V`: `v > V`, and if `V` has no post- or dev-release, `v` is not a post-release of `V`
//!   (`>1.7` excludes `1.7.post1`; `>1.7.post2` includes `1.7.post3`), nor `V` with a local label.
//! * `<=V`, `>=V`: the order above, where `<=V` also contains `V` with any local label.
//! * `===T`: `v`'s canonical text (or, with [`contains_str`](VersionSpecifier::contains_str), the
//!   text as given) equals `T`, ignoring case.
//!
//! # Pre-release policy
//!
//! The `prereleases` argument is packaging's: `Some(false)` rejects any version with a pre- or
//! dev-release segment ([`Version::is_prerelease`]); `None` (the default) and `Some(true)` let the
//! operator decide. Since packaging 26.0, a single version is never rejected by the default
//! policy, because PEP 440 accepts pre-releases when no final release satisfies the specifier and
//! a single version has no alternatives: `>=1.0` contains `2.0a1`. The "final releases first"
//! rule applies to choosing among candidates, which is the caller's job.
//! [`VersionSpecifier::prereleases`] and [`VersionSpecifiers::prereleases`] report whether the
//! specifiers imply pre-releases, for callers that implement that choice.
//!
//! # Input safety
//!
//! * No input makes the parser panic: every index is checked and every number is parsed with
//!   checked arithmetic.
//! * Input longer than [`MAX_INPUT_LEN`] (64 KiB) is rejected with [`ErrorKind::TooLong`] before
//!   parsing; parsing is linear in the length of the input and never recursive.
//! * Numbers must fit in 64 bits ([`ErrorKind::NumberTooLarge`]).
//! * There is no global or thread-local state; all types are `Send` and `Sync`.
//!
//! # Errors
//!
//! There is one error type, [`Error`]: a kind with a stable code (table: [`ERROR_CODES`]), a byte
//! span, a lowercase message in the form "expected X, found `Y`", and sometimes a help line. Input
//! is not kept; render it with the span.
//!
//! # Divergences from packaging
//!
//! * **Numbers** (epoch, release, pre/post/dev and all-digit local parts) must fit in a `u64`;
//!   packaging accepts any size (and raises a bare `ValueError` past Python's 4300-digit limit).
//!   Such versions are an error here ([`ErrorKind::NumberTooLarge`]), and `contains_str` treats
//!   them as text that is not a version.
//! * **Length**: text over 64 KiB is an error here; packaging reads it (slowly).
//! * **`===` case folding** uses Rust's Unicode lowercase mapping where Python 3.11 uses Unicode
//!   14's; they differ only for characters whose case mapping changed in later Unicode versions.
//! * **[`Version::with_local`]** accepts segments that could never be parsed (packaging's
//!   `__replace__` would raise); see its docs.
//!
//! # Performance
//!
//! Parsing is a single left-to-right pass with no regular expression. A version with at most four
//! release numbers, no local label and small pre/post/dev numbers is held inline without a heap
//! allocation, and so is a specifier whose version is written canonically. Comparisons never
//! allocate.

#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

mod error;
mod parse;
#[cfg(feature = "serde")]
mod serde_impl;
mod specifier;
mod version;

pub use error::{ERROR_CODES, Error, ErrorKind, MAX_INPUT_LEN};
pub use specifier::{Operator, VersionSpecifier, VersionSpecifiers};
pub use version::{LocalSegment, Prerelease, PrereleaseKind, Version};

#[cfg(test)]
mod tests;

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
