//! PEP 440 versions: bytes → UTF-8 → up to four versions, one per line, plus versions built
//! from arbitrary parts with the `Version` builders.
//!
//! Checks: no panic; errors have a span inside the input and a code; `parse(display(v)) == v`
//! with the same parts, display idempotent; `cmp` is antisymmetric and transitive, agrees with
//! `==`, `partial_cmp` and `Hash`, and is preserved by `parse(display(·))`; a built version
//! displays as text that parses back to it; linear CPU time.

#![no_main]

use std::cmp::Ordering;
use std::hash::{DefaultHasher, Hash, Hasher};

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use markerspec_fuzz::{MAX_INPUT, version_parts, within_budget};
use markerspec_pep440::{LocalSegment, Prerelease, PrereleaseKind, Version};

fn hash(v: &Version) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// Display → parse gives the same version, the same parts and the same text.
fn check_roundtrip(v: &Version, origin: &str) -> Version {
    let shown = v.to_string();
    let again: Version = shown
        .parse()
        .unwrap_or_else(|e| panic!("{origin:?} displays as {shown:?}, which fails: {e}"));
    assert_eq!(
        &again, v,
        "{origin:?} displays as {shown:?}, another version"
    );
    assert_eq!(
        version_parts(&again),
        version_parts(v),
        "{origin:?} displays as {shown:?}, other parts"
    );
    assert_eq!(
        again.to_string(),
        shown,
        "display is not idempotent for {origin:?}"
    );
    assert_eq!(
        hash(&again),
        hash(v),
        "{origin:?}: equal versions hash differently"
    );
    assert_eq!(
        v.is_prerelease(),
        v.pre().is_some() || v.dev().is_some(),
        "{origin:?}: is_prerelease"
    );
    assert_eq!(v.is_local(), !v.local().is_empty(), "{origin:?}: is_local");
    let public = v.without_local();
    assert!(!public.is_local());
    assert!(
        public <= *v,
        "{origin:?}: without_local sorts after the version"
    );
    again
}

fn check_pair(a: &Version, b: &Version) {
    let ab = a.cmp(b);
    assert_eq!(
        b.cmp(a),
        ab.reverse(),
        "{a} vs {b}: cmp is not antisymmetric"
    );
    assert_eq!(a.partial_cmp(b), Some(ab), "{a} vs {b}: partial_cmp");
    assert_eq!(
        a == b,
        ab == Ordering::Equal,
        "{a} vs {b}: == and cmp disagree"
    );
    if a == b {
        assert_eq!(hash(a), hash(b), "{a} == {b} but the hashes differ");
    }
    let (a2, b2): (Version, Version) = (
        a.to_string().parse().expect("checked"),
        b.to_string().parse().expect("checked"),
    );
    assert_eq!(a2.cmp(&b2), ab, "{a} vs {b}: display changes the order");
}

fn check_triple(a: &Version, b: &Version, c: &Version) {
    if a <= b && b <= c {
        assert!(a <= c, "{a} <= {b} <= {c} but not {a} <= {c}");
    }
    if a < b && b < c {
        assert!(a < c, "{a} < {b} < {c} but not {a} < {c}");
    }
}

fn number(u: &mut Unstructured<'_>) -> Result<u64> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=6 => u64::from(u.int_in_range(0u8..=12)?),
        7 => u64::from(u32::MAX) - u64::from(u.int_in_range(0u8..=2)?),
        8 => u64::MAX - u64::from(u.int_in_range(0u8..=1)?),
        _ => u.arbitrary()?,
    })
}

fn built(u: &mut Unstructured<'_>) -> Result<Version> {
    let n = u.int_in_range(0..=6)?;
    let release = (0..n).map(|_| number(u)).collect::<Result<Vec<_>>>()?;
    let mut v = Version::new(release);
    if u.ratio(1, 4)? {
        v = v.with_epoch(number(u)?);
    }
    if u.ratio(1, 3)? {
        let kind = *u.choose(&[
            PrereleaseKind::Alpha,
            PrereleaseKind::Beta,
            PrereleaseKind::Rc,
        ])?;
        v = v.with_pre(Some(Prerelease {
            kind,
            number: number(u)?,
        }));
    }
    if u.ratio(1, 3)? {
        v = v.with_post(Some(number(u)?));
    }
    if u.ratio(1, 3)? {
        v = v.with_dev(Some(number(u)?));
    }
    if u.ratio(1, 4)? {
        let n = u.int_in_range(1..=3)?;
        let mut local = Vec::new();
        for _ in 0..n {
            local.push(if u.arbitrary()? {
                LocalSegment::Number(number(u)?)
            } else {
                // Not `18446744073709551616`: an all-digit string over 64 bits stays a string,
                // whose display cannot parse back (fuzz/regressions/version/README.md).
                let s = u.choose(&["abc", "ubuntu", "Cuda12", "x", "007"])?;
                LocalSegment::String((*s).to_string())
            });
        }
        v = v.with_local(local);
    }
    Ok(v)
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    within_budget("version", data.len(), || check(data));
});

fn check(data: &[u8]) {
    let mut versions = Vec::new();
    if let Ok(text) = std::str::from_utf8(data) {
        for line in text.split('\n').take(4) {
            match line.parse::<Version>() {
                Ok(v) => versions.push(check_roundtrip(&v, line)),
                Err(e) => {
                    let span = e.span();
                    assert!(
                        span.start <= span.end && span.end <= line.len(),
                        "{line:?}: span {span:?} outside the input"
                    );
                    assert!(!e.code().is_empty() && !e.message().is_empty());
                    let _ = e.help();
                }
            }
        }
    }
    let mut u = Unstructured::new(data);
    for _ in 0..2 {
        if let Ok(v) = built(&mut u) {
            let text = v.to_string();
            versions.push(check_roundtrip(&v, &text));
        }
    }
    for a in &versions {
        for b in &versions {
            check_pair(a, b);
            for c in &versions {
                check_triple(a, b, c);
            }
        }
    }
}
