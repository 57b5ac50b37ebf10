//! Checking and canonicalising field values from outside (override variables, environment
//! documents): SPEC §8 literal formats, §8.3's architecture table, §9's variant grammar.

use markerspec_pep440::Version;
use markerspec_pep508::{EnvValue, Field, FieldType};

/// Maps a raw architecture name to its canonical spelling (SPEC §8.3), matching
/// case-insensitively; a name in neither column comes back lowercased. With
/// `pointer_bits == Some(32)`, a 64-bit architecture becomes its 32-bit form (a 32-bit
/// userland on a 64-bit kernel).
///
/// ```
/// use markerspec_env::canonical_arch;
/// assert_eq!(canonical_arch("AMD64", None), "x86_64");
/// assert_eq!(canonical_arch("arm64", None), "aarch64");
/// assert_eq!(canonical_arch("x86_64", Some(32)), "x86");
/// assert_eq!(canonical_arch("mips64", None), "mips64");
/// ```
pub fn canonical_arch(raw: &str, pointer_bits: Option<u32>) -> String {
    // The table lives beside the marker checks that reject its aliases (markerspec-pep508).
    let pointer_bytes = if pointer_bits == Some(32) { 4 } else { 8 };
    markerspec_pep508::canonical_arch(raw.trim(), pointer_bytes)
}

/// The PEP 780 groups of `sys_abi_features`: two members of one group cannot both be present.
const ABI_GROUPS: &[&[&str]] = &[&["free-threading", "gil-enabled"], &["32-bit", "64-bit"]];

fn all_bytes(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    !s.is_empty() && s.bytes().all(ok)
}

fn lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Canonicalises a `namespace :: feature [:: value]` string with `parts` components, or says
/// what is wrong (SPEC §9).
fn variant(text: &str, parts: usize) -> Result<String, String> {
    let pieces: Vec<&str> = text
        .split("::")
        .map(|p| p.trim_matches([' ', '\t']))
        .collect();
    let what = match parts {
        1 => "a namespace such as `nvidia`",
        2 => "`namespace :: feature`, e.g. `nvidia :: sm_arch`",
        _ => "`namespace :: feature :: value`, e.g. `nvidia :: sm_arch :: 90_real`",
    };
    if pieces.len() != parts {
        return Err(format!("expected {what}"));
    }
    for (i, piece) in pieces.iter().enumerate() {
        let value = i == 2;
        let ok = all_bytes(piece, |b| {
            lower_alnum(b) || b == b'_' || (value && b == b'.')
        });
        if !ok {
            return Err(format!(
                "expected {what}; components use lowercase letters, digits and `_`{}",
                if value { " (and `.` in the value)" } else { "" }
            ));
        }
    }
    Ok(pieces.join(" :: "))
}

/// Checks one member of a set field and returns its canonical form.
fn set_member(field: Field, item: &str) -> Result<String, String> {
    let ok = |good: bool, expected: &str| {
        if good {
            Ok(item.to_owned())
        } else {
            Err(format!("`{item}` is not {expected}"))
        }
    };
    match field {
        Field::SysAbiFeatures => ok(
            all_bytes(item, |b| lower_alnum(b) || b == b'-'),
            "an ABI feature (`[a-z0-9-]+`, e.g. `free-threading`)",
        ),
        Field::GpuBackends => ok(
            all_bytes(item, |b| lower_alnum(b) || b == b'_'),
            "a GPU backend name (`[a-z0-9_]+`, e.g. `cuda`)",
        ),
        Field::CudaComputeCapabilities => {
            let good = item.split_once('.').is_some_and(|(a, b)| {
                all_bytes(a, |c| c.is_ascii_digit()) && all_bytes(b, |c| c.is_ascii_digit())
            });
            ok(good, "a compute capability `major.minor` (e.g. `8.6`)")
        }
        Field::RocmGpuArchs => ok(
            item.strip_prefix("gfx").is_some_and(|rest| {
                all_bytes(rest, |b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            }),
            "a gfx target (`gfx[0-9a-f]+`, e.g. `gfx90a`)",
        ),
        Field::VariantNamespaces => variant(item, 1).map_err(|e| format!("`{item}`: {e}")),
        Field::VariantFeatures => variant(item, 2).map_err(|e| format!("`{item}`: {e}")),
        Field::VariantProperties => variant(item, 3).map_err(|e| format!("`{item}`: {e}")),
        _ => Ok(item.to_owned()),
    }
}

/// Checks a known value of `field` from outside and returns it canonicalised: versions must be
/// PEP 440 versions, set members must have the field's literal format (variant properties are
/// re-spaced, duplicates collapse), `interpreter_arch` is mapped through the table of §8.3.
/// Absent and Unknown pass unchanged.
///
/// # Errors
/// What is expected, in words, for a message that names the variable or key.
pub fn validate(field: Field, value: EnvValue) -> Result<EnvValue, String> {
    match value {
        EnvValue::Absent | EnvValue::Unknown => Ok(value),
        EnvValue::String(s) => {
            if field.field_type() == FieldType::Set {
                return Err("expected a list of strings".into());
            }
            if !field.is_extended() {
                return Ok(EnvValue::String(s));
            }
            match field {
                _ if field.field_type() == FieldType::Version => {
                    if s.trim().parse::<Version>().is_ok() {
                        Ok(EnvValue::String(s.trim().into()))
                    } else {
                        Err(format!(
                            "`{s}` is not a PEP 440 version; expected a version such as `12.4`"
                        ))
                    }
                }
                Field::InterpreterArch => Ok(EnvValue::String(canonical_arch(&s, None).into())),
                Field::VariantLabel => {
                    let good = s.len() <= 16
                        && all_bytes(&s, |b| lower_alnum(b) || b == b'_' || b == b'.');
                    if good {
                        Ok(EnvValue::String(s))
                    } else {
                        Err(format!(
                            "`{s}` is not a variant label (`[0-9a-z_.]{{1,16}}`)"
                        ))
                    }
                }
                _ => Ok(EnvValue::String(s)),
            }
        }
        EnvValue::Set(items) => {
            if field.field_type() != FieldType::Set {
                return Err("expected a string, not a list".into());
            }
            let mut out = Vec::with_capacity(items.len());
            for item in &items {
                if item.is_empty() {
                    return Err("an empty member".into());
                }
                out.push(set_member(field, item)?.into_boxed_str());
            }
            out.sort();
            out.dedup();
            if field == Field::SysAbiFeatures {
                for group in ABI_GROUPS {
                    let present: Vec<&str> = group
                        .iter()
                        .copied()
                        .filter(|g| out.iter().any(|o| &**o == *g))
                        .collect();
                    if present.len() > 1 {
                        return Err(format!(
                            "`{}` and `{}` cannot both be present",
                            present[0], present[1]
                        ));
                    }
                }
            }
            if out.is_empty() && field.is_extended() {
                Ok(EnvValue::Absent)
            } else {
                Ok(EnvValue::Set(out))
            }
        }
    }
}

/// Reads an override variable's text for `field` (SPEC §10.3): empty is Absent; a set field
/// takes a comma-separated list (whitespace around items ignored, empty items invalid); every
/// value is checked with [`validate`].
///
/// # Errors
/// What is expected, in words.
pub fn parse_override(field: Field, text: &str) -> Result<EnvValue, String> {
    if text.is_empty() {
        return Ok(EnvValue::Absent);
    }
    if field.field_type() == FieldType::Set {
        let items: Vec<Box<str>> = text.split(',').map(|s| s.trim().into()).collect();
        if items.iter().any(|s| s.is_empty()) {
            return Err(format!(
                "`{text}` has an empty item; expected a comma-separated list"
            ));
        }
        validate(field, EnvValue::Set(items))
    } else {
        validate(field, EnvValue::String(text.into()))
    }
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
                .contains("cannot both")
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
