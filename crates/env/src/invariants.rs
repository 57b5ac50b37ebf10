//! The cross-field invariants of SPEC §4.4, checked in environment documents and after the
//! override layer.

use std::fmt;

use markerspec_pep440::Version;
use markerspec_pep508::{EnvValue, Field};

/// One invariant of SPEC §4.4 that a set of values breaks.
///
/// See the example on [`check_invariants`], which returns them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The invariant's name in SPEC §4.4: `I1` to `I6` (I7 is a check of one value).
    pub invariant: &'static str,
    /// The fields whose values break it.
    pub fields: Vec<Field>,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (SPEC §4.4): {}", self.invariant, self.message)
    }
}

/// Known or Absent: what an invariant looks at. Unknown (or a field not given) satisfies every
/// invariant.
#[derive(Clone, Copy)]
enum Seen<'a> {
    Str(&'a str),
    Set(&'a [Box<str>]),
    Absent,
}

impl Seen<'_> {
    /// Whether the value is not `""` / `[]`.
    fn present(self) -> bool {
        match self {
            Seen::Str(_) => true,
            Seen::Set(items) => !items.is_empty(),
            Seen::Absent => false,
        }
    }

    fn contains(self, member: &str) -> bool {
        matches!(self, Seen::Set(items) if items.iter().any(|i| &**i == member))
    }
}

/// Every invariant of SPEC §4.4 (I1 to I6) that the values `get` gives break, among their
/// Known and Absent values; an invariant with an Unknown side is not checked. (I7, one group
/// member at most in `sys_abi_features`, is checked with the value itself.)
///
/// ```
/// use markerspec_env::check_invariants;
/// use markerspec_pep508::{EnvValue, Field};
///
/// let get = |f: Field| match f {
///     Field::GpuBackends => Some(EnvValue::Absent),
///     Field::CudaVersion => Some(EnvValue::String("12.4".into())),
///     _ => None,
/// };
/// let broken = check_invariants(|f| get(f));
/// assert_eq!(broken[0].invariant, "I1");
/// assert!(broken[0].fields.contains(&Field::CudaVersion));
/// assert!(broken[0].to_string().starts_with("I1 (SPEC §4.4): "));
/// ```
pub fn check_invariants(get: impl Fn(Field) -> Option<EnvValue>) -> Vec<Violation> {
    let values: Vec<(Field, EnvValue)> = Field::ALL
        .iter()
        .filter_map(|&f| get(f).map(|v| (f, v)))
        .collect();
    let seen = |field: Field| -> Option<Seen<'_>> {
        match values.iter().find(|(f, _)| *f == field).map(|(_, v)| v)? {
            EnvValue::String(s) if s.is_empty() => Some(Seen::Absent),
            EnvValue::String(s) => Some(Seen::Str(s)),
            EnvValue::Set(items) => Some(Seen::Set(items)),
            EnvValue::Absent => Some(Seen::Absent),
            EnvValue::Unknown => None,
        }
    };
    let mut out = Vec::new();
    let mut violation = |invariant, fields: &[Field], message: String| {
        out.push(Violation {
            invariant,
            fields: fields.to_vec(),
            message,
        });
    };
    let said = |present: bool| if present { "given" } else { "absent" };

    // I1, I3: a backend is listed exactly when its stack's defining field is present.
    for (id, member, field) in [
        ("I1", "cuda", Field::CudaVersion),
        ("I3", "rocm", Field::RocmGpuArchs),
    ] {
        if let (Some(backends), Some(value)) = (seen(Field::GpuBackends), seen(field)) {
            let listed = backends.contains(member);
            if listed != value.present() {
                violation(
                    id,
                    &[Field::GpuBackends, field],
                    format!(
                        "`\"{member}\" in gpu_backends` is {listed} but `{field}` is {}",
                        said(value.present())
                    ),
                );
            }
        }
    }

    // I2: the compute-capability set, its minimum and its maximum.
    let set = seen(Field::CudaComputeCapabilities);
    let min = seen(Field::CudaComputeCapability);
    let max = seen(Field::CudaComputeCapabilityMax);
    let cc_fields = [
        Field::CudaComputeCapabilities,
        Field::CudaComputeCapability,
        Field::CudaComputeCapabilityMax,
    ];
    let present: Vec<(Field, bool)> = cc_fields
        .iter()
        .zip([set, min, max])
        .filter_map(|(f, v)| v.map(|v| (*f, v.present())))
        .collect();
    if present.windows(2).any(|w| w[0].1 != w[1].1) {
        let what: Vec<String> = present
            .iter()
            .map(|(f, p)| format!("`{f}` {}", said(*p)))
            .collect();
        violation(
            "I2",
            &cc_fields,
            format!(
                "the compute-capability fields disagree: {}",
                what.join(", ")
            ),
        );
    } else if let Some(Seen::Set(members)) = set {
        let mut versions: Vec<Version> = members.iter().filter_map(|m| m.parse().ok()).collect();
        versions.sort();
        for (field, scalar, want, word) in [
            (
                Field::CudaComputeCapability,
                min,
                versions.first(),
                "minimum",
            ),
            (
                Field::CudaComputeCapabilityMax,
                max,
                versions.last(),
                "maximum",
            ),
        ] {
            if let (Some(Seen::Str(s)), Some(want)) = (scalar, want)
                && s.parse::<Version>().ok().as_ref() != Some(want)
            {
                violation(
                    "I2",
                    &[Field::CudaComputeCapabilities, field],
                    format!(
                        "`{field}` is {s} but the {word} of `cuda_compute_capabilities` is {want}"
                    ),
                );
            }
        }
        if let Some(backends) = seen(Field::GpuBackends)
            && !members.is_empty()
            && !backends.contains("cuda")
        {
            violation(
                "I2",
                &[Field::CudaComputeCapabilities, Field::GpuBackends],
                "`cuda_compute_capabilities` lists devices but `gpu_backends` has no `cuda`"
                    .to_owned(),
            );
        }
    }

    // I4: the variant sets derive from the properties; no variant, no properties.
    if let Some(properties) = seen(Field::VariantProperties) {
        let props: &[Box<str>] = match properties {
            Seen::Set(items) => items,
            _ => &[],
        };
        for (field, parts) in [(Field::VariantFeatures, 2), (Field::VariantNamespaces, 1)] {
            let Some(value) = seen(field) else { continue };
            let mut want: Vec<String> = props
                .iter()
                .map(|p| p.split(" :: ").take(parts).collect::<Vec<_>>().join(" :: "))
                .collect();
            want.sort();
            want.dedup();
            let mut have: Vec<String> = match value {
                Seen::Set(items) => items.iter().map(|s| s.to_string()).collect(),
                _ => Vec::new(),
            };
            have.sort();
            if have != want {
                violation(
                    "I4",
                    &[Field::VariantProperties, field],
                    format!(
                        "`{field}` must be [{}], as `variant_properties` gives",
                        want.join(", ")
                    ),
                );
            }
        }
        if let Some(label) = seen(Field::VariantLabel)
            && matches!(label, Seen::Absent | Seen::Str("null"))
            && properties.present()
        {
            violation(
                "I4",
                &[Field::VariantLabel, Field::VariantProperties],
                "a non-variant wheel (`variant_label` \"\" or \"null\") has no properties"
                    .to_owned(),
            );
        }
    }

    // I5: one C library.
    if let (Some(glibc), Some(musl)) = (seen(Field::GlibcVersion), seen(Field::MuslVersion))
        && glibc.present()
        && musl.present()
    {
        violation(
            "I5",
            &[Field::GlibcVersion, Field::MuslVersion],
            "`glibc_version` and `musl_version` are both given".to_owned(),
        );
    }

    // I6: cuDNN's CUDA version exactly when cuDNN.
    if let (Some(cudnn), Some(cuda)) = (seen(Field::CudnnVersion), seen(Field::CudnnCudaVersion))
        && cudnn.present() != cuda.present()
    {
        violation(
            "I6",
            &[Field::CudnnVersion, Field::CudnnCudaVersion],
            format!(
                "`cudnn_version` is {} but `cudnn_cuda_version` is {}",
                said(cudnn.present()),
                said(cuda.present())
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> EnvValue {
        if v.is_empty() {
            EnvValue::Absent
        } else {
            EnvValue::String(v.into())
        }
    }

    fn set(items: &[&str]) -> EnvValue {
        if items.is_empty() {
            EnvValue::Absent
        } else {
            EnvValue::Set(items.iter().map(|i| (*i).into()).collect())
        }
    }

    fn ids(values: &[(Field, EnvValue)]) -> Vec<&'static str> {
        check_invariants(|f| values.iter().find(|(g, _)| *g == f).map(|(_, v)| v.clone()))
            .into_iter()
            .map(|v| v.invariant)
            .collect()
    }

    #[test]
    fn each_invariant_holds_and_breaks() {
        use Field::*;
        let cuda = [
            (GpuBackends, set(&["cuda"])),
            (CudaVersion, s("12.8")),
            (CudaComputeCapabilities, set(&["10.0", "8.6", "9.0"])),
            (CudaComputeCapability, s("8.6")),
            (CudaComputeCapabilityMax, s("10.0")),
            (CudnnVersion, s("9.7.1")),
            (CudnnCudaVersion, s("12.8")),
            (GlibcVersion, s("2.39")),
            (MuslVersion, s("")),
            (RocmGpuArchs, set(&[])),
        ];
        assert_eq!(ids(&cuda), Vec::<&str>::new());
        let with = |field: Field, value: EnvValue| -> Vec<&'static str> {
            let mut v = cuda.to_vec();
            v.retain(|(f, _)| *f != field);
            v.push((field, value));
            ids(&v)
        };
        assert_eq!(with(CudaVersion, s("")), ["I1"]);
        assert_eq!(with(GpuBackends, set(&["cuda", "rocm"])), ["I3"]);
        assert_eq!(with(GpuBackends, set(&[])), ["I1", "I2"]);
        assert_eq!(with(CudaComputeCapability, s("9.0")), ["I2"]);
        assert_eq!(with(CudaComputeCapabilityMax, s("9.0")), ["I2"]);
        assert_eq!(with(CudaComputeCapabilityMax, s("")), ["I2"]);
        assert_eq!(with(CudaComputeCapabilityMax, s("10")), Vec::<&str>::new());
        assert_eq!(with(MuslVersion, s("1.2.5")), ["I5"]);
        assert_eq!(with(CudnnCudaVersion, s("")), ["I6"]);
        // Unknown satisfies every invariant.
        assert_eq!(with(CudaVersion, EnvValue::Unknown), Vec::<&str>::new());
        assert_eq!(with(GpuBackends, EnvValue::Unknown), Vec::<&str>::new());
        // CUDA without a device is allowed (CEP 46's `__cuda` without `__cuda_arch`).
        let no_device = [
            (GpuBackends, set(&["cuda"])),
            (CudaVersion, s("12.4")),
            (CudaComputeCapabilities, set(&[])),
            (CudaComputeCapability, s("")),
            (CudaComputeCapabilityMax, s("")),
        ];
        assert_eq!(ids(&no_device), Vec::<&str>::new());
        // I4.
        let variant = [
            (VariantLabel, s("cu128")),
            (VariantProperties, set(&["nvidia :: sm_arch :: 90_real"])),
            (VariantFeatures, set(&["nvidia :: sm_arch"])),
            (VariantNamespaces, set(&["nvidia"])),
        ];
        assert_eq!(ids(&variant), Vec::<&str>::new());
        let mut broken = variant.to_vec();
        broken[3] = (VariantNamespaces, set(&[]));
        assert_eq!(ids(&broken), ["I4"]);
        let mut broken = variant.to_vec();
        broken[0] = (VariantLabel, s(""));
        assert_eq!(ids(&broken), ["I4"]);
    }
}
