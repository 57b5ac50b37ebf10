//! Prints every marker of a file (one per line) in the algebra's printed form, and the total
//! printed length: `cargo run --release -p markerspec-algebra --example print_corpus FILE
//! [none|platform] [-v] [--paths] [--stream]`.
//!
//! Each line is parsed into a syntax tree and translated ([`Context::from_marker`]); with
//! `--stream`, built straight from the text as a resolver does ([`Context::parse_marker`]),
//! so that comparing the output before and after a change also covers that path.
//!
//! With `--paths`, each marker is written as the plain disjunction of its diagram's paths
//! ([`Context::dnf`]) instead: no search for a shorter form and no canonical spelling of the
//! literals, for comparing what the printed form's minimisation costs.

use markerspec_algebra::{Context, Theory};
use markerspec_pep508::MarkerTree;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Written with `writeln!`: a closed pipe (`| head`) ends the example with an error, not a
    // panic.
    let mut out = std::io::stdout().lock();
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: print_corpus FILE [none|platform] [-v] [--paths] [--stream]")?;
    let theory = std::env::args()
        .nth(2)
        .and_then(|t| Theory::by_name(&t))
        .unwrap_or_else(Theory::none);
    let verbose = std::env::args().any(|a| a == "-v");
    let paths = std::env::args().any(|a| a == "--paths");
    let stream = std::env::args().any(|a| a == "--stream");
    let opts = markerspec_pep508::ParseOptions::default();
    let text = std::fs::read_to_string(path)?;
    let mut ctx = Context::new();
    let (mut total_in, mut total_out, mut n, mut errors) = (0usize, 0usize, 0usize, 0usize);
    let start = std::time::Instant::now();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let built = if stream {
            match ctx.parse_marker(line, &opts, &mut Vec::new(), &theory) {
                Ok(m) => Ok(m),
                // A line pep508 rejects is left out, as below.
                Err(_) if line.parse::<MarkerTree>().is_err() => continue,
                Err(e) => Err(e),
            }
        } else {
            let Ok(tree) = line.parse::<MarkerTree>() else {
                continue;
            };
            ctx.from_marker(&tree, &theory)
        };
        n += 1;
        let printed = built.and_then(|m| {
            if paths {
                ctx.dnf(m)
            } else {
                ctx.to_marker_string(m)
            }
        });
        match printed {
            Ok(p) => {
                total_in += line.len();
                total_out += p.len();
                if verbose {
                    writeln!(out, "{line}\n  -> {p}")?;
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("error: {line}: {e}");
            }
        }
    }
    writeln!(
        out,
        "markers {n}, errors {errors}, input chars {total_in}, printed chars {total_out}, {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    )?;
    Ok(())
}
