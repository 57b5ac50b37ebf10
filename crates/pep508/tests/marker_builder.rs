//! `MarkerTree::parse_into` builds what parsing the tree and `MarkerTree::build_into` build:
//! the same value (up to how chains of one kind nest), the same error and the same warnings,
//! in every profile and dialect.

use markerspec_pep508::{
    Dialect, MarkerBuilder, MarkerExpression, MarkerTree, ParseOptions, Profile, Warning,
};

/// A marker as a flat boolean expression: nested chains of one kind spliced, so that the tree
/// and the stream (which may nest them differently) give equal values.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    Comparison(String),
    Constant(bool),
    And(Vec<Shape>),
    Or(Vec<Shape>),
}

struct Shapes {
    comparisons: usize,
}

impl MarkerBuilder for Shapes {
    type Value = Shape;
    fn comparison(&mut self, expr: &MarkerExpression) -> Shape {
        self.comparisons += 1;
        Shape::Comparison(expr.to_string())
    }
    fn constant(&mut self, value: bool) -> Shape {
        Shape::Constant(value)
    }
    fn and(&mut self, operands: &mut [Shape]) -> Shape {
        assert!(operands.len() >= 2, "a chain of one is its operand");
        flatten(operands, true)
    }
    fn or(&mut self, operands: &mut [Shape]) -> Shape {
        assert!(operands.len() >= 2, "a chain of one is its operand");
        flatten(operands, false)
    }
}

/// The `and` (or `or`) of `operands`, with operands of the same kind spliced in.
fn flatten(operands: &[Shape], and: bool) -> Shape {
    let mut flat = Vec::new();
    for o in operands {
        match (o, and) {
            (Shape::And(inner), true) | (Shape::Or(inner), false) => {
                flat.extend(inner.iter().cloned());
            }
            _ => flat.push(o.clone()),
        }
    }
    if and {
        Shape::And(flat)
    } else {
        Shape::Or(flat)
    }
}

type Outcome = (Result<Shape, String>, Vec<String>);

fn through_the_tree(text: &str, opts: &ParseOptions) -> Outcome {
    let mut warnings: Vec<Warning> = Vec::new();
    let answer = MarkerTree::parse_with(text, opts, &mut warnings)
        .map(|t| t.build_into(&mut Shapes { comparisons: 0 }));
    (
        answer.map_err(|e| format!("{} {:?} {}", e.code(), e.span(), e.message())),
        warnings.iter().map(|w| format!("{w:?}")).collect(),
    )
}

fn streamed(text: &str, opts: &ParseOptions) -> Outcome {
    let mut warnings: Vec<Warning> = Vec::new();
    let answer = MarkerTree::parse_into(text, opts, &mut warnings, &mut Shapes { comparisons: 0 });
    (
        answer.map_err(|e| format!("{} {:?} {}", e.code(), e.span(), e.message())),
        warnings.iter().map(|w| format!("{w:?}")).collect(),
    )
}

const MARKERS: &[&str] = &[
    "os_name == 'nt'",
    "os_name == 'nt' and sys_platform == 'win32'",
    "os_name == 'nt' or sys_platform == 'win32' and extra == 'a'",
    "os_name == 'nt' and (sys_platform == 'win32' and extra == 'a')",
    "(os_name == 'nt' or extra == 'b') and (python_version >= '3.9' or extra == 'c')",
    "((((os_name == 'nt'))))",
    // Chains of four, five and nine operands (the builder keeps up to four in place).
    "os_name == 'nt' and sys_platform == 'win32' and extra == 'a' and python_version >= '3.9'",
    "extra == 'a' or extra == 'b' or extra == 'c' or extra == 'd' or extra == 'e'",
    "extra == 'a' or extra == 'b' or extra == 'c' or extra == 'd' or extra == 'e' or extra == 'f' or extra == 'g' or extra == 'h' or extra == 'i'",
    "os_name == 'nt' and (extra == 'a' or extra == 'b' or extra == 'c' or extra == 'd') and python_version < '4'",
    "(os_name == 'nt' and extra == 'a') or (os_name == 'posix' and (extra == 'b' or extra == 'c'))",
    "true",
    "false",
    "  true  ",
    "true and os_name == 'nt'",
    "",
    "   ",
    "os_name ==",
    "os_name == 'nt' and",
    "(os_name == 'nt'",
    "os_name == 'nt')",
    "os_name == 'nt' xor extra == 'a'",
    "python_version >= '3.9.*'",
    "python_version ~= '3'",
    "extra == 'Foo_Bar'",
    "extra > 'a'",
    "'a' == 'b'",
    "'a' == 'b' and ('x' == 'y')",
    "os_name == 'nt' or 'a' == 'b'",
    "(os_name == 'nt') or (os_name ~= 'a')",
    "os_name == sys_platform",
    "python_version in '3.10 3.11'",
    "'linux' in sys_platform",
    "'cuda' in gpu_backends and cuda_version >= '12'",
    "platform_machine == 'x86_64' and (cuda_version >= '12' or 'gpu' in extras)",
    "python_full_version >= '3.11.0rc1' and implementation_name == 'cpython'",
    // The extended dialect's `unguarded-absent` warning reads the whole tree.
    "cuda_version < '12'",
    "cuda_version != '12' or os_name == 'nt'",
];

#[test]
fn the_stream_builds_what_the_tree_builds() {
    let mut checked = 0;
    for profile in [Profile::Spec2026, Profile::Packaging, Profile::Uv] {
        for dialect in [Dialect::Pep508, Dialect::Extended] {
            let opts = ParseOptions::default().profile(profile).dialect(dialect);
            for text in MARKERS {
                let tree = through_the_tree(text, &opts);
                let stream = streamed(text, &opts);
                assert_eq!(tree, stream, "{text:?} under {profile:?}, {dialect:?}");
                checked += usize::from(tree.0.is_ok());
            }
        }
    }
    // Most of the markers parse in most of the settings: the comparison checks values, not
    // only errors.
    assert!(checked > 100, "{checked}");
    // Warnings are compared too: the extended dialect's checks of the whole tree warn here.
    let opts = ParseOptions::default().dialect(Dialect::Extended);
    let (value, warnings) = streamed("cuda_version < '12'", &opts);
    assert!(
        value.is_ok() && warnings.len() == 1,
        "{value:?} {warnings:?}"
    );
}

/// Under the `uv` profile a marker whose every comparison is dropped is the constant `true`,
/// as its tree is.
#[test]
fn a_marker_with_every_comparison_dropped_is_true() {
    let opts = ParseOptions::default().profile(Profile::Uv);
    let mut b = Shapes { comparisons: 0 };
    let v = MarkerTree::parse_into(
        "'a' == 'b' and ('x' == 'y')",
        &opts,
        &mut Vec::new(),
        &mut b,
    );
    assert_eq!(v, Ok(Shape::Constant(true)));
    assert_eq!(b.comparisons, 0);
}

/// The stream hands over each comparison once, in the order they are written.
#[test]
fn comparisons_arrive_in_order() {
    struct Order(Vec<String>);
    impl MarkerBuilder for Order {
        type Value = ();
        fn comparison(&mut self, expr: &MarkerExpression) {
            self.0.push(expr.to_string());
        }
        fn constant(&mut self, _: bool) {}
        fn and(&mut self, _: &mut [()]) {}
        fn or(&mut self, _: &mut [()]) {}
    }
    let mut order = Order(Vec::new());
    MarkerTree::parse_into(
        "os_name == 'x'",
        &ParseOptions::default(),
        &mut Vec::new(),
        &mut order,
    )
    .unwrap();
    let text = "extra == 'a' or (os_name == 'nt' and python_version < '3.10')";
    MarkerTree::parse_into(text, &ParseOptions::default(), &mut Vec::new(), &mut order).unwrap();
    assert_eq!(
        order.0,
        [
            r#"os_name == "x""#,
            r#"extra == "a""#,
            r#"os_name == "nt""#,
            r#"python_version < "3.10""#
        ]
    );
}
