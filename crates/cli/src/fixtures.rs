//! The environment fixtures of `spec/environments/`, built into `markerspec-env`.

use markerspec_pep508::Environment;

/// Loads a built-in fixture by name.
///
/// # Errors
/// An unknown name, with the list of known ones, or an invalid fixture.
pub fn load(name: &str) -> Result<Environment, String> {
    markerspec_env::FixtureProvider::builtin(name)
        .map(|f| f.environment())
        .map_err(|e| e.message().to_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_fixture_loads() {
        for name in markerspec_env::fixture_names() {
            super::load(name).unwrap();
        }
        assert!(
            super::load("nope")
                .unwrap_err()
                .contains("linux-x86_64-cpython-3.12")
        );
    }
}
