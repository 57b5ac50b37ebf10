//! Environment documents (SPEC §11, `markerspec eval --env`, the built-in fixtures) and
//! override values: `FixtureProvider::from_json` and `parse_override` on arbitrary text.
//!
//! Checks: no panic; a document that loads writes back (`Facts::to_json`) as a document that
//! loads to the same values; an override value that parses is accepted by `validate` and fits
//! its field in an `Environment`; linear CPU time.

#![no_main]

use libfuzzer_sys::fuzz_target;
use markerspec_env::{FixtureProvider, parse_override, validate};
use markerspec_fuzz::{MAX_INPUT, within_budget};
use markerspec_pep508::{EnvValue, Environment, Field};

fn values(p: &FixtureProvider) -> Vec<(Field, EnvValue)> {
    p.facts()
        .iter()
        .map(|(f, fact)| (f, fact.value.clone()))
        .collect()
}

fn check(text: &str) {
    if let Ok(fixture) = FixtureProvider::from_json("fuzz", text) {
        let json = fixture.facts().to_json();
        let again = FixtureProvider::from_json("fuzz", &json).unwrap_or_else(|e| {
            panic!("{text:?} loads and writes {json:?}, which does not load: {e}")
        });
        assert_eq!(
            values(&again),
            values(&fixture),
            "{text:?} loads and writes {json:?}, which loads to other values"
        );
        let _ = fixture.facts().to_environment();
    }
    // The first line as an override value of every field.
    let line = text.lines().next().unwrap_or("");
    for &field in Field::ALL {
        if let Ok(value) = parse_override(field, line) {
            assert!(
                validate(field, value.clone()).is_ok(),
                "{field}: override {line:?} parses to {value:?}, which validate rejects"
            );
            let mut env = Environment::new();
            assert!(
                env.set(field, value.clone()).is_ok(),
                "{field}: override {line:?} parses to {value:?}, which does not fit the field"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within_budget("env_fixture", data.len(), || check(text));
});
