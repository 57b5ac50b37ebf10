//! Timings of the marker algebra on a file of markers (one per line), one process, one thread:
//! build (parse + translate), `and` / `or` of consecutive pairs, `is_disjoint`, `implies`, and
//! printing. `cargo run --release -p markerspec-algebra --example bench_corpus FILE [ROUNDS]`.
//!
//! Each round uses a fresh context, so the caches start empty (as a resolver's first lock
//! does); the figures are the best round's.

use std::io::Write;
use std::time::{Duration, Instant};

use markerspec_algebra::{Context, Marker, Theory};
use markerspec_pep508::{MarkerTree, ParseOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Written with `writeln!`: a closed pipe (`| head`) ends the example with an error, not a
    // panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: bench_corpus FILE [ROUNDS]")?;
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut best = [Duration::MAX; 6];
    let mut printed_len = 0;
    for _ in 0..rounds {
        let mut ctx = Context::new();
        let none = Theory::none();
        // The trees only go into diagrams: nothing is prepared for evaluating them.
        let lazy = ParseOptions::default().prepare_evaluation(false);
        let t = Instant::now();
        let mut ms: Vec<Marker> = Vec::with_capacity(lines.len());
        for l in &lines {
            if let Ok(tree) = MarkerTree::parse_with(l, &lazy, &mut Vec::new()) {
                ms.push(ctx.from_marker(&tree, &none)?);
            }
        }
        let build = t.elapsed();
        let pairs: Vec<(Marker, Marker)> = ms
            .windows(2)
            .filter_map(|w| match w {
                [a, b] => Some((*a, *b)),
                _ => None,
            })
            .collect();
        let t = Instant::now();
        for (a, b) in &pairs {
            std::hint::black_box(ctx.and(*a, *b)?);
        }
        let and = t.elapsed();
        let t = Instant::now();
        for (a, b) in &pairs {
            std::hint::black_box(ctx.or(*a, *b)?);
        }
        let or = t.elapsed();
        ctx.clear_caches();
        let t = Instant::now();
        for (a, b) in &pairs {
            std::hint::black_box(ctx.is_disjoint(*a, *b)?);
        }
        let disjoint = t.elapsed();
        ctx.clear_caches();
        let t = Instant::now();
        for (a, b) in &pairs {
            std::hint::black_box(ctx.implies(*a, *b)?);
        }
        let implies = t.elapsed();
        let t = Instant::now();
        printed_len = 0;
        for m in &ms {
            printed_len += ctx.to_marker_string(*m)?.len();
        }
        let print = t.elapsed();
        for (b, x) in best
            .iter_mut()
            .zip([build, and, or, disjoint, implies, print])
        {
            *b = (*b).min(x);
        }
    }
    let n = lines.len() as f64;
    let names = ["build", "and", "or", "is_disjoint", "implies", "print"];
    for (name, d) in names.iter().zip(best) {
        writeln!(
            out,
            "{name:12} {:9.3} ms total  {:8.2} µs per marker (or pair)",
            d.as_secs_f64() * 1e3,
            d.as_secs_f64() * 1e6 / n
        )?;
    }
    writeln!(
        out,
        "markers {}, printed characters {printed_len}",
        lines.len()
    )?;
    Ok(())
}
