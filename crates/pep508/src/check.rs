//! Checks of one comparison made while parsing: the normalisation of names compared with
//! `extra`, `extras` and `dependency_groups`, the typed rules of the extended fields (the same
//! in every profile), and, for the standard fields, the profile's own checks (its
//! `check_standard` entry in the rules table: [`crate::profile`]).
//!
//! Everything here depends only on the marker text, so a marker that parses can always be
//! evaluated under the profile it was parsed with.

use crate::arch::{ArchSpelling, arch_spelling};
use crate::compare::{continues_operator, mirror};
use crate::error::{ErrorKind, WarningKind};
use crate::field::{Field, FieldType, ValueFormat};
use crate::name::normalize_name;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::ParseOptions;
use crate::profile::spec2026::set_misuse;
use crate::syntax::MarkerExpression;

/// Checks `e` as it is parsed (normalising the names in it): `Ok(false)` drops it (the `uv`
/// profile, after its warning), an error rejects the marker.
pub(crate) fn check(
    e: &mut MarkerExpression,
    opts: &ParseOptions,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<bool, ErrorKind> {
    // PEP 685 / 735: names compared with `extra` (either side) and tested for membership in
    // `extras` or `dependency_groups` (the literal on the left) are normalised.
    match (&mut e.lhs, &mut e.rhs) {
        (
            MarkerValue::Literal(l),
            MarkerValue::Field(Field::Extra | Field::Extras | Field::DependencyGroups),
        )
        | (MarkerValue::Field(Field::Extra), MarkerValue::Literal(l))
            if !crate::name::is_normalized(l.as_bytes()) =>
        {
            *l = normalize_name(l).into();
        }
        // `spec/SPEC.md` §8.3 (0.2): an alias architecture literal is compared as its canonical
        // spelling, with a warning.
        (
            MarkerValue::Literal(l),
            MarkerValue::Field(f @ (Field::InterpreterArch | Field::HostArch)),
        )
        | (
            MarkerValue::Field(f @ (Field::InterpreterArch | Field::HostArch)),
            MarkerValue::Literal(l),
        ) => {
            if let ArchSpelling::Alias(canonical) = arch_spelling(l) {
                warn(WarningKind::NoncanonicalArchLiteral {
                    field: *f,
                    literal: l.to_string(),
                    canonical,
                });
                *l = canonical.into();
            }
        }
        _ => {}
    }
    match (&e.lhs, &e.rhs) {
        // The extended fields follow the same typed rules in every profile.
        (MarkerValue::Field(f), MarkerValue::Literal(l)) if f.is_extended() => {
            check_extended(*f, e.op, l, false, warn)?;
            Ok(true)
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) if f.is_extended() => {
            check_extended(*f, e.op, l, true, warn)?;
            Ok(true)
        }
        (MarkerValue::Field(a), MarkerValue::Field(b)) if a.is_extended() || b.is_extended() => {
            Err(ErrorKind::FieldComparedToField)
        }
        // The standard fields: the profile's own checks.
        _ => (opts.profile.rules().check_standard)(e, opts, warn),
    }
}

/// The typed rules of the extended fields (`spec/SPEC.md` §4.3, §5, §8, §9), the same in every
/// profile.
fn check_extended(
    f: Field,
    op: MarkerOperator,
    l: &str,
    literal_left: bool,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<(), ErrorKind> {
    use MarkerOperator as O;
    let invalid = |reason: String| ErrorKind::InvalidVersionLiteral { field: f, reason };
    match f.field_type() {
        FieldType::Set => {
            if !(literal_left && matches!(op, O::In | O::NotIn)) {
                return Err(set_misuse(f, op, literal_left));
            }
            check_set_literal(f, l, warn)
        }
        FieldType::Version | FieldType::VersionOrString => {
            if matches!(op, O::In | O::NotIn) {
                return Err(ErrorKind::ContainmentOnVersion { field: f });
            }
            if op == O::ExactEqual {
                return Err(ErrorKind::ArbitraryEqualityOnExtended { field: f });
            }
            if l.is_empty() {
                return absence_test(f, op);
            }
            let op = if literal_left {
                if l.contains('*') {
                    return Err(invalid("a wildcard needs the field on the left".into()));
                }
                mirror(op).ok_or_else(|| invalid(format!("`{op}` needs the field on the left")))?
            } else {
                op
            };
            version_operand(f, op, l)?;
            if matches!(op, O::Equal | O::NotEqual) && !l.contains('*') {
                short_version_literal(f, op, l, warn);
            }
            Ok(())
        }
        FieldType::String | FieldType::Extra => {
            match op {
                O::TildeEqual | O::ExactEqual => {
                    return Err(ErrorKind::VersionOpOnString { field: f });
                }
                _ if l.is_empty() => return absence_test(f, op),
                O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                    warn(WarningKind::StringOrdering { field: f })
                }
                O::In | O::NotIn if !literal_left => warn(WarningKind::FieldInLiteral { field: f }),
                _ => {}
            }
            match f {
                // An alias was mapped to its canonical spelling by `check`.
                Field::InterpreterArch | Field::HostArch => {
                    if arch_spelling(l) == ArchSpelling::Unknown {
                        warn(WarningKind::UnknownArchLiteral {
                            literal: l.to_string(),
                        });
                    }
                    Ok(())
                }
                Field::VariantLabel => crate::variant::validate_label(l)
                    .map_err(|reason| ErrorKind::InvalidVariantLabel { reason }),
                _ => Ok(()),
            }
        }
    }
}

/// The empty literal is the absence test, defined with `==` and `!=` only (`spec/SPEC.md`
/// §4.3).
fn absence_test(f: Field, op: MarkerOperator) -> Result<(), ErrorKind> {
    if matches!(op, MarkerOperator::Equal | MarkerOperator::NotEqual) {
        Ok(())
    } else {
        Err(ErrorKind::InvalidAbsenceTest { field: f, op })
    }
}

/// Warning `short-version-literal` (`spec/SPEC.md` §5.1): an `==` / `!=` version with fewer
/// release components than the field's values have.
fn short_version_literal(f: Field, op: MarkerOperator, l: &str, warn: &mut dyn FnMut(WarningKind)) {
    let Some(precision) = f.precision() else {
        return;
    };
    let text = strip(l);
    if let Ok(v) = text.parse::<markerspec_pep440::Version>() {
        if v.release().len() < precision {
            warn(WarningKind::ShortVersionLiteral {
                field: f,
                op,
                literal: text.to_string(),
            });
        }
    }
}

/// Python's `str.strip()` whitespace (Unicode whitespace and the separators U+001C..U+001F),
/// which packaging's `Version` strips from its input: the version a warning names.
fn strip(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// `op literal` must be a valid PEP 440 specifier, read as written (no operator characters
/// inside the literal).
fn version_operand(f: Field, op: MarkerOperator, l: &str) -> Result<(), ErrorKind> {
    let reason = if continues_operator(l) {
        Some("the value starts with an operator character".to_string())
    } else {
        match op
            .pep440()
            .map(|o| markerspec_pep440::VersionSpecifier::from_parts(o, l))
        {
            Some(Ok(_)) => None,
            Some(Err(e)) => Some(e.message()),
            None => Some(format!("`{op}` does not compare versions")),
        }
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(ErrorKind::InvalidVersionLiteral { field: f, reason }),
    }
}

fn check_set_literal(
    f: Field,
    l: &str,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<(), ErrorKind> {
    let format = f.format();
    match format {
        ValueFormat::VariantNamespace
        | ValueFormat::VariantFeature
        | ValueFormat::VariantProperty => crate::variant::validate(f, l)
            .map_err(|reason| ErrorKind::InvalidVariantValue { field: f, reason }),
        ValueFormat::Text | ValueFormat::Name => Ok(()),
        _ => {
            // A literal must be written in the canonical form (`spec/SPEC.md` §5.4): what the
            // check canonicalises (`"9.00"`, a compute capability) is an error naming it.
            let canonical = match format.check(l) {
                Ok(c) if c == l => None,
                Ok(c) => Some(c.into_owned()),
                Err(_) => (format == ValueFormat::ComputeCapability
                    && !l.is_empty()
                    && l.bytes().all(|b| b.is_ascii_digit()))
                .then(|| format!("{}.0", l.trim_start_matches('0')))
                .map(|c| if c == ".0" { "0.0".to_string() } else { c }),
            };
            if canonical.is_some() || format.check(l).is_err() {
                return Err(ErrorKind::InvalidSetLiteral {
                    field: f,
                    format: format.describe(),
                    canonical,
                });
            }
            let registered = format.registered();
            if !registered.is_empty() && !registered.contains(&l) {
                warn(WarningKind::UnknownSetMember { field: f });
            }
            Ok(())
        }
    }
}
