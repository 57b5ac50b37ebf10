//! What one comparison means, under each behaviour profile.
//!
//! `spec-2026` is `spec/SPEC.md` §5: the living specification's installer reading for the
//! standard fields and the typed rules for the extended ones. `packaging` reproduces
//! pypa/packaging 26.x for the standard fields, including its quirks, and uses the `spec-2026`
//! rules for the extended fields (they behave the same in every profile).

use markerspec_pep440::{Operator, Version, VersionSpecifier};

use crate::environment::{EnvValue, Environment};
use crate::error::ErrorKind;
use crate::evaluate::{Profile, Tri};
use crate::field::{Field, FieldType};
use crate::marker::{MarkerExpression, MarkerOperator, MarkerValue};

/// Python's `str.strip()` whitespace, which `Specifier` strips from its input.
pub(crate) fn strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

pub(crate) fn is_version_type(f: Field) -> bool {
    matches!(
        f.field_type(),
        FieldType::Version | FieldType::VersionOrString
    )
}

/// `op` with its operands swapped: `"3.8" < v` is `v > "3.8"`. `None` for the operators that
/// have no mirror (`~=`, `===`, `in`, `not in`).
pub(crate) fn mirror(op: MarkerOperator) -> Option<MarkerOperator> {
    use MarkerOperator as O;
    Some(match op {
        O::Equal => O::Equal,
        O::NotEqual => O::NotEqual,
        O::LessThan => O::GreaterThan,
        O::LessThanEqual => O::GreaterThanEqual,
        O::GreaterThan => O::LessThan,
        O::GreaterThanEqual => O::LessThanEqual,
        O::TildeEqual | O::ExactEqual | O::In | O::NotIn => return None,
    })
}

/// `op version` as a PEP 440 specifier, as packaging builds it (`Specifier(op + text)`).
pub(crate) fn specifier(op: MarkerOperator, version: &str) -> Option<VersionSpecifier> {
    let op: Operator = op.pep440()?;
    VersionSpecifier::from_parts(op, strip(version)).ok()
}

/// The specifier a comparison is read as, computed once at parse time: for `field OP "L"`,
/// `OP L`; for `"L" OP field`, the mirrored operator with `L` (used by `spec-2026`).
pub(crate) fn precompile(e: &MarkerExpression) -> Option<Box<VersionSpecifier>> {
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) if is_version_type(*f) => {
            specifier(e.op, l).map(Box::new)
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) if is_version_type(*f) => {
            specifier(mirror(e.op)?, l).map(Box::new)
        }
        _ => None,
    }
}

/// Whether a literal starts with an operator character, so that `op + literal` would read as
/// another operator (`python_version == "=3.12"` is `===3.12` to packaging).
pub(crate) fn continues_operator(l: &str) -> bool {
    strip(l).starts_with(['=', '!', '<', '>', '~'])
}

/// A comparison's result, or why it has none. The error is boxed so that the common path
/// returns in registers.
pub(crate) type Outcome = Result<Tri, Box<ErrorKind>>;

#[cold]
fn undefined(e: &MarkerExpression, reason: impl Into<String>) -> Box<ErrorKind> {
    Box::new(ErrorKind::UndefinedComparison {
        expression: e.to_string(),
        reason: reason.into(),
    })
}

/// Membership of a literal in a set value: variant strings compare with their `::` separators
/// canonicalised; every other set compares exactly (names were normalised when they were stored
/// and parsed).
fn member(f: Field, literal: &str, items: &[Box<str>]) -> bool {
    match f {
        Field::VariantNamespaces | Field::VariantFeatures | Field::VariantProperties => {
            items.iter().any(|i| crate::variant::variant_eq(i, literal))
        }
        _ => items.iter().any(|i| &**i == literal),
    }
}

/// The shape of a comparison, found once at parse time, for which `spec-2026` has a shortcut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fast {
    /// No shortcut: the general rules.
    General,
    /// `extra == "x"` or `extra != "x"`, in either order.
    Extra {
        /// `!=`.
        negate: bool,
    },
    /// A `String` field `==` or `!=` a quoted string, in either order.
    StrEq {
        /// The field.
        field: Field,
        /// `!=`.
        negate: bool,
    },
    /// A version field on the left of an ordering or equality operator whose quoted version
    /// forms a specifier (cached in the expression).
    Version {
        /// The field.
        field: Field,
    },
}

impl Fast {
    pub(crate) fn of(e: &MarkerExpression) -> Fast {
        let field = match (&e.lhs, &e.rhs) {
            (MarkerValue::Field(f), MarkerValue::Literal(_))
            | (MarkerValue::Literal(_), MarkerValue::Field(f)) => *f,
            _ => return Fast::General,
        };
        if let (MarkerValue::Field(f), MarkerValue::Literal(l)) = (&e.lhs, &e.rhs) {
            if is_version_type(*f)
                && e.spec.is_some()
                && !continues_operator(l)
                && !matches!(
                    e.op,
                    MarkerOperator::ExactEqual | MarkerOperator::In | MarkerOperator::NotIn
                )
            {
                return Fast::Version { field: *f };
            }
        }
        let negate = match e.op {
            MarkerOperator::Equal => false,
            MarkerOperator::NotEqual => true,
            _ => return Fast::General,
        };
        match field.field_type() {
            FieldType::Extra => Fast::Extra { negate },
            FieldType::String => Fast::StrEq { field, negate },
            _ => Fast::General,
        }
    }
}

/// Which operand is the variable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    FieldLeft,
    LiteralLeft,
}

// ---------------------------------------------------------------------------------------------
// spec-2026

/// The installer reading of the living specification (`spec/SPEC.md` §5).
#[inline(always)]
pub(crate) fn spec2026(e: &MarkerExpression, env: &Environment) -> Outcome {
    if e.fast != Fast::General {
        if let (MarkerValue::Literal(l), _) | (_, MarkerValue::Literal(l)) = (&e.lhs, &e.rhs) {
            match e.fast {
                Fast::Extra { negate } => {
                    let lit = l.as_bytes();
                    // A plain loop: the compiler does not always inline `Iterator::any` here.
                    let mut requested = false;
                    for x in env.extras_slice() {
                        if x.as_bytes() == lit {
                            requested = true;
                            break;
                        }
                    }
                    return Ok(Tri::known(requested != negate));
                }
                Fast::StrEq { field, negate } => {
                    if let Some(EnvValue::String(s)) = env.get(field) {
                        return Ok(Tri::known((s.as_bytes() == l.as_bytes()) != negate));
                    }
                }
                Fast::Version { field } => {
                    if let (Some(v), Some(spec)) = (env.version(field), e.spec.as_deref()) {
                        return Ok(Tri::known(spec.contains_with(v, Some(true))));
                    }
                }
                Fast::General => {}
            }
        }
    }
    spec2026_general(e, env)
}

/// The rules of `spec/SPEC.md` §5 for any comparison.
#[inline(never)]
fn spec2026_general(e: &MarkerExpression, env: &Environment) -> Outcome {
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => {
            spec_field(e, env, *f, l, Side::FieldLeft)
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => {
            spec_field(e, env, *f, l, Side::LiteralLeft)
        }
        _ => Err(undefined(
            e,
            "a comparison needs exactly one variable and one quoted string",
        )),
    }
}

/// The string rules: `==`, `!=` exact; `<=`, `>=` (and `~=`, `===`) as `==`; `<`, `>` false;
/// `in`, `not in` as substring tests.
fn spec_string(op: MarkerOperator, value: &str, literal: &str, side: Side) -> bool {
    use MarkerOperator as O;
    match op {
        O::Equal | O::LessThanEqual | O::GreaterThanEqual | O::TildeEqual | O::ExactEqual => {
            value == literal
        }
        O::NotEqual => value != literal,
        O::LessThan | O::GreaterThan => false,
        O::In | O::NotIn => {
            let contained = match side {
                Side::FieldLeft => literal.contains(value),
                Side::LiteralLeft => value.contains(literal),
            };
            contained == (op == O::In)
        }
    }
}

#[inline]
fn spec_field(e: &MarkerExpression, env: &Environment, f: Field, l: &str, side: Side) -> Outcome {
    use MarkerOperator as O;
    if f == Field::Extra {
        let requested = env.extras_slice().iter().any(|x| &**x == l);
        return Ok(Tri::known(match e.op {
            O::Equal => requested,
            O::NotEqual => !requested,
            _ => false,
        }));
    }
    let value = match env.get(f) {
        None if matches!(f, Field::Extras | Field::DependencyGroups) => &EnvValue::Absent,
        None | Some(EnvValue::Unknown) => return Ok(Tri::unknown(f)),
        Some(v) => v,
    };
    let ty = f.field_type();
    if ty == FieldType::Set {
        if side != Side::LiteralLeft || !matches!(e.op, O::In | O::NotIn) {
            return Err(undefined(
                e,
                format!("`{f}` is a set; only `\"value\" in {f}` and `not in` are defined"),
            ));
        }
        let items: &[Box<str>] = match value {
            EnvValue::Set(items) => items,
            _ => &[],
        };
        return Ok(Tri::known(member(f, l, items) == (e.op == O::In)));
    }
    let s: &str = match value {
        EnvValue::String(s) => s,
        EnvValue::Absent => "",
        EnvValue::Set(_) | EnvValue::Unknown => return Ok(Tri::unknown(f)),
    };
    Ok(Tri::known(match ty {
        FieldType::Version | FieldType::VersionOrString => {
            if matches!(value, EnvValue::Absent) && ty == FieldType::Version {
                // Absent: false for every comparison, except the absence test `== ""`.
                e.op == O::Equal && l.is_empty()
            } else if matches!(e.op, O::In | O::NotIn) {
                // Containment is not defined on versions; installers treat it as false.
                // `Version | String` fields define it as on strings.
                ty == FieldType::VersionOrString && spec_string(e.op, s, l, side)
            } else {
                spec_version(e, env.version(f), s, l, side)
            }
        }
        _ => spec_string(e.op, s, l, side),
    }))
}

/// A version comparison when the value and the literal are both versions, else the string rules.
fn spec_version(
    e: &MarkerExpression,
    parsed: Option<&Version>,
    s: &str,
    l: &str,
    side: Side,
) -> bool {
    let op = match side {
        Side::FieldLeft => Some(e.op),
        Side::LiteralLeft => mirror(e.op),
    };
    if let (Some(op), Some(spec), false) = (op, e.spec.as_deref(), continues_operator(l)) {
        if op == MarkerOperator::ExactEqual {
            return spec.contains_str(s, Some(true));
        }
        if let Some(v) = parsed {
            return spec.contains_with(v, Some(true));
        }
    }
    spec_string(e.op, s, l, side)
}

// ---------------------------------------------------------------------------------------------
// uv

/// The profiles other than `spec-2026`, out of line so that its evaluation keeps its shape.
#[inline(never)]
pub(crate) fn other(e: &MarkerExpression, env: &Environment, profile: Profile) -> Outcome {
    if profile == Profile::Uv {
        uv(e, env)
    } else {
        packaging(e, env)
    }
}

/// uv-pep508 0.0.98 for the standard fields ([`crate::uv`]), the `spec-2026` rules for the
/// extended ones.
fn uv(e: &MarkerExpression, env: &Environment) -> Outcome {
    if e.has_extended_field() {
        // The general rules give the same results as `spec2026`, without another inlined copy
        // of its fast paths.
        return spec2026_general(e, env);
    }
    crate::uv::evaluate(e, env)
}

// ---------------------------------------------------------------------------------------------
// packaging

/// packaging's string operator table; `~=` and `===` are undefined.
fn packaging_string(op: MarkerOperator, lhs: &str, rhs: &str) -> Option<bool> {
    use MarkerOperator as O;
    Some(match op {
        O::Equal | O::LessThanEqual | O::GreaterThanEqual => lhs == rhs,
        O::NotEqual => lhs != rhs,
        O::LessThan | O::GreaterThan => false,
        O::In => rhs.contains(lhs),
        O::NotIn => !rhs.contains(lhs),
        O::TildeEqual | O::ExactEqual => return None,
    })
}

/// The four fields packaging compares as versions when the specifier parses.
fn packaging_version_key(f: Field) -> bool {
    matches!(
        f,
        Field::PythonVersion
            | Field::PythonFullVersion
            | Field::ImplementationVersion
            | Field::PlatformRelease
    )
}

/// pypa/packaging 26.x, quirks included.
pub(crate) fn packaging(e: &MarkerExpression, env: &Environment) -> Outcome {
    use MarkerOperator as O;
    // packaging reads the variable on the left, else takes the right-hand *text* as the name to
    // look up, even when it is a quoted string; a variable on the right of a variable is
    // compared as its name.
    let (key, side, text): (Field, Side, &str) = match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, Side::FieldLeft, l),
        (MarkerValue::Field(f), MarkerValue::Field(g)) => (*f, Side::FieldLeft, g.name()),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, Side::LiteralLeft, l),
        (MarkerValue::Literal(l), MarkerValue::Literal(name)) => {
            match Field::from_canonical_name(name) {
                Some(f) if !f.is_extended() => (f, Side::LiteralLeft, l),
                _ => {
                    return Err(Box::new(ErrorKind::UndefinedVariable {
                        name: name.to_string(),
                    }));
                }
            }
        }
    };
    if key.is_extended() {
        return match (&e.lhs, &e.rhs) {
            (MarkerValue::Field(_), MarkerValue::Literal(_))
            | (MarkerValue::Literal(_), MarkerValue::Field(_)) => spec2026(e, env),
            _ => Err(undefined(
                e,
                "extended fields are compared with quoted strings only",
            )),
        };
    }
    if key == Field::Extra {
        let extras = env.extras_slice();
        if extras.len() > 1 {
            let requested = extras.iter().any(|x| &**x == text);
            return match e.op {
                O::Equal => Ok(Tri::known(requested)),
                O::NotEqual => Ok(Tri::known(!requested)),
                _ => Err(undefined(
                    e,
                    "several extras are requested, so only `==` and `!=` are defined on `extra`",
                )),
            };
        }
        let value = extras.first().map_or("", |s| &**s);
        let (l, r) = match side {
            Side::FieldLeft => (value, text),
            Side::LiteralLeft => (text, value),
        };
        return packaging_string(e.op, l, r)
            .map(Tri::known)
            .ok_or_else(|| undefined(e, format!("`{}` is not defined on `extra`", e.op)));
    }
    let value = match env.get(key) {
        None => {
            return Err(Box::new(ErrorKind::UndefinedVariable {
                name: key.name().to_string(),
            }));
        }
        Some(EnvValue::Unknown) => return Ok(Tri::unknown(key)),
        Some(v) => v,
    };
    if key.field_type() == FieldType::Set {
        let items: &[Box<str>] = match value {
            EnvValue::Set(items) => items,
            _ => &[],
        };
        if side == Side::FieldLeft {
            return Err(undefined(
                e,
                format!(
                    "set-valued `{key}` can only be used with the membership form (\"name\" in {key})"
                ),
            ));
        }
        let contained = member(key, text, items);
        return match e.op {
            O::In => Ok(Tri::known(contained)),
            O::NotIn => Ok(Tri::known(!contained)),
            // A string compared with a set: never equal, never ordered.
            O::NotEqual => Ok(Tri::known(true)),
            O::Equal | O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                Ok(Tri::known(false))
            }
            O::TildeEqual | O::ExactEqual => {
                Err(undefined(e, format!("`{}` is not defined on sets", e.op)))
            }
        };
    }
    let s: &str = match value {
        EnvValue::String(s) => s,
        _ => "",
    };
    // packaging's default environment repairs an untagged build's `3.13.1+` to `3.13.1+local`.
    let repaired;
    let s = if key == Field::PythonFullVersion && s.ends_with('+') {
        repaired = format!("{s}local");
        &repaired[..]
    } else {
        s
    };
    let (lhs, rhs) = match side {
        Side::FieldLeft => (s, text),
        Side::LiteralLeft => (text, s),
    };
    if packaging_version_key(key) {
        match side {
            Side::FieldLeft if matches!(e.rhs, MarkerValue::Literal(_)) => {
                if let Some(spec) = e.spec.as_deref() {
                    return Ok(Tri::known(match env.version(key) {
                        Some(v)
                            if spec.operator() != Operator::ExactEqual
                                && s.len() == value_len(value) =>
                        {
                            spec.contains_with(v, Some(true))
                        }
                        _ => spec.contains_str(lhs, Some(true)),
                    }));
                }
            }
            _ => {
                if let Some(spec) = specifier(e.op, rhs) {
                    return Ok(Tri::known(spec.contains_str(lhs, Some(true))));
                }
            }
        }
    }
    packaging_string(e.op, lhs, rhs)
        .map(Tri::known)
        .ok_or_else(|| {
            undefined(
                e,
                format!("`{}` is not defined between `{lhs}` and `{rhs}`", e.op),
            )
        })
}

fn value_len(v: &EnvValue) -> usize {
    match v {
        EnvValue::String(s) => s.len(),
        _ => 0,
    }
}
