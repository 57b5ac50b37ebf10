//! Generators of PEP 440 versions and specifier sets for fuzzing and property tests (feature
//! `arbitrary`; strategies with feature `proptest`).
//!
//! Everything draws from an [`arbitrary::Unstructured`], so a fuzzer's bytes, a seeded random
//! buffer and a proptest byte vector all drive the same code. [`version_text`] spells a
//! version with PEP 440's alternative spellings (`1.0-RC.1`, `v2!3.post_4`); with `broken` it
//! sometimes breaks one on purpose. [`Version`] and [`VersionSpecifiers`] implement
//! [`arbitrary::Arbitrary`], and always hold values the parser accepts:
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use markerspec_pep440::{Version, VersionSpecifiers};
//!
//! let bytes = [7u8, 1, 200, 3, 9, 42, 0, 5, 77, 13, 250, 4];
//! let mut u = Unstructured::new(&bytes);
//! let v = Version::arbitrary(&mut u)?;
//! let specs = VersionSpecifiers::arbitrary(&mut u)?;
//! // Both print to text the parser reads back.
//! assert_eq!(v.to_string().parse::<Version>().ok(), Some(v.clone()));
//! assert!(specs.to_string().parse::<VersionSpecifiers>().is_ok());
//! # Ok::<(), arbitrary::Error>(())
//! ```

use std::fmt::Write as _;

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::{Operator, Version, VersionSpecifier, VersionSpecifiers};

fn pick<'a, T>(u: &mut Unstructured<'_>, items: &'a [T]) -> Result<&'a T> {
    u.choose(items)
}

/// A version-like string assembled from PEP 440's parts with their alternative spellings
/// (separators `.`, `-`, `_`, `alpha`/`c`/`rev`, a leading `v`, an epoch, a local label). With
/// `broken`, sometimes (about one in five) damaged on purpose: surrounding or inner
/// whitespace, a number past `u64`, a trailing `.` or `+`, a stray character.
pub fn version_text(u: &mut Unstructured<'_>, broken: bool) -> Result<String> {
    let mut s = String::new();
    if broken && u.ratio(1, 8)? {
        s.push_str(pick(u, &[" ", "\t", "  ", "\u{a0}"])?);
    }
    if u.ratio(1, 10)? {
        s.push(*pick(u, &['v', 'V'])?);
    }
    if u.ratio(1, 8)? {
        let _ = write!(s, "{}!", u.int_in_range(0u32..=3)?);
    }
    let n = u.int_in_range(1..=5)?;
    for i in 0..n {
        if i > 0 {
            s.push('.');
        }
        if broken && u.ratio(1, 20)? {
            s.push_str(pick(
                u,
                &["18446744073709551615", "18446744073709551616", "007"],
            )?);
        } else {
            let _ = write!(s, "{}", u.int_in_range(0u32..=20)?);
        }
    }
    if u.ratio(1, 8)? {
        s.push_str(".*");
        return Ok(s);
    }
    let seps = ["", ".", "-", "_"];
    if u.ratio(1, 4)? {
        s.push_str(pick(u, &seps)?);
        s.push_str(pick(
            u,
            &[
                "a", "b", "rc", "c", "alpha", "beta", "pre", "preview", "A", "RC",
            ],
        )?);
        s.push_str(pick(u, &seps)?);
        if u.ratio(3, 4)? {
            let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
        }
    }
    if u.ratio(1, 5)? {
        if u.ratio(1, 4)? {
            let _ = write!(s, "-{}", u.int_in_range(0u32..=9)?);
        } else {
            s.push_str(pick(u, &seps)?);
            s.push_str(pick(u, &["post", "rev", "r", "POST"])?);
            s.push_str(pick(u, &seps)?);
            if u.ratio(3, 4)? {
                let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
            }
        }
    }
    if u.ratio(1, 6)? {
        s.push_str(pick(u, &seps)?);
        s.push_str(pick(u, &["dev", "DEV"])?);
        if u.ratio(3, 4)? {
            let _ = write!(s, "{}", u.int_in_range(0u32..=9)?);
        }
    }
    if u.ratio(1, 6)? {
        s.push('+');
        let parts = u.int_in_range(1..=3)?;
        for i in 0..parts {
            if i > 0 {
                s.push(*pick(u, &['.', '-', '_'])?);
            }
            s.push_str(pick(u, &["ubuntu", "1", "abc", "Cuda12", "007", "x"])?);
        }
    }
    if broken && u.ratio(1, 16)? {
        s.push_str(pick(u, &["x", ".", "..", "+", "!", "-", "*"])?);
    }
    if broken && u.ratio(1, 8)? {
        s.push_str(pick(u, &[" ", "\t", "\u{85}"])?);
    }
    Ok(s)
}

/// A version built from parts: epoch, release, pre, post, dev and local label, each present
/// with a fixed chance; always valid.
fn version(u: &mut Unstructured<'_>) -> Result<Version> {
    let n = u.int_in_range(1..=4)?;
    let release = (0..n)
        .map(|_| u.int_in_range(0u64..=20))
        .collect::<Result<Vec<_>>>()?;
    let mut text = release
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".");
    if u.ratio(1, 10)? {
        text = format!("{}!{text}", u.int_in_range(1u32..=3)?);
    }
    if u.ratio(1, 5)? {
        let _ = write!(
            text,
            "{}{}",
            pick(u, &["a", "b", "rc"])?,
            u.int_in_range(0u32..=5)?
        );
    }
    if u.ratio(1, 8)? {
        let _ = write!(text, ".post{}", u.int_in_range(0u32..=5)?);
    }
    if u.ratio(1, 8)? {
        let _ = write!(text, ".dev{}", u.int_in_range(0u32..=5)?);
    }
    if u.ratio(1, 10)? {
        let _ = write!(text, "+{}", pick(u, &["local", "1", "ubuntu.2", "cu121"])?);
    }
    text.parse().or_else(|_| Ok(Version::new(release)))
}

impl<'a> Arbitrary<'a> for Version {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        if u.ratio(1, 2)? {
            // The alternative spellings, normalised by the parser.
            if let Ok(v) = version_text(u, false)?.parse::<Version>() {
                return Ok(v);
            }
        }
        version(u)
    }
}

/// A specifier that the parser accepts: the operator's rules on wildcards and local labels
/// hold (`.*` only after `==`/`!=`, a local label only after `==`/`!=`/`===`, `~=` with two
/// release numbers or more).
pub fn specifier_text(u: &mut Unstructured<'_>) -> Result<String> {
    let op = *pick(
        u,
        &[
            Operator::Equal,
            Operator::EqualStar,
            Operator::NotEqual,
            Operator::NotEqualStar,
            Operator::TildeEqual,
            Operator::LessThan,
            Operator::LessThanEqual,
            Operator::GreaterThan,
            Operator::GreaterThanEqual,
            Operator::ExactEqual,
        ],
    )?;
    let v = version(u)?;
    let text = match op {
        Operator::EqualStar | Operator::NotEqualStar => {
            let release = v.release();
            let n = release.len().min(2);
            let parts: Vec<String> = release.iter().take(n).map(u64::to_string).collect();
            format!("{}{}.*", op.as_str(), parts.join("."))
        }
        Operator::TildeEqual => {
            let mut v = v.without_local();
            if v.release().len() < 2 {
                v = Version::new([v.release().first().copied().unwrap_or(1), 0]);
            }
            format!("~={v}")
        }
        Operator::Equal | Operator::NotEqual | Operator::ExactEqual => {
            format!("{}{v}", op.as_str())
        }
        _ => format!("{}{}", op.as_str(), v.without_local()),
    };
    let ws = *pick(u, &["", "", " "])?;
    Ok(text.replacen(op.as_str(), &format!("{}{ws}", op.as_str()), 1))
}

impl<'a> Arbitrary<'a> for VersionSpecifier {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let text = specifier_text(u)?;
        text.parse().or_else(|_| {
            ">=1.0"
                .parse()
                .map_err(|_| arbitrary::Error::IncorrectFormat)
        })
    }
}

impl<'a> Arbitrary<'a> for VersionSpecifiers {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let n = u.int_in_range(0..=3)?;
        let parts = (0..n)
            .map(|_| specifier_text(u))
            .collect::<Result<Vec<_>>>()?;
        parts
            .join(",")
            .parse()
            .or_else(|_| "".parse().map_err(|_| arbitrary::Error::IncorrectFormat))
    }
}

/// [`proptest`](mod@proptest) strategies for versions and specifier sets, drawn through the
/// [`Arbitrary`] implementations from a random byte vector (so proptest shrinks the bytes).
#[cfg(feature = "proptest")]
pub mod strategy {
    use arbitrary::{Arbitrary, Unstructured};
    use proptest::prelude::*;

    use crate::{Version, VersionSpecifiers};

    fn from_bytes<T: for<'a> Arbitrary<'a> + std::fmt::Debug>(
        fallback: fn() -> T,
    ) -> impl Strategy<Value = T> {
        proptest::collection::vec(any::<u8>(), 0..128).prop_map(move |bytes| {
            T::arbitrary(&mut Unstructured::new(&bytes)).unwrap_or_else(|_| fallback())
        })
    }

    /// Any version (valid by construction).
    pub fn version() -> impl Strategy<Value = Version> {
        from_bytes(|| Version::new([0]))
    }

    /// Any specifier set (valid by construction).
    pub fn specifiers() -> impl Strategy<Value = VersionSpecifiers> {
        from_bytes(VersionSpecifiers::empty)
    }
}
