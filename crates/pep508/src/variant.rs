//! Wheel-variant strings (PEP 825): `namespace`, `namespace :: feature` and
//! `namespace :: feature :: value`, validated as variantlib does and compared ignoring the
//! whitespace around `::`.

use crate::field::Field;

fn is_name(part: &str) -> bool {
    !part.is_empty()
        && part
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn is_value(part: &str) -> bool {
    !part.is_empty()
        && part
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// Splits on `::` and trims spaces and tabs around each part.
fn parts(s: &str) -> impl Iterator<Item = &str> {
    s.split("::").map(|p| p.trim_matches([' ', '\t']))
}

/// Compares variant strings ignoring the spaces and tabs around `::` (`spec/SPEC.md` §9).
pub(crate) fn variant_eq(a: &str, b: &str) -> bool {
    parts(a).eq(parts(b))
}

/// The canonical form of a variant string: parts joined by ` :: `, no surrounding whitespace.
pub(crate) fn canonical(s: &str) -> String {
    parts(s).collect::<Vec<_>>().join(" :: ")
}

/// Checks a `variant_label` literal: `""` or `[0-9a-z_.]+` (PEP 825 removed the 16-character
/// limit on 17 February 2026; `spec/SPEC.md` §9, 0.2).
///
/// # Errors
/// Why the label is malformed.
pub(crate) fn validate_label(l: &str) -> Result<(), String> {
    if l.is_empty() {
        return Ok(());
    }
    if !l
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
    {
        return Err(format!(
            "`{l}` may only use lowercase letters, digits, `_` and `.`"
        ));
    }
    Ok(())
}

/// Checks a literal tested against a variant set field; other fields accept any string.
///
/// # Errors
/// Why the literal is not a well-formed namespace, feature or property.
pub(crate) fn validate(field: Field, literal: &str) -> Result<(), String> {
    let parts: Vec<&str> = parts(literal).collect();
    let (want, what) = match field {
        Field::VariantNamespaces => (1, "a namespace (`nvidia`)"),
        Field::VariantFeatures => (2, "a feature (`namespace :: feature`)"),
        Field::VariantProperties => (3, "a property (`namespace :: feature :: value`)"),
        _ => return Ok(()),
    };
    if parts.len() != want {
        return Err(format!(
            "expected {what}, found {} part{} separated by `::`",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        ));
    }
    for (i, part) in parts.iter().enumerate() {
        let ok = if i == 2 {
            is_value(part)
        } else {
            is_name(part)
        };
        if !ok {
            let kind = ["namespace", "feature name", "value"][i];
            let allowed = if i == 2 {
                "lowercase letters, digits, `_` and `.`"
            } else {
                "lowercase letters, digits and `_`"
            };
            return Err(format!("the {kind} `{part}` may only use {allowed}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert!(
            validate(
                Field::VariantProperties,
                "nvidia :: cuda_version_lower_bound :: 12.8"
            )
            .is_ok()
        );
        assert!(validate(Field::VariantProperties, "nvidia::sm_arch::90").is_ok());
        assert!(validate(Field::VariantProperties, "nvidia :: cuda").is_err());
        assert!(validate(Field::VariantFeatures, "Nvidia :: cuda").is_err());
        assert!(validate(Field::VariantNamespaces, "x86_64").is_ok());
        assert!(validate(Field::VariantNamespaces, "").is_err());
        assert!(validate(Field::GpuBackends, "anything at all").is_ok());
    }
}
