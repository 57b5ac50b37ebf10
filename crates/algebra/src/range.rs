//! [`VersionSet`]: finite unions of intervals between cuts, and the exact conversion of PEP 440
//! specifiers into them.

use std::fmt;

use markerspec_pep440::{Operator, Version, VersionSpecifier};

use crate::cut::{
    Atom, Cut, DevSlot, Point, PreSlot, Side, base_atoms, prefix_atoms, public_atoms, version_atoms,
};

/// A set of points of the version domain (the absent value and every PEP 440 version): a
/// finite union of disjoint, non-adjacent half-open intervals `[lo, hi)` between [`Cut`]s.
///
/// Because cuts are normalised, two sets are equal exactly when they contain the same points.
///
/// ```
/// use markerspec_algebra::{Cut, Point, VersionSet};
/// use markerspec_pep440::Version;
///
/// let lt = VersionSet::from_specifier(&"<3.12".parse()?).expect("not ===");
/// assert!(lt.contains(&Point::Version("3.11.9".parse()?)));
/// assert!(!lt.contains(&Point::Version("3.12.0rc1".parse()?))); // `<V` excludes V's pre-releases
/// assert!(!lt.contains(&Point::Absent));
/// let ge = VersionSet::from_specifier(&">=3.12".parse()?).expect("not ===");
/// // `<3.12` and `>=3.12` are not complements: neither holds on 3.12.0rc1.
/// assert_ne!(lt.complement(), ge.union(&VersionSet::absent()));
///
/// // The constants, and sets between two cuts.
/// assert!(VersionSet::empty().is_empty() && VersionSet::full().is_full());
/// assert_eq!(VersionSet::versions().union(&VersionSet::absent()), VersionSet::full());
/// let v: Version = "3.12".parse()?;
/// let just_v = VersionSet::interval(Cut::below(&v), Cut::above(&v));
/// assert!(just_v.contains(&Point::Version("3.12.0".parse()?)));
/// assert_eq!(just_v.intersection(&lt), VersionSet::empty());
/// assert_eq!(lt.intervals().count(), 1);
/// // Among release-only versions, `>3.12rc1` and `>=3.12` are the same set.
/// let after_rc = VersionSet::from_specifier(&">3.12rc1".parse()?).expect("not ===");
/// assert_ne!(after_rc, ge);
/// assert_eq!(after_rc.release_only(), ge.release_only());
/// # Ok::<(), markerspec_pep440::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct VersionSet {
    /// Strictly increasing; the set is `[b0, b1) ∪ [b2, b3) ∪ …`.
    bounds: Vec<Cut>,
}

impl VersionSet {
    /// The empty set.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn empty() -> VersionSet {
        VersionSet { bounds: Vec::new() }
    }

    /// Every point: every version and the absent value.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn full() -> VersionSet {
        VersionSet {
            bounds: vec![Cut::BOTTOM, Cut::TOP],
        }
    }

    /// The absent value alone.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn absent() -> VersionSet {
        VersionSet {
            bounds: vec![Cut::BOTTOM, Cut::versions_start()],
        }
    }

    /// Every version, without the absent value.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn versions() -> VersionSet {
        VersionSet {
            bounds: vec![Cut::versions_start(), Cut::TOP],
        }
    }

    /// The points `p` with `lo < p < hi` (empty when `lo >= hi`).
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn interval(lo: Cut, hi: Cut) -> VersionSet {
        if lo < hi {
            VersionSet {
                bounds: vec![lo, hi],
            }
        } else {
            VersionSet::empty()
        }
    }

    /// Exactly the points `f op spec` accepts when a marker compares a version field `f` with a
    /// specifier, as `VersionSpecifier::contains_with(v, Some(true))` (pre-releases allowed);
    /// never the absent value. `None` for `===`, whose meaning depends on the text of the value
    /// and is no union of intervals (`===3.12` holds on `3.12`, not on `3.12.0`, which PEP 440
    /// orders as the same point): the caller models it as a separate atom.
    ///
    /// ```
    /// use markerspec_algebra::{Point, VersionSet};
    ///
    /// let gt = VersionSet::from_specifier(&">3.12".parse()?).expect("not ===");
    /// assert!(!gt.contains(&Point::Version("3.12.post1".parse()?)));
    /// assert!(!gt.contains(&Point::Version("3.12+local".parse()?)));
    /// assert!(gt.contains(&Point::Version("3.12.0.1".parse()?)));
    /// let star = VersionSet::from_specifier(&"==3.12.*".parse()?).expect("not ===");
    /// assert!(star.contains(&Point::Version("3.12.0rc1".parse()?)));
    /// assert!(!star.contains(&Point::Version("3.13.dev0".parse()?)));
    /// assert!(VersionSet::from_specifier(&"===3.12".parse()?).is_none());
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    #[must_use]
    pub fn from_specifier(spec: &VersionSpecifier) -> Option<VersionSet> {
        VersionSet::from_comparison(spec.operator(), spec.version())
    }

    /// [`from_specifier`](Self::from_specifier) of the specifier `op v` (`op` a wildcard
    /// operator for `v.*`), for a caller that has the version and not the specifier's text.
    /// Any operator and version are read as written: whether they make a valid specifier
    /// (a local label only with `==` and `!=`, for one) is the caller's to check.
    pub(crate) fn from_comparison(op: Operator, v: &Version) -> Option<VersionSet> {
        let set = match op {
            Operator::ExactEqual => return None,
            Operator::Equal => equal(v),
            Operator::NotEqual => complement_in_versions(&equal(v)),
            Operator::EqualStar => wildcard(v.epoch(), v.release()),
            Operator::NotEqualStar => complement_in_versions(&wildcard(v.epoch(), v.release())),
            Operator::TildeEqual => {
                let prefix = v.release().split_last().map_or(&[][..], |(_, p)| p);
                if prefix.is_empty() {
                    VersionSet::empty()
                } else {
                    VersionSet::interval(
                        Cut::below(v),
                        Cut::new(prefix_atoms(v.epoch(), prefix), Side::Above),
                    )
                }
            }
            Operator::LessThan => {
                let end = if v.is_prerelease() {
                    Cut::below(v)
                } else {
                    // `<V` is `<V.dev0`: no pre- or dev-release of a final V.
                    Cut::below(&v.without_local().with_dev(Some(0)))
                };
                VersionSet::interval(Cut::versions_start(), end)
            }
            Operator::LessThanEqual => VersionSet::interval(
                Cut::versions_start(),
                Cut::new(public_atoms(v), Side::Above),
            ),
            Operator::GreaterThan => {
                let start = if v.dev().is_some() || v.post().is_some() {
                    Cut::new(public_atoms(v), Side::Above)
                } else {
                    // Past every version sharing V's release and pre-release: its
                    // post-releases and local labels are not "greater".
                    let mut atoms = base_atoms(v.epoch(), v.release());
                    atoms.push(Atom::RelEnd);
                    atoms.push(Atom::Pre(match v.pre() {
                        Some(p) => PreSlot::Pre(p.kind, p.number),
                        None => PreSlot::Final,
                    }));
                    Cut::new(atoms, Side::Above)
                };
                VersionSet::interval(start, Cut::TOP)
            }
            Operator::GreaterThanEqual => VersionSet::interval(Cut::below(v), Cut::TOP),
        };
        Some(set)
    }

    /// The `python_full_version` values whose `python_version` satisfies `spec`: exactly the
    /// versions `v` for which `spec` contains `E!X.Y`, where `E` is `v`'s epoch and `X.Y` its
    /// first two release numbers (zero-padded), as `python_version` is derived from
    /// `python_full_version` (`3.13.0rc1` has `python_version` `3.13`). Pre-, post-, dev-releases
    /// and local labels of the full version are kept, never dropped. `None` for `===`.
    ///
    /// ```
    /// use markerspec_algebra::{Point, VersionSet};
    ///
    /// let set = VersionSet::python_version_preimage(&">=3.13".parse()?).expect("not ===");
    /// // `python_version >= "3.13"` holds on a 3.13 release candidate, whose python_version is
    /// // "3.13", while `python_full_version >= "3.13"` does not.
    /// assert!(set.contains(&Point::Version("3.13.0rc1".parse()?)));
    /// assert!(!set.contains(&Point::Version("3.12.99".parse()?)));
    /// let gt = VersionSet::python_version_preimage(&">3.12".parse()?).expect("not ===");
    /// assert_eq!(gt, set);
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    #[must_use]
    pub fn python_version_preimage(spec: &VersionSpecifier) -> Option<VersionSet> {
        VersionSet::python_version_preimage_of(spec.operator(), spec.version())
    }

    /// [`python_version_preimage`](Self::python_version_preimage) of the specifier `op v`, as
    /// [`from_comparison`](Self::from_comparison) reads it.
    pub(crate) fn python_version_preimage_of(op: Operator, v: &Version) -> Option<VersionSet> {
        if let Some(set) = pair_preimage_by_blocks(op, v) {
            return Some(set);
        }
        VersionSet::python_version_preimage_of_set(op, v)
    }

    /// [`python_version_preimage_of`](Self::python_version_preimage_of) read off the
    /// specifier's own set, for any specifier.
    fn python_version_preimage_of_set(op: Operator, v: &Version) -> Option<VersionSet> {
        let set = VersionSet::from_comparison(op, v)?;
        // Each interval's image, in order: the image of a cut (the start of the least block
        // above it) never goes down as the cut goes up, so the images come sorted, and one
        // that starts where the one before ends continues it.
        let mut bounds: Vec<Cut> = Vec::with_capacity(set.bounds.len());
        for (lo, hi) in set.intervals() {
            let Some(first) = least_pair_above(lo) else {
                continue;
            };
            let start = pair_block_start(first);
            let end = match least_pair_above(hi) {
                Some(next) => pair_block_start(next),
                None => Cut::TOP,
            };
            if start >= end {
                continue;
            }
            match bounds.last() {
                Some(last) if *last == start => {
                    bounds.pop();
                }
                Some(last) if *last > start => {
                    // (Never, by the order above; a union keeps it exact regardless.)
                    let out = VersionSet { bounds }.union(&VersionSet::interval(start, end));
                    bounds = out.bounds;
                    continue;
                }
                _ => bounds.push(start),
            }
            bounds.push(end);
        }
        Some(VersionSet { bounds })
    }

    /// Whether `point` is in the set.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn contains(&self, point: &Point) -> bool {
        // The number of bounds below the point; odd means inside.
        let below = self.bounds.partition_point(|c| c.is_below(point));
        below % 2 == 1
    }

    /// Whether the set is empty.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Whether the set holds every point.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.bounds.len() == 2
            && self.bounds.first() == Some(&Cut::BOTTOM)
            && self.bounds.last() == Some(&Cut::TOP)
    }

    /// This set with the absent value added (its union with [`VersionSet::absent`]), without
    /// building that set: the absent value is the one point below
    /// [`Cut::versions_start`], so a set starting there now starts at the bottom.
    pub(crate) fn with_absent(mut self) -> VersionSet {
        match self.bounds.first() {
            Some(c) if *c == Cut::BOTTOM => {}
            Some(c) if c.is_versions_start() => {
                if let Some(first) = self.bounds.first_mut() {
                    *first = Cut::BOTTOM;
                }
            }
            _ => {
                self.bounds
                    .splice(0..0, [Cut::BOTTOM, Cut::versions_start()]);
            }
        }
        self
    }

    /// The intervals `(lo, hi)`, in increasing order.
    ///
    /// See the example on [`VersionSet`].
    pub fn intervals(&self) -> impl Iterator<Item = (&Cut, &Cut)> {
        self.bounds.chunks_exact(2).filter_map(|c| match c {
            [a, b] => Some((a, b)),
            _ => None,
        })
    }

    /// Every point not in the set.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn complement(&self) -> VersionSet {
        let mut bounds = Vec::with_capacity(self.bounds.len() + 2);
        if self.bounds.first() != Some(&Cut::BOTTOM) {
            bounds.push(Cut::BOTTOM);
        }
        bounds.extend(
            self.bounds
                .iter()
                .filter(|c| **c != Cut::BOTTOM && **c != Cut::TOP)
                .cloned(),
        );
        if self.bounds.last() != Some(&Cut::TOP) {
            bounds.push(Cut::TOP);
        }
        VersionSet { bounds }
    }

    /// The points in both sets.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn intersection(&self, other: &VersionSet) -> VersionSet {
        self.combine(other, |a, b| a && b)
    }

    /// The points in either set.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn union(&self, other: &VersionSet) -> VersionSet {
        self.combine(other, |a, b| a || b)
    }

    /// Sweeps both boundary lists, emitting a bound wherever `op` of the two memberships changes.
    fn combine(&self, other: &VersionSet, op: impl Fn(bool, bool) -> bool) -> VersionSet {
        let (mut i, mut j) = (0, 0);
        let (mut in_a, mut in_b) = (false, false);
        let mut inside = op(false, false);
        let mut bounds = Vec::new();
        if inside {
            bounds.push(Cut::BOTTOM);
        }
        loop {
            let cut = match (self.bounds.get(i), other.bounds.get(j)) {
                (None, None) => break,
                (Some(a), None) => {
                    i += 1;
                    in_a = !in_a;
                    a
                }
                (None, Some(b)) => {
                    j += 1;
                    in_b = !in_b;
                    b
                }
                (Some(a), Some(b)) => match a.cmp(b) {
                    std::cmp::Ordering::Less => {
                        i += 1;
                        in_a = !in_a;
                        a
                    }
                    std::cmp::Ordering::Greater => {
                        j += 1;
                        in_b = !in_b;
                        b
                    }
                    std::cmp::Ordering::Equal => {
                        i += 1;
                        j += 1;
                        in_a = !in_a;
                        in_b = !in_b;
                        a
                    }
                },
            };
            let now = op(in_a, in_b);
            if now != inside {
                if bounds.last() == Some(cut) {
                    bounds.pop();
                } else {
                    bounds.push(cut.clone());
                }
                inside = now;
            }
        }
        if inside {
            bounds.push(Cut::TOP);
        }
        VersionSet { bounds }
    }

    /// A point of the set, the least one where there is one; `None` for the empty set.
    ///
    /// ```
    /// use markerspec_algebra::{Point, VersionSet};
    ///
    /// let set = VersionSet::from_specifier(&">3.12".parse()?).expect("not ===");
    /// let Some(Point::Version(v)) = set.witness() else { panic!() };
    /// assert!(set.contains(&Point::Version(v)));
    /// # Ok::<(), markerspec_pep440::Error>(())
    /// ```
    #[must_use]
    pub fn witness(&self) -> Option<Point> {
        self.intervals().find_map(|(lo, hi)| lo.point_between(hi))
    }

    /// The set with every cut moved to its place among the release-only versions
    /// (`Cut::release_only`): the one set that holds the same release-only versions (and the
    /// same absent value) as `self` and is a union of whole release blocks. Two sets with the
    /// same release-only points give the same result, which makes diagrams over an extended
    /// `Version` field (SPEC §4.3) canonical on that field's domain.
    ///
    /// See the example on [`VersionSet`].
    #[must_use]
    pub fn release_only(&self) -> VersionSet {
        let mut bounds: Vec<Cut> = Vec::with_capacity(self.bounds.len());
        for c in &self.bounds {
            let c = c.release_only();
            if bounds.last() == Some(&c) {
                bounds.pop();
            } else {
                bounds.push(c);
            }
        }
        VersionSet { bounds }
    }

    /// The union of intervals `lo < p < hi` given in increasing order, not overlapping (each
    /// `lo` at or above the previous `hi`): their bounds side by side, touching ones merged,
    /// empty ones left out — the same set as their [`union`](Self::union), without a sweep
    /// per interval.
    pub(crate) fn from_increasing_intervals<'a>(
        intervals: impl IntoIterator<Item = (&'a Cut, &'a Cut)>,
    ) -> VersionSet {
        let mut bounds: Vec<Cut> = Vec::new();
        for (lo, hi) in intervals {
            if lo >= hi {
                continue;
            }
            if bounds.last() == Some(lo) {
                bounds.pop();
            } else {
                bounds.push(lo.clone());
            }
            bounds.push(hi.clone());
        }
        VersionSet { bounds }
    }

    /// The same set with each cut given to `f` to replace in place by an equal one (an
    /// interned copy).
    pub(crate) fn with_cuts(mut self, f: impl FnMut(&mut Cut)) -> VersionSet {
        self.bounds.iter_mut().for_each(f);
        self
    }

    /// Whether the set is [`VersionSet::absent`] (without building it).
    pub(crate) fn is_absent(&self) -> bool {
        matches!(&self.bounds[..], [lo, hi] if *lo == Cut::BOTTOM && hi.is_versions_start())
    }

    pub(crate) fn bounds(&self) -> &[Cut] {
        &self.bounds
    }
}

/// `(epoch, X, Y)`: the version `epoch!X.Y`, the `python_version` of a full version.
type Pair = (u64, u64, u64);

/// The key of the version `epoch!X.Y` (`version_atoms` of it, built without the version and
/// without allocating): the first `len` atoms of the array.
fn pair_key((e, x, y): Pair) -> ([Atom; 9], usize) {
    let mut key = [
        Atom::Sec(1),
        Atom::Num(e),
        Atom::Num(x),
        Atom::Num(y),
        Atom::RelEnd,
        Atom::Pre(PreSlot::Final),
        Atom::Post(None),
        Atom::Dev(DevSlot::None),
        Atom::Local(Vec::new()),
    ];
    // The release with its trailing zeros trimmed, as `base_atoms` writes it: the atoms after
    // it move left over the numbers dropped.
    let kept = if y != 0 { 2 } else { usize::from(x != 0) };
    if let Some(after) = key.get_mut(2 + kept..) {
        after.rotate_left(2 - kept);
    }
    (key, 7 + kept)
}

/// Whether `cut` can bound a set of `python_full_version`s made from `python_version`
/// ([`VersionSet::python_version_preimage`], with or without the absent value): the start of
/// every full version with one `python_version`, or an end of the whole domain or of the
/// absent value. A set with any other cut is no comparison of `python_version`.
pub(crate) fn bounds_python_versions(cut: &Cut) -> bool {
    *cut == Cut::BOTTOM
        || *cut == Cut::TOP
        || cut.is_versions_start()
        || *cut == pair_block_start(cut.epoch_and_release2())
}

/// Just below every full version whose `python_version` is `pair`.
fn pair_block_start((e, x, y): Pair) -> Cut {
    Cut::block_start(e, &[x, y])
}

/// [`VersionSet::python_version_preimage`] written straight from the blocks it names, for a
/// literal of epoch 0 without a local label compared with `==`, `!=`, `<`, `<=`, `>` or `>=`,
/// or a wildcard with `==` or `!=`: the same bounds as reading the specifier's own set
/// (`python_version_preimage_of_set`; `pair_preimages_read_as_their_sets` checks it), without
/// building that set and finding the least pair above each of its cuts. `None` for any other
/// specifier, and where a block has no next one (`X.MAX`).
///
/// A `python_version` is a final release `X.Y`, so every comparison of it is the plain order
/// of versions (no pre-, post-release or local label of the literal is a `python_version`):
/// with `P` the pair `X.Y` of the literal's first two numbers and `N` the next one (`X.Y+1`),
/// the least pair at or above the literal is `P` when `P` is not below it, else `N`; the least
/// pair above it is `P` when `P` is above it, else `N`. With `B(p)` the start of the block of
/// `p`, `>= v` is `[B(least at or above), +∞)`, `> v` is `[B(least above), +∞)`, `< v` and
/// `<= v` end where those start (from `B(0.0)`, where the versions start), `== v` is the block
/// of `P` when `P` equals the literal (else nothing), and `!= v` the pairs around it. A
/// wildcard `X.*` names the pairs `X.0` up to `X+1.0`, `X.Y.*` (or `X.Y.0….*`) the pair `X.Y`,
/// and a prefix with another number past the second none.
fn pair_preimage_by_blocks(op: Operator, v: &Version) -> Option<VersionSet> {
    if v.epoch() != 0 || !v.local().is_empty() {
        return None;
    }
    let release = v.release();
    let x = release.first().copied().unwrap_or(0);
    let y = release.get(1).copied().unwrap_or(0);
    let first = || pair_block_start((0, 0, 0));
    // The pairs from `a` up to `b` (`None`: to the top).
    let blocks = |a: Pair, b: Option<Pair>| -> Vec<Cut> {
        vec![pair_block_start(a), b.map_or(Cut::TOP, pair_block_start)]
    };
    // The pairs below `a`.
    let below = |a: Pair| -> Vec<Cut> {
        let (first, at) = (first(), pair_block_start(a));
        if first < at {
            vec![first, at]
        } else {
            Vec::new()
        }
    };
    // The pairs outside `[a, b)`.
    let around = |a: Pair, b: Pair| -> Vec<Cut> {
        let mut out = below(a);
        out.extend([pair_block_start(b), Cut::TOP]);
        out
    };
    if matches!(op, Operator::EqualStar | Operator::NotEqualStar) {
        if v.pre().is_some() || v.post().is_some() || v.dev().is_some() {
            return None;
        }
        // The pairs the prefix names, `[a, b)`, or none.
        let named = match release {
            [] => return None,
            [_] => Some(((0, x, 0), (0, x.checked_add(1)?, 0))),
            [_, _, rest @ ..] => rest
                .iter()
                .all(|&n| n == 0)
                .then_some(((0, x, y), (0, x, y.checked_add(1)?))),
        };
        let bounds = match (op, named) {
            (Operator::EqualStar, Some((a, b))) => blocks(a, Some(b)),
            (Operator::EqualStar, None) => Vec::new(),
            (_, Some((a, b))) => around(a, b),
            (_, None) => blocks((0, 0, 0), None),
        };
        return Some(VersionSet { bounds });
    }
    let p = (0, x, y);
    let n = (0, x, y.checked_add(1)?);
    let order = Version::new([x, y]).cmp(v);
    let at_or_above = if order == std::cmp::Ordering::Less {
        n
    } else {
        p
    };
    let above = if order == std::cmp::Ordering::Greater {
        p
    } else {
        n
    };
    let bounds = match op {
        Operator::GreaterThanEqual => blocks(at_or_above, None),
        Operator::GreaterThan => blocks(above, None),
        Operator::LessThan => below(at_or_above),
        Operator::LessThanEqual => below(above),
        Operator::Equal if order == std::cmp::Ordering::Equal => blocks(p, Some(n)),
        Operator::Equal => Vec::new(),
        Operator::NotEqual if order == std::cmp::Ordering::Equal => around(p, n),
        Operator::NotEqual => blocks((0, 0, 0), None),
        _ => return None,
    };
    Some(VersionSet { bounds })
}

/// The least `epoch!X.Y` above `cut`; `None` when there is none.
fn least_pair_above(cut: &Cut) -> Option<Pair> {
    let (e, r1, r2) = cut.epoch_and_release2();
    let candidates = [
        Some((e, r1, r2)),
        r2.checked_add(1).map(|y| (e, r1, y)),
        r1.checked_add(1).map(|x| (e, x, 0)),
        e.checked_add(1).map(|e| (e, 0, 0)),
    ];
    candidates
        .into_iter()
        .flatten()
        // `p` lies above the cut (`Cut::is_below`).
        .find(|&p| {
            let (key, len) = pair_key(p);
            cut.cmp_atoms(key.get(..len).unwrap_or(&key)) == std::cmp::Ordering::Less
        })
}

/// `==V`: without a local label, V with any local label; with one, exactly V.
fn equal(v: &Version) -> VersionSet {
    // (The key built once for both cuts.)
    let atoms = if v.local().is_empty() {
        public_atoms(v)
    } else {
        version_atoms(v)
    };
    VersionSet::interval(
        Cut::new(atoms.clone(), Side::Below),
        Cut::new(atoms, Side::Above),
    )
}

/// `==P.*`: from the first version whose zero-padded release starts with P, to just after
/// the last one.
fn wildcard(epoch: u64, release: &[u64]) -> VersionSet {
    VersionSet::interval(
        Cut::new(base_atoms(epoch, release), Side::Below),
        Cut::new(prefix_atoms(epoch, release), Side::Above),
    )
}

/// The versions (not the absent value) outside `set`.
fn complement_in_versions(set: &VersionSet) -> VersionSet {
    // The usual set, one interval of versions (`==`'s, a wildcard's): the versions below it
    // and above it, written at once.
    if let [lo, hi] = set.bounds.as_slice() {
        if *lo != Cut::BOTTOM {
            let start = Cut::versions_start();
            let mut bounds = Vec::with_capacity(4);
            if *lo != start {
                bounds.push(start);
                bounds.push(lo.clone());
            }
            if *hi != Cut::TOP {
                bounds.push(hi.clone());
                bounds.push(Cut::TOP);
            }
            return VersionSet { bounds };
        }
    }
    set.complement().intersection(&VersionSet::versions())
}

impl fmt::Display for VersionSet {
    /// Intervals in PEP 440 order, `[a, b)` including the least point `a` and excluding `b`,
    /// `(a, b]` for cuts just above a point (see [`Cut`]'s `Display`), joined by ` ∪ `; the absent
    /// value is `""`; the empty set `∅`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bounds.is_empty() {
            return f.write_str("∅");
        }
        let mut first = true;
        for (lo, hi) in self.intervals() {
            if !first {
                f.write_str(" ∪ ")?;
            }
            first = false;
            let mut lo = lo.clone();
            if lo == Cut::BOTTOM {
                f.write_str("\"\"")?;
                if *hi == Cut::versions_start() {
                    continue;
                }
                f.write_str(" ∪ ")?;
                lo = Cut::versions_start();
            }
            let open = if lo.is_below_side() && lo != Cut::versions_start() {
                "["
            } else {
                "("
            };
            let close = if hi.is_below_side() || *hi == Cut::TOP {
                ")"
            } else {
                "]"
            };
            write!(f, "{open}{lo}, {hi}{close}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for VersionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionSet({self})")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The empty, full, absent and versions sets.
    fn constant_sets() -> Vec<VersionSet> {
        vec![
            VersionSet::empty(),
            VersionSet::full(),
            VersionSet::absent(),
            VersionSet::versions(),
        ]
    }

    /// Adding the absent value to a set is its union with the absent set: the sets of every
    /// comparison of the edge versions, their complements (which hold it already), and the
    /// empty, full, absent and versions sets.
    #[test]
    fn adding_the_absent_value_is_the_union_with_it() {
        let mut sets = constant_sets();
        for v in edge_versions() {
            for op in ["==", "!=", "<", "<=", ">", ">="] {
                // (A local label only with `==` and `!=`.)
                let Ok(spec) = format!("{op}{v}").parse::<VersionSpecifier>() else {
                    continue;
                };
                if let Some(set) = VersionSet::from_specifier(&spec) {
                    sets.push(set.complement());
                    sets.push(set);
                }
            }
        }
        assert!(sets.len() > 100, "{}", sets.len());
        for set in sets {
            let want = set.union(&VersionSet::absent());
            assert_eq!(set.clone().with_absent(), want, "{set}");
        }
    }

    /// The versions outside a set, written at once for one interval of versions, are its
    /// complement within the versions: for the sets of `==` and of the wildcards of the edge
    /// versions, the intervals between their cuts, and sets of other shapes.
    #[test]
    fn the_versions_outside_a_set_are_its_complement_within_them() {
        let mut sets = constant_sets();
        for v in edge_versions() {
            let Ok(v) = v.parse::<Version>() else {
                continue;
            };
            let point = equal(&v);
            let block = wildcard(v.epoch(), v.release());
            for set in [point, block] {
                let cuts: Vec<Cut> = [Cut::versions_start(), Cut::TOP]
                    .into_iter()
                    .chain(set.bounds().iter().cloned())
                    .collect();
                for lo in &cuts {
                    for hi in &cuts {
                        sets.push(VersionSet::interval(lo.clone(), hi.clone()));
                    }
                }
                sets.push(set.clone().with_absent());
                sets.push(set.complement());
                sets.push(set);
            }
        }
        assert!(sets.len() > 500, "{}", sets.len());
        for set in sets {
            let want = set.complement().intersection(&VersionSet::versions());
            assert_eq!(complement_in_versions(&set), want, "{set}");
        }
    }

    /// Versions at the edges of python versions' blocks and of the numbers: a release of one,
    /// two and three numbers, pre-, post- and dev-releases, a local label, an epoch, and
    /// `u64::MAX` in each place.
    pub(crate) fn edge_versions() -> Vec<String> {
        let max = u64::MAX;
        vec![
            "0".to_owned(),
            "0.dev0".into(),
            "3".into(),
            "3.0".into(),
            "3.9".into(),
            "3.9.1".into(),
            "3.9.0rc1".into(),
            "3.9.post2".into(),
            "3.9.dev3".into(),
            "3.9+local".into(),
            "1!3.9".into(),
            format!("{max}"),
            format!("3.{max}"),
            format!("{max}.{max}.1"),
            format!("{max}!{max}.{max}"),
        ]
    }

    /// Every cut of a `python_version` comparison's set bounds python versions, and the
    /// cuts of full versions with a third release number or a pre-release do not.
    #[test]
    fn python_version_sets_are_bounded_by_python_versions() -> Result<(), markerspec_pep440::Error>
    {
        use crate::translate::spec_version_set;
        use markerspec_pep508::{Field, MarkerOperator as O};
        let mut checked = 0;
        for v in &edge_versions() {
            for op in [
                O::Equal,
                O::NotEqual,
                O::LessThan,
                O::LessThanEqual,
                O::GreaterThan,
                O::GreaterThanEqual,
            ] {
                for lit in [v.clone(), format!("{v}.*")] {
                    if let Some(set) = spec_version_set(Field::PythonVersion, op, &lit) {
                        checked += 1;
                        assert!(
                            set.bounds().iter().all(bounds_python_versions),
                            "{op} {lit}"
                        );
                    }
                }
            }
        }
        assert!(checked > 50, "{checked}");
        // (Below `3.9.dev0`, the least full version of `3.9`, is where `3.9` starts.)
        assert!(bounds_python_versions(&Cut::below(&"3.9.dev0".parse()?)));
        for v in ["3.9.1", "3.9.0rc1", "3.9.1.dev0", "3.9.post1", "3.9+local"] {
            let v: Version = v.parse()?;
            assert!(!bounds_python_versions(&Cut::below(&v)), "{v}");
            assert!(!bounds_python_versions(&Cut::above(&v)), "{v}");
        }
        assert!(bounds_python_versions(&Cut::versions_start()));
        Ok(())
    }

    /// The preimage built interval by interval is the union of the intervals' images, for
    /// every operator with versions at block edges, pre-, post- and dev-releases, epochs,
    /// local labels, wildcards and the largest numbers.
    #[test]
    fn preimage_is_the_union_of_the_intervals_images() {
        let union_of_images = |spec: &VersionSpecifier| -> Option<VersionSet> {
            let set = VersionSet::from_specifier(spec)?;
            let mut out = VersionSet::empty();
            for (lo, hi) in set.intervals() {
                let Some(first) = least_pair_above(lo) else {
                    continue;
                };
                let end = least_pair_above(hi).map_or(Cut::TOP, pair_block_start);
                out = out.union(&VersionSet::interval(pair_block_start(first), end));
            }
            Some(out)
        };
        let mut checked = 0;
        for v in &edge_versions() {
            for op in ["==", "!=", "<", "<=", ">", ">=", "~=", "===", "==*", "!=*"] {
                let text = match op {
                    "==*" => format!("=={v}.*"),
                    "!=*" => format!("!={v}.*"),
                    _ => format!("{op}{v}"),
                };
                let Ok(spec) = text.parse::<VersionSpecifier>() else {
                    continue;
                };
                checked += 1;
                assert_eq!(
                    VersionSet::python_version_preimage(&spec),
                    union_of_images(&spec),
                    "{text}"
                );
            }
        }
        assert!(checked > 100, "{checked}");
    }

    /// `is_absent` says whether a set is `absent()`, and only that set.
    #[test]
    fn is_absent_is_the_absent_set() -> Result<(), markerspec_pep440::Error> {
        assert!(VersionSet::absent().is_absent());
        let v: Version = "0".parse()?;
        for other in [
            VersionSet::empty(),
            VersionSet::full(),
            VersionSet::versions(),
            VersionSet::interval(Cut::BOTTOM, Cut::below(&v)),
            VersionSet::interval(Cut::BOTTOM, Cut::above(&v)),
            VersionSet::absent().union(&VersionSet::interval(Cut::below(&v), Cut::TOP)),
        ] {
            assert!(!other.is_absent(), "{other}");
        }
        assert!(Cut::versions_start().is_versions_start());
        assert!(!Cut::BOTTOM.is_versions_start() && !Cut::below(&v).is_versions_start());
        Ok(())
    }

    /// The preimage of a `python_version` comparison written from the blocks is the one read
    /// off the specifier's set: for every operator, with plain releases at the ends of the
    /// numbers, a third and fourth number, pre-, post- and dev-releases, and wildcards of one
    /// to four numbers; the literals it leaves to that reading (a block with no next one,
    /// `~=`, `===`, a local label, an epoch) are left.
    #[test]
    fn pair_preimages_read_as_their_sets() -> Result<(), markerspec_pep440::Error> {
        let ops = ["==", "!=", "<", "<=", ">", ">=", "~=", "==="];
        let max = u64::MAX;
        let mut literals: Vec<String> = Vec::new();
        for x in [0u64, 1, 2, 3, 9, 10, 99, max - 1, max] {
            literals.push(x.to_string());
            for y in [0u64, 1, 2, 9, 10, 11, 13, 99, max - 1, max] {
                literals.push(format!("{x}.{y}"));
            }
        }
        let plain = literals.len();
        for base in [
            "0", "0.0", "3", "3.9", "3.9.0", "3.9.17", "3.9.0.0", "3.9.0.1", "3.0",
        ] {
            for suffix in [
                "",
                "a1",
                "rc1",
                ".dev0",
                ".post1",
                ".post1.dev0",
                "a1.dev2",
                ".post0",
            ] {
                literals.push(format!("{base}{suffix}"));
            }
        }
        let mut fast = 0;
        let mut plain_fast = 0;
        let mut check = |spec: &VersionSpecifier, plain: bool| {
            let general =
                VersionSet::python_version_preimage_of_set(spec.operator(), spec.version());
            if let Some(set) = pair_preimage_by_blocks(spec.operator(), spec.version()) {
                fast += 1;
                if plain {
                    plain_fast += 1;
                }
                assert_eq!(Some(&set), general.as_ref(), "{spec}");
            }
            assert_eq!(VersionSet::python_version_preimage(spec), general, "{spec}");
        };
        for (k, lit) in literals.iter().enumerate() {
            for op in ops {
                // (`~=` needs two numbers.)
                let Ok(spec) = format!("{op}{lit}").parse::<VersionSpecifier>() else {
                    continue;
                };
                check(&spec, k < plain);
            }
        }
        for prefix in [
            "0", "3", "3.9", "3.9.0", "3.9.1", "3.9.0.0", "3.0", "3.0.0.1", "9.99",
        ] {
            for op in ["==", "!="] {
                check(&format!("{op}{prefix}.*").parse()?, false);
            }
        }
        // The six operators with every plain literal whose block has a next one (all but
        // `X.MAX`).
        let eligible = literals
            .iter()
            .take(plain)
            .filter(|l| !l.ends_with(&format!(".{max}")))
            .count();
        assert_eq!(plain_fast, eligible * 6);
        assert!(fast > plain_fast + 400, "{fast} {plain_fast}");
        // A wildcard has no pre-, post- or dev-release (the guard against one is for a reader
        // that would allow it).
        for wild in ["==3.9a1.*", "!=3.9.post1.*", "==3.9.dev0.*"] {
            assert!(wild.parse::<VersionSpecifier>().is_err(), "{wild}");
        }
        for other in [
            "==3.11+local",
            "!=3.11+local",
            ">=1!3.11",
            "==1!3.*",
            "~=3.11",
            "===3.11",
            &format!("=={max}.*"),
        ] {
            let spec: VersionSpecifier = other.parse()?;
            assert_eq!(
                pair_preimage_by_blocks(spec.operator(), spec.version()),
                None,
                "{other}"
            );
        }
        Ok(())
    }

    /// `pair_key` is the key of the version `epoch!X.Y`, and `least_pair_above` finds the least
    /// such version above a cut.
    #[test]
    fn pair_keys_are_the_versions_keys() -> Result<(), markerspec_pep440::Error> {
        for e in [0, 1] {
            for x in [0, 1, 3] {
                for y in [0, 2, 11] {
                    let v = Version::new([x, y]).with_epoch(e);
                    let (key, len) = pair_key((e, x, y));
                    assert_eq!(key.get(..len), Some(&version_atoms(&v)[..]), "{v}");
                }
            }
        }
        for (spec, pair) in [
            (">=3.11", (0, 3, 11)),
            (">3.11", (0, 3, 12)),
            (">=3.11.0rc1", (0, 3, 11)),
            (">3.11.2", (0, 3, 12)),
            (">=3", (0, 3, 0)),
            (">3", (0, 3, 1)),
            (">=1!0", (1, 0, 0)),
        ] {
            let set = VersionSet::from_specifier(&spec.parse()?);
            let lo = set
                .as_ref()
                .and_then(|s| s.intervals().next())
                .map(|(lo, _)| lo);
            assert_eq!(lo.and_then(least_pair_above), Some(pair), "{spec}");
        }
        Ok(())
    }
}
