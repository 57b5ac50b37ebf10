//! The environment document (`spec/SPEC.md` §11): what it accepts, rejects and canonicalises.

use markerspec_pep508::{DocValue, EnvDocument, EnvValue, Environment, Field};

fn load(doc: &str) -> Result<Environment, String> {
    serde_json::from_str(doc).map_err(|e| e.to_string())
}

#[test]
fn null_is_unknown_and_empty_is_absent_for_extended_fields() {
    let env =
        load(r#"{"cuda_version": null, "cudnn_version": "", "gpu_backends": [], "os_name": ""}"#)
            .unwrap();
    assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Unknown));
    assert_eq!(env.get(Field::CudnnVersion), Some(&EnvValue::Absent));
    assert_eq!(env.get(Field::GpuBackends), Some(&EnvValue::Absent));
    // A standard field's empty string is a value, as the living specification says.
    assert_eq!(env.get(Field::OsName), Some(&EnvValue::String("".into())));
    assert_eq!(env.get(Field::SysPlatform), None);
}

#[test]
fn extended_values_are_validated_naming_the_field() {
    for (doc, needle) in [
        (r#"{"cuda_version": "twelve"}"#, "cuda_version"),
        (r#"{"gpu_backends": ["CUDA"]}"#, "gpu_backends"),
        (
            r#"{"cuda_compute_capabilities": ["sm_86"]}"#,
            "cuda_compute_capabilities",
        ),
        (r#"{"rocm_gpu_archs": ["gfx90z"]}"#, "rocm_gpu_archs"),
        (
            r#"{"variant_properties": ["NVIDIA :: x :: y"]}"#,
            "variant_properties",
        ),
        (r#"{"variant_label": "CU 12"}"#, "variant_label"),
        (
            r#"{"sys_abi_features": ["gil-enabled", "free-threading"]}"#,
            "exclude each other",
        ),
        (
            r#"{"sys_abi_features": ["32-bit", "64-bit"]}"#,
            "exclude each other",
        ),
        (
            r#"{"not_a_field": "x"}"#,
            "unknown marker field `not_a_field`",
        ),
        (r#"{"python_version": ["3.12"]}"#, "python_version"),
    ] {
        let err = load(doc).unwrap_err();
        assert!(err.contains(needle), "{doc}: {err}");
    }
}

#[test]
fn values_are_canonicalised() {
    let env = load(
        r#"{"interpreter_arch": "AMD64",
            "variant_properties": ["nvidia::sm_arch::90_real", "nvidia :: sm_arch :: 90_real"],
            "gpu_backends": ["rocm", "cuda", "cuda"]}"#,
    )
    .unwrap();
    assert_eq!(
        env.get(Field::InterpreterArch),
        Some(&EnvValue::String("x86_64".into()))
    );
    assert_eq!(
        env.get(Field::VariantProperties),
        Some(&EnvValue::Set(vec!["nvidia :: sm_arch :: 90_real".into()]))
    );
    assert_eq!(
        env.get(Field::GpuBackends),
        Some(&EnvValue::Set(vec!["cuda".into(), "rocm".into()]))
    );
}

#[test]
fn a_document_round_trips() {
    let doc = r#"{"python_version": "3.12", "cuda_version": null, "cudnn_version": "", "gpu_backends": ["cuda"], "extra": ["gpu"]}"#;
    let env = load(doc).unwrap();
    let again: Environment = serde_json::from_str(&serde_json::to_string(&env).unwrap()).unwrap();
    assert_eq!(format!("{env:?}"), format!("{again:?}"));
}

#[test]
fn a_document_keeps_its_values_as_written_and_reads_into_an_environment() {
    // The document type other tools hold (the conformance vectors): values as written, in key
    // order, written back unchanged; the environment is read from it without JSON.
    let text = r#"{"cuda_version":null,"extra":["Gpu"],"gpu_backends":["cuda"],"os_name":"posix","sys_abi_features":[]}"#;
    let doc: EnvDocument = serde_json::from_str(text).unwrap();
    assert_eq!(doc["cuda_version"], DocValue::Unknown);
    assert_eq!(doc["os_name"], DocValue::String("posix".into()));
    assert_eq!(doc["sys_abi_features"], DocValue::List(Vec::new()));
    assert_eq!(serde_json::to_string(&doc).unwrap(), text);
    let env = Environment::from_document(&doc).unwrap();
    assert_eq!(env.get(Field::CudaVersion), Some(&EnvValue::Unknown));
    assert_eq!(env.get(Field::SysAbiFeatures), Some(&EnvValue::Absent));
    assert_eq!(env.extras().collect::<Vec<_>>(), ["gpu"]);
    // A value of another JSON type is refused by the document, an unknown key by the reader.
    assert!(serde_json::from_str::<EnvDocument>(r#"{"os_name": 3}"#).is_err());
    let unknown = EnvDocument::from([("os_nam".into(), DocValue::String("nt".into()))]);
    let err = Environment::from_document(&unknown).unwrap_err();
    assert!(err.contains("os_nam"), "{err}");
}
