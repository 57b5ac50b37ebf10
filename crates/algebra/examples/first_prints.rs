//! The first print of every marker of a file (one per line) in a fresh context, as a cold
//! process meets it: every marker is built first (`Context::parse_marker`, the `none` theory),
//! then each is printed once (`Context::to_marker_string`). Prints the time per marker of each
//! phase and, on Linux, the fresh pages each touched (minor page faults, from
//! `/proc/self/stat`): `cargo run --release -p markerspec-algebra --example first_prints FILE`.
//!
//! A page a process has never touched costs a page fault the first time it is written, which
//! instruction counts (callgrind) never show; run it a few times and read the medians.

use std::io::Write;

use markerspec_algebra::{Context, Theory};
use markerspec_pep508::ParseOptions;

/// The process's minor page faults so far; `None` where `/proc/self/stat` cannot be read.
fn fresh_pages() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces):
    // state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// `after - before`, or `unknown` where either is missing.
fn pages(before: Option<u64>, after: Option<u64>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => a.saturating_sub(b).to_string(),
        _ => "unknown".into(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Written with `writeln!`: a closed pipe (`| head`) ends the example with an error, not a
    // panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args().nth(1).ok_or("usage: first_prints FILE")?;
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let opts = ParseOptions::default();
    let theory = Theory::none();
    let mut ctx = Context::new();
    let p0 = fresh_pages();
    let start = std::time::Instant::now();
    let mut markers = Vec::with_capacity(lines.len());
    for line in &lines {
        // A line the parser rejects is left out of both phases.
        if let Ok(m) = ctx.parse_marker(line, &opts, &mut Vec::new(), &theory) {
            markers.push(m);
        }
    }
    let build = start.elapsed();
    let p1 = fresh_pages();
    let start = std::time::Instant::now();
    let mut chars = 0;
    for &m in &markers {
        chars += std::hint::black_box(ctx.to_marker_string(m)?).len();
    }
    let print = start.elapsed();
    let p2 = fresh_pages();
    let per = |d: std::time::Duration| d.as_nanos() as f64 / markers.len().max(1) as f64;
    writeln!(
        out,
        "markers {}: build {:.0} ns each, {} fresh pages; first print {:.0} ns each, {} fresh pages, {chars} characters",
        markers.len(),
        per(build),
        pages(p0, p1),
        per(print),
        pages(p1, p2),
    )?;
    Ok(())
}
