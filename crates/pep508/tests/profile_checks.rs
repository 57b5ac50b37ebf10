//! The parse-time checks of the standard fields, per profile: what `spec-2026` rejects and
//! warns about (`spec/SPEC.md` §5), and what `packaging` accepts with a warning because
//! pypa/packaging evaluates it as a constant or fails whenever it evaluates it.

use markerspec_pep508::{MarkerTree, ParseOptions, Profile, Warning};

/// The warning codes of parsing `text`, or the error's code.
fn checked(text: &str, profile: Profile) -> Result<Vec<&'static str>, &'static str> {
    let opts = ParseOptions::default().profile(profile);
    let mut warnings: Vec<Warning> = Vec::new();
    MarkerTree::parse_with(text, &opts, &mut warnings)
        .map(|_| warnings.iter().map(Warning::code).collect())
        .map_err(|e| e.code())
}

#[test]
fn packaging_accepts_what_its_grammar_reads_and_warns_where_it_cannot_evaluate() {
    let cases: &[(&str, &[&str])] = &[
        (r#""a" == "b""#, &["W004"]),
        ("os_name == python_version", &["W004"]),
        (r#"extra == "x""#, &[]),
        (r#"extra ~= "x""#, &["W006"]),
        (r#"extra === "x""#, &["W006"]),
        (r#"extra < "x""#, &[]),
        (r#""a" in extras"#, &[]),
        (r#""a" == extras"#, &[]),
        (r#""a" ~= extras"#, &["W006"]),
        (r#"extras == "a""#, &["W006"]),
        (r#"os_name == "a""#, &[]),
        (r#"os_name < "a""#, &["W002"]),
        (r#"os_name ~= "a""#, &["W006"]),
        (r#"os_name === "a""#, &["W006"]),
        (r#"python_version >= "3.8""#, &[]),
        (r#"python_version in "3.8 3.9""#, &[]),
        (r#"python_version >= "abc""#, &["W005"]),
        (r#"python_version ~= "abc""#, &["W006"]),
        (r#"platform_release >= "abc""#, &[]),
    ];
    for (text, want) in cases {
        assert_eq!(
            checked(text, Profile::Packaging),
            Ok(want.to_vec()),
            "{text}"
        );
    }
}

#[test]
fn spec_2026_rejects_comparisons_without_one_variable_and_misused_sets() {
    let cases: &[(&str, Result<&[&str], &str>)] = &[
        (r#""a" == "b""#, Err("M011")),
        ("os_name == python_version", Err("M012")),
        // Outside a lock file, `extras` and `dependency_groups` are unknown names.
        (r#""a" in extras"#, Err("M013")),
        (r#""a" in dependency_groups"#, Err("M013")),
        (r#"extra == "x""#, Ok(&[])),
        (r#"extra < "x""#, Ok(&["W010"])),
        (r#"os_name < "a""#, Ok(&["W002"])),
        (r#"os_name ~= "a""#, Ok(&["W009"])),
        (r#"os_name == "a""#, Ok(&[])),
        (r#"python_version in "3.8 3.9""#, Ok(&["W008"])),
        (r#"python_version >= "abc""#, Ok(&["W005"])),
        (r#"python_version == "=3.12""#, Ok(&["W005"])),
        (r#"python_version >= "3.8""#, Ok(&[])),
        (r#"platform_release >= "abc""#, Ok(&[])),
    ];
    for (text, want) in cases {
        assert_eq!(
            checked(text, Profile::Spec2026),
            want.map(<[&str]>::to_vec),
            "{text}"
        );
    }
    // In a lock file, a set field takes only `"value" in field` and `not in`; any other use is
    // false with a warning (Appendix E.1), and the legacy `extra` is refused (E.5).
    let lock = ParseOptions::default().lock_file(true);
    let cases: &[(&str, Result<&[&str], &str>)] = &[
        (r#""a" in extras"#, Ok(&[])),
        (r#""a" not in dependency_groups"#, Ok(&[])),
        (r#"extras == "a""#, Ok(&["W017"])),
        (r#""a" == extras"#, Ok(&["W017"])),
        (r#"extras in "abc""#, Ok(&["W018"])),
        (r#"extra == "a""#, Err("M014")),
    ];
    for (text, want) in cases {
        let mut warnings: Vec<Warning> = Vec::new();
        let got = MarkerTree::parse_with(text, &lock, &mut warnings)
            .map(|_| warnings.iter().map(Warning::code).collect::<Vec<_>>())
            .map_err(|e| e.code());
        assert_eq!(got, want.map(<[&str]>::to_vec), "{text}");
    }
}
