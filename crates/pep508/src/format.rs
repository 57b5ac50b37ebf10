//! What each [`ValueFormat`] accepts: the one check of field values and literals that the
//! parser's checks, [`Environment`](crate::Environment), environment documents, the
//! `MARKERSPEC_<FIELD>` overrides and the command line's `--set` share.

use std::borrow::Cow;

use markerspec_pep440::Version;

use crate::field::{Field, ValueFormat};

impl ValueFormat {
    /// The format in words, for messages: e.g. `` `[a-z0-9_]+`, e.g. `cuda` ``.
    ///
    /// ```
    /// use markerspec_pep508::ValueFormat;
    /// assert_eq!(ValueFormat::GpuBackend.describe(), "`[a-z0-9_]+`, e.g. `cuda`");
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            ValueFormat::Text => "any string",
            ValueFormat::Version => "a PEP 440 version, e.g. `12.4`",
            ValueFormat::Name => "a name (`[A-Za-z0-9._-]+`)",
            ValueFormat::Arch => "an architecture, e.g. `x86_64`",
            ValueFormat::VariantLabel => "`[0-9a-z_.]+`",
            ValueFormat::VariantNamespace => "a namespace, e.g. `nvidia`",
            ValueFormat::VariantFeature => "`namespace :: feature`, e.g. `nvidia :: sm_arch`",
            ValueFormat::VariantProperty => {
                "`namespace :: feature :: value`, e.g. `nvidia :: sm_arch :: 90_real`"
            }
            ValueFormat::AbiFeature => "`[a-z0-9-]+`, e.g. `free-threading`",
            ValueFormat::GpuBackend => "`[a-z0-9_]+`, e.g. `cuda`",
            ValueFormat::ComputeCapability => {
                "`major.minor` in decimal without leading zeros, e.g. `8.6`"
            }
            ValueFormat::GfxTarget => "`gfx` and hexadecimal digits, e.g. `gfx90a`",
        }
    }

    /// What a value of this format is, as a noun: e.g. "a GPU backend name".
    fn noun(self) -> &'static str {
        match self {
            ValueFormat::Text => "a string",
            ValueFormat::Version => "a version",
            ValueFormat::Name => "a name",
            ValueFormat::Arch => "an architecture",
            ValueFormat::VariantLabel => "a variant label",
            ValueFormat::VariantNamespace => "a variant namespace",
            ValueFormat::VariantFeature => "a variant feature",
            ValueFormat::VariantProperty => "a variant property",
            ValueFormat::AbiFeature => "an ABI feature",
            ValueFormat::GpuBackend => "a GPU backend name",
            ValueFormat::ComputeCapability => "a compute capability",
            ValueFormat::GfxTarget => "a gfx target",
        }
    }

    /// The members `spec/SPEC.md` registers for a set format (a well-formed member outside
    /// them never matches a detected value, warning `W012`); empty when the set is open.
    ///
    /// ```
    /// use markerspec_pep508::ValueFormat;
    /// assert!(ValueFormat::GpuBackend.registered().contains(&"rocm"));
    /// ```
    pub fn registered(self) -> &'static [&'static str] {
        match self {
            ValueFormat::AbiFeature => {
                &["free-threading", "gil-enabled", "debug", "32-bit", "64-bit"]
            }
            ValueFormat::GpuBackend => &["cuda", "rocm"],
            _ => &[],
        }
    }

    /// Pairs of members that cannot both be in one value (PEP 780's groups).
    ///
    /// ```
    /// use markerspec_pep508::ValueFormat;
    /// assert_eq!(ValueFormat::AbiFeature.exclusive()[0], ["free-threading", "gil-enabled"]);
    /// ```
    pub fn exclusive(self) -> &'static [[&'static str; 2]] {
        match self {
            ValueFormat::AbiFeature => &[["free-threading", "gil-enabled"], ["32-bit", "64-bit"]],
            _ => &[],
        }
    }

    /// Checks one value (or one set member) and returns its canonical form: versions trimmed,
    /// names normalised, architectures through the §8.3 table, variant strings re-spaced,
    /// compute capabilities without leading zeros (`09.00` is `9.0`, §5.4). A quoted literal
    /// must already be canonical; the parser's checks compare it with what this returns.
    ///
    /// # Errors
    /// What is expected, in words, naming the value.
    ///
    /// ```
    /// use markerspec_pep508::ValueFormat;
    /// assert_eq!(ValueFormat::ComputeCapability.check("09.00").unwrap(), "9.0");
    /// assert_eq!(ValueFormat::Version.check(" 12.4 ").unwrap(), "12.4");
    /// assert!(ValueFormat::GfxTarget.check("sm_90").is_err());
    /// ```
    pub fn check(self, value: &str) -> Result<Cow<'_, str>, String> {
        let all = |ok: fn(u8) -> bool| !value.is_empty() && value.bytes().all(ok);
        let fits = match self {
            ValueFormat::Text => true,
            ValueFormat::Version => {
                let t = value.trim();
                return match t.parse::<Version>() {
                    Ok(_) => Ok(Cow::Borrowed(t)),
                    Err(e) => Err(format!("`{value}` is not a PEP 440 version: {e}")),
                };
            }
            ValueFormat::Name => {
                return Ok(if crate::name::is_normalized(value.as_bytes()) {
                    Cow::Borrowed(value)
                } else {
                    Cow::Owned(crate::name::normalize_name(value))
                });
            }
            ValueFormat::Arch => {
                return Ok(Cow::Owned(crate::arch::canonical_arch(value, None)));
            }
            ValueFormat::VariantLabel => {
                crate::variant::validate_label(value)
                    .map_err(|e| format!("`{value}` is not a variant label: {e}"))?;
                true
            }
            ValueFormat::VariantNamespace
            | ValueFormat::VariantFeature
            | ValueFormat::VariantProperty => {
                let field = match self {
                    ValueFormat::VariantNamespace => Field::VariantNamespaces,
                    ValueFormat::VariantFeature => Field::VariantFeatures,
                    _ => Field::VariantProperties,
                };
                crate::variant::validate(field, value).map_err(|e| format!("`{value}`: {e}"))?;
                return Ok(Cow::Owned(crate::variant::canonical(value)));
            }
            ValueFormat::AbiFeature => {
                all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            }
            ValueFormat::GpuBackend => {
                all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            }
            ValueFormat::ComputeCapability => {
                if let Some(canonical) = canonical_compute_capability(value) {
                    return Ok(if canonical == value {
                        Cow::Borrowed(value)
                    } else {
                        Cow::Owned(canonical)
                    });
                }
                false
            }
            ValueFormat::GfxTarget => value.strip_prefix("gfx").is_some_and(|rest| {
                !rest.is_empty()
                    && rest
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            }),
        };
        if fits {
            Ok(Cow::Borrowed(value))
        } else {
            Err(format!(
                "`{value}` is not {} ({})",
                self.noun(),
                self.describe()
            ))
        }
    }

    /// Checks the members of a set value: each member's format, then the exclusive pairs.
    /// Returns them canonical, sorted and without repeats.
    ///
    /// # Errors
    /// The first member that does not fit, or the first pair both present.
    ///
    /// ```
    /// use markerspec_pep508::ValueFormat;
    /// let members = ValueFormat::AbiFeature.check_members(&["free-threading", "64-bit", "64-bit"]);
    /// assert_eq!(members.unwrap(), ["64-bit".into(), "free-threading".into()]);
    /// // A build is free-threaded or has the GIL, not both.
    /// assert!(ValueFormat::AbiFeature.check_members(&["free-threading", "gil-enabled"]).is_err());
    /// ```
    pub fn check_members<S: AsRef<str>>(self, members: &[S]) -> Result<Vec<Box<str>>, String> {
        let mut out = Vec::with_capacity(members.len());
        for m in members {
            let m = m.as_ref();
            if m.is_empty() {
                return Err("an empty member".into());
            }
            out.push(self.check(m)?.into_owned().into_boxed_str());
        }
        out.sort();
        out.dedup();
        for [a, b] in self.exclusive() {
            if out.iter().any(|m| &**m == *a) && out.iter().any(|m| &**m == *b) {
                return Err(format!("`{a}` and `{b}` exclude each other"));
            }
        }
        Ok(out)
    }
}

/// A compute capability `major.minor` (ASCII digits on both sides of one `.`) in its canonical
/// form, decimal without leading zeros (`spec/SPEC.md` §5.4): `"09.00"` is `"9.0"`. `None` when
/// the text is not `major.minor`.
pub(crate) fn canonical_compute_capability(value: &str) -> Option<String> {
    let (major, minor) = value.split_once('.')?;
    Some(format!("{}.{}", decimal(major)?, decimal(minor)?))
}

/// ASCII digits without their leading zeros (`"0"` for zero); `None` for anything else.
fn decimal(part: &str) -> Option<&str> {
    if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = part.trim_start_matches('0');
    Some(if digits.is_empty() { "0" } else { digits })
}
