//! `spec/SPEC.md`'s header, its changelog (Appendix D), its implementation checklist (Appendix F)
//! and [`markerspec::SPEC_VERSION`] name the same version; a released version has no unchecked
//! item and no draft status note.

const SPEC: &str = include_str!("../spec/SPEC.md");

/// The version the header names: `Specification version: **X**`.
fn header_version() -> &'static str {
    let line = SPEC
        .lines()
        .find(|l| l.starts_with("Specification version: **"))
        .expect("SPEC.md names its version in the header");
    let rest = &line["Specification version: **".len()..];
    &rest[..rest.find("**").expect("the version is in bold")]
}

/// The text of one appendix, up to the next one.
fn appendix(letter: char) -> &'static str {
    let heading = format!("## Appendix {letter}.");
    let start = SPEC
        .find(&heading)
        .unwrap_or_else(|| panic!("no {heading}"));
    let rest = &SPEC[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn header_code_and_changelog_name_the_same_version() {
    assert_eq!(header_version(), markerspec::SPEC_VERSION);
    let latest = appendix('D')
        .lines()
        .find_map(|l| l.strip_prefix("### "))
        .expect("the changelog has an entry");
    let (version, date) = latest.split_once(' ').expect("`### X.Y.Z (date)`");
    assert_eq!(version, markerspec::SPEC_VERSION, "{latest}");
    assert!(
        date.starts_with("(20") && date.ends_with(')'),
        "a released version's entry is dated, not `(draft)`: {latest}"
    );
}

#[test]
fn a_released_version_is_implemented_in_full() {
    assert!(
        !markerspec::SPEC_VERSION.contains('-'),
        "the checks below are for a release"
    );
    let unchecked: Vec<&str> = appendix('F')
        .lines()
        .filter(|l| l.starts_with("- [ ]"))
        .collect();
    assert!(unchecked.is_empty(), "Appendix F: {unchecked:#?}");
    // Status notes of a draft (`**Status (0.2-draft):**`), apart from §1's template.
    let drafts: Vec<&str> = SPEC
        .lines()
        .filter(|l| l.contains("**Status (") && l.contains("-draft):**") && !l.contains("X.Y"))
        .collect();
    assert!(drafts.is_empty(), "draft status notes: {drafts:#?}");
    assert!(
        !SPEC.contains("```marker-example-0.2"),
        "a marker-example-0.2 block is a result not implemented yet"
    );
}
