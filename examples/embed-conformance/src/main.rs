//! Another tool's marker evaluator, run against markerspec's conformance suite.
//!
//! `toy` below is a small, independent implementation of PEP 508 environment markers (about 250
//! lines: a tokenizer, a recursive-descent parser and an evaluator with a reduced PEP 440
//! version model). This program runs the suite's marker cases for the neutral `standard`
//! profile (the living specification, standard fields only, two-valued) against it, with the
//! differences the toy knowingly has declared, and prints the report.
//!
//! ```console
//! $ cargo run --release                # exit 0: every failure is a declared divergence
//! $ cargo run --release -- --careless  # a variant that panics: each panic is one crash, quietly
//! ```
//!
//! After the suite, it fuzzes the toy's parser with markerspec's generators (valid markers and
//! near misses, reproducible from a seed): every input on which the toy panics, or accepts what
//! markerspec rejects, or rejects what markerspec accepts, is counted and the first of each
//! kind shown. A panic of the careful toy fails the run.

use std::process::ExitCode;

use markerspec_conformance::{
    Cases, Dialect, DocValue, Evaluated, Expected, Implementation, Kind, Parsed, Profile, Report,
    Request, Runner, Status, TestResult,
};

/// What the toy knowingly does differently, as `(selector, reason)`: a selector is
/// `[PROFILE:]PATTERN[#CHECK]` over groups, cases (`group/name`, `*` globs) or `@category`.
const DIVERGENCES: &[(&str, &str)] = &[
    (
        "standard:@escapes",
        "string literals are read without escapes",
    ),
    (
        "standard:marker-syntax/error-codes-105",
        "string literals are read without escapes",
    ),
    (
        "standard:operators/version-fields-15*",
        "`~=` with the literal on the left",
    ),
    (
        "standard:operators/version-fields-160",
        "`~=` with the literal on the left",
    ),
    (
        "standard:@arbitrary-equality",
        "`===` compares text exactly, also on versions",
    ),
    (
        "standard:@invalid-versions",
        "a literal that is not a version is compared as text",
    ),
    (
        "standard:@field-names",
        "no PEP 345 aliases (`os.name`, `python_implementation`)",
    ),
    ("standard:@wildcards", "`.*` only after a plain release"),
    ("standard:@prereleases", "no post-, dev- or epoch segments"),
    (
        "standard:@literal-whitespace",
        "no whitespace inside a version literal",
    ),
    (
        "standard:@version-comparison",
        "no post-, dev- or epoch segments",
    ),
    ("standard:@nesting", "no limit on nesting"),
    ("standard:findings/*", "not reviewed yet"),
    (
        "standard:operators/string-fields-1000",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/string-fields-1001",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/string-fields-1002",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/string-fields-1003",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/string-fields-1004",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/string-fields-1005",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/merged-text-1*",
        "`platform_version` is always a string (SPEC 0.2 reads it as a version where it is one)",
    ),
    (
        "standard:operators/version-fields-267",
        "`~=` with the literal on the left",
    ),
];

fn main() -> ExitCode {
    let careless = std::env::args().any(|a| a == "--careless");
    let cases = Cases::all();
    let runner = Runner::new()
        // Markers only: the toy does not read requirements (`name [extras] ...; marker`).
        .filter("-requirements")
        .profiles(&[Profile::Standard])
        .blacklist(DIVERGENCES);
    let report = runner.run(&cases, &mut toy::Toy { careless });
    print_report(&report);
    let toy_panics = fuzz_toy(careless, 2_000);
    if careless {
        // Each panic of the careless variant was caught and reported as a crash of its case,
        // with its message and location, and nothing was printed to stderr.
        let crashes = report.counts().get(&Status::Crash).copied().unwrap_or(0);
        println!("careless: {crashes} crashes reported");
        // The generators find the careless variant's panics too.
        return if crashes > 0 && toy_panics > 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if report.ok() && toy_panics == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Fuzzes the toy's parser with `count` generated markers (valid ones and near misses, from
/// fixed seeds) and prints how often it disagreed with markerspec; returns how many inputs made
/// it panic (the careless variant's are expected; the careful one must have none).
fn fuzz_toy(careless: bool, count: u64) -> usize {
    use markerspec_pep508::MarkerTree;
    use markerspec_pep508::generate::{self, Options};

    let options = Options::valid();
    // A panic is counted below; keep its message off stderr while fuzzing.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let (mut panics, mut too_lenient, mut too_strict) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 0..count {
        let bytes = generate::seeded_bytes(generate::case_seed(2026, seed), 2048);
        let mut u = arbitrary::Unstructured::new(&bytes);
        let Ok(case) = generate::marker(&mut u, &options) else {
            continue;
        };
        // Every other case is one edit away from valid.
        let text = if seed % 2 == 1 {
            match generate::near_miss(&mut u, &case.text) {
                Ok(miss) => miss.text,
                Err(_) => continue,
            }
        } else {
            case.text
        };
        let reference = text.parse::<MarkerTree>().is_ok();
        let outcome = std::panic::catch_unwind(|| toy::parse(&text, careless).is_ok());
        match outcome {
            Err(_) => panics.push(text),
            Ok(true) if !reference => too_lenient.push(text),
            Ok(false) if reference => too_strict.push(text),
            Ok(_) => {}
        }
    }
    std::panic::set_hook(previous_hook);
    println!("fuzz: {count} generated markers (half near misses)");
    for (what, found) in [
        ("panics", &panics),
        ("accepted, markerspec rejects", &too_lenient),
        ("rejected, markerspec accepts", &too_strict),
    ] {
        match found.first() {
            Some(first) => {
                let short: String = first.chars().take(100).collect();
                println!("  {what}: {} (e.g. {short:?})", found.len());
            }
            None => println!("  {what}: 0"),
        }
    }
    panics.len()
}

fn print_report(report: &Report) {
    let counts = report.counts();
    let ran: usize = counts.values().sum();
    println!("{}: {ran} checks", report.implementation);
    for (status, n) in &counts {
        println!("  {:<10} {n}", status.as_str());
    }
    for cause in report.causes().iter().take(5) {
        let first = &report.results[cause.results[0]];
        println!("{} x {}", cause.results.len(), cause.cause);
        println!(
            "    e.g. {}: {:?}: expected {}, {}",
            first.case,
            first.input,
            first.expected_text(),
            first.details.join("; ")
        );
    }
    for unused in &report.unused_divergences {
        println!("declared but not seen: {unused}");
    }
}

/// The implementation under test: independent of markerspec, as another tool's would be.
mod toy {
    use super::*;

    /// A PEP 508 marker evaluator. `careless` makes it index past the end of the input on an
    /// unterminated string instead of rejecting it: a panic, which the runner reports as a
    /// crash of that case.
    pub struct Toy {
        pub careless: bool,
    }

    impl Implementation for Toy {
        fn name(&self) -> &str {
            if self.careless {
                "toy (careless)"
            } else {
                "toy"
            }
        }
        fn supports(&self, profile: Profile, dialect: Dialect) -> bool {
            profile == Profile::Standard && dialect == Dialect::Pep508
        }
        fn parse(&mut self, r: &Request<'_>) -> TestResult<Parsed> {
            if r.case.kind() != Kind::Marker {
                return TestResult::Skip("markers only".into());
            }
            TestResult::Ok(match parse(r.input(), self.careless) {
                Ok(_) => Parsed::Valid { canonical: None },
                Err(message) => Parsed::Invalid {
                    code: None,
                    message: Some(message),
                },
            })
        }
        fn evaluate(&mut self, r: &Request<'_>) -> TestResult<Evaluated> {
            if r.case.kind() != Kind::Marker {
                return TestResult::Skip("markers only".into());
            }
            let marker = match parse(r.input(), self.careless) {
                Ok(m) => m,
                Err(message) => {
                    return TestResult::Ok(Evaluated::Invalid {
                        code: None,
                        message: Some(message),
                    });
                }
            };
            let env = |name: &str| match r.environment().get(name) {
                Some(DocValue::String(s)) => Some(s.clone()),
                _ => None,
            };
            TestResult::Ok(match marker.eval(&env, r.extras()) {
                Ok(true) => Evaluated::result(Expected::True),
                Ok(false) => Evaluated::result(Expected::False),
                Err(message) => Evaluated::Result {
                    result: Expected::Error(None),
                    message: Some(message),
                },
            })
        }
    }

    const FIELDS: &[&str] = &[
        "implementation_name",
        "implementation_version",
        "os_name",
        "platform_machine",
        "platform_python_implementation",
        "platform_release",
        "platform_system",
        "platform_version",
        "python_full_version",
        "python_version",
        "sys_platform",
        "extra",
    ];
    const VERSION_FIELDS: &[&str] = &[
        "implementation_version",
        "platform_release",
        "python_full_version",
        "python_version",
    ];

    #[derive(Debug, Clone, PartialEq)]
    enum Token {
        Word(String),
        Str(String),
        Op(&'static str),
        Open,
        Close,
    }

    fn tokenize(input: &str, careless: bool) -> Result<Vec<Token>, String> {
        let b = input.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            match c {
                b' ' | b'\t' => i += 1,
                b'(' => {
                    out.push(Token::Open);
                    i += 1;
                }
                b')' => {
                    out.push(Token::Close);
                    i += 1;
                }
                b'"' | b'\'' => {
                    let close = input[i + 1..].find(c as char);
                    let end = i
                        + 1
                        + if careless {
                            // The careless variant "knows" that every string is closed.
                            close.expect("a closing quote")
                        } else {
                            close.ok_or_else(|| format!("unterminated string at {i}"))?
                        };
                    out.push(Token::Str(input[i + 1..end].to_string()));
                    i = end + 1;
                }
                b'=' | b'!' | b'<' | b'>' | b'~' => {
                    let op = ["===", "==", "!=", "<=", ">=", "~=", "<", ">"]
                        .into_iter()
                        .find(|op| input[i..].starts_with(op))
                        .ok_or_else(|| format!("bad operator at {i}"))?;
                    out.push(Token::Op(op));
                    i += op.len();
                }
                c if c.is_ascii_alphanumeric() || c == b'_' => {
                    let start = i;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                    out.push(Token::Word(input[start..i].to_string()));
                }
                _ => return Err(format!("unexpected character at {i}")),
            }
        }
        Ok(out)
    }

    #[derive(Debug)]
    pub(super) enum Value {
        Field(String),
        Literal(String),
    }

    #[derive(Debug)]
    pub(super) enum Marker {
        Compare(Value, &'static str, Value),
        And(Box<Marker>, Box<Marker>),
        Or(Box<Marker>, Box<Marker>),
    }

    struct Parser {
        tokens: Vec<Token>,
        pos: usize,
    }

    pub(super) fn parse(input: &str, careless: bool) -> Result<Marker, String> {
        let mut p = Parser {
            tokens: tokenize(input, careless)?,
            pos: 0,
        };
        let m = p.or()?;
        match p.tokens.get(p.pos) {
            None => Ok(m),
            Some(t) => Err(format!("unexpected {t:?} after the marker")),
        }
    }

    impl Parser {
        fn peek_word(&self, w: &str) -> bool {
            matches!(self.tokens.get(self.pos), Some(Token::Word(x)) if x == w)
        }
        fn or(&mut self) -> Result<Marker, String> {
            let mut m = self.and()?;
            while self.peek_word("or") {
                self.pos += 1;
                m = Marker::Or(Box::new(m), Box::new(self.and()?));
            }
            Ok(m)
        }
        fn and(&mut self) -> Result<Marker, String> {
            let mut m = self.expr()?;
            while self.peek_word("and") {
                self.pos += 1;
                m = Marker::And(Box::new(m), Box::new(self.expr()?));
            }
            Ok(m)
        }
        fn expr(&mut self) -> Result<Marker, String> {
            if self.tokens.get(self.pos) == Some(&Token::Open) {
                self.pos += 1;
                let m = self.or()?;
                if self.tokens.get(self.pos) != Some(&Token::Close) {
                    return Err("expected `)`".into());
                }
                self.pos += 1;
                return Ok(m);
            }
            let left = self.value()?;
            let op = match self.tokens.get(self.pos) {
                Some(Token::Op(op)) => *op,
                Some(Token::Word(w)) if w == "in" => "in",
                Some(Token::Word(w)) if w == "not" => {
                    self.pos += 1;
                    if !self.peek_word("in") {
                        return Err("expected `in` after `not`".into());
                    }
                    "not in"
                }
                other => return Err(format!("expected an operator, found {other:?}")),
            };
            self.pos += 1;
            let right = self.value()?;
            match (&left, &right) {
                (Value::Field(_), Value::Literal(_)) | (Value::Literal(_), Value::Field(_)) => {
                    Ok(Marker::Compare(left, op, right))
                }
                _ => Err("a comparison needs one field and one literal".into()),
            }
        }
        fn value(&mut self) -> Result<Value, String> {
            let t = self.tokens.get(self.pos).cloned();
            self.pos += 1;
            match t {
                Some(Token::Str(s)) => Ok(Value::Literal(s)),
                Some(Token::Word(w)) if FIELDS.contains(&w.as_str()) => Ok(Value::Field(w)),
                other => Err(format!("expected a field or a string, found {other:?}")),
            }
        }
    }

    impl Marker {
        pub(super) fn eval(
            &self,
            env: &dyn Fn(&str) -> Option<String>,
            extras: &[String],
        ) -> Result<bool, String> {
            match self {
                Marker::And(a, b) => Ok(a.eval(env, extras)? && b.eval(env, extras)?),
                Marker::Or(a, b) => Ok(a.eval(env, extras)? || b.eval(env, extras)?),
                Marker::Compare(l, op, r) => {
                    let (field, rhs, field_left) = match (l, r) {
                        (Value::Field(f), Value::Literal(lit)) => (f, lit, true),
                        (Value::Literal(lit), Value::Field(f)) => (f, lit, false),
                        _ => return Err("a comparison needs one field and one literal".into()),
                    };
                    if field == "extra" {
                        let want = normalize(rhs);
                        let any = extras.iter().any(|e| normalize(e) == want);
                        return match *op {
                            "==" => Ok(any),
                            "!=" => Ok(!any),
                            _ => Ok(false),
                        };
                    }
                    let value = env(field).ok_or_else(|| format!("{field} is not set"))?;
                    if field_left || matches!(*op, "in" | "not in") {
                        let (a, b) = if field_left {
                            (&value, rhs)
                        } else {
                            (rhs, &value)
                        };
                        return Ok(compare(a, op, b, field));
                    }
                    // `"3.12" > python_version` reads as `python_version < "3.12"`: the
                    // literal is the specifier's version.
                    let mirrored = match *op {
                        "<" => ">",
                        ">" => "<",
                        "<=" => ">=",
                        ">=" => "<=",
                        other => other,
                    };
                    Ok(compare(&value, mirrored, rhs, field))
                }
            }
        }
    }

    fn normalize(name: &str) -> String {
        let mut out = String::new();
        for c in name.chars() {
            let c = if matches!(c, '-' | '_' | '.') {
                '-'
            } else {
                c.to_ascii_lowercase()
            };
            if !(c == '-' && out.ends_with('-')) {
                out.push(c);
            }
        }
        out
    }

    /// `a OP b` on `field`: as versions when both sides are versions (and the field holds
    /// versions), otherwise as text.
    fn compare(a: &str, op: &str, b: &str, field: &str) -> bool {
        let version_field = VERSION_FIELDS.contains(&field);
        if op == "in" || op == "not in" {
            // A substring test, except on fields that hold only versions.
            let versions_only = version_field && field != "platform_release";
            return !versions_only && (b.contains(a) == (op == "in"));
        }
        if op == "===" {
            return a == b;
        }
        if version_field {
            if let (Some(x), Some(spec)) = (Version::parse(a), b.strip_suffix(".*"))
                && let Some(prefix) = Version::parse(spec).filter(|v| v.pre.is_none())
            {
                let matches = x.release.len() >= prefix.release.len()
                    && padded(&x.release, prefix.release.len()) == prefix.release;
                return match op {
                    "==" => matches,
                    "!=" => !matches,
                    _ => false,
                };
            }
            if let (Some(x), Some(y)) = (Version::parse(a), Version::parse(b)) {
                use std::cmp::Ordering::*;
                let ord = x.cmp(&y);
                return match op {
                    "==" => ord == Equal,
                    "!=" => ord != Equal,
                    "<" => ord == Less && !(x.pre.is_some() && x.release_eq(&y) && y.pre.is_none()),
                    "<=" => ord != Greater,
                    ">" => ord == Greater,
                    ">=" => ord != Less,
                    "~=" => {
                        let n = y.release.len();
                        n >= 2 && ord != Less && padded(&x.release, n - 1) == y.release[..n - 1]
                    }
                    _ => false,
                };
            }
        }
        match op {
            "==" | "<=" | ">=" | "~=" => a == b,
            "!=" => a != b,
            _ => false,
        }
    }

    fn padded(release: &[u64], n: usize) -> Vec<u64> {
        (0..n)
            .map(|i| release.get(i).copied().unwrap_or(0))
            .collect()
    }

    /// A reduced PEP 440 version: release numbers and an optional `a`/`b`/`rc` pre-release.
    #[derive(Debug, PartialEq, Eq)]
    struct Version {
        release: Vec<u64>,
        pre: Option<(u8, u64)>,
    }

    impl Version {
        fn parse(s: &str) -> Option<Version> {
            let end = s
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(s.len());
            let (nums, rest) = s.split_at(end);
            let release: Vec<u64> = nums
                .split('.')
                .map(|n| n.parse().ok())
                .collect::<Option<_>>()?;
            let pre = match rest {
                "" => None,
                _ => {
                    let (kind, n) = [("rc", 2), ("a", 0), ("b", 1)]
                        .into_iter()
                        .find_map(|(p, k)| rest.strip_prefix(p).map(|n| (k, n)))?;
                    Some((kind, n.parse().ok()?))
                }
            };
            Some(Version { release, pre })
        }
        fn release_eq(&self, other: &Version) -> bool {
            let n = self.release.len().max(other.release.len());
            padded(&self.release, n) == padded(&other.release, n)
        }
    }

    impl Ord for Version {
        fn cmp(&self, other: &Version) -> std::cmp::Ordering {
            let n = self.release.len().max(other.release.len());
            padded(&self.release, n)
                .cmp(&padded(&other.release, n))
                // A final release sorts after its pre-releases.
                .then_with(|| match (self.pre, other.pre) {
                    (None, None) => std::cmp::Ordering::Equal,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (Some(a), Some(b)) => a.cmp(&b),
                })
        }
    }

    impl PartialOrd for Version {
        fn partial_cmp(&self, other: &Version) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
}
