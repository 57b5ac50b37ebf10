//! `serde_json::from_slice::<Environment>` on arbitrary bytes.
//!
//! Checks: no panic; an environment that parses serialises, parses back to the same value for
//! every field, and serialises to the same bytes again; linear CPU time.

#![no_main]

use libfuzzer_sys::fuzz_target;
use markerspec_fuzz::{MAX_INPUT, within_budget};
use markerspec_pep508::{EnvValue, Environment, Field};

fn values(env: &Environment) -> Vec<(Field, EnvValue)> {
    env.iter().map(|(f, v)| (f, v.clone())).collect()
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    within_budget("environment_json", data.len(), || check(data));
});

fn check(data: &[u8]) {
    if let Ok(env) = serde_json::from_slice::<Environment>(data) {
        let json = serde_json::to_vec(&env).expect("an environment always serialises");
        let again: Environment = serde_json::from_slice(&json).unwrap_or_else(|e| {
            panic!(
                "{:?} serialises as {:?}, which fails: {e}",
                String::from_utf8_lossy(data),
                String::from_utf8_lossy(&json)
            )
        });
        assert_eq!(
            values(&again),
            values(&env),
            "{:?} serialises as {:?}, another environment",
            String::from_utf8_lossy(data),
            String::from_utf8_lossy(&json)
        );
        let json2 = serde_json::to_vec(&again).expect("an environment always serialises");
        assert_eq!(json2, json, "serialisation is not idempotent");
    }
}
