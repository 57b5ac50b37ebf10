//! uv-pep508's and poetry-core's marker-algebra tests, ported in meaning
//! (`tests/data/ported-algebra.jsonl`): each case keeps the input and the relation the upstream
//! test asserts — `equivalent` (a ≡ b), `implies` (a ⇒ b), `disjoint` (a ∧ b never holds),
//! `complement` (a ≡ ¬b), `true`, `false` — not the upstream printed strings, and cites its
//! source file and test.
//!
//! Fields of a case: `source`, `test`, `relation`, `a`, optional `b`, `upstream` (whether the
//! upstream test asserts the relation holds — `false` for `assert!(!…)`), `ours` (whether it
//! holds under the specification, `spec-2026`, with no theory; or `"invalid"` when `a` or `b`
//! is not a marker there), and `reason`, required where `ours` differs from `upstream`. Where
//! markerspec-algebra is knowingly inexact (an opaque comparison, see the crate docs), `algebra`
//! holds its answer and `algebra_reason` why; the test checks that answer, so it fails once the
//! algebra becomes exact there.
//!
//! The answers are checked by brute-force evaluation (`support/brute.rs`) and by
//! markerspec-algebra (`Context::from_marker` with the `none` theory). To regenerate `ours`
//! and the automatic reasons after adding cases, run with `MARKERSPEC_BLESS=1` and review the
//! diff; a reason written by hand is kept while `ours` does not change.

#[path = "support/brute.rs"]
#[allow(dead_code)]
mod brute;
#[path = "support/uv.rs"]
#[allow(dead_code)]
mod uv;

use std::collections::BTreeMap;

use brute::{Query, Space, Versions};
use markerspec_algebra::{Context, Theory};
use markerspec_pep508::{MarkerTree, ParseOptions, Profile};
use serde_json::{Value, json};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/ported-algebra.jsonl"
);

/// The query that has no solution exactly when the relation holds.
fn query(relation: &str) -> Query {
    let (a, b) = (Box::new(Query::Leaf(0)), Box::new(Query::Leaf(1)));
    match relation {
        "equivalent" => Query::Xor(a, b),
        "implies" => Query::And(a, Box::new(Query::Not(b))),
        "disjoint" => Query::And(a, b),
        "complement" => Query::Not(Box::new(Query::Xor(a, b))),
        "true" => Query::Not(a),
        "false" => *a,
        other => panic!("unknown relation {other:?}"),
    }
}

fn parse_in(text: &str, profile: Profile) -> Result<MarkerTree, String> {
    let opts = ParseOptions::default().profile(profile);
    MarkerTree::parse_with(text, &opts, &mut Vec::new()).map_err(|e| format!("{e}"))
}

/// Whether the relation holds under `profile` with interpreters `versions` admits; `Err` with
/// the parse error when a side is not a marker.
fn holds(case: &Value, profile: Profile, versions: Versions) -> Result<bool, String> {
    let mut trees = vec![parse_in(case["a"].as_str().expect("a"), profile)?];
    if let Some(b) = case.get("b").and_then(Value::as_str) {
        trees.push(parse_in(b, profile)?);
    }
    let refs: Vec<&MarkerTree> = trees.iter().collect();
    let relation = case["relation"].as_str().expect("relation");
    Ok(Space::new(&refs).find(&query(relation), versions).is_none())
}

/// Whether the relation holds according to markerspec-algebra (spec-2026, no theory).
fn algebra_holds(case: &Value) -> Result<bool, String> {
    let mut ctx = Context::new();
    let none = Theory::none();
    let a = parse_in(case["a"].as_str().expect("a"), Profile::Spec2026)?;
    let ma = ctx.from_marker(&a, &none).map_err(|e| e.to_string())?;
    let mb = match case.get("b").and_then(Value::as_str) {
        Some(b) => {
            let b = parse_in(b, Profile::Spec2026)?;
            ctx.from_marker(&b, &none).map_err(|e| e.to_string())?
        }
        None => ma,
    };
    let err = |e: markerspec_algebra::Error| e.to_string();
    Ok(match case["relation"].as_str().expect("relation") {
        "equivalent" => ctx.equivalent(ma, mb),
        "implies" => ctx.implies(ma, mb).map_err(err)?,
        "disjoint" => ctx.is_disjoint(ma, mb).map_err(err)?,
        "complement" => ctx.equivalent(ma, ctx.not(mb)),
        "true" => ma.is_true(),
        "false" => ma.is_false(),
        other => return Err(format!("unknown relation {other:?}")),
    })
}

/// Whether the relation holds where uv's world knowledge ([`uv::uv_theory`]) holds.
fn holds_with_uv_theory(case: &Value) -> Result<bool, String> {
    let mut trees = vec![parse_in(case["a"].as_str().expect("a"), Profile::Spec2026)?];
    let relation = case["relation"].as_str().expect("relation");
    // The theory is the last marker; a one-sided relation gets a placeholder second.
    trees.push(match case.get("b").and_then(Value::as_str) {
        Some(b) => parse_in(b, Profile::Spec2026)?,
        None => MarkerTree::TRUE,
    });
    trees.push(uv::uv_theory());
    let refs: Vec<&MarkerTree> = trees.iter().collect();
    let q = Query::And(Box::new(query(relation)), Box::new(Query::Leaf(2)));
    Ok(Space::new(&refs).find(&q, Versions::All).is_none())
}

/// The reason given automatically for a difference from upstream, when one explains it.
fn auto_reason(case: &Value, upstream: bool) -> String {
    let source = case["source"].as_str().unwrap_or("");
    if holds(case, Profile::Spec2026, Versions::Pep440) == Ok(upstream) {
        return "non-version values: a standard `Version` field may hold a value that is not a \
                PEP 440 version (SPEC §4.2: `\"\"` for what cannot be calculated), which \
                satisfies no specifier; upstream assumes a version"
            .into();
    }
    if holds(case, Profile::Spec2026, Versions::Releases) == Ok(upstream) {
        if holds(case, Profile::Spec2026, Versions::CPython) == Ok(upstream) {
            return "post/dev/local versions: the answer differs only on a version with a \
                    post-, dev-release or local label (e.g. 3.10.post1), which upstream does \
                    not model"
                .into();
        }
        return "pre-releases: the answer differs only on a pre-release interpreter (e.g. \
                3.11.0rc1), which upstream does not model"
            .into();
    }
    if source.contains("uv-pep508") && holds_with_uv_theory(case) == Ok(upstream) {
        return "uv's world knowledge: uv identifies platform_system with sys_platform and \
                drops conjunctions in its exclusion table (spec/DIVERGENCES-ALGEBRA.md)"
            .into();
    }
    if source.contains("uv-pep508") && holds(case, Profile::Uv, Versions::All) == Ok(upstream) {
        return "uv profile: uv reads the marker differently from the specification \
                (spec/SPEC.md §5.6; crates/pep508/src/profile/uv.rs)"
            .into();
    }
    "REVIEW".into()
}

#[test]
fn ported_cases_hold_by_brute_force() {
    let text = std::fs::read_to_string(DATA).expect("the data file");
    let bless = std::env::var_os("MARKERSPEC_BLESS").is_some();
    let mut out = String::new();
    let mut failures = Vec::new();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let mut case: Value = serde_json::from_str(line).expect("a JSON line");
        let upstream = case["upstream"].as_bool().expect("upstream");
        let ours = match holds(&case, Profile::Spec2026, Versions::All) {
            Ok(b) => json!(b),
            Err(_) => json!("invalid"),
        };
        let differs = ours != json!(upstream);
        let recorded_reason = case
            .get("reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if bless {
            let keep = case.get("ours") == Some(&ours) && recorded_reason.is_some();
            case["ours"] = ours.clone();
            if !differs {
                case.as_object_mut().map(|o| o.remove("reason"));
            } else if !keep {
                case["reason"] = match &ours {
                    Value::String(_) => {
                        let a = case["a"].as_str().unwrap_or("");
                        let b = case.get("b").and_then(Value::as_str).unwrap_or("");
                        let err = parse_in(a, Profile::Spec2026)
                            .and_then(|_| {
                                parse_in(b, Profile::Spec2026)
                                    .map(|_| ())
                                    .or_else(|e| if b.is_empty() { Ok(()) } else { Err(e) })
                            })
                            .err()
                            .unwrap_or_default();
                        json!(format!("not a marker under spec-2026: {err}"))
                    }
                    _ => json!(auto_reason(&case, upstream)),
                };
            }
            out.push_str(&serde_json::to_string(&case).expect("JSON"));
            out.push('\n');
            continue;
        }
        let label = format!(
            "line {}: {} {} {:?} {:?}",
            n + 1,
            case["test"],
            case["relation"],
            case["a"],
            case.get("b")
        );
        if case.get("ours") != Some(&ours) {
            failures.push(format!(
                "{label}: recorded {:?}, brute force {ours}",
                case.get("ours")
            ));
        }
        if let Value::Bool(exact) = ours {
            // A known approximation of the algebra is recorded with its reason, and checked
            // both ways: it fails once the algebra becomes exact there.
            let expected = match case.get("algebra") {
                Some(Value::Bool(b)) => {
                    let reason = case.get("algebra_reason").and_then(Value::as_str);
                    if reason.is_none_or(str::is_empty) {
                        failures.push(format!("{label}: `algebra` without `algebra_reason`"));
                    }
                    *b
                }
                _ => exact,
            };
            match algebra_holds(&case) {
                Ok(got) if got == expected => {}
                other => failures.push(format!("{label}: markerspec-algebra {other:?}")),
            }
        }
        if differs
            && recorded_reason
                .as_deref()
                .is_none_or(|r| r.is_empty() || r == "REVIEW")
        {
            failures.push(format!("{label}: differs from upstream without a reason"));
        }
        let class = if !differs {
            "as upstream".to_string()
        } else {
            recorded_reason
                .unwrap_or_default()
                .split(':')
                .next()
                .unwrap_or("")
                .to_string()
        };
        *tally.entry(class).or_default() += 1;
    }
    if bless {
        std::fs::write(DATA, out).expect("write the data file");
        return;
    }
    for (class, n) in &tally {
        println!("{n:5}  {class}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(tally.values().sum::<usize>() > 600, "every case was read");
}

#[test]
fn every_case_cites_its_source() {
    let text = std::fs::read_to_string(DATA).expect("the data file");
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let source = case["source"].as_str().expect("source");
        assert!(
            source.starts_with("astral-sh/uv") || source.starts_with("python-poetry/poetry-core"),
            "{source}"
        );
        assert!(case["test"].as_str().is_some_and(|t| !t.is_empty()));
        let relation = case["relation"].as_str().expect("relation");
        let _ = query(relation);
        assert_eq!(
            case.get("b").is_some(),
            !matches!(relation, "true" | "false"),
            "{line}"
        );
    }
}
