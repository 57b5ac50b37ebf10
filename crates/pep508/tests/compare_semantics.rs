//! What one comparison means, per field type and profile, checked through the public API.
//!
//! `spec-2026` cases follow `spec/SPEC.md` §4.2 (Absent) and §5 (comparison rules); `packaging`
//! cases follow pypa/packaging 26.x's `markers.py` (`_eval_op`, its `_operators` table, the
//! evaluation contexts and `_repair_python_full_version`), and each was checked against
//! packaging 26.4 itself; `uv` cases follow uv-pep508 0.0.72 as the `uv` profile documents it.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerExpression, MarkerOperator, MarkerTree,
    MarkerValue, ParseOptions, Profile, Truth,
};

use Truth::{False as F, True as T, Unknown as U};

/// Lock-file context where the marker reads `extras` or `dependency_groups` (the legacy `extra`
/// is an error there under `spec-2026`, Appendix E.5).
fn options(profile: Profile, text: &str) -> ParseOptions {
    ParseOptions::default()
        .profile(profile)
        .dialect(Dialect::Extended)
        .lock_file(text.contains("extras") || text.contains("dependency_groups"))
}

#[track_caller]
fn marker(text: &str, profile: Profile) -> MarkerTree {
    MarkerTree::parse_with(text, &options(profile, text), &mut |_| {})
        .unwrap_or_else(|e| panic!("{text} ({profile}): {}", e.render(text)))
}

#[track_caller]
fn truth(text: &str, profile: Profile, env: &Environment) -> Truth {
    let e = marker(text, profile)
        .evaluate_tristate(env)
        .unwrap_or_else(|e| panic!("{text} ({profile}): {}", e.render(text)));
    assert_eq!(
        e.unknown.is_empty(),
        e.truth != U,
        "{text} ({profile}): {e:?}"
    );
    e.truth
}

#[track_caller]
fn error_code(text: &str, profile: Profile, env: &Environment) -> &'static str {
    match marker(text, profile).evaluate_tristate(env) {
        Ok(e) => panic!("{text} ({profile}): expected an error, got {e:?}"),
        Err(e) => e.code(),
    }
}

/// Checks a table of `(marker, expected)` under `profile`.
#[track_caller]
fn table(profile: Profile, env: &Environment, cases: &[(&str, Truth)]) {
    let mut wrong = Vec::new();
    for (text, expected) in cases {
        let got = truth(text, profile, env);
        if got != *expected {
            wrong.push(format!("{text}: expected {expected}, got {got}"));
        }
    }
    assert!(wrong.is_empty(), "{profile}:\n{}", wrong.join("\n"));
}

fn with_value(mut env: Environment, field: Field, value: EnvValue) -> Environment {
    env.set(field, value).unwrap();
    env
}

fn linux() -> Environment {
    Environment::new()
        .with_unchecked(Field::OsName, "posix")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformSystem, "Linux")
        .with_unchecked(Field::PlatformMachine, "x86_64")
        .with_unchecked(Field::PlatformPythonImplementation, "CPython")
        .with_unchecked(Field::PlatformRelease, "6.8.0-45-generic")
        .with_unchecked(Field::PlatformVersion, "5.0")
        .with_unchecked(Field::ImplementationName, "cpython")
        .with_unchecked(Field::ImplementationVersion, "3.12.7")
        .with_unchecked(Field::PythonVersion, "3.12")
        .with_unchecked(Field::PythonFullVersion, "3.12.7")
}

// ---------------------------------------------------------------------------------------------
// spec-2026

/// §5.2: `==`, `!=` exact; `<=`, `>=` as `==`; `<`, `>` false; `"L" in field` is "L is a
/// substring of the value", `field in "L"` is "the value is a substring of L"; `~=` and `===`
/// on a standard string field as `==`. Literal order does not matter for `==`, `!=`.
#[test]
fn spec_2026_string_fields() {
    table(
        Profile::Spec2026,
        &linux(),
        &[
            (r#"sys_platform == "linux""#, T),
            (r#"sys_platform == "Linux""#, F),
            (r#"sys_platform != "linux""#, F),
            (r#"sys_platform != "win32""#, T),
            (r#""linux" == sys_platform"#, T),
            (r#""win32" == sys_platform"#, F),
            (r#""linux" != sys_platform"#, F),
            (r#""win32" != sys_platform"#, T),
            (r#"sys_platform <= "linux""#, T),
            (r#"sys_platform <= "linuz""#, F),
            (r#"sys_platform >= "linux""#, T),
            (r#"sys_platform >= "a""#, F),
            (r#""linux" <= sys_platform"#, T),
            (r#""a" <= sys_platform"#, F),
            (r#"sys_platform < "z""#, F),
            (r#"sys_platform > "a""#, F),
            (r#""a" < sys_platform"#, F),
            (r#"sys_platform ~= "linux""#, T),
            (r#"sys_platform ~= "darwin""#, F),
            (r#"sys_platform === "linux""#, T),
            (r#"sys_platform === "darwin""#, F),
            (r#""lin" in sys_platform"#, T),
            (r#""win" in sys_platform"#, F),
            (r#""lin" not in sys_platform"#, F),
            (r#""win" not in sys_platform"#, T),
            (r#"sys_platform in "linux darwin""#, T),
            (r#"sys_platform in "win32 darwin""#, F),
            (r#"sys_platform not in "linux darwin""#, F),
            (r#"sys_platform not in "win32""#, T),
            // The substring direction matters: "linux" is not in "lin", "lin" is in "linux".
            (r#"sys_platform in "lin""#, F),
            (r#""linux2" in sys_platform"#, F),
        ],
    );
}

/// §4.3 (0.2): an Absent extended `String` field equals only `""`, contains nothing and is
/// contained in nothing: `== ""` and `!= "x"` are true, `in` false, `not in` true; `""` goes
/// with `==` and `!=` only.
#[test]
fn spec_2026_absent_strings_are_empty() {
    let env = with_value(linux(), Field::PythonAbiTag, EnvValue::Absent);
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"python_abi_tag == """#, T),
            (r#"python_abi_tag != """#, F),
            (r#"python_abi_tag == "cp313""#, F),
            (r#"python_abi_tag != "cp313""#, T),
            (r#""cp313" == python_abi_tag"#, F),
            (r#"python_abi_tag in "cp312 cp313""#, F),
            (r#"python_abi_tag not in "cp312 cp313""#, T),
            (r#""cp3" in python_abi_tag"#, F),
            (r#""cp3" not in python_abi_tag"#, T),
            (r#"python_abi_tag <= "cp313""#, F),
        ],
    );
    for text in [r#""" in python_abi_tag"#, r#"python_abi_tag in """#] {
        let err = MarkerTree::parse_with(text, &options(Profile::Spec2026, text), &mut |_| {})
            .unwrap_err();
        assert_eq!(err.kind().name(), "invalid-absence-test", "{text}");
    }
    let env = linux().with_unchecked(Field::PythonAbiTag, "cp313t");
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"python_abi_tag == "cp313t""#, T),
            (r#"python_abi_tag != "cp313t""#, F),
            (r#"python_abi_tag == "cp313""#, F),
            (r#""t" in python_abi_tag"#, T),
            (r#""x" in python_abi_tag"#, F),
        ],
    );
}

/// §5.1: a known `Version` value compares with PEP 440 (`Specifier(op + L).contains(v,
/// prereleases=True)`); a literal on the left means the mirrored comparison; `in` and `not in`
/// are both false; whitespace around the version is ignored, as `Specifier` strips it.
#[test]
fn spec_2026_version_fields() {
    table(
        Profile::Spec2026,
        &linux(),
        &[
            (r#"python_version >= "3.8""#, T),
            (r#"python_version >= "3.13""#, F),
            (r#"python_version > "3.8""#, T),
            (r#"python_version < "3.8""#, F),
            (r#"python_version < "3.13""#, T),
            (r#"python_version <= "3.12""#, T),
            (r#"python_version == "3.12""#, T),
            (r#"python_version == "3.12.0""#, T),
            (r#"python_version != "3.12""#, F),
            (r#"python_version == "3.12.*""#, T),
            (r#"python_version == "3.1.*""#, F),
            (r#"python_version != "3.12.*""#, F),
            (r#"python_version ~= "3.10""#, T),
            (r#"python_version ~= "3.13""#, F),
            (r#"python_full_version >= "3.12.7""#, T),
            (r#"python_full_version > "3.12.7""#, F),
            (r#"python_version >= " 3.8 ""#, T),
            (r#"python_version < " 3.8""#, F),
            // Mirrored: `"3.8" < v` is `v > "3.8"`.
            (r#""3.8" < python_version"#, T),
            (r#""3.13" < python_version"#, F),
            (r#""3.8" <= python_version"#, T),
            (r#""3.8" > python_version"#, F),
            (r#""3.13" > python_version"#, T),
            (r#""3.8" >= python_version"#, F),
            (r#""3.12" == python_version"#, T),
            (r#""3.12.0" == python_version"#, T),
            (r#""3.13" != python_version"#, T),
            (r#""3.12" != python_version"#, F),
            // Containment is not defined on versions; installers treat it as false.
            (r#"python_version in "3.11 3.12""#, F),
            (r#"python_version not in "3.11 3.12""#, F),
            (r#"python_version not in "2.7""#, F),
            (r#""3.1" in python_version"#, F),
            (r#"implementation_version >= "3.12""#, T),
            (r#"implementation_version < "3.12""#, F),
        ],
    );
}

/// §5.1: PEP 440 semantics only when both sides are valid; otherwise the String rules. A
/// literal that starts with an operator character is not a version (`"=3.12"`), so
/// `python_version == "=3.12"` compares strings and is false; `===` is case-insensitive string
/// equality with the value as written, not its normal form.
#[test]
fn spec_2026_invalid_versions_fall_back_to_strings() {
    let env = linux()
        .with_unchecked(Field::ImplementationVersion, "3.12.0-RC1")
        .with_unchecked(Field::PlatformVersion, "x");
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"python_version == "=3.12""#, F),
            (r#"python_version <= "=3.12""#, F),
            (r#"python_version != "=3.12""#, T),
            (r#"python_version == "3.x""#, F),
            (r#"python_version != "3.x""#, T),
            (r#"python_version === "3.12""#, T),
            (r#"python_version === "3.12.0""#, F),
            (r#"python_full_version === "3.12.7""#, T),
            // `3.12.0-RC1` is the version `3.12.0rc1`: equal as versions, not as text.
            (r#"implementation_version == "3.12.0rc1""#, T),
            (r#"implementation_version === "3.12.0rc1""#, F),
            (r#"implementation_version === "3.12.0-rc1""#, T),
            // `<V` excludes pre-releases of `V` itself (PEP 440 exclusive ordering).
            (r#"implementation_version < "3.12""#, F),
            (r#"implementation_version < "3.13""#, T),
        ],
    );
    // A value that is not a version compares as a string too.
    let env = linux().with_unchecked(Field::PythonVersion, "3.12+");
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"python_version == "3.12+""#, T),
            (r#"python_version >= "3.8""#, F),
            (r#"python_version != "3.12""#, T),
        ],
    );
}

/// §4.3 (0.2): on an Absent extended `Version` field `!=` is true and every other comparison
/// but `field == ""` false. No CUDA means no `cuda_version == "12.4"`, and `!= "12.4"`.
#[test]
fn spec_2026_absent_versions_satisfy_nothing() {
    let env = with_value(linux(), Field::CudaVersion, EnvValue::Absent);
    for &profile in Profile::ALL {
        table(
            profile,
            &env,
            &[
                (r#"cuda_version == "12.4""#, F),
                (r#"cuda_version != "12.4""#, T),
                (r#"cuda_version >= "12""#, F),
                (r#"cuda_version < "12""#, F),
                (r#"cuda_version == "12.*""#, F),
                (r#"cuda_version != "12.*""#, T),
                (r#"cuda_version ~= "12.4""#, F),
                (r#""12" < cuda_version"#, F),
                (r#""12.4" != cuda_version"#, T),
                (r#"cuda_version == """#, T),
                (r#"cuda_version != """#, F),
                (r#"cuda_version == "12.4" or os_name == "nt""#, F),
            ],
        );
    }
    // Known: the ordinary PEP 440 rules, and `== ""` is false.
    let env = linux().with_unchecked(Field::CudaVersion, "12.4");
    for &profile in Profile::ALL {
        table(
            profile,
            &env,
            &[
                (r#"cuda_version == "12.4""#, T),
                (r#"cuda_version != "12.4""#, F),
                (r#"cuda_version >= "12""#, T),
                (r#"cuda_version == "12.*""#, T),
                (r#"cuda_version ~= "12.1""#, T),
                (r#""12" < cuda_version"#, T),
                (r#""13" <= cuda_version"#, F),
                (r#"cuda_version == """#, F),
                (r#"cuda_version != """#, T),
            ],
        );
    }
    // Unknown: Unknown({cuda_version}) whatever the operator.
    let env = with_value(linux(), Field::CudaVersion, EnvValue::Unknown);
    for &profile in Profile::ALL {
        table(
            profile,
            &env,
            &[
                (r#"cuda_version == "12.4""#, U),
                (r#"cuda_version == """#, U),
                (r#""12" < cuda_version"#, U),
            ],
        );
    }
}

/// §5.3: `Version | String`: the Version rules when the value is a version, else the String
/// rules, including substring `in` on `platform_release`; Absent is `""` and takes the String
/// rules (§4.2: `field != "x"` is true).
#[test]
fn spec_2026_version_or_string_fields() {
    table(
        Profile::Spec2026,
        &linux(),
        &[
            (r#"platform_release == "6.8.0-45-generic""#, T),
            (r#"platform_release >= "6""#, F),
            (r#"platform_release != "6""#, T),
            (r#""6.8" in platform_release"#, T),
            (r#""7.1" in platform_release"#, F),
            (r#"platform_release in "6.8.0-45-generic 5.15""#, T),
            (r#"platform_release not in "6.8.0-45-generic 5.15""#, F),
        ],
    );
    let env = linux().with_unchecked(Field::PlatformRelease, "6.8");
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"platform_release >= "6""#, T),
            (r#"platform_release < "6""#, F),
            (r#"platform_release == "6.8.0""#, T),
            (r#"platform_release in "6.8 7""#, T),
            (r#"platform_release in "7 8""#, F),
        ],
    );
    let env = with_value(linux(), Field::NvidiaDriverVersion, EnvValue::Absent);
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"nvidia_driver_version == """#, T),
            (r#"nvidia_driver_version != """#, F),
            (r#"nvidia_driver_version != "550.54""#, T),
            (r#"nvidia_driver_version == "550.54""#, F),
            (r#"nvidia_driver_version >= "550""#, F),
        ],
    );
    let env = linux().with_unchecked(Field::NvidiaDriverVersion, "550.54.15");
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"nvidia_driver_version >= "550""#, T),
            (r#"nvidia_driver_version < "550""#, F),
            (r#"nvidia_driver_version == "550.54.15""#, T),
            (r#"nvidia_driver_version == """#, F),
        ],
    );
}

/// §5.4: `"L" in field` is membership (exact; variant strings after canonicalising their `::`
/// separators); Absent is the empty set; `extras` and `dependency_groups` with no value are
/// the empty set too (nothing requested), not Unknown.
#[test]
fn spec_2026_set_fields() {
    let env = with_value(
        linux(),
        Field::GpuBackends,
        EnvValue::Set(vec!["cuda".into(), "rocm".into()]),
    );
    let env = with_value(
        env,
        Field::VariantFeatures,
        EnvValue::Set(vec!["nvidia::cuda_version_lower_bound".into()]),
    );
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#""cuda" in gpu_backends"#, T),
            (r#""rocm" in gpu_backends"#, T),
            (r#""vulkan" in gpu_backends"#, F),
            (r#""cud" in gpu_backends"#, F),
            (r#""cuda" not in gpu_backends"#, F),
            (r#""vulkan" not in gpu_backends"#, T),
            (
                r#""nvidia :: cuda_version_lower_bound" in variant_features"#,
                T,
            ),
            (
                r#""nvidia::cuda_version_lower_bound" in variant_features"#,
                T,
            ),
            (r#""nvidia :: sm_arch" in variant_features"#, F),
            (
                r#""nvidia :: cuda_version_lower_bound" not in variant_features"#,
                F,
            ),
        ],
    );
    let one = with_value(
        linux(),
        Field::GpuBackends,
        EnvValue::Set(vec!["rocm".into()]),
    );
    table(
        Profile::Spec2026,
        &one,
        &[
            (r#""cuda" in gpu_backends"#, F),
            (r#""cuda" not in gpu_backends"#, T),
        ],
    );
    for empty in [EnvValue::Absent, EnvValue::Set(Vec::new())] {
        let env = with_value(linux(), Field::GpuBackends, empty);
        table(
            Profile::Spec2026,
            &env,
            &[
                (r#""cuda" in gpu_backends"#, F),
                (r#""cuda" not in gpu_backends"#, T),
            ],
        );
    }
    let env = with_value(linux(), Field::GpuBackends, EnvValue::Unknown);
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#""cuda" in gpu_backends"#, U),
            (r#""cuda" not in gpu_backends"#, U),
        ],
    );
    // Lock-file fields: nothing given is nothing requested.
    table(
        Profile::Spec2026,
        &linux(),
        &[
            (r#""cuda" in extras"#, F),
            (r#""cuda" not in extras"#, T),
            (r#""dev" in dependency_groups"#, F),
            (r#""dev" not in dependency_groups"#, T),
        ],
    );
    let env = with_value(
        linux(),
        Field::Extras,
        EnvValue::Set(vec!["CUDA_12".into()]),
    );
    let env = with_value(
        env,
        Field::DependencyGroups,
        EnvValue::Set(vec!["dev".into()]),
    );
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#""cuda-12" in extras"#, T),
            (r#""cpu" in extras"#, F),
            (r#""cuda-12" not in extras"#, F),
            (r#""dev" in dependency_groups"#, T),
            (r#""docs" in dependency_groups"#, F),
        ],
    );
    let env = with_value(linux(), Field::Extras, EnvValue::Unknown);
    table(Profile::Spec2026, &env, &[(r#""cuda" in extras"#, U)]);
}

/// §5.4: a set field on the left of `in` is `set-field-on-left`; the parser rejects it, and a
/// comparison built by hand that way does not evaluate.
#[test]
fn spec_2026_set_field_on_the_left_is_undefined() {
    let env = with_value(
        linux(),
        Field::GpuBackends,
        EnvValue::Set(vec!["cuda".into()]),
    );
    for op in [
        MarkerOperator::In,
        MarkerOperator::NotIn,
        MarkerOperator::Equal,
    ] {
        let e = MarkerExpression::new(
            MarkerValue::Field(Field::GpuBackends),
            op,
            MarkerValue::Literal("cuda".into()),
        );
        let err = e.evaluate(&env, Profile::Spec2026).unwrap_err();
        assert_eq!(err.code(), "E002", "{e}");
    }
    // Two variables, or two literals, built by hand: no comparison is defined.
    for (lhs, rhs) in [
        (
            MarkerValue::Field(Field::OsName),
            MarkerValue::Field(Field::SysPlatform),
        ),
        (
            MarkerValue::Literal("a".into()),
            MarkerValue::Literal("a".into()),
        ),
    ] {
        let e = MarkerExpression::new(lhs, MarkerOperator::Equal, rhs);
        assert_eq!(
            e.evaluate(&env, Profile::Spec2026).unwrap_err().code(),
            "E002",
            "{e}"
        );
    }
}

/// §5.5: `extra == "n"` is "n is requested", `extra != "n"` its negation, in either order;
/// names compare normalised; any other operator on `extra` is false.
#[test]
fn spec_2026_extra() {
    let none = linux();
    let one = linux().with_extras(["Test_Extra"]);
    let two = linux().with_extras(["cuda", "test"]);
    let p = Profile::Spec2026;
    table(
        p,
        &none,
        &[
            (r#"extra == "test""#, F),
            (r#"extra != "test""#, T),
            (r#""test" == extra"#, F),
        ],
    );
    table(
        p,
        &one,
        &[
            (r#"extra == "test-extra""#, T),
            (r#"extra == "test.extra""#, T),
            (r#""test-extra" == extra"#, T),
            (r#"extra != "test-extra""#, F),
            (r#""test-extra" != extra"#, F),
            (r#"extra == "cuda""#, F),
            (r#"extra != "cuda""#, T),
            (r#"extra > "a""#, F),
            (r#"extra <= "test-extra""#, F),
            (r#"extra in "test-extra""#, F),
            (r#""test" in extra"#, F),
        ],
    );
    table(
        p,
        &two,
        &[
            (r#"extra == "cuda""#, T),
            (r#"extra == "test""#, T),
            (r#"extra == "rocm""#, F),
            (r#"extra != "test""#, F),
            (r#"extra != "rocm""#, T),
            (r#"extra == "test" and extra == "cuda""#, T),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// packaging

/// packaging's `_operators` table for strings: `==`/`<=`/`>=` equality, `!=`, `<`/`>` false,
/// `in`/`not in` as Python's `lhs in rhs`; `~=` and `===` are `UndefinedComparison`.
#[test]
fn packaging_string_operators() {
    let p = Profile::Packaging;
    table(
        p,
        &linux(),
        &[
            (r#"os_name == "posix""#, T),
            (r#"os_name == "nt""#, F),
            (r#"os_name != "posix""#, F),
            (r#"os_name != "nt""#, T),
            (r#"os_name <= "posix""#, T),
            (r#"os_name >= "posix""#, T),
            (r#"os_name >= "nt""#, F),
            (r#"os_name < "z""#, F),
            (r#"os_name > "a""#, F),
            (r#"os_name in "posix nt""#, T),
            (r#"os_name in "nt""#, F),
            (r#"os_name not in "posix nt""#, F),
            (r#"os_name not in "nt""#, T),
            (r#""pos" in os_name"#, T),
            (r#""nt" in os_name"#, F),
            (r#""nt" not in os_name"#, T),
            (r#""posix" == os_name"#, T),
            (r#""nt" != os_name"#, T),
        ],
    );
    for text in [
        r#"os_name ~= "1.0""#,
        r#"os_name === "posix""#,
        r#""posix" === os_name"#,
    ] {
        assert_eq!(error_code(text, p, &linux()), "E002", "{text}");
    }
}

/// packaging compares as versions only `python_version`, `python_full_version`,
/// `implementation_version` and `platform_release` (`MARKERS_REQUIRING_VERSION`), and only
/// when `Specifier(op + rhs)` parses; everything else is a string.
#[test]
fn packaging_version_keys() {
    let p = Profile::Packaging;
    table(
        p,
        &linux(),
        &[
            (r#"python_version >= "3.8""#, T),
            (r#"python_version < "3.8""#, F),
            (r#"python_version == "3.12.0""#, T),
            (r#"python_full_version >= "3.12.7""#, T),
            (r#"implementation_version == "3.12.7.0""#, T),
            // Not a version key: `platform_version` "5.0" is not the string "5".
            (r#"platform_version == "5""#, F),
            (r#"platform_version == "5.0""#, T),
            (r#"platform_version >= "5.0""#, T),
            // Substring `in` on a version key (no specifier has `in`).
            (r#"python_version in "3.11 3.12""#, T),
            (r#"python_version in "3.10 3.11""#, F),
            (r#""3.1" in python_version"#, T),
            // The literal on the left is the item: `Specifier("<3.12").contains("3.8")`.
            (r#""3.8" < python_version"#, T),
            (r#""3.13" < python_version"#, F),
            (r#""3.12.0" == python_version"#, T),
        ],
    );
    // `platform_release` is a version key when its value is a version.
    let env = linux().with_unchecked(Field::PlatformRelease, "6.8");
    table(
        p,
        &env,
        &[
            (r#"platform_release >= "6""#, T),
            (r#"platform_release == "6.8.0""#, T),
        ],
    );
}

/// packaging builds `Specifier(op + rhs)`, so a literal starting with an operator character
/// continues the operator: `python_version == "=3.12"` is `===3.12`, `< "=3.12"` is `<=3.12`.
#[test]
fn packaging_operator_continuation_quirk() {
    let p = Profile::Packaging;
    table(
        p,
        &linux(),
        &[
            (r#"python_version == "=3.12""#, T),
            (r#"python_version == "=3.12.0""#, F),
            (r#"python_version < "=3.12""#, T),
            (r#"python_version > "=3.12""#, T),
            (r#"python_version > "=3.13""#, F),
        ],
    );
}

/// `===` compares the value as written (case-insensitively) with the literal: a version
/// spelled differently from its normal form does not match its normal form.
#[test]
fn packaging_arbitrary_equality_compares_text() {
    let env = linux().with_unchecked(Field::ImplementationVersion, "3.12.0-RC1");
    table(
        Profile::Packaging,
        &env,
        &[
            (r#"implementation_version === "3.12.0-rc1""#, T),
            (r#"implementation_version === "3.12.0rc1""#, F),
            (r#"implementation_version == "3.12.0rc1""#, T),
            (r#"python_full_version === "3.12.7""#, T),
        ],
    );
}

/// packaging's default environment repairs an untagged build's `python_full_version`
/// (`3.13.1+`, not a version) to `3.13.1+local`, which is.
#[test]
fn packaging_repairs_a_trailing_plus() {
    let env = linux()
        .with_unchecked(Field::PythonFullVersion, "3.13.1+")
        .with_unchecked(Field::ImplementationVersion, "3.13.1+");
    table(
        Profile::Packaging,
        &env,
        &[
            (r#"python_full_version >= "3.13""#, T),
            (r#"python_full_version < "3.13""#, F),
            (r#"python_full_version == "3.13.1""#, T),
            (r#"python_full_version == "3.13.1+local""#, T),
            (r#"python_full_version == "3.13.1+""#, F),
            (r#""3.13.1+local" == python_full_version"#, T),
            // `Specifier("<=3.13.1+local")` does not parse (a local label only goes with `==`
            // and `!=`), so the string `<=` decides: equality, false.
            (r#""3.13" <= python_full_version"#, F),
            // Only `python_full_version` is repaired.
            (r#"implementation_version >= "3.13""#, F),
            (r#"implementation_version == "3.13.1+""#, T),
        ],
    );
    // Under `spec-2026` the value is evaluated as given: not a version, so string rules.
    table(
        Profile::Spec2026,
        &env,
        &[
            (r#"python_full_version >= "3.13""#, F),
            (r#"python_full_version == "3.13.1+""#, T),
        ],
    );
}

/// packaging looks the variable up on the left, else takes the right-hand text as the name,
/// even when it is quoted: `"linux" == "sys_platform"` reads `sys_platform`. A name that is
/// not an environment key is `UndefinedEnvironmentName` (`E001`).
#[test]
fn packaging_looks_up_the_right_hand_text() {
    let p = Profile::Packaging;
    table(
        p,
        &linux(),
        &[
            (r#""linux" == "sys_platform""#, T),
            (r#""win32" == "sys_platform""#, F),
            (r#""3.8" < "python_version""#, T),
            (r#""3.13" < "python_version""#, F),
            (r#"os_name == sys_platform"#, F),
            (r#"os_name != sys_platform"#, T),
        ],
    );
    for text in [r#""linux" == "not_a_field""#, r#""12" < "cuda_version""#] {
        assert_eq!(error_code(text, p, &linux()), "E001", "{text}");
    }
    // Two extended fields are not a comparison packaging can make.
    let env = linux().with_unchecked(Field::CudaVersion, "12.4");
    let e = MarkerExpression::new(
        MarkerValue::Field(Field::CudaVersion),
        MarkerOperator::Equal,
        MarkerValue::Field(Field::RocmVersion),
    );
    assert_eq!(e.evaluate(&env, p).unwrap_err().code(), "E002");
}

/// Extended fields behave the same in every profile (§5.6), `packaging` included.
#[test]
fn packaging_evaluates_extended_fields_by_the_spec_rules() {
    let env = with_value(
        linux().with_unchecked(Field::CudaVersion, "12.4"),
        Field::GpuBackends,
        EnvValue::Set(vec!["cuda".into()]),
    );
    let env = env.with_unchecked(Field::PythonAbiTag, "cp312");
    let cases = [
        (r#"cuda_version >= "12""#, T),
        (r#"cuda_version >= "13""#, F),
        (r#""12" < cuda_version"#, T),
        (r#""cuda" in gpu_backends"#, T),
        (r#""rocm" in gpu_backends"#, F),
        (r#"python_abi_tag == "cp312""#, T),
        (r#"python_abi_tag != "cp312""#, F),
    ];
    for &profile in Profile::ALL {
        table(profile, &env, &cases);
    }
}

/// packaging's `extra`: in the metadata context it is `""` unless one extra is requested, and
/// compares with the string operators; with several requested (a set), only `==` and `!=`
/// are defined, as membership.
#[test]
fn packaging_extra() {
    let p = Profile::Packaging;
    table(
        p,
        &linux(),
        &[
            (r#"extra == """#, T),
            (r#"extra == "test""#, F),
            (r#"extra != "test""#, T),
        ],
    );
    let one = linux().with_extras(["test"]);
    table(
        p,
        &one,
        &[
            (r#"extra == "test""#, T),
            (r#""test" == extra"#, T),
            (r#"extra != "test""#, F),
            (r#"extra == "cuda""#, F),
            (r#"extra in "test testing""#, T),
            (r#"extra in "cuda""#, F),
            (r#""te" in extra"#, T),
            (r#""cu" in extra"#, F),
            (r#"extra < "z""#, F),
            (r#"extra >= "test""#, T),
        ],
    );
    let two = linux().with_extras(["cuda", "test"]);
    table(
        p,
        &two,
        &[
            (r#"extra == "test""#, T),
            (r#"extra == "cuda""#, T),
            (r#"extra == "rocm""#, F),
            (r#""test" == extra"#, T),
            (r#"extra != "test""#, F),
            (r#"extra != "rocm""#, T),
        ],
    );
    for text in [r#"extra < "z""#, r#"extra in "cuda test""#] {
        assert_eq!(error_code(text, p, &two), "E002", "{text}");
    }
    for text in [r#"extra ~= "1.0""#, r#"extra === "test""#] {
        assert_eq!(error_code(text, p, &one), "E002", "{text}");
    }
}

/// packaging's lock-file fields are sets: `"x" in extras` is membership, a string never
/// equals a set, and a set on the left of a comparison is an error.
#[test]
fn packaging_set_fields() {
    let p = Profile::Packaging;
    let env = with_value(linux(), Field::Extras, EnvValue::Set(vec!["cuda".into()]));
    table(
        p,
        &env,
        &[
            (r#""cuda" in extras"#, T),
            (r#""rocm" in extras"#, F),
            (r#""cuda" not in extras"#, F),
            (r#""rocm" not in extras"#, T),
            (r#""cuda" == extras"#, F),
            (r#""cuda" != extras"#, T),
            (r#""cuda" <= extras"#, F),
            (r#""cuda" > extras"#, F),
        ],
    );
    for text in [r#"extras == "cuda""#, r#""cuda" ~= extras"#] {
        assert_eq!(error_code(text, p, &env), "E002", "{text}");
    }
    // packaging's `UndefinedEnvironmentName` when the context does not define the set.
    assert_eq!(error_code(r#""cuda" in extras"#, p, &linux()), "E001");
    let env = with_value(linux(), Field::Extras, EnvValue::Unknown);
    table(p, &env, &[(r#""cuda" in extras"#, U)]);
}

/// A missing standard value is `UndefinedEnvironmentName` (`E001`) under packaging and Unknown
/// under spec-2026.
#[test]
fn missing_values_per_profile() {
    let env = Environment::new().with_unchecked(Field::OsName, "posix");
    assert_eq!(
        error_code(r#"sys_platform == "linux""#, Profile::Packaging, &env),
        "E001"
    );
    table(
        Profile::Spec2026,
        &env,
        &[(r#"sys_platform == "linux""#, U)],
    );
    table(Profile::Uv, &env, &[(r#"sys_platform == "linux""#, U)]);
}

// ---------------------------------------------------------------------------------------------
// uv

/// The uv profile's comparisons differ from packaging's and spec-2026's where uv's do:
/// release-only version ranges, `in` on a version field as a list of versions, lexicographic
/// `platform_release`.
#[test]
fn uv_comparisons_differ_where_uv_does() {
    let env = linux().with_unchecked(Field::PythonFullVersion, "3.14.0rc1");
    let env = env.with_unchecked(Field::PythonVersion, "3.14");
    // uv reads `python_version >= "3.14"` as `python_full_version >= "3.14"`, which a release
    // candidate is not.
    table(Profile::Uv, &env, &[(r#"python_version >= "3.14""#, F)]);
    table(
        Profile::Spec2026,
        &env,
        &[(r#"python_version >= "3.14""#, T)],
    );
    table(
        Profile::Packaging,
        &env,
        &[(r#"python_version >= "3.14""#, T)],
    );
    // A list of versions under uv, a substring under packaging, false under spec-2026.
    let env = linux();
    table(
        Profile::Uv,
        &env,
        &[
            (r#"python_version in "3.11 3.12""#, T),
            (r#"python_version in "3.1""#, F),
            (r#"python_version not in "3.11 3.12""#, F),
        ],
    );
    // uv: `3.12.1` is no `python_version`, so the list holds none; packaging: "3.12" is a
    // substring of "3.12.1"; spec-2026: false.
    table(Profile::Uv, &env, &[(r#"python_version in "3.12.1""#, F)]);
    table(
        Profile::Packaging,
        &env,
        &[(r#"python_version in "3.12.1""#, T)],
    );
    table(
        Profile::Spec2026,
        &env,
        &[(r#"python_version in "3.12.1""#, F)],
    );
    // `platform_release` orders lexicographically under uv.
    table(
        Profile::Uv,
        &env,
        &[
            (r#"platform_release >= "6""#, T),
            (r#"platform_release < "6""#, F),
            (r#"platform_release > "7""#, F),
        ],
    );
    table(
        Profile::Spec2026,
        &env,
        &[(r#"platform_release >= "6""#, F)],
    );
}

/// packaging builds `Specifier(op + rhs)` from the literal as written, and `Specifier` allows
/// whitespace only between the operator and the version: `"== =3.12"` is not a specifier, so
/// `python_version == " =3.12"` falls back to string equality and is false (packaging 26.4:
/// `Marker('python_version == " =3.12"').evaluate({"python_version": "3.12"})` is `False`).
/// Whitespace before the version is fine: `python_version >= " 3.8"` compares versions.
#[test]
fn packaging_operator_continuation_needs_the_operator_character_first() {
    let env = linux();
    table(
        Profile::Packaging,
        &env,
        &[
            (r#"python_version >= " 3.8""#, T),
            (r#"python_version == " =3.12""#, F),
            (r#"python_version < " =3.12""#, F),
            (r#"python_version < " =3.13""#, F),
            (r#"python_version == "=3.12 ""#, T),
        ],
    );
}

#[test]
fn a_quoted_version_is_stripped_as_python_strips_it() {
    // packaging builds `Specifier(op + value)`, and `Specifier` strips its input with
    // `str.strip()`, which also removes the separators U+001C..U+001F (not whitespace to
    // Rust). The stripped text is the version, so the comparison is a version comparison
    // (`3.12 >= 3.11`), not the string rule (where `>=` is `==`, false here).
    let env = Environment::new().with_unchecked(Field::PythonVersion, "3.12");
    for sep in ['\u{1c}', '\u{1f}', ' '] {
        for profile in [Profile::Spec2026, Profile::Packaging] {
            let text = format!("python_version >= \"{sep}3.11{sep}\"");
            assert_eq!(truth(&text, profile, &env), T, "{text:?} ({profile})");
            let text = format!("python_version < \"{sep}3.11\"");
            assert_eq!(truth(&text, profile, &env), F, "{text:?} ({profile})");
            // `===` compares the stripped text.
            let text = format!("python_version === \"{sep}3.12{sep}\"");
            assert_eq!(truth(&text, profile, &env), T, "{text:?} ({profile})");
            // Stripping happens after `op + value` is joined: `== =3.12` keeps the separator
            // between the two operator characters, so it is no specifier (and no `===3.12`),
            // and the comparison is the string rule.
            let text = format!("python_version == \"{sep}=3.12\"");
            assert_eq!(truth(&text, profile, &env), F, "{text:?} ({profile})");
        }
    }
}

#[test]
fn a_quoted_version_left_of_a_compatible_release_is_stripped_too() {
    // `"L" ~= f` reads as packaging's `Specifier("~=" + value).contains(L)`, where `Version(L)`
    // strips `L` with `str.strip()` (the separators U+001C..U+001F included): `3.12.1` is a
    // compatible release of `3.12`. Unstripped, `L` is no version and the string rule
    // (false) would answer.
    let env = Environment::new().with_unchecked(Field::PythonFullVersion, "3.12");
    for sep in ['\u{1c}', '\u{1f}', ' '] {
        let text = format!("\"{sep}3.12.1{sep}\" ~= python_full_version");
        assert_eq!(truth(&text, Profile::Spec2026, &env), T, "{text:?}");
        let text = format!("\"{sep}3.11{sep}\" ~= python_full_version");
        assert_eq!(truth(&text, Profile::Spec2026, &env), F, "{text:?}");
        // Nor does the parse-time check warn that the literal is no version (the separators
        // are non-standard text, which it does warn about).
        let text = format!("\"{sep}3.12.1{sep}\" ~= python_full_version");
        let mut warnings = Vec::new();
        MarkerTree::parse_with(&text, &options(Profile::Spec2026, &text), &mut warnings)
            .expect("a marker");
        assert!(
            !warnings.iter().any(|w| matches!(
                w.kind,
                markerspec_pep508::WarningKind::VersionFieldStringComparison { .. }
            )),
            "{text:?}: {warnings:?}"
        );
    }
}

#[test]
fn an_extended_version_literal_is_checked_as_evaluation_reads_it() {
    // `== =3.12` is no specifier, so the parse-time check of an extended version field
    // rejects it, as it rejects any quoted value that is not a version.
    for text in [r#"cuda_version == " =3.12""#, r#"cuda_version >= "twelve""#] {
        let err = MarkerTree::parse_with(text, &options(Profile::Spec2026, text), &mut |_| {})
            .unwrap_err();
        assert_eq!(err.code(), "X001", "{text}: {}", err.render(text));
    }
    assert!(
        MarkerTree::parse_with(
            r#"cuda_version == " 12.4 ""#,
            &options(Profile::Spec2026, ""),
            &mut |_| {}
        )
        .is_ok()
    );
}
