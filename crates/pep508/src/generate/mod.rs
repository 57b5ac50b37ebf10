//! Generators of markers, requirements and environments, for fuzzing this crate and, above
//! all, other implementations (feature `arbitrary`; proptest strategies with feature
//! `proptest`).
//!
//! Every generator draws from an [`arbitrary::Unstructured`]: a fuzzer's input, a buffer of
//! seeded random bytes (what `markerspec generate --seed` does) or a proptest byte vector all
//! drive the same code, so a case is reproducible from its bytes.
//!
//! - [`marker`] prints a marker from a generated syntax tree ([`Node`]) with the layout
//!   freedom the grammar gives (whitespace, tabs, redundant parentheses, PEP 345 aliases,
//!   either quote) and works out the tree the text must parse to.
//! - [`requirement`] prints a whole dependency specifier: name, extras, a specifier set (bare
//!   or in parentheses) or a URL, and a marker.
//! - [`environment`] and [`realistic_environment`] give environments to evaluate them in.
//! - [`near_miss`] turns valid text into text one edit away from valid — a dropped quote, a
//!   doubled operator, a broken version, `and(` without a space, a trailing comma, deep
//!   nesting, `in` on a version field — where implementations disagree most.
//!
//! [`Options`] chooses the dialect and context, and whether the output must be valid
//! ([`Options::valid`]: text every profile of this crate accepts) or may stray into the odd
//! corners of the grammar ([`Options::fuzz`]: comparisons of two fields or two literals,
//! backslashes, arbitrary Unicode, extended fields in the `pep508` dialect); [`Weights`]
//! tunes how often each construct appears.
//!
//! # Example: fuzzing a toy parser
//!
//! A hand-written marker parser that claims to accept `field op "literal"` joined with `and`
//! and `or`; the generator finds the inputs it gets wrong:
//!
//! ```
//! use arbitrary::Unstructured;
//! use markerspec_pep508::generate::{self, Options};
//!
//! /// Accepts `name op "value"` clauses joined by ` and ` / ` or ` (no parentheses, no
//! /// single quotes): a deliberately incomplete parser.
//! fn toy_accepts(text: &str) -> bool {
//!     text.split(" and ").flat_map(|c| c.split(" or ")).all(|clause| {
//!         let parts: Vec<&str> = clause.split_whitespace().collect();
//!         parts.len() == 3 && parts[2].starts_with('"') && parts[2].ends_with('"')
//!     })
//! }
//!
//! let options = Options::valid();
//! let mut rejected_valid = 0;
//! for seed in 0..200u64 {
//!     let bytes = generate::seeded_bytes(seed, 1024);
//!     let mut u = Unstructured::new(&bytes);
//!     let case = generate::marker(&mut u, &options).expect("enough bytes");
//!     // Every text the generator calls valid parses with markerspec …
//!     assert!(case.text.parse::<markerspec_pep508::MarkerTree>().is_ok(), "{}", case.text);
//!     // … and the toy parser rejects some of them: parentheses, single quotes, tabs.
//!     if !toy_accepts(&case.text) {
//!         rejected_valid += 1;
//!     }
//! }
//! assert!(rejected_valid > 0);
//! ```
//!
//! The [`arbitrary::Arbitrary`] implementations of [`MarkerTree`],
//! [`Requirement`], [`Environment`] and
//! [`GeneratedMarker`] use [`Options::valid`] in the extended dialect for trees and
//! environments (every field) and the `pep508` dialect for requirements; the versions and
//! specifier sets of `markerspec-pep440` implement it too (its `arbitrary` feature, which this
//! one enables).

mod environment;
mod marker;
mod near_miss;
mod requirement;
#[cfg(feature = "proptest")]
pub mod strategy;

pub use environment::{environment, known_value, realistic_environment};
pub(crate) use marker::value_for as marker_value_for;
pub use marker::{GeneratedMarker, Node, Side, expected_tree, marker};
pub use near_miss::{Mutation, NearMiss, near_miss};
pub use requirement::requirement;

pub use markerspec_pep440::generate::{specifier_text, version_text};

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::{Dialect, Environment, MarkerTree, ParseOptions, Profile, Requirement};

/// How often each construct appears, in percent of the places it could (each `0..=100`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Weights {
    /// Deepest `and`/`or`/parenthesis nesting of a generated marker.
    pub max_depth: u32,
    /// Fields written with a PEP 345 alias (`os.name`, `python_implementation`).
    pub alias: u8,
    /// Comparisons written `"literal" op field` (`"cuda" in gpu_backends`, `'3.8' < python_version`).
    pub literal_first: u8,
    /// Literals drawn from odd characters and arbitrary Unicode instead of real values and
    /// versions ([`Options::fuzz`] only; valid output keeps to printable text).
    pub odd_literals: u8,
    /// Redundant parentheses around a sub-expression.
    pub parentheses: u8,
    /// Requirements with a marker.
    pub requirement_marker: u8,
    /// Requirements with a URL instead of a specifier set.
    pub requirement_url: u8,
    /// Requirements with extras.
    pub requirement_extras: u8,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            max_depth: 4,
            alias: 8,
            literal_first: 20,
            odd_literals: 20,
            parentheses: 20,
            requirement_marker: 60,
            requirement_url: 15,
            requirement_extras: 30,
        }
    }
}

/// What to generate: dialect, lock-file context, validity and weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Which fields exist; the extended dialect adds the GPU/ABI fields.
    pub dialect: Dialect,
    /// Whether `extras` and `dependency_groups` may appear (lock-file context, PEP 751).
    pub lock_file: bool,
    /// Only text this crate accepts under the `spec-2026` and `packaging` profiles (the
    /// specification, and pypa/packaging 26): comparisons of one field and one literal with a
    /// value of the field's format. Without it, the odd corners too (see [`Options::fuzz`]).
    pub valid_only: bool,
    /// Whether generated text may hold line breaks (inside literals; off for line-based
    /// output).
    pub line_breaks: bool,
    /// How often each construct appears.
    pub weights: Weights,
}

impl Options {
    /// Valid text in the `pep508` dialect outside a lock file.
    pub fn valid() -> Options {
        Options {
            dialect: Dialect::Pep508,
            lock_file: false,
            valid_only: true,
            line_breaks: false,
            weights: Weights::default(),
        }
    }

    /// Anything the generator can print: comparisons of two fields or of two literals,
    /// backslashes, control characters and arbitrary Unicode in literals, fields of the other
    /// dialect. What the parser must make of each case is in [`GeneratedMarker`].
    pub fn fuzz() -> Options {
        Options {
            valid_only: false,
            line_breaks: true,
            ..Options::valid()
        }
    }

    /// The same options in another dialect.
    #[must_use]
    pub fn dialect(mut self, dialect: Dialect) -> Options {
        self.dialect = dialect;
        self
    }

    /// The same options with or without lock-file context.
    #[must_use]
    pub fn lock_file(mut self, lock_file: bool) -> Options {
        self.lock_file = lock_file;
        self
    }

    /// The same options with other weights.
    #[must_use]
    pub fn weights(mut self, weights: Weights) -> Options {
        self.weights = weights;
        self
    }

    /// The same options, allowing or forbidding line breaks.
    #[must_use]
    pub fn line_breaks(mut self, allowed: bool) -> Options {
        self.line_breaks = allowed;
        self
    }

    /// The parse options that read generated text under `profile`.
    pub fn parse_options(&self, profile: Profile) -> ParseOptions {
        ParseOptions::default()
            .dialect(self.dialect)
            .lock_file(self.lock_file)
            .profile(profile)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options::valid()
    }
}

/// `n` bytes from a seeded generator (SplitMix64), to drive the generators without a fuzzer:
/// the same seed gives the same bytes on every platform and in every version of this crate.
pub fn seeded_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(n);
    out
}

/// The seed of the `index`-th case of a run seeded with `seed`, so that each case can be
/// regenerated on its own.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)
}

pub(crate) fn pick<'a, T>(u: &mut Unstructured<'_>, items: &'a [T]) -> Result<&'a T> {
    u.choose(items)
}

/// `true` with a chance of `percent` in 100.
pub(crate) fn chance(u: &mut Unstructured<'_>, percent: u8) -> Result<bool> {
    if percent == 0 {
        return Ok(false);
    }
    Ok(u.int_in_range(0u8..=99)? < percent.min(100))
}

/// Strings that real markers and environments hold, so that comparisons sometimes succeed.
pub const VOCABULARY: &[&str] = &[
    "",
    "posix",
    "nt",
    "java",
    "linux",
    "win32",
    "darwin",
    "cygwin",
    "x86_64",
    "AMD64",
    "aarch64",
    "arm64",
    "CPython",
    "PyPy",
    "cpython",
    "Linux",
    "Windows",
    "Darwin",
    "3",
    "3.8",
    "3.10",
    "3.12",
    "3.12.1",
    "3.14.0rc1",
    "2.7",
    "6.5.0-1025-azure",
    "5.15.167.4-microsoft-standard-WSL2",
    "#1 SMP PREEMPT_DYNAMIC",
    "12",
    "12.4",
    "11.8",
    "535.104.05",
    "8.9",
    "9.0",
    "2.17",
    "1.2.4",
    "6.2",
    "cuda",
    "rocm",
    "gfx90a",
    "gfx1100",
    "cp313t",
    "cp312",
    "free-threading",
    "gil_disabled",
    "test",
    "Test_Extra",
    "foo.bar",
    "dev",
    "nvidia",
    "nvidia :: cuda_version_lower_bound :: 12.8",
    "nvidia :: sm_arch",
    "x86_64 :: level :: v3",
    "1.0.*",
    "1!2.0",
    "1.0+local.7",
    "1.0.post1.dev2",
    " 3.8 ",
];

/// Characters for free-form strings: ASCII specials, quotes, backslashes, whitespace that is
/// and is not marker whitespace, and multi-byte characters.
const ODD_CHARS: &[char] = &[
    'a', 'Z', '0', '9', '.', '-', '_', '*', '+', '!', ' ', '\t', '"', '\'', '\\', '(', ')', ';',
    ',', '@', '[', ']', '=', '<', '>', '~', '#', ':', '/', '\u{b}', '\u{c}', '\u{1c}', '\u{85}',
    '\u{a0}', '\u{2028}', '\u{3000}', 'é', 'İ', 'ß', '😀', '\u{301}', '\n', '\r', '\0', 'x', 'u',
    'N', '{', '}',
];

/// Literal text for the odd corners: a (possibly broken) version, a real value, odd
/// characters, or arbitrary Unicode.
pub fn odd_string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=3 => version_text(u, true)?,
        4..=6 => (*pick(u, VOCABULARY)?).to_string(),
        7 | 8 => {
            let n = u.int_in_range(0..=12)?;
            let mut s = String::new();
            for _ in 0..n {
                s.push(*pick(u, ODD_CHARS)?);
            }
            s
        }
        _ => {
            let s: String = u.arbitrary()?;
            s.chars().take(64).collect()
        }
    })
}

/// The profiles valid output must parse under: the specification and pypa/packaging.
const VALID_PROFILES: [Profile; 2] = [Profile::Spec2026, Profile::Packaging];

/// Whether generated marker text parses under the [`VALID_PROFILES`].
pub(crate) fn parses_marker(text: &str, options: &Options) -> bool {
    VALID_PROFILES
        .iter()
        .all(|&p| MarkerTree::parse_with(text, &options.parse_options(p), &mut |_| {}).is_ok())
}

/// Whether generated requirement text parses under the [`VALID_PROFILES`].
pub(crate) fn parses_requirement(text: &str, options: &Options) -> bool {
    VALID_PROFILES
        .iter()
        .all(|&p| Requirement::parse_with(text, &options.parse_options(p), &mut |_| {}).is_ok())
}

impl<'a> Arbitrary<'a> for GeneratedMarker {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let dialect = if u.arbitrary()? {
            Dialect::Extended
        } else {
            Dialect::Pep508
        };
        marker(u, &Options::valid().dialect(dialect))
    }
}

impl<'a> Arbitrary<'a> for MarkerTree {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let case = marker(u, &Options::valid().dialect(Dialect::Extended))?;
        Ok(expected_tree(&case.node))
    }
}

impl<'a> Arbitrary<'a> for Requirement {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let options = Options::valid();
        let text = requirement(u, &options)?;
        Requirement::parse_with(
            &text,
            &options.parse_options(Profile::Spec2026),
            &mut |_| {},
        )
        .or_else(|_| "a".parse().map_err(|_| arbitrary::Error::IncorrectFormat))
    }
}

impl<'a> Arbitrary<'a> for Environment {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.arbitrary()? {
            realistic_environment(
                u,
                &Options::valid().dialect(Dialect::Extended).lock_file(true),
                &[],
            )
        } else {
            environment(u, &[])
        }
    }
}

#[cfg(test)]
mod tests;
