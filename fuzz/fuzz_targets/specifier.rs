//! PEP 440 specifiers: bytes → UTF-8; the first line is a specifier list (and, when it is one,
//! a single specifier), the next lines are candidate versions.
//!
//! Checks: no panic; errors have a span inside the input; `parse(display(s)) == s` for
//! `VersionSpecifier` and `VersionSpecifiers`, display idempotent, equal hashes;
//! `contains` is the same for the reparsed specifiers, for the reparsed version, and through
//! `contains_str` (without `===`); for `<, <=, >, >=, ==, !=` and versions without pre-, post-,
//! dev- or local parts, `contains` agrees with the ordering; linear CPU time.

#![no_main]

use std::hash::{DefaultHasher, Hash, Hasher};

use libfuzzer_sys::fuzz_target;
use markerspec_fuzz::{MAX_INPUT, within_budget};
use markerspec_pep440::{Operator, Version, VersionSpecifier, VersionSpecifiers};

fn hash(v: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

fn plain(v: &Version) -> bool {
    v.pre().is_none() && v.post().is_none() && v.dev().is_none() && !v.is_local()
}

fn check_order_law(spec: &VersionSpecifier, v: &Version) {
    let Some(bound) = spec.parsed_version() else {
        return;
    };
    if !plain(bound) || !plain(v) {
        return;
    }
    let expected = match spec.operator() {
        Operator::LessThan => v < bound,
        Operator::LessThanEqual => v <= bound,
        Operator::GreaterThan => v > bound,
        Operator::GreaterThanEqual => v >= bound,
        Operator::Equal => v == bound,
        Operator::NotEqual => v != bound,
        _ => return,
    };
    assert_eq!(
        spec.contains(v),
        expected,
        "{spec} contains {v}: disagrees with the ordering"
    );
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    within_budget("specifier", data.len(), || check(text));
});

fn check(text: &str) {
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or("");
    let versions: Vec<Version> = lines.take(4).filter_map(|l| l.parse().ok()).collect();

    let single = match first.parse::<VersionSpecifier>() {
        Ok(spec) => {
            let shown = spec.to_string();
            let again: VersionSpecifier = shown
                .parse()
                .unwrap_or_else(|e| panic!("{first:?} displays as {shown:?}, which fails: {e}"));
            assert_eq!(
                again, spec,
                "{first:?} displays as {shown:?}, another specifier"
            );
            assert_eq!(
                hash(&again),
                hash(&spec),
                "{first:?}: equal specifiers hash differently"
            );
            assert_eq!(
                again.to_string(),
                shown,
                "display is not idempotent for {first:?}"
            );
            let rebuilt = VersionSpecifier::from_parts(spec.operator(), &spec.version_text());
            assert_eq!(
                rebuilt.as_ref().ok(),
                Some(&spec),
                "{first:?}: from_parts(operator, version_text) gives {rebuilt:?}"
            );
            for v in &versions {
                assert_eq!(
                    again.contains(v),
                    spec.contains(v),
                    "{first:?} vs {shown:?} on {v}"
                );
                check_order_law(&spec, v);
            }
            Some(spec)
        }
        Err(e) => {
            let span = e.span();
            assert!(
                span.start <= span.end && span.end <= first.len(),
                "{first:?}: span {span:?} outside the input"
            );
            let _ = (e.message(), e.help(), e.code());
            None
        }
    };

    match first.parse::<VersionSpecifiers>() {
        Ok(specs) => {
            // (`===` text may hold a comma, which a list splits on.)
            if let Some(single) = single.as_ref().filter(|_| !first.contains(',')) {
                assert_eq!(
                    specs.len(),
                    1,
                    "{first:?} is one specifier but a list of {}",
                    specs.len()
                );
                assert_eq!(specs.iter().next(), Some(single));
            }
            let shown = specs.to_string();
            let again: VersionSpecifiers = shown
                .parse()
                .unwrap_or_else(|e| panic!("{first:?} displays as {shown:?}, which fails: {e}"));
            assert_eq!(
                again, specs,
                "{first:?} displays as {shown:?}, other specifiers"
            );
            assert_eq!(
                hash(&again),
                hash(&specs),
                "{first:?}: equal lists hash differently"
            );
            assert_eq!(
                again.to_string(),
                shown,
                "display is not idempotent for {first:?}"
            );
            let arbitrary = specs.iter().any(|s| s.operator() == Operator::ExactEqual);
            for v in &versions {
                let c = specs.contains(v);
                assert_eq!(again.contains(v), c, "{first:?} vs {shown:?} on {v}");
                let v2: Version = v.to_string().parse().expect("versions round-trip");
                assert_eq!(specs.contains(&v2), c, "{first:?}: {v} vs its display");
                if !arbitrary {
                    assert_eq!(
                        specs.contains_str(&v.to_string(), None),
                        c,
                        "{first:?}: contains_str({v}) and contains disagree"
                    );
                }
                for s in specs.iter() {
                    check_order_law(s, v);
                }
            }
        }
        Err(e) => {
            let span = e.span();
            assert!(
                span.start <= span.end && span.end <= first.len(),
                "{first:?}: span {span:?} outside the input"
            );
            assert!(
                single.is_none() || first.contains(','),
                "{first:?} is a specifier but not a list"
            );
        }
    }
}
