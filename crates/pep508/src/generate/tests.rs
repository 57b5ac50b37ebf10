use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};

use super::*;
use crate::{Field, MarkerOperator, MarkerTree, Requirement};

fn bytes(seed: u64) -> Vec<u8> {
    seeded_bytes(seed, 2048)
}

#[test]
fn seeded_bytes_are_fixed() {
    // Part of the output contract of `markerspec generate --seed`: never changes.
    assert_eq!(
        seeded_bytes(0, 8),
        0xE220_A839_7B1D_CDAFu64.to_le_bytes().to_vec()
    );
    assert_eq!(seeded_bytes(5, 100), seeded_bytes(5, 100));
    assert_ne!(seeded_bytes(5, 16), seeded_bytes(6, 16));
}

#[test]
fn valid_markers_parse_under_spec_and_packaging_in_both_dialects() {
    for dialect in [Dialect::Pep508, Dialect::Extended] {
        for lock_file in [false, true] {
            let options = Options::valid().dialect(dialect).lock_file(lock_file);
            for seed in 0..400 {
                let b = bytes(seed);
                let case = marker(&mut Unstructured::new(&b), &options).unwrap();
                for profile in [Profile::Spec2026, Profile::Packaging] {
                    let parsed = MarkerTree::parse_with(
                        &case.text,
                        &options.parse_options(profile),
                        &mut |_| {},
                    );
                    assert!(
                        parsed.is_ok(),
                        "{dialect}/{profile}: {:?}: {parsed:?}",
                        case.text
                    );
                }
                assert!(!case.text.contains(['\n', '\r']), "{:?}", case.text);
                if dialect == Dialect::Pep508 {
                    assert!(!case.uses_extended, "{:?}", case.text);
                }
            }
        }
    }
}

#[test]
fn valid_markers_parse_to_the_expected_tree() {
    let options = Options::valid();
    let mut compared = 0;
    for seed in 0..300 {
        let b = bytes(seed);
        let case = marker(&mut Unstructured::new(&b), &options).unwrap();
        let tree = MarkerTree::parse_with(
            &case.text,
            &options.parse_options(Profile::Spec2026),
            &mut |_| {},
        )
        .unwrap();
        if let Some(expected) = &case.expected {
            assert_eq!(&tree, expected, "{:?}", case.text);
            compared += 1;
        }
    }
    assert!(compared > 250, "only {compared} trees compared");
}

/// Under `packaging` the generated markers (redundant parentheses included) keep their groups;
/// spliced in, the tree is the AST's, and the printed form reads back to the same groups.
#[test]
fn valid_markers_under_packaging_keep_their_groups() {
    let options = Options::valid();
    let (mut compared, mut grouped) = (0, 0);
    for seed in 0..300 {
        let b = bytes(seed);
        let case = marker(&mut Unstructured::new(&b), &options).unwrap();
        let opts = options.parse_options(Profile::Packaging);
        let Ok(tree) = MarkerTree::parse_with(&case.text, &opts, &mut |_| {}) else {
            continue;
        };
        let again = MarkerTree::parse_with(&tree.to_string(), &opts, &mut |_| {}).unwrap();
        assert_eq!(again, tree, "{:?} prints as {tree}", case.text);
        if let Some(expected) = &case.expected {
            assert_eq!(&tree.without_groups(), expected, "{:?}", case.text);
            compared += 1;
            grouped += usize::from(tree != *expected);
        }
    }
    assert!(
        compared > 250 && grouped > 10,
        "{compared} trees compared, {grouped} with kept groups"
    );
}

#[test]
fn valid_markers_use_every_standard_field_and_operator() {
    let options = Options::valid();
    let mut fields = BTreeSet::new();
    let mut ops = BTreeSet::new();
    let mut aliases = 0;
    for seed in 0..600 {
        let b = bytes(seed);
        let case = marker(&mut Unstructured::new(&b), &options).unwrap();
        let tree = case.text.parse::<MarkerTree>().unwrap();
        fields.extend(tree.fields());
        for e in tree.expressions() {
            ops.insert(e.op.as_str());
        }
        aliases += usize::from(
            case.text.contains("os.name") || case.text.contains("python_implementation"),
        );
    }
    let standard: BTreeSet<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|f| !f.is_extended() && !matches!(f, Field::Extras | Field::DependencyGroups))
        .collect();
    assert_eq!(fields, standard);
    let all_ops: BTreeSet<&str> = [
        MarkerOperator::Equal,
        MarkerOperator::NotEqual,
        MarkerOperator::LessThan,
        MarkerOperator::LessThanEqual,
        MarkerOperator::GreaterThan,
        MarkerOperator::GreaterThanEqual,
        MarkerOperator::TildeEqual,
        MarkerOperator::ExactEqual,
        MarkerOperator::In,
        MarkerOperator::NotIn,
    ]
    .iter()
    .map(|o| o.as_str())
    .collect();
    assert_eq!(ops, all_ops);
    assert!(aliases > 0);
}

#[test]
fn valid_requirements_parse_and_use_every_part() {
    let options = Options::valid();
    let (mut urls, mut extras, mut markers, mut specs) = (0, 0, 0, 0);
    for seed in 0..500 {
        let b = bytes(seed);
        let text = requirement(&mut Unstructured::new(&b), &options).unwrap();
        let r = Requirement::parse_with(
            &text,
            &options.parse_options(Profile::Packaging),
            &mut |_| {},
        );
        let r = r.unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        urls += usize::from(matches!(
            r.version_or_url(),
            Some(crate::VersionOrUrl::Url(_))
        ));
        specs += usize::from(matches!(
            r.version_or_url(),
            Some(crate::VersionOrUrl::Specifiers(_))
        ));
        extras += usize::from(!r.extras().is_empty());
        markers += usize::from(r.marker().is_some());
    }
    assert!(
        urls > 20 && extras > 50 && markers > 150 && specs > 150,
        "{urls} {extras} {markers} {specs}"
    );
}

#[test]
fn near_misses_are_one_edit_away_and_mostly_rejected() {
    let options = Options::valid();
    let mut seen = BTreeSet::new();
    let mut rejected = 0;
    let n = 1500;
    for seed in 0..n {
        let b = bytes(seed);
        let mut u = Unstructured::new(&b);
        let text = if seed % 2 == 0 {
            marker(&mut u, &options).unwrap().text
        } else {
            requirement(&mut u, &options).unwrap()
        };
        let miss = near_miss(&mut u, &text).unwrap();
        assert_ne!(miss.text, text);
        seen.insert(miss.mutation);
        let ok = if seed % 2 == 0 {
            miss.text.parse::<MarkerTree>().is_ok()
        } else {
            miss.text.parse::<Requirement>().is_ok()
        };
        rejected += usize::from(!ok);
    }
    let all: BTreeSet<Mutation> = Mutation::ALL.iter().copied().collect();
    assert_eq!(seen, all, "mutations never applied");
    assert!(
        rejected * 2 > n as usize,
        "only {rejected} of {n} near misses rejected"
    );
}

#[test]
fn fuzz_options_reach_the_odd_corners() {
    let options = Options::fuzz().dialect(Dialect::Extended);
    let (mut backslash, mut two_fields, mut rejected) = (0, 0, 0);
    for seed in 0..500 {
        let b = bytes(seed);
        let case = marker(&mut Unstructured::new(&b), &options).unwrap();
        backslash += usize::from(case.text.contains('\\'));
        two_fields += usize::from(case.expected.is_none() || !case.must_parse);
        rejected += usize::from(case.text.parse::<MarkerTree>().is_err());
        if case.must_parse {
            assert!(case.text.parse::<MarkerTree>().is_ok(), "{:?}", case.text);
        }
    }
    assert!(
        backslash > 0 && two_fields > 0 && rejected > 0,
        "{backslash} {two_fields} {rejected}"
    );
}

#[test]
fn arbitrary_values_print_to_text_the_parser_reads() {
    for seed in 0..300 {
        let b = bytes(seed);
        let mut u = Unstructured::new(&b);
        let tree = MarkerTree::arbitrary(&mut u).unwrap();
        let opts = crate::ParseOptions::default().dialect(Dialect::Extended);
        let shown = tree.to_string();
        assert!(
            MarkerTree::parse_with(&shown, &opts, &mut |_| {}).is_ok(),
            "{shown:?}"
        );
        let r = Requirement::arbitrary(&mut u).unwrap();
        assert!(r.to_string().parse::<Requirement>().is_ok(), "{r}");
        let env = crate::Environment::arbitrary(&mut u).unwrap();
        let _ = tree.evaluate(&env);
        let v = crate::pep440::Version::arbitrary(&mut u).unwrap();
        assert_eq!(v.to_string().parse::<crate::pep440::Version>().unwrap(), v);
    }
}

#[test]
fn realistic_environments_give_every_standard_field() {
    for seed in 0..100 {
        let b = bytes(seed);
        let env = realistic_environment(
            &mut Unstructured::new(&b),
            &Options::valid().dialect(Dialect::Extended),
            &[],
        )
        .unwrap();
        let lock_file = [Field::Extras, Field::DependencyGroups];
        for f in Field::ALL
            .iter()
            .filter(|f| !f.is_extended() && **f != Field::Extra)
        {
            // The lock-file fields only in lock-file context.
            assert_eq!(env.get(*f).is_some(), !lock_file.contains(f), "{f}");
        }
        let env = realistic_environment(
            &mut Unstructured::new(&b),
            &Options::valid().lock_file(true),
            &[],
        )
        .unwrap();
        assert!(lock_file.iter().all(|f| env.get(*f).is_some()));
        assert!(
            env.iter().all(|(f, _)| !f.is_extended()),
            "extended fields in pep508"
        );
    }
}
