//! The environment-document warnings are the diagnostics `spec/DIAGNOSTICS.md` documents
//! (repository only: the packaged crate does not carry the specification).

use markerspec_env::DocumentWarning;

#[test]
fn the_warnings_are_the_documented_diagnostics() {
    let documented = include_str!("../../../spec/DIAGNOSTICS.md");
    for warning in [
        DocumentWarning::UnknownKey("k".into()),
        DocumentWarning::NewerVersion("0.3".into()),
        DocumentWarning::TextVersion {
            key: "python_full_version".into(),
            value: "dev".into(),
        },
    ] {
        let row = format!("| — | `{}` |", warning.name());
        let line = documented
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("spec/DIAGNOSTICS.md has no row {row}"));
        assert!(line.contains("(warning)"), "{line}");
        assert!(warning.to_string().starts_with(warning.name()));
    }
}
