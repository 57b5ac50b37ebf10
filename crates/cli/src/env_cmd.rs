//! `markerspec env`: detect this machine (or load a fixture) and print every field with its
//! value and provenance.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use markerspec_env::{DetectOptions, Facts, FixtureProvider};
use markerspec_pep508::EnvValue;

/// Arguments of `markerspec env`.
#[derive(clap::Args, Debug)]
pub(crate) struct EnvArgs {
    /// Print the environment document (SPEC §11) as JSON, loadable by `eval --env`.
    #[arg(long)]
    json: bool,
    /// With `--json`: print `{"environment": …, "provenance": …, "warnings": …}` instead.
    #[arg(long, requires = "json")]
    provenance: bool,
    /// The Python interpreter to ask (default: `python3` on PATH). It is executed.
    #[arg(long, value_name = "PATH", conflicts_with = "fixture")]
    python: Option<OsString>,
    /// Show a built-in fixture instead of detecting (see `spec/environments/`).
    #[arg(long, value_name = "NAME")]
    fixture: Option<String>,
    /// Do not probe GPUs: the GPU fields are Unknown.
    #[arg(long, conflicts_with = "fixture")]
    no_gpu: bool,
    /// Time limit in seconds for each detection program (the interpreter, the GPU probe).
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_seconds)]
    timeout: Duration,
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 86_400.0) {
        return Err(format!("`{text}` is not between 0 and 86400 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn print_warnings(facts: &Facts) {
    for warning in facts.warnings() {
        eprintln!("markerspec: warning: {warning}");
    }
}

pub(crate) fn run(args: EnvArgs) -> Result<ExitCode, String> {
    crate::guard_children();
    let facts = match &args.fixture {
        Some(name) => FixtureProvider::builtin(name)
            .map_err(|e| e.message().to_owned())?
            .facts(),
        None => DetectOptions {
            python: args.python.clone(),
            gpu: !args.no_gpu,
            timeout: args.timeout,
            vars: std::env::vars_os().collect(),
        }
        .detect()
        .map_err(|e| e.to_string())?,
    };
    print_warnings(&facts);
    if args.json && args.provenance {
        let environment: serde_json::Value =
            serde_json::from_str(&facts.to_json()).map_err(|e| e.to_string())?;
        let doc = serde_json::json!({
            "environment": environment,
            "provenance": facts.provenance_json(),
            "warnings": facts.warnings(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else if args.json {
        println!("{}", facts.to_json());
    } else {
        print!("{}", table(&facts));
    }
    Ok(ExitCode::SUCCESS)
}

/// How a value reads in the table.
fn shown(value: &EnvValue) -> String {
    match value {
        EnvValue::String(s) if s.is_empty() => "\"\"".into(),
        EnvValue::String(s) => s.to_string(),
        EnvValue::Set(items) => {
            let items: Vec<&str> = items.iter().map(|s| &**s).collect();
            format!("[{}]", items.join(", "))
        }
        EnvValue::Absent => "absent".into(),
        EnvValue::Unknown => "unknown".into(),
    }
}

/// The table for people: field, value, provenance.
fn table(facts: &Facts) -> String {
    use std::fmt::Write;
    const VALUE_WIDTH: usize = 36;
    const WIDTH: usize = 100;
    let rows: Vec<(&str, String, String)> = facts
        .iter()
        .map(|(field, fact)| {
            (
                field.name(),
                shown(&fact.value),
                fact.provenance.to_string(),
            )
        })
        .collect();
    let field_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(5);
    let value_width = rows
        .iter()
        .map(|r| r.1.chars().count())
        .filter(|w| *w <= VALUE_WIDTH)
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:field_width$}  {:value_width$}  SOURCE",
        "FIELD", "VALUE"
    );
    // Every line fits in WIDTH columns: a source that does not fit beside the value goes on
    // the next line, under the value; what still does not fit is shortened with `…`.
    let indent = field_width + 2;
    for (field, value, source) in rows {
        let value = fit(&value, WIDTH - indent);
        if value.chars().count() > value_width {
            // A long value (a kernel build string) gets its own line.
            let _ = writeln!(out, "{field:field_width$}  {value}");
            let _ = writeln!(out, "{:indent$}{}", "", fit(&source, WIDTH - indent));
        } else if indent + value_width + 2 + source.chars().count() <= WIDTH {
            let _ = writeln!(out, "{field:field_width$}  {value:value_width$}  {source}");
        } else {
            let _ = writeln!(out, "{field:field_width$}  {value}");
            let _ = writeln!(out, "{:indent$}{}", "", fit(&source, WIDTH - indent));
        }
    }
    out
}

/// TEXT cut to WIDTH characters, ending in `…` when cut.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}
