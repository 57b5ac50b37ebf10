//! [`Operator`], [`VersionSpecifier`] and [`VersionSpecifiers`]: parsing, display, equality and
//! membership, as packaging's `Specifier` and `SpecifierSet`.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use crate::error::{Detail, Error, ErrorKind, Found, MAX_INPUT_LEN};
use crate::parse::{self, SpecVersion};
use crate::version::{Suffix, Version, ZERO, cmp_release_next};

/// A comparison operator of a version specifier.
///
/// `==` and `!=` followed by a version ending in `.*` are the separate operators
/// [`EqualStar`](Operator::EqualStar) and [`NotEqualStar`](Operator::NotEqualStar); they are
/// still written `==` and `!=`.
///
/// ```
/// use markerspec_pep440::{Operator, VersionSpecifier};
///
/// let spec: VersionSpecifier = "== 3.12.*".parse()?;
/// assert_eq!(spec.operator(), Operator::EqualStar);
/// assert_eq!(spec.operator().as_str(), "==");
/// assert_eq!(spec.to_string(), "==3.12.*");
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operator {
    /// `==V`: the same version; without a local label in `V`, any local label matches.
    Equal,
    /// `==V.*`: any version whose release starts with `V`'s.
    EqualStar,
    /// `!=V`: not `==V`.
    NotEqual,
    /// `!=V.*`: not `==V.*`.
    NotEqualStar,
    /// `~=V`: compatible release, `>=V, ==P.*` where `P` is `V`'s release without its last number.
    TildeEqual,
    /// `<V`: before `V`, and not a pre-release of `V` unless `V` is one.
    LessThan,
    /// `<=V`: at most `V` (with any local label).
    LessThanEqual,
    /// `>V`: after `V`, and not a post-release of `V` unless `V` is one.
    GreaterThan,
    /// `>=V`: at least `V`.
    GreaterThanEqual,
    /// `===text`: the same text, ignoring case (arbitrary equality).
    ExactEqual,
}

impl Operator {
    /// How the operator is written: `"=="` for both [`Equal`](Operator::Equal) and
    /// [`EqualStar`](Operator::EqualStar), `"!="` for both not-equal forms, `"==="`, and so on.
    ///
    /// See the example on [`Operator`].
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Operator::Equal | Operator::EqualStar => "==",
            Operator::NotEqual | Operator::NotEqualStar => "!=",
            Operator::TildeEqual => "~=",
            Operator::LessThan => "<",
            Operator::LessThanEqual => "<=",
            Operator::GreaterThan => ">",
            Operator::GreaterThanEqual => ">=",
            Operator::ExactEqual => "===",
        }
    }
}

impl Operator {
    /// The first byte of [`as_str`](Self::as_str).
    fn first_byte(self) -> u8 {
        match self {
            Operator::Equal | Operator::EqualStar | Operator::ExactEqual => b'=',
            Operator::NotEqual | Operator::NotEqualStar => b'!',
            Operator::TildeEqual => b'~',
            Operator::LessThan | Operator::LessThanEqual => b'<',
            Operator::GreaterThan | Operator::GreaterThanEqual => b'>',
        }
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Operator {
    type Err = Error;

    /// Reads exactly one of `==`, `!=`, `~=`, `<`, `<=`, `>`, `>=`, `===` (no whitespace).
    /// `"=="` gives [`Operator::Equal`] and `"!="` [`Operator::NotEqual`].
    fn from_str(s: &str) -> Result<Operator, Error> {
        Ok(match s {
            "==" => Operator::Equal,
            "!=" => Operator::NotEqual,
            "~=" => Operator::TildeEqual,
            "<" => Operator::LessThan,
            "<=" => Operator::LessThanEqual,
            ">" => Operator::GreaterThan,
            ">=" => Operator::GreaterThanEqual,
            "===" => Operator::ExactEqual,
            _ => {
                let found = if s.is_empty() {
                    Found::End
                } else {
                    Found::text(s)
                };
                return Err(Error::new(
                    ErrorKind::UnknownOperator,
                    0..s.len(),
                    Detail::Expected("a comparison operator", found),
                ));
            }
        })
    }
}

impl TryFrom<&str> for Operator {
    type Error = Error;

    fn try_from(s: &str) -> Result<Operator, Error> {
        s.parse()
    }
}

/// One version specifier, such as `>=1.0`, `==2.*` or `===foo`, as packaging's `Specifier`.
///
/// `Display` writes packaging's `str(Specifier(text))`: the operator, then the version text as
/// written, without the whitespace around it (`">= 1.0.0 "` displays as `>=1.0.0`). Equality and
/// hashing follow packaging's `Specifier.__eq__`: `==1.0` equals `==1.0.0`, `~=1.0` does not equal
/// `~=1.0.0`, and wildcard and `===` specifiers compare their text.
///
/// ```
/// use markerspec_pep440::{Operator, Version, VersionSpecifier};
///
/// let spec: VersionSpecifier = ">= 1.0".parse()?;
/// assert_eq!(spec.operator(), Operator::GreaterThanEqual);
/// assert_eq!(spec.to_string(), ">=1.0");
/// assert!(spec.contains(&"1.2".parse::<Version>()?));
/// assert!(!spec.contains(&"1.0rc1".parse::<Version>()?));
/// assert_eq!(spec.version(), &"1.0".parse::<Version>()?);
/// assert_eq!(spec.prereleases(), Some(false));
///
/// // A pre-release is let through, or not, on request.
/// let newer: Version = "1.1rc1".parse()?;
/// assert!(spec.contains_with(&newer, None));
/// assert!(!spec.contains_with(&newer, Some(false)));
/// assert!(spec.contains_str("1.1", None));
/// assert!(!spec.contains_str("not a version", None));
///
/// // The text as written, with any wildcard; `===` text need not be a version.
/// let wildcard: VersionSpecifier = "== 3.12.*".parse()?;
/// assert_eq!(wildcard.version_text(), "3.12.*");
/// assert_eq!(wildcard.parsed_version(), Some(&Version::new([3, 12])));
/// let arbitrary: VersionSpecifier = "===foo".parse()?;
/// assert_eq!(arbitrary.parsed_version(), None);
/// assert!(arbitrary.contains_str("FOO", None));
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone)]
pub struct VersionSpecifier {
    op: Operator,
    /// The version; for `===` text that is not a version, `0`.
    version: Version,
    /// The version text as written when it differs from the canonical text (`version`'s
    /// `Display`, plus `.*` for a wildcard); always set for `===`.
    text: Option<Box<str>>,
    /// For `===`: whether the text is a version.
    has_version: bool,
}

/// Compares the text written into it with `expected`, without allocating.
struct TextEq<'a> {
    rest: &'a str,
    equal: bool,
}

impl fmt::Write for TextEq<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        match self.rest.strip_prefix(s) {
            Some(rest) if self.equal => self.rest = rest,
            _ => self.equal = false,
        }
        Ok(())
    }
}

/// Feeds the text written into it to a hasher, byte by byte so that how the text is split into
/// pieces does not matter.
struct HashText<'a, H: Hasher>(&'a mut H);

impl<H: Hasher> fmt::Write for HashText<'_, H> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            self.0.write_u8(b);
        }
        Ok(())
    }
}

/// Whether an operator's version ends in `.*`.
fn is_wildcard(op: Operator) -> bool {
    matches!(op, Operator::EqualStar | Operator::NotEqualStar)
}

impl VersionSpecifier {
    fn from_spec_parts(s: &str, parts: parse::SpecParts) -> VersionSpecifier {
        let written = s.get(parts.text).unwrap_or("");
        match parts.version {
            SpecVersion::Arbitrary => {
                let version = written.parse::<Version>().ok();
                VersionSpecifier {
                    op: parts.op,
                    has_version: version.is_some(),
                    version: version.unwrap_or_else(|| ZERO.clone()),
                    text: Some(written.into()),
                }
            }
            SpecVersion::Version {
                version, canonical, ..
            } => VersionSpecifier {
                op: parts.op,
                version,
                text: (!canonical).then(|| written.into()),
                has_version: true,
            },
        }
    }

    /// Builds a specifier from an operator and the version text after it.
    ///
    /// `op` is an [`Operator`] or its text (`"=="`, `">="`, …; exactly an operator, without
    /// whitespace). The result is exactly that of parsing the concatenation `op + version_text`,
    /// as packaging's marker evaluation does with `Specifier(f"{op}{rhs}")`: whitespace may
    /// surround the version, a version ending in `.*` makes `==`/`!=` a wildcard operator
    /// (so [`Operator::EqualStar`] with `"1.0"` gives `==1.0`), and text that continues the
    /// operator joins it (`"<"` with `"=1.0"` gives `<=1.0`).
    ///
    /// # Errors
    ///
    /// When `op` is not an operator ([`ErrorKind::UnknownOperator`]) or the concatenation is not
    /// a valid specifier. Spans are relative to `version_text`; the part of a span that would lie
    /// in the operator is cut off, so an error about the operator itself is reported at `0..0`.
    ///
    /// ```
    /// use markerspec_pep440::{Operator, VersionSpecifier};
    ///
    /// let spec = VersionSpecifier::from_parts(Operator::Equal, "1.0.*")?;
    /// assert_eq!(spec.operator(), Operator::EqualStar);
    /// let spec = VersionSpecifier::from_parts("<", "=3.8")?;
    /// assert_eq!(spec.to_string(), "<=3.8");
    /// let err = VersionSpecifier::from_parts(">=", "1.0+local").unwrap_err();
    /// assert_eq!(err.span(), 3..9);
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    pub fn from_parts(
        op: impl TryInto<Operator, Error: Into<Error>>,
        version_text: &str,
    ) -> Result<VersionSpecifier, Error> {
        Self::read_parts(op, version_text, VersionSpecifier::from_spec_parts)
    }

    /// Checks that `op` and `version_text` make a specifier, exactly as
    /// [`VersionSpecifier::from_parts`] does, without building it (for a caller that only
    /// validates).
    ///
    /// ```
    /// use markerspec_pep440::{Operator, VersionSpecifier};
    /// assert!(VersionSpecifier::check_parts(Operator::GreaterThanEqual, "1.0").is_ok());
    /// assert_eq!(
    ///     VersionSpecifier::check_parts(">=", "1.0.*").map_err(|e| e.to_string()),
    ///     VersionSpecifier::from_parts(">=", "1.0.*").map(|_| ()).map_err(|e| e.to_string()),
    /// );
    /// ```
    ///
    /// # Errors
    /// As [`VersionSpecifier::from_parts`].
    pub fn check_parts(
        op: impl TryInto<Operator, Error: Into<Error>>,
        version_text: &str,
    ) -> Result<(), Error> {
        Self::read_parts(op, version_text, |_, _| ())
    }

    /// [`VersionSpecifier::from_parts`], with what is made of the parts read left to `make`.
    #[inline(always)]
    fn read_parts<T>(
        op: impl TryInto<Operator, Error: Into<Error>>,
        version_text: &str,
        make: impl FnOnce(&str, parse::SpecParts) -> T,
    ) -> Result<T, Error> {
        let op = op
            .try_into()
            .map_err(|err| Into::<Error>::into(err).at(0..0))?;
        let op_text = op.as_str();
        let continues_operator = version_text
            .as_bytes()
            .first()
            .is_some_and(|&b| matches!(b, b'=' | b'!' | b'<' | b'>' | b'~'));
        if continues_operator || version_text.len() > MAX_INPUT_LEN {
            // Rare: the text changes the operator. Parse the concatenation itself.
            let joined = format!("{op_text}{version_text}");
            return parse::parse_specifier(&joined)
                .map(|parts| make(&joined, parts))
                .map_err(|err| err.unshifted(op_text.len()));
        }
        let op = match op {
            Operator::EqualStar => Operator::Equal,
            Operator::NotEqualStar => Operator::NotEqual,
            op => op,
        };
        parse::parse_after_operator(version_text, op, 0).map(|parts| make(version_text, parts))
    }

    /// The operator; `==`/`!=` with a wildcard are [`Operator::EqualStar`] and
    /// [`Operator::NotEqualStar`].
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn operator(&self) -> Operator {
        self.op
    }

    /// The version, without any `.*`.
    ///
    /// For `===` it is the text read as a version; when the text is not a version (`===foo`)
    /// this returns the placeholder `0`. Use [`parsed_version`](Self::parsed_version) to tell.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn version(&self) -> &Version {
        &self.version
    }

    /// The version, or `None` for `===` text that is not a version.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn parsed_version(&self) -> Option<&Version> {
        self.has_version.then_some(&self.version)
    }

    /// The version text as written, without surrounding whitespace, including any `.*`
    /// (packaging's `Specifier.version`).
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn version_text(&self) -> Cow<'_, str> {
        match &self.text {
            Some(text) => Cow::Borrowed(text),
            None if is_wildcard(self.op) => Cow::Owned(format!("{}.*", self.version)),
            None => Cow::Owned(self.version.to_string()),
        }
    }

    /// Whether pre-releases are implied by this specifier (packaging's `Specifier.prereleases`
    /// without an override): `Some(false)` for `!=` and wildcard `==`, `None` for `===` text that
    /// is not a version, otherwise whether the version is a pre-release.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn prereleases(&self) -> Option<bool> {
        match self.op {
            Operator::NotEqual | Operator::NotEqualStar | Operator::EqualStar => Some(false),
            _ if !self.has_version => None,
            _ => Some(self.version.is_prerelease()),
        }
    }

    /// Whether `version` satisfies this specifier, with packaging's default pre-release rule
    /// (`prereleases=None`): a single version is never rejected for being a pre-release.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn contains(&self, version: &Version) -> bool {
        self.contains_with(version, None)
    }

    /// Whether `version` satisfies this specifier, as packaging's
    /// `Specifier.contains(version, prereleases)`.
    ///
    /// With `Some(false)` a pre-release (or dev-release) never matches; `None` and `Some(true)`
    /// both let it match by the operator's rules. `===` compares `version`'s canonical text with
    /// the specifier's text, ignoring case.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn contains_with(&self, version: &Version, prereleases: Option<bool>) -> bool {
        if prereleases == Some(false) && version.is_prerelease() {
            return false;
        }
        if self.op == Operator::ExactEqual {
            let mut text = String::new();
            let _ = write!(text, "{version}");
            return self.arbitrary_matches(&text);
        }
        self.matches(version)
    }

    /// Whether the text `item` satisfies this specifier, exactly as packaging's
    /// `Specifier.contains(item, prereleases)` with a string.
    ///
    /// For `===` the text as given is compared with the specifier's text, ignoring case (no
    /// whitespace is stripped), and `Some(false)` rejects it only when it reads as a pre-release
    /// version. For the other operators text that is not a version never matches.
    ///
    /// See the example on [`VersionSpecifier`].
    #[must_use]
    pub fn contains_str(&self, item: &str, prereleases: Option<bool>) -> bool {
        if self.op == Operator::ExactEqual {
            if !self.arbitrary_matches(item) {
                return false;
            }
            return prereleases != Some(false)
                || !item.parse::<Version>().is_ok_and(|v| v.is_prerelease());
        }
        match item.parse::<Version>() {
            Ok(version) => self.contains_with(&version, prereleases),
            Err(_) => false,
        }
    }

    fn arbitrary_matches(&self, item: &str) -> bool {
        let text = self.text.as_deref().unwrap_or("");
        if item.is_ascii() && text.is_ascii() {
            item.eq_ignore_ascii_case(text)
        } else {
            item.to_lowercase() == text.to_lowercase()
        }
    }

    /// The operator's rule, without the pre-release filter. Derived from packaging's interval
    /// bounds; see the crate docs.
    fn matches(&self, v: &Version) -> bool {
        let spec = &self.version;
        match self.op {
            Operator::Equal => self.equal(v),
            Operator::NotEqual => !self.equal(v),
            Operator::EqualStar => wildcard_matches(spec, v),
            Operator::NotEqualStar => !wildcard_matches(spec, v),
            Operator::TildeEqual => {
                let prefix = spec.release().split_last().map_or(&[][..], |(_, p)| p);
                v >= spec
                    && v.epoch()
                        .cmp(&spec.epoch())
                        .then_with(|| cmp_release_next(v.release(), prefix))
                        == Ordering::Less
            }
            Operator::LessThan => {
                if spec.is_prerelease() {
                    v < spec
                } else {
                    // `<V` is `<V.dev0`: no pre-release of a final `V` matches.
                    v.cmp_with_dev(spec, 0) == Ordering::Less
                }
            }
            Operator::LessThanEqual => v.cmp_public(spec) != Ordering::Greater,
            Operator::GreaterThan => {
                if spec.dev().is_some() || spec.post().is_some() {
                    v.cmp_public(spec) == Ordering::Greater
                } else {
                    // `>V` skips `V`'s post-releases: past everything sharing `V`'s release and
                    // pre-release.
                    let pre = |x: &Version| {
                        let s: Suffix = x.suffix();
                        (s.pre_rank, s.pre_number)
                    };
                    v.cmp_base(spec).then_with(|| pre(v).cmp(&pre(spec))) == Ordering::Greater
                }
            }
            Operator::GreaterThanEqual => v >= spec,
            Operator::ExactEqual => false,
        }
    }

    /// `==V`: with a local label in `V`, the exact version; without, any local label.
    fn equal(&self, v: &Version) -> bool {
        if self.version.is_local() {
            v == &self.version
        } else {
            v.cmp_public(&self.version) == Ordering::Equal
        }
    }

    /// Writes the version text as packaging's `str()` does.
    fn fmt_text<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        match &self.text {
            Some(text) => f.write_str(text),
            None => {
                self.version.write_to(f)?;
                if is_wildcard(self.op) {
                    f.write_str(".*")?;
                }
                Ok(())
            }
        }
    }

    /// The printed text (as `to_string`, without a [`fmt::Formatter`]).
    fn text_string(&self) -> String {
        let mut text = String::with_capacity(16);
        let _ = self.write_to(&mut text);
        text
    }

    /// Whether the version texts are the same.
    fn text_eq(&self, other: &VersionSpecifier) -> bool {
        match (&self.text, &other.text) {
            (Some(a), Some(b)) => a == b,
            (None, None) => {
                self.version.release().len() == other.version.release().len()
                    && self.version == other.version
            }
            (Some(text), None) | (None, Some(text)) => {
                let canonical = if self.text.is_none() { self } else { other };
                let mut cmp = TextEq {
                    rest: text,
                    equal: true,
                };
                let _ = canonical.fmt_text(&mut cmp);
                cmp.equal && cmp.rest.is_empty()
            }
        }
    }
}

/// `==V.*`: `(epoch, release)` from `V.dev0` up to the next prefix's `.dev0`, exclusive.
fn wildcard_matches(spec: &Version, v: &Version) -> bool {
    v.cmp_base(spec) != Ordering::Less
        && v.epoch()
            .cmp(&spec.epoch())
            .then_with(|| cmp_release_next(v.release(), spec.release()))
            == Ordering::Less
}

impl PartialEq for VersionSpecifier {
    /// packaging's `Specifier.__eq__`: the same operator and, for `===` and wildcards, the same
    /// text; for `~=` the same version with as many release numbers; otherwise equal versions.
    fn eq(&self, other: &Self) -> bool {
        if self.op != other.op {
            return false;
        }
        match self.op {
            Operator::ExactEqual | Operator::EqualStar | Operator::NotEqualStar => {
                self.text_eq(other)
            }
            Operator::TildeEqual => {
                self.version.release().len() == other.version.release().len()
                    && self.version == other.version
            }
            _ => self.version == other.version,
        }
    }
}

impl Eq for VersionSpecifier {}

impl Hash for VersionSpecifier {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.op.hash(state);
        match self.op {
            Operator::ExactEqual | Operator::EqualStar | Operator::NotEqualStar => {
                let _ = self.fmt_text(&mut HashText(state));
            }
            Operator::TildeEqual => {
                self.version.release().len().hash(state);
                self.version.hash(state);
            }
            _ => self.version.hash(state),
        }
    }
}

impl VersionSpecifier {
    /// Writes the specifier as [`Display`](fmt::Display) does, into any [`fmt::Write`] without
    /// going through a [`fmt::Formatter`].
    ///
    /// ```
    /// use markerspec_pep440::VersionSpecifier;
    ///
    /// let mut s = String::new();
    /// ">= 1.0.0 ".parse::<VersionSpecifier>()?.write_to(&mut s).unwrap();
    /// assert_eq!(s, ">=1.0.0");
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    pub fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        // A constant per arm, so that each is copied as a constant length.
        match self.op {
            Operator::Equal | Operator::EqualStar => f.write_str("==")?,
            Operator::NotEqual | Operator::NotEqualStar => f.write_str("!=")?,
            Operator::TildeEqual => f.write_str("~=")?,
            Operator::LessThan => f.write_str("<")?,
            Operator::LessThanEqual => f.write_str("<=")?,
            Operator::GreaterThan => f.write_str(">")?,
            Operator::GreaterThanEqual => f.write_str(">=")?,
            Operator::ExactEqual => f.write_str("===")?,
        }
        self.fmt_text(f)
    }
}

impl fmt::Display for VersionSpecifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Debug for VersionSpecifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionSpecifier(\"{self}\")")
    }
}

impl FromStr for VersionSpecifier {
    type Err = Error;

    /// Parses one specifier, as packaging's `Specifier(text)`.
    fn from_str(s: &str) -> Result<VersionSpecifier, Error> {
        parse::parse_specifier(s).map(|parts| VersionSpecifier::from_spec_parts(s, parts))
    }
}

/// A comma-separated list of specifiers, all of which must hold, as packaging's `SpecifierSet`.
///
/// Parsing splits on `,` and skips empty pieces, so `""` is the empty list (which contains
/// everything). `Display` writes packaging's `str(SpecifierSet(text))`: the specifiers sorted by
/// their text, without duplicates (by specifier equality), joined by `,`. [`iter`](Self::iter)
/// gives them in the order written.
///
/// ```
/// use markerspec_pep440::{Version, VersionSpecifiers};
///
/// let specs: VersionSpecifiers = ">=1.0, !=1.3.*, <2".parse()?;
/// assert_eq!(specs.to_string(), "!=1.3.*,<2,>=1.0");
/// assert!(specs.contains(&"1.4".parse::<Version>()?));
/// assert!(!specs.contains(&"1.3.1".parse::<Version>()?));
///
/// // In the order written.
/// assert_eq!(specs.len(), 3);
/// assert_eq!(specs.iter().next().map(|s| s.to_string()), Some(">=1.0".to_owned()));
/// assert_eq!(specs.as_slice()[2].to_string(), "<2");
/// assert_eq!(specs.prereleases(), None);
/// assert!(!specs.contains_with(&"1.5rc1".parse::<Version>()?, Some(false)));
/// assert!(specs.contains_str("1.4", None));
///
/// // The empty list contains everything.
/// let any = VersionSpecifiers::empty();
/// assert!(any.is_empty());
/// assert_eq!(any, "".parse()?);
/// assert!(any.contains(&"0.1.dev0".parse::<Version>()?));
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct VersionSpecifiers(Specs);

/// The specifiers: most lists hold one, which is kept without a heap allocation.
#[derive(Clone)]
enum Specs {
    One(VersionSpecifier),
    Many(Vec<VersionSpecifier>),
}

impl Default for Specs {
    fn default() -> Specs {
        Specs::Many(Vec::new())
    }
}

impl VersionSpecifiers {
    /// The empty list, which contains every version.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn empty() -> VersionSpecifiers {
        VersionSpecifiers(Specs::Many(Vec::new()))
    }

    /// The specifiers in the order written, as a slice.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn as_slice(&self) -> &[VersionSpecifier] {
        match &self.0 {
            Specs::One(s) => std::slice::from_ref(s),
            Specs::Many(v) => v,
        }
    }

    /// The specifiers in the order written.
    ///
    /// See the example on [`VersionSpecifiers`].
    pub fn iter(&self) -> std::slice::Iter<'_, VersionSpecifier> {
        self.as_slice().iter()
    }

    /// How many specifiers the list has.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether the list is empty.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Whether pre-releases are implied (packaging's `SpecifierSet.prereleases` without an
    /// override): `Some(true)` if any specifier implies them, otherwise `None`.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn prereleases(&self) -> Option<bool> {
        self.iter()
            .any(|s| s.prereleases() == Some(true))
            .then_some(true)
    }

    /// Whether `version` satisfies every specifier, with packaging's default pre-release rule.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn contains(&self, version: &Version) -> bool {
        self.contains_with(version, None)
    }

    /// Whether `version` satisfies every specifier, as packaging's
    /// `SpecifierSet.contains(version, prereleases)`: `Some(false)` rejects pre-releases, and
    /// otherwise each specifier decides with pre-releases allowed.
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn contains_with(&self, version: &Version, prereleases: Option<bool>) -> bool {
        if prereleases == Some(false) && version.is_prerelease() {
            return false;
        }
        self.iter().all(|s| s.contains_with(version, Some(true)))
    }

    /// Whether the text `item` satisfies every specifier, exactly as packaging's
    /// `SpecifierSet.contains(item, prereleases)` with a string.
    ///
    /// Text that is not a version matches only `===` specifiers with that text, and the empty
    /// list (which packaging lets any text through).
    ///
    /// See the example on [`VersionSpecifiers`].
    #[must_use]
    pub fn contains_str(&self, item: &str, prereleases: Option<bool>) -> bool {
        let has_arbitrary = self.iter().any(|s| s.op == Operator::ExactEqual);
        if !has_arbitrary {
            return match item.parse::<Version>() {
                Ok(version) => self.contains_with(&version, prereleases),
                Err(_) => self.is_empty(),
            };
        }
        if !self.iter().all(|s| s.contains_str(item, Some(true))) {
            return false;
        }
        prereleases != Some(false) || !item.parse::<Version>().is_ok_and(|v| v.is_prerelease())
    }

    /// The specifiers sorted by text with duplicates removed, as packaging's `_canonical_specs`.
    fn canonical(&self) -> Vec<(String, &VersionSpecifier)> {
        let mut sorted: Vec<(String, &VersionSpecifier)> =
            self.iter().map(|s| (s.text_string(), s)).collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        // Keep the first of each group of equal specifiers: by comparing with those kept when
        // there are few (the common case, no hashing), in linear time otherwise (hashing
        // agrees with equality).
        if sorted.len() <= 16 {
            let mut kept: Vec<(String, &VersionSpecifier)> = Vec::with_capacity(sorted.len());
            for (text, spec) in sorted {
                if !kept.iter().any(|(_, k)| *k == spec) {
                    kept.push((text, spec));
                }
            }
            return kept;
        }
        let mut seen = std::collections::HashSet::with_capacity(sorted.len());
        sorted.retain(|(_, spec)| seen.insert(*spec));
        sorted
    }
}

impl FromStr for VersionSpecifiers {
    type Err = Error;

    /// Parses a comma-separated list, as packaging's `SpecifierSet(text)`. Error spans are
    /// relative to the whole text.
    fn from_str(s: &str) -> Result<VersionSpecifiers, Error> {
        if s.len() > MAX_INPUT_LEN {
            return Err(Error::new(
                ErrorKind::TooLong,
                0..s.len(),
                Detail::Length(s.len()),
            ));
        }
        let mut specs = Vec::new();
        let mut offset = 0;
        for piece in s.split(',') {
            if !piece.chars().all(parse::is_space) {
                let parts = parse::parse_specifier(piece).map_err(|e| e.shifted(offset))?;
                specs.push(VersionSpecifier::from_spec_parts(piece, parts));
            }
            offset += piece.len() + 1;
        }
        Ok(VersionSpecifiers::from_iter(specs))
    }
}

impl VersionSpecifiers {
    /// Writes the list as [`Display`](fmt::Display) does, into any [`fmt::Write`] without
    /// going through a [`fmt::Formatter`].
    ///
    /// ```
    /// use markerspec_pep440::VersionSpecifiers;
    ///
    /// let mut s = String::new();
    /// ">=1.0, !=1.3.*, <2".parse::<VersionSpecifiers>()?.write_to(&mut s).unwrap();
    /// assert_eq!(s, "!=1.3.*,<2,>=1.0");
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    pub fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        let specs = self.as_slice();
        if let [only] = specs {
            return only.write_to(f);
        }
        // When the operators start with different bytes (`>=1.0,<2`, the common case), their
        // first bytes order the texts and no two are equal (equal specifiers share their
        // operator): the specifiers are written in that order without rendering them first.
        if specs.len() <= 5 {
            let mut order: [(u8, Option<&VersionSpecifier>); 5] = [(u8::MAX, None); 5];
            let mut seen = 0u128;
            let mut distinct = true;
            for (slot, spec) in order.iter_mut().zip(specs) {
                let first = spec.op.first_byte();
                let bit = 1u128 << (first & 127);
                distinct &= seen & bit == 0;
                seen |= bit;
                *slot = (first, Some(spec));
            }
            if distinct {
                order.sort_unstable_by_key(|&(first, _)| first);
                for (i, spec) in order.iter().filter_map(|&(_, spec)| spec).enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    spec.write_to(f)?;
                }
                return Ok(());
            }
        }
        let mut sep = "";
        for (text, _) in self.canonical() {
            f.write_str(sep)?;
            f.write_str(&text)?;
            sep = ",";
        }
        Ok(())
    }
}

impl fmt::Display for VersionSpecifiers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Debug for VersionSpecifiers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionSpecifiers(\"{self}\")")
    }
}

impl PartialEq for VersionSpecifiers {
    /// packaging's `SpecifierSet.__eq__`: the same specifiers, ignoring order and duplicates.
    fn eq(&self, other: &Self) -> bool {
        let a = self.canonical();
        let b = other.canonical();
        a.len() == b.len() && a.iter().zip(&b).all(|((_, x), (_, y))| x == y)
    }
}

impl Eq for VersionSpecifiers {}

impl Hash for VersionSpecifiers {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let canonical = self.canonical();
        canonical.len().hash(state);
        for (_, spec) in canonical {
            spec.hash(state);
        }
    }
}

impl From<VersionSpecifier> for VersionSpecifiers {
    fn from(spec: VersionSpecifier) -> VersionSpecifiers {
        VersionSpecifiers(Specs::One(spec))
    }
}

impl FromIterator<VersionSpecifier> for VersionSpecifiers {
    fn from_iter<I: IntoIterator<Item = VersionSpecifier>>(iter: I) -> VersionSpecifiers {
        let mut specs: Vec<VersionSpecifier> = iter.into_iter().collect();
        if specs.len() == 1 {
            if let Some(only) = specs.pop() {
                return VersionSpecifiers(Specs::One(only));
            }
        }
        VersionSpecifiers(Specs::Many(specs))
    }
}

impl IntoIterator for VersionSpecifiers {
    type Item = VersionSpecifier;
    type IntoIter = std::vec::IntoIter<VersionSpecifier>;

    fn into_iter(self) -> Self::IntoIter {
        match self.0 {
            Specs::One(s) => vec![s].into_iter(),
            Specs::Many(v) => v.into_iter(),
        }
    }
}

impl<'a> IntoIterator for &'a VersionSpecifiers {
    type Item = &'a VersionSpecifier;
    type IntoIter = std::slice::Iter<'a, VersionSpecifier>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::ops::Deref for VersionSpecifiers {
    type Target = [VersionSpecifier];

    fn deref(&self) -> &[VersionSpecifier] {
        self.as_slice()
    }
}
