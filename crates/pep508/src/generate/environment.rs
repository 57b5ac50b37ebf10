//! Environments to evaluate generated markers in.

use arbitrary::{Result, Unstructured};

use super::{Options, odd_string, pick};
use crate::{Dialect, EnvValue, Environment, Field, FieldType};

/// A value for `field` that is known (a string, a set, or Absent), drawn from `literals` (a
/// marker's own, so that comparisons match) half of the time.
///
/// # Errors
/// Only what [`Unstructured`] reports.
pub fn known_value(
    u: &mut Unstructured<'_>,
    field: Field,
    literals: &[String],
) -> Result<EnvValue> {
    let string = |u: &mut Unstructured<'_>| -> Result<String> {
        if !literals.is_empty() && u.arbitrary()? {
            Ok(pick(u, literals)?.clone())
        } else {
            odd_string(u)
        }
    };
    if u.ratio(1, 8)? {
        return Ok(EnvValue::Absent);
    }
    Ok(if field.field_type() == FieldType::Set {
        let n = u.int_in_range(0..=3)?;
        let items = (0..n)
            .map(|_| string(u).map(String::into_boxed_str))
            .collect::<Result<Vec<_>>>()?;
        EnvValue::Set(items)
    } else {
        EnvValue::String(string(u)?.into())
    })
}

/// An environment for the odd corners: each field unset, known (any string, from
/// `literals` half of the time), Absent or Unknown, and a few requested extras.
///
/// # Errors
/// Only what [`Unstructured`] reports.
pub fn environment(u: &mut Unstructured<'_>, literals: &[String]) -> Result<Environment> {
    let mut env = Environment::new();
    for &field in Field::ALL {
        if field == Field::Extra {
            continue;
        }
        let value = match u.int_in_range(0u8..=7)? {
            0 => continue,
            1 => EnvValue::Unknown,
            _ => known_value(u, field, literals)?,
        };
        // A set goes to a set field only, so this cannot fail; skip the field if it did.
        let _ = env.set(field, value);
    }
    Ok(env.with_extras(extras(u, literals)?))
}

fn extras(u: &mut Unstructured<'_>, literals: &[String]) -> Result<Vec<String>> {
    let n = u.int_in_range(0..=3)?;
    let mut extras = Vec::new();
    for _ in 0..n {
        extras.push(if !literals.is_empty() && u.arbitrary()? {
            pick(u, literals)?.clone()
        } else {
            (*pick(u, &["test", "cuda", "Dev_Tools", "gpu", "a.b"])?).to_string()
        });
    }
    Ok(extras)
}

/// One real machine's values, field by field: `(os_name, sys_platform, platform_system,
/// platform_machine, platform_release, platform_version)`.
const PLATFORMS: &[(&str, &str, &str, &str, &str, &str)] = &[
    (
        "posix",
        "linux",
        "Linux",
        "x86_64",
        "6.5.0-1025-azure",
        "#1 SMP PREEMPT_DYNAMIC",
    ),
    (
        "posix",
        "linux",
        "Linux",
        "aarch64",
        "5.15.148-tegra",
        "#1 SMP PREEMPT",
    ),
    (
        "posix",
        "darwin",
        "Darwin",
        "arm64",
        "23.1.0",
        "Darwin Kernel Version 23.1.0",
    ),
    ("nt", "win32", "Windows", "AMD64", "10", "10.0.19045"),
    (
        "posix",
        "linux",
        "Linux",
        "x86_64",
        "5.15.167.4-microsoft-standard-WSL2",
        "#1 SMP",
    ),
];

/// A consistent environment a real interpreter could report: every standard field known
/// (`python_version` derived from `python_full_version`), the extended fields (in the
/// extended dialect) and the lock-file fields (in lock-file context) known or Absent, and
/// requested extras; `literals` (a marker's own) sometimes replace a
/// value so that comparisons match. Under the `packaging` profile no evaluation of it fails for
/// a missing value.
///
/// # Errors
/// Only what [`Unstructured`] reports.
pub fn realistic_environment(
    u: &mut Unstructured<'_>,
    options: &Options,
    literals: &[String],
) -> Result<Environment> {
    let dialect = options.dialect;
    let (os, platform, system, machine, release, version) = *pick(u, PLATFORMS)?;
    let minor = *pick(u, &[8u32, 9, 10, 11, 12, 13, 14])?;
    let patch = u.int_in_range(0u32..=12)?;
    let full = if minor == 14 && u.ratio(1, 3)? {
        "3.14.0rc1".to_string()
    } else {
        format!("3.{minor}.{patch}")
    };
    let (implementation, name) = *pick(u, &[("CPython", "cpython"), ("PyPy", "pypy")])?;
    let mut env = Environment::new()
        .with_unchecked(Field::OsName, os)
        .with_unchecked(Field::SysPlatform, platform)
        .with_unchecked(Field::PlatformSystem, system)
        .with_unchecked(Field::PlatformMachine, machine)
        .with_unchecked(Field::PlatformRelease, release)
        .with_unchecked(Field::PlatformVersion, version)
        .with_unchecked(Field::PythonVersion, format!("3.{minor}"))
        .with_unchecked(Field::PythonFullVersion, full.clone())
        .with_unchecked(Field::PlatformPythonImplementation, implementation)
        .with_unchecked(Field::ImplementationName, name)
        .with_unchecked(Field::ImplementationVersion, full);
    for &field in Field::ALL {
        let wanted = match field {
            Field::Extra => false,
            Field::Extras | Field::DependencyGroups => options.lock_file,
            f => f.is_extended() && dialect == Dialect::Extended,
        };
        if wanted {
            let value = if u.ratio(1, 3)? {
                EnvValue::Absent
            } else if field.field_type() == FieldType::Set {
                let n = u.int_in_range(1..=2)?;
                let items = (0..n)
                    .map(|_| super::marker_value_for(u, field).map(String::into_boxed_str))
                    .collect::<Result<Vec<_>>>()?;
                EnvValue::Set(items)
            } else {
                EnvValue::String(super::marker_value_for(u, field)?.into())
            };
            let _ = env.set(field, value.checked(field).unwrap_or(EnvValue::Absent));
        }
    }
    // A marker's own literals, where they fit the field, so that some comparisons hold.
    if !literals.is_empty() {
        for _ in 0..u.int_in_range(0..=2)? {
            let field = *pick(u, Field::ALL)?;
            let literal = pick(u, literals)?.clone();
            if field == Field::Extra
                || (field.is_extended() && dialect == Dialect::Pep508)
                || (matches!(field, Field::Extras | Field::DependencyGroups) && !options.lock_file)
            {
                continue;
            }
            let value = if field.field_type() == FieldType::Set {
                EnvValue::Set(vec![literal.into_boxed_str()])
            } else {
                EnvValue::String(literal.into())
            };
            if let Ok(v) = value.checked(field) {
                let _ = env.set(field, v);
            }
        }
    }
    make_consistent(&mut env);
    Ok(env.with_extras(extras(u, literals)?))
}

/// Repairs the cross-field invariants of `spec/SPEC.md` §4.4 (I1–I6; I7 holds already, since `EnvValue::checked` refuses PEP 780's exclusive pairs) among the fields `env`
/// knows, so that a realistic environment is a document an environment reader accepts: the
/// backends follow `cuda_version` and `rocm_gpu_archs`, the compute-capability minimum and
/// maximum follow the set, the variant features and namespaces follow the properties, at most
/// one C library, cuDNN's two versions together.
fn make_consistent(env: &mut Environment) {
    fn text(env: &Environment, field: Field) -> Option<String> {
        match env.get(field)? {
            EnvValue::String(s) if !s.is_empty() => Some(s.to_string()),
            _ => None,
        }
    }
    fn set(env: &Environment, field: Field) -> Option<Vec<String>> {
        match env.get(field)? {
            EnvValue::Set(items) => Some(items.iter().map(|s| s.to_string()).collect()),
            EnvValue::Absent => Some(Vec::new()),
            _ => None,
        }
    }
    fn put_set(env: &mut Environment, field: Field, items: Vec<String>) {
        let value = if items.is_empty() {
            EnvValue::Absent
        } else {
            EnvValue::Set(items.into_iter().map(String::into_boxed_str).collect())
        };
        let _ = env.set(field, value);
    }
    let known = |env: &Environment, field: Field| env.get(field).is_some();

    // I2: the compute-capability set decides its minimum and maximum.
    if let Some(mut caps) = set(env, Field::CudaComputeCapabilities) {
        caps.retain(|c| c.parse::<markerspec_pep440::Version>().is_ok());
        caps.sort_by_key(|c| c.parse::<markerspec_pep440::Version>().ok());
        caps.dedup();
        let (min, max) = match (caps.first(), caps.last()) {
            (Some(a), Some(b)) => (
                EnvValue::String(a.as_str().into()),
                EnvValue::String(b.as_str().into()),
            ),
            _ => (EnvValue::Absent, EnvValue::Absent),
        };
        let _ = env.set(Field::CudaComputeCapability, min);
        let _ = env.set(Field::CudaComputeCapabilityMax, max);
        // A device implies the CUDA stack (I2's last clause): give it a version if it has none.
        if !caps.is_empty() && text(env, Field::CudaVersion).is_none() {
            let _ = env.set(Field::CudaVersion, EnvValue::String("12.8".into()));
        }
        put_set(env, Field::CudaComputeCapabilities, caps);
    } else {
        env.unset(Field::CudaComputeCapability);
        env.unset(Field::CudaComputeCapabilityMax);
    }
    // I1, I3: a backend is listed exactly when its stack's defining field is present.
    if known(env, Field::GpuBackends)
        || known(env, Field::CudaVersion)
        || known(env, Field::RocmGpuArchs)
    {
        let mut backends = set(env, Field::GpuBackends).unwrap_or_default();
        for (member, present) in [
            ("cuda", text(env, Field::CudaVersion).is_some()),
            (
                "rocm",
                set(env, Field::RocmGpuArchs).is_some_and(|a| !a.is_empty()),
            ),
        ] {
            backends.retain(|b| b != member);
            if present {
                backends.push(member.to_string());
            }
        }
        backends.sort();
        if !known(env, Field::CudaVersion) {
            let _ = env.set(Field::CudaVersion, EnvValue::Absent);
        }
        if !known(env, Field::RocmGpuArchs) {
            let _ = env.set(Field::RocmGpuArchs, EnvValue::Absent);
        }
        put_set(env, Field::GpuBackends, backends);
    }
    // I4: features and namespaces follow the properties; no label, no properties.
    if known(env, Field::VariantProperties)
        || known(env, Field::VariantFeatures)
        || known(env, Field::VariantNamespaces)
    {
        let label = text(env, Field::VariantLabel);
        let mut properties = set(env, Field::VariantProperties).unwrap_or_default();
        if label.is_none() || label.as_deref() == Some("null") {
            properties.clear();
        }
        properties.retain(|p| p.split(" :: ").count() == 3);
        let mut features: Vec<String> = properties
            .iter()
            .map(|p| {
                p.rsplit_once(" :: ")
                    .map_or(p.clone(), |(nf, _)| nf.to_string())
            })
            .collect();
        let mut namespaces: Vec<String> = properties
            .iter()
            .map(|p| p.split(" :: ").next().unwrap_or_default().to_string())
            .collect();
        features.sort();
        features.dedup();
        namespaces.sort();
        namespaces.dedup();
        put_set(env, Field::VariantProperties, properties);
        put_set(env, Field::VariantFeatures, features);
        put_set(env, Field::VariantNamespaces, namespaces);
    }
    // I5: at most one C library.
    if text(env, Field::GlibcVersion).is_some() && text(env, Field::MuslVersion).is_some() {
        let _ = env.set(Field::MuslVersion, EnvValue::Absent);
    }
    // I6: cuDNN's version and the CUDA version it was built for come together.
    match (
        text(env, Field::CudnnVersion),
        text(env, Field::CudnnCudaVersion),
    ) {
        (Some(_), None)
            if known(env, Field::CudnnCudaVersion) || known(env, Field::CudnnVersion) =>
        {
            let _ = env.set(Field::CudnnCudaVersion, EnvValue::String("12.8".into()));
        }
        (None, Some(_)) => {
            let _ = env.set(Field::CudnnCudaVersion, EnvValue::Absent);
        }
        _ => {}
    }
}
