//! The `packaging` profile: pypa/packaging 26.x for the standard fields, quirks included, and
//! the `spec-2026` rules for the extended fields.

use markerspec_pep440::Operator;

use crate::compare::{Side, member, precompile, specifier};
use crate::environment::{EnvValue, EvalEnv};
use crate::error::{ErrorKind, WarningKind};
use crate::field::{Field, FieldType};
use crate::lower::Comparison;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::ParseOptions;
use crate::profile::outcome::{Outcome, undefined};
use crate::syntax::MarkerExpression;
use crate::truth::Tri;

/// What pypa/packaging accepts of a comparison of standard fields: everything its grammar
/// reads, with a warning for what it evaluates as a constant or always fails to evaluate.
pub(crate) fn check(
    e: &MarkerExpression,
    _opts: &ParseOptions,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<bool, ErrorKind> {
    use MarkerOperator as O;
    let (f, literal, literal_left) = match (&e.lhs, &e.rhs) {
        (MarkerValue::Literal(_), MarkerValue::Literal(_))
        | (MarkerValue::Field(_), MarkerValue::Field(_)) => {
            warn(WarningKind::ConstantComparison);
            return Ok(true);
        }
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, l, false),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, l, true),
    };
    let op = e.op;
    let always_errors = |reason: String| WarningKind::AlwaysErrors { reason };
    // packaging compares `platform_version` as a string (`spec-2026` types it `Version |
    // String`, Appendix E.5).
    let ty = match f {
        Field::PlatformVersion => FieldType::String,
        _ => f.field_type(),
    };
    match ty {
        FieldType::Extra if matches!(op, O::TildeEqual | O::ExactEqual) => {
            warn(always_errors(format!("`{op}` is not defined on `extra`")))
        }
        FieldType::Extra => {}
        FieldType::Set if literal_left && matches!(op, O::In | O::NotIn) => {}
        FieldType::Set if !literal_left || matches!(op, O::TildeEqual | O::ExactEqual) => {
            warn(always_errors(format!(
                "`{f}` is a set; only `\"value\" in {f}` is defined"
            )))
        }
        // A set on the right of `==`, `<`, ...: a constant comparison packaging evaluates.
        FieldType::Set => {}
        FieldType::String => match op {
            O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                warn(WarningKind::StringOrdering { field: f })
            }
            O::TildeEqual | O::ExactEqual => {
                warn(always_errors(format!("`{op}` is not defined on strings")))
            }
            _ => {}
        },
        FieldType::Version if matches!(op, O::In | O::NotIn) => {}
        FieldType::Version => {
            // Compared as strings when the quoted version (mirrored when on the left) forms no
            // specifier; `~=` on strings always fails.
            if precompile(&e.lhs, op, &e.rhs).is_none() {
                warn(if op == O::TildeEqual {
                    always_errors(format!("`~={literal}` is not a valid version specifier"))
                } else {
                    WarningKind::VersionFieldStringComparison { field: f }
                });
            }
        }
        FieldType::VersionOrString => {}
    }
    Ok(true)
}

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
pub(crate) fn compare(c: &Comparison<'_>, env: &EvalEnv<'_>) -> Outcome {
    use MarkerOperator as O;
    let e = &c.expr;
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
            | (MarkerValue::Literal(_), MarkerValue::Field(_)) => super::spec2026::compare(c, env),
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
                if let Some(spec) = c.spec {
                    return Ok(Tri::known(match env.version(key) {
                        // A parsed value is the text as given (the `+` repair above leaves
                        // no version to parse), so both readings see the same version.
                        Some(v) if spec.operator() != Operator::ExactEqual => {
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
