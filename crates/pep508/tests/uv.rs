//! The `uv` profile's own rules: what uv-pep508 0.0.98 accepts, drops and evaluates.

use markerspec_pep508::{
    Environment, Field, MarkerTree, ParseOptions, Profile, Requirement, Truth, Warning,
};

fn uv() -> ParseOptions {
    ParseOptions::default().profile(Profile::Uv)
}

#[track_caller]
fn parse(input: &str) -> (MarkerTree, Vec<Warning>) {
    let mut warnings = Vec::new();
    let m = MarkerTree::parse_with(input, &uv(), &mut warnings)
        .unwrap_or_else(|e| panic!("{input}: {}", e.render(input)));
    (m, warnings)
}

#[track_caller]
fn rejects(input: &str) -> bool {
    MarkerTree::parse_with(input, &uv(), &mut |_| {}).is_err()
}

#[track_caller]
fn truth(input: &str, env: &Environment) -> Truth {
    parse(input).0.evaluate_tristate(env).unwrap().truth
}

fn linux(full_version: &str, python_version: &str) -> Environment {
    Environment::new()
        .with_unchecked(Field::OsName, "posix")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformSystem, "Linux")
        .with_unchecked(Field::PlatformRelease, "9.0")
        .with_unchecked(Field::PythonVersion, python_version)
        .with_unchecked(Field::PythonFullVersion, full_version)
}

#[test]
fn profile_name() {
    assert_eq!("uv".parse::<Profile>(), Ok(Profile::Uv));
    assert_eq!(Profile::Uv.to_string(), "uv");
    assert!(Profile::ALL.contains(&Profile::Uv));
}

/// A comparison uv cannot read leaves its `and`/`or` chain, with a warning; a marker left with
/// nothing is true.
#[test]
fn unreadable_comparisons_are_dropped() {
    let env = linux("3.12.1", "3.12");
    let (_, warnings) = parse(r#"os_name == "nt" or "a" == "b""#);
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        truth(r#"os_name == "nt" or "a" == "b""#, &env),
        Truth::False
    );
    assert_eq!(
        truth(r#"os_name == "nt" or python_version > "x""#, &env),
        Truth::False
    );
    assert_eq!(
        truth(r#"os_name == "nt" or extra > "a""#, &env),
        Truth::False
    );
    assert_eq!(
        truth(r#"(os_name == "nt") or (os_name ~= "a")"#, &env),
        Truth::False
    );
    assert_eq!(truth(r#"python_version ~= "3""#, &env), Truth::True);
    assert_eq!(truth(r#"os_name == sys_platform"#, &env), Truth::True);
    assert_eq!(truth(r#""a" == "b" and ("x" == "y")"#, &env), Truth::True);
    // Parsed the spec-2026 way, the same text is an error or false.
    assert!(
        MarkerTree::parse_with(r#""a" == "b""#, &ParseOptions::default(), &mut |_| {}).is_err()
    );
    // A requirement whose marker is all dropped has none.
    let r = Requirement::parse_with(r#"pkg; "a" == "b""#, &uv(), &mut |_| {}).unwrap();
    assert!(r.marker().is_none());
}

#[test]
fn exact_equality_is_not_a_marker_operator() {
    assert!(rejects(r#"python_version === "3.12""#));
    assert!(rejects(r#"os_name === "posix""#));
    // In a requirement `===` takes a version, not arbitrary text.
    assert!(Requirement::parse_with("pkg===1.0", &uv(), &mut |_| {}).is_ok());
    assert!(Requirement::parse_with("pkg===foo", &uv(), &mut |_| {}).is_err());
    assert!(Requirement::parse_with("pkg===1.*", &uv(), &mut |_| {}).is_err());
}

/// `python_version` is a `python_full_version` range, and versions compare by release numbers.
#[test]
fn python_version_is_a_full_version_range() {
    let rc = linux("3.14.0rc1", "3.14");
    assert_eq!(truth(r#"python_version >= "3.14""#, &rc), Truth::False);
    assert_eq!(truth(r#"python_version < "3.14""#, &rc), Truth::True);
    assert_eq!(truth(r#"python_version == "3.14""#, &rc), Truth::False);
    assert_eq!(
        truth(r#"python_full_version == "3.14.0rc1""#, &rc),
        Truth::False
    );
    assert_eq!(
        truth(r#"python_full_version >= "3.14.0rc1""#, &rc),
        Truth::False
    );
    let local = linux("3.12.1+local", "3.12");
    assert_eq!(
        truth(r#"python_full_version == "3.12.1""#, &local),
        Truth::False
    );
    assert_eq!(
        truth(r#"python_full_version > "3.12.1""#, &local),
        Truth::True
    );
    let env = linux("3.12.5", "3.12");
    assert_eq!(truth(r#"python_version <= "3.12""#, &env), Truth::True);
    assert_eq!(truth(r#"python_version > "3.12""#, &env), Truth::False);
    assert_eq!(truth(r#"python_version == "3.12.5""#, &env), Truth::False);
    assert_eq!(truth(r#"python_version != "3.12.5""#, &env), Truth::True);
    assert_eq!(truth(r#"python_version == "3.12.*""#, &env), Truth::True);
    assert_eq!(truth(r#"python_version ~= "3.10""#, &env), Truth::True);
    assert_eq!(truth(r#""3.13" > python_version"#, &env), Truth::True);
    // Nothing is below `0`: `< "0"` is false and `>= "0"` true even for a development release.
    let dev = linux("0.0.0.dev1", "0.0");
    assert_eq!(truth(r#"python_version < "0""#, &dev), Truth::False);
    assert_eq!(truth(r#"python_version >= "0.0""#, &dev), Truth::True);
    assert_eq!(truth(r#"python_version < "0.1""#, &dev), Truth::True);
}

#[test]
fn in_on_versions_tests_a_list() {
    let env = linux("3.12.1", "3.12");
    assert_eq!(truth(r#"python_version in "3.11 3.12""#, &env), Truth::True);
    assert_eq!(
        truth(r#"python_version not in "3.11 3.12""#, &env),
        Truth::False
    );
    assert_eq!(
        truth(r#"python_full_version in "3.12.0 3.12.1""#, &env),
        Truth::True
    );
    assert_eq!(
        truth(r#"python_full_version in "3.12""#, &env),
        Truth::False
    );
    // Members compare by their release numbers.
    assert_eq!(
        truth(r#"python_full_version in "3.12.1+local 3.13""#, &env),
        Truth::True
    );
    assert_eq!(
        truth(r#"python_full_version in "3.12.1rc1""#, &env),
        Truth::True
    );
    let rc = linux("3.14.0rc1", "3.14");
    assert_eq!(
        truth(r#"python_full_version in "3.14.0rc1""#, &rc),
        Truth::False
    );
    // A quoted version on the left of `in` is dropped.
    assert_eq!(
        truth(r#"os_name == "nt" or "3.12" in python_version"#, &env),
        Truth::False
    );
}

#[test]
fn strings() {
    let env = linux("3.12.1", "3.12");
    // `platform_release` orders lexicographically; other strings do not order.
    assert_eq!(truth(r#"platform_release >= "10""#, &env), Truth::True);
    assert_eq!(truth(r#"os_name < "z""#, &env), Truth::False);
    assert_eq!(truth(r#"os_name <= "posix""#, &env), Truth::True);
    assert_eq!(truth(r#""os" in os_name"#, &env), Truth::True);
    assert_eq!(truth(r#"os_name in "posix2""#, &env), Truth::True);
    // `platform_system == "Linux"` is read as `sys_platform == "linux"`.
    let odd = env.clone().with_unchecked(Field::PlatformSystem, "Other");
    assert_eq!(truth(r#"platform_system == "Linux""#, &odd), Truth::True);
    // No escapes: the backslash is a character.
    assert_eq!(truth(r#"os_name == "p\x6fsix""#, &env), Truth::False);
}

/// `platform_release` compared with a version is a version comparison on macOS and a string
/// comparison elsewhere.
#[test]
fn platform_release_is_a_version_on_macos() {
    let mac = linux("3.13.1", "3.13")
        .with_unchecked(Field::SysPlatform, "darwin")
        .with_unchecked(Field::PlatformRelease, "24.1.0");
    assert_eq!(truth(r#"platform_release >= "9""#, &mac), Truth::True);
    assert_eq!(truth(r#"platform_release == "24.1""#, &mac), Truth::True);
    assert_eq!(truth(r#"platform_release == "24.*""#, &mac), Truth::True);
    assert_eq!(truth(r#""25" > platform_release"#, &mac), Truth::True);
    // Release numbers only, as for version fields.
    assert_eq!(
        truth(r#"platform_release < "24.1.0.post1""#, &mac),
        Truth::False
    );
    // Not a version (or `in`): a string comparison there too.
    assert_eq!(truth(r#"platform_release >= "x""#, &mac), Truth::False);
    assert_eq!(truth(r#""24." in platform_release"#, &mac), Truth::True);
    // Lexicographic elsewhere: "6.8.0" is above "10".
    let linux = linux("3.12.1", "3.12").with_unchecked(Field::PlatformRelease, "6.8.0-49-generic");
    assert_eq!(truth(r#"platform_release >= "10""#, &linux), Truth::True);
    assert_eq!(truth(r#"platform_release == "6.8""#, &linux), Truth::False);
    // A macOS release that is not a version lies in no range.
    let odd = mac
        .clone()
        .with_unchecked(Field::PlatformRelease, "unknown");
    assert_eq!(truth(r#"platform_release >= "9""#, &odd), Truth::False);
    assert_eq!(truth(r#"platform_release != "9""#, &odd), Truth::False);
    // An unknown `sys_platform` decides which reading applies, so the result is unknown.
    let mut unknown = mac.clone();
    unknown.unset(Field::SysPlatform);
    assert_eq!(
        truth(r#"platform_release >= "9""#, &unknown),
        Truth::Unknown
    );
}

#[test]
fn extra_names() {
    let env = linux("3.12.1", "3.12").with_extras(["test"]);
    assert_eq!(truth(r#"extra == "Test""#, &env), Truth::True);
    assert_eq!(truth(r#"extra != "test""#, &env), Truth::False);
    // Not a valid name: false whatever the operator.
    assert_eq!(truth(r#"extra == "te st""#, &env), Truth::False);
    assert_eq!(truth(r#"extra != "te st""#, &env), Truth::False);
    // `extras` and `dependency_groups` need no lock-file context, but take only `"x" in`.
    assert!(!rejects(r#""a" in extras"#));
    assert!(rejects(r#""a" == extras"#));
    assert!(rejects(r#"extras in "a""#));
}

#[test]
fn syntax() {
    // Any Unicode whitespace separates tokens, and `and`/`or` must be followed by one or by `(`.
    assert!(!rejects(
        "os_name\u{a0}==\n\"posix\"\u{3000}and\rpython_version >= \"3\""
    ));
    assert!(!rejects("os_name not\nin \"posix\""));
    assert!(!rejects(r#"(os_name == "posix")and(os_name == "posix")"#));
    assert!(!rejects(r#"os_name=="a"or(os_name=="b")"#));
    assert!(rejects(r#"(os_name == "posix")and"a" == os_name"#));
    assert!(rejects(r#"os_name == "posix" andos_name == "posix""#));
    let env = linux("3.12.1", "3.12");
    assert_eq!(
        truth(
            r#"sys_platform!='linux' and(os_name=='linux' or python_version>='3.3')"#,
            &env
        ),
        Truth::False
    );
    assert_eq!(
        truth(r#"sys_platform=='win32' or(os_name=='posix')"#, &env),
        Truth::True
    );
    assert!(!rejects(r#"os_name == "a\""#));
    // Requirements: URLs need a scheme uv knows, and may be followed by whitespace.
    let req = |s: &str| Requirement::parse_with(s, &uv(), &mut |_| {});
    assert!(req("pkg @ ./x").is_err());
    assert!(req("pkg @ HTTPS://e.com/x").is_err());
    assert!(req("pkg @ https://e.com/x\u{a0}; os_name == \"a\"").is_ok());
    assert!(req("pkg @ https://e.com/x #comment").is_ok());
    assert!(req("pkg>=1.0,\u{a0}<2").is_ok());
    assert!(req("pkg()").is_err());
    assert!(req("pkg-1.0.tar.gz").is_err());
    // URLs are parsed with the WHATWG rules: after the host, `:` starts a port.
    assert!(req("package@git+ssh://git@github.com:pypa/packaging.git").is_err());
    assert!(req("package@git+ssh://git@github.com/pypa/packaging.git").is_ok());
    assert!(req("pkg @ git+ssh://git@github.com:22/x.git").is_ok());
    assert!(req("pkg @ git+ssh://git@github.com:/x.git").is_ok());
    assert!(req("pkg @ https://e.com:65535/x").is_ok());
    assert!(req("pkg @ https://e.com:65536/x").is_err());
    assert!(req("pkg @ https://[::1]:80/x").is_ok());
    assert!(req("pkg @ https://[::1/x").is_err());
    assert!(req("pkg @ git+ssh://git@:22/x").is_err());
    assert!(req("pkg @ git+ssh:///srv/x.git").is_ok());
    assert!(req("pkg @ git+ssh:git@github.com:pypa/x.git").is_ok());
}

#[test]
fn fuzz_regression_uv_empty_marker_span_is_on_the_semicolon() {
    // `a;` followed by a no-break space: the span must not split the two-byte character.
    let text = "a;\u{a0}";
    let opts = ParseOptions::default().profile(Profile::Uv);
    let e = Requirement::parse_with(text, &opts, &mut |_| {}).unwrap_err();
    assert_eq!(e.code(), "M010");
    assert_eq!(e.span().range(), 1..2);
    assert!(text.get(e.span().range()).is_some());
}

#[test]
fn fuzz_regression_uv_operator_is_not_a_version() {
    let opts = ParseOptions::default().profile(Profile::Uv);
    for text in ["a== ==", "pkg== =\u{1}oo", "pkg>= <1"] {
        let e = Requirement::parse_with(text, &opts, &mut |_| {}).unwrap_err();
        assert_eq!(e.code(), "R007", "{text}");
    }
}

/// uv ends a URL before a `;` or `#` followed by whitespace, so a URL ending in one of them
/// is displayed against the marker's `;` (`https://b;; m`) and reads back as itself; other
/// URLs, and every URL in the other profiles, keep the space before `;`.
#[test]
fn a_url_ending_in_a_semicolon_reads_back() {
    for (input, shown) in [
        (
            "a @ https://b;; os_name=='a'",
            r#"a @ https://b;; os_name == "a""#,
        ),
        (
            "a @ https://b/x#; os_name=='a'",
            r#"a @ https://b/x#; os_name == "a""#,
        ),
        (
            "a @ https://b/x ; os_name=='a'",
            r#"a @ https://b/x ; os_name == "a""#,
        ),
        ("a @ https://b;", "a @ https://b;"),
    ] {
        let r = Requirement::parse_with(input, &uv(), &mut |_| {})
            .unwrap_or_else(|e| panic!("{input}: {}", e.render(input)));
        assert_eq!(r.to_string(), shown, "{input}");
        let again = Requirement::parse_with(shown, &uv(), &mut |_| {}).unwrap();
        assert_eq!(again, r, "{shown}");
    }
    let spec = ParseOptions::default();
    let r = Requirement::parse_with("a @ https://b; ; os_name == 'a'", &spec, &mut |_| {}).unwrap();
    assert_eq!(r.to_string(), r#"a @ https://b; ; os_name == "a""#);
}
