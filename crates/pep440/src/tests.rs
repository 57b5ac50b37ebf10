//! Unit tests: exact `(code, span)` pairs for invalid input, and the documented semantics.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use crate::{
    ERROR_CODES, Error, ErrorKind, LocalSegment, MAX_INPUT_LEN, Operator, Prerelease,
    PrereleaseKind, Version, VersionSpecifier, VersionSpecifiers,
};

/// An error without its message: what the unit tests compare.
#[derive(Debug, PartialEq, Eq)]
struct TestError {
    code: &'static str,
    span: Range<usize>,
}

fn test_error(err: Error) -> TestError {
    TestError {
        code: err.code(),
        span: err.span(),
    }
}

fn te(code: &'static str, span: Range<usize>) -> TestError {
    TestError { code, span }
}

#[track_caller]
fn version_err(s: &str) -> TestError {
    match s.parse::<Version>() {
        Ok(v) => panic!("{s:?} parsed as {v}"),
        Err(e) => test_error(e),
    }
}

#[track_caller]
fn spec_err(s: &str) -> TestError {
    match s.parse::<VersionSpecifier>() {
        Ok(v) => panic!("{s:?} parsed as {v}"),
        Err(e) => test_error(e),
    }
}

#[track_caller]
fn specs_err(s: &str) -> TestError {
    match s.parse::<VersionSpecifiers>() {
        Ok(v) => panic!("{s:?} parsed as {v}"),
        Err(e) => test_error(e),
    }
}

#[track_caller]
fn v(s: &str) -> Version {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

#[track_caller]
fn spec(s: &str) -> VersionSpecifier {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn version_errors() {
    let cases: &[(&str, TestError)] = &[
        ("", te("V003", 0..0)),
        ("   ", te("V003", 3..3)),
        ("abc", te("V001", 0..3)),
        ("v", te("V001", 1..1)),
        (".1", te("V001", 0..1)),
        ("1!", te("V001", 2..2)),
        ("1!x", te("V001", 2..3)),
        ("1.0.", te("V001", 4..4)),
        ("1..0", te("V001", 2..3)),
        ("1.0-", te("V001", 4..4)),
        ("1.0foo", te("V001", 3..6)),
        ("1.0a1foo", te("V001", 5..8)),
        ("1.0-foo", te("V001", 4..7)),
        ("1.0!2", te("V001", 3..4)),
        ("1.18446744073709551616", te("V002", 2..22)),
        ("18446744073709551616!1", te("V002", 0..20)),
        ("1.0a18446744073709551616", te("V002", 4..24)),
        ("1.0.post18446744073709551616", te("V002", 8..28)),
        ("1.0-18446744073709551616", te("V002", 4..24)),
        ("1.0.dev18446744073709551616", te("V002", 7..27)),
        ("1.0+abc.18446744073709551616", te("V002", 8..28)),
        ("1.0 extra", te("V008", 4..9)),
        (" 1.0 extra ", te("V008", 5..10)),
        ("1.0.*", te("V008", 3..5)),
        ("1.0.dev1.post1", te("V008", 8..14)),
        ("1.0a1.2", te("V008", 5..7)),
        ("1.0,2.0", te("V008", 3..7)),
        ("1.0é", te("V008", 3..5)),
        ("1.0+", te("V010", 4..4)),
        ("1.0+.a", te("V010", 4..5)),
        ("1.0+abc.", te("V010", 8..8)),
        ("1.0+abc-", te("V010", 8..8)),
        ("1.0+abc_", te("V010", 8..8)),
        ("1.0+a~b", te("V010", 5..6)),
        ("1.0+ubuntu~1", te("V010", 10..11)),
        ("1.0+é", te("V010", 4..6)),
        ("1.0+a b", te("V008", 6..7)),
    ];
    for (input, expected) in cases {
        assert_eq!(&version_err(input), expected, "{input:?}");
    }
}

#[test]
fn too_long_is_coded() {
    let long = "1".repeat(MAX_INPUT_LEN + 1);
    assert_eq!(version_err(&long), te("V009", 0..MAX_INPUT_LEN + 1));
    let long_spec = format!("=={long}");
    assert_eq!(spec_err(&long_spec), te("V009", 0..long_spec.len()));
    assert_eq!(specs_err(&long_spec), te("V009", 0..long_spec.len()));
    // At the limit, it is a number too large rather than too long.
    let at_limit = "1".repeat(MAX_INPUT_LEN);
    assert_eq!(version_err(&at_limit).code, "V002");
    let at_limit = format!("1{}", ".0".repeat((MAX_INPUT_LEN - 1) / 2));
    assert!(at_limit.len() <= MAX_INPUT_LEN);
    assert_eq!(v(&at_limit), v("1"));
}

#[test]
fn specifier_errors() {
    let cases: &[(&str, TestError)] = &[
        ("", te("V007", 0..0)),
        ("1.0", te("V007", 0..3)),
        ("=1.0", te("V007", 0..1)),
        ("=>1.0", te("V007", 0..2)),
        ("<>1.0", te("V007", 0..2)),
        ("~>1.0", te("V007", 0..2)),
        (">==1.0", te("V007", 0..3)),
        ("  foo", te("V007", 2..5)),
        (">=", te("V003", 2..2)),
        (">= ", te("V003", 3..3)),
        ("===", te("V003", 3..3)),
        ("=== ", te("V003", 4..4)),
        (">=1.0.*", te("V004", 5..7)),
        ("~=1.0.*", te("V004", 5..7)),
        ("<1.*", te("V004", 2..4)),
        ("<=1.0+abc", te("V005", 5..9)),
        ("~=1.0+abc", te("V005", 5..9)),
        ("> 1.0+abc.1", te("V005", 5..11)),
        ("~=1", te("V006", 2..3)),
        ("~=v1", te("V006", 3..4)),
        ("~=1!2", te("V006", 4..5)),
        ("~=1a1", te("V006", 2..3)),
        ("==1.0a1.*", te("V011", 7..9)),
        ("==1.0+abc.*", te("V011", 9..11)),
        ("!=1.0.post1.*", te("V011", 11..13)),
        ("===foo;", te("V012", 6..7)),
        ("===foo)", te("V012", 6..7)),
        ("=== ;", te("V012", 4..5)),
        ("===foo bar", te("V008", 7..10)),
        (">=1.0 <2", te("V008", 6..8)),
        ("==1.0.*.*", te("V008", 7..9)),
        ("==1.0==", te("V008", 5..7)),
        (">=1.0foo", te("V001", 5..8)),
        (">=x", te("V001", 2..3)),
        ("== 1.0+", te("V010", 7..7)),
        (">=1.99999999999999999999", te("V002", 4..24)),
    ];
    for (input, expected) in cases {
        assert_eq!(&spec_err(input), expected, "{input:?}");
    }
}

#[test]
fn specifier_list_errors_point_into_the_whole_text() {
    assert_eq!(specs_err(">=1.0, =>2"), te("V007", 7..9));
    assert_eq!(specs_err(">=1.0,,<2,foo"), te("V007", 10..13));
    assert_eq!(specs_err(">=1.0, <2.0.*"), te("V004", 11..13));
    assert_eq!(specs_err("==1.0;"), te("V008", 5..6));
}

#[test]
fn from_parts_spans_are_relative_to_the_version_text() {
    let err = VersionSpecifier::from_parts(">=", "1.0+local").unwrap_err();
    assert_eq!(test_error(err), te("V005", 3..9));
    let err = VersionSpecifier::from_parts(Operator::TildeEqual, " 1").unwrap_err();
    assert_eq!(test_error(err), te("V006", 1..2));
    let err = VersionSpecifier::from_parts("=", "1").unwrap_err();
    assert_eq!(test_error(err), te("V007", 0..0));
    let err = VersionSpecifier::from_parts("<", ">1").unwrap_err();
    assert_eq!(test_error(err), te("V007", 0..1));
    let err = VersionSpecifier::from_parts("==", "").unwrap_err();
    assert_eq!(test_error(err), te("V003", 0..0));
}

#[test]
fn from_parts_is_parsing_the_concatenation() {
    let s = VersionSpecifier::from_parts("<", "=3.8").unwrap();
    assert_eq!(
        (s.operator(), s.to_string()),
        (Operator::LessThanEqual, "<=3.8".into())
    );
    let s = VersionSpecifier::from_parts("==", "=foo").unwrap();
    assert_eq!(
        (s.operator(), s.to_string()),
        (Operator::ExactEqual, "===foo".into())
    );
    let s = VersionSpecifier::from_parts(Operator::EqualStar, "1.0").unwrap();
    assert_eq!(s.operator(), Operator::Equal);
    let s = VersionSpecifier::from_parts(Operator::Equal, " 1.0.* ").unwrap();
    assert_eq!(
        (s.operator(), s.to_string()),
        (Operator::EqualStar, "==1.0.*".into())
    );
    let s = VersionSpecifier::from_parts(Operator::ExactEqual, "Foo").unwrap();
    assert_eq!(s.to_string(), "===Foo");
    assert_eq!(s.parsed_version(), None);
    assert_eq!(s.version(), &v("0"));
}

#[test]
fn error_codes_are_unique_and_complete() {
    let codes: HashSet<&str> = ERROR_CODES.iter().map(|(code, _)| *code).collect();
    assert_eq!(codes.len(), ERROR_CODES.len());
    assert_eq!(ErrorKind::ALL.len(), ERROR_CODES.len());
    for (i, kind) in ErrorKind::ALL.iter().enumerate() {
        assert_eq!(kind.code(), format!("V{:03}", i + 1));
        assert_eq!((kind.code(), kind.description()), ERROR_CODES[i]);
    }
}

#[test]
fn error_renders() {
    let err = "1.0+a~b".parse::<Version>().unwrap_err();
    assert_eq!(
        err.message(),
        "invalid character `~` in local version label"
    );
    assert_eq!(
        format!("{err:?}"),
        "Error(\"invalid character `~` in local version label\")"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidLocal);
    assert_eq!(err.clone().shifted(10).span(), 15..16);
    let long = format!("1.0{}", "x".repeat(100));
    let err = long.parse::<Version>().unwrap_err();
    assert!(err.message().ends_with("…`"), "{}", err.message());
    for (input, kind) in [("", ErrorKind::Empty), ("1.0+", ErrorKind::InvalidLocal)] {
        let err = input.parse::<Version>().unwrap_err();
        assert_eq!(err.kind(), kind);
        assert!(!err.message().ends_with('.'));
        assert!(err.message().starts_with(char::is_lowercase));
    }
}

#[test]
fn normalisation() {
    let cases = [
        ("1.0", "1.0"),
        ("v1.0", "1.0"),
        ("V1.0", "1.0"),
        (" \t1.0\n", "1.0"),
        ("\u{a0}1.0\u{3000}", "1.0"),
        ("\x1c1.0\x1f", "1.0"),
        ("01.002", "1.2"),
        ("0!1.0", "1.0"),
        ("007!1", "7!1"),
        ("1.0alpha1", "1.0a1"),
        ("1.0-ALPHA.1", "1.0a1"),
        ("1.0beta", "1.0b0"),
        ("1.0c1", "1.0rc1"),
        ("1.0pre1", "1.0rc1"),
        ("1.0preview", "1.0rc0"),
        ("1.0-1", "1.0.post1"),
        ("1.0rev2", "1.0.post2"),
        ("1.0-r", "1.0.post0"),
        ("1.0_post_3", "1.0.post3"),
        ("1.0dev", "1.0.dev0"),
        ("1.0-dev-4", "1.0.dev4"),
        ("1.0a-", "1.0a0"),
        ("1.0a--dev", "1.0a0.dev0"),
        ("1.0+ABC-1_def", "1.0+abc.1.def"),
        ("1.0+007", "1.0+7"),
        (
            "1!2.3.4a5.post6.dev7+eight.9",
            "1!2.3.4a5.post6.dev7+eight.9",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(v(input).to_string(), expected, "{input:?}");
    }
    // Not whitespace for Python: zero width space, BOM.
    assert_eq!(version_err("\u{200b}1.0").code, "V001");
    assert_eq!(version_err("1.0\u{feff}").code, "V008");
}

#[test]
fn parts() {
    let x = v("1!2.3rc4.post5.dev6+abc.7");
    assert_eq!(x.epoch(), 1);
    assert_eq!(x.release(), &[2, 3]);
    assert_eq!(
        x.pre(),
        Some(Prerelease {
            kind: PrereleaseKind::Rc,
            number: 4
        })
    );
    assert_eq!(x.post(), Some(5));
    assert_eq!(x.dev(), Some(6));
    assert_eq!(
        x.local(),
        &[LocalSegment::String("abc".into()), LocalSegment::Number(7)]
    );
    assert!(x.is_prerelease() && x.is_postrelease() && x.is_devrelease() && x.is_local());
    assert_eq!(x.without_local().to_string(), "1!2.3rc4.post5.dev6");
    assert!(v("1.0.post1.dev0").is_prerelease());
    assert!(!v("1.0.post1").is_prerelease());
}

#[test]
fn builders_agree_with_the_parser() {
    let built = Version::new([1, 2])
        .with_epoch(3)
        .with_pre(Some(Prerelease {
            kind: PrereleaseKind::Beta,
            number: 1,
        }))
        .with_post(Some(2))
        .with_dev(Some(0))
        .with_local(vec![
            LocalSegment::String("Ubuntu".into()),
            LocalSegment::String("007".into()),
        ]);
    assert_eq!(built.to_string(), "3!1.2b1.post2.dev0+ubuntu.7");
    assert_eq!(built, v("3!1.2b1.post2.dev0+ubuntu.7"));
    assert_eq!(Version::new([]), v("0"));
    assert_eq!(Version::new([1, 2, 3, 4, 5]).to_string(), "1.2.3.4.5");
    assert_eq!(built.clone().with_local(Vec::new()), built.without_local());
    assert_eq!(Version::default(), v("0"));
}

#[test]
fn inline_and_heap_forms_compare_and_hash_alike() {
    // Five segments, numbers at u32::MAX and local labels take the heap form.
    let pairs = [
        ("1.2.3.4", "1.2.3.4.0"),
        ("1.0a4294967295", "1.0.0.0.0a4294967295"),
        ("4294967295!1", "4294967295!1.0.0.0.0"),
        ("1.0.post4294967295", "1.0.0.0.0.post4294967295"),
        ("1.0.dev4294967294", "1.0.0.0.0.dev4294967294"),
    ];
    for (a, b) in pairs {
        assert_eq!(v(a), v(b));
        assert_eq!(hash_of(&v(a)), hash_of(&v(b)));
        assert_eq!(v(a).to_string(), a);
        assert_eq!(v(b).to_string(), b);
    }
    assert!(v("1.0.dev4294967295") > v("1.0.dev4294967294"));
    assert!(v("1.0.post4294967295") < v("1.0.post4294967296"));
    assert_eq!(v("18446744073709551615").release(), &[u64::MAX]);
}

#[test]
fn total_order_examples() {
    let ordered = [
        "0.dev0",
        "0",
        "1.0.dev0",
        "1.0a0.dev0",
        "1.0a0",
        "1.0a1.dev1",
        "1.0a1",
        "1.0a1.post0.dev0",
        "1.0a1.post0",
        "1.0a2",
        "1.0b1",
        "1.0rc1",
        "1.0",
        "1.0+abc",
        "1.0+abc.1",
        "1.0+abd",
        "1.0+0",
        "1.0+1",
        "1.0+1.abc",
        "1.0.post0.dev0",
        "1.0.post0",
        "1.0.post1",
        "1.0.1",
        "1.1.dev0",
        "2",
        "1!0",
    ];
    for pair in ordered.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
    }
    assert_eq!(v("1.0"), v("1.0.0.0"));
    assert!(v("1.0+1") < v("1.0+1.0"));
    assert_eq!(hash_of(&v("1.0")), hash_of(&v("1")));
}

#[test]
fn specifier_semantics() {
    let cases: &[(&str, &str, bool)] = &[
        ("==1.0", "1.0+abc", true),
        ("==1.0+abc", "1.0", false),
        ("==1.0+abc", "1.0+ABC", true),
        ("!=1.0", "1.0+abc", false),
        ("==1.0.*", "1", true),
        ("==1.0.*", "1.0.5a1", true),
        ("==1.0.*", "1.1.dev0", false),
        ("==1.*", "1!1.0", false),
        ("~=1.4.5", "1.4.9", true),
        ("~=1.4.5", "1.5.0.dev0", false),
        ("~=1.4", "1.9", true),
        ("~=1.4", "2.0a1", false),
        ("<3.0", "3.0.dev0", false),
        ("<3.0", "3.0rc1", false),
        ("<3.0", "2.9+local", true),
        ("<3.0rc1", "3.0a1", true),
        ("<3.0.post1", "3.0.post0", true),
        ("<3.0.post1", "3.0.post1.dev0", false),
        (">1.7", "1.7.post1", false),
        (">1.7", "1.7.1", true),
        (">1.7", "1.7+local", false),
        (">1.7.post2", "1.7.post3", true),
        (">1.7a1", "1.7a1.post1", false),
        (">1.7a1", "1.7a2.dev0", true),
        (">1.7.dev1", "1.7.dev1+local", false),
        ("<=1.0", "1.0+local", true),
        (">=1.0", "1.0+local", true),
        (">=1.0", "2.0a1", true),
        (
            "<=18446744073709551615",
            "18446744073709551615.post1",
            false,
        ),
        ("==18446744073709551615.*", "18446744073709551615.5", true),
        ("<0", "0.dev0", false),
    ];
    for (s, item, expected) in cases {
        assert_eq!(spec(s).contains(&v(item)), *expected, "{item} in {s}");
        assert_eq!(
            spec(s).contains_str(item, None),
            *expected,
            "{item:?} in {s} (str)"
        );
    }
    // Pre-release policy.
    assert!(spec(">=1.0").contains_with(&v("2.0a1"), Some(true)));
    assert!(!spec(">=1.0").contains_with(&v("2.0a1"), Some(false)));
    assert!(!spec(">=1.0").contains_with(&v("2.0.dev1"), Some(false)));
    assert!(spec(">=1.0").contains_with(&v("2.0.post1"), Some(false)));
    // `===` compares text.
    let arbitrary = spec("===1.0");
    assert!(arbitrary.contains_str("1.0", None));
    assert!(!arbitrary.contains_str("1.0.0", None));
    assert!(!arbitrary.contains_str(" 1.0", None));
    assert!(arbitrary.contains(&v("1.00")));
    assert!(spec("===Foo").contains_str("fOO", Some(false)));
    assert!(!spec("===1.0a1").contains_str("1.0A1", Some(false)));
    // Text that is not a version.
    assert!(!spec(">=1.0").contains_str("foo", None));
    let empty = VersionSpecifiers::empty();
    assert!(empty.contains_str("foo", Some(false)));
    assert!(!empty.contains_str("1.0a1", Some(false)));
}

#[test]
fn prereleases_property() {
    assert_eq!(spec(">=1.0").prereleases(), Some(false));
    assert_eq!(spec(">=1.0a1").prereleases(), Some(true));
    assert_eq!(spec("!=1.0a1").prereleases(), Some(false));
    assert_eq!(spec("==1.0.*").prereleases(), Some(false));
    assert_eq!(spec("===foo").prereleases(), None);
    assert_eq!(spec("===1.0.dev0").prereleases(), Some(true));
    let specs: VersionSpecifiers = ">=1.0a1, <2".parse().unwrap();
    assert_eq!(specs.prereleases(), Some(true));
    assert_eq!(VersionSpecifiers::empty().prereleases(), None);
}

#[test]
fn specifier_display_and_equality() {
    assert_eq!(spec(" >= 1.0.0 ").to_string(), ">=1.0.0");
    assert_eq!(spec("==V1.0-RC1").to_string(), "==V1.0-RC1");
    assert_eq!(spec("==V1.0-RC1").version().to_string(), "1.0rc1");
    assert_eq!(spec("== 1.0.*").version_text(), "1.0.*");
    assert_eq!(spec("==1.0"), spec("==1.0.0"));
    assert_eq!(hash_of(&spec("==1.0")), hash_of(&spec("==v1.0.0")));
    assert_ne!(spec("~=1.0"), spec("~=1.0.0"));
    assert_eq!(spec("~=1.0"), spec("~=1.00"));
    assert_ne!(spec("==1.0.*"), spec("==1.0.0.*"));
    assert_eq!(spec("==1.0.*"), spec("== 1.0.*"));
    assert_eq!(hash_of(&spec("==1.0.*")), hash_of(&spec("== 1.0.*")));
    assert_ne!(spec("==1.0.*"), spec("==V1.0.*"));
    assert_ne!(spec("===foo"), spec("===FOO"));
    let specs: VersionSpecifiers = "==1.0.0, >=0.9,==1.0,".parse().unwrap();
    assert_eq!(specs.to_string(), "==1.0,>=0.9");
    assert_eq!(specs.len(), 3);
    let written: Vec<String> = specs.iter().map(ToString::to_string).collect();
    assert_eq!(written, ["==1.0.0", ">=0.9", "==1.0"]);
    let other: VersionSpecifiers = ">=0.9,==1".parse().unwrap();
    assert_eq!(specs, other);
    assert_eq!(hash_of(&specs), hash_of(&other));
}

#[test]
fn operators() {
    for op in ["==", "!=", "~=", "<", "<=", ">", ">=", "==="] {
        assert_eq!(op.parse::<Operator>().unwrap().as_str(), op);
    }
    assert_eq!(Operator::EqualStar.as_str(), "==");
    assert_eq!(Operator::NotEqualStar.to_string(), "!=");
    assert_eq!(
        test_error("=>".parse::<Operator>().unwrap_err()),
        te("V007", 0..2)
    );
    assert_eq!(
        test_error(" ==".parse::<Operator>().unwrap_err()),
        te("V007", 0..3)
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_uses_the_display_text() {
    let version: Version = serde_json::from_str("\"1.0-RC1\"").unwrap();
    assert_eq!(serde_json::to_string(&version).unwrap(), "\"1.0rc1\"");
    let specs: VersionSpecifiers = serde_json::from_str("\"<2, >=1\"").unwrap();
    assert_eq!(serde_json::to_string(&specs).unwrap(), "\"<2,>=1\"");
    let spec: VersionSpecifier = serde_json::from_str("\"~=1.0\"").unwrap();
    assert_eq!(serde_json::to_string(&spec).unwrap(), "\"~=1.0\"");
    let err = serde_json::from_str::<Version>("\"1.0+\"").unwrap_err();
    assert!(err.to_string().contains("local version label"), "{err}");
}

#[test]
fn types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Version>();
    check::<VersionSpecifier>();
    check::<VersionSpecifiers>();
    check::<Error>();
}
