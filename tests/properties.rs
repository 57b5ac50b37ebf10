//! Property laws over the real grammar (fields × operators × literals, with aliases, both quotes,
//! escapes, odd strings, redundant parentheses and tabs): round trips of markers and
//! requirements, idempotent canonical display, Kleene `and`/`or`, the version order, specifier
//! containment against that order, and three-valued against two-valued evaluation.
//!
//! The fuzz targets in `fuzz/` check the same laws on far more inputs; these run in every
//! `cargo test` and stay under a few seconds.

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use markerspec::pep440::{Operator, Version, VersionSpecifier, VersionSpecifiers};
use markerspec::pep508::{
    Dialect, EnvValue, Environment, EvalOptions, Evaluation, Field, FieldType, MarkerOperator,
    MarkerTree, ParseOptions, Profile, Requirement, Truth,
};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

const ALIASES: &[(&str, Field)] = &[
    ("os.name", Field::OsName),
    ("sys.platform", Field::SysPlatform),
    ("platform.version", Field::PlatformVersion),
    ("platform.machine", Field::PlatformMachine),
    (
        "platform.python_implementation",
        Field::PlatformPythonImplementation,
    ),
    ("python_implementation", Field::PlatformPythonImplementation),
];

const VOCABULARY: &[&str] = &[
    "",
    "posix",
    "nt",
    "linux",
    "win32",
    "darwin",
    "x86_64",
    "AMD64",
    "arm64",
    "CPython",
    "PyPy",
    "cpython",
    "Linux",
    "Windows",
    "3",
    "3.8",
    "3.10",
    "3.12.1",
    "3.14.0rc1",
    "2.7",
    "6.5.0-1025",
    "12.4",
    "535.104.05",
    "2.17",
    "cuda",
    "rocm",
    "gfx90a",
    "cp313t",
    "test",
    "Test_Extra",
    "foo.bar",
    "1.0.*",
    "1!2.0",
    "1.0+local.7",
    " 3.8 ",
    "#1 SMP",
];

const OPERATORS: &[MarkerOperator] = &[
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
];

/// PEP 440 text with the alternative spellings, separators, case and whitespace.
fn version_text() -> impl Strategy<Value = String> {
    let sep = prop::sample::select(vec!["", ".", "-", "_"]);
    (
        prop::option::weighted(0.1, 0u32..3),
        prop::collection::vec(0u32..20, 1..5),
        prop::option::weighted(
            0.3,
            (
                sep.clone(),
                prop::sample::select(vec!["a", "b", "rc", "c", "alpha", "beta", "pre", "RC"]),
                prop::option::of(0u32..9),
            ),
        ),
        prop::option::weighted(0.2, (sep.clone(), prop::option::of(0u32..9))),
        prop::option::weighted(0.2, prop::option::of(0u32..9)),
        prop::option::weighted(0.15, "[a-z0-9]{1,4}([._-][a-z0-9]{1,3}){0,2}"),
        prop::sample::select(vec!["", "", "", " ", ".*", "x"]),
    )
        .prop_map(|(epoch, release, pre, post, dev, local, tail)| {
            let mut s = String::new();
            if let Some(e) = epoch {
                s.push_str(&format!("{e}!"));
            }
            let release: Vec<String> = release.iter().map(u32::to_string).collect();
            s.push_str(&release.join("."));
            if let Some((sep, kind, n)) = pre {
                s.push_str(sep);
                s.push_str(kind);
                if let Some(n) = n {
                    s.push_str(&n.to_string());
                }
            }
            if let Some((sep, n)) = post {
                s.push_str(sep);
                s.push_str("post");
                if let Some(n) = n {
                    s.push_str(&n.to_string());
                }
            }
            if let Some(n) = dev {
                s.push_str(".dev");
                if let Some(n) = n {
                    s.push_str(&n.to_string());
                }
            }
            if let Some(l) = local {
                s.push('+');
                s.push_str(&l);
            }
            s.push_str(tail);
            s
        })
}

/// The text between the quotes of a literal.
fn literal_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => version_text(),
        3 => prop::sample::select(VOCABULARY).prop_map(str::to_string),
        2 => "[a-zA-Z0-9 ._*+!@#:;,/()\\[\\]=<>~-]{0,10}",
        1 => "[a-z\"]{0,6}",
        1 => "[a-z']{0,6}",
        // Escapes, read as Python string literals.
        1 => "([a-z]|\\\\x4[0-9]|\\\\u00e9|\\\\t|\\\\\\\\|\\\\q){0,4}",
        1 => "[é😀\u{a0}\u{85}\u{2028}ßİ\u{301}\u{b}\u{1c} ]{0,5}",
    ]
}

#[derive(Debug, Clone)]
enum Side {
    Field(Field, &'static str),
    Literal(String),
}

#[derive(Debug, Clone)]
enum Ast {
    /// `lhs op rhs`, with whitespace choices.
    Cmp(Side, MarkerOperator, Side, [u8; 2]),
    And(Vec<Ast>, u8),
    Or(Vec<Ast>, u8),
    Paren(Box<Ast>),
}

fn field_side(dialect: Dialect) -> impl Strategy<Value = Side> {
    let fields: Vec<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|f| dialect == Dialect::Extended || !f.is_extended())
        .collect();
    prop_oneof![
        9 => prop::sample::select(fields).prop_map(|f| Side::Field(f, f.name())),
        1 => prop::sample::select(ALIASES).prop_map(|(a, f)| Side::Field(f, a)),
    ]
}

fn comparison(dialect: Dialect) -> impl Strategy<Value = Ast> {
    let op = prop::sample::select(OPERATORS);
    let ws = any::<[u8; 2]>();
    prop_oneof![
        6 => (field_side(dialect), op.clone(), literal_text(), ws)
            .prop_map(|(f, op, l, ws)| Ast::Cmp(f, op, Side::Literal(l), ws)),
        3 => (literal_text(), prop::sample::select(vec![MarkerOperator::In, MarkerOperator::NotIn, MarkerOperator::Equal]), field_side(dialect), ws)
            .prop_map(|(l, op, f, ws)| Ast::Cmp(Side::Literal(l), op, f, ws)),
        1 => (literal_text(), op.clone(), literal_text(), ws)
            .prop_map(|(a, op, b, ws)| Ast::Cmp(Side::Literal(a), op, Side::Literal(b), ws)),
        1 => (field_side(dialect), op, field_side(dialect), ws)
            .prop_map(|(a, op, b, ws)| Ast::Cmp(a, op, b, ws)),
    ]
}

fn ast(dialect: Dialect) -> impl Strategy<Value = Ast> {
    comparison(dialect).prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 2..4), any::<u8>())
                .prop_map(|(c, ws)| Ast::And(c, ws)),
            (prop::collection::vec(inner.clone(), 2..4), any::<u8>())
                .prop_map(|(c, ws)| Ast::Or(c, ws)),
            inner.prop_map(|a| Ast::Paren(Box::new(a))),
        ]
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Appends `wsp*` chosen by `seed`, at least one character where two words would touch.
fn gap(out: &mut String, seed: u8, next: char) {
    let needed = out.chars().last().is_some_and(is_word) && is_word(next);
    let n = match seed % 4 {
        0 if !needed => 0,
        3 => 2,
        _ => 1,
    };
    for i in 0..n {
        out.push(if (seed >> (2 + i)) & 3 == 0 {
            '\t'
        } else {
            ' '
        });
    }
}

fn write_side(out: &mut String, side: &Side) {
    match side {
        Side::Field(_, spelling) => out.push_str(spelling),
        Side::Literal(text) => {
            let q = if text.contains('"') { '\'' } else { '"' };
            out.push(q);
            out.push_str(text);
            out.push(q);
        }
    }
}

fn first_char(ast: &Ast) -> char {
    match ast {
        Ast::Cmp(Side::Field(_, s), ..) => s.chars().next().unwrap_or('x'),
        Ast::Cmp(Side::Literal(t), ..) => {
            if t.contains('"') {
                '\''
            } else {
                '"'
            }
        }
        Ast::And(c, _) | Ast::Or(c, _) => first_char(&c[0]),
        Ast::Paren(_) => '(',
    }
}

fn print(out: &mut String, ast: &Ast, in_and: bool) {
    match ast {
        Ast::Cmp(lhs, op, rhs, ws) => {
            write_side(out, lhs);
            let op_text = op.as_str();
            gap(out, ws[0], op_text.chars().next().unwrap_or('='));
            out.push_str(op_text);
            let next = match rhs {
                Side::Field(_, s) => s.chars().next().unwrap_or('x'),
                Side::Literal(t) if t.contains('"') => '\'',
                Side::Literal(_) => '"',
            };
            gap(out, ws[1], next);
            write_side(out, rhs);
        }
        Ast::And(children, ws) | Ast::Or(children, ws) => {
            let or = matches!(ast, Ast::Or(..));
            if or && in_and {
                out.push('(');
            }
            for (i, c) in children.iter().enumerate() {
                if i > 0 {
                    gap(out, ws.rotate_left(i as u32), 'a');
                    out.push_str(if or { "or" } else { "and" });
                    gap(out, ws.rotate_right(i as u32), first_char(c));
                }
                print(out, c, !or);
            }
            if or && in_and {
                out.push(')');
            }
        }
        Ast::Paren(inner) => {
            out.push('(');
            print(out, inner, false);
            out.push(')');
        }
    }
}

fn text_of(ast: &Ast) -> String {
    let mut s = String::new();
    print(&mut s, ast, false);
    s
}

/// Whether every parser must accept the marker: one standard field (not the lock-file fields)
/// against one plain literal in every comparison. Other markers may be rejected by a dialect,
/// a behaviour profile or a context rule.
fn must_parse(ast: &Ast, config: Config) -> bool {
    let profile = config.profile;
    match ast {
        // uv has no `===` marker operator.
        Ast::Cmp(_, MarkerOperator::ExactEqual, _, _) if profile == Profile::Uv => false,
        Ast::Cmp(lhs, _, rhs, _) => {
            let (field, literal) = match (lhs, rhs) {
                (Side::Field(f, _), Side::Literal(l)) | (Side::Literal(l), Side::Field(f, _)) => {
                    (*f, l)
                }
                _ => return false,
            };
            !field.is_extended()
                && !matches!(field, Field::Extras | Field::DependencyGroups)
                // spec-2026: the legacy `extra` is an error in lock-file context (SPEC E.5).
                && (field != Field::Extra || !config.lock_file || profile != Profile::Spec2026)
                && !literal.contains(['\\', '\n', '\r', '\0'])
        }
        Ast::And(c, ws) | Ast::Or(c, ws) => {
            // uv reads `and` and `or` only when whitespace follows them.
            let spaced = profile != Profile::Uv
                || c.iter()
                    .enumerate()
                    .skip(1)
                    .all(|(i, a)| ws.rotate_right(i as u32) % 4 != 0 || is_word(first_char(a)));
            spaced && c.iter().all(|a| must_parse(a, config))
        }
        Ast::Paren(inner) => must_parse(inner, config),
    }
}

/// A dialect, a behaviour profile and lock-file context.
#[derive(Debug, Clone, Copy)]
struct Config {
    dialect: Dialect,
    profile: Profile,
    lock_file: bool,
}

impl Config {
    fn options(self) -> ParseOptions {
        ParseOptions::default()
            .dialect(self.dialect)
            .profile(self.profile)
            .lock_file(self.lock_file)
    }
}

fn config(dialect: Dialect) -> impl Strategy<Value = Config> {
    (prop::sample::select(Profile::ALL), any::<bool>()).prop_map(move |(profile, lock_file)| {
        Config {
            dialect,
            profile,
            lock_file,
        }
    })
}

fn parse_marker(text: &str, config: Config) -> Result<MarkerTree, String> {
    MarkerTree::parse_with(text, &config.options(), &mut Vec::new()).map_err(|e| e.render(text))
}

/// Whether `shown`, a canonical display, cannot be read back under `config` by design: the `uv`
/// profile reads quoted strings as written, without escapes, so a literal the display escapes
/// reads back as another string. (A marker all of whose comparisons uv dropped is the constant
/// `true`, which reads back as itself.)
fn uv_unreadable(config: Config, shown: &str) -> bool {
    config.profile == Profile::Uv && shown.contains('\\')
}

/// A parsed marker from the grammar, in the pep508 dialect, with the configuration it was
/// parsed in.
fn marker() -> impl Strategy<Value = (MarkerTree, Config)> {
    (ast(Dialect::Pep508), config(Dialect::Pep508))
        .prop_filter_map("the parser may reject contested forms", |(a, config)| {
            parse_marker(&text_of(&a), config).ok().map(|m| (m, config))
        })
}

/// A value every evaluation can read: a string or set from the vocabulary, Absent or Unknown.
fn env_value(field: Field, unknown: bool) -> BoxedStrategy<EnvValue> {
    let string = prop_oneof![
        3 => prop::sample::select(VOCABULARY).prop_map(str::to_string),
        2 => version_text(),
    ];
    let known = if field.field_type() == FieldType::Set {
        prop::collection::vec(string, 0..3)
            .prop_map(|v| EnvValue::Set(v.into_iter().map(String::into_boxed_str).collect()))
            .boxed()
    } else {
        string.prop_map(|s| EnvValue::String(s.into())).boxed()
    };
    if unknown {
        prop_oneof![6 => known, 1 => Just(EnvValue::Absent), 2 => Just(EnvValue::Unknown)].boxed()
    } else {
        prop_oneof![6 => known, 1 => Just(EnvValue::Absent)].boxed()
    }
}

/// An environment with a value (possibly Unknown, when `unknown`) for every field, and extras.
fn environment(unknown: bool) -> impl Strategy<Value = Environment> {
    let fields: Vec<Field> = Field::ALL
        .iter()
        .copied()
        .filter(|&f| f != Field::Extra)
        .collect();
    let values: Vec<BoxedStrategy<EnvValue>> =
        fields.iter().map(|&f| env_value(f, unknown)).collect();
    (
        values,
        prop::collection::vec(
            prop::sample::select(vec!["test", "cuda", "Test_Extra"]),
            0..3,
        ),
    )
        .prop_map(move |(values, extras)| {
            let mut env = Environment::new();
            for (&f, v) in fields.iter().zip(values) {
                env.set(f, v).expect("sets go to set fields");
            }
            env.with_extras(extras)
        })
}

fn tristate(
    tree: &MarkerTree,
    env: &Environment,
    profile: Profile,
) -> Result<Evaluation, &'static str> {
    debug_assert_eq!(tree.profile(), profile);
    tree.evaluate_tristate(env).map_err(|e| e.code())
}

// ---------------------------------------------------------------------------------------------
// Versions and specifiers
// ---------------------------------------------------------------------------------------------

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Versions from text, so that the parser's normalisation is part of the law.
fn version() -> impl Strategy<Value = Version> {
    version_text().prop_filter_map("not every text is a version", |t| t.parse().ok())
}

/// Final (or post-) releases without a local label, mostly colliding: `1`, `1.0`, `1.0.post1`.
fn public_version() -> impl Strategy<Value = Version> {
    (
        prop_oneof![5 => Just(0u64), 1 => 1u64..3],
        prop::collection::vec(0u64..4, 1..4),
        prop::option::weighted(0.2, 0u64..3),
    )
        .prop_map(|(epoch, release, post)| Version::new(release).with_epoch(epoch).with_post(post))
}

fn ordering_operator() -> impl Strategy<Value = Operator> {
    prop::sample::select(vec![
        Operator::LessThan,
        Operator::LessThanEqual,
        Operator::GreaterThan,
        Operator::GreaterThanEqual,
        Operator::Equal,
        Operator::NotEqual,
    ])
}

fn requirement_text() -> impl Strategy<Value = String> {
    let name = "[A-Za-z0-9]([A-Za-z0-9._-]{0,6}[A-Za-z0-9])?";
    let extras = prop::collection::vec("[a-zA-Z0-9]([a-z0-9_.-]{0,4}[a-z0-9])?", 0..3);
    let spec = (
        prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">=", "~=", "==="]),
        version_text(),
    )
        .prop_map(|(op, v)| format!("{op}{}", v.trim()));
    let versions = prop_oneof![
        2 => Just(String::new()),
        3 => prop::collection::vec(spec, 1..3).prop_map(|s| s.join(", ")),
        1 => prop::collection::vec(
            (prop::sample::select(vec![">=", "<", "!="]), version_text()),
            1..3
        ).prop_map(|s| format!(" ({})", s.iter().map(|(o, v)| format!("{o}{}", v.trim())).collect::<Vec<_>>().join(","))),
        1 => "[a-z]{1,5}://[a-z.]{1,8}/[a-zA-Z0-9._/;=-]{0,12}".prop_map(|u| format!(" @ {u}")),
    ];
    let marker = prop::option::of(ast(Dialect::Pep508).prop_map(|a| text_of(&a)));
    (name, extras, versions, marker).prop_map(|(name, extras, versions, marker)| {
        let mut s = name;
        if !extras.is_empty() {
            s.push_str(&format!("[{}]", extras.join(", ")));
        }
        let url = versions.starts_with(" @ ");
        s.push_str(&versions);
        if let Some(m) = marker {
            s.push_str(if url { " ; " } else { "; " });
            s.push_str(&m);
        }
        s
    })
}

// ---------------------------------------------------------------------------------------------
// Laws
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A marker from the grammar parses (when nothing may rule it out) and its canonical display
    /// parses back to the same tree; the display of that is the same text.
    #[test]
    fn marker_round_trip(
        a in ast(Dialect::Pep508),
        config in prop_oneof![config(Dialect::Pep508), config(Dialect::Extended)],
    ) {
        let text = text_of(&a);
        match parse_marker(&text, config) {
            Ok(tree) if uv_unreadable(config, &tree.to_string()) => {}
            Ok(tree) => {
                let shown = tree.to_string();
                let again = parse_marker(&shown, config)
                    .map_err(|e| TestCaseError::fail(format!("{text:?} → {shown:?}: {e}")))?;
                prop_assert_eq!(&again, &tree, "{:?} → {:?}", text, shown);
                prop_assert_eq!(again.to_string(), shown);
            }
            Err(e) => prop_assert!(!must_parse(&a, config), "{:?} must parse: {}", text, e),
        }
    }

    /// The same in the extended dialect, with its fields.
    #[test]
    fn extended_marker_round_trip(a in ast(Dialect::Extended), config in config(Dialect::Extended)) {
        let text = text_of(&a);
        if let Ok(tree) = parse_marker(&text, config) {
            let shown = tree.to_string();
            if uv_unreadable(config, &shown) {
                return Ok(());
            }
            let again = parse_marker(&shown, config)
                .map_err(|e| TestCaseError::fail(format!("{text:?} → {shown:?}: {e}")))?;
            prop_assert_eq!(&again, &tree, "{:?} → {:?}", text, shown);
            prop_assert_eq!(again.to_string(), shown);
        }
    }

    /// Requirements: name, extras, specifiers (bare or in parentheses) or a URL, and a marker.
    #[test]
    fn requirement_round_trip(text in requirement_text(), config in config(Dialect::Pep508)) {
        let opts = config.options();
        if let Ok(req) = Requirement::parse_with(&text, &opts, &mut Vec::new()) {
            let shown = req.to_string();
            if uv_unreadable(config, &shown) {
                return Ok(());
            }
            let again = Requirement::parse_with(&shown, &opts, &mut Vec::new())
                .map_err(|e| TestCaseError::fail(format!("{text:?} → {shown:?}: {}", e.render(&shown))))?;
            prop_assert_eq!(&again, &req, "{:?} → {:?}", text, shown);
            prop_assert_eq!(again.to_string(), shown);
        }
    }

    /// `a and b` and `a or b` evaluate to the Kleene conjunction and disjunction of the parts,
    /// whether built with `MarkerTree::and`/`or` or parsed from text; an error in a part is
    /// the error of the whole, the left part's first.
    #[test]
    fn and_or_are_kleene((a, config) in marker(), b in ast(Dialect::Pep508), env in environment(true)) {
        let Ok(b) = parse_marker(&text_of(&b), config) else { return Ok(()) };
        if uv_unreadable(config, &a.to_string()) || uv_unreadable(config, &b.to_string()) {
            return Ok(());
        }
        // A marker all of whose comparisons uv dropped is the constant `true` on its own, but
        // inside a chain uv leaves it out (`(dropped) or b` is `b`), so it is no Kleene part;
        // the constants are read only as a whole marker.
        if a.is_true() || b.is_true() {
            return Ok(());
        }
        let profile = config.profile;
        let (ra, rb) = (tristate(&a, &env, profile), tristate(&b, &env, profile));
        let both = format!("({a}) and ({b})");
        let either = format!("({a}) or ({b})");
        let cases = [
            (a.clone().and(b.clone()), true),
            (a.clone().or(b.clone()), false),
            (parse_marker(&both, config).expect("parts parse"), true),
            (parse_marker(&either, config).expect("parts parse"), false),
        ];
        for (tree, is_and) in cases {
            let whole = tristate(&tree, &env, profile);
            match (&ra, &rb) {
                (Err(code), _) | (Ok(_), Err(code)) => {
                    prop_assert_eq!(whole.map(|_| ()), Err(*code), "{}", tree);
                }
                (Ok(x), Ok(y)) => {
                    let expected = if is_and { x.truth.and(y.truth) } else { x.truth.or(y.truth) };
                    prop_assert_eq!(whole.map(|e| e.truth), Ok(expected), "{}", tree);
                }
            }
        }
    }

    /// With every field known, the three-valued result is never Unknown and agrees with the
    /// `bool` one (or both fail with the same code).
    #[test]
    fn three_valued_agrees_with_two_valued((m, config) in marker(), env in environment(false)) {
        let three = tristate(&m, &env, config.profile);
        let two = m
            .evaluate_with(&env, EvalOptions::default())
            .map_err(|e| e.code());
        match three {
            Ok(e) => {
                prop_assert_ne!(e.truth, Truth::Unknown, "{} under {:?}", m, env);
                prop_assert!(e.unknown.is_empty());
                prop_assert_eq!(two, Ok(e.truth == Truth::True), "{}", m);
            }
            Err(code) => prop_assert_eq!(two, Err(code), "{}", m),
        }
    }

    /// Unknown results name only Unknown fields, and a known result survives replacing the
    /// Unknown values with known ones (Unknown really means "either way").
    #[test]
    fn unknown_is_sound((m, config) in marker(), env in environment(true), fill in environment(false)) {
        let profile = config.profile;
        let Ok(e) = tristate(&m, &env, profile) else { return Ok(()) };
        for f in e.unknown.iter() {
            prop_assert_eq!(env.get(f), Some(&EnvValue::Unknown), "{} blames {}", m, f);
        }
        if e.truth == Truth::Unknown {
            let two = m.evaluate_with(&env, EvalOptions::default());
            prop_assert_eq!(two.map_err(|e| e.code()), Err("E004"));
            return Ok(());
        }
        let mut known = env.clone();
        for (f, v) in env.iter() {
            if *v == EnvValue::Unknown {
                let value = fill.get(f).cloned().unwrap_or(EnvValue::Absent);
                known.set(f, value).expect("the same field types");
            }
        }
        if let Ok(k) = tristate(&m, &known, profile) {
            prop_assert_eq!(k.truth, e.truth, "{} changes once the Unknowns are filled", m);
        }
    }

    /// The version order is total and agrees with `==`, `Hash` and `parse(display(·))`.
    #[test]
    fn version_order_is_total(a in version(), b in version(), c in version()) {
        for v in [&a, &b, &c] {
            let again: Version = v.to_string().parse().map_err(|e| TestCaseError::fail(format!("{v}: {e}")))?;
            prop_assert_eq!(&again, v);
            prop_assert_eq!(again.to_string(), v.to_string());
            prop_assert_eq!(hash_of(&again), hash_of(v));
        }
        let ab = a.cmp(&b);
        prop_assert_eq!(b.cmp(&a), ab.reverse());
        prop_assert_eq!(a.partial_cmp(&b), Some(ab));
        prop_assert_eq!(a == b, ab == Ordering::Equal);
        if a == b {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
        if a <= b && b <= c {
            prop_assert!(a <= c, "{} <= {} <= {}", a, b, c);
        }
        let mut sorted = [a.clone(), b.clone(), c.clone()];
        sorted.sort();
        prop_assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    }

    /// For `<, <=, >, >=, ==, !=` and versions without pre-, dev- or local parts, `contains`
    /// is the order (`>V` also leaves out `V`'s post-releases), alone and in a list, and the
    /// same after `parse(display(·))`.
    #[test]
    fn containment_agrees_with_order(
        op in ordering_operator(),
        bound in public_version().prop_filter("a final bound", |v| !v.is_postrelease()),
        candidates in prop::collection::vec(public_version(), 1..6),
    ) {
        let spec = VersionSpecifier::from_parts(op, &bound.to_string())
            .map_err(|e| TestCaseError::fail(format!("{op:?} {bound}: {e}")))?;
        let shown = spec.to_string();
        let again: VersionSpecifier = shown.parse().map_err(|e| TestCaseError::fail(format!("{shown}: {e}")))?;
        prop_assert_eq!(&again, &spec);
        let list: VersionSpecifiers = shown.parse().map_err(|e| TestCaseError::fail(format!("{shown}: {e}")))?;
        for v in &candidates {
            let expected = match op {
                Operator::LessThan => v < &bound,
                Operator::LessThanEqual => v <= &bound,
                Operator::GreaterThan => {
                    v > &bound
                        && !(v.is_postrelease()
                            && v.without_local().with_post(None) == bound)
                }
                Operator::GreaterThanEqual => v >= &bound,
                Operator::Equal => v == &bound,
                Operator::NotEqual => v != &bound,
                _ => unreachable!(),
            };
            prop_assert_eq!(spec.contains(v), expected, "{} contains {}", spec, v);
            prop_assert_eq!(again.contains(v), expected);
            prop_assert_eq!(list.contains(v), expected);
            prop_assert_eq!(spec.contains_str(&v.to_string(), None), expected);
        }
    }

    /// Specifier lists print canonically: `parse(display(s)) == s` and display is idempotent.
    #[test]
    fn specifier_list_round_trip(
        parts in prop::collection::vec((ordering_operator(), version()), 0..4),
    ) {
        let text = parts
            .iter()
            .map(|(op, v)| format!("{}{}", op.as_str(), v.without_local()))
            .collect::<Vec<_>>()
            .join(", ");
        if let Ok(list) = text.parse::<VersionSpecifiers>() {
            let shown = list.to_string();
            let again: VersionSpecifiers = shown.parse().map_err(|e| TestCaseError::fail(format!("{text} → {shown}: {e}")))?;
            prop_assert_eq!(&again, &list);
            prop_assert_eq!(again.to_string(), shown);
            prop_assert_eq!(hash_of(&again), hash_of(&list));
        }
    }
}
