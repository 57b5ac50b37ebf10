//! [`Version`] and its parts: representation, total order, hashing and canonical display.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::Arc;

use crate::Error;

/// The kind of a pre-release: alpha, beta or release candidate.
///
/// The spellings `alpha`, `beta`, `c`, `pre` and `preview` are read as `a`, `b`, `rc`, `rc` and
/// `rc`. The order is `Alpha < Beta < Rc`.
///
/// ```
/// use markerspec_pep440::{PrereleaseKind, Version};
///
/// let v: Version = "2.0-preview3".parse()?;
/// assert_eq!(v.pre().map(|p| p.kind), Some(PrereleaseKind::Rc));
/// assert!(PrereleaseKind::Alpha < PrereleaseKind::Rc);
/// assert_eq!(PrereleaseKind::Beta.as_str(), "b");
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrereleaseKind {
    /// `a` (also written `alpha`).
    Alpha,
    /// `b` (also written `beta`).
    Beta,
    /// `rc` (also written `c`, `pre`, `preview`).
    Rc,
}

impl PrereleaseKind {
    /// The canonical spelling: `"a"`, `"b"` or `"rc"`.
    ///
    /// See the example on [`PrereleaseKind`].
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PrereleaseKind::Alpha => "a",
            PrereleaseKind::Beta => "b",
            PrereleaseKind::Rc => "rc",
        }
    }

    fn rank(self) -> i8 {
        match self {
            PrereleaseKind::Alpha => 0,
            PrereleaseKind::Beta => 1,
            PrereleaseKind::Rc => 2,
        }
    }

    fn code(self) -> u8 {
        match self {
            PrereleaseKind::Alpha => 1,
            PrereleaseKind::Beta => 2,
            PrereleaseKind::Rc => 3,
        }
    }

    fn from_code(code: u8) -> Option<PrereleaseKind> {
        match code {
            1 => Some(PrereleaseKind::Alpha),
            2 => Some(PrereleaseKind::Beta),
            3 => Some(PrereleaseKind::Rc),
            _ => None,
        }
    }
}

impl fmt::Display for PrereleaseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The pre-release segment of a version, such as `rc2` in `1.0rc2`.
///
/// Ordered by kind, then number.
///
/// ```
/// use markerspec_pep440::{Prerelease, PrereleaseKind, Version};
///
/// let v: Version = "1.0.RC2".parse()?;
/// let pre = v.pre().expect("a pre-release");
/// assert_eq!(pre, Prerelease { kind: PrereleaseKind::Rc, number: 2 });
/// assert_eq!(pre.to_string(), "rc2");
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prerelease {
    /// Alpha, beta or release candidate.
    pub kind: PrereleaseKind,
    /// The number after the kind; `0` when none was written (`1.0a` is `1.0a0`).
    pub number: u64,
}

impl fmt::Display for Prerelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.as_str(), self.number)
    }
}

/// One dot-separated part of a local version label, such as `ubuntu` or `1` in `1.0+ubuntu.1`.
///
/// PEP 440 orders a number after any string; strings compare by their (lowercase ASCII) bytes and
/// numbers by value. The parser stores strings in lowercase and reads all-digit parts as numbers,
/// so `+ABC.007` is `[String("abc"), Number(7)]`.
///
/// ```
/// use markerspec_pep440::{LocalSegment, Version};
///
/// let v: Version = "1.0+ABC.007".parse()?;
/// assert_eq!(v.local(), [LocalSegment::String("abc".into()), LocalSegment::Number(7)]);
/// assert!(LocalSegment::Number(0) > LocalSegment::String("zzz".into()));
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LocalSegment {
    /// An all-digit part, by value.
    Number(u64),
    /// A part with at least one letter, in lowercase.
    String(String),
}

impl Ord for LocalSegment {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (LocalSegment::Number(a), LocalSegment::Number(b)) => a.cmp(b),
            (LocalSegment::String(a), LocalSegment::String(b)) => a.cmp(b),
            (LocalSegment::String(_), LocalSegment::Number(_)) => Ordering::Less,
            (LocalSegment::Number(_), LocalSegment::String(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for LocalSegment {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for LocalSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocalSegment::Number(n) => write!(f, "{n}"),
            LocalSegment::String(s) => f.write_str(s),
        }
    }
}

impl LocalSegment {
    /// The segment as the parser would have read it: ASCII lowercase, all-digit text as a number.
    fn normalized(self) -> LocalSegment {
        match self {
            LocalSegment::String(s) => {
                if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                    if let Some(n) = crate::parse::digits_value(s.as_bytes()) {
                        return LocalSegment::Number(n);
                    }
                }
                LocalSegment::String(s.to_ascii_lowercase())
            }
            number => number,
        }
    }
}

/// Marks a missing number in the compact representation.
const NONE32: u32 = u32::MAX;
/// How many release numbers the compact representation holds.
const INLINE_RELEASE: usize = 4;

/// The common case, held without a heap allocation: at most four release numbers, no local
/// label, and epoch, pre-, post- and dev-release numbers below `u32::MAX`.
#[derive(Clone, Copy)]
struct Small {
    release: [u64; INLINE_RELEASE],
    len: u8,
    /// 0 when there is no pre-release, else [`PrereleaseKind::code`].
    pre_kind: u8,
    epoch: u32,
    pre_number: u32,
    /// [`NONE32`] when absent.
    post: u32,
    /// [`NONE32`] when absent.
    dev: u32,
}

impl Small {
    /// No pre-, post- or dev-release.
    #[inline]
    fn is_final(&self) -> bool {
        self.pre_kind == 0 && self.post == NONE32 && self.dev == NONE32
    }
}

/// Everything else.
struct Full {
    epoch: u64,
    release: Box<[u64]>,
    pre: Option<Prerelease>,
    post: Option<u64>,
    dev: Option<u64>,
    local: Box<[LocalSegment]>,
}

#[derive(Clone)]
enum Repr {
    Small(Small),
    Full(Arc<Full>),
}

/// A PEP 440 version, such as `1!2.0.post1.dev3+ubuntu.1`.
///
/// Parse one with [`str::parse`] (the syntax packaging accepts, see the crate docs) or build one
/// with [`Version::new`] and the `with_*` methods. `Display` writes packaging's canonical form
/// (`str(Version(text))`); equality, ordering and hashing follow PEP 440, so `1.0 == 1.0.0`.
///
/// Versions with at most four release numbers and no local label are held inline, without a heap
/// allocation; cloning any version never copies its parts.
///
/// ```
/// use markerspec_pep440::{LocalSegment, Prerelease, PrereleaseKind, Version};
///
/// let v: Version = "V1.0-RC.2".parse()?;
/// assert_eq!(v.to_string(), "1.0rc2");
/// assert_eq!(v.pre(), Some(Prerelease { kind: PrereleaseKind::Rc, number: 2 }));
/// assert!(v < "1.0".parse()?);
/// assert_eq!(Version::new([1, 0]), "1.0.0".parse()?);
///
/// // Built part by part, and read back.
/// let v = Version::new([2, 1])
///     .with_epoch(1)
///     .with_pre(Some(Prerelease { kind: PrereleaseKind::Alpha, number: 3 }))
///     .with_post(Some(4))
///     .with_dev(Some(5))
///     .with_local(vec![LocalSegment::String("Cpu".into())]);
/// assert_eq!(v.to_string(), "1!2.1a3.post4.dev5+cpu");
/// assert_eq!(v.epoch(), 1);
/// assert_eq!(v.release(), [2, 1]);
/// assert_eq!(v.pre().map(|p| p.kind.as_str()), Some("a"));
/// assert_eq!((v.post(), v.dev()), (Some(4), Some(5)));
/// assert_eq!(v.local(), [LocalSegment::String("cpu".into())]);
/// assert!(v.is_prerelease() && v.is_devrelease() && v.is_postrelease() && v.is_local());
/// assert_eq!(v.without_local().to_string(), "1!2.1a3.post4.dev5");
/// assert!(!Version::new([3, 12]).is_prerelease());
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone)]
pub struct Version {
    repr: Repr,
}

/// The version `0`, returned by [`VersionSpecifier::version`](crate::VersionSpecifier::version)
/// for `===` text that is not a version.
pub(crate) static ZERO: Version = Version {
    repr: Repr::Small(Small {
        release: [0; INLINE_RELEASE],
        len: 1,
        pre_kind: 0,
        epoch: 0,
        pre_number: 0,
        post: NONE32,
        dev: NONE32,
    }),
};

/// The order key of everything but the release and the local label, as packaging builds it:
/// `(pre_rank, pre_n, post_rank, post_n, dev_rank, dev_n)`.
///
/// `pre_rank` is -1 for a dev-only release (`1.0.dev0`, sorting before any `a`), 0/1/2 for
/// a/b/rc and 3 for none; `post_rank` is 0 without a post-release; `dev_rank` is 0 *with* a
/// dev-release, so `1.0.dev0 < 1.0`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct Suffix {
    pub(crate) pre_rank: i8,
    pub(crate) pre_number: u64,
    post_rank: u8,
    post_number: u64,
    dev_rank: u8,
    dev_number: u64,
}

impl Suffix {
    pub(crate) fn new(pre: Option<Prerelease>, post: Option<u64>, dev: Option<u64>) -> Suffix {
        let (pre_rank, pre_number) = match pre {
            Some(pre) => (pre.kind.rank(), pre.number),
            None if post.is_none() && dev.is_some() => (-1, 0),
            None => (3, 0),
        };
        Suffix {
            pre_rank,
            pre_number,
            post_rank: u8::from(post.is_some()),
            post_number: post.unwrap_or(0),
            dev_rank: u8::from(dev.is_none()),
            dev_number: dev.unwrap_or(0),
        }
    }
}

/// Compares two release segments as if the shorter were padded with zeros.
pub(crate) fn cmp_release(a: &[u64], b: &[u64]) -> Ordering {
    let mut a = a.iter();
    let mut b = b.iter();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) => {
                let ord = x.unwrap_or(&0).cmp(y.unwrap_or(&0));
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

/// Compares `release` (padded with zeros) with `base` whose last number is raised by one, also
/// padded with zeros: the exclusive upper end of `==base.*` and of `~=`.
pub(crate) fn cmp_release_next(release: &[u64], base: &[u64]) -> Ordering {
    let Some((last, head)) = base.split_last() else {
        return cmp_release(release, base);
    };
    let (release_head, release_rest) = release.split_at(release.len().min(head.len()));
    let ord = cmp_release(release_head, head);
    if ord != Ordering::Equal {
        return ord;
    }
    let mut rest = release_rest.iter();
    let value = u128::from(rest.next().copied().unwrap_or(0));
    let ord = value.cmp(&(u128::from(*last) + 1));
    if ord != Ordering::Equal {
        return ord;
    }
    if rest.any(|&n| n != 0) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

impl Version {
    /// A final release with the given release numbers, such as `Version::new([1, 2])` for `1.2`.
    ///
    /// An empty release is read as `0`.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn new(release: impl IntoIterator<Item = u64>) -> Version {
        let mut inline = [0u64; INLINE_RELEASE];
        let mut len = 0usize;
        let mut iter = release.into_iter();
        for n in iter.by_ref() {
            if let Some(slot) = inline.get_mut(len) {
                *slot = n;
                len += 1;
            } else {
                let mut spill: Vec<u64> = inline.to_vec();
                spill.push(n);
                spill.extend(iter);
                return Version::from_parts(0, &spill, None, None, None, Vec::new());
            }
        }
        let release = inline.get(..len).unwrap_or(&[]);
        Version::from_parts(0, release, None, None, None, Vec::new())
    }

    /// A final release of one to four numbers, held inline; `len` is clamped to `1..=4`.
    pub(crate) fn inline_release(release: [u64; INLINE_RELEASE], len: usize) -> Version {
        Version {
            repr: Repr::Small(Small {
                release,
                len: u8::try_from(len.clamp(1, INLINE_RELEASE)).unwrap_or(1),
                pre_kind: 0,
                epoch: 0,
                pre_number: 0,
                post: NONE32,
                dev: NONE32,
            }),
        }
    }

    /// Builds the representation; `release` empty means `[0]`.
    #[inline]
    pub(crate) fn from_parts(
        epoch: u64,
        release: &[u64],
        pre: Option<Prerelease>,
        post: Option<u64>,
        dev: Option<u64>,
        local: Vec<LocalSegment>,
    ) -> Version {
        let release: &[u64] = if release.is_empty() { &[0] } else { release };
        let small = |n: u64| u32::try_from(n).ok().filter(|&n| n != NONE32);
        let opt_small = |n: Option<u64>| match n {
            None => Some(NONE32),
            Some(n) => small(n),
        };
        if local.is_empty() && release.len() <= INLINE_RELEASE {
            let parts = (
                small(epoch),
                small(pre.map_or(0, |p| p.number)),
                opt_small(post),
                opt_small(dev),
            );
            if let (Some(epoch), Some(pre_number), Some(post), Some(dev)) = parts {
                let mut inline = [0u64; INLINE_RELEASE];
                for (slot, &n) in inline.iter_mut().zip(release) {
                    *slot = n;
                }
                return Version {
                    repr: Repr::Small(Small {
                        release: inline,
                        len: u8::try_from(release.len()).unwrap_or(1),
                        pre_kind: pre.map_or(0, |p| p.kind.code()),
                        epoch,
                        pre_number,
                        post,
                        dev,
                    }),
                };
            }
        }
        Version {
            repr: Repr::Full(Arc::new(Full {
                epoch,
                release: release.into(),
                pre,
                post,
                dev,
                local: local.into_boxed_slice(),
            })),
        }
    }

    fn rebuild(
        &self,
        epoch: u64,
        pre: Option<Prerelease>,
        post: Option<u64>,
        dev: Option<u64>,
        local: Vec<LocalSegment>,
    ) -> Version {
        Version::from_parts(epoch, self.release(), pre, post, dev, local)
    }

    /// This version with the epoch set to `epoch`.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn with_epoch(self, epoch: u64) -> Version {
        let local = self.local().to_vec();
        self.rebuild(epoch, self.pre(), self.post(), self.dev(), local)
    }

    /// This version with the pre-release set (or removed with `None`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn with_pre(self, pre: Option<Prerelease>) -> Version {
        let local = self.local().to_vec();
        self.rebuild(self.epoch(), pre, self.post(), self.dev(), local)
    }

    /// This version with the post-release number set (or removed with `None`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn with_post(self, post: Option<u64>) -> Version {
        let local = self.local().to_vec();
        self.rebuild(self.epoch(), self.pre(), post, self.dev(), local)
    }

    /// This version with the dev-release number set (or removed with `None`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn with_dev(self, dev: Option<u64>) -> Version {
        let local = self.local().to_vec();
        self.rebuild(self.epoch(), self.pre(), self.post(), dev, local)
    }

    /// This version with the local label set (an empty `Vec` removes it).
    ///
    /// Segments are normalised as the parser would read them: strings in ASCII lowercase, and
    /// all-digit strings that fit in 64 bits as numbers. A string segment that could not be
    /// written in a version (empty, or with characters other than ASCII letters and digits) is
    /// kept as given, so such a version's `Display` does not parse back.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn with_local(self, local: Vec<LocalSegment>) -> Version {
        let local = local.into_iter().map(LocalSegment::normalized).collect();
        self.rebuild(self.epoch(), self.pre(), self.post(), self.dev(), local)
    }

    /// The release segment with the release numbers, such as `[1, 2, 0]` for `1.2.0`; never empty.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn release(&self) -> &[u64] {
        match &self.repr {
            Repr::Small(s) => s.release.get(..usize::from(s.len)).unwrap_or(&s.release),
            Repr::Full(f) => &f.release,
        }
    }

    /// The epoch (the `N` of `N!`), `0` when none was written.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn epoch(&self) -> u64 {
        match &self.repr {
            Repr::Small(s) => u64::from(s.epoch),
            Repr::Full(f) => f.epoch,
        }
    }

    /// The pre-release segment, such as `a1`.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn pre(&self) -> Option<Prerelease> {
        match &self.repr {
            Repr::Small(s) => PrereleaseKind::from_code(s.pre_kind).map(|kind| Prerelease {
                kind,
                number: u64::from(s.pre_number),
            }),
            Repr::Full(f) => f.pre,
        }
    }

    /// The post-release number (`1.0.post2` → `Some(2)`, `1.0-1` → `Some(1)`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn post(&self) -> Option<u64> {
        match &self.repr {
            Repr::Small(s) => (s.post != NONE32).then_some(u64::from(s.post)),
            Repr::Full(f) => f.post,
        }
    }

    /// The dev-release number (`1.0.dev3` → `Some(3)`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn dev(&self) -> Option<u64> {
        match &self.repr {
            Repr::Small(s) => (s.dev != NONE32).then_some(u64::from(s.dev)),
            Repr::Full(f) => f.dev,
        }
    }

    /// The local version label, empty when there is none.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn local(&self) -> &[LocalSegment] {
        match &self.repr {
            Repr::Small(_) => &[],
            Repr::Full(f) => &f.local,
        }
    }

    /// Whether this is a pre-release in packaging's sense: it has a pre-release **or** a
    /// dev-release segment (`1.0a1`, `1.0.dev0`, `1.0.post1.dev0`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn is_prerelease(&self) -> bool {
        self.pre().is_some() || self.dev().is_some()
    }

    /// Whether this version has a dev-release segment.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn is_devrelease(&self) -> bool {
        self.dev().is_some()
    }

    /// Whether this version has a post-release segment.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn is_postrelease(&self) -> bool {
        self.post().is_some()
    }

    /// Whether this version has a local label.
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn is_local(&self) -> bool {
        !self.local().is_empty()
    }

    /// The public version: this version without its local label (packaging's `public`).
    ///
    /// See the example on [`Version`].
    #[must_use]
    pub fn without_local(&self) -> Version {
        if self.is_local() {
            self.rebuild(
                self.epoch(),
                self.pre(),
                self.post(),
                self.dev(),
                Vec::new(),
            )
        } else {
            self.clone()
        }
    }

    pub(crate) fn suffix(&self) -> Suffix {
        match &self.repr {
            Repr::Small(s) if s.pre_kind == 0 && s.post == NONE32 && s.dev == NONE32 => Suffix {
                pre_rank: 3,
                pre_number: 0,
                post_rank: 0,
                post_number: 0,
                dev_rank: 1,
                dev_number: 0,
            },
            _ => Suffix::new(self.pre(), self.post(), self.dev()),
        }
    }

    /// Compares `(epoch, release)` only.
    #[inline]
    pub(crate) fn cmp_base(&self, other: &Version) -> Ordering {
        if let (Repr::Small(a), Repr::Small(b)) = (&self.repr, &other.repr) {
            // Inline releases are padded with zeros, which is how PEP 440 compares them.
            return a
                .epoch
                .cmp(&b.epoch)
                .then_with(|| a.release.cmp(&b.release));
        }
        self.epoch()
            .cmp(&other.epoch())
            .then_with(|| cmp_release(self.release(), other.release()))
    }

    /// Compares everything but the local labels.
    #[inline]
    pub(crate) fn cmp_public(&self, other: &Version) -> Ordering {
        let base = self.cmp_base(other);
        if base != Ordering::Equal {
            return base;
        }
        if let (Repr::Small(a), Repr::Small(b)) = (&self.repr, &other.repr) {
            if a.is_final() && b.is_final() {
                return Ordering::Equal;
            }
        }
        self.suffix().cmp(&other.suffix())
    }

    /// Compares with the version `other` would be with its dev-release set to `dev`.
    pub(crate) fn cmp_with_dev(&self, other: &Version, dev: u64) -> Ordering {
        self.cmp_base(other)
            .then_with(|| {
                self.suffix()
                    .cmp(&Suffix::new(other.pre(), other.post(), Some(dev)))
            })
            .then_with(|| {
                // `other` with a new dev-release has no local label.
                if self.is_local() {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                }
            })
    }

    /// Writes `release` joined by dots.
    fn fmt_release(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let mut first = true;
        for n in self.release() {
            if !first {
                f.write_str(".")?;
            }
            first = false;
            write_decimal(f, *n)?;
        }
        Ok(())
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Ord for Version {
    /// PEP 440's total order: epoch, then release (padded with zeros), then
    /// dev-only < a < b < rc < final, then post-releases after their base and dev-releases
    /// before theirs, then no local label < any local label (compared segment by segment).
    fn cmp(&self, other: &Self) -> Ordering {
        self.cmp_public(other)
            .then_with(|| self.local().cmp(other.local()))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Hash for Version {
    /// Consistent with `Eq`: trailing zeros of the release do not count.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.epoch().hash(state);
        let release = self.release();
        let significant = release.iter().rposition(|&n| n != 0).map_or(0, |i| i + 1);
        let trimmed = release.get(..significant).unwrap_or(release);
        trimmed.hash(state);
        self.suffix().hash(state);
        self.local().hash(state);
    }
}

impl Version {
    /// Writes the version as [`Display`](fmt::Display) does, into any [`fmt::Write`] (a
    /// `String`, a byte buffer's writer) without going through a [`fmt::Formatter`].
    ///
    /// ```
    /// use markerspec_pep440::Version;
    ///
    /// let mut s = String::new();
    /// "1.0-RC1.post2+Local.7".parse::<Version>()?.write_to(&mut s).unwrap();
    /// assert_eq!(s, "1.0rc1.post2+local.7");
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    pub fn write_to<W: fmt::Write>(&self, f: &mut W) -> fmt::Result {
        let epoch = self.epoch();
        if epoch != 0 {
            write_decimal(f, epoch)?;
            f.write_str("!")?;
        }
        self.fmt_release(f)?;
        if let Some(pre) = self.pre() {
            f.write_str(pre.kind.as_str())?;
            write_decimal(f, pre.number)?;
        }
        if let Some(post) = self.post() {
            f.write_str(".post")?;
            write_decimal(f, post)?;
        }
        if let Some(dev) = self.dev() {
            f.write_str(".dev")?;
            write_decimal(f, dev)?;
        }
        let mut sep = "+";
        for segment in self.local() {
            f.write_str(sep)?;
            match segment {
                LocalSegment::Number(n) => write_decimal(f, *n)?,
                LocalSegment::String(s) => f.write_str(s)?,
            }
            sep = ".";
        }
        Ok(())
    }
}

impl fmt::Display for Version {
    /// packaging's canonical form: `[N!]release[{a|b|rc}N][.postN][.devN][+local]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Version(\"{self}\")")
    }
}

impl FromStr for Version {
    type Err = Error;

    /// Parses a version as packaging's `Version(text)` does; see the crate docs for the syntax.
    fn from_str(s: &str) -> Result<Version, Error> {
        crate::parse::parse_version(s)
    }
}

impl Default for Version {
    /// The version `0`.
    fn default() -> Version {
        ZERO.clone()
    }
}

/// Writes N in decimal, without the formatting machinery (release numbers are most of what a
/// printed requirement holds, and they are short).
fn write_decimal(f: &mut impl fmt::Write, mut n: u64) -> fmt::Result {
    // One digit as a string; more into a buffer on the stack, then one `write_str`.
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    if let Some(digit) = usize::try_from(n).ok().and_then(|i| DIGITS.get(i)) {
        return f.write_str(digit);
    }
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        if let Some(d) = buf.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    match buf.get(at..).map(std::str::from_utf8) {
        Some(Ok(digits)) => f.write_str(digits),
        _ => Err(fmt::Error),
    }
}
