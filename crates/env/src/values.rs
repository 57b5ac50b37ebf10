//! Checking and canonicalising field values from outside (override variables, environment
//! documents): SPEC §8 literal formats, §8.3's architecture table, §9's variant grammar.

use markerspec_pep508::{EnvValue, Field, FieldType};

/// The one table of architecture spellings (SPEC §8.3) lives in the marker library, beside the
/// checks that reject its aliases in markers.
pub use markerspec_pep508::canonical_arch;

/// Checks a known value of `field` from outside and returns it canonicalised, by the field
/// registry's formats ([`EnvValue::checked`]): versions must be PEP 440 versions, set members
/// must have the field's literal format (variant properties are re-spaced, duplicates
/// collapse), `interpreter_arch` is mapped through the table of §8.3. Absent and Unknown pass
/// unchanged.
///
/// # Errors
/// What is expected, in words, for a message that names the variable or key.
///
/// ```
/// use markerspec_pep508::{EnvValue, Field};
///
/// let v = markerspec_env::validate(Field::CudaVersion, EnvValue::String("12.4".into()));
/// assert_eq!(v, Ok(EnvValue::String("12.4".into())));
/// assert!(markerspec_env::validate(Field::CudaVersion, EnvValue::String("twelve".into())).is_err());
/// ```
pub fn validate(field: Field, value: EnvValue) -> Result<EnvValue, String> {
    value.checked(field).map_err(|e| e.reason)
}

/// Checks a value from an environment document or a caller's setting (`markerspec eval
/// --set`): [`validate`]'s rules, and the standard `Version` fields (`python_version`,
/// `python_full_version`, `implementation_version`) must hold a PEP 440 version
/// (`python_full_version` may end in `+`, as some builds print it; `""` is allowed, the living
/// spec's value for what cannot be calculated). An
/// [`EnvironmentDocument`](crate::EnvironmentDocument) keeps the text such a field holds when
/// it is no version, with the warning `text-version-value`, where this function refuses it.
///
/// # Errors
/// What is expected, in words, for a message that names the key or setting.
pub fn check_input(field: Field, value: EnvValue) -> Result<EnvValue, String> {
    let value = validate(field, value)?;
    if !field.is_extended()
        && field.field_type() == FieldType::Version
        && let EnvValue::String(s) = &value
        && !s.is_empty()
    {
        let v = s.strip_suffix('+').unwrap_or(s);
        if v.parse::<markerspec_pep440::Version>().is_err() {
            return Err(format!(
                "`{s}` is not a PEP 440 version; expected a version such as `3.12`"
            ));
        }
    }
    Ok(value)
}

/// Reads an override variable's text for `field` (SPEC §10.3), as [`EnvValue::from_text`]
/// does: empty is Absent; a set field takes a comma-separated list (whitespace around items
/// ignored, empty items invalid); every value is checked.
///
/// # Errors
/// What is expected, in words.
///
/// ```
/// use markerspec_pep508::{EnvValue, Field};
///
/// let v = markerspec_env::parse_override(Field::GpuBackends, "cuda, rocm").unwrap();
/// assert_eq!(v, EnvValue::Set(vec!["cuda".into(), "rocm".into()]));
/// assert_eq!(markerspec_env::parse_override(Field::CudaVersion, ""), Ok(EnvValue::Absent));
/// assert!(markerspec_env::parse_override(Field::GpuBackends, "cuda,,rocm").is_err());
/// ```
pub fn parse_override(field: Field, text: &str) -> Result<EnvValue, String> {
    EnvValue::from_text(field, text).map_err(|e| e.reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> EnvValue {
        EnvValue::Set(items.iter().map(|s| (*s).into()).collect())
    }

    #[test]
    fn arch_table() {
        for (raw, bits, want) in [
            ("x86_64", None, "x86_64"),
            ("AMD64", None, "x86_64"),
            ("amd64", Some(32), "x86"),
            ("i686", None, "x86"),
            ("win32", None, "x86"),
            ("arm64", None, "aarch64"),
            ("aarch64", Some(32), "arm"),
            ("armv7l", None, "arm"),
            ("ppc64le", Some(32), "ppc64le"),
            ("powerpc64", Some(32), "ppc"),
            ("s390x", Some(32), "s390"),
            ("riscv64", None, "riscv64"),
            ("SPARC64", None, "sparc64"),
        ] {
            assert_eq!(canonical_arch(raw, bits), want, "{raw} {bits:?}");
        }
    }

    #[test]
    fn overrides_parse_per_type() {
        assert_eq!(
            parse_override(Field::CudaVersion, "12.4"),
            Ok(EnvValue::String("12.4".into()))
        );
        assert_eq!(parse_override(Field::CudaVersion, ""), Ok(EnvValue::Absent));
        assert!(
            parse_override(Field::CudaVersion, "twelve")
                .unwrap_err()
                .contains("PEP 440")
        );
        assert_eq!(
            parse_override(Field::GpuBackends, " rocm , cuda,cuda"),
            Ok(set(&["cuda", "rocm"]))
        );
        assert!(parse_override(Field::GpuBackends, "cuda,").is_err());
        assert!(parse_override(Field::GpuBackends, "CUDA").is_err());
        assert_eq!(
            parse_override(Field::InterpreterArch, "AMD64"),
            Ok(EnvValue::String("x86_64".into()))
        );
        assert_eq!(
            parse_override(Field::NvidiaDriverVersion, "550.144.03"),
            Ok(EnvValue::String("550.144.03".into()))
        );
        assert!(parse_override(Field::CudaComputeCapabilities, "sm_86").is_err());
        assert_eq!(
            parse_override(Field::CudaComputeCapabilities, "9.0,8.6"),
            Ok(set(&["8.6", "9.0"]))
        );
        assert!(parse_override(Field::RocmGpuArchs, "gfx90a,gfx94x").is_err());
        assert!(
            parse_override(Field::SysAbiFeatures, "gil-enabled,free-threading")
                .unwrap_err()
                .contains("exclude each other")
        );
        assert_eq!(
            parse_override(Field::VariantProperties, "nvidia::sm_arch::90_real"),
            Ok(set(&["nvidia :: sm_arch :: 90_real"]))
        );
        assert!(parse_override(Field::VariantProperties, "NVIDIA :: a :: b").is_err());
        assert!(parse_override(Field::VariantLabel, "Cu128").is_err());
        assert_eq!(
            parse_override(Field::VariantLabel, "null"),
            Ok(EnvValue::String("null".into()))
        );
    }

    #[test]
    fn standard_fields_pass_unchecked() {
        assert_eq!(
            validate(Field::PythonVersion, EnvValue::String("".into())),
            Ok(EnvValue::String("".into()))
        );
        assert!(validate(Field::PythonVersion, set(&["3"])).is_err());
    }
}
