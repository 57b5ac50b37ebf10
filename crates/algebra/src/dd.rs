//! The decision-diagram engine: [`Context`], [`Marker`] and the operations.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cmp::Ordering;
use std::fmt::Write as _;

use markerspec_pep440::{Version, VersionSpecifier};

use crate::cut::{Cut, Point};
use crate::error::{Error, ErrorKind, Limit};
use crate::range::VersionSet;

pub(crate) mod isop;

/// The kind of values a variable takes.
///
/// ```
/// use markerspec_algebra::{Context, Domain};
///
/// let mut ctx = Context::new();
/// let os = ctx.variable(1, "sys_platform", Domain::String)?;
/// let win = ctx.string_eq(os, "win32")?;
/// let absent = ctx.string_eq(os, "")?; // `""` is the absent value
/// assert!(ctx.is_disjoint(win, absent)?);
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    /// The absent value and every PEP 440 version, in PEP 440 order; atoms are [`VersionSet`]s.
    Version,
    /// Every string; `""` is the absent value. Atoms compare with literals, and the strings that
    /// no atom names behave alike ("any other value").
    String,
    /// `true` or `false`: set membership (`"cuda" in gpu_backends`), `extra == "x"`, substring
    /// tests.
    Bool,
}

/// A variable of a [`Context`], declared with [`Context::variable`].
///
/// ```
/// use markerspec_algebra::{Context, Domain};
///
/// let mut ctx = Context::new();
/// let extra = ctx.variable(20, "extra:cuda", Domain::Bool)?;
/// assert_eq!(ctx.name(extra)?, "extra:cuda");
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);

impl Var {
    /// The variable's index in its context (declaration order).
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// A value of a variable, for evaluation and witnesses.
///
/// ```
/// use markerspec_algebra::{Context, Domain, Value};
///
/// let mut ctx = Context::new();
/// let cuda = ctx.variable(0, "cuda_version", Domain::Version)?;
/// let m = ctx.version_specifier(cuda, &"<12".parse()?)?;
/// assert!(!ctx.evaluate(m, |_| Value::Absent)?); // no CUDA: `< 12` is false
/// assert!(ctx.evaluate(m, |_| Value::Version("11.8".parse().unwrap()))?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The absent value of a [`Domain::Version`] variable (for a [`Domain::String`] variable,
    /// the same as `String("")`).
    Absent,
    /// A version.
    Version(Version),
    /// A string.
    String(String),
    /// A boolean.
    Bool(bool),
}

/// A boolean function of the context's variables: a handle into a [`Context`], `Copy`, compared
/// in O(1). Two markers of one context are equal exactly when they are equivalent.
///
/// ```
/// use markerspec_algebra::Marker;
///
/// assert_eq!(!Marker::TRUE, Marker::FALSE);
/// assert!(Marker::TRUE.is_true());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Marker(u32);

impl Marker {
    /// Always true.
    pub const TRUE: Marker = Marker(0);
    /// Always false.
    pub const FALSE: Marker = Marker(1);

    /// Whether the marker is always true (exact).
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn is_true(self) -> bool {
        self == Marker::TRUE
    }

    /// Whether the marker is always false (exact).
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn is_false(self) -> bool {
        self == Marker::FALSE
    }

    fn index(self) -> usize {
        (self.0 >> 1) as usize
    }

    fn is_complement(self) -> bool {
        self.0 & 1 == 1
    }

    fn is_const(self) -> bool {
        self.0 >> 1 == 0
    }
}

impl std::ops::Not for Marker {
    type Output = Marker;

    /// The complement, in O(1) (a complement edge).
    fn not(self) -> Marker {
        Marker(self.0 ^ 1)
    }
}

/// The mark of a pair known to overlap whose conjunction is not computed yet, in
/// `Context::and_cache`; never a marker (no node has the largest index).
const OVERLAP: Marker = Marker(u32::MAX);

/// The key of a pair in the `and` tables: the two markers in order (`and` is symmetric).
#[inline]
fn ordered(a: Marker, b: Marker) -> (Marker, Marker) {
    if a < b { (a, b) } else { (b, a) }
}

/// `a and b` when it needs no table: a constant operand, or the same marker or its complement
/// twice.
#[inline]
fn and_trivial(a: Marker, b: Marker) -> Option<Marker> {
    if a.is_false() || b.is_false() || a == !b {
        Some(Marker::FALSE)
    } else if a.is_true() || a == b {
        Some(b)
    } else if b.is_true() {
        Some(a)
    } else {
        None
    }
}

/// Whether `a` and `b` are disjoint when it needs no table, as [`and_trivial`].
#[inline]
fn disjoint_trivial(a: Marker, b: Marker) -> Option<bool> {
    if a.is_false() || b.is_false() || a == !b {
        Some(true)
    } else if a.is_true() || b.is_true() || a == b {
        // A marker that is not false is satisfiable (canonical form).
        Some(false)
    } else {
        None
    }
}

/// Bounds on the work of one operation and on the size of a context.
///
/// ```
/// use markerspec_algebra::Limits;
///
/// let limits = Limits { steps: 10_000, ..Limits::default() };
/// assert_eq!(limits.depth, Limits::default().depth);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most recursive steps (one per pair of nodes not found in a cache) one operation
    /// may take.
    pub steps: u64,
    /// The most nodes the context may hold.
    pub nodes: usize,
    /// The deepest recursion one operation may reach; about the number of variables on one
    /// path, so that no input can overflow the stack.
    pub depth: usize,
}

impl Limits {
    /// The default [`nodes`](Limits::nodes): one million. A context keeps every node it makes
    /// (until it is dropped), so one that answers many distinct markers grows towards it; see
    /// [`Context::len`] for replacing such a context.
    pub const DEFAULT_NODES: usize = 1_000_000;
}

impl Default for Limits {
    /// One million steps, one million nodes, depth 400.
    fn default() -> Limits {
        Limits {
            steps: 1_000_000,
            nodes: Limits::DEFAULT_NODES,
            depth: 400,
        }
    }
}

/// A node's bounds between intervals: most nodes have one or two, kept inline (in the node's
/// one allocation, with its children), so that building a node allocates once.
type Bounds = smallvec::SmallVec<[Cut; 2]>;

/// A node's children over intervals (most nodes have two or three, inline as [`Bounds`]).
type Children<T> = smallvec::SmallVec<[T; 3]>;

/// A node's string points and their children (most nodes have one or two, inline as
/// [`Bounds`]).
type Points<T> = smallvec::SmallVec<[(std::sync::Arc<str>, T); 2]>;

/// The edges of a node over its variable's domain, with children of type `T`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Edges<T> {
    /// `children[k]` for the interval between `bounds[k-1]` (or [`Cut::BOTTOM`]) and `bounds[k]`
    /// (or [`Cut::TOP`]); `children.len() == bounds.len() + 1`.
    Intervals {
        bounds: Bounds,
        children: Children<T>,
    },
    /// `points` sorted by literal, for the other strings `other`.
    Strings { points: Points<T>, other: T },
    /// The child for true and for false.
    Bool { yes: T, no: T },
}

impl Edges<Marker> {
    /// Complements every child, in place.
    fn negate_children(&mut self) {
        match self {
            Edges::Intervals { children, .. } => {
                for c in children {
                    *c = !*c;
                }
            }
            Edges::Strings { points, other } => {
                for (_, c) in points {
                    *c = !*c;
                }
                *other = !*other;
            }
            Edges::Bool { yes, no } => {
                *yes = !*yes;
                *no = !*no;
            }
        }
    }
}

impl<T: Copy> Edges<T> {
    fn constant(domain: Domain, t: T) -> Edges<T> {
        match domain {
            Domain::Version => Edges::Intervals {
                bounds: Bounds::new(),
                children: smallvec::smallvec![t],
            },
            Domain::String => Edges::Strings {
                points: Points::new(),
                other: t,
            },
            Domain::Bool => Edges::Bool { yes: t, no: t },
        }
    }

    fn map<U, E>(&self, mut f: impl FnMut(T) -> Result<U, E>) -> Result<Edges<U>, E> {
        Ok(match self {
            Edges::Intervals { bounds, children } => Edges::Intervals {
                bounds: bounds.clone(),
                children: children.iter().map(|&c| f(c)).collect::<Result<_, _>>()?,
            },
            Edges::Strings { points, other } => Edges::Strings {
                points: points
                    .iter()
                    .map(|(s, c)| Ok((s.clone(), f(*c)?)))
                    .collect::<Result<_, _>>()?,
                other: f(*other)?,
            },
            Edges::Bool { yes, no } => Edges::Bool {
                yes: f(*yes)?,
                no: f(*no)?,
            },
        })
    }

    /// The children in edge order (interval order; string points, then the other strings;
    /// true, then false).
    /// Appends the children, in edge order, to `out` (no vector of its own).
    fn push_children(&self, out: &mut Vec<T>) {
        match self {
            Edges::Intervals { children, .. } => out.extend_from_slice(children),
            Edges::Strings { points, other } => {
                out.extend(points.iter().map(|(_, c)| *c));
                out.push(*other);
            }
            Edges::Bool { yes, no } => out.extend([*yes, *no]),
        }
    }

    fn children(&self) -> Vec<T> {
        match self {
            Edges::Intervals { children, .. } => children.to_vec(),
            Edges::Strings { points, other } => {
                let mut out: Vec<T> = points.iter().map(|(_, c)| *c).collect();
                out.push(*other);
                out
            }
            Edges::Bool { yes, no } => vec![*yes, *no],
        }
    }
}

/// Applies `f` to the children of `a` and `b` (same domain) on every piece of their common
/// refinement. `mismatch` makes the error for edges of two domains (made only then: an error
/// allocates).
fn combine<T: Copy, E>(
    a: &Edges<Marker>,
    b: &Edges<Marker>,
    mut f: impl FnMut(Marker, Marker) -> Result<T, E>,
    mismatch: impl FnOnce() -> E,
) -> Result<Edges<T>, E> {
    match (a, b) {
        (
            Edges::Intervals {
                bounds: ba,
                children: ca,
            },
            Edges::Intervals {
                bounds: bb,
                children: cb,
            },
        ) => {
            let (mut i, mut j) = (0, 0);
            let mut bounds = Bounds::with_capacity(ba.len() + bb.len());
            let mut children = Children::with_capacity(ba.len() + bb.len() + 1);
            loop {
                let (Some(&x), Some(&y)) = (ca.get(i), cb.get(j)) else {
                    return Err(mismatch());
                };
                children.push(f(x, y)?);
                match (ba.get(i), bb.get(j)) {
                    (None, None) => break,
                    (Some(p), None) => {
                        bounds.push(p.clone());
                        i += 1;
                    }
                    (None, Some(q)) => {
                        bounds.push(q.clone());
                        j += 1;
                    }
                    (Some(p), Some(q)) => match p.cmp(q) {
                        Ordering::Less => {
                            bounds.push(p.clone());
                            i += 1;
                        }
                        Ordering::Greater => {
                            bounds.push(q.clone());
                            j += 1;
                        }
                        Ordering::Equal => {
                            bounds.push(p.clone());
                            i += 1;
                            j += 1;
                        }
                    },
                }
            }
            Ok(Edges::Intervals { bounds, children })
        }
        (
            Edges::Strings {
                points: pa,
                other: oa,
            },
            Edges::Strings {
                points: pb,
                other: ob,
            },
        ) => {
            let (mut i, mut j) = (0, 0);
            let mut points = Points::with_capacity(pa.len() + pb.len());
            loop {
                let (s, x, y) = match (pa.get(i), pb.get(j)) {
                    (None, None) => break,
                    (Some((s, x)), None) => {
                        i += 1;
                        (s, *x, *ob)
                    }
                    (None, Some((s, y))) => {
                        j += 1;
                        (s, *oa, *y)
                    }
                    (Some((s, x)), Some((t, y))) => match literal_cmp(s, t) {
                        Ordering::Less => {
                            i += 1;
                            (s, *x, *ob)
                        }
                        Ordering::Greater => {
                            j += 1;
                            (t, *oa, *y)
                        }
                        Ordering::Equal => {
                            i += 1;
                            j += 1;
                            (s, *x, *y)
                        }
                    },
                };
                points.push((s.clone(), f(x, y)?));
            }
            Ok(Edges::Strings {
                points,
                other: f(*oa, *ob)?,
            })
        }
        (Edges::Bool { yes: ya, no: na }, Edges::Bool { yes: yb, no: nb }) => Ok(Edges::Bool {
            yes: f(*ya, *yb)?,
            no: f(*na, *nb)?,
        }),
        _ => Err(mismatch()),
    }
}

/// How `Context::scratch` names the bound or literal of a piece: an index into the first
/// operand's bounds or points, or, with [`Piece::FROM_B`] set, into the second's.
struct Piece;

impl Piece {
    /// The mark of an index into the second operand.
    const FROM_B: u32 = 1 << 31;
}

/// One operand of [`Context::and_pieces`], read in place: a stored node's edges, by index (so
/// that the recursion may store new nodes meanwhile: a node never changes once stored), its
/// children read negated for a complemented marker; or a marker that does not depend on the
/// variable, whose edges all lead to it. Reading one copies, shares and allocates nothing.
#[derive(Clone, Copy, Debug)]
enum Operand {
    Node { index: usize, negated: bool },
    Const(Marker),
}

impl Operand {
    /// The stored edges of a node operand.
    fn edges(self, nodes: &[Node]) -> Option<&Edges<Marker>> {
        match self {
            Operand::Node { index, .. } => nodes.get(index).map(|n| &*n.edges),
            Operand::Const(_) => None,
        }
    }

    /// The child of the `k`th interval, as the operand reads it.
    fn interval_child(self, nodes: &[Node], k: usize) -> Option<Marker> {
        match self {
            Operand::Node { negated, .. } => match self.edges(nodes) {
                Some(Edges::Intervals { children, .. }) => {
                    children.get(k).map(|&c| flip(c, negated))
                }
                _ => None,
            },
            Operand::Const(m) => (k == 0).then_some(m),
        }
    }

    /// The bound after the `k`th interval (none after the last).
    fn bound(self, nodes: &[Node], k: usize) -> Option<&Cut> {
        match self.edges(nodes) {
            Some(Edges::Intervals { bounds, .. }) => bounds.get(k),
            _ => None,
        }
    }

    /// The `k`th string point: its literal, and its child as the operand reads it.
    fn point(self, nodes: &[Node], k: usize) -> Option<(&std::sync::Arc<str>, Marker)> {
        match self {
            Operand::Node { negated, .. } => match self.edges(nodes) {
                Some(Edges::Strings { points, .. }) => {
                    points.get(k).map(|(s, c)| (s, flip(*c, negated)))
                }
                _ => None,
            },
            Operand::Const(_) => None,
        }
    }

    /// The child for the strings that are no point, as the operand reads it.
    fn other(self, nodes: &[Node]) -> Option<Marker> {
        match self {
            Operand::Node { negated, .. } => match self.edges(nodes) {
                Some(Edges::Strings { other, .. }) => Some(flip(*other, negated)),
                _ => None,
            },
            Operand::Const(m) => Some(m),
        }
    }

    /// The children for true and for false, as the operand reads them.
    fn yes_no(self, nodes: &[Node]) -> Option<(Marker, Marker)> {
        match self {
            Operand::Node { negated, .. } => match self.edges(nodes) {
                Some(Edges::Bool { yes, no }) => Some((flip(*yes, negated), flip(*no, negated))),
                _ => None,
            },
            Operand::Const(m) => Some((m, m)),
        }
    }

    /// The bound a piece of `Context::scratch` names ([`Piece`]).
    fn piece_bound(a: Operand, b: Operand, nodes: &[Node], src: u32) -> Option<&Cut> {
        if src & Piece::FROM_B == 0 {
            a.bound(nodes, src as usize)
        } else {
            b.bound(nodes, (src & !Piece::FROM_B) as usize)
        }
    }

    /// The literal a piece of `Context::scratch` names ([`Piece`]).
    fn piece_literal(
        a: Operand,
        b: Operand,
        nodes: &[Node],
        src: u32,
    ) -> Option<&std::sync::Arc<str>> {
        let p = if src & Piece::FROM_B == 0 {
            a.point(nodes, src as usize)
        } else {
            b.point(nodes, (src & !Piece::FROM_B) as usize)
        };
        p.map(|(s, _)| s)
    }
}

/// The order of two cuts of the context's nodes: equal when they are one (interned)
/// allocation, without comparing their atoms.
fn cut_cmp(p: &Cut, q: &Cut) -> Ordering {
    if p.identity() == q.identity() {
        Ordering::Equal
    } else {
        p.cmp(q)
    }
}

/// The order of two string literals of the context's nodes: equal at once when they are one
/// allocation (a variable's literals are shared, `Context::string_eq`).
fn literal_cmp(s: &std::sync::Arc<str>, t: &std::sync::Arc<str>) -> Ordering {
    if std::sync::Arc::ptr_eq(s, t) {
        Ordering::Equal
    } else {
        s.cmp(t)
    }
}

/// The unique table's hash of a node: its variable, then each child and the bound or literal
/// that leads to it (cuts by identity: the context interns them).
fn node_hash(var: Var, edges: &Edges<Marker>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    h.write_u32(var.0);
    match edges {
        Edges::Intervals { bounds, children } => {
            let mut bounds = bounds.iter();
            for (k, c) in children.iter().enumerate() {
                if k > 0 {
                    h.write_usize(bounds.next().map_or(0, Cut::identity));
                }
                h.write_u32(c.0);
            }
        }
        Edges::Strings { points, other } => {
            for (s, c) in points {
                (**s).hash(&mut h);
                h.write_u32(c.0);
            }
            h.write_u32(other.0);
        }
        Edges::Bool { yes, no } => {
            h.write_u32(yes.0);
            h.write_u32(no.0);
        }
    }
    h.finish()
}

/// Calls `f` on the children of `a` and `b` (same domain) on every piece of their common
/// refinement, in [`combine`]'s order, without building the combined edges. `mismatch` makes
/// the error for edges of two domains (made only then: an error allocates).
fn visit_pieces<E>(
    a: &Edges<Marker>,
    b: &Edges<Marker>,
    mut f: impl FnMut(Marker, Marker) -> Result<(), E>,
    mismatch: impl FnOnce() -> E,
) -> Result<(), E> {
    match (a, b) {
        (
            Edges::Intervals {
                bounds: ba,
                children: ca,
            },
            Edges::Intervals {
                bounds: bb,
                children: cb,
            },
        ) => {
            let (mut i, mut j) = (0, 0);
            loop {
                let (Some(&x), Some(&y)) = (ca.get(i), cb.get(j)) else {
                    return Err(mismatch());
                };
                f(x, y)?;
                match (ba.get(i), bb.get(j)) {
                    (None, None) => return Ok(()),
                    (Some(_), None) => i += 1,
                    (None, Some(_)) => j += 1,
                    (Some(p), Some(q)) => match cut_cmp(p, q) {
                        Ordering::Less => i += 1,
                        Ordering::Greater => j += 1,
                        Ordering::Equal => {
                            i += 1;
                            j += 1;
                        }
                    },
                }
            }
        }
        (
            Edges::Strings {
                points: pa,
                other: oa,
            },
            Edges::Strings {
                points: pb,
                other: ob,
            },
        ) => {
            let (mut i, mut j) = (0, 0);
            loop {
                let (x, y) = match (pa.get(i), pb.get(j)) {
                    (None, None) => break,
                    (Some((_, x)), None) => {
                        i += 1;
                        (*x, *ob)
                    }
                    (None, Some((_, y))) => {
                        j += 1;
                        (*oa, *y)
                    }
                    (Some((s, x)), Some((t, y))) => match literal_cmp(s, t) {
                        Ordering::Less => {
                            i += 1;
                            (*x, *ob)
                        }
                        Ordering::Greater => {
                            j += 1;
                            (*oa, *y)
                        }
                        Ordering::Equal => {
                            i += 1;
                            j += 1;
                            (*x, *y)
                        }
                    },
                };
                f(x, y)?;
            }
            f(*oa, *ob)
        }
        (Edges::Bool { yes: ya, no: na }, Edges::Bool { yes: yb, no: nb }) => {
            f(*ya, *yb)?;
            f(*na, *nb)
        }
        _ => Err(mismatch()),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Node {
    var: Var,
    /// [`node_hash`] of the node, kept so that growing the unique table rehashes no edges.
    hash: u64,
    /// Shared, so that reading a node's edges during an operation copies no vectors.
    edges: std::sync::Arc<Edges<Marker>>,
}

/// A node's edges as an operation reads them: the node's own, or built for a complemented or
/// constant marker.
enum EdgesOf {
    Shared(std::sync::Arc<Edges<Marker>>),
    Owned(Edges<Marker>),
}

impl std::ops::Deref for EdgesOf {
    type Target = Edges<Marker>;

    fn deref(&self) -> &Edges<Marker> {
        match self {
            EdgesOf::Shared(e) => e,
            EdgesOf::Owned(e) => e,
        }
    }
}

#[derive(Clone, Debug)]
struct VarInfo {
    rank: u32,
    name: Box<str>,
    domain: Domain,
}

/// Why [`Context::disjoint_rec`] stopped early.
enum Stop {
    /// The two markers hold together somewhere.
    Overlap,
    /// A limit or a foreign marker.
    Error(Error),
}

/// The work budget of one operation.
struct Budget {
    steps: u64,
    depth: usize,
    max_depth: usize,
}

impl Budget {
    fn enter(&mut self) -> Result<(), Error> {
        if self.steps == 0 {
            return Err(Error::intractable(Limit::Steps));
        }
        self.steps -= 1;
        if self.depth >= self.max_depth {
            return Err(Error::intractable(Limit::Depth));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// An arena of reduced, ordered, hash-consed decision diagrams, and the operations on them.
///
/// Everything a [`Marker`] refers to lives in its context and is freed when the context is
/// dropped. Operations take `&mut self` (they add nodes and fill caches); a context is `Send`
/// and `Sync`, and independent contexts share nothing.
///
/// ```
/// use markerspec_algebra::{Context, Domain, RelationKind, Value};
///
/// let mut ctx = Context::new();
/// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
/// let os = ctx.variable(1, "sys_platform", Domain::String)?;
/// let new = ctx.version_specifier(py, &">=3.12".parse()?)?;
/// let old = ctx.version_specifier(py, &"<3.12".parse()?)?;
/// let linux = ctx.string_eq(os, "linux")?;
/// let a = ctx.and(new, linux)?;
/// assert!(ctx.is_disjoint(a, old)?);
/// // `<3.12` and `>=3.12` leave out 3.12's pre-releases: their union is not `true`.
/// let either = ctx.or(new, old)?;
/// let gap = ctx.solve(!either)?.expect("3.12.dev0 is in neither");
/// assert!(matches!(gap.get(py), Some(Value::Absent | Value::Version(_))));
/// assert_eq!(ctx.relate(a, new)?.kind(), RelationKind::Implies);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Variables, atoms, and reading a diagram back:
///
/// ```
/// use markerspec_algebra::{Context, Domain, Label, Limits, Value};
///
/// let mut ctx = Context::with_limits(Limits { steps: 100_000, ..Limits::default() });
/// assert_eq!(ctx.limits().steps, 100_000);
/// ctx.set_limits(Limits::default());
/// assert!(ctx.is_empty());
///
/// let os = ctx.variable(0, "os_name", Domain::String)?;
/// let gil = ctx.variable(1, "gil", Domain::Bool)?;
/// assert_eq!(ctx.name(os)?, "os_name");
/// assert_eq!(ctx.domain(gil)?, Domain::Bool);
///
/// let nt = ctx.string_eq(os, "nt")?;
/// let also_nt = ctx.equals(os, &Value::String("nt".into()))?;
/// assert!(ctx.equivalent(nt, also_nt)); // one canonical diagram
/// let not_nt = ctx.not(nt);
/// assert_eq!(not_nt, !nt);
/// let with_gil = ctx.boolean(gil)?;
/// let m = ctx.and(not_nt, with_gil)?;
/// assert_eq!(ctx.support(m)?, [os, gil]);
/// assert_eq!(ctx.node_count(m)?, 2);
/// assert!(!ctx.is_empty() && ctx.len() >= 2);
/// // Its one path to `true`, as labels of the variables on it.
/// assert_eq!(
///     ctx.paths(m)?,
///     [vec![(os, Label::StringNotIn(vec!["nt".into()])), (gil, Label::Bool(true))]]
/// );
///
/// // A witness: values that make `m` hold.
/// let w = ctx.solve(m)?.expect("satisfiable");
/// assert_eq!(w.get(gil), Some(&Value::Bool(true)));
/// assert!(w.iter().all(|(var, _)| var == os || var == gil));
///
/// let always = ctx.or(m, !m)?;
/// assert!(always.is_true() && !always.is_false());
/// ctx.clear_caches(); // results stay valid
/// assert!(ctx.equivalent(ctx.not(always), markerspec_algebra::Marker::FALSE));
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Context {
    vars: Vec<VarInfo>,
    /// Each variable's label in the variable order (rank, then name): labels grow along
    /// `var_sorted`, so that comparing two variables is comparing two numbers. They are spaced
    /// apart ([`VAR_LABEL_SPACING`]), so that a new variable takes a label between its
    /// neighbours' and the others keep theirs (all are spaced out again only when two
    /// neighbours have no label left between them).
    var_position: Vec<u64>,
    /// The variables in the variable order.
    var_sorted: Vec<Var>,
    /// The variables, hashed by name ([`name_hash`]), each name stored once (in `vars`).
    by_name: hashbrown::HashTable<Var>,
    /// `nodes[0]` stands for the terminal and is never read as a decision node.
    nodes: Vec<Node>,
    /// Indices into `nodes`, hashed by the node: each node is stored once.
    unique: hashbrown::HashTable<u32>,
    /// `a and b` for the pairs computed so far, or [`OVERLAP`] where only `is_disjoint` has
    /// looked at the pair and found it satisfiable (a disjoint pair is stored as `FALSE`, its
    /// conjunction): one table answers both questions with one lookup.
    and_cache: HashMap<(Marker, Marker), Marker>,
    /// The same table for the printer's own operations ([`Context::with_print_cache`]): kept
    /// apart, they do not crowd the answers a caller asks for again out of the processor's
    /// caches (a lock file's first prints make many times more entries than its `and`s).
    print_and_cache: HashMap<(Marker, Marker), Marker>,
    /// The pairs callers of [`Context::and`], [`Context::or`], [`Context::is_disjoint`] and
    /// [`Context::implies`] asked that `and_cache` answered (copied from there; a pair
    /// computed by the call itself is not): kept apart from the many more results the
    /// recursion stores there, so that a pair asked over and over (as a resolver does) is
    /// found in a small, dense table the processor's caches keep. The crate's own operations
    /// use `and_cache` alone.
    answers: HashMap<(Marker, Marker), Marker>,
    /// Every cut the nodes hold, once: equal cuts share one prefix allocation, so that nodes
    /// hash their cuts by identity ([`Cut::identity`]).
    pub(crate) cuts: CutTable,
    /// The pieces of the nodes `and_rec` is building, one stretch per level of its recursion:
    /// the source of the bound before each piece ([`Piece`]) and the piece's child.
    scratch: Vec<(u32, Marker)>,
    limits: Limits,
    /// What each variable stands for, when it was declared by the marker translation.
    pub(crate) meta: Vec<Option<crate::translate::VarMeta>>,
    /// The string literals each string variable has been compared with.
    pub(crate) literals:
        std::collections::BTreeMap<Var, std::collections::BTreeSet<std::sync::Arc<str>>>,
    /// The theory the context serves, fixed by the first `from_marker`.
    pub(crate) theory: Option<crate::theory::Theory>,
    /// The last constraint built for each theory (witness environments read `platform`'s in a
    /// context of any theory), keyed by its rules' text.
    pub(crate) theory_cache: Vec<(String, Marker)>,
    /// The last constraint returned for each theory, keyed by what its rules' text depends on.
    pub(crate) theory_stamp_cache: Vec<(crate::theory::TheoryStamp, Marker)>,
    /// The printer's spelling of a version variable's set, and whether it has a top-level `or`.
    pub(crate) version_text_cache: HashMap<Var, HashMap<VersionSet, (String, bool)>>,
    /// The printer's atomic comparisons (`field op literal`, spec-2026 reading) as markers.
    pub(crate) comparison_cache: HashMap<
        (markerspec_pep508::Field, markerspec_pep508::MarkerOperator),
        HashMap<Box<str>, Marker>,
    >,
    /// The printer's atomic comparisons of the standard version fields as sets of the
    /// version variable (`None` where the translation reads one otherwise).
    pub(crate) atom_set_cache: crate::print::spell::AtomSets,
    /// The versions each cut of a printed label may name, with their texts.
    pub(crate) named_cache: crate::print::spell::NamedCache,
    /// Each comparison translated so far, with the profile it was read under, and its marker.
    pub(crate) expression_cache: hashbrown::HashTable<(crate::translate::ExpressionKey, Marker)>,
    /// The groups of edges of each node the printer has read ([`Context::paths`]).
    pub(crate) groups_cache: GroupsCache,
    /// The printer's factored form of each node it has printed that way.
    pub(crate) factored_cache: HashMap<Marker, crate::print::Text>,
    /// The printer's text for each literal it has printed, and whether it has a top-level `or`.
    pub(crate) literal_cache: HashMap<Var, HashMap<Label, (String, bool)>>,
    /// The printed form of each marker printed so far, keyed by the marker and the theory
    /// constraint it was printed under (both canonical, so the text depends only on them);
    /// not a single path printed with no theory, which is written again each time (cheaper
    /// than keeping it).
    pub(crate) print_cache: HashMap<(Marker, Marker, bool), std::sync::Arc<str>>,
    /// The cover of each pair of bounds the printer has covered (`Context::isop_cover`).
    pub(crate) cover_cache: isop::CoverCache,
    /// The literals of those covers, each once.
    pub(crate) cover_literals: isop::Literals,
    /// The printer's numbering of a cover's literals, by id, while it prints one (else every
    /// entry `usize::MAX`).
    pub(crate) cover_numbers: Vec<usize>,
    /// The lists a print of a cover works in, kept between prints.
    pub(crate) cover_scratch: crate::print::CoverScratch,
    /// The boxes the cover's recurrence keeps its pieces in, one per level, reused.
    pub(crate) pieces_pool: isop::PiecesPool,
    /// The parts of split forms printed so far (`Context::print_part`), by marker and care:
    /// the text, or `None` where none of the three forms prints it. A lock file's conflict
    /// markers lead to the same functions of the extras again and again.
    pub(crate) part_cache: HashMap<(Marker, Marker), Option<std::sync::Arc<str>>>,
    /// Version labels' spellings shared with other contexts ([`Context::share_spellings`]).
    pub(crate) spellings: Option<crate::print::Spellings>,
}

/// The nodes a cube is known to lie within, by [`Context::cube_within`] (kept by the caller
/// between tests, emptied by each): a set, as the diagrams of large covers reach thousands.
pub(crate) type Seen = HashSet<Marker>;

/// One copy of each cut a context holds ([`Context::cuts`]), each kept with its hash: hashing
/// a cut reads its whole prefix, and a table that grows would otherwise hash every cut again
/// (on generated markers, whose versions are mostly distinct, 2.5 % of a print's time went to
/// that).
#[derive(Clone, Debug, Default)]
pub(crate) struct CutTable(hashbrown::HashTable<(u64, Cut)>);

impl CutTable {
    fn hash(c: &Cut) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(c)
    }

    /// The table's copy of `c`, if it has one.
    #[cfg(test)]
    pub(crate) fn get(&self, c: &Cut) -> Option<&Cut> {
        self.0
            .find(CutTable::hash(c), |(_, x)| x == c)
            .map(|(_, x)| x)
    }

    /// The one copy of `c` (added when there is none), found with one probe.
    pub(crate) fn intern(&mut self, c: &Cut) -> Cut {
        let h = CutTable::hash(c);
        match self.0.entry(h, |(_, x)| x == c, |(h, _)| *h) {
            hashbrown::hash_table::Entry::Occupied(e) => e.get().1.clone(),
            hashbrown::hash_table::Entry::Vacant(e) => e.insert((h, c.clone())).get().1.clone(),
        }
    }

    /// [`intern`](Self::intern) in place: `c` becomes the table's copy, or goes into the
    /// table (a new cut is not cloned out again: the speller's reads meet many).
    pub(crate) fn intern_in_place(&mut self, c: &mut Cut) {
        let h = CutTable::hash(c);
        match self.0.entry(h, |(_, x)| x == c, |(h, _)| *h) {
            hashbrown::hash_table::Entry::Occupied(e) => *c = e.get().1.clone(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert((h, c.clone()));
            }
        }
    }
}

impl Default for Context {
    fn default() -> Context {
        Context::new()
    }
}

/// What holds on one path of a diagram for one variable.
///
/// ```
/// use markerspec_algebra::{Context, Domain, Label};
///
/// let mut ctx = Context::new();
/// let os = ctx.variable(0, "os_name", Domain::String)?;
/// let nt = ctx.string_eq(os, "nt")?;
/// let paths = ctx.paths(!nt)?;
/// assert_eq!(paths, vec![vec![(os, Label::StringNotIn(vec!["nt".into()]))]]);
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    /// The version variable's value is in the set.
    Versions(VersionSet),
    /// The string variable's value is one of these (sorted).
    StringIn(Vec<String>),
    /// The string variable's value is none of these (sorted).
    StringNotIn(Vec<String>),
    /// The boolean variable has this value.
    Bool(bool),
}

/// Values for some variables under which a marker holds, whatever the other variables are.
///
/// ```
/// use markerspec_algebra::{Context, Domain, Value};
///
/// let mut ctx = Context::new();
/// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
/// let gpu = ctx.variable(5, "gpu_backends:cuda", Domain::Bool)?;
/// let old = ctx.version_specifier(py, &"<3.9".parse()?)?;
/// let w = ctx.solve(old)?.expect("satisfiable");
/// assert_eq!(w.get(py), Some(&Value::Version("0.dev0".parse()?)));
/// assert_eq!(w.get(gpu), None); // any value will do
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Witness {
    values: Vec<(Var, Value)>,
}

impl Witness {
    /// The value of `var`, or `None` when any value will do.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn get(&self, var: Var) -> Option<&Value> {
        self.values.iter().find(|(v, _)| *v == var).map(|(_, x)| x)
    }

    /// The variables with a value, in the context's variable order.
    ///
    /// See the second example on [`Context`].
    pub fn iter(&self) -> impl Iterator<Item = (Var, &Value)> {
        self.values.iter().map(|(v, x)| (*v, x))
    }
}

/// The four cells of two markers `a` and `b`, each `None` when empty, otherwise with a witness.
///
/// ```
/// use markerspec_algebra::{Context, Domain, RelationKind};
///
/// let mut ctx = Context::new();
/// let os = ctx.variable(0, "sys_platform", Domain::String)?;
/// let (linux, win) = (ctx.string_eq(os, "linux")?, ctx.string_eq(os, "win32")?);
/// let rel = ctx.relate(linux, win)?;
/// assert_eq!(rel.kind(), RelationKind::Disjoint);
/// assert!(rel.a_and_b.is_none());
/// assert!(rel.neither.is_some()); // sys_platform == "other"
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    /// `a and b`.
    pub a_and_b: Option<Witness>,
    /// `a and not b`.
    pub a_not_b: Option<Witness>,
    /// `not a and b`.
    pub b_not_a: Option<Witness>,
    /// `not a and not b`.
    pub neither: Option<Witness>,
}

/// How two markers relate, from the empty cells of a [`Relation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationKind {
    /// `a` and `b` hold in the same environments.
    Equivalent,
    /// `a` implies `b` (and they are not equivalent).
    Implies,
    /// `b` implies `a` (and they are not equivalent).
    ImpliedBy,
    /// `a` and `b` never hold together (and neither implies the other).
    Disjoint,
    /// None of the above.
    Overlapping,
}

impl Relation {
    /// The relation, checked in the order equivalent, implies, implied-by, disjoint.
    ///
    /// See the first example on [`Context`].
    #[must_use]
    pub fn kind(&self) -> RelationKind {
        match (
            self.a_not_b.is_none(),
            self.b_not_a.is_none(),
            self.a_and_b.is_none(),
        ) {
            (true, true, _) => RelationKind::Equivalent,
            (true, false, _) => RelationKind::Implies,
            (false, true, _) => RelationKind::ImpliedBy,
            (false, false, true) => RelationKind::Disjoint,
            (false, false, false) => RelationKind::Overlapping,
        }
    }
}

impl Context {
    /// An empty context with the default [`Limits`]. It reserves room for about 16,000 nodes
    /// (about 160 KB: a lock file's markers and the operations between them reach that, and
    /// growing the table to it would rehash it twice) and for 4,000 `and` results (about
    /// 100 KB), a table that grows with what the context computes. A table made larger than
    /// its entries costs a fresh page of memory for nearly every entry written into it (about
    /// 1.4 µs each on the machine of BENCHMARKS.md): room for 16,000 `and` results made the
    /// first builds of 492 short lock-file markers a fifth slower. The printer's own table of
    /// `and` results grows from empty: a lock file's first prints add only about 1,500.
    #[must_use]
    pub fn new() -> Context {
        Context::with_limits(Limits::default())
    }

    /// An empty context with the given limits.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn with_limits(limits: Limits) -> Context {
        Context {
            vars: Vec::new(),
            var_position: Vec::new(),
            var_sorted: Vec::new(),
            by_name: hashbrown::HashTable::new(),
            nodes: vec![Node {
                var: Var(u32::MAX),
                hash: 0,
                edges: std::sync::Arc::new(Edges::Bool {
                    yes: Marker::TRUE,
                    no: Marker::TRUE,
                }),
            }],
            unique: hashbrown::HashTable::with_capacity(1 << 14),
            and_cache: HashMap::with_capacity_and_hasher(1 << 12, Default::default()),
            print_and_cache: HashMap::default(),
            answers: HashMap::default(),
            cuts: CutTable::default(),
            scratch: Vec::new(),
            limits,
            meta: Vec::new(),
            literals: std::collections::BTreeMap::new(),
            theory: None,
            theory_cache: Vec::new(),
            theory_stamp_cache: Vec::new(),
            version_text_cache: HashMap::default(),
            comparison_cache: HashMap::default(),
            atom_set_cache: crate::print::spell::AtomSets::default(),
            named_cache: crate::print::spell::NamedCache::default(),
            // Room for the few hundred distinct comparisons of a lock file at once, as for the
            // node and `and` tables: growing it from empty rehashes every comparison seven times.
            expression_cache: hashbrown::HashTable::with_capacity(1 << 9),
            groups_cache: HashMap::default(),
            factored_cache: HashMap::default(),
            literal_cache: HashMap::default(),
            print_cache: HashMap::default(),
            cover_cache: isop::CoverCache::default(),
            cover_literals: isop::Literals::default(),
            cover_numbers: Vec::new(),
            cover_scratch: crate::print::CoverScratch::default(),
            pieces_pool: isop::PiecesPool::default(),
            part_cache: HashMap::default(),
            spellings: None,
        }
    }

    /// The limits every operation runs under.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Changes the limits.
    ///
    /// See the second example on [`Context`].
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// How many decision nodes the context holds.
    ///
    /// A context keeps every node it makes until it is dropped, and an operation that would
    /// make it hold more than [`Limits::nodes`] fails with [`ErrorKind::Intractable`]. A
    /// long-running user (a resolver, a batch of markers) that makes many distinct markers
    /// should move to a fresh context when this grows large (`markerspec simplify -` does past
    /// a quarter of [`Limits::DEFAULT_NODES`]): every answer, the printed form included,
    /// depends only on the markers, so the fresh context answers the same. Markers are
    /// only valid in the context that made them; build them again there.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len() - 1
    }

    /// Whether the context holds no decision node.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the operation caches: `and` and `is_disjoint` results and printed forms (the
    /// markers stay valid; later operations may be slower).
    ///
    /// See the second example on [`Context`].
    pub fn clear_caches(&mut self) {
        self.and_cache.clear();
        self.answers = HashMap::default();
        self.print_and_cache = HashMap::default();
        self.print_cache = HashMap::default();
        self.cover_cache = isop::CoverCache::default();
        self.part_cache = HashMap::default();
    }

    /// Runs `f` with the printer's table of `and` results (`print_and_cache`) in place of the
    /// recursion's (`and_cache`), and puts the tables back after it, whatever it returns.
    pub(crate) fn with_print_cache<T>(&mut self, f: impl FnOnce(&mut Context) -> T) -> T {
        std::mem::swap(&mut self.and_cache, &mut self.print_and_cache);
        let r = f(self);
        std::mem::swap(&mut self.and_cache, &mut self.print_and_cache);
        r
    }

    /// Declares a variable, or returns the one already declared with this name.
    ///
    /// Variables are ordered by `(rank, name)` on every path of every diagram, whatever the
    /// order of declaration: the rank is the stable key (the field order), the name breaks ties
    /// (one boolean variable per set member, for example `(rank of gpu_backends, "cuda")`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::WrongDomain`] when the name is already declared with another domain or rank.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let a = ctx.variable(3, "extra:cuda", Domain::Bool)?;
    /// assert_eq!(ctx.variable(3, "extra:cuda", Domain::Bool)?, a);
    /// assert!(ctx.variable(3, "extra:cuda", Domain::String).is_err());
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn variable(&mut self, rank: u32, name: &str, domain: Domain) -> Result<Var, Error> {
        let hash = name_hash(name);
        let vars = &self.vars;
        let found = self.by_name.find(hash, |v| {
            vars.get(v.index()).is_some_and(|info| *info.name == *name)
        });
        if let Some(&var) = found {
            let info = self.info(var)?;
            if info.domain != domain || info.rank != rank {
                return Err(Error::new(ErrorKind::WrongDomain {
                    name: name.to_owned(),
                    expected: info.domain,
                }));
            }
            return Ok(var);
        }
        let id = u32::try_from(self.vars.len()).map_err(|_| Error::intractable(Limit::Nodes))?;
        // The new variable's place: after every variable that comes before it.
        let at = self.var_sorted.partition_point(|v| {
            vars.get(v.index())
                .is_some_and(|v| (v.rank, &*v.name) < (rank, name))
        });
        let label_of = |v: &Var| self.var_position.get(v.index()).copied();
        let lo = at
            .checked_sub(1)
            .and_then(|i| self.var_sorted.get(i))
            .and_then(label_of);
        let hi = self.var_sorted.get(at).and_then(label_of);
        self.var_sorted.insert(at, Var(id));
        self.var_position.push(0);
        match between(lo, hi) {
            Some(label) => {
                if let Some(p) = self.var_position.last_mut() {
                    *p = label;
                }
            }
            None => {
                // No label left between the neighbours: space every label out again, in order.
                let mut label = 0u64;
                for v in &self.var_sorted {
                    label += VAR_LABEL_SPACING;
                    if let Some(p) = self.var_position.get_mut(v.index()) {
                        *p = label;
                    }
                }
            }
        }
        self.vars.push(VarInfo {
            rank,
            name: name.into(),
            domain,
        });
        let vars = &self.vars;
        self.by_name.insert_unique(hash, Var(id), |v| {
            vars.get(v.index()).map_or(0, |info| name_hash(&info.name))
        });
        Ok(Var(id))
    }

    /// The name a variable was declared with.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownVariable`] for a variable of another context.
    ///
    /// See the second example on [`Context`].
    pub fn name(&self, var: Var) -> Result<&str, Error> {
        Ok(&self.info(var)?.name)
    }

    fn info(&self, var: Var) -> Result<&VarInfo, Error> {
        self.vars
            .get(var.0 as usize)
            .ok_or_else(|| Error::new(ErrorKind::UnknownVariable))
    }

    fn domain_of(&self, var: Var, expected: Domain) -> Result<(), Error> {
        let info = self.info(var)?;
        if info.domain == expected {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::WrongDomain {
                name: info.name.to_string(),
                expected: info.domain,
            }))
        }
    }

    fn check(&self, m: Marker) -> Result<(), Error> {
        if m.index() < self.nodes.len() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::ForeignMarker))
        }
    }

    fn budget(&self) -> Budget {
        Budget {
            steps: self.limits.steps,
            depth: 0,
            max_depth: self.limits.depth,
        }
    }

    /// The order of two variables: rank, then name.
    fn var_cmp(&self, a: Var, b: Var) -> Ordering {
        match (
            self.var_position.get(a.0 as usize),
            self.var_position.get(b.0 as usize),
        ) {
            (Some(x), Some(y)) => x.cmp(y),
            _ => a.0.cmp(&b.0),
        }
    }

    /// The top variable of a non-constant marker.
    fn top(&self, m: Marker) -> Option<Var> {
        if m.is_const() {
            return None;
        }
        self.nodes.get(m.index()).map(|n| n.var)
    }

    /// The edges of `m` over `var`, complement applied: the node's own when `var` is its top
    /// variable, else constant edges (the marker does not depend on `var` here).
    fn edges(&self, m: Marker, var: Var) -> Result<EdgesOf, Error> {
        let domain = self.info(var)?.domain;
        match self.nodes.get(m.index()) {
            Some(node) if !m.is_const() && node.var == var => {
                if m.is_complement() {
                    node.edges.map(|c| Ok::<_, Error>(!c)).map(EdgesOf::Owned)
                } else {
                    Ok(EdgesOf::Shared(node.edges.clone()))
                }
            }
            Some(_) => Ok(EdgesOf::Owned(Edges::constant(domain, m))),
            None => Err(Error::new(ErrorKind::ForeignMarker)),
        }
    }

    /// The top variable of `m` and its children (complement applied, one per edge, repeats
    /// kept); `None` for a constant.
    pub(crate) fn top_children(&self, m: Marker) -> Result<Option<(Var, Vec<Marker>)>, Error> {
        match self.top(m) {
            Some(var) => Ok(Some((var, self.edges(m, var)?.children()))),
            None => Ok(None),
        }
    }

    /// Whether variable `a` comes before `b` in the variable order.
    pub(crate) fn precedes(&self, a: Var, b: Var) -> bool {
        self.var_cmp(a, b) == Ordering::Less
    }

    /// `m` with each marker its paths reach first at a variable `below` holds for (or at a
    /// constant) replaced by `to(ctx, that marker)`: a function of the variables above those.
    /// `memo` holds what is replaced so far (for one `to`).
    pub(crate) fn replace_below(
        &mut self,
        m: Marker,
        below: &dyn Fn(&Context, Var) -> bool,
        to: &mut dyn FnMut(&mut Context, Marker) -> Result<Marker, Error>,
        memo: &mut HashMap<Marker, Marker>,
    ) -> Result<Marker, Error> {
        if let Some(&r) = memo.get(&m) {
            return Ok(r);
        }
        let r = match self.top(m) {
            Some(var) if !below(self, var) => {
                let edges = self.edges(m, var)?;
                let mut replaced = Vec::new();
                for child in edges.children() {
                    replaced.push(self.replace_below(child, below, to, memo)?);
                }
                let mut next = replaced.into_iter();
                let edges =
                    edges.map(|_| next.next().ok_or(Error::new(ErrorKind::ForeignMarker)))?;
                self.mk(var, edges)?
            }
            _ => to(self, m)?,
        };
        memo.insert(m, r);
        Ok(r)
    }

    /// The edges of `m` over `var` as stored, and whether `m` is their complement (every
    /// child then reads negated): no copy of the node's edges, unlike [`edges`](Self::edges).
    fn edges_raw(&self, m: Marker, var: Var) -> Result<(EdgesOf, bool), Error> {
        match self.nodes.get(m.index()) {
            Some(node) if !m.is_const() && node.var == var => {
                Ok((EdgesOf::Shared(node.edges.clone()), m.is_complement()))
            }
            Some(_) => {
                let domain = self.info(var)?.domain;
                Ok((EdgesOf::Owned(Edges::constant(domain, m)), false))
            }
            None => Err(Error::new(ErrorKind::ForeignMarker)),
        }
    }

    /// `m` as an operand of [`and_pieces`](Self::and_pieces) at `var`: its node when `var` is
    /// its top variable, else a constant operand.
    fn operand(&self, m: Marker, var: Var) -> Result<Operand, Error> {
        match self.nodes.get(m.index()) {
            Some(node) if !m.is_const() && node.var == var => Ok(Operand::Node {
                index: m.index(),
                negated: m.is_complement(),
            }),
            Some(_) => Ok(Operand::Const(m)),
            None => Err(Error::new(ErrorKind::ForeignMarker)),
        }
    }

    /// The unique node for `var` and `edges`, reduced and with a regular first child.
    fn mk(&mut self, var: Var, edges: Edges<Marker>) -> Result<Marker, Error> {
        let mut edges = match edges {
            Edges::Intervals {
                mut bounds,
                mut children,
            } => {
                // Merge neighbouring pieces with the same child, in place (no new vectors).
                let n = bounds.len().min(children.len().saturating_sub(1));
                let mut kept = 0;
                for k in 0..n {
                    let (Some(&c), Some(&last)) = (children.get(k + 1), children.get(kept)) else {
                        break;
                    };
                    if c != last {
                        // `kept <= k < n <= bounds.len()`.
                        bounds.swap(kept, k);
                        kept += 1;
                        if let Some(slot) = children.get_mut(kept) {
                            *slot = c;
                        }
                    }
                }
                if kept == 0 {
                    return children
                        .first()
                        .copied()
                        .ok_or_else(|| Error::new(ErrorKind::ForeignMarker));
                }
                bounds.truncate(kept);
                children.truncate(kept + 1);
                Edges::Intervals { bounds, children }
            }
            Edges::Strings { mut points, other } => {
                points.retain(|(_, c)| *c != other);
                if points.is_empty() {
                    return Ok(other);
                }
                Edges::Strings { points, other }
            }
            Edges::Bool { yes, no } => {
                if yes == no {
                    return Ok(yes);
                }
                Edges::Bool { yes, no }
            }
        };
        let first = match &edges {
            Edges::Intervals { children, .. } => children.first().copied(),
            Edges::Strings { other, .. } => Some(*other),
            Edges::Bool { yes, .. } => Some(*yes),
        };
        let flip = first.is_some_and(Marker::is_complement);
        if flip {
            edges.negate_children();
        }
        let hash = node_hash(var, &edges);
        let found = find_node(&self.unique, &self.nodes, hash, |n| {
            n.var == var && *n.edges == edges
        });
        let index = match found {
            Some(i) => i,
            None => self.insert_node(var, hash, edges)?,
        };
        let m = Marker(index << 1);
        Ok(if flip { !m } else { m })
    }

    /// Stores a node not in the unique table yet, hashed `hash` ([`node_hash`]).
    fn insert_node(&mut self, var: Var, hash: u64, edges: Edges<Marker>) -> Result<u32, Error> {
        if self.nodes.len() > self.limits.nodes {
            return Err(Error::intractable(Limit::Nodes));
        }
        let i = u32::try_from(self.nodes.len())
            .ok()
            .filter(|i| *i < u32::MAX >> 1)
            .ok_or_else(|| Error::intractable(Limit::Nodes))?;
        self.nodes.push(Node {
            var,
            hash,
            edges: std::sync::Arc::new(edges),
        });
        let nodes = &self.nodes;
        self.unique
            .insert_unique(hash, i, |&j| nodes.get(j as usize).map_or(0, |n| n.hash));
        Ok(i)
    }

    /// The node of `var` whose pieces are `self.scratch[base..]` (reduced: neighbouring pieces
    /// differ), each bound read from operand `a` or `b` ([`Piece`]); complemented in place when the
    /// first child is. Allocates only for a node not stored yet.
    fn mk_intervals(
        &mut self,
        var: Var,
        base: usize,
        a: Operand,
        b: Operand,
    ) -> Result<Marker, Error> {
        let nodes = &self.nodes;
        let bound = |src: u32| Operand::piece_bound(a, b, nodes, src);
        let pieces = self.scratch.get_mut(base..).unwrap_or_default();
        let Some(&(_, first)) = pieces.first() else {
            return Err(Error::new(ErrorKind::ForeignMarker));
        };
        if pieces.len() == 1 {
            return Ok(first);
        }
        let flip = first.is_complement();
        if flip {
            for p in pieces.iter_mut() {
                p.1 = !p.1;
            }
        }
        let pieces: &[(u32, Marker)] = pieces;
        let mut h = rustc_hash::FxHasher::default();
        std::hash::Hasher::write_u32(&mut h, var.0);
        for (k, &(src, c)) in pieces.iter().enumerate() {
            if k > 0 {
                let id = bound(src).map_or(0, Cut::identity);
                std::hash::Hasher::write_usize(&mut h, id);
            }
            std::hash::Hasher::write_u32(&mut h, c.0);
        }
        let hash = std::hash::Hasher::finish(&h);
        let same = |n: &Node| {
            n.var == var
                && match &*n.edges {
                    Edges::Intervals { bounds, children } => {
                        children.len() == pieces.len()
                            && children.iter().zip(pieces).all(|(c, p)| *c == p.1)
                            && bounds.iter().zip(pieces.iter().skip(1)).all(|(b, p)| {
                                bound(p.0).is_some_and(|x| x.identity() == b.identity())
                            })
                    }
                    _ => false,
                }
        };
        let found = find_node(&self.unique, nodes, hash, same);
        let index = match found {
            Some(i) => i,
            None => {
                let mut bounds = Bounds::with_capacity(pieces.len() - 1);
                for &(src, _) in pieces.iter().skip(1) {
                    bounds.push(
                        bound(src)
                            .cloned()
                            .ok_or_else(|| Error::new(ErrorKind::ForeignMarker))?,
                    );
                }
                let children = pieces.iter().map(|p| p.1).collect();
                self.insert_node(var, hash, Edges::Intervals { bounds, children })?
            }
        };
        let m = Marker(index << 1);
        Ok(if flip { !m } else { m })
    }

    /// The node of `var` whose string points are `self.scratch[base..]` (each literal read from
    /// operand `a` or `b`, [`Piece`]) and whose other strings go to `other`: points that go to
    /// `other` dropped, complemented when `other` is. Allocates only for a node not stored yet.
    fn mk_strings(
        &mut self,
        var: Var,
        base: usize,
        a: Operand,
        b: Operand,
        other: Marker,
    ) -> Result<Marker, Error> {
        let nodes = &self.nodes;
        let literal = |src: u32| Operand::piece_literal(a, b, nodes, src);
        let pieces = self.scratch.get_mut(base..).unwrap_or_default();
        let mut kept = 0;
        for k in 0..pieces.len() {
            if let Some(&p) = pieces.get(k) {
                if p.1 != other {
                    if let Some(slot) = pieces.get_mut(kept) {
                        *slot = p;
                    }
                    kept += 1;
                }
            }
        }
        self.scratch.truncate(base + kept);
        if kept == 0 {
            return Ok(other);
        }
        let pieces = self.scratch.get_mut(base..).unwrap_or_default();
        let flip = other.is_complement();
        let other = if flip {
            for p in pieces.iter_mut() {
                p.1 = !p.1;
            }
            !other
        } else {
            other
        };
        let pieces: &[(u32, Marker)] = pieces;
        let mut h = rustc_hash::FxHasher::default();
        std::hash::Hasher::write_u32(&mut h, var.0);
        for &(src, c) in pieces {
            let s = literal(src).map_or("", |s| &**s);
            std::hash::Hash::hash(s, &mut h);
            std::hash::Hasher::write_u32(&mut h, c.0);
        }
        std::hash::Hasher::write_u32(&mut h, other.0);
        let hash = std::hash::Hasher::finish(&h);
        let same = |n: &Node| {
            n.var == var
                && match &*n.edges {
                    Edges::Strings { points, other: o } => {
                        *o == other
                            && points.len() == pieces.len()
                            && points.iter().zip(pieces).all(|((s, c), p)| {
                                *c == p.1 && literal(p.0).is_some_and(|x| x == s)
                            })
                    }
                    _ => false,
                }
        };
        let found = find_node(&self.unique, nodes, hash, same);
        let index = match found {
            Some(i) => i,
            None => {
                let mut points = Points::with_capacity(pieces.len());
                for &(src, c) in pieces {
                    let s = literal(src)
                        .cloned()
                        .ok_or_else(|| Error::new(ErrorKind::ForeignMarker))?;
                    points.push((s, c));
                }
                self.insert_node(var, hash, Edges::Strings { points, other })?
            }
        };
        let m = Marker(index << 1);
        Ok(if flip { !m } else { m })
    }

    // ----- atoms -----

    /// The marker "`var` is in `set`".
    ///
    /// # Errors
    ///
    /// When `var` is not a [`Domain::Version`] variable of this context.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain, VersionSet};
    ///
    /// let mut ctx = Context::new();
    /// let cuda = ctx.variable(0, "cuda_version", Domain::Version)?;
    /// let absent = ctx.version_set(cuda, &VersionSet::absent())?;
    /// let present = ctx.version_set(cuda, &VersionSet::versions())?;
    /// assert_eq!(absent, !present);
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn version_set(&mut self, var: Var, set: &VersionSet) -> Result<Marker, Error> {
        self.domain_of(var, Domain::Version)?;
        let all = set.bounds();
        let starts_inside = all.first() == Some(&Cut::BOTTOM);
        let mut bounds = Bounds::with_capacity(all.len());
        for c in all {
            if *c == Cut::BOTTOM || *c == Cut::TOP {
                continue;
            }
            // Interned: the nodes hash their cuts by identity.
            bounds.push(self.cuts.intern(c));
        }
        let mut inside = starts_inside;
        let mut children = Children::with_capacity(bounds.len() + 1);
        children.push(if inside { Marker::TRUE } else { Marker::FALSE });
        for _ in &bounds {
            inside = !inside;
            children.push(if inside { Marker::TRUE } else { Marker::FALSE });
        }
        self.mk(var, Edges::Intervals { bounds, children })
    }

    /// The marker "`var` satisfies `spec`", pre-releases allowed, false on the absent value
    /// (see [`VersionSet::from_specifier`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ArbitraryEquality`] for `===`; a wrong or foreign variable.
    pub fn version_specifier(
        &mut self,
        var: Var,
        spec: &VersionSpecifier,
    ) -> Result<Marker, Error> {
        let set = VersionSet::from_specifier(spec)
            .ok_or_else(|| Error::new(ErrorKind::ArbitraryEquality))?;
        self.version_set(var, &set)
    }

    /// The marker "`var == literal`" for a [`Domain::String`] variable (`""` is the absent
    /// value).
    ///
    /// # Errors
    ///
    /// A wrong or foreign variable.
    ///
    /// See the second example on [`Context`].
    pub fn string_eq(&mut self, var: Var, literal: &str) -> Result<Marker, Error> {
        self.domain_of(var, Domain::String)?;
        let seen = self.literals.entry(var).or_default();
        let shared: std::sync::Arc<str> = match seen.get(literal) {
            Some(s) => s.clone(),
            None => {
                let s: std::sync::Arc<str> = literal.into();
                seen.insert(s.clone());
                s
            }
        };
        self.mk(
            var,
            Edges::Strings {
                points: smallvec::smallvec![(shared, Marker::TRUE)],
                other: Marker::FALSE,
            },
        )
    }

    /// The marker "`var` is one of `literals`" for a [`Domain::String`] variable, built as one
    /// node: an `or` of [`string_eq`](Self::string_eq)s, one at a time, copies the growing
    /// node each time (quadratic in the number of literals; `F in "L"` has one per substring
    /// of `L`).
    pub(crate) fn string_in(&mut self, var: Var, literals: &[String]) -> Result<Marker, Error> {
        self.domain_of(var, Domain::String)?;
        let seen = self.literals.entry(var).or_default();
        let mut points = Points::with_capacity(literals.len());
        for literal in literals {
            let shared: std::sync::Arc<str> = match seen.get(literal.as_str()) {
                Some(s) => s.clone(),
                None => {
                    let s: std::sync::Arc<str> = literal.as_str().into();
                    seen.insert(s.clone());
                    s
                }
            };
            points.push((shared, Marker::TRUE));
        }
        points.sort_by(|a, b| a.0.cmp(&b.0));
        points.dedup_by(|a, b| a.0 == b.0);
        self.mk(
            var,
            Edges::Strings {
                points,
                other: Marker::FALSE,
            },
        )
    }

    /// The marker "`var` is true" for a [`Domain::Bool`] variable.
    ///
    /// # Errors
    ///
    /// A wrong or foreign variable.
    ///
    /// See the second example on [`Context`].
    pub fn boolean(&mut self, var: Var) -> Result<Marker, Error> {
        self.domain_of(var, Domain::Bool)?;
        self.mk(
            var,
            Edges::Bool {
                yes: Marker::TRUE,
                no: Marker::FALSE,
            },
        )
    }

    /// The marker "`var` has the value `value`".
    ///
    /// # Errors
    ///
    /// A value of another domain, or a foreign variable.
    ///
    /// See the second example on [`Context`].
    pub fn equals(&mut self, var: Var, value: &Value) -> Result<Marker, Error> {
        let domain = self.info(var)?.domain;
        match (domain, value) {
            (Domain::Version, Value::Absent) => self.version_set(var, &VersionSet::absent()),
            (Domain::Version, Value::Version(v)) => {
                self.version_set(var, &VersionSet::interval(Cut::below(v), Cut::above(v)))
            }
            (Domain::String, Value::Absent) => self.string_eq(var, ""),
            (Domain::String, Value::String(s)) => self.string_eq(var, s),
            (Domain::Bool, Value::Bool(b)) => {
                let m = self.boolean(var)?;
                Ok(if *b { m } else { !m })
            }
            _ => self
                .domain_of(var, domain_of_value(value))
                .map(|()| Marker::FALSE),
        }
    }

    // ----- connectives -----

    /// `a and b`.
    ///
    /// A pair whose conjunction the context holds already (asked before, here or through
    /// [`or`](Self::or), or met inside another operation) is answered without entering the
    /// recursion, and is then copied into a small table of callers' answers, apart from the
    /// recursion's many intermediate pairs, so that a question asked over and over stays one
    /// fast lookup. [`is_disjoint`](Self::is_disjoint) and [`implies`](Self::implies) share
    /// both tables.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the limits; a foreign marker.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
    /// let a = ctx.version_specifier(py, &">=3.8".parse()?)?;
    /// let b = ctx.version_specifier(py, &"<3.8".parse()?)?;
    /// assert!(ctx.and(a, b)?.is_false());
    /// assert!(!ctx.or(a, b)?.is_true()); // 3.8's pre-releases are in neither
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn and(&mut self, a: Marker, b: Marker) -> Result<Marker, Error> {
        self.check(a)?;
        self.check(b)?;
        if let Some(r) = and_trivial(a, b) {
            return Ok(r);
        }
        // A pair asked before is one lookup: in the callers' table, else in the recursion's,
        // from which it moves to the callers' (a pair asked once is not copied there).
        let key = ordered(a, b);
        if let Some(&r) = self.answers.get(&key) {
            if r != OVERLAP {
                return Ok(r);
            }
        }
        if let Some(&r) = self.and_cache.get(&key) {
            if r != OVERLAP {
                self.answer(key, r);
                return Ok(r);
            }
        }
        let mut budget = self.budget();
        self.and_new(a, b, &mut budget)
    }

    /// `a or b` (by De Morgan: `not (not a and not b)`, sharing `and`'s cache).
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn or(&mut self, a: Marker, b: Marker) -> Result<Marker, Error> {
        Ok(!self.and(!a, !b)?)
    }

    /// [`and`](Self::and) for the crate's own operations: the recursion's table alone, so
    /// that their many intermediate pairs stay out of the callers' table (`answers`).
    pub(crate) fn conj(&mut self, a: Marker, b: Marker) -> Result<Marker, Error> {
        self.check(a)?;
        self.check(b)?;
        // A pair asked before is one lookup, without entering the recursion.
        if let Some(r) = self.and_known(a, b) {
            return Ok(r);
        }
        let mut budget = self.budget();
        self.and_new(a, b, &mut budget)
    }

    /// Copies a pair asked again into the callers' table (`answers`).
    fn answer(&mut self, key: (Marker, Marker), r: Marker) {
        if self.answers.capacity() == 0 {
            // Room at once for the pairs a caller asks again (a lock file's are thousands),
            // without the first few growths.
            self.answers.reserve(1 << 10);
        }
        self.answers.insert(key, r);
    }

    /// [`or`](Self::or) for the crate's own operations (see [`conj`](Self::conj)).
    pub(crate) fn disj(&mut self, a: Marker, b: Marker) -> Result<Marker, Error> {
        Ok(!self.conj(!a, !b)?)
    }

    /// The conjunction of `ms` (reordered): the markers whose top variable comes last in the
    /// variable order are conjoined first, so that each step mostly adds nodes above the
    /// conjunction so far instead of rebuilding it.
    pub(crate) fn and_all(&mut self, ms: &mut [Marker]) -> Result<Marker, Error> {
        for &m in ms.iter() {
            self.check(m)?;
        }
        // Constants first (they decide or vanish at once), then by top variable, last first.
        let key = |m: Marker| {
            self.top(m)
                .and_then(|v| self.var_position.get(v.0 as usize))
                .map_or(u64::MAX, |&p| p)
        };
        const HELD: usize = 8;
        if ms.len() <= HELD {
            // Each key computed once, sorted on the stack (stable, as below).
            let mut keyed = [(0, Marker::TRUE); HELD];
            for (slot, &m) in keyed.iter_mut().zip(ms.iter()) {
                *slot = (u64::MAX - key(m), m);
            }
            let keyed = keyed.get_mut(..ms.len()).unwrap_or_default();
            keyed.sort_by_key(|p| p.0);
            for (m, p) in ms.iter_mut().zip(keyed.iter()) {
                *m = p.1;
            }
        } else {
            ms.sort_by_cached_key(|&m| std::cmp::Reverse(key(m)));
        }
        let mut acc = Marker::TRUE;
        for &m in ms.iter() {
            let mut budget = self.budget();
            acc = self.and_rec(acc, m, &mut budget)?;
        }
        Ok(acc)
    }

    /// `not a`, in O(1); the same as `!a`.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn not(&self, a: Marker) -> Marker {
        !a
    }

    /// `a and b` when it needs no work: a constant or repeated operand, or a pair in the cache.
    #[inline]
    fn and_known(&self, a: Marker, b: Marker) -> Option<Marker> {
        if let Some(r) = and_trivial(a, b) {
            return Some(r);
        }
        self.and_cache
            .get(&ordered(a, b))
            .copied()
            .filter(|r| *r != OVERLAP)
    }

    fn and_rec(&mut self, a: Marker, b: Marker, budget: &mut Budget) -> Result<Marker, Error> {
        match self.and_known(a, b) {
            Some(r) => Ok(r),
            None => self.and_new(a, b, budget),
        }
    }

    /// `a and b` for a pair [`and_known`](Self::and_known) does not answer: built from the
    /// operands' edges, and stored in the cache.
    fn and_new(&mut self, a: Marker, b: Marker, budget: &mut Budget) -> Result<Marker, Error> {
        let key = ordered(a, b);
        budget.enter()?;
        let (Some(va), Some(vb)) = (self.top(a), self.top(b)) else {
            return Err(Error::new(ErrorKind::ForeignMarker));
        };
        let var = if self.var_cmp(va, vb) == Ordering::Greater {
            vb
        } else {
            va
        };
        let (oa, ob) = (self.operand(a, var)?, self.operand(b, var)?);
        let base = self.scratch.len();
        let r = self.and_pieces(var, oa, ob, base, budget);
        self.scratch.truncate(base);
        let r = r?;
        budget.leave();
        self.and_cache.insert(key, r);
        Ok(r)
    }

    /// One step of `and_rec`: the conjunction of the children of `a` and `b` on each piece of
    /// their common refinement, in [`combine`]'s order, built in `self.scratch[base..]` and
    /// stored as a node of `var`.
    fn and_pieces(
        &mut self,
        var: Var,
        a: Operand,
        b: Operand,
        base: usize,
        budget: &mut Budget,
    ) -> Result<Marker, Error> {
        let foreign = || Error::new(ErrorKind::ForeignMarker);
        match self.info(var)?.domain {
            Domain::Version => {
                let (mut i, mut j) = (0, 0);
                // The source of the bound before the current piece (none before the first).
                let mut src = u32::MAX;
                let mut last = None;
                loop {
                    let (Some(x), Some(y)) = (
                        a.interval_child(&self.nodes, i),
                        b.interval_child(&self.nodes, j),
                    ) else {
                        return Err(foreign());
                    };
                    let c = self.and_rec(x, y, budget)?;
                    // Neighbouring pieces with one child are one piece: the bound between
                    // them is dropped.
                    if last != Some(c) {
                        self.scratch.push((src, c));
                        last = Some(c);
                    }
                    let from_a = |i: usize| u32::try_from(i).map_err(|_| foreign());
                    let from_b = |j: usize| Ok::<_, Error>(from_a(j)? | Piece::FROM_B);
                    match (a.bound(&self.nodes, i), b.bound(&self.nodes, j)) {
                        (None, None) => break,
                        (Some(_), None) => {
                            src = from_a(i)?;
                            i += 1;
                        }
                        (None, Some(_)) => {
                            src = from_b(j)?;
                            j += 1;
                        }
                        (Some(p), Some(q)) => match cut_cmp(p, q) {
                            Ordering::Less => {
                                src = from_a(i)?;
                                i += 1;
                            }
                            Ordering::Greater => {
                                src = from_b(j)?;
                                j += 1;
                            }
                            Ordering::Equal => {
                                src = from_a(i)?;
                                i += 1;
                                j += 1;
                            }
                        },
                    }
                }
                self.mk_intervals(var, base, a, b)
            }
            Domain::String => {
                let (Some(oa), Some(ob)) = (a.other(&self.nodes), b.other(&self.nodes)) else {
                    return Err(foreign());
                };
                let (mut i, mut j) = (0, 0);
                loop {
                    let (src, x, y) = match (a.point(&self.nodes, i), b.point(&self.nodes, j)) {
                        (None, None) => break,
                        (Some((_, x)), None) => {
                            i += 1;
                            (i - 1, x, ob)
                        }
                        (None, Some((_, y))) => {
                            j += 1;
                            ((j - 1) | Piece::FROM_B as usize, oa, y)
                        }
                        (Some((s, x)), Some((t, y))) => match literal_cmp(s, t) {
                            Ordering::Less => {
                                i += 1;
                                (i - 1, x, ob)
                            }
                            Ordering::Greater => {
                                j += 1;
                                ((j - 1) | Piece::FROM_B as usize, oa, y)
                            }
                            Ordering::Equal => {
                                i += 1;
                                j += 1;
                                (i - 1, x, y)
                            }
                        },
                    };
                    let src = u32::try_from(src).map_err(|_| foreign())?;
                    let c = self.and_rec(x, y, budget)?;
                    self.scratch.push((src, c));
                }
                let other = self.and_rec(oa, ob, budget)?;
                self.mk_strings(var, base, a, b, other)
            }
            Domain::Bool => {
                let (Some((ya, na)), Some((yb, nb))) =
                    (a.yes_no(&self.nodes), b.yes_no(&self.nodes))
                else {
                    return Err(foreign());
                };
                let yes = self.and_rec(ya, yb, budget)?;
                let no = self.and_rec(na, nb, budget)?;
                self.mk(var, Edges::Bool { yes, no })
            }
        }
    }

    // ----- questions -----

    /// Whether `a` implies `b` (exact).
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn implies(&mut self, a: Marker, b: Marker) -> Result<bool, Error> {
        self.is_disjoint(a, !b)
    }

    /// [`implies`](Self::implies) for the crate's own operations (see [`conj`](Self::conj)).
    pub(crate) fn entails(&mut self, a: Marker, b: Marker) -> Result<bool, Error> {
        self.disjoint(a, !b)
    }

    /// Whether `a` and `b` are equivalent: by canonicity, whether they are the same marker.
    ///
    /// See the second example on [`Context`].
    #[must_use]
    pub fn equivalent(&self, a: Marker, b: Marker) -> bool {
        a == b
    }

    /// Whether `a` and `b` never hold together (exact).
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn is_disjoint(&mut self, a: Marker, b: Marker) -> Result<bool, Error> {
        self.check(a)?;
        self.check(b)?;
        if let Some(disjoint) = disjoint_trivial(a, b) {
            return Ok(disjoint);
        }
        // A pair asked before (`and` or `is_disjoint`) is one lookup, as in `and`.
        let key = ordered(a, b);
        if let Some(&r) = self.answers.get(&key) {
            return Ok(r.is_false());
        }
        if let Some(&r) = self.and_cache.get(&key) {
            self.answer(key, r);
            return Ok(r.is_false());
        }
        let mut budget = self.budget();
        match self.disjoint_rec(a, b, &mut budget) {
            Ok(()) => Ok(true),
            Err(Stop::Overlap) => Ok(false),
            Err(Stop::Error(e)) => Err(e),
        }
    }

    /// [`is_disjoint`](Self::is_disjoint) for the crate's own operations (see
    /// [`conj`](Self::conj)).
    pub(crate) fn disjoint(&mut self, a: Marker, b: Marker) -> Result<bool, Error> {
        self.check(a)?;
        self.check(b)?;
        // A pair asked before is one lookup, without entering the recursion.
        if let Some(disjoint) = self.disjoint_known(a, b) {
            return Ok(disjoint);
        }
        let mut budget = self.budget();
        match self.disjoint_rec(a, b, &mut budget) {
            Ok(()) => Ok(true),
            Err(Stop::Overlap) => Ok(false),
            Err(Stop::Error(e)) => Err(e),
        }
    }

    /// Whether `a` and `b` are disjoint when it needs no work: a constant or repeated operand,
    /// or a pair in the cache (`and`'s or `is_disjoint`'s).
    #[inline]
    fn disjoint_known(&self, a: Marker, b: Marker) -> Option<bool> {
        if let Some(disjoint) = disjoint_trivial(a, b) {
            return Some(disjoint);
        }
        self.and_cache.get(&ordered(a, b)).map(|r| r.is_false())
    }

    /// `Ok(())` when `a and b` is false, `Err(Stop::Overlap)` as soon as a common satisfiable
    /// case is found; builds no node.
    fn disjoint_rec(&mut self, a: Marker, b: Marker, budget: &mut Budget) -> Result<(), Stop> {
        match self.disjoint_known(a, b) {
            Some(true) => return Ok(()),
            Some(false) => return Err(Stop::Overlap),
            None => {}
        }
        let key = ordered(a, b);
        budget.enter().map_err(Stop::Error)?;
        let (Some(va), Some(vb)) = (self.top(a), self.top(b)) else {
            return Err(Stop::Error(Error::new(ErrorKind::ForeignMarker)));
        };
        let var = if self.var_cmp(va, vb) == Ordering::Greater {
            vb
        } else {
            va
        };
        let (ea, fa) = self.edges_raw(a, var).map_err(Stop::Error)?;
        let (eb, fb) = self.edges_raw(b, var).map_err(Stop::Error)?;
        let result = visit_pieces(
            &ea,
            &eb,
            |x, y| self.disjoint_rec(flip(x, fa), flip(y, fb), budget),
            || Stop::Error(Error::new(ErrorKind::ForeignMarker)),
        );
        budget.leave();
        match result {
            Ok(_) => {
                self.and_cache.insert(key, Marker::FALSE);
                Ok(())
            }
            Err(Stop::Overlap) => {
                self.and_cache.insert(key, OVERLAP);
                Err(Stop::Overlap)
            }
            Err(e) => Err(e),
        }
    }

    /// The four cells of `a` and `b`, each empty or with a witness. Under a theory
    /// ([`Context::from_marker`]) every cell lies inside it: `neither` is `not a and not b`
    /// where the theory holds, not in the environments it rules out.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn relate(&mut self, a: Marker, b: Marker) -> Result<Relation, Error> {
        let cells = self.cells(a, b)?;
        let [x, y, z, w] = cells.map(|c| self.solve(c));
        Ok(Relation {
            a_and_b: x?,
            a_not_b: y?,
            b_not_a: z?,
            neither: w?,
        })
    }

    /// How `a` and `b` relate: [`relate`](Self::relate)'s [`kind`](Relation::kind), without
    /// looking for witnesses (two `implies` and an `is_disjoint`, which build no node). For a
    /// resolver's question "may both hold?" or "does one cover the other?".
    ///
    /// ```
    /// use markerspec_algebra::{Context, RelationKind, Theory};
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let mut ctx = Context::new();
    /// let mut read = |text: &str| {
    ///     let tree: MarkerTree = text.parse().unwrap();
    ///     ctx.from_marker(&tree, &Theory::none())
    /// };
    /// let (new, old) = (read("python_version >= '3.12'")?, read("python_version >= '3.9'")?);
    /// let (linux, win) = (read("sys_platform == 'linux'")?, read("sys_platform == 'win32'")?);
    /// assert_eq!(ctx.relation(new, old)?, RelationKind::Implies);
    /// assert_eq!(ctx.relation(linux, win)?, RelationKind::Disjoint);
    /// assert_eq!(ctx.relation(new, linux)?, ctx.relate(new, linux)?.kind());
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn relation(&mut self, a: Marker, b: Marker) -> Result<RelationKind, Error> {
        // The kind reads the cells `a and not b`, `not a and b` and `a and b`, inside the
        // theory's constraint (`neither` is not read).
        let (a, b, _) = self.within_theory(a, b)?;
        Ok(match (self.entails(a, b)?, self.entails(b, a)?) {
            (true, true) => RelationKind::Equivalent,
            (true, false) => RelationKind::Implies,
            (false, true) => RelationKind::ImpliedBy,
            (false, false) if self.disjoint(a, b)? => RelationKind::Disjoint,
            (false, false) => RelationKind::Overlapping,
        })
    }

    /// The four cells of [`relate`](Self::relate): `a and b`, `a and not b`, `not a and b`,
    /// `not a and not b`, each inside the context's theory.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn cells(&mut self, a: Marker, b: Marker) -> Result<[Marker; 4], Error> {
        let (a, b, care) = self.within_theory(a, b)?;
        let neither = self.conj(!a, !b)?;
        Ok([
            self.conj(a, b)?,
            self.conj(a, !b)?,
            self.conj(!a, b)?,
            self.conj(neither, care)?,
        ])
    }

    /// `a` and `b` inside the context's theory constraint as it is now, and that constraint.
    /// Under the platform theory the constraint gains rules as the context meets new
    /// literals ([`Context::theory_constraint`]): a marker read before lies inside the older
    /// constraint only, and the environments between the two would read as cells of the
    /// pair, so that a relation would depend on what the context had read in between.
    fn within_theory(&mut self, a: Marker, b: Marker) -> Result<(Marker, Marker, Marker), Error> {
        let theory = self.theory();
        let care = self.theory_constraint(&theory)?;
        Ok((self.conj(a, care)?, self.conj(b, care)?, care))
    }

    /// Values under which `m` holds, or `None` when `m` is unsatisfiable. Deterministic: the
    /// first satisfiable edge in edge order at every node (the least point of an interval when
    /// it has one; a string literal before "any other string", which is written `"other"`,
    /// `"other1"`, … avoiding the node's literals; `true` before `false`).
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let b = ctx.variable(0, "extra:x", Domain::Bool)?;
    /// let x = ctx.boolean(b)?;
    /// assert!(ctx.solve(x)?.is_some());
    /// let never = ctx.and(x, !x)?;
    /// assert!(ctx.solve(never)?.is_none());
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A foreign marker.
    pub fn solve(&self, m: Marker) -> Result<Option<Witness>, Error> {
        self.solve_near(m, |_| None)
    }

    /// As [`solve`](Self::solve), but at each node the edge that holds `prefer`'s value for
    /// the node's variable is taken first, when `m` can still hold there: the witness keeps
    /// every preferred value the walk can keep (a witness environment stays as close to the
    /// default environment as it can). Where it cannot, a preferred version leads to the
    /// satisfiable interval nearest it (the first above it, else the last below it) and to a
    /// plain release inside ([`plain_version_between`]).
    pub(crate) fn solve_near(
        &self,
        m: Marker,
        prefer: impl Fn(Var) -> Option<Value>,
    ) -> Result<Option<Witness>, Error> {
        self.check(m)?;
        let mut values = Vec::new();
        let mut cur = m;
        while !cur.is_const() {
            let Some(var) = self.top(cur) else {
                return Err(Error::new(ErrorKind::ForeignMarker));
            };
            let edges = self.edges(cur, var)?;
            let preferred = prefer(var);
            if let Some(value) = &preferred {
                if let Some(next) = child_for(&edges, value).filter(|c| !c.is_false()) {
                    values.push((var, value.clone()));
                    cur = next;
                    continue;
                }
            }
            let (value, next) = match &*edges {
                Edges::Intervals { bounds, children } => {
                    // The satisfiable edges: interval, a point of it, child.
                    let (bottom, top) = (Cut::BOTTOM, Cut::TOP);
                    let mut open: Vec<(&Cut, &Cut, Point, Marker)> = Vec::new();
                    for (k, &c) in children.iter().enumerate() {
                        if c.is_false() {
                            continue;
                        }
                        let lo = if k == 0 {
                            Some(&bottom)
                        } else {
                            bounds.get(k - 1)
                        };
                        let hi = bounds.get(k).unwrap_or(&top);
                        if let Some(lo) = lo {
                            if let Some(p) = lo.point_between(hi) {
                                open.push((lo, hi, p, c));
                            }
                        }
                    }
                    // Of those, the one nearest a preferred version (which lies in none of
                    // them): the first above it, else the last below it; else the first.
                    let chosen = match &preferred {
                        Some(Value::Version(v)) => {
                            let near = Point::Version(v.clone());
                            open.iter()
                                .position(|(lo, ..)| !lo.is_below(&near))
                                .or_else(|| open.iter().rposition(|(_, hi, ..)| hi.is_below(&near)))
                                .unwrap_or(0)
                        }
                        _ => 0,
                    };
                    let Some((lo, hi, p, c)) = open.into_iter().nth(chosen) else {
                        return Ok(None);
                    };
                    let p = match (&preferred, p) {
                        (Some(near), Point::Version(least)) => {
                            Point::Version(plain_version_between(lo, hi, near).unwrap_or(least))
                        }
                        (_, p) => p,
                    };
                    (point_value(p), c)
                }
                Edges::Strings { points, other } => {
                    match points.iter().find(|(_, c)| !c.is_false()) {
                        Some((s, c)) => (Value::String(s.to_string()), *c),
                        None => (Value::String(fresh_string(points)), *other),
                    }
                }
                Edges::Bool { yes, no } => {
                    if yes.is_false() {
                        (Value::Bool(false), *no)
                    } else {
                        (Value::Bool(true), *yes)
                    }
                }
            };
            values.push((var, value));
            cur = next;
        }
        Ok(cur.is_true().then_some(Witness { values }))
    }

    /// The value of `m` where each variable has the value `env` gives it.
    ///
    /// # Errors
    ///
    /// A value of the wrong domain; a foreign marker.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain, Value};
    ///
    /// let mut ctx = Context::new();
    /// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
    /// let m = ctx.version_specifier(py, &">=3.13".parse()?)?;
    /// let rc = Value::Version("3.13.0rc1".parse()?);
    /// assert!(!ctx.evaluate(m, |_| rc.clone())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evaluate(&self, m: Marker, env: impl Fn(Var) -> Value) -> Result<bool, Error> {
        self.check(m)?;
        let mut cur = m;
        while !cur.is_const() {
            let Some(var) = self.top(cur) else {
                return Err(Error::new(ErrorKind::ForeignMarker));
            };
            let value = env(var);
            let edges = self.edges(cur, var)?;
            cur = match child_for(&edges, &value) {
                Some(c) => c,
                None => {
                    return match self.domain_of(var, domain_of_value(&value)) {
                        Err(e) => Err(e),
                        Ok(()) => Err(Error::new(ErrorKind::UnknownVariable)),
                    };
                }
            };
        }
        Ok(cur.is_true())
    }

    // ----- transformations -----

    /// A marker equal to `m` wherever `assumption` holds, and as small as this method can make
    /// it elsewhere (Coudert and Madre's *restrict*: the cases `assumption` excludes are
    /// "don't care" and take a neighbouring case's value). `false` when `assumption` is false.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
    /// let m = ctx.version_specifier(py, &">=3.8".parse()?)?;
    /// let requires_python = ctx.version_specifier(py, &">=3.9".parse()?)?;
    /// assert!(ctx.restrict(m, requires_python)?.is_true());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn restrict(&mut self, m: Marker, assumption: Marker) -> Result<Marker, Error> {
        self.check(m)?;
        self.check(assumption)?;
        let mut budget = self.budget();
        let mut cache = HashMap::default();
        self.restrict_rec(m, assumption, &mut cache, &mut budget)
    }

    fn restrict_rec(
        &mut self,
        f: Marker,
        c: Marker,
        cache: &mut HashMap<(Marker, Marker), Marker>,
        budget: &mut Budget,
    ) -> Result<Marker, Error> {
        if c.is_true() || f.is_const() {
            return Ok(f);
        }
        if c.is_false() {
            return Ok(Marker::FALSE);
        }
        if f == c {
            return Ok(Marker::TRUE);
        }
        if f == !c {
            return Ok(Marker::FALSE);
        }
        if let Some(&r) = cache.get(&(f, c)) {
            return Ok(r);
        }
        budget.enter()?;
        let (Some(vf), Some(vc)) = (self.top(f), self.top(c)) else {
            return Err(Error::new(ErrorKind::ForeignMarker));
        };
        let r = match self.var_cmp(vf, vc) {
            Ordering::Less => {
                let e = self.edges(f, vf)?;
                let e = e.map(|x| self.restrict_rec(x, c, cache, budget))?;
                self.mk(vf, e)?
            }
            Ordering::Greater => {
                let mut q = Marker::FALSE;
                for child in self.edges(c, vc)?.children() {
                    q = !self.and_rec(!q, !child, budget)?;
                }
                self.restrict_rec(f, q, cache, budget)?
            }
            Ordering::Equal => {
                let ef = self.edges(f, vf)?;
                let ec = self.edges(c, vc)?;
                let joint = combine(
                    &ef,
                    &ec,
                    |x, y| {
                        if y.is_false() {
                            Ok(None)
                        } else {
                            self.restrict_rec(x, y, cache, budget).map(Some)
                        }
                    },
                    || Error::new(ErrorKind::ForeignMarker),
                )?;
                let filled = fill_dont_care(joint);
                match filled {
                    Some(e) => self.mk(vf, e)?,
                    None => Marker::FALSE,
                }
            }
        };
        budget.leave();
        cache.insert((f, c), r);
        Ok(r)
    }

    /// `m` with `var` given the value `value` (the cofactor): a marker that no longer depends on
    /// `var`.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and); a value of the wrong domain.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain, Value};
    ///
    /// let mut ctx = Context::new();
    /// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
    /// let os = ctx.variable(1, "sys_platform", Domain::String)?;
    /// let new = ctx.version_specifier(py, &">=3.12".parse()?)?;
    /// let win = ctx.string_eq(os, "win32")?;
    /// let m = ctx.or(new, win)?;
    /// let on_linux = ctx.assign(m, os, &Value::String("linux".into()))?;
    /// assert_eq!(on_linux, new);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assign(&mut self, m: Marker, var: Var, value: &Value) -> Result<Marker, Error> {
        let eq = self.equals(var, value)?;
        if eq.is_false() {
            // Only reached with a value of the wrong domain, reported by `equals`.
            return Ok(m);
        }
        self.restrict(m, eq)
    }

    /// `exists var. m`: true where some value of `var` makes `m` true. Dropping a variable
    /// soundly: `(x and e) or f` without `e` is `x or f`.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let machine = ctx.variable(0, "platform_machine", Domain::String)?;
    /// let a = ctx.variable(9, "extra:a", Domain::Bool)?;
    /// let b = ctx.variable(9, "extra:b", Domain::Bool)?;
    /// let x86 = ctx.string_eq(machine, "x86_64")?;
    /// let (ea, eb) = (ctx.boolean(a)?, ctx.boolean(b)?);
    /// let x86_b = ctx.and(x86, eb)?;
    /// let m = ctx.or(x86_b, ea)?;
    /// let without_a = ctx.exists(m, a)?;
    /// assert!(without_a.is_true()); // not `platform_machine == 'x86_64'`
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    pub fn exists(&mut self, m: Marker, var: Var) -> Result<Marker, Error> {
        self.check(m)?;
        self.info(var)?;
        let mut budget = self.budget();
        let mut cache = HashMap::default();
        self.exists_rec(m, var, &mut cache, &mut budget)
    }

    /// `forall var. m`: true where every value of `var` makes `m` true.
    ///
    /// # Errors
    ///
    /// As [`and`](Self::and).
    pub fn forall(&mut self, m: Marker, var: Var) -> Result<Marker, Error> {
        Ok(!self.exists(!m, var)?)
    }

    fn exists_rec(
        &mut self,
        m: Marker,
        var: Var,
        cache: &mut HashMap<Marker, Marker>,
        budget: &mut Budget,
    ) -> Result<Marker, Error> {
        let Some(top) = self.top(m) else {
            return Ok(m);
        };
        if self.var_cmp(top, var) == Ordering::Greater {
            return Ok(m);
        }
        if let Some(&r) = cache.get(&m) {
            return Ok(r);
        }
        budget.enter()?;
        let edges = self.edges(m, top)?;
        let r = if top == var {
            let mut acc = Marker::FALSE;
            for child in edges.children() {
                acc = !self.and_rec(!acc, !child, budget)?;
            }
            acc
        } else {
            let e = edges.map(|c| self.exists_rec(c, var, cache, budget))?;
            self.mk(top, e)?
        };
        budget.leave();
        cache.insert(m, r);
        Ok(r)
    }

    // ----- inspection and printing -----

    /// The variables `m` depends on, in the context's variable order.
    ///
    /// # Errors
    ///
    /// A foreign marker.
    ///
    /// See the second example on [`Context`].
    pub fn support(&self, m: Marker) -> Result<Vec<Var>, Error> {
        self.check(m)?;
        let mut seen = HashSet::default();
        let mut vars = std::collections::BTreeSet::new();
        let mut stack = vec![m];
        while let Some(x) = stack.pop() {
            if x.is_const() || !seen.insert(x.index()) {
                continue;
            }
            if let Some(node) = self.nodes.get(x.index()) {
                vars.insert(node.var);
                node.edges.push_children(&mut stack);
            }
        }
        let mut out: Vec<Var> = vars.into_iter().collect();
        out.sort_by(|a, b| self.var_cmp(*a, *b));
        Ok(out)
    }

    /// The strings the nodes of `var` in `m` name (each node's points), sorted, each once:
    /// the strings whose label may differ from every other string's in `m`.
    pub(crate) fn strings_of(&self, m: Marker, var: Var) -> Vec<std::sync::Arc<str>> {
        let mut seen = HashSet::default();
        let mut out: Vec<std::sync::Arc<str>> = Vec::new();
        let mut stack = vec![m];
        while let Some(x) = stack.pop() {
            if x.is_const() || !seen.insert(x.index()) {
                continue;
            }
            let Some(node) = self.nodes.get(x.index()) else {
                continue;
            };
            // Below `var` in the order, no node of it.
            if self.var_cmp(node.var, var) == Ordering::Greater {
                continue;
            }
            if node.var == var {
                if let Edges::Strings { points, .. } = &*node.edges {
                    out.extend(points.iter().map(|(p, _)| p.clone()));
                }
                continue;
            }
            node.edges.push_children(&mut stack);
        }
        out.sort();
        out.dedup();
        out
    }

    /// The domain of a variable.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::UnknownVariable`] for a variable of another context.
    ///
    /// See the second example on [`Context`].
    pub fn domain(&self, var: Var) -> Result<Domain, Error> {
        Ok(self.info(var)?.domain)
    }

    /// The number of decision nodes reachable from `m`.
    ///
    /// # Errors
    ///
    /// A foreign marker.
    ///
    /// See the second example on [`Context`].
    pub fn node_count(&self, m: Marker) -> Result<usize, Error> {
        self.check(m)?;
        let mut seen = HashSet::default();
        let mut stack = vec![m];
        while let Some(x) = stack.pop() {
            if x.is_const() || !seen.insert(x.index()) {
                continue;
            }
            if let Some(node) = self.nodes.get(x.index()) {
                node.edges.push_children(&mut stack);
            }
        }
        Ok(seen.len())
    }

    /// Whether `m` has more than `limit` decision nodes ([`node_count`](Self::node_count) `>
    /// limit`), found without counting past `limit`: what the printer asks of every marker.
    pub(crate) fn more_nodes_than(&self, m: Marker, limit: usize) -> Result<bool, Error> {
        self.check(m)?;
        // At most `limit` nodes are kept, so a search of the list is as quick as a table.
        let mut seen: Vec<usize> = Vec::with_capacity(limit.min(64));
        let mut stack = vec![m];
        while let Some(x) = stack.pop() {
            if x.is_const() || seen.contains(&x.index()) {
                continue;
            }
            if seen.len() == limit {
                return Ok(true);
            }
            seen.push(x.index());
            if let Some(node) = self.nodes.get(x.index()) {
                node.edges.push_children(&mut stack);
            }
        }
        Ok(false)
    }

    /// The paths of `m` to `true`, in a deterministic order that depends only on the function `m`
    /// denotes (not on how it was built): at each node, the children in order of their first
    /// edge, each with the union of its edges as the label. The paths are disjoint and their
    /// union is `m`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] when there are more than [`Limits::steps`] labels in all;
    /// a foreign marker.
    ///
    /// See the second example on [`Context`].
    pub fn paths(&self, m: Marker) -> Result<Vec<Vec<(Var, Label)>>, Error> {
        let refs = self.paths_with(m, &mut HashMap::default())?;
        Ok(refs
            .cubes()
            .into_iter()
            .map(|cube| cube.into_iter().map(|(v, l)| (v, l.clone())).collect())
            .collect())
    }

    /// [`paths`](Self::paths), with each node's groups of edges kept in the context's cache
    /// (the printer reads the same nodes many times), and the labels read in place.
    pub(crate) fn paths_cached(&mut self, m: Marker) -> Result<PathRefs, Error> {
        let mut cache = std::mem::take(&mut self.groups_cache);
        let r = self.paths_with(m, &mut cache);
        self.groups_cache = cache;
        r
    }

    /// [`paths`](Self::paths), reading each stored node's groups of edges (complement not
    /// applied) through `cache`.
    fn paths_with(&self, m: Marker, cache: &mut GroupsCache) -> Result<PathRefs, Error> {
        self.check(m)?;
        let mut out = PathRefs::default();
        if m.is_false() {
            return Ok(out);
        }
        let mut steps = self.limits.steps;
        let mut spend = |n: usize| {
            steps = steps
                .checked_sub(n as u64)
                .ok_or_else(|| Error::intractable(Limit::Steps))?;
            Ok::<(), Error>(())
        };
        // Each node's place in `out.groups`, for the nodes met so far.
        let mut placed: HashMap<usize, u32> = HashMap::default();
        // Depth-first, one frame per node on the current path: the node's variable, its
        // groups of edges, whether it is complemented, the next group to visit, and the
        // groups' place in `out.groups`.
        let mut path: Vec<(Var, u32, u32)> = Vec::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut cur = Some(m);
        loop {
            if let Some(node) = cur.take() {
                spend(1)?;
                if node.is_true() {
                    spend(path.len())?;
                    out.paths.push(path.clone());
                } else if !node.is_false() {
                    let Some(var) = self.top(node) else {
                        return Err(Error::new(ErrorKind::ForeignMarker));
                    };
                    let index = node.index();
                    let at = match placed.get(&index) {
                        Some(&at) => at,
                        None => {
                            let groups = match cache.get(&index) {
                                Some(g) => g.clone(),
                                None => {
                                    let (edges, _) = self.edges_raw(node, var)?;
                                    let g = std::sync::Arc::new(group_edges_as_stored(&edges));
                                    cache.insert(index, g.clone());
                                    g
                                }
                            };
                            let at = u32::try_from(out.groups.len())
                                .map_err(|_| Error::intractable(Limit::Steps))?;
                            out.groups.push(groups);
                            placed.insert(index, at);
                            at
                        }
                    };
                    frames.push((var, at, node.is_complement(), 0));
                    continue;
                }
            }
            // Advance to the next group of the innermost frame, popping finished frames.
            let Some((var, at, negated, next)) = frames.last_mut() else {
                break;
            };
            if *next > 0 {
                path.pop();
            }
            match out
                .groups
                .get(*at as usize)
                .and_then(|g| g.get(*next as usize))
            {
                Some((child, _)) => {
                    path.push((*var, *at, *next));
                    *next += 1;
                    cur = Some(flip(*child, *negated));
                }
                None => {
                    frames.pop();
                }
            }
        }
        Ok(out)
    }

    /// `m` as a disjunction of its [`paths`](Self::paths): `true`, `false`, or conjunctions of
    /// `name in SET`, `name == "s"`, `name in {"s", "t"}`, `name not in {…}`, `name`, `not name`
    /// joined by ` or `. Deterministic; not yet the short form a lock file wants.
    ///
    /// # Errors
    ///
    /// As [`paths`](Self::paths).
    ///
    /// ```
    /// use markerspec_algebra::{Context, Domain};
    ///
    /// let mut ctx = Context::new();
    /// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
    /// let win = ctx.variable(1, "sys_platform", Domain::String)?;
    /// let a = ctx.version_specifier(py, &">=3.9".parse()?)?;
    /// let b = ctx.string_eq(win, "win32")?;
    /// let m = ctx.and(a, b)?;
    /// assert_eq!(ctx.dnf(m)?, "python_full_version in [3.9, +∞) and sys_platform == \"win32\"");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dnf(&self, m: Marker) -> Result<String, Error> {
        if m.is_true() {
            return Ok("true".into());
        }
        if m.is_false() {
            return Ok("false".into());
        }
        let paths = self.paths(m)?;
        let many = paths.len() > 1;
        let mut out = String::new();
        for (i, path) in paths.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            let paren = many && path.len() > 1;
            if paren {
                out.push('(');
            }
            for (j, (var, label)) in path.iter().enumerate() {
                if j > 0 {
                    out.push_str(" and ");
                }
                let name = self.name(*var)?;
                let _ = match label {
                    Label::Versions(set) => write!(out, "{name} in {set}"),
                    Label::StringIn(v) if v.len() == 1 => {
                        write!(out, "{name} == {:?}", v.first().map_or("", String::as_str))
                    }
                    Label::StringIn(v) => write!(out, "{name} in {{{}}}", quoted(v)),
                    Label::StringNotIn(v) if v.len() == 1 => {
                        write!(out, "{name} != {:?}", v.first().map_or("", String::as_str))
                    }
                    Label::StringNotIn(v) => write!(out, "{name} not in {{{}}}", quoted(v)),
                    Label::Bool(true) => write!(out, "{name}"),
                    Label::Bool(false) => write!(out, "not {name}"),
                };
            }
            if paren {
                out.push(')');
            }
        }
        Ok(out)
    }
}

/// A node on the current path of [`Context::paths`]: its variable, the place of its groups of
/// edges in [`PathRefs::groups`], whether it is complemented, and the next group to visit.
type Frame = (Var, u32, bool, u32);

/// The paths of a marker ([`Context::paths`]) with their labels read in place: each step of a
/// path is a variable and a group of edges of a node (its place in `groups`, and the group's
/// index there).
#[derive(Default)]
pub(crate) struct PathRefs {
    groups: Vec<std::sync::Arc<Vec<(Marker, Label)>>>,
    paths: Vec<Vec<(Var, u32, u32)>>,
}

impl PathRefs {
    /// The number of paths.
    pub(crate) fn len(&self) -> usize {
        self.paths.len()
    }

    /// The paths as cubes: each a list of literals, a variable and its label, top down.
    pub(crate) fn cubes(&self) -> Vec<Vec<(Var, &Label)>> {
        self.paths
            .iter()
            .map(|path| {
                path.iter()
                    .filter_map(|&(var, at, k)| {
                        let groups = self.groups.get(at as usize)?;
                        groups.get(k as usize).map(|(_, label)| (var, label))
                    })
                    .collect()
            })
            .collect()
    }
}

/// Each stored node's groups of edges (complement not applied), by node index.
pub(crate) type GroupsCache = HashMap<usize, std::sync::Arc<Vec<(Marker, Label)>>>;

fn quoted(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn domain_of_value(value: &Value) -> Domain {
    match value {
        Value::Absent | Value::Version(_) => Domain::Version,
        Value::String(_) => Domain::String,
        Value::Bool(_) => Domain::Bool,
    }
}

/// The gap [`Context::variable`] leaves between two neighbouring labels of the variable
/// order: 2^31 labels, so that about 31 variables can be declared one after another between the
/// same two neighbours before the labels are spaced out again, and spacing out four billion
/// variables stays below `u64::MAX`.
const VAR_LABEL_SPACING: u64 = 1 << 31;

/// A label strictly between `lo` and `hi` (none: no bound on that side; labels start above 0 and
/// stay below `u64::MAX`), one spacing after `lo` where that fits, else halfway; `None` when no
/// label is left between them.
fn between(lo: Option<u64>, hi: Option<u64>) -> Option<u64> {
    let lo = lo.unwrap_or(0);
    let hi = hi.unwrap_or(u64::MAX);
    match lo.checked_add(VAR_LABEL_SPACING) {
        Some(next) if next < hi => Some(next),
        _ => (hi - lo >= 2).then(|| lo + (hi - lo) / 2),
    }
}

/// The hash of a variable's name in [`Context`]'s `by_name` table.
fn name_hash(name: &str) -> u64 {
    std::hash::BuildHasher::hash_one(&rustc_hash::FxBuildHasher, name)
}

/// The index of the stored node hashed `hash` for which `same` holds, if there is one.
#[inline]
fn find_node(
    unique: &hashbrown::HashTable<u32>,
    nodes: &[Node],
    hash: u64,
    same: impl Fn(&Node) -> bool,
) -> Option<u32> {
    unique
        .find(hash, |&i| {
            nodes
                .get(i as usize)
                .is_some_and(|n| n.hash == hash && same(n))
        })
        .copied()
}

/// A release-only version strictly between `lo` and `hi`, for a witness that reads like a real
/// value: built from the bounds' release numbers (each prefix, and its last number one down
/// and one up: `3.8.1` gives `3.8.0`, `3.7`, `3.9`, `2`, `4`, …; failing those, one more
/// number, after up to two zeros: `3.12.0.1` between `3.12.0` and `3.12.1`). Of those inside,
/// the greatest when the interval lies below `near` (the default environment's value; an
/// absent default counts as above every bounded interval), else the least. `None` when none
/// lies inside.
fn plain_version_between(lo: &Cut, hi: &Cut, near: &Value) -> Option<Version> {
    let inside = |v: &Version| {
        let p = Point::Version(v.clone());
        lo.is_below(&p) && !hi.is_below(&p)
    };
    let plain = |v: &Version| {
        v.pre().is_none() && v.post().is_none() && v.dev().is_none() && v.local().is_empty()
    };
    let below_near = match near {
        Value::Version(v) => hi.is_below(&Point::Version(v.clone())),
        _ => *hi != Cut::TOP,
    };
    let bases: Vec<Version> = lo
        .candidate_versions()
        .into_iter()
        .chain(hi.candidate_versions())
        .filter(plain)
        .collect();
    let with_release = |v: &Version, release: Vec<u64>| Version::new(release).with_epoch(v.epoch());
    let mut near_bases: Vec<Version> = Vec::new();
    for v in &bases {
        let mut release = v.release().to_vec();
        if let Some(last) = release.last_mut() {
            if let Some(up) = last.checked_add(1) {
                *last = up;
                near_bases.push(with_release(v, release));
            }
        }
        near_bases.push(v.clone());
    }
    // A base is kept in its shortest spelling (`3.12` for `3.12.0`): zeros are put back before
    // the added number, fewest first.
    let longer = |zeros: usize| {
        bases
            .iter()
            .map(|v| {
                let mut release = v.release().to_vec();
                release.extend(std::iter::repeat_n(0, zeros));
                release.push(1);
                with_release(v, release)
            })
            .collect::<Vec<_>>()
    };
    let pick = |candidates: Vec<Version>| {
        let inside = candidates.into_iter().filter(|v| inside(v));
        if below_near {
            inside.max()
        } else {
            inside.min()
        }
    };
    pick(near_bases).or_else(|| (0..3).find_map(|zeros| pick(longer(zeros))))
}

fn point_value(p: Point) -> Value {
    match p {
        Point::Absent => Value::Absent,
        Point::Version(v) => Value::Version(v),
    }
}

/// The child of `edges` that `value` leads to; `None` when the value is of another domain.
fn child_for(edges: &Edges<Marker>, value: &Value) -> Option<Marker> {
    match (edges, value) {
        (Edges::Intervals { bounds, children }, Value::Absent | Value::Version(_)) => {
            let point = match value {
                Value::Version(v) => Point::Version(v.clone()),
                _ => Point::Absent,
            };
            let k = bounds.partition_point(|c| c.is_below(&point));
            children.get(k).copied()
        }
        (Edges::Strings { points, other }, Value::String(_) | Value::Absent) => {
            let s = match value {
                Value::String(s) => s.as_str(),
                _ => "",
            };
            Some(match points.binary_search_by(|(p, _)| (**p).cmp(s)) {
                Ok(i) => points.get(i).map_or(*other, |(_, c)| *c),
                Err(_) => *other,
            })
        }
        (Edges::Bool { yes, no }, Value::Bool(b)) => Some(if *b { *yes } else { *no }),
        _ => None,
    }
}

/// A string none of `points` is: `"other"`, else `"other1"`, `"other2"`, ….
fn fresh_string(points: &[(std::sync::Arc<str>, Marker)]) -> String {
    let taken = |s: &str| points.binary_search_by(|(p, _)| (**p).cmp(s)).is_ok();
    let mut n = 0u64;
    loop {
        let s = if n == 0 {
            "other".to_owned()
        } else {
            format!("other{n}")
        };
        if !taken(&s) {
            return s;
        }
        n += 1;
    }
}

/// A negated marker read through its stored node: the child as the marker sees it.
fn flip(m: Marker, negated: bool) -> Marker {
    if negated { !m } else { m }
}

/// Each distinct child of a stored node (complement not applied) with the union of its edges,
/// in order of first appearance.
fn group_edges_as_stored(edges: &Edges<Marker>) -> Vec<(Marker, Label)> {
    distinct_children(edges)
        .into_iter()
        .map(|child| (child, label_of(edges, child)))
        .collect()
}

/// Each distinct child of `edges`, in order of first appearance.
fn distinct_children<T: Copy + PartialEq>(edges: &Edges<T>) -> smallvec::SmallVec<[T; 4]> {
    let mut order: smallvec::SmallVec<[T; 4]> = smallvec::SmallVec::new();
    let mut add = |c: T| {
        if !order.contains(&c) {
            order.push(c);
        }
    };
    match edges {
        Edges::Intervals { children, .. } => children.iter().for_each(|c| add(*c)),
        Edges::Strings { points, other } => {
            points.iter().for_each(|(_, c)| add(*c));
            add(*other);
        }
        Edges::Bool { yes, no } => {
            add(*yes);
            add(*no);
        }
    }
    order
}

/// The union of the edges of `edges` that lead to `child`.
fn label_of<T: Copy + PartialEq>(edges: &Edges<T>, child: T) -> Label {
    match edges {
        Edges::Intervals { bounds, children } => {
            // The intervals leading to `child`, in increasing order.
            let mut intervals = Vec::new();
            for (k, c) in children.iter().enumerate() {
                if *c == child {
                    let lo = if k == 0 {
                        Some(&Cut::BOTTOM)
                    } else {
                        bounds.get(k - 1)
                    };
                    let hi = bounds.get(k).unwrap_or(&Cut::TOP);
                    if let Some(lo) = lo {
                        intervals.push((lo, hi));
                    }
                }
            }
            Label::Versions(VersionSet::from_increasing_intervals(intervals))
        }
        Edges::Strings { points, other } => {
            if *other == child {
                Label::StringNotIn(
                    points
                        .iter()
                        .filter(|(_, c)| *c != child)
                        .map(|(s, _)| s.to_string())
                        .collect(),
                )
            } else {
                Label::StringIn(
                    points
                        .iter()
                        .filter(|(_, c)| *c == child)
                        .map(|(s, _)| s.to_string())
                        .collect(),
                )
            }
        }
        Edges::Bool { yes, .. } => Label::Bool(*yes == child),
    }
}

/// Gives every "don't care" piece the value of its nearest cared-for neighbour (left first);
/// `None` when every piece is "don't care".
fn fill_dont_care(edges: Edges<Option<Marker>>) -> Option<Edges<Marker>> {
    match edges {
        Edges::Intervals { bounds, children } => {
            let first = children.iter().flatten().next().copied()?;
            let mut prev = first;
            let children = children
                .into_iter()
                .map(|c| {
                    let v = c.unwrap_or(prev);
                    prev = v;
                    v
                })
                .collect();
            Some(Edges::Intervals { bounds, children })
        }
        Edges::Strings { points, other } => {
            let other = match other {
                Some(o) => o,
                None => points.iter().find_map(|(_, c)| *c)?,
            };
            Some(Edges::Strings {
                points: points
                    .into_iter()
                    .map(|(s, c)| (s, c.unwrap_or(other)))
                    .collect(),
                other,
            })
        }
        Edges::Bool { yes, no } => match (yes, no) {
            (Some(y), Some(n)) => Some(Edges::Bool { yes: y, no: n }),
            (Some(v), None) | (None, Some(v)) => Some(Edges::Bool { yes: v, no: v }),
            (None, None) => None,
        },
    }
}

// ----- cubes (for the printer) -----

/// A node's variable, its groups of edges as stored, and whether each child reads negated.
pub(crate) type CachedGroups = (Var, std::sync::Arc<Vec<(Marker, Label)>>, bool);

impl Context {
    /// A node's groups of edges ([`group_edges_as_stored`]) read through the printer's cache
    /// of each stored node's groups (as [`paths`](Self::paths) fills it): the top variable,
    /// the groups as stored, and whether each child reads negated.
    pub(crate) fn groups_cached(&mut self, m: Marker) -> Result<Option<CachedGroups>, Error> {
        self.check(m)?;
        let Some(var) = self.top(m) else {
            return Ok(None);
        };
        let index = m.index();
        let groups = match self.groups_cache.get(&index) {
            Some(g) => g.clone(),
            None => {
                let (edges, _) = self.edges_raw(m, var)?;
                let g = std::sync::Arc::new(group_edges_as_stored(&edges));
                self.groups_cache.insert(index, g.clone());
                g
            }
        };
        Ok(Some((var, groups, m.is_complement())))
    }

    /// The conjunction of a cube's literals, built directly (one node per literal, bottom up):
    /// the literals' variables must be distinct and in the context's variable order, as on a
    /// path of [`paths`](Self::paths).
    ///
    /// # Errors
    ///
    /// A literal whose label does not fit its variable's domain; a foreign variable; the node
    /// limit.
    pub(crate) fn cube_marker(&mut self, cube: &[(Var, &Label)]) -> Result<Marker, Error> {
        let mut acc = Marker::TRUE;
        for (var, label) in cube.iter().rev() {
            let edges = match label {
                Label::Versions(set) => {
                    self.domain_of(*var, Domain::Version)?;
                    let all = set.bounds();
                    let mut inside = all.first() == Some(&Cut::BOTTOM);
                    let bounds: Bounds = all
                        .iter()
                        .filter(|c| **c != Cut::BOTTOM && **c != Cut::TOP)
                        .cloned()
                        .collect();
                    let mut children = Children::with_capacity(bounds.len() + 1);
                    children.push(if inside { acc } else { Marker::FALSE });
                    for _ in &bounds {
                        inside = !inside;
                        children.push(if inside { acc } else { Marker::FALSE });
                    }
                    Edges::Intervals { bounds, children }
                }
                Label::StringIn(v) | Label::StringNotIn(v) => {
                    self.domain_of(*var, Domain::String)?;
                    let is_in = matches!(label, Label::StringIn(_));
                    let (hit, miss) = if is_in {
                        (acc, Marker::FALSE)
                    } else {
                        (Marker::FALSE, acc)
                    };
                    let seen = self.literals.entry(*var).or_default();
                    let mut points: Points<Marker> = v
                        .iter()
                        .map(|s| {
                            let shared = match seen.get(s.as_str()) {
                                Some(x) => x.clone(),
                                None => {
                                    let x: std::sync::Arc<str> = s.as_str().into();
                                    seen.insert(x.clone());
                                    x
                                }
                            };
                            (shared, hit)
                        })
                        .collect();
                    points.sort_by(|a, b| a.0.cmp(&b.0));
                    points.dedup_by(|a, b| a.0 == b.0);
                    Edges::Strings {
                        points,
                        other: miss,
                    }
                }
                Label::Bool(b) => {
                    self.domain_of(*var, Domain::Bool)?;
                    if *b {
                        Edges::Bool {
                            yes: acc,
                            no: Marker::FALSE,
                        }
                    } else {
                        Edges::Bool {
                            yes: Marker::FALSE,
                            no: acc,
                        }
                    }
                }
            };
            acc = self.mk(*var, edges)?;
        }
        Ok(acc)
    }

    /// The nodes a path of `m` passes through, top down: at each node, the child of the first
    /// piece that meets the path's label for the node's variable (a path of
    /// [`paths`](Self::paths) reaches exactly one child per node).
    pub(crate) fn path_nodes(&self, m: Marker, path: &[(Var, &Label)]) -> Vec<Marker> {
        let mut out = Vec::with_capacity(path.len());
        let mut cur = m;
        while !cur.is_const() {
            let Some(node) = self.nodes.get(cur.index()) else {
                break;
            };
            out.push(cur);
            let neg = cur.is_complement();
            let label = path.iter().find(|(v, _)| *v == node.var).map(|(_, l)| *l);
            let next = match (&*node.edges, label) {
                (Edges::Intervals { bounds, children }, Some(Label::Versions(set))) => {
                    children.iter().enumerate().find_map(|(k, c)| {
                        let lo = if k == 0 {
                            &Cut::BOTTOM
                        } else {
                            bounds.get(k - 1).unwrap_or(&Cut::TOP)
                        };
                        let hi = bounds.get(k).unwrap_or(&Cut::TOP);
                        set.intervals()
                            .any(|(l, h)| std::cmp::max(lo, l) < std::cmp::min(hi, h))
                            .then_some(*c)
                    })
                }
                (Edges::Strings { points, other }, Some(Label::StringIn(v))) => {
                    v.first().map(|s| {
                        points
                            .binary_search_by(|(p, _)| (**p).cmp(s.as_str()))
                            .ok()
                            .and_then(|i| points.get(i))
                            .map_or(*other, |(_, c)| *c)
                    })
                }
                (Edges::Strings { other, .. }, Some(Label::StringNotIn(_))) => Some(*other),
                (Edges::Bool { yes, no }, Some(Label::Bool(b))) => {
                    Some(if *b { *yes } else { *no })
                }
                _ => None,
            };
            match next {
                Some(c) => cur = flip(c, neg),
                None => break,
            }
        }
        out
    }

    /// Whether every assignment in the cube (the conjunction of `lits`, at most one literal per
    /// variable) satisfies `m`: a walk over `m` through the edges that meet the cube's labels,
    /// building no nodes.
    ///
    /// # Errors
    ///
    /// A foreign marker.
    pub(crate) fn cube_within(
        &self,
        lits: &[(Var, &Label)],
        m: Marker,
        seen: &mut Seen,
    ) -> Result<bool, Error> {
        self.check(m)?;
        seen.clear();
        Ok(self.cube_within_rec(lits, m, seen))
    }

    /// [`cube_within`](Self::cube_within) for a cube that leaves `m`'s top variable free,
    /// taking every child of `m` other than `known` (a child the caller knows the cube to lie
    /// within) as the cube's part there.
    ///
    /// # Errors
    ///
    /// A foreign marker.
    pub(crate) fn cube_within_except(
        &self,
        lits: &[(Var, &Label)],
        m: Marker,
        known: Marker,
        seen: &mut Seen,
    ) -> Result<bool, Error> {
        self.check(m)?;
        seen.clear();
        if m.is_const() {
            return Ok(m.is_true());
        }
        let Some(node) = self.nodes.get(m.index()) else {
            return Err(Error::new(ErrorKind::ForeignMarker));
        };
        let neg = m.is_complement();
        let mut each = |c: &Marker| {
            let c = flip(*c, neg);
            c == known || self.cube_within_rec(lits, c, seen)
        };
        Ok(match &*node.edges {
            Edges::Intervals { children, .. } => children.iter().all(&mut each),
            Edges::Strings { points, other } => points.iter().all(|(_, c)| each(c)) && each(other),
            Edges::Bool { yes, no } => each(yes) && each(no),
        })
    }

    fn cube_within_rec(&self, lits: &[(Var, &Label)], m: Marker, seen: &mut Seen) -> bool {
        if m.is_const() {
            return m.is_true();
        }
        if seen.contains(&m) {
            return true;
        }
        let Some(node) = self.nodes.get(m.index()) else {
            return false;
        };
        let neg = m.is_complement();
        let label = lits.iter().find(|(v, _)| *v == node.var).map(|(_, l)| *l);
        let ok = match (&*node.edges, label) {
            (Edges::Intervals { bounds, children }, Some(Label::Versions(set))) => {
                // Both lists are sorted: one sweep finds the pieces that meet the set.
                let mut spans = set.intervals().peekable();
                let mut ok = true;
                for (k, c) in children.iter().enumerate() {
                    let lo = if k == 0 {
                        &Cut::BOTTOM
                    } else {
                        bounds.get(k - 1).unwrap_or(&Cut::TOP)
                    };
                    let hi = bounds.get(k).unwrap_or(&Cut::TOP);
                    while spans.next_if(|(_, h)| *h <= lo).is_some() {}
                    let Some((l, _)) = spans.peek() else {
                        break;
                    };
                    // Cuts are normalised: an interval between two distinct cuts has points.
                    if *l < hi && !self.cube_within_rec(lits, flip(*c, neg), seen) {
                        ok = false;
                        break;
                    }
                }
                ok
            }
            (Edges::Strings { points, other }, Some(Label::StringIn(v))) => v.iter().all(|s| {
                let c = points
                    .binary_search_by(|(p, _)| (**p).cmp(s.as_str()))
                    .ok()
                    .and_then(|i| points.get(i))
                    .map_or(*other, |(_, c)| *c);
                self.cube_within_rec(lits, flip(c, neg), seen)
            }),
            (Edges::Strings { points, other }, Some(Label::StringNotIn(v))) => {
                points.iter().all(|(s, c)| {
                    v.iter().any(|x| x.as_str() == &**s)
                        || self.cube_within_rec(lits, flip(*c, neg), seen)
                }) && self.cube_within_rec(lits, flip(*other, neg), seen)
                // Infinitely many strings are in neither list: `other` always meets.
            }
            (Edges::Bool { yes, no }, Some(Label::Bool(b))) => {
                self.cube_within_rec(lits, flip(if *b { *yes } else { *no }, neg), seen)
            }
            (Edges::Intervals { children, .. }, _) => children
                .iter()
                .all(|c| self.cube_within_rec(lits, flip(*c, neg), seen)),
            (Edges::Strings { points, other }, _) => {
                points
                    .iter()
                    .all(|(_, c)| self.cube_within_rec(lits, flip(*c, neg), seen))
                    && self.cube_within_rec(lits, flip(*other, neg), seen)
            }
            (Edges::Bool { yes, no }, _) => {
                self.cube_within_rec(lits, flip(*yes, neg), seen)
                    && self.cube_within_rec(lits, flip(*no, neg), seen)
            }
        };
        if ok {
            seen.insert(m);
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cut table interns equal cuts to one copy, keeps distinct ones apart, and files
    /// them under hashes that tell them apart (a constant hash would answer the same, one
    /// long probe at a time).
    #[test]
    fn the_cut_table_keeps_one_copy_under_telling_hashes() -> Result<(), markerspec_pep440::Error> {
        let mut table = CutTable::default();
        let mut hashes = std::collections::BTreeSet::new();
        for x in 0..10u64 {
            for y in 0..10u64 {
                let v: Version = format!("{x}.{y}").parse()?;
                let first = table.intern(&Cut::below(&v));
                let again = table.intern(&Cut::below(&v));
                assert_eq!(first.identity(), again.identity(), "{v}");
                assert!(table.get(&Cut::below(&v)).is_some(), "{v}");
                hashes.insert(CutTable::hash(&first));
            }
        }
        assert_eq!(table.0.len(), 100);
        assert!(hashes.len() > 90, "{}", hashes.len());
        Ok(())
    }

    /// Every pair of variables compares as `(rank, name)` does.
    fn assert_order(ctx: &Context, vars: &[(u32, String, Var)]) {
        for (ra, na, a) in vars {
            for (rb, nb, b) in vars {
                assert_eq!(ctx.var_cmp(*a, *b), (ra, na).cmp(&(rb, nb)), "{na} {nb}");
            }
        }
    }

    /// A pair asked again, which moves to the callers' table, answers as it did the first
    /// time, whichever question put it there: an overlapping pair first asked by
    /// `is_disjoint` (stored as "overlaps, conjunction not computed") then by `and`, a disjoint
    /// pair first asked by `and` then by `is_disjoint` and `implies`; and again after
    /// `clear_caches`.
    #[test]
    fn pairs_asked_again_answer_as_the_first_time() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let py = ctx.variable(0, "python_full_version", Domain::Version)?;
        let spec = |ctx: &mut Context, text: &str| -> Result<Marker, Box<dyn std::error::Error>> {
            Ok(ctx.version_specifier(py, &text.parse()?)?)
        };
        let (ge38, lt310, ge312) = (
            spec(&mut ctx, ">=3.8")?,
            spec(&mut ctx, "<3.10")?,
            spec(&mut ctx, ">=3.12")?,
        );
        // Known answers, from the recursion itself (with the tables emptied after).
        let between = ctx.conj(ge38, lt310)?;
        let either = ctx.disj(lt310, ge312)?;
        assert!(!between.is_false() && !either.is_true());
        assert!(ctx.conj(between, !ge38)?.is_false() && ctx.conj(between, !lt310)?.is_false());
        ctx.clear_caches();
        for round in 0..2 {
            for _ in 0..3 {
                assert!(!ctx.is_disjoint(ge38, lt310)?, "round {round}");
                assert!(!ctx.is_disjoint(lt310, ge38)?, "round {round}");
            }
            for _ in 0..3 {
                assert_eq!(ctx.and(ge38, lt310)?, between, "round {round}");
                assert_eq!(ctx.and(lt310, ge38)?, between, "round {round}");
                assert_eq!(ctx.or(lt310, ge312)?, either, "round {round}");
                assert!(!ctx.is_disjoint(!lt310, !ge312)?, "round {round}");
            }
            for _ in 0..3 {
                assert!(ctx.and(lt310, ge312)?.is_false(), "round {round}");
                assert!(ctx.is_disjoint(ge312, lt310)?, "round {round}");
                assert!(ctx.implies(ge312, ge38)?, "round {round}");
                assert!(!ctx.implies(ge38, ge312)?, "round {round}");
                assert!(ctx.implies(between, either)?, "round {round}");
            }
            ctx.clear_caches();
        }
        Ok(())
    }

    /// A variable declared again with its rank and domain is the same variable; with another
    /// rank or another domain, a `wrong-domain` error.
    #[test]
    fn a_variable_declared_again_keeps_its_rank_and_domain() -> Result<(), Error> {
        let mut ctx = Context::new();
        let x = ctx.variable(3, "x", Domain::Version)?;
        assert_eq!(ctx.variable(3, "x", Domain::Version)?, x);
        // Another domain, or another rank, is refused (either alone).
        for (rank, domain) in [(3, Domain::String), (4, Domain::Version)] {
            let r = ctx.variable(rank, "x", domain);
            assert!(
                r.as_ref().is_err_and(|e| e.code() == "wrong-domain"),
                "rank {rank}, {domain:?}: {r:?}"
            );
        }
        Ok(())
    }

    /// The variable order is `(rank, name)` whatever the order of declaration: at either end,
    /// in a random order, and with many variables declared one after another between the same
    /// two neighbours (the labels between them run out and are spaced out again).
    #[test]
    fn variables_are_ordered_by_rank_then_name() -> Result<(), Error> {
        let mut ctx = Context::new();
        let mut vars = Vec::new();
        let mut declare = |ctx: &mut Context, rank: u32, name: String| -> Result<(), Error> {
            let var = ctx.variable(rank, &name, Domain::Bool)?;
            // Declaring it again gives the same variable.
            assert_eq!(ctx.variable(rank, &name, Domain::Bool)?, var);
            vars.push((rank, name, var));
            Ok(())
        };
        // Each one first: its label halves the gap below the first.
        for i in (0..100).rev() {
            declare(&mut ctx, 5, format!("down{i:03}"))?;
        }
        // Each one last.
        for i in 0..100 {
            declare(&mut ctx, 9, format!("up{i:03}"))?;
        }
        // Each one just after the one before, all between the same two neighbours.
        declare(&mut ctx, 7, "m".to_owned())?;
        declare(&mut ctx, 7, "n".to_owned())?;
        let mut name = "m".to_owned();
        for _ in 0..100 {
            name.push('5');
            declare(&mut ctx, 7, name.clone())?;
        }
        // A random order (a fixed linear congruential sequence).
        let mut x: u64 = 12345;
        for _ in 0..300 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let rank = u32::try_from(x >> 61).unwrap_or(0) * 2 + 4;
            declare(&mut ctx, rank, format!("r{rank}-{}", (x >> 40) % 1000))?;
        }
        vars.sort();
        vars.dedup();
        assert_order(&ctx, &vars);
        Ok(())
    }
}
