//! Structure-aware: markerspec-algebra on two realistic markers (the generator's default
//! weights, as `markerspec generate` prints them: valid text, either dialect, read under
//! `spec-2026`) in a realistic environment (`realistic_environment`: a real machine's values,
//! the markers' literals now and then) whose versions are then moved next to where they are
//! (`nudge_versions`: a release prefix, one up or down, a pre-release, …).
//!
//! `algebra_laws` draws odd text from every corner of the grammar, where a comparison such as
//! `"1.17.11" ~= python_full_version` with a version-valued environment is too rare to meet;
//! this target draws what lock files and requirements hold, and the environments where their
//! comparisons change answer. Checks: each translation evaluates as pep508 evaluates its tree;
//! the cell of `relate` that holds in the environment (by pep508) is not empty (no false
//! negative); every witness makes its cell hold when pep508 evaluates the trees on it; the
//! printed form reads back as the same marker. A marker past the algebra's limits (200,000
//! steps and nodes) is `Corpus::Reject` (a coded `intractable` error).

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_algebra::{Context, ErrorKind, Limits, Theory};
use markerspec_fuzz::{MAX_INPUT, RealisticPair, realistic_pair, wildcard_text};
use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};

/// `Some(value)`, or `None` when the algebra refuses with `intractable` (any other error is a
/// failure).
fn ok<T>(r: Result<T, markerspec_algebra::Error>, what: &str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) if matches!(e.kind(), ErrorKind::Intractable { .. }) => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    let mut u = Unstructured::new(data);
    let Ok(extended) = u.arbitrary::<bool>() else {
        return Corpus::Reject;
    };
    let dialect = if extended {
        Dialect::Extended
    } else {
        Dialect::Pep508
    };
    let parse = ParseOptions::default().dialect(dialect);
    let Some(RealisticPair { a, b, ta, tb, env }) = realistic_pair(&mut u, dialect, &parse) else {
        return Corpus::Reject;
    };

    let mut ctx = Context::with_limits(Limits {
        steps: 200_000,
        nodes: 200_000,
        ..Limits::default()
    });
    let none = Theory::none();
    let Some(ma) = ok(ctx.from_marker(&ta, &none), "translate a") else {
        return Corpus::Reject;
    };
    let Some(mb) = ok(ctx.from_marker(&tb, &none), "translate b") else {
        return Corpus::Reject;
    };
    let texts = format!("{:?} / {:?}", a.text, b.text);

    // Evaluation agrees with pep508's; the cell that holds here is not empty.
    let (Ok(ea), Ok(eb)) = (ta.evaluate(&env), tb.evaluate(&env)) else {
        return Corpus::Reject;
    };
    for (m, expected, text) in [(ma, ea, &a.text), (mb, eb, &b.text)] {
        let got = ctx
            .evaluate_env(m, &env)
            .unwrap_or_else(|e| panic!("{text:?}: the algebra cannot evaluate on {env:?}: {e}"));
        assert_eq!(got, expected, "{text:?} on {env:?}");
    }
    let Some(rel) = ok(ctx.relate(ma, mb), "relate") else {
        return Corpus::Reject;
    };
    let (na, nb) = (ctx.not(ma), ctx.not(mb));
    for (cell, wa, wb) in [
        (&rel.a_and_b, true, true),
        (&rel.a_not_b, true, false),
        (&rel.b_not_a, false, true),
        (&rel.neither, false, false),
    ] {
        if (ea, eb) == (wa, wb) {
            assert!(
                cell.is_some(),
                "{texts}: the cell ({wa}, {wb}) holds on {env:?} but relate finds it empty"
            );
        }
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
        // An opaque comparison's witness may give a standard version field a wildcard text,
        // outside the model: the other marker's value there is not the model's.
        if wildcard_text(&wenv) {
            continue;
        }
        for (t, want, text) in [(&ta, wa, &a.text), (&tb, wb, &b.text)] {
            if let Ok(v) = t.evaluate(&wenv) {
                assert_eq!(v, want, "{text:?}: the witness environment {wenv:?}");
            }
        }
    }

    // Both printed forms (the cover and the shortest, SPEC §21.4) read back as the same marker.
    for (m, text, shortest) in [
        (ma, &a.text, false),
        (mb, &b.text, false),
        (ma, &a.text, true),
        (mb, &b.text, true),
    ] {
        let printed = if shortest {
            ctx.to_shortest_marker_string(m)
        } else {
            ctx.to_marker_string(m)
        };
        let printed = match printed {
            Ok(p) => p,
            Err(e) if matches!(e.code(), "intractable" | "unprintable") => continue,
            Err(e) => panic!("{text:?}: print: {e}"),
        };
        if printed == "true" || printed == "false" {
            assert_eq!(m.is_true(), printed == "true", "{text:?} printed {printed}");
            continue;
        }
        let back = MarkerTree::parse_with(&printed, &parse, &mut Vec::new())
            .unwrap_or_else(|e| panic!("{text:?}: printed {printed:?} does not parse: {e:?}"));
        let Some(mb2) = ok(ctx.from_marker(&back, &none), "translate printed") else {
            return Corpus::Reject;
        };
        assert_eq!(mb2, m, "{text:?}: printed {printed:?} means something else");
    }
    Corpus::Keep
});
