//! The evaluator's rules, checked through the public API: Kleene logic over `and`/`or`
//! (`spec/SPEC.md` §6.1), the unknown fields of an unknown result, the Unknown policies of a
//! plain-`bool` evaluation (§6.2), and which comparisons each profile evaluates.
//!
//! Every expected value below follows from the cited rule, not from what the evaluator happens
//! to print.

use markerspec_pep508::{
    Dialect, EnvValue, Environment, ErrorKind, EvalOptions, Evaluation, Field, FieldSet,
    MarkerExpression, MarkerOperator, MarkerTree, MarkerValue, ParseOptions, Profile, Truth,
    UnknownPolicy,
};

use Truth::{False as F, True as T, Unknown as U};

fn options(profile: Profile) -> ParseOptions {
    ParseOptions::default()
        .profile(profile)
        .dialect(Dialect::Extended)
}

#[track_caller]
fn marker(text: &str, profile: Profile) -> MarkerTree {
    MarkerTree::parse_with(text, &options(profile), &mut |_| {})
        .unwrap_or_else(|e| panic!("{text} ({profile}): {}", e.render(text)))
}

#[track_caller]
fn eval(text: &str, profile: Profile, env: &Environment) -> Evaluation {
    marker(text, profile)
        .evaluate_tristate(env)
        .unwrap_or_else(|e| panic!("{text} ({profile}): {}", e.render(text)))
}

#[track_caller]
fn error_code(text: &str, profile: Profile, env: &Environment) -> &'static str {
    match marker(text, profile).evaluate_tristate(env) {
        Ok(e) => panic!("{text} ({profile}): expected an error, got {e:?}"),
        Err(e) => e.code(),
    }
}

fn set(fields: &[Field]) -> FieldSet {
    fields.iter().copied().collect()
}

/// An environment where every field the tests read is explicitly Unknown, which every profile
/// evaluates (packaging included: an Unknown value is not a missing one).
fn all_unknown() -> Environment {
    let mut env = Environment::new();
    for f in [
        Field::OsName,
        Field::SysPlatform,
        Field::PythonVersion,
        Field::PlatformMachine,
        Field::CudaVersion,
    ] {
        env.set(f, EnvValue::Unknown).unwrap();
    }
    env
}

fn linux() -> Environment {
    Environment::new()
        .with_unchecked(Field::OsName, "posix")
        .with_unchecked(Field::SysPlatform, "linux")
        .with_unchecked(Field::PlatformMachine, "x86_64")
        .with_unchecked(Field::PythonVersion, "3.12")
}

// ---------------------------------------------------------------------------------------------
// §6.1: Kleene's strong three-valued logic

/// The table of §6.1, both operand orders (both operations are commutative).
#[test]
fn truth_and_or_follow_the_kleene_table() {
    let table = [
        // a, b, a and b, a or b
        (T, T, T, T),
        (T, F, F, T),
        (F, F, F, F),
        (T, U, U, T),
        (F, U, F, U),
        (U, U, U, U),
    ];
    for (a, b, and, or) in table {
        assert_eq!(a.and(b), and, "{a} and {b}");
        assert_eq!(b.and(a), and, "{b} and {a}");
        assert_eq!(a.or(b), or, "{a} or {b}");
        assert_eq!(b.or(a), or, "{b} or {a}");
    }
}

/// Negation swaps True and False and keeps Unknown; a `bool` is a known truth.
#[test]
fn truth_negation_conversion_and_names() {
    assert_eq!(!T, F);
    assert_eq!(!F, T);
    assert_eq!(!U, U);
    assert_eq!(Truth::from(true), T);
    assert_eq!(Truth::from(false), F);
    // §6.1 writes results as true, false, unknown.
    assert_eq!(
        [T, F, U].map(|t| t.to_string()),
        ["true", "false", "unknown"]
    );
}

/// `FieldSet` is a set of fields: insertion, membership, union and iteration in registry order.
#[test]
fn field_sets_are_sets() {
    let empty = FieldSet::EMPTY;
    assert!(empty.is_empty());
    assert_eq!(FieldSet::default(), empty);
    assert_eq!(empty.iter().count(), 0);
    // The first field of the registry and later ones.
    for f in [Field::OsName, Field::PythonVersion, Field::RocmGpuArchs] {
        let one = FieldSet::single(f);
        assert!(!one.is_empty(), "{f}");
        assert!(one.contains(f), "{f}");
        assert_eq!(one.iter().collect::<Vec<_>>(), [f]);
        for g in Field::ALL.iter().filter(|g| **g != f) {
            assert!(!one.contains(*g), "{{{f}}} contains {g}");
        }
    }
    let mut s = FieldSet::EMPTY;
    s.insert(Field::CudaVersion);
    s.insert(Field::OsName);
    s.insert(Field::CudaVersion);
    assert_eq!(
        s.iter().collect::<Vec<_>>(),
        [Field::OsName, Field::CudaVersion]
    );
    assert_eq!(format!("{s:?}"), r#"{"os_name", "cuda_version"}"#);
    assert_eq!(s, set(&[Field::CudaVersion, Field::OsName]));
    let u = s.union(FieldSet::single(Field::SysPlatform));
    assert_eq!(
        u.iter().collect::<Vec<_>>(),
        [Field::OsName, Field::SysPlatform, Field::CudaVersion]
    );
    // Union with itself and with a subset changes nothing.
    assert_eq!(s.union(s), s);
    assert_eq!(s.union(FieldSet::single(Field::OsName)), s);
    // Every field fits.
    let all: FieldSet = Field::ALL.iter().copied().collect();
    assert_eq!(all.iter().collect::<Vec<_>>(), Field::ALL);
}

/// §6.1: the result of a chain is False if any operand is False, else Unknown(union of the F
/// of every Unknown operand) if any is Unknown, else True; `or` symmetrically. The set is the
/// same under every profile, and a field Unknown on both sides is reported once.
#[test]
fn unknown_results_name_every_unknown_field() {
    let env = all_unknown();
    for &profile in Profile::ALL {
        let cases: &[(&str, &[Field])] = &[
            (r#"os_name == "a""#, &[Field::OsName]),
            (r#"os_name == "a" and os_name == "b""#, &[Field::OsName]),
            (r#"os_name == "a" or os_name == "b""#, &[Field::OsName]),
            (
                r#"os_name == "a" and sys_platform == "b""#,
                &[Field::OsName, Field::SysPlatform],
            ),
            (
                r#"os_name == "a" or sys_platform == "b""#,
                &[Field::OsName, Field::SysPlatform],
            ),
            (
                r#"(os_name == "a" or sys_platform == "b") and (os_name == "c" or platform_machine == "d")"#,
                &[Field::OsName, Field::SysPlatform, Field::PlatformMachine],
            ),
            (
                r#"os_name == "a" and sys_platform == "b" or platform_machine == "c" and os_name == "d""#,
                &[Field::OsName, Field::SysPlatform, Field::PlatformMachine],
            ),
        ];
        for (text, fields) in cases {
            let e = eval(text, profile, &env);
            assert_eq!(e.truth, U, "{text} ({profile})");
            assert_eq!(e.unknown, set(fields), "{text} ({profile})");
        }
    }
}

/// §6.1: `True and Unknown(G)` is Unknown(G), `False and Unknown` is False, `True or Unknown`
/// is True, `False or Unknown(G)` is Unknown(G), in either order, under every profile. A known
/// result names no fields.
#[test]
fn known_operands_decide_or_pass_the_unknown_through() {
    let mut env = linux();
    env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    let cuda = &[Field::CudaVersion][..];
    for &profile in Profile::ALL {
        let cases: &[(&str, Truth, &[Field])] = &[
            (r#"os_name == "posix" and cuda_version >= "12""#, U, cuda),
            (r#"cuda_version >= "12" and os_name == "posix""#, U, cuda),
            (r#"os_name == "nt" and cuda_version >= "12""#, F, &[]),
            (r#"cuda_version >= "12" and os_name == "nt""#, F, &[]),
            (r#"os_name == "posix" or cuda_version >= "12""#, T, &[]),
            (r#"cuda_version >= "12" or os_name == "posix""#, T, &[]),
            (r#"os_name == "nt" or cuda_version >= "12""#, U, cuda),
            (r#"cuda_version >= "12" or os_name == "nt""#, U, cuda),
            (
                r#"os_name == "posix" and sys_platform == "linux" and cuda_version >= "12""#,
                U,
                cuda,
            ),
            (
                r#"cuda_version >= "12" and os_name == "posix" and sys_platform == "win32""#,
                F,
                &[],
            ),
            (
                r#"(cuda_version >= "12" or os_name == "nt") and sys_platform == "linux""#,
                U,
                cuda,
            ),
            (
                r#"(cuda_version >= "12" or os_name == "posix") and sys_platform == "linux""#,
                T,
                &[],
            ),
            (r#"os_name == "posix" and sys_platform == "linux""#, T, &[]),
            (r#"os_name == "posix" and sys_platform == "win32""#, F, &[]),
            (r#"os_name == "nt" or sys_platform == "win32""#, F, &[]),
            (r#"os_name == "nt" or sys_platform == "linux""#, T, &[]),
        ];
        for (text, truth, fields) in cases {
            let e = eval(text, profile, &env);
            assert_eq!(
                (e.truth, e.unknown),
                (*truth, set(fields)),
                "{text} ({profile})"
            );
        }
    }
}

/// One comparison evaluates on its own to the same three-valued result as a marker of it.
#[test]
fn a_comparison_evaluates_on_its_own() {
    let mut env = linux();
    env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    for &profile in Profile::ALL {
        for (text, truth) in [
            (r#"os_name == "posix""#, T),
            (r#"os_name == "nt""#, F),
            (r#"cuda_version >= "12""#, U),
        ] {
            let m = marker(text, profile);
            let e = m.expressions()[0].evaluate(&env, profile).unwrap();
            assert_eq!(e.truth, truth, "{text} ({profile})");
            assert_eq!(e, m.evaluate_tristate(&env).unwrap());
        }
    }
    // The default-profile entry points are spec-2026's.
    let m = marker(
        r#"os_name == "posix" and cuda_version >= "12""#,
        Profile::Spec2026,
    );
    assert_eq!(
        m.evaluate_tristate(&env).unwrap(),
        Evaluation {
            truth: U,
            unknown: FieldSet::single(Field::CudaVersion)
        }
    );
    // An error from one comparison keeps its code.
    let m = marker(r#"os_name ~= "1.0""#, Profile::Packaging);
    let err = m.expressions()[0]
        .evaluate(&env, Profile::Packaging)
        .unwrap_err();
    assert_eq!(err.code(), "E002");
}

// ---------------------------------------------------------------------------------------------
// §6.2: plain-`bool` results and the Unknown policy

/// §6.2: Unknown(F) becomes the error `unknown-result` naming F by default, `false` or `true`
/// when the caller asks; a known result is the same under every policy.
#[test]
fn unknown_policy_decides_only_unknown_results() {
    let mut env = linux();
    env.set(Field::CudaVersion, EnvValue::Unknown).unwrap();
    env.set(Field::GpuBackends, EnvValue::Unknown).unwrap();
    let unknown = marker(
        r#"os_name == "posix" and (cuda_version >= "12" or "cuda" in gpu_backends)"#,
        Profile::Spec2026,
    );
    let with = |policy| EvalOptions::default().unknown(policy);

    let err = unknown.evaluate(&env).unwrap_err();
    assert_eq!(err.code(), "E004");
    assert_eq!(
        err.kind(),
        &ErrorKind::UnknownResult {
            fields: vec![Field::GpuBackends, Field::CudaVersion]
        }
    );
    // The error spans the whole marker, from its first comparison to its last.
    let text = r#"os_name == "posix" and (cuda_version >= "12" or "cuda" in gpu_backends)"#;
    assert_eq!(err.span().range(), 0..text.len() - 1);
    assert_eq!(
        unknown
            .evaluate_with(&env, with(UnknownPolicy::Error))
            .unwrap_err()
            .code(),
        "E004"
    );
    assert!(
        !unknown
            .evaluate_with(&env, with(UnknownPolicy::False))
            .unwrap()
    );
    assert!(
        unknown
            .evaluate_with(&env, with(UnknownPolicy::True))
            .unwrap()
    );
    assert_eq!(UnknownPolicy::default(), UnknownPolicy::Error);

    for policy in [
        UnknownPolicy::Error,
        UnknownPolicy::False,
        UnknownPolicy::True,
    ] {
        let yes = marker(
            r#"os_name == "posix" or cuda_version >= "12""#,
            Profile::Spec2026,
        );
        let no = marker(
            r#"os_name == "nt" and cuda_version >= "12""#,
            Profile::Spec2026,
        );
        assert!(yes.evaluate_with(&env, with(policy)).unwrap(), "{policy:?}");
        assert!(!no.evaluate_with(&env, with(policy)).unwrap(), "{policy:?}");
    }
    assert!(
        marker(r#"os_name == "posix""#, Profile::Spec2026)
            .evaluate(&env)
            .unwrap()
    );
    assert!(
        !marker(r#"os_name == "nt""#, Profile::Spec2026)
            .evaluate(&env)
            .unwrap()
    );
}

/// The marker carries the profile it was parsed with: `python_version in "3.10 3.11"` is a
/// substring test under `packaging` and false under `spec-2026` (§5.1: `in` on a `Version`
/// field is false); the evaluation options choose only the Unknown policy.
#[test]
fn the_parsed_profile_chooses_the_evaluation() {
    let env = Environment::new().with_unchecked(Field::PythonVersion, "3.11");
    let text = r#"python_version in "3.10 3.11""#;
    let m = marker(text, Profile::Packaging);
    assert_eq!(m.profile(), Profile::Packaging);
    assert!(m.evaluate_with(&env, EvalOptions::default()).unwrap());
    assert!(m.evaluate(&env).unwrap());
    let m = marker(text, Profile::Spec2026);
    assert!(!m.evaluate_with(&env, EvalOptions::default()).unwrap());
    assert!(!m.evaluate(&env).unwrap());
    let opts = EvalOptions::default().unknown(UnknownPolicy::True);
    assert_eq!(opts.unknown, UnknownPolicy::True);
    assert_eq!(ParseOptions::default().profile, Profile::Spec2026);
}

/// Profiles are named as the documentation and the CLI name them, and read back.
#[test]
fn profile_names_round_trip() {
    assert_eq!(
        Profile::ALL.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        ["spec-2026", "packaging", "uv"]
    );
    for &p in Profile::ALL {
        assert_eq!(p.to_string(), p.as_str());
        assert_eq!(p.as_str().parse::<Profile>(), Ok(p));
    }
    let err = "pip".parse::<Profile>().unwrap_err();
    assert!(err.contains("`pip`"), "{err}");
    assert_eq!(Profile::default(), Profile::Spec2026);
}

// ---------------------------------------------------------------------------------------------
// Which comparisons are evaluated

/// `spec-2026` may stop once an operand decides, but the decision is the right one: `extra`
/// comparisons (tried first) decide only when they are decisive, and every other operand is
/// still read.
#[test]
fn spec_2026_reads_every_operand_that_can_change_the_result() {
    let env = linux();
    let x = linux().with_extras(["x"]);
    let p = Profile::Spec2026;
    let cases: &[(&str, &Environment, Truth)] = &[
        (r#"extra == "x" and os_name == "nt""#, &x, F),
        (r#"extra == "x" and os_name == "posix""#, &x, T),
        (r#"extra == "x" and os_name == "posix""#, &env, F),
        (r#"os_name == "posix" and extra == "x""#, &env, F),
        (r#"os_name == "posix" and extra == "x""#, &x, T),
        (r#"os_name == "nt" and extra == "x""#, &x, F),
        (r#"extra == "x" or os_name == "posix""#, &env, T),
        (r#"extra == "x" or os_name == "nt""#, &env, F),
        (r#"extra == "x" or os_name == "nt""#, &x, T),
        (r#"os_name == "nt" or extra == "x""#, &x, T),
        (r#"extra != "x" and os_name == "posix""#, &x, F),
        (r#"extra != "x" or os_name == "nt""#, &x, F),
        (
            r#"extra == "x" and extra == "y" and os_name == "posix""#,
            &linux().with_extras(["x", "y"]),
            T,
        ),
        (
            r#"extra == "x" and extra == "y" and os_name == "posix""#,
            &x,
            F,
        ),
        (
            r#"(extra == "x" or extra == "y") and python_version >= "3.10""#,
            &linux().with_extras(["y"]),
            T,
        ),
        (
            r#"os_name == "posix" and sys_platform == "linux" and platform_machine == "aarch64""#,
            &env,
            F,
        ),
        (
            r#"os_name == "nt" or sys_platform == "win32" or platform_machine == "x86_64""#,
            &env,
            T,
        ),
    ];
    for (text, env, truth) in cases {
        assert_eq!(eval(text, p, env).truth, *truth, "{text} with {env:?}");
    }
}

/// pypa/packaging evaluates every comparison of a marker, so an undefined comparison
/// (`UndefinedComparison`, `E002`) is reported whatever the other operands decide, `extra`
/// comparisons included.
#[test]
fn packaging_evaluates_every_comparison() {
    let env = linux();
    let x = linux().with_extras(["x"]);
    let p = Profile::Packaging;
    for (text, env) in [
        (r#"os_name == "nt" and os_name ~= "1.0""#, &env),
        (r#"os_name == "posix" or os_name ~= "1.0""#, &env),
        (r#"os_name ~= "1.0" and os_name == "nt""#, &env),
        (r#"extra == "x" and os_name ~= "1.0""#, &env),
        (r#"extra == "x" or os_name ~= "1.0""#, &x),
        (
            r#"extra == "x" and (os_name == "nt" or os_name ~= "1.0")"#,
            &env,
        ),
        (
            r#"(os_name == "nt" and os_name ~= "1.0") or extra == "x""#,
            &x,
        ),
    ] {
        assert_eq!(error_code(text, p, env), "E002", "{text} with {env:?}");
    }
    // A missing value is an error (`E001`) even when another operand decides.
    let partial = Environment::new().with_unchecked(Field::OsName, "posix");
    assert_eq!(
        error_code(
            r#"os_name == "nt" and sys_platform == "linux""#,
            p,
            &partial
        ),
        "E001"
    );
    assert_eq!(
        error_code(
            r#"os_name == "posix" or sys_platform == "linux""#,
            p,
            &partial
        ),
        "E001"
    );
    // The plain-`bool` entry points report it too, at the comparison that failed.
    let text = r#"os_name == "nt" and os_name ~= "1.0""#;
    let err = marker(text, p)
        .evaluate_with(&env, EvalOptions::default())
        .unwrap_err();
    assert_eq!(err.code(), "E002");
    assert_eq!(err.span().range(), 20..text.len());
}

/// Under `spec-2026` a missing standard value is Unknown (it is not an error there), and an
/// Unknown decided away by the other operand leaves no trace.
#[test]
fn spec_2026_missing_values_are_unknown() {
    let env = Environment::new().with_unchecked(Field::OsName, "posix");
    let p = Profile::Spec2026;
    let e = eval(r#"os_name == "posix" and sys_platform == "linux""#, p, &env);
    assert_eq!(
        (e.truth, e.unknown),
        (U, FieldSet::single(Field::SysPlatform))
    );
    let e = eval(r#"os_name == "nt" and sys_platform == "linux""#, p, &env);
    assert_eq!((e.truth, e.unknown), (F, FieldSet::EMPTY));
    let e = eval(r#"os_name == "posix" or sys_platform == "linux""#, p, &env);
    assert_eq!((e.truth, e.unknown), (T, FieldSet::EMPTY));
}

/// A comparison built by hand that no parser accepts (two literals) fails to evaluate under
/// `spec-2026` (`E002`), so it shows which operands were read. `spec-2026` stops at the first
/// decisive operand and tries `extra == "…"` comparisons first (the cheapest, and the most
/// often decisive: most installs request no extra); the result never depends on that order,
/// only the work does.
#[test]
fn spec_2026_stops_at_a_decisive_extra_first() {
    let undefined = || {
        MarkerTree::from(MarkerExpression::new(
            MarkerValue::Literal("a".into()),
            MarkerOperator::Equal,
            MarkerValue::Literal("a".into()),
        ))
    };
    let extra = |op| {
        MarkerTree::from(MarkerExpression::new(
            MarkerValue::Field(Field::Extra),
            op,
            MarkerValue::Literal("gpu".into()),
        ))
    };
    let none = linux();
    let gpu = linux().with_extras(["gpu"]);
    // A tree built by hand evaluates under `spec-2026`.
    assert_eq!(undefined().profile(), Profile::Spec2026);
    // Decisive: `extra == "gpu"` false in an `and`, true in an `or`; `!=` the other way round.
    for (tree, env, truth) in [
        (undefined().and(extra(MarkerOperator::Equal)), &none, F),
        (undefined().and(extra(MarkerOperator::NotEqual)), &gpu, F),
        (undefined().or(extra(MarkerOperator::Equal)), &gpu, T),
        (undefined().or(extra(MarkerOperator::NotEqual)), &none, T),
    ] {
        assert_eq!(tree.children().len(), 2, "{tree:?}");
        let e = tree.evaluate_tristate(env);
        assert_eq!(
            e.map(|e| e.truth).ok(),
            Some(truth),
            "{tree:?} with {env:?}"
        );
    }
    // Not decisive: the other operand is read, and fails.
    let tree = undefined().and(extra(MarkerOperator::Equal));
    assert_eq!(tree.evaluate_tristate(&gpu).unwrap_err().code(), "E002");
    // packaging reads every operand, whatever decides: `"a" == "a"` looks `a` up there
    // (`E001`), and the undefined `~=` on a string after a decisive `extra` is reported.
    // (A marker evaluates under the profile it was parsed with, so these are parsed.)
    let tree = marker(r#""a" == "a" and extra == "gpu""#, Profile::Packaging);
    assert_eq!(tree.evaluate_tristate(&none).unwrap_err().code(), "E001");
    let tree = marker(r#"extra == "gpu" and os_name ~= "1.0""#, Profile::Packaging);
    assert_eq!(tree.evaluate_tristate(&none).unwrap_err().code(), "E002");
}

/// An `and` or `or` with a constant is its other operand (the tree keeps no chain of one:
/// `and`/`or` fold constants away), and evaluates as that operand in every profile.
#[test]
fn a_chain_of_one_is_its_operand() {
    for &profile in Profile::ALL {
        let extra = marker(r#"extra == "gpu""#, profile);
        for (env, truth) in [(linux(), F), (linux().with_extras(["gpu"]), T)] {
            for tree in [
                extra.clone().and(MarkerTree::TRUE),
                extra.clone().or(MarkerTree::FALSE),
            ] {
                assert_eq!(tree, extra);
                assert_eq!(tree.profile(), profile);
                let e = tree.evaluate_tristate(&env).unwrap();
                assert_eq!(e.truth, truth, "{tree:?} ({profile}) with {env:?}");
            }
        }
    }
}
