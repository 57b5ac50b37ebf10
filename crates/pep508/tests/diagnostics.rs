//! Every user-visible diagnostic, rendered with the input and carets, pinned by a snapshot.
//! Each case also asserts its stable code, so a renumbering cannot slip through.

use markerspec_pep508::{
    Dialect, Environment, Field, MarkerTree, ParseOptions, Requirement, Warning,
};

#[track_caller]
fn req_err(input: &str) -> (String, String) {
    let e = Requirement::parse_with(input, &ParseOptions::default(), &mut |_| {}).unwrap_err();
    (e.code().to_string(), e.render())
}

#[track_caller]
fn marker_err(input: &str, dialect: Dialect) -> (String, String) {
    let opts = ParseOptions::default().dialect(dialect);
    let e = MarkerTree::parse_with(input, &opts, &mut |_| {}).unwrap_err();
    (e.code().to_string(), e.render())
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
    x002_set_on_left: marker_err("gpu_backends in 'cuda rocm'", X) => "X002";
    x003_short_property: marker_err("'nvidia :: cuda' in variant_properties", X) => "X003";
    x003_uppercase_namespace: marker_err("'NVIDIA' in variant_namespaces", X) => "X003";
    x004_field_with_field: marker_err("cuda_version == rocm_version", X) => "X004";
}

fn env() -> Environment {
    Environment::new()
        .with(Field::PythonVersion, "3.12")
        .with(Field::OsName, "posix")
}

#[track_caller]
fn eval_err(input: &str, env: &Environment) -> (String, String) {
    let m: MarkerTree = input.parse().unwrap();
    let e = m.evaluate(env).unwrap_err().with_input(input);
    (e.code().to_string(), e.render())
}

cases! {
    e001_missing_value: eval_err("sys_platform == 'linux'", &env()) => "E001";
    e002_compatible_on_string: eval_err("os_name ~= 'posix'", &env()) => "E002";
    e002_one_segment_compatible: eval_err("python_version ~= '3'", &env()) => "E002";
    e002_set_on_left: eval_err("extras == 'cuda'", &env().clone().tap_lock()) => "E002";
    e003_extras_outside_lock_file: eval_err("'cuda' in extras", &env()) => "E003";
}

trait TapLock {
    fn tap_lock(self) -> Self;
}
impl TapLock for Environment {
    fn tap_lock(mut self) -> Self {
        self.set(
            Field::Extras,
            markerspec_pep508::EnvValue::Set(vec!["cuda".into()]),
        )
        .unwrap();
        self
    }
}

#[track_caller]
fn warnings(input: &str, dialect: Dialect) -> String {
    let mut w: Vec<Warning> = Vec::new();
    let opts = ParseOptions::default().dialect(dialect);
    if Requirement::parse_with(input, &opts, &mut w).is_err() {
        w.clear();
        MarkerTree::parse_with(input, &opts, &mut w).unwrap();
    }
    assert!(!w.is_empty(), "no warning for {input}");
    w.iter().map(|w| w.render(input)).collect()
}

macro_rules! warning_cases {
    ($($name:ident: $input:expr, $dialect:expr => $code:literal;)*) => {
        $(
            #[test]
            fn $name() {
                let rendered = warnings($input, $dialect);
                assert!(rendered.contains(concat!("[", $code, "]")), "{rendered}");
                insta::assert_snapshot!(stringify!($name), rendered);
            }
        )*
    };
}

warning_cases! {
    w001_dotted_alias: "os.name == 'posix'", P => "W001";
    w001_python_implementation: "python_implementation == 'CPython'", P => "W001";
    w002_string_ordering: "sys_platform < 'linux'", P => "W002";
    w003_semicolon_in_url: "pkg @ https://example.com/pkg.whl;python_version>'3'", P => "W003";
    w004_two_literals: "'a' == 'a'", P => "W004";
    w005_invalid_version_literal: "python_version >= '3.x'", P => "W005";
    w006_compatible_one_segment: "python_version ~= '3'", P => "W006";
    w007_escape: r"os_name == 'pos\x69x'", P => "W007";
}
