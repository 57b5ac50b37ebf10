//! Structure-aware: two arbitrary parsed markers (from the AST generator, in a drawn dialect,
//! profile and lock-file context) translated into the marker algebra in one context.
//!
//! Checks: no panic, and no error but `intractable`; the printed form of a `spec-2026` marker
//! parses back (extended dialect, lock-file context) to the same marker of the algebra
//! (canonical form, so it means the same); `relate` agrees with `implies`, `is_disjoint` and
//! the connectives, and is symmetric; every witness environment of a cell satisfies the cell
//! by the algebra's own evaluation; `exists`/`forall` over `extra` bracket the marker;
//! `residual` under a generated environment, evaluated where that environment is complete,
//! gives the marker's value.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_algebra::{Context, Error, Limits, Marker, RelationKind, Theory};
use markerspec_fuzz::{MAX_INPUT, gen_environment, gen_marker, options};
use markerspec_pep508::{Dialect, Field, MarkerTree, ParseOptions, Profile};

fn ok<T>(r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(t) => Some(t),
        Err(e) if e.code() == "intractable" => None,
        Err(e) => panic!("unexpected algebra error {}: {e}", e.code()),
    }
}

fn parse(u: &mut Unstructured<'_>) -> Option<(MarkerTree, Vec<String>)> {
    let case = gen_marker(u).ok()?;
    let tree = MarkerTree::parse_with(&case.text, &options(case.config), &mut Vec::new()).ok()?;
    Some((tree, case.literals))
}

fn check(data: &[u8]) -> Corpus {
    let mut u = Unstructured::new(data);
    let Some((ta, mut literals)) = parse(&mut u) else {
        return Corpus::Reject;
    };
    let Some((tb, lb)) = parse(&mut u) else {
        return Corpus::Reject;
    };
    literals.extend(lb);
    // The algebra is not linear in its input (its bound is the context's limits, which a
    // past-the-limit operation reports as `intractable`), so no CPU-time guard here.
    let mut ctx = Context::with_limits(Limits {
        steps: 200_000,
        nodes: 200_000,
        ..Limits::default()
    });
    let none = Theory::none();
    let (Some(a), Some(b)) = (
        ok(ctx.from_marker(&ta, &none)),
        ok(ctx.from_marker(&tb, &none)),
    ) else {
        return Corpus::Keep;
    };
    // Printing: canonical round trip of spec-2026 markers.
    for (tree, m) in [(&ta, a), (&tb, b)] {
        if tree.profile() != Profile::Spec2026 {
            continue;
        }
        let printed = match ctx.to_marker_string(m) {
            Ok(p) => p,
            Err(e) if e.code() == "intractable" || e.code() == "unprintable" => continue,
            Err(e) => panic!("printing {tree}: {e}"),
        };
        // Lock-file context first (`extras`, `dependency_groups`); spec-2026 refuses the legacy
        // `extra` there (SPEC Appendix E.5), so a printed marker that reads it is read outside.
        let parse = |lock_file: bool| {
            let opts = ParseOptions::default()
                .dialect(Dialect::Extended)
                .lock_file(lock_file);
            MarkerTree::parse_with(&printed, &opts, &mut Vec::new())
        };
        let back = parse(true)
            .or_else(|_| parse(false))
            .unwrap_or_else(|e| panic!("printed `{printed}` of `{tree}` does not parse: {e}"));
        if let Some(mb) = ok(ctx.translate(&back)) {
            assert_eq!(
                mb, m,
                "printed `{printed}` of `{tree}` means something else"
            );
        }
    }
    // Relations.
    let Some(rel) = ok(ctx.relate(a, b)) else {
        return Corpus::Keep;
    };
    let Some(rev) = ok(ctx.relate(b, a)) else {
        return Corpus::Keep;
    };
    assert_eq!(rel.a_and_b.is_some(), rev.a_and_b.is_some());
    assert_eq!(rel.a_not_b.is_some(), rev.b_not_a.is_some());
    assert_eq!(rel.neither.is_some(), rev.neither.is_some());
    if let (Some(imp), Some(dis)) = (ok(ctx.implies(a, b)), ok(ctx.is_disjoint(a, b))) {
        assert_eq!(imp, rel.a_not_b.is_none());
        assert_eq!(dis, rel.a_and_b.is_none());
        if rel.kind() == RelationKind::Equivalent {
            assert_eq!(a, b);
        }
    }
    let cells: [Option<Marker>; 4] = [
        ok(ctx.and(a, b)),
        ok(ctx.and(a, !b)),
        ok(ctx.and(!a, b)),
        ok(ctx.and(!a, !b)),
    ];
    for c in cells.into_iter().flatten() {
        match ctx.solve_environment(c) {
            Ok(Some(env)) => assert!(
                ctx.evaluate_env(c, &env).unwrap_or(false),
                "a witness environment does not satisfy its cell"
            ),
            Ok(None) => assert!(c.is_false()),
            Err(e)
                if matches!(
                    e.code(),
                    "intractable" | "unverified-witness" | "evaluation"
                ) => {}
            Err(e) => panic!("solve: {e}"),
        }
    }
    // Quantifying over `extra` brackets the marker.
    if let (Some(ex), Some(fa)) = (
        ok(ctx.exists_field(a, Field::Extra)),
        ok(ctx.forall_field(a, Field::Extra)),
    ) {
        assert!(ok(ctx.implies(a, ex)).unwrap_or(true));
        assert!(ok(ctx.implies(fa, a)).unwrap_or(true));
    }
    // Residual: assigning the known fields keeps the value where everything is known.
    if let Ok(env) = gen_environment(&mut u, &literals) {
        let residual = ctx.residual(a, &env);
        // An opaque comparison that pep508 cannot evaluate with the values given (`extra ===
        // "x"` under `packaging`) is an `evaluation` error, as documented on `residual`; then
        // `evaluate_env` cannot evaluate the marker either.
        let undefined = residual.as_ref().is_err_and(|e| e.code() == "evaluation");
        if undefined {
            assert!(ctx.evaluate_env(a, &env).is_err());
        } else if let (Some(r), Ok(v)) = (ok(residual), ctx.evaluate_env(a, &env)) {
            assert!(
                r.is_true() || r.is_false(),
                "a complete environment leaves a residual"
            );
            assert_eq!(r.is_true(), v);
        }
    }
    Corpus::Keep
}

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    check(data)
});
