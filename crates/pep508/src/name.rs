//! Package, extra and dependency-group names with their normalised forms.

use std::fmt;
use std::hash::{Hash, Hasher};

use crate::small::SmallStr;

/// Normalises a name as the "Names and normalization" specification says (PEP 503): lowercase,
/// and every run of `-`, `_` and `.` replaced by one `-`.
///
/// ```
/// assert_eq!(markerspec_pep508::normalize_name("Foo__Bar.baz"), "foo-bar-baz");
/// ```
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_sep {
                out.push('-');
                in_sep = true;
            }
        } else {
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
            in_sep = false;
        }
    }
    out
}

/// Whether `normalize_name(name) == name`, one byte at a time (the oracle of the tests of
/// [`is_normalized`]).
#[cfg(test)]
fn is_normalized_bytewise(name: &[u8]) -> bool {
    let mut prev_dash = false;
    for &c in name {
        let dash = c == b'-';
        if NOT_NORMALIZED[usize::from(c)] || (dash && prev_dash) {
            return false;
        }
        prev_dash = dash;
    }
    true
}

/// Whether `normalize_name(name) == name`, from the bytes of `name`, eight at a time (this
/// runs on every name parsed, and on every literal compared with `extra`): a name is
/// normalised unless it holds an ASCII uppercase letter, `_`, `.`, `--` or a byte outside
/// ASCII.
pub(crate) fn is_normalized(name: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const fn splat(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    /// 0x80 in each byte of `x` that is zero, for `x` with no high bit set.
    #[inline(always)]
    fn zero_bytes(x: u64) -> u64 {
        !(x + !HIGH) & HIGH
    }
    /// Whether the word holds no uppercase letter, `_`, `.` or `--`, and its dashes; `None`
    /// when it holds a byte outside ASCII.
    #[inline(always)]
    fn classify(w: u64) -> Option<(bool, u64)> {
        if w & HIGH != 0 {
            return None;
        }
        // With every byte below 0x80, adding 0x80 - n sets a byte's high bit exactly when the
        // byte is at least n, and carries into no other byte.
        let at_least = |n: u8| (w + splat(0x80 - n)) & HIGH;
        let upper = at_least(b'A') & !at_least(b'Z' + 1);
        let under = zero_bytes(w ^ splat(b'_'));
        let dot = zero_bytes(w ^ splat(b'.'));
        let dash = zero_bytes(w ^ splat(b'-'));
        Some((upper | under | dot | (dash & (dash << 8)) == 0, dash))
    }
    let len = name.len();
    if len < 8 {
        // Padded with `a`, which changes nothing.
        let mut buf = [b'a'; 8];
        for (d, s) in buf.iter_mut().zip(name) {
            *d = *s;
        }
        return classify(u64::from_le_bytes(buf)).is_some_and(|(ok, _)| ok);
    }
    let mut prev_dash = 0u64;
    let mut at = 0;
    while at + 8 <= len {
        let mut w = [0; 8];
        w.copy_from_slice(&name[at..at + 8]);
        let Some((ok, dash)) = classify(u64::from_le_bytes(w)) else {
            return false;
        };
        if !ok || dash & prev_dash != 0 {
            return false;
        }
        // The last byte's dash, moved to the first byte's place, for the next word.
        prev_dash = dash >> 56;
        at += 8;
    }
    if at < len {
        // The last eight bytes, overlapping the words read: every pair of bytes before them
        // was read already.
        let mut w = [0; 8];
        w.copy_from_slice(&name[len - 8..]);
        return classify(u64::from_le_bytes(w)).is_some_and(|(ok, _)| ok);
    }
    true
}

/// The bytes that never stand in a normalised name: ASCII uppercase, `_`, `.` and every byte of
/// a non-ASCII character (the tests' oracle reads it).
#[cfg(test)]
static NOT_NORMALIZED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_uppercase() || c == b'_' || c == b'.' || !c.is_ascii();
        b += 1;
    }
    table
};

macro_rules! name_type {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        ///
        /// Equality, ordering and hashing use the normalised form; [`Display`](fmt::Display)
        /// shows the name as it was written.
        #[derive(Clone)]
        pub struct $ty {
            written: SmallStr,
            /// `None` when the written form is already normalised.
            normalized: Option<Box<str>>,
        }

        impl $ty {
            /// Wraps a name. The caller has checked that it is a valid identifier.
            pub(crate) fn new_unchecked(written: &str) -> $ty {
                let normalized =
                    (!is_normalized(written.as_bytes())).then(|| normalize_name(written).into_boxed_str());
                $ty { written: SmallStr::new(written), normalized }
            }

            /// The name as it was written.
            ///
            #[doc = concat!("See the example on [`", stringify!($ty), "`].")]
            pub fn as_str(&self) -> &str {
                &self.written
            }

            /// The normalised name (lowercase, `-` separators).
            ///
            #[doc = concat!("See the example on [`", stringify!($ty), "`].")]
            pub fn normalized(&self) -> &str {
                self.normalized.as_deref().unwrap_or(&self.written)
            }
        }

        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                self.normalized() == other.normalized()
            }
        }
        impl Eq for $ty {}
        impl PartialOrd for $ty {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $ty {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.normalized().cmp(other.normalized())
            }
        }
        impl Hash for $ty {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.normalized().hash(state)
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.written)
            }
        }
        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($ty), &*self.written)
            }
        }
        impl std::str::FromStr for $ty {
            type Err = String;
            /// Parses a name: ASCII letters and digits, with `-`, `_` and `.` inside.
            fn from_str(s: &str) -> Result<Self, String> {
                if is_valid_identifier(s) {
                    Ok($ty::new_unchecked(s))
                } else {
                    Err(format!(
                        "`{s}` is not a valid name: use ASCII letters and digits, with `-`, `_` or `.` between them"
                    ))
                }
            }
        }
        #[cfg(feature = "serde")]
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.written)
            }
        }
        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

name_type!(
    /// A distribution name, e.g. `Foo.Bar` (normalised `foo-bar`).
    ///
    /// ```
    /// use markerspec_pep508::{PackageName, Requirement};
    ///
    /// let r: Requirement = "Foo.Bar>=1".parse()?;
    /// assert_eq!(r.name().as_str(), "Foo.Bar");
    /// assert_eq!(r.name().normalized(), "foo-bar");
    /// assert_eq!(r.name(), &"foo_bar".parse::<PackageName>().unwrap());
    /// assert_eq!(r.name().to_string(), "Foo.Bar");
    /// assert!("foo_".parse::<PackageName>().is_err());
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    PackageName
);
name_type!(
    /// An extra name (PEP 685: compared in normalised form), e.g. `Security_Fixes`.
    ///
    /// ```
    /// use markerspec_pep508::{ExtraName, Requirement};
    ///
    /// let r: Requirement = "requests[Security_Fixes, socks]".parse()?;
    /// assert_eq!(r.extras()[0].as_str(), "Security_Fixes");
    /// assert_eq!(r.extras()[0].normalized(), "security-fixes");
    /// assert_eq!(r.extras()[0], "security.fixes".parse::<ExtraName>().unwrap());
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    ExtraName
);

/// Whether `s` matches the specification's name rule:
/// `^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$`, case-insensitively.
pub(crate) fn is_valid_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        assert_eq!(normalize_name("Django"), "django");
        assert_eq!(normalize_name("a._-b"), "a-b");
        assert_eq!(normalize_name("A--B"), "a-b");
        let a = PackageName::new_unchecked("Foo_Bar");
        let b = PackageName::new_unchecked("foo-bar");
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "Foo_Bar");
        assert_eq!(a.normalized(), "foo-bar");
        assert!(b.normalized.is_none());
        assert!(PackageName::new_unchecked("a--b").normalized.is_some());
    }

    #[test]
    fn word_normalisation_test_agrees_with_the_bytewise_one() {
        // The bytes either side of each class's edges, and one of a non-ASCII character.
        const ALPHABET: &[u8] = b"aZ0-_.-z@[`{ \x7f\xc3AY^/";
        let check = |name: &[u8]| {
            assert_eq!(
                is_normalized(name),
                is_normalized_bytewise(name),
                "{}",
                String::from_utf8_lossy(name)
            );
        };
        // Every name of up to 4 bytes over the alphabet, then random longer ones.
        let mut name = Vec::new();
        for len in 0..=4u32 {
            for mut n in 0..(ALPHABET.len() as u64).pow(len) {
                name.clear();
                for _ in 0..len {
                    name.push(ALPHABET[(n % ALPHABET.len() as u64) as usize]);
                    n /= ALPHABET.len() as u64;
                }
                check(&name);
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = 7 + (state % 30) as usize;
            name.clear();
            let mut bits = state;
            for i in 0..len {
                if i % 10 == 0 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    bits = state;
                }
                // Mostly lowercase, so that long normalised names are common.
                let pick = (bits & 63) as usize;
                name.push(match ALPHABET.get(pick) {
                    Some(&b) => b,
                    None => b'a' + (pick % 26) as u8,
                });
                bits >>= 6;
            }
            check(&name);
        }
        check("nvidia-cuda-runtime-cu12".as_bytes());
        check("nvidia-cuda-runtime--cu12".as_bytes());
        check("nvidia-cuda-runtim--cu12".as_bytes());
        check("abcdefg--abcdefgh".as_bytes());
        check("abcdefgé".as_bytes());
    }

    #[test]
    fn identifiers() {
        for ok in ["a", "A1", "a.b-c_d", "0"] {
            assert!(is_valid_identifier(ok), "{ok}");
        }
        for bad in ["", "a_", "-a", "a b", "é"] {
            assert!(!is_valid_identifier(bad), "{bad}");
        }
    }
}
