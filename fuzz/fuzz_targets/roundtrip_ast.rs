//! Structure-aware: an arbitrary marker AST (fields, aliases, every operator, versions, odd
//! strings, both quotes, redundant parentheses, spaces and tabs) is printed, parsed and
//! compared with the tree it must give.
//!
//! Checks: in every dialect, profile and context, a marker whose comparisons each hold one
//! standard field (not `extras`/`dependency_groups`) and one plain literal parses, and in the
//! pep508 dialect one with an extended field never does; a marker that parses equals the tree
//! built from the AST (when the generator knows the literals' values; under `packaging`, once
//! its kept groups are spliced in); the canonical display
//! parses back to the same tree and is idempotent. Inputs outside the invariant (a marker the
//! parser may rightly reject) are `Corpus::Reject`.

#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::{Corpus, fuzz_target};
use markerspec_fuzz::{
    MAX_INPUT, MarkerCase, check_error, check_warnings, gen_marker, known_marker_bug, options,
    within_budget,
};
use markerspec_pep508::MarkerTree;

fuzz_target!(|data: &[u8]| -> Corpus {
    if data.len() > MAX_INPUT {
        return Corpus::Reject;
    }
    let mut u = Unstructured::new(data);
    let Ok(case) = gen_marker(&mut u) else {
        return Corpus::Reject;
    };
    within_budget("roundtrip_ast", case.text.len(), || check(&case))
});

fn check(case: &MarkerCase) -> Corpus {
    let opts = options(case.config);
    let mut warnings = Vec::new();
    let parsed = MarkerTree::parse_with(&case.text, &opts, &mut warnings);
    check_warnings(&warnings, &case.text);
    let tree = match parsed {
        Ok(tree) => {
            assert!(
                !case.must_fail,
                "{}: {:?} reads an extended field but parses as {tree}",
                case.config, case.text
            );
            tree
        }
        Err(err) => {
            check_error(&err, &case.text);
            assert!(
                !case.must_parse_here(),
                "{}: {:?} is valid but fails: {}",
                case.config,
                case.text,
                err.render(&case.text)
            );
            return Corpus::Reject;
        }
    };
    if let Some(expected) = case.expect_tree(&warnings) {
        // The AST's tree is flat; the `packaging` profile keeps parenthesised groups.
        assert_eq!(
            &tree.without_groups(),
            expected,
            "{}: {:?} parses to another tree than its AST {:?}",
            case.config,
            case.text,
            case.node
        );
    }
    if known_marker_bug(&tree, case.config).is_some() {
        return Corpus::Keep;
    }
    let shown = tree.to_string();
    let again = MarkerTree::parse_with(&shown, &opts, &mut Vec::new()).unwrap_or_else(|e| {
        panic!(
            "{}: {:?} displays as {shown:?}, which fails: {e:?}",
            case.config, case.text
        )
    });
    assert_eq!(
        tree, again,
        "{}: {:?} displays as {shown:?}, which parses to another tree",
        case.config, case.text
    );
    assert_eq!(again.to_string(), shown, "display is not idempotent");
    Corpus::Keep
}
