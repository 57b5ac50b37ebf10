//! Structure-aware: an arbitrary parsed marker (from the AST generator, in a drawn dialect,
//! behaviour profile and lock-file context) under an arbitrary environment where each field is
//! unset, a known string or set, Absent or Unknown, evaluated under the profile it was parsed
//! with.
//!
//! Checks: evaluation never panics; a `spec-2026` marker evaluates without error; the
//! three-valued result and the `bool` one agree (known results equal, Unknown is `E004`, or
//! true/false under the Unknown policies, errors carry the same code); an Unknown result names
//! only fields that are Unknown (or unset, which a profile may read as Unknown), and a known
//! result names none; with every field it reads known the result is never Unknown; a known
//! result stays the same whatever known values replace the Unknown ones (Kleene soundness);
//! `and`/`or` nodes give the Kleene fold of their children; the tree built from the AST and
//! the reparsed display evaluate as the parsed tree.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_fuzz::{
    MAX_INPUT, MarkerCase, gen_environment, gen_known_value, gen_marker, known_marker_bug,
    not_known, options, unknown_fields, within_budget,
};
use markerspec_pep508::{
    EnvValue, Environment, EvalOptions, Evaluation, MarkerNode, MarkerTree, ParseOptions, Profile,
    Truth, UnknownPolicy,
};

type Outcome = Result<Evaluation, &'static str>;

fn tristate(tree: &MarkerTree, env: &Environment, profile: Profile) -> Outcome {
    assert_eq!(tree.profile(), profile);
    tree.evaluate_tristate(env).map_err(|e| e.code())
}

/// `and`/`or` are the Kleene folds of their children, and an error in any child is an error
/// of the whole (every comparison is evaluated; the first error is reported).
fn check_composition(tree: &MarkerTree, env: &Environment, profile: Profile, whole: &Outcome) {
    let (children, is_and) = match tree.node() {
        MarkerNode::And(_) => (tree.children(), true),
        MarkerNode::Or(_) => (tree.children(), false),
        _ => return,
    };
    let parts: Vec<Outcome> = children.iter().map(|c| tristate(c, env, profile)).collect();
    for (c, r) in children.iter().zip(&parts) {
        check_composition(c, env, profile, r);
    }
    match parts.iter().find_map(|r| r.as_ref().err()) {
        Some(code) => assert_eq!(
            whole.as_ref().err(),
            Some(code),
            "{tree}: a child fails with {code} but the whole gives {whole:?}"
        ),
        None => {
            let folded =
                parts
                    .iter()
                    .filter_map(|r| r.as_ref().ok())
                    .fold(Truth::from(is_and), |acc, r| {
                        if is_and {
                            acc.and(r.truth)
                        } else {
                            acc.or(r.truth)
                        }
                    });
            assert_eq!(
                whole.as_ref().map(|e| e.truth),
                Ok(folded),
                "{tree}: the whole is not the Kleene fold of its children"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    let mut u = Unstructured::new(data);
    let Ok(case) = gen_marker(&mut u) else {
        return Corpus::Reject;
    };
    let opts = options(case.config);
    let mut warnings = Vec::new();
    let Ok(tree) = MarkerTree::parse_with(&case.text, &opts, &mut warnings) else {
        return Corpus::Reject;
    };
    let expected = case.expect_tree(&warnings);
    let Ok(env) = gen_environment(&mut u, &case.literals) else {
        return Corpus::Reject;
    };
    // Unknown values replaced by known ones, for the soundness law.
    let mut filled = env.clone();
    let unknown: Vec<_> = env
        .iter()
        .filter(|(_, v)| matches!(v, EnvValue::Unknown))
        .map(|(f, _)| f)
        .collect();
    for f in unknown {
        let value = gen_known_value(&mut u, f, &case.literals).unwrap_or(EnvValue::Absent);
        filled.set(f, value).expect("set fields get sets");
    }
    within_budget("evaluate", case.text.len(), || {
        check(&case, expected, &opts, &tree, &env, &filled)
    });
    Corpus::Keep
});

fn check(
    case: &MarkerCase,
    expected: Option<&MarkerTree>,
    opts: &ParseOptions,
    tree: &MarkerTree,
    env: &Environment,
    filled: &Environment,
) {
    let profile = case.config.profile;

    let three = tristate(tree, env, profile);
    if profile == Profile::Spec2026 {
        assert!(
            three.is_ok(),
            "{}: {tree} parses but fails to evaluate under {env:?}: {three:?}",
            case.config
        );
    }
    let bool_with = |policy: UnknownPolicy| {
        tree.evaluate_with(env, EvalOptions::default().unknown(policy))
            .map_err(|e| e.code())
    };
    let (as_error, as_true, as_false) = (
        bool_with(UnknownPolicy::Error),
        bool_with(UnknownPolicy::True),
        bool_with(UnknownPolicy::False),
    );
    match &three {
        Ok(e) => match e.truth {
            Truth::True | Truth::False => {
                assert!(
                    e.unknown.is_empty(),
                    "{tree}: known result {e:?} names fields"
                );
                let b = Ok(e.truth == Truth::True);
                assert_eq!(as_error, b, "{tree}: bool and tristate differ");
                assert_eq!(
                    as_true, b,
                    "{tree}: the Unknown policy changes a known result"
                );
                assert_eq!(
                    as_false, b,
                    "{tree}: the Unknown policy changes a known result"
                );
            }
            Truth::Unknown => {
                assert!(
                    !e.unknown.is_empty(),
                    "{tree}: Unknown result names no field"
                );
                for f in e.unknown.iter() {
                    assert!(
                        not_known(env, f),
                        "{tree}: Unknown blamed on {f}, which is known in {env:?}"
                    );
                }
                assert_eq!(
                    as_error,
                    Err("E004"),
                    "{tree}: Unknown must be E004 as a bool"
                );
                assert_eq!(as_true, Ok(true), "{tree}: UnknownPolicy::True");
                assert_eq!(as_false, Ok(false), "{tree}: UnknownPolicy::False");
            }
        },
        Err(code) => {
            for b in [as_error, as_true, as_false] {
                assert_eq!(b, Err(*code), "{tree}: bool and tristate fail differently");
            }
        }
    }
    if unknown_fields(tree, env).is_empty() {
        assert!(
            three.as_ref().map_or(true, |e| e.truth != Truth::Unknown),
            "{tree}: Unknown with every field known in {env:?}"
        );
    }
    check_composition(tree, env, profile, &three);

    // The same marker built from the AST, and the reparsed display, evaluate the same. A tree
    // built by hand is always a `spec-2026` tree (only parsing gives another profile), so the
    // AST's tree is compared in that profile; the reparsed display covers the others.
    if let Some(expected) = expected
        && expected.profile() == profile
    {
        assert_eq!(
            tristate(expected, env, profile),
            three,
            "{tree}: the AST's tree evaluates differently"
        );
    }
    let shown = tree.to_string();
    if known_marker_bug(tree, case.config).is_none()
        && let Ok(again) = MarkerTree::parse_with(&shown, opts, &mut Vec::new())
    {
        assert_eq!(
            tristate(&again, env, profile),
            three,
            "{tree}: the reparsed display evaluates differently"
        );
    }

    // Kleene soundness: replacing each Unknown by a known value keeps a known result.
    if let Ok(e) = &three
        && e.truth != Truth::Unknown
        && let Ok(k) = tristate(tree, filled, profile)
    {
        assert_eq!(
            k.truth, e.truth,
            "{tree}: known result {e:?} under {env:?} changes to {k:?} under {filled:?}"
        );
    }
}
