//! markerspec's own implementation against every shipped case, under each profile it has.

use std::collections::BTreeSet;
use std::path::Path;

use markerspec_conformance::builtin::Markerspec;
use markerspec_conformance::{
    Cases, Dialect, Implementation, Kind, Outcome, Parsed, Profile, Request, Runner, Status,
    TestResult,
};

fn vectors_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/vectors"))
}

/// The builtin's declared divergences for one profile.
fn declared(profile: Profile) -> Vec<(&'static str, &'static str)> {
    let prefix = format!("{}:", profile.as_str());
    Markerspec::BLACKLIST
        .iter()
        .copied()
        .filter(|(sel, _)| sel.starts_with(&prefix))
        .collect()
}

#[test]
fn spec_2026_every_case_passes() {
    let report = Runner::new()
        .profiles(&[Profile::Spec2026])
        .blacklist(Markerspec::BLACKLIST)
        .run(&Cases::all(), &mut Markerspec::new());
    eprintln!("spec-2026: {:?}", report.counts());
    report.assert();
    assert!(report.results.iter().all(|r| r.status == Status::Pass));
}

#[test]
fn packaging_every_case_passes_or_diverges_as_declared() {
    let report = Runner::new()
        .profiles(&[Profile::Packaging])
        .blacklist(&declared(Profile::Packaging))
        .run(&Cases::all(), &mut Markerspec::new());
    eprintln!("packaging: {:?}", report.counts());
    report.assert();
    assert!(
        report.unused_divergences.is_empty(),
        "declared divergences that no case needs: {:?}",
        report.unused_divergences
    );
}

/// Under `packaging` every printed form is checked: none is declared, and every case whose
/// `packaging` expectation pins a printed form is compared with it, parenthesised groups
/// included (`(a and b) or c`, as packaging 26.4 keeps them).
#[test]
fn packaging_printed_forms_all_match() {
    assert!(
        !Markerspec::BLACKLIST
            .iter()
            .any(|(sel, _)| sel.starts_with("packaging:") && sel.ends_with("#canonical")),
        "a declared divergence on packaging's printed forms"
    );
    let report = Runner::new()
        .profiles(&[Profile::Packaging])
        .blacklist(Markerspec::BLACKLIST)
        .run(&Cases::all(), &mut Markerspec::new());
    let cases = Cases::all();
    let (mut compared, mut grouped) = (0, 0);
    for r in &report.results {
        let case = cases.get(&r.case).unwrap();
        let Some(Outcome::Valid {
            canonical: Some(want),
            ..
        }) = case.expected(Profile::Packaging)
        else {
            continue;
        };
        let Some(TestResult::Ok(Parsed::Valid {
            canonical: Some(got),
        })) = &r.observed.parsed
        else {
            continue;
        };
        assert_eq!(want, got, "{}: packaging's printed form", r.case);
        compared += 1;
        // A group that the flat form (`spec-2026`'s) leaves out: the form packaging keeps.
        let spec = Request {
            case,
            profile: Profile::Spec2026,
        };
        if let TestResult::Ok(Parsed::Valid {
            canonical: Some(flat),
        }) = Markerspec::new().parse(&spec)
        {
            if flat != *want && flat.replace(['(', ')'], "") == want.replace(['(', ')'], "") {
                grouped += 1;
            }
        }
    }
    eprintln!("packaging: {compared} printed forms compared, {grouped} with kept groups");
    assert!(
        compared > 10_000 && grouped > 500,
        "{compared} printed forms compared, {grouped} with kept groups"
    );
}

#[test]
fn uv_every_case_passes_or_diverges_as_declared() {
    let report = Runner::new()
        .profiles(&[Profile::Uv])
        .blacklist(&declared(Profile::Uv))
        .run(&Cases::all(), &mut Markerspec::new());
    eprintln!("uv: {:?}", report.counts());
    assert!(!report.results.is_empty(), "no case pins the uv profile");
    report.assert();
    assert!(
        report.unused_divergences.is_empty(),
        "declared divergences that no case needs: {:?}",
        report.unused_divergences
    );
    assert!(report.results.iter().all(|r| r.status != Status::Skip));
}

/// Under `uv` only printed forms and the nesting limit are declared: every accept/reject
/// decision and every evaluation matches uv-pep508.
#[test]
fn uv_divergences_are_only_printed_forms_and_nesting() {
    let report = Runner::new()
        .profiles(&[Profile::Uv])
        .blacklist(Markerspec::BLACKLIST)
        .run(&Cases::all(), &mut Markerspec::new());
    let cases = Cases::all();
    for r in report
        .results
        .iter()
        .filter(|r| r.status == Status::Divergent)
    {
        if r.case.starts_with("limits/nesting-") {
            continue;
        }
        let case = cases.get(&r.case).unwrap();
        // The words `true` and `false` are the printed form of the constants, which every
        // profile that prints them reads back; uv-pep508 rejects them (a declared divergence).
        if matches!(case.input(), "true" | "false") {
            continue;
        }
        match case.expected(Profile::Uv) {
            Some(Outcome::Valid { .. }) => {}
            other => panic!(
                "{}: diverges on more than its printed form: {other:?}",
                r.case
            ),
        }
        assert!(
            matches!(
                &r.observed.parsed,
                Some(TestResult::Ok(Parsed::Valid { .. }))
            ),
            "{}: rejected where uv accepts",
            r.case
        );
    }
}

/// Extended fields behave the same in every profile (spec/SPEC.md §5.6): every extended-dialect
/// case that reads no standard field gives its `spec-2026` outcome under `packaging` too.
#[test]
fn extended_fields_are_profile_independent() {
    let cases = Cases::all();
    let mut imp = Markerspec::new();
    let mut checked = 0;
    for case in cases.iter().filter(|c| c.dialect() == Dialect::Extended) {
        let standard = [
            "os_name",
            "sys_platform",
            "platform_",
            "python_version",
            "python_full_version",
            "implementation_",
            "extra",
            "os.",
            "sys.",
            "platform.",
        ];
        let extended = markerspec_pep508::Field::ALL
            .iter()
            .any(|f| f.is_extended() && case.input().contains(f.name()));
        if !extended || standard.iter().any(|s| case.input().contains(s)) {
            continue;
        }
        let spec = Request {
            case,
            profile: Profile::Spec2026,
        };
        let pkg = Request {
            case,
            profile: Profile::Packaging,
        };
        let (as_spec, as_pkg) = (imp.parse(&spec), imp.parse(&pkg));
        match (&as_spec, &as_pkg) {
            // `packaging` keeps parenthesised groups as written, to print as packaging does;
            // read back under `spec-2026`, its printed form is the same marker.
            (
                TestResult::Ok(Parsed::Valid {
                    canonical: Some(flat),
                }),
                TestResult::Ok(Parsed::Valid {
                    canonical: Some(grouped),
                }),
            ) if flat != grouped => {
                let opts = markerspec_pep508::ParseOptions::default()
                    .dialect(markerspec_pep508::Dialect::Extended);
                let again = match case.kind() {
                    Kind::Requirement => {
                        markerspec_pep508::Requirement::parse_with(grouped, &opts, &mut |_| {})
                            .map(|r| r.to_string())
                    }
                    _ => markerspec_pep508::MarkerTree::parse_with(grouped, &opts, &mut |_| {})
                        .map(|m| m.to_string()),
                };
                assert_eq!(again.as_ref(), Ok(flat), "{}", case.full_name());
                assert_eq!(
                    grouped.replace(['(', ')'], ""),
                    flat.replace(['(', ')'], ""),
                    "{}: a printing difference other than parentheses",
                    case.full_name()
                );
            }
            _ => assert_eq!(as_spec, as_pkg, "{}", case.full_name()),
        }
        if case.evaluates() {
            assert_eq!(
                imp.evaluate(&spec),
                imp.evaluate(&pkg),
                "{}",
                case.full_name()
            );
        }
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} extended cases checked");
}

/// The embedded group list is the directory listing, so no file is forgotten.
#[test]
fn every_vector_file_is_embedded() {
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(vectors_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".json") && name != "schema.json" {
            on_disk.insert(name.trim_end_matches(".json").to_string());
        }
    }
    let mut from_disk = Cases::new();
    from_disk.load_dir(vectors_dir()).unwrap();
    let embedded = Cases::all();
    assert_eq!(from_disk.len(), embedded.len());
    let groups: BTreeSet<String> = embedded.iter().map(|c| c.group().to_string()).collect();
    assert_eq!(groups, on_disk);
}

/// The suite covers what it says it covers.
#[test]
fn coverage() {
    let cases = Cases::all();
    assert!(cases.len() >= 1500, "{} cases", cases.len());
    let categories: BTreeSet<&str> = cases.iter().map(|c| c.category()).collect();
    for needed in [
        "whitespace",
        "quoting",
        "escapes",
        "parentheses",
        "boolean-logic",
        "keywords",
        "field-names",
        "names",
        "extras-syntax",
        "specifiers",
        "urls",
        "string-fields",
        "version-fields",
        "version-or-string-field",
        "prereleases",
        "local-versions",
        "arbitrary-equality",
        "wildcards",
        "invalid-versions",
        "extra",
        "lock-file-fields",
        "extended-versions",
        "extended-strings",
        "extended-sets",
        "interpreter-arch",
        "host-arch",
        "merged-text",
        "absent-and-unknown",
        "three-valued-logic",
        "variant-properties",
        "variant-label",
        "nesting",
        "input-length",
        "spec-examples",
        "real-world",
    ] {
        assert!(categories.contains(needed), "no case in category {needed}");
    }
    // Every error code of the marker and requirement grammars, and of the extended dialect,
    // is pinned by some case.
    let mut codes = BTreeSet::new();
    for c in cases.iter() {
        for (_, o) in c.expectations() {
            match o {
                Outcome::Invalid { error: Some(e) } => {
                    codes.insert(e.clone());
                }
                Outcome::Valid {
                    result: Some(markerspec_conformance::Expected::Error(Some(e))),
                    ..
                } => {
                    codes.insert(e.clone());
                }
                _ => {}
            }
        }
    }
    let missing: Vec<&str> = markerspec_pep508::DIAGNOSTIC_CODES
        .iter()
        .filter(|(code, _, sev, _)| {
            *sev == markerspec_pep508::Severity::Error
                // Limits whose bounds the specification leaves to the implementation (beyond
                // the 200 levels and 65,536 bytes every implementation must accept), and the
                // Unknown policy of the boolean API, which three-valued results do not reach.
                && !matches!(*code, "L001" | "L003" | "L004" | "E004")
        })
        .map(|(code, ..)| *code)
        .filter(|code| !codes.contains(*code))
        .collect();
    assert!(missing.is_empty(), "no case pins {missing:?}");
}
