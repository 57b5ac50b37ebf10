//! The `uv` profile's comparisons, one rule at a time, against what uv-pep508 0.0.72's
//! `MarkerTree::evaluate` (and `evaluate_pep751` for `extras`/`dependency_groups`) answers for
//! the same marker and environment; each expected value below was checked against it.
//!
//! A case is `(overrides, marker, expected)`: the environment is [`base`] with the overrides
//! (`field=value`, comma-separated; `extra=a|b` requests extras, `extras=…` and `groups=…` set
//! the lock-file sets).

use markerspec_pep508::{
    EnvValue, Environment, Field, MarkerTree, ParseOptions, Profile, Requirement, Truth,
    WarningKind,
};

use Truth::{False as F, True as T};

/// The environment every case starts from.
fn base() -> Environment {
    Environment::new()
        .with_unchecked(Field::OsName, "posix")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformSystem, "Linux")
        .with_unchecked(Field::PlatformMachine, "x86_64")
        .with_unchecked(Field::PlatformPythonImplementation, "CPython")
        .with_unchecked(Field::PlatformRelease, "6.8.0-45-generic")
        .with_unchecked(Field::PlatformVersion, "5.0")
        .with_unchecked(Field::ImplementationName, "cpython")
        .with_unchecked(Field::ImplementationVersion, "3.12.7")
        .with_unchecked(Field::PythonVersion, "3.12")
        .with_unchecked(Field::PythonFullVersion, "3.12.7")
}

fn environment(overrides: &str) -> Environment {
    let mut env = base();
    for kv in overrides.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap();
        let items = || {
            v.split('|')
                .filter(|s| !s.is_empty())
                .map(Into::into)
                .collect::<Vec<Box<str>>>()
        };
        match k {
            "extra" => env = env.with_extras(v.split('|').filter(|s| !s.is_empty())),
            "extras" => env.set(Field::Extras, EnvValue::Set(items())).unwrap(),
            "groups" => env
                .set(Field::DependencyGroups, EnvValue::Set(items()))
                .unwrap(),
            _ => env = env.with_unchecked(Field::from_canonical_name(k).unwrap(), v),
        }
    }
    env
}

#[track_caller]
fn check(cases: &[(&str, &str, Truth)]) {
    let opts = ParseOptions::default().profile(Profile::Uv);
    let mut wrong = Vec::new();
    for (overrides, text, expected) in cases {
        let m = MarkerTree::parse_with(text, &opts, &mut |_| {})
            .unwrap_or_else(|e| panic!("{text}: {}", e.render(text)));
        let got = m.evaluate_tristate(&environment(overrides)).unwrap().truth;
        if got != *expected {
            wrong.push(format!(
                "[{overrides}] {text}: expected {expected}, got {got}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// Versions are placed in ranges: an exclusive bound excludes the version itself; every
/// operator keeps its meaning on `python_full_version`.
#[test]
fn version_operators_and_bounds() {
    check(&[
        ("", r#"python_full_version > "3.12.7""#, F),
        ("", r#"python_full_version > "3.12.6""#, T),
        ("", r#"python_full_version >= "3.12.7""#, T),
        ("", r#"python_full_version < "3.12.7""#, F),
        ("", r#"python_full_version < "3.12.8""#, T),
        ("", r#"python_full_version <= "3.12.7""#, T),
        ("", r#"python_full_version <= "3.12.6""#, F),
        ("", r#"python_full_version == "3.12.7""#, T),
        ("", r#"python_full_version != "3.12.7""#, F),
        ("", r#"python_full_version != "3.12.6""#, T),
        ("", r#"python_full_version == "3.12.*""#, T),
        ("", r#"python_full_version == "3.11.*""#, F),
        ("", r#"python_full_version != "3.12.*""#, F),
        ("", r#"python_full_version != "3.11.*""#, T),
        ("", r#"python_full_version ~= "3.12.0""#, T),
        ("", r#"python_full_version ~= "3.12.8""#, F),
        ("", r#"python_full_version ~= "3.11.0""#, F),
        ("", r#""3.12.7" < python_full_version"#, F),
        ("", r#""3.12.6" < python_full_version"#, T),
        ("", r#""3.12.7" >= python_full_version"#, T),
        ("", r#"implementation_version >= "3.12.7""#, T),
        ("", r#"implementation_version > "3.12.7""#, F),
        // A local label is ignored with `==` and `!=`; with any other operator the
        // comparison is dropped.
        ("", r#"python_full_version == "3.12.7+local""#, T),
        ("", r#"python_full_version != "3.12.7+local""#, F),
        ("", r#"python_full_version >= "3.13+local""#, T),
        // `~=` needs two release numbers, else it is dropped.
        ("", r#"python_full_version ~= "3.13""#, F),
        ("", r#"python_full_version ~= "3""#, T),
    ]);
}

/// uv rewrites `python_version` specifiers as `python_full_version` ranges: `== "3.*"` is
/// `[3, 4)`, a wildcard or `~=` with trailing zeros is the major.minor wildcard, one with
/// other numbers after major.minor is false, and an ordering against `X.Y.Z` is one against
/// the next minor.
#[test]
fn python_version_as_a_full_version_range() {
    check(&[
        ("", r#"python_version == "3.*""#, T),
        ("", r#"python_version != "3.*""#, F),
        ("", r#"python_version == "3.12.0.*""#, T),
        ("", r#"python_version == "3.12.1.*""#, F),
        ("", r#"python_version ~= "3.12.0""#, T),
        ("", r#"python_version ~= "3.12.1""#, F),
        ("", r#"python_version < "3.12.1""#, T),
        ("", r#"python_version <= "3.12.1""#, T),
        ("", r#"python_version > "3.12.1""#, F),
        ("", r#"python_version >= "3.12.1""#, F),
        (
            "python_full_version=3.13.0,python_version=3.13",
            r#"python_version > "3.12.1""#,
            T,
        ),
        (
            "python_full_version=3.13.0,python_version=3.13",
            r#"python_version >= "3.12.1""#,
            T,
        ),
    ]);
}

/// A version pattern is a version or release numbers followed by `.*`: a wildcard after a
/// pre-, post- or dev-release, a local label or a space is not one, and uv drops the
/// comparison (a marker left with nothing is true).
#[test]
fn wildcards_take_release_numbers_only() {
    check(&[
        ("", r#"python_full_version == "3.11.*""#, F),
        ("", r#"python_full_version == "3.11 .*""#, T),
        ("", r#"python_full_version == "3.11a1.*""#, T),
        ("", r#"python_full_version == "3.11.post1.*""#, T),
        ("", r#"python_full_version == "3.11.dev1.*""#, T),
        ("", r#"python_full_version == "3.11+local.*""#, T),
        (
            "",
            r#"os_name == "nt" or python_full_version == "3.11a1.*""#,
            F,
        ),
    ]);
    // The dropped ones warn.
    let opts = ParseOptions::default().profile(Profile::Uv);
    for text in [
        r#"python_full_version == "3.11 .*""#,
        r#"python_full_version == "3.11a1.*""#,
        r#"python_full_version == "3.11.post1.*""#,
        r#"python_full_version == "3.11.dev1.*""#,
        r#"python_full_version == "3.11+local.*""#,
    ] {
        let mut warnings = Vec::new();
        MarkerTree::parse_with(text, &opts, &mut warnings).unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| matches!(w.kind, WarningKind::VersionFieldStringComparison { .. })),
            "{text}: {warnings:?}"
        );
    }
}

/// A quoted version is read with ASCII whitespace around it ignored; other whitespace makes it
/// no version, and the comparison is dropped.
#[test]
fn version_whitespace() {
    check(&[
        ("", r#"python_full_version == " 3.12.6 ""#, F),
        ("", "python_full_version == \"\u{a0}3.12.6\"", T),
        ("", "python_full_version == \"3.12.6\u{a0}\"", T),
    ]);
}

/// `platform_release` and `platform_version` order lexicographically (in either operand
/// order); other string fields do not order: `<`, `>` are false and `<=`, `>=` are `==`.
#[test]
fn string_ordering() {
    check(&[
        ("", r#"platform_release < "7""#, T),
        ("", r#"platform_release < "6""#, F),
        ("", r#"platform_release < "6.8.0-45-generic""#, F),
        ("", r#"platform_release <= "7""#, T),
        ("", r#"platform_release <= "6.8.0-45-generic""#, T),
        ("", r#"platform_release <= "6""#, F),
        ("", r#"platform_release > "6""#, T),
        ("", r#"platform_release > "7""#, F),
        ("", r#"platform_release > "6.8.0-45-generic""#, F),
        ("", r#"platform_release >= "6.8.0-45-generic""#, T),
        ("", r#"platform_release >= "7""#, F),
        ("", r#""7" > platform_release"#, T),
        ("", r#""6" > platform_release"#, F),
        ("", r#""6" <= platform_release"#, T),
        ("", r#"platform_version < "6""#, T),
        ("", r#"platform_version > "6""#, F),
        ("", r#"platform_version >= "5.0""#, T),
        ("", r#"platform_version <= "4""#, F),
        ("", r#"os_name < "z""#, F),
        ("", r#"os_name > "a""#, F),
        ("", r#"os_name <= "posix""#, T),
        ("", r#"os_name <= "z""#, F),
        ("", r#"os_name >= "posix""#, T),
        ("", r#"os_name >= "a""#, F),
        ("", r#""a" < os_name"#, F),
        ("", r#"os_name != "posix""#, F),
        ("", r#"os_name != "nt""#, T),
    ]);
}

/// `in` / `not in` on strings are substring tests, in either order.
#[test]
fn string_containment() {
    check(&[
        ("", r#"os_name in "posix nt""#, T),
        ("", r#"os_name in "nt""#, F),
        ("", r#"os_name not in "posix nt""#, F),
        ("", r#"os_name not in "nt""#, T),
        ("", r#""pos" in os_name"#, T),
        ("", r#""pos" not in os_name"#, F),
        ("", r#""nt" not in os_name"#, T),
    ]);
}

/// uv reads `platform_system == "<name>"` as the `sys_platform` test it implies (so only
/// `sys_platform` matters), but `in` / `not in` test `platform_system` itself.
#[test]
fn platform_system_reads_sys_platform() {
    check(&[
        (
            "platform_system=Other,sys_platform=win32",
            r#"platform_system == "Windows""#,
            T,
        ),
        (
            "platform_system=Windows,sys_platform=cygwin",
            r#"platform_system == "Windows""#,
            F,
        ),
        (
            "platform_system=Other,sys_platform=darwin",
            r#"platform_system == "Darwin""#,
            T,
        ),
        (
            "platform_system=Other,sys_platform=linux",
            r#"platform_system == "Linux""#,
            T,
        ),
        (
            "platform_system=Other,sys_platform=aix",
            r#"platform_system == "AIX""#,
            T,
        ),
        (
            "platform_system=Other,sys_platform=emscripten",
            r#"platform_system == "Emscripten""#,
            T,
        ),
        (
            "platform_system=Other,sys_platform=android",
            r#"platform_system == "Android""#,
            T,
        ),
        (
            "platform_system=Android,sys_platform=linux",
            r#"platform_system == "Android""#,
            F,
        ),
        (
            "platform_system=Other,sys_platform=win32",
            r#"platform_system != "Windows""#,
            F,
        ),
        // Names uv does not map compare `platform_system`.
        (
            "platform_system=FreeBSD,sys_platform=freebsd14",
            r#"platform_system == "FreeBSD""#,
            T,
        ),
        // Containment is not mapped.
        (
            "platform_system=Windows,sys_platform=cygwin",
            r#"platform_system in "Windows""#,
            T,
        ),
        (
            "platform_system=Other,sys_platform=win32",
            r#"platform_system in "Windows""#,
            F,
        ),
        (
            "platform_system=Other,sys_platform=win32",
            r#"platform_system not in "Windows""#,
            T,
        ),
    ]);
}

/// `"name" in extras` / `dependency_groups` test the lock file's sets (none given: nothing
/// requested).
#[test]
fn lock_file_sets() {
    check(&[
        ("extras=cuda,groups=dev", r#""cuda" in extras"#, T),
        ("extras=cuda,groups=dev", r#""rocm" in extras"#, F),
        ("extras=cuda,groups=dev", r#""cuda" not in extras"#, F),
        ("extras=cuda,groups=dev", r#""rocm" not in extras"#, T),
        ("extras=cuda,groups=dev", r#""dev" in dependency_groups"#, T),
        (
            "extras=cuda,groups=dev",
            r#""docs" in dependency_groups"#,
            F,
        ),
        ("", r#""cuda" in extras"#, F),
        ("", r#""cuda" not in extras"#, T),
        ("", r#""dev" in dependency_groups"#, F),
    ]);
}

/// A set field compared with a variable is rejected, as on the left of `in`.
#[test]
fn lock_file_set_against_a_variable_is_rejected() {
    let opts = ParseOptions::default().profile(Profile::Uv);
    for text in [
        "extras == os_name",
        "dependency_groups == extras",
        "extras in \"cuda\"",
    ] {
        let e = MarkerTree::parse_with(text, &opts, &mut |_| {}).unwrap_err();
        assert_eq!(e.code(), "X004", "{text}");
    }
}

/// Under uv an Absent string reads as the empty string, as in every profile (`spec/SPEC.md`
/// §4.2), and Absent lock-file sets as empty sets.
#[test]
fn absent_values() {
    let mut env = base();
    env.set(Field::OsName, EnvValue::Absent).unwrap();
    env.set(Field::Extras, EnvValue::Absent).unwrap();
    let opts = ParseOptions::default().profile(Profile::Uv);
    for (text, expected) in [
        (r#"os_name == """#, T),
        (r#"os_name != "posix""#, T),
        (r#"os_name == "posix""#, F),
        (r#""cuda" in extras"#, F),
        (r#""cuda" not in extras"#, T),
    ] {
        let m = MarkerTree::parse_with(text, &opts, &mut |_| {}).unwrap();
        let e = m.evaluate_tristate(&env).unwrap();
        assert_eq!(e.truth, expected, "{text}");
    }
}

/// Which requirements uv accepts: an `http`/`https` URL needs a host (a port alone, or a
/// user and a port, is none), and a bare name that reads as an archive file (`.whl`, `.zip`,
/// `.tgz`, `.tar`, `.tar.gz`) needs a package name before it; other dotted names are names.
#[test]
fn requirement_urls_and_archive_names() {
    let opts = ParseOptions::default().profile(Profile::Uv);
    let parses = |s: &str| Requirement::parse_with(s, &opts, &mut |_| {}).is_ok();
    for ok in [
        "pkg @ https://e.com/x",
        "pkg @ http:///path",
        "pkg @ http://h:80/x",
        "pkg @ http://[::1]:8080/x",
        "pkg @ http://[::1]/x",
        "pkg @ http://[::1]",
        "foo.gz",
        "a.b.gz",
    ] {
        assert!(parses(ok), "{ok}");
    }
    for err in [
        "pkg @ http:",
        "pkg @ http://",
        "pkg @ http:///",
        "pkg @ http://:80/x",
        "pkg @ http://:abc/x",
        "pkg @ http://user@:80/x",
        "pkg @ https://:/x",
        "x.tar.gz",
        ".tar.gz",
        "foo.tar",
        "foo.whl",
    ] {
        assert!(!parses(err), "{err}");
    }
}

/// uv-pep508 rejects a URL whose port is not a number or out of range (`invalid port
/// number`).
#[test]
fn requirement_url_ports_are_numbers() {
    let opts = ParseOptions::default().profile(Profile::Uv);
    for err in [
        "pkg @ http://[::1]:x/y",
        "pkg @ http://h:x/y",
        "pkg @ http://h:99999/y",
    ] {
        assert!(
            Requirement::parse_with(err, &opts, &mut |_| {}).is_err(),
            "{err}"
        );
    }
}

/// Found by `markerspec fuzz` against uv-pep508 0.0.98: after `not` and its whitespace uv reads
/// the characters `in` whatever follows them, while a lone `in` still needs a word boundary.
#[test]
fn not_in_needs_no_boundary_after_in() {
    check(&[
        ("", "'posix' not inos_name", F),
        ("", "'nt' not inos_name", T),
    ]);
    let uv = ParseOptions::default().profile(Profile::Uv);
    assert!(MarkerTree::parse_with("'posix' inos_name", &uv, &mut |_| {}).is_err());
    // The other profiles keep the word boundary.
    assert!("'posix' not inos_name".parse::<MarkerTree>().is_err());
}
