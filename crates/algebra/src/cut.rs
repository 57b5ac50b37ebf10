//! Cuts: the positions between points of the version domain, exact in the PEP 440 total order.
//!
//! # The key
//!
//! A version is mapped to a sequence of *atoms* whose lexicographic order is PEP 440's order
//! (packaging's `_cmpkey`):
//!
//! ```text
//! Sec(1) Num(epoch) Num(r1) … Num(rk) RelEnd Pre(p) Post(q) Dev(d) Local(l)
//! ```
//!
//! * the release is written with its trailing zeros trimmed (`3.12.0` is `3 12`), followed by
//!   `RelEnd`, which sorts below every number: since trimmed releases never end in `0`, this is
//!   exactly zero-padded comparison (`3 RelEnd` < `3 0 0 1 …`);
//! * `Pre` is `DevOnly` (a dev-release with neither pre- nor post-release, packaging's `-Infinity`)
//!   < `a0` < … < `rc N` < `Final` (no pre-release, packaging's `Infinity`);
//! * `Post` is none (lowest) or a number; `Dev` is a number or none (highest);
//! * `Local` is the label, empty (no label) lowest, compared as pep440's [`LocalSegment`]s.
//!
//! The absent value is the single point `Sec(0)`, below every version.
//!
//! # Cuts
//!
//! A *prefix* of that sequence names a *block*: the contiguous run of points whose key starts with
//! it (`Sec(1) Num(0) Num(3) Num(12)` is every version of epoch 0 whose trimmed release starts
//! `3.12`). A [`Cut`] is "just below" or "just above" a block. Cuts sit between points, never on one,
//! which is what PEP 440 specifiers need: `<3.12` ends just below `3.12.dev0`, `>3.12` starts just
//! above every post-release and local label of `3.12`, and no version lies on either cut.
//!
//! Two prefixes can name the same gap (`<=1.0.dev0` and `<1.0.dev1`; `<=1.0` and
//! `<1.0.post0.dev0`). Every cut is therefore *normalised* when built, using each atom position's
//! least value, greatest value and successor, so that two cuts are equal exactly when no point
//! lies between them. Equality and hashing of cuts, and so the canonicity of the decision
//! diagrams built on them, rely on that.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use markerspec_pep440::{LocalSegment, Prerelease, PrereleaseKind, Version};

/// The pre-release slot of the key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum PreSlot {
    /// A dev-release without pre- or post-release (`1.0.dev0`): below every pre-release.
    DevOnly,
    /// A pre-release.
    Pre(PrereleaseKind, u64),
    /// No pre-release.
    Final,
}

/// The dev-release slot: a number, or none (highest).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum DevSlot {
    Num(u64),
    None,
}

/// One position of the key. The derived order is only ever used between atoms at the same
/// position, where it is the PEP 440 order; `RelEnd < Num` is the only cross-variant case.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Atom {
    Sec(u8),
    RelEnd,
    Num(u64),
    Pre(PreSlot),
    Post(Option<u64>),
    Dev(DevSlot),
    Local(Vec<LocalSegment>),
}

/// Which side of its block a cut lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Side {
    Below,
    Above,
}

/// A point of the version domain: the absent value, or a version.
///
/// ```
/// use markerspec_algebra::Point;
///
/// let p = Point::Version("3.13.0rc1".parse()?);
/// assert!(Point::Absent < p);
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Point {
    /// The absent value, below every version.
    Absent,
    /// A version, in PEP 440 order.
    Version(Version),
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Point::Absent => f.write_str("\"\""),
            Point::Version(v) => write!(f, "{v}"),
        }
    }
}

/// The key atoms of a version.
pub(crate) fn version_atoms(v: &Version) -> Vec<Atom> {
    let mut atoms = public_atoms(v);
    let local = v.local().to_vec();
    atoms.push(Atom::Local(local));
    atoms
}

/// The key atoms of a version without its local label.
pub(crate) fn public_atoms(v: &Version) -> Vec<Atom> {
    let mut atoms = base_atoms(v.epoch(), v.release());
    atoms.push(Atom::RelEnd);
    let pre = match v.pre() {
        Some(p) => PreSlot::Pre(p.kind, p.number),
        None if v.post().is_none() && v.dev().is_some() => PreSlot::DevOnly,
        None => PreSlot::Final,
    };
    atoms.push(Atom::Pre(pre));
    atoms.push(Atom::Post(v.post()));
    atoms.push(Atom::Dev(match v.dev() {
        Some(n) => DevSlot::Num(n),
        None => DevSlot::None,
    }));
    atoms
}

/// `Sec(1) Num(epoch)` and the release numbers, trailing zeros trimmed.
pub(crate) fn base_atoms(epoch: u64, release: &[u64]) -> Vec<Atom> {
    let trimmed = release
        .iter()
        .rposition(|&n| n != 0)
        .map_or(&[][..], |last| release.get(..=last).unwrap_or(release));
    let mut atoms = Vec::with_capacity(trimmed.len() + 8);
    atoms.push(Atom::Sec(1));
    atoms.push(Atom::Num(epoch));
    atoms.extend(trimmed.iter().map(|&n| Atom::Num(n)));
    atoms
}

/// The key atoms of the release-only version `epoch!release` (no pre-, post- or dev-release,
/// no local label): `version_atoms` of it, built without the version.
pub(crate) fn release_atoms(epoch: u64, release: &[u64]) -> Vec<Atom> {
    let mut atoms = base_atoms(epoch, release);
    atoms.extend([
        Atom::RelEnd,
        Atom::Pre(PreSlot::Final),
        Atom::Post(None),
        Atom::Dev(DevSlot::None),
        Atom::Local(Vec::new()),
    ]);
    atoms
}

/// `Sec(1) Num(epoch)` and the release numbers as given (a wildcard prefix, not trimmed).
pub(crate) fn prefix_atoms(epoch: u64, release: &[u64]) -> Vec<Atom> {
    let mut atoms = Vec::with_capacity(release.len() + 2);
    atoms.push(Atom::Sec(1));
    atoms.push(Atom::Num(epoch));
    atoms.extend(release.iter().map(|&n| Atom::Num(n)));
    atoms
}

/// A position between two adjacent points of the version domain (absent value included).
///
/// Cuts are totally ordered; [`Cut::BOTTOM`] lies below the absent value and [`Cut::TOP`] above
/// every version. Build them from specifiers with [`VersionSet`](crate::VersionSet), or with
/// [`Cut::below`] / [`Cut::above`]:
///
/// ```
/// use markerspec_algebra::Cut;
///
/// let v: markerspec_pep440::Version = "3.12".parse()?;
/// assert!(Cut::below(&v) < Cut::above(&v));
/// // `1.0.dev0+local` lies between these two cuts …
/// assert!(Cut::above(&"1.0.dev0".parse()?) < Cut::below(&"1.0.dev1".parse()?));
/// // … but nothing lies between the end of `<=1.0.dev0` (which takes every local label of
/// // 1.0.dev0) and the end of `<1.0.dev1`: the two sets are one value.
/// use markerspec_algebra::VersionSet;
/// let a = VersionSet::from_specifier(&"<=1.0.dev0".parse()?);
/// assert_eq!(a, VersionSet::from_specifier(&"<1.0.dev1".parse()?));
///
/// // Where points lie.
/// use markerspec_algebra::Point;
/// use std::cmp::Ordering;
/// let start = Cut::versions_start();
/// assert_eq!(start.cmp_point(&Point::Absent), Ordering::Less);
/// assert!(start.is_below(&Point::Version("0.dev0".parse()?)));
/// assert_eq!(Cut::below(&v).least_point_above(), Some(Point::Version(v.clone())));
/// assert_eq!(Cut::TOP.least_point_above(), None);
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cut {
    /// The prefix, normalised; `None` when empty (so that the constants need no allocation),
    /// shared so that cloning a cut is cheap.
    atoms: Option<Arc<[Atom]>>,
    side: Side,
}

impl Cut {
    /// Below every point, the absent value included.
    pub const BOTTOM: Cut = Cut {
        atoms: None,
        side: Side::Below,
    };
    /// Above every point.
    pub const TOP: Cut = Cut {
        atoms: None,
        side: Side::Above,
    };

    /// Just above the absent value, below every version.
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn versions_start() -> Cut {
        // Built once: sets of comparisons start here, and a clone shares the prefix.
        static START: std::sync::LazyLock<Cut> =
            std::sync::LazyLock::new(|| Cut::new(vec![Atom::Sec(1)], Side::Below));
        START.clone()
    }

    /// Whether this is [`Cut::versions_start`] (without building it).
    pub(crate) fn is_versions_start(&self) -> bool {
        self.side == Side::Below && self.atoms() == [Atom::Sec(1)]
    }

    /// Just below `version` (with its local label, if any): everything before it in PEP 440
    /// order lies below.
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn below(version: &Version) -> Cut {
        Cut::new(version_atoms(version), Side::Below)
    }

    /// Just above `version` (with its local label, if any).
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn above(version: &Version) -> Cut {
        Cut::new(version_atoms(version), Side::Above)
    }

    pub(crate) fn new(mut atoms: Vec<Atom>, mut side: Side) -> Cut {
        normalize(&mut atoms, &mut side);
        Cut {
            atoms: (!atoms.is_empty()).then(|| atoms.into()),
            side,
        }
    }

    /// The cut's identity among cuts that share their prefix allocation: the prefix's address
    /// and the side. Equal for equal cuts only when both come from one interning table (as
    /// every cut a [`Context`](crate::Context)'s nodes hold does); used to hash nodes.
    pub(crate) fn identity(&self) -> usize {
        let address = self
            .atoms
            .as_ref()
            .map_or(0, |a| Arc::as_ptr(a).cast::<Atom>().addr());
        address ^ usize::from(self.side == Side::Above)
    }

    /// The prefix.
    fn atoms(&self) -> &[Atom] {
        self.atoms.as_deref().unwrap_or(&[])
    }

    /// Where `point` lies relative to this cut: `Less` when the point is below it.
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn cmp_point(&self, point: &Point) -> Ordering {
        match point {
            Point::Absent => self.cmp_atoms(&[Atom::Sec(0)]).reverse(),
            Point::Version(v) => self.cmp_atoms(&version_atoms(v)).reverse(),
        }
    }

    /// Compares this cut with a complete key (a point).
    pub(crate) fn cmp_atoms(&self, point: &[Atom]) -> Ordering {
        for (i, a) in self.atoms().iter().enumerate() {
            match point.get(i) {
                Some(b) if a == b => {}
                Some(b) => return a.cmp(b),
                None => return Ordering::Greater,
            }
        }
        match self.side {
            Side::Below => Ordering::Less,
            Side::Above => Ordering::Greater,
        }
    }

    /// Whether `point` lies above this cut.
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn is_below(&self, point: &Point) -> bool {
        self.cmp_point(point) == Ordering::Greater
    }

    /// The least point above this cut, when there is one (for a cut "just below" a block).
    ///
    /// See the example on [`Cut`].
    #[must_use]
    pub fn least_point_above(&self) -> Option<Point> {
        if self.side != Side::Below {
            return None;
        }
        if self.atoms.is_none() {
            return Some(Point::Absent);
        }
        let atoms = complete_min(self.atoms().to_vec())?;
        atoms_to_version(&atoms).map(Point::Version)
    }

    /// A point strictly between `self` and `upper`, or `None` when there is none (`upper` is not
    /// above `self`). Deterministic: the least point above `self` when it exists.
    ///
    /// ```
    /// use markerspec_algebra::{Cut, Point};
    /// use markerspec_pep440::Version;
    ///
    /// let v: Version = "3.12".parse()?;
    /// // Just above every 3.12 release and its post-releases, before 3.12.0.1.
    /// let lo = Cut::above(&"3.12.post5+x".parse()?);
    /// let hi = Cut::below(&"3.12.0.1".parse()?);
    /// let Some(Point::Version(w)) = lo.point_between(&hi) else { panic!() };
    /// assert!(w > "3.12.post5+x".parse()? && w < "3.12.0.1".parse()?);
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    #[must_use]
    pub fn point_between(&self, upper: &Cut) -> Option<Point> {
        if self >= upper {
            return None;
        }
        let inside = |p: &Point| self.is_below(p) && !upper.is_below(p);
        let candidates = self.candidates_above(upper);
        candidates.into_iter().find(|p| inside(p))
    }

    /// Points just above this cut, from the least (when it exists) to ones built to fall below
    /// `upper`.
    fn candidates_above(&self, upper: &Cut) -> Vec<Point> {
        let mut out = Vec::new();
        if let Some(p) = self.least_point_above() {
            out.push(p);
            return out;
        }
        let Some((last, ctx)) = self.atoms().split_last() else {
            return out;
        };
        match last {
            Atom::RelEnd => {
                // Just above a complete release R: R.0…0.1 with more zeros than `upper` has
                // release numbers.
                let zeros = upper.atoms().len() + 1;
                let mut atoms: Vec<Atom> = ctx.to_vec();
                atoms.extend(std::iter::repeat_n(Atom::Num(0), zeros));
                atoms.push(Atom::Num(1));
                if let Some(full) = complete_min(atoms) {
                    out.extend(atoms_to_version(&full).map(Point::Version));
                }
            }
            Atom::Local(label) => {
                // Just above V+l: V+l.s with `s` below the next segment of `upper`'s label.
                let mut segs = Vec::new();
                if let (Some(Atom::Local(up)), true) = (
                    upper.atoms().last(),
                    upper.atoms().len() == self.atoms().len(),
                ) {
                    if up.len() > label.len() && up.starts_with(label) {
                        match up.get(label.len()) {
                            Some(LocalSegment::String(s)) => {
                                segs.push(LocalSegment::String(format!("0{s}")));
                            }
                            Some(LocalSegment::Number(_)) => {
                                segs.push(LocalSegment::String("a".into()));
                            }
                            None => {}
                        }
                    }
                }
                segs.push(LocalSegment::String("a".into()));
                segs.push(LocalSegment::Number(0));
                for seg in segs {
                    let mut l = label.clone();
                    l.push(seg);
                    let mut atoms = ctx.to_vec();
                    atoms.push(Atom::Local(l));
                    out.extend(atoms_to_version(&atoms).map(Point::Version));
                }
            }
            _ => {}
        }
        out
    }

    /// The epoch and the first two release numbers (zero-padded) of the cut's prefix; zeros
    /// when the prefix stops before them or the cut lies at or below the start of the versions.
    pub(crate) fn epoch_and_release2(&self) -> (u64, u64, u64) {
        let num = |i: usize| match self.atoms().get(i) {
            Some(Atom::Num(n)) => *n,
            _ => 0,
        };
        (
            num(1),
            num(2),
            if matches!(self.atoms().get(2), Some(Atom::Num(_))) {
                num(3)
            } else {
                0
            },
        )
    }

    /// The cut at the same place among the *release-only* versions (`N(.N)*`, epoch 0; SPEC
    /// §4.3): just below or just above the block of all versions whose trimmed release is some
    /// `r`, so that two cuts with the same release-only versions below them are equal. Cuts at
    /// or above epoch 1 move to [`Cut::TOP`] (no release-only version lies there, and the
    /// region takes the value of epoch 0's tail); the absent value's cuts stay.
    pub(crate) fn release_only(&self) -> Cut {
        let atoms = self.atoms();
        let below = self.side == Side::Below;
        match atoms.first() {
            None | Some(Atom::Sec(0)) => return self.clone(),
            Some(_) => {}
        }
        let epoch = match atoms.get(1) {
            None => {
                return if below {
                    Cut::versions_start()
                } else {
                    Cut::TOP
                };
            }
            Some(Atom::Num(e)) => *e,
            Some(_) => return self.clone(),
        };
        if epoch > 0 {
            return Cut::TOP;
        }
        let release: Vec<u64> = atoms
            .iter()
            .skip(2)
            .map_while(|a| match a {
                Atom::Num(n) => Some(*n),
                _ => None,
            })
            .collect();
        let has_rel_end = matches!(atoms.get(2 + release.len()), Some(Atom::RelEnd));
        let block = |r: &[u64], side: Side| {
            let mut a = base_atoms(0, r);
            a.push(Atom::RelEnd);
            Cut::new(a, side)
        };
        if !has_rel_end && !below {
            // Above every version whose release starts with `release`: the next release.
            let Some((last, head)) = release.split_last() else {
                return Cut::TOP;
            };
            let Some(next) = last.checked_add(1) else {
                return Cut::TOP;
            };
            let mut r = head.to_vec();
            r.push(next);
            return block(&r, Side::Below);
        }
        // The release-only point of this release: below the cut or above it.
        let point = release_atoms(0, &release);
        if self.cmp_atoms(&point) == Ordering::Less {
            block(&release, Side::Below)
        } else {
            block(&release, Side::Above)
        }
    }

    /// Versions a specifier bounded by this cut may name, for printing: the least point above
    /// it, the version its prefix spells when completed, and release-only versions built from
    /// its release numbers (each prefix of the release, and for the last two numbers also the
    /// one below). The printer keeps the ones whose specifier gives exactly the wanted set.
    pub(crate) fn candidate_versions(&self) -> Vec<Version> {
        let mut out = Vec::new();
        // The version the prefix spells when completed; for a cut below its block, also the
        // least point above it (`least_point_above`), so made once.
        if let Some(v) = complete_min(self.atoms().to_vec()).and_then(|a| atoms_to_version(&a)) {
            out.push(v);
        }
        let epoch = match self.atoms().get(1) {
            Some(Atom::Num(e)) => *e,
            _ => return out,
        };
        let release = self.release_numbers();
        // (Epoch 0, the usual, is `Version::new`'s own: no second build.)
        let version = |r: &[u64]| {
            let v = Version::new(r.iter().copied());
            if epoch == 0 { v } else { v.with_epoch(epoch) }
        };
        let mut r: smallvec::SmallVec<[u64; 4]> = smallvec::SmallVec::new();
        for len in 1..=release.len().max(2) {
            r.clear();
            r.extend(release.iter().copied().take(len));
            r.resize(len, 0);
            out.push(version(&r));
            if let Some(last) = r.last_mut() {
                if *last > 0 {
                    *last -= 1;
                    out.push(version(&r));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether this cut lies just above a version without a local label and below that
    /// version's local labels: the upper end of that version alone (`[13, 13]`), which no
    /// specifier's set has (each holds a public version's local labels with it).
    pub(crate) fn is_above_public_point(&self) -> bool {
        self.side == Side::Above
            && matches!(self.atoms().last(), Some(Atom::Local(l)) if l.is_empty())
    }

    /// The version this cut lies just above when [`is_above_public_point`](Self::is_above_public_point).
    pub(crate) fn public_point_below(&self) -> Option<Version> {
        if self.is_above_public_point() {
            atoms_to_version(self.atoms())
        } else {
            None
        }
    }

    /// Whether this cut lies just below a block (a lower bound written `[` or an upper bound
    /// written `)`).
    pub(crate) fn is_below_side(&self) -> bool {
        self.side == Side::Below
    }

    /// The release numbers the prefix starts with when it is of epoch 0 and has at least one
    /// (`[3, 12]` for the cuts just below `3.12`, below `3.12.dev0` and above `3.12`); `None`
    /// otherwise. What the cut is (which version it lies below or above) is for the caller
    /// to check, by building that cut and comparing.
    pub(crate) fn epoch0_release(&self) -> Option<smallvec::SmallVec<[u64; 4]>> {
        if !matches!(self.atoms().get(..2), Some([Atom::Sec(1), Atom::Num(0)])) {
            return None;
        }
        let release = self.release_numbers();
        (!release.is_empty()).then_some(release)
    }

    /// The release numbers the prefix has after its epoch (none for a cut at the ends of the
    /// domain or the versions' start).
    fn release_numbers(&self) -> smallvec::SmallVec<[u64; 4]> {
        self.atoms()
            .iter()
            .skip(2)
            .map_while(|a| match a {
                Atom::Num(n) => Some(*n),
                _ => None,
            })
            .collect()
    }

    /// Whether the cut's prefix names a pre-release (`3.13rc1`, `3.11a6.post0.dev0`).
    pub(crate) fn names_pre_release(&self) -> bool {
        self.atoms()
            .iter()
            .any(|a| matches!(a, Atom::Pre(PreSlot::Pre(..))))
    }

    /// Just below every version of epoch 0 whose release (its trailing zeros trimmed) starts
    /// with `release` trimmed: where `< "3.12"` ends and `python_version >= "3.12"` starts
    /// (at `3.12.dev0`).
    pub(crate) fn release_block_start(release: &[u64]) -> Cut {
        Cut::block_start(0, release)
    }

    /// [`release_block_start`](Self::release_block_start) for the versions of `epoch`.
    pub(crate) fn block_start(epoch: u64, release: &[u64]) -> Cut {
        Cut::new(base_atoms(epoch, release), Side::Below)
    }
}

impl Ord for Cut {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.identity() == other.identity() {
            return Ordering::Equal;
        }
        for (i, a) in self.atoms().iter().enumerate() {
            match other.atoms().get(i) {
                // (Release numbers, the usual atoms, compared without the enum's general
                // comparison.)
                Some(Atom::Num(y)) if matches!(a, Atom::Num(x) if x == y) => {}
                Some(b @ Atom::Num(_)) => return a.cmp(b),
                Some(b) if a == b => {}
                Some(b) => return a.cmp(b),
                None => {
                    return match other.side {
                        Side::Below => Ordering::Greater,
                        Side::Above => Ordering::Less,
                    };
                }
            }
        }
        if other.atoms().len() > self.atoms().len() {
            return match self.side {
                Side::Below => Ordering::Less,
                Side::Above => Ordering::Greater,
            };
        }
        self.side.cmp(&other.side)
    }
}

impl PartialOrd for Cut {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Rewrites a prefix and side to the one representation of their gap (module docs).
fn normalize(atoms: &mut Vec<Atom>, side: &mut Side) {
    loop {
        let Some((last, ctx)) = atoms.split_last() else {
            return;
        };
        match *side {
            Side::Below => {
                if is_min(ctx, last) {
                    atoms.pop();
                    continue;
                }
                if *last == Atom::Num(0) && ctx.len() >= 2 {
                    // A release number 0 that may be followed by `RelEnd`: the block
                    // starting `… 0` begins right after the complete release `…`.
                    atoms.pop();
                    atoms.push(Atom::RelEnd);
                    *side = Side::Above;
                    continue;
                }
                return;
            }
            Side::Above => {
                if is_max(ctx, last) {
                    atoms.pop();
                    continue;
                }
                if *last == Atom::RelEnd {
                    return;
                }
                match succ(ctx, last) {
                    Some(next) => {
                        atoms.pop();
                        atoms.push(next);
                        *side = Side::Below;
                    }
                    None => return,
                }
            }
        }
    }
}

/// Whether `last` is the least value at its position, given the atoms before it.
fn is_min(ctx: &[Atom], last: &Atom) -> bool {
    match last {
        Atom::Sec(s) => *s == 0,
        // The epoch, or a release number after a `0` (where `RelEnd` cannot follow, because
        // releases are trimmed).
        Atom::Num(n) => {
            *n == 0
                && (ctx.len() == 1 || (ctx.len() >= 3 && matches!(ctx.last(), Some(Atom::Num(0)))))
        }
        Atom::RelEnd => true,
        Atom::Pre(p) => *p == PreSlot::DevOnly,
        Atom::Post(q) => q.is_none(),
        Atom::Dev(d) => match pre_of(ctx) {
            Some(PreSlot::Final) if matches!(ctx.last(), Some(Atom::Post(None))) => true,
            _ => *d == DevSlot::Num(0),
        },
        Atom::Local(l) => l.is_empty(),
    }
}

/// Whether `last` is the greatest value at its position.
fn is_max(ctx: &[Atom], last: &Atom) -> bool {
    match last {
        Atom::Sec(s) => *s == 1,
        Atom::Num(n) => *n == u64::MAX,
        Atom::RelEnd | Atom::Local(_) => false,
        Atom::Pre(p) => *p == PreSlot::Final,
        Atom::Post(q) => match ctx.last() {
            Some(Atom::Pre(PreSlot::DevOnly)) => true,
            _ => *q == Some(u64::MAX),
        },
        Atom::Dev(d) => match pre_of(ctx) {
            Some(PreSlot::DevOnly) => *d == DevSlot::Num(u64::MAX),
            _ => *d == DevSlot::None,
        },
    }
}

/// The next value at `last`'s position, when there is an immediate successor.
fn succ(ctx: &[Atom], last: &Atom) -> Option<Atom> {
    Some(match last {
        Atom::Sec(0) => Atom::Sec(1),
        Atom::Sec(_) => return None,
        Atom::Num(n) => Atom::Num(n.checked_add(1)?),
        Atom::RelEnd => Atom::Num(0),
        Atom::Pre(p) => Atom::Pre(match p {
            PreSlot::DevOnly => PreSlot::Pre(PrereleaseKind::Alpha, 0),
            PreSlot::Pre(kind, n) => match n.checked_add(1) {
                Some(n) => PreSlot::Pre(*kind, n),
                None => match kind {
                    PrereleaseKind::Alpha => PreSlot::Pre(PrereleaseKind::Beta, 0),
                    PrereleaseKind::Beta => PreSlot::Pre(PrereleaseKind::Rc, 0),
                    PrereleaseKind::Rc => PreSlot::Final,
                },
            },
            PreSlot::Final => return None,
        }),
        Atom::Post(q) => match ctx.last() {
            Some(Atom::Pre(PreSlot::DevOnly)) => return None,
            _ => Atom::Post(Some(match q {
                None => 0,
                Some(n) => n.checked_add(1)?,
            })),
        },
        Atom::Dev(d) => match (pre_of(ctx), d) {
            (_, DevSlot::None) => return None,
            (Some(PreSlot::DevOnly), DevSlot::Num(n)) => Atom::Dev(DevSlot::Num(n.checked_add(1)?)),
            (_, DevSlot::Num(n)) => match n.checked_add(1) {
                Some(n) => Atom::Dev(DevSlot::Num(n)),
                None => Atom::Dev(DevSlot::None),
            },
        },
        Atom::Local(_) => return None,
    })
}

/// The pre-release slot among the atoms before a `Dev` atom.
fn pre_of(ctx: &[Atom]) -> Option<&PreSlot> {
    ctx.iter().rev().find_map(|a| match a {
        Atom::Pre(p) => Some(p),
        _ => None,
    })
}

/// Completes a prefix with the least value at each remaining position; `None` when some
/// position has no least value.
fn complete_min(mut atoms: Vec<Atom>) -> Option<Vec<Atom>> {
    loop {
        let next = match atoms.last() {
            None => return None,
            Some(Atom::Sec(0)) | Some(Atom::Local(_)) => return Some(atoms),
            Some(Atom::Sec(_)) => Atom::Num(0),
            Some(Atom::Num(n)) => {
                if *n == 0 && atoms.len() > 2 {
                    return None;
                }
                Atom::RelEnd
            }
            Some(Atom::RelEnd) => Atom::Pre(PreSlot::DevOnly),
            Some(Atom::Pre(_)) => Atom::Post(None),
            Some(Atom::Post(q)) => {
                let final_no_post = q.is_none() && pre_of(&atoms) == Some(&PreSlot::Final);
                Atom::Dev(if final_no_post {
                    DevSlot::None
                } else {
                    DevSlot::Num(0)
                })
            }
            Some(Atom::Dev(_)) => Atom::Local(Vec::new()),
        };
        atoms.push(next);
    }
}

/// The version with the given complete key.
pub(crate) fn atoms_to_version(atoms: &[Atom]) -> Option<Version> {
    let mut it = atoms.iter();
    if it.next() != Some(&Atom::Sec(1)) {
        return None;
    }
    let Some(Atom::Num(epoch)) = it.next() else {
        return None;
    };
    let mut release = Vec::new();
    loop {
        match it.next()? {
            Atom::Num(n) => release.push(*n),
            Atom::RelEnd => break,
            _ => return None,
        }
    }
    if release.is_empty() {
        release.push(0);
    }
    let Some(Atom::Pre(pre)) = it.next() else {
        return None;
    };
    let Some(Atom::Post(post)) = it.next() else {
        return None;
    };
    let Some(Atom::Dev(dev)) = it.next() else {
        return None;
    };
    let local = match it.next() {
        Some(Atom::Local(l)) => l.clone(),
        _ => return None,
    };
    let pre = match pre {
        PreSlot::Pre(kind, number) => Some(Prerelease {
            kind: *kind,
            number: *number,
        }),
        _ => None,
    };
    let dev = match dev {
        DevSlot::Num(n) => Some(*n),
        DevSlot::None => None,
    };
    // (Each `with_` builds the version again: only the parts that are there.)
    let mut v = Version::new(release);
    if *epoch != 0 {
        v = v.with_epoch(*epoch);
    }
    if pre.is_some() {
        v = v.with_pre(pre);
    }
    if post.is_some() {
        v = v.with_post(*post);
    }
    if dev.is_some() {
        v = v.with_dev(dev);
    }
    if !local.is_empty() {
        v = v.with_local(local);
    }
    // The key must round-trip; a slot combination no version has (never built here) is refused.
    (version_atoms(&v) == atoms).then_some(v)
}

impl fmt::Display for Cut {
    /// A cut just below a block with a least point is written as that point (`3.12.dev0`); a cut
    /// just above a complete release `R` as `R.post∞` (above every post-release and local label of
    /// `R`, below `R.0.1`); a cut just above a local version as that version. [`Cut::BOTTOM`] is
    /// `⊥`, the cut between the absent value and the versions `-∞`, [`Cut::TOP`] `+∞`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.atoms.is_none() {
            return f.write_str(if self.side == Side::Below {
                "⊥"
            } else {
                "+∞"
            });
        }
        if self.atoms() == [Atom::Sec(1)] && self.side == Side::Below {
            return f.write_str("-∞");
        }
        if let Some(Point::Version(v)) = self.least_point_above() {
            return write!(f, "{v}");
        }
        match self.atoms().split_last() {
            Some((Atom::RelEnd, ctx)) => {
                let mut atoms = ctx.to_vec();
                atoms.push(Atom::RelEnd);
                atoms.push(Atom::Pre(PreSlot::Final));
                atoms.push(Atom::Post(None));
                atoms.push(Atom::Dev(DevSlot::None));
                atoms.push(Atom::Local(Vec::new()));
                match atoms_to_version(&atoms) {
                    Some(v) => write!(f, "{v}.post∞"),
                    None => write!(f, "{:?}", self.atoms()),
                }
            }
            _ => match atoms_to_version(self.atoms()) {
                Some(v) => write!(f, "{v}"),
                None => write!(f, "{:?}", self.atoms()),
            },
        }
    }
}

impl fmt::Debug for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = if self.side == Side::Below {
            "below"
        } else {
            "above"
        };
        write!(f, "Cut({side} {self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap_or_else(|_| Version::new([0]))
    }

    /// Only the cut just above a version without a local label, below that version's local
    /// labels, ends a point of the version alone; every specifier's cut around it is another
    /// (`<= "13"` takes 13's local labels, `< "13"` stops below its pre-releases).
    #[test]
    fn points_of_public_versions_end_above_them() {
        for text in ["13", "3.12.1", "13rc1", "1!9", "3.12.post1"] {
            let above = Cut::above(&v(text));
            assert!(above.is_above_public_point(), "{text}");
            assert_eq!(above.public_point_below(), Some(v(text)), "{text}");
        }
        let local = Cut::above(&v("13+abc"));
        let others = [
            Cut::below(&v("13")),
            local,
            Cut::below(&v("13+abc")),
            Cut::below(&v("13.post0.dev0")),
            Cut::below(&v("13.dev0")),
            Cut::versions_start(),
            Cut::BOTTOM,
            Cut::TOP,
        ];
        for c in &others {
            assert!(!c.is_above_public_point(), "{c:?}");
            assert_eq!(c.public_point_below(), None, "{c:?}");
        }
    }

    /// The versions a cut names: the completed prefix, then each prefix of the release (to
    /// two numbers at least) and, where its last number is not 0, the one below it; equal
    /// versions once, in order; the epoch kept.
    #[test]
    fn cuts_name_their_releases_and_the_ones_below() {
        let names = |c: &Cut| -> Vec<String> {
            c.candidate_versions()
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            names(&Cut::below(&v("3.12.dev0"))),
            ["2", "3", "3.11", "3.12.dev0", "3.12"]
        );
        assert_eq!(
            names(&Cut::below(&v("3.9.1.dev0"))),
            ["2", "3", "3.8", "3.9", "3.9.1.dev0", "3.9.1"]
        );
        assert_eq!(names(&Cut::below(&v("3.0.dev0"))), ["2", "3.dev0", "3"]);
        assert_eq!(
            names(&Cut::below(&v("1!2.5.dev0"))),
            ["1!1", "1!2", "1!2.4", "1!2.5.dev0", "1!2.5"]
        );
    }

    #[test]
    fn a_block_after_a_zero_starts_right_after_the_shorter_release() {
        // Below(1, 0, …) names the same gap as "above every version of release 1".
        let below_zero = Cut::new(prefix_atoms(0, &[1, 0]), Side::Below);
        let mut atoms = base_atoms(0, &[1]);
        atoms.push(Atom::RelEnd);
        let above_release = Cut::new(atoms, Side::Above);
        assert_eq!(below_zero, above_release);
        assert_eq!(below_zero.to_string(), "1.post∞");
        // A second zero changes nothing: Below(1, 0, 0) is Below(1, 0).
        assert_eq!(
            Cut::new(prefix_atoms(0, &[1, 0, 0]), Side::Below),
            below_zero
        );
        // Release 0 of epoch 0: right after every version `0…`.
        assert_eq!(
            Cut::new(prefix_atoms(0, &[0]), Side::Below).to_string(),
            "0.post∞"
        );
    }

    #[test]
    fn extreme_numbers_normalise_without_overflow() {
        let max = u64::MAX;
        let top_release = Cut::new(prefix_atoms(max, &[max]), Side::Above);
        assert_eq!(top_release, Cut::TOP);
        let mut atoms = base_atoms(0, &[1]);
        atoms.push(Atom::RelEnd);
        atoms.push(Atom::Pre(PreSlot::Pre(PrereleaseKind::Rc, max)));
        // Past every `1rcMAX` variant (post-releases included) comes the final release 1.
        assert_eq!(Cut::new(atoms, Side::Above), Cut::below(&v("1")));
        // Past `1rcMAX` itself come its post-releases.
        let after_rc_max = Cut::new(public_atoms(&v(&format!("1rc{max}"))), Side::Above);
        assert_eq!(
            after_rc_max,
            Cut::below(&v(&format!("1rc{max}.post0.dev0")))
        );
        let after_dev_max = Cut::new(public_atoms(&v(&format!("1a0.dev{max}"))), Side::Above);
        assert_eq!(after_dev_max, Cut::below(&v("1a0")));
        assert_eq!(
            Cut::new(vec![Atom::Sec(0)], Side::Above),
            Cut::versions_start()
        );
        assert_eq!(Cut::new(vec![Atom::Sec(0)], Side::Below), Cut::BOTTOM);
    }

    #[test]
    fn witnesses_above_cuts_without_a_least_point() {
        let lo = Cut::above(&v("1.0+abc"));
        let hi = Cut::below(&v("1.0+abc.a"));
        let Some(Point::Version(w)) = lo.point_between(&hi) else {
            unreachable!("a label lies between")
        };
        assert!(w > v("1.0+abc") && w < v("1.0+abc.a"), "{w}");
        let lo = Cut::new(prefix_atoms(0, &[1, 0]), Side::Below);
        let hi = Cut::below(&v("1.0.0.0.1"));
        let Some(Point::Version(w)) = lo.point_between(&hi) else {
            unreachable!("1.0.0.0.0.1 lies between")
        };
        assert!(w > v("1.post99") && w < v("1.0.0.0.1"), "{w}");
        assert_eq!(hi.point_between(&lo), None);
    }
}
