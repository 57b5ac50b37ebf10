//! What a resolver calls: requirements evaluated with extras passed at evaluation time, the
//! extras a marker tests, and one registry of field value formats.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Requirement, ValueFormat,
};

fn env() -> Environment {
    Environment::new()
        .with(Field::SysPlatform, "linux")
        .and_then(|e| e.with(Field::PythonVersion, "3.12"))
        .expect("valid values")
}

#[test]
fn requirements_evaluate_with_the_extras_passed() {
    let r: Requirement = r#"torch>=2; python_version >= "3.10" and extra == "Gpu""#
        .parse()
        .unwrap();
    let env = env();
    assert!(r.evaluate(&env, &["gpu"]).unwrap());
    assert!(r.evaluate(&env, &["GPU", "test"]).unwrap());
    assert!(!r.evaluate(&env, &["test"]).unwrap());
    assert!(!r.evaluate(&env, &[] as &[&str]).unwrap());
    // The environment's own extras are not consulted when extras are passed.
    let with_gpu = env.clone().with_extras(["gpu"]);
    assert!(!r.evaluate(&with_gpu, &[] as &[&str]).unwrap());
    // No marker: applies everywhere.
    let plain: Requirement = "numpy".parse().unwrap();
    assert!(plain.evaluate(&Environment::new(), &[] as &[&str]).unwrap());
    assert_eq!(r.marker().unwrap().extras(), ["gpu"]);
}

#[test]
fn the_registry_gives_each_field_its_format() {
    assert_eq!(Field::SysAbiFeatures.format(), ValueFormat::AbiFeature);
    assert_eq!(Field::CudaVersion.format(), ValueFormat::Version);
    assert_eq!(Field::PythonVersion.format(), ValueFormat::Text);
    assert_eq!(Field::Extras.format(), ValueFormat::Name);
    assert!(ValueFormat::ComputeCapability.check("sm_86").is_err());
    assert_eq!(ValueFormat::Arch.check("AMD64").unwrap(), "x86_64");
    assert_eq!(
        ValueFormat::VariantProperty
            .check("nvidia::sm_arch::90_real")
            .unwrap(),
        "nvidia :: sm_arch :: 90_real"
    );
    assert!(
        ValueFormat::AbiFeature
            .check_members(&["gil-enabled", "free-threading"])
            .unwrap_err()
            .contains("exclude each other")
    );
}

/// The parser's X007 names the format the registry describes, and the environment's check
/// refuses the same literal with the same format.
#[test]
fn parser_and_environment_agree_on_formats() {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let text = r#""sm_86" in cuda_compute_capabilities"#;
    let err = MarkerTree::parse_with(text, &opts, &mut |_| {}).unwrap_err();
    assert_eq!(err.code(), "X007");
    assert!(
        err.message()
            .contains(ValueFormat::ComputeCapability.describe())
    );
    let env_err = EnvValue::from_text(Field::CudaComputeCapabilities, "sm_86").unwrap_err();
    assert!(
        env_err
            .to_string()
            .contains(ValueFormat::ComputeCapability.describe())
    );
    // Overrides and `--set` share the text form: empty is Absent, an empty item is refused.
    assert_eq!(
        EnvValue::from_text(Field::CudaVersion, "").unwrap(),
        EnvValue::Absent
    );
    assert!(EnvValue::from_text(Field::GpuBackends, "cuda,").is_err());
}

#[test]
fn with_checks_values_where_they_are_set_and_with_unchecked_stores_them() {
    // `with` is the checked form: a malformed version is an error naming the field, not a
    // comparison that is silently false later.
    let err = Environment::new()
        .with(Field::PythonVersion, "three")
        .unwrap_err();
    assert_eq!(err.field, Field::PythonVersion);
    // Set fields take a comma-separated list, checked against the field's format.
    let env = Environment::new()
        .with(Field::GpuBackends, "cuda,rocm")
        .unwrap();
    assert_eq!(
        env.get(Field::GpuBackends),
        Some(&EnvValue::Set(vec!["cuda".into(), "rocm".into()]))
    );
    // `with_unchecked` keeps the string as given, and comparisons read it as a string.
    let env = Environment::new().with_unchecked(Field::PythonVersion, "three");
    assert_eq!(
        env.get(Field::PythonVersion),
        Some(&EnvValue::String("three".into()))
    );
    let m: MarkerTree = "python_version == 'three'".parse().unwrap();
    assert!(m.evaluate(&env).unwrap());
}
