//! The marker rules that `spec/SPEC.md` 0.2 adds or changes (Appendix F.1, F.2), through the
//! public API; each test cites its section. The negation table of §4.3 is checked by brute force
//! in `negation.rs`.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Profile, Warning,
};

fn extended() -> ParseOptions {
    ParseOptions::default().dialect(Dialect::Extended)
}

/// Parses `text`, returning the tree and the names of the warnings it gave.
#[track_caller]
fn parse(text: &str, opts: &ParseOptions) -> (MarkerTree, Vec<&'static str>) {
    let mut warnings: Vec<Warning> = Vec::new();
    let m = MarkerTree::parse_with(text, opts, &mut warnings)
        .unwrap_or_else(|e| panic!("{text}: {}", e.render(text)));
    (m, warnings.iter().map(|w| w.kind.name()).collect())
}

#[track_caller]
fn error(text: &str, opts: &ParseOptions) -> &'static str {
    MarkerTree::parse_with(text, opts, &mut |_| {})
        .map(|m| panic!("{text}: expected an error, got {m}"))
        .unwrap_err()
        .kind()
        .name()
}

#[track_caller]
fn eval(text: &str, opts: &ParseOptions, env: &Environment) -> bool {
    parse(text, opts)
        .0
        .evaluate(env)
        .unwrap_or_else(|e| panic!("{text}: {}", e.render(text)))
}

/// An environment of these (valid) values, set through the checked setter.
#[track_caller]
fn env_of(values: &[(Field, &str)]) -> Environment {
    values
        .iter()
        .try_fold(Environment::new(), |env, &(f, v)| env.with(f, v))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn gpu() -> Environment {
    env_of(&[
        (Field::GpuBackends, "cuda"),
        (Field::CudaVersion, "12.8"),
        (Field::NvidiaDriverVersion, "570.124.06"),
        (Field::CudaComputeCapability, "8.6"),
        (Field::CudaComputeCapabilityMax, "9.0"),
        (Field::InterpreterArch, "x86_64"),
        (Field::HostArch, "aarch64"),
        (Field::CudnnVersion, "8.9.7"),
        (Field::CudnnCudaVersion, "11.8"),
    ])
}

/// §5.1 (0.2): `===` on an extended field is `arbitrary-equality-on-extended`; `""` with an
/// operator other than `==` / `!=` is `invalid-absence-test` (§4.3).
#[test]
fn arbitrary_equality_and_absence_tests_are_errors_on_extended_fields() {
    let x = extended();
    for text in [
        "cuda_version === '12.8'",
        "nvidia_driver_version === '570.124.06'",
        "glibc_version === '2.39'",
    ] {
        assert_eq!(error(text, &x), "arbitrary-equality-on-extended", "{text}");
    }
    for text in [
        "cuda_version >= ''",
        "cuda_version ~= ''",
        "'' < rocm_version",
        "python_abi_tag in ''",
        "'' in python_abi_tag",
        "interpreter_arch <= ''",
    ] {
        assert_eq!(error(text, &x), "invalid-absence-test", "{text}");
    }
    // `===` on an extended string field keeps its own error (§5.2).
    assert_eq!(
        error("python_abi_tag === 'cp312'", &x),
        "version-op-on-string"
    );
}

/// §4.3, §5.1 (0.2): `nvidia_driver_version` is a `Version` field: PEP 440 comparisons, a
/// non-version literal is `invalid-version-literal`, containment is `containment-on-version`.
#[test]
fn nvidia_driver_version_is_a_version() {
    let x = extended();
    assert_eq!(
        error("nvidia_driver_version == 'r570'", &x),
        "invalid-version-literal"
    );
    assert_eq!(
        error("'570' in nvidia_driver_version", &x),
        "containment-on-version"
    );
    let env = gpu();
    assert!(eval("nvidia_driver_version >= '550'", &x, &env));
    assert!(eval("nvidia_driver_version == '570.124.6'", &x, &env));
    assert!(!eval("nvidia_driver_version < '570.124.06'", &x, &env));
    assert!(eval("nvidia_driver_version == '570.*'", &x, &env));
}

/// §5.1 (0.2): `short-version-literal` for `==` / `!=` literals shorter than the field's
/// precision, not for wildcards, ordered comparisons or fields without one.
#[test]
fn short_version_literal() {
    let x = extended();
    let guard = "'cuda' in gpu_backends and cudnn_version != '' and ";
    for (text, warns) in [
        ("cuda_version == '12'", true),
        ("'12' == cuda_version", true),
        ("cuda_version != '12'", true),
        ("cuda_version == '12.0'", false),
        ("cuda_version == '12.*'", false),
        ("cuda_version >= '12'", false),
        ("cudnn_version == '9.1'", true),
        ("cudnn_version == '9.1.0'", false),
        ("nvidia_driver_version == '570'", false),
        ("cuda_compute_capability_max == '9'", true),
    ] {
        let text = format!("{guard}{text}");
        let (_, w) = parse(&text, &x);
        assert_eq!(w.contains(&"short-version-literal"), warns, "{text}: {w:?}");
    }
    // The literal means what PEP 440 says: `12` is `12.0`.
    assert!(!eval("cuda_version == '12'", &x, &gpu()));
}

/// §5.1 (0.2): `unguarded-absent` for `!=`, `<`, `<=` on an extended `Version` field unless an
/// enclosing `and` has an operand false on the absent value or an enclosing `or` has `f == ""`.
#[test]
fn unguarded_absent() {
    let x = extended();
    for (text, warns) in [
        ("cuda_version != '12.8'", true),
        ("cuda_version < '12'", true),
        ("'12' > cuda_version", true),
        ("cuda_version <= '12'", true),
        ("cuda_version >= '12'", false),
        ("cuda_version != ''", false),
        ("'cuda' in gpu_backends and cuda_version < '12'", false),
        ("'cuda' in gpu_backends or cuda_version < '12'", true),
        ("cuda_version >= '11' and cuda_version < '12'", false),
        ("cuda_version == '' or cuda_version < '12'", false),
        ("cuda_version != '' and cuda_version != '12.8'", false),
        (
            "os_name == 'nt' and (cuda_version == '' or cuda_version < '12')",
            false,
        ),
        (
            "'cuda' in gpu_backends and (os_name == 'nt' or cuda_version < '12')",
            false,
        ),
        (
            "('cuda' not in gpu_backends or cuda_version < '12') and os_name == 'nt'",
            true,
        ),
        // The presence of CUDA implies `cuda_version` (I1), not the compute capabilities.
        (
            "'cuda' in gpu_backends and cuda_compute_capability < '9.0'",
            true,
        ),
        (
            "cuda_compute_capability != '' and cuda_compute_capability_max < '9.0'",
            false,
        ),
        (
            "'9.0' in cuda_compute_capabilities and cuda_compute_capability < '9.0'",
            false,
        ),
        ("cudnn_version != '' and cudnn_cuda_version < '12'", false),
        ("'cuda' in gpu_backends and rocm_version < '6'", true),
    ] {
        let (_, w) = parse(text, &x);
        assert_eq!(w.contains(&"unguarded-absent"), warns, "{text}: {w:?}");
    }
    // The pep508 dialect has no extended fields and nothing to warn about.
    let (_, w) = parse("python_version < '3.10'", &ParseOptions::default());
    assert!(w.is_empty());
}

/// §8.3, §8.12 (0.2): an alias architecture literal is accepted with the warning
/// `noncanonical-arch-literal` and compared after mapping; the printed form is canonical.
#[test]
fn arch_aliases_map_with_a_warning() {
    let x = extended();
    let env = gpu();
    for (text, printed, holds) in [
        (
            "interpreter_arch == 'AMD64'",
            "interpreter_arch == \"x86_64\"",
            true,
        ),
        (
            "'amd64' == interpreter_arch",
            "\"x86_64\" == interpreter_arch",
            true,
        ),
        (
            "interpreter_arch == 'X86_64'",
            "interpreter_arch == \"x86_64\"",
            true,
        ),
        ("host_arch == 'arm64'", "host_arch == \"aarch64\"", true),
        ("host_arch != 'arm64'", "host_arch != \"aarch64\"", false),
    ] {
        let (m, w) = parse(text, &x);
        assert_eq!(w, ["noncanonical-arch-literal"], "{text}");
        assert_eq!(m.to_string(), printed);
        assert_eq!(m.evaluate(&env).unwrap(), holds, "{text}");
    }
    let (_, w) = parse("host_arch == 'vax'", &x);
    assert_eq!(w, ["unknown-arch-literal"]);
    // §8.12: Rosetta, an x86-64 interpreter on an Apple silicon host.
    assert!(eval(
        "host_arch == 'aarch64' and interpreter_arch == 'x86_64'",
        &x,
        &env
    ));
}

/// §5.4 (0.2): compute-capability literals are canonical (`major.minor`, no leading zeros);
/// document values are canonicalised.
#[test]
fn canonical_compute_capabilities() {
    let x = extended();
    for text in [
        "'9.00' in cuda_compute_capabilities",
        "'09.0' in cuda_compute_capabilities",
        "'9' in cuda_compute_capabilities",
    ] {
        assert_eq!(error(text, &x), "invalid-set-literal", "{text}");
    }
    let value = EnvValue::Set(vec!["09.00".into(), "8.6".into()])
        .checked(Field::CudaComputeCapabilities)
        .unwrap();
    assert_eq!(value, EnvValue::Set(vec!["8.6".into(), "9.0".into()]));
    let mut env = Environment::new();
    env.set(Field::CudaComputeCapabilities, value).unwrap();
    assert!(eval("'9.0' in cuda_compute_capabilities", &x, &env));
    assert!(eval("'10.0' not in cuda_compute_capabilities", &x, &env));
}

/// §8.8 (0.2): "any device of at least 9.0"; §8.10 (0.2): a cuDNN built for CUDA 11.
#[test]
fn new_fields_evaluate() {
    let x = extended();
    let env = gpu();
    assert!(eval(
        "cuda_compute_capability_max >= '9.0' and cuda_compute_capability < '9.0'",
        &x,
        &env
    ));
    assert!(eval(
        "'cuda' in gpu_backends and (cudnn_version == '' or cudnn_cuda_version < '12')",
        &x,
        &env
    ));
    // The new names are extended fields: not in the pep508 dialect.
    assert_eq!(
        error("host_arch == 'x86_64'", &ParseOptions::default()),
        "extended-field-in-pep508"
    );
}

/// §9 (0.2): variant labels have no length limit (PEP 825 removed it).
#[test]
fn long_variant_labels() {
    let (_, w) = parse(
        "variant_label == 'cu128_sm90_with_a_long_name'",
        &extended(),
    );
    assert!(w.is_empty());
    assert_eq!(
        error("variant_label == 'CU128'", &extended()),
        "invalid-variant-label"
    );
}

fn lock_file() -> ParseOptions {
    ParseOptions::default().lock_file(true)
}

/// Appendix E.1: in lock-file context, `extras` and `dependency_groups` with another operator or
/// on the left are false with a warning under `spec-2026`.
#[test]
fn e1_set_misuse_in_lock_files_is_false() {
    let mut env = Environment::new();
    env.set(Field::Extras, EnvValue::Set(vec!["cuda".into()]))
        .unwrap();
    env.set(Field::DependencyGroups, EnvValue::Set(vec!["dev".into()]))
        .unwrap();
    for (text, warning) in [
        ("extras == 'cuda'", "invalid-set-operator"),
        ("'cuda' == extras", "invalid-set-operator"),
        ("'cuda' <= extras", "invalid-set-operator"),
        ("extras != 'cuda'", "invalid-set-operator"),
        ("extras in 'cuda'", "set-field-on-left"),
        ("dependency_groups not in 'dev'", "set-field-on-left"),
    ] {
        let (m, w) = parse(text, &lock_file());
        assert_eq!(w, [warning], "{text}");
        assert!(!m.evaluate(&env).unwrap(), "{text}");
    }
    assert!(eval("'cuda' in extras", &lock_file(), &env));
    // Extended set fields keep their errors (§5.4).
    assert_eq!(
        error("gpu_backends == 'cuda'", &extended().lock_file(true)),
        "invalid-set-operator"
    );
}

fn python(version: &str) -> Environment {
    env_of(&[
        (Field::PythonVersion, version),
        (Field::PlatformRelease, "6.8.0-49-generic"),
        (Field::PlatformVersion, "13"),
    ])
}

/// Appendix E.2: `"L" ~= f` is evaluated when both sides are versions, as
/// `Specifier("~=" + value).contains(L)`, not by string equality.
#[test]
fn e2_literal_left_compatible_release() {
    let p = ParseOptions::default();
    let env = python("3.10");
    assert!(eval("'3.12' ~= python_version", &p, &env));
    assert!(eval("'3.10.4' ~= python_version", &p, &env));
    assert!(!eval("'3.9' ~= python_version", &p, &env));
    assert!(!eval("'4.0' ~= python_version", &p, &env));
    // No fallback warning for a version literal; a non-version literal still falls back.
    let (_, w) = parse("'3.12' ~= python_version", &p);
    assert!(w.is_empty(), "{w:?}");
    let (_, w) = parse("'foo' ~= python_version", &p);
    assert_eq!(w, ["version-string-fallback"]);
    assert!(!eval("'foo' ~= python_version", &p, &env));
}

/// Appendix E.3: `===` compares ASCII letters case-insensitively in both operand orders.
#[test]
fn e3_literal_left_arbitrary_equality() {
    let p = ParseOptions::default();
    let env = python("3.12");
    assert!(eval("'6.8.0-49-GENERIC' === platform_release", &p, &env));
    assert!(eval("platform_release === '6.8.0-49-GENERIC'", &p, &env));
    assert!(!eval("'6.8.0-49' === platform_release", &p, &env));
    let (_, w) = parse("'6.8.0-49-GENERIC' === platform_release", &p);
    assert!(w.is_empty(), "{w:?}");
}

/// Appendix E.5: `platform_version` is `Version | String` under `spec-2026` (a string under the
/// `packaging` profile, as packaging 26.4 reads it); the legacy `extra` is `lockfile-extra` in
/// lock-file context.
#[test]
fn e5_platform_version_and_lock_file_extra() {
    let env = python("3.12");
    assert!(eval(
        "platform_version >= '12'",
        &ParseOptions::default(),
        &env
    ));
    assert!(!eval(
        "platform_version < '12'",
        &ParseOptions::default(),
        &env
    ));
    let packaging = ParseOptions::default().profile(Profile::Packaging);
    assert!(!eval("platform_version >= '12'", &packaging, &env));
    // A value that is not a version still compares as a string.
    let darwin = env_of(&[(Field::PlatformVersion, "Darwin Kernel Version 24.1.0")]);
    assert!(eval(
        "platform_version == 'Darwin Kernel Version 24.1.0'",
        &ParseOptions::default(),
        &darwin
    ));
    assert!(eval(
        "'Kernel' in platform_version",
        &ParseOptions::default(),
        &darwin
    ));
    assert_eq!(error("extra == 'gpu'", &lock_file()), "lockfile-extra");
    assert_eq!(error("'gpu' != extra", &lock_file()), "lockfile-extra");
    // Outside a lock file, and under the other profiles, `extra` is unchanged.
    assert!(eval("extra != 'gpu'", &ParseOptions::default(), &env));
    assert!(eval("extra != 'gpu'", &packaging.lock_file(true), &env));
}
