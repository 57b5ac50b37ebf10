//! The shipped vectors and the fixtures they name, embedded at compile time.
//!
//! The vectors live in this crate (`vectors/`, which the repository's `spec/vectors` points to),
//! so that the published crate carries them. `fixtures.json` holds the environment fixtures of
//! `markerspec-env` (`crates/env/fixtures/`, the repository's `spec/environments`) that cases
//! name, one object keyed by fixture name; `tests/fixtures_sync.rs` fails when it differs from
//! those files and rewrites it when run with `MARKERSPEC_SYNC_FIXTURES=1`.

macro_rules! groups {
    ($($name:literal),* $(,)?) => {
        /// `(group, contents)` of every file in `vectors/` except `schema.json`.
        pub(crate) const GROUPS: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../vectors/", $name, ".json"))),)*
        ];
    };
}

groups![
    "corpus",
    "extended",
    "extras",
    "findings",
    "limits",
    "marker-syntax",
    "operators",
    "requirements",
    "spec-examples",
    "variants",
    "versions",
];

/// The fixtures that cases may name: a JSON object from fixture name to environment document.
pub(crate) const FIXTURES: &str = include_str!("../fixtures.json");
