//! A string that keeps up to 23 bytes inline, so that the short names and quoted values of
//! real requirements (`torch`, `x86_64`, `linux`, `cuda12`) cost no allocation.
//!
//! Short strings are kept in a [`smol_str::SmolStr`], which keeps the string's UTF-8 validity in
//! its type, so that reading an inline string back as `str` costs no check; longer ones in a
//! `Box<str>`, so that an owned `String` is kept without a copy.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use smol_str::SmolStr;

/// An immutable string stored inline when it is at most 23 bytes long, on the heap otherwise.
///
/// It dereferences to `str`; equality, ordering and hashing are those of the string.
///
/// ```
/// use markerspec_pep508::SmallStr;
///
/// let s = SmallStr::new("posix");
/// assert_eq!(s.as_str(), "posix");
/// assert_eq!(s.len(), 5); // through `Deref<Target = str>`
/// assert_eq!(s.as_bytes(), b"posix");
/// let long = SmallStr::new("a string longer than twenty-three bytes");
/// assert_eq!(long.as_str(), "a string longer than twenty-three bytes");
/// ```
#[derive(Clone)]
pub struct SmallStr(Repr);

/// `Inline` holds only strings of at most [`INLINE`] bytes, which [`SmolStr`] keeps inline;
/// longer ones take a `Box<str>`, which an owned `String` becomes without a copy.
#[derive(Clone)]
enum Repr {
    Inline(SmolStr),
    Heap(Box<str>),
}

/// The longest string [`SmolStr`] keeps inline.
const INLINE: usize = 23;

impl SmallStr {
    /// Copies `s`, inline when it fits.
    ///
    /// See the example on [`SmallStr`].
    #[inline]
    pub fn new(s: &str) -> SmallStr {
        if s.len() <= INLINE {
            SmallStr(Repr::Inline(SmolStr::new_inline(s)))
        } else {
            SmallStr(Repr::Heap(s.into()))
        }
    }

    /// The bytes of the string; comparing these needs no UTF-8 check.
    ///
    /// See the example on [`SmallStr`].
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.as_str().as_bytes()
    }

    /// The string.
    ///
    /// See the example on [`SmallStr`].
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(s) => s.as_str(),
            Repr::Heap(s) => s,
        }
    }
}

impl Deref for SmallStr {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SmallStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SmallStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for SmallStr {
    fn from(s: &str) -> SmallStr {
        SmallStr::new(s)
    }
}

impl From<String> for SmallStr {
    fn from(s: String) -> SmallStr {
        if s.len() <= INLINE {
            SmallStr::new(&s)
        } else {
            SmallStr(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<Cow<'_, str>> for SmallStr {
    fn from(s: Cow<'_, str>) -> SmallStr {
        match s {
            Cow::Borrowed(b) => SmallStr::new(b),
            Cow::Owned(o) => SmallStr::from(o),
        }
    }
}

impl From<Box<str>> for SmallStr {
    fn from(s: Box<str>) -> SmallStr {
        if s.len() <= INLINE {
            SmallStr::new(&s)
        } else {
            SmallStr(Repr::Heap(s))
        }
    }
}

impl PartialEq for SmallStr {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for SmallStr {}

impl PartialEq<str> for SmallStr {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for SmallStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SmallStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // UTF-8 byte order is code point order, as `str`'s.
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for SmallStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl fmt::Debug for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SmallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SmallStr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SmallStr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <Cow<'de, str>>::deserialize(d)?;
        Ok(SmallStr::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_behave_alike() {
        let long23 = "y".repeat(23);
        let long24 = "z".repeat(24);
        for s in ["", "x86_64", "nvidia-cublas-cu12", "é✓", &long23, &long24] {
            let small = SmallStr::new(s);
            assert_eq!(&*small, s);
            assert_eq!(small.as_bytes(), s.as_bytes());
            assert_eq!(small, SmallStr::from(s.to_string()));
            assert_eq!(small.to_string(), s);
        }
        for inline in [SmallStr::new(&long23), SmallStr::from(long23.clone())] {
            assert!(matches!(&inline.0, Repr::Inline(s) if !s.is_heap_allocated()));
        }
        assert!(matches!(SmallStr::new(&long24).0, Repr::Heap(_)));
        assert!(SmallStr::new("a") < SmallStr::new("b"));
        assert_eq!(std::mem::size_of::<SmallStr>(), 24);
    }
}
