//! Every user-visible diagnostic, rendered with the input and carets, pinned by a snapshot.
//! Each case also asserts its stable code, so a renumbering cannot slip through.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Profile, Requirement, Warning,
};

#[track_caller]
fn req_err(input: &str) -> (String, String) {
    let e = Requirement::parse_with(input, &ParseOptions::default(), &mut |_| {}).unwrap_err();
    (e.code().to_string(), e.render(input))
}

#[track_caller]
fn marker_err(input: &str, dialect: Dialect) -> (String, String) {
    marker_err_with(input, ParseOptions::default().dialect(dialect))
}

#[track_caller]
fn marker_err_with(input: &str, opts: ParseOptions) -> (String, String) {
    let e = MarkerTree::parse_with(input, &opts, &mut |_| {}).unwrap_err();
    (e.code().to_string(), e.render(input))
}

macro_rules! cases {
    ($($name:ident: $f:expr => $code:literal;)*) => {
        $(
            #[test]
            fn $name() {
                let (code, rendered) = $f;
                assert_eq!(code, $code, "{rendered}");
                insta::assert_snapshot!(stringify!($name), rendered);
            }
        )*
    };
}

const P: Dialect = Dialect::Pep508;
const X: Dialect = Dialect::Extended;

cases! {
    r001_empty: req_err("") => "R001";
    r001_operator_first: req_err(">=1.0") => "R001";
    r001_extras_first: req_err("[security]") => "R001";
    r010_non_ascii_name: req_err("café") => "R010";
    r002_trailing_underscore: req_err("foo_") => "R002";
    r002_trailing_dot_before_op: req_err("a.>=1") => "R002";
    r003_unclosed_extras: req_err("requests[security") => "R003";
    r003_unclosed_extras_junk: req_err("requests[security;") => "R003";
    r004_trailing_comma_in_extras: req_err("requests[security,]") => "R004";
    r004_quoted_extra: req_err("pkg[\"a\"]") => "R004";
    r005_missing_comma: req_err("requests[security tests]") => "R005";
    r006_version_without_operator: req_err("numpy (1.0)") => "R006";
    r006_missing_operator_after_comma: req_err("numpy>=1.0, 2.0") => "R006";
    r007_operator_without_version: req_err("numpy>=") => "R007";
    r007_operator_then_marker: req_err("numpy>= ; os_name == 'nt'") => "R007";
    r008_unclosed_paren: req_err("numpy (>=1.0") => "R008";
    r009_at_without_url: req_err("pkg @ ") => "R009";
    r010_bare_version: req_err("numpy 1.0") => "R010";
    r010_marker_without_semicolon: req_err("numpy python_version >= '3'") => "R010";
    r010_comment: req_err("numpy>=1.0 # pinned") => "R010";
    r010_missing_comma_between_specifiers: req_err("numpy>=1.0 <2") => "R010";
    r010_after_url: req_err("pkg @ https://example.com/pkg.whl os_name == 'nt'") => "R010";
    r010_url_after_version: req_err("pkg>=1.0 @ https://example.com/pkg.whl") => "R010";
    r010_path_without_at: req_err("pkg /tmp/pkg.whl") => "R010";
    v_wildcard_on_ordered: req_err("numpy>=1.*") => "V004";
    v_local_on_ordered: req_err("numpy>=1.0+local") => "V005";
    v_compatible_one_segment: req_err("numpy~=1") => "V006";
    v_invalid_version: req_err("numpy==1.0.0-beta.x") => "V001";
    m001_missing_left: marker_err("== 'posix'", P) => "M001";
    m001_unquoted_version: marker_err("python_version >= 3.8", P) => "M001";
    m001_empty_parens: marker_err("()", P) => "M001";
    m001_missing_right: marker_err("os_name ==", P) => "M001";
    m001_after_and: marker_err("os_name == 'nt' and", P) => "M001";
    m002_typo: marker_err("python_versoin >= '3'", P) => "M002";
    m002_dotted_unknown: marker_err("platform.release >= '5'", P) => "M002";
    m002_uppercase_variable: marker_err("OS_NAME == 'nt'", P) => "M002";
    m003_extended_in_pep508: marker_err("cuda_version >= '12'", P) => "M003";
    m004_missing_operator: marker_err("os_name 'posix'", P) => "M004";
    m004_single_equals: marker_err("os_name = 'posix'", P) => "M004";
    m004_notin: marker_err("'a' notin os_name", P) => "M004";
    m005_not_without_in: marker_err("'a' not os_name", P) => "M005";
    m006_unterminated_double: marker_err("os_name == \"posix", P) => "M006";
    m006_unterminated_single: marker_err("os_name == 'posix", P) => "M006";
    m007_bad_hex_escape: marker_err(r"os_name == 'a\x4'", P) => "M007";
    m007_line_break: marker_err("os_name == 'a\nb'", P) => "M007";
    m008_unclosed_paren: marker_err("(os_name == 'nt' or os_name == 'posix'", P) => "M008";
    m009_uppercase_and: marker_err("os_name == 'nt' AND python_version >= '3'", P) => "M009";
    m009_double_ampersand: marker_err("os_name == 'nt' && python_version >= '3'", P) => "M009";
    m009_stray_close_paren: marker_err("os_name == 'nt')", P) => "M009";
    m009_glued_keyword: marker_err("os_name=='posix'andpython_version>='3'", P) => "M009";
    m010_empty_marker: req_err("numpy;") => "M010";
    m010_empty_marker_spaces: req_err("numpy ;  ") => "M010";
    l001_too_long: marker_err(&format!("os_name == '{}'", "x".repeat(1 << 20)), P) => "L001";
    l002_too_deep: marker_err(&format!("{}os_name == 'nt'{}", "(".repeat(201), ")".repeat(201)), P) => "L002";
    x001_invalid_version_literal: marker_err("cuda_version >= 'twelve'", X) => "X001";
    x002_set_equality: marker_err("gpu_backends == 'cuda'", X) => "X002";
    x004_set_on_left: marker_err("gpu_backends in 'cuda rocm'", X) => "X004";
    m014_extra_in_lock_file: marker_err_with("extra == 'gpu'", ParseOptions::default().lock_file(true)) => "M014";
    x005_containment_on_extended_version: marker_err("'12' in cuda_version", X) => "X005";
    x006_version_op_on_extended_string: marker_err("python_abi_tag ~= 'cp313'", X) => "X006";
    x007_invalid_compute_capability: marker_err("'sm_86' in cuda_compute_capabilities", X) => "X007";
    x007_uppercase_backend: marker_err("'CUDA' in gpu_backends", X) => "X007";
    x007_noncanonical_compute_capability: marker_err("'9.00' in cuda_compute_capabilities", X) => "X007";
    x007_bare_compute_capability: marker_err("'9' in cuda_compute_capabilities", X) => "X007";
    x009_bad_variant_label: marker_err("variant_label == 'CU 12'", X) => "X009";
    x001_compatible_one_segment: marker_err("cuda_version ~= '12'", X) => "X001";
    x011_empty_with_ordering: marker_err("cuda_version >= ''", X) => "X011";
    x011_empty_in_string: marker_err("python_abi_tag in ''", X) => "X011";
    x010_arbitrary_equality_on_extended: marker_err("cuda_version === '12.8'", X) => "X010";
    x001_driver_version_not_a_version: marker_err("nvidia_driver_version == 'r570'", X) => "X001";
    x001_compatible_literal_left: marker_err("'12.4' ~= cuda_version", X) => "X001";
    m011_two_literals: marker_err("'a' == 'a'", P) => "M011";
    m012_two_fields: marker_err("os_name == sys_platform", P) => "M012";
    m012_two_extended_fields_in_packaging_profile: marker_err_with("cuda_version == rocm_version", ParseOptions::default().dialect(X).profile(Profile::Packaging)) => "M012";
    m013_extras_without_lock_file: marker_err("'cuda' in extras", P) => "M013";
    x003_short_property: marker_err("'nvidia :: cuda' in variant_properties", X) => "X003";
    x003_uppercase_namespace: marker_err("'NVIDIA' in variant_namespaces", X) => "X003";
}

fn env() -> Environment {
    Environment::new()
        .with_unchecked(Field::PythonVersion, "3.12")
        .with_unchecked(Field::OsName, "posix")
}

#[track_caller]
fn eval_err(input: &str, env: &Environment, profile: Profile) -> (String, String) {
    let opts = ParseOptions::default().profile(profile).dialect(X);
    let m = MarkerTree::parse_with(input, &opts, &mut |_| {}).unwrap();
    let e = m.evaluate(env).unwrap_err();
    (e.code().to_string(), e.render(input))
}

fn with_unknown_cuda() -> Environment {
    let mut env = env();
    env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    env
}

const PK: Profile = Profile::Packaging;
const S: Profile = Profile::Spec2026;

cases! {
    e001_missing_value: eval_err("sys_platform == 'linux'", &env(), PK) => "E001";
    e001_literal_looked_up_by_name: eval_err("'a' == 'b'", &env(), PK) => "E001";
    e002_compatible_on_string: eval_err("os_name ~= 'posix'", &env(), PK) => "E002";
    e002_one_segment_compatible: eval_err("python_version ~= '3'", &env(), PK) => "E002";
    e002_set_on_left: eval_err("extras == 'cuda'", &env().tap_lock(), PK) => "E002";
    e004_unknown_result: eval_err("cuda_version >= '12'", &with_unknown_cuda(), S) => "E004";
    e004_missing_standard_field_is_unknown: eval_err("sys_platform == 'linux'", &env(), S) => "E004";
}

trait TapLock {
    fn tap_lock(self) -> Self;
}
impl TapLock for Environment {
    fn tap_lock(mut self) -> Self {
        self.set(Field::Extras, EnvValue::Set(vec!["cuda".into()]))
            .unwrap();
        self
    }
}

#[track_caller]
fn warnings_with(input: &str, opts: ParseOptions) -> String {
    let mut w: Vec<Warning> = Vec::new();
    if Requirement::parse_with(input, &opts, &mut w).is_err() {
        w.clear();
        MarkerTree::parse_with(input, &opts, &mut w).unwrap();
    }
    assert!(!w.is_empty(), "no warning for {input}");
    w.iter().map(|w| w.render(input)).collect()
}

macro_rules! warning_cases {
    ($($name:ident: $input:expr, $opts:expr => $code:literal;)*) => {
        $(
            #[test]
            fn $name() {
                let rendered = warnings_with($input, $opts);
                assert!(rendered.contains(concat!("[", $code, "]")), "{rendered}");
                insta::assert_snapshot!(stringify!($name), rendered);
            }
        )*
    };
}

fn p() -> ParseOptions {
    ParseOptions::default()
}
fn x() -> ParseOptions {
    ParseOptions::default().dialect(X)
}
fn pk() -> ParseOptions {
    ParseOptions::default().profile(Profile::Packaging)
}

warning_cases! {
    w001_dotted_alias: "os.name == 'posix'", p() => "W001";
    w001_python_implementation: "python_implementation == 'CPython'", p() => "W001";
    w002_string_ordering: "sys_platform < 'linux'", p() => "W002";
    w003_semicolon_in_url: "pkg @ https://example.com/pkg.whl;python_version>'3'", p() => "W003";
    w004_two_literals: "'a' == 'a'", pk() => "W004";
    w005_invalid_version_literal: "python_version >= '3.x'", p() => "W005";
    w006_compatible_one_segment: "python_version ~= '3'", pk() => "W006";
    w007_escape: r"os_name == 'pos\x69x'", p() => "W007";
    w008_containment_on_version: "python_version in '3.10 3.11'", p() => "W008";
    w009_compatible_on_string: "os_name ~= 'posix'", p() => "W009";
    w010_extra_operator: "extra < 'x'", p() => "W010";
    w011_field_in_literal: "python_abi_tag in 'cp312 cp313'", x() => "W011";
    w012_unknown_backend: "'metal' in gpu_backends", x() => "W012";
    w013_unknown_arch: "interpreter_arch == 'vax'", x() => "W013";
    w014_short_version_literal: "cuda_version == '12' and 'cuda' in gpu_backends", x() => "W014";
    w014_short_library_version: "cudnn_version != '9.1' and cudnn_version != ''", x() => "W014";
    w015_unguarded_not_equal: "cuda_version != '12.8'", x() => "W015";
    w015_unguarded_less_than: "cuda_version < '12' and os_name == 'posix'", x() => "W015";
    w016_alias_arch: "interpreter_arch == 'AMD64'", x() => "W016";
    w016_alias_host_arch: "host_arch == 'arm64'", x() => "W016";
    w017_lock_file_set_operator: "extras == 'cuda'", p().lock_file(true) => "W017";
    w018_lock_file_set_on_left: "extras in 'cuda'", p().lock_file(true) => "W018";
}
