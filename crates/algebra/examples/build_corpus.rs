//! Builds every marker of a file (one per line) as a resolver does, straight from the text
//! (`Context::parse_marker`, the `none` theory), and prints the time per marker:
//! `cargo run --release -p markerspec-algebra --example build_corpus FILE [ROUNDS] [warm]`.
//!
//! Each of the ROUNDS (default 1) builds every marker in a fresh context (cold: every node and
//! every comparison is new), or with `warm` in one context kept across rounds (the first round
//! cold, the others find everything made). For instruction counts, run it under
//! `valgrind --tool=callgrind` with one round.

use std::io::Write;

use markerspec_algebra::{Context, Marker, Theory};
use markerspec_pep508::ParseOptions;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Written with `writeln!`: a closed pipe (`| head`) ends the example with an error, not a
    // panic.
    let mut out = std::io::stdout().lock();
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: build_corpus FILE [ROUNDS] [warm]")?;
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let warm = args.next().is_some_and(|a| a == "warm");
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let opts = ParseOptions::default();
    let theory = Theory::none();
    let mut ctx = Context::new();
    let start = std::time::Instant::now();
    let mut built = 0usize;
    for _ in 0..rounds.max(1) {
        if !warm {
            ctx = Context::new();
        }
        let mut ms: Vec<Marker> = Vec::with_capacity(lines.len());
        for l in &lines {
            if let Ok(m) = ctx.parse_marker(l, &opts, &mut Vec::new(), &theory) {
                ms.push(m);
            }
        }
        built = ms.len();
        std::hint::black_box(&ms);
    }
    let per = start.elapsed().as_secs_f64() * 1e6 / (rounds.max(1) * lines.len().max(1)) as f64;
    writeln!(
        out,
        "markers {}, built {built}, {rounds} round(s) {}, {per:.2} µs per marker",
        lines.len(),
        if warm {
            "in one context"
        } else {
            "each in a fresh context"
        },
    )?;
    Ok(())
}
