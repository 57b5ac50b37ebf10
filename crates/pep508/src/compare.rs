//! The primitives every profile's comparisons are built from: operator mirroring, specifiers
//! read from literals, set membership.

use markerspec_pep440::{Operator, VersionSpecifier};

use crate::field::{Field, FieldType};
use crate::operator::{MarkerOperator, MarkerValue};

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

/// `op version` as a PEP 440 specifier, as packaging builds it (`Specifier(op + text)`):
/// [`VersionSpecifier::from_parts`] strips Python's whitespace around the version and lets a
/// version that starts with an operator character continue the operator (`"=3.12"` after
/// `==` is `===3.12`), but not across whitespace (`== =3.12` is no specifier).
pub(crate) fn specifier(op: MarkerOperator, version: &str) -> Option<VersionSpecifier> {
    let op: Operator = op.pep440()?;
    VersionSpecifier::from_parts(op, version).ok()
}

/// The specifier a comparison is read as, for `field OP "L"`,
/// `OP L`; for `"L" OP field`, the mirrored operator with `L` (used by `spec-2026`); computed once
/// when a comparison is lowered ([`crate::lower`]).
pub(crate) fn precompile(
    lhs: &MarkerValue,
    op: MarkerOperator,
    rhs: &MarkerValue,
) -> Option<VersionSpecifier> {
    let (f, op, l) = match (lhs, rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (f, op, l),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (f, mirror(op)?, l),
        _ => return None,
    };
    if !is_version_type(*f) {
        return None;
    }
    specifier(op, l)
}

/// Whether a literal starts with an operator character, so that `op + literal` would read as
/// another operator (`python_version == "=3.12"` is `===3.12` to packaging). Only the literal's
/// first character counts: packaging strips `op + literal` as a whole, so `" =3.12"` leaves a
/// space inside (`== =3.12`), which is no specifier at all.
pub(crate) fn continues_operator(l: &str) -> bool {
    l.starts_with(['=', '!', '<', '>', '~'])
}

/// Membership of a literal in a set value: variant strings compare with their `::` separators
/// canonicalised; every other set compares exactly (names were normalised when they were stored
/// and parsed).
pub(crate) fn member(f: Field, literal: &str, items: &[Box<str>]) -> bool {
    match f {
        Field::VariantNamespaces | Field::VariantFeatures | Field::VariantProperties => {
            items.iter().any(|i| crate::variant::variant_eq(i, literal))
        }
        _ => items.iter().any(|i| &**i == literal),
    }
}

/// Which operand is the variable.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// `field OP "literal"`.
    FieldLeft,
    /// `"literal" OP field`.
    LiteralLeft,
}
