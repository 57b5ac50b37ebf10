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
//! # Scope of this crate
//!
//! The engine and its exact value domains (variables of three [`Domain`]s, atoms over them:
//! [`VersionSet`]s, string literals, booleans, and the operations), and markers on top of it:
//!
//! * [`Context::from_marker`]`(&MarkerTree, &Theory) -> Result<Marker, Error>`: a pep508 marker
//!   translated under the profile it was parsed with, conjoined with the theory's rules
//!   (canonical for the theory); [`Context::translate`] is the same without a theory.
//! * [`Context::parse_marker`]`(&str, &ParseOptions, &mut dyn Reporter, &Theory)`: the same
//!   straight from text, each comparison translated as the parser reads it, with no syntax
//!   tree (the way for a resolver to read markers it only computes with).
//! * [`Context::to_marker_string`]`(Marker) -> Result<String, Error>`: marker syntax back, the
//!   irredundant cover of the marker read straight from its diagram (its DNF, or that DNF
//!   with its shared literals taken out); `true`/`false` for the constants
//!   ([`Marker::TRUE`]/[`Marker::FALSE`] in the API).
//!   [`Context::to_shortest_marker_string`] searches further, at about three times the cost:
//!   the shortest of a minimised DNF, CNF and factored form (and, for a longer marker, the
//!   DNF with its shared literals taken out, and the split by the extras' functions where its
//!   extras come last).
//! * [`Context::evaluate_env`], [`Context::residual`] (the marker left over the fields an
//!   [`Environment`](markerspec_pep508::Environment) leaves Unknown) and
//!   [`Context::witness_environment`] (a [`Witness`] as a complete environment).
//! * [`Context::relation`] (how two markers relate, without witnesses: what a resolver asks
//!   most), [`Context::cells`] (the four cells of two markers, inside the context's theory) and
//!   [`Context::solve_environment`] (a complete environment in which a marker holds: inside
//!   the `platform` rules, near a default CPython 3.12.0 on x86-64 Linux and keeping SPEC
//!   §4.4's invariants where the marker allows; `spec/SPEC.md` §21.5).
//! * [`Theory`]: world knowledge as a value ([`Theory::none`], [`Theory::platform`]).
//!
//! These names are stable; the printed form has a version, [`PRINT_FORM_VERSION`]. The
//! translation's table (which variable stands for which field,
//! what is exact and what is an *opaque* atom) is in the docs of [`Context::from_marker`]'s
//! module and in `spec/SPEC.md`, section "Algebra".
//!
//! ```
//! use markerspec_algebra::{Context, RelationKind, Theory};
//! use markerspec_pep508::MarkerTree;
//!
//! let mut ctx = Context::new();
//! let a: MarkerTree = "python_full_version >= '3.11' and python_full_version < '3.12'".parse().unwrap();
//! let b: MarkerTree = "python_full_version == '3.11.*'".parse().unwrap();
//! let (ma, mb) = (ctx.from_marker(&a, &Theory::none())?, ctx.from_marker(&b, &Theory::none())?);
//! // Not equivalent: 3.11.0rc1 is in `== '3.11.*'`, not in `>= '3.11'`.
//! let rel = ctx.relate(ma, mb)?;
//! assert_eq!(rel.kind(), RelationKind::Implies);
//! let w = ctx.witness_environment(mb, rel.b_not_a.as_ref().expect("a 3.11 pre-release"))?;
//! assert!(!ctx.evaluate_env(ma, &w)?);
//! assert_eq!(ctx.to_marker_string(mb)?, r#"python_version == "3.11""#);
//! # Ok::<(), markerspec_algebra::Error>(())
//! ```
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
//!    threads share nothing, unless the caller gives them one [`Spellings`] table (the label
//!    spellings the printer finds, behind a lock taken only when a context's own cache misses:
//!    no printed text changes). A marker of another context is detected by its index and reported
//!    ([`ErrorKind::ForeignMarker`]) when it is out of range; one that happens to be in range is
//!    not detected (a context number would need global state). A node is one allocation: its
//!    edges (shared, so that an operation reads them without copying) hold their bounds,
//!    children and string points inline up to a few of each. *Why:* a resolver's first pass
//!    builds most of its nodes, and on a fresh process each new allocation is new memory to
//!    map (BENCHMARKS.md, stop 30).
//! 3. **Complement edges (O(1) `not`).** A [`Marker`] carries a complement bit; the canonical
//!    node has a regular first child. *Why:* resolvers ask for `a and not b` in every
//!    `implies`/`relate`, and `or` is `not (not a and not b)`, so one `and` cache serves all
//!    connectives; a cached `not` would allocate a second copy of every diagram it negates. The
//!    cost is one rule in node construction, checked by the canonicity tests. A pair a caller
//!    asks a second time is also copied into a small table of callers' answers, apart from the
//!    recursion's many intermediate pairs, so that a resolver's repeated questions are one
//!    lookup in memory the processor keeps close (BENCHMARKS.md, stop 29).
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
//! 9. **Printing reads a cover from the diagram.** [`Context::to_marker_string`] writes the
//!    irredundant sum of products Minato and Morreale's recurrence reads from the diagram
//!    (ISOP, for variables of more than two values as uv-pep508 0.0.98 applies it), each
//!    distinct literal spelt once. *Why:* a search for the shortest of several minimised forms
//!    ([`Context::to_shortest_marker_string`]) cost about six times uv-pep508's first print on
//!    lock-file markers; the cover costs about a sixth of the search and prints 2.5 % more
//!    characters there (still about 0.78 of uv-pep508's), so the search is one call away for
//!    those who want the shortest text (BENCHMARKS.md, "Print form 7"). A cover depends only
//!    on its two bounds, so the context keeps every cover it builds, with its literals
//!    numbered once per context: a lock file's markers share most of their parts. *Why:* the
//!    first prints of a lock file rebuilt the same covers again and again. What a cover would
//!    cost with no cache (its steps and height) is kept beside it and checked against the
//!    limits either way, so whether a cover fits, and so the text, never depends on what the
//!    context printed before. The literal table files a label by its cuts' identities (every
//!    cut of a label the diagrams make is the nodes' interned copy) and finds a piece's literal
//!    from the node's edges without building the label. *Why:* most pieces' literals are
//!    known, and building, hashing and dropping their labels was a quarter of the recurrence.
//!    A diagram that is a single path to true is its own cover: its literals are read off the
//!    path, from the same table and within the same limits, without the recurrence. *Why:*
//!    most of a lock file's markers are one conjunction, and the recurrence built and
//!    cached a cover for every level of them.
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
//! # Approximations of the marker translation
//!
//! Each comparison's value in an environment is exactly pep508's (the brute-force tests check
//! it on the corpora). What the algebra does not know is some relations *between* atoms:
//!
//! * *Opaque* comparisons are boolean atoms whose relations to other atoms are unknown:
//!   `"L" in F` on a string field (a substring test), `===`, `in`/`not in` on
//!   `platform_release`, literal-left version comparisons under `packaging`, and under `uv`
//!   every standard comparison except `extra`, the list fields and `==`/`!=` on plain string
//!   fields. A relation or witness involving them may be a false "overlapping"
//!   ([`Context::witness_environment`] then reports [`ErrorKind::UnverifiedWitness`]);
//!   simplification stays exact.
//! * A standard version field whose value is no PEP 440 version is modelled by its text; the
//!   model leaves out values that read as a wildcard (`3.12.*`), and spellings of a version
//!   other than its canonical one in `==` text comparisons with a non-specifier literal.
//! * `python_version` is read through `python_full_version` (its first two release
//!   components): environments where the two disagree are outside the model.
//! * Under `packaging`, a `python_full_version` ending in `+` (an untagged build, which
//!   packaging reads with `local` appended) is outside the model.
//! * Under `packaging`, `platform_version` is a string whatever its text (that profile
//!   compares it as one): a string variable of its own, exact, printed as strings. The other
//!   profiles read the field's version, so a context that holds both does not relate them.
//! * Extended `Version` fields range over release-only versions and ⊥ (SPEC §4.3).
//!
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod cut;
mod dd;
mod error;
mod print;
mod range;
mod theory;
mod translate;

pub use cut::{Cut, Point};
pub use dd::{Context, Domain, Label, Limits, Marker, Relation, RelationKind, Value, Var, Witness};
pub use error::{Error, ErrorKind, Limit};
pub use print::{PRINT_FORM_VERSION, Spellings};
pub use range::VersionSet;
pub use theory::{PLATFORM_INSTANCE_SOURCES, PLATFORM_RULES, Rule, Theory};
pub use translate::default_environment;
