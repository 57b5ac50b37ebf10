//! Properties: round trips, the total order, and `contains` against the order.

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use markerspec_pep440::{
    LocalSegment, Prerelease, PrereleaseKind, Version, VersionSpecifier, VersionSpecifiers,
};
use proptest::prelude::*;

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Numbers that are mostly small (so versions collide and compare equal often), sometimes huge.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0u64..3,
        2 => 0u64..100,
        1 => (u64::from(u32::MAX) - 2)..(u64::from(u32::MAX) + 2),
        1 => any::<u64>(),
    ]
}

fn prerelease() -> impl Strategy<Value = Prerelease> {
    (
        prop_oneof![
            Just(PrereleaseKind::Alpha),
            Just(PrereleaseKind::Beta),
            Just(PrereleaseKind::Rc)
        ],
        number(),
    )
        .prop_map(|(kind, number)| Prerelease { kind, number })
}

fn local_segment() -> impl Strategy<Value = LocalSegment> {
    prop_oneof![
        number().prop_map(LocalSegment::Number),
        "[a-z][a-z0-9]{0,3}".prop_map(LocalSegment::String),
    ]
}

fn version() -> impl Strategy<Value = Version> {
    (
        prop_oneof![4 => Just(0u64), 1 => number()],
        prop::collection::vec(number(), 1..7),
        prop::option::of(prerelease()),
        prop::option::of(number()),
        prop::option::of(number()),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(local_segment(), 1..4)],
    )
        .prop_map(|(epoch, release, pre, post, dev, local)| {
            Version::new(release)
                .with_epoch(epoch)
                .with_pre(pre)
                .with_post(post)
                .with_dev(dev)
                .with_local(local)
        })
}

/// A final release without a post-release or local label.
fn final_version() -> impl Strategy<Value = Version> {
    (
        prop_oneof![4 => Just(0u64), 1 => 0u64..3],
        prop::collection::vec(number(), 1..5),
    )
        .prop_map(|(epoch, release)| Version::new(release).with_epoch(epoch))
}

/// A version without pre- or dev-release or local label: a final release, maybe with a post.
fn non_prerelease() -> impl Strategy<Value = Version> {
    (final_version(), prop::option::of(0u64..3)).prop_map(|(v, post)| v.with_post(post))
}

/// Python's `str.isspace`.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Text built from the pieces versions and specifiers are made of.
fn version_like_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("1"),
        Just("0"),
        Just("12"),
        Just("."),
        Just("-"),
        Just("_"),
        Just("+"),
        Just("!"),
        Just("v"),
        Just("a"),
        Just("b"),
        Just("rc"),
        Just("c"),
        Just("pre"),
        Just("alpha"),
        Just("post"),
        Just("rev"),
        Just("r"),
        Just("dev"),
        Just("abc"),
        Just("*"),
        Just(" "),
        Just("=="),
        Just(">="),
        Just("<"),
        Just("~="),
        Just("!="),
        Just("==="),
        Just(","),
        Just(";"),
        Just("é"),
        Just("\u{a0}"),
        Just("X"),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn display_parses_back(v in version()) {
        let text = v.to_string();
        let parsed: Version = text.parse().map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert_eq!(&parsed, &v);
        prop_assert_eq!(parsed.to_string(), text);
        prop_assert_eq!(parsed.release(), v.release());
        prop_assert_eq!(parsed.local(), v.local());
        prop_assert_eq!(hash_of(&parsed), hash_of(&v));
    }

    #[test]
    fn parsing_is_total_and_normalising(text in version_like_text()) {
        if let Ok(v) = text.parse::<Version>() {
            let canonical = v.to_string();
            let again: Version = canonical.parse().map_err(|e| TestCaseError::fail(format!("{canonical:?}: {e}")))?;
            prop_assert_eq!(again.to_string(), canonical);
        }
        if let Ok(spec) = text.parse::<VersionSpecifier>() {
            let shown = spec.to_string();
            // packaging's str(): the operator, then the version text as written, stripped.
            let written = text.trim_matches(is_python_space);
            let written = written.strip_prefix(spec.operator().as_str()).unwrap_or(written);
            prop_assert_eq!(&shown, &format!("{}{}", spec.operator(), written.trim_matches(is_python_space)));
            let again: VersionSpecifier = shown.parse().map_err(|e| TestCaseError::fail(format!("{shown:?}: {e}")))?;
            prop_assert_eq!(&again, &spec);
            prop_assert_eq!(again.to_string(), shown);
        }
        if let Ok(specs) = text.parse::<VersionSpecifiers>() {
            let shown = specs.to_string();
            let again: VersionSpecifiers = shown.parse().map_err(|e| TestCaseError::fail(format!("{shown:?}: {e}")))?;
            prop_assert_eq!(again, specs);
        }
    }

    #[test]
    fn errors_point_inside_the_input(text in ".{0,40}") {
        for err in [
            text.parse::<Version>().err(),
            text.parse::<VersionSpecifier>().err(),
            text.parse::<VersionSpecifiers>().err(),
        ].into_iter().flatten() {
            let span = err.span();
            prop_assert!(span.start <= span.end && span.end <= text.len(), "{span:?} in {text:?}");
            prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            let message = err.message();
            prop_assert!(!message.is_empty() && !message.ends_with('.'));
        }
    }

    #[test]
    fn order_is_total_and_agrees_with_eq_and_hash(a in version(), b in version(), c in version()) {
        let ab = a.cmp(&b);
        prop_assert_eq!(ab, b.cmp(&a).reverse());
        prop_assert_eq!(a == b, ab == Ordering::Equal);
        prop_assert_eq!(a.partial_cmp(&b), Some(ab));
        if a == b {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
        if a <= b && b <= c {
            prop_assert!(a <= c);
        }
        prop_assert_eq!(a.cmp(&a), Ordering::Equal);
    }

    #[test]
    fn trailing_zeros_do_not_matter(v in version(), zeros in 1usize..4) {
        let mut release = v.release().to_vec();
        release.extend(std::iter::repeat_n(0, zeros));
        let padded = Version::new(release)
            .with_epoch(v.epoch())
            .with_pre(v.pre())
            .with_post(v.post())
            .with_dev(v.dev())
            .with_local(v.local().to_vec());
        prop_assert_eq!(&padded, &v);
        prop_assert_eq!(hash_of(&padded), hash_of(&v));
    }

    #[test]
    fn ordered_operators_agree_with_the_order(a in non_prerelease(), b in non_prerelease()) {
        let check = |op: &str, expected: bool| -> Result<(), TestCaseError> {
            let spec: VersionSpecifier = format!("{op}{b}").parse().map_err(|e| TestCaseError::fail(format!("{op}{b}: {e}")))?;
            prop_assert_eq!(spec.contains(&a), expected, "{} in {}", a, spec);
            prop_assert_eq!(spec.contains_with(&a, Some(false)), expected);
            prop_assert_eq!(spec.contains_str(&a.to_string(), None), expected);
            Ok(())
        };
        check("<", a < b)?;
        check("<=", a <= b)?;
        check(">=", a >= b)?;
        // `>V` for a final `V` skips `V`'s post-releases.
        let post_of_b = b.post().is_none()
            && a.epoch() == b.epoch()
            && Version::new(a.release().to_vec()) == Version::new(b.release().to_vec());
        check(">", a > b && !post_of_b)?;
        check("==", a == b)?;
        check("!=", a != b)?;
    }

    #[test]
    fn set_is_the_conjunction(v in version(), a in version(), b in version()) {
        let specs: Vec<VersionSpecifier> = [format!(">={a}"), format!("<{b}"), format!("!={a}")]
            .iter()
            .filter_map(|s| s.parse().ok())
            .collect();
        let set: VersionSpecifiers = specs.iter().cloned().collect();
        for pre in [None, Some(true), Some(false)] {
            let expected = specs.iter().all(|s| s.contains_with(&v, pre));
            prop_assert_eq!(set.contains_with(&v, pre), expected);
        }
    }
}
