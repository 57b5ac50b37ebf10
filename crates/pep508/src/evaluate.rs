//! Evaluation: the type rules per comparison under a behaviour profile, Kleene logic over the
//! tree.
//!
//! Every comparison of a tree is evaluated, even where the result is already decided, so a
//! comparison that is undefined (`E002`) is reported whatever the environment, as
//! pypa/packaging does.

use std::fmt;

use crate::environment::Environment;
use crate::error::{Error, ErrorKind, Span};
use crate::field::Field;
use crate::marker::{MarkerExpression, MarkerTree};

/// A three-valued truth: the marker holds, does not hold, or cannot be decided because some
/// field's value is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Truth {
    /// The marker holds.
    True,
    /// The marker does not hold.
    False,
    /// The marker's result depends on values that are unknown.
    Unknown,
}

impl Truth {
    /// Kleene conjunction.
    #[must_use]
    pub fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }

    /// Kleene disjunction.
    #[must_use]
    pub fn or(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }
}

impl std::ops::Not for Truth {
    type Output = Truth;
    /// Kleene negation: Unknown stays Unknown.
    fn not(self) -> Truth {
        match self {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        }
    }
}

impl From<bool> for Truth {
    fn from(b: bool) -> Truth {
        if b { Truth::True } else { Truth::False }
    }
}

impl fmt::Display for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Truth::True => "true",
            Truth::False => "false",
            Truth::Unknown => "unknown",
        })
    }
}

/// A set of fields, as a bit set over [`Field::ALL`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FieldSet(u64);

impl FieldSet {
    /// The empty set.
    pub const EMPTY: FieldSet = FieldSet(0);

    /// A set of one field.
    pub fn single(f: Field) -> FieldSet {
        FieldSet(1 << f.index())
    }

    /// Adds a field.
    pub fn insert(&mut self, f: Field) {
        self.0 |= 1 << f.index();
    }

    /// Whether the field is in the set.
    pub fn contains(self, f: Field) -> bool {
        self.0 & (1 << f.index()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets.
    #[must_use]
    pub fn union(self, other: FieldSet) -> FieldSet {
        FieldSet(self.0 | other.0)
    }

    /// The fields in registry order.
    pub fn iter(self) -> impl Iterator<Item = Field> {
        Field::ALL
            .iter()
            .copied()
            .filter(move |f| self.contains(*f))
    }
}

impl fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|f| f.name()))
            .finish()
    }
}

impl FromIterator<Field> for FieldSet {
    fn from_iter<I: IntoIterator<Item = Field>>(iter: I) -> FieldSet {
        let mut s = FieldSet::EMPTY;
        for f in iter {
            s.insert(f);
        }
        s
    }
}

/// The result of a three-valued evaluation: the truth, and when it is [`Truth::Unknown`], the
/// fields whose unknown values made it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Evaluation {
    /// The truth value.
    pub truth: Truth,
    /// The fields responsible for an unknown result (empty unless `truth` is Unknown).
    pub unknown: FieldSet,
}

/// The evaluator's working form of an [`Evaluation`], packed in one word so that results travel
/// in registers: the low bits are the unknown fields, the top two bits the truth.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tri(u64);

const TRUTH_SHIFT: u32 = 62;
const FIELDS_MASK: u64 = (1 << TRUTH_SHIFT) - 1;
const T_FALSE: u64 = 0;
const T_TRUE: u64 = 1 << TRUTH_SHIFT;
const T_UNKNOWN: u64 = 2 << TRUTH_SHIFT;

impl Tri {
    #[inline]
    pub(crate) fn known(b: bool) -> Tri {
        Tri(if b { T_TRUE } else { T_FALSE })
    }

    #[inline]
    pub(crate) fn unknown(f: Field) -> Tri {
        Tri(T_UNKNOWN | FieldSet::single(f).0)
    }

    #[inline]
    fn truth_bits(self) -> u64 {
        self.0 & !FIELDS_MASK
    }

    /// Kleene conjunction, keeping the unknown fields of an unknown result.
    #[inline]
    fn and(self, other: Tri) -> Tri {
        match (self.truth_bits(), other.truth_bits()) {
            (T_FALSE, _) | (_, T_FALSE) => Tri(T_FALSE),
            (T_TRUE, T_TRUE) => Tri(T_TRUE),
            _ => Tri(T_UNKNOWN | ((self.0 | other.0) & FIELDS_MASK)),
        }
    }

    /// Kleene disjunction, keeping the unknown fields of an unknown result.
    #[inline]
    fn or(self, other: Tri) -> Tri {
        match (self.truth_bits(), other.truth_bits()) {
            (T_TRUE, _) | (_, T_TRUE) => Tri(T_TRUE),
            (T_FALSE, T_FALSE) => Tri(T_FALSE),
            _ => Tri(T_UNKNOWN | ((self.0 | other.0) & FIELDS_MASK)),
        }
    }

    fn evaluation(self) -> Evaluation {
        let truth = match self.truth_bits() {
            T_TRUE => Truth::True,
            T_FALSE => Truth::False,
            _ => Truth::Unknown,
        };
        Evaluation {
            truth,
            unknown: if truth == Truth::Unknown {
                FieldSet(self.0 & FIELDS_MASK)
            } else {
                FieldSet::EMPTY
            },
        }
    }
}

/// What to do with an Unknown result when a plain `bool` is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownPolicy {
    /// Return an error (`E004`) naming the unknown fields. The default: nobody installs or
    /// skips a package on a guess without saying so.
    #[default]
    Error,
    /// Treat Unknown as false (skip the dependency).
    False,
    /// Treat Unknown as true (install the dependency).
    True,
}

/// Which behaviour to follow where implementations of the standard differ.
///
/// Profiles change only the standard fields; the extended fields behave the same in every
/// profile. Parsing takes a profile too (see [`ParseOptions::profile`](crate::ParseOptions)),
/// because the profiles accept different inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Profile {
    /// The living "Dependency specifiers" specification (2026 text), read as an installer:
    /// `in`/`not in` on a `Version` field is false, `~=`/`===` on a string mean `==`, ordered
    /// comparisons on strings are `==` (`<=`, `>=`) or false (`<`, `>`), `extra` defines only
    /// `==`/`!=` (anything else is false), a comparison must have exactly one variable, and a
    /// value missing from the environment is Unknown.
    #[default]
    #[cfg_attr(feature = "serde", serde(rename = "spec-2026"))]
    Spec2026,
    /// What pypa/packaging 26.x does, quirks included: substring `in` on versions,
    /// `UndefinedComparison` errors (`E002`) for `~=`/`===` on strings, a trailing `+` in
    /// `python_full_version` repaired to `+local`, a literal on the left looked up by the
    /// right-hand text, missing values are errors (`E001`).
    #[cfg_attr(feature = "serde", serde(rename = "packaging"))]
    Packaging,
    /// What uv-pep508 0.0.98 accepts and how it evaluates: a comparison it cannot interpret
    /// (an invalid version, `extra` with an ordering operator, two literals, two fields, `~=`
    /// on a string, …) is dropped from its `and`/`or` chain with a warning (a marker left with
    /// nothing is true), `===` is not a marker operator, version fields compare release numbers
    /// only with `python_version` read as a `python_full_version` range, `in`/`not in` on a
    /// version field test a whitespace-separated list of versions, and a value missing from
    /// the environment is Unknown. Printed forms differ (uv prints its simplified form); only
    /// acceptance and results are reproduced.
    #[cfg_attr(feature = "serde", serde(rename = "uv"))]
    Uv,
}

impl Profile {
    /// Every profile.
    pub const ALL: &'static [Profile] = &[Profile::Spec2026, Profile::Packaging, Profile::Uv];

    /// The profile's name: `spec-2026`, `packaging`, `uv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Spec2026 => "spec-2026",
            Profile::Packaging => "packaging",
            Profile::Uv => "uv",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Profile::ALL
            .iter()
            .copied()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown profile `{s}`, expected `spec-2026`, `packaging` or `uv`")
            })
    }
}

/// How to evaluate: the profile and what to do with an Unknown result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct EvalOptions {
    /// The behaviour profile. Default: [`Profile::Spec2026`].
    pub profile: Profile,
    /// What a plain-`bool` evaluation does with Unknown. Default: [`UnknownPolicy::Error`].
    pub unknown: UnknownPolicy,
}

impl EvalOptions {
    /// Sets the profile.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Sets the Unknown policy.
    #[must_use]
    pub fn unknown(mut self, policy: UnknownPolicy) -> Self {
        self.unknown = policy;
        self
    }
}

impl MarkerTree {
    /// Evaluates the marker to a `bool` under the `spec-2026` profile; an unknown result is an
    /// error (`E004`).
    ///
    /// # Errors
    /// `E001` when (under the `packaging` profile) the environment lacks a field the marker
    /// reads, `E002` for an undefined comparison, `E003` for `extras`/`dependency_groups`
    /// outside a lock-file context (`packaging` profile), `E004` when the result is unknown.
    #[inline]
    pub fn evaluate(&self, env: &Environment) -> Result<bool, Error> {
        self.evaluate_with(env, EvalOptions::default())
    }

    /// Evaluates the marker to a `bool` with `options`.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`]; `E004` only under [`UnknownPolicy::Error`].
    #[inline]
    pub fn evaluate_with(&self, env: &Environment, options: EvalOptions) -> Result<bool, Error> {
        let tri = match self {
            MarkerTree::Expression(e) => e.eval(env, options.profile),
            tree => eval_node(tree, env, options.profile),
        }
        .map_err(|f| f.into_error())?;
        match (tri.truth_bits(), options.unknown) {
            (T_TRUE, _) | (T_UNKNOWN, UnknownPolicy::True) => Ok(true),
            (T_FALSE, _) | (T_UNKNOWN, UnknownPolicy::False) => Ok(false),
            _ => Err(self.unknown_error(tri.evaluation())),
        }
    }

    #[cold]
    fn unknown_error(&self, e: Evaluation) -> Error {
        // The whole marker, as far as the parsed comparisons tell.
        let exprs = self.expressions();
        let start = exprs.iter().map(|e| e.span.start).min().unwrap_or(0);
        let end = exprs.iter().map(|e| e.span.end).max().unwrap_or(0);
        Error::new(
            ErrorKind::UnknownResult {
                fields: e.unknown.iter().collect(),
            },
            Span::new(start, end),
            "",
        )
    }

    /// Evaluates the marker with three values under the `spec-2026` profile (Kleene logic:
    /// `False and Unknown` is False, `True or Unknown` is True).
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate_tristate(&self, env: &Environment) -> Result<Evaluation, Error> {
        self.evaluate_tristate_with(env, Profile::Spec2026)
    }

    /// Evaluates the marker with three values under `profile`.
    ///
    /// Under [`Profile::Packaging`] every comparison is evaluated, even once the result is
    /// decided, so that an undefined comparison is reported whatever the environment, as
    /// pypa/packaging does. Under [`Profile::Spec2026`] a marker parsed with that profile
    /// cannot fail to evaluate, and evaluation stops once the result is decided; nor can one
    /// parsed with [`Profile::Uv`]. The set of unknown fields never depends on evaluation
    /// order.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate_tristate_with(
        &self,
        env: &Environment,
        profile: Profile,
    ) -> Result<Evaluation, Error> {
        eval_tree(self, env, profile)
    }
}

impl MarkerExpression {
    /// Evaluates this one comparison with three values under `profile`.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate(&self, env: &Environment, profile: Profile) -> Result<Evaluation, Error> {
        self.eval(env, profile)
            .map(Tri::evaluation)
            .map_err(|f| f.into_error())
    }

    /// One comparison. The match tests only for the default profile, as it did when there
    /// were two, so that `eval_node`'s loop is specialised for it as before; the others are
    /// dispatched out of line.
    #[inline(always)]
    fn eval(&self, env: &Environment, profile: Profile) -> Result<Tri, Box<Failure>> {
        let r = match profile {
            Profile::Spec2026 => crate::compare::spec2026(self, env),
            Profile::Packaging | Profile::Uv => crate::compare::other(self, env, profile),
        };
        r.map_err(|kind| Failure::new(kind, self.span))
    }
}

/// An evaluation error on its way up the tree, boxed so that results stay in registers.
struct Failure {
    kind: Box<ErrorKind>,
    span: Span,
}

impl Failure {
    #[cold]
    fn new(kind: Box<ErrorKind>, span: Span) -> Box<Failure> {
        Box::new(Failure { kind, span })
    }

    #[cold]
    fn into_error(self) -> Error {
        Error::new(*self.kind, self.span, "")
    }
}

fn eval_tree(tree: &MarkerTree, env: &Environment, profile: Profile) -> Result<Evaluation, Error> {
    eval_node(tree, env, profile)
        .map(Tri::evaluation)
        .map_err(|f| f.into_error())
}

fn eval_node(tree: &MarkerTree, env: &Environment, profile: Profile) -> Result<Tri, Box<Failure>> {
    let (children, is_and) = match tree {
        MarkerTree::Expression(e) => return e.eval(env, profile),
        MarkerTree::And(c) => (c, true),
        MarkerTree::Or(c) => (c, false),
    };
    // Under spec-2026 a marker parsed with spec-2026 cannot fail to evaluate, so evaluation
    // stops as soon as an operand decides the result (Kleene logic makes the unknown fields
    // of an unknown result the same either way). Under packaging every comparison is
    // evaluated, so that an undefined one is reported whatever the others decide; so is every
    // comparison under uv, which gives the same result as stopping early (a marker parsed
    // with uv cannot fail to evaluate either).
    let short_circuit = profile == Profile::Spec2026;
    let decisive = Tri::known(!is_and);
    let combine = |acc: Tri, r: Tri| if is_and { acc.and(r) } else { acc.or(r) };
    let mut acc = Tri::known(is_and);
    // `extra == "…"` is the cheapest comparison and, since most installs request no extra,
    // the one that most often decides an `and`: under spec-2026 try those first. Kleene
    // logic is commutative, so the order changes neither the result nor its unknown fields.
    let is_extra = |c: &MarkerTree| matches!(c, MarkerTree::Expression(e) if matches!(e.fast, crate::compare::Fast::Extra { .. }));
    if short_circuit && children.len() > 1 {
        for c in children.iter().filter(|c| is_extra(c)) {
            if let MarkerTree::Expression(e) = c {
                let r = e.eval(env, profile)?;
                if r == decisive {
                    return Ok(decisive);
                }
                acc = combine(acc, r);
            }
        }
    }
    for c in children {
        if short_circuit && children.len() > 1 && is_extra(c) {
            continue;
        }
        let r = match c {
            MarkerTree::Expression(e) => e.eval(env, profile)?,
            c => eval_node(c, env, profile)?,
        };
        if short_circuit && r == decisive {
            return Ok(decisive);
        }
        acc = combine(acc, r);
    }
    Ok(acc)
}
