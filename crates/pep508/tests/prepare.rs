//! `ParseOptions::prepare_evaluation`: a marker parsed without preparing its evaluation
//! evaluates exactly as one parsed with it, in every profile, whole, combined and split.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Profile, Requirement,
};

const MARKERS: &[&str] = &[
    "python_version >= '3.8'",
    "'3.8' <= python_version",
    "python_version < '3.15' and platform_system == 'Linux'",
    "extra == 'gpu' and (os_name == 'nt' or sys_platform == 'linux')",
    "(extra == 'a' or extra == 'b') and python_full_version ~= '3.12.1'",
    "python_version in '3.10 3.11 3.12'",
    "python_version == '3.12.*' or implementation_name != 'cpython'",
    "platform_release >= '18.0' and platform_machine == 'x86_64'",
    "'linux' in sys_platform and python_version > '3'",
    "os_name == 'posix' and (python_version < '3' or (python_version >= '3.9' and extra != 'x'))",
    "cuda_version >= '12.1' and 'cuda' in gpu_backends",
    "glibc_version >= '2.28' or musl_version >= '1.2'",
    "platform_version == 'abc' and python_version === '3.12'",
    "true",
    "false",
];

fn environments() -> Vec<Environment> {
    let linux = Environment::new()
        .with(Field::OsName, "posix")
        .and_then(|e| e.with(Field::SysPlatform, "linux"))
        .and_then(|e| e.with(Field::PlatformSystem, "Linux"))
        .and_then(|e| e.with(Field::PlatformMachine, "x86_64"))
        .and_then(|e| e.with(Field::PlatformRelease, "6.8.0"))
        .and_then(|e| e.with(Field::PlatformVersion, "#1 SMP"))
        .and_then(|e| e.with(Field::PythonVersion, "3.12"))
        .and_then(|e| e.with(Field::PythonFullVersion, "3.12.1"))
        .and_then(|e| e.with(Field::ImplementationName, "cpython"))
        .and_then(|e| e.with(Field::ImplementationVersion, "3.12.1"))
        .and_then(|e| e.with(Field::PlatformPythonImplementation, "CPython"))
        .expect("a valid environment");
    let mut gpu = linux.clone();
    gpu.set(Field::CudaVersion, EnvValue::Unknown)
        .expect("an extended field");
    let windows = Environment::new()
        .with(Field::OsName, "nt")
        .and_then(|e| e.with(Field::SysPlatform, "win32"))
        .and_then(|e| e.with(Field::PythonVersion, "3.8"))
        .and_then(|e| e.with(Field::PythonFullVersion, "3.8.10"))
        .expect("a valid environment");
    vec![linux, gpu, windows, Environment::new()]
}

fn answers(m: &MarkerTree, envs: &[Environment]) -> Vec<String> {
    let mut out = Vec::new();
    for env in envs {
        out.push(format!(
            "{:?}",
            m.evaluate_tristate(env).map_err(|e| e.code())
        ));
        out.push(format!("{:?}", m.evaluate(env).map_err(|e| e.code())));
        out.push(format!(
            "{:?}",
            m.evaluate_with_extras(env, &["gpu", "A"])
                .map_err(|e| e.code())
        ));
    }
    out
}

#[test]
fn prepared_and_unprepared_markers_evaluate_alike() {
    let envs = environments();
    let mut compared = 0;
    for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
        let base = ParseOptions::default()
            .dialect(Dialect::Extended)
            .profile(profile);
        let lazy = base.clone().prepare_evaluation(false);
        let parsed: Vec<(MarkerTree, MarkerTree)> = MARKERS
            .iter()
            .filter_map(|text| {
                let a = MarkerTree::parse_with(text, &base, &mut Vec::new());
                let b = MarkerTree::parse_with(text, &lazy, &mut Vec::new());
                assert_eq!(a.is_ok(), b.is_ok(), "{text} ({profile:?})");
                Some((a.ok()?, b.ok()?))
            })
            .collect();
        assert!(parsed.len() > MARKERS.len() / 2, "{profile:?}");
        for (i, (a, b)) in parsed.iter().enumerate() {
            assert_eq!(a, b);
            assert_eq!(answers(a, &envs), answers(b, &envs), "{a} ({profile:?})");
            // Split and combined, mixing prepared and unprepared trees.
            let (pa, pb): (Vec<_>, Vec<_>) = (a.children(), b.children());
            for (x, y) in pa.iter().zip(&pb) {
                assert_eq!(answers(x, &envs), answers(y, &envs), "{x} ({profile:?})");
            }
            let (c, d) = &parsed[(i + 1) % parsed.len()];
            let and_ab = a.clone().and(d.clone());
            let and_ba = b.clone().and(c.clone());
            assert_eq!(
                answers(&and_ab, &envs),
                answers(&a.clone().and(c.clone()), &envs)
            );
            assert_eq!(
                answers(&and_ba, &envs),
                answers(&a.clone().and(c.clone()), &envs)
            );
            let or_bd = b.clone().or(d.clone());
            assert_eq!(
                answers(&or_bd, &envs),
                answers(&a.clone().or(c.clone()), &envs)
            );
            compared += 1;
        }
    }
    assert!(compared >= 30, "{compared}");
}

#[test]
fn a_requirement_marker_evaluates_alike_unprepared() {
    let envs = environments();
    let lazy = ParseOptions::default().prepare_evaluation(false);
    for text in [
        "torch>=2; platform_system == 'Linux' and python_version < '3.15'",
        "numpy; extra == 'gpu' or python_full_version >= '3.12.1'",
        "pkg @ https://example.com/p.whl ; os_name == 'nt'",
    ] {
        let a: Requirement = text.parse().expect("a requirement");
        let b = Requirement::parse_with(text, &lazy, &mut Vec::new()).expect("a requirement");
        assert_eq!(a, b);
        for env in &envs {
            assert_eq!(
                a.evaluate(env, &["gpu"]).map_err(|e| e.code()),
                b.evaluate(env, &["gpu"]).map_err(|e| e.code()),
                "{text}"
            );
        }
    }
}
