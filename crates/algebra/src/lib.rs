//! An exact algebra of environment markers for resolvers: a canonical form, `and`/`or`/`not`,
//! relations with witnesses, restriction, quantification, and deterministic printing.
//!
//! ```
//! use markerspec_algebra::{Context, Domain, RelationKind};
//!
//! let mut ctx = Context::new();
//! let py = ctx.variable(0, "python_full_version", Domain::Version)?;
//! let star = ctx.version_specifier(py, &"==3.11.*".parse()?)?;
//! let ge = ctx.version_specifier(py, &">=3.11".parse()?)?;
//! let lt = ctx.version_specifier(py, &"<3.12".parse()?)?;
//! let range = ctx.and(ge, lt)?;
//! // Not equivalent: 3.11.0rc1 is in `==3.11.*` but not in `>=3.11`.
//! let rel = ctx.relate(star, range)?;
//! assert_eq!(rel.kind(), RelationKind::ImpliedBy);
//! let witness = rel.a_not_b.expect("a pre-release of 3.11");
//! assert_eq!(ctx.dnf(star)?, "python_full_version in [3.11.dev0, 3.12.dev0)");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Scope of this crate (today)
//!
//! The engine and its exact value domains: variables of three [`Domain`]s, atoms over them
//! ([`VersionSet`]s, string literals, booleans), and the operations. Translating a pep508
//! `MarkerTree` into it (field registry, profiles, `python_version` as a function of
//! `python_full_version`, theories of world knowledge, the short printed form) is not here yet;
//! see the end of this page.
//!
//! # Design, and why
//!
//! The prior art read for this design is uv's `crates/uv-pep508/src/marker/algebra.rs`: a
//! reduced ordered decision diagram whose version and string nodes have *interval edges*,
//! with complement edges and a global interner. This crate keeps the first two ideas and
//! changes the rest.
//!
//! 1. **Reduced, ordered, hash-consed multi-valued decision diagrams.** A node tests one
//!    variable; its edges partition the variable's whole domain (intervals of versions, string
//!    literals plus "any other string", true/false), adjacent intervals with the same child are
//!    merged, string points with the "other" child are dropped, and a node whose edges all
//!    lead to one child is that child. Variables appear in one order on every path, and nodes
//!    are unique in their context. *Why:* these rules make the diagram canonical: two
//!    [`Marker`]s of one context are equal exactly when they denote the same function, so
//!    `equivalent`, `is_true` and `is_false` are O(1) comparisons with no false negatives
//!    (uv's `is_disjoint`/`is_false` can answer "don't know" as "no" because its version
//!    model is approximate; here every edge is exact, below).
//! 2. **A per-instance arena, not a global interner.** A [`Context`] owns the nodes, the unique
//!    table and the caches; dropping it frees them. *Why:* uv's interner is a process-wide
//!    mutex whose nodes are never freed, which serialises threads and leaks in long-lived
//!    resolvers. A context is `Send + Sync`, has no interior mutability, and two contexts on two
//!    threads share nothing. A marker of another context is detected by its index and reported
//!    ([`ErrorKind::ForeignMarker`]) when it is out of range; one that happens to be in range is
//!    not detected (a context number would need global state).
//! 3. **Complement edges (O(1) `not`).** A [`Marker`] carries a complement bit; the canonical
//!    node has a regular first child. *Why:* resolvers ask for `a and not b` in every
//!    `implies`/`relate`, and `or` is `not (not a and not b)`, so one `and` cache serves all
//!    connectives; a cached `not` would allocate a second copy of every diagram it negates. The
//!    cost is one rule in node construction, checked by the canonicity tests.
//! 4. **Budgets, never hangs, bounded recursion.** Every operation counts its steps (recursive
//!    calls not answered by a cache) and its recursion depth, and the context its nodes, against
//!    [`Limits`]; past one it returns [`ErrorKind::Intractable`] (code `intractable`) and leaves
//!    the context usable. The recursive operations (`and`, `restrict`, `exists`) descend one
//!    variable per level, so the depth limit (default 400) is about the number of variables on a
//!    path and no input can overflow the stack; evaluation, solving, counting and path
//!    enumeration are iterative and have no depth limit.
//! 5. **Exact version domain.** A version variable ranges over one absent point below every
//!    PEP 440 version, then all versions in PEP 440's *total* order (epochs, pre-, post- and
//!    dev-releases, local labels). Edges are intervals between [`Cut`]s: positions between
//!    points, built as a comparison key (like packaging's `_cmpkey`) cut off after some
//!    component, plus "just below"/"just above". *Why:* specifiers need points that no version
//!    occupies (`<3.12` stops below `3.12.dev0`; `>3.12` starts above every post-release and
//!    local label of `3.12`), and uv's release-only model (pre/post/local dropped) changes the
//!    meaning of markers on pre-release interpreters. Cuts are normalised so that two cuts are
//!    equal exactly when no point lies between them (`<=1.0.dev0` ends where `<1.0.dev1` does);
//!    canonicity depends on it. [`VersionSet::from_specifier`] converts every operator
//!    exactly, and property tests compare it with pep440's `contains_with(v, Some(true))`,
//!    the call marker evaluation makes.
//! 6. **Finite-string domain.** A string node names the literals it distinguishes and sends every
//!    other string to one "other" child; `""` is the absent value and an ordinary literal.
//!    *Why:* markers only compare strings for equality (`<=`/`>=` on strings mean `==` under
//!    the living spec), so the literals that occur are the only distinctions; uv's string
//!    ranges are kept for the `Version | String` fields a later step may need.
//! 7. **Booleans** for what is not a value of one field: `"cuda" in gpu_backends`,
//!    `extra == "x"`, substring tests. The caller picks one boolean variable per (field,
//!    literal) with the field's rank and a name per literal; relations between such variables
//!    (two substrings of one field) are not known to the engine.
//! 8. **Determinism.** [`Context::paths`] and [`Context::dnf`] walk edges in domain order and
//!    never look at node numbers, so their output depends only on the function and the
//!    variable order, not on construction history or thread.
//!
//! # Operations
//!
//! [`Context::and`], [`or`](Context::or), `!`/[`not`](Context::not),
//! [`Marker::is_true`]/[`is_false`](Marker::is_false), [`implies`](Context::implies),
//! [`equivalent`](Context::equivalent), [`is_disjoint`](Context::is_disjoint),
//! [`relate`](Context::relate) (four cells, each empty or with a [`Witness`]),
//! [`solve`](Context::solve), [`restrict`](Context::restrict), [`assign`](Context::assign),
//! [`exists`](Context::exists)/[`forall`](Context::forall), [`evaluate`](Context::evaluate),
//! [`paths`](Context::paths), [`dnf`](Context::dnf), [`node_count`](Context::node_count).
//!
//! # What is exact and what is not
//!
//! * Exact: every operation above on the three domains as defined; the conversion of every
//!   specifier except `===` ([`VersionSet::from_specifier`]) and of a `python_version`
//!   specifier into `python_full_version` values ([`VersionSet::python_version_preimage`]);
//!   witnesses (each is checked inside its interval by construction and by tests).
//! * Not expressible: `===` ([`ErrorKind::ArbitraryEquality`]): it compares text, and versions
//!   equal in PEP 440 order (`3.12`, `3.12.0`) differ in text; a translation must model it as a
//!   boolean atom.
//! * By design of the caller: relations between boolean atoms (substrings, set members) and
//!   between fields (world knowledge) are whatever the caller conjoins as a theory.
//! * `restrict` is exact where the assumption holds and unspecified elsewhere (that is its
//!   contract); it is a heuristic for size, not a minimiser.
//!
//! # Still to do for markers
//!
//! A `from_marker` module over pep508's public API once its field registry and explicit constants
//! land: one variable per field in registry order (per-literal booleans for set fields and
//! substring tests), `python_version` mapped onto `python_full_version` with
//! [`VersionSet::python_version_preimage`], the
//! SPEC 0.2 domains (release-only extended versions with ⊥, the negation table of §4.3), each
//! profile's semantics, theories (§4.4 invariants, platform rules) as explicit markers conjoined
//! or used with `restrict`, witnesses rendered as environment documents, and a printer back to
//! marker syntax (intervals to specifiers) choosing the shortest of DNF/CNF/factored forms.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod cut;
mod dd;
mod error;
mod range;

pub use cut::{Cut, Point};
pub use dd::{Context, Domain, Label, Limits, Marker, Relation, RelationKind, Value, Var, Witness};
pub use error::{Error, ErrorKind, Limit};
pub use range::VersionSet;
