//! `markerspec fuzz`: a differential fuzzer over conformance adapters. Generated cases run
//! through markerspec (under the profile each adapter claims) and through each adapter; every
//! disagreement, crash, hang or protocol violation is shrunk, grouped by cause, and written as
//! conformance vectors.
//!
//! Exits 0 when it ran, whatever it found; 2 on error (an adapter that cannot start, a bad
//! flag, an output folder that cannot be written).

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use markerspec_conformance::fuzz::{Fuzzer, Progress, Settings, Target};
use markerspec_conformance::protocol::Adapter;
use markerspec_conformance::{Dialect, Profile};

/// Arguments of `markerspec fuzz`.
#[derive(clap::Args, Debug)]
pub(crate) struct FuzzArgs {
    /// An implementation to fuzz: a command that speaks the adapter protocol
    /// (`spec/PROTOCOL.md`), run by the shell. Repeatable.
    #[arg(long = "adapter", value_name = "CMD", required = true)]
    adapters: Vec<String>,
    /// How long to run: `90s`, `10m`, `1h` or seconds (default 60s unless `--cases` is given).
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    duration: Option<Duration>,
    /// How many cases to run (with `--duration`, whichever comes first).
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// The seed: the same seed runs the same cases in the same order.
    #[arg(long, default_value = "0", value_name = "S")]
    seed: u64,
    /// Write `findings.json` (conformance vectors of the new findings, category `findings`)
    /// and `report.json` (every group) here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Compare under this profile instead of the one each adapter claims (`packaging`, `uv`,
    /// `spec-2026`, `standard`).
    #[arg(long, value_name = "P")]
    profile: Option<Profile>,
    /// Marker language of the generated cases.
    #[arg(long, default_value = "pep508")]
    dialect: Dialect,
    /// Do not ask each adapter the shipped vector cases first (then no finding is recognised
    /// as one the conformance suite already shows, except by its exact input).
    #[arg(long)]
    no_known: bool,
    /// Time limit in seconds for each adapter response (a slower one is a hang).
    #[arg(long, default_value = "10", value_name = "SECS")]
    timeout: f64,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&text[..i], &text[i..]),
        None => (text, "s"),
    };
    let n: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 90s, 10m, 1h)"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("`{text}`: the unit is s, m or h")),
    };
    let secs = n * scale;
    if !(secs > 0.0 && secs <= 7.0 * 86_400.0) {
        return Err(format!("`{text}` is not between 0 and a week"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The profile an adapter is compared under: the one asked for, or the first it claims of
/// `packaging`, `uv`, `spec-2026`, `standard`.
fn choose_profile(claimed: &[Profile], asked: Option<Profile>) -> Option<Profile> {
    if let Some(p) = asked {
        return Some(p);
    }
    [
        Profile::Packaging,
        Profile::Uv,
        Profile::Spec2026,
        Profile::Standard,
    ]
    .into_iter()
    .find(|p| claimed.contains(p))
}

pub(crate) fn run(args: FuzzArgs) -> Result<ExitCode, String> {
    if !(args.timeout > 0.0 && args.timeout <= 3600.0) {
        return Err(format!(
            "--timeout {} is not between 0 and 3600 seconds",
            args.timeout
        ));
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let mut targets = Vec::new();
    for command in &args.adapters {
        let adapter = Adapter::start(command, timeout);
        if let Some(problem) = adapter.problem() {
            return Err(format!("adapter `{command}` cannot be used: {problem}"));
        }
        let Some(hello) = adapter.hello() else {
            return Err(format!("adapter `{command}` did not answer the handshake"));
        };
        let (name, version) = (hello.name.clone(), hello.version.clone());
        let Some(profile) = choose_profile(&hello.profiles, args.profile) else {
            return Err(format!(
                "adapter `{name}` claims no profile; pass --profile to compare it under one"
            ));
        };
        targets.push(Target::new(Box::new(adapter), &name, &version, profile));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let settings = Settings {
        seed: args.seed,
        dialect: args.dialect,
        learn_known: !args.no_known,
        ..Settings::default()
    };
    if settings.learn_known {
        eprintln!("fuzz: asking each adapter the vector cases first (--no-known skips this)");
    }
    let mut fuzzer = Fuzzer::new(targets, settings);
    let duration = match (args.duration, args.cases) {
        (Some(d), _) => d,
        (None, Some(_)) => Duration::from_secs(7 * 86_400),
        (None, None) => Duration::from_secs(60),
    };
    let start = Instant::now();
    let mut meter = Meter::new(
        start,
        args.duration.or(args.cases.is_none().then_some(duration)),
    );
    fuzzer.run_for(duration, args.cases, &mut |p| meter.tick(p));
    meter.finish(fuzzer.progress());

    let elapsed = start.elapsed().as_secs_f64();
    print_summary(&fuzzer, elapsed);
    if let Some(dir) = &args.out {
        let vectors = fuzzer.vectors(100);
        let write = |name: &str, value: &serde_json::Value| -> Result<(), String> {
            let path = dir.join(name);
            let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
            std::fs::write(&path, text + "\n")
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
        write("findings.json", &vectors)?;
        let mut report = fuzzer.report();
        report["seconds"] = serde_json::json!(elapsed);
        write("report.json", &report)?;
        println!(
            "wrote {} (conformance vectors of the new findings) and {}",
            dir.join("findings.json").display(),
            dir.join("report.json").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(fuzzer: &Fuzzer, seconds: f64) {
    let p = fuzzer.progress();
    println!(
        "{} cases in {seconds:.0}s ({:.0}/s), {} with a disagreement, {} groups",
        p.cases,
        p.cases as f64 / seconds.max(1e-9),
        p.disagreements,
        p.groups
    );
    println!();
    println!(
        "{:<16} {:<10} {:>13} {:>8}",
        "implementation", "profile", "disagreements", "skipped"
    );
    for t in fuzzer.targets() {
        let (d, s) = fuzzer
            .per_target()
            .get(t.name())
            .copied()
            .unwrap_or_default();
        println!(
            "{:<16} {:<10} {d:>13} {s:>8}",
            t.name(),
            t.profile().as_str()
        );
        if let Some(why) = t.given_up() {
            println!("{:<16} {why}", "");
        }
    }
    let groups = fuzzer.groups();
    if groups.is_empty() {
        return;
    }
    println!();
    let new = groups.iter().filter(|g| g.known_as.is_none()).count();
    println!(
        "{new} new groups, {} already shown by the vectors",
        groups.len() - new
    );
    println!("{:>6}  {:<5}  group / shrunk example", "cases", "new");
    for g in &groups {
        println!(
            "{:>6}  {:<5}  {}",
            g.count,
            if g.known_as.is_some() { "known" } else { "new" },
            g.signature
        );
        if let Some(case) = &g.known_as {
            println!("{:>6}  {:<5}  (as {case})", "", "");
        }
        println!("{:>6}  {:<5}  {:?}", "", "", g.example.input);
        println!(
            "{:>6}  {:<5}  markerspec: {}; {}: {}",
            "",
            "",
            g.finding.disagreement.markerspec,
            g.finding.target,
            g.finding.disagreement.other
        );
    }
}

/// Progress on standard error: a line rewritten in place on a terminal, a plain line every
/// ten seconds otherwise.
struct Meter {
    start: Instant,
    limit: Option<Duration>,
    last: Instant,
    terminal: bool,
}

impl Meter {
    fn new(start: Instant, limit: Option<Duration>) -> Meter {
        Meter {
            start,
            limit,
            last: start,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn line(&self, p: &Progress) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let left = self
            .limit
            .map(|l| format!(", {:.0}s left", (l.as_secs_f64() - secs).max(0.0)))
            .unwrap_or_default();
        format!(
            "fuzz: {} cases ({:.0}/s), {} disagreements in {} groups{left}",
            p.cases,
            p.cases as f64 / secs.max(1e-9),
            p.disagreements,
            p.groups
        )
    }

    fn tick(&mut self, p: &Progress) {
        let every = if self.terminal {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(10)
        };
        if self.last.elapsed() < every {
            return;
        }
        self.last = Instant::now();
        let line = self.line(p);
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
    }

    fn finish(&mut self, p: &Progress) {
        let line = self.line(p);
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            writeln!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
    }
}
