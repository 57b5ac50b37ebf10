//! The `spec-2026` profile: `spec/SPEC.md` §5, the living specification's installer reading
//! for the standard fields and the typed rules for the extended ones (which every profile
//! shares).
//!
//! Its parse-time checks of the standard fields ([`check`]) and its comparisons are here; the
//! extended fields' checks, shared by every profile, are in [`crate::check`].

use markerspec_pep440::Version;

use crate::compare::{Side, continues_operator, member, mirror, precompile};
use crate::environment::{EnvValue, EvalEnv};
use crate::error::{ErrorKind, WarningKind};
use crate::field::{Field, FieldType};
use crate::lower::{Comparison, Fast};
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::ParseOptions;
use crate::profile::outcome::{Outcome, undefined};
use crate::syntax::MarkerExpression;
use crate::truth::Tri;

/// The living specification's strict reading of a comparison of standard fields: a comparison
/// without exactly one variable is an error, `extras`/`dependency_groups` need lock-file
/// context and `extra` is refused in it; a set field used other than as `"value" in field` is
/// false with a warning (Appendix E.1), as are the other questionable forms.
pub(crate) fn check(
    e: &MarkerExpression,
    opts: &ParseOptions,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<bool, ErrorKind> {
    use MarkerOperator as O;
    let (f, literal, literal_left) = match (&e.lhs, &e.rhs) {
        (MarkerValue::Literal(_), MarkerValue::Literal(_)) => {
            return Err(ErrorKind::NoFieldInComparison);
        }
        (MarkerValue::Field(_), MarkerValue::Field(_)) => {
            return Err(ErrorKind::FieldComparedToField);
        }
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, l, false),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, l, true),
    };
    if !opts.lock_file && matches!(f, Field::Extras | Field::DependencyGroups) {
        return Err(ErrorKind::LockFileField { field: f });
    }
    if opts.lock_file && f == Field::Extra {
        // Appendix E.5: "The legacy `extra` comparison syntax is NOT permitted in lock file
        // `packages.marker` fields".
        return Err(ErrorKind::LockFileExtra);
    }
    let op = e.op;
    match f.field_type() {
        FieldType::Extra if !matches!(op, O::Equal | O::NotEqual) => {
            warn(WarningKind::ExtraOperator)
        }
        FieldType::Extra => {}
        FieldType::Set if literal_left && matches!(op, O::In | O::NotIn) => {}
        // Appendix E.1: in lock-file context (the only one where these fields exist under
        // `spec-2026`), installers "SHOULD treat such operations as always being False".
        FieldType::Set => warn(match set_misuse(f, op, literal_left) {
            ErrorKind::SetFieldOnLeft { field } => WarningKind::LockFileSetOnLeft { field },
            _ => WarningKind::LockFileSetOperator { field: f, op },
        }),
        FieldType::String => match op {
            O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                warn(WarningKind::StringOrdering { field: f })
            }
            O::TildeEqual | O::ExactEqual => warn(WarningKind::VersionOpOnString { field: f }),
            _ => {}
        },
        FieldType::Version if matches!(op, O::In | O::NotIn) => {
            warn(WarningKind::ContainmentOnVersion { field: f })
        }
        FieldType::Version => {
            // The quoted version (mirrored when on the left) must form a specifier as written;
            // `"L" ~= f` and `"L" === f` compare the value's specifier with `L` (Appendix E.2,
            // E.3): `~=` needs `L` to be a version, `===` takes any text.
            let operand_ok = match (literal_left, op) {
                (true, O::TildeEqual) => literal.parse::<Version>().is_ok(),
                (true, O::ExactEqual) => true,
                _ => precompile(&e.lhs, op, &e.rhs).is_some() && !continues_operator(literal),
            };
            if !operand_ok {
                warn(WarningKind::VersionFieldStringComparison { field: f });
            }
        }
        // `Version | String` fields compare as strings where the value is no version.
        FieldType::VersionOrString => {}
    }
    Ok(true)
}

/// The error for a set field used other than as `"value" in field` / `not in`.
pub(crate) fn set_misuse(f: Field, op: MarkerOperator, literal_left: bool) -> ErrorKind {
    if !literal_left && matches!(op, MarkerOperator::In | MarkerOperator::NotIn) {
        ErrorKind::SetFieldOnLeft { field: f }
    } else {
        ErrorKind::InvalidSetOperator { field: f, op }
    }
}

/// The installer reading of the living specification (`spec/SPEC.md` §5).
#[inline(always)]
pub(crate) fn compare(c: &Comparison<'_>, env: &EvalEnv<'_>) -> Outcome {
    if c.fast != Fast::General {
        let e = &c.expr;
        if let (MarkerValue::Literal(l), _) | (_, MarkerValue::Literal(l)) = (&e.lhs, &e.rhs) {
            match c.fast {
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
                    if let (Some(v), Some(spec)) = (env.version(field), c.spec) {
                        return Ok(Tri::known(spec.contains_with(v, Some(true))));
                    }
                }
                Fast::General => {}
            }
        }
    }
    general(c, env)
}

/// The rules of `spec/SPEC.md` §5 for any comparison.
#[inline(never)]
pub(crate) fn general(c: &Comparison<'_>, env: &EvalEnv<'_>) -> Outcome {
    let e = &c.expr;
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => {
            spec_field(c, env, *f, l, Side::FieldLeft)
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => {
            spec_field(c, env, *f, l, Side::LiteralLeft)
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
fn spec_field(c: &Comparison<'_>, env: &EvalEnv<'_>, f: Field, l: &str, side: Side) -> Outcome {
    use MarkerOperator as O;
    let e = &c.expr;
    if f == Field::Extra {
        // `extra ==` and `!=` are answered by their shortcut (`Fast::Extra`, which lowering
        // gives every such comparison); every other operator is false on `extra`.
        return Ok(Tri::known(false));
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
                spec_version(c, env.version(f), s, l, side)
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
    c: &Comparison<'_>,
    parsed: Option<&Version>,
    s: &str,
    l: &str,
    side: Side,
) -> bool {
    let e = &c.expr;
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
            // `Version`'s parser strips Python's whitespace, as `Version(L)` does.
            if let Ok(literal) = l.parse::<Version>() {
                return spec.contains_with(&literal, Some(true));
            }
        }
        return spec_string(e.op, s, l, side);
    }
    if let (Some(op), Some(spec), false) = (op, c.spec, continues_operator(l)) {
        if op == MarkerOperator::ExactEqual {
            return spec.contains_str(s, Some(true));
        }
        if let Some(v) = parsed {
            return spec.contains_with(v, Some(true));
        }
    }
    spec_string(e.op, s, l, side)
}
