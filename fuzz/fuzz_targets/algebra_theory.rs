//! Structure-aware: what the algebra answers that a user reads as marker text — the printed
//! form, a restriction (`simplify --assume`) and a residual (`eval --residual`) — judged by the
//! pep508 evaluator, under either theory and every profile.
//!
//! `algebra_realistic` checks that a printed form reads back as the same diagram, which a bug
//! shared by the printer and the translation would pass. Here the printed text itself is
//! evaluated by pep508 in a realistic environment (as in `algebra_realistic`: the markers'
//! literals now and then, versions nudged next to them) and must give the input's answer:
//!
//! - the printed form of A, read under the `platform` theory or none;
//! - the printed form of `restrict(A, B)` where B holds;
//! - the printed form of A's residual over a part of the environment (fields dropped or made
//!   Unknown), evaluated on the whole environment;
//! - the environment `solve` gives for A (SPEC §21.5) makes A hold;
//! - and where pep508's three-valued evaluation decides A on that part, the residual is that
//!   constant (under `none`: under `platform` it keeps the rules over the fields left).
//!
//! Under `platform`, the environment must keep the theory's rules (each rule's text evaluated
//! by pep508, and the instantiated rules checked on the values), else only the `none` checks
//! that do not depend on the rules run. The markers are read under `spec-2026`, `packaging` or
//! `uv`; the printed form reads under `spec-2026` except for opaque comparisons, which keep
//! their profile's meaning (SPEC §21.4), so for the other profiles it is judged only where its
//! two readings agree on the environment.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_algebra::{Context, ErrorKind, Limits, Marker, PLATFORM_RULES, Theory};
use markerspec_fuzz::{MAX_INPUT, RealisticPair, realistic_pair, wildcard_text};
use markerspec_pep508::{
    Dialect, EnvValue, Environment, Field, MarkerTree, ParseOptions, Profile, Truth,
};

/// `Some(value)`, or `None` when the algebra refuses with `intractable` (any other error is a
/// failure).
fn ok<T>(r: Result<T, markerspec_algebra::Error>, what: &str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) if matches!(e.kind(), ErrorKind::Intractable { .. }) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

/// Whether `env` keeps the `platform` theory's rules: each rule's text holds (pep508, extended
/// dialect), and so do the instantiated rules for every value (a variant property's feature and
/// namespace are listed; a CPython ABI tag ending in `t` goes with free-threading).
fn keeps_platform_rules(env: &Environment) -> bool {
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let rules_hold = PLATFORM_RULES.iter().all(|rule| {
        MarkerTree::parse_with(rule.text, &opts, &mut Vec::new())
            .ok()
            .and_then(|t| t.evaluate(env).ok())
            .unwrap_or(false)
    });
    let set = |f: Field| match env.get(f) {
        Some(EnvValue::Set(items)) => items.iter().map(|s| s.to_string()).collect(),
        _ => Vec::new(),
    };
    let (properties, features, namespaces) = (
        set(Field::VariantProperties),
        set(Field::VariantFeatures),
        set(Field::VariantNamespaces),
    );
    let prefixes_listed = properties.iter().all(|p| {
        let parts: Vec<&str> = p.split("::").map(str::trim).collect();
        match parts.as_slice() {
            [n, f, _] => {
                features
                    .iter()
                    .any(|x| x.split("::").map(str::trim).eq([*n, *f]))
                    && namespaces.iter().any(|x| x.trim() == *n)
            }
            _ => true,
        }
    }) && features.iter().all(|f| {
        let parts: Vec<&str> = f.split("::").map(str::trim).collect();
        match parts.as_slice() {
            [n, _] => namespaces.iter().any(|x| x.trim() == *n),
            _ => true,
        }
    });
    let threading = match env.get(Field::PythonAbiTag) {
        Some(EnvValue::String(tag)) if tag.starts_with("cp") => {
            let free = set(Field::SysAbiFeatures)
                .iter()
                .any(|f| f == "free-threading");
            tag.ends_with('t') == free
        }
        _ => true,
    };
    rules_hold && prefixes_listed && threading
}

/// pep508's answer for the printed form `text` of a marker read with `opts`: `None` where it
/// does not parse back under `spec-2026` or, for another profile, where its two readings
/// disagree on `env` (an opaque comparison keeps its profile's meaning, SPEC §21.4).
fn printed_answer(
    text: &str,
    dialect: Dialect,
    profile: Profile,
    env: &Environment,
) -> Option<bool> {
    let spec = ParseOptions::default().dialect(dialect);
    let read = |o: &ParseOptions| {
        MarkerTree::parse_with(text, o, &mut Vec::new())
            .ok()
            .and_then(|t| t.evaluate(env).ok())
    };
    let answer = read(&spec);
    if profile == Profile::Spec2026 {
        return Some(
            answer.unwrap_or_else(|| panic!("the printed form {text:?} does not evaluate")),
        );
    }
    match (answer, read(&spec.profile(profile))) {
        (Some(x), Some(y)) if x == y => Some(x),
        _ => None,
    }
}

/// Where the environment is judged: each printed form of `m` evaluates, under pep508, to
/// `want` (unless the printer refuses with a coded error it may give, or the printed form's
/// readings disagree, [`printed_answer`]).
fn check_printed(ctx: &mut Context, m: Marker, want: bool, case: &Case<'_>, what: &str) {
    // Both printed forms: the cover and the shortest (SPEC §21.4).
    for shortest in [false, true] {
        let p = if shortest {
            ctx.to_shortest_marker_string(m)
        } else {
            ctx.to_marker_string(m)
        };
        let p = match p {
            Ok(p) => p,
            Err(e) if matches!(e.code(), "intractable" | "unprintable") => continue,
            Err(e) => panic!("{}: {what}: print: {e}", case.texts),
        };
        if let Some(v) = printed_answer(&p, case.dialect, case.profile, case.env) {
            assert_eq!(
                v, want,
                "{}: {what} printed {p:?} (shortest: {shortest}), on {:?}",
                case.texts, case.env
            );
        }
    }
}

/// What the printed forms are judged with.
struct Case<'a> {
    texts: String,
    dialect: Dialect,
    profile: Profile,
    env: &'a Environment,
}

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    let mut u = Unstructured::new(data);
    let (Ok(extended), Ok(profile), Ok(platform)) = (
        u.arbitrary::<bool>(),
        u.choose(&[Profile::Spec2026, Profile::Packaging, Profile::Uv]),
        u.arbitrary::<bool>(),
    ) else {
        return Corpus::Reject;
    };
    let dialect = if extended {
        Dialect::Extended
    } else {
        Dialect::Pep508
    };
    let parse = ParseOptions::default().dialect(dialect).profile(*profile);
    let Some(RealisticPair { a, b, ta, tb, env }) = realistic_pair(&mut u, dialect, &parse) else {
        return Corpus::Reject;
    };
    let (Ok(ea), Ok(eb)) = (ta.evaluate(&env), tb.evaluate(&env)) else {
        return Corpus::Reject;
    };
    let theory = if platform {
        Theory::platform()
    } else {
        Theory::none()
    };
    // Under `platform` a marker means its value where the rules hold; elsewhere it is false.
    let judged = !platform || keeps_platform_rules(&env);
    let texts = format!(
        "{:?} / {:?} ({profile:?}, theory {})",
        a.text,
        b.text,
        theory.name()
    );

    let mut ctx = Context::with_limits(Limits {
        steps: 200_000,
        nodes: 200_000,
        ..Limits::default()
    });
    let Some(ma) = ok(ctx.from_marker(&ta, &theory), "translate a") else {
        return Corpus::Reject;
    };
    let Some(mb) = ok(ctx.from_marker(&tb, &theory), "translate b") else {
        return Corpus::Reject;
    };
    if judged {
        let got = ctx
            .evaluate_env(ma, &env)
            .unwrap_or_else(|e| panic!("{texts}: cannot evaluate on {env:?}: {e}"));
        assert_eq!(got, ea, "{texts}: the algebra's answer on {env:?}");
    }

    let case = Case {
        texts,
        dialect,
        profile: *profile,
        env: &env,
    };

    // The printed form of A.
    if judged {
        check_printed(&mut ctx, ma, ea, &case, "A");
    }

    // A restricted to where B holds, printed.
    if judged && eb {
        let Some(r) = ok(ctx.restrict(ma, mb), "restrict") else {
            return Corpus::Reject;
        };
        check_printed(&mut ctx, r, ea, &case, "A assuming B");
    }

    // `solve`'s environment for A (SPEC §21.5: defaults kept where A allows, plain releases
    // elsewhere) makes A hold under pep508.
    match ctx.solve_environment(ma) {
        Ok(Some(w)) => {
            if !wildcard_text(&w)
                && let Ok(v) = ta.evaluate(&w)
            {
                assert!(v, "{}: the environment solve gives, {w:?}", case.texts);
            }
        }
        Ok(None) => assert!(ma.is_false(), "{}: solve finds nothing", case.texts),
        Err(e) if matches!(e.code(), "unverified-witness" | "intractable") => {}
        Err(e) => panic!("{}: solve: {e}", case.texts),
    }

    // A's residual over part of the environment.
    // The requested extras are always known: the part keeps them.
    let mut part = Environment::new().with_extras(env.extras().map(str::to_owned));
    for (field, value) in env.iter() {
        let Ok(keep) = u.int_in_range(0u8..=3) else {
            break;
        };
        // A missing `extras` or `dependency_groups` is an empty one: those are kept or made
        // Unknown, never dropped.
        let listed = matches!(field, Field::Extras | Field::DependencyGroups);
        let value = match keep {
            0 if !listed => continue,
            0 | 1 => EnvValue::Unknown,
            _ => value.clone(),
        };
        // A value the field cannot take alone is left out.
        let _ = part.set(field, value);
    }
    let Some(res) = ok(ctx.residual(ma, &part), "residual") else {
        return Corpus::Reject;
    };
    if let Ok(e) = ta.evaluate_tristate(&part)
        && e.truth != Truth::Unknown
        && !platform
    {
        let want = e.truth == Truth::True;
        assert!(
            if want { res.is_true() } else { res.is_false() },
            "{}: pep508 decides {want} on {part:?}, the residual does not",
            case.texts
        );
    }
    if judged {
        check_printed(
            &mut ctx,
            res,
            ea,
            &case,
            &format!("the residual on {part:?}"),
        );
    }
    Corpus::Keep
});
