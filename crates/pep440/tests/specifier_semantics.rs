//! Specifiers through the public API: operators, equality and hashing as packaging's
//! `Specifier.__eq__`/`__hash__` (written text for wildcard and `===` specifiers, versions
//! otherwise), arbitrary equality (PEP 440: case-insensitive string equality, as packaging's
//! `str(item).lower() == str(spec).lower()`), pre-release rules, the input-length limit, and
//! the list type's collection behaviour.

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use markerspec_pep440::{
    ErrorKind, MAX_INPUT_LEN, Operator, Version, VersionSpecifier, VersionSpecifiers,
};

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[track_caller]
fn spec(s: &str) -> VersionSpecifier {
    s.parse()
        .unwrap_or_else(|e| panic!("{s}: {}", markerspec_pep440::Error::message(&e)))
}

#[track_caller]
fn specs(s: &str) -> VersionSpecifiers {
    s.parse()
        .unwrap_or_else(|e| panic!("{s}: {}", markerspec_pep440::Error::message(&e)))
}

#[track_caller]
fn v(s: &str) -> Version {
    s.parse().unwrap()
}

/// Every operator reads from and writes to its PEP 440 spelling; nothing else is an operator.
#[test]
fn operators_read_and_write_their_spelling() {
    let all = [
        ("==", Operator::Equal),
        ("!=", Operator::NotEqual),
        ("~=", Operator::TildeEqual),
        ("<", Operator::LessThan),
        ("<=", Operator::LessThanEqual),
        (">", Operator::GreaterThan),
        (">=", Operator::GreaterThanEqual),
        ("===", Operator::ExactEqual),
    ];
    for (text, op) in all {
        assert_eq!(text.parse::<Operator>().unwrap(), op, "{text}");
        assert_eq!(Operator::try_from(text).unwrap(), op, "{text}");
        assert_eq!(op.as_str(), text);
        assert_eq!(op.to_string(), text);
    }
    assert_eq!(Operator::EqualStar.to_string(), "==");
    assert_eq!(Operator::NotEqualStar.as_str(), "!=");
    for text in ["", "=", "=>", "<>", "====", "~", " ==", "in"] {
        let err = text.parse::<Operator>().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnknownOperator, "{text:?}");
        assert!(Operator::try_from(text).is_err(), "{text:?}");
    }
}

/// packaging's `Specifier.__eq__`: the same operator and, for wildcards and `===`, the same
/// text as written; for `~=` the same version with as many release numbers; otherwise the same
/// version. Equal specifiers hash alike; the hash reads what equality reads, so specifiers that
/// differ there do not all collide.
#[test]
fn equality_and_hash_follow_packaging() {
    let equal = [
        ("==1.0", "==1.0.0"),
        ("==1.0", "== v1.0"),
        (">=1.0", ">=1.0.0"),
        ("<2", "<2.0"),
        ("!=1.0", "!=1.0.0.0"),
        ("~=1.0", "~=1.00"),
        ("~=1.0", " ~= 1.0 "),
        ("==1.0.*", "== 1.0.*"),
        ("!=2.*", "!= 2.*"),
        ("===foo", "=== foo"),
        ("===1.0", "===1.0"),
    ];
    for (a, b) in equal {
        assert_eq!(spec(a), spec(b), "{a} == {b}");
        assert_eq!(hash_of(&spec(a)), hash_of(&spec(b)), "hash {a}, {b}");
    }
    let different = [
        ("==1.0", "!=1.0"),
        ("==1.0", "==1.1"),
        ("==1.0", "===1.0"),
        ("~=1.0", "~=1.0.0"),
        ("~=1.0", "~=1.1"),
        // Wildcards compare their text: `1.0.*` and `1.0.0.*` are different prefixes, and a
        // written `V1.0.*` is not the canonical `1.0.*`.
        ("==1.0.*", "==1.0.0.*"),
        ("==1.0.*", "==V1.0.*"),
        ("!=1.0.*", "!=1.1.*"),
        ("==1.0.*", "!=1.0.*"),
        ("==1.*", "==1.0"),
        // `===` compares the text exactly (packaging's `_canonical_spec` keeps it as written).
        ("===foo", "===bar"),
        ("===foo", "===FOO"),
        ("===1.0", "===1.0.0"),
        ("===1.0", "===1"),
    ];
    for (a, b) in different {
        assert_ne!(spec(a), spec(b), "{a} != {b}");
        assert_ne!(hash_of(&spec(a)), hash_of(&spec(b)), "hash {a}, {b}");
    }
    // A set keeps one of each equal group.
    let set: HashSet<VersionSpecifier> =
        ["==1.0", "==1.0.0", "===foo", "===foo", "~=1.0", "~=1.0.0"]
            .into_iter()
            .map(spec)
            .collect();
    assert_eq!(set.len(), 4);
}

/// The version a specifier holds: `===` text that is not a version has none.
#[test]
fn parsed_version() {
    assert_eq!(spec(">=1.0").parsed_version(), Some(&v("1.0")));
    assert_eq!(spec("==1.0.*").parsed_version(), Some(&v("1.0")));
    assert_eq!(spec("===1.0").parsed_version(), Some(&v("1.0")));
    assert_eq!(spec("===foo").parsed_version(), None);
    assert_eq!(spec("===foo").version(), &v("0"));
    assert_eq!(spec("==1.0.*").version_text(), "1.0.*");
    assert_eq!(spec("== v1.0.*").version_text(), "v1.0.*");
    assert_eq!(spec(">= 1.0").version_text(), "1.0");
    assert_eq!(spec("===Foo").version_text(), "Foo");
}

/// PEP 440 arbitrary equality is a case-insensitive string comparison; packaging lowercases
/// both sides with Python's `str.lower()`, which maps non-ASCII letters too (the Kelvin sign
/// `K` lowers to `k`, `ẞ` to `ß`).
#[test]
fn arbitrary_equality_ignores_case_beyond_ascii() {
    let k = spec("===k");
    assert!(k.contains_str("K", None));
    assert!(k.contains_str("\u{212A}", None));
    let strasse = spec("===straße");
    assert!(strasse.contains_str("STRAẞE", None));
    assert!(strasse.contains_str("Straße", None));
    assert!(!strasse.contains_str("strasse", None));
    assert!(!strasse.contains_str("STRASSE", None));
    assert!(!spec("===foo").contains_str("fo", None));
    assert!(!spec("===foo").contains_str("foo ", None));
}

/// `===` against a pre-release: `prereleases=None` (and `True`) let it match, `False` rejects
/// it; text that is not a version is never a pre-release. The same for a list.
#[test]
fn arbitrary_equality_and_prereleases() {
    let rc = spec("===1.0rc1");
    assert!(rc.contains_str("1.0rc1", None));
    assert!(rc.contains_str("1.0RC1", Some(true)));
    assert!(!rc.contains_str("1.0rc1", Some(false)));
    assert!(rc.contains_with(&v("1.0rc1"), None));
    assert!(!rc.contains_with(&v("1.0rc1"), Some(false)));
    let list = specs("===1.0rc1");
    assert!(list.contains_str("1.0rc1", None));
    assert!(list.contains_str("1.0rc1", Some(true)));
    assert!(!list.contains_str("1.0rc1", Some(false)));
    assert!(!list.contains_str("1.0", None));
    let foo = specs("===foo");
    assert!(foo.contains_str("FOO", Some(false)));
    assert!(!specs("===foo, >=1").contains_str("foo", None));
    // Without `===`, text that is not a version only passes the empty list.
    assert!(!specs(">=1").contains_str("foo", None));
    assert!(specs("").contains_str("foo", None));
    assert!(specs(">=1").contains_str("1.5", None));
    assert!(specs(">=1").contains_str("2.0rc1", None));
    assert!(!specs(">=1").contains_str("2.0rc1", Some(false)));
}

/// Inputs up to [`MAX_INPUT_LEN`] bytes are read; longer ones are `V009`, whatever their
/// content, with the whole text as the span.
#[test]
fn input_length_limit_is_inclusive() {
    for (len, ok) in [
        (MAX_INPUT_LEN - 1, true),
        (MAX_INPUT_LEN, true),
        (MAX_INPUT_LEN + 1, false),
    ] {
        // Whitespace around a version is allowed, so the padding changes only the length.
        let text = format!("1.0{}", " ".repeat(len - 3));
        let got = VersionSpecifier::from_parts(">=", &text);
        match got {
            Ok(s) if ok => assert_eq!(s.to_string(), ">=1.0"),
            Err(e) if !ok => {
                assert_eq!(e.kind(), ErrorKind::TooLong);
                assert_eq!(e.span(), 0..len);
            }
            other => panic!("from_parts with {len} bytes: {other:?}"),
        }
        for list in [
            format!(">=1.0{}", " ".repeat(len - 5)),
            format!(">=1.0{}", ",".repeat(len - 5)),
        ] {
            match list.parse::<VersionSpecifiers>() {
                Ok(s) if ok => assert_eq!(s.to_string(), ">=1.0"),
                Err(e) if !ok => {
                    assert_eq!(e.kind(), ErrorKind::TooLong);
                    assert_eq!(e.span(), 0..len);
                }
                other => panic!("a list of {len} bytes: {other:?}"),
            }
        }
    }
}

/// Debug output names the type and shows the display text.
#[test]
fn debug_shows_the_text() {
    assert_eq!(
        format!("{:?}", spec(">= 1.0")),
        r#"VersionSpecifier(">=1.0")"#
    );
    assert_eq!(
        format!("{:?}", specs("<2, >=1.0")),
        r#"VersionSpecifiers("<2,>=1.0")"#
    );
}

/// A list is a collection of its specifiers in the order written: one specifier converts to a
/// list of one, and iterating (by value, by reference, through the slice) gives them back.
#[test]
fn lists_hold_their_specifiers() {
    let empty = VersionSpecifiers::empty();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty, VersionSpecifiers::default());
    assert!(empty.contains(&v("0.1")));

    let one = VersionSpecifiers::from(spec(">=1.0"));
    assert_eq!(one.len(), 1);
    assert!(!one.is_empty());
    assert_eq!(one.as_slice(), [spec(">=1.0")]);
    assert_eq!(one, specs(">=1.0"));
    assert!(!one.contains(&v("0.9")));

    let list = specs(">=1.0, !=1.3.*, <2");
    let written = [spec(">=1.0"), spec("!=1.3.*"), spec("<2")];
    assert_eq!(list.len(), 3);
    assert_eq!(&*list, written);
    assert_eq!(list.iter().cloned().collect::<Vec<_>>(), written);
    assert_eq!((&list).into_iter().cloned().collect::<Vec<_>>(), written);
    let mut by_ref = Vec::new();
    for s in &list {
        by_ref.push(s.to_string());
    }
    assert_eq!(by_ref, [">=1.0", "!=1.3.*", "<2"]);
    assert_eq!(list.clone().into_iter().collect::<Vec<_>>(), written);
    assert_eq!(one.clone().into_iter().collect::<Vec<_>>(), [spec(">=1.0")]);
    assert_eq!(list.first(), Some(&spec(">=1.0")));
    let rebuilt: VersionSpecifiers = list.clone().into_iter().collect();
    assert_eq!(rebuilt, list);
    let single: VersionSpecifiers = [spec("<2")].into_iter().collect();
    assert_eq!(single.len(), 1);
}

/// packaging's `SpecifierSet.__eq__` and `__hash__`: the same specifiers, ignoring order and
/// duplicates; lists that differ hash differently.
#[test]
fn list_equality_and_hash() {
    let a = specs(">=1.0, <2");
    let b = specs("<2,>=1.0.0, >=1.0");
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    for other in ["<2", ">=1.0, <3", ">=1.0, <2, !=1.5", ""] {
        let o = specs(other);
        assert_ne!(a, o, "{other}");
        assert_ne!(hash_of(&a), hash_of(&o), "hash {other}");
    }
    assert_ne!(hash_of(&specs("===foo")), hash_of(&specs("===bar")));
}

/// The printed form drops duplicates (equal specifiers, whatever their spelling) and sorts by
/// text, for a short list and for one long enough to be de-duplicated by hashing.
#[test]
fn printed_form_drops_duplicates_short_and_long() {
    assert_eq!(specs("<2, >=1.0.0, >=1.0, <2").to_string(), "<2,>=1.0");
    let many: Vec<String> = (0..20).map(|i| format!("!=1.{}", i % 10)).collect();
    let joined = many.join(", ");
    let expected: Vec<String> = (0..10).map(|i| format!("!=1.{i}")).collect();
    assert_eq!(specs(&joined).to_string(), expected.join(","));
    let long = format!("{joined}, >=1.0, >=1.0.0, <2");
    let printed = specs(&long).to_string();
    assert_eq!(printed, format!("{},<2,>=1.0", expected.join(",")));
}

/// The printed order is the order of the specifiers' texts whether their operators start with
/// different bytes (ordered by those) or share one (ordered by the whole text).
#[test]
fn printed_form_sorts_by_text_with_distinct_and_shared_operator_bytes() {
    assert_eq!(
        specs("~=1.1, >=1.0, <2, !=1.5, ==1.*").to_string(),
        "!=1.5,<2,==1.*,>=1.0,~=1.1"
    );
    assert_eq!(specs("<=1.5, >1, <2").to_string(), "<2,<=1.5,>1");
    assert_eq!(specs("===1.0, ==1.0").to_string(), "==1.0,===1.0");
    assert_eq!(specs(">=1.0, <2, >=1.0.0").to_string(), "<2,>=1.0");
    assert_eq!(specs(">=v1.0, <2").to_string(), "<2,>=v1.0");
}

/// Release, post- and dev-release numbers print in decimal at both ends of their range.
#[test]
fn version_numbers_print_in_decimal() {
    use markerspec_pep440::Version;
    for (text, printed) in [
        ("0", "0"),
        ("0.0.0", "0.0.0"),
        ("1.10.0post0dev0", "1.10.0.post0.dev0"),
        (
            "18446744073709551615.9.post18446744073709551615",
            "18446744073709551615.9.post18446744073709551615",
        ),
        ("2!1.0rc1.dev7+local.7", "2!1.0rc1.dev7+local.7"),
    ] {
        let v: Version = text.parse().unwrap();
        assert_eq!(v.to_string(), printed, "{text}");
    }
}
