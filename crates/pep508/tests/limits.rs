//! Hostile input is harmless: deep nesting, huge inputs and long strings give coded errors,
//! never a stack overflow, on a thread with a 256 KiB stack.

use markerspec_pep508::{Environment, Field, MarkerTree, ParseOptions, Requirement};

const SMALL_STACK: usize = 256 * 1024;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the parser must not overflow a 256 KiB stack")
}

#[test]
fn hundred_thousand_open_parens_is_an_error() {
    let code = on_small_stack(|| {
        let text = format!(
            "{}os_name == 'nt'{}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let marker = text.parse::<MarkerTree>().unwrap_err();
        let req = format!("pkg; {text}").parse::<Requirement>().unwrap_err();
        (marker.code(), req.code(), marker.span().start)
    });
    assert_eq!(code, ("L002", "L002", 200));
}

#[test]
fn unbounded_nesting_limit_still_parses_iteratively() {
    // With the limit lifted, 100,000 redundant parentheses parse (to one comparison) without
    // recursion; the tree stays flat.
    let m = on_small_stack(|| {
        let text = format!(
            "{}os_name == 'nt'{}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let opts = ParseOptions::default()
            .max_nesting(usize::MAX)
            .max_input_len(usize::MAX);
        MarkerTree::parse_with(&text, &opts, &mut |_| {}).map(|m| m.to_string())
    });
    assert_eq!(m.unwrap(), r#"os_name == "nt""#);
}

#[test]
fn deepest_allowed_alternating_tree_is_safe_to_use() {
    // 200 levels of alternating and/or: the deepest tree the default options allow, once with
    // `or` innermost and once with `and` innermost.
    on_small_stack(|| {
        for first in ["or", "and"] {
            let op = |i: usize| match (first, i % 2) {
                ("or", 0) | ("and", 1) => "or",
                _ => "and",
            };
            let mut text = String::from("os_name == 'nt'");
            for i in 0..200 {
                text = format!("os_name == 'x{i}' {} ({text})", op(i));
            }
            let m: MarkerTree = text.parse().unwrap();
            // The same tree evaluated by hand, innermost first.
            let expected = |os: &str| {
                (0..200).fold(os == "nt", |inner, i| {
                    let here = os == format!("x{i}");
                    if op(i) == "or" {
                        here || inner
                    } else {
                        here && inner
                    }
                })
            };
            let mut outcomes = Vec::new();
            for os in ["nt", "x0", "x1", "x198", "x199", "posix"] {
                let env = Environment::new().with_unchecked(Field::OsName, os);
                let got = m.evaluate(&env).unwrap();
                assert_eq!(got, expected(os), "{first} innermost, os_name = {os}");
                outcomes.push(got);
            }
            // With `or` at the top (`and` innermost), `x199` holds; every other value fails
            // at some `and` on its way up.
            assert_eq!(
                outcomes.contains(&true),
                first == "and",
                "{first} innermost"
            );
            let again: MarkerTree = m.to_string().parse().unwrap();
            assert_eq!(again, m);
        }
    });
}

#[test]
fn ten_megabyte_input_is_an_error() {
    let codes = on_small_stack(|| {
        let big = "a".repeat(10 << 20);
        let as_name = big.parse::<Requirement>().unwrap_err().code();
        let as_marker = format!("os_name == '{big}'")
            .parse::<MarkerTree>()
            .unwrap_err()
            .code();
        (as_name, as_marker)
    });
    assert_eq!(codes, ("L001", "L001"));
}

#[test]
fn long_string_and_many_clauses_have_their_own_codes() {
    let opts = ParseOptions::default().max_string_len(8).max_clauses(3);
    let e = MarkerTree::parse_with("os_name == '123456789'", &opts, &mut |_| {}).unwrap_err();
    assert_eq!(e.code(), "L004");
    let e = MarkerTree::parse_with(
        "os_name == 'a' or os_name == 'b' or os_name == 'c' or os_name == 'd'",
        &opts,
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(e.code(), "L003");
    assert_eq!(e.span().start, 54);
}

#[test]
fn limits_are_inclusive() {
    let text = format!("{}os_name == 'nt'{}", "(".repeat(200), ")".repeat(200));
    assert!(text.parse::<MarkerTree>().is_ok());
    let opts = ParseOptions::default().max_input_len(text.len());
    assert!(MarkerTree::parse_with(&text, &opts, &mut |_| {}).is_ok());
    let opts = ParseOptions::default().max_input_len(text.len() - 1);
    assert_eq!(
        MarkerTree::parse_with(&text, &opts, &mut |_| {})
            .unwrap_err()
            .code(),
        "L001"
    );
}

#[test]
fn repeated_extras_collapse_keeping_the_first_spelling() {
    let r: Requirement = "pkg[b,a,b,A,a]".parse().unwrap();
    let extras: Vec<&str> = r.extras().iter().map(|e| e.as_str()).collect();
    assert_eq!(extras, ["b", "a", "A"]);
    // Past the small-list path, the same rule.
    let many: Vec<String> = (0..40).map(|i| format!("e{}", i % 20)).collect();
    let r: Requirement = format!("pkg[{}]", many.join(",")).parse().unwrap();
    assert_eq!(r.extras().len(), 20);
    assert_eq!(r.extras()[19].as_str(), "e19");
}

#[test]
fn long_lists_of_distinct_extras_and_specifiers_round_trip() {
    // Found by the fuzzer's scaling probe: both used to cost time quadratic in their length.
    let extras: Vec<String> = (0..20_000).map(|i| format!("e{i}")).collect();
    let r: Requirement = format!("pkg[{}]", extras.join(",")).parse().unwrap();
    assert_eq!(r.extras().len(), 20_000);
    assert_eq!(r.to_string().parse::<Requirement>().unwrap(), r);
    let specs: Vec<String> = (0..20_000).map(|i| format!("!={i}")).collect();
    let r: Requirement = format!("pkg{}", specs.join(",")).parse().unwrap();
    assert_eq!(r.to_string().parse::<Requirement>().unwrap(), r);
}

#[test]
fn a_tree_nested_past_the_default_limit_parses_on_a_small_stack() {
    // With the nesting limit lifted, 2,000 levels of alternating and/or parse on a 256 KiB
    // stack: the parser keeps an explicit stack, and so does the lowering of the tree for the
    // evaluator once it is deeper than a few dozen levels. (Printing, evaluating and dropping
    // such a tree recurse; it is dropped here, on the test's own thread.)
    let depth = 2_000;
    let m = on_small_stack(move || {
        let mut text = String::from("os_name == 'nt'");
        for i in 0..depth {
            let op = if i % 2 == 0 { "and" } else { "or" };
            text = format!("os_name == 'x{i}' {op} ({text})");
        }
        let opts = ParseOptions::default()
            .max_nesting(usize::MAX)
            .max_input_len(usize::MAX);
        MarkerTree::parse_with(&text, &opts, &mut |_| {}).map_err(|e| e.code())
    })
    .unwrap();
    assert_eq!(m.expressions().len(), depth + 1);
}
