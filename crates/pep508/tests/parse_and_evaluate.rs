//! `Requirement::parse_and_evaluate` answers what parsing the requirement and evaluating its
//! marker answers: the same value, unknown fields, error and warnings, in every profile.

use markerspec_pep508::{
    EnvValue, Environment, Evaluation, Field, FieldSet, ParseOptions, Profile, Requirement, Truth,
    Warning,
};

fn through_the_tree(
    text: &str,
    opts: &ParseOptions,
    env: &Environment,
) -> (Result<Evaluation, String>, Vec<String>) {
    let mut warnings: Vec<Warning> = Vec::new();
    let answer =
        Requirement::parse_with(text, opts, &mut warnings).and_then(|r| match r.marker() {
            None => Ok(Evaluation {
                truth: Truth::True,
                unknown: FieldSet::default(),
            }),
            Some(m) => m.evaluate_tristate(env),
        });
    (
        answer.map_err(|e| format!("{} {:?} {}", e.code(), e.span(), e.message())),
        warnings.iter().map(|w| format!("{w:?}")).collect(),
    )
}

fn directly(
    text: &str,
    opts: &ParseOptions,
    env: &Environment,
) -> (Result<Evaluation, String>, Vec<String>) {
    let mut warnings: Vec<Warning> = Vec::new();
    let answer = Requirement::parse_and_evaluate(text, opts, &mut warnings, env);
    (
        answer.map_err(|e| format!("{} {:?} {}", e.code(), e.span(), e.message())),
        warnings.iter().map(|w| format!("{w:?}")).collect(),
    )
}

const LINES: &[&str] = &[
    "numpy",
    "numpy>=2",
    "numpy (>=2, <3)",
    "numpy ()",
    "numpy[a, B_c]>=1; extra == 'B_c'",
    "numpy[a,]",
    "numpy[",
    "numpy x",
    "numpy[a] x",
    "numpy>=1 x",
    "numpy>=x",
    "numpy>=1,",
    "numpy>=1, 2",
    "pkg @ https://example.com/p.whl ; os_name == 'nt'",
    "pkg @ https://example.com/p;x.whl",
    "pkg @ https://example.com/p.whl x",
    "pkg ; true",
    "pkg ; false",
    "pkg ;",
    "pkg ; os_name == 'nt' or (python_version >= '3.8' and extra == 'x')",
    "pkg ; (os_name == 'nt' or sys_platform == 'linux') and platform_machine == 'x86_64'",
    "pkg ; python_version > '3' and platform_machine == 'x86_64' or platform_release >= '5'",
    "pkg ; python_version in '3.10 3.11'",
    "pkg ; platform_release >= '18.0'",
    "pkg ; python_version >= 'x'",
    "pkg ; os.name == 'nt'",
    "pkg ; ((os_name == 'nt')",
    "pkg ; os_name == 'nt' and",
    "pkg ; extras == 'x'",
    "pkg ; 'a' in extras",
    "pkg ; python_version ~= '3'",
    "pkg ; python_version === '3.12'",
    "pkg ; 'x' == 'x'",
    "pkg ; os_name == \"a\\x41\"",
    "pkg ; cuda_version >= '12'",
];

#[test]
fn the_same_answer_as_the_tree() {
    let mut known = Environment::new();
    for (field, value) in [
        (Field::ImplementationName, "cpython"),
        (Field::ImplementationVersion, "3.12.4"),
        (Field::OsName, "posix"),
        (Field::PlatformMachine, "x86_64"),
        (Field::PlatformPythonImplementation, "CPython"),
        (Field::PlatformRelease, "6.8.0-45-generic"),
        (Field::PlatformSystem, "Linux"),
        (Field::PythonFullVersion, "3.12.4"),
        (Field::PythonVersion, "3.12"),
        (Field::SysPlatform, "linux"),
    ] {
        known = known.with(field, value).unwrap();
    }
    let mut unknown = known.clone();
    unknown
        .set(Field::PlatformMachine, EnvValue::Unknown)
        .unwrap();
    unknown
        .set(Field::PlatformRelease, EnvValue::Unknown)
        .unwrap();
    let corpus = include_str!("../../../tests/data/requires-dist-gpu-stack.txt");
    let lines = LINES.iter().copied().chain(corpus.lines());
    let mut compared = 0;
    for text in lines {
        for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
            for lock_file in [false, true] {
                let opts = ParseOptions::default()
                    .profile(profile)
                    .lock_file(lock_file);
                for env in [&known, &unknown] {
                    assert_eq!(
                        directly(text, &opts, env),
                        through_the_tree(text, &opts, env),
                        "{text} ({profile:?}, lock file {lock_file})"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000);
}
