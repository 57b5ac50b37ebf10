//! `spec/DIAGNOSTICS.md` and the code tables agree, and codes are unique.

use std::collections::BTreeSet;

use markerspec_pep508::{DIAGNOSTIC_CODES, pep440::ERROR_CODES};

fn doc_rows() -> Vec<(String, String)> {
    let text = include_str!("../../../spec/DIAGNOSTICS.md");
    text.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code = *cells.get(1)?;
            let ok = code.len() == 4
                && code.as_bytes()[0].is_ascii_uppercase()
                && code[1..].bytes().all(|b| b.is_ascii_digit());
            ok.then(|| (code.to_string(), cells.get(2).unwrap_or(&"").to_string()))
        })
        .collect()
}

#[test]
fn codes_are_unique() {
    let mut seen = BTreeSet::new();
    for (code, _, _) in DIAGNOSTIC_CODES {
        assert!(seen.insert(*code), "duplicate {code}");
    }
    for (code, _) in ERROR_CODES {
        assert!(seen.insert(*code), "duplicate {code}");
    }
}

#[test]
fn the_document_lists_exactly_the_codes() {
    let rows = doc_rows();
    let documented: BTreeSet<&str> = rows.iter().map(|(c, _)| c.as_str()).collect();
    let mut defined: BTreeSet<&str> = DIAGNOSTIC_CODES.iter().map(|(c, _, _)| *c).collect();
    defined.extend(ERROR_CODES.iter().map(|(c, _)| *c));
    assert_eq!(documented, defined);
    for (code, _, description) in DIAGNOSTIC_CODES {
        let row = rows.iter().find(|(c, _)| c == code).unwrap();
        assert_eq!(&row.1, description, "{code}");
    }
    for (code, description) in ERROR_CODES {
        let row = rows.iter().find(|(c, _)| c == code).unwrap();
        assert_eq!(&row.1, description, "{code}");
    }
}
