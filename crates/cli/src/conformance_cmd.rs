//! `markerspec conformance`: run the conformance suite against the built-in implementation and
//! against external implementations speaking the adapter protocol (`spec/PROTOCOL.md`).
//!
//! Exit codes: 0 when every implementation passes each case it claims, or diverges only as it
//! declared; 1 when a case fails or an adapter crashes, hangs or breaks the protocol; 2 on a
//! usage error (unreadable vectors, bad flag).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use markerspec_conformance::builtin::Markerspec;
use markerspec_conformance::protocol::{self, Adapter, ServeInfo};
use markerspec_conformance::{Cases, Dialect, Profile, Report, Runner, report};

/// Arguments of `markerspec conformance`.
#[derive(clap::Args, Debug)]
pub(crate) struct ConformanceArgs {
    /// An implementation to test: `builtin` (markerspec itself), or a command that speaks the
    /// adapter protocol, run by the shell (e.g. `.venv/bin/python adapters/packaging/adapter.py`).
    /// Repeatable; default `builtin`.
    #[arg(long = "adapter", value_name = "CMD")]
    adapters: Vec<String>,
    /// Check only this profile (`spec-2026`, `packaging`, `uv`). Repeatable; default: every
    /// profile each implementation claims.
    #[arg(long = "profile", value_name = "PROFILE")]
    profiles: Vec<String>,
    /// Include / exclude cases: `versions,-versions/prerelease-104,@urls` (a prefix of
    /// `group/name`, a group, `@category`, or a `*` glob; `-` excludes). Adds to
    /// `MARKERSPEC_TEST`.
    #[arg(long, value_name = "TERMS")]
    filter: Option<String>,
    /// Run only the cases that failed, crashed or were not run in a report written by `--json`
    /// (any implementation's), within `--filter`.
    #[arg(long, value_name = "REPORT.json")]
    rerun_failures: Option<PathBuf>,
    /// Print the full report as JSON on stdout instead of the matrix: every row with its input,
    /// expected outcome, observation, and for failures the message and the cause.
    #[arg(long)]
    json: bool,
    /// With `--json`, also report the rows of profiles an implementation does not claim (each
    /// a skip); by default only the claimed profiles are reported.
    #[arg(long, requires = "json")]
    all_profiles: bool,
    /// Also write a self-contained HTML page (no network access, no external assets): the
    /// implementation × category matrix and every divergence between the tools and the
    /// specification, filterable by tool, category and text, each case linkable as `#CASE`.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Also write the results as JUnit XML.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the table of cases where the external tools disagree with each other or
    /// with the specification (`spec/DIVERGENCES.md`).
    #[arg(long, value_name = "FILE")]
    divergences: Option<PathBuf>,
    /// Run these vector files (or every `*.json` of these directories) instead of the
    /// shipped ones. Repeatable.
    #[arg(long = "vectors", value_name = "PATH")]
    vectors: Vec<PathBuf>,
    /// Environment fixtures that the vectors name, from every `*.json` of this directory
    /// (besides the shipped ones). Repeatable.
    #[arg(long = "environments", value_name = "DIR")]
    environments: Vec<PathBuf>,
    /// Time limit in seconds for each adapter response.
    #[arg(long, value_name = "SECS", default_value = "10")]
    timeout: f64,
    /// Print every failure (by default the ten largest causes, three examples each).
    #[arg(long)]
    verbose: bool,
    /// Serve the built-in implementation over the adapter protocol on stdin and stdout,
    /// instead of running the suite.
    #[arg(long, conflicts_with_all = ["adapters", "json", "junit", "divergences", "html"])]
    serve: bool,
}

pub(crate) fn run(args: ConformanceArgs) -> Result<ExitCode, String> {
    crate::guard_children();
    if args.serve {
        let info = ServeInfo::new(
            "markerspec",
            env!("CARGO_PKG_VERSION"),
            &[Profile::Spec2026, Profile::Packaging, Profile::Uv],
            &[Dialect::Pep508, Dialect::Extended],
            true,
        )
        .divergences(Markerspec::BLACKLIST);
        let stdin = std::io::stdin();
        protocol::serve(
            &mut Markerspec::new(),
            &info,
            stdin.lock(),
            std::io::stdout(),
        )
        .map_err(|e| format!("adapter protocol: {e}"))?;
        return Ok(ExitCode::SUCCESS);
    }
    if !(args.timeout > 0.0 && args.timeout <= 3600.0) {
        return Err(format!(
            "--timeout {} is not between 0 and 3600 seconds",
            args.timeout
        ));
    }
    let cases = load_cases(&args)?;
    let profiles = args
        .profiles
        .iter()
        .map(|p| p.parse::<Profile>())
        .collect::<Result<Vec<_>, _>>()?;
    let mut runner = Runner::new();
    if let Some(f) = &args.filter {
        runner = runner.filter(f);
    }
    if let Some(path) = &args.rerun_failures {
        let names = failed_cases(path)?;
        if names.is_empty() {
            return Err(format!(
                "{} records no failure: nothing to rerun",
                path.display()
            ));
        }
        runner = runner.only(names);
    }
    let selected = cases.iter().filter(|c| runner.selects(c)).count();
    if selected == 0 {
        return Err(match (&args.filter, &args.rerun_failures) {
            (_, Some(path)) => format!(
                "none of the {} cases is both selected by the filter and failed in {}",
                cases.len(),
                path.display()
            ),
            (Some(f), None) => format!(
                "--filter `{f}` selects none of the {} cases (terms: a prefix of `group/name`, a \
                 group, `@category`, a `*` glob; `-` excludes)",
                cases.len()
            ),
            (None, None) => match std::env::var("MARKERSPEC_TEST") {
                Ok(v) => format!(
                    "MARKERSPEC_TEST=`{v}` selects none of the {} cases",
                    cases.len()
                ),
                Err(_) => "there are no cases to run".to_string(),
            },
        });
    }
    if !profiles.is_empty() {
        runner = runner.profiles(&profiles);
    }
    let adapters = if args.adapters.is_empty() {
        vec!["builtin".to_string()]
    } else {
        args.adapters.clone()
    };
    let timeout = Duration::from_secs_f64(args.timeout);
    let mut reports: Vec<Report> = Vec::new();
    for spec in &adapters {
        let mut report = if spec == "builtin" {
            let mut r = runner
                .clone()
                .blacklist(Markerspec::BLACKLIST)
                .run(&cases, &mut Markerspec::new());
            r.version = Some(env!("CARGO_PKG_VERSION").to_string());
            r
        } else {
            let mut adapter = Adapter::start(spec, timeout);
            let mut r = if adapter.hello().is_none() {
                // Refused or failed its handshake: one clear line, not a row per case.
                let mut r = runner.clone().only([]).run(&cases, &mut adapter);
                r.implementation = spec.clone();
                r.unusable = Some(adapter.problem().unwrap_or("no handshake").to_string());
                r
            } else {
                runner
                    .clone()
                    .divergences(adapter.divergences())
                    .run(&cases, &mut adapter)
            };
            if let Some(p) = adapter.problem() {
                r.notes.push(format!("`{spec}` is unusable: {p}"));
            }
            if let Some(h) = adapter.hello() {
                r.version = Some(h.version.clone()).filter(|v| !v.is_empty());
                r.notes
                    .insert(0, format!("{} {} (`{spec}`)", h.name, h.version));
            }
            if adapter.restarts() > 0 {
                r.notes.push(format!(
                    "restarted {} times after crashes",
                    adapter.restarts()
                ));
            }
            // Crashes the adapter reported are shown with the failures, grouped by cause;
            // the notes keep what the adapter did wrong as a process (timeouts, protocol).
            let events: Vec<&String> = adapter
                .events()
                .iter()
                .filter(|e| !e.contains("): reported crash: "))
                .collect();
            r.notes
                .extend(events.iter().take(50).map(|e| e.to_string()));
            if events.len() > 50 {
                r.notes.push(format!("… {} more events", events.len() - 50));
            }
            r
        };
        // Two adapters with the same name stay apart in the matrix.
        let base = report.implementation.clone();
        let mut n = 2;
        while reports
            .iter()
            .any(|r| r.implementation == report.implementation)
        {
            report.implementation = format!("{base}#{n}");
            n += 1;
        }
        reports.push(report);
    }

    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&reports))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.divergences {
        std::fs::write(path, report::divergences(&cases, &reports))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.html {
        std::fs::write(path, report::html(&cases, &reports))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let ok = reports.iter().all(Report::ok);
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "protocol": protocol::PROTOCOL,
            "cases": cases.len(),
            "selected": selected,
            "ok": ok,
            "implementations": reports
                .iter()
                .map(|r| r.to_json_with(args.all_profiles))
                .collect::<Vec<_>>(),
        });
        writeln!(out, "{doc}").map_err(|e| e.to_string())?;
    } else {
        // Names, notes and failure details hold what adapters said: control characters are
        // printed escaped, so that an adapter cannot forge or rewrite lines of the report.
        let esc = markerspec_process::escape_control;
        for r in &reports {
            let name = esc(&r.implementation);
            for n in &r.notes {
                writeln!(out, "{name}: {}", esc(n)).map_err(|e| e.to_string())?;
            }
            print_causes(&mut out, r, args.verbose).map_err(|e| e.to_string())?;
        }
        if reports
            .iter()
            .any(|r| !r.notes.is_empty() || !r.failures().is_empty())
        {
            writeln!(out).map_err(|e| e.to_string())?;
        }
        write!(out, "{}", report::matrix(&reports)).map_err(|e| e.to_string())?;
        let ran: Vec<String> = reports
            .iter()
            .map(|r| {
                let n = r
                    .results
                    .iter()
                    .filter(|x| x.claimed && x.status != markerspec_conformance::Status::Skip)
                    .count();
                format!("{} {n}", esc(&r.implementation))
            })
            .collect();
        writeln!(
            out,
            "\n{selected} of {} cases selected; checks run: {}; {}",
            cases.len(),
            ran.join(", "),
            if ok {
                "every implementation passes or diverges as declared"
            } else {
                "FAILED"
            }
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn load_cases(args: &ConformanceArgs) -> Result<Cases, String> {
    if args.vectors.is_empty() && args.environments.is_empty() {
        return Ok(Cases::all());
    }
    let mut cases = Cases::new();
    for dir in &args.environments {
        regular_files_only(dir)?;
        cases.load_fixture_dir(dir).map_err(|e| e.to_string())?;
    }
    if args.vectors.is_empty() {
        return Err("--environments needs --vectors".into());
    }
    for path in &args.vectors {
        regular_files_only(path)?;
        let r = if path.is_dir() {
            cases.load_dir(path)
        } else {
            cases.load_file(path)
        };
        r.map_err(|e| format!("cannot load vectors: {e}"))?;
    }
    Ok(cases)
}

/// The full names of the cases that failed, crashed or were not run in a `--json` report.
fn failed_cases(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a `--json` report: {e}", path.display()))?;
    let Some(imps) = doc.get("implementations").and_then(|v| v.as_array()) else {
        return Err(format!(
            "{} is not a `--json` report: no `implementations` list",
            path.display()
        ));
    };
    let mut names = std::collections::BTreeSet::new();
    for imp in imps {
        for row in imp
            .get("results")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let status = row.get("status").and_then(|v| v.as_str()).unwrap_or("");
            if matches!(status, "fail" | "crash" | "not-run")
                && let Some(c) = row.get("case").and_then(|v| v.as_str())
            {
                names.insert(c.to_string());
            }
        }
    }
    Ok(names.into_iter().collect())
}

/// The failures of one implementation, grouped by cause, the largest group first, each with
/// examples (input, expected, observed, message); then the categories one cause multiplies.
fn print_causes(out: &mut impl Write, r: &Report, verbose: bool) -> std::io::Result<()> {
    let esc = markerspec_process::escape_control;
    let name = esc(&r.implementation);
    let causes = r.causes();
    if causes.is_empty() {
        return Ok(());
    }
    let total: usize = causes.iter().map(|c| c.results.len()).sum();
    writeln!(
        out,
        "{name}: {total} failures, {} causes (largest first):",
        causes.len()
    )?;
    let (shown_causes, examples) = if verbose {
        (causes.len(), usize::MAX)
    } else {
        (10, 3)
    };
    for (n, c) in causes.iter().enumerate().take(shown_causes) {
        let cats: Vec<String> = c
            .categories
            .iter()
            .map(|(cat, k)| format!("{} {k}", esc(cat)))
            .collect();
        writeln!(
            out,
            "{name}: #{} {}x {}\n{name}:     categories: {}",
            n + 1,
            c.results.len(),
            esc(&c.cause),
            cats.join(", ")
        )?;
        for &i in c.results.iter().take(examples) {
            let x = &r.results[i];
            writeln!(
                out,
                "{name}:     {} [{}] {}",
                x.case,
                x.profile,
                x.status.as_str()
            )?;
            writeln!(
                out,
                "{name}:       input:    {}",
                esc(&format!("{:?}", x.input))
            )?;
            writeln!(out, "{name}:       expected: {}", esc(&x.expected_text()))?;
            writeln!(
                out,
                "{name}:       observed: {}",
                esc(&x.observed.describe())
            )?;
            if let Some(m) = x.message() {
                writeln!(out, "{name}:       message:  {}", esc(&m))?;
            }
            writeln!(
                out,
                "{name}:       why:      {}",
                esc(&x.details.join("; "))
            )?;
        }
        if c.results.len() > examples {
            writeln!(
                out,
                "{name}:     … {} more (--verbose shows every one)",
                c.results.len() - examples
            )?;
        }
    }
    if causes.len() > shown_causes {
        let rest: usize = causes[shown_causes..].iter().map(|c| c.results.len()).sum();
        writeln!(
            out,
            "{name}: … {} more causes, {rest} failures (--verbose shows them)",
            causes.len() - shown_causes
        )?;
    }
    for (cat, total, k, i) in r.multiplied(&causes) {
        writeln!(
            out,
            "{name}: {k} of the {total} failures in category {} come from cause #{}",
            esc(&cat),
            i + 1
        )?;
    }
    Ok(())
}

/// Refuses a vectors or environments path that would block or never end when read (a FIFO, a device), or a
/// folder holding one among its `*.json`, before anything is opened; and files over 64 MiB.
fn regular_files_only(path: &std::path::Path) -> Result<(), String> {
    const LIMIT: u64 = 64 << 20;
    let check = |p: &std::path::Path| {
        let meta = std::fs::metadata(p)
            .map_err(|e| format!("cannot load vectors: {}: {e}", p.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "cannot load vectors: {} is not a regular file (a FIFO or device); give a file or a folder",
                p.display()
            ));
        }
        if meta.len() > LIMIT {
            return Err(format!(
                "cannot load vectors: {} is larger than the limit of {LIMIT} bytes",
                p.display()
            ));
        }
        Ok(())
    };
    if path.is_dir() {
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("cannot load vectors: {}: {e}", path.display()))?;
        for entry in entries.flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|x| x == "json") {
                check(&p)?;
            }
        }
        Ok(())
    } else {
        check(path)
    }
}
