//! The shipped vectors and the fixtures they name, embedded at compile time.

macro_rules! groups {
    ($($name:literal),* $(,)?) => {
        /// `(group, contents)` of every file in `spec/vectors/` except `schema.json`.
        pub(crate) const GROUPS: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../spec/vectors/", $name, ".json"))),)*
        ];
    };
}

groups![
    "corpus",
    "extended",
    "extras",
    "findings",
    "fuzz-findings",
    "limits",
    "marker-syntax",
    "operators",
    "requirements",
    "spec-examples",
    "variants",
    "versions",
];

macro_rules! fixtures {
    ($($name:literal),* $(,)?) => {
        /// `(name, contents)` of the fixtures of `spec/environments/` that cases may name.
        pub(crate) const FIXTURES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../spec/environments/", $name, ".json"))),)*
        ];
    };
}

fixtures![
    "linux-aarch64-pypy-3.10",
    "linux-x86_64-cpython-3.12",
    "linux-x86_64-cpython-3.12-wsl2",
    "linux-x86_64-cpython-3.13-untagged",
    "linux-x86_64-cpython-3.14.0rc1",
    "linux-x86_64-cpython-3.9",
    "macos-arm64-cpython-3.13",
    "windows-amd64-cpython-3.11",
    "windows-arm64-cpython-3.12",
];
