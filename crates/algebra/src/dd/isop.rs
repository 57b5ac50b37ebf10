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
//! as deep as the variables on a path, within the context's depth limit); results are kept per
//! pair of bounds for the one cover being built (a cover depends only on its two bounds: the
//! text does not depend on what the context did before).
//!
//! Each cube covers a point of the marker no other cube covers: a piece's cubes cover points
//! of `Lₖ` outside `U₀`, where no cube without the variable reaches, and a cube without it
//! covers a point some piece's cover left out, under that piece's literal, where only that
//! piece's cubes reach. A literal is never grown past the pieces it was made of, so the cover
//! need not be prime (print form 7 does not look for a shorter literal).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{Budget, Context, Label, Marker, Var, combine, distinct_children, label_of};
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
    /// The branch's literal; `None` where the branch leaves its variable out.
    guard: Option<(Var, Label)>,
    cover: Cover,
}

/// One literal of a cube, borrowed from its [`Cover`].
pub(crate) type Lit<'a> = (Var, &'a Label);

impl Cover {
    /// Calls `f` with each cube, its literals in variable order; [`ErrorKind::Intractable`]
    /// past `max` cubes (or `f`'s error).
    pub(crate) fn for_each_cube<'a>(
        &'a self,
        max: usize,
        f: &mut dyn FnMut(&[Lit<'a>]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut prefix = Vec::new();
        let mut count = 0;
        self.walk(&mut prefix, &mut count, max, f)
    }

    /// The cubes, each literal in variable order; [`ErrorKind::Intractable`] past `max` cubes.
    #[cfg(test)]
    pub(crate) fn cubes(&self, max: usize) -> Result<Vec<Vec<Lit<'_>>>, Error> {
        let mut out = Vec::new();
        self.for_each_cube(max, &mut |cube| {
            out.push(cube.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    fn walk<'a>(
        &'a self,
        prefix: &mut Vec<Lit<'a>>,
        count: &mut usize,
        max: usize,
        f: &mut dyn FnMut(&[Lit<'a>]) -> Result<(), Error>,
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
                    match b.guard.as_ref().map(|(v, l)| (*v, l)) {
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

type Cache = FxHashMap<(Marker, Marker), (Marker, Cover)>;

/// The pieces of a variable's domain on which two bounds are both constant: their pairs of
/// children, each labelled (with where it holds) only when it makes a branch.
struct Pieces {
    edges: PieceEdges,
    /// (lower's child, upper's child), each distinct pair once, in edge order.
    list: smallvec::SmallVec<[(Marker, Marker); 4]>,
}

/// The edges the pieces are read from: one node's (equal bounds) or two nodes' common
/// refinement.
enum PieceEdges {
    One(super::EdgesOf),
    Two(super::Edges<(Marker, Marker)>),
}

impl Pieces {
    /// Where the piece `(l, u)` holds.
    fn label(&self, (l, u): (Marker, Marker)) -> Label {
        match &self.edges {
            PieceEdges::One(edges) => label_of(edges, l),
            PieceEdges::Two(pairs) => label_of(pairs, (l, u)),
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
        let mut cache = Cache::default();
        let mut budget = self.budget();
        Ok(self.isop(lower, upper, &mut cache, &mut budget)?.1)
    }

    /// The cover between `lower` and `upper` and the function it denotes, from `cache` when
    /// this pair was met before in the cover being built.
    fn isop(
        &mut self,
        lower: Marker,
        upper: Marker,
        cache: &mut Cache,
        budget: &mut Budget,
    ) -> Result<(Marker, Cover), Error> {
        if lower.is_false() {
            return Ok((Marker::FALSE, Cover::False));
        }
        if upper.is_true() {
            return Ok((Marker::TRUE, Cover::True));
        }
        if let Some(known) = cache.get(&(lower, upper)) {
            return Ok(known.clone());
        }
        budget.enter()?;
        let r = self.isop_new(lower, upper, cache, budget);
        budget.leave();
        let r = r?;
        cache.insert((lower, upper), r.clone());
        Ok(r)
    }

    /// The pieces of `var`'s domain for the bounds `lower` and `upper`, on the heap.
    #[inline(never)]
    fn pieces(&self, lower: Marker, upper: Marker, var: Var) -> Result<Box<Pieces>, Error> {
        if lower == upper {
            let edges = self.edges(lower, var)?;
            let list = distinct_children(&edges)
                .into_iter()
                .map(|c| (c, c))
                .collect();
            return Ok(Box::new(Pieces {
                edges: PieceEdges::One(edges),
                list,
            }));
        }
        let (l, u) = (self.edges(lower, var)?, self.edges(upper, var)?);
        let pairs = combine(
            &l,
            &u,
            |a, b| Ok::<_, Error>((a, b)),
            || Error::new(ErrorKind::ForeignMarker),
        )?;
        let list = distinct_children(&pairs);
        Ok(Box::new(Pieces {
            edges: PieceEdges::Two(pairs),
            list,
        }))
    }

    /// One level of the recurrence (the module's docs), for a pair not met before.
    fn isop_new(
        &mut self,
        lower: Marker,
        upper: Marker,
        cache: &mut Cache,
        budget: &mut Budget,
    ) -> Result<(Marker, Cover), Error> {
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
        let exact = lower == upper;
        // On the heap: this frame stays on the stack through the recursion below.
        let pieces = self.pieces(lower, upper, var)?;
        let label = |p: (Marker, Marker)| pieces.label(p);
        // A single decision (every piece constant) is its own cover: the literal of the
        // pieces that hold.
        if exact && pieces.list.iter().all(|(c, _)| c.is_true() || c.is_false()) {
            let guard = pieces
                .list
                .iter()
                .find(|(c, _)| c.is_true())
                .map(|&p| (var, label(p)));
            let cover = Cover::Branches(Arc::from([Branch {
                guard,
                cover: Cover::True,
            }]));
            return Ok((lower, cover));
        }
        let mut common_upper = Marker::TRUE;
        for &(_, u) in &pieces.list {
            common_upper = self.conj(common_upper, u)?;
        }
        let mut common_lower = Marker::FALSE;
        let mut function = Marker::FALSE;
        // (the function a branch's cover denotes, the branch)
        let mut branches: Vec<(Marker, Branch)> = Vec::new();
        for &(l, u) in &pieces.list {
            if l.is_false() {
                continue;
            }
            let required = self.conj(l, !common_upper)?;
            let (specific, cover) = self.isop(required, u, cache, budget)?;
            let remaining = self.conj(l, !specific)?;
            common_lower = self.disj(common_lower, remaining)?;
            if specific.is_false() {
                continue;
            }
            let label = label((l, u));
            if !exact {
                let literal = self.cube_marker(&[(var, &label)])?;
                let term = self.conj(literal, specific)?;
                function = self.disj(function, term)?;
            }
            // Pieces whose covers denote the same function share one literal.
            match branches.iter_mut().find(|(f, _)| *f == specific) {
                Some((_, b)) => {
                    b.guard = match &b.guard {
                        Some((_, old)) => label_union(old, &label).map(|l| (var, l)),
                        None => None,
                    };
                }
                None => branches.push((
                    specific,
                    Branch {
                        guard: Some((var, label)),
                        cover,
                    },
                )),
            }
        }
        let (common, common_cover) = self.isop(common_lower, common_upper, cache, budget)?;
        function = if exact {
            lower
        } else {
            self.disj(function, common)?
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
        let cover = Cover::Branches(branches.into_iter().map(|(_, b)| b).collect());
        Ok((function, cover))
    }
}

#[cfg(test)]
mod tests {
    use super::{Lit, label_union};
    use crate::dd::{Context, Label, Limits, Marker};
    use crate::print::tests::lock_markers;
    use crate::range::VersionSet;
    use crate::{Error, Theory};
    use markerspec_pep508::MarkerTree;

    /// The function a list of cubes denotes.
    fn union_of(ctx: &mut Context, cubes: &[Vec<Lit<'_>>]) -> Result<Marker, Error> {
        let mut f = Marker::FALSE;
        for cube in cubes {
            let c = ctx.cube_marker(cube)?;
            f = ctx.or(f, c)?;
        }
        Ok(f)
    }

    /// On every lock-file marker, and between the conjunction and the disjunction of each
    /// consecutive pair: the cover lies between its bounds (is the marker itself where they
    /// are equal), and no cube of an exact cover can go (each one covers a part of the marker
    /// no other cube does).
    #[test]
    fn covers_lie_between_their_bounds_and_no_cube_can_go() -> Result<(), Box<dyn std::error::Error>>
    {
        let text = lock_markers()?;
        let mut ctx = Context::new();
        let mut ms = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let tree: MarkerTree = line.parse()?;
            ms.push(ctx.from_marker(&tree, &Theory::none())?);
        }
        let (mut checked, mut redundant) = (0, 0);
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
            }
        }
        assert!(checked > 2000, "{checked} cubes checked");
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
