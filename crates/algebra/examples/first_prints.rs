//! The first print of every marker of a file (one per line) in a fresh context, as a cold
//! process meets it: every marker is built first (`Context::parse_marker`, the `none` theory),
//! then each is printed once (`Context::to_marker_string`). Prints the time per marker of each
//! phase and, on Linux, the fresh pages each touched (minor page faults, from
//! `/proc/self/stat`): `cargo run --release -p markerspec-algebra --example first_prints FILE`.
//!
//! A page a process has never touched costs a page fault the first time it is written, which
//! instruction counts (callgrind) never show; run it a few times and read the medians.
//!
//! `first_prints FILE --slowest N` also times each first print on its own and prints the `N`
//! slowest (nanoseconds, the marker, its text) and the share of the pass they take.
//!
//! `--warm-code` builds and prints the whole file once in a context of its own (dropped)
//! before the measured pass, which then starts with the code and the allocator warm but its
//! context as fresh as ever: the difference from a plain run is what a cold process pays for
//! touching code and memory the first time.

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
    let usage = "usage: first_prints FILE [--slowest N] [--warm-code]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or(usage)?;
    let (mut slowest, mut warm_code) = (None::<usize>, false);
    let mut rest = args.iter().skip(1);
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--slowest" => slowest = Some(rest.next().ok_or(usage)?.parse()?),
            "--warm-code" => warm_code = true,
            _ => return Err(usage.into()),
        }
    }
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let opts = ParseOptions::default();
    let theory = Theory::none();
    if warm_code {
        // The whole file built and printed once in a context of its own, then dropped: the
        // pass below then finds the code and the allocator's memory warm (what a cold process
        // pays for first touches is the difference from a run without this).
        let mut scratch = Context::new();
        for line in &lines {
            if let Ok(m) = scratch.parse_marker(line, &opts, &mut Vec::new(), &theory) {
                std::hint::black_box(scratch.to_marker_string(m)?);
            }
        }
    }
    let mut ctx = Context::new();
    let p0 = fresh_pages();
    let start = std::time::Instant::now();
    let mut markers = Vec::with_capacity(lines.len());
    let mut texts = Vec::with_capacity(lines.len());
    for line in &lines {
        // A line the parser rejects is left out of both phases.
        if let Ok(m) = ctx.parse_marker(line, &opts, &mut Vec::new(), &theory) {
            markers.push(m);
            texts.push(*line);
        }
    }
    let build = start.elapsed();
    let p1 = fresh_pages();
    let start = std::time::Instant::now();
    let mut chars = 0;
    // Each print's own time, only when asked for (reading the clock costs a little).
    let mut each: Vec<(u128, usize, String)> = Vec::new();
    for (k, &m) in markers.iter().enumerate() {
        if slowest.is_some() {
            let t = std::time::Instant::now();
            let s = ctx.to_marker_string(m)?;
            each.push((t.elapsed().as_nanos(), k, s));
        } else {
            chars += std::hint::black_box(ctx.to_marker_string(m)?).len();
        }
    }
    let print = start.elapsed();
    chars += each.iter().map(|(_, _, s)| s.len()).sum::<usize>();
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
    if let Some(n) = slowest {
        let total: u128 = each.iter().map(|(ns, ..)| ns).sum();
        each.sort_by_key(|e| std::cmp::Reverse(e.0));
        let top: u128 = each.iter().take(n).map(|(ns, ..)| ns).sum();
        writeln!(
            out,
            "the {n} slowest first prints: {top} of {total} ns ({:.0} %)",
            100.0 * top as f64 / total.max(1) as f64
        )?;
        for (ns, k, s) in each.iter().take(n) {
            let line = texts.get(*k).copied().unwrap_or("");
            writeln!(out, "{ns}\t{line}\t{s}")?;
        }
    }
    Ok(())
}
