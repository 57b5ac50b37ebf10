//! Requirements: a name, extras, a version specifier or URL, and a marker.

use std::fmt;

use markerspec_pep440::VersionSpecifiers;

use crate::marker::MarkerTree;
use crate::name::{ExtraName, PackageName};

/// What a requirement asks for besides its name: versions, or a direct URL.
///
/// ```
/// use markerspec_pep508::{Requirement, VersionOrUrl};
///
/// let r: Requirement = "pip @ https://github.com/pypa/pip/archive/1.3.1.zip".parse()?;
/// let Some(VersionOrUrl::Url(url)) = r.version_or_url() else { panic!("a URL") };
/// assert_eq!(&**url, "https://github.com/pypa/pip/archive/1.3.1.zip");
/// let r: Requirement = "numpy >=1.26, <3".parse()?;
/// let Some(VersionOrUrl::Specifiers(specs)) = r.version_or_url() else { panic!("versions") };
/// assert!(specs.contains(&"2.1.0".parse().unwrap()));
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum VersionOrUrl {
    /// PEP 440 version specifiers, e.g. `>=1.0,<2`.
    Specifiers(VersionSpecifiers),
    /// A direct reference, `name @ URL`. The URL is kept as written.
    Url(Box<str>),
}

/// A dependency specifier: `name [extras] (versions | @ url) ; marker`.
///
/// Equality compares the normalised name, the set of normalised extras, the specifiers, the
/// URL and the marker.
///
/// The canonical display has no space between the parts except around `@` and before the `;`
/// that follows a URL; extras are sorted; specifiers are sorted by their text, as
/// pypa/packaging prints them:
///
/// ```
/// use markerspec_pep508::Requirement;
/// let r: Requirement = "requests [security,tests] >= 2.8.1, == 2.8.* ; python_version < '2.7'"
///     .parse()
///     .unwrap();
/// assert_eq!(r.name().normalized(), "requests");
/// assert_eq!(
///     r.to_string(),
///     r#"requests[security,tests]==2.8.*,>=2.8.1; python_version < "2.7""#
/// );
/// let extras: Vec<&str> = r.extras().iter().map(|e| e.as_str()).collect();
/// assert_eq!(extras, ["security", "tests"]);
/// assert!(matches!(r.version_or_url(), Some(markerspec_pep508::VersionOrUrl::Specifiers(s)) if s.len() == 2));
/// assert_eq!(r.marker().map(|m| m.to_string()).as_deref(), Some(r#"python_version < "2.7""#));
///
/// let bare: Requirement = "numpy".parse().unwrap();
/// assert!(bare.extras().is_empty() && bare.version_or_url().is_none() && bare.marker().is_none());
/// ```
#[derive(Clone, Debug)]
pub struct Requirement {
    pub(crate) name: PackageName,
    pub(crate) extras: Vec<ExtraName>,
    pub(crate) version_or_url: Option<VersionOrUrl>,
    pub(crate) marker: Option<MarkerTree>,
}

impl Requirement {
    /// The distribution name.
    ///
    /// See the example on [`Requirement`].
    pub fn name(&self) -> &PackageName {
        &self.name
    }

    /// The extras, in the order written, without repeats.
    ///
    /// See the example on [`Requirement`].
    pub fn extras(&self) -> &[ExtraName] {
        &self.extras
    }

    /// The version specifiers or URL, if any.
    ///
    /// See the example on [`Requirement`].
    pub fn version_or_url(&self) -> Option<&VersionOrUrl> {
        self.version_or_url.as_ref()
    }

    /// The marker, if any.
    ///
    /// See the example on [`Requirement`].
    pub fn marker(&self) -> Option<&MarkerTree> {
        self.marker.as_ref()
    }

    fn sorted_extras(&self) -> Vec<&ExtraName> {
        let mut e: Vec<&ExtraName> = self.extras.iter().collect();
        e.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        e
    }
}

impl PartialEq for Requirement {
    fn eq(&self, other: &Self) -> bool {
        let mut a: Vec<&str> = self.extras.iter().map(|e| e.normalized()).collect();
        let mut b: Vec<&str> = other.extras.iter().map(|e| e.normalized()).collect();
        a.sort_unstable();
        a.dedup();
        b.sort_unstable();
        b.dedup();
        self.name == other.name
            && a == b
            && self.version_or_url == other.version_or_url
            && self.marker == other.marker
    }
}

impl Eq for Requirement {}

impl std::hash::Hash for Requirement {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.version_or_url.hash(state);
        self.marker.hash(state);
    }
}

impl Requirement {
    /// Writes the requirement as [`Display`](fmt::Display) does, into any [`fmt::Write`] (a
    /// `String`, a byte buffer's writer) without going through a [`fmt::Formatter`], which
    /// costs a dynamic call per piece.
    ///
    /// ```
    /// use markerspec_pep508::Requirement;
    ///
    /// let r: Requirement = "Foo[b,a] >=1.0,<2 ; python_version<'3.9'".parse()?;
    /// let mut s = String::new();
    /// r.write_to(&mut s).unwrap();
    /// assert_eq!(s, r.to_string());
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    pub fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        // Piece by piece rather than through `write!`: printing is most of `parse -`'s time.
        f.write_str(self.name.as_str())?;
        if !self.extras.is_empty() {
            f.write_str("[")?;
            if let [only] = self.extras.as_slice() {
                // One extra needs no sorting.
                f.write_str(only.as_str())?;
            } else {
                for (i, e) in self.sorted_extras().iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    f.write_str(e.as_str())?;
                }
            }
            f.write_str("]")?;
        }
        match &self.version_or_url {
            Some(VersionOrUrl::Specifiers(specs)) => specs.write_to(f)?,
            Some(VersionOrUrl::Url(url)) => {
                write!(f, " @ {url}")?;
                // uv ends a URL before `;` or `#` followed by whitespace: a URL that ends in
                // one of them is written against the `;` (`https://b;; m`), since `https://b; ; m`
                // reads back as the URL `https://b`. Elsewhere a space separates them.
                let against = self.marker.as_ref().is_some_and(|m| {
                    m.profile() == crate::Profile::Uv && url.ends_with([';', '#'])
                });
                if self.marker.is_some() && !against {
                    f.write_str(" ")?;
                }
            }
            None => {}
        }
        if let Some(m) = &self.marker {
            f.write_str("; ")?;
            m.write_to(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Requirement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Requirement {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
