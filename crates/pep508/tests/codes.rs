//! `spec/DIAGNOSTICS.md` and the code tables agree, and codes are unique.

use std::collections::BTreeSet;

use markerspec_pep508::{DIAGNOSTIC_CODES, pep440::ERROR_CODES};

/// (code, name, meaning) of every table row of the document.
fn doc_rows() -> Vec<(String, String, String)> {
    let text = include_str!("../../../spec/DIAGNOSTICS.md");
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code = *cells.get(1)?;
            let ok = code.len() == 4
                && code.as_bytes()[0].is_ascii_uppercase()
                && code[1..].bytes().all(|b| b.is_ascii_digit());
            ok.then(|| {
                (
                    code.to_string(),
                    cells.get(2).unwrap_or(&"").trim_matches('`').to_string(),
                    cells.get(3).unwrap_or(&"").to_string(),
                )
            })
        })
        .collect()
}

#[test]
fn codes_and_names_are_unique() {
    let mut codes = BTreeSet::new();
    for (code, _, _, _) in DIAGNOSTIC_CODES {
        assert!(codes.insert(*code), "duplicate {code}");
    }
    for (code, _) in ERROR_CODES {
        assert!(codes.insert(*code), "duplicate {code}");
    }
    // A name is shared only by an error and a warning for the same construct in different
    // settings (e.g. `containment-on-version`: an error on extended fields, a warning on
    // standard ones).
    let mut names = BTreeSet::new();
    for (_, name, severity, _) in DIAGNOSTIC_CODES {
        assert!(names.insert((*name, *severity as u8)), "duplicate {name}");
    }
}

#[test]
fn the_document_lists_exactly_the_codes() {
    let rows = doc_rows();
    let documented: BTreeSet<&str> = rows.iter().map(|(c, _, _)| c.as_str()).collect();
    let mut defined: BTreeSet<&str> = DIAGNOSTIC_CODES.iter().map(|(c, _, _, _)| *c).collect();
    defined.extend(ERROR_CODES.iter().map(|(c, _)| *c));
    assert_eq!(documented, defined);
    for (code, name, _, description) in DIAGNOSTIC_CODES {
        let row = rows.iter().find(|(c, _, _)| c == code).unwrap();
        assert_eq!(
            (row.1.as_str(), row.2.as_str()),
            (*name, *description),
            "{code}"
        );
    }
    for (code, description) in ERROR_CODES {
        let row = rows.iter().find(|(c, _, _)| c == code).unwrap();
        assert_eq!(&row.2, description, "{code}");
    }
}

/// An error is one pointer wide and keeps no copy of its input: a rejected 2 MB input costs
/// the same error as a rejected 2-byte one, and rendering takes the input.
#[test]
fn error_is_small_and_holds_no_input() {
    use markerspec_pep508::{Error, MarkerTree};
    assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
    let long = "a".repeat(2 << 20);
    let err = long.parse::<MarkerTree>().unwrap_err();
    assert_eq!(err.code(), "L001");
    // The error's own data: the kind (two numbers) and a span; its debug form never shows
    // the input.
    assert!(format!("{err:?}").len() < 200);
    assert!(err.render(&long).contains("error[L001]"));
}
