//! Laws of the algebra, checked by brute force: random formulas over two version variables, a
//! string variable and two booleans are evaluated directly (version atoms through pep440's own
//! `contains_with(v, Some(true))`) on every elementary region of the version domain that the
//! formulas' cuts delimit, every literal string plus one other, and both booleans. The region
//! points are the witnesses of the intervals between consecutive cuts, so the check is complete
//! for the formulas generated, pre-releases, post-releases, local labels and absence included.

use markerspec_algebra::{
    Context, Cut, Domain, ErrorKind, Label, Limit, Limits, Marker, Point, RelationKind, Value, Var,
    VersionSet, Witness,
};
use markerspec_pep440::{Version, VersionSpecifier};
use proptest::prelude::*;

/// Whether a cell holds, from the values of `a` and `b`.
type CellFn = fn(bool, bool) -> bool;

const STRINGS: [&str; 4] = ["", "linux", "win32", "darwin"];

#[derive(Clone, Debug)]
enum F {
    /// Version variable 0 or 1 against a specifier.
    Spec(usize, VersionSpecifier),
    /// Version variable 0 or 1 absent.
    Absent(usize),
    /// The string variable equals a literal.
    Str(&'static str),
    /// Boolean variable 0 or 1.
    Bool(usize),
    Not(Box<F>),
    And(Box<F>, Box<F>),
    Or(Box<F>, Box<F>),
}

fn spec() -> impl Strategy<Value = VersionSpecifier> {
    let ops = prop_oneof![
        Just("=="),
        Just("!="),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">="),
        Just("~="),
    ];
    let versions = prop_oneof![
        Just("3.12"),
        Just("3.12rc1"),
        Just("3.11"),
        Just("3.12.post1"),
        Just("3.12+loc"),
        Just("3.13.0a1.dev0"),
        Just("3.13"),
        Just("3.12.*"),
        Just("3.*"),
        Just("1!1.0"),
        Just("3.11.0a1.dev0"),
        Just("3.13.0rc1"),
    ];
    (ops, versions).prop_filter_map("invalid", |(op, v)| format!("{op}{v}").parse().ok())
}

fn formula() -> impl Strategy<Value = F> {
    let leaf = prop_oneof![
        4 => ((0usize..2), spec()).prop_map(|(i, s)| F::Spec(i, s)),
        1 => (0usize..2).prop_map(F::Absent),
        2 => prop::sample::select(STRINGS.to_vec()).prop_map(F::Str),
        2 => (0usize..2).prop_map(F::Bool),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            1 => inner.clone().prop_map(|f| F::Not(Box::new(f))),
            2 => (inner.clone(), inner.clone()).prop_map(|(a, b)| F::And(Box::new(a), Box::new(b))),
            2 => (inner.clone(), inner).prop_map(|(a, b)| F::Or(Box::new(a), Box::new(b))),
        ]
    })
}

/// One assignment: two version points, a string, two booleans.
#[derive(Clone, Debug)]
struct Env {
    v: [Point; 2],
    s: String,
    b: [bool; 2],
}

fn eval(f: &F, env: &Env) -> bool {
    match f {
        F::Spec(i, spec) => match &env.v[*i] {
            Point::Absent => false,
            Point::Version(v) => spec.contains_with(v, Some(true)),
        },
        F::Absent(i) => env.v[*i] == Point::Absent,
        F::Str(s) => env.s == *s,
        F::Bool(i) => env.b[*i],
        F::Not(a) => !eval(a, env),
        F::And(a, b) => eval(a, env) && eval(b, env),
        F::Or(a, b) => eval(a, env) || eval(b, env),
    }
}

struct Vars {
    v: [Var; 2],
    s: Var,
    b: [Var; 2],
}

fn vars(ctx: &mut Context) -> Vars {
    // Declared out of order on purpose: the order is the rank, not the declaration.
    let b1 = ctx.variable(4, "b1", Domain::Bool).unwrap();
    let s = ctx.variable(2, "s", Domain::String).unwrap();
    let v1 = ctx.variable(1, "w", Domain::Version).unwrap();
    let v0 = ctx.variable(0, "v", Domain::Version).unwrap();
    let b0 = ctx.variable(3, "b0", Domain::Bool).unwrap();
    Vars {
        v: [v0, v1],
        s,
        b: [b0, b1],
    }
}

fn build(ctx: &mut Context, vs: &Vars, f: &F) -> Marker {
    match f {
        F::Spec(i, spec) => ctx.version_specifier(vs.v[*i], spec).unwrap(),
        F::Absent(i) => ctx.version_set(vs.v[*i], &VersionSet::absent()).unwrap(),
        F::Str(s) => ctx.string_eq(vs.s, s).unwrap(),
        F::Bool(i) => ctx.boolean(vs.b[*i]).unwrap(),
        F::Not(a) => !build(ctx, vs, a),
        F::And(a, b) => {
            let (a, b) = (build(ctx, vs, a), build(ctx, vs, b));
            ctx.and(a, b).unwrap()
        }
        F::Or(a, b) => {
            let (a, b) = (build(ctx, vs, a), build(ctx, vs, b));
            ctx.or(a, b).unwrap()
        }
    }
}

fn collect_specs(f: &F, out: &mut [Vec<VersionSpecifier>; 2]) {
    match f {
        F::Spec(i, s) => out[*i].push(s.clone()),
        F::Absent(_) | F::Str(_) | F::Bool(_) => {}
        F::Not(a) => collect_specs(a, out),
        F::And(a, b) | F::Or(a, b) => {
            collect_specs(a, out);
            collect_specs(b, out);
        }
    }
}

/// One point in every elementary region delimited by the formulas' cuts, for each version
/// variable.
fn region_points(fs: &[&F]) -> [Vec<Point>; 2] {
    let mut specs = [Vec::new(), Vec::new()];
    for f in fs {
        collect_specs(f, &mut specs);
    }
    specs.map(|specs| {
        let mut cuts = vec![Cut::BOTTOM, Cut::versions_start(), Cut::TOP];
        for s in &specs {
            let set = VersionSet::from_specifier(s).unwrap();
            for (lo, hi) in set.intervals() {
                cuts.push(lo.clone());
                cuts.push(hi.clone());
            }
        }
        cuts.sort();
        cuts.dedup();
        cuts.windows(2)
            .map(|w| {
                w[0].point_between(&w[1])
                    .expect("consecutive distinct cuts enclose a point")
            })
            .collect()
    })
}

fn all_envs(fs: &[&F]) -> Vec<Env> {
    let [p0, p1] = region_points(fs);
    let mut strings: Vec<String> = STRINGS.iter().map(|s| s.to_string()).collect();
    strings.push("other-value".into());
    let mut out = Vec::new();
    for a in &p0 {
        for b in &p1 {
            for s in &strings {
                for b0 in [false, true] {
                    for b1 in [false, true] {
                        out.push(Env {
                            v: [a.clone(), b.clone()],
                            s: s.clone(),
                            b: [b0, b1],
                        });
                    }
                }
            }
        }
    }
    out
}

fn value_of(env: &Env, vs: &Vars, var: Var) -> Value {
    let point = |p: &Point| match p {
        Point::Absent => Value::Absent,
        Point::Version(v) => Value::Version(v.clone()),
    };
    if var == vs.v[0] {
        point(&env.v[0])
    } else if var == vs.v[1] {
        point(&env.v[1])
    } else if var == vs.s {
        Value::String(env.s.clone())
    } else if var == vs.b[0] {
        Value::Bool(env.b[0])
    } else {
        Value::Bool(env.b[1])
    }
}

fn dd_eval(ctx: &Context, vs: &Vars, m: Marker, env: &Env) -> bool {
    ctx.evaluate(m, |var| value_of(env, vs, var)).unwrap()
}

/// `env` with the witness's values; the other variables keep `env`'s (any value will do).
fn apply_witness(env: &Env, vs: &Vars, w: &Witness) -> Env {
    let mut env = env.clone();
    for (var, value) in w.iter() {
        let point = match value {
            Value::Absent => Some(Point::Absent),
            Value::Version(v) => Some(Point::Version(v.clone())),
            _ => None,
        };
        if var == vs.v[0] {
            env.v[0] = point.expect("version value");
        } else if var == vs.v[1] {
            env.v[1] = point.expect("version value");
        } else if var == vs.s {
            let Value::String(s) = value else {
                panic!("string value")
            };
            env.s = s.clone();
        } else {
            let Value::Bool(b) = value else {
                panic!("bool value")
            };
            env.b[usize::from(var == vs.b[1])] = *b;
        }
    }
    env
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn build_preserves_meaning_and_is_canonical(f in formula(), g in formula()) {
        let mut ctx = Context::new();
        let vs = vars(&mut ctx);
        let (mf, mg) = (build(&mut ctx, &vs, &f), build(&mut ctx, &vs, &g));
        let envs = all_envs(&[&f, &g]);
        let mut same = true;
        for env in &envs {
            let (ef, eg) = (eval(&f, env), eval(&g, env));
            prop_assert_eq!(dd_eval(&ctx, &vs, mf, env), ef, "f = {:?} at {:?}", f, env);
            prop_assert_eq!(dd_eval(&ctx, &vs, mg, env), eg, "g = {:?} at {:?}", g, env);
            same &= ef == eg;
        }
        // Canonicity: equivalent exactly when identical.
        prop_assert_eq!(mf == mg, same, "f = {:?}, g = {:?}", f, g);
        // Disjointness and implication, decided without building the conjunction.
        let disjoint = envs.iter().all(|e| !(eval(&f, e) && eval(&g, e)));
        let implies = envs.iter().all(|e| !eval(&f, e) || eval(&g, e));
        prop_assert_eq!(ctx.is_disjoint(mf, mg).unwrap(), disjoint);
        prop_assert_eq!(ctx.implies(mf, mg).unwrap(), implies);
        prop_assert_eq!(mf.is_true(), envs.iter().all(|e| eval(&f, e)));
        prop_assert_eq!(mf.is_false(), envs.iter().all(|e| !eval(&f, e)));
    }

    #[test]
    fn boolean_laws_hold_as_identities(f in formula(), g in formula(), h in formula()) {
        let mut ctx = Context::new();
        let vs = vars(&mut ctx);
        let (a, b, c) = (build(&mut ctx, &vs, &f), build(&mut ctx, &vs, &g), build(&mut ctx, &vs, &h));
        prop_assert_eq!(ctx.and(a, b).unwrap(), ctx.and(b, a).unwrap());
        prop_assert_eq!(ctx.or(a, b).unwrap(), ctx.or(b, a).unwrap());
        let ab = ctx.and(a, b).unwrap();
        let bc = ctx.and(b, c).unwrap();
        prop_assert_eq!(ctx.and(ab, c).unwrap(), ctx.and(a, bc).unwrap());
        let b_or_c = ctx.or(b, c).unwrap();
        let lhs = ctx.and(a, b_or_c).unwrap();
        let ac = ctx.and(a, c).unwrap();
        prop_assert_eq!(lhs, ctx.or(ab, ac).unwrap());
        prop_assert_eq!(!ctx.and(a, b).unwrap(), ctx.or(!a, !b).unwrap());
        let a_or_b = ctx.or(a, b).unwrap();
        prop_assert_eq!(ctx.and(a, a_or_b).unwrap(), a);
        prop_assert_eq!(ctx.or(a, !a).unwrap(), Marker::TRUE);
        prop_assert_eq!(ctx.and(a, !a).unwrap(), Marker::FALSE);
        prop_assert_eq!(ctx.implies(ab, a).unwrap(), true);
        prop_assert_eq!(ctx.implies(a, b).unwrap(), ctx.and(a, !b).unwrap().is_false());
        // A marker with itself and with its negation: answered without any work.
        prop_assert_eq!(ctx.is_disjoint(a, a).unwrap(), a.is_false());
        prop_assert_eq!(ctx.is_disjoint(a, !a).unwrap(), true);
        prop_assert_eq!(ctx.implies(a, a).unwrap(), true);
        prop_assert_eq!(ctx.implies(a, !a).unwrap(), a.is_false());
    }

    #[test]
    fn relate_cells_and_witnesses(f in formula(), g in formula()) {
        let mut ctx = Context::new();
        let vs = vars(&mut ctx);
        let (a, b) = (build(&mut ctx, &vs, &f), build(&mut ctx, &vs, &g));
        let rel = ctx.relate(a, b).unwrap();
        let envs = all_envs(&[&f, &g]);
        let cells: [(&Option<Witness>, CellFn); 4] = [
            (&rel.a_and_b, |x, y| x && y),
            (&rel.a_not_b, |x, y| x && !y),
            (&rel.b_not_a, |x, y| !x && y),
            (&rel.neither, |x, y| !x && !y),
        ];
        for (cell, holds) in cells {
            let nonempty = envs.iter().any(|e| holds(eval(&f, e), eval(&g, e)));
            prop_assert_eq!(cell.is_some(), nonempty, "f = {:?}, g = {:?}", f, g);
            if let Some(w) = cell {
                // The witness fixes the variables the cell depends on; the others are free.
                for base in [envs.first().unwrap(), envs.last().unwrap()] {
                    let env = apply_witness(base, &vs, w);
                    prop_assert!(holds(eval(&f, &env), eval(&g, &env)), "witness {:?} fails", env);
                }
            }
        }
        // Symmetry.
        let rev = ctx.relate(b, a).unwrap();
        prop_assert_eq!(rev.a_not_b.is_some(), rel.b_not_a.is_some());
        prop_assert_eq!(rev.b_not_a.is_some(), rel.a_not_b.is_some());
        let expected = match rel.kind() {
            RelationKind::Implies => RelationKind::ImpliedBy,
            RelationKind::ImpliedBy => RelationKind::Implies,
            k => k,
        };
        prop_assert_eq!(rev.kind(), expected);
        // The kind without the witnesses is the same, in a fresh context too (nothing cached).
        prop_assert_eq!(ctx.relation(a, b).unwrap(), rel.kind());
        prop_assert_eq!(ctx.relation(b, a).unwrap(), expected);
        let mut fresh = Context::new();
        let vs2 = vars(&mut fresh);
        let (a2, b2) = (build(&mut fresh, &vs2, &f), build(&mut fresh, &vs2, &g));
        prop_assert_eq!(fresh.relation(a2, b2).unwrap(), rel.kind());
    }

    #[test]
    fn restrict_exists_forall_preserve_meaning(f in formula(), g in formula(), which in 0usize..5) {
        let mut ctx = Context::new();
        let vs = vars(&mut ctx);
        let (m, c) = (build(&mut ctx, &vs, &f), build(&mut ctx, &vs, &g));
        let r = ctx.restrict(m, c).unwrap();
        let var = [vs.v[0], vs.v[1], vs.s, vs.b[0], vs.b[1]][which];
        let ex = ctx.exists(m, var).unwrap();
        let fa = ctx.forall(m, var).unwrap();
        let envs = all_envs(&[&f, &g]);
        let [p0, p1] = region_points(&[&f, &g]);
        let mut strings: Vec<String> = STRINGS.iter().map(|s| s.to_string()).collect();
        strings.push("other-value".into());
        for env in &envs {
            if eval(&g, env) {
                prop_assert_eq!(dd_eval(&ctx, &vs, r, env), eval(&f, env), "restrict at {:?}", env);
            }
            // `env` with every value of `var`.
            let variants: Vec<Env> = match which {
                0 => p0.iter().map(|p| Env { v: [p.clone(), env.v[1].clone()], ..env.clone() }).collect(),
                1 => p1.iter().map(|p| Env { v: [env.v[0].clone(), p.clone()], ..env.clone() }).collect(),
                2 => strings.iter().map(|s| Env { s: s.clone(), ..env.clone() }).collect(),
                3 => [false, true].iter().map(|b| Env { b: [*b, env.b[1]], ..env.clone() }).collect(),
                _ => [false, true].iter().map(|b| Env { b: [env.b[0], *b], ..env.clone() }).collect(),
            };
            let results: Vec<bool> = variants.iter().map(|o| eval(&f, o)).collect();
            prop_assert_eq!(dd_eval(&ctx, &vs, ex, env), results.iter().any(|x| *x));
            prop_assert_eq!(dd_eval(&ctx, &vs, fa, env), results.iter().all(|x| *x));
        }
        prop_assert_eq!(ctx.restrict(m, Marker::TRUE).unwrap(), m);
        if !m.is_false() {
            prop_assert_eq!(ctx.restrict(m, m).unwrap(), Marker::TRUE);
        }
    }

    #[test]
    fn paths_partition_the_marker_and_print_independently_of_history(f in formula(), g in formula()) {
        let mut ctx = Context::new();
        let vs = vars(&mut ctx);
        let m = build(&mut ctx, &vs, &f);
        let paths = ctx.paths(m).unwrap();
        for env in &all_envs(&[&f]) {
            let matching = paths.iter().filter(|p| p.iter().all(|(var, label)| {
                let value = value_of(env, &vs, *var);
                match (label, value) {
                    (Label::Versions(set), Value::Absent) => set.contains(&Point::Absent),
                    (Label::Versions(set), Value::Version(v)) => set.contains(&Point::Version(v)),
                    (Label::StringIn(s), Value::String(x)) => s.contains(&x),
                    (Label::StringNotIn(s), Value::String(x)) => !s.contains(&x),
                    (Label::Bool(b), Value::Bool(x)) => *b == x,
                    _ => false,
                }
            })).count();
            prop_assert_eq!(matching, usize::from(eval(&f, env)));
        }
        // Another context with another history: g built first, f built through double
        // negation and an absorbed disjunct.
        let mut other = Context::new();
        let ovs = vars(&mut other);
        let _ = build(&mut other, &ovs, &g);
        let nf = F::Not(Box::new(F::Not(Box::new(F::Or(
            Box::new(f.clone()),
            Box::new(F::And(Box::new(f.clone()), Box::new(g.clone())))
        )))));
        let m2 = build(&mut other, &ovs, &nf);
        prop_assert_eq!(ctx.dnf(m).unwrap(), other.dnf(m2).unwrap());
    }
}

/// Like `build`, but returns the first error instead of unwrapping.
fn try_build(ctx: &mut Context, vs: &Vars, f: &F) -> Result<Marker, markerspec_algebra::Error> {
    Ok(match f {
        F::Spec(i, spec) => ctx.version_specifier(vs.v[*i], spec)?,
        F::Absent(i) => ctx.version_set(vs.v[*i], &VersionSet::absent())?,
        F::Str(s) => ctx.string_eq(vs.s, s)?,
        F::Bool(i) => ctx.boolean(vs.b[*i])?,
        F::Not(a) => !try_build(ctx, vs, a)?,
        F::And(a, b) => {
            let (a, b) = (try_build(ctx, vs, a)?, try_build(ctx, vs, b)?);
            ctx.and(a, b)?
        }
        F::Or(a, b) => {
            let (a, b) = (try_build(ctx, vs, a)?, try_build(ctx, vs, b)?);
            ctx.or(a, b)?
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Under tiny limits every operation either succeeds, with a correct result, or reports
    /// `intractable`; nothing panics, and the context stays usable.
    #[test]
    fn tiny_limits_give_errors_or_correct_answers(f in formula(), g in formula(), steps in 0u64..12, nodes in 0usize..12, depth in 0usize..4) {
        let mut ctx = Context::with_limits(Limits { steps, nodes, depth });
        let b1 = ctx.variable(4, "b1", Domain::Bool).unwrap();
        let s = ctx.variable(2, "s", Domain::String).unwrap();
        let v1 = ctx.variable(1, "w", Domain::Version).unwrap();
        let v0 = ctx.variable(0, "v", Domain::Version).unwrap();
        let b0 = ctx.variable(3, "b0", Domain::Bool).unwrap();
        let vs = Vars { v: [v0, v1], s, b: [b0, b1] };
        let results = [try_build(&mut ctx, &vs, &f), try_build(&mut ctx, &vs, &g)];
        for r in &results {
            if let Err(e) = r {
                prop_assert_eq!(e.code(), "intractable");
            }
        }
        if let [Ok(a), Ok(b)] = results {
            for r in [ctx.relate(a, b).map(|_| ()), ctx.restrict(a, b).map(|_| ()), ctx.exists(a, v0).map(|_| ()), ctx.paths(a).map(|_| ())] {
                if let Err(e) = r {
                    prop_assert_eq!(e.code(), "intractable");
                }
            }
            for env in all_envs(&[&f]).iter().take(50) {
                prop_assert_eq!(dd_eval(&ctx, &vs, a, env), eval(&f, env));
            }
        }
        ctx.set_limits(Limits::default());
        let t = ctx.boolean(b0).unwrap();
        prop_assert_eq!(ctx.or(t, !t).unwrap(), Marker::TRUE);
    }
}

#[test]
fn witnesses_cover_prerelease_interpreters() {
    let mut ctx = Context::new();
    let py = ctx
        .variable(0, "python_full_version", Domain::Version)
        .unwrap();
    let ge = ctx
        .version_specifier(py, &">=3.11".parse().unwrap())
        .unwrap();
    let star = ctx
        .version_specifier(py, &"==3.11.*".parse().unwrap())
        .unwrap();
    // uv's release-only model makes these equal above 3.11; they differ on 3.11.0a1.dev0.
    let rel = ctx.relate(star, ge).unwrap();
    assert_eq!(rel.kind(), RelationKind::Overlapping);
    let w = rel
        .a_not_b
        .expect("3.11 pre-releases are in ==3.11.* and not in >=3.11");
    let Some(Value::Version(v)) = w.get(py) else {
        panic!("a version")
    };
    assert!(v.is_prerelease());
    assert!(v < &"3.11".parse::<Version>().unwrap());
    // And 3.13.0rc1 is neither >=3.13 nor <3.13.
    let a = ctx
        .version_specifier(py, &">=3.13".parse().unwrap())
        .unwrap();
    let b = ctx
        .version_specifier(py, &"<3.13".parse().unwrap())
        .unwrap();
    let either = ctx.or(a, b).unwrap();
    assert!(!either.is_true());
    let rc = Value::Version("3.13.0rc1".parse().unwrap());
    assert!(!ctx.evaluate(either, |_| rc.clone()).unwrap());
}

#[test]
fn dropping_an_extra_is_sound() {
    // uv #14805: `(platform_machine == 'x86_64' and extra == 'b') or extra == 'a'` without the
    // extras is `true`, not `platform_machine == 'x86_64'`.
    let mut ctx = Context::new();
    let machine = ctx.variable(0, "platform_machine", Domain::String).unwrap();
    let a = ctx.variable(9, "extra:a", Domain::Bool).unwrap();
    let b = ctx.variable(9, "extra:b", Domain::Bool).unwrap();
    let x86 = ctx.string_eq(machine, "x86_64").unwrap();
    let (ea, eb) = (ctx.boolean(a).unwrap(), ctx.boolean(b).unwrap());
    let x86_b = ctx.and(x86, eb).unwrap();
    let m = ctx.or(x86_b, ea).unwrap();
    let no_a = ctx.exists(m, a).unwrap();
    assert!(no_a.is_true());
    let no_b = ctx.exists(m, b).unwrap();
    let expected = ctx.or(x86, ea).unwrap();
    assert_eq!(no_b, expected);
    assert_eq!(
        ctx.dnf(no_b).unwrap(),
        "platform_machine == \"x86_64\" or (platform_machine != \"x86_64\" and extra:a)"
    );
}

#[test]
fn step_budget_stops_blowup_with_a_coded_error() {
    // (x1 and y1) or … or (xn and yn) with every x ordered before every y is exponential.
    let mut ctx = Context::with_limits(Limits {
        steps: 20_000,
        ..Limits::default()
    });
    let n = 40;
    let xs: Vec<Var> = (0..n)
        .map(|i| ctx.variable(i, &format!("x{i:02}"), Domain::Bool).unwrap())
        .collect();
    let ys: Vec<Var> = (0..n)
        .map(|i| {
            ctx.variable(100 + i, &format!("y{i:02}"), Domain::Bool)
                .unwrap()
        })
        .collect();
    let start = std::time::Instant::now();
    let mut m = Marker::FALSE;
    let mut failed = None;
    for (x, y) in xs.iter().zip(&ys) {
        let (x, y) = (ctx.boolean(*x).unwrap(), ctx.boolean(*y).unwrap());
        let xy = ctx.and(x, y).unwrap();
        match ctx.or(m, xy) {
            Ok(next) => m = next,
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    let err = failed.expect("the budget must be exceeded");
    assert_eq!(err.code(), "intractable");
    assert!(matches!(err.kind(), ErrorKind::Intractable { .. }));
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    // The context stays usable.
    let x = ctx.boolean(xs[0]).unwrap();
    assert_eq!(ctx.and(x, !x).unwrap(), Marker::FALSE);
}

#[test]
fn node_limit_is_a_coded_error() {
    let mut ctx = Context::with_limits(Limits {
        nodes: 10,
        ..Limits::default()
    });
    let vars: Vec<Var> = (0..20)
        .map(|i| ctx.variable(i, &format!("v{i:02}"), Domain::Bool).unwrap())
        .collect();
    let err = vars
        .iter()
        .try_fold(Marker::FALSE, |acc, v| {
            let b = ctx.boolean(*v)?;
            let x = ctx.and(acc, b)?;
            ctx.or(x, !acc)
        })
        .expect_err("more than ten nodes");
    assert_eq!(
        err.kind(),
        &ErrorKind::Intractable {
            limit: Limit::Nodes
        }
    );
}

#[test]
fn deep_inputs_hit_the_depth_limit_not_the_stack() {
    // The default limits, on a thread with a 2 MiB stack (Rust's default for spawned threads),
    // in whatever profile the tests are built.
    let run = || {
        let mut ctx = Context::new();
        let n = 2000;
        let vars: Vec<Var> = (0..n)
            .map(|i| ctx.variable(i, &format!("v{i:05}"), Domain::Bool).unwrap())
            .collect();
        // A chain built from the bottom variable up stays shallow for each operation …
        let mut chain = Marker::TRUE;
        for v in vars.iter().rev() {
            let b = ctx.boolean(*v).unwrap();
            chain = ctx.and(b, chain).unwrap();
        }
        assert_eq!(ctx.node_count(chain).unwrap(), n as usize);
        // … but conjoining it with a variable below all of them recurses through all of it,
        // and so do restriction and quantification.
        let last = ctx.variable(n + 1, "zzz", Domain::Bool).unwrap();
        let z = ctx.boolean(last).unwrap();
        let depth = Limit::Depth;
        assert_eq!(
            ctx.and(chain, z).unwrap_err().kind(),
            &ErrorKind::Intractable { limit: depth }
        );
        assert_eq!(
            ctx.restrict(chain, z).unwrap_err().kind(),
            &ErrorKind::Intractable { limit: depth }
        );
        assert_eq!(
            ctx.exists(chain, last).unwrap_err().kind(),
            &ErrorKind::Intractable { limit: depth }
        );
        // The printer's cover recurses one variable per level too: past the depth limit it
        // hands the marker to the search, which answers (these bare variables have no marker
        // syntax) with an error, not a crash.
        for printed in [
            ctx.to_marker_string(chain),
            ctx.to_shortest_marker_string(chain),
        ] {
            let code = printed.unwrap_err().code();
            assert!(matches!(code, "intractable" | "unprintable"), "{code}");
        }
        // Evaluation, solving, counting and printing are iterative and work on any depth.
        assert!(ctx.solve(chain).unwrap().is_some());
        assert!(ctx.evaluate(chain, |_| Value::Bool(true)).unwrap());
        assert_eq!(ctx.paths(chain).unwrap().len(), 1);
    };
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn errors_for_foreign_and_mistyped_inputs() {
    let mut small = Context::new();
    let mut big = Context::new();
    let vb: Vec<Var> = (0..5)
        .map(|i| big.variable(i, &format!("v{i}"), Domain::Bool).unwrap())
        .collect();
    let mut m = Marker::TRUE;
    for v in &vb {
        let b = big.boolean(*v).unwrap();
        m = big.and(m, b).unwrap();
    }
    assert_eq!(small.and(m, m).unwrap_err().code(), "foreign-marker");
    assert_eq!(small.boolean(vb[4]).unwrap_err().code(), "unknown-variable");
    let s = small.variable(0, "s", Domain::String).unwrap();
    assert_eq!(small.boolean(s).unwrap_err().code(), "wrong-domain");
    let v = small.variable(1, "v", Domain::Version).unwrap();
    let arbitrary = "===3.12".parse().unwrap();
    assert_eq!(
        small.version_specifier(v, &arbitrary).unwrap_err().code(),
        "arbitrary-equality"
    );
    let eq = small.string_eq(s, "x").unwrap();
    assert_eq!(
        small
            .evaluate(eq, |_| Value::Bool(true))
            .unwrap_err()
            .code(),
        "wrong-domain"
    );
}

#[test]
fn contexts_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Context>();
    check::<Marker>();
    check::<VersionSet>();
    check::<markerspec_algebra::Relation>();
    // Independent contexts on two threads.
    let handles: Vec<_> = (0..2)
        .map(|t| {
            std::thread::spawn(move || {
                let mut ctx = Context::new();
                let v = ctx
                    .variable(0, "python_full_version", Domain::Version)
                    .unwrap();
                let a = ctx
                    .version_specifier(v, &format!(">=3.{t}").parse().unwrap())
                    .unwrap();
                let b = ctx
                    .version_specifier(v, &format!("<3.{}", t + 5).parse().unwrap())
                    .unwrap();
                let m = ctx.and(a, b).unwrap();
                ctx.dnf(m).unwrap()
            })
        })
        .collect();
    let out: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        out,
        [
            "python_full_version in [3, 3.5.dev0)",
            "python_full_version in [3.1, 3.6.dev0)"
        ]
    );
}

#[test]
fn string_witnesses_avoid_the_literals_of_their_node() {
    let mut ctx = Context::new();
    let s = ctx.variable(0, "sys_platform", Domain::String).unwrap();
    let other = ctx.string_eq(s, "other").unwrap();
    let other1 = ctx.string_eq(s, "other1").unwrap();
    let absent = ctx.string_eq(s, "").unwrap();
    let either = ctx.or(other, other1).unwrap();
    let m = ctx.or(either, absent).unwrap();
    let w = ctx.solve(!m).unwrap().expect("some other string");
    assert_eq!(w.get(s), Some(&Value::String("other2".into())));
    assert!(!ctx.evaluate(m, |_| Value::String("other2".into())).unwrap());
    // The absent value is the empty string.
    assert!(ctx.evaluate(absent, |_| Value::Absent).unwrap());
    assert_eq!(
        ctx.dnf(!m).unwrap(),
        "sys_platform not in {\"\", \"other\", \"other1\"}"
    );
}
