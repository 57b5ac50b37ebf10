//! An irredundant sum of products read straight from a diagram: the cover print form 7 writes
//! (`spec/SPEC.md` §21.4).
//!
//! The recurrence is Minato and Morreale's ISOP (E. Morreale, "Recursive operators for prime
//! implicant and irredundant normal form determination", IEEE Trans. Computers, 1970; S.
//! Minato, "Fast generation of irredundant sum-of-products forms from binary decision
//! diagrams", SASIMI 1992), for decisions over more than two values as uv-pep508 0.0.98 applies
//! it to its range-valued decisions (`src/marker/algebra/isop.rs`, read for its behaviour).
//! Given a lower bound `L` and an upper bound `U` (`L` implies `U`), it returns a cover `C` and
//! the function `I` it denotes, with `L ⇒ I ⇒ U`:
//!
//! - split both bounds by the first variable either reads, into the pieces of its domain on
//!   which both are constant in that variable (their common refinement, pieces with the same
//!   pair of children taken together);
//! - `U₀`, the conjunction of every piece's upper bound, is where a cube may leave the
//!   variable out;
//! - each piece `k` covers, under the piece's literal, the part of its lower bound outside
//!   `U₀` (`Lₖ ∧ ¬U₀`, within `Uₖ`); pieces whose covers denote the same function share one
//!   literal, the union of theirs;
//! - what the pieces' covers leave of their lower bounds is covered without the variable,
//!   within `U₀`.
//!
//! Each recursive call reads variables after the current one, so the recursion ends (and is
//! as deep as the variables on a path, within the context's depth limit). A cover depends only
//! on its two bounds, so the context keeps each pair's for every later cover (a lock file's
//! markers share most of their parts). What a pair's cover would cost built with no cache at
//! all, its steps (one per pair not constant, counted again wherever it recurs) and its height,
//! is kept beside it and checked against the context's limits whether or not the cover came
//! from the cache: whether a cover is within the limits, and so the printed text, does not
//! depend on what the context did before.
//!
//! Each cube covers a point of the marker no other cube covers: a piece's cubes cover points
//! of `Lₖ` outside `U₀`, where no cube without the variable reaches, and a cube without it
//! covers a point some piece's cover left out, under that piece's literal, where only that
//! piece's cubes reach. A literal is never grown past the pieces it was made of, so the cover
//! need not be prime (print form 7 does not look for a shorter literal).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use std::hash::{Hash, Hasher};

use super::{Context, Edges, Label, Marker, Var, combine, distinct_children, flip, label_of};
use crate::cut::Cut;
use crate::error::{Error, ErrorKind, Limit};

/// A cover as a tree: each branch a literal (none for the part that leaves the variable out)
/// and the cover under it. Subtrees are shared, so a cover's cubes may be many more than its
/// branches.
#[derive(Clone, Debug)]
pub(crate) enum Cover {
    /// No cube.
    False,
    /// One cube with no literal.
    True,
    /// The union of the branches.
    Branches(Arc<[Branch]>),
}

/// One branch of a [`Cover`].
#[derive(Clone, Debug)]
pub(crate) struct Branch {
    /// The branch's literal ([`Literals`]); `None` where the branch leaves its variable out.
    guard: Option<LitId>,
    cover: Cover,
}

/// A literal of the context's covers: its place in [`Literals`].
pub(crate) type LitId = u32;

/// The literals of the context's covers, each `(variable, label)` once, by id: a cover's
/// cubes are lists of ids, which the printer numbers, spells (once per literal, for every
/// cover) and factors without reading or hashing a label again.
#[derive(Clone, Debug, Default)]
pub(crate) struct Literals {
    list: Vec<Literal>,
    /// Ids hashed by their literal.
    ids: hashbrown::HashTable<LitId>,
}

/// One of [`Literals`].
#[derive(Clone, Debug)]
pub(crate) struct Literal {
    pub(crate) var: Var,
    pub(crate) label: Label,
    hash: u64,
    /// The version variable has no version (`is_absent`): a literal the printer may leave
    /// out beside its field's text.
    pub(crate) absent: bool,
    /// The printer's text, and whether it has a top-level `or`, once spelt.
    pub(crate) text: Option<(Box<str>, bool)>,
}

impl Literals {
    /// How many literals there are (every id is below it).
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// The literal with id `id`.
    pub(crate) fn get(&self, id: LitId) -> Option<&Literal> {
        self.list.get(id as usize)
    }

    /// The literal's spelling, once the printer has stored it.
    pub(crate) fn set_text(&mut self, id: LitId, text: (Box<str>, bool)) {
        if let Some(l) = self.list.get_mut(id as usize) {
            l.text = Some(text);
        }
    }

    /// The id of `(var, label)`, made when it is new.
    fn id(&mut self, var: Var, label: Label) -> LitId {
        let hash = label_hash(var, &label);
        let list = &self.list;
        if let Some(&id) = self.ids.find(hash, |&id| {
            list.get(id as usize)
                .is_some_and(|l| l.var == var && l.label == label)
        }) {
            return id;
        }
        self.insert(var, label, hash)
    }

    /// The id of the literal of `var` where `edges` lead to `child` ([`label_of`]), found
    /// without building its label when the literal is known (most pieces' literals are).
    fn id_of<T: Copy + PartialEq>(&mut self, var: Var, edges: &Edges<T>, child: T) -> LitId {
        let hash = {
            let mut h = LabelHasher::new(var);
            edge_label(edges, child, &mut h);
            h.finish()
        };
        let list = &self.list;
        if let Some(&id) = self.ids.find(hash, |&id| {
            list.get(id as usize).is_some_and(|l| {
                if l.var != var {
                    return false;
                }
                let mut same = LabelMatch::new(&l.label);
                edge_label(edges, child, &mut same);
                same.matches()
            })
        }) {
            return id;
        }
        let label = label_of(edges, child);
        debug_assert_eq!(label_hash(var, &label), hash);
        self.insert(var, label, hash)
    }

    /// Files a new literal under `hash` (`label_hash` of it).
    fn insert(&mut self, var: Var, label: Label, hash: u64) -> LitId {
        // Past `u32::MAX` literals the node limit has long stopped the context.
        let id = LitId::try_from(self.list.len()).unwrap_or(LitId::MAX);
        let absent = matches!(&label, Label::Versions(set) if set.is_absent());
        self.list.push(Literal {
            var,
            label,
            hash,
            absent,
            text: None,
        });
        let list = &self.list;
        self.ids
            .insert_unique(hash, id, |&i| list.get(i as usize).map_or(0, |l| l.hash));
        id
    }
}

impl Cover {
    /// Calls `f` with each cube, its literals in variable order; [`ErrorKind::Intractable`]
    /// past `max` cubes (or `f`'s error).
    pub(crate) fn for_each_cube(
        &self,
        max: usize,
        f: &mut dyn FnMut(&[LitId]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // As long as the variables on a path: inline for the usual handful.
        let mut prefix: smallvec::SmallVec<[LitId; 16]> = smallvec::SmallVec::new();
        let mut count = 0;
        self.walk(&mut prefix, &mut count, max, f)
    }

    /// The cubes, each literal in variable order; [`ErrorKind::Intractable`] past `max` cubes.
    #[cfg(test)]
    pub(crate) fn cubes(&self, max: usize) -> Result<Vec<Vec<LitId>>, Error> {
        let mut out = Vec::new();
        self.for_each_cube(max, &mut |cube| {
            out.push(cube.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    fn walk(
        &self,
        prefix: &mut smallvec::SmallVec<[LitId; 16]>,
        count: &mut usize,
        max: usize,
        f: &mut dyn FnMut(&[LitId]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match self {
            Cover::False => {}
            Cover::True => {
                if *count == max {
                    return Err(Error::intractable(Limit::Steps));
                }
                *count += 1;
                f(prefix)?;
            }
            Cover::Branches(branches) => {
                for b in branches.iter() {
                    match b.guard {
                        Some(lit) => {
                            prefix.push(lit);
                            b.cover.walk(prefix, count, max, f)?;
                            prefix.pop();
                        }
                        None => b.cover.walk(prefix, count, max, f)?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// What [`edge_label`] reads out of a node's edges, in the order of the label it would build.
trait LabelParts {
    /// The label is a version set; its bounds follow.
    fn versions(&mut self);
    /// One of the version set's bounds, in increasing order.
    fn bound(&mut self, cut: &Cut);
    /// The label is a string set (the values in it, or with `not_in` the values outside it);
    /// its strings follow.
    fn strings(&mut self, not_in: bool);
    /// One of the strings, in order.
    fn string(&mut self, s: &str);
    /// The label of a boolean variable.
    fn boolean(&mut self, value: bool);
}

/// Reads into `out` the label [`label_of`]`(edges, child)` would build, in its order, without
/// building it: the bounds `VersionSet::from_increasing_intervals` keeps (an interval that
/// follows one of the same child continues it: its start is not a bound), the strings, the
/// boolean.
fn edge_label<T: Copy + PartialEq>(edges: &Edges<T>, child: T, out: &mut impl LabelParts) {
    match edges {
        Edges::Intervals { bounds, children } => {
            out.versions();
            // The bound that ends the last interval taken, not yet given out (the next one may
            // continue it).
            let mut open: Option<&Cut> = None;
            let mut before: Option<T> = None;
            for (k, c) in children.iter().enumerate() {
                if *c == child {
                    if before != Some(child) {
                        // A new interval: the one before it, if any, ended at `open`.
                        if let Some(end) = open.take() {
                            out.bound(end);
                        }
                        let start = if k == 0 {
                            &Cut::BOTTOM
                        } else {
                            bounds.get(k - 1).unwrap_or(&Cut::TOP)
                        };
                        out.bound(start);
                    }
                    open = Some(bounds.get(k).unwrap_or(&Cut::TOP));
                }
                before = Some(*c);
            }
            if let Some(end) = open {
                out.bound(end);
            }
        }
        Edges::Strings { points, other } => {
            let not_in = *other == child;
            out.strings(not_in);
            for (s, c) in points {
                if (*c == child) != not_in {
                    out.string(s);
                }
            }
        }
        Edges::Bool { yes, .. } => out.boolean(*yes == child),
    }
}

/// The hash the literal table files `(var, label)` under: a version label's bounds by their
/// identities ([`Cut::identity`]; every cut of a label the context's diagrams make, or unites,
/// is the nodes' interned copy, so that equal labels hash alike), a string label's strings,
/// a boolean's value. [`edge_label`] gives the same from a node's edges.
fn label_hash(var: Var, label: &Label) -> u64 {
    let mut h = LabelHasher::new(var);
    match label {
        Label::Versions(set) => {
            h.versions();
            for c in set.bounds() {
                h.bound(c);
            }
        }
        Label::StringIn(v) | Label::StringNotIn(v) => {
            h.strings(matches!(label, Label::StringNotIn(_)));
            for s in v {
                h.string(s);
            }
        }
        Label::Bool(b) => h.boolean(*b),
    }
    h.finish()
}

/// [`label_hash`]'s hasher.
struct LabelHasher(rustc_hash::FxHasher);

impl LabelHasher {
    fn new(var: Var) -> LabelHasher {
        let mut h = rustc_hash::FxHasher::default();
        var.hash(&mut h);
        LabelHasher(h)
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

impl LabelParts for LabelHasher {
    fn versions(&mut self) {
        self.0.write_u8(0);
    }
    fn bound(&mut self, cut: &Cut) {
        self.0.write_usize(cut.identity());
    }
    fn strings(&mut self, not_in: bool) {
        self.0.write_u8(if not_in { 2 } else { 1 });
    }
    fn string(&mut self, s: &str) {
        s.hash(&mut self.0);
    }
    fn boolean(&mut self, value: bool) {
        self.0.write_u8(3);
        value.hash(&mut self.0);
    }
}

/// Whether a stored label is the one [`edge_label`] reads: its parts compared in order as they
/// come (bounds by identity, which equal cuts of the context's labels share).
struct LabelMatch<'l> {
    label: &'l Label,
    /// The parts compared so far.
    at: usize,
    same: bool,
}

impl<'l> LabelMatch<'l> {
    fn new(label: &'l Label) -> LabelMatch<'l> {
        LabelMatch {
            label,
            at: 0,
            same: true,
        }
    }

    /// Whether every part matched and none of the stored label's is left over.
    fn matches(&self) -> bool {
        self.same
            && match self.label {
                Label::Versions(set) => self.at == set.bounds().len(),
                Label::StringIn(v) | Label::StringNotIn(v) => self.at == v.len(),
                Label::Bool(_) => true,
            }
    }
}

impl LabelParts for LabelMatch<'_> {
    fn versions(&mut self) {
        self.same &= matches!(self.label, Label::Versions(_));
    }
    fn bound(&mut self, cut: &Cut) {
        if let Label::Versions(set) = self.label {
            self.same &= set
                .bounds()
                .get(self.at)
                .is_some_and(|b| b.identity() == cut.identity());
        }
        self.at += 1;
    }
    fn strings(&mut self, not_in: bool) {
        self.same &= if not_in {
            matches!(self.label, Label::StringNotIn(_))
        } else {
            matches!(self.label, Label::StringIn(_))
        };
    }
    fn string(&mut self, s: &str) {
        if let Label::StringIn(v) | Label::StringNotIn(v) = self.label {
            self.same &= v.get(self.at).is_some_and(|t| t == s);
        }
        self.at += 1;
    }
    fn boolean(&mut self, value: bool) {
        self.same &= matches!(self.label, Label::Bool(b) if *b == value);
    }
}

/// The union of two labels of one variable; `None` when it is the whole domain (the literal
/// is then left out).
fn label_union(a: &Label, b: &Label) -> Option<Label> {
    match (a, b) {
        (Label::Versions(x), Label::Versions(y)) => {
            let u = x.union(y);
            (!u.is_full()).then_some(Label::Versions(u))
        }
        (Label::StringIn(x), Label::StringIn(y)) => {
            let mut all: Vec<String> = x.iter().chain(y).cloned().collect();
            all.sort();
            all.dedup();
            Some(Label::StringIn(all))
        }
        (Label::StringIn(x), Label::StringNotIn(y))
        | (Label::StringNotIn(y), Label::StringIn(x)) => {
            let rest: Vec<String> = y.iter().filter(|s| !x.contains(s)).cloned().collect();
            (!rest.is_empty()).then_some(Label::StringNotIn(rest))
        }
        (Label::StringNotIn(x), Label::StringNotIn(y)) => {
            let rest: Vec<String> = x.iter().filter(|s| y.contains(s)).cloned().collect();
            (!rest.is_empty()).then_some(Label::StringNotIn(rest))
        }
        (Label::Bool(x), Label::Bool(y)) => (x == y).then_some(Label::Bool(*x)),
        // Labels of one variable share its domain: no other pair occurs.
        _ => None,
    }
}

/// A pair of bounds' cover as the context keeps it ([`Context::isop_cover`]).
#[derive(Clone, Debug)]
pub(crate) struct Built {
    /// The function the cover denotes.
    function: Marker,
    cover: Cover,
    /// The steps building it with no cache takes: one per pair of bounds that is not
    /// constant, counted again wherever it recurs (saturating).
    steps: u64,
    /// The deepest level of that recursion: 0 for constant bounds (a `u32`, so that an entry
    /// of the context's table takes 48 bytes, not 56: past four billion levels the depth
    /// limit, and the stack, have long stopped the recursion).
    height: u32,
}

/// Each pair of bounds' cover, kept by the context.
pub(crate) type CoverCache = FxHashMap<(Marker, Marker), Built>;

impl Built {
    const FALSE: Built = Built {
        function: Marker::FALSE,
        cover: Cover::False,
        steps: 0,
        height: 0,
    };
    const TRUE: Built = Built {
        function: Marker::TRUE,
        cover: Cover::True,
        steps: 0,
        height: 0,
    };
}

/// The limits a cover is built within, and how deep the recursion is.
struct Within {
    steps: u64,
    max_depth: usize,
    depth: usize,
}

impl Within {
    /// Checks a pair met at this depth whose cover takes `built`'s steps and height.
    fn admit(&self, built: &Built) -> Result<(), Error> {
        if built.steps > self.steps {
            return Err(Error::intractable(Limit::Steps));
        }
        if self.depth.saturating_add(built.height as usize) > self.max_depth {
            return Err(Error::intractable(Limit::Depth));
        }
        Ok(())
    }
}

/// The pieces of a variable's domain on which two bounds are both constant: their pairs of
/// children, each labelled (with where it holds) only when it makes a branch.
struct Pieces {
    edges: PieceEdges,
    /// (lower's child, upper's child), each distinct pair once, in edge order.
    list: smallvec::SmallVec<[(Marker, Marker); 4]>,
}

impl Pieces {
    /// No pieces (a box's first contents, before [`Context::pieces`] writes it).
    fn empty() -> Pieces {
        Pieces {
            edges: PieceEdges::Two(super::Edges::Bool {
                yes: (Marker::TRUE, Marker::TRUE),
                no: (Marker::TRUE, Marker::TRUE),
            }),
            list: smallvec::SmallVec::new(),
        }
    }
}

/// Boxes for the recurrence's [`Pieces`], one per level it has reached, kept by the context
/// so that each level reuses one instead of allocating it (a clone of the context starts
/// with none).
#[derive(Default)]
// Boxed: a level takes its box out of the list and keeps only the pointer in its frame.
#[allow(clippy::vec_box)]
pub(crate) struct PiecesPool(Vec<Box<Pieces>>);

impl Clone for PiecesPool {
    fn clone(&self) -> PiecesPool {
        PiecesPool::default()
    }
}

impl std::fmt::Debug for PiecesPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PiecesPool({} boxes)", self.0.len())
    }
}

/// The edges the pieces are read from: one node's (equal bounds: its own edges, read in
/// place, their children negated when the bound is the node's complement) or two nodes'
/// common refinement.
enum PieceEdges {
    One {
        edges: super::EdgesOf,
        negated: bool,
    },
    Two(super::Edges<(Marker, Marker)>),
}

impl Pieces {
    /// Where the piece `(l, u)` holds.
    fn label(&self, (l, u): (Marker, Marker)) -> Label {
        match &self.edges {
            PieceEdges::One { edges, negated } => label_of(edges, flip(l, *negated)),
            PieceEdges::Two(pairs) => label_of(pairs, (l, u)),
        }
    }

    /// The id in `literals` of the literal of `var` where the piece `(l, u)` holds.
    fn literal(&self, literals: &mut Literals, var: Var, (l, u): (Marker, Marker)) -> LitId {
        match &self.edges {
            PieceEdges::One { edges, negated } => literals.id_of(var, edges, flip(l, *negated)),
            PieceEdges::Two(pairs) => literals.id_of(var, pairs, (l, u)),
        }
    }
}

impl Context {
    /// An irredundant cover of a function between `lower` and `upper` (`lower` must imply
    /// `upper`), as the module's recurrence builds it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] past the context's step or depth limit (each pair of bounds
    /// not met before in this cover is a step), or its node limit.
    pub(crate) fn isop_cover(&mut self, lower: Marker, upper: Marker) -> Result<Cover, Error> {
        self.check(lower)?;
        self.check(upper)?;
        let mut within = Within {
            steps: self.limits.steps,
            max_depth: self.limits.depth,
            depth: 0,
        };
        Ok(self.isop(lower, upper, &mut within)?.cover)
    }

    /// The literals, in variable order, of the one cube of `m` when `m` is a single path to
    /// true (every node on it has one child other than false): the cover the recurrence
    /// builds between `m` and itself, one literal per node (at each node the bounds' common
    /// upper part is false, so the cube goes under the piece's literal and nothing is left
    /// for the part without it), read straight off the path with the same literals, and
    /// within the same limits (its steps and height are the path's length). `None` when `m`
    /// is not such a path.
    ///
    /// # Errors
    ///
    /// As [`isop_cover`](Self::isop_cover).
    pub(crate) fn single_cube(
        &mut self,
        m: Marker,
    ) -> Result<Option<smallvec::SmallVec<[LitId; 16]>>, Error> {
        self.check(m)?;
        let mut cube: smallvec::SmallVec<[LitId; 16]> = smallvec::SmallVec::new();
        let mut node = m;
        // Each node's own edges, read in place: under a complement its children are negated,
        // and the literal leading to a child is the one leading to the node's own child.
        while !node.is_const() {
            let Some(n) = self.nodes.get(node.index()) else {
                return Err(Error::new(ErrorKind::ForeignMarker));
            };
            let negated = node.is_complement();
            let mut kept = None;
            for c in distinct_children(&n.edges) {
                let seen = if negated { !c } else { c };
                if seen.is_false() {
                    continue;
                }
                if kept.is_some() {
                    return Ok(None);
                }
                kept = Some((c, seen));
            }
            let Some((own, child)) = kept else {
                return Ok(None);
            };
            cube.push(self.cover_literals.id_of(n.var, &n.edges, own));
            node = child;
        }
        if !node.is_true() {
            return Ok(None);
        }
        // As the recurrence meets its limits: the depth first, on the way down, then the
        // steps, one per node.
        if cube.len() > self.limits.depth {
            return Err(Error::intractable(Limit::Depth));
        }
        if cube.len() as u64 > self.limits.steps {
            return Err(Error::intractable(Limit::Steps));
        }
        Ok(Some(cube))
    }

    /// The cover between `lower` and `upper` and the function it denotes, from the context's
    /// cache when this pair was met before; [`ErrorKind::Intractable`] where building it with
    /// no cache would pass the limits.
    fn isop(&mut self, lower: Marker, upper: Marker, within: &mut Within) -> Result<Built, Error> {
        if lower.is_false() {
            return Ok(Built::FALSE);
        }
        if upper.is_true() {
            return Ok(Built::TRUE);
        }
        if let Some(known) = self.cover_cache.get(&(lower, upper)) {
            within.admit(known)?;
            return Ok(known.clone());
        }
        if within.depth >= within.max_depth {
            return Err(Error::intractable(Limit::Depth));
        }
        within.depth += 1;
        let r = self.isop_new(lower, upper, within);
        within.depth -= 1;
        let r = r?;
        within.admit(&r)?;
        self.cover_cache.insert((lower, upper), r.clone());
        Ok(r)
    }

    /// The pieces of `var`'s domain for the bounds `lower` and `upper`, written into `slot`
    /// (on the heap: see [`PiecesPool`]).
    #[inline(never)]
    fn pieces(
        &self,
        slot: &mut Pieces,
        lower: Marker,
        upper: Marker,
        var: Var,
    ) -> Result<(), Error> {
        if lower == upper {
            let (edges, negated) = self.edges_raw(lower, var)?;
            slot.list.clear();
            slot.list.extend(
                distinct_children(&edges)
                    .into_iter()
                    .map(|c| (flip(c, negated), flip(c, negated))),
            );
            slot.edges = PieceEdges::One { edges, negated };
            return Ok(());
        }
        let (l, u) = (self.edges(lower, var)?, self.edges(upper, var)?);
        let pairs = combine(
            &l,
            &u,
            |a, b| Ok::<_, Error>((a, b)),
            || Error::new(ErrorKind::ForeignMarker),
        )?;
        slot.list = distinct_children(&pairs);
        slot.edges = PieceEdges::Two(pairs);
        Ok(())
    }

    /// One level of the recurrence (the module's docs), for a pair not met before.
    fn isop_new(
        &mut self,
        lower: Marker,
        upper: Marker,
        within: &mut Within,
    ) -> Result<Built, Error> {
        // Neither bound is constant here (`lower` is not false and implies `upper`, which is
        // not true, so neither is true and `upper` is not false).
        let (Some(top_lower), Some(top_upper)) = (self.top(lower), self.top(upper)) else {
            return Err(Error::new(ErrorKind::ForeignMarker));
        };
        let var = if self.precedes(top_upper, top_lower) {
            top_upper
        } else {
            top_lower
        };
        // On the heap, in a box the context keeps for the next level (`PiecesPool`): this
        // frame stays on the stack through the recursion below.
        let mut pieces = self
            .pieces_pool
            .0
            .pop()
            .unwrap_or_else(|| Box::new(Pieces::empty()));
        self.pieces(&mut pieces, lower, upper, var)?;
        let r = self.isop_pieces(lower, upper, var, &pieces, within);
        self.pieces_pool.0.push(pieces);
        r
    }

    /// [`isop_new`](Self::isop_new) past finding the pieces of `var`'s domain.
    fn isop_pieces(
        &mut self,
        lower: Marker,
        upper: Marker,
        var: Var,
        pieces: &Pieces,
        within: &mut Within,
    ) -> Result<Built, Error> {
        let exact = lower == upper;
        let label = |p: (Marker, Marker)| pieces.label(p);
        // A single decision (every piece constant) is its own cover: the literal of the
        // pieces that hold.
        if exact && pieces.list.iter().all(|(c, _)| c.is_true() || c.is_false()) {
            let guard = pieces
                .list
                .iter()
                .find(|(c, _)| c.is_true())
                .map(|&p| pieces.literal(&mut self.cover_literals, var, p));
            let cover = Cover::Branches(Arc::from([Branch {
                guard,
                cover: Cover::True,
            }]));
            return Ok(Built {
                function: lower,
                cover,
                steps: 1,
                height: 1,
            });
        }
        let (mut steps, mut height) = (1u64, 0u32);
        let limit = within.steps;
        let mut count = |built: &Built| -> Result<(), Error> {
            steps = steps.saturating_add(built.steps);
            height = height.max(built.height);
            if steps > limit {
                return Err(Error::intractable(Limit::Steps));
            }
            Ok(())
        };
        let mut common_upper = Marker::TRUE;
        for &(_, u) in &pieces.list {
            common_upper = self.conj(common_upper, u)?;
        }
        let mut common_lower = Marker::FALSE;
        // Each piece's cover's function, where it is not false (for the function of the whole
        // cover, when the bounds differ); inline for the usual few.
        let mut specifics: smallvec::SmallVec<[((Marker, Marker), Marker); 4]> =
            smallvec::SmallVec::new();
        // (the function a branch's cover denotes, the branch); inline for the usual few.
        let mut branches: smallvec::SmallVec<[(Marker, Branch); 4]> = smallvec::SmallVec::new();
        for &(l, u) in &pieces.list {
            if l.is_false() {
                continue;
            }
            let required = self.conj(l, !common_upper)?;
            let built = self.isop(required, u, within)?;
            count(&built)?;
            let Built {
                function: specific,
                cover,
                ..
            } = built;
            let remaining = self.conj(l, !specific)?;
            common_lower = self.disj(common_lower, remaining)?;
            if specific.is_false() {
                continue;
            }
            if !exact {
                specifics.push(((l, u), specific));
            }
            // Pieces whose covers denote the same function share one literal.
            match branches.iter_mut().find(|(f, _)| *f == specific) {
                Some((_, b)) => {
                    let label = label((l, u));
                    let union = b
                        .guard
                        .and_then(|old| self.cover_literals.get(old))
                        .and_then(|old| label_union(&old.label, &label));
                    b.guard = union.map(|l| self.cover_literals.id(var, l));
                }
                None => {
                    // (Found without building the label when the literal is known.)
                    let guard = Some(pieces.literal(&mut self.cover_literals, var, (l, u)));
                    branches.push((specific, Branch { guard, cover }));
                }
            }
        }
        let built = self.isop(common_lower, common_upper, within)?;
        count(&built)?;
        let Built {
            function: common,
            cover: common_cover,
            ..
        } = built;
        // The cover's function: on each piece of `var`'s domain, that piece's cover's function
        // or the common part's (the pieces' literals split the domain, and both functions read
        // only variables after `var`), one node.
        let function = if exact {
            lower
        } else {
            for (_, f) in specifics.iter_mut() {
                *f = self.disj(*f, common)?;
            }
            let child = |piece: (Marker, Marker)| -> Result<Marker, Error> {
                Ok(specifics
                    .iter()
                    .find(|(p, _)| *p == piece)
                    .map_or(common, |&(_, f)| f))
            };
            let edges = match &pieces.edges {
                PieceEdges::One { edges, negated } => edges.map(|c| {
                    let c = flip(c, *negated);
                    child((c, c))
                })?,
                PieceEdges::Two(pairs) => pairs.map(child)?,
            };
            self.mk(var, edges)?
        };
        if !common.is_false() {
            let branch = Branch {
                guard: None,
                cover: common_cover,
            };
            // A branch denoting the same function as the common part is inside it.
            match branches.iter_mut().find(|(f, _)| *f == common) {
                Some((_, b)) => *b = branch,
                None => branches.push((common, branch)),
            }
        }
        // (From a slice's iterator, which says its length: one allocation.)
        let cover = Cover::Branches(branches.iter().map(|(_, b)| b.clone()).collect());
        Ok(Built {
            function,
            cover,
            steps,
            height: height.saturating_add(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{LitId, label_union};
    use crate::dd::{Context, Label, Limits, Marker};
    use crate::print::tests::lock_markers;
    use crate::range::VersionSet;
    use crate::{Error, Theory};
    use markerspec_pep508::MarkerTree;

    /// The lock-file markers' diagrams in `ctx`, under the `none` theory.
    fn lock_diagrams(ctx: &mut Context) -> Result<Vec<Marker>, Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut ms = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let tree: MarkerTree = line.parse()?;
            ms.push(ctx.from_marker(&tree, &Theory::none())?);
        }
        Ok(ms)
    }

    /// The function a list of cubes denotes.
    fn union_of(ctx: &mut Context, cubes: &[Vec<LitId>]) -> Result<Marker, Error> {
        let mut f = Marker::FALSE;
        for cube in cubes {
            let lits: Vec<(crate::dd::Var, Label)> = cube
                .iter()
                .filter_map(|&id| ctx.cover_literals.get(id))
                .map(|l| (l.var, l.label.clone()))
                .collect();
            assert_eq!(lits.len(), cube.len(), "every id is a literal");
            let borrowed: Vec<(crate::dd::Var, &Label)> =
                lits.iter().map(|(v, l)| (*v, l)).collect();
            let c = ctx.cube_marker(&borrowed)?;
            f = ctx.or(f, c)?;
        }
        Ok(f)
    }

    /// The steps the cover of `m` takes with no cache (`Built::steps`).
    fn steps_of(ctx: &mut Context, m: Marker) -> Result<u64, Error> {
        ctx.isop_cover(m, m)?;
        Ok(ctx.cover_cache.get(&(m, m)).map_or(0, |b| b.steps))
    }

    /// Whether a cover is within the step limit does not depend on what the context covered
    /// before: a context that has every part of a marker's cover in its cache refuses it under
    /// a limit one step short, as a fresh context does, and both build it at the limit.
    #[test]
    fn cover_limits_do_not_depend_on_the_cache() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines.sort_by_key(|l| std::cmp::Reverse(l.len()));
        for line in lines.iter().take(5) {
            let tree: MarkerTree = line.parse()?;
            let mut warm = Context::new();
            let m = warm.from_marker(&tree, &Theory::none())?;
            let steps = steps_of(&mut warm, m)?;
            assert!(steps > 2, "{steps} steps for {line}");
            for (limit, fits) in [(steps - 1, false), (steps, true)] {
                let mut fresh = Context::new();
                let f = fresh.from_marker(&tree, &Theory::none())?;
                for ctx in [&mut warm, &mut fresh] {
                    ctx.set_limits(Limits {
                        steps: limit,
                        ..Limits::default()
                    });
                }
                let (w, c) = (warm.isop_cover(m, m), fresh.isop_cover(f, f));
                assert_eq!(w.is_ok(), fits, "warm context, limit {limit}: {line}");
                assert_eq!(c.is_ok(), fits, "fresh context, limit {limit}: {line}");
                warm.set_limits(Limits::default());
            }
            // The same for the depth: a cover is as deep as the variables on a path.
            let height = warm
                .cover_cache
                .get(&(m, m))
                .map_or(0, |b| b.height as usize);
            assert!(height > 2, "height {height} for {line}");
            for (depth, fits) in [(height - 1, false), (height, true)] {
                let mut fresh = Context::new();
                let f = fresh.from_marker(&tree, &Theory::none())?;
                for ctx in [&mut warm, &mut fresh] {
                    ctx.set_limits(Limits {
                        depth,
                        ..Limits::default()
                    });
                }
                let (w, c) = (warm.isop_cover(m, m), fresh.isop_cover(f, f));
                assert_eq!(w.is_ok(), fits, "warm context, depth {depth}: {line}");
                assert_eq!(c.is_ok(), fits, "fresh context, depth {depth}: {line}");
                if !fits {
                    assert_eq!(c.err().map(|e| e.code()), Some("intractable"), "{line}");
                }
            }
            warm.set_limits(Limits::default());
        }
        Ok(())
    }

    /// On every lock-file marker, and between the conjunction and the disjunction of each
    /// consecutive pair: the cover lies between its bounds (is the marker itself where they
    /// are equal), and no cube of an exact cover can go (each one covers a part of the marker
    /// no other cube does).
    #[test]
    fn covers_lie_between_their_bounds_and_no_cube_can_go() -> Result<(), Box<dyn std::error::Error>>
    {
        let mut ctx = Context::new();
        let ms = lock_diagrams(&mut ctx)?;
        let (mut checked, mut redundant, mut checked_functions) = (0, 0, 0);
        for (i, &m) in ms.iter().enumerate() {
            let cover = ctx.isop_cover(m, m)?;
            let cubes = cover.cubes(4096)?;
            assert_eq!(union_of(&mut ctx, &cubes)?, m, "cover of marker {i}");
            if cubes.len() <= 24 {
                for k in 0..cubes.len() {
                    let mut rest = cubes.clone();
                    rest.remove(k);
                    checked += 1;
                    if union_of(&mut ctx, &rest)? == m {
                        redundant += 1;
                    }
                }
            }
            if let Some(&next) = ms.get(i + 1) {
                let (lower, upper) = (ctx.and(m, next)?, ctx.or(m, next)?);
                let cover = ctx.isop_cover(lower, upper)?;
                let f = union_of(&mut ctx, &cover.cubes(4096)?)?;
                assert!(ctx.implies(lower, f)? && ctx.implies(f, upper)?, "pair {i}");
                // The function kept with the cover is the one its cubes denote.
                let kept = if lower.is_false() || upper.is_true() {
                    Some(if lower.is_false() {
                        Marker::FALSE
                    } else {
                        Marker::TRUE
                    })
                } else {
                    ctx.cover_cache.get(&(lower, upper)).map(|b| b.function)
                };
                assert_eq!(kept, Some(f), "pair {i}");
                checked_functions += 1;
            }
        }
        assert!(checked > 2000, "{checked} cubes checked");
        assert!(
            checked_functions > 1000,
            "{checked_functions} functions checked"
        );
        assert_eq!(redundant, 0, "cubes the other cubes cover");
        Ok(())
    }

    /// A cover is built within the context's step limit, and expanded to at most the cubes
    /// asked for: past either, `intractable`.
    #[test]
    fn covers_stop_at_the_limits() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let line = text
            .lines()
            .max_by_key(|l| l.len())
            .ok_or("no lock-file markers")?;
        let tree: MarkerTree = line.parse()?;
        let mut ctx = Context::new();
        let m = ctx.from_marker(&tree, &Theory::none())?;
        let cover = ctx.isop_cover(m, m)?;
        let n = cover.cubes(4096)?.len();
        assert!(n > 2, "{n} cubes");
        assert_eq!(cover.cubes(n)?.len(), n);
        assert_eq!(
            cover.cubes(n - 1).map_err(|e| e.code()).err(),
            Some("intractable")
        );
        // Built within the default limits, covered within two steps.
        let mut small = Context::new();
        let m = small.from_marker(&tree, &Theory::none())?;
        small.set_limits(Limits {
            steps: 2,
            ..Limits::default()
        });
        let e = small
            .isop_cover(m, m)
            .err()
            .ok_or("a cover within 2 steps")?;
        assert_eq!(e.code(), "intractable");
        Ok(())
    }

    /// A single path's cube is the cover the recurrence builds for it, with the same
    /// literals; every marker whose cover is one cube is such a path (a lock file's markers,
    /// their negations and their pairs' conjunctions); and the path meets the limits the
    /// recurrence meets.
    #[test]
    fn single_paths_are_the_recurrences_one_cube() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let ms = lock_diagrams(&mut ctx)?;
        let mut all = ms.clone();
        all.extend(ms.iter().map(|&m| !m));
        for pair in ms.windows(2) {
            if let [a, b] = pair {
                all.push(ctx.and(*a, *b)?);
            }
        }
        let (mut single, mut other) = (0, 0);
        // (the longest path's length, its marker)
        let mut deepest = (0, Marker::TRUE);
        for &m in &all {
            if m.is_true() || m.is_false() {
                continue;
            }
            let cubes = ctx.isop_cover(m, m)?.cubes(4096)?;
            match ctx.single_cube(m)? {
                Some(cube) => {
                    assert_eq!(cubes, vec![cube.to_vec()], "{m:?}");
                    single += 1;
                    deepest = deepest.max((cube.len(), m));
                }
                None => {
                    assert!(cubes.len() > 1, "{m:?}: one cube, not read as a path");
                    other += 1;
                }
            }
        }
        assert!(
            single > 500 && other > 500,
            "{single} paths, {other} others"
        );
        // The longest path, one node short of the depth limit, and of the step limit.
        let (n, deep) = deepest;
        assert!(n > 2, "{n} literals");
        for limits in [
            Limits {
                depth: n - 1,
                ..Limits::default()
            },
            Limits {
                steps: n as u64 - 1,
                ..Limits::default()
            },
            Limits {
                depth: n,
                steps: n as u64,
                ..Limits::default()
            },
        ] {
            let mut fresh = ctx.clone();
            fresh.clear_caches();
            fresh.set_limits(limits);
            let path = fresh.single_cube(deep).map(|c| c.map(|c| c.to_vec()));
            fresh.clear_caches();
            let cover = fresh.isop_cover(deep, deep).and_then(|c| c.cubes(4096));
            match (path, cover) {
                (Ok(Some(p)), Ok(c)) => assert_eq!(vec![p], c),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{limits:?}"),
                (a, b) => return Err(format!("{limits:?}: {a:?} against {b:?}").into()),
            }
        }
        Ok(())
    }

    /// `clear_caches` forgets the covers (and printed texts) too; printing again rebuilds
    /// them, to the same text.
    #[test]
    fn cleared_caches_forget_the_covers() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let t: MarkerTree =
            "(os_name == 'nt' and extra == 'a') or (os_name == 'nt' and extra == 'b')".parse()?;
        let m = ctx.from_marker(&t, &Theory::none())?;
        let first = ctx.to_marker_string(m)?;
        assert!(!ctx.cover_cache.is_empty() && !ctx.print_cache.is_empty());
        ctx.clear_caches();
        assert!(ctx.cover_cache.is_empty() && ctx.print_cache.is_empty());
        assert_eq!(ctx.to_marker_string(m)?, first);
        assert!(!ctx.cover_cache.is_empty());
        Ok(())
    }

    /// A literal found from a node's edges is the one its label files. For every node of the
    /// lock-file markers' diagrams and each of its children, what `edge_label` reads hashes as
    /// `label_hash` of `label_of`'s label and matches that label, and no other child's; and
    /// once every marker is printed no two of the context's literals are equal (equal labels
    /// hash alike: their cuts are the nodes' interned copies).
    #[test]
    fn literals_found_from_edges_are_the_labels() -> Result<(), Box<dyn std::error::Error>> {
        use super::{LabelHasher, LabelMatch, edge_label, label_hash};
        use crate::dd::{distinct_children, label_of};
        let mut ctx = Context::new();
        let markers = lock_diagrams(&mut ctx)?;
        let (mut checked, mut apart) = (0, 0);
        let mut seen = std::collections::HashSet::new();
        let mut stack = markers.clone();
        while let Some(m) = stack.pop() {
            let Some(var) = ctx.top(m) else {
                continue;
            };
            if !seen.insert(m) {
                continue;
            }
            let edges = ctx.edges(m, var)?;
            let children = distinct_children(&edges);
            for &c in &children {
                let label = label_of(&edges, c);
                let mut h = LabelHasher::new(var);
                edge_label(&edges, c, &mut h);
                assert_eq!(h.finish(), label_hash(var, &label), "{label:?}");
                for &other in &children {
                    let mut same = LabelMatch::new(&label);
                    edge_label(&edges, other, &mut same);
                    assert_eq!(same.matches(), other == c, "{label:?}");
                    apart += usize::from(other != c);
                }
                checked += 1;
                stack.push(c);
            }
        }
        assert!(checked > 1000 && apart > 1000, "{checked} {apart}");
        for &m in &markers {
            ctx.to_marker_string(m)?;
        }
        let list = &ctx.cover_literals.list;
        assert!(list.len() > 400, "{}", list.len());
        for (i, a) in list.iter().enumerate() {
            for b in list.iter().skip(i + 1) {
                assert!(a.var != b.var || a.label != b.label, "{:?}", a.label);
            }
        }
        // Distinct literals hash apart (each part of a label counts), strings and booleans
        // among them.
        let mut hashes: Vec<u64> = list.iter().map(|l| label_hash(l.var, &l.label)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), list.len());
        let kinds = |f: fn(&Label) -> bool| list.iter().filter(|l| f(&l.label)).count();
        assert!(kinds(|l| matches!(l, Label::StringIn(_) | Label::StringNotIn(_))) > 50);
        assert!(kinds(|l| matches!(l, Label::Bool(_))) > 10);
        Ok(())
    }

    /// The recurrence's boxes for its pieces: one per level reached, kept after a print; a
    /// clone of the context starts with none, and the context's debug text counts them.
    #[test]
    fn the_pieces_boxes_are_kept_per_context() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let t: MarkerTree =
            "(os_name == 'nt' and python_version >= '3.9') or sys_platform == 'linux'".parse()?;
        let m = ctx.from_marker(&t, &Theory::none())?;
        ctx.to_marker_string(m)?;
        let kept = ctx.pieces_pool.0.len();
        assert!(kept >= 2, "{kept}");
        assert!(format!("{ctx:?}").contains(&format!("PiecesPool({kept} boxes)")));
        assert!(ctx.clone().pieces_pool.0.is_empty());
        Ok(())
    }

    /// Pieces whose covers are the same function share one literal, the union of theirs;
    /// a union that is the whole domain leaves the literal out (`None`).
    #[test]
    fn labels_unite_within_their_domain() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let (is, not) = (
            |v: &[&str]| Label::StringIn(s(v)),
            |v: &[&str]| Label::StringNotIn(s(v)),
        );
        let versions = Label::Versions;
        let cases = [
            (
                is(&["linux"]),
                is(&["darwin", "linux"]),
                Some(is(&["darwin", "linux"])),
            ),
            (
                is(&["win32"]),
                not(&["darwin", "win32"]),
                Some(not(&["darwin"])),
            ),
            (not(&["win32"]), is(&["win32"]), None),
            (not(&["a", "b"]), not(&["b", "c"]), Some(not(&["b"]))),
            (not(&["a"]), not(&["b"]), None),
            (
                Label::Bool(true),
                Label::Bool(true),
                Some(Label::Bool(true)),
            ),
            (Label::Bool(true), Label::Bool(false), None),
            (
                versions(VersionSet::empty()),
                versions(VersionSet::full()),
                None,
            ),
            (
                versions(VersionSet::empty()),
                versions(VersionSet::absent()),
                Some(versions(VersionSet::absent())),
            ),
            // Labels of two domains never meet; the union is left out rather than made up.
            (Label::Bool(true), is(&["x"]), None),
        ];
        for (a, b, union) in cases {
            assert_eq!(label_union(&a, &b), union, "{a:?} ∪ {b:?}");
            assert_eq!(label_union(&b, &a), union, "{b:?} ∪ {a:?}");
        }
    }
}
