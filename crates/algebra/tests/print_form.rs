//! The printed form is versioned (`PRINT_FORM_VERSION`, `spec/SPEC.md` §21.4): a lock file
//! that stores printed markers relies on a version printing every marker the same way. This
//! test pins the printed form of every lock-file marker in `tests/data/lock-markers.txt`
//! (real markers from `uv.lock` and `poetry.lock` files), and of the markers with `in` on
//! string fields in `tests/data/string-in-markers.txt`, under no theory and under
//! `platform`, as `to_marker_string` and as `to_shortest_marker_string` print them: a change
//! to the printer that changes any of them fails here, and is either a bug or a new
//! `PRINT_FORM_VERSION` (then `cargo insta review` takes the new texts).

use markerspec_algebra::{Context, PRINT_FORM_VERSION, Theory};
use markerspec_pep508::MarkerTree;

/// The printed form of each marker of a file of `tests/data`, one line per marker; with
/// `shortest`, as `to_shortest_marker_string` prints it.
fn printed(
    file: &str,
    theory: &Theory,
    shortest: bool,
) -> Result<String, Box<dyn std::error::Error>> {
    let text =
        std::fs::read_to_string(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR")))?;
    let mut ctx = Context::new();
    let mut out = format!("print form {PRINT_FORM_VERSION}\n");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let tree: MarkerTree = line.parse()?;
        let m = ctx.from_marker(&tree, theory)?;
        let text = if shortest {
            ctx.to_shortest_marker_string(m)?
        } else {
            ctx.to_marker_string(m)?
        };
        out.push_str(&text);
        out.push('\n');
    }
    Ok(out)
}

#[test]
fn lock_markers_print_as_this_version_prints_them() -> Result<(), Box<dyn std::error::Error>> {
    let file = "lock-markers.txt";
    insta::assert_snapshot!("lock_markers_none", printed(file, &Theory::none(), false)?);
    insta::assert_snapshot!(
        "lock_markers_platform",
        printed(file, &Theory::platform(), false)?
    );
    insta::assert_snapshot!(
        "lock_markers_shortest_none",
        printed(file, &Theory::none(), true)?
    );
    insta::assert_snapshot!(
        "lock_markers_shortest_platform",
        printed(file, &Theory::platform(), true)?
    );
    Ok(())
}

/// Print form 4: a string field's set that `in` made (every substring of a literal, some
/// left out) is written with `in` again, not one `==` per substring.
#[test]
fn string_in_markers_print_as_this_version_prints_them() -> Result<(), Box<dyn std::error::Error>> {
    let file = "string-in-markers.txt";
    for shortest in [false, true] {
        let none = printed(file, &Theory::none(), shortest)?;
        // The SQLAlchemy marker, first in the file, is back to its own length.
        let first = none.lines().nth(1).unwrap_or_default();
        assert_eq!(
            first,
            r#"platform_machine in "x86_64 X86_64 aarch64 AARCH64 ppc64le PPC64LE amd64 AMD64 win32 WIN32" and python_version >= "3""#
        );
        let platform = printed(file, &Theory::platform(), shortest)?;
        if shortest {
            insta::assert_snapshot!("string_in_markers_shortest_none", none);
            insta::assert_snapshot!("string_in_markers_shortest_platform", platform);
        } else {
            insta::assert_snapshot!("string_in_markers_none", none);
            insta::assert_snapshot!("string_in_markers_platform", platform);
        }
    }
    Ok(())
}

/// Print form 8: what form 7 answered `unprintable` for. A `~=` with a one-number release is
/// no specifier, so `spec-2026` reads it as text: the version alone, without its local
/// labels, which no specifier is, printed as written; a wildcard with an epoch; the `!=` of
/// the least versions. Each text reads back as the marker, in both forms; the versions
/// around such a point without it have no spelling.
#[test]
fn version_8_prints_what_version_7_could_not() -> Result<(), Box<dyn std::error::Error>> {
    let mut ctx = Context::new();
    let none = Theory::none();
    for (input, want) in [
        (
            r#"python_full_version ~= "13""#,
            r#"python_full_version ~= "13""#,
        ),
        (r#"platform_release ~= '10'"#, r#"platform_release ~= "10""#),
        (
            r#"implementation_version ~= "1!9""#,
            r#"implementation_version ~= "1!9""#,
        ),
        (
            r#"python_full_version ~= "13rc1""#,
            r#"python_full_version ~= "13rc1""#,
        ),
        (
            r#"python_full_version ~= "13" or python_version == "3.9""#,
            r#"python_version == "3.9" or python_full_version ~= "13""#,
        ),
        (
            r#"python_full_version ~= "14" or python_full_version ~= "13""#,
            r#"python_full_version ~= "13" or python_full_version ~= "14""#,
        ),
        (
            r#"python_full_version != "13" or python_full_version ~= "13""#,
            r#"python_full_version != "13" or python_full_version ~= "13""#,
        ),
        (
            r#""0.*" != implementation_version"#,
            r#"implementation_version != "0.*""#,
        ),
        (
            r#"implementation_version != "1!13.3.2.*""#,
            r#"implementation_version != "1!13.3.2.*""#,
        ),
        (
            r#"python_full_version != "2!7.*""#,
            r#"python_version != "2!7.*""#,
        ),
    ] {
        let m = ctx.from_marker(&input.parse::<MarkerTree>()?, &none)?;
        for shortest in [false, true] {
            let text = if shortest {
                ctx.to_shortest_marker_string(m)?
            } else {
                ctx.to_marker_string(m)?
            };
            assert_eq!(text, want, "{input} (shortest: {shortest})");
            let back = ctx.from_marker(&text.parse::<MarkerTree>()?, &none)?;
            assert_eq!(back, m, "{input} reads back as {text}");
        }
    }
    // With another field: the cover and the shortest form (in variable order) alike.
    let m = ctx.from_marker(
        &r#"sys_platform == "linux" and python_full_version ~= "13""#.parse()?,
        &none,
    )?;
    assert_eq!(
        ctx.to_marker_string(m)?,
        r#"sys_platform == "linux" and python_full_version ~= "13""#
    );
    assert_eq!(
        ctx.to_shortest_marker_string(m)?,
        r#"python_full_version ~= "13" and sys_platform == "linux""#
    );
    // `~= "13.0"` is a specifier (13.0 up to 14): no point; and a point's complement has no
    // spelling.
    let m = ctx.from_marker(&r#"python_full_version ~= "13.0""#.parse()?, &none)?;
    assert_eq!(
        ctx.to_marker_string(m)?,
        r#"python_full_version >= "13" and python_version < "14""#
    );
    let point = ctx.from_marker(&r#"python_full_version ~= "13""#.parse()?, &none)?;
    let around = ctx.not(point);
    let e = ctx
        .to_marker_string(around)
        .err()
        .ok_or("a spelling of the versions around 13 without it")?;
    assert_eq!(e.code(), "unprintable");
    // The error names the set with no spelling, not its negation.
    assert!(
        e.to_string()
            .starts_with("`python_full_version in \"\" ∪ (-∞, 13)"),
        "{e}"
    );
    // An opaque comparison's negation (`in` on `platform_release` has no complement): named
    // as the negation.
    let opaque = ctx.from_marker(&r#"platform_release in "5.4""#.parse()?, &none)?;
    let e = ctx
        .to_marker_string(ctx.not(opaque))
        .err()
        .ok_or("a spelling of an opaque comparison's negation")?;
    assert_eq!(
        e.to_string(),
        r#"`not (platform_release in "5.4")` has no marker syntax"#
    );
    Ok(())
}
