//! `markerspec parse` and `markerspec eval`: one text given as an argument, or one per line of
//! stdin (`-`, see [`crate::batch`]).

use std::io::Write;
use std::process::ExitCode;

use markerspec_pep508::{EnvValue, Environment, Error, Evaluation, Field, MarkerTree, Truth};

use crate::Language;
use crate::batch::{Batch, Mode, answer_text, table_header, table_row};
use crate::envs::EnvOptions;
use crate::text::{Parsed, parse_text, render_error, render_warning};

/// Arguments of `markerspec parse`.
#[derive(clap::Args, Debug)]
pub(crate) struct ParseArgs {
    #[command(flatten)]
    lang: Language,
    /// Print the syntax tree, with byte spans, as JSON (one line per input line with `-`).
    #[arg(long)]
    json: bool,
    /// With `-`: threads answering the lines (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// A marker or a whole requirement line; `-` reads one per line from stdin.
    text: String,
}

/// Arguments of `markerspec eval`.
#[derive(clap::Args, Debug)]
pub(crate) struct EvalArgs {
    #[command(flatten)]
    lang: Language,
    #[command(flatten)]
    envs: EnvOptions,
    /// Show every comparison with the value its field had and what it evaluated to.
    #[arg(long)]
    explain: bool,
    /// Print the answers as JSON: per environment, the result and the fields that made it
    /// unknown (one line per input line with `-`).
    #[arg(long, conflicts_with = "explain")]
    json: bool,
    /// Print the residual marker instead of `unknown: FIELDS`: the marker left over the fields
    /// the environment leaves Unknown or missing (`true` / `false` when they do not matter).
    /// Exit codes as without it.
    #[arg(long, conflicts_with_all = ["explain", "json"])]
    residual: bool,
    /// With `-`: threads answering the lines (default: the number of cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// A marker or a whole requirement line; `-` reads one per line from stdin. (Not needed
    /// with `--fixture list`.)
    text: Option<String>,
}

fn jobs(n: Option<u16>) -> Option<usize> {
    n.map(usize::from)
}

fn run_batch(batch: &Batch<'_>) -> Result<ExitCode, String> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match batch.run(stdin.lock(), &mut out) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // The reader went away (`markerspec eval - | head`): not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(format!("cannot answer stdin: {e}")),
    }
}

pub(crate) fn parse(args: ParseArgs) -> Result<ExitCode, String> {
    let opts = args.lang.options();
    if args.text == "-" {
        return run_batch(&Batch {
            // Each line is printed once and never evaluated: nothing to prepare.
            opts: opts.prepare_evaluation(false),
            mode: Mode::Parse { json: args.json },
            jobs: jobs(args.jobs),
        });
    }
    let text = &args.text;
    let mut warnings = Vec::new();
    match parse_text(text, &opts, &mut warnings) {
        Ok(p) => {
            for w in &warnings {
                eprint!("{}", render_warning(w, text));
            }
            if args.json {
                let doc = crate::json::parsed(&p.as_json());
                println!(
                    "{}",
                    serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
                );
            } else {
                println!("{}", p.canonical());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprint!("{}", render_error(&e, text));
            Ok(ExitCode::from(2))
        }
    }
}

pub(crate) fn eval(args: EvalArgs) -> Result<ExitCode, String> {
    if args.envs.wants_fixture_list() {
        print!("{}", crate::envs::fixture_list());
        return Ok(ExitCode::SUCCESS);
    }
    let text = args
        .text
        .as_deref()
        .ok_or("eval needs a marker or a requirement, or `-` to read them from stdin")?;
    let envs = args.envs.build()?;
    let opts = args.lang.options();
    if text == "-" {
        if args.residual {
            return Err("`--residual` takes one marker, not `-`".into());
        }
        return run_batch(&Batch {
            // Each line is evaluated once per environment: with one or two, preparing the
            // evaluation ahead costs more than it saves.
            opts: opts.prepare_evaluation(envs.len() > 2),
            mode: Mode::Eval {
                envs: &envs,
                json: args.json,
            },
            jobs: jobs(args.jobs),
        });
    }
    let mut warnings = Vec::new();
    let parsed = match parse_text(text, &opts, &mut warnings) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", render_error(&e, text));
            return Ok(ExitCode::from(2));
        }
    };
    for w in &warnings {
        eprint!("{}", render_warning(w, text));
    }
    let answers: Vec<Result<Evaluation, Error>> =
        envs.iter().map(|e| evaluate(&parsed, &e.env)).collect();
    if args.residual {
        let mut code = 0;
        for (named, answer) in envs.iter().zip(&answers) {
            let line = match (parsed.marker(), answer) {
                (_, Err(e)) => {
                    eprint!("{}", render_error(e, text));
                    code = 2;
                    continue;
                }
                (None, Ok(_)) => "true".to_owned(),
                (Some(m), Ok(_)) => crate::algebra_cmd::residual(m, &named.env)?,
            };
            code = code.max(match line.as_str() {
                "true" => 0,
                "false" => 1,
                _ => 3,
            });
            if envs.len() > 1 {
                println!("{}: {line}", named.name);
            } else {
                println!("{line}");
            }
        }
        return Ok(ExitCode::from(code));
    }
    if args.explain {
        for (k, named) in envs.iter().enumerate() {
            if envs.len() > 1 {
                println!("[{}] {}", k + 1, named.name);
            }
            match parsed.marker() {
                Some(m) => print!("{}", explain_marker(m, &named.env, text)),
                None => println!("no marker: the requirement applies everywhere"),
            }
        }
    }
    let mut out = std::io::stdout().lock();
    let write = |out: &mut std::io::StdoutLock<'_>, s: &str| {
        out.write_all(s.as_bytes()).map_err(|e| e.to_string())
    };
    if args.json {
        let doc = crate::json::answers(text, &envs, Ok(&answers));
        write(
            &mut out,
            &format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
            ),
        )?;
    } else if envs.len() > 1 {
        write(&mut out, &table_header(&envs))?;
        write(&mut out, &table_row(text, &envs, Ok(&answers)))?;
    }
    let mut code = 0;
    for answer in &answers {
        match answer {
            Ok(e) => {
                if envs.len() == 1 && !args.json {
                    write(&mut out, &format!("{}\n", answer_text(e)))?;
                }
                code = code.max(match e.truth {
                    Truth::True => 0,
                    Truth::False => 1,
                    Truth::Unknown => 3,
                });
            }
            Err(e) => {
                // Evaluation errors point into the text the marker was read from.
                let input = if parsed.marker().is_some() { text } else { "" };
                eprint!("{}", render_error(e, input));
                code = 2;
            }
        }
    }
    Ok(ExitCode::from(code))
}

/// The marker's evaluation (or true for a requirement without one).
pub(crate) fn evaluate(p: &Parsed, env: &Environment) -> Result<Evaluation, Error> {
    match p.marker() {
        None => Ok(Evaluation {
            truth: Truth::True,
            unknown: Default::default(),
        }),
        Some(m) => m.evaluate_tristate(env),
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

/// One line per comparison, evaluated under the profile the marker was parsed with.
fn explain_marker(m: &MarkerTree, env: &Environment, text: &str) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for e in m.expressions() {
        let result = match e.evaluate(env, m.profile()) {
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
