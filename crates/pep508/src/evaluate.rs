//! Evaluation: the 2026 type rules per comparison, Kleene logic over the tree.
//!
//! Every comparison of a tree is evaluated, even where the result is already decided, so a
//! comparison that is undefined (`E002`) is reported whatever the environment, as
//! pypa/packaging does.

use std::fmt;

use markerspec_pep440::{Operator, VersionSpecifier};

use crate::environment::{EnvValue, Environment};
use crate::error::{Error, ErrorKind, Span, WarningKind};
use crate::field::{Dialect, Field, FieldType};
use crate::marker::{MarkerExpression, MarkerOperator, MarkerTree, MarkerValue};
use crate::name::normalize_name;

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

impl Evaluation {
    fn known(b: bool) -> Evaluation {
        Evaluation {
            truth: b.into(),
            unknown: FieldSet::EMPTY,
        }
    }

    fn unknown(f: Field) -> Evaluation {
        Evaluation {
            truth: Truth::Unknown,
            unknown: FieldSet::single(f),
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

impl MarkerTree {
    /// Evaluates the marker to a `bool`; an unknown result is an error (`E004`).
    ///
    /// # Errors
    /// `E001` when the environment lacks a standard field the marker reads, `E002` for an
    /// undefined comparison, `E003` for `extras`/`dependency_groups` outside a lock-file
    /// context, `E004` when the result is unknown.
    pub fn evaluate(&self, env: &Environment) -> Result<bool, Error> {
        self.evaluate_with_policy(env, UnknownPolicy::Error)
    }

    /// Evaluates the marker to a `bool`, mapping an unknown result with `policy`.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], except that `E004` is only returned by
    /// [`UnknownPolicy::Error`].
    pub fn evaluate_with_policy(
        &self,
        env: &Environment,
        policy: UnknownPolicy,
    ) -> Result<bool, Error> {
        let e = self.evaluate_tristate(env)?;
        match (e.truth, policy) {
            (Truth::True, _) | (Truth::Unknown, UnknownPolicy::True) => Ok(true),
            (Truth::False, _) | (Truth::Unknown, UnknownPolicy::False) => Ok(false),
            (Truth::Unknown, UnknownPolicy::Error) => Err(Error::new(
                ErrorKind::UnknownResult {
                    fields: e.unknown.iter().collect(),
                },
                Span::default(),
                "",
            )),
        }
    }

    /// Evaluates the marker with three values (Kleene logic): `False and Unknown` is False,
    /// `True or Unknown` is True.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate_tristate(&self, env: &Environment) -> Result<Evaluation, Error> {
        eval_tree(self, env)
    }
}

impl MarkerExpression {
    /// Evaluates this one comparison with three values.
    ///
    /// # Errors
    /// As [`MarkerTree::evaluate`], without `E004`.
    pub fn evaluate(&self, env: &Environment) -> Result<Evaluation, Error> {
        eval_expression(self, env).map_err(|kind| Error::new(kind, self.span, ""))
    }
}

fn eval_tree(tree: &MarkerTree, env: &Environment) -> Result<Evaluation, Error> {
    match tree {
        MarkerTree::Expression(e) => e.evaluate(env),
        MarkerTree::And(children) => {
            let mut truth = Truth::True;
            let mut unknown = FieldSet::EMPTY;
            for c in children {
                let r = eval_tree(c, env)?;
                if r.truth == Truth::Unknown {
                    unknown = unknown.union(r.unknown);
                }
                truth = truth.and(r.truth);
            }
            Ok(Evaluation {
                truth,
                unknown: if truth == Truth::Unknown {
                    unknown
                } else {
                    FieldSet::EMPTY
                },
            })
        }
        MarkerTree::Or(children) => {
            let mut truth = Truth::False;
            let mut unknown = FieldSet::EMPTY;
            for c in children {
                let r = eval_tree(c, env)?;
                if r.truth == Truth::Unknown {
                    unknown = unknown.union(r.unknown);
                }
                truth = truth.or(r.truth);
            }
            Ok(Evaluation {
                truth,
                unknown: if truth == Truth::Unknown {
                    unknown
                } else {
                    FieldSet::EMPTY
                },
            })
        }
    }
}

/// Python's `str.strip()` whitespace, which `Specifier` strips from its input.
fn strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

fn is_version_type(f: Field) -> bool {
    matches!(
        f.field_type(),
        FieldType::Version | FieldType::VersionOrString
    )
}

/// Reads `field OP "literal"` as a PEP 440 specifier when the field is version-typed and the
/// text `OP literal` is a valid specifier, as the specification's "when both sides have a
/// valid version specifier" says.
pub(crate) fn precompile(e: &MarkerExpression) -> Option<Box<VersionSpecifier>> {
    let (MarkerValue::Field(f), MarkerValue::Literal(l)) = (&e.lhs, &e.rhs) else {
        return None;
    };
    if !is_version_type(*f) {
        return None;
    }
    specifier(e.op, l).map(Box::new)
}

fn specifier(op: MarkerOperator, version: &str) -> Option<VersionSpecifier> {
    let op: Operator = op.pep440()?;
    VersionSpecifier::from_parts(op, strip(version)).ok()
}

/// The string rules: `==`, `!=` exact; `<=`, `>=` as `==`; `<`, `>` false; `in`, `not in` as
/// substring tests. `~=` and `===` are undefined on strings.
fn string_op(op: MarkerOperator, lhs: &str, rhs: &str) -> Option<bool> {
    Some(match op {
        MarkerOperator::Equal
        | MarkerOperator::LessThanEqual
        | MarkerOperator::GreaterThanEqual => lhs == rhs,
        MarkerOperator::NotEqual => lhs != rhs,
        MarkerOperator::LessThan | MarkerOperator::GreaterThan => false,
        MarkerOperator::In => rhs.contains(lhs),
        MarkerOperator::NotIn => !rhs.contains(lhs),
        MarkerOperator::TildeEqual | MarkerOperator::ExactEqual => return None,
    })
}

fn undefined(e: &MarkerExpression, reason: impl Into<String>) -> ErrorKind {
    ErrorKind::UndefinedComparison {
        expression: e.to_string(),
        reason: reason.into(),
    }
}

/// A string-valued side after looking it up: the text, or Absent/Unknown.
enum Side<'a> {
    Str(&'a str),
    Set(&'a [Box<str>]),
    Absent,
    Unknown,
}

fn lookup<'a>(env: &'a Environment, f: Field) -> Result<Side<'a>, ErrorKind> {
    if f == Field::Extra {
        // Handled by the caller.
        return Ok(Side::Str(""));
    }
    match env.get(f) {
        Some(EnvValue::String(s)) => Ok(Side::Str(s)),
        Some(EnvValue::Set(s)) => Ok(Side::Set(s)),
        Some(EnvValue::Absent) => Ok(Side::Absent),
        Some(EnvValue::Unknown) => Ok(Side::Unknown),
        None if f.is_extended() => Ok(Side::Absent),
        None if matches!(f, Field::Extras | Field::DependencyGroups) => {
            Err(ErrorKind::LockFileVariableOutsideLockFile { field: f })
        }
        None => Err(ErrorKind::UndefinedVariable { field: f }),
    }
}

fn eval_expression(e: &MarkerExpression, env: &Environment) -> Result<Evaluation, ErrorKind> {
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(Field::Extra), MarkerValue::Literal(l)) => eval_extra(e, env, l, false),
        (MarkerValue::Literal(l), MarkerValue::Field(Field::Extra)) => eval_extra(e, env, l, true),
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => {
            let f = *f;
            let side = lookup(env, f)?;
            match side {
                Side::Unknown => Ok(Evaluation::unknown(f)),
                Side::Absent if f.field_type() == FieldType::Set => eval_set_on_left(e, f),
                Side::Set(_) => eval_set_on_left(e, f),
                Side::Absent => Ok(Evaluation::known(
                    e.op == MarkerOperator::Equal && l.is_empty(),
                )),
                Side::Str(value) => {
                    if let Some(spec) = &e.spec {
                        return Ok(Evaluation::known(match env.version(f) {
                            Some(v) if spec.operator() != Operator::ExactEqual => {
                                spec.contains_with(v, Some(true))
                            }
                            _ => spec.contains_str(value, Some(true)),
                        }));
                    }
                    string_op(e.op, value, l)
                        .map(Evaluation::known)
                        .ok_or_else(|| undefined(e, undefined_reason(e.op, f)))
                }
            }
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => {
            let f = *f;
            let side = lookup(env, f)?;
            match side {
                Side::Unknown => Ok(Evaluation::unknown(f)),
                Side::Set(items) => eval_in_set(e, l, items),
                Side::Absent if f.field_type() == FieldType::Set => eval_in_set(e, l, &[]),
                Side::Absent => Ok(Evaluation::known(
                    e.op == MarkerOperator::Equal && l.is_empty(),
                )),
                Side::Str(value) => {
                    if is_version_type(f) {
                        if let Some(spec) = specifier(e.op, value) {
                            return Ok(Evaluation::known(spec.contains_str(l, Some(true))));
                        }
                    }
                    string_op(e.op, l, value)
                        .map(Evaluation::known)
                        .ok_or_else(|| undefined(e, undefined_reason(e.op, f)))
                }
            }
        }
        (MarkerValue::Field(a), MarkerValue::Field(b)) => {
            let (a, b) = (*a, *b);
            let left = if a == Field::Extra {
                Side::Str(env.extras_slice().first().map_or("", |s| &**s))
            } else {
                lookup(env, a)?
            };
            let right = if b == Field::Extra {
                Side::Str(env.extras_slice().first().map_or("", |s| &**s))
            } else {
                lookup(env, b)?
            };
            match (left, right) {
                (Side::Unknown, _) => Ok(Evaluation::unknown(a)),
                (_, Side::Unknown) => Ok(Evaluation::unknown(b)),
                (Side::Str(x), Side::Str(y)) => {
                    if is_version_type(a) {
                        if let Some(spec) = specifier(e.op, y) {
                            return Ok(Evaluation::known(spec.contains_str(x, Some(true))));
                        }
                    }
                    string_op(e.op, x, y)
                        .map(Evaluation::known)
                        .ok_or_else(|| undefined(e, undefined_reason(e.op, a)))
                }
                (Side::Str(x), Side::Set(items)) => eval_in_set(e, x, items),
                (Side::Str(x), Side::Absent) if b.field_type() == FieldType::Set => {
                    eval_in_set(e, x, &[])
                }
                (Side::Set(_), _) => eval_set_on_left(e, a),
                (Side::Absent, _) if a.field_type() == FieldType::Set => eval_set_on_left(e, a),
                // An absent value equals nothing.
                (Side::Absent, _) | (_, Side::Absent) => Ok(Evaluation::known(false)),
            }
        }
        (MarkerValue::Literal(a), MarkerValue::Literal(b)) => string_op(e.op, a, b)
            .map(Evaluation::known)
            .ok_or_else(|| undefined(e, format!("`{}` is not defined on strings", e.op))),
    }
}

fn undefined_reason(op: MarkerOperator, f: Field) -> String {
    if is_version_type(f) {
        format!(
            "the value is not a version `{op}` can compare, and `{op}` is not defined on strings"
        )
    } else {
        format!("`{f}` is a string and `{op}` is not defined on strings")
    }
}

fn eval_set_on_left(e: &MarkerExpression, f: Field) -> Result<Evaluation, ErrorKind> {
    Err(undefined(
        e,
        format!("`{f}` is a set; write `\"value\" in {f}`"),
    ))
}

/// `"literal" OP set`: membership for `in`/`not in`; a string never equals a set.
fn eval_in_set(
    e: &MarkerExpression,
    literal: &str,
    items: &[Box<str>],
) -> Result<Evaluation, ErrorKind> {
    let contains = |needle: &str| items.iter().any(|i| &**i == needle);
    let normalized;
    let needle = match e.field() {
        Some(Field::Extras | Field::DependencyGroups) => {
            normalized = normalize_name(literal);
            &normalized[..]
        }
        Some(Field::VariantFeatures | Field::VariantProperties) => {
            return Ok(Evaluation::known(match e.op {
                MarkerOperator::In => items.iter().any(|i| variant_eq(i, literal)),
                MarkerOperator::NotIn => !items.iter().any(|i| variant_eq(i, literal)),
                _ => return set_other_op(e),
            }));
        }
        _ => literal,
    };
    Ok(Evaluation::known(match e.op {
        MarkerOperator::In => contains(needle),
        MarkerOperator::NotIn => !contains(needle),
        _ => return set_other_op(e),
    }))
}

/// A string compared with a set by any operator but `in`: Python's `str == set` is false,
/// `!=` true; the specification's legacy `<`/`>` are false; `~=`/`===` are undefined.
fn set_other_op(e: &MarkerExpression) -> Result<Evaluation, ErrorKind> {
    match e.op {
        MarkerOperator::NotEqual => Ok(Evaluation::known(true)),
        MarkerOperator::TildeEqual | MarkerOperator::ExactEqual => {
            Err(undefined(e, format!("`{}` is not defined on sets", e.op)))
        }
        _ => Ok(Evaluation::known(false)),
    }
}

/// Compares variant strings ignoring whitespace around `::`.
pub(crate) fn variant_eq(a: &str, b: &str) -> bool {
    let mut x = a.split("::").map(str::trim);
    let mut y = b.split("::").map(str::trim);
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => {}
            _ => return false,
        }
    }
}

/// `extra OP "literal"` (or reversed): the legacy variable. With zero or one extra requested
/// it is that extra's name (or `""`) under the string rules; with several, `==` is membership
/// and `!=` non-membership.
fn eval_extra(
    e: &MarkerExpression,
    env: &Environment,
    literal: &str,
    reversed: bool,
) -> Result<Evaluation, ErrorKind> {
    let extras = env.extras_slice();
    if extras.len() > 1 {
        return match e.op {
            MarkerOperator::Equal => Ok(Evaluation::known(extras.iter().any(|x| &**x == literal))),
            MarkerOperator::NotEqual => {
                Ok(Evaluation::known(!extras.iter().any(|x| &**x == literal)))
            }
            _ => Err(undefined(
                e,
                "several extras are requested, so only `==` and `!=` are defined on `extra`",
            )),
        };
    }
    let value = extras.first().map_or("", |s| &**s);
    let (l, r) = if reversed {
        (literal, value)
    } else {
        (value, literal)
    };
    string_op(e.op, l, r)
        .map(Evaluation::known)
        .ok_or_else(|| undefined(e, format!("`{}` is not defined on `extra`", e.op)))
}

/// Static checks of one comparison while parsing: warnings for legal but dubious forms, the
/// extended dialect's type errors, literal normalisation for `extra`, and the cached specifier.
pub(crate) fn check(
    e: &mut MarkerExpression,
    dialect: Dialect,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<(), ErrorKind> {
    // PEP 685 / 735: names compared with `extra` (either side) and tested for membership in
    // `extras` or `dependency_groups` (the literal on the left) are normalised.
    match (&mut e.lhs, &mut e.rhs) {
        (
            MarkerValue::Literal(l),
            MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups),
        )
        | (MarkerValue::Field(Field::Extra), MarkerValue::Literal(l)) => {
            *l = normalize_name(l).into();
        }
        _ => {}
    }
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Literal(_), MarkerValue::Literal(_)) => warn(WarningKind::ConstantComparison),
        (MarkerValue::Field(a), MarkerValue::Field(b)) => {
            if dialect == Dialect::Extended && (a.is_extended() || b.is_extended()) {
                return Err(ErrorKind::FieldComparedWithField);
            }
            warn(WarningKind::ConstantComparison)
        }
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => {
            check_field_literal(*f, e.op, l, false, dialect, warn)?
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => {
            check_field_literal(*f, e.op, l, true, dialect, warn)?
        }
    }
    e.spec = precompile(e);
    Ok(())
}

fn check_field_literal(
    f: Field,
    op: MarkerOperator,
    literal: &str,
    literal_on_left: bool,
    dialect: Dialect,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<(), ErrorKind> {
    let ty = f.field_type();
    let extended = dialect == Dialect::Extended && f.is_extended();
    match ty {
        FieldType::Set => {
            let membership =
                literal_on_left && matches!(op, MarkerOperator::In | MarkerOperator::NotIn);
            if !membership {
                if extended {
                    return Err(ErrorKind::SetFieldMisuse { field: f });
                }
                warn(WarningKind::AlwaysErrors {
                    reason: format!("`{f}` is a set; only `\"value\" in {f}` is defined"),
                });
            } else if extended {
                crate::variant::validate(f, literal)
                    .map_err(|reason| ErrorKind::InvalidVariantValue { field: f, reason })?;
            }
        }
        FieldType::String | FieldType::Extra => match op {
            MarkerOperator::LessThan | MarkerOperator::GreaterThan => {
                warn(WarningKind::StringOrdering { field: f })
            }
            MarkerOperator::TildeEqual | MarkerOperator::ExactEqual => {
                warn(WarningKind::AlwaysErrors {
                    reason: format!("`{op}` is not defined on strings"),
                })
            }
            _ => {}
        },
        FieldType::Version | FieldType::VersionOrString => {
            if literal_on_left {
                return Ok(());
            }
            if matches!(op, MarkerOperator::In | MarkerOperator::NotIn) {
                if extended && ty == FieldType::Version {
                    return Err(ErrorKind::InvalidVersionLiteral {
                        field: f,
                        reason: format!("`{op}` is not defined on versions"),
                    });
                }
                return Ok(());
            }
            if specifier(op, literal).is_some() {
                return Ok(());
            }
            if extended && ty == FieldType::Version && !literal.is_empty() {
                let reason = match op
                    .pep440()
                    .map(|o| VersionSpecifier::from_parts(o, strip(literal)))
                {
                    Some(Err(err)) => err.message(),
                    _ => "not a version".to_string(),
                };
                return Err(ErrorKind::InvalidVersionLiteral { field: f, reason });
            }
            if matches!(op, MarkerOperator::TildeEqual) {
                warn(WarningKind::AlwaysErrors {
                    reason: format!("`~={literal}` is not a valid version specifier"),
                });
            } else if !(extended && literal.is_empty()) {
                warn(WarningKind::VersionFieldStringComparison { field: f });
            }
        }
    }
    Ok(())
}
