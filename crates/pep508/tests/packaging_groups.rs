//! The `packaging` profile prints parenthesised groups as pypa/packaging 26.4's
//! `_format_marker` does: a group of two or more comparisons keeps its parentheses wherever it
//! is not the whole marker, a group around one comparison and a group that is the whole marker
//! lose them. The expected forms below are what packaging 26.4 printed for the same inputs
//! (`str(Marker(s))`, `str(Requirement(s))`). The other profiles keep printing the flat form.

use markerspec_pep508::{MarkerNode, MarkerTree, ParseOptions, Profile, Requirement};

/// `A`..`D` stand for four comparisons, in the notation of the tables below.
const ATOMS: [(&str, &str, &str); 4] = [
    ("A", "os_name == 'nt'", r#"os_name == "nt""#),
    ("B", "python_version >= '3.9'", r#"python_version >= "3.9""#),
    ("C", "extra == 'gpu'", r#"extra == "gpu""#),
    ("D", "sys_platform != 'win32'", r#"sys_platform != "win32""#),
];

/// The input with each letter replaced by its comparison as written.
fn expand(short: &str) -> String {
    ATOMS.iter().fold(short.to_string(), |s, (k, written, _)| {
        s.replace(k, written)
    })
}

/// A printed form with each comparison replaced by its letter.
fn shorten(printed: &str) -> String {
    ATOMS
        .iter()
        .fold(printed.to_string(), |s, (k, _, shown)| s.replace(shown, k))
}

fn parse(profile: Profile, text: &str) -> MarkerTree {
    let opts = ParseOptions::default().profile(profile);
    MarkerTree::parse_with(text, &opts, &mut |_| {})
        .unwrap_or_else(|e| panic!("{text:?} under {profile:?}: {e}"))
}

/// (input, packaging 26.4's printed form, markerspec's `spec-2026` printed form).
const MARKERS: &[(&str, &str, &str)] = &[
    // No groups: as written.
    ("A and B or C", "A and B or C", "A and B or C"),
    ("A or B and C", "A or B and C", "A or B and C"),
    // A group that precedence makes redundant keeps its parentheses.
    ("(A and B) or C", "(A and B) or C", "A and B or C"),
    ("(A and B) and C", "(A and B) and C", "A and B and C"),
    ("A and (B and C)", "A and (B and C)", "A and B and C"),
    ("(A or B) or C", "(A or B) or C", "A or B or C"),
    ("A or (B or C)", "A or (B or C)", "A or B or C"),
    (
        "A or ((B and C)) or D",
        "A or (B and C) or D",
        "A or B and C or D",
    ),
    // A needed group, however many parentheses it had.
    ("A and (B or C)", "A and (B or C)", "A and (B or C)"),
    ("A and ((B or C))", "A and (B or C)", "A and (B or C)"),
    // A group around one comparison loses its parentheses.
    ("(A) and B", "A and B", "A and B"),
    ("A or (B)", "A or B", "A or B"),
    ("((A))", "A", "A"),
    ("((A) and B)", "A and B", "A and B"),
    ("((A) or (B))", "A or B", "A or B"),
    // The whole marker as a group loses its parentheses, its inner groups keep theirs.
    ("(A and B)", "A and B", "A and B"),
    ("((A and B))", "A and B", "A and B"),
    ("(((A and B)) or C)", "(A and B) or C", "A and B or C"),
    (
        "(A or (B and (C or D)))",
        "A or (B and (C or D))",
        "A or B and (C or D)",
    ),
    // Nested groups, mixed chains inside groups.
    (
        "((A and B) and C) and D",
        "((A and B) and C) and D",
        "A and B and C and D",
    ),
    (
        "(A and (B and (C and D)))",
        "A and (B and (C and D))",
        "A and B and C and D",
    ),
    (
        "(A or B and C) or D",
        "(A or B and C) or D",
        "A or B and C or D",
    ),
    (
        "A and (B or C and D)",
        "A and (B or C and D)",
        "A and (B or C and D)",
    ),
];

#[test]
fn markers_print_as_packaging_does() {
    for (input, packaging, spec) in MARKERS {
        let text = expand(input);
        let m = parse(Profile::Packaging, &text);
        assert_eq!(shorten(&m.to_string()), *packaging, "packaging: {input}");
        for profile in [Profile::Spec2026, Profile::Uv] {
            let m = parse(profile, &text);
            assert_eq!(shorten(&m.to_string()), *spec, "{profile:?}: {input}");
        }
    }
}

/// Without its kept groups, a `packaging` tree is the tree `spec-2026` reads from the same text.
#[test]
fn without_groups_is_the_flat_tree() {
    for (input, _, spec) in MARKERS {
        let text = expand(input);
        let flat = parse(Profile::Packaging, &text).without_groups();
        assert_eq!(flat, parse(Profile::Spec2026, &text), "{input}");
        assert_eq!(shorten(&flat.to_string()), *spec, "{input}");
        assert_eq!(flat.profile(), Profile::Packaging);
    }
}

#[test]
fn printed_groups_read_back_to_the_same_tree() {
    for (input, _, _) in MARKERS {
        let m = parse(Profile::Packaging, &expand(input));
        let printed = m.to_string();
        let again = parse(Profile::Packaging, &printed);
        assert_eq!(again, m, "{input}");
        assert_eq!(again.to_string(), printed, "{input}");
    }
}

#[test]
fn requirements_print_their_marker_groups_as_packaging_does() {
    let cases = [
        ("pkg; (A and B) or C", "pkg; (A and B) or C"),
        ("pkg[x]>=1; ((A))", "pkg[x]>=1; A"),
        ("pkg;(A and B)", "pkg; A and B"),
        (
            "pkg @ https://e.com/p.whl ; (A or B) and (C or D)",
            "pkg @ https://e.com/p.whl ; (A or B) and (C or D)",
        ),
        ("pkg; A or (B and C)", "pkg; A or (B and C)"),
    ];
    let opts = ParseOptions::default().profile(Profile::Packaging);
    for (input, packaging) in cases {
        let r = Requirement::parse_with(&expand(input), &opts, &mut |_| {}).unwrap();
        assert_eq!(shorten(&r.to_string()), packaging, "{input}");
    }
    let r: Requirement = expand("pkg; (A and B) or C").parse().unwrap();
    assert_eq!(shorten(&r.to_string()), "pkg; A and B or C");
}

/// The tree keeps a group as a node of its own, marked, even inside a parent of its kind.
#[test]
fn groups_are_kept_in_the_tree() {
    let m = parse(Profile::Packaging, &expand("(A and B) and C"));
    let MarkerNode::And(children) = m.node() else {
        panic!("an `and`: {m}")
    };
    assert!(!children.is_group());
    assert_eq!(children.len(), 2);
    let MarkerNode::And(group) = &children[0] else {
        panic!("a group first: {m}")
    };
    assert!(group.is_group());
    assert_eq!(group.len(), 2);
    // Under the default profile the same input is one flat chain, with no group.
    let flat = parse(Profile::Spec2026, &expand("(A and B) and C"));
    let MarkerNode::And(children) = flat.node() else {
        panic!("an `and`: {flat}")
    };
    assert_eq!(children.len(), 3);
    assert!(!children.is_group());
    // The whole marker as a group is no group: it prints, and compares, as without its
    // parentheses.
    let whole = parse(Profile::Packaging, &expand("((A or B))"));
    assert!(matches!(whole.node(), MarkerNode::Or(c) if !c.is_group()));
    assert_eq!(whole, parse(Profile::Packaging, &expand("A or B")));
    // Groups are part of equality, as packaging's equality compares printed forms.
    assert_ne!(
        parse(Profile::Packaging, &expand("(A and B) or C")),
        parse(Profile::Packaging, &expand("A and B or C"))
    );
    assert_eq!(
        parse(Profile::Spec2026, &expand("(A and B) or C")),
        parse(Profile::Spec2026, &expand("A and B or C"))
    );
}

/// `and` / `or` of two markers under `packaging` print as packaging's `Marker.__and__` /
/// `__or__` do: a side whose top level uses only the joining operator is spliced in, any other
/// side becomes a group.
#[test]
fn combined_markers_print_as_packaging_joins_them() {
    let cases = [
        ("A and B", '|', "C", "(A and B) or C"),
        ("A or B and C", '|', "D", "(A or B and C) or D"),
        ("A or B", '|', "C or D", "A or B or C or D"),
        ("(A or B)", '|', "C", "A or B or C"),
        ("(A or B) or C", '|', "D", "(A or B) or C or D"),
        ("A and B", '&', "C", "A and B and C"),
        ("A or B", '&', "C", "(A or B) and C"),
        ("(A and B) or C", '&', "D", "((A and B) or C) and D"),
        ("A", '|', "B and C", "A or (B and C)"),
        ("A and (B or C)", '&', "D", "A and (B or C) and D"),
        ("(A and B) and C", '&', "D", "(A and B) and C and D"),
        ("A and B", '&', "C or D", "A and B and (C or D)"),
    ];
    for (lhs, op, rhs, packaging) in cases {
        let l = parse(Profile::Packaging, &expand(lhs));
        let r = parse(Profile::Packaging, &expand(rhs));
        let joined = if op == '&' { l.and(r) } else { l.or(r) };
        assert_eq!(shorten(&joined.to_string()), packaging, "{lhs} {op} {rhs}");
        // What it prints reads back to the same tree.
        assert_eq!(
            parse(Profile::Packaging, &joined.to_string()),
            joined,
            "{lhs} {op} {rhs}"
        );
    }
    // The default profile joins flat.
    let l = parse(Profile::Spec2026, &expand("A and B"));
    let r = parse(Profile::Spec2026, &expand("C"));
    assert_eq!(shorten(&l.or(r).to_string()), "A and B or C");
}

/// 200 levels of groups of one kind (the deepest the default limit allows), which the
/// `packaging` profile keeps as a 200-deep tree: printing, evaluating, comparing and dropping
/// it fit a 512 KiB stack, a quarter of a spawned thread's default, in every build (a debug
/// build with full debug information, `cargo test`'s default, needs more than 256 KiB to
/// evaluate it; release builds need far less).
#[test]
fn deepest_allowed_kept_groups_are_safe_to_use() {
    let result = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            let mut text = String::from("os_name == 'nt'");
            for i in 0..200 {
                text = format!("({text} and os_name != 'x{i}')");
            }
            let text = format!("{text} and os_name != 'y'");
            let m = parse(Profile::Packaging, &text);
            let printed = m.to_string();
            let again = parse(Profile::Packaging, &printed);
            let env = markerspec_pep508::Environment::new()
                .with_unchecked(markerspec_pep508::Field::OsName, "nt");
            (
                printed.matches('(').count(),
                again == m,
                m.evaluate(&env).unwrap(),
            )
        })
        .unwrap()
        .join()
        .expect("a 512 KiB stack is enough");
    assert_eq!(result, (200, true, true));
}

/// The group mark costs the other profiles no memory: an `and` / `or` with its mark is no
/// larger than a comparison, so a tree node is as large as before.
#[test]
fn the_group_mark_does_not_grow_a_node() {
    use markerspec_pep508::{Children, MarkerExpression};
    use std::mem::size_of;
    assert!(size_of::<Children>() < size_of::<MarkerExpression>());
    assert!(size_of::<MarkerNode>() <= size_of::<MarkerExpression>() + 8);
}
