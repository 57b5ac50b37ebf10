//! Printing a marker back to marker syntax, each comparison written in its shortest exact
//! spelling: by default (since print form 7) the irredundant cover the ISOP recurrence reads from
//! the diagram (`dd/isop.rs`), as its DNF or with its shared literals taken out; on request
//! (`to_shortest_marker_string`) the shortest of a minimised DNF, a minimised CNF and the
//! diagram's factored form (and, for a longer marker, the DNF with its shared literals taken
//! out, and the split by the extras' functions where its extras come last).
//!
//! Everything here reads the diagram through [`Context::paths`] or the cover, which depend
//! only on the function and the variable order, so the printed form depends on neither
//! construction history nor thread.

use std::hash::BuildHasher;

use markerspec_pep508::{Field, MarkerExpression, MarkerOperator as O, MarkerValue, SmallStr};

use crate::cut::Cut;
use crate::dd::isop::{Cover, LitId};
use crate::dd::{Context, Label, Marker, Seen, Value, Var};
use crate::error::{Error, ErrorKind};
use crate::range::VersionSet;
use crate::translate::VarMeta;
use markerspec_pep440::Version;

pub(crate) mod spell;
mod strings;

/// The version of the printed form (`spec/SPEC.md` §21.4): a lock file that stores printed
/// markers can record it, and a change to the printer that changes any output is a new version.
///
/// ```
/// // What a lock file records beside the markers it stores.
/// let header = format!("marker-print-form = {}", markerspec_algebra::PRINT_FORM_VERSION);
/// assert_eq!(header, "marker-print-form = 8");
/// ```
///
/// It covers both [`Context::to_marker_string`] and [`Context::to_shortest_marker_string`].
pub const PRINT_FORM_VERSION: u32 = 8;

/// A literal of a cube: a variable and what holds for it (read in place from the diagram's
/// groups of edges).
type Lit<'a> = (Var, &'a Label);

/// Cubes with their own labels (what [`Context::quick_factor`] takes).
type OwnedCubes = Vec<Vec<(Var, Label)>>;

/// Printed text, and whether it has an `or` at its top level (it needs parentheses inside an
/// `and`).
#[derive(Clone, Debug)]
pub(crate) struct Text {
    s: String,
    or: bool,
}

/// The most cubes a form may have before the printer gives up on it.
const MAX_CUBES: usize = 256;

/// The most strings a cube's `in` literal is offered to take in (`grow_cube`), the first in
/// order: each one costs a walk of the marker.
const MAX_GROWN_STRINGS: usize = 32;

/// The most functions of the extras the split form ([`Context::print_split`]) writes apart.
const MAX_SPLIT: usize = 16;

/// The split form is tried for a marker whose shortest of the other forms has at least this
/// many characters (or that none of them prints).
const SPLIT_FROM: usize = 300;

/// A DNF is factored ([`Context::quick_factor`]) when the shortest form so far has at least
/// this many characters.
const FACTOR_FROM: usize = 100;

/// The most cubes of the larger DNF printed when none of the three forms fits the limits
/// ([`Context::print_large`]).
const LARGE_CUBES: usize = 4096;

/// The most steps each operation of that larger DNF may take (instead of the context's
/// [`Limits::steps`](crate::Limits::steps)), so that the whole of it stays bounded: it makes
/// a few operations per cube.
const LARGE_STEPS: u64 = 100_000;

/// Spellings of version labels shared by several contexts, typically one per thread printing
/// the markers of one input: a label one context has spelt (`python_full_version >= "3.10"`
/// for a set of versions) the others find instead of searching for it again. A spelling
/// depends only on the field and the set, so sharing changes no printed text.
///
/// Cheap to clone (the clones share one table, behind a lock that a context takes only when
/// its own cache misses); [`Send`] and [`Sync`]. The table keeps at most
/// [`Spellings::CAPACITY`] labels: past it the contexts go on with their own caches.
///
/// ```
/// use markerspec_algebra::{Context, Spellings, Theory};
///
/// let spellings = Spellings::new();
/// let mut texts = Vec::new();
/// for _ in 0..2 {
///     // (Usually one context per thread.)
///     let mut ctx = Context::new();
///     ctx.share_spellings(&spellings);
///     let m = ctx.parse_marker(
///         "python_full_version >= '3.10' and python_full_version < '3.13'",
///         &Default::default(),
///         &mut Vec::new(),
///         &Theory::none(),
///     )?;
///     texts.push(ctx.to_marker_string(m)?);
/// }
/// assert_eq!(texts[0], r#"python_full_version >= "3.10" and python_version < "3.13""#);
/// assert_eq!(texts[0], texts[1]);
/// assert_eq!(spellings.len(), 1);
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Spellings {
    table: std::sync::Arc<std::sync::Mutex<SpellingTable>>,
}

/// The shared spellings: by field and set, the text and whether it has a top-level `or`.
type SpellingTable = rustc_hash::FxHashMap<(Field, VersionSet), (std::sync::Arc<str>, bool)>;

impl Spellings {
    /// The most labels the table keeps.
    pub const CAPACITY: usize = 1 << 16;

    /// An empty table.
    #[must_use]
    pub fn new() -> Spellings {
        Spellings::default()
    }

    /// The number of labels spelt so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.table.lock().map_or(0, |t| t.len())
    }

    /// Whether no label has been spelt yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The spelling of `field in set`, when a context has found it.
    fn get(&self, field: Field, set: &VersionSet) -> Option<Text> {
        // (A lock poisoned by a panic elsewhere is left alone: each context spells for itself.)
        let table = self.table.lock().ok()?;
        table.get(&(field, set.clone())).map(|(s, or)| Text {
            s: s.to_string(),
            or: *or,
        })
    }

    /// Keeps `text` as the spelling of `field in set`.
    fn put(&self, field: Field, set: &VersionSet, text: &Text) {
        if let Ok(mut table) = self.table.lock() {
            if table.len() < Spellings::CAPACITY {
                table.insert((field, set.clone()), (text.s.as_str().into(), text.or));
            }
        }
    }
}

impl Context {
    /// Shares the spellings of version labels with the other contexts given the same
    /// [`Spellings`] (see there): the printed texts are the same, found once.
    pub fn share_spellings(&mut self, spellings: &Spellings) {
        self.spellings = Some(spellings.clone());
    }

    /// `m` in marker syntax: deterministic (it depends only on the function `m` denotes under
    /// the context's theory, and on the variable order), an irredundant sum of products read
    /// straight from the diagram, written as the shorter of its DNF and the DNF with its shared
    /// literals taken out (print form 7, `spec/SPEC.md` §21.4). The constants
    /// print as `true` and `false` (which pep508 reads back as
    /// [`MarkerTree::TRUE`](markerspec_pep508::MarkerTree::TRUE) and `FALSE`); version ranges
    /// use `python_version` where it says the same as `python_full_version`, wildcards (`==
    /// "3.11.*"`) where they are exact. [`to_shortest_marker_string`](Self::to_shortest_marker_string)
    /// searches further for a shorter text, at several times the cost.
    ///
    /// Under a theory ([`Context::from_marker`]) the printed marker is equal to `m` wherever
    /// the theory holds: the rules are not printed.
    ///
    /// The output reads as `m` under the `spec-2026` profile, except that an opaque comparison
    /// of a marker parsed under `packaging` or `uv` is printed as written, and means what it
    /// means under that profile (`python_version in "3.10 3.11"` from `packaging` is a
    /// substring test there, false under `spec-2026`): print such markers for readers of that
    /// profile.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let mut ctx = Context::new();
    /// let t: MarkerTree = "(os_name == 'nt' and extra == 'a') or (os_name == 'nt' and extra == 'b')"
    ///     .parse()
    ///     .unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// assert_eq!(
    ///     ctx.to_marker_string(m)?,
    ///     r#"os_name == "nt" and (extra == "a" or extra == "b")"#
    /// );
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// A cover of more than 4,096 cubes, or a literal with no spelling of its own (the version
    /// label "from 3.12 up to and with every post-release of 3.13.0", which only the negation
    /// of `> "3.13.0"` says), is printed as [`to_shortest_marker_string`](Self::to_shortest_marker_string)
    /// prints it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Unprintable`] for the negation of an opaque comparison without a
    /// complement operator, or a version label no widening within the marker spells (SPEC
    /// §21.4); [`ErrorKind::Intractable`] past the limits, and whenever the context reaches its
    /// node limit on the way (never a different text: print again in a fresh context, see
    /// [`Context::len`]).
    pub fn to_marker_string(&mut self, m: Marker) -> Result<String, Error> {
        self.print_cached(m, false)
    }

    /// `m` in marker syntax, as short as the printer's search finds: the shortest of a
    /// minimised DNF, a minimised CNF and a factored form; from 100 characters, the DNF with
    /// its shared literals taken out; and from 300, for a marker that reads extras after its
    /// other fields, the split by the extras' functions (`spec/SPEC.md` §21.4). Deterministic
    /// as [`to_marker_string`](Self::to_marker_string) is, with the same constants, spellings
    /// and profile; several times slower (a lock file's markers: about 3×), and shorter
    /// where a literal can grow or a cube is redundant, above all under a theory.
    ///
    /// ```
    /// use markerspec_algebra::{Context, Theory};
    /// use markerspec_pep508::MarkerTree;
    ///
    /// let mut ctx = Context::new();
    /// let t: MarkerTree = "(os_name == 'nt' and extra == 'a') or (os_name == 'nt' and extra == 'b')"
    ///     .parse()
    ///     .unwrap();
    /// let m = ctx.from_marker(&t, &Theory::none())?;
    /// assert_eq!(
    ///     ctx.to_shortest_marker_string(m)?,
    ///     r#"(extra == "a" or extra == "b") and os_name == "nt""#
    /// );
    /// # Ok::<(), markerspec_algebra::Error>(())
    /// ```
    ///
    /// The DNF and the CNF are tried up to 256 paths, the factored form up to 64 nodes; a
    /// marker none of them can print is printed as the shorter of its DNF and CNF with up to
    /// 4,096 paths (`spec/SPEC.md` §21.4).
    ///
    /// # Errors
    ///
    /// As [`to_marker_string`](Self::to_marker_string).
    pub fn to_shortest_marker_string(&mut self, m: Marker) -> Result<String, Error> {
        self.print_cached(m, true)
    }

    /// The printed form of `m`, cached per marker, theory constraint and form (but a single
    /// path with no theory: see below).
    fn print_cached(&mut self, m: Marker, shortest: bool) -> Result<String, Error> {
        let theory = self.theory();
        let care = self.theory_constraint(&theory)?;
        // One path to true, with no theory to simplify it under, is written straight from the
        // path (as `print_isop_within` writes it): cheaper than the table's bookkeeping. Where
        // that path cannot be written so, the table's way below decides.
        if !shortest && care.is_true() && !m.is_true() && !m.is_false() {
            if let Ok(Some(cube)) = self.single_cube(m) {
                if let Ok(text) = self.write_one_cube(&cube) {
                    return Ok(text);
                }
            }
        }
        if let Some(s) = self.print_cache.get(&(m, care, shortest)) {
            return Ok(s.to_string());
        }
        let s = self.with_print_cache(|ctx| ctx.print_uncached(m, care, shortest))?;
        self.print_cache
            .insert((m, care, shortest), s.as_str().into());
        Ok(s)
    }

    /// [`to_marker_string`](Self::to_marker_string) without the cache: `m` printed so that it
    /// is equal to `m` wherever `care` holds.
    /// The shortest of the DNF, the CNF and the factored form of `s` (simplified, not a
    /// constant) within their limits, equal to `s` wherever `care` holds; `None` when none of
    /// them prints it.
    ///
    /// Sets `three` to the length of the shortest of the DNF, the CNF and the factored form
    /// (the DNF with its shared literals taken out left aside: the split is tried from that
    /// length, SPEC §21.4).
    fn print_forms(
        &mut self,
        s: Marker,
        care: Marker,
        three: &mut Option<usize>,
    ) -> Result<Option<String>, Error> {
        // What may be printed: anything between `s and care` and `s or not care`.
        let upper = self.disj(s, !care)?;
        let mut best: Option<String> = None;
        let mut paths = 0;
        let mut cover = Vec::new();
        let dnf = self.print_cover(
            s,
            (care, upper),
            false,
            None,
            &mut paths,
            MAX_CUBES,
            Some(&mut cover),
        );
        // When `s` is one path printed as it is (no theory), the CNF's clauses are its
        // literals, one each (`one_path_cnf`).
        let one_path = paths == 1 && upper == s && dnf.is_ok();
        consider(dnf, &mut best)?;
        let lower_not = self.disj(!s, !care)?;
        // The CNF's clauses are found first, its literals spelt only when it can still be as
        // short as the DNF.
        let limit = best.as_ref().map(String::len);
        if one_path {
            if let Some(cnf) = self.one_path_cnf(s)? {
                consider(Ok(cnf), &mut best)?;
            }
        } else {
            let cnf = self.print_cover(!s, (care, lower_not), true, limit, &mut 0, MAX_CUBES, None);
            consider(cnf, &mut best)?;
        }
        // A single path's factored form is its DNF's text (or longer, as for the CNF). It is
        // not spelt when a lower bound on its length is already above the best so far.
        if !one_path {
            let beaten = match &best {
                Some(b) => self.factored_len_bound(s)?.is_none_or(|lb| lb > b.len()),
                None => false,
            };
            if !beaten {
                let factored = self.print_factored(s);
                consider(factored, &mut best)?;
            }
        }
        *three = best.as_ref().map(String::len);
        // A long DNF's cubes with their common literals taken out (`quick_factor`).
        if cover.len() > 1 && best.as_ref().is_some_and(|b| b.len() >= FACTOR_FROM) {
            let text = self.quick_factor(&cover)?;
            consider(Ok(text.s), &mut best)?;
        }

        Ok(best)
    }

    /// A DNF's cubes factored: the literal in the most cubes (the first met of those) taken
    /// out of them, `literal and (the rest of those cubes, factored)`, joined by `or` with the
    /// other cubes, factored the same way; cubes that share no literal joined as they are. An
    /// identity of Boolean algebra, so the text means what the cubes mean.
    fn quick_factor(&mut self, cover: &[Vec<(Var, Label)>]) -> Result<Text, Error> {
        // Each literal once, in the order the cubes meet them, with its text.
        let mut ids: Vec<(Var, &Label)> = Vec::new();
        let mut texts: Vec<Text> = Vec::new();
        let mut cubes: Vec<Vec<usize>> = Vec::with_capacity(cover.len());
        for cube in cover {
            let mut c = Vec::with_capacity(cube.len());
            for (var, label) in cube {
                let id = match ids.iter().position(|(v, l)| v == var && *l == label) {
                    Some(id) => id,
                    None => {
                        ids.push((*var, label));
                        texts.push(self.literal_text(*var, label)?);
                        ids.len() - 1
                    }
                };
                c.push(id);
            }
            cubes.push(c);
        }
        Ok(factor_cubes(&cubes, &texts))
    }

    fn print_uncached(&mut self, m: Marker, care: Marker, shortest: bool) -> Result<String, Error> {
        let s = self.simplify_under(m, care)?;
        if s.is_true() {
            return Ok("true".into());
        }
        if s.is_false() {
            return Ok("false".into());
        }
        if !shortest {
            match self.print_isop(s, care) {
                Ok(text) => return Ok(text),
                // A literal with no spelling, or a cover past its limits: the search below
                // finds another cover, or widens the literal. Not past the node limit: the text
                // would then depend on what the context held.
                Err(e)
                    if e.code() == "unprintable"
                        || (e.code() == "intractable" && !out_of_nodes(&e)) => {}
                Err(e) => return Err(e),
            }
        }
        let mut three = None;
        let mut best = self.print_forms(s, care, &mut three)?;
        // The split by the extras' functions (`print_split`), for a marker whose shortest of
        // the three forms is long (the split shortens repeated groups of extras).
        if three.is_none_or(|n| n >= SPLIT_FROM) {
            if let Some(split) = self.print_split(s, care).transpose() {
                consider(split, &mut best)?;
            }
        }

        let upper = self.disj(s, !care)?;
        let lower_not = self.disj(!s, !care)?;
        match best {
            Some(b) => Ok(b),
            None => match self.print_large(s, care, upper, lower_not)? {
                Some(t) => Ok(t),
                None => {
                    match self.print_cover(s, (care, upper), false, None, &mut 0, MAX_CUBES, None) {
                        // A literal with no spelling: widened where its cube allows.
                        Err(e) if e.code() == "unprintable" => {
                            match self.print_widened(s, (care, upper))? {
                                Some(t) => Ok(t),
                                None => Err(e),
                            }
                        }
                        // Report why: the DNF's own error.
                        r => r,
                    }
                }
            },
        }
    }

    /// Print form 7: an irredundant cover of `s` ([`isop_cover`](Context::isop_cover)) as
    /// [`print_isop_within`](Self::print_isop_within) writes it. Under a theory (`care` not
    /// `true`), the shorter of the cover of `s` itself (which [`simplify_under`] chose) and a
    /// cover free where the theory does not hold (between `s and care` and `s or not care`),
    /// the first on a tie: `sys_platform == "win32"` under `platform` is `os_name == "nt"`,
    /// which the second cover writes `platform_system == "Windows"` (the first variable in
    /// the order that says it).
    ///
    /// [`simplify_under`]: Self::simplify_under
    fn print_isop(&mut self, s: Marker, care: Marker) -> Result<String, Error> {
        let exact = self.print_isop_within(s, s)?;
        if care.is_true() {
            return Ok(exact);
        }
        let lower = self.conj(s, care)?;
        let upper = self.disj(s, !care)?;
        let free = self.print_isop_within(lower, upper)?;
        Ok(if free.len() < exact.len() {
            free
        } else {
            exact
        })
    }

    /// The irredundant cover between `lower` and `upper` written as the shorter of its DNF and
    /// the DNF with its shared literals taken out ([`quick_factor`](Self::quick_factor)), the
    /// DNF on a tie.
    fn print_isop_within(&mut self, lower: Marker, upper: Marker) -> Result<String, Error> {
        // A single path to true (most of a lock file's markers) is its own cover.
        let single = if lower == upper {
            self.single_cube(lower)?
        } else {
            None
        };
        let cover = match single {
            Some(cube) => return self.write_one_cube(&cube),
            None => self.isop_cover(lower, upper)?,
        };
        // The lists of the literals met and of the cubes, kept by the context from one print
        // to the next (emptied, their room kept): a first print of a lock file's markers grew
        // them from nothing each time.
        let mut scratch = std::mem::take(&mut self.cover_scratch);
        let r = self.write_isop_cover(&cover, &mut scratch);
        scratch.lits.clear();
        scratch.cubes.clear();
        self.cover_scratch = scratch;
        r
    }

    /// [`write_isop_cover`](Self::write_isop_cover)'s text of a cover of one cube, written
    /// straight from the cube: its literals in order (a version field's absent label beside
    /// its text left out), each spelt once per context, joined by `and` (a literal with a
    /// top-level `or` in parentheses when there are two or more). The DNF of one cube is the
    /// only form that cover is written in (there is nothing to factor).
    fn write_one_cube(&mut self, cube: &[LitId]) -> Result<String, Error> {
        let mut lits: smallvec::SmallVec<[LitId; 16]> = smallvec::SmallVec::new();
        for &lit in cube {
            if self.left_out_of_cube(lit, cube) {
                continue;
            }
            lits.push(lit);
        }
        self.spell_cover_literals(&lits)?;
        // As `write_and` writes a cube, straight from the literals' texts.
        let several = lits.len() > 1;
        let len = lits
            .iter()
            .map(|&lit| {
                let (t, or) = self.cover_literal_text(lit);
                t.len() + if or && several { 2 } else { 0 }
            })
            .sum::<usize>()
            + " and ".len() * lits.len().saturating_sub(1);
        let mut out = String::with_capacity(len);
        for (k, &lit) in lits.iter().enumerate() {
            if k > 0 {
                out.push_str(" and ");
            }
            let (t, or) = self.cover_literal_text(lit);
            push_in(&mut out, t, or && several);
        }
        debug_assert_eq!(out.len(), len);
        Ok(out)
    }

    /// Spells each of `lits` that is not spelt yet (once per context: the ids are the cover
    /// literals' cache).
    fn spell_cover_literals(&mut self, lits: &[LitId]) -> Result<(), Error> {
        for &lit in lits {
            let unspelt = self.cover_literals.get(lit).filter(|l| l.text.is_none());
            let Some((var, label)) = unspelt.map(|l| (l.var, l.label.clone())) else {
                continue;
            };
            let t = self.literal_text_uncached(var, &label)?;
            self.cover_literals
                .set_text(lit, (t.s.into_boxed_str(), t.or));
        }
        Ok(())
    }

    /// A spelt cover literal's text and whether it has a top-level `or` (`""` for one not
    /// spelt).
    fn cover_literal_text(&self, lit: LitId) -> (&str, bool) {
        self.cover_literals
            .get(lit)
            .and_then(|l| l.text.as_ref())
            .map_or(("", false), |(s, or)| (&**s, *or))
    }

    /// [`print_isop_within`](Self::print_isop_within)'s text of `cover`, with `scratch`'s
    /// lists (empty) to work in.
    fn write_isop_cover(
        &mut self,
        cover: &Cover,
        scratch: &mut CoverScratch,
    ) -> Result<String, Error> {
        // Each distinct literal numbered once, in the order the cubes meet them (the cover's
        // literals are the context's, each `(variable, label)` one id), through the context's
        // table of numbers by id (`usize::MAX` for none yet), put back as it was found. A
        // version field's absent label beside its text is left out (`absent_with_text`).
        let mut local = std::mem::take(&mut self.cover_numbers);
        local.resize(self.cover_literals.len(), usize::MAX);
        let CoverScratch { lits, cubes: ids } = scratch;
        let walked = cover.for_each_cube(LARGE_CUBES, &mut |cube| {
            let mut c = Cube::new();
            for &lit in cube {
                if self.left_out_of_cube(lit, cube) {
                    continue;
                }
                let Some(slot) = local.get_mut(lit as usize) else {
                    continue;
                };
                if *slot == usize::MAX {
                    *slot = lits.len();
                    lits.push(lit);
                }
                c.push(*slot);
            }
            ids.push(c);
            Ok(())
        });
        for &lit in lits.iter() {
            if let Some(slot) = local.get_mut(lit as usize) {
                *slot = usize::MAX;
            }
        }
        self.cover_numbers = local;
        walked?;
        // Each literal spelt once per context: the ids are this path's cache.
        self.spell_cover_literals(lits)?;
        // (Inline for the usual few literals.)
        let texts: smallvec::SmallVec<[(&str, bool); 16]> = lits
            .iter()
            .map(|&lit| self.cover_literal_text(lit))
            .collect();
        // The DNF: a literal with a top-level `or` in parentheses inside a cube of two or more.
        // Its length is known from the literals' before it is written: written only when the
        // factored text is not shorter, each text written once into room made for it.
        let text = |id: usize| texts.get(id).copied().unwrap_or(("", false));
        let dnf_len = ids
            .iter()
            .map(|cube| {
                let paren = cube.len() > 1;
                cube.iter()
                    .map(|&id| {
                        let (t, or) = text(id);
                        t.len() + if or && paren { 2 } else { 0 }
                    })
                    .sum::<usize>()
                    + " and ".len() * cube.len().saturating_sub(1)
            })
            .sum::<usize>()
            + " or ".len() * ids.len().saturating_sub(1);
        if ids.len() > 1 {
            let mut factored = String::with_capacity(dnf_len);
            factor_into(ids, &texts, false, &mut factored);
            if factored.len() < dnf_len {
                return Ok(factored);
            }
        }
        let mut dnf = String::with_capacity(dnf_len);
        for (k, cube) in ids.iter().enumerate() {
            if k > 0 {
                dnf.push_str(" or ");
            }
            for (j, &id) in cube.iter().enumerate() {
                if j > 0 {
                    dnf.push_str(" and ");
                }
                let (t, or) = text(id);
                push_in(&mut dnf, t, or && cube.len() > 1);
            }
        }
        debug_assert_eq!(dnf.len(), dnf_len);
        Ok(dnf)
    }

    /// The last resort for a marker whose every form has a literal with no spelling of its own
    /// (the version label "from 3.12 up to and with every post-release of 3.13.0", which only
    /// the negation of `> "3.13.0"` says, in `python_full_version > "3.13.0" or
    /// (python_full_version >= "3.12" and extra == "local")`): its DNF, each path a cube, each
    /// such label widened to one with a spelling as far as the rest of its cube allows (the
    /// cube stays inside `upper`, and still holds its path, so the cubes cover `f`). Of the
    /// widest label, and the label grown up or down within it, the shortest spelling; a label
    /// that may grow to every value is dropped. Then each literal a cube can do without is
    /// dropped, and each cube the others cover where `care` holds
    /// ([`irredundant`](Self::irredundant)). Deterministic, as the paths are; `None` when a
    /// label has no spelling up to that bound,
    /// or past [`MAX_CUBES`] paths.
    fn print_widened(
        &mut self,
        f: Marker,
        (care, upper): (Marker, Marker),
    ) -> Result<Option<String>, Error> {
        let paths = self.paths(f)?;
        if paths.len() > MAX_CUBES {
            return Ok(None);
        }
        let mut cubes: Vec<Vec<(Var, Label)>> = Vec::with_capacity(paths.len());
        for mut cube in paths {
            let mut j = 0;
            while let Some((var, label)) = cube.get(j).cloned() {
                match self.literal_text(var, &label) {
                    Ok(_) => {
                        j += 1;
                        continue;
                    }
                    Err(e) if e.code() == "unprintable" => {}
                    Err(e) => return Err(e),
                }
                // The values of `var` for which the rest of the cube stays inside `upper`.
                let rest = self.cube_marker(&without(&cube, j))?;
                let mut out = self.conj(rest, !upper)?;
                for v in self.support(out)? {
                    if v != var {
                        out = self.exists(out, v)?;
                    }
                }
                if out.is_false() {
                    cube.remove(j);
                    continue;
                }
                let Label::Versions(set) = &label else {
                    return Ok(None);
                };
                let mut max = VersionSet::empty();
                for path in self.paths(!out)? {
                    for (_, l) in path {
                        if let Label::Versions(piece) = l {
                            max = max.union(&piece);
                        }
                    }
                }
                // All of `max`, or the label grown up or down in it.
                let (Some(lo), Some(hi)) = (set.bounds().first(), set.bounds().last()) else {
                    return Ok(None);
                };
                let candidates = [
                    max.clone(),
                    set.union(&max.intersection(&VersionSet::interval(lo.clone(), Cut::TOP))),
                    set.union(&max.intersection(&VersionSet::interval(Cut::BOTTOM, hi.clone()))),
                ];
                let Some(widened) = self.best_spelt(var, candidates)? else {
                    return Ok(None);
                };
                // (Read again: the widened label now has a spelling.)
                if let Some(slot) = cube.get_mut(j) {
                    slot.1 = Label::Versions(widened);
                }
            }
            // Each literal the cube can do without dropped, last to first.
            let mut seen = Seen::default();
            for k in (0..cube.len()).rev() {
                if self.cube_within(&without(&cube, k), upper, &mut seen)? {
                    cube.remove(k);
                }
            }
            // (Checked, though it holds by construction: the cube lies inside `upper`.)
            let lits: Vec<(Var, &Label)> = cube.iter().map(|(v, l)| (*v, l)).collect();
            if !self.cube_within(&lits, upper, &mut seen)? {
                return Ok(None);
            }
            if !cubes.contains(&cube) {
                cubes.push(cube);
            }
        }
        let borrowed: Vec<Vec<Lit<'_>>> = cubes
            .iter()
            .map(|c| c.iter().map(|(v, l)| (*v, l)).collect())
            .collect();
        let kept = self.irredundant(borrowed, upper, (f, care), None)?;
        let mut texts: Vec<Text> = Vec::with_capacity(kept.len());
        for cube in &kept {
            let mut parts = Vec::with_capacity(cube.len());
            for (var, label) in cube {
                parts.push(self.literal_text(*var, label)?);
            }
            if parts.is_empty() {
                return Ok(Some("true".into()));
            }
            texts.push(join(&parts, " and "));
        }
        Ok(Some(join(&texts, " or ").s))
    }

    /// Of version labels of `var`, the one with the shortest spelling (the first of equals);
    /// `None` when none has one.
    fn best_spelt(
        &mut self,
        var: Var,
        candidates: impl IntoIterator<Item = VersionSet>,
    ) -> Result<Option<VersionSet>, Error> {
        let mut best: Option<(Text, VersionSet)> = None;
        for c in candidates {
            match self.literal_text(var, &Label::Versions(c.clone())) {
                Ok(t) => {
                    if best.as_ref().is_none_or(|(b, _)| shorter(&t.s, &b.s)) {
                        best = Some((t, c));
                    }
                }
                Err(e) if e.code() == "unprintable" => {}
                Err(e) => return Err(e),
            }
        }
        Ok(best.map(|(_, c)| c))
    }

    /// A marker none of the three forms could print within the limits (more than
    /// [`MAX_CUBES`] paths both ways, more than 64 nodes, or a literal with no spelling of its
    /// own): the shorter of its DNF and its CNF with up to [`LARGE_CUBES`] paths, each
    /// operation on the way limited to [`LARGE_STEPS`] steps (at most the context's own
    /// limit). Found the same way as the smaller forms, so the text is as deterministic;
    /// `None` when neither fits.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Intractable`] when the context reached its node limit on the way.
    fn print_large(
        &mut self,
        s: Marker,
        care: Marker,
        upper: Marker,
        lower_not: Marker,
    ) -> Result<Option<String>, Error> {
        let saved = self.limits();
        self.set_limits(crate::Limits {
            steps: saved.steps.min(LARGE_STEPS),
            ..saved
        });
        let dnf = self.print_cover(s, (care, upper), false, None, &mut 0, LARGE_CUBES, None);
        let limit = dnf.as_ref().ok().map(String::len);
        let cnf = self.print_cover(
            !s,
            (care, lower_not),
            true,
            limit,
            &mut 0,
            LARGE_CUBES,
            None,
        );
        self.set_limits(saved);
        for e in [&dnf, &cnf].into_iter().filter_map(|r| r.as_ref().err()) {
            if out_of_nodes(e) {
                return Err(e.clone());
            }
        }
        Ok(match (dnf, cnf) {
            (Ok(d), Ok(c)) => Some(if shorter(&c, &d) { c } else { d }),
            (Ok(t), Err(_)) | (Err(_), Ok(t)) => Some(t),
            (Err(_), Err(_)) => None,
        })
    }

    /// `m` with what `care` makes redundant removed: restricted to `care`, then every
    /// variable that can be dropped (existentially or universally) without changing `m`
    /// where `care` holds, in the variable order.
    fn simplify_under(&mut self, m: Marker, care: Marker) -> Result<Marker, Error> {
        if care.is_true() {
            return Ok(m);
        }
        let target = self.conj(m, care)?;
        let mut s = self.restrict(m, care)?;
        for var in self.support(s)? {
            for quantify in [true, false] {
                let t = if quantify {
                    self.exists(s, var)?
                } else {
                    self.forall(s, var)?
                };
                if self.conj(t, care)? == target {
                    s = t;
                    break;
                }
            }
        }
        Ok(s)
    }

    /// A minimised cover of `f` (cubes that imply `upper`, together covering `f`), printed as
    /// a DNF, or with `negate` as the CNF of `not f` read back (each cube negated). With a
    /// `limit`, [`ErrorKind::Intractable`] when the text would be longer than `limit` (known
    /// from a lower bound on each literal's length, before any literal is spelt). Sets
    /// `path_count` to the number of paths of `f`. (The tests' view of one form: the printer
    /// calls [`print_cover`](Self::print_cover), with the theory.)
    #[cfg(test)]
    fn print_dnf(
        &mut self,
        f: Marker,
        upper: Marker,
        negate: bool,
        limit: Option<usize>,
        path_count: &mut usize,
    ) -> Result<String, Error> {
        self.print_cover(
            f,
            (Marker::TRUE, upper),
            negate,
            limit,
            path_count,
            MAX_CUBES,
            None,
        )
    }

    /// A minimised cover of `f` printed as a DNF, or with `negate` as the CNF of `not f` read
    /// back, as `print_dnf` (in the tests) describes, for a marker of at most `max_cubes`
    /// paths, whose cover
    /// need only cover `f` where `care` holds (under a theory, its constraint), and must lie
    /// inside `upper`; and with `keep`, the cubes it prints
    /// (each literal as printed: a version field's absent label beside its text left out)
    /// when the text has [`FACTOR_FROM`] characters or more (the only texts
    /// [`quick_factor`](Self::quick_factor) is tried on). Nothing is kept when the text is
    /// not written (a literal without a spelling).
    #[allow(clippy::too_many_arguments)]
    fn print_cover(
        &mut self,
        f: Marker,
        (care, upper): (Marker, Marker),
        negate: bool,
        limit: Option<usize>,
        path_count: &mut usize,
        max_cubes: usize,
        keep: Option<&mut Vec<Vec<(Var, Label)>>>,
    ) -> Result<String, Error> {
        let refs = self.paths_cached(f)?;
        *path_count = refs.len();
        if refs.len() > max_cubes {
            return Err(Error::intractable(crate::error::Limit::Steps));
        }
        let paths = refs.cubes();
        let mut cubes: Vec<Vec<Lit<'_>>> = Vec::with_capacity(paths.len());
        if paths.len() == 1 && upper == f {
            // `f` is its one path: no literal of it can be dropped (each one's label is a
            // proper part of its domain), and the cube is irredundant.
            cubes = paths;
        } else {
            // Paths often expand to one cube. A repeat is left out at once: the irredundancy
            // pass would drop it (the first one covers it) and keep the same others, as the
            // unions it is checked against are the same with it or without it.
            let hasher = rustc_hash::FxBuildHasher;
            let mut hashes: Vec<u64> = Vec::with_capacity(paths.len());
            let (mut lits, mut seen) = (Vec::new(), Seen::default());
            for cube in paths {
                let cube = self.expand(cube, upper, f, &mut lits, &mut seen)?;
                let h = hasher.hash_one(&cube);
                let repeat = hashes
                    .iter()
                    .zip(&cubes)
                    .any(|(g, c)| *g == h && *c == cube);
                if !repeat {
                    hashes.push(h);
                    cubes.push(cube);
                }
            }
        }
        // Each literal grown where the cube may grow and the text gets no longer
        // (`grow_cube`); a cube that becomes another's repeat is left out.
        let mut grown: Vec<(usize, usize, Label)> = Vec::new();
        if cubes.len() > 1 {
            let (mut seen, mut strings) = (Seen::default(), Vec::new());
            for (i, cube) in cubes.iter().enumerate() {
                for (j, g) in self.grow_cube(cube, upper, negate, &mut seen, &mut strings)? {
                    grown.push((i, j, g));
                }
            }
        }
        if !grown.is_empty() {
            for (i, j, g) in &grown {
                if let Some(slot) = cubes.get_mut(*i).and_then(|c| c.get_mut(*j)) {
                    slot.1 = g;
                }
            }
            let mut unique: Vec<Vec<Lit<'_>>> = Vec::with_capacity(cubes.len());
            for cube in cubes {
                if !unique.contains(&cube) {
                    unique.push(cube);
                }
            }
            cubes = unique;
        }
        // (No two cubes are the same: repeats were left out above.)
        // (With a limit, `irredundant` refuses a cover longer than it.)
        let kept = self.irredundant(cubes, upper, (f, care), limit.map(|l| (l, negate)))?;
        // Each literal of two intervals or strings or more with the ones the other cubes
        // cover left out (`reduce_cover`).
        let reduced = self.reduce_cover(&kept, (f, care), negate)?;
        let mut kept = kept;
        for (i, j, r) in &reduced {
            if let Some(slot) = kept.get_mut(*i).and_then(|c| c.get_mut(*j)) {
                slot.1 = r;
            }
        }
        self.write_cover(&kept, negate, keep)
    }

    /// A cover's cubes as text: a DNF, or with `negate` the CNF whose clauses are the cubes
    /// negated. With `keep`, also the cubes as printed (a version field's absent label beside
    /// its text left out), when the text has [`FACTOR_FROM`] characters or more (the only
    /// texts the search tries [`quick_factor`](Self::quick_factor) on).
    fn write_cover(
        &mut self,
        kept: &[Vec<Lit<'_>>],
        negate: bool,
        keep: Option<&mut OwnedCubes>,
    ) -> Result<String, Error> {
        // The text, written from the literal cache as `join` would join the literals' and the
        // cubes' texts: in a DNF, a literal with a top-level `or` in parentheses inside a cube
        // of two or more; in a CNF, a clause of two or more literals (or of one with a
        // top-level `or`) in parentheses when there are two or more clauses.
        if kept.is_empty() {
            return Ok(if negate { "true" } else { "false" }.into());
        }
        let mut out = String::new();
        let mut lits: Vec<(Var, std::borrow::Cow<'_, Label>)> = Vec::new();
        for (k, cube) in kept.iter().enumerate() {
            lits.clear();
            for &(var, own) in cube {
                // `V is no version and its text is x` prints as `field == "x"` (and, negated,
                // `field != "x"`).
                if self.absent_with_text(var, own, cube.iter().copied()) {
                    continue;
                }
                let label = if negate {
                    std::borrow::Cow::Owned(negate_label(own))
                } else {
                    std::borrow::Cow::Borrowed(own)
                };
                self.cache_literal(var, &label)?;
                lits.push((var, label));
            }

            if k > 0 {
                out.push_str(if negate { " and " } else { " or " });
            }
            let many = lits.len() > 1;
            let clause_parens = negate
                && kept.len() > 1
                && (many
                    || lits
                        .first()
                        .is_some_and(|(var, label)| self.cached_literal(*var, label).1));
            if clause_parens {
                out.push('(');
            }
            for (j, (var, label)) in lits.iter().enumerate() {
                if j > 0 {
                    out.push_str(if negate { " or " } else { " and " });
                }
                let (text, or) = self.cached_literal(*var, label);
                if !negate && many && or {
                    out.push('(');
                    out.push_str(text);
                    out.push(')');
                } else {
                    out.push_str(text);
                }
            }
            if clause_parens {
                out.push(')');
            }
        }
        if let Some(keep) = keep {
            if out.len() >= FACTOR_FROM {
                for cube in kept {
                    let printed = cube
                        .iter()
                        .filter(|&&(v, l)| !self.absent_with_text(v, l, cube.iter().copied()))
                        .map(|&(v, l)| (v, if negate { negate_label(l) } else { l.clone() }));
                    keep.push(printed.collect());
                }
            }
        }
        Ok(out)
    }

    /// A cube inside `upper` with its literals grown, one after the other (each test sees the
    /// ones grown before it: two literals that may each grow alone need not grow together),
    /// where the cube still lies inside `upper` (so a cover still covers `f` and stays inside
    /// `upper`) and the literal prints no longer (with `negate`, as the clause literal it is):
    /// the changed literals, by position. Two kinds grow:
    ///
    /// - `var not in {x, y, …}` leaves out each exception `x` for which the cube with `var ==
    ///   x` in its place lies inside `upper`. In the DNF of `sys_platform == "win32" or
    ///   sys_platform != "darwin" and platform_machine == "aarch64"`, the path's `sys_platform
    ///   not in {darwin, win32}` is written `sys_platform != "darwin"`; in a CNF, a clause's
    ///   `sys_platform == "darwin" or sys_platform == "win32"` shrinks the same way.
    /// - a version set grows to the versions below its top, above its bottom, or between its
    ///   first and last bound: in `python_full_version >= "3.9" and implementation_name ==
    ///   "cpython" or python_full_version >= "3.11"`, the first path's versions from 3.9 up
    ///   to 3.11's pre-releases (`>= "3.9" and != "3.11" and <= "3.11"`) grow to `>= "3.9"`.
    /// - a string field's `var in {x, y, …}` takes in strings that `upper` names (at most
    ///   [`MAX_GROWN_STRINGS`] of them, in order, each inside a string of the set or holding
    ///   one: another one only adds a comparison) for which the cube with `var == s` in its
    ///   place lies inside `upper`: each one alone, each with those inside it (as `in "s"`
    ///   needs), or all of them. Under the `platform`
    ///   theory, where `sys_platform == "win32"` and `os_name != "nt"` is ruled out, the cube
    ///   `sys_platform in {win3, in32, …}` of `os_name == "nt" or sys_platform in "win32" and
    ///   sys_platform not in "cygwin"` takes in `win32` and prints as `sys_platform in "win32"
    ///   and sys_platform not in "win"`; the cube `os_name == "nt"` is then redundant there.
    ///
    /// `strings` caches, per variable, the strings `upper` names.
    fn grow_cube(
        &mut self,
        cube: &[Lit<'_>],
        upper: Marker,
        negate: bool,
        seen: &mut Seen,
        strings: &mut Vec<(Var, Vec<std::sync::Arc<str>>)>,
    ) -> Result<Vec<(usize, Label)>, Error> {
        // The literals grown so far, by position (most cubes grow none: no allocation).
        let mut grown: Vec<(usize, Label)> = Vec::new();
        for (j, &(var, own)) in cube.iter().enumerate() {
            let candidates: Vec<Label> = match own {
                Label::StringNotIn(except) => {
                    let mut left: Vec<String> = Vec::with_capacity(except.len());
                    for x in except {
                        let one = Label::StringIn(vec![x.clone()]);
                        if !self.grown_within(cube, &grown, (j, &one), upper, seen)? {
                            left.push(x.clone());
                        }
                    }
                    // (None left: the literal could go, which `expand` decides, not this.)
                    if left.len() == except.len() || left.is_empty() {
                        continue;
                    }
                    vec![Label::StringNotIn(left)]
                }
                Label::Versions(set) => {
                    let mut out = Vec::new();
                    for wider in wider_sets(set) {
                        let wider = Label::Versions(wider);
                        if self.grown_within(cube, &grown, (j, &wider), upper, seen)? {
                            out.push(wider);
                        }
                    }
                    out
                }
                Label::StringIn(set) if matches!(self.meta(var), Some(VarMeta::Str { .. })) => {
                    let named = match strings.iter().position(|(v, _)| *v == var) {
                        Some(k) => k,
                        None => {
                            strings.push((var, self.strings_of(upper, var)));
                            strings.len() - 1
                        }
                    };
                    let named: &[std::sync::Arc<str>] =
                        strings.get(named).map_or(&[], |(_, s)| s.as_slice());
                    let mut more: Vec<String> = Vec::new();
                    // Only a string inside one of the set's or holding one may shorten the
                    // text (as `in`): another one is a comparison more.
                    let related = |x: &str| {
                        set.iter()
                            .any(|s| s.as_str() != x && (s.contains(x) || x.contains(s.as_str())))
                    };
                    for x in named
                        .iter()
                        .filter(|x| !set.iter().any(|s| s.as_str() == &***x) && related(x))
                        .take(MAX_GROWN_STRINGS)
                    {
                        let one = Label::StringIn(vec![x.to_string()]);
                        if self.grown_within(cube, &grown, (j, &one), upper, seen)? {
                            more.push(x.to_string());
                        }
                    }
                    let with = |extra: &[String]| {
                        let mut v: Vec<String> = set.iter().chain(extra).cloned().collect();
                        v.sort();
                        Label::StringIn(v)
                    };
                    // Each string alone; each with the ones of `more` inside it (what `in
                    // "x"` needs); and all of them.
                    let mut out: Vec<Label> = Vec::new();
                    for x in &more {
                        out.push(with(std::slice::from_ref(x)));
                        let inside: Vec<String> = more
                            .iter()
                            .filter(|y| x.contains(y.as_str()))
                            .cloned()
                            .collect();
                        if inside.len() > 1 {
                            out.push(with(&inside));
                        }
                    }
                    if more.len() > 1 {
                        out.push(with(&more));
                    }
                    out.dedup();
                    out
                }
                _ => continue,
            };
            if candidates.is_empty() {
                continue;
            }
            // The shortest text, the literal's own first; but of a `not in` literal and the
            // same with fewer exceptions, as short, the latter (a larger cube leaves more
            // for the irredundancy pass to drop); of `in` literals as short, the one with
            // the most strings.
            let mut best = self.printed_len(var, own, negate)?;
            let mut chosen = None;
            let size = |l: &Label| match l {
                Label::StringIn(v) => v.len(),
                _ => 0,
            };
            let mut most = size(own);
            let strings = matches!(own, Label::StringNotIn(_));
            let name = match self.meta(var) {
                Some(VarMeta::Str { field }) => Some(field.name()),
                _ => None,
            };
            for c in candidates {
                // An `in` set whose text cannot be as short is not spelt.
                if let (Some(name), Label::StringIn(v), Some(b)) = (name, &c, best) {
                    if strings::string_len_bound(name, v) > b {
                        continue;
                    }
                }
                if let Some(n) = self.printed_len(var, &c, negate)? {
                    let larger = size(&c) > most;
                    if best.is_none_or(|b| n < b || (n == b && (strings || larger))) {
                        most = size(&c);
                        best = Some(n);
                        chosen = Some(c);
                    }
                }
            }
            if let Some(c) = chosen {
                grown.push((j, c));
            }
        }
        Ok(grown)
    }

    /// An irredundant cover of `f` (where `care` holds) with its literals shrunk, cube after
    /// cube (each test sees
    /// the cubes shrunk before it): a version literal loses an interval, an `in` literal a
    /// string, where the part of `f` that the cube covers there lies inside the other cubes,
    /// and the literal then prints shorter (with `negate`, as the clause literal it is). In the
    /// DNF of `python_full_version < "3.11" or python_full_version >= "3.11" and
    /// python_full_version < "3.13" and sys_platform == "linux"`, the path through
    /// `sys_platform == "linux"` holds the versions below 3.11 as well; the first cube covers
    /// them, so the second is written with `>= "3.11" and < "3.13"` alone. The changed
    /// literals, by cube and position.
    fn reduce_cover(
        &mut self,
        cover: &[Vec<Lit<'_>>],
        (f, care): (Marker, Marker),
        negate: bool,
    ) -> Result<Vec<(usize, usize, Label)>, Error> {
        let many = |l: &Label| match l {
            Label::Versions(set) => set.intervals().nth(1).is_some(),
            Label::StringIn(v) => v.len() > 1,
            _ => false,
        };
        let mut out: Vec<(usize, usize, Label)> = Vec::new();
        if cover.len() < 2 || !cover.iter().flatten().any(|(_, l)| many(l)) {
            return Ok(out);
        }
        // The cubes' markers, and the unions of the ones after each: the cubes before cube
        // `i` are taken as shrunk (`before`), the ones after it as they came.
        let mut markers: Vec<Marker> = Vec::with_capacity(cover.len());
        for cube in cover {
            markers.push(self.cube_marker(cube)?);
        }
        let mut after: Vec<Marker> = vec![Marker::FALSE; cover.len()];
        let mut union = Marker::FALSE;
        for (k, &m) in markers.iter().enumerate().rev() {
            union = self.disj(m, union)?;
            if let Some(slot) = after.get_mut(k) {
                *slot = union;
            }
        }
        // Where no cube need cover: where `f` or `care` does not hold.
        let outside = self.disj(!f, !care)?;
        let mut before = Marker::FALSE;
        let mut seen = Seen::default();
        for (i, cube) in cover.iter().enumerate() {
            let own = markers.get(i).copied().unwrap_or(Marker::FALSE);
            if !cube.iter().any(|(_, l)| many(l)) {
                before = self.disj(before, own)?;
                continue;
            }
            // What the cube need not cover: the other cubes, and `outside`.
            let others = self.disj(before, after.get(i + 1).copied().unwrap_or(Marker::FALSE))?;
            let spare = self.disj(others, outside)?;
            let mut now: Vec<(Var, Label)> = cube.iter().map(|&(v, l)| (v, l.clone())).collect();
            let mut changed = false;
            for j in 0..now.len() {
                let Some((var, label)) = now.get(j).cloned() else {
                    continue;
                };
                if !many(&label) {
                    continue;
                }
                // Each part the literal could leave out, alone.
                let parts: Vec<Label> = match &label {
                    Label::Versions(set) => set
                        .intervals()
                        .map(|(lo, hi)| {
                            Label::Versions(VersionSet::interval(lo.clone(), hi.clone()))
                        })
                        .collect(),
                    Label::StringIn(v) => {
                        v.iter().map(|x| Label::StringIn(vec![x.clone()])).collect()
                    }
                    _ => Vec::new(),
                };
                let mut have = label.clone();
                for part in parts {
                    if !many(&have) {
                        break;
                    }
                    // The part of `f` the cube covers through `part` lies in the others?
                    let lits: smallvec::SmallVec<[(Var, &Label); 8]> = now
                        .iter()
                        .enumerate()
                        .map(|(k, (v, l))| (*v, if k == j { &part } else { l }))
                        .collect();
                    if !self.cube_within(&lits, spare, &mut seen)? {
                        continue;
                    }
                    let smaller = match (&have, &part) {
                        (Label::Versions(a), Label::Versions(b)) => {
                            Label::Versions(a.intersection(&b.complement()))
                        }
                        (Label::StringIn(a), Label::StringIn(b)) => {
                            Label::StringIn(a.iter().filter(|x| !b.contains(x)).cloned().collect())
                        }
                        _ => continue,
                    };
                    let (Some(new), old) = (
                        self.printed_len(var, &smaller, negate)?,
                        self.printed_len(var, &have, negate)?,
                    ) else {
                        continue;
                    };
                    if old.is_none_or(|o| new < o) {
                        have = smaller;
                    }
                }
                if have != label {
                    if let Some(slot) = now.get_mut(j) {
                        slot.1 = have.clone();
                    }
                    out.push((i, j, have));
                    changed = true;
                }
            }
            let own = if changed {
                let lits: Vec<(Var, &Label)> = now.iter().map(|(v, l)| (*v, l)).collect();
                self.cube_marker(&lits)?
            } else {
                own
            };
            before = self.disj(before, own)?;
        }
        Ok(out)
    }

    /// The length of `label`'s text for `var` (with `negate`, of its complement's, as a
    /// clause literal); `None` for a label with no spelling.
    fn printed_len(
        &mut self,
        var: Var,
        label: &Label,
        negate: bool,
    ) -> Result<Option<usize>, Error> {
        let label = if negate {
            std::borrow::Cow::Owned(negate_label(label))
        } else {
            std::borrow::Cow::Borrowed(label)
        };
        match self.literal_text(var, &label) {
            Ok(t) => Ok(Some(t.s.len())),
            Err(e) if e.code() == "unprintable" => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether `cube`, with the literals grown so far in place of its own and literal `j`'s
    /// replaced by `label`, lies inside `upper`.
    fn grown_within(
        &self,
        cube: &[Lit<'_>],
        grown: &[(usize, Label)],
        (j, label): (usize, &Label),
        upper: Marker,
        seen: &mut Seen,
    ) -> Result<bool, Error> {
        let trial: smallvec::SmallVec<[(Var, &Label); 8]> = cube
            .iter()
            .enumerate()
            .map(|(k, &(var, own))| {
                if k == j {
                    (var, label)
                } else {
                    let g = grown.iter().find(|(at, _)| *at == k).map(|(_, g)| g);
                    (var, g.unwrap_or(own))
                }
            })
            .collect();
        self.cube_within(&trial, upper, seen)
    }

    /// `cubes` (each inside `upper`, together covering `f`) made irredundant: a cube is
    /// dropped when the others (the earlier ones, and the later ones still kept) cover the
    /// part of `f` it covers where `care` holds; last to first. Under a theory (`care` its
    /// constraint), a cube that covers only what the others cover, and environments the
    /// theory rules out, is dropped.
    ///
    /// With a `limit` (a length, and whether the cover is read as a CNF), stops with
    /// [`ErrorKind::Intractable`] as soon as a lower bound on the text of the cubes kept so far
    /// ([`LenBound`]) is longer than `limit`: a kept cube stays kept, and the cubes still to
    /// come can only add to the text.
    fn irredundant<'a>(
        &mut self,
        cubes: Vec<Vec<Lit<'a>>>,
        upper: Marker,
        (f, care): (Marker, Marker),
        limit: Option<(usize, bool)>,
    ) -> Result<Vec<Vec<Lit<'a>>>, Error> {
        // Cubes no two of which meet are irredundant already (each holds its path, which lies
        // in `f`), but under a theory each is checked alone: its part of `f` may lie where the
        // theory does not hold. (One cube alone covers `f`, which meets `care`.)
        let overlap = cubes
            .iter()
            .enumerate()
            .any(|(i, a)| cubes.iter().skip(i + 1).any(|b| cubes_meet(a, b)));
        let theory = !care.is_true() && cubes.len() > 1;
        let mut markers: Vec<Marker> = Vec::with_capacity(cubes.len());
        if overlap || theory {
            for cube in &cubes {
                markers.push(self.cube_marker(cube)?);
            }
        }
        let mut prefix: Vec<Marker> = Vec::with_capacity(markers.len() + 1);
        prefix.push(Marker::FALSE);
        if overlap {
            for m in &markers {
                let last = prefix.last().copied().unwrap_or(Marker::FALSE);
                prefix.push(self.disj(last, *m)?);
            }
        }
        let mut keep: Vec<bool> = vec![true; cubes.len()];
        let mut suffix = Marker::FALSE;
        let mut kept_len = LenBound::default();
        for (i, ci) in cubes.iter().enumerate().rev() {
            // (Without an overlap or a theory there are no markers: every cube is kept.)
            if let Some(&mi) = markers.get(i) {
                // Each cube lies inside `upper` (expand keeps it there): when `upper` is `f`
                // itself, the part of `f` the cube covers is the cube. That part is covered
                // when what the earlier cubes leave of it lies inside the later ones kept (no
                // union of the two is built: it is as large as the cover), or, under a theory,
                // when what they leave lies where the theory does not hold (asked of `care`
                // without building `f and care`, which is as large as the theory).
                let need = if upper == f { mi } else { self.conj(f, mi)? };
                let covered = match prefix.get(i) {
                    Some(&before) if overlap => {
                        let left = self.conj(need, !before)?;
                        self.entails(left, suffix)? || {
                            theory && {
                                let rest = self.conj(left, !suffix)?;
                                self.disjoint(rest, care)?
                            }
                        }
                    }
                    // No other cube meets this one.
                    _ => self.disjoint(need, care)?,
                };
                if covered {
                    if let Some(k) = keep.get_mut(i) {
                        *k = false;
                    }
                    continue;
                }
                suffix = self.disj(suffix, mi)?;
            }
            if let Some((limit, negate)) = limit {
                kept_len.add(self.cube_len_bound(ci, negate));
                if kept_len.total(negate) > limit {
                    return Err(Error::intractable(crate::error::Limit::Steps));
                }
            }
        }
        Ok(cubes
            .into_iter()
            .zip(keep)
            .filter_map(|(c, k)| k.then_some(c))
            .collect())
    }

    /// Whether the literal `(var, label)` of a cube is "the version field is no version" for a
    /// field whose text the cube also names (`field#text in {x}`): the two print together as
    /// `field == "x"`, so this one is left out of the text. Only the same field's: another
    /// version field's absent label in the cube is a literal of its own (in the CNF of
    /// `python_version >= "0" or platform_version != "x"`, `python_version` is no version).
    fn absent_with_text<'l>(
        &self,
        var: Var,
        label: &Label,
        mut cube: impl Iterator<Item = (Var, &'l Label)>,
    ) -> bool {
        let Some(VarMeta::Version { field }) = self.meta(var) else {
            return false;
        };
        if !matches!(label, Label::Versions(set) if set.is_absent()) {
            return false;
        }
        cube.any(|(v, l)| match (self.meta(v), l) {
            (Some(VarMeta::Text { field: text }), Label::StringIn(_)) => {
                // `python_version`'s text goes with `python_full_version`'s version.
                let paired = if *text == Field::PythonVersion {
                    Field::PythonFullVersion
                } else {
                    *text
                };
                paired == *field
            }
            _ => false,
        })
    }

    /// Whether a cover's cube is written without its literal `lit`: a version field's absent
    /// label beside its text ([`absent_with_text_id`](Self::absent_with_text_id)).
    fn left_out_of_cube(&self, lit: LitId, cube: &[LitId]) -> bool {
        self.cover_literals.get(lit).is_some_and(|l| l.absent)
            && self.absent_with_text_id(lit, cube)
    }

    /// [`absent_with_text`](Self::absent_with_text) for a literal of a cover's cube.
    fn absent_with_text_id(&self, lit: LitId, cube: &[LitId]) -> bool {
        let Some(l) = self.cover_literals.get(lit) else {
            return false;
        };
        let others = cube
            .iter()
            .filter_map(|&id| self.cover_literals.get(id))
            .map(|o| (o.var, &o.label));
        self.absent_with_text(l.var, &l.label, others)
    }

    /// The CNF `print_dnf(!s, !s, true)` prints when `s` is a single path: `not s` is the union
    /// of the paths `l1 and … and not li`, each expanded to `not li`, so the clauses are the
    /// path's literals, one each, in the order a depth-first walk of `not s` meets their
    /// exits (at each node, the `false` child's edges first or last, as the node's groups
    /// are ordered). `None` when the DNF is shorter for sure (it leaves out the `absent`
    /// literal a text literal implies).
    fn one_path_cnf(&mut self, s: Marker) -> Result<Option<String>, Error> {
        // (exit first, literal) along the path, top down.
        let mut steps: Vec<(bool, Var, Label)> = Vec::new();
        let mut m = s;
        while let Some((var, groups, negated)) = self.groups_cached(m)? {
            let read = |c: Marker| if negated { !c } else { c };
            let Some((next, label)) = groups.iter().find(|(c, _)| !read(*c).is_false()) else {
                return Ok(None);
            };
            let exit_first = groups.first().is_some_and(|(c, _)| read(*c).is_false());
            steps.push((exit_first, var, label.clone()));
            m = read(*next);
        }
        if !m.is_true() {
            return Ok(None);
        }
        if steps.iter().any(|(_, var, label)| {
            self.absent_with_text(*var, label, steps.iter().map(|(_, v, l)| (*v, l)))
        }) {
            return Ok(None);
        }
        // Clause order: a node whose exit comes first puts its clause before the deeper
        // ones, else after them.
        let mut order: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
        for (i, (exit_first, _, _)) in steps.iter().enumerate().rev() {
            if *exit_first {
                order.push_front(i);
            } else {
                order.push_back(i);
            }
        }
        let mut lits: Vec<Text> = Vec::with_capacity(steps.len());
        for i in order {
            if let Some((_, var, label)) = steps.get(i) {
                lits.push(self.literal_text(*var, label)?);
            }
        }
        Ok(Some(join(&lits, " and ").s))
    }

    /// One cube's part of a lower bound on the text `print_dnf` builds ([`LenBound`]): each
    /// literal at least as long as its shortest possible spelling, joined as `print_dnf` joins
    /// them; and how many literals it prints.
    fn cube_len_bound(&self, cube: &[Lit<'_>], negate: bool) -> (usize, usize) {
        let inner = if negate { " or ".len() } else { " and ".len() };
        let mut n: usize = 0;
        let mut len: usize = 0;
        for (var, label) in cube {
            if self.absent_with_text(*var, label, cube.iter().copied()) {
                // Left out (`print_dnf`'s rule for a text literal).
                continue;
            }
            n += 1;
            len += self.literal_len_bound(*var, label);
        }
        (len + inner * n.saturating_sub(1), n)
    }

    /// A lower bound on the length of one literal's text ([`literal_text`](Self::literal_text)),
    /// for the label or its complement.
    fn literal_len_bound(&self, var: Var, label: &Label) -> usize {
        // `name op "x"`: the name, two spaces, an operator and two quotes at least.
        let atom = |name: &str| name.len() + 6;
        match self.meta(var) {
            Some(VarMeta::Version { field }) => {
                let name = if *field == Field::PythonFullVersion {
                    Field::PythonVersion.name()
                } else {
                    field.name()
                };
                atom(name)
            }
            // An `in` label of two strings or more may lose all but one (`reduce_cover`).
            Some(VarMeta::Str { field } | VarMeta::Text { field }) => match label {
                Label::StringIn(v) if v.len() > 1 => {
                    atom(field.name()) + v.iter().map(String::len).min().unwrap_or(0)
                }
                Label::StringIn(v) | Label::StringNotIn(v) => match self.meta(var) {
                    Some(VarMeta::Str { .. }) => strings::string_len_bound(field.name(), v),
                    _ => {
                        let each: usize = v.iter().map(|s| atom(field.name()) + s.len()).sum();
                        each + " or ".len() * v.len().saturating_sub(1)
                    }
                },
                _ => 0,
            },
            Some(VarMeta::Member { field, literal }) => atom(field.name()) + literal.len(),
            Some(VarMeta::Extra { name }) => atom("extra") + name.len(),
            Some(VarMeta::Opaque { .. }) | None => 0,
        }
    }

    /// Drops each literal of the cube whose removal keeps the cube inside `upper` (last to
    /// first, against the literals before it and the ones after it still kept); returns the
    /// literals kept.
    ///
    /// `lits` and `seen` are scratch space, reused from one cube to the next.
    fn expand<'a>(
        &mut self,
        mut cube: Vec<Lit<'a>>,
        upper: Marker,
        f: Marker,
        lits: &mut Vec<Lit<'a>>,
        seen: &mut Seen,
    ) -> Result<Vec<Lit<'a>>, Error> {
        let mut keep = vec![true; cube.len()];
        // When `upper` is `f` and the cube one of its paths, a walk of `upper` under the cube
        // less literal j follows the path down to the path's node for literal j's variable
        // (each label above it is exactly its node's edges to the path's next node): the walk
        // starts there.
        let starts = if upper == f {
            self.path_nodes(f, &cube)
        } else {
            Vec::new()
        };
        for j in (0..cube.len()).rev() {
            lits.clear();
            lits.extend(
                cube.iter()
                    .enumerate()
                    .filter(|(k, _)| *k < j || (*k > j && keep.get(*k).copied().unwrap_or(false)))
                    .map(|(_, lit)| *lit),
            );
            // The walk from the path's node for literal j need not enter the path's next node:
            // the cube with literal j lies inside `upper` (the path does, and each literal
            // dropped below j was dropped because it still did), so the literals kept below j
            // lie inside that node's function.
            let within = if starts.len() == cube.len() {
                let start = starts.get(j).copied().unwrap_or(upper);
                let next = starts.get(j + 1).copied().unwrap_or(Marker::TRUE);
                self.cube_within_except(lits, start, next, seen)?
            } else {
                // `upper` is not `f` (a theory): the walk starts at the top.
                self.cube_within(lits, upper, seen)?
            };
            if within {
                if let Some(k) = keep.get_mut(j) {
                    *k = false;
                }
            }
        }
        let mut kept = keep.iter();
        cube.retain(|_| kept.next().copied().unwrap_or(true));
        Ok(cube)
    }

    /// A lower bound on the length of [`print_factored`](Self::print_factored)'s text for `m`
    /// (each literal at its [`literal_len_bound`](Self::literal_len_bound), joined as
    /// `factored` joins them, parentheses left out); `None` where `print_factored` gives up
    /// (more than 64 nodes, or too deep).
    fn factored_len_bound(&mut self, m: Marker) -> Result<Option<usize>, Error> {
        if self.more_nodes_than(m, 64)? {
            return Ok(None);
        }
        let mut memo: rustc_hash::FxHashMap<Marker, usize> = rustc_hash::FxHashMap::default();
        self.factored_len_bound_rec(m, 0, &mut memo)
    }

    fn factored_len_bound_rec(
        &mut self,
        m: Marker,
        depth: usize,
        memo: &mut rustc_hash::FxHashMap<Marker, usize>,
    ) -> Result<Option<usize>, Error> {
        if let Some(&n) = memo.get(&m) {
            return Ok(Some(n));
        }
        if m.is_true() {
            return Ok(Some("true".len()));
        }
        if depth > 64 {
            return Ok(None);
        }
        let Some((var, groups, negated)) = self.groups_cached(m)? else {
            return Ok(Some("false".len()));
        };
        let mut total = 0usize;
        let mut alts = 0usize;
        for (child, label) in groups.iter() {
            let child = if negated { !*child } else { *child };
            if child.is_false() {
                continue;
            }
            alts += 1;
            total += self.literal_len_bound(var, label);
            if !child.is_true() {
                let Some(sub) = self.factored_len_bound_rec(child, depth + 1, memo)? else {
                    return Ok(None);
                };
                total += " and ".len() + sub;
            }
        }
        total += " or ".len() * alts.saturating_sub(1);
        memo.insert(m, total);
        Ok(Some(total))
    }

    /// The split form, for a marker whose extras come after every other variable it reads
    /// (lock files' conflict markers: `python_full_version < "3.12" and extra == "a" and extra
    /// == "b" or platform_machine == "arm64" and extra == "a" and extra == "b" or …`): for each
    /// function `g` of the extras that the other variables' paths lead to, `h and g`, where `h`
    /// holds where the paths lead to `g`, widened to where `g` adds nothing to `s`; each `h` and
    /// `g` printed as the shortest of its own forms, the terms joined by `or` in text order.
    /// Under a theory (`theory`, its constraint), `h` is also free where the theory does not
    /// hold. `None` when `s` does not have that shape, or leads to more than
    /// [`MAX_SPLIT`] functions of the extras.
    fn print_split(&mut self, s: Marker, theory: Marker) -> Result<Option<String>, Error> {
        let support = self.support(s)?;
        let extras: Vec<Var> = support
            .iter()
            .copied()
            .filter(|&v| is_extra(self, v))
            .collect();
        // Only where every comparison is exact: an opaque one (SPEC §21.2) is printed as
        // written and read back in its profile, which the parts' don't-cares do not see.
        let opaque = support
            .iter()
            .any(|&v| matches!(self.meta(v), Some(VarMeta::Opaque { .. })));
        if extras.is_empty() || extras.len() == support.len() || opaque {
            return Ok(None);
        }
        let others_first = support
            .iter()
            .filter(|&&v| !is_extra(self, v))
            .all(|&v| extras.iter().all(|&x| self.precedes(v, x)));
        if !others_first {
            return Ok(None);
        }
        // The extras' functions below the other variables' part of the diagram.
        let mut below: Vec<Marker> = Vec::new();
        let mut seen: rustc_hash::FxHashSet<Marker> = rustc_hash::FxHashSet::default();
        let mut stack = vec![s];
        while let Some(m) = stack.pop() {
            if !seen.insert(m) {
                continue;
            }
            match self.top_children(m)? {
                Some((var, children)) if !is_extra(self, var) => stack.extend(children),
                _ => {
                    if !m.is_false() && !below.contains(&m) {
                        if below.len() == MAX_SPLIT {
                            return Ok(None);
                        }
                        below.push(m);
                    }
                }
            }
        }
        let mut terms: Vec<Text> = Vec::with_capacity(below.len());
        for g in below {
            // Where the paths lead to `g` (`s` equals `g` for every value of the extras), and
            // where `g` adds nothing to `s` (free for `h`): each path's function of the extras
            // replaced by whether it is `g`, and by whether `g` implies it.
            let mut memo = rustc_hash::FxHashMap::default();
            let h = self.replace_below(
                s,
                &is_extra,
                &mut |_, c| Ok(if c == g { Marker::TRUE } else { Marker::FALSE }),
                &mut memo,
            )?;
            let mut memo = rustc_hash::FxHashMap::default();
            let free = self.replace_below(
                s,
                &is_extra,
                &mut |ctx, c| {
                    Ok(if ctx.entails(g, c)? {
                        Marker::TRUE
                    } else {
                        Marker::FALSE
                    })
                },
                &mut memo,
            )?;
            // (Under a theory, `h` is free where the theory does not hold, too: `s` is printed
            // for the environments where it holds.)
            let care = self.disj(h, !free)?;
            let care = self.conj(care, theory)?;
            let h_text = self.print_part(h, care)?;
            let term = if g.is_true() {
                h_text
            } else {
                let g_text = self.print_part(g, Marker::TRUE)?;
                if h_text == "true" {
                    g_text
                } else {
                    let parts = [
                        Text {
                            or: top_level_or(&h_text),
                            s: h_text,
                        },
                        Text {
                            or: top_level_or(&g_text),
                            s: g_text,
                        },
                    ];
                    join(&parts, " and ").s
                }
            };
            terms.push(Text { s: term, or: true });
        }
        terms.sort_by(|a, b| a.s.cmp(&b.s));
        Ok(Some(join(&terms, " or ").s))
    }

    /// A part of the split form: `m` where `care` holds, as the shortest of its three forms
    /// within their limits (no larger cover, no widened labels: past them the split form is
    /// left out, as the three forms are).
    fn print_part(&mut self, m: Marker, care: Marker) -> Result<String, Error> {
        let text = match self.part_cache.get(&(m, care)) {
            Some(known) => known.clone(),
            None => {
                let s = self.simplify_under(m, care)?;
                let text: Option<std::sync::Arc<str>> = if s.is_true() {
                    Some("true".into())
                } else if s.is_false() {
                    Some("false".into())
                } else {
                    self.print_forms(s, care, &mut None)?.map(Into::into)
                };
                self.part_cache.insert((m, care), text.clone());
                text
            }
        };
        text.map(|t| t.to_string())
            .ok_or_else(|| Error::intractable(crate::error::Limit::Steps))
    }

    /// The diagram itself: at each node, `label and (child)` for each child, joined by `or`.
    fn print_factored(&mut self, m: Marker) -> Result<String, Error> {
        if self.more_nodes_than(m, 64)? {
            return Err(Error::intractable(crate::error::Limit::Steps));
        }
        // A node's factored form depends only on the node: kept for the whole context.
        let mut memo = std::mem::take(&mut self.factored_cache);
        let r = self.factored(m, 0, &mut memo);
        self.factored_cache = memo;
        Ok(r?.s)
    }

    fn factored(
        &mut self,
        m: Marker,
        depth: usize,
        memo: &mut rustc_hash::FxHashMap<Marker, Text>,
    ) -> Result<Text, Error> {
        if let Some(t) = memo.get(&m) {
            return Ok(t.clone());
        }
        if m.is_true() {
            return Ok(Text {
                s: "true".into(),
                or: false,
            });
        }
        if depth > 64 {
            return Err(Error::intractable(crate::error::Limit::Depth));
        }
        let Some((var, groups, negated)) = self.groups_cached(m)? else {
            return Ok(Text {
                s: "false".into(),
                or: false,
            });
        };
        let mut alts: Vec<Text> = Vec::new();
        for (child, label) in groups.iter() {
            let child = if negated { !*child } else { *child };
            if child.is_false() {
                continue;
            }
            let lit = self.literal_text(var, label)?;
            if child.is_true() {
                alts.push(lit);
            } else {
                let sub = self.factored(child, depth + 1, memo)?;
                alts.push(join(&[lit, sub], " and "));
            }
        }
        let t = join(&alts, " or ");
        memo.insert(m, t.clone());
        Ok(t)
    }

    /// Makes sure the literal cache holds `var`'s text for `label`.
    fn cache_literal(&mut self, var: Var, label: &Label) -> Result<(), Error> {
        if self
            .literal_cache
            .get(&var)
            .is_some_and(|by| by.contains_key(label))
        {
            return Ok(());
        }
        let t = self.literal_text_uncached(var, label)?;
        self.literal_cache
            .entry(var)
            .or_default()
            .insert(label.clone(), (t.s, t.or));
        Ok(())
    }

    /// A literal's text from the cache, and whether it has a top-level `or` ("" for one not
    /// cached: [`cache_literal`](Self::cache_literal) comes first).
    fn cached_literal(&self, var: Var, label: &Label) -> (&str, bool) {
        self.literal_cache
            .get(&var)
            .and_then(|by| by.get(label))
            .map_or(("", false), |(s, or)| (s.as_str(), *or))
    }

    /// One literal in marker syntax (cached per variable and label).
    fn literal_text(&mut self, var: Var, label: &Label) -> Result<Text, Error> {
        // One lookup when it is cached (the common case).
        if let Some((s, or)) = self.literal_cache.get(&var).and_then(|by| by.get(label)) {
            return Ok(Text {
                s: s.clone(),
                or: *or,
            });
        }
        self.cache_literal(var, label)?;
        let (s, or) = self.cached_literal(var, label);
        Ok(Text {
            s: s.to_owned(),
            or,
        })
    }

    fn literal_text_uncached(&mut self, var: Var, label: &Label) -> Result<Text, Error> {
        if let (Some(&VarMeta::Version { field }), Label::Versions(set)) = (self.meta(var), label) {
            return self.version_text(var, field, set);
        }
        let lit = |f: &str, op: &str, v: &str| Text {
            s: comparison_text(f, op, v),
            or: false,
        };
        match (self.meta(var), label) {
            (Some(VarMeta::Str { field }), Label::StringIn(v)) => {
                Ok(strings::string_text(*field, v, false))
            }
            (Some(VarMeta::Str { field }), Label::StringNotIn(v)) => {
                Ok(strings::string_text(*field, v, true))
            }
            // A version field's text: `in` there is a comparison of its own (SPEC §21.2).
            (Some(VarMeta::Text { field }), Label::StringIn(v)) => {
                let parts: Vec<Text> = v.iter().map(|s| lit(field.name(), "==", s)).collect();
                Ok(join(&parts, " or "))
            }
            (Some(VarMeta::Text { field }), Label::StringNotIn(v)) => {
                let parts: Vec<Text> = v.iter().map(|s| lit(field.name(), "!=", s)).collect();
                Ok(join(&parts, " and "))
            }
            (Some(VarMeta::Member { field, literal }), Label::Bool(b)) => Ok(Text {
                s: format!(
                    "{} {} {}",
                    quote(literal),
                    if *b { "in" } else { "not in" },
                    field.name()
                ),
                or: false,
            }),
            (Some(VarMeta::Extra { name }), Label::Bool(b)) => {
                Ok(lit("extra", if *b { "==" } else { "!=" }, name))
            }
            (Some(VarMeta::Opaque { expr, .. }), Label::Bool(true)) => Ok(Text {
                s: expr.to_string(),
                or: false,
            }),
            (Some(VarMeta::Opaque { expr, profile }), Label::Bool(false)) => {
                // The translation makes one atom's negation only of `"L" in F` on a string field
                // (`"L" not in F`, `opaque` in translate.rs); every other opaque comparison's
                // opposite (`!=` against `==`, `not in` on the other fields) is an atom of its
                // own, which uv and packaging do not make the negation. Its negation has no
                // comparison of its own to print.
                let flipped = match expr.operator() {
                    O::In => Some(O::NotIn),
                    _ => None,
                };
                let (expr, profile) = (expr.clone(), *profile);
                let unprintable = || {
                    Error::new(ErrorKind::Unprintable {
                        comparison: format!("not ({expr})"),
                    })
                };
                let Some(op) = flipped else {
                    return Err(unprintable());
                };
                let flipped = MarkerExpression::new(expr.lhs().clone(), op, expr.rhs().clone());
                // Only when the flipped comparison reads back as this atom's negation: on a
                // string field `"L" not in F` is the negation of the `"L" in F` atom, but on
                // `platform_release` the two are atoms of their own (SPEC §21.2), and printing
                // one for the other's negation would change the marker.
                let read_back = self.translate_expression(&flipped, profile)?;
                let atom = self.equals(var, &Value::Bool(true))?;
                if read_back == !atom {
                    Ok(Text {
                        s: flipped.to_string(),
                        or: false,
                    })
                } else {
                    Err(unprintable())
                }
            }
            _ => {
                let name = self.name(var)?.to_owned();
                Err(Error::new(ErrorKind::Unprintable { comparison: name }))
            }
        }
    }

    /// A comparison's marker, as the translation reads it (`spec-2026`).
    fn comparison(&mut self, field: Field, op: O, v: &str) -> Result<Marker, Error> {
        if let Some(&m) = self
            .comparison_cache
            .get(&(field, op))
            .and_then(|by_text| by_text.get(v))
        {
            return Ok(m);
        }
        let e = MarkerExpression::new(
            MarkerValue::Field(field),
            op,
            MarkerValue::Literal(SmallStr::from(v)),
        );
        let m = self.translate_expression(&e, markerspec_pep508::Profile::Spec2026)?;
        self.comparison_cache
            .entry((field, op))
            .or_default()
            .insert(v.into(), m);
        Ok(m)
    }

    /// The shortest exact spelling of "`field`'s version is in `set`".
    fn version_text(&mut self, var: Var, field: Field, set: &VersionSet) -> Result<Text, Error> {
        if let Some((s, or)) = self.version_text_cache.get(&var).and_then(|m| m.get(set)) {
            return Ok(Text {
                s: s.clone(),
                or: *or,
            });
        }
        let shared = self.spellings.as_ref().and_then(|sp| sp.get(field, set));
        let t = match shared {
            Some(t) => t,
            None => {
                let t = self.version_text_uncached(var, field, set)?;
                if let Some(sp) = &self.spellings {
                    sp.put(field, set, &t);
                }
                t
            }
        };
        self.version_text_cache
            .entry(var)
            .or_default()
            .insert(set.clone(), (t.s.clone(), t.or));
        Ok(t)
    }

    fn version_text_uncached(
        &mut self,
        var: Var,
        field: Field,
        set: &VersionSet,
    ) -> Result<Text, Error> {
        if !field.is_extended() {
            if let Some(t) = self.text_points(var, field, set)? {
                return Ok(t);
            }
            if absent_without_both_ends(set) {
                // No comparison of a standard field spells it (below): the search would
                // translate every candidate to find none.
                return Err(Error::new(ErrorKind::Unprintable {
                    comparison: format!("{} in {set}", field.name()),
                }));
            }
        }
        self.spell_versions(var, field, set)
    }

    /// For a standard field's `set` with intervals that end at a version `V` without its
    /// local labels (the point `[V, V]`, or more below it): the set less those points spelt
    /// as usual, `or` each point as `field ~= "V"`, in order; `None` when it has no such
    /// point. `field ~= "V"` for a release of one number (`~= "13"`, `~= "1!9"`, `~= "13rc1"`)
    /// is no specifier, so `spec-2026` reads it as text (SPEC §5.1): the version `V` alone,
    /// where `V` is the literal's own text; no comparison that is a specifier is that set
    /// (`== "13"` holds on `13+abc`). Each point's comparison is read back through the
    /// translation and used only where it is that point.
    fn text_points(
        &mut self,
        var: Var,
        field: Field,
        set: &VersionSet,
    ) -> Result<Option<Text>, Error> {
        let mut points: Vec<(Version, String)> = Vec::new();
        for (lo, hi) in set.intervals() {
            let Some(v) = hi.public_point_below() else {
                continue;
            };
            if *lo > Cut::below(&v) {
                continue;
            }
            // (A release of one number; the reading back below leaves out the rest, `~= "0"`
            // among them, an opaque comparison.)
            if let [_] = v.release() {
                let text = v.to_string();
                points.push((v, text));
            }
        }
        if points.is_empty() {
            return Ok(None);
        }
        let mut rest = set.clone();
        let mut parts: Vec<Text> = Vec::with_capacity(points.len() + 1);
        let mut point_parts: Vec<Text> = Vec::with_capacity(points.len());
        for (v, text) in &points {
            let point = VersionSet::interval(Cut::below(v), Cut::above(v));
            let read = self.comparison(field, O::TildeEqual, text)?;
            if read != self.version_set(var, &point)? {
                return Ok(None);
            }
            rest = rest.intersection(&point.complement());
            point_parts.push(Text {
                s: comparison_text(field.name(), "~=", text),
                or: false,
            });
        }
        if !rest.is_empty() {
            parts.push(self.version_text(var, field, &rest)?);
        }
        parts.extend(point_parts);
        Ok(Some(join(&parts, " or ")))
    }
}

/// Whether `set` holds the absent value but not every version below some version, or not
/// every version above some version. No spelling of a standard version field's label (a
/// comparison, or the `and`/`or` of comparisons the printer writes) is then exact: of its
/// comparisons only `!=` holds on the absent value, and `!=` excludes a bounded part of the
/// versions (one version, or the block of `"X.*"`), so each `and` of them that holds there
/// also holds on every version below the least of those parts and above the greatest.
/// (An extended field also has `== ""`, which is the absent value alone.)
///
/// "Every version below" the least version is none, so one `!=` may leave out the least
/// versions (`!= "0.*"`, `!= "0.dev0"`): a set of the absent value and every version from
/// one in the block `0.*` or at its end up is left to the search (`"0.*" !=
/// implementation_version` prints as `implementation_version != "0.*"`).
fn absent_without_both_ends(set: &VersionSet) -> bool {
    let bounds = set.bounds();
    let holds_absent = bounds.first() == Some(&Cut::BOTTOM);
    let low_versions = match bounds {
        [_, end, start, _] if end.is_versions_start() => *start <= Cut::below(&least_past_zero()),
        _ => bounds
            .get(1)
            .is_some_and(|end| *end > Cut::versions_start()),
    };
    let high_versions = bounds.last() == Some(&Cut::TOP);
    holds_absent && !(low_versions && high_versions)
}

/// `1.dev0`, the least version past the block `0.*`.
fn least_past_zero() -> Version {
    Version::new([1]).with_dev(Some(0))
}

/// The complement of a label.
/// The version sets a literal's set may grow to ([`Context::grow_cube`]), each larger than
/// `set`: every version below its top, every version above its bottom, and (for a set of two
/// intervals or more) everything between its first and last bound. A set with the absent
/// value grows only upwards and between.
fn wider_sets(set: &VersionSet) -> Vec<VersionSet> {
    let (Some(lo), Some(hi)) = (set.bounds().first(), set.bounds().last()) else {
        return Vec::new();
    };
    let start = Cut::versions_start();
    let mut out: Vec<VersionSet> = Vec::with_capacity(3);
    let mut push = |wider: VersionSet| {
        if wider != *set && !out.contains(&wider) {
            out.push(wider);
        }
    };
    if *hi > start {
        push(set.union(&VersionSet::interval(start.clone(), hi.clone())));
    }
    push(set.union(&VersionSet::interval(lo.clone().max(start), Cut::TOP)));
    if set.intervals().nth(1).is_some() {
        push(set.union(&VersionSet::interval(lo.clone(), hi.clone())));
    }
    out
}

fn negate_label(label: &Label) -> Label {
    match label {
        Label::Versions(set) => Label::Versions(set.complement()),
        Label::StringIn(v) => Label::StringNotIn(v.clone()),
        Label::StringNotIn(v) => Label::StringIn(v.clone()),
        Label::Bool(b) => Label::Bool(!b),
    }
}

/// A lower bound on the length of the text `print_dnf` builds from a cover, added up cube by
/// cube ([`Context::cube_len_bound`]).
#[derive(Clone, Copy, Debug, Default)]
struct LenBound {
    /// The cubes' own bounds.
    sum: usize,
    /// How many cubes.
    cubes: usize,
    /// How many of them print two literals or more.
    many: usize,
}

impl LenBound {
    /// Adds a cube's `(length, literals)`.
    fn add(&mut self, (len, n): (usize, usize)) {
        self.sum += len;
        self.cubes += 1;
        if n > 1 {
            self.many += 1;
        }
    }

    /// The bound for the cubes added so far: joined by ` or ` (a DNF) or ` and ` (`negate`, a
    /// CNF, whose disjunctions of two literals or more are parenthesised when it has two
    /// clauses or more).
    fn total(&self, negate: bool) -> usize {
        let outer = if negate { " and ".len() } else { " or ".len() };
        let parens = if negate && self.cubes > 1 {
            2 * self.many
        } else {
            0
        };
        self.sum + parens + outer * self.cubes.saturating_sub(1)
    }
}

/// Whether two cubes have a common point: their labels meet on every variable both constrain.
fn cubes_meet(a: &[Lit<'_>], b: &[Lit<'_>]) -> bool {
    a.iter().all(|(va, la)| {
        b.iter()
            .find(|(vb, _)| vb == va)
            .is_none_or(|(_, lb)| labels_meet(la, lb))
    })
}

/// Whether two labels of one variable have a common value (a string domain is infinite).
fn labels_meet(a: &Label, b: &Label) -> bool {
    match (a, b) {
        (Label::Versions(x), Label::Versions(y)) => {
            // Both lists are sorted: one sweep.
            let mut ys = y.intervals().peekable();
            x.intervals().any(|(l1, h1)| {
                while ys.next_if(|(_, h2)| *h2 <= l1).is_some() {}
                ys.peek().is_some_and(|(l2, _)| *l2 < h1)
            })
        }
        (Label::StringIn(x), Label::StringIn(y)) => x.iter().any(|s| y.contains(s)),
        (Label::StringIn(x), Label::StringNotIn(y))
        | (Label::StringNotIn(y), Label::StringIn(x)) => x.iter().any(|s| !y.contains(s)),
        (Label::StringNotIn(_), Label::StringNotIn(_)) => true,
        (Label::Bool(x), Label::Bool(y)) => x == y,
        _ => true,
    }
}

/// Joins parts with `sep` (` and ` or ` or `), parenthesising `or`-parts inside an `and`.
/// Whether `v` is an `extra == "name"` variable (the split form's lower part).
fn is_extra(ctx: &Context, v: Var) -> bool {
    matches!(ctx.meta(v), Some(VarMeta::Extra { .. }))
}

/// Whether a printed marker has an `or` outside parentheses and strings (it then needs
/// parentheses as an operand of `and`).
fn top_level_or(text: &str) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' | b'\'' => quote = Some(b),
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                b' ' if depth == 0 && bytes.get(i..i + 4) == Some(b" or ") => return true,
                _ => {}
            },
        }
    }
    false
}

/// Keeps `t` as `best` when it is shorter (ties by text). A form past its own limits is left
/// out; the context's node limit is an error (leaving a form out there would make the text
/// depend on how full the context is).
fn consider(t: Result<String, Error>, best: &mut Option<String>) -> Result<(), Error> {
    match t {
        Ok(t) => {
            if best.as_ref().is_none_or(|b| shorter(&t, b)) {
                *best = Some(t);
            }
            Ok(())
        }
        Err(e) if out_of_nodes(&e) => Err(e),
        Err(e) if e.code() == "intractable" || e.code() == "unprintable" => Ok(()),
        Err(e) => Err(e),
    }
}

fn join(parts: &[Text], sep: &str) -> Text {
    if parts.len() == 1 {
        if let Some(p) = parts.first() {
            return p.clone();
        }
    }
    let is_and = sep == " and ";
    let len: usize = parts.iter().map(|p| p.s.len() + sep.len() + 2).sum();
    let mut s = String::with_capacity(len);
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        if is_and && p.or {
            s.push('(');
            s.push_str(&p.s);
            s.push(')');
        } else {
            s.push_str(&p.s);
        }
    }
    Text {
        s,
        or: !is_and && parts.len() > 1,
    }
}

/// A cube as [`factor_into`] reads it: its literals' numbers, inline up to eight.
type Cube = smallvec::SmallVec<[usize; 8]>;

/// The lists a print of a cover works in ([`Context::write_isop_cover`]), kept by the context
/// between prints (empty, with their room).
#[derive(Clone, Debug, Default)]
pub(crate) struct CoverScratch {
    /// The cover's literals, by their number in this print.
    lits: Vec<LitId>,
    /// The cubes, as lists of those numbers.
    cubes: Vec<Cube>,
}

/// [`Context::quick_factor`] over literal ids (`texts` by id). Each level takes a literal out
/// of some cubes or splits the cubes in two, so the depth is at most the number of cubes plus
/// the longest cube.
fn factor_cubes(cubes: &[Vec<usize>], texts: &[Text]) -> Text {
    let texts: Vec<(&str, bool)> = texts.iter().map(|t| (t.s.as_str(), t.or)).collect();
    let cubes: Vec<Cube> = cubes.iter().map(|c| Cube::from_slice(c)).collect();
    let mut s = String::new();
    let or = factor_into(&cubes, &texts, false, &mut s);
    Text { s, or }
}

/// Writes [`factor_cubes`]'s text into `out` (in parentheses when `paren` and it has a
/// top-level `or`), as [`join`] would join its pieces, without building them: whether a piece
/// has a top-level `or` is known before it is written. Returns whether the text has one.
///
/// The cubes left beside each literal taken out are written in a loop, not a recursion: a
/// cover of thousands of cubes with no literal in common would otherwise recurse once per
/// cube. What recurses is the rest of the cubes under a literal, one literal shorter each
/// time, so the depth is at most the longest cube.
fn factor_into(cubes: &[Cube], texts: &[(&str, bool)], paren: bool, out: &mut String) -> bool {
    let text = |i: usize| texts.get(i).copied().unwrap_or(("", false));
    if let [one] = cubes {
        return write_and(one, texts, paren, out);
    }
    let first = take_out(cubes, texts.len());
    // Whether the whole text has a top-level `or`: the first literal taken out tells.
    let or = match &first {
        None => cubes.len() > 1,
        Some(t) => !t.others.is_empty() || (t.alone && text(t.lit).1),
    };
    if paren && or {
        out.push('(');
    }
    let mut next = first;
    let mut left: Vec<Cube>;
    let mut remaining: &[Cube] = cubes;
    let mut terms = 0;
    loop {
        let Some(t) = next else {
            // No literal in two cubes: the cubes as they are.
            for cube in remaining {
                if terms > 0 {
                    out.push_str(" or ");
                }
                write_and(cube, texts, false, out);
                terms += 1;
            }
            break;
        };
        if terms > 0 {
            out.push_str(" or ");
        }
        terms += 1;
        // `literal and (the rest, factored)`, or the literal alone (a cube that is the literal
        // alone covers the others: an irredundant cover has none).
        let (head, head_or) = text(t.lit);
        if t.alone {
            out.push_str(head);
        } else {
            push_in(out, head, head_or);
            out.push_str(" and ");
            factor_into(&t.rest, texts, true, out);
        }
        if t.others.is_empty() {
            break;
        }
        left = t.others;
        remaining = &left;
        if let [one] = remaining {
            out.push_str(" or ");
            write_and(one, texts, false, out);
            break;
        }
        next = take_out(remaining, texts.len());
    }
    if paren && or {
        out.push(')');
    }
    or
}

/// The literal [`factor_into`] takes out of some cubes, what is left of those cubes, and the
/// other cubes.
struct TakenOut {
    lit: usize,
    rest: Vec<Cube>,
    others: Vec<Cube>,
    /// Whether one of the cubes is the literal alone.
    alone: bool,
}

/// The literal in the most cubes (the first of those), when one is in two or more.
fn take_out(cubes: &[Cube], literals: usize) -> Option<TakenOut> {
    let mut counts: smallvec::SmallVec<[u32; 64]> = smallvec::smallvec![0; literals];
    for cube in cubes {
        for &i in cube {
            if let Some(n) = counts.get_mut(i) {
                *n += 1;
            }
        }
    }
    let mut best = None;
    for (i, &n) in counts.iter().enumerate() {
        if n >= 2 && best.is_none_or(|(_, m)| n > m) {
            best = Some((i, n));
        }
    }
    let (lit, n) = best?;
    let n = n as usize;
    let mut rest: Vec<Cube> = Vec::with_capacity(n);
    let mut others: Vec<Cube> = Vec::with_capacity(cubes.len().saturating_sub(n));
    for c in cubes {
        if c.contains(&lit) {
            rest.push(c.iter().copied().filter(|&i| i != lit).collect());
        } else {
            others.push(c.clone());
        }
    }
    let alone = rest.iter().any(|c| c.is_empty());
    Some(TakenOut {
        lit,
        rest,
        others,
        alone,
    })
}

/// One cube: its literals joined by `and`, each with a top-level `or` in parentheses (a single
/// literal in parentheses when `paren` and it has one). Returns whether the text has a
/// top-level `or`.
fn write_and(cube: &[usize], texts: &[(&str, bool)], paren: bool, out: &mut String) -> bool {
    let text = |i: usize| texts.get(i).copied().unwrap_or(("", false));
    if let [one] = cube {
        let (s, or) = text(*one);
        push_in(out, s, paren && or);
        return or;
    }
    for (k, &i) in cube.iter().enumerate() {
        if k > 0 {
            out.push_str(" and ");
        }
        let (s, or) = text(i);
        push_in(out, s, or);
    }
    false
}

/// `s`, in parentheses when `paren`.
fn push_in(out: &mut String, s: &str, paren: bool) {
    if paren {
        out.push('(');
        out.push_str(s);
        out.push(')');
    } else {
        out.push_str(s);
    }
}

/// `name op "value"`, the value quoted as [`quote`] does, written into one allocation.
fn comparison_text(name: &str, op: &str, value: &str) -> String {
    let mut out = String::with_capacity(name.len() + op.len() + value.len() + 4);
    out.push_str(name);
    out.push(' ');
    out.push_str(op);
    out.push(' ');
    push_quoted(&mut out, value);
    out
}

/// A quoted string as pep508 prints it (it reads back as the same string).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

/// Writes [`quote`]'s text into `out`.
fn push_quoted(out: &mut String, s: &str) {
    // The common case, written directly: pep508 writes `"s"` when `s` has nothing to escape.
    if !s.contains(['"', '\\', '\n', '\r', '\0']) {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    out.push_str(&MarkerValue::Literal(SmallStr::from(s)).to_string());
}

/// A version comparison's cost: its length, plus two for `>` and `<=`, so that of two
/// spellings at most two characters apart the half-open `>=`/`<` form wins (the form
/// people write); ties broken by text order.
fn score(s: &str) -> (usize, &str) {
    let odd = s.matches(" > ").count() + s.matches(" <= ").count();
    (s.len() + 2 * odd, s)
}

fn better(a: &str, b: &str) -> bool {
    score(a) < score(b)
}

/// The literals of `cube` but its `k`-th, borrowed.
fn without(cube: &[(Var, Label)], k: usize) -> Vec<Lit<'_>> {
    cube.iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .map(|(_, (v, l))| (*v, l))
        .collect()
}

/// Whether `e` says the context reached its node limit ([`Limits::nodes`](crate::Limits::nodes)).
fn out_of_nodes(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::Intractable {
            limit: crate::error::Limit::Nodes
        }
    )
}

/// Shorter, ties broken by text order (deterministic).
fn shorter(a: &str, b: &str) -> bool {
    (a.len(), a) < (b.len(), b)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{Text, factor_cubes};
    use crate::{Context, Marker, Theory};
    use markerspec_pep508::MarkerTree;

    /// The lock-file markers the crate's tests use.
    pub(crate) fn lock_markers() -> std::io::Result<String> {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/lock-markers.txt"
        ))
    }

    /// A single path printed with no theory is written from the path each time and kept out
    /// of the printer's table (the same text every time); a marker of two paths is kept, and
    /// a single path under a theory too (its text depends on the simplification).
    #[test]
    fn single_paths_are_written_without_the_table() -> Result<(), Box<dyn std::error::Error>> {
        let one: MarkerTree =
            "python_full_version >= '3.12' and sys_platform == 'linux'".parse()?;
        let two: MarkerTree = "sys_platform == 'linux' or os_name == 'nt'".parse()?;
        let mut ctx = Context::new();
        let m = ctx.from_marker(&one, &Theory::none())?;
        let want = r#"sys_platform == "linux" and python_full_version >= "3.12""#;
        assert_eq!(ctx.to_marker_string(m)?, want);
        assert_eq!(ctx.to_marker_string(m)?, want);
        assert!(ctx.print_cache.is_empty());
        let n = ctx.from_marker(&two, &Theory::none())?;
        assert_eq!(
            ctx.to_marker_string(n)?,
            r#"os_name == "nt" or sys_platform == "linux""#
        );
        assert_eq!(ctx.print_cache.len(), 1);
        // A literal with a top-level `or` in parentheses beside another, alone without.
        let or: MarkerTree =
            "(python_version < '3.11' or python_full_version >= '3.14') and sys_platform == 'linux'"
                .parse()?;
        let o = ctx.from_marker(&or, &Theory::none())?;
        assert_eq!(
            ctx.to_marker_string(o)?,
            r#"sys_platform == "linux" and (python_version < "3.11" or python_full_version >= "3.14")"#
        );
        let alone: MarkerTree =
            "python_version < '3.11' or python_full_version >= '3.14'".parse()?;
        let a = ctx.from_marker(&alone, &Theory::none())?;
        assert_eq!(
            ctx.to_marker_string(a)?,
            r#"python_version < "3.11" or python_full_version >= "3.14""#
        );
        assert_eq!(ctx.print_cache.len(), 1);
        let mut under = Context::new();
        let p = under.from_marker(&one, &Theory::platform())?;
        assert_eq!(under.to_marker_string(p)?, want);
        assert_eq!(under.print_cache.len(), 1);
        Ok(())
    }

    /// A cover past the context's step limit (counted over the whole cover, where the search
    /// counts each operation on its own) is printed by the search; so is one past 4,096
    /// cubes. Under a limit that stops the cover of some lock-file markers, each of those
    /// prints as the shortest form does, and reads back as the marker.
    #[test]
    fn form_7_hands_a_cover_past_the_step_limit_to_the_search()
    -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut handed = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(200) {
            let tree: MarkerTree = line.parse()?;
            let mut ctx = Context::new();
            let m = ctx.from_marker(&tree, &Theory::none())?;
            ctx.set_limits(crate::Limits {
                steps: 12,
                ..crate::Limits::default()
            });
            let Err(e) = ctx.print_isop(m, crate::Marker::TRUE) else {
                continue;
            };
            assert_eq!(e.code(), "intractable");
            let (Ok(shortest), printed) =
                (ctx.to_shortest_marker_string(m), ctx.to_marker_string(m))
            else {
                continue;
            };
            assert_eq!(printed?, shortest, "{line}");
            let back: MarkerTree = shortest.parse()?;
            ctx.set_limits(crate::Limits::default());
            assert_eq!(ctx.from_marker(&back, &Theory::none())?, m, "{line}");
            handed += 1;
        }
        assert!(handed >= 5, "{handed} markers handed to the search");
        Ok(())
    }

    /// Print form 7 hands a cover with a literal that has no spelling of its own to the
    /// search, which widens it: "from 3.12 up to every post-release of 3.13.0" (only the
    /// negation of `> "3.13.0"` says it) is a piece of `python_full_version` in the cover of
    /// this marker. A marker whose cover spells is printed from the cover alone.
    #[test]
    fn form_7_hands_a_literal_with_no_spelling_to_the_search()
    -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let t: MarkerTree =
            "python_full_version > '3.13.0' or (python_full_version >= '3.12' and extra == 'local')"
                .parse()?;
        let m = ctx.from_marker(&t, &Theory::none())?;
        let e = ctx
            .print_isop(m, crate::Marker::TRUE)
            .err()
            .ok_or("a cover with a spelling")?;
        assert_eq!(e.code(), "unprintable");
        let text = ctx.to_marker_string(m)?;
        assert_eq!(
            text,
            r#"python_full_version >= "3.12" and extra == "local" or python_full_version > "3.13""#
        );
        assert_eq!(text, ctx.to_shortest_marker_string(m)?);
        // Printed from the cover, its shared literal taken out; the search writes it otherwise.
        let t: MarkerTree =
            "(os_name == 'nt' and extra == 'a') or (os_name == 'nt' and extra == 'b')".parse()?;
        let m = ctx.from_marker(&t, &Theory::none())?;
        assert_eq!(
            ctx.print_isop(m, crate::Marker::TRUE)?,
            ctx.to_marker_string(m)?
        );
        assert_ne!(ctx.to_marker_string(m)?, ctx.to_shortest_marker_string(m)?);
        Ok(())
    }

    /// Literals print quoted as pep508 quotes them, those with a quote, a backslash or a line
    /// break too, alone and in a comparison.
    #[test]
    fn literals_are_quoted_as_pep508_quotes_them() {
        use markerspec_pep508::{MarkerValue, SmallStr};
        for v in [
            "linux",
            "",
            "a\"b",
            "it's",
            "both '\"",
            "back\\slash",
            "line\nbreak",
        ] {
            let want = MarkerValue::Literal(SmallStr::from(v)).to_string();
            assert_eq!(super::quote(v), want, "{v:?}");
            assert_eq!(
                super::comparison_text("sys_platform", "==", v),
                format!("sys_platform == {want}"),
                "{v:?}"
            );
        }
    }

    /// A cover's cube that says a version field holds a text (no version) prints the text's
    /// comparison alone: the field's absent label beside it is left out (`absent_with_text`),
    /// and only beside it: `cuda_version == ""` is the absent label alone.
    #[test]
    fn form_7_leaves_out_an_absent_version_beside_its_text()
    -> Result<(), Box<dyn std::error::Error>> {
        let opts = markerspec_pep508::ParseOptions::default()
            .dialect(markerspec_pep508::Dialect::Extended);
        let mut ctx = Context::new();
        for (input, want) in [
            (
                "platform_release == '5.15.0-generic'",
                r#"platform_release == "5.15.0-generic""#,
            ),
            (
                "platform_release == '5.15.0-generic' and os_name == 'posix'",
                r#"os_name == "posix" and platform_release == "5.15.0-generic""#,
            ),
            ("cuda_version == ''", r#"cuda_version == """#),
        ] {
            let t = MarkerTree::parse_with(input, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&t, &Theory::none())?;
            assert_eq!(ctx.print_isop(m, crate::Marker::TRUE)?, want, "{input}");
        }
        Ok(())
    }

    /// A marker whose paths carry a label with no spelling of its own ("3.12 up to every
    /// post-release of 3.13.0": the negation of `> "3.13.0"`) is printed with that label
    /// widened where the rest of its cube allows, or (print form 5) shrunk where another cube
    /// covers the rest (`reduce_cover`); the text reads back as the same marker. Before,
    /// `to_marker_string` answered `unprintable` for these `or`s of printable markers.
    #[test]
    fn unspellable_labels_are_widened_within_their_cube() -> Result<(), Box<dyn std::error::Error>>
    {
        let none = Theory::none();
        for (input, expected) in [
            (
                "(python_full_version >= '3.12' and extra == 'local') or (python_full_version > '3.13.0')",
                Some(
                    r#"python_full_version >= "3.12" and extra == "local" or python_full_version > "3.13""#,
                ),
            ),
            (
                "(python_full_version >= '3.11' and extra == 'full') or (python_full_version > '3.13.0')",
                Some(
                    r#"python_full_version >= "3.11" and extra == "full" or python_full_version > "3.13""#,
                ),
            ),
            (
                "(python_full_version < '3.13' and sys_platform == 'win32' and extra == 'epub') or \
                 ((python_full_version >= '3.10' and python_full_version <= '3.11') or \
                 (python_full_version < '3.10' and extra == 'a' and extra == 'b') or \
                 (python_full_version > '3.11' and extra == 'a' and extra == 'b'))",
                None,
            ),
        ] {
            let tree: MarkerTree = input.parse()?;
            let mut ctx = Context::new();
            let m = ctx.from_marker(&tree, &none)?;
            let printed = ctx.to_marker_string(m)?;
            if let Some(expected) = expected {
                assert_eq!(printed, expected, "{input}");
            }
            let back = ctx.from_marker(&printed.parse()?, &none)?;
            assert_eq!(back, m, "{input} printed as {printed}");
            // The widening alone (since print form 5 the grown DNF spells these labels first,
            // so the printer no longer reaches it for them).
            let widened = ctx
                .print_widened(m, (crate::Marker::TRUE, m))?
                .ok_or("no widened form")?;
            if let Some(expected) = expected {
                assert_eq!(widened, expected, "{input}");
            }
            let back = ctx.from_marker(&widened.parse()?, &none)?;
            assert_eq!(back, m, "{input} widened as {widened}");
        }
        Ok(())
    }

    /// A context near its node limit prints a marker as a fresh context does, or answers
    /// `intractable` (node limit): never another text, as it would if the forms that ran out
    /// of nodes were merely left out. Checked on the multi-path lock-file markers, each
    /// printed with a few nodes of headroom, then with more.
    #[test]
    fn a_full_context_prints_the_same_text_or_fails() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let none = Theory::none();
        let (mut same, mut failed) = (0, 0);
        // With two markers whose labels must be widened (`print_widened`).
        let widened = [
            "(python_full_version >= '3.12' and extra == 'local') or (python_full_version > '3.13.0')",
            "(python_full_version > '3.13.0') or (python_full_version < '3.14' and extra == 'a') \
             or (sys_platform != 'win32' and extra == 'a')",
        ];
        let lines = text.lines().filter(|l| l.contains(" or ")).take(60);
        for line in lines.chain(widened) {
            let tree: MarkerTree = line.parse()?;
            let mut fresh = Context::new();
            let m = fresh.from_marker(&tree, &none)?;
            let built = fresh.len();
            let expected = fresh.to_marker_string(m)?;
            // Every headroom up to what the print takes, for the markers to widen.
            let headrooms: Vec<usize> = if widened.contains(&line) {
                (0..=fresh.len() - built).collect()
            } else {
                vec![0, 1, 4, 16, 64, 256]
            };
            for headroom in headrooms {
                let mut ctx = Context::new();
                let m = ctx.from_marker(&tree, &none)?;
                let limits = ctx.limits();
                ctx.set_limits(crate::Limits {
                    nodes: ctx.len() + headroom,
                    ..limits
                });
                match ctx.to_marker_string(m) {
                    Ok(t) => {
                        assert_eq!(t, expected, "{line} with {headroom} nodes to spare");
                        same += 1;
                    }
                    Err(e) => {
                        assert!(super::out_of_nodes(&e), "{line}: {e}");
                        failed += 1;
                    }
                }
            }
        }
        // Both outcomes occur (the check is not vacuous).
        assert!(same > 0 && failed > 0, "{same} printed, {failed} failed");
        Ok(())
    }

    /// The CNF of a single-path marker, built from its path, is the text the general CNF
    /// printer gives (or, where it gives up on the CNF, longer than the DNF); its factored
    /// form is its DNF, or longer.
    #[test]
    fn one_path_cnf_is_the_general_cnf() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut ctx = Context::new();
        let none = Theory::none();
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(tree) = line.parse::<MarkerTree>() else {
                continue;
            };
            let s = ctx.from_marker(&tree, &none)?;
            if s.is_true() || s.is_false() || ctx.paths(s)?.len() != 1 {
                continue;
            }
            let general = ctx.print_dnf(!s, !s, true, None, &mut 0)?;
            let dnf = ctx.print_dnf(s, s, false, None, &mut 0)?;
            let factored = ctx.print_factored(s)?;
            assert!(factored == dnf || factored.len() > dnf.len(), "{line}");
            match ctx.one_path_cnf(s)? {
                Some(cnf) => assert_eq!(cnf, general, "{line}"),
                None => assert!(dnf.len() < general.len(), "{line}: {dnf} / {general}"),
            }
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
        Ok(())
    }

    /// A disjunction of every `k` of `n` extras, each with a lower bound on the Python
    /// version (so that its diagram has many paths).
    fn extras_groups(n: usize, k: usize) -> String {
        fn groups(n: usize, k: usize, from: usize, group: &mut Vec<usize>, out: &mut Vec<String>) {
            if group.len() == k {
                let minor = (out.len() * 7) % 14;
                let extras: Vec<String> =
                    group.iter().map(|e| format!("extra == 'e{e}'")).collect();
                out.push(format!(
                    "(python_full_version >= '3.{minor}' and {})",
                    extras.join(" and ")
                ));
                return;
            }
            for e in from..n {
                group.push(e);
                groups(n, k, e + 1, group, out);
                group.pop();
            }
        }
        let mut cubes = Vec::new();
        groups(n, k, 0, &mut Vec::new(), &mut cubes);
        cubes.join(" or ")
    }

    /// A marker none of the three forms can print (more than `MAX_CUBES` paths, a literal
    /// without a spelling, more than 64 nodes) still prints, as the larger DNF or CNF
    /// (`print_large`), and reads back as the same marker; one too large for that too is an
    /// `intractable` error, not a hang.
    /// A conflict marker whose paths through the other fields lead to one function of the
    /// extras prints it once (the split form, SPEC §21.4), where the DNF repeats each group of
    /// extras under each comparison; the same in a fresh context and under a theory.
    #[test]
    fn split_form_writes_each_function_of_the_extras_once() -> Result<(), Box<dyn std::error::Error>>
    {
        let pair =
            |e: &str| format!("extra == 'extra-4-demo-cuda' and extra == 'extra-4-demo-{e}'");
        let mut cubes = vec![
            "python_full_version >= '3.12' and platform_machine != 'arm64' and sys_platform == 'darwin'"
                .to_string(),
        ];
        for e in ["rocm", "cpu"] {
            for env in [
                "python_full_version < '3.12' and platform_machine != 'arm64'",
                "platform_machine == 'arm64'",
                "sys_platform != 'darwin'",
            ] {
                cubes.push(format!("{env} and {}", pair(e)));
            }
        }
        let input = format!("({})", cubes.join(") or ("));
        let tree: MarkerTree = input.parse()?;
        let none = Theory::none();
        let mut ctx = Context::new();
        let m = ctx.from_marker(&tree, &none)?;
        let printed = ctx.to_shortest_marker_string(m)?;
        assert_eq!(
            printed,
            r#"(platform_machine == "arm64" or python_version < "3.12" or sys_platform != "darwin") and extra == "extra-4-demo-cuda" and (extra == "extra-4-demo-cpu" or extra == "extra-4-demo-rocm") or platform_machine != "arm64" and python_full_version >= "3.12" and sys_platform == "darwin""#
        );
        // Shorter than the other forms, and the same function.
        let dnf = ctx.print_dnf(m, m, false, None, &mut 0)?;
        assert!(printed.len() < dnf.len(), "{printed} / {dnf}");
        assert_eq!(ctx.from_marker(&printed.parse()?, &none)?, m);
        let mut fresh = Context::new();
        let again = fresh.from_marker(&tree, &none)?;
        assert_eq!(fresh.to_shortest_marker_string(again)?, printed);
        // Under a theory too (print form 4; form 3 printed its 830-character DNF there).
        let mut ctx = Context::new();
        let platform = Theory::platform();
        let m = ctx.from_marker(&tree, &platform)?;
        let under = ctx.to_shortest_marker_string(m)?;
        assert_eq!(under, printed);
        assert_eq!(ctx.from_marker(&under.parse()?, &platform)?, m);
        // Each part is printed for the environments where the theory holds: there
        // `sys_platform == "darwin"` says `os_name == "posix"`, and `os_name == "nt"` says
        // `sys_platform == "win32"`.
        let windows = input.replace(
            "sys_platform != 'darwin' and",
            "sys_platform == 'win32' and os_name == 'nt' and",
        );
        let m = ctx.from_marker(&windows.parse()?, &platform)?;
        let under = ctx.to_shortest_marker_string(m)?;
        assert_eq!(
            under,
            r#"(os_name == "nt" or platform_machine == "arm64" or python_version < "3.12") and extra == "extra-4-demo-cuda" and (extra == "extra-4-demo-cpu" or extra == "extra-4-demo-rocm") or platform_machine != "arm64" and python_full_version >= "3.12" and sys_platform == "darwin""#
        );
        assert_eq!(ctx.from_marker(&under.parse()?, &platform)?, m);
        Ok(())
    }

    /// The split form leaves out a marker with an opaque comparison (printed as written, read
    /// back in its profile), and one without extras or with nothing but extras.
    /// Thousands of cubes that share literals two by two are factored in a loop, not one
    /// recursion per literal taken out: on a thread with a small stack, 2,000 such pairs
    /// (`a and b or a and c`, then the next `a`) print as 2,000 `a and (b or c)` terms.
    #[test]
    fn quick_factor_loops_over_the_cubes_it_leaves() -> Result<(), String> {
        let n = 2000;
        let texts: Vec<Text> = (0..3 * n)
            .map(|i| Text {
                s: format!("extra == \"e{i}\""),
                or: false,
            })
            .collect();
        let cubes: Vec<Vec<usize>> = (0..n)
            .flat_map(|i| [vec![3 * i, 3 * i + 1], vec![3 * i, 3 * i + 2]])
            .collect();
        let text = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || factor_cubes(&cubes, &texts).s)
            .map_err(|e| e.to_string())?
            .join()
            .map_err(|_| "factoring overflowed its stack".to_string())?;
        assert_eq!(text.matches(" or ").count(), 2 * n - 1);
        assert!(
            text.starts_with(
                r#"extra == "e0" and (extra == "e1" or extra == "e2") or extra == "e3""#
            )
        );
        Ok(())
    }

    #[test]
    fn quick_factor_takes_the_most_shared_literal_out_first() {
        let t = |s: &str| Text {
            s: s.into(),
            or: false,
        };
        let texts = vec![
            t("a"),
            t("b"),
            t("c"),
            t("d"),
            Text {
                s: "e or f".into(),
                or: true,
            },
        ];
        assert_eq!(
            factor_cubes(&[vec![0, 1], vec![0, 2], vec![3]], &texts).s,
            "a and (b or c) or d"
        );
        // No literal in two cubes: the DNF as it is.
        assert_eq!(
            factor_cubes(&[vec![0, 1], vec![2, 3]], &texts).s,
            "a and b or c and d"
        );
        // A literal with an `or` of its own keeps its parentheses inside an `and`.
        assert_eq!(
            factor_cubes(&[vec![0, 4], vec![0, 1]], &texts).s,
            "a and (e or f or b)"
        );
        assert_eq!(
            factor_cubes(&[vec![4, 1], vec![4, 2]], &texts).s,
            "(e or f) and (b or c)"
        );
        // The literal in the most cubes first (`b`, in three), the first met of equals next.
        assert_eq!(
            factor_cubes(&[vec![0, 1], vec![2, 1], vec![1, 3], vec![0, 2]], &texts).s,
            "b and (a or c or d) or a and c"
        );
        assert_eq!(
            factor_cubes(&[vec![0, 1, 2], vec![0, 1, 3], vec![2]], &texts).s,
            "a and b and (c or d) or c"
        );
        // A cube that is the literal alone covers the others with it.
        assert_eq!(factor_cubes(&[vec![0], vec![0, 1]], &texts).s, "a");
        // Under a literal taken out, a literal with an `or` taken out of all the rest: the
        // rest has no top-level `or` of its own, so it takes no parentheses around it.
        assert_eq!(
            factor_cubes(&[vec![0, 4, 1], vec![0, 4, 2]], &texts).s,
            "a and (e or f) and (b or c)"
        );
        // Alone, such a literal keeps its parentheses inside an `and`.
        assert_eq!(
            factor_cubes(&[vec![0, 4], vec![0, 4, 1]], &texts).s,
            "a and (e or f)"
        );
    }

    /// Print form 4 factors a long DNF; a DNF that fails on a literal with no spelling of its
    /// own leaves no cubes to factor (they once did: the ones written before the failure, and
    /// the text lost the rest of the marker).
    #[test]
    fn long_dnfs_print_factored_and_read_back() -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        let mut ctx = Context::new();
        let conflict = "(extra == 'extra-3-app-a' and extra == 'extra-3-app-b') or \
            (extra == 'extra-3-app-a' and extra == 'extra-3-app-c') or \
            (extra == 'extra-3-app-a' and extra == 'extra-3-app-d') or \
            (extra == 'extra-3-app-a' and extra == 'extra-3-app-e') or \
            (extra == 'extra-3-app-f' and extra == 'extra-3-app-g')";
        let m = ctx.from_marker(&conflict.parse()?, &none)?;
        let printed = ctx.to_marker_string(m)?;
        assert_eq!(
            printed,
            r#"extra == "extra-3-app-a" and (extra == "extra-3-app-b" or extra == "extra-3-app-c" or extra == "extra-3-app-d" or extra == "extra-3-app-e") or extra == "extra-3-app-f" and extra == "extra-3-app-g""#
        );
        assert_eq!(ctx.from_marker(&printed.parse()?, &none)?, m);
        let failing = "((python_full_version not in '9' or implementation_version < '7.16' or \
            'Jython' not in platform_python_implementation) and sys_platform <= 'darwin' and \
            python_full_version == '19.2.5.18.16.*' and 'a.b' <= extra) or \
            ('10.0.19045' != platform_version or python_full_version === '3' or \
            '7.0.14.11.3RC.6_DEV0' === python_full_version) and (implementation_name in 'pypy' \
            or platform_version < '10.0.19045' or 'CPython' > platform_python_implementation or \
            'x86_64' ~= platform_machine) or (platform_system == 'Darwin' and \
            'Java' === platform_system and platform_machine < 'i686') or \
            platform_python_implementation > 'PyPy'";
        let m = ctx.from_marker(&failing.parse()?, &none)?;
        let printed = ctx.to_marker_string(m)?;
        assert_eq!(ctx.from_marker(&printed.parse()?, &none)?, m, "{printed}");
        Ok(())
    }

    /// A cover's literals grow where the cube stays inside the marker (`grow_cube`) and shrink
    /// where the other cubes cover the part left out (`reduce_cover`), when the text gets
    /// shorter: a path's `sys_platform not in {darwin, win32}` leaves out the exception the
    /// cube can grow over, in a DNF and, as a clause's `in` literal that shrinks, in a CNF; a
    /// version interval grows past a bound; a version set of two intervals loses the one
    /// another cube covers. Each printed form reads back as the marker. (Print form 5: form 4
    /// printed each of these longer than its input, the first two with `sys_platform ==
    /// "win32"` inside `sys_platform != "win32"`, the fourth with `python_full_version >=
    /// "3.9" and python_full_version != "3.11" and python_full_version <= "3.11"` for the
    /// versions from 3.9 up to 3.11's pre-releases.)
    #[test]
    fn literals_grow_and_shrink_where_the_cover_allows() -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        let mut ctx = Context::new();
        for (text, want) in [
            (
                "(python_full_version >= '3.13' and sys_platform != 'win32') or sys_platform == 'darwin'",
                r#"sys_platform == "darwin" or sys_platform != "win32" and python_full_version >= "3.13""#,
            ),
            (
                "(platform_machine == 'aarch64' and sys_platform != 'darwin') or sys_platform == 'win32'",
                r#"sys_platform == "win32" or sys_platform != "darwin" and platform_machine == "aarch64""#,
            ),
            // The CNF: `(sys_platform == "darwin" or sys_platform == "win32" or …)` shrinks to
            // `sys_platform == "darwin" or …` beside the clause `sys_platform != "win32"`.
            (
                "sys_platform != 'win32' and (sys_platform == 'darwin' or os_name == 'posix' or \
                 platform_machine == 'x86_64') and (sys_platform == 'darwin' or \
                 implementation_name == 'cpython' or platform_system == 'Linux')",
                r#"sys_platform != "win32" and (sys_platform == "darwin" or platform_system == "Linux" or implementation_name == "cpython") and (os_name == "posix" or sys_platform == "darwin" or platform_machine == "x86_64")"#,
            ),
            (
                "python_full_version >= '3.9' and implementation_name == 'cpython' or \
                 python_full_version >= '3.11'",
                r#"python_full_version >= "3.9" and implementation_name == "cpython" or python_full_version >= "3.11""#,
            ),
            // The path through `sys_platform == "linux"` holds the versions below 3.11 too.
            (
                "python_full_version < '3.11' or (python_full_version >= '3.11' and \
                 python_full_version < '3.13' and sys_platform == 'linux')",
                r#"sys_platform == "linux" and python_full_version >= "3.11" and python_version < "3.13" or python_version < "3.11""#,
            ),
        ] {
            let m = ctx.from_marker(&text.parse()?, &none)?;
            let printed = ctx.to_shortest_marker_string(m)?;
            assert_eq!(printed, want, "{text}");
            assert_eq!(ctx.from_marker(&printed.parse()?, &none)?, m, "{printed}");
        }
        Ok(())
    }

    /// Print form 6: a string field's `in` literal takes in a string the marker names where
    /// its cube stays inside the marker (without it, `sys_platform in "inux" or sys_platform
    /// in "linu"` where `sys_platform in "linux"` says as much); and under a theory, a cube
    /// that covers only what the others cover where the theory holds is dropped (without it,
    /// `platform_system not in 'Windows'` printed with `os_name != "nt"` and the two halves of
    /// `Windows`).
    #[test]
    fn in_literals_take_in_strings_and_cubes_the_theory_makes_redundant_go()
    -> Result<(), Box<dyn std::error::Error>> {
        for (theory, text, want) in [
            (
                Theory::none(),
                "(sys_platform in 'linux' and platform_system != 'Java') or sys_platform == 'linux'",
                r#"sys_platform in "linux" and platform_system != "Java" or sys_platform == "linux""#,
            ),
            (
                Theory::none(),
                "(os_name in 'java' and implementation_name == 'cpython') or os_name == 'java'",
                r#"os_name in "java" and implementation_name == "cpython" or os_name == "java""#,
            ),
            (
                Theory::platform(),
                "platform_system not in 'Windows'",
                r#"platform_system not in "Windows""#,
            ),
            (
                Theory::platform(),
                "platform_system not in 'Windows' and platform_version != 'x'",
                r#"platform_system not in "Windows" and platform_version != "x""#,
            ),
            // `sys_platform == "win32"` with `os_name != "nt"` is ruled out: the cube of the
            // other substrings takes in `win32`, and the cube `os_name == "nt"` goes.
            (
                Theory::platform(),
                "sys_platform in 'win32' and sys_platform not in 'cygwin'",
                r#"sys_platform in "win32" and sys_platform not in "win""#,
            ),
            (
                Theory::platform(),
                "sys_platform == 'darwin' or platform_system in 'Darwin'",
                r#"platform_system in "Darwin""#,
            ),
        ] {
            let mut ctx = Context::new();
            let m = ctx.from_marker(&text.parse()?, &theory)?;
            let printed = ctx.to_shortest_marker_string(m)?;
            assert_eq!(printed, want, "{text}");
            // The text means the marker wherever the theory holds.
            let back = ctx.from_marker(&printed.parse()?, &theory)?;
            let care = ctx.theory_constraint(&theory)?;
            assert_eq!(ctx.and(m, care)?, ctx.and(back, care)?, "{printed}");
        }
        Ok(())
    }

    /// The DNF and the CNF alone (`print_dnf`), with their literals grown and shrunk: each of
    /// the expected texts below comes from one of the two steps, and each form of every
    /// lock-file marker and of every marker of `tests/data/string-in-markers.txt` reads back
    /// as the marker, under both theories (a literal grown or shrunk too far would not).
    #[test]
    fn dnf_and_cnf_literals_grow_and_shrink_exactly() -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        let mut ctx = Context::new();
        // (marker, DNF, CNF)
        let cases = [
            // A `not in` literal loses the exception another cube covers (DNF), a clause's
            // `==` literals the one another clause rules out (CNF).
            (
                "(platform_machine == 'aarch64' and sys_platform != 'darwin') or sys_platform == 'win32'",
                r#"sys_platform == "win32" or sys_platform != "darwin" and platform_machine == "aarch64""#,
                r#"sys_platform != "darwin" and (sys_platform == "win32" or platform_machine == "aarch64")"#,
            ),
            // A version interval grows past its top.
            (
                "python_full_version >= '3.9' and implementation_name == 'cpython' or python_full_version >= '3.11'",
                r#"python_full_version >= "3.9" and implementation_name == "cpython" or python_full_version >= "3.11""#,
                "",
            ),
            // A version set of two intervals loses the one the other cube covers.
            (
                "python_full_version < '3.11' or (python_full_version >= '3.11' and python_full_version < '3.13' and sys_platform == 'linux')",
                r#"sys_platform == "linux" and python_full_version >= "3.11" and python_version < "3.13" or python_version < "3.11""#,
                "",
            ),
            // An `in` literal of two strings loses the one the other cube covers.
            (
                "os_name == 'posix' and (sys_platform == 'linux' or sys_platform == 'darwin') or sys_platform == 'darwin'",
                r#"os_name == "posix" and sys_platform == "linux" or sys_platform == "darwin""#,
                "",
            ),
        ];
        for (text, dnf, cnf) in cases {
            let s = ctx.from_marker(&text.parse()?, &none)?;
            assert_eq!(ctx.print_dnf(s, s, false, None, &mut 0)?, dnf, "{text}");
            if !cnf.is_empty() {
                assert_eq!(ctx.print_dnf(!s, !s, true, None, &mut 0)?, cnf, "{text}");
            }
        }
        let strings = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/string-in-markers.txt"
        ))?;
        let all = lock_markers()? + &strings;
        let opts = markerspec_pep508::ParseOptions::default()
            .dialect(markerspec_pep508::Dialect::Extended);
        let mut checked = 0;
        for theory in [Theory::none(), Theory::platform()] {
            let mut ctx = Context::new();
            let care = ctx.theory_constraint(&theory)?;
            for line in all
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            {
                let Ok(tree) = MarkerTree::parse_with(line, &opts, &mut Vec::new()) else {
                    continue;
                };
                let s = ctx.from_marker(&tree, &theory)?;
                let s = ctx.simplify_under(s, care)?;
                if s.is_true() || s.is_false() {
                    continue;
                }
                let upper = ctx.disj(s, !care)?;
                let lower_not = ctx.disj(!s, !care)?;
                for (f, up, negate) in [(s, upper, false), (!s, lower_not, true)] {
                    let Ok(printed) = ctx.print_dnf(f, up, negate, None, &mut 0) else {
                        continue;
                    };
                    let back = MarkerTree::parse_with(&printed, &opts, &mut Vec::new())?;
                    let back = ctx.from_marker(&back, &theory)?;
                    // Equal to the marker wherever the theory holds.
                    let (a, b) = (ctx.conj(back, care)?, ctx.conj(s, care)?);
                    assert_eq!(a, b, "{line} [{}] printed as {printed}", theory.name());
                    checked += 1;
                }
            }
        }
        assert!(checked > 4000, "{checked}");
        Ok(())
    }

    /// Two literals of one cube that may each grow alone but not together: `os_name not in
    /// {java, nt}` may lose `nt` and `sys_platform not in {darwin, win32}` may lose `win32`
    /// inside `(sys_platform != "win32" or os_name != "nt") and os_name != "java"`, but not
    /// both (the cube would then hold `os_name == "nt" and sys_platform == "win32"`). The
    /// second literal's tests see the first grown, so it keeps `win32`.
    #[test]
    fn literals_of_one_cube_grow_one_after_the_other() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let (path, upper) = one_path_within(
            &mut ctx,
            "os_name != 'java' and os_name != 'nt' and sys_platform != 'darwin' \
             and sys_platform != 'win32'",
            "(sys_platform != 'win32' or os_name != 'nt') and os_name != 'java'",
        )?;
        let cube: Vec<super::Lit<'_>> = path.iter().map(|(v, l)| (*v, l)).collect();
        let mut seen = crate::dd::Seen::default();
        assert!(ctx.cube_within(&cube, upper, &mut seen)?);
        let grown = ctx.grow_cube(&cube, upper, false, &mut seen, &mut Vec::new())?;
        // `java` stays (outside `upper`), `nt` goes; `darwin` goes, `win32` stays.
        assert_eq!(
            grown,
            [
                (0, crate::dd::Label::StringNotIn(vec!["java".into()])),
                (1, crate::dd::Label::StringNotIn(vec!["win32".into()])),
            ]
        );
        let mut after = cube.clone();
        for (j, g) in &grown {
            if let Some(slot) = after.get_mut(*j) {
                slot.1 = g;
            }
        }
        assert!(ctx.cube_within(&after, upper, &mut seen)?);
        Ok(())
    }

    /// The one path of CUBE (a conjunction) and the marker UPPER, read under no theory, for
    /// the tests of `grow_cube`.
    #[allow(clippy::type_complexity)]
    fn one_path_within(
        ctx: &mut Context,
        cube: &str,
        upper: &str,
    ) -> Result<(Vec<(crate::dd::Var, crate::dd::Label)>, crate::Marker), Box<dyn std::error::Error>>
    {
        let none = Theory::none();
        let cube_marker = ctx.from_marker(&cube.parse()?, &none)?;
        let upper = ctx.from_marker(&upper.parse()?, &none)?;
        let mut paths = ctx.paths(cube_marker)?;
        match (paths.pop(), paths.is_empty()) {
            (Some(path), true) => Ok((path, upper)),
            _ => Err(format!("{cube}: one path").into()),
        }
    }

    /// An `in` literal takes in several strings at once where `in "x"` needs them all: `x`
    /// with the strings inside it, or all the strings offered. Each alone, or all of them
    /// where one string outside `x` is offered too, prints longer.
    #[test]
    fn in_literals_take_in_a_string_with_those_inside_it() -> Result<(), Box<dyn std::error::Error>>
    {
        for (cube, upper, want) in [
            (
                "sys_platform in 'win32' and sys_platform != 'win32' and sys_platform != 'in32'",
                "sys_platform in 'win32' or sys_platform == 'xin32'",
                r#"sys_platform in "win32""#,
            ),
            (
                "(sys_platform in 'linux' or sys_platform in 'win32') and sys_platform != 'linux' \
                 and sys_platform != 'win32'",
                "sys_platform in 'linux' or sys_platform in 'win32'",
                r#"sys_platform in "linux" or sys_platform in "win32""#,
            ),
        ] {
            let mut ctx = Context::new();
            let (path, upper) = one_path_within(&mut ctx, cube, upper)?;
            let lits: Vec<super::Lit<'_>> = path.iter().map(|(v, l)| (*v, l)).collect();
            let mut seen = crate::dd::Seen::default();
            let grown = ctx.grow_cube(&lits, upper, false, &mut seen, &mut Vec::new())?;
            let [(0, label)] = grown.as_slice() else {
                return Err(format!("{cube}: one literal grown, not {grown:?}").into());
            };
            let var = lits.first().map(|(v, _)| *v).ok_or("a literal")?;
            assert_eq!(ctx.literal_text(var, label)?.s, want, "{cube}");
            let after = [(var, label)];
            assert!(ctx.cube_within(&after, upper, &mut seen)?, "{cube}");
        }
        Ok(())
    }

    /// The split is tried where the shortest of the DNF, the CNF and the factored form has 300
    /// characters or more, whatever the DNF with its shared literals taken out gives (found by
    /// a review: that DNF, under 300 characters, kept a shorter split from being tried). Here
    /// the three forms give 322 characters, the factored DNF 259, the split 227.
    #[test]
    fn the_split_is_tried_from_the_three_forms_length() -> Result<(), Box<dyn std::error::Error>> {
        let text = r#"os_name == "posix" or platform_version != "Darwin Kernel Version 23.1.0" or implementation_name == "graalpy" or platform_python_implementation != "PyPy" and (os_name == "java" or platform_machine == "AMD64") and extra == "test""#;
        let mut ctx = Context::new();
        let m = ctx.from_marker(&text.parse()?, &Theory::none())?;
        assert_eq!(ctx.to_shortest_marker_string(m)?, text);
        Ok(())
    }

    #[test]
    fn split_form_needs_exact_comparisons_and_extras_after_other_fields()
    -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        let mut ctx = Context::new();
        for (text, split) in [
            (
                "python_version < '3.12' and extra == 'a' or platform_machine == 'arm64' and extra == 'a'",
                true,
            ),
            // `~=` on a string field under `packaging`: an opaque comparison.
            (
                "platform_machine ~= 'aarch64' and extra == 'a' or platform_machine == 'arm64' and extra == 'a'",
                false,
            ),
            (
                "python_version < '3.12' or platform_machine == 'arm64'",
                false,
            ),
            ("extra == 'a' and extra == 'b' or extra == 'c'", false),
        ] {
            let opts = markerspec_pep508::ParseOptions::default()
                .profile(markerspec_pep508::Profile::Packaging);
            let tree = MarkerTree::parse_with(text, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &none)?;
            let opaque = ctx
                .support(m)?
                .iter()
                .any(|&v| matches!(ctx.meta(v), Some(crate::translate::VarMeta::Opaque { .. })));
            assert_eq!(opaque, text.contains("~="), "{text}");
            assert_eq!(
                ctx.print_split(m, crate::dd::Marker::TRUE)?.is_some(),
                split,
                "{text}"
            );
        }
        Ok(())
    }

    /// Which printed markers need parentheses as an operand of `and`.
    #[test]
    fn top_level_or_looks_outside_parentheses_and_strings() {
        for (text, want) in [
            (r#"os_name == "nt" or extra == "a""#, true),
            (
                r#"(os_name == "nt" or extra == "a") and extra == "b""#,
                false,
            ),
            (r#"platform_version == "a or b""#, false),
            (r#"platform_version == 'x) or (y'"#, false),
            (r#"platform_version == "a\" or b" or extra == "c""#, true),
            (
                r#"extra == "a" and (extra == "b" or extra == "c") or extra == "d""#,
                true,
            ),
            ("true", false),
        ] {
            assert_eq!(super::top_level_or(text), want, "{text}");
        }
    }

    #[test]
    fn markers_past_the_forms_limits_print_as_a_larger_cover()
    -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        let mut ctx = Context::new();
        let tree: MarkerTree = extras_groups(12, 3).parse()?;
        let m = ctx.from_marker(&tree, &none)?;
        // None of the three forms prints it: too many paths, a CNF literal with no spelling
        // of its own (`python_full_version` absent or outside [3, 3.7)), too many nodes.
        assert!(ctx.paths(m)?.len() > super::MAX_CUBES);
        assert!(ctx.print_dnf(m, m, false, None, &mut 0).is_err());
        assert!(ctx.print_dnf(!m, !m, true, None, &mut 0).is_err());
        assert!(ctx.print_factored(m).is_err());
        let printed = ctx.to_shortest_marker_string(m)?;
        let back: MarkerTree = printed.parse()?;
        assert_eq!(ctx.from_marker(&back, &none)?, m);
        // The same in a fresh context (the text depends on the function only).
        let mut fresh = Context::new();
        let again = fresh.from_marker(&tree, &none)?;
        assert_eq!(fresh.to_shortest_marker_string(again)?, printed);
        // The context's limits are as they were.
        assert_eq!(ctx.limits(), crate::Limits::default());

        // One whose larger CNF is shorter than its larger DNF: the CNF is printed.
        let pairs = |prefix: &str, n: usize| {
            let mut cubes = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    cubes.push(format!(
                        "(extra == '{prefix}{a}' and extra == '{prefix}{b}')"
                    ));
                }
            }
            cubes.join(" or ")
        };
        let text = format!(
            "((platform_machine == 'x86_64' and extra == 'a0' or {}) and (sys_platform == 'win32' or {})) or (platform_system == 'darwin' and platform_release >= '11.0')",
            pairs("a", 8),
            pairs("b", 4)
        );
        let tree: MarkerTree = text.parse()?;
        let m = ctx.from_marker(&tree, &none)?;
        assert!(ctx.print_dnf(m, m, false, None, &mut 0).is_err());
        assert!(ctx.print_dnf(!m, !m, true, None, &mut 0).is_err());
        assert!(ctx.print_factored(m).is_err());
        let printed = ctx.to_shortest_marker_string(m)?;
        let back: MarkerTree = printed.parse()?;
        assert_eq!(ctx.from_marker(&back, &none)?, m);
        let dnf = ctx.print_cover(
            m,
            (crate::Marker::TRUE, m),
            false,
            None,
            &mut 0,
            super::LARGE_CUBES,
            None,
        )?;
        assert!(
            printed.len() < dnf.len(),
            "{} / {}",
            printed.len(),
            dnf.len()
        );
        // The larger cover alone (the split form prints this marker first): the CNF, shorter
        // than the DNF, and it reads back as the marker.
        let large = ctx
            .print_large(m, crate::Marker::TRUE, m, !m)?
            .ok_or("the larger cover prints it")?;
        assert!(large.len() < dnf.len(), "{} / {}", large.len(), dnf.len());
        assert_eq!(ctx.from_marker(&large.parse()?, &none)?, m, "{large}");

        let tree: MarkerTree = extras_groups(16, 4).parse()?;
        let m = ctx.from_marker(&tree, &none)?;
        let err = ctx
            .to_shortest_marker_string(m)
            .err()
            .ok_or("every 4 of 16 extras should be past the limits")?;
        assert_eq!(err.code(), "intractable");
        assert_eq!(ctx.limits(), crate::Limits::default());
        Ok(())
    }

    /// The printer's node limit (`more_nodes_than`) agrees with `node_count`, at the limit and
    /// either side of it, on diagrams of one node per extra, and on the lock-file markers.
    #[test]
    fn more_nodes_than_agrees_with_node_count() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let none = Theory::none();
        for n in [1usize, 2, 5, 64, 65, 70] {
            let text = (0..n)
                .map(|i| format!("extra == 'e{i}'"))
                .collect::<Vec<_>>()
                .join(" or ");
            let m = ctx.from_marker(&text.parse::<MarkerTree>()?, &none)?;
            assert_eq!(ctx.node_count(m)?, n);
            for limit in [n - 1, n, n + 1, 64] {
                assert_eq!(
                    ctx.more_nodes_than(m, limit)?,
                    n > limit,
                    "{n} nodes, {limit}"
                );
            }
        }
        assert!(!ctx.more_nodes_than(crate::Marker::TRUE, 0)?);
        for line in lock_markers()?.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(tree) = line.parse::<MarkerTree>() else {
                continue;
            };
            let m = ctx.from_marker(&tree, &none)?;
            let count = ctx.node_count(m)?;
            for limit in [count.saturating_sub(1), count, 3] {
                assert_eq!(ctx.more_nodes_than(m, limit)?, count > limit, "{line}");
            }
        }
        Ok(())
    }

    /// The length bound `print_dnf` checks against its `limit` is a lower bound: with the
    /// form's own length as the limit, the form is still printed.
    #[test]
    fn cover_length_bound_is_a_lower_bound() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut ctx = Context::new();
        let none = Theory::none();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(tree) = line.parse::<MarkerTree>() else {
                continue;
            };
            let s = ctx.from_marker(&tree, &none)?;
            for (f, negate) in [(s, false), (!s, true)] {
                let Ok(full) = ctx.print_dnf(f, f, negate, None, &mut 0) else {
                    continue;
                };
                let limited = ctx.print_dnf(f, f, negate, Some(full.len()), &mut 0)?;
                assert_eq!(limited, full, "{line}");
            }
        }
        Ok(())
    }

    /// For markers of extras alone (every literal printed as `extra == "x"` or `extra != "x"`,
    /// the shortest text a literal of `extra` can have) the cover's length bound is its text's
    /// length exactly, DNF and CNF: one character less as the limit and the cover is refused.
    #[test]
    fn cover_length_bound_is_exact_for_extras() -> Result<(), Box<dyn std::error::Error>> {
        let none = Theory::none();
        for text in [
            "extra == 'a' and extra == 'b' or extra == 'c'",
            "(extra == 'a' or extra == 'b') and (extra == 'c' or extra == 'dd')",
            "extra == 'a' and extra != 'bb' or extra == 'ccc' and extra != 'd' or extra == 'e'",
            // Cubes no two of which meet (the irredundancy pass has nothing to check).
            "extra == 'a' and extra == 'b' or extra != 'a' and extra == 'c'",
        ] {
            let mut ctx = Context::new();
            let s = ctx.from_marker(&text.parse::<MarkerTree>()?, &none)?;
            for (f, negate) in [(s, false), (!s, true)] {
                let full = ctx.print_dnf(f, f, negate, None, &mut 0)?;
                assert_eq!(ctx.print_dnf(f, f, negate, Some(full.len()), &mut 0)?, full);
                let short = ctx.print_dnf(f, f, negate, Some(full.len() - 1), &mut 0);
                assert!(
                    short.as_ref().is_err_and(|e| e.code() == "intractable"),
                    "{text} ({negate}): {full} / {short:?}"
                );
            }
        }
        Ok(())
    }

    /// The factored form's length bound is a lower bound on its text's length (the printer
    /// skips the form when the bound is above the best so far), for each marker of the corpus
    /// and its negation, and it is not trivially small.
    #[test]
    fn factored_length_bound_is_a_lower_bound() -> Result<(), Box<dyn std::error::Error>> {
        let text = lock_markers()?;
        let mut ctx = Context::new();
        let none = Theory::none();
        let (mut checked, mut slack) = (0usize, 0usize);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(tree) = line.parse::<MarkerTree>() else {
                continue;
            };
            let s = ctx.from_marker(&tree, &none)?;
            for f in [s, !s] {
                let (Ok(full), Some(bound)) = (ctx.print_factored(f), ctx.factored_len_bound(f)?)
                else {
                    continue;
                };
                assert!(bound <= full.len(), "{line}: {bound} > {}", full.len());
                checked += 1;
                slack += full.len() - bound;
            }
        }
        assert!(checked > 1500, "{checked}");
        // Tight enough to be of use: on average within 20 characters of the text (it counts
        // every literal and connective, leaving out what spelling adds to each literal).
        assert!(slack < checked * 20, "average slack {}", slack / checked);
        Ok(())
    }

    /// A version set is spelt as its best exact comparison by score (a pair, or more, when
    /// none is exact), whichever of the candidates are translated first: in a fresh context
    /// and after every other case has been printed.
    #[test]
    fn version_sets_print_as_their_best_spelling() -> Result<(), Box<dyn std::error::Error>> {
        let cases = [
            (
                "python_full_version >= '3.9'",
                r#"python_full_version >= "3.9""#,
            ),
            ("python_full_version < '3.13'", r#"python_version < "3.13""#),
            (
                "python_full_version >= '3.12' and python_full_version < '3.13'",
                r#"python_full_version >= "3.12" and python_version < "3.13""#,
            ),
            (
                "python_full_version > '3.8.1'",
                r#"python_full_version > "3.8.1""#,
            ),
            (
                "python_full_version != '3.11.*'",
                r#"python_version != "3.11""#,
            ),
            (
                "python_full_version == '3.11.4'",
                r#"python_full_version == "3.11.4""#,
            ),
            (
                "python_full_version >= '3.9' and python_full_version < '3.11.2'",
                r#"python_full_version >= "3.9" and python_full_version < "3.11.2""#,
            ),
            (
                "platform_release >= '5.10'",
                r#"platform_release >= "5.10""#,
            ),
            (
                "platform_release >= '5.10' and platform_release < '6'",
                r#"platform_release >= "5.10" and platform_release < "6""#,
            ),
            (
                "implementation_version != '3.12.0'",
                r#"implementation_version != "3.12""#,
            ),
        ];
        let none = Theory::none();
        let mut shared = Context::new();
        for pass in 0..2 {
            for (input, want) in cases {
                let tree: MarkerTree = input.parse()?;
                let mut fresh = Context::new();
                let m = fresh.from_marker(&tree, &none)?;
                assert_eq!(fresh.to_marker_string(m)?, want, "{input}");
                let m = shared.from_marker(&tree, &none)?;
                assert_eq!(shared.to_marker_string(m)?, want, "{input}, pass {pass}");
                shared.clear_caches();
            }
        }
        Ok(())
    }

    /// A label holding the absent value without every version at both ends has no spelling
    /// for a standard field, as `absent_without_both_ends` says without searching: the search
    /// finds none for every such label built from the cuts of a few versions, and finds the
    /// `!=` of a label holding the absent value and both ends (or the absent value and the
    /// versions past the least ones).
    #[test]
    fn labels_absent_without_both_ends_have_no_spelling() -> Result<(), Box<dyn std::error::Error>>
    {
        use super::absent_without_both_ends;
        use crate::cut::Cut;
        use crate::range::VersionSet;
        use markerspec_pep508::Field;
        let mut cuts = vec![Cut::versions_start(), Cut::TOP];
        for v in ["3.9", "3.11.0rc1", "3.12", "3.14"] {
            let v: markerspec_pep440::Version = v.parse()?;
            cuts.push(Cut::below(&v));
            cuts.push(Cut::above(&v));
        }
        // The point 3.9 (a block `!=` can leave out), and an empty interval.
        let point = |c: usize| cuts.get(c).cloned().ok_or("a cut");
        let (below_39, above_39, above_rc) = (point(2)?, point(3)?, point(5)?);
        let mut ctx = Context::new();
        let (mut rejected, mut spelt) = (0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let var = ctx.version_var(field)?;
            for (i, lo) in cuts.iter().enumerate() {
                for hi in cuts.iter().skip(i) {
                    for gap in [None, Some(&below_39), Some(&above_rc)] {
                        // "" ∪ [versions_start, lo) ∪ [hi, TOP), less a block when `gap`.
                        let mut set = VersionSet::absent()
                            .union(&VersionSet::interval(Cut::versions_start(), lo.clone()))
                            .union(&VersionSet::interval(hi.clone(), Cut::TOP));
                        if let Some(g) = gap {
                            let block = VersionSet::interval(g.clone(), above_39.clone());
                            set = set.intersection(&block.complement());
                        }
                        if set.is_full() {
                            // A constant: the printer never spells it.
                            continue;
                        }
                        let found = ctx.spell_versions(var, field, &set);
                        if absent_without_both_ends(&set) {
                            rejected += 1;
                            let e = found.err().ok_or("a spelling where none was expected")?;
                            assert_eq!(e.code(), "unprintable", "{field:?} in {set}");
                        }
                    }
                }
            }
        }
        // Labels holding the absent value and both ends that have a spelling: `!=`.
        for (field, op_literal, want) in [
            (
                Field::PythonFullVersion,
                "3.9",
                r#"python_full_version != "3.9""#,
            ),
            (
                Field::PythonFullVersion,
                "3.12.*",
                r#"python_version != "3.12""#,
            ),
            (
                Field::PlatformRelease,
                "5.4",
                r#"platform_release != "5.4""#,
            ),
            // The absent value and every version from 1.dev0 up: no version lies below the
            // block `0.*`.
            (
                Field::ImplementationVersion,
                "0.*",
                r#"implementation_version != "0.*""#,
            ),
        ] {
            let var = ctx.version_var(field)?;
            let set = crate::translate::spec_version_set(
                field,
                markerspec_pep508::MarkerOperator::NotEqual,
                op_literal,
            )
            .ok_or("a set")?;
            assert!(!absent_without_both_ends(&set), "{set}");
            assert_eq!(ctx.spell_versions(var, field, &set)?.s, want);
            spelt += 1;
        }
        // Only the absent value and every version from one in the block `0.*` or at its end
        // up is left to the search (`!= "0.*"`); a gap above, or a start past that block, is
        // ruled out at once, and a first interval that reaches past the absent value is not.
        let version = |t: &str| -> Result<markerspec_pep440::Version, Box<dyn std::error::Error>> {
            Ok(t.parse()?)
        };
        let from = |t: &str| -> Result<VersionSet, Box<dyn std::error::Error>> {
            Ok(VersionSet::interval(Cut::below(&version(t)?), Cut::TOP))
        };
        let between = |a: &str, b: &str| -> Result<VersionSet, Box<dyn std::error::Error>> {
            Ok(VersionSet::interval(
                Cut::below(&version(a)?),
                Cut::below(&version(b)?),
            ))
        };
        let absent = VersionSet::absent();
        for (set, ruled_out) in [
            (absent.union(&from("1.dev0")?), false),
            (absent.union(&from("0.5")?), false),
            (absent.union(&from("1.dev1")?), true),
            (absent.union(&from("3.9.dev0")?), true),
            (
                absent.union(&between("1.dev0", "3")?).union(&from("4")?),
                true,
            ),
            (
                absent
                    .union(&between("0.dev0", "3.9")?)
                    .union(&from("3.10")?),
                false,
            ),
            (absent.union(&between("0.dev0", "3.9")?), true),
        ] {
            assert_eq!(absent_without_both_ends(&set), ruled_out, "{set}");
        }
        assert!(
            rejected > 50 && spelt == 4,
            "{rejected} rejected, {spelt} spelt"
        );
        Ok(())
    }

    /// Contexts that share [`Spellings`] print what a context alone prints, on one thread
    /// or on two at once, and take a label's spelling from the table when it is there.
    #[test]
    fn shared_spellings_change_no_text() -> Result<(), Box<dyn std::error::Error>> {
        use super::{Spellings, Text};
        use crate::Error;
        use crate::range::VersionSet;
        use markerspec_pep508::Field;
        let text = lock_markers()?;
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let print_all = |ctx: &mut Context, lines: &[&str]| -> Result<Vec<String>, Error> {
            let none = Theory::none();
            let opts = markerspec_pep508::ParseOptions::default();
            lines
                .iter()
                .map(|l| {
                    let m = ctx.parse_marker(l, &opts, &mut Vec::new(), &none)?;
                    ctx.to_marker_string(m)
                })
                .collect()
        };
        let alone = print_all(&mut Context::new(), &lines)?;
        let spellings = Spellings::new();
        assert!(spellings.is_empty());
        let mut first = Context::new();
        first.share_spellings(&spellings);
        assert_eq!(print_all(&mut first, &lines)?, alone);
        let found = spellings.len();
        assert!(found > 50 && !spellings.is_empty(), "{found} labels");
        // A second context finds every label there: it adds none.
        let mut second = Context::new();
        second.share_spellings(&spellings);
        assert_eq!(print_all(&mut second, &lines)?, alone);
        assert_eq!(spellings.len(), found);
        // Two threads at once, from an empty table, each with half of the lines in turn.
        let spellings = Spellings::new();
        let halves: Vec<Vec<&str>> = (0..2)
            .map(|k| lines.iter().skip(k).step_by(2).copied().collect())
            .collect();
        let printed = std::thread::scope(|s| {
            let handles: Vec<_> = halves
                .iter()
                .map(|half| {
                    let spellings = spellings.clone();
                    s.spawn(move || {
                        let mut ctx = Context::new();
                        ctx.share_spellings(&spellings);
                        print_all(&mut ctx, half)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().map_err(|_| "a thread panicked"))
                .collect::<Result<Vec<_>, _>>()
        })?;
        for (k, texts) in printed.into_iter().enumerate() {
            let texts = texts?;
            let expected: Vec<String> = alone.iter().skip(k).step_by(2).cloned().collect();
            assert_eq!(texts, expected, "thread {k}");
        }
        assert!(spellings.len() >= found, "{} labels", spellings.len());
        // A spelling in the table is the one printed (so the table is read, not only filled).
        let spellings = Spellings::new();
        let set = VersionSet::from_specifier(&">=3.10".parse()?).ok_or("a set")?;
        let planted = Text {
            s: "python_full_version >= \"3.10\" and true".into(),
            or: false,
        };
        spellings.put(Field::PythonFullVersion, &set, &planted);
        let mut ctx = Context::new();
        ctx.share_spellings(&spellings);
        assert_eq!(
            print_all(&mut ctx, &["python_full_version >= '3.10'"])?,
            [planted.s]
        );
        Ok(())
    }

    /// Between two different bounds the cover is the recurrence's, even where the lower bound
    /// is a single path: the path is its own cover only between equal bounds.
    #[test]
    fn a_single_path_is_its_own_cover_only_between_equal_bounds()
    -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let mut marker = |text: &str| -> Result<Marker, Box<dyn std::error::Error>> {
            let tree: MarkerTree = text.parse()?;
            Ok(ctx.from_marker(&tree, &Theory::none())?)
        };
        let lower = marker("os_name == 'nt' and sys_platform == 'win32'")?;
        let upper = marker("os_name == 'nt'")?;
        assert_eq!(ctx.print_isop_within(lower, upper)?, r#"os_name == "nt""#);
        assert_eq!(
            ctx.print_isop_within(lower, lower)?,
            r#"os_name == "nt" and sys_platform == "win32""#
        );
        Ok(())
    }

    /// The printed form is cached per marker and theory constraint: a marker printed before
    /// the context takes a theory prints again, under the theory, as a fresh context prints it.
    #[test]
    fn cached_print_follows_the_theory_constraint() -> Result<(), Box<dyn std::error::Error>> {
        let tree: MarkerTree = "sys_platform == 'win32' and os_name == 'nt'".parse()?;
        let platform = Theory::platform();

        let mut ctx = Context::new();
        let m = ctx.translate(&tree)?;
        let before = ctx.to_marker_string(m)?;
        assert!(
            before.contains("os_name") && before.contains("sys_platform"),
            "{before}"
        );
        assert_eq!(
            ctx.to_marker_string(m)?,
            before,
            "a cached print is the same text"
        );
        ctx.from_marker(&tree, &platform)?;
        let after = ctx.to_marker_string(m)?;

        let mut fresh = Context::new();
        let fm = fresh.translate(&tree)?;
        fresh.from_marker(&tree, &platform)?;
        assert_eq!(after, fresh.to_marker_string(fm)?);
        // Under the platform theory one of the two comparisons implies the other: one is
        // printed.
        assert!(after.len() < before.len(), "{before} / {after}");
        assert!(!after.contains(" and "), "{after}");

        ctx.clear_caches();
        assert_eq!(
            ctx.to_marker_string(m)?,
            after,
            "printing after clear_caches"
        );
        Ok(())
    }

    /// Under a theory a cube may reach into the environments the theory rules out; the
    /// irredundancy pass asks whether the others cover the part of the marker it covers, not
    /// the whole cube. Asked of the whole cube, `sys_platform == "darwin" and platform_system
    /// == "Java"` (ruled out: Darwin's `platform_system` is `Darwin`) would keep a fourth cube
    /// in the DNF, and the CNF would print instead.
    #[test]
    fn irredundancy_under_a_theory_looks_at_the_marker_not_the_whole_cube()
    -> Result<(), Box<dyn std::error::Error>> {
        let text = "sys_platform == 'darwin' and platform_machine == 'x' and python_version >= '3.9' \
                    or platform_release > '23.1' and python_version >= '3.9' \
                    or platform_system == 'Java' and python_version >= '3.9'";
        let tree: MarkerTree = text.parse()?;
        let mut ctx = Context::new();
        let m = ctx.from_marker(&tree, &Theory::platform())?;
        assert_eq!(
            ctx.to_shortest_marker_string(m)?,
            r#"python_version >= "3.9" and (sys_platform == "darwin" and platform_machine == "x" or platform_release > "23.1" or platform_system == "Java")"#
        );
        Ok(())
    }
}
