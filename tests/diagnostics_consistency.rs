//! `spec/SPEC.md` §12 and `spec/DIAGNOSTICS.md` name the same diagnostics with the same severities,
//! and both agree with the code table of the marker library.
//!
//! §12.1 and §12.2 list what is implemented; §12.3 lists what specification version 0.2 adds or
//! changes and is not implemented yet. The checks:
//!
//! 1. the (name, severity) pairs of §12.1 + §12.2 are exactly those of `spec/DIAGNOSTICS.md`;
//! 2. every coded row of `spec/DIAGNOSTICS.md` has the severity `DIAGNOSTIC_CODES` gives its code
//!    (`crates/pep508/tests/codes.rs` already checks codes, names and descriptions);
//! 3. no (name, severity) of §12.3 is implemented yet: implementing one makes this test fail until
//!    the row moves to §12.1 and into `spec/DIAGNOSTICS.md`.
//!
//! Severity in `spec/DIAGNOSTICS.md`: rows under "## Warnings" are warnings; in the code-less
//! "Environments and providers" table, a row whose meaning says "(warning)" is a warning; every
//! other row is an error. In §12, a severity cell may name both ("error (extended) / warning
//! (standard)"), meaning one diagnostic of each severity under that name.

use std::collections::BTreeSet;

use markerspec::pep508::{DIAGNOSTIC_CODES, Severity};

type Pairs = BTreeSet<(String, &'static str)>;

const SPEC: &str = include_str!("../spec/SPEC.md");
const DIAGNOSTICS: &str = include_str!("../spec/DIAGNOSTICS.md");

/// The text of SPEC.md between two headings (the first line starting with `from`, up to the first
/// later line starting with `to`).
fn between<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("SPEC.md has no heading {from:?}"));
    let rest = &text[start..];
    let end = rest
        .find(to)
        .unwrap_or_else(|| panic!("SPEC.md has no heading {to:?} after {from:?}"));
    &rest[..end]
}

fn severities(cell: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if cell.contains("error") {
        out.push("error");
    }
    if cell.contains("warning") {
        out.push("warning");
    }
    assert!(!out.is_empty(), "no severity in {cell:?}");
    out
}

/// (name, severity) of every row of the `| name | severity | raised when |` tables in `section`.
fn spec_pairs(section: &str) -> Pairs {
    let mut out = Pairs::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        for name in cells[1].split(',') {
            let name = name.trim().trim_matches('`');
            assert!(
                !name.is_empty() && !name.contains(' '),
                "SPEC.md §12: malformed name cell {:?}",
                cells[1]
            );
            for sev in severities(cells[2]) {
                out.insert((name.to_string(), sev));
            }
        }
    }
    out
}

/// (code or "—", name, severity) of every named row of DIAGNOSTICS.md.
fn document_rows() -> Vec<(String, String, &'static str)> {
    let mut out = Vec::new();
    let mut warnings_section = false;
    for line in DIAGNOSTICS.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            warnings_section = heading.starts_with("Warnings");
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[2].starts_with('`') {
            continue;
        }
        let code = cells[1];
        let coded = code.len() == 4
            && code.as_bytes()[0].is_ascii_uppercase()
            && code[1..].bytes().all(|b| b.is_ascii_digit());
        assert!(
            coded || code == "—",
            "DIAGNOSTICS.md: a named row needs a code or `—`: {line:?}"
        );
        let severity = if warnings_section || cells[3].contains("(warning)") {
            "warning"
        } else {
            "error"
        };
        out.push((
            code.to_string(),
            cells[2].trim_matches('`').to_string(),
            severity,
        ));
    }
    out
}

fn describe(pairs: &Pairs) -> String {
    pairs
        .iter()
        .map(|(n, s)| format!("{n} ({s})"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn spec_section_12_and_diagnostics_md_name_the_same_diagnostics() {
    let implemented = spec_pairs(between(SPEC, "## 12. Diagnostics", "### 12.3"));
    let documented: Pairs = document_rows()
        .into_iter()
        .map(|(_, name, sev)| (name, sev))
        .collect();
    assert!(implemented.len() >= 50, "{}", describe(&implemented));
    let only_spec: Pairs = implemented.difference(&documented).cloned().collect();
    let only_doc: Pairs = documented.difference(&implemented).cloned().collect();
    assert!(
        only_spec.is_empty() && only_doc.is_empty(),
        "SPEC.md §12.1–§12.2 and DIAGNOSTICS.md disagree.\n  only in SPEC.md: {}\n  only in DIAGNOSTICS.md: {}",
        describe(&only_spec),
        describe(&only_doc)
    );
}

#[test]
fn diagnostics_md_severities_match_the_code_table() {
    let rows = document_rows();
    let mut checked = 0;
    for (code, name, sev) in &rows {
        if code == "—" {
            assert!(
                !DIAGNOSTIC_CODES.iter().any(|(_, n, _, _)| n == name),
                "DIAGNOSTICS.md lists `{name}` without a code, but the library defines one"
            );
            continue;
        }
        let Some((_, _, severity, _)) = DIAGNOSTIC_CODES.iter().find(|(c, _, _, _)| c == code)
        else {
            panic!("DIAGNOSTICS.md lists {code}, which the library does not define");
        };
        let expected = match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        assert_eq!(*sev, expected, "{code} `{name}`");
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} coded rows");
}

#[test]
fn diagnostics_added_by_0_2_are_not_implemented_yet() {
    // The section empties as the implementation catches up; its rows, while there are any,
    // must not be implemented yet.
    let planned = spec_pairs(between(SPEC, "### 12.3", "\n## 13."));
    let implemented: Pairs = DIAGNOSTIC_CODES
        .iter()
        .map(|(_, name, severity, _)| {
            let sev = match severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            (name.to_string(), sev)
        })
        .collect();
    let done: Pairs = planned.intersection(&implemented).cloned().collect();
    assert!(
        done.is_empty(),
        "implemented now, so move them from SPEC.md §12.3 to §12.1 and add them to DIAGNOSTICS.md: {}",
        describe(&done)
    );
}
