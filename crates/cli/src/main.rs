//! `markerspec`: parse, evaluate and explain Python environment markers and requirements.
//!
//! Exit codes (stable):
//!
//! | code | `eval` | `parse` | `check` | `env` |
//! | --- | --- | --- | --- | --- |
//! | 0 | the marker is true (or, with `-`, every line was answered) | the input is valid | every requirement is valid | detected |
//! | 1 | the marker is false | — | — | — |
//! | 2 | error: invalid input, unreadable file, bad flag | invalid input | an invalid requirement, or an error | error (an interpreter given with `--python` that fails, an invalid override) |
//! | 3 | the result is unknown (an environment value is unknown) | — | — | — |
//!
//! Without `--env`, `--fixture` or `--set`, `eval` and `check` evaluate against this machine as
//! `markerspec env` detects it.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use markerspec_pep508::{
    Dialect, EnvValue, Environment, Error, Evaluation, Field, MarkerTree, ParseOptions, Profile,
    Requirement, Truth, Warning,
};

mod check_cmd;
mod conformance_cmd;
mod env_cmd;
mod fixtures;
mod json;

/// Parse, evaluate and explain Python environment markers (PEP 508) and their extended
/// GPU/ABI dialect.
#[derive(Parser, Debug)]
#[command(name = "markerspec", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which language to read and how to evaluate it.
#[derive(clap::Args, Debug, Clone, Copy)]
struct Language {
    /// Marker language: `pep508` (the standard) or `extended` (adds GPU/ABI fields).
    #[arg(long, default_value = "pep508")]
    dialect: Dialect,
    /// Behaviour for the standard fields: `spec-2026` (the living specification),
    /// `packaging` (what pypa/packaging 26 does, quirks included) or `uv` (what uv-pep508
    /// 0.0.98 accepts and evaluates: unreadable comparisons dropped, `===` rejected).
    #[arg(long, default_value = "spec-2026")]
    profile: Profile,
    /// Lock-file context: allow the `extras` and `dependency_groups` variables.
    #[arg(long)]
    lock_file: bool,
}

impl Language {
    fn options(self) -> ParseOptions {
        ParseOptions::default()
            .dialect(self.dialect)
            .profile(self.profile)
            .lock_file(self.lock_file)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Detect this machine and print every marker field with its value and where it came from.
    ///
    /// Runs the host's C library loader, the Python interpreter (`python3`, or `--python`) and
    /// the GPU probe, each with a time limit; `MARKERSPEC_<FIELD>` and `CONDA_OVERRIDE_CUDA`
    /// override what is detected. Exits 0, or 2 on error.
    Env(env_cmd::EnvArgs),
    /// List each requirement of a file with whether it applies to this machine (or `--env`).
    ///
    /// Reads requirements files, `pyproject.toml` (dependencies, optional dependencies with
    /// their extra requested, dependency groups) and core metadata (`Requires-Dist`). Exits 0
    /// when every requirement is valid, 2 when one is not or on error.
    Check(check_cmd::CheckArgs),
    /// Run the conformance suite (`spec/vectors/`) against markerspec and against external
    /// implementations through adapters (`spec/PROTOCOL.md`), and print a matrix.
    ///
    /// Exits 0 when every implementation passes or diverges only as declared, 1 otherwise,
    /// 2 on error.
    Conformance(conformance_cmd::ConformanceArgs),
    /// Parse a requirement or marker and print its canonical form (or its syntax tree as JSON).
    Parse {
        #[command(flatten)]
        lang: Language,
        /// Print the syntax tree, with byte spans, as JSON.
        #[arg(long)]
        json: bool,
        /// A marker or a whole requirement line; `-` reads one per line from stdin.
        text: String,
    },
    /// Evaluate a marker (or a requirement's marker) against an environment.
    ///
    /// Prints `true`, `false` or `unknown: FIELDS`; exits 0, 1 or 3 accordingly, 2 on error.
    Eval {
        #[command(flatten)]
        lang: Language,
        /// A JSON file: field name → string (a list of strings for set fields); `null` is
        /// Unknown, `""` or `[]` is Absent for extended fields.
        #[arg(long, value_name = "FILE")]
        env: Option<std::path::PathBuf>,
        /// A built-in environment fixture, e.g. `linux-x86_64-cpython-3.12` (see
        /// `--fixture list`).
        #[arg(long, value_name = "NAME", conflicts_with = "env")]
        fixture: Option<String>,
        /// Set one field: `FIELD=VALUE`; comma-separated for set fields; an empty value is
        /// Absent for extended fields; `FIELD=?` is Unknown. Repeatable.
        #[arg(long = "set", value_name = "FIELD=VALUE")]
        set: Vec<String>,
        /// Request an extra (for `extra == "…"`). Repeatable.
        #[arg(long = "extra", value_name = "NAME")]
        extras: Vec<String>,
        /// Show every comparison with the value its field had and what it evaluated to.
        #[arg(long)]
        explain: bool,
        /// A marker or a whole requirement line; `-` reads one per line from stdin.
        text: String,
    },
}

fn main() -> ExitCode {
    // Detection runs this program again as its isolated GPU probe (when no
    // `markerspec-gpu-probe` sits beside it).
    markerspec_env::run_probe_if_requested();
    // SIGINT, SIGTERM, SIGHUP and SIGQUIT take the children (the interpreter, the GPU probe,
    // conformance adapters) with this process, each with its whole process group.
    if let Err(error) = markerspec_process::kill_children_on_signal() {
        eprintln!("markerspec: warning: children may outlive an interrupt: {error}");
    }
    match try_main() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("markerspec: {message}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> Result<ExitCode, String> {
    let cli = Cli::parse();
    match cli.command {
        Command::Env(args) => env_cmd::run(args),
        Command::Check(args) => check_cmd::run(args),
        Command::Conformance(args) => conformance_cmd::run(args),
        Command::Parse { lang, json, text } => parse_command(lang, json, &text),
        Command::Eval {
            lang,
            env,
            fixture,
            set,
            extras,
            explain,
            text,
        } => {
            let env = build_environment(env.as_deref(), fixture.as_deref(), &set, &extras)?;
            eval_command(lang, &env, explain, &text)
        }
    }
}

/// What the user typed: a bare marker or a requirement line.
enum Parsed {
    Marker(MarkerTree),
    Requirement(Requirement),
}

impl Parsed {
    fn marker(&self) -> Option<&MarkerTree> {
        match self {
            Parsed::Marker(m) => Some(m),
            Parsed::Requirement(r) => r.marker(),
        }
    }
}

/// Reads TEXT as a marker when it is one, else as a requirement. When both fail, the error
/// shown is the one of the reading the text most looks like.
fn parse_text(text: &str, lang: Language) -> Result<(Parsed, Vec<Warning>), Error> {
    let opts = lang.options();
    let dialect = lang.dialect;
    let mut warnings = Vec::new();
    let marker_err = match MarkerTree::parse_with(text, &opts, &mut warnings) {
        Ok(m) => return Ok((Parsed::Marker(m), warnings)),
        Err(e) => e,
    };
    warnings.clear();
    match Requirement::parse_with(text, &opts, &mut warnings) {
        // `python_version>=3.8` is a valid requirement for a package named python_version,
        // but nobody means that: report the marker error.
        Ok(r) if r.marker().is_none() && looks_like_marker(text, dialect) => Err(marker_err),
        Ok(r) => Ok((Parsed::Requirement(r), warnings)),
        Err(req_err) => {
            if looks_like_marker(text, dialect) {
                Err(marker_err)
            } else {
                Err(req_err)
            }
        }
    }
}

fn looks_like_marker(text: &str, dialect: Dialect) -> bool {
    let t = text.trim_start_matches([' ', '\t']);
    if t.starts_with(['"', '\'', '(']) {
        return true;
    }
    let word: String = t
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    // Extended names count in either dialect, so that the pep508 dialect reports "this is an
    // extended field" rather than a requirement syntax error.
    let _ = dialect;
    Field::from_name(&word, Dialect::Extended).is_some()
}

fn print_warnings(text: &str, warnings: &[Warning]) {
    for w in warnings {
        eprint!("{}", w.render(text));
    }
}

fn parse_command(lang: Language, json: bool, text: &str) -> Result<ExitCode, String> {
    if text == "-" {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        for line in stdin.lock().lines() {
            let line = line.map_err(|e| format!("cannot read stdin: {e}"))?;
            let answer = match parse_text(&line, lang) {
                Ok((p, _)) if json => json::parsed(&p_as_json(&p)).to_string(),
                Ok((p, _)) => canonical(&p),
                Err(e) => format!("error: {}", e.code()),
            };
            writeln!(out, "{answer}").map_err(|e| e.to_string())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    match parse_text(text, lang) {
        Ok((p, warnings)) => {
            print_warnings(text, &warnings);
            if json {
                let v = p_as_json(&p);
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json::parsed(&v)).map_err(|e| e.to_string())?
                );
            } else {
                println!("{}", canonical(&p));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprint!("{}", e.render(text));
            Ok(ExitCode::from(2))
        }
    }
}

fn p_as_json(p: &Parsed) -> json::Input<'_> {
    match p {
        Parsed::Marker(m) => json::Input::Marker(m),
        Parsed::Requirement(r) => json::Input::Requirement(r),
    }
}

fn canonical(p: &Parsed) -> String {
    match p {
        Parsed::Marker(m) => m.to_string(),
        Parsed::Requirement(r) => r.to_string(),
    }
}

fn eval_command(
    lang: Language,
    env: &Environment,
    explain: bool,
    text: &str,
) -> Result<ExitCode, String> {
    if text == "-" {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        for line in stdin.lock().lines() {
            let line = line.map_err(|e| format!("cannot read stdin: {e}"))?;
            let answer = match parse_text(&line, lang) {
                Err(e) => format!("error: {}", e.code()),
                Ok((p, _)) => match evaluate(&p, env) {
                    Ok(e) => answer_line(&e),
                    Err(e) => format!("error: {}", e.code()),
                },
            };
            writeln!(out, "{answer}").map_err(|e| e.to_string())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (parsed, warnings) = match parse_text(text, lang) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", e.render(text));
            return Ok(ExitCode::from(2));
        }
    };
    print_warnings(text, &warnings);
    if explain {
        if let Some(m) = parsed.marker() {
            print!("{}", explain_marker(m, env, text, lang.profile));
        } else {
            println!("no marker: the requirement applies everywhere");
        }
    }
    match evaluate(&parsed, env) {
        Ok(e) => {
            println!("{}", answer_line(&e));
            Ok(ExitCode::from(match e.truth {
                Truth::True => 0,
                Truth::False => 1,
                Truth::Unknown => 3,
            }))
        }
        Err(e) => {
            eprint!(
                "{}",
                e.render(if parsed.marker().is_some() { text } else { "" })
            );
            Ok(ExitCode::from(2))
        }
    }
}

fn evaluate(p: &Parsed, env: &Environment) -> Result<Evaluation, Error> {
    match p.marker() {
        None => Ok(Evaluation {
            truth: Truth::True,
            unknown: Default::default(),
        }),
        Some(m) => m.evaluate_tristate(env),
    }
}

fn answer_line(e: &Evaluation) -> String {
    match e.truth {
        Truth::True => "true".into(),
        Truth::False => "false".into(),
        Truth::Unknown => {
            let names: Vec<&str> = e.unknown.iter().map(|f| f.name()).collect();
            format!("unknown: {}", names.join(","))
        }
    }
}

fn describe_value(env: &Environment, f: Field) -> String {
    if f == Field::Extra {
        let extras: Vec<&str> = env.extras().collect();
        return if extras.is_empty() {
            "no extra requested".into()
        } else {
            format!("requested extras {extras:?}")
        };
    }
    match env.get(f) {
        None => "not set (unknown)".into(),
        Some(EnvValue::String(s)) => format!("{s:?}"),
        Some(EnvValue::Set(items)) => format!("{items:?}"),
        Some(EnvValue::Absent) => "absent".into(),
        Some(EnvValue::Unknown) => "unknown".into(),
    }
}

fn explain_marker(m: &MarkerTree, env: &Environment, text: &str, profile: Profile) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for e in m.expressions() {
        let result = match e.evaluate(env, profile) {
            Ok(r) => r.truth.to_string(),
            Err(err) => format!("error {}", err.code()),
        };
        let span = e.span();
        let written = text.get(span.start..span.end).unwrap_or("");
        let shown = if written.is_empty() {
            e.to_string()
        } else {
            written.to_string()
        };
        let values: Vec<String> = [e.lhs().as_field(), e.rhs().as_field()]
            .into_iter()
            .flatten()
            .map(|f| format!("{f} = {}", describe_value(env, f)))
            .collect();
        let _ = writeln!(out, "{result:>7}  {shown}    [{}]", values.join("; "));
    }
    out
}

fn build_environment(
    file: Option<&std::path::Path>,
    fixture: Option<&str>,
    sets: &[String],
    extras: &[String],
) -> Result<Environment, String> {
    let mut env = if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read environment file {}: {e}", path.display()))?;
        serde_json::from_str::<Environment>(&text)
            .map_err(|e| format!("invalid environment file {}: {e}", path.display()))?
    } else if let Some(name) = fixture {
        fixtures::load(name)?
    } else if sets.is_empty() {
        // No environment given: this machine, as `markerspec env` detects it.
        env_cmd::detected_environment()?
    } else {
        Environment::new()
    };
    for s in sets {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| format!("--set expects FIELD=VALUE, got `{s}`"))?;
        let field = Field::from_name(name.trim(), Dialect::Extended)
            .ok_or_else(|| format!("--set: unknown marker field `{name}`"))?;
        // The same text form and checks as the `MARKERSPEC_<FIELD>` overrides.
        let value = if value == "?" {
            EnvValue::Unknown
        } else {
            EnvValue::from_text(field, value).map_err(|e| format!("--set: {e}"))?
        };
        if field == Field::Extra {
            env = env.with_extras([value_text(&value)]);
            continue;
        }
        env.set(field, value).map_err(|e| format!("--set: {e}"))?;
    }
    if !extras.is_empty() {
        let mut all: Vec<String> = env.extras().map(str::to_string).collect();
        all.extend(extras.iter().cloned());
        env = env.with_extras(all);
    }
    Ok(env)
}

fn value_text(v: &EnvValue) -> String {
    match v {
        EnvValue::String(s) => s.to_string(),
        _ => String::new(),
    }
}
