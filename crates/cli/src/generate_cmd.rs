//! `markerspec generate`: markers, requirements or environments, one per line, reproducible
//! from a seed, for fuzzers in other languages and for shell pipelines.

use std::io::Write as _;
use std::process::ExitCode;

use arbitrary::Unstructured;
use markerspec_pep508::generate::{self, Options};
use markerspec_pep508::{Dialect, Environment};
use serde_json::{Value, json};

/// What to generate.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GenKind {
    /// A marker expression (`python_version >= "3.8" and os_name == "posix"`).
    Marker,
    /// A whole dependency specifier (`numpy[test]>=1.0; python_version >= "3.8"`).
    Requirement,
    /// An environment document (`spec/SPEC.md` §11), as JSON.
    #[value(alias = "env")]
    Environment,
}

/// Arguments of `markerspec generate`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("validity").args(["valid", "near_miss", "mixed"])))]
pub(crate) struct GenerateArgs {
    /// How many cases to print.
    #[arg(long, default_value = "100", value_name = "N")]
    count: u64,
    /// The seed: the same seed, count and options print the same lines, in every version
    /// whose generators did not change.
    #[arg(long, default_value = "0", value_name = "S")]
    seed: u64,
    /// What to generate.
    #[arg(long, value_enum, default_value = "marker")]
    kind: GenKind,
    /// Only valid text (the default): every line parses under the specification and under
    /// pypa/packaging 26.
    #[arg(long)]
    valid: bool,
    /// Only near misses: valid text changed by one edit (a quote dropped, an operator
    /// doubled, a version broken, `and(`, deep nesting, …), mostly invalid.
    #[arg(long)]
    near_miss: bool,
    /// Valid text and near misses, half each.
    #[arg(long)]
    mixed: bool,
    /// Marker language: `pep508` (the standard fields) or `extended` (adds GPU/ABI fields).
    #[arg(long, default_value = "pep508")]
    dialect: Dialect,
    /// Lock-file context: `extras` and `dependency_groups` may appear.
    #[arg(long)]
    lock_file: bool,
    /// One JSON object per line: the input with its kind, dialect, validity, the edit of a
    /// near miss, and an environment (with extras) to evaluate it in.
    #[arg(long)]
    json: bool,
}

/// Characters Python's `str.splitlines` (and some shells) treat as line ends: kept out of
/// plain output, where one line is one case.
fn breaks_lines(text: &str) -> bool {
    text.contains([
        '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
        '\u{2029}',
    ])
}

/// One generated case.
struct GenCase {
    input: String,
    near_miss: Option<&'static str>,
    environment: Environment,
}

fn draw(args: &GenerateArgs, options: &Options, case_seed: u64, near: bool) -> GenCase {
    let bytes = generate::seeded_bytes(case_seed, 4096);
    let mut u = Unstructured::new(&bytes);
    // Running out of bytes is not an error for these generators; the fallbacks below are
    // never reached in practice but keep the command total.
    let (input, literals) = match args.kind {
        GenKind::Marker => generate::marker(&mut u, options)
            .map(|m| (m.text, m.literals))
            .unwrap_or_else(|_| ("python_version >= \"3.8\"".into(), Vec::new())),
        GenKind::Requirement => (
            generate::requirement(&mut u, options).unwrap_or_else(|_| "numpy>=1.0".into()),
            Vec::new(),
        ),
        GenKind::Environment => (String::new(), Vec::new()),
    };
    let mut mutation = None;
    let input = if near && args.kind != GenKind::Environment {
        match generate::near_miss(&mut u, &input) {
            Ok(m) => {
                mutation = Some(m.mutation.as_str());
                m.text
            }
            Err(_) => input,
        }
    } else {
        input
    };
    let environment = generate::realistic_environment(&mut u, options, &literals)
        .unwrap_or_else(|_| Environment::new());
    GenCase {
        input,
        near_miss: mutation,
        environment,
    }
}

pub(crate) fn run(args: GenerateArgs) -> Result<ExitCode, String> {
    let options = Options::valid()
        .dialect(args.dialect)
        .lock_file(args.lock_file)
        .line_breaks(args.json);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for index in 0..args.count {
        let near = args.near_miss || (args.mixed && index % 2 == 1);
        let base = generate::case_seed(args.seed, index);
        // In plain output a case that would span lines is drawn again from the next seed.
        let mut case = draw(&args, &options, base, near);
        let mut retry = 1u64;
        while !args.json && breaks_lines(&case.input) && retry < 64 {
            case = draw(&args, &options, generate::case_seed(base, retry), near);
            retry += 1;
        }
        let env_doc = serde_json::to_value(&case.environment)
            .map_err(|e| format!("cannot write an environment: {e}"))?;
        let line = match (args.kind, args.json) {
            (GenKind::Environment, _) => env_doc.to_string(),
            (_, false) => case.input,
            (kind, true) => {
                let (env_doc, extras) = split_extras(env_doc);
                json!({
                    "index": index,
                    "kind": match kind {
                        GenKind::Marker => "marker",
                        _ => "requirement",
                    },
                    "dialect": args.dialect.to_string(),
                    "lock_file": args.lock_file,
                    "input": case.input,
                    "valid": case.near_miss.is_none(),
                    "near_miss": case.near_miss,
                    "environment": env_doc,
                    "extras": extras,
                })
                .to_string()
            }
        };
        if writeln!(out, "{line}").is_err() {
            // A closed pipe (`| head`) ends the output quietly.
            return Ok(ExitCode::SUCCESS);
        }
    }
    if out.flush().is_err() {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::SUCCESS)
}

/// The environment document without its `extra` key, and the extras as a list (the shape of
/// the adapter protocol's `evaluate` requests).
fn split_extras(doc: Value) -> (Value, Value) {
    match doc {
        Value::Object(mut m) => {
            let extras = m.remove("extra").unwrap_or_else(|| json!([]));
            (Value::Object(m), extras)
        }
        other => (other, json!([])),
    }
}
