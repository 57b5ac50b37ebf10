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

/// Whether `normalize_name(name) == name`, from the bytes of `name`.
pub(crate) fn is_normalized(name: &[u8]) -> bool {
    // One table load per byte rather than five comparisons: this runs on every name parsed.
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

/// The bytes that never stand in a normalised name: ASCII uppercase, `_`, `.` and every byte of
/// a non-ASCII character.
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
    fn identifiers() {
        for ok in ["a", "A1", "a.b-c_d", "0"] {
            assert!(is_valid_identifier(ok), "{ok}");
        }
        for bad in ["", "a_", "-a", "a b", "é"] {
            assert!(!is_valid_identifier(bad), "{bad}");
        }
    }
}
