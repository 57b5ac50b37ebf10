//! Bytes → UTF-8 → `MarkerTree::parse_with` in both dialects and every behaviour profile,
//! with and without lock-file context (`markerspec_fuzz::configs`).
//!
//! Checks: no panic; errors have a span inside the input on character boundaries, a known
//! code and a rendering; on success `parse(display(m)) == m`, display is idempotent, and the
//! reparsed tree evaluates as the original under a fixed environment; a `spec-2026` marker
//! evaluates without error; the dialects agree on markers that read only standard fields, and
//! lock-file context only adds; `MarkerTree::parse_into` (no tree built) gives what the tree
//! gives through `build_into`, with the same error and warnings; linear CPU time.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use markerspec_fuzz::{
    Config, MAX_INPUT, check_configs, check_error, check_warnings, configs, known_marker_bug,
    options, reads_extended_field, within_budget,
};
use markerspec_pep508::{
    EnvValue, Environment, Field, FieldType, MarkerBuilder, MarkerExpression, MarkerTree, Profile,
};

/// A marker as a flat boolean expression (nested chains of one kind spliced: the stream and
/// the tree may nest them differently).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    Comparison(String),
    Constant(bool),
    And(Vec<Shape>),
    Or(Vec<Shape>),
}

struct Shapes;

impl MarkerBuilder for Shapes {
    type Value = Shape;
    fn comparison(&mut self, expr: &MarkerExpression) -> Shape {
        Shape::Comparison(expr.to_string())
    }
    fn constant(&mut self, value: bool) -> Shape {
        Shape::Constant(value)
    }
    fn and(&mut self, operands: &mut [Shape]) -> Shape {
        flatten(operands, true)
    }
    fn or(&mut self, operands: &mut [Shape]) -> Shape {
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

fn environment() -> &'static Environment {
    static ENV: OnceLock<Environment> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new()
            .with_unchecked(Field::OsName, "posix")
            .with_unchecked(Field::SysPlatform, "linux")
            .with_unchecked(Field::PlatformMachine, "x86_64")
            .with_unchecked(Field::PlatformPythonImplementation, "CPython")
            .with_unchecked(Field::PlatformRelease, "6.5.0")
            .with_unchecked(Field::PlatformSystem, "Linux")
            .with_unchecked(Field::PlatformVersion, "#1 SMP")
            .with_unchecked(Field::PythonVersion, "3.12")
            .with_unchecked(Field::PythonFullVersion, "3.12.1")
            .with_unchecked(Field::ImplementationName, "cpython")
            .with_unchecked(Field::ImplementationVersion, "3.12.1")
            .with_unchecked(Field::CudaVersion, "12.4")
            .with_unchecked(Field::GlibcVersion, "2.35")
            .with_extras(["test"]);
        for &f in Field::ALL {
            if f.field_type() == FieldType::Set {
                let _ = env.set(f, EnvValue::Set(vec!["cuda".into(), "test".into()]));
            }
        }
        env
    })
}

fn parse(text: &str, config: Config) -> Option<MarkerTree> {
    let opts = options(config);
    let env = environment();
    let mut warnings = Vec::new();
    let result = MarkerTree::parse_with(text, &opts, &mut warnings);
    check_warnings(&warnings, text);
    let mut streamed_warnings = Vec::new();
    let streamed = MarkerTree::parse_into(text, &opts, &mut streamed_warnings, &mut Shapes);
    assert_eq!(
        streamed,
        result
            .as_ref()
            .map(|t| t.build_into(&mut Shapes))
            .map_err(Clone::clone),
        "{config}: {text:?} streams to another value or error than its tree"
    );
    assert_eq!(
        format!("{streamed_warnings:?}"),
        format!("{warnings:?}"),
        "{config}: {text:?} warns otherwise when streamed"
    );
    match result {
        Ok(tree) => {
            let shown = tree.to_string();
            if known_marker_bug(&tree, config).is_some() {
                return Some(tree);
            }
            let again =
                MarkerTree::parse_with(&shown, &opts, &mut Vec::new()).unwrap_or_else(|e| {
                    panic!("{config}: {text:?} displays as {shown:?}, which fails: {e:?}")
                });
            assert_eq!(
                tree, again,
                "{config}: {text:?} displays as {shown:?}, which parses to another tree"
            );
            assert_eq!(
                again.to_string(),
                shown,
                "{config}: display is not idempotent for {text:?}"
            );
            let a = tree.evaluate_tristate(env);
            let b = again.evaluate_tristate(env);
            assert_eq!(
                a.as_ref().map_err(|e| e.code()),
                b.as_ref().map_err(|e| e.code()),
                "{config}: {text:?} and {shown:?} evaluate differently"
            );
            if config.profile == Profile::Spec2026 {
                assert!(
                    a.is_ok(),
                    "{config}: {text:?} parses but fails to evaluate: {a:?}"
                );
            }
            Some(tree)
        }
        Err(err) => {
            check_error(&err, text);
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let configs = configs();
    // Every configuration parses, prints and reparses the input: budget each pass.
    within_budget("parse_marker", data.len() * configs.len(), || {
        let results: Vec<_> = configs.iter().map(|&config| parse(text, config)).collect();
        check_configs(text, &configs, &results, reads_extended_field);
    });
});
