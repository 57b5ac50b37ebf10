//! The environment fixtures of `spec/environments/`, built into the binary.

use markerspec_pep508::Environment;

macro_rules! fixtures {
    ($($name:literal),* $(,)?) => {
        /// Every built-in fixture: (name, JSON text).
        pub const FIXTURES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../spec/environments/", $name, ".json"))),)*
        ];
    };
}

fixtures!(
    "linux-aarch64-pypy-3.10",
    "linux-x86_64-cpython-3.12",
    "linux-x86_64-cpython-3.12-wsl2",
    "linux-x86_64-cpython-3.13-untagged",
    "linux-x86_64-cpython-3.14.0rc1",
    "linux-x86_64-cpython-3.9",
    "macos-arm64-cpython-3.13",
    "windows-amd64-cpython-3.11",
    "windows-arm64-cpython-3.12",
);

/// Loads a built-in fixture by name.
///
/// # Errors
/// An unknown name, with the list of known ones.
pub fn load(name: &str) -> Result<Environment, String> {
    let Some((_, text)) = FIXTURES.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = FIXTURES.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "unknown fixture `{name}`; the fixtures are: {}",
            names.join(", ")
        ));
    };
    serde_json::from_str(text).map_err(|e| format!("fixture `{name}` is invalid: {e}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fixture_loads() {
        for (name, _) in super::FIXTURES {
            super::load(name).unwrap();
        }
        assert!(
            super::load("nope")
                .unwrap_err()
                .contains("linux-x86_64-cpython-3.12")
        );
    }
}
