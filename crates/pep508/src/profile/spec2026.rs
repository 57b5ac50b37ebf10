//! The `spec-2026` profile: `spec/SPEC.md` §5, the living specification's installer reading
//! for the standard fields and the typed rules for the extended ones (which every profile
//! shares).
//!
//! Its comparisons are here; its parse-time checks are the default ones of the checker, which
//! the other profiles relax (the `strict` knob of its rules entry) or replace.

use markerspec_pep440::Version;

use crate::compare::{Fast, Side, continues_operator, member, mirror};
use crate::environment::{EnvValue, EvalEnv};
use crate::field::{Field, FieldType};
use crate::marker::MarkerExpression;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::profile::outcome::{Outcome, undefined};
use crate::truth::Tri;

/// The installer reading of the living specification (`spec/SPEC.md` §5).
#[inline(always)]
pub(crate) fn compare(e: &MarkerExpression, env: &EvalEnv<'_>) -> Outcome {
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
    general(e, env)
}

/// The rules of `spec/SPEC.md` §5 for any comparison.
#[inline(never)]
pub(crate) fn general(e: &MarkerExpression, env: &EvalEnv<'_>) -> Outcome {
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
fn spec_field(e: &MarkerExpression, env: &EvalEnv<'_>, f: Field, l: &str, side: Side) -> Outcome {
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
    if f.is_extended() && matches!(value, EnvValue::Absent) {
        return Ok(Tri::known(absent(e.op, l)));
    }
    let ty = f.field_type();
    if ty == FieldType::Set {
        if side != Side::LiteralLeft || !matches!(e.op, O::In | O::NotIn) {
            if !f.is_extended() {
                // Appendix E.1: `extras` and `dependency_groups` misused in a lock file are
                // false (the parser warned).
                return Ok(Tri::known(false));
            }
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
            if matches!(e.op, O::In | O::NotIn) {
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

/// The absent-value rule of `spec/SPEC.md` §4.3, the same for every extended field: the absent
/// value equals only `""`, is in no order relation, contains nothing and is contained in
/// nothing, so `!=` and `not in` are true on it and every other comparison but `== ""` false.
/// (The parser allows `""` with `==` and `!=` only.)
#[cold]
fn absent(op: MarkerOperator, l: &str) -> bool {
    match op {
        MarkerOperator::Equal => l.is_empty(),
        MarkerOperator::NotEqual => !l.is_empty(),
        MarkerOperator::NotIn => true,
        _ => false,
    }
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
    if side == Side::LiteralLeft
        && matches!(
            e.op,
            MarkerOperator::TildeEqual | MarkerOperator::ExactEqual
        )
    {
        // Appendix E.2, E.3: `"L" ~= f` and `"L" === f` have no mirror; they read as packaging
        // reads them, `Specifier(op + value).contains(L)`, when both sides are valid (`===`:
        // case-insensitive text equality), else as strings.
        if let Some(spec) = crate::compare::specifier(e.op, s) {
            if e.op == MarkerOperator::ExactEqual {
                return spec.contains_str(l, Some(true));
            }
            if let Ok(literal) = crate::compare::strip(l).parse::<Version>() {
                return spec.contains_with(&literal, Some(true));
            }
        }
        return spec_string(e.op, s, l, side);
    }
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
