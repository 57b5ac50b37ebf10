//! The search for a version label's shortest exact spelling (`spec/SPEC.md` §21.4): the best
//! single comparison when one is exact, else the best of a pair, a greedy conjunction and a
//! disjunction of intervals.
//!
//! The search reads comparisons in one of two ways, with the same text either way. For a
//! standard field, as sets of the version variable: each comparison is exactly one set
//! (`spec_version_set`, the function the translation reads them through), equal sets are equal
//! diagrams ([`Context::version_set`] is one interval node per set), and past the single
//! comparisons every set the search combines is made of the cuts of the candidates, so that
//! each is a bit mask ([`Masks`]) and each operation one instruction: no node, no diagram
//! operation. Otherwise (an extended field, a candidate without a set, more cuts than a mask
//! holds), as the context's diagrams ([`Diagrams`]).
//!
//! A label of one interval that no single comparison spells is most often a pair (`>=` and
//! `<`): for those the sets reading first looks for the best pair reading the candidates
//! cheapest first, only as far as a cheaper pair could go ([`pair_by_prefix`], the same text as
//! the whole search), and reads every candidate only when no pair is exact.

use std::sync::Arc;

use markerspec_pep440::Version;
use markerspec_pep508::{Field, MarkerOperator as O};
use rustc_hash::FxHashMap as HashMap;

use super::{Text, better, join, quote};
use crate::cut::Cut;
use crate::dd::{Context, CutTable, Marker, Var};
use crate::error::{Error, ErrorKind};
use crate::range::{VersionSet, bounds_python_versions};
use crate::translate::{spec_version_set, version_comparison_set};

/// What the search needs of the meanings of comparisons (and of their combinations) past the
/// single comparisons: equality, the Boolean operations and inclusion.
trait Meanings {
    /// A meaning.
    type M: Clone + PartialEq;

    /// The version variable's values in `set`; `None` when this reading cannot say it.
    fn set(&mut self, set: &VersionSet) -> Result<Option<Self::M>, Error>;
    /// Always true or always false.
    fn is_constant(&self, m: &Self::M) -> bool;
    /// Always true (`true`) or always false.
    fn constant(&self, value: bool) -> Self::M;
    /// Both.
    fn and(&mut self, a: &Self::M, b: &Self::M) -> Result<Self::M, Error>;
    /// Either.
    fn or(&mut self, a: &Self::M, b: &Self::M) -> Result<Self::M, Error>;
    /// Whether `a` implies `b`.
    fn implies(&mut self, a: &Self::M, b: &Self::M) -> Result<bool, Error>;
}

/// Meanings as the context's diagrams over the version variable `var` (any version field).
struct Diagrams<'c> {
    ctx: &'c mut Context,
    var: Var,
}

impl Meanings for Diagrams<'_> {
    type M = Marker;

    fn set(&mut self, set: &VersionSet) -> Result<Option<Marker>, Error> {
        self.ctx.version_set(self.var, set).map(Some)
    }
    fn is_constant(&self, m: &Marker) -> bool {
        m.is_true() || m.is_false()
    }
    fn constant(&self, value: bool) -> Marker {
        if value { Marker::TRUE } else { Marker::FALSE }
    }
    fn and(&mut self, a: &Marker, b: &Marker) -> Result<Marker, Error> {
        self.ctx.conj(*a, *b)
    }
    fn or(&mut self, a: &Marker, b: &Marker) -> Result<Marker, Error> {
        self.ctx.disj(*a, *b)
    }
    fn implies(&mut self, a: &Marker, b: &Marker) -> Result<bool, Error> {
        self.ctx.entails(*a, *b)
    }
}

/// The comparisons of the standard version fields read as sets of the version variable
/// (kept per context): for each literal (by its id, [`NamedCache`]) and each field read with
/// it, the set of each operator of [`OPS`].
#[derive(Clone, Debug, Default)]
pub(crate) struct AtomSets {
    /// By literal id: `None` for a set not read yet; `Some(None)` where `spec_version_set`
    /// gives none.
    sets: Vec<smallvec::SmallVec<[(Field, OpSets); 1]>>,
}

/// The sets of one field and literal, one per operator of [`OPS`].
type OpSets = [Option<Option<Arc<VersionSet>>>; 6];

impl AtomSets {
    /// `field op "lit"` (`lit` with id `id`) as a set: `spec_version_set`'s set, its cuts
    /// interned in `cuts` (the nodes' table, so that equal cuts are mostly one copy); `None`
    /// where it gives none (the translation then reads the comparison otherwise: a version
    /// with a local label under `<`, for one), and for the empty literal.
    fn read(
        &mut self,
        cuts: &mut CutTable,
        versions: &NamedCache,
        (field, op, lit, id): Spec<'_>,
    ) -> Option<Arc<VersionSet>> {
        let k = OPS.iter().position(|o| *o == op)?;
        if id >= self.sets.len() {
            // (Ids are dense: the literals of one context, `usize::MAX` is none.)
            if id == usize::MAX {
                return None;
            }
            self.sets.resize_with(id + 1, Default::default);
        }
        let per_field = self.sets.get_mut(id)?;
        let place = match per_field.iter().position(|(f, _)| *f == field) {
            Some(place) => place,
            None => {
                per_field.push((field, OpSets::default()));
                per_field.len() - 1
            }
        };
        let slot = per_field.get_mut(place)?.1.get_mut(k)?;
        if let Some(s) = slot {
            return s.clone();
        }
        // A literal that is a version's text is read from the version (no parse).
        let set = match versions.versions.get(id) {
            Some(Some((version, wildcard))) => {
                let set = version_comparison_set(field, op, version, *wildcard);
                debug_assert_eq!(
                    set,
                    spec_version_set(field, op, lit),
                    "{field:?} {op:?} {lit}"
                );
                set
            }
            _ => spec_version_set(field, op, lit),
        };
        let s = set.map(|s| Arc::new(s.with_cuts(|c| cuts.intern_in_place(c))));
        *slot = Some(s.clone());
        s
    }
}

/// Meanings as bit masks over the pieces between the cuts of a fixed list of sets (the
/// target's and every candidate's): bit 0 stands for the points below the least cut, bit `k`
/// for the points from the `k`-th least cut up to the next one (the highest bits all for the
/// points above the greatest). Each set of those cuts is one mask, and the masks' `&`, `|` and
/// equality are the sets' intersection, union and equality (a sweep over the same cuts), so
/// each of the search's operations is one instruction.
struct Masks {
    /// Each cut's bit, by [`Cut::identity`] (equal cuts of other identities have the same bit).
    bit: HashMap<usize, u32>,
}

impl Masks {
    /// The masks for `sets`, when they have at most 127 distinct cuts (else `None`).
    fn new<'s>(sets: impl IntoIterator<Item = &'s VersionSet>) -> Option<Masks> {
        let mut bit: HashMap<usize, u32> = HashMap::default();
        let mut cuts: Vec<&Cut> = Vec::new();
        for set in sets {
            for c in set.bounds() {
                if *c != Cut::BOTTOM && *c != Cut::TOP && bit.insert(c.identity(), 0).is_none() {
                    cuts.push(c);
                }
            }
        }
        cuts.sort_unstable();
        // Equal cuts (apart, not interned) next to each other, one bit for them.
        let mut k = 0;
        let mut last: Option<&Cut> = None;
        for c in cuts {
            if last != Some(c) {
                k += 1;
                if k > 127 {
                    return None;
                }
            }
            bit.insert(c.identity(), k);
            last = Some(c);
        }
        Some(Masks { bit })
    }

    /// `set`'s mask; `None` when one of its cuts is not in the list.
    fn mask(&self, set: &VersionSet) -> Option<u128> {
        let position = |c: &Cut| -> Option<u32> {
            if *c == Cut::BOTTOM {
                Some(0)
            } else if *c == Cut::TOP {
                Some(128)
            } else {
                self.bit.get(&c.identity()).copied()
            }
        };
        // Bits below `k`.
        let below = |k: u32| {
            if k >= 128 {
                u128::MAX
            } else {
                (1u128 << k) - 1
            }
        };
        let mut m = 0u128;
        for (lo, hi) in set.intervals() {
            m |= below(position(hi)?) & !below(position(lo)?);
        }
        Some(m)
    }
}

impl Meanings for Masks {
    type M = u128;

    fn set(&mut self, set: &VersionSet) -> Result<Option<u128>, Error> {
        Ok(self.mask(set))
    }
    fn is_constant(&self, m: &u128) -> bool {
        *m == 0 || *m == u128::MAX
    }
    fn constant(&self, value: bool) -> u128 {
        if value { u128::MAX } else { 0 }
    }
    fn and(&mut self, a: &u128, b: &u128) -> Result<u128, Error> {
        Ok(a & b)
    }
    fn or(&mut self, a: &u128, b: &u128) -> Result<u128, Error> {
        Ok(a | b)
    }
    fn implies(&mut self, a: &u128, b: &u128) -> Result<bool, Error> {
        Ok(a & !b == 0)
    }
}

/// A candidate comparison `field op "lit"` and its meaning.
struct Cand<'l, M> {
    field: Field,
    op: O,
    lit: &'l str,
    m: M,
    /// [`score`](super::score)`(text).0`, from the lengths alone.
    cost: usize,
}

impl<M> Cand<'_, M> {
    /// `field op "literal"` (a version's text and the empty literal need no escapes).
    fn text(&self) -> String {
        atom_text(self.field, self.op, self.lit)
    }

    /// Whether the comparison bounds a range from below (`>`, `>=`) or is an `==`: written
    /// first in a conjunction.
    fn opens(&self) -> bool {
        matches!(self.op, O::GreaterThan | O::GreaterThanEqual | O::Equal)
    }
}

/// `field op "literal"`, built without the formatting machinery.
fn atom_text(f: Field, op: O, lit: &str) -> String {
    let (name, op, q) = (f.name(), op.as_str(), quote(lit));
    let mut t = String::with_capacity(name.len() + op.len() + q.len() + 2);
    t.push_str(name);
    t.push(' ');
    t.push_str(op);
    t.push(' ');
    t.push_str(&q);
    t
}

/// The operators of the candidates, in the order of their text.
const OPS: [O; 6] = [
    O::NotEqual,
    O::LessThan,
    O::LessThanEqual,
    O::Equal,
    O::GreaterThan,
    O::GreaterThanEqual,
];

/// A candidate comparison: field, operator, literal, and the literal's id ([`NamedCache`];
/// `usize::MAX` for the empty literal).
type Spec<'l> = (Field, O, &'l str, usize);

/// The fields of the candidates for a label of `field`, in the order of their names: for
/// `python_full_version` also `python_version`.
fn fields_of(field: Field) -> &'static [Field] {
    if field == Field::PythonFullVersion {
        &[Field::PythonFullVersion, Field::PythonVersion]
    } else {
        // (Every field's own slice.)
        let i = field.index();
        Field::ALL.get(i..=i).unwrap_or_default()
    }
}

/// A version a cut may name ([`Cut::candidate_versions`]): its class (equal versions, `3`
/// and `3.0`, one class), its text and, for a plain release, its wildcard (`3.9.*`), each
/// text with its literal id.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    class: u32,
    text: Lit,
    wildcard: Option<Lit>,
}

/// A candidate's literal: its text, whether it is a wildcard (`3.9.*`), and its id, the same
/// for the same text in one context ([`AtomSets`] keeps the sets read by id).
#[derive(Clone, Debug)]
pub(crate) struct Lit {
    text: Arc<str>,
    wildcard: bool,
    id: u32,
    kind: LitKind,
}

/// The versions each cut may name, in order, as [`Named`], and the ids of their literals
/// and classes (kept per context: the cuts of a lock file's labels repeat, and so do the
/// versions they name).
#[derive(Clone, Debug, Default)]
pub(crate) struct NamedCache {
    /// By the cut's identity ([`Cut::identity`]; the cut is kept with them, so that its
    /// address is not another cut's while the entry lasts): a cut is hashed by its address,
    /// not its whole prefix. An equal cut of another address (the nodes' cuts are interned,
    /// so only outside them) makes its own entry, the same names.
    by_cut: HashMap<usize, (Cut, Arc<[Named]>)>,
    ids: HashMap<Arc<str>, u32>,
    classes: HashMap<Version, u32>,
    /// By literal id: the version whose text the literal is, and whether it is that
    /// version's wildcard (`3.9.*`); `None` for a literal made from text alone.
    versions: Vec<Option<(Version, bool)>>,
    /// Each plain release of epoch 0 named so far, by its numbers as written (`3` and `3.0`
    /// apart: their texts differ): the prefixes a cut names (`3`, `3.12`) are most cuts'.
    releases: HashMap<smallvec::SmallVec<[u64; 4]>, Named>,
}

impl NamedCache {
    /// The literal `text` with its id (made when new), `version`'s text (with `.*` when
    /// `wildcard`) when there is one.
    fn literal(&mut self, text: String, wildcard: bool, version: Option<&Version>) -> Lit {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        let (text, id) = match self.ids.get_key_value(text.as_str()) {
            Some((t, &id)) => (t.clone(), id),
            None => {
                let t: Arc<str> = text.into();
                self.ids.insert(t.clone(), next);
                self.versions.push(version.map(|v| (v.clone(), wildcard)));
                (t, next)
            }
        };
        let kind = LitKind::of(&text);
        Lit {
            text,
            wildcard,
            id,
            kind,
        }
    }
}

/// The versions `cut` may name.
fn named(cache: &mut NamedCache, cut: &Cut) -> Arc<[Named]> {
    if let Some((_, n)) = cache.by_cut.get(&cut.identity()) {
        return n.clone();
    }
    let n: Arc<[Named]> = cut
        .candidate_versions()
        .into_iter()
        .map(|version| {
            // A plain release (of any epoch) has a wildcard; one of epoch 0, the usual, is
            // in the table of releases.
            let plain = version.pre().is_none()
                && version.post().is_none()
                && version.dev().is_none()
                && version.local().is_empty();
            let release_only = plain && version.epoch() == 0;
            if release_only {
                if let Some(n) = cache.releases.get(version.release()) {
                    return n.clone();
                }
            }
            // A plain release's text (its numbers joined by dots, as `Display` writes it)
            // and its wildcard, written without the formatting machinery.
            let text = if release_only {
                release_text(version.release())
            } else {
                version.to_string()
            };
            let wildcard = plain.then(|| {
                let mut w = String::with_capacity(text.len() + 2);
                w.push_str(&text);
                w.push_str(".*");
                cache.literal(w, true, Some(&version))
            });
            let text = cache.literal(text, false, Some(&version));
            let release = release_only.then(|| smallvec::SmallVec::from(version.release()));
            let next = u32::try_from(cache.classes.len()).unwrap_or(u32::MAX);
            let class = *cache.classes.entry(version).or_insert(next);
            let named = Named {
                class,
                text,
                wildcard,
            };
            if let Some(release) = release {
                cache.releases.insert(release, named.clone());
            }
            named
        })
        .collect();
    cache
        .by_cut
        .insert(cut.identity(), (cut.clone(), n.clone()));
    n
}

/// A release's numbers joined by dots (`3.12.0`), as [`Version`]'s `Display` writes a plain
/// release.
fn release_text(release: &[u64]) -> String {
    let mut out = String::with_capacity(release.len() * 3);
    for (k, &n) in release.iter().enumerate() {
        if k > 0 {
            out.push('.');
        }
        // The digits, least significant first, then reversed into place.
        let mut digits = [0u8; 20];
        let mut len = 0;
        let mut rest = n;
        loop {
            if let Some(d) = digits.get_mut(len) {
                // (`rest % 10` is below 10.)
                *d = b'0' + (rest % 10) as u8;
            }
            len += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        for d in digits.iter().take(len).rev() {
            out.push(char::from(*d));
        }
    }
    out
}

/// The literals of `set`'s candidates, sorted as text: each version a cut of the set may
/// name (the first of equal versions, `3` before `3.0`, in the order of the cuts), and for a
/// plain release its wildcard (`3.9.*`).
#[cfg(test)]
fn literals(cache: &mut NamedCache, set: &VersionSet) -> Vec<Lit> {
    let mut lits = literals_unsorted(cache, set);
    sort_literals(&mut lits);
    lits
}

/// The literals of `set`'s candidates: each version a cut of the set may name (the first of
/// equal versions, `3` before `3.0`, in the order of the cuts), and for a plain release its
/// wildcard (`3.9.*`), in the order the cuts name them.
fn literals_unsorted(cache: &mut NamedCache, set: &VersionSet) -> Vec<Lit> {
    let mut seen: smallvec::SmallVec<[u32; 16]> = smallvec::SmallVec::new();
    let mut lits: Vec<Lit> = Vec::with_capacity(24);
    for cut in set.bounds() {
        for n in named(cache, cut).iter() {
            if seen.contains(&n.class) {
                continue;
            }
            seen.push(n.class);
            lits.extend(n.wildcard.iter().cloned());
            lits.push(n.text.clone());
        }
    }
    lits
}

/// Sorts the literals of [`literals_unsorted`] as text.
fn sort_literals(lits: &mut [Lit]) {
    lits.sort_unstable_by(|a, b| (&*a.text, a.wildcard).cmp(&(&*b.text, b.wildcard)));
}

/// The candidate comparisons for a set of `field` with literals `lits` ([`literals_unsorted`],
/// sorted): each field (for `python_full_version` also `python_version`) with each operator
/// and literal (the wildcards with `==` and `!=` only), and for an extended field `== ""` and
/// `!= ""`.
/// In the order of their text: the order of field name, operator and literal (the space and
/// the quote after each sort before every character of a name, an operator or a version).
fn candidates(field: Field, lits: &[Lit]) -> Vec<Spec<'_>> {
    let fields = fields_of(field);
    debug_assert!(fields.is_sorted_by_key(|f| f.name()));
    let mut specs: Vec<Spec<'_>> = Vec::with_capacity(fields.len() * OPS.len() * lits.len() + 2);
    for &f in fields {
        for op in OPS {
            let equality = matches!(op, O::Equal | O::NotEqual);
            if equality && f.is_extended() {
                specs.push((f, op, "", usize::MAX));
            }
            for lit in lits {
                if equality || !lit.wildcard {
                    specs.push((f, op, &lit.text, lit.id as usize));
                }
            }
        }
    }
    specs
}

impl Context {
    /// The shortest exact spelling of "`field`'s version (variable `var`) is in `set`"
    /// (`set` neither empty nor every value).
    pub(super) fn spell_versions(
        &mut self,
        var: Var,
        field: Field,
        set: &VersionSet,
    ) -> Result<Text, Error> {
        let derived = derived_single(field, set)
            .or_else(|| derived_pair(field, set))
            .or_else(|| derived_union(field, set))
            .or_else(|| derived_to_release(field, set))
            .or_else(|| derived_pre_release(field, set));
        if let Some(t) = derived {
            debug_assert_eq!(
                self.search_versions(var, field, set).ok().map(|s| s.s),
                Some(t.s.clone()),
                "{field:?} {set}"
            );
            return Ok(t);
        }
        self.search_versions(var, field, set)
    }

    /// [`spell_versions`](Self::spell_versions) by the search alone.
    fn search_versions(&mut self, var: Var, field: Field, set: &VersionSet) -> Result<Text, Error> {
        let mut lits = literals_unsorted(&mut self.named_cache, set);
        let mut no_single = false;
        if !field.is_extended() {
            match self.single_by_sets(field, set, &lits)? {
                FirstReading::Found(t) => return Ok(t),
                FirstReading::NoSingle => no_single = true,
                FirstReading::Unread => {}
            }
        }
        sort_literals(&mut lits);
        let specs = candidates(field, &lits);
        let order = cost_order(&specs);
        if !field.is_extended() {
            if let Some(t) = self.spell_by_sets(field, set, &specs, &order, no_single)? {
                return Ok(t);
            }
        }
        self.spell_by_diagrams(var, field, set, &specs, &order)
    }

    /// For a standard field, the answer of the search when a single comparison is exact
    /// (most labels), found as the search finds it ([`spell_by_sets`](Self::spell_by_sets),
    /// [`single_first`]) without listing and ordering every candidate: only the ones that
    /// search reads before the candidates it puts off (those `Ends` and `python_version`'s
    /// blocks rule out), cheapest first, a whole cost at a time, the best by text of the
    /// first cost at which one equals `set`. Else whether every one of them was read and
    /// none is exact ([`FirstReading::NoSingle`]: the whole search then need not read them
    /// again for a single answer) or one has no set (the whole search then decides, and meets
    /// the same).
    ///
    /// The loop is [`single_first`]'s, written again on purpose: handing it the short list
    /// (with its cost order, its table of meanings and the target as a shared set) cost 2 %
    /// more instructions on the lock-file markers than the dearer search this path saves.
    fn single_by_sets(
        &mut self,
        field: Field,
        set: &VersionSet,
        lits: &[Lit],
    ) -> Result<FirstReading, Error> {
        let ends = Ends::of(set);
        let python_versions = set.bounds().iter().all(bounds_python_versions);
        // (cost, candidate): those `spell_by_sets` reads first; inline for the usual few.
        let mut first: smallvec::SmallVec<[(usize, Spec<'_>); 32]> = smallvec::SmallVec::new();
        for &f in fields_of(field) {
            for op in OPS {
                let equality = matches!(op, O::Equal | O::NotEqual);
                for lit in lits {
                    if (!equality && lit.wildcard)
                        || put_off_by(f, op, lit.kind, ends, python_versions)
                    {
                        continue;
                    }
                    let spec = (f, op, &*lit.text, lit.id as usize);
                    first.push((spec_cost(f, op, &lit.text), spec));
                }
            }
        }
        // (Stable: of one cost, in the order of field name and operator, which is the order of
        // their texts.)
        first.sort_by_key(|&(cost, _)| cost);
        let mut best: Option<String> = None;
        // Whether a candidate with no set was left unread (`no_set_of_its_own`).
        let mut unread = false;
        let mut level = first.first().map(|&(cost, _)| cost);
        for &(cost, spec) in &first {
            if level != Some(cost) {
                if let Some(b) = best {
                    return Ok(FirstReading::Found(Text { s: b, or: false }));
                }
                level = Some(cost);
            }
            if no_set_of_its_own(spec.1, spec.2) {
                unread = true;
                continue;
            }
            let Some(m) = self
                .atom_set_cache
                .read(&mut self.cuts, &self.named_cache, spec)
            else {
                return Ok(FirstReading::Unread);
            };
            if *m == *set && usable(spec.2, m.is_empty() || m.is_full()) {
                let t = atom_text(spec.0, spec.1, spec.2);
                if best.as_ref().is_none_or(|b| better(&t, b)) {
                    best = Some(t);
                }
            }
        }
        Ok(match best {
            Some(s) => FirstReading::Found(Text { s, or: false }),
            // The whole search meets the candidates left unread (and reads them as diagrams).
            None if unread => FirstReading::Unread,
            None => FirstReading::NoSingle,
        })
    }

    /// [`spell_versions`](Self::spell_versions) with the comparisons read as diagrams.
    fn spell_by_diagrams(
        &mut self,
        var: Var,
        field: Field,
        set: &VersionSet,
        specs: &[Spec<'_>],
        order: &[(usize, usize)],
    ) -> Result<Text, Error> {
        let target = self.version_set(var, set)?;
        let single = single(
            &target,
            specs,
            order,
            |&(f, op, lit, _)| self.comparison(f, op, lit).map(Some),
            |m| m.is_true() || m.is_false(),
            |_| false,
        )?;
        match single {
            Single::Found(t) => Ok(t),
            Single::All(marks) => {
                let mut diagrams = Diagrams { ctx: self, var };
                rest(&mut diagrams, field, set, target, specs, marks)?
                    .ok_or_else(|| unprintable(field, set))
            }
            Single::Unread => Err(unprintable(field, set)),
        }
    }

    /// [`spell_versions`](Self::spell_versions) for a standard field, the comparisons read as
    /// sets, then as bit masks ([`Masks`]); `None` when a candidate has no set or the sets
    /// have too many cuts for a mask. `no_single`: [`single_by_sets`](Self::single_by_sets)
    /// read every candidate [`single_first`] would read first, and none is exact, so the
    /// search goes on past the single comparisons at once (reading the others as it needs
    /// them).
    fn spell_by_sets(
        &mut self,
        field: Field,
        set: &VersionSet,
        specs: &[Spec<'_>],
        order: &[(usize, usize)],
        no_single: bool,
    ) -> Result<Option<Text>, Error> {
        let (cache, cuts, named) = (&mut self.atom_set_cache, &mut self.cuts, &self.named_cache);
        let ends = Ends::of(set);
        // `python_version`'s sets are bounded by python versions only.
        let python_versions = set.bounds().iter().all(bounds_python_versions);
        let mut read = |spec: &Spec<'_>| Ok(cache.read(cuts, named, *spec));
        let target = Arc::new(set.clone());
        let first = if no_single {
            Err(Missing {
                marks: vec![None; specs.len()],
                later: Vec::new(),
            })
        } else {
            single_first(
                &target,
                specs,
                order,
                &mut read,
                |s| s.is_empty() || s.is_full(),
                |spec| put_off(spec, ends, python_versions),
            )?
        };
        let single = match first {
            Ok(answer) => answer,
            Err(mut missing) => {
                if let Some(t) =
                    pair_by_prefix(set, specs, order, &mut missing.marks, &mut read, true)?
                {
                    return Ok(Some(t));
                }
                read_the_rest(&target, specs, &mut read, missing)?
            }
        };
        let sets = match single {
            Single::Found(t) => return Ok(Some(t)),
            Single::All(sets) => sets,
            Single::Unread => return Ok(None),
        };
        let Some(mut masks) = Masks::new(std::iter::once(set).chain(sets.iter().map(|s| &**s)))
        else {
            return Ok(None);
        };
        let marks: Option<Vec<u128>> = sets.iter().map(|s| masks.mask(s)).collect();
        let (Some(marks), Some(target)) = (marks, masks.mask(set)) else {
            return Ok(None);
        };
        rest(&mut masks, field, set, target, specs, marks)
    }
}

/// Whether the derived spellings read labels of `field`: the standard version fields but
/// `python_version` (`python_full_version` with `python_version`'s candidates, and two read as
/// versions alone).
fn derives(field: Field) -> bool {
    matches!(
        field,
        Field::PythonFullVersion | Field::PlatformRelease | Field::ImplementationVersion
    )
}

/// Whether the derived spellings take a release as it is: one from `1` up (below it, `0.*`'s
/// versions start the domain, where other comparisons reach).
fn usual(release: &[u64]) -> bool {
    release.first().is_some_and(|&n| n != 0)
}

/// The search's answer for the labels a lock file is mostly made of, derived from their
/// cuts instead of searched for: a standard version field's `[V, ∞)` (`field >= "V"`),
/// `(-∞, V.dev0)` (`field < "V"`, `python_version < "V"` for a `python_full_version` label
/// where `V` has one or two numbers) and `(-∞, V.post0.dev0)` (`field <= "V"`), and for
/// `python_full_version` the `python_version` sets `[X.Y.dev0, ∞)`, `[X.Y.dev0,
/// X.Y+1.dev0)` and its complement (`python_version != "X.Y"`); `V` a release of epoch 0
/// whose first number is not 0, and every other label `None` (the search spells it).
///
/// Each is the single comparison the search finds ([`Context::single_by_sets`]): of the
/// candidates whose set is the label, the cheapest, the first by text of one cost. For
/// `[V, ∞)` that is `>= "V"` alone: no `>` starts just below a release (its pre-releases
/// lie between), and no `python_version` set has an end that is not the start of a
/// `python_version` block. For `(-∞, V.dev0)`, `<` excludes `V`'s pre-releases, so it ends
/// there, on `python_version` too where `V` has at most two numbers (cheaper by its shorter
/// name); `<=` ends above a version's post-releases' start, and costs more. That end is
/// `<= "V"`'s, which `< "V.post0"` (three more) alone shares. For
/// `[X.Y.dev0, ∞)`, `python_version >= "X.Y"` and `python_version > "X.Y-1"` (`> "X"` for
/// `X.1`) are the two cheapest, and the second is as cheap or cheaper only where `Y` is one
/// or a power of ten (`> "3"`, `> "3.9"`: the ties go to the text `>` makes first). And
/// `[X.Y.dev0, X.Y+1.dev0)` is `python_version == "X.Y"`, and everything else, the absent
/// value with it, `python_version != "X.Y"` (`"X"` for the block `X.0`).
///
/// Tested against the search on every label of those shapes over a grid of releases and
/// fields, and (in debug builds) on every label spelt this way, whichever test spells it.
fn derived_single(field: Field, set: &VersionSet) -> Option<Text> {
    if !derives(field) {
        return None;
    }
    let python = field == Field::PythonFullVersion;
    let text = |f: Field, op: O, release: &[u64]| {
        Some(Text {
            s: atom_text(f, op, &release_text(release)),
            or: false,
        })
    };
    let (lo, hi) = match set.bounds() {
        [lo, hi] => (lo, hi),
        // Every `python_version` but one: `python_version != "X.Y"`.
        [bottom, lo, hi, top] if python && *bottom == Cut::BOTTOM && *top == Cut::TOP => {
            let r = lo.epoch0_release()?;
            let next = match *r.as_slice() {
                [x] => [x, 1],
                [x, y] if y >= 1 => [x, y.checked_add(1)?],
                _ => return None,
            };
            let exact = usual(&r)
                && *lo == Cut::release_block_start(&r)
                && *hi == Cut::release_block_start(&next);
            return if exact {
                text(Field::PythonVersion, O::NotEqual, &r)
            } else {
                None
            };
        }
        _ => return None,
    };
    if *hi == Cut::TOP {
        let r = lo.epoch0_release()?;
        if !usual(&r) {
            return None;
        }
        if *lo == Cut::below(&Version::new(r.iter().copied())) {
            return text(field, O::GreaterThanEqual, &r);
        }
        if !python || *lo != Cut::release_block_start(&r) {
            return None;
        }
        return match *r.as_slice() {
            [_] => text(Field::PythonVersion, O::GreaterThanEqual, &r),
            [x, y] if y >= 1 => {
                let at = atom_text(Field::PythonVersion, O::GreaterThanEqual, &release_text(&r));
                let prev = if y == 1 {
                    release_text(&[x])
                } else {
                    release_text(&[x, y - 1])
                };
                let after = atom_text(Field::PythonVersion, O::GreaterThan, &prev);
                let s = if better(&after, &at) { after } else { at };
                Some(Text { s, or: false })
            }
            _ => None,
        };
    }
    if lo.is_versions_start() {
        let r = hi.epoch0_release()?;
        let f = if python && r.len() <= 2 {
            Field::PythonVersion
        } else {
            field
        };
        if usual(&r) && r.last() != Some(&0) && *hi == Cut::release_block_start(&r) {
            return text(f, O::LessThan, &r);
        }
        // `<= "V"`: `V` and its local labels, up to its post-releases.
        let end = Version::new(r.iter().copied())
            .with_post(Some(0))
            .with_dev(Some(0));
        return if usual(&r) && *hi == Cut::below(&end) {
            text(field, O::LessThanEqual, &r)
        } else {
            None
        };
    }
    let r = lo.epoch0_release()?;
    match *r.as_slice() {
        [x, y]
            if python
                && x >= 1
                && y >= 1
                && *lo == Cut::release_block_start(&r)
                && y.checked_add(1)
                    .is_some_and(|n| *hi == Cut::release_block_start(&[x, n])) =>
        {
            text(Field::PythonVersion, O::Equal, &r)
        }
        _ => None,
    }
}

/// The search's answer for the versions from a pre-release up or below it (`[3.13rc1, ∞)`,
/// `(-∞, 3.11a6.post0.dev0)`, `V` of epoch 0 with a release from `1` up and no local label):
/// `field >= "V"` and `field < "V"` (`<` of a pre-release holds the pre-releases below it).
/// `None` for every other label (the search spells it).
///
/// The candidates' literals are the versions the label's cut names
/// ([`Cut::candidate_versions`]): `V` itself and releases made of `V`'s release numbers, whose
/// comparisons end at a release's start, its first pre-release, its post-releases' start or
/// a block's, never just below a pre-release; of `V`'s, `>=` and `<` alone end just below it
/// (`>`, `<=` and `==` above its local labels). So that comparison is the only one equal to
/// the label.
///
/// Not a part of [`derived_pair`]'s and [`derived_union`]'s answers: their reasons are given
/// for the ends of releases.
fn derived_pre_release(field: Field, set: &VersionSet) -> Option<Text> {
    if !derives(field) {
        return None;
    }
    let (cut, op) = match set.bounds() {
        [lo, hi] if *hi == Cut::TOP => (lo, O::GreaterThanEqual),
        [lo, hi] if lo.is_versions_start() => (hi, O::LessThan),
        _ => return None,
    };
    if !cut.names_pre_release() {
        return None;
    }
    let Some(crate::cut::Point::Version(v)) = cut.least_point_above() else {
        return None;
    };
    (v.pre().is_some()
        && v.epoch() == 0
        && v.local().is_empty()
        && usual(v.release())
        && *cut == Cut::below(&v))
    .then(|| Text {
        s: atom_text(field, op, &v.to_string()),
        or: false,
    })
}

/// The search's answer for a label of one interval bounded on both sides whose two ends
/// [`derived_single`] spells apart (`[lo, ∞)` as `L`, `(-∞, hi)` as `U`): no single
/// comparison is that label, and the search's pair ([`pair_by_prefix`]) is `L and U`, but
/// for one tie. `None` for every other label (the search spells it).
///
/// `U` is a `<` (the label ends at a release's first pre-release): a label that ends where
/// `<=` ends may be one version, which `==` spells.
///
/// A pair is exact only if one of its two sets starts where the label does and one ends
/// where it does, each containing it; `L` and `U` are the cheapest sets of one interval that
/// do, and a `!=` set that does also keeps the versions below (or above) the label, which its
/// partner then holds. The one other set that does is the `python_version` block the label
/// starts (`[X.Y.dev0, X.Y+1.dev0)`, or `X.0`'s for `[X.dev0, …)`), where it holds the whole
/// label: `python_version == "X.Y"` costs what `python_version >= "X.Y"` costs and comes
/// before it among the candidates, so it takes `L`'s place where `L` costs no less. So does
/// the block ending where the label ends, in `U`'s place, where it is `X.0`'s (`== "3"`
/// against `< "3.1"`); any other costs as much as `U` at least, and comes after it.
/// Where the label is a block itself, a single comparison spells it: `None`.
///
/// Written `L and U`, the lower bound first, as [`pair_text`] writes a pair.
fn derived_pair(field: Field, set: &VersionSet) -> Option<Text> {
    let [lo, hi] = set.bounds() else {
        return None;
    };
    if *hi == Cut::TOP || *lo == Cut::BOTTOM || lo.is_versions_start() {
        return None;
    }
    // (`U` a `<`: a label ending where `<=` does may be one version, `==`'s.)
    let hi_release = hi.epoch0_release()?;
    if *hi != Cut::release_block_start(&hi_release) {
        return None;
    }
    let mut low = derived_single(field, &VersionSet::interval(lo.clone(), Cut::TOP))?;
    let mut high = derived_single(
        field,
        &VersionSet::interval(Cut::versions_start(), hi.clone()),
    )?;
    if field == Field::PythonFullVersion {
        // The block ending at `hi` = `X.1.dev0`, `X.0`'s, is cheaper than `U` by its
        // literal (`== "3"` against `< "3.1"`) where it holds the label.
        if let [x, 1] = *hi_release {
            if *lo >= Cut::release_block_start(&[x]) {
                high = Text {
                    s: atom_text(Field::PythonVersion, O::Equal, &release_text(&[x])),
                    or: false,
                };
            }
        }
        // The `python_version` block starting at `lo`, when `lo` starts one.
        let r = lo.epoch0_release()?;
        if *lo == Cut::release_block_start(&r) {
            // (For `X`, the block `X.0`, and all of `X.*`, which `== "X.*"` spells.)
            let (end, whole) = match *r.as_slice() {
                [x] => ([x, 1], Some([x.checked_add(1)?])),
                [x, y] => ([x, y.checked_add(1)?], None),
                _ => return None,
            };
            let end = Cut::release_block_start(&end);
            if *hi == end || whole.is_some_and(|w| *hi == Cut::release_block_start(&w)) {
                return None;
            }
            if *hi < end {
                let equal = atom_text(Field::PythonVersion, O::Equal, &release_text(&r));
                if super::score(&equal).0 <= super::score(&low.s).0 {
                    low = Text {
                        s: equal,
                        or: false,
                    };
                }
            }
        }
    }
    Some(join(&[low, high], " and "))
}

/// The search's answer for an interval and every version above another end (`[start, hi) ∪
/// [lo, ∞)`: `python_version < "3.11" or python_full_version >= "3.14"`), each part spelt by
/// [`derived_single`] (the first also by [`derived_pair`]) where it is, and where no
/// conjunction is the set: `None` otherwise.
///
/// No single comparison is such a set (of those with two intervals, only `!=`'s, which holds
/// the absent value). A conjunction that is the set holds every version above `lo`, so it is
/// made of comparisons reaching the top (`>`, `>=`, and `!=`, which leaves out a block, a
/// version, or a `python_version`'s versions), and one of them leaves out the versions just
/// below `lo`. Where `lo` is just below a release (`[3.14, ∞)`), no part a `!=` leaves out
/// ends there (they end at a block's first pre-release or above a version's local labels).
/// Where the interval starts at the versions' start and every release starts with 2 or more,
/// the conjunction would need a comparison holding every version and not the absent value,
/// and none of the candidates does (the nearest, `python_version >= "0"`, needs a cut
/// naming `1`). So the search's answer is its disjunction of the two parts ([`pieces_text`]):
/// each the first comparison inside the label that covers it (the cheapest that is that
/// part, first by text among equals, as [`derived_single`] answers), or where none does the
/// best pair whose conjunction is inside the label, which is then that part (as
/// [`derived_pair`] answers).
fn derived_union(field: Field, set: &VersionSet) -> Option<Text> {
    let [start, hi, lo, top] = set.bounds() else {
        return None;
    };
    if *top != Cut::TOP || *start == Cut::BOTTOM {
        return None;
    }
    let first = VersionSet::interval(start.clone(), hi.clone());
    let first = if start.is_versions_start() {
        for cut in [hi, lo] {
            if cut.epoch0_release()?.first().is_none_or(|&n| n < 2) {
                return None;
            }
        }
        derived_single(field, &first)?
    } else {
        let r = lo.epoch0_release()?;
        if *lo != Cut::below(&Version::new(r.iter().copied())) {
            return None;
        }
        derived_single(field, &first).or_else(|| derived_pair(field, &first))?
    };
    let above = derived_single(field, &VersionSet::interval(lo.clone(), Cut::TOP))?;
    Some(join(&[first, above], " or "))
}

/// The search's answer for an interval ending at a release itself, its pre-releases inside
/// (`[3.12, 3.13)`, as `not python_full_version >= "3.13"` leaves it): `field != "B" and
/// field <= "B"` for its end `B` (a release of epoch 0 from `1` up), after the spelling of its
/// start: none at the versions' start, `field >= "A"` at a release `A`, and for
/// `python_full_version` at the start of `python_version`'s block `X.Y` (or `X`):
/// `python_version == "X.Y"` where the interval ends inside that block, else (for `Y` from 3
/// up) `python_version >= "X.Y-1" and python_version != "X.Y-1"`. `None` for every other
/// label (the search spells it).
///
/// No single comparison ends where such an interval does (`<` ends below the release's
/// pre-releases, `<=` above its post-releases' start); of the candidates, `field >= "B"`
/// alone starts there and `field != "B"` alone leaves out the versions from there up to the
/// post-releases' start, so each conjunction that is the interval has `!=`, and then
/// `field <= "B"`, the only candidate that ends inside that gap; none is a pair but at the
/// versions' start, so the search's answer is [`rest`]'s greedy conjunction (or, at the
/// versions' start, its best pair). That conjunction adds every candidate containing the
/// interval, cheapest first, while it changes the conjunction, then drops first to last each
/// that the others make redundant: the two of `B` are never redundant, nor `>= "A"` (the only
/// candidate starting just below a release), and every `python_version` comparison added
/// before them (cheaper by its shorter name) is dropped. At a block's start the
/// `python_version` comparisons added first are what the search keeps: inside the block its
/// `==`, which makes every other `python_version` comparison containing the interval
/// redundant; past it the two of `X.Y-1` (the cheapest: `X.Y-1`'s text is as short as `X.Y`'s
/// or shorter, and `!=` and `>=` sort before `>`), which leave the later ones unchanged.
/// Written, as the search writes a conjunction, with `>=` and `==` first.
///
/// Tested against the search on every interval of these ends over a grid of releases, and (in
/// debug builds) on every label spelt this way.
fn derived_to_release(field: Field, set: &VersionSet) -> Option<Text> {
    if !derives(field) {
        return None;
    }
    let [lo, hi] = set.bounds() else {
        return None;
    };
    let b = hi.epoch0_release()?;
    if !usual(&b) || *hi != Cut::below(&Version::new(b.iter().copied())) {
        return None;
    }
    let b_text = release_text(&b);
    let mut parts: smallvec::SmallVec<[String; 4]> = smallvec::SmallVec::new();
    if !lo.is_versions_start() {
        let a = lo.epoch0_release()?;
        if !usual(&a) {
            return None;
        }
        if *lo == Cut::below(&Version::new(a.iter().copied())) {
            parts.push(atom_text(field, O::GreaterThanEqual, &release_text(&a)));
        } else if field == Field::PythonFullVersion && *lo == Cut::release_block_start(&a) {
            let end = match *a.as_slice() {
                [x] => [x, 1],
                [x, y] => [x, y.checked_add(1)?],
                _ => return None,
            };
            match *a.as_slice() {
                _ if *hi <= Cut::release_block_start(&end) => {
                    parts.push(atom_text(Field::PythonVersion, O::Equal, &release_text(&a)))
                }
                // (Not `X.2`: its start names `X` too, cheaper than `X.1`.)
                [x, y] if y >= 3 => {
                    let before = release_text(&[x, y - 1]);
                    parts.push(atom_text(
                        Field::PythonVersion,
                        O::GreaterThanEqual,
                        &before,
                    ));
                    parts.push(atom_text(Field::PythonVersion, O::NotEqual, &before));
                }
                _ => return None,
            }
        } else {
            return None;
        }
    }
    parts.push(atom_text(field, O::NotEqual, &b_text));
    parts.push(atom_text(field, O::LessThanEqual, &b_text));
    Some(Text {
        s: parts.join(" and "),
        or: false,
    })
}

/// [`rest`]'s answer for a label of one interval (`set`) when a pair of comparisons spells it,
/// found reading the candidates cheapest first and only as far as a pair costing no more than
/// the best one found could go: `None` when no pair is exact, or when a candidate read has no
/// set (the whole search then decides).
///
/// The same text as the whole search. No single comparison is exact (`marks` come from
/// [`single_first`]), so for one interval `rest`'s answer is the pair [`best_pair`] picks from
/// the candidates containing the target (its disjunction of intervals is that pair again, and
/// the greedy conjunction runs only when no pair is exact): of the pairs of least cost, the
/// first in the order of the cost-sorted list. Every such pair is among the candidates read
/// here: a candidate not read yet costs at least the one being read, and pairs with one that
/// costs at least that much or with one read, so once that sum, with the cheapest read set
/// that may be its partner, is above the best pair's cost, no pair to come is as cheap. Two
/// sets containing the target meet in exactly it only if the intervals of theirs around it
/// start and end where it does between them (checked first, from the bounds); two sets of one
/// interval each meet in exactly those intervals' overlap.
///
/// `standard`: the sets are those of a standard field's comparisons (`spec_version_set`'s).
/// For a target bounded on both sides, the reading then stops once no pair of a set starting
/// where the target does and one ending where it does can cost as little as the best pair:
/// no such set is the target on its interval around the target and more (its only
/// multi-interval sets, `!=`'s, hold the absent value and reach the top), so no other pair
/// is exact. Otherwise it stops once no pair of any two sets containing the target can.
fn pair_by_prefix(
    set: &VersionSet,
    specs: &[Spec<'_>],
    order: &[(usize, usize)],
    marks: &mut [Option<Arc<VersionSet>>],
    read: &mut impl FnMut(&Spec<'_>) -> Result<Option<Arc<VersionSet>>, Error>,
    standard: bool,
) -> Result<Option<Text>, Error> {
    let mut intervals = set.intervals();
    let (Some((lo, hi)), None) = (intervals.next(), intervals.next()) else {
        return Ok(None);
    };
    // A comparison's set whose interval around a target bounded on both sides is that
    // target is the target itself (its only multi-interval sets, `!=`'s, reach the absent
    // value and the top), which no candidate here is: each pair then joins one that starts
    // where the target does with one that ends where it does.
    let bounded = standard && *lo != Cut::BOTTOM && !lo.is_versions_start() && *hi != Cut::TOP;
    /// A candidate containing the target.
    struct Sup {
        spec: usize,
        cost: usize,
        set: Arc<VersionSet>,
        /// Of one interval.
        one: bool,
        /// Its interval around the target starts where the target does, ends where it does.
        starts: bool,
        ends: bool,
    }
    let mut sups: Vec<Sup> = Vec::new();
    // The places in `sups` of those that start where the target does, of those that end
    // where it does, and of those that do both: a pair is exact only if one of its two
    // starts there and one ends there, so each new one is paired only with those.
    let (mut starting, mut ending, mut both) = (Vec::new(), Vec::new(), Vec::new());
    // (cost, the pair's places in `sups`)
    let mut best: Option<(usize, usize, usize)> = None;
    // The least cost of the sets read that may pair with one not read yet: of every set read
    // that contains the target, or (`bounded`) of those that start or end where it does.
    let mut partner: Option<usize> = None;
    for &(cost, i) in order {
        // A pair with a candidate not read yet costs at least this one's cost and its
        // cheapest partner's, read (`partner`) or not (this cost again).
        let least = cost + partner.map_or(cost, |p| p.min(cost));
        if best.is_some_and(|(c, ..)| least > c) {
            break;
        }
        let (Some(spec), Some(slot)) = (specs.get(i), marks.get_mut(i)) else {
            continue;
        };
        let m = match slot {
            Some(m) => m.clone(),
            None => {
                let Some(m) = read(spec)? else {
                    return Ok(None);
                };
                *slot = Some(m.clone());
                m
            }
        };
        if !usable(spec.2, m.is_empty() || m.is_full()) {
            continue;
        }
        let Some((a, b)) = m.intervals().find(|&(a, b)| a <= lo && b >= hi) else {
            continue;
        };
        let sup = Sup {
            spec: i,
            cost,
            one: m.bounds().len() == 2,
            starts: a == lo,
            ends: b == hi,
            set: m,
        };
        debug_assert!(
            !(bounded && sup.starts && sup.ends),
            "{spec:?} is the target on its interval around it, and more"
        );
        if !bounded || sup.starts || sup.ends {
            partner = Some(partner.map_or(cost, |p| p.min(cost)));
        }
        let j = sups.len();
        let partners: &[usize] = match (sup.starts, sup.ends) {
            (true, true) => &[],
            (true, false) => &ending,
            (false, true) => &starting,
            (false, false) => &both,
        };
        // (In the order of `sups`, as the tie between pairs of one cost is decided.)
        let every = (sup.starts && sup.ends).then(|| (0..j).collect::<Vec<usize>>());
        for &k in every.as_deref().unwrap_or(partners) {
            let Some(x) = sups.get(k) else {
                continue;
            };
            let pair = x.cost + cost;
            if best.is_some_and(|(c, bk, bj)| pair > c || (pair == c && (bk, bj) < (k, j))) {
                continue;
            }
            let exact = (x.starts || sup.starts)
                && (x.ends || sup.ends)
                && ((x.one && sup.one) || x.set.intersection(&sup.set) == *set);
            if exact {
                best = Some((pair, k, j));
            }
        }
        if sup.starts {
            starting.push(j);
        }
        if sup.ends {
            ending.push(j);
        }
        if sup.starts && sup.ends {
            both.push(j);
        }
        sups.push(sup);
    }
    let Some((_, k, j)) = best else {
        return Ok(None);
    };
    let cand = |n: usize| {
        let &(field, op, lit, _) = specs.get(sups.get(n)?.spec)?;
        Some(Cand {
            field,
            op,
            lit,
            m: (),
            cost: 0,
        })
    };
    let (Some(x), Some(y)) = (cand(k), cand(j)) else {
        return Ok(None);
    };
    Ok(Some(pair_text(&x, &y)))
}

/// The candidates' (cost, index) pairs, cheapest first, of equal cost in the order of `specs`:
/// a counting sort, the costs being a few dozen small numbers (a comparison sort of the
/// hundred-odd candidates of a label cost more than the rest of a single comparison's search).
fn cost_order(specs: &[Spec<'_>]) -> Vec<(usize, usize)> {
    let costs: Vec<usize> = specs
        .iter()
        .map(|(f, op, lit, _)| spec_cost(*f, *op, lit))
        .collect();
    let (Some(&min), Some(&max)) = (costs.iter().min(), costs.iter().max()) else {
        return Vec::new();
    };
    // Where each cost's run starts, then (moving) where its next candidate goes.
    let mut start = vec![0usize; max - min + 2];
    for &c in &costs {
        if let Some(n) = start.get_mut(c - min + 1) {
            *n += 1;
        }
    }
    for k in 1..start.len() {
        let before = start.get(k - 1).copied().unwrap_or(0);
        if let Some(n) = start.get_mut(k) {
            *n += before;
        }
    }
    let mut order = vec![(0, 0); costs.len()];
    for (i, &c) in costs.iter().enumerate() {
        let Some(at) = start.get_mut(c - min) else {
            continue;
        };
        if let Some(slot) = order.get_mut(*at) {
            *slot = (c, i);
        }
        *at += 1;
    }
    order
}

/// The conjunction of two candidates, `x` before `y` in the search's order, the lower bound
/// first as people write ranges.
fn pair_text<M>(x: &Cand<'_, M>, y: &Cand<'_, M>) -> Text {
    let (lo, hi) = if y.opens() { (y, x) } else { (x, y) };
    let parts = [lo, hi].map(|c| Text {
        s: c.text(),
        or: false,
    });
    join(&parts, " and ")
}

/// The label has no spelling.
fn unprintable(field: Field, set: &VersionSet) -> Error {
    Error::new(ErrorKind::Unprintable {
        comparison: format!("{} in {set}", field.name()),
    })
}

/// Each candidate's `score(..).0`, from the lengths alone: `field op "literal"` (a version's
/// text and the empty literal need no escapes), two more for `>` and `<=`.
fn spec_cost(f: Field, op: O, lit: &str) -> usize {
    let odd = matches!(op, O::GreaterThan | O::LessThanEqual);
    f.name().len() + op.as_str().len() + lit.len() + 4 + if odd { 2 } else { 0 }
}

/// Whether a set holds the absent value, the least version (`0.dev0`) and the versions above
/// every cut: what decides, for the comparisons of a standard version field, whether one can
/// be a given set before it is read (`single` reads first the ones that can).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ends {
    absent: bool,
    top: bool,
    bottom: bool,
}

impl Ends {
    /// `set`'s ends.
    fn of(set: &VersionSet) -> Ends {
        let bounds = set.bounds();
        // The first interval holds the least version when it starts at or below it and
        // ends above it (it ends at the versions' start when it is the absent value alone).
        let bottom = match bounds {
            [a, b, ..] => (*a == Cut::BOTTOM || a.is_versions_start()) && !b.is_versions_start(),
            _ => false,
        };
        Ends {
            absent: bounds.first() == Some(&Cut::BOTTOM),
            top: bounds.last() == Some(&Cut::TOP),
            bottom,
        }
    }

    /// [`known`](Self::known) for a candidate, its literal read from its text.
    #[cfg(test)]
    fn of_comparison((field, op, lit, _): &Spec<'_>) -> Option<Ends> {
        Ends::known(*field, *op, LitKind::of(lit))
    }

    /// The ends of `field op "lit"`'s set (`spec_version_set`) when it is neither empty nor
    /// every value, known from the operator alone: only `!=` adds the absent value; the sets
    /// of `>`, `>=` and `!=` (and only theirs) reach past every cut, `python_version`'s too
    /// (the release block above a finite cut of epoch 0 is finite); and those of `<`, `<=`
    /// and `!=` (and only theirs) hold the least version, for a literal with a release
    /// number above 0 (above the least version, and its `python_version` block too). `None`
    /// where that is not sure: a literal with a local label (which some operators reject: no
    /// set), an epoch or a release of zeros (`0`, `0.dev0`, `0.*`: at the least version), and
    /// the extended fields (their sets are moved onto release-only versions).
    fn known(field: Field, op: O, lit: LitKind) -> Option<Ends> {
        (lit.plain && !lit.zeros && !field.is_extended()).then_some(Ends {
            absent: op == O::NotEqual,
            top: matches!(op, O::GreaterThan | O::GreaterThanEqual | O::NotEqual),
            bottom: matches!(op, O::LessThan | O::LessThanEqual | O::NotEqual),
        })
    }
}

/// What the rules for the candidates read first ([`put_off`], [`Ends`]) read of a literal's
/// text, read once per literal ([`Lit`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LitKind {
    /// It has a local label (`+`).
    local: bool,
    /// Neither a local label nor an epoch (`!`), and not empty.
    plain: bool,
    /// Its release numbers (the digits and dots it starts with) are all zeros.
    zeros: bool,
}

impl LitKind {
    /// `text`'s kind.
    fn of(text: &str) -> LitKind {
        let local = text.contains('+');
        let zeros = text
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .all(|c| c == '0' || c == '.');
        LitKind {
            local,
            plain: !local && !text.contains('!') && !text.is_empty(),
            zeros,
        }
    }
}

/// Whether the search reads `spec` only after the candidates that may be a single answer for
/// a label with ends `ends` (`python_versions`: whether every cut of the label bounds a
/// `python_version` block): a standard field's comparison whose ends differ, or a
/// `python_version` comparison for a label that is not made of its blocks, cannot be the label.
/// (A literal with a local label is read in order, as `Ends` leaves it: some operators give it
/// no set, and the search must meet that where it would have.)
fn put_off(spec: &Spec<'_>, ends: Ends, python_versions: bool) -> bool {
    put_off_by(spec.0, spec.1, LitKind::of(spec.2), ends, python_versions)
}

/// [`put_off`] from what it reads of the literal.
fn put_off_by(field: Field, op: O, lit: LitKind, ends: Ends, python_versions: bool) -> bool {
    (field == Field::PythonVersion && !python_versions && !lit.local)
        || Ends::known(field, op, lit).is_some_and(|e| e != ends)
}

/// What [`Context::single_by_sets`] finds: the answer; that no candidate it reads is exact
/// (it read them all); or that one has no set.
#[derive(Debug)]
enum FirstReading {
    Found(Text),
    NoSingle,
    Unread,
}

/// What the single comparisons give: the answer, or every candidate's meaning (in the order
/// of `specs`), or `Unread` when one has no meaning in this reading.
enum Single<M> {
    Found(Text),
    All(Vec<M>),
    Unread,
}

/// What [`single_first`] knows when no single comparison is the answer, before it reads the
/// candidates it put off: the meanings read so far (in the order of `specs`), and the
/// candidates put off.
struct Missing<M> {
    marks: Vec<Option<M>>,
    later: Vec<usize>,
}

/// Whether the search may use a candidate: a constant one only among the extended fields'
/// `== ""` and `!= ""` (the comparisons with a version literal leave out the constant ones).
fn usable(lit: &str, constant: bool) -> bool {
    lit.is_empty() || !constant
}

/// Whether a standard field's comparison with literal `lit` under `op` is one the sets leave
/// unread, as no specifier (a local label under an ordered operator: `< "1.0+abc"`), and one
/// that is never the only single comparison equal to a label: the translation reads it by
/// the literal's text (`spec-2026`'s rule for a literal that is no specifier), as false
/// under `<` and `>`, as the literal's version alone under `<=` and `>=` where the literal is
/// that version's own text (else an opaque comparison, which is no label of the version's
/// variable). That version alone is `== lit`'s set too, and `==` costs no more than `>=`
/// and less than `<=` (and sorts before `>=`), so where one of them is equal to a label,
/// `==` is the answer.
///
/// [`Context::single_by_sets`] passes them by, and finds the single comparison the whole
/// search finds (which reads them as diagrams); where it finds none, it leaves the label to
/// the whole search, as before.
fn no_set_of_its_own(op: O, lit: &str) -> bool {
    !matches!(op, O::Equal | O::NotEqual) && lit.contains('+')
}

/// A single atom equal to the set, when there is one, is the answer (the common case): the
/// best such atom by score. The candidates are read (`read`) cheapest first, a whole cost at
/// a time; the first cost at which one equals the target holds the answer (the best of them
/// by text), and the dearer ones are never read. A candidate `unequal` says cannot equal the
/// target (and can be read) is read only when no single atom is the answer, as the search
/// past them needs every meaning.
fn single<M: PartialEq>(
    target: &M,
    specs: &[Spec<'_>],
    order: &[(usize, usize)],
    mut read: impl FnMut(&Spec<'_>) -> Result<Option<M>, Error>,
    is_constant: impl Fn(&M) -> bool,
    unequal: impl Fn(&Spec<'_>) -> bool,
) -> Result<Single<M>, Error> {
    match single_first(target, specs, order, &mut read, is_constant, unequal)? {
        Ok(answer) => Ok(answer),
        Err(missing) => read_the_rest(target, specs, &mut read, missing),
    }
}

/// [`single`] up to the candidates it puts off: its answer when a single comparison is one
/// (or a candidate read has no meaning), else what is known without them.
fn single_first<M: PartialEq>(
    target: &M,
    specs: &[Spec<'_>],
    order: &[(usize, usize)],
    read: &mut impl FnMut(&Spec<'_>) -> Result<Option<M>, Error>,
    is_constant: impl Fn(&M) -> bool,
    unequal: impl Fn(&Spec<'_>) -> bool,
) -> Result<Result<Single<M>, Missing<M>>, Error> {
    let mut best: Option<Text> = None;
    let mut marks: Vec<Option<M>> = std::iter::repeat_with(|| None).take(specs.len()).collect();
    let mut later: Vec<usize> = Vec::new();
    let mut level = 0;
    while level < order.len() {
        let cost = order.get(level).map_or(0, |(c, _)| *c);
        let mut next = level;
        while let Some(&(c, i)) = order.get(next) {
            if c != cost {
                break;
            }
            next += 1;
            let Some(spec @ (f, op, lit, _)) = specs.get(i) else {
                continue;
            };
            if unequal(spec) {
                later.push(i);
                continue;
            }
            let Some(m) = read(spec)? else {
                return Ok(Ok(Single::Unread));
            };
            if m == *target && usable(lit, is_constant(&m)) {
                let t = atom_text(*f, *op, lit);
                debug_assert_eq!(spec_cost(*f, *op, lit), super::score(&t).0);
                if best.as_ref().is_none_or(|b| better(&t, &b.s)) {
                    best = Some(Text { s: t, or: false });
                }
            }
            if let Some(slot) = marks.get_mut(i) {
                *slot = Some(m);
            }
        }
        if let Some(b) = best {
            return Ok(Ok(Single::Found(b)));
        }
        level = next;
    }
    Ok(Err(Missing { marks, later }))
}

/// The end of [`single`]: the candidates put off read, then any other not read yet (in the
/// order of `specs`), every candidate's meaning (or `Unread` when one has none). None of them
/// is the target: the ones put off cannot be, and the others were read.
fn read_the_rest<M: PartialEq>(
    target: &M,
    specs: &[Spec<'_>],
    read: &mut impl FnMut(&Spec<'_>) -> Result<Option<M>, Error>,
    Missing { mut marks, later }: Missing<M>,
) -> Result<Single<M>, Error> {
    for i in later {
        let (Some(spec), Some(slot)) = (specs.get(i), marks.get_mut(i)) else {
            continue;
        };
        let Some(m) = read(spec)? else {
            return Ok(Single::Unread);
        };
        debug_assert!(m != *target, "{spec:?} was taken to differ from the target");
        *slot = Some(m);
    }
    for (spec, slot) in specs.iter().zip(marks.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        let Some(m) = read(spec)? else {
            return Ok(Single::Unread);
        };
        debug_assert!(m != *target, "{spec:?} was taken to differ from the target");
        *slot = Some(m);
    }
    Ok(marks
        .into_iter()
        .collect::<Option<Vec<M>>>()
        .map_or(Single::Unread, Single::All))
}

/// The search past the single comparisons, none of which equals `target` (`set`): with every
/// candidate's meaning (`marks`, in the order of `specs`), the best of a pair, a greedy
/// conjunction and a disjunction of intervals. `None` when a set has no meaning in `a`.
fn rest<A: Meanings>(
    a: &mut A,
    field: Field,
    set: &VersionSet,
    target: A::M,
    specs: &[Spec<'_>],
    marks: Vec<A::M>,
) -> Result<Option<Text>, Error> {
    let mut best: Option<Text> = None;
    let offer = |t: Text, best: &mut Option<Text>| {
        if best.as_ref().is_none_or(|b| better(&t.s, &b.s)) {
            *best = Some(t);
        }
    };
    // Shortest first (by score, then text): every list filtered from `atoms` below keeps this
    // order.
    let mut atoms: Vec<Cand<'_, A::M>> = specs
        .iter()
        .zip(marks)
        .filter(|((_, _, lit, _), m)| usable(lit, a.is_constant(m)))
        .map(|(&(field, op, lit, _), m)| Cand {
            field,
            op,
            lit,
            m,
            cost: spec_cost(field, op, lit),
        })
        .collect();
    // (`specs` is in the order of text: a stable sort by cost.)
    atoms.sort_by_key(|c| c.cost);
    // Conjunctions: atoms that contain the target.
    let mut sups: Vec<&Cand<'_, A::M>> = Vec::new();
    for c in &atoms {
        if a.implies(&target, &c.m)? {
            sups.push(c);
        }
    }
    // The best pair, when one is exact; else a greedy conjunction.
    let exact = |_: &mut A, m: &A::M| Ok(*m == target);
    match best_pair(a, &sups, exact)? {
        Some((_, t)) => offer(t, &mut best),
        None => {
            if let Some((_, t)) = greedy(a, &sups, exact)? {
                offer(t, &mut best);
            }
        }
    }
    // Disjunctions of intervals, each the shortest single atom or pair inside the target.
    let mut subs: Vec<&Cand<'_, A::M>> = Vec::new();
    for c in &atoms {
        if a.implies(&c.m, &target)? {
            subs.push(c);
        }
    }
    let intervals: Vec<VersionSet> = set
        .intervals()
        .map(|(lo, hi)| VersionSet::interval(lo.clone(), hi.clone()))
        .collect();
    match pieces_text(a, &target, &atoms, &subs, &intervals)? {
        Some(Some(t)) => offer(t, &mut best),
        Some(None) => {}
        None => return Ok(None),
    }
    if best.is_none() && field.is_extended() {
        // The absent value and the versions below some version make one interval, which no
        // comparison covers; an extended field says the absent value alone with `== ""`.
        // Last: a form found before is never replaced.
        let split: Vec<VersionSet> = intervals
            .iter()
            .flat_map(|piece| {
                let versions = piece.intersection(&VersionSet::versions());
                if versions.is_empty() || versions == *piece {
                    vec![piece.clone()]
                } else {
                    vec![VersionSet::absent(), versions]
                }
            })
            .collect();
        if split.len() > intervals.len() {
            match pieces_text(a, &target, &atoms, &subs, &split)? {
                Some(Some(t)) => offer(t, &mut best),
                Some(None) => {}
                None => return Ok(None),
            }
        }
    }
    best.map(Some).ok_or_else(|| unprintable(field, set))
}

/// The disjunction of `pieces` (parts of `target`, in order), each written as the first atom
/// of `subs` (atoms inside `target`) that covers it, or else as the conjunction of the atoms
/// that contain it, added in order while they change it, once it lies inside `target`; a
/// piece the ones before cover is left out. `None` when a piece has neither or the pieces do
/// not make up `target`; `Ok(None)` when a piece has no meaning in `a`.
fn pieces_text<A: Meanings>(
    a: &mut A,
    target: &A::M,
    atoms: &[Cand<'_, A::M>],
    subs: &[&Cand<'_, A::M>],
    pieces: &[VersionSet],
) -> Result<Option<Option<Text>>, Error> {
    let mut texts: Vec<Text> = Vec::new();
    let mut covered = a.constant(false);
    for piece in pieces {
        let Some(piece) = a.set(piece)? else {
            return Ok(None);
        };
        if a.implies(&piece, &covered)? {
            continue;
        }
        // A single atom inside the target covering the piece…
        let mut found = None;
        for c in subs {
            if a.implies(&piece, &c.m)? {
                found = Some(Text {
                    s: c.text(),
                    or: false,
                });
                covered = a.or(&covered, &c.m)?;
                break;
            }
        }
        if found.is_none() {
            // … or a conjunction of atoms containing the piece, inside the target: the best
            // pair, else a greedy conjunction.
            let mut containing: Vec<&Cand<'_, A::M>> = Vec::new();
            for c in atoms {
                if a.implies(&piece, &c.m)? {
                    containing.push(c);
                }
            }
            if let Some((m, t)) = best_pair(a, &containing, |a, m| a.implies(m, target))? {
                covered = a.or(&covered, &m)?;
                found = Some(t);
            } else if let Some((m, t)) = greedy(a, &containing, |a, m| a.implies(m, target))? {
                covered = a.or(&covered, &m)?;
                found = Some(t);
            }
        }
        match found {
            Some(t) => texts.push(t),
            None => return Ok(Some(None)),
        }
    }
    Ok(Some(
        (!texts.is_empty() && covered == *target).then(|| join(&texts, " or ")),
    ))
}

/// Of pairs of `atoms` (each containing what is wanted) whose conjunction `fits`, the one of
/// least cost, the first in order of equals: its conjunction and its text, the lower bound
/// first as people write ranges.
fn best_pair<A: Meanings>(
    a: &mut A,
    atoms: &[&Cand<'_, A::M>],
    mut fits: impl FnMut(&mut A, &A::M) -> Result<bool, Error>,
) -> Result<Option<(A::M, Text)>, Error> {
    let mut pair: Option<(usize, A::M, Text)> = None;
    for (i, x) in atoms.iter().enumerate() {
        for y in atoms.iter().skip(i + 1) {
            let cost = x.cost + y.cost;
            if pair.as_ref().is_some_and(|(c, ..)| *c <= cost) {
                // The later ones cost at least as much.
                break;
            }
            let both = a.and(&x.m, &y.m)?;
            if fits(a, &both)? {
                pair = Some((cost, both, pair_text(x, y)));
            }
        }
    }
    Ok(pair.map(|(_, m, t)| (m, t)))
}

/// The conjunction of atoms from `atoms` (each containing what is wanted), added in order when
/// they change it, until it `fits`; then each one the others make redundant (the rest still
/// fits) dropped, first to last, and the lower bounds written before the upper ones: its
/// conjunction and its text.
fn greedy<A: Meanings>(
    a: &mut A,
    atoms: &[&Cand<'_, A::M>],
    mut fits: impl FnMut(&mut A, &A::M) -> Result<bool, Error>,
) -> Result<Option<(A::M, Text)>, Error> {
    let mut acc = a.constant(true);
    let mut used: Vec<&Cand<'_, A::M>> = Vec::new();
    for &c in atoms {
        let next = a.and(&acc, &c.m)?;
        if next != acc {
            acc = next;
            used.push(c);
        }
        if fits(a, &acc)? {
            let mut i = 0;
            while i < used.len() && used.len() > 1 {
                let mut trial = a.constant(true);
                for (j, u) in used.iter().enumerate() {
                    if j != i {
                        trial = a.and(&trial, &u.m)?;
                    }
                }
                if fits(a, &trial)? {
                    used.remove(i);
                    acc = trial;
                } else {
                    i += 1;
                }
            }
            // Lower bounds before upper bounds, as people write ranges.
            used.sort_by_key(|c| !c.opens());
            let parts: Vec<Text> = used
                .iter()
                .map(|c| Text {
                    s: c.text(),
                    or: false,
                })
                .collect();
            return Ok(Some((acc, join(&parts, " and "))));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::{
        Ends, FirstReading, Single, Spec, bounds_python_versions, candidates, derived_pair,
        derived_pre_release, derived_single, derived_to_release, derived_union, literals,
        literals_unsorted, put_off, single_first, spec_version_set,
    };
    use crate::Context;
    use crate::cut::Cut;
    use crate::range::VersionSet;
    use markerspec_pep440::Version;
    use markerspec_pep508::Field;

    /// Standard version fields the search spells labels of: `python_full_version` (with
    /// `python_version`'s candidates), and two read as versions alone.
    const VERSION_FIELDS: [Field; 3] = [
        Field::PythonFullVersion,
        Field::PlatformRelease,
        Field::ImplementationVersion,
    ];

    /// Sets as markers make them: the comparisons of `python_version` and
    /// `python_full_version` with some versions (pre-, post- and dev-releases, a local label
    /// among them) and wildcards, and the intersections and unions of some of their pairs;
    /// then the sets between the cuts of a version with a local label.
    fn sets() -> Result<Vec<VersionSet>, markerspec_pep440::Error> {
        use crate::translate::spec_version_set;
        use markerspec_pep508::MarkerOperator as O;
        let mut atoms = Vec::new();
        for v in [
            "2.7",
            "3",
            "3.9.1",
            "3.11.0rc1",
            "3.12",
            "3.12.post1",
            "3.13.dev0",
            "1.0+abc",
        ] {
            for field in [Field::PythonVersion, Field::PythonFullVersion] {
                for op in super::OPS {
                    atoms.extend(spec_version_set(field, op, v));
                }
                for op in [O::Equal, O::NotEqual] {
                    atoms.extend(spec_version_set(field, op, &format!("{v}.*")));
                }
            }
        }
        let mut out = atoms.clone();
        for (i, a) in atoms.iter().enumerate() {
            for b in atoms.iter().skip(i + 1).step_by(5) {
                out.push(a.intersection(b));
                out.push(a.union(b));
            }
        }
        let v: markerspec_pep440::Version = "1.0+abc".parse()?;
        let local = [
            Cut::versions_start(),
            Cut::below(&v),
            Cut::above(&v),
            Cut::TOP,
        ];
        for (i, lo) in local.iter().enumerate() {
            for hi in local.iter().skip(i + 1) {
                out.push(VersionSet::interval(lo.clone(), hi.clone()));
            }
        }
        out.sort_by_cached_key(ToString::to_string);
        out.dedup();
        Ok(out)
    }

    /// Labels made of a version with a local label (the point, the versions but it with the
    /// absent value, the intervals between its cuts) spell as the whole search spells them
    /// when it reads every candidate as a diagram: the single comparisons' own path passes by
    /// the candidates with no set (`no_set_of_its_own`) and answers the labels a single
    /// comparison spells, among them the point and the `!=` set of every such version.
    #[test]
    fn labels_of_local_versions_spell_as_the_diagrams_spell_them()
    -> Result<(), Box<dyn std::error::Error>> {
        let mut answered = 0;
        for field in VERSION_FIELDS {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for text in [
                "1.0+abc",
                "1.0.1+abc",
                "13.0.11.post0+1",
                "1!7.3+abc",
                "14+ubuntu.1",
                "2.7.9rc1+x.ubuntu",
                "3.12.dev2+cuda12",
                "3.12.post1+1.2",
            ] {
                let v: markerspec_pep440::Version = text.parse()?;
                let cuts = [
                    Cut::versions_start(),
                    Cut::below(&v),
                    Cut::above(&v),
                    Cut::TOP,
                ];
                let point = VersionSet::interval(Cut::below(&v), Cut::above(&v));
                let mut labels = vec![point.complement(), point];
                for (i, lo) in cuts.iter().enumerate() {
                    for hi in cuts.iter().skip(i + 1) {
                        labels.push(VersionSet::interval(lo.clone(), hi.clone()));
                    }
                }
                for set in &labels {
                    if set.is_empty() || set.is_full() {
                        continue;
                    }
                    let unsorted = literals_unsorted(&mut ctx.named_cache, set);
                    let own = ctx.single_by_sets(field, set, &unsorted)?;
                    let lits = literals(&mut ctx.named_cache, set);
                    let specs: Vec<Spec<'_>> = candidates(field, &lits);
                    let order = super::cost_order(&specs);
                    let want = ctx
                        .spell_by_diagrams(var, field, set, &specs, &order)
                        .map(|t| (t.s, t.or))
                        .map_err(|e| e.code());
                    let got = ctx
                        .spell_versions(var, field, set)
                        .map(|t| (t.s, t.or))
                        .map_err(|e| e.code());
                    assert_eq!(got, want, "{field:?} in {set}");
                    if let FirstReading::Found(t) = own {
                        assert_eq!(Ok((t.s, t.or)), want, "{field:?} in {set}");
                        answered += 1;
                    }
                }
            }
        }
        // The point and the `!=` set of each of the eight versions, for each of the three
        // fields, at least.
        assert!(
            answered >= 48,
            "{answered} answered by the single comparisons"
        );
        Ok(())
    }

    /// The sets the speller reads keep the context's one copy of each cut (the comparisons
    /// of cuts, and the masks' bits, take equal copies as the same by their address first):
    /// after spelling labels of both version fields, every cut of every set read is the
    /// table's own.
    #[test]
    fn the_sets_read_share_the_contexts_cuts() -> Result<(), Box<dyn std::error::Error>> {
        let mut ctx = Context::new();
        let opts = markerspec_pep508::ParseOptions::default();
        for text in [
            "python_full_version >= '3.12'",
            "python_version >= '3.9' and python_version < '3.14'",
            "python_version == '2.7' or python_version == '3.4'",
        ] {
            let m = ctx.parse_marker(text, &opts, &mut Vec::new(), &crate::Theory::none())?;
            ctx.to_marker_string(m)?;
        }
        let mut checked = 0;
        for per_field in &ctx.atom_set_cache.sets {
            for (_, ops) in per_field {
                for set in ops.iter().flatten().flatten() {
                    for cut in set.bounds() {
                        let Some(own) = ctx.cuts.get(cut) else {
                            return Err(format!("{cut} is not in the table").into());
                        };
                        assert_eq!(own.identity(), cut.identity(), "{cut}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 50, "{checked}");
        Ok(())
    }

    /// A candidate read from its version has the set its text has: every literal the cuts of
    /// the test sets name (wildcards included), with every version field and operator, and
    /// the versions near the ends of the domain (local labels, epochs, the largest numbers)
    /// with each operator, with and without `.*`.
    #[test]
    fn candidates_read_from_their_versions_as_from_their_texts()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::translate::{spec_version_set, version_comparison_set};
        use markerspec_pep440::Version;
        use markerspec_pep508::MarkerOperator as O;
        let fields = [
            Field::PythonVersion,
            Field::PythonFullVersion,
            Field::ImplementationVersion,
            Field::PlatformRelease,
            Field::CudaVersion,
            Field::OsName,
        ];
        let mut named = super::NamedCache::default();
        for set in sets()? {
            literals(&mut named, &set);
        }
        let mut lits: Vec<(String, Version, bool)> = Vec::new();
        for (text, id) in &named.ids {
            let Some(Some((v, wildcard))) = named.versions.get(*id as usize) else {
                return Err(format!("{text}: no version").into());
            };
            lits.push((text.to_string(), v.clone(), *wildcard));
        }
        for v in crate::range::tests::edge_versions() {
            let version: Version = v.parse()?;
            lits.push((format!("{v}.*"), version.clone(), true));
            lits.push((v, version, false));
        }
        let (mut some, mut none) = (0, 0);
        for (text, version, wildcard) in &lits {
            for field in fields {
                for op in super::OPS.iter().copied().chain([O::TildeEqual, O::In]) {
                    let want = spec_version_set(field, op, text);
                    let got = version_comparison_set(field, op, version, *wildcard);
                    if got != want {
                        return Err(
                            format!("{field:?} {op:?} {text}: {got:?}, not {want:?}").into()
                        );
                    }
                    if got.is_some() {
                        some += 1;
                    } else {
                        none += 1;
                    }
                }
            }
        }
        assert!(some > 1_000 && none > 1_000, "{some} {none}");
        Ok(())
    }

    /// A comparison whose ends `Ends::of_comparison` knows has those ends (the absent value,
    /// the least version, the top), whenever its set is neither empty nor every value: over
    /// the literals of every test set, of versions with large numbers and of versions near the
    /// least one, each standard version field and operator.
    #[test]
    fn comparisons_have_the_ends_their_operator_gives() -> Result<(), Box<dyn std::error::Error>> {
        use super::Ends;
        use crate::translate::spec_version_set;
        let mut named = super::NamedCache::default();
        let mut lits: Vec<super::Lit> = Vec::new();
        for set in sets()? {
            lits.extend(literals(&mut named, &set));
        }
        for v in crate::range::tests::edge_versions() {
            lits.push(named.literal(v, false, None));
        }
        // Near the least version, `0.dev0`: a release of zeros has no known ends, the others
        // their operator's.
        for v in [
            "0.0", "0.0.dev1", "0a1", "0.1", "0.0.1", "0.1.dev0", "1", "1.0.dev0",
        ] {
            lits.push(named.literal(v.into(), false, None));
            lits.push(named.literal(format!("{v}.*"), true, None));
        }
        let (mut known, mut checked) = (0, 0);
        for field in [
            Field::PythonVersion,
            Field::PythonFullVersion,
            Field::ImplementationVersion,
            Field::PlatformRelease,
        ] {
            for spec in candidates(field, &lits) {
                let Some(ends) = Ends::of_comparison(&spec) else {
                    continue;
                };
                known += 1;
                let Some(set) = spec_version_set(spec.0, spec.1, spec.2) else {
                    continue;
                };
                if !set.is_empty() && !set.is_full() {
                    checked += 1;
                    assert_eq!(Ends::of(&set), ends, "{spec:?}: {set}");
                }
            }
        }
        assert!(
            known > 1000 && checked * 10 > known * 9,
            "{known} {checked}"
        );
        Ok(())
    }

    /// The search reads a standard field's comparisons as sets (bit masks past the single
    /// comparisons) and every other field's as diagrams: both give the same text, or both
    /// the same error, on thousands of sets (a bug in either changes some).
    #[test]
    fn sets_and_diagrams_spell_alike() -> Result<(), Box<dyn std::error::Error>> {
        let sets = sets()?;
        let (mut by_sets, mut errors, mut unread, mut skipped_singles) = (0, 0, 0, 0);
        for field in VERSION_FIELDS {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for set in &sets {
                if set.is_empty() || set.is_full() {
                    continue;
                }
                let lits = literals(&mut ctx.named_cache, set);
                let specs: Vec<Spec<'_>> = candidates(field, &lits);
                let order = super::cost_order(&specs);
                let read = ctx.spell_by_sets(field, set, &specs, &order, false);
                // Where the single comparisons' own path read every candidate the search
                // reads first and found none exact, the search going on past them at once
                // gives the same.
                let unsorted = literals_unsorted(&mut ctx.named_cache, set);
                if let FirstReading::NoSingle = ctx.single_by_sets(field, set, &unsorted)? {
                    let skipped = ctx.spell_by_sets(field, set, &specs, &order, true);
                    match (&read, &skipped) {
                        (Ok(a), Ok(b)) => assert_eq!(
                            a.as_ref().map(|t| (&t.s, t.or)),
                            b.as_ref().map(|t| (&t.s, t.or)),
                            "{field:?} in {set}"
                        ),
                        (Err(a), Err(b)) => assert_eq!(a.code(), b.code(), "{field:?} in {set}"),
                        _ => {
                            return Err(format!(
                                "{field:?} in {set}: {read:?} against {skipped:?}"
                            )
                            .into());
                        }
                    }
                    skipped_singles += 1;
                }
                let want = ctx.spell_by_diagrams(var, field, set, &specs, &order);
                match (read, want) {
                    (Ok(Some(t)), Ok(w)) => {
                        assert_eq!(t.s, w.s, "{field:?} in {set}");
                        assert_eq!(t.or, w.or, "{field:?} in {set}");
                        by_sets += 1;
                    }
                    (Err(e), Err(w)) => {
                        assert_eq!(e.code(), w.code(), "{field:?} in {set}");
                        errors += 1;
                    }
                    (Ok(None), _) => unread += 1,
                    (read, want) => {
                        return Err(format!("{field:?} in {set}: {read:?} against {want:?}").into());
                    }
                }
            }
        }
        // (A candidate with a local label under `<` has no set: those are unread.)
        assert!(
            by_sets > 1000 && errors > 10 && unread > 20 && skipped_singles > 100,
            "{by_sets} by sets, {errors} errors, {unread} unread, {skipped_singles} past the singles"
        );
        Ok(())
    }

    /// The single comparisons read on their own (`single_by_sets`) answer exactly where the
    /// whole search's first phase finds a single comparison, with its text; elsewhere they
    /// leave the label to the whole search.
    /// The spellings derived from a label's cuts (`derived_single`) are the search's, on
    /// every label of their shapes over a grid of releases (each shape with the numbers
    /// around the cases its rules tell apart: zeros, one, powers of ten) and fields, and on
    /// the shapes next to them (which it leaves to the search).
    /// Whether a spelling was derived for `set` (`derived`), after checking that it is the
    /// search's.
    fn as_searched(
        ctx: &mut Context,
        var: crate::dd::Var,
        field: Field,
        set: &VersionSet,
        derived: Option<super::Text>,
    ) -> Result<bool, crate::Error> {
        let Some(t) = derived else {
            return Ok(false);
        };
        let searched = ctx.search_versions(var, field, set)?;
        assert_eq!(
            (&t.s, t.or),
            (&searched.s, searched.or),
            "{field:?} in {set}"
        );
        Ok(true)
    }

    /// Each of `sets` but the empty and the full one, for each of `fields` (in a context of the
    /// field's own): whether `derive` answers for it, each answer checked against the search
    /// ([`as_searched`]). The counts of those it answers and of those it leaves to the search.
    fn tally(
        fields: &[Field],
        sets: &[VersionSet],
        derive: fn(Field, &VersionSet) -> Option<super::Text>,
    ) -> Result<(usize, usize), crate::Error> {
        let (mut derived, mut left) = (0, 0);
        for &field in fields {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for set in sets.iter().filter(|s| !s.is_empty() && !s.is_full()) {
                if as_searched(&mut ctx, var, field, set, derive(field, set))? {
                    derived += 1;
                } else {
                    left += 1;
                }
            }
        }
        Ok((derived, left))
    }

    /// Each rule of `derived_single` and `derived_pair` answers for the lock-file labels it is
    /// written for (the grids check the answers; this checks each rule answers at all).
    #[test]
    fn derived_spellings_answer_for_each_shape() -> Result<(), Box<dyn std::error::Error>> {
        let v = |s: &str| s.parse::<Version>();
        let block = |r: &[u64]| Cut::release_block_start(r);
        let start = Cut::versions_start;
        let up_to = |s: &str| -> Result<Cut, Box<dyn std::error::Error>> {
            Ok(Cut::below(&v(s)?.with_post(Some(0)).with_dev(Some(0))))
        };
        let pfv = Field::PythonFullVersion;
        let cases = [
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.12")?), Cut::TOP),
                r#"python_full_version >= "3.12""#,
            ),
            (
                Field::PlatformRelease,
                VersionSet::interval(Cut::below(&v("20")?), Cut::TOP),
                r#"platform_release >= "20""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), block(&[3, 14])),
                r#"python_version < "3.14""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), block(&[4])),
                r#"python_version < "4""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), block(&[3, 11, 3])),
                r#"python_full_version < "3.11.3""#,
            ),
            (
                Field::PlatformRelease,
                VersionSet::interval(start(), block(&[18])),
                r#"platform_release < "18""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), up_to("3.11")?),
                r#"python_full_version <= "3.11""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 12]), Cut::TOP),
                r#"python_version >= "3.12""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 10]), Cut::TOP),
                r#"python_version > "3.9""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 1]), Cut::TOP),
                r#"python_version > "3""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3]), Cut::TOP),
                r#"python_version >= "3""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 12]), block(&[3, 13])),
                r#"python_version == "3.12""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 12]), block(&[3, 13])).complement(),
                r#"python_version != "3.12""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3]), block(&[3, 1])).complement(),
                r#"python_version != "3""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.11")?), block(&[3, 14])),
                r#"python_full_version >= "3.11" and python_version < "3.14""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 10]), block(&[3, 14])),
                r#"python_version > "3.9" and python_version < "3.14""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.12")?), block(&[3, 12, 4])),
                r#"python_full_version >= "3.12" and python_full_version < "3.12.4""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 12]), block(&[3, 12, 4])),
                r#"python_version == "3.12" and python_full_version < "3.12.4""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.0.4")?), block(&[3, 1])),
                r#"python_full_version >= "3.0.4" and python_version == "3""#,
            ),
            (
                Field::PlatformRelease,
                VersionSet::interval(Cut::below(&v("9")?), block(&[18])),
                r#"platform_release >= "9" and platform_release < "18""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3]), block(&[3, 5])),
                r#"python_version >= "3" and python_version < "3.5""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), block(&[3, 11]))
                    .union(&VersionSet::interval(Cut::below(&v("3.14")?), Cut::TOP)),
                r#"python_version < "3.11" or python_full_version >= "3.14""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), block(&[2, 7]))
                    .union(&VersionSet::interval(block(&[3]), Cut::TOP)),
                r#"python_version < "2.7" or python_version >= "3""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.11")?), block(&[3, 12]))
                    .union(&VersionSet::interval(Cut::below(&v("3.13")?), Cut::TOP)),
                r#"python_full_version >= "3.11" and python_version < "3.12" or python_full_version >= "3.13""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), Cut::below(&v("3.11a6.post0.dev0")?)),
                r#"python_full_version < "3.11a6.post0.dev0""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.13rc1")?), Cut::TOP),
                r#"python_full_version >= "3.13rc1""#,
            ),
            (
                pfv,
                VersionSet::interval(start(), Cut::below(&v("3.13")?)),
                r#"python_full_version != "3.13" and python_full_version <= "3.13""#,
            ),
            (
                pfv,
                VersionSet::interval(Cut::below(&v("3.12")?), Cut::below(&v("3.13")?)),
                r#"python_full_version >= "3.12" and python_full_version != "3.13" and python_full_version <= "3.13""#,
            ),
            (
                Field::PlatformRelease,
                VersionSet::interval(Cut::below(&v("18")?), Cut::below(&v("20")?)),
                r#"platform_release >= "18" and platform_release != "20" and platform_release <= "20""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 12]), Cut::below(&v("3.13")?)),
                r#"python_version >= "3.11" and python_version != "3.11" and python_full_version != "3.13" and python_full_version <= "3.13""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3, 11]), Cut::below(&v("3.11")?)),
                r#"python_version == "3.11" and python_full_version != "3.11" and python_full_version <= "3.11""#,
            ),
            (
                pfv,
                VersionSet::interval(block(&[3]), Cut::below(&v("3")?)),
                r#"python_version == "3" and python_full_version != "3" and python_full_version <= "3""#,
            ),
        ];
        let mut ctx = Context::new();
        for (field, set, want) in cases {
            let got = derived_single(field, &set)
                .or_else(|| derived_pair(field, &set))
                .or_else(|| derived_union(field, &set))
                .or_else(|| derived_to_release(field, &set))
                .or_else(|| derived_pre_release(field, &set));
            assert_eq!(
                got.map(|t| t.s).as_deref(),
                Some(want),
                "{field:?} in {set}"
            );
            let var = ctx.version_var(field)?;
            assert_eq!(ctx.search_versions(var, field, &set)?.s, want);
        }
        // Left to the search: one version, an interval from `X.2`'s block up to a release
        // (`python_version == "3.*" and python_version != "3" and …`), all of `3.*`
        // (`python_version == "3.*"`), and two intervals below the top.
        for set in [
            VersionSet::interval(Cut::below(&v("3.12")?), up_to("3.12")?),
            VersionSet::interval(block(&[3, 2]), Cut::below(&v("3.13")?)),
            VersionSet::interval(block(&[3]), block(&[4])),
            VersionSet::interval(start(), block(&[3, 11]))
                .union(&VersionSet::interval(block(&[3, 12]), block(&[3, 13]))),
        ] {
            let got = derived_single(pfv, &set)
                .or_else(|| derived_pair(pfv, &set))
                .or_else(|| derived_union(pfv, &set))
                .or_else(|| derived_to_release(pfv, &set));
            assert!(got.is_none(), "{set}");
        }
        Ok(())
    }

    #[test]
    fn derived_spellings_are_the_searchs() -> Result<(), Box<dyn std::error::Error>> {
        let mut releases: Vec<Vec<u64>> = Vec::new();
        for x in [0, 1, 2, 3, 9, 10, 11] {
            releases.push(vec![x]);
            for y in [0, 1, 2, 9, 10, 11, 99, 100] {
                releases.push(vec![x, y]);
                for z in [0, 1, 10] {
                    releases.push(vec![x, y, z]);
                }
            }
        }
        let (mut derived, mut left) = (0, 0);
        for field in [
            Field::PythonFullVersion,
            Field::PlatformRelease,
            Field::ImplementationVersion,
            Field::PythonVersion,
        ] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for r in &releases {
                let v = Version::new(r.iter().copied());
                let block = Cut::release_block_start(r);
                let mut next = r.clone();
                if let Some(last) = next.last_mut() {
                    *last += 1;
                }
                let sets = [
                    VersionSet::interval(Cut::below(&v), Cut::TOP),
                    VersionSet::interval(Cut::above(&v), Cut::TOP),
                    VersionSet::interval(block.clone(), Cut::TOP),
                    VersionSet::interval(Cut::versions_start(), block.clone()),
                    VersionSet::interval(Cut::versions_start(), Cut::below(&v)),
                    VersionSet::interval(Cut::BOTTOM, block.clone()),
                    VersionSet::interval(block.clone(), Cut::release_block_start(&next)),
                    VersionSet::interval(Cut::below(&v), Cut::release_block_start(&next)),
                    VersionSet::interval(block.clone(), Cut::release_block_start(&next))
                        .complement(),
                    VersionSet::interval(
                        Cut::versions_start(),
                        Cut::below(&v.clone().with_post(Some(0)).with_dev(Some(0))),
                    ),
                    VersionSet::interval(Cut::versions_start(), Cut::above(&v)),
                ];
                for set in sets {
                    if set.is_empty() || set.is_full() {
                        continue;
                    }
                    let t = derived_single(field, &set);
                    if as_searched(&mut ctx, var, field, &set, t)? {
                        derived += 1;
                    } else {
                        left += 1;
                    }
                }
            }
        }
        // (Each shape answers for most releases of the three fields it reads.)
        assert!(
            derived > 800 && left > 900,
            "{derived} derived, {left} left"
        );
        Ok(())
    }

    /// The ends just below a pre-release (`[3.13rc1, ∞)`, `(-∞, 3.11a6.post0.dev0)`) spelt by
    /// `derived_pre_release` are the search's, over a grid of pre-releases (with post- and
    /// dev-releases of them) and the ends next to them, for the three fields it reads.
    #[test]
    fn derived_pre_release_ends_are_the_searchs() -> Result<(), Box<dyn std::error::Error>> {
        let mut versions: Vec<Version> = Vec::new();
        for release in ["0.1", "1", "2.7", "3.11", "3.13.0", "3.12.4", "10.0.1"] {
            for tail in [
                "a1",
                "b2",
                "rc1",
                "a6.post0.dev0",
                "rc1.dev0",
                "a1.post1",
                ".dev3",
                ".post2",
            ] {
                versions.push(format!("{release}{tail}").parse()?);
            }
            versions.push(format!("1!{release}rc1").parse()?);
        }
        let mut sets = Vec::new();
        for v in &versions {
            sets.extend([
                VersionSet::interval(Cut::below(v), Cut::TOP),
                VersionSet::interval(Cut::versions_start(), Cut::below(v)),
                VersionSet::interval(Cut::above(v), Cut::TOP),
                VersionSet::interval(Cut::versions_start(), Cut::above(v)),
                // (Bounded on both sides: left to the search.)
                VersionSet::interval(Cut::below(&Version::new([0, 1])), Cut::below(v)),
            ]);
        }
        let (derived, left) = tally(&VERSION_FIELDS, &sets, derived_pre_release)?;
        assert!(
            derived > 200 && left > 700,
            "{derived} derived, {left} left"
        );
        Ok(())
    }

    /// The unions derived from their two parts (`derived_union`) are the search's, on every
    /// set of the versions below one end and above another over a grid of releases (from 1,
    /// which it leaves to the search, up), for a `python_full_version` label and one read as
    /// versions alone.
    #[test]
    fn derived_unions_are_the_searchs() -> Result<(), Box<dyn std::error::Error>> {
        let mut releases: Vec<Vec<u64>> = Vec::new();
        for x in [1, 2, 3, 10] {
            releases.push(vec![x]);
            for y in [0, 1, 9, 10, 11] {
                releases.push(vec![x, y]);
                releases.push(vec![x, y, 4]);
            }
        }
        let (mut unions, mut left) = (0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for a in &releases {
                let v = Version::new(a.iter().copied());
                let up_to = Cut::below(&v.with_post(Some(0)).with_dev(Some(0)));
                for hi in [Cut::release_block_start(a), up_to] {
                    for b in &releases {
                        let w = Version::new(b.iter().copied());
                        for lo in [Cut::below(&w), Cut::release_block_start(b)] {
                            if lo <= hi {
                                continue;
                            }
                            let set = VersionSet::interval(Cut::versions_start(), hi.clone())
                                .union(&VersionSet::interval(lo, Cut::TOP));
                            let t = derived_union(field, &set);
                            if as_searched(&mut ctx, var, field, &set, t)? {
                                unions += 1;
                            } else {
                                left += 1;
                            }
                        }
                    }
                }
            }
        }
        // An interval from a release or a block's start, and the versions from a release or a
        // block's start up (left to the search: a `!=` may leave out the gap).
        let few: Vec<Vec<u64>> = [2, 3]
            .into_iter()
            .flat_map(|x| [vec![x], vec![x, 1], vec![x, 9], vec![x, 10], vec![x, 10, 4]])
            .collect();
        let (mut apart, mut near) = (0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for a in &few {
                let v = Version::new(a.iter().copied());
                for start in [Cut::below(&v), Cut::release_block_start(a)] {
                    for b in &few {
                        let hi = Cut::release_block_start(b);
                        for c in &few {
                            let w = Version::new(c.iter().copied());
                            for lo in [Cut::below(&w), Cut::release_block_start(c)] {
                                if hi <= start || lo <= hi {
                                    continue;
                                }
                                let set = VersionSet::interval(start.clone(), hi.clone())
                                    .union(&VersionSet::interval(lo, Cut::TOP));
                                let t = derived_union(field, &set);
                                if as_searched(&mut ctx, var, field, &set, t)? {
                                    apart += 1;
                                } else {
                                    near += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(
            unions > 500 && left > 100 && apart > 100 && near > 100,
            "{unions} and {apart} derived, {left} and {near} left"
        );
        Ok(())
    }

    /// The pairs derived from a label's two ends (`derived_pair`) are the search's, on every
    /// interval from a release or a `python_version` block's start to a block's start or a
    /// release's post-releases (where `<=` ends, left to the search) over a
    /// grid of releases (those around the cases its rules tell apart), for a
    /// `python_full_version` label and one read as versions alone.
    #[test]
    fn derived_pairs_are_the_searchs() -> Result<(), Box<dyn std::error::Error>> {
        let mut releases: Vec<Vec<u64>> = Vec::new();
        for x in [1, 2, 3, 10] {
            releases.push(vec![x]);
            for y in [0, 1, 2, 9, 10, 11, 99, 100] {
                releases.push(vec![x, y]);
                releases.push(vec![x, y, 4]);
            }
        }
        let (mut pairs, mut left) = (0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for a in &releases {
                let v = Version::new(a.iter().copied());
                for lo in [Cut::below(&v), Cut::release_block_start(a)] {
                    for b in &releases {
                        let w = Version::new(b.iter().copied());
                        let at_most = Cut::below(&w.with_post(Some(0)).with_dev(Some(0)));
                        for hi in [Cut::release_block_start(b), at_most] {
                            let set = VersionSet::interval(lo.clone(), hi);
                            if set.is_empty() || derived_single(field, &set).is_some() {
                                continue;
                            }
                            let t = derived_pair(field, &set);
                            if as_searched(&mut ctx, var, field, &set, t)? {
                                pairs += 1;
                            } else {
                                left += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(pairs > 300 && left > 100, "{pairs} derived, {left} left");
        Ok(())
    }

    /// The intervals ending at a release itself (`derived_to_release`) are the search's, on
    /// every interval from the versions' start, a release or a `python_version` block's start
    /// up to a release over a grid of releases (those around the cases its rules tell apart,
    /// and some from `0`, which it leaves to the search), for a `python_full_version` label
    /// and two read as versions alone.
    #[test]
    fn derived_intervals_to_a_release_are_the_searchs() -> Result<(), Box<dyn std::error::Error>> {
        let mut releases: Vec<Vec<u64>> = vec![vec![0], vec![0, 1], vec![0, 10, 4]];
        for x in [1, 2, 3, 10] {
            releases.push(vec![x]);
            for y in [0, 1, 2, 3, 9, 10, 11, 99, 100] {
                releases.push(vec![x, y]);
                releases.push(vec![x, y, 4]);
            }
        }
        let mut sets = Vec::new();
        for b in &releases {
            let hi = Cut::below(&Version::new(b.iter().copied()));
            let mut los = vec![Cut::versions_start()];
            for a in &releases {
                los.push(Cut::below(&Version::new(a.iter().copied())));
                los.push(Cut::release_block_start(a));
            }
            for lo in los {
                if lo < hi {
                    sets.push(VersionSet::interval(lo, hi.clone()));
                }
            }
        }
        let (derived, left) = tally(&VERSION_FIELDS, &sets, derived_to_release)?;
        assert!(
            derived > 9000 && left > 8000,
            "{derived} derived, {left} left"
        );
        Ok(())
    }

    #[test]
    fn singles_read_on_their_own_answer_as_the_whole_search()
    -> Result<(), Box<dyn std::error::Error>> {
        let sets = sets()?;
        let (mut answered, mut left, mut past_unread) = (0, 0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for set in &sets {
                if set.is_empty() || set.is_full() {
                    continue;
                }
                let lits = literals(&mut ctx.named_cache, set);
                let specs: Vec<Spec<'_>> = candidates(field, &lits);
                let order = super::cost_order(&specs);
                let mut read = |spec: &Spec<'_>| Ok(spec_version_set(spec.0, spec.1, spec.2));
                let ends = Ends::of(set);
                let python_versions = set.bounds().iter().all(bounds_python_versions);
                let whole = single_first(
                    set,
                    &specs,
                    &order,
                    &mut read,
                    |s| s.is_empty() || s.is_full(),
                    |spec| put_off(spec, ends, python_versions),
                )?;
                let unsorted = literals_unsorted(&mut ctx.named_cache, set);
                let own = ctx.single_by_sets(field, set, &unsorted)?;
                match (whole, own) {
                    (Ok(Single::Found(w)), FirstReading::Found(t)) => {
                        assert_eq!(t.s, w.s, "{field:?} in {set}");
                        assert!(!t.or, "{field:?} in {set}");
                        answered += 1;
                    }
                    (Err(_), FirstReading::NoSingle)
                    | (Ok(Single::Unread), FirstReading::Unread) => left += 1,
                    // A candidate with no set (a local label under an ordered operator) sends
                    // the whole search to the diagrams, where the single comparison found
                    // passing it by is the answer too.
                    (Ok(Single::Unread), FirstReading::Found(t)) => {
                        let w = ctx.spell_by_diagrams(var, field, set, &specs, &order)?;
                        assert_eq!((&t.s, t.or), (&w.s, w.or), "{field:?} in {set}");
                        past_unread += 1;
                    }
                    (w, t) => {
                        let w = match w {
                            Ok(Single::Found(w)) => w.s,
                            Ok(Single::Unread) => "unread".into(),
                            Ok(Single::All(_)) | Err(_) => "no single".into(),
                        };
                        return Err(format!("{field:?} in {set}: {t:?} against {w}").into());
                    }
                }
            }
        }
        assert!(
            answered > 100 && left > 500 && past_unread >= 4,
            "{answered} answered, {left} left, {past_unread} past a candidate with no set"
        );
        Ok(())
    }

    /// The pair search over the cheapest candidates gives the whole search's text for every
    /// label of one interval that no single comparison spells and a pair does (the ones it
    /// answers), and answers most of them.
    #[test]
    fn pairs_read_cheapest_first_spell_as_the_whole_search()
    -> Result<(), Box<dyn std::error::Error>> {
        let sets = sets()?;
        let (mut answered, mut passed) = (0, 0);
        for field in [Field::PythonFullVersion, Field::PlatformRelease] {
            let mut ctx = Context::new();
            let var = ctx.version_var(field)?;
            for set in &sets {
                if set.is_empty() || set.is_full() || set.intervals().nth(1).is_some() {
                    continue;
                }
                let lits = literals(&mut ctx.named_cache, set);
                let specs: Vec<Spec<'_>> = candidates(field, &lits);
                let target = std::sync::Arc::new(set.clone());
                let mut marks: Vec<Option<std::sync::Arc<VersionSet>>> = vec![None; specs.len()];
                let mut read = |spec: &Spec<'_>| {
                    Ok(crate::translate::spec_version_set(spec.0, spec.1, spec.2)
                        .map(std::sync::Arc::new))
                };
                // Only labels no single comparison spells reach the pair search.
                let single = specs.iter().any(|spec| {
                    crate::translate::spec_version_set(spec.0, spec.1, spec.2)
                        .is_some_and(|m| m == *target)
                });
                if single {
                    continue;
                }
                let order = super::cost_order(&specs);
                let Some(t) =
                    super::pair_by_prefix(set, &specs, &order, &mut marks, &mut read, true)?
                else {
                    passed += 1;
                    continue;
                };
                let want = ctx.spell_by_diagrams(var, field, set, &specs, &order)?;
                assert_eq!(t.s, want.s, "{field:?} in {set}");
                assert!(!t.or && !want.or, "{field:?} in {set}");
                answered += 1;
            }
        }
        assert!(
            answered > 100 && answered > passed,
            "{answered} answered, {passed} passed on"
        );
        Ok(())
    }

    /// A plain release's text is the one `Version` displays, numbers of every width included.
    #[test]
    fn release_texts_are_the_versions_own() -> Result<(), Box<dyn std::error::Error>> {
        for text in [
            "0",
            "3",
            "3.12",
            "3.12.0",
            "10.0.19041",
            "2026.11.30",
            "18446744073709551615.1",
        ] {
            let v: markerspec_pep440::Version = text.parse()?;
            assert_eq!(super::release_text(v.release()), v.to_string(), "{text}");
        }
        Ok(())
    }

    /// The versions a cut names are the same whether the context met its releases before
    /// (named from the table of releases) or not: their texts, wildcards and literal ids, and
    /// which of them are one class, for cuts that share releases and cuts of other shapes.
    #[test]
    fn named_versions_do_not_depend_on_the_releases_met_before()
    -> Result<(), Box<dyn std::error::Error>> {
        let mut cuts = Vec::new();
        for text in [
            "3",
            "3.0",
            "3.12",
            "3.12.0",
            "3.12.4",
            "3.11.9",
            "3.12rc1",
            "3.12.post2",
            "1!3.12",
            "3.12.dev0",
            "3.12+abc",
            "10.0.19041",
            "0.1",
        ] {
            let v: markerspec_pep440::Version = text.parse()?;
            cuts.push(Cut::below(&v));
            cuts.push(Cut::above(&v));
        }
        let mut shared = super::NamedCache::default();
        let mut from_table = 0;
        for cut in &cuts {
            let before = shared.releases.len();
            let met = super::named(&mut shared, cut);
            let mut fresh = super::NamedCache::default();
            let alone = super::named(&mut fresh, cut);
            let texts = |n: &[super::Named]| -> Vec<(String, Option<String>)> {
                n.iter()
                    .map(|n| {
                        (
                            n.text.text.to_string(),
                            n.wildcard.as_ref().map(|w| w.text.to_string()),
                        )
                    })
                    .collect()
            };
            assert_eq!(texts(&met), texts(&alone), "{cut}");
            let same_class = |n: &[super::Named]| -> Vec<bool> {
                n.iter()
                    .flat_map(|a| n.iter().map(move |b| a.class == b.class))
                    .collect()
            };
            assert_eq!(same_class(&met), same_class(&alone), "{cut}");
            // The shared context's ids are those of the texts it holds.
            for n in met.iter() {
                assert_eq!(
                    shared.ids.get(&n.text.text).copied(),
                    Some(n.text.id),
                    "{cut}"
                );
            }
            if shared.releases.len() < before + met.len() {
                from_table += 1;
            }
        }
        assert!(
            from_table > 10,
            "{from_table} cuts named some release from the table"
        );
        Ok(())
    }

    /// For a standard field's target bounded on both sides, the pair search stops reading once
    /// no set that starts or ends where the target does can pair cheaply enough: the same pair,
    /// fewer candidates read than when any set containing the target may be a partner.
    #[test]
    fn bounded_targets_stop_at_the_partners_that_can_complete_a_pair()
    -> Result<(), Box<dyn std::error::Error>> {
        use markerspec_pep508::MarkerOperator as O;
        let set = spec_version_set(Field::PythonFullVersion, O::GreaterThanEqual, "3.9")
            .ok_or("no set")?
            .intersection(
                &spec_version_set(Field::PythonVersion, O::LessThan, "3.14").ok_or("no set")?,
            );
        let mut ctx = Context::new();
        let lits = literals(&mut ctx.named_cache, &set);
        let specs: Vec<Spec<'_>> = candidates(Field::PythonFullVersion, &lits);
        let order = super::cost_order(&specs);
        let search =
            |standard: bool| -> Result<(Option<String>, usize), Box<dyn std::error::Error>> {
                let mut reads = 0;
                let mut marks = vec![None; specs.len()];
                let mut read = |spec: &Spec<'_>| {
                    reads += 1;
                    Ok(spec_version_set(spec.0, spec.1, spec.2).map(std::sync::Arc::new))
                };
                let t =
                    super::pair_by_prefix(&set, &specs, &order, &mut marks, &mut read, standard)?;
                Ok((t.map(|t| t.s), reads))
            };
        let (bounded, read_bounded) = search(true)?;
        let (any, read_any) = search(false)?;
        assert_eq!(
            bounded.as_deref(),
            Some(r#"python_full_version >= "3.9" and python_version < "3.14""#)
        );
        assert_eq!(bounded, any);
        assert!(
            read_bounded < read_any,
            "{read_bounded} read against {read_any}"
        );
        Ok(())
    }

    /// The pair search's own choices, on candidates given sets of their own (`pair_by_prefix`
    /// reads the sets it is given, whatever the texts say): it keeps reading past the first
    /// exact pair while a cheaper or an equally cheap, earlier pair can follow, compares pairs
    /// by the sum of their costs, and needs one set to start where the target does and one to
    /// end where it does; as a standard field's sets, it reads on while a set to come can pair
    /// with the cheapest read set that starts or ends where the target does.
    #[test]
    fn the_pair_search_reads_as_far_as_a_better_pair_can_follow()
    -> Result<(), Box<dyn std::error::Error>> {
        use crate::error::Error;
        use markerspec_pep508::MarkerOperator as O;
        use std::sync::Arc;
        let cut = |v: &str| -> Result<Cut, markerspec_pep440::Error> {
            Ok(Cut::below(&v.parse::<markerspec_pep440::Version>()?))
        };
        let iv = |a: &str, b: &str| -> Result<VersionSet, markerspec_pep440::Error> {
            Ok(VersionSet::interval(cut(a)?, cut(b)?))
        };
        let target = iv("3", "5")?;
        // (spec, its set): the spec's text gives its cost (`python_version` is 14 characters,
        // so `<` with a literal of one character costs 20), its set is the one given.
        let run = |cands: Vec<(Spec<'static>, VersionSet)>,
                   standard: bool|
         -> Result<Option<String>, Error> {
            let specs: Vec<Spec<'static>> = cands.iter().map(|(s, _)| *s).collect();
            let mut marks = vec![None; specs.len()];
            let mut read = |spec: &Spec<'_>| {
                Ok(cands
                    .iter()
                    .find(|(s, _)| s.2 == spec.2)
                    .map(|(_, m)| Arc::new(m.clone())))
            };
            let order = super::cost_order(&specs);
            Ok(
                super::pair_by_prefix(&target, &specs, &order, &mut marks, &mut read, standard)?
                    .map(|t| t.s),
            )
        };
        let pv = Field::PythonVersion;
        // Starts where the target does but also holds [8, 9); the same extra piece in `a`, so
        // that `x` and `a` meet in more than the target.
        let x = iv("3", "6")?.union(&iv("8", "9")?);
        let a = iv("2", "5")?.union(&iv("8", "9")?);
        let (b, c) = (iv("3", "7")?, iv("1", "5")?);
        // (the candidates with their sets, the pair expected)
        type Case = (Vec<(Spec<'static>, VersionSet)>, Option<&'static str>);
        let cases: [Case; 6] = [
            // A pair found first, (a, b) at 25 + 25, and a cheaper one after it, (x, c) at
            // 20 + 26; the cheapest candidate, `x`, last in the list (the search reads by cost).
            (
                vec![
                    ((pv, O::GreaterThanEqual, "1.0.0", 1), a.clone()),
                    ((pv, O::Equal, "1.0.1", 2), b.clone()),
                    ((pv, O::NotEqual, "1.0.02", 3), c.clone()),
                    ((pv, O::LessThan, "1", 0), x.clone()),
                ],
                Some(r#"python_version < "1" and python_version != "1.0.02""#),
            ),
            // Pairs of equal cost: (b, a) at 25 + 25 found first, (x, c) at 20 + 30 after it
            // and first in order, so it is the answer.
            (
                vec![
                    ((pv, O::LessThan, "2", 0), x.clone()),
                    ((pv, O::GreaterThanEqual, "2.0.0", 1), b.clone()),
                    ((pv, O::Equal, "2.0.1", 2), a.clone()),
                    ((pv, O::NotEqual, "2.0.0.0.00", 3), c.clone()),
                ],
                Some(r#"python_version < "2" and python_version != "2.0.0.0.00""#),
            ),
            // The cheaper sum, 25 + 26, against 20 + 32 (whose product is the smaller).
            (
                vec![
                    ((pv, O::LessThan, "3", 0), x.clone()),
                    ((pv, O::GreaterThanEqual, "3.0.0", 1), b.clone()),
                    ((pv, O::NotEqual, "3.0.01", 2), a.clone()),
                    ((pv, O::NotEqual, "3.0.0.0.0.00", 3), c.clone()),
                ],
                Some(r#"python_version >= "3.0.0" and python_version != "3.0.01""#),
            ),
            // No set ends where the target does: no pair.
            (
                vec![
                    ((pv, O::LessThan, "4", 0), iv("3", "6")?),
                    ((pv, O::GreaterThanEqual, "4.0.0", 1), b.clone()),
                ],
                None,
            ),
            // A set that starts and ends where the target does, with a piece more (read
            // second), pairs with any set that takes that piece away: here one that does
            // neither (read first).
            (
                vec![
                    ((pv, O::LessThan, "5", 0), iv("1", "7")?),
                    (
                        (pv, O::GreaterThanEqual, "5.0.0", 1),
                        target.union(&iv("8", "9")?),
                    ),
                ],
                Some(r#"python_version >= "5.0.0" and python_version < "5""#),
            ),
            // The same, read the other way round.
            (
                vec![
                    (
                        (pv, O::GreaterThanEqual, "6", 0),
                        target.union(&iv("8", "9")?),
                    ),
                    ((pv, O::LessThan, "6.0.0", 1), iv("1", "7")?),
                ],
                Some(r#"python_version >= "6" and python_version < "6.0.0""#),
            ),
        ];
        for (cands, want) in cases {
            assert_eq!(run(cands, false)?.as_deref(), want);
        }
        // As a standard field's sets (the target is bounded on both sides), the reading goes
        // on while a set not read yet can pair with the cheapest read one that starts where
        // the target does: (x, d) at 20 + 25 comes after (e, f) at 21 + 25.
        let x = iv("3", "6")?.union(&iv("8", "9")?);
        let e = iv("3", "7")?;
        let f = iv("1", "5")?.union(&iv("8", "9")?);
        let d = iv("2", "5")?;
        let cands = vec![
            ((pv, O::LessThan, "1", 0), x),
            ((pv, O::LessThan, "11", 1), e),
            ((pv, O::LessThan, "1.0.00", 2), f),
            ((pv, O::LessThan, "1.0.01", 3), d),
        ];
        assert_eq!(
            run(cands, true)?.as_deref(),
            Some(r#"python_version < "1" and python_version < "1.0.01""#)
        );
        Ok(())
    }

    /// Labels print as people write them: wildcards where exact and short (not for a version
    /// with an epoch), `python_version` where it says the same, the pair of bounds, the
    /// disjunction of intervals.
    #[test]
    fn labels_print_as_people_write_them() -> Result<(), Box<dyn std::error::Error>> {
        use crate::Theory;
        use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        let mut ctx = Context::new();
        for (input, want) in [
            (
                "python_full_version == '3.11.*'",
                r#"python_version == "3.11""#,
            ),
            (
                "python_full_version != '3.11.*'",
                r#"python_version != "3.11""#,
            ),
            (
                "python_full_version >= '3.9.2' and python_full_version < '3.10'",
                r#"python_full_version >= "3.9.2" and python_version < "3.10""#,
            ),
            (
                "python_full_version < '3.8' or python_full_version >= '3.11'",
                r#"python_version < "3.8" or python_full_version >= "3.11""#,
            ),
            (
                "python_full_version == '1!2.*'",
                r#"python_version == "1!2.*""#,
            ),
            (
                "python_full_version > '3.12.post1'",
                r#"python_full_version >= "3.12.post2.dev0""#,
            ),
            (
                "python_full_version >= '3.13.0rc1' and python_full_version < '3.14'",
                r#"python_full_version >= "3.13rc1" and python_version < "3.14""#,
            ),
            ("python_version <= '3.9'", r#"python_version < "3.10""#),
            (
                "implementation_version == '3.12.*'",
                r#"implementation_version == "3.12.*""#,
            ),
            (
                "platform_release >= '5.15' and platform_release < '6'",
                r#"platform_release >= "5.15" and platform_release < "6""#,
            ),
            (
                "cuda_version >= '12' and cuda_version < '13'",
                r#"cuda_version == "12.*""#,
            ),
            // No pair is exact: the greedy conjunction, lower bounds first.
            (
                "python_full_version >= '3.9' and python_full_version != '3.10.1' and python_full_version < '3.12'",
                r#"python_full_version >= "3.9" and python_version < "3.12" and python_full_version != "3.10.1""#,
            ),
            (
                "python_full_version > '3.8' and python_full_version != '3.9.0' and python_full_version <= '3.11'",
                r#"python_full_version > "3.8" and python_full_version != "3.9" and python_full_version <= "3.11""#,
            ),
            (
                "platform_release >= '5' and platform_release != '5.4' and platform_release < '6'",
                r#"platform_release >= "5" and platform_release < "6" and platform_release != "5.4""#,
            ),
            // An interval no single comparison inside the set covers: the best pair.
            (
                "python_full_version < '3.8' or python_full_version >= '3.9' and python_full_version < '3.10'",
                r#"python_version < "3.8" or python_full_version >= "3.9" and python_version < "3.10""#,
            ),
            (
                "python_version == '2.7' or python_version >= '3.5' and python_version < '3.8'",
                r#"python_version == "2.7" or python_version >= "3.5" and python_version < "3.8""#,
            ),
            // An extended field's absent value beside the versions below or above some
            // version: written apart.
            (
                "cuda_version == '' or cuda_version < '12'",
                r#"cuda_version == "" or cuda_version < "12""#,
            ),
            (
                "cuda_version == '' or cuda_version >= '12'",
                r#"cuda_version == "" or cuda_version >= "12""#,
            ),
            // Two intervals: their disjunction.
            (
                "python_version >= '3.9' and python_full_version != '3.10.*' and python_version < '3.12'",
                r#"python_version == "3.9" or python_version == "3.11""#,
            ),
        ] {
            let tree = MarkerTree::parse_with(input, &opts, &mut Vec::new())?;
            let m = ctx.from_marker(&tree, &Theory::none())?;
            assert_eq!(ctx.to_marker_string(m)?, want, "{input}");
        }
        Ok(())
    }

    /// The counting sort orders the candidates as a sort by cost and then by place would.
    #[test]
    fn the_cost_order_is_by_cost_then_place() -> Result<(), Box<dyn std::error::Error>> {
        let mut named = super::NamedCache::default();
        let mut checked = 0;
        for set in sets()?.iter().take(300) {
            for field in [Field::PythonFullVersion, Field::CudaVersion] {
                let lits = literals(&mut named, set);
                let specs = candidates(field, &lits);
                let mut want: Vec<(usize, usize)> = specs
                    .iter()
                    .enumerate()
                    .map(|(i, &(f, op, lit, _))| (super::spec_cost(f, op, lit), i))
                    .collect();
                want.sort_unstable();
                assert_eq!(super::cost_order(&specs), want, "{field:?} in {set}");
                checked += usize::from(want.len() > 20 && want.first() != want.last());
            }
        }
        assert!(checked > 300, "{checked}");
        assert!(super::cost_order(&[]).is_empty());
        Ok(())
    }

    /// The candidates are in the order of their text, which the search's order of equal
    /// costs relies on.
    #[test]
    fn candidates_are_in_text_order() -> Result<(), Box<dyn std::error::Error>> {
        let mut named = super::NamedCache::default();
        for set in sets()?.iter().take(400) {
            for field in [Field::PythonFullVersion, Field::CudaVersion] {
                let lits = literals(&mut named, set);
                let texts: Vec<String> = candidates(field, &lits)
                    .iter()
                    .map(|&(f, op, lit, _)| super::atom_text(f, op, lit))
                    .collect();
                assert!(texts.is_sorted(), "{field:?} in {set}: {texts:?}");
            }
        }
        Ok(())
    }
}
