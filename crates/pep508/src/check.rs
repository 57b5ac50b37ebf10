//! Checks of one comparison made while parsing: what the profile and dialect reject, what they
//! warn about, the normalisation of names compared with `extra`, `extras` and
//! `dependency_groups`.
//!
//! Everything here depends only on the marker text, so a marker that parses can always be
//! evaluated under the profile it was parsed with.

use crate::arch::{ArchSpelling, arch_spelling};
use crate::compare::{continues_operator, mirror, precompile};
use crate::error::{ErrorKind, WarningKind};
use crate::field::{Field, FieldType, ValueFormat};
use crate::name::normalize_name;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::ParseOptions;
use crate::small::SmallStr;
use crate::syntax::MarkerExpression;

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
        _ => {}
    }
    let rules = opts.profile.rules();
    let spec = rules.strict;
    let has_spec = precompile(&e.lhs, e.op, &e.rhs).is_some();
    if let (Some(check_standard), false) = (rules.check_standard, e.has_extended_field()) {
        // The profile's own checks (uv keeps or drops the comparison).
        return check_standard(e, warn);
    }
    match (&e.lhs, &e.rhs) {
        (MarkerValue::Literal(_), MarkerValue::Literal(_)) => {
            if spec {
                return Err(ErrorKind::NoFieldInComparison);
            }
            warn(WarningKind::ConstantComparison);
        }
        (MarkerValue::Field(a), MarkerValue::Field(b)) => {
            if spec || a.is_extended() || b.is_extended() {
                return Err(ErrorKind::FieldComparedToField);
            }
            warn(WarningKind::ConstantComparison);
        }
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => {
            check_comparison(*f, e.op, l, false, has_spec, opts, warn)?
        }
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => {
            check_comparison(*f, e.op, l, true, has_spec, opts, warn)?
        }
    }
    Ok(true)
}

fn check_comparison(
    f: Field,
    op: MarkerOperator,
    literal: &SmallStr,
    literal_left: bool,
    has_spec: bool,
    opts: &ParseOptions,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<(), ErrorKind> {
    use MarkerOperator as O;
    let spec = opts.profile.rules().strict;
    if spec && !opts.lock_file && matches!(f, Field::Extras | Field::DependencyGroups) {
        return Err(ErrorKind::LockFileField { field: f });
    }
    if f.is_extended() {
        return check_extended(f, op, literal, literal_left, warn);
    }
    match f.field_type() {
        FieldType::Extra => {
            if spec && !matches!(op, O::Equal | O::NotEqual) {
                warn(WarningKind::ExtraOperator);
            } else if !spec && matches!(op, O::TildeEqual | O::ExactEqual) {
                warn(WarningKind::AlwaysErrors {
                    reason: format!("`{op}` is not defined on `extra`"),
                });
            }
        }
        FieldType::Set => {
            let membership = literal_left && matches!(op, O::In | O::NotIn);
            if membership {
                return Ok(());
            }
            if spec {
                return Err(set_misuse(f, op, literal_left));
            }
            if !literal_left || matches!(op, O::TildeEqual | O::ExactEqual) {
                warn(WarningKind::AlwaysErrors {
                    reason: format!("`{f}` is a set; only `\"value\" in {f}` is defined"),
                });
            }
        }
        FieldType::String => match op {
            O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                warn(WarningKind::StringOrdering { field: f })
            }
            O::TildeEqual | O::ExactEqual if spec => {
                warn(WarningKind::VersionOpOnString { field: f })
            }
            O::TildeEqual | O::ExactEqual => warn(WarningKind::AlwaysErrors {
                reason: format!("`{op}` is not defined on strings"),
            }),
            _ => {}
        },
        FieldType::Version | FieldType::VersionOrString => {
            let version = f.field_type() == FieldType::Version;
            if matches!(op, O::In | O::NotIn) {
                if spec && version {
                    warn(WarningKind::ContainmentOnVersion { field: f });
                }
                return Ok(());
            }
            // `has_spec`: the literal (mirrored when on the left) forms a valid specifier.
            let operand_ok = has_spec && !(spec && continues_operator(literal));
            if !operand_ok && version {
                if !spec && op == O::TildeEqual {
                    warn(WarningKind::AlwaysErrors {
                        reason: format!("`~={literal}` is not a valid version specifier"),
                    });
                } else {
                    warn(WarningKind::VersionFieldStringComparison { field: f });
                }
            }
        }
    }
    Ok(())
}

fn set_misuse(f: Field, op: MarkerOperator, literal_left: bool) -> ErrorKind {
    if !literal_left && matches!(op, MarkerOperator::In | MarkerOperator::NotIn) {
        ErrorKind::SetFieldOnLeft { field: f }
    } else {
        ErrorKind::InvalidSetOperator { field: f, op }
    }
}

/// The typed rules of the extended fields (`spec/SPEC.md` §5, §8, §9), the same in every
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
        FieldType::Version => {
            if matches!(op, O::In | O::NotIn) {
                return Err(ErrorKind::ContainmentOnVersion { field: f });
            }
            if l.is_empty() {
                return if matches!(op, O::Equal | O::NotEqual) {
                    Ok(())
                } else {
                    Err(invalid(
                        "the empty value (absence test) can only be compared with `==` or `!=`"
                            .into(),
                    ))
                };
            }
            let op = if literal_left {
                if l.contains('*') {
                    return Err(invalid("a wildcard needs the field on the left".into()));
                }
                mirror(op).ok_or_else(|| invalid(format!("`{op}` needs the field on the left")))?
            } else {
                op
            };
            version_operand(f, op, l)
        }
        FieldType::VersionOrString => {
            if matches!(op, O::In | O::NotIn) {
                return Err(ErrorKind::ContainmentOnVersion { field: f });
            }
            if matches!(
                op,
                O::LessThan
                    | O::LessThanEqual
                    | O::GreaterThan
                    | O::GreaterThanEqual
                    | O::TildeEqual
            ) {
                let op = if literal_left {
                    mirror(op)
                        .ok_or_else(|| invalid(format!("`{op}` needs the field on the left")))?
                } else {
                    op
                };
                return version_operand(f, op, l);
            }
            Ok(())
        }
        FieldType::String | FieldType::Extra => {
            match op {
                O::TildeEqual | O::ExactEqual => {
                    return Err(ErrorKind::VersionOpOnString { field: f });
                }
                O::LessThan | O::LessThanEqual | O::GreaterThan | O::GreaterThanEqual => {
                    warn(WarningKind::StringOrdering { field: f })
                }
                O::In | O::NotIn if !literal_left => warn(WarningKind::FieldInLiteral { field: f }),
                _ => {}
            }
            match f {
                Field::InterpreterArch if !l.is_empty() => match arch_spelling(l) {
                    ArchSpelling::Canonical(_) => Ok(()),
                    ArchSpelling::Alias(canonical) => Err(ErrorKind::NoncanonicalArchLiteral {
                        literal: l.to_string(),
                        canonical,
                    }),
                    ArchSpelling::Unknown => {
                        warn(WarningKind::UnknownArchLiteral {
                            literal: l.to_string(),
                        });
                        Ok(())
                    }
                },
                Field::VariantLabel => crate::variant::validate_label(l)
                    .map_err(|reason| ErrorKind::InvalidVariantLabel { reason }),
                _ => Ok(()),
            }
        }
    }
}

/// `op literal` must be a valid PEP 440 specifier, read as written (no operator characters
/// inside the literal).
fn version_operand(f: Field, op: MarkerOperator, l: &str) -> Result<(), ErrorKind> {
    let reason = if continues_operator(l) {
        Some("the value starts with an operator character".to_string())
    } else {
        match op
            .pep440()
            .map(|o| markerspec_pep440::VersionSpecifier::from_parts(o, crate::compare::strip(l)))
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
            if format.check(l).is_err() {
                return Err(ErrorKind::InvalidSetLiteral {
                    field: f,
                    format: format.describe(),
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
