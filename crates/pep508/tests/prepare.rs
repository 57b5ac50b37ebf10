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

fn parse(text: &str, opts: &ParseOptions) -> MarkerTree {
    MarkerTree::parse_with(text, opts, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{text}: {}", e.render(text)))
}

const PROFILES: [Profile; 3] = [Profile::Spec2026, Profile::Packaging, Profile::Uv];

#[test]
fn parsing_prepares_unless_told_not_to() {
    for profile in PROFILES {
        let base = ParseOptions::default()
            .dialect(Dialect::Extended)
            .profile(profile);
        let lazy = base.clone().prepare_evaluation(false);
        let mut seen = 0;
        for text in MARKERS {
            let Ok(m) = MarkerTree::parse_with(text, &base, &mut Vec::new()) else {
                continue;
            };
            assert!(m.is_prepared(), "{text} ({profile:?})");
            assert!(!parse(text, &lazy).is_prepared(), "{text} ({profile:?})");
            seen += 1;
        }
        assert!(seen > MARKERS.len() / 2, "{profile:?}: {seen}");
    }
    assert!(MarkerTree::TRUE.is_prepared());
    assert!(MarkerTree::FALSE.is_prepared());
    let one: MarkerTree = "os_name == 'nt'".parse().expect("a marker");
    let from_expr = MarkerTree::from(one.expressions()[0].clone());
    assert!(from_expr.is_prepared());
}

/// Pairs of markers that `and` and `or` join in every way: splicing chains of the same kind,
/// nesting the other kind, and (under packaging) keeping groups and joining an `or` that holds
/// an inline `and` as one group.
const JOINED: &[(&str, &str)] = &[
    ("os_name == 'nt'", "python_version >= '3.9'"),
    (
        "os_name == 'nt' and extra == 'a'",
        "python_version >= '3.9' and extra == 'b'",
    ),
    (
        "os_name == 'nt' or extra == 'a'",
        "python_version >= '3.9' or extra == 'b'",
    ),
    (
        "os_name == 'nt' and extra == 'a' or sys_platform == 'linux'",
        "python_version >= '3.9'",
    ),
    (
        "python_version >= '3.9'",
        "os_name == 'nt' and extra == 'a' or sys_platform == 'linux'",
    ),
    (
        "(os_name == 'nt' and extra == 'a') and python_version < '3.14'",
        "(sys_platform == 'linux' or extra == 'b') or os_name == 'posix'",
    ),
    (
        "(os_name == 'nt' or extra == 'a') and (python_version < '3.14' or extra == 'c')",
        "sys_platform == 'linux' and (extra == 'b' and os_name == 'posix')",
    ),
];

#[test]
fn and_or_keep_prepared_markers_prepared() {
    for profile in PROFILES {
        let opts = ParseOptions::default().profile(profile);
        let lazy = opts.clone().prepare_evaluation(false);
        for (x, y) in JOINED {
            let (a, b) = (parse(x, &opts), parse(y, &opts));
            for (p, q) in [(&a, &b), (&b, &a), (&a, &a)] {
                for (joined, how) in [
                    (p.clone().and(q.clone()), "and"),
                    (p.clone().or(q.clone()), "or"),
                ] {
                    assert!(joined.is_prepared(), "({p}) {how} ({q}) ({profile:?})");
                    // And again, joined with its parts.
                    let again = joined.clone().or(p.clone()).and(joined.clone());
                    assert!(again.is_prepared(), "{again} ({profile:?})");
                }
            }
            // A deferred side makes the result deferred, whichever side it is.
            let lazy_b = parse(y, &lazy);
            assert!(!a.clone().and(lazy_b.clone()).is_prepared(), "{profile:?}");
            assert!(!lazy_b.clone().or(a.clone()).is_prepared(), "{profile:?}");
            // Constants: the unit leaves the other side as it is, the zero decides.
            for c in [&a, &b] {
                for (t, f) in [
                    (MarkerTree::TRUE, MarkerTree::FALSE),
                    (
                        parse_constant(true, profile),
                        parse_constant(false, profile),
                    ),
                ] {
                    for m in [
                        c.clone().and(t.clone()),
                        t.clone().and(c.clone()),
                        c.clone().or(f.clone()),
                        f.clone().or(c.clone()),
                    ] {
                        assert_eq!(&m, c);
                        assert!(m.is_prepared(), "{m} ({profile:?})");
                    }
                    for (m, holds) in [
                        (c.clone().and(f.clone()), false),
                        (f.clone().and(c.clone()), false),
                        (c.clone().or(t.clone()), true),
                        (t.clone().or(c.clone()), true),
                        (lazy_b.clone().and(f.clone()), false),
                        (lazy_b.clone().or(t.clone()), true),
                    ] {
                        assert_eq!(m.is_true(), holds, "{m} ({profile:?})");
                        assert_eq!(m.is_false(), !holds, "{m} ({profile:?})");
                        assert!(m.is_prepared(), "{m} ({profile:?})");
                    }
                    // The unit beside a deferred marker leaves it deferred.
                    assert!(!lazy_b.clone().and(t.clone()).is_prepared());
                    assert!(!f.clone().or(lazy_b.clone()).is_prepared());
                }
            }
        }
    }
}

/// `true` / `false` as the profile parses them (packaging rejects the words, so the constants
/// themselves).
fn parse_constant(value: bool, profile: Profile) -> MarkerTree {
    let opts = ParseOptions::default().profile(profile);
    let text = if value { "true" } else { "false" };
    MarkerTree::parse_with(text, &opts, &mut Vec::new()).unwrap_or(if value {
        MarkerTree::TRUE
    } else {
        MarkerTree::FALSE
    })
}

#[test]
fn children_and_without_groups_keep_prepared_markers_prepared() {
    for profile in PROFILES {
        let opts = ParseOptions::default().profile(profile);
        let lazy = opts.clone().prepare_evaluation(false);
        let mut split = 0;
        for (x, y) in JOINED {
            for text in [x, y] {
                let m = parse(text, &opts);
                let children = m.children();
                split += children.len();
                for c in &children {
                    assert!(c.is_prepared(), "{c} of {text} ({profile:?})");
                    for g in c.children() {
                        assert!(g.is_prepared(), "{g} of {text} ({profile:?})");
                    }
                }
                let flat = m.without_groups();
                assert!(flat.is_prepared(), "{text} ({profile:?})");
                let n = parse(text, &lazy);
                assert!(n.children().iter().all(|c| !c.is_prepared()), "{text}");
                assert!(!n.without_groups().is_prepared(), "{text}");
            }
        }
        assert!(split >= 20, "{split}");
    }
}

#[test]
fn requirement_markers_are_prepared_unless_told_not_to() {
    let text = "torch>=2; platform_system == 'Linux' and (python_version < '3.15' or extra == 'a')";
    let lazy = ParseOptions::default().prepare_evaluation(false);
    for profile in PROFILES {
        let opts = ParseOptions::default().profile(profile);
        let r = Requirement::parse_with(text, &opts, &mut Vec::new()).expect("a requirement");
        assert!(r.marker().expect("a marker").is_prepared(), "{profile:?}");
    }
    let r = Requirement::parse_with(text, &lazy, &mut Vec::new()).expect("a requirement");
    assert!(!r.marker().expect("a marker").is_prepared());
}
