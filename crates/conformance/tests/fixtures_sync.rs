//! `fixtures.json` (the environment fixtures this crate embeds for the cases that name one) is a
//! copy of files of `markerspec-env` (`crates/env/fixtures/`, the repository's
//! `spec/environments`): the published crate cannot reach outside its own folder. This test fails
//! when the copy differs from those files; `MARKERSPEC_SYNC_FIXTURES=1 cargo test -p
//! markerspec-conformance --test fixtures_sync` rewrites the copy.
//!
//! It needs the repository (the package leaves it out).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

const COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures.json");
const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../env/fixtures");

#[test]
fn embedded_fixtures_match_the_env_crate() {
    let copy: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(COPY).unwrap()).unwrap();
    assert!(
        copy.len() >= 9,
        "fixtures.json lists only {} fixtures",
        copy.len()
    );
    let mut source = BTreeMap::new();
    for name in copy.keys() {
        let path = Path::new(SOURCE).join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (a fixture the vectors name)", path.display()));
        let doc: Value = serde_json::from_str(&text).unwrap();
        source.insert(name.clone(), doc);
    }
    if std::env::var_os("MARKERSPEC_SYNC_FIXTURES").is_some() {
        let text = serde_json::to_string_pretty(&source).unwrap() + "\n";
        std::fs::write(COPY, text).unwrap();
        eprintln!("rewrote {COPY}");
        return;
    }
    for (name, doc) in &source {
        assert_eq!(
            &copy[name], doc,
            "fixtures.json differs from crates/env/fixtures/{name}.json; rerun with \
             MARKERSPEC_SYNC_FIXTURES=1 to copy it"
        );
    }
}

#[test]
fn every_fixture_a_case_names_is_embedded() {
    let copy: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(COPY).unwrap()).unwrap();
    let cases = markerspec_conformance::Cases::all();
    let mut named = 0;
    for case in cases.iter() {
        if let Some(fixture) = case.fixture() {
            named += 1;
            assert!(
                copy.contains_key(fixture),
                "{} names {fixture}",
                case.full_name()
            );
        }
    }
    assert!(named > 0, "no case names a fixture");
}
