//! Structure-aware: the laws of markerspec-algebra on two arbitrary markers (the generator of
//! `roundtrip_ast`, every dialect and profile), translated with no theory into one context.
//!
//! Checks: Boolean laws hold as equalities of canonical values (commutativity, De Morgan,
//! double negation, absorption, distributivity of `and` over `or`, `a and not a` is false);
//! `implies` and `is_disjoint` agree with `and`/`not`; translating the text `(A) and (B)` /
//! `(A) or (B)` gives the `and` / `or` of the translations (canonicity through the translation);
//! the translation evaluates as pep508 evaluates the tree, on a generated environment whose
//! values are known, and every witness of `relate` makes its cell hold, both in the algebra and
//! when pep508 evaluates the trees on the witness environment (an independent judge: the
//! `algebra` target checks witnesses, the printed form and `relate`'s symmetry with the
//! algebra's own evaluation). A marker past the algebra's limits (200,000 steps and nodes) is
//! `Corpus::Reject` (a coded `intractable` error).

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_algebra::{Context, ErrorKind, Limits, Marker, Theory};
use markerspec_fuzz::{
    MAX_INPUT, MarkerCase, consistent_python_version, gen_environment, gen_known_value, gen_marker,
    options, wildcard_text,
};
use markerspec_pep508::{EnvValue, Environment, Field, FieldType, MarkerTree, Profile};

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    let mut u = Unstructured::new(data);
    let (Ok(a), Ok(b)) = (gen_marker(&mut u), gen_marker(&mut u)) else {
        return Corpus::Reject;
    };
    let (Some(ta), Some(tb)) = (parse(&a), parse(&b)) else {
        return Corpus::Reject;
    };
    let mut literals = a.literals.clone();
    literals.extend(b.literals.iter().cloned());
    let Ok(env) = gen_environment(&mut u, &literals) else {
        return Corpus::Reject;
    };
    // Only known values: the algebra answers two-valued questions.
    let mut filled = env.clone();
    let unknown: Vec<_> = env
        .iter()
        .filter(|(_, v)| matches!(v, EnvValue::Unknown))
        .map(|(f, _)| f)
        .collect();
    for f in unknown {
        let value = gen_known_value(&mut u, f, &literals).unwrap_or(EnvValue::Absent);
        filled.set(f, value).expect("set fields get sets");
    }
    // An extended field's `""` is its absent value (SPEC §4.3), as documents and
    // `Environment::with` store it.
    let empty: Vec<_> = filled
        .iter()
        .filter(|(f, v)| f.is_extended() && matches!(v, EnvValue::String(s) if s.is_empty()))
        .map(|(f, _)| f)
        .collect();
    for f in empty {
        filled
            .set(f, EnvValue::Absent)
            .expect("every extended field has an absent value");
    }
    consistent_python_version(&mut filled);
    // A standard version field holding a wildcard text (`3.12.*`) is outside the algebra's
    // model (SPEC §21.2).
    let wildcard = [
        Field::PythonVersion,
        Field::PythonFullVersion,
        Field::ImplementationVersion,
        Field::PlatformRelease,
        Field::PlatformVersion,
    ]
    .into_iter()
    .any(|f| matches!(filled.get(f), Some(EnvValue::String(s)) if s.trim_end().ends_with(".*")));
    // So is an extended version field's value outside the release-only versions (SPEC §4.3),
    // which documents and `Environment::with` refuse.
    let outside_r = filled.iter().any(|(f, v)| {
        f.is_extended()
            && f.field_type() == FieldType::Version
            && matches!(v, EnvValue::String(s) if s.parse::<markerspec_pep440::Version>().map_or(true, |v| {
                v.epoch() != 0 || v.pre().is_some() || v.post().is_some() || v.dev().is_some() || !v.local().is_empty()
            }))
    });
    // So is, under `packaging`, a `python_full_version` ending in `+` (an untagged build),
    // which packaging reads with `local` appended.
    let packaging =
        a.config.profile == Profile::Packaging || b.config.profile == Profile::Packaging;
    let untagged = packaging
        && matches!(filled.get(Field::PythonFullVersion), Some(EnvValue::String(s)) if s.ends_with('+'));
    if wildcard || outside_r || untagged {
        return Corpus::Reject;
    }
    // The algebra is not linear in its input (a `field in "L"` test is the union of L's
    // substrings); its bound is the context's limits, which a past-the-limit operation reports
    // as `intractable`, so no CPU-time guard here (as in the `algebra` target).
    check(&a, &ta, &b, &tb, &filled)
});

fn parse(case: &MarkerCase) -> Option<MarkerTree> {
    MarkerTree::parse_with(&case.text, &options(case.config), &mut Vec::new()).ok()
}

/// `Some(value)`, or `None` when the algebra refuses with `intractable` (any other error is a
/// failure).
fn ok<T>(r: Result<T, markerspec_algebra::Error>, what: &str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) if matches!(e.kind(), ErrorKind::Intractable { .. }) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

fn check(
    a: &MarkerCase,
    ta: &MarkerTree,
    b: &MarkerCase,
    tb: &MarkerTree,
    env: &Environment,
) -> Corpus {
    let mut ctx = Context::with_limits(Limits {
        steps: 200_000,
        nodes: 200_000,
        ..Limits::default()
    });
    let none = Theory::none();
    let Some(ma) = ok(ctx.from_marker(ta, &none), "translate a") else {
        return Corpus::Reject;
    };
    let Some(mb) = ok(ctx.from_marker(tb, &none), "translate b") else {
        return Corpus::Reject;
    };
    if laws(&mut ctx, ma, mb).is_none() {
        return Corpus::Reject;
    }
    // Parsing straight into the algebra (no syntax tree) gives the same marker.
    for (m, case) in [(ma, a), (mb, b)] {
        let streamed = ctx.parse_marker(&case.text, &options(case.config), &mut Vec::new(), &none);
        if let Some(s) = ok(streamed, "parse_marker") {
            assert_eq!(s, m, "{:?}: parse_marker is not from_marker", case.text);
        }
    }
    let ctx_text = format!("{:?} / {:?}", a.text, b.text);

    // Canonicity through the translation, when both trees read the same profile (a text
    // joined from both is parsed under one).
    if a.config == b.config {
        let opts = options(a.config);
        for (joined, op) in [("and", true), ("or", false)] {
            let text = format!("({}) {joined} ({})", a.text, b.text);
            let mut warnings = Vec::new();
            let parsed = MarkerTree::parse_with(&text, &opts, &mut warnings);
            // The uv profile drops, with a warning, a comparison uv cannot read: alone it
            // leaves `true`, inside `or` it leaves the other side, so a joined text whose parse
            // warned is not the connective of its parts.
            if a.config.profile == Profile::Uv && !warnings.is_empty() {
                continue;
            }
            if let Ok(t) = parsed {
                let Some(whole) = ok(ctx.from_marker(&t, &none), "translate joined") else {
                    return Corpus::Reject;
                };
                let parts = if op { ctx.and(ma, mb) } else { ctx.or(ma, mb) };
                let Some(parts) = ok(parts, "and/or") else {
                    return Corpus::Reject;
                };
                assert_eq!(
                    whole, parts,
                    "{ctx_text}: ({joined}) is not the {joined} of the parts"
                );
            }
        }
    }

    // Evaluation agrees with pep508's.
    for (m, t, case) in [(ma, ta, a), (mb, tb, b)] {
        // pep508 may decide a marker with some fields unset (`false and <unset>`); the algebra
        // evaluates only with every field the marker reads set, and says which is missing.
        if let (Ok(expected), Ok(got)) = (t.evaluate(env), ctx.evaluate_env(m, env)) {
            assert_eq!(got, expected, "{:?} on {env:?}", case.text);
        }
    }

    // Witnesses of every cell.
    let packaging =
        a.config.profile == Profile::Packaging || b.config.profile == Profile::Packaging;
    let Some(rel) = ok(ctx.relate(ma, mb), "relate") else {
        return Corpus::Reject;
    };
    let na = ctx.not(ma);
    let nb = ctx.not(mb);
    for (cell, wa, wb) in [
        (&rel.a_and_b, true, true),
        (&rel.a_not_b, true, false),
        (&rel.b_not_a, false, true),
        (&rel.neither, false, false),
    ] {
        let Some(w) = cell else { continue };
        let (x, y) = (if wa { ma } else { na }, if wb { mb } else { nb });
        let Some(both) = ok(ctx.and(x, y), "and") else {
            return Corpus::Reject;
        };
        let Ok(wenv) = ctx.witness_environment(both, w) else {
            // An opaque comparison no environment document can satisfy is reported, not
            // faked; nothing to check.
            continue;
        };
        assert!(
            ctx.evaluate_env(both, &wenv).expect("evaluates"),
            "{ctx_text}: witness"
        );
        // A text the model leaves out under `packaging` (above) may be a witness for a marker
        // of another profile: such a witness is outside the model for the `packaging` one.
        if packaging
            && matches!(wenv.get(Field::PythonFullVersion), Some(EnvValue::String(s)) if s.ends_with('+'))
        {
            continue;
        }
        // An opaque comparison's witness may give a standard version field a text that reads
        // as a wildcard (`platform_version in " v0!1.*"` satisfied by that text), which is
        // outside the model (SPEC §21.2): the other markers' values there are not the model's.
        if wildcard_text(&wenv) {
            continue;
        }
        for (t, want, case) in [(ta, wa, a), (tb, wb, b)] {
            if let Ok(v) = t.evaluate(&wenv) {
                assert_eq!(v, want, "{:?}: the witness environment {wenv:?}", case.text);
            }
        }
    }

    Corpus::Keep
}

/// The Boolean laws on `a`, `b`; `None` past the limits.
fn laws(ctx: &mut Context, a: Marker, b: Marker) -> Option<()> {
    let and_ab = ok(ctx.and(a, b), "and")?;
    let and_ba = ok(ctx.and(b, a), "and")?;
    assert_eq!(and_ab, and_ba, "and commutes");
    let or_ab = ok(ctx.or(a, b), "or")?;
    let or_ba = ok(ctx.or(b, a), "or")?;
    assert_eq!(or_ab, or_ba, "or commutes");
    let (na, nb) = (ctx.not(a), ctx.not(b));
    assert_eq!(ctx.not(na), a, "double negation");
    let or_n = ok(ctx.or(na, nb), "or")?;
    assert_eq!(ctx.not(and_ab), or_n, "De Morgan");
    let absorb = ok(ctx.and(a, or_ab), "and")?;
    assert_eq!(absorb, a, "absorption");
    // a and (b or not a) == a and b
    let b_or_na = ok(ctx.or(b, na), "or")?;
    let dist = ok(ctx.and(a, b_or_na), "and")?;
    assert_eq!(dist, and_ab, "distributivity");
    assert!(ok(ctx.and(a, na), "and")?.is_false(), "a and not a");
    assert!(ok(ctx.or(a, na), "or")?.is_true(), "a or not a");
    let a_not_b = ok(ctx.and(a, nb), "and")?;
    assert_eq!(
        ok(ctx.implies(a, b), "implies")?,
        a_not_b.is_false(),
        "implies"
    );
    assert_eq!(
        ok(ctx.is_disjoint(a, b), "is_disjoint")?,
        and_ab.is_false(),
        "is_disjoint"
    );
    assert_eq!(ctx.equivalent(a, b), a == b, "equivalent is equality");
    Some(())
}
