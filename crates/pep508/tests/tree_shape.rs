//! The shape of a parsed marker: it remembers its dialect and profile, constants are values
//! that print and read back, and `and`/`or` keep at least two children.

use markerspec_pep508::{
    Dialect, Environment, Field, MarkerNode, MarkerTree, ParseOptions, Profile, Requirement,
};

fn parse(text: &str, profile: Profile) -> MarkerTree {
    let opts = ParseOptions::default().profile(profile);
    MarkerTree::parse_with(text, &opts, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{profile}: {text}: {}", e.render(text)))
}

#[test]
fn a_marker_evaluates_under_the_profile_it_was_parsed_with() {
    let env = Environment::new()
        .with(Field::PythonVersion, "3.11")
        .unwrap();
    let text = r#"python_version in "3.10 3.11""#;
    // packaging: a substring test; spec-2026: `in` on a version is false.
    assert!(parse(text, Profile::Packaging).evaluate(&env).unwrap());
    assert!(!parse(text, Profile::Spec2026).evaluate(&env).unwrap());
    // uv: membership in a list of versions, read against python_full_version.
    let env = env.with(Field::PythonFullVersion, "3.11.4").unwrap();
    assert!(parse(text, Profile::Uv).evaluate(&env).unwrap());
    let m = parse(text, Profile::Packaging);
    assert_eq!(
        (m.profile(), m.dialect()),
        (Profile::Packaging, Dialect::Pep508)
    );
}

#[test]
fn constants_print_and_read_back() {
    // packaging has no constants and rejects the words, as packaging does; it never parses a
    // marker into one, so its printed forms read back too.
    let packaging = ParseOptions::default().profile(Profile::Packaging);
    assert!(MarkerTree::parse_with("true", &packaging, &mut |_| {}).is_err());
    for profile in [Profile::Spec2026, Profile::Uv] {
        for (tree, text) in [(MarkerTree::TRUE, "true"), (MarkerTree::FALSE, "false")] {
            assert_eq!(tree.to_string(), text);
            let again = parse(text, profile);
            assert_eq!(again, tree, "{profile}");
            assert_eq!(again.profile(), profile);
            assert_eq!(again.evaluate(&Environment::new()).unwrap(), text == "true");
        }
        // Only as the whole marker: inside a chain, `true` is not a variable.
        let opts = ParseOptions::default().profile(profile);
        assert!(MarkerTree::parse_with("true and os_name == 'nt'", &opts, &mut |_| {}).is_err());
    }
}

#[test]
fn a_uv_marker_whose_comparisons_were_all_dropped_is_true() {
    let m = parse(r#"python_version == "not a version""#, Profile::Uv);
    assert!(m.is_true());
    assert_eq!(m.to_string(), "true");
    assert_eq!(parse(&m.to_string(), Profile::Uv), m);
    // A dropped comparison leaves its chain, in `or` too.
    let m = parse(r#"python_version == "abc" or os_name == "nt""#, Profile::Uv);
    assert_eq!(m.to_string(), r#"os_name == "nt""#);
    // A requirement whose marker always holds has none.
    let opts = ParseOptions::default().profile(Profile::Uv);
    let r = Requirement::parse_with(r#"foo; python_version == "abc""#, &opts, &mut |_| {}).unwrap();
    assert!(r.marker().is_none());
    assert_eq!(r.to_string(), "foo");
}

#[test]
fn and_or_fold_constants_and_stay_flat() {
    let a: MarkerTree = "os_name == 'nt'".parse().unwrap();
    let b: MarkerTree = "sys_platform == 'win32'".parse().unwrap();
    assert_eq!(a.clone().and(MarkerTree::TRUE), a);
    assert_eq!(a.clone().and(MarkerTree::FALSE), MarkerTree::FALSE);
    assert_eq!(a.clone().or(MarkerTree::TRUE), MarkerTree::TRUE);
    assert_eq!(MarkerTree::FALSE.or(a.clone()), a);
    let abc = a.clone().and(b.clone()).and(a.clone().or(b.clone()));
    let MarkerNode::And(children) = abc.node() else {
        panic!("{abc}")
    };
    assert_eq!(children.len(), 3);
    assert!(matches!(children[2], MarkerNode::Or(_)));
    assert_eq!(abc.children().len(), 3);
}

#[test]
fn extras_lists_the_tested_extras() {
    let m: MarkerTree = r#"extra == "Foo.Bar" or "gpu" == extra and os_name == "nt""#
        .parse()
        .unwrap();
    assert_eq!(m.extras(), ["foo-bar", "gpu"]);
    assert!(MarkerTree::TRUE.extras().is_empty());
}

#[test]
fn built_trees_evaluate_as_their_printed_form() {
    // Trees made by `and`, `or`, `children` and from one comparison carry what the evaluator
    // reads as a parsed tree does: each evaluates as the text it prints, in every environment
    // tried (version comparisons included, whose quoted version is read as a specifier).
    let a = parse("python_version >= '3.10'", Profile::Spec2026);
    let b = parse("os_name == 'nt' or extra == 'gpu'", Profile::Spec2026);
    let c = parse(
        "platform_machine != 'x86_64' and python_version < '3.12'",
        Profile::Spec2026,
    );
    let built = [
        a.clone().and(b.clone()),
        b.clone().or(c.clone()),
        a.clone().and(b.clone()).or(c.clone()),
        c.clone().or(a.clone().and(b.clone())).and(MarkerTree::TRUE),
        a.clone().or(MarkerTree::FALSE),
        a.clone().and(MarkerTree::FALSE),
        b.clone().or(MarkerTree::TRUE),
        MarkerTree::from(c.expressions()[1].clone()),
    ];
    let mut trees: Vec<MarkerTree> = built.to_vec();
    for t in &built {
        trees.extend(t.children());
    }
    let mut held = [0usize; 2];
    for version in ["3.9", "3.11", "3.12"] {
        for os in ["nt", "posix"] {
            for machine in ["x86_64", "aarch64"] {
                let env = Environment::new()
                    .with(Field::PythonVersion, version)
                    .and_then(|e| e.with(Field::OsName, os))
                    .and_then(|e| e.with(Field::PlatformMachine, machine))
                    .unwrap();
                for extras in [&[][..], &["gpu"][..]] {
                    for t in &trees {
                        let text = t.to_string();
                        let printed = parse(&text, Profile::Spec2026);
                        let got = t.evaluate_with_extras(&env, extras).unwrap();
                        assert_eq!(
                            got,
                            printed.evaluate_with_extras(&env, extras).unwrap(),
                            "{text} with {version} {os} {machine} {extras:?}"
                        );
                        held[usize::from(got)] += 1;
                    }
                }
            }
        }
    }
    assert!(held[0] > 0 && held[1] > 0, "both results occur: {held:?}");
}

#[test]
fn a_constant_decides_a_built_tree_even_under_packaging() {
    // `m and false` is the constant `false`, and evaluates as it prints, even where `m` alone
    // fails to evaluate (packaging evaluates every comparison of a tree, and `~=` is not
    // defined on strings there).
    let env = Environment::new().with(Field::OsName, "posix").unwrap();
    let m = parse(r#"os_name ~= "1.0""#, Profile::Packaging);
    assert_eq!(m.evaluate(&env).unwrap_err().code(), "E002");
    let f = m.clone().and(MarkerTree::FALSE);
    assert!(f.is_false());
    assert!(!f.evaluate(&env).unwrap());
    let t = m.clone().or(MarkerTree::TRUE);
    assert!(t.is_true());
    assert!(t.evaluate(&env).unwrap());
    // Without a constant the comparison is kept, and still fails.
    let both = m
        .clone()
        .and(parse("os_name == 'posix'", Profile::Packaging));
    assert_eq!(both.evaluate(&env).unwrap_err().code(), "E002");
}
