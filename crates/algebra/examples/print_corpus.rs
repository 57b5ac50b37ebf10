//! Prints every marker of a file (one per line) in the algebra's printed form, and the total
//! printed length: `cargo run --release -p markerspec-algebra --example print_corpus FILE
//! [none|platform] [-v] [--paths]`.
//!
//! With `--paths`, each marker is written as the plain disjunction of its diagram's paths
//! ([`Context::dnf`]) instead: no search for a shorter form and no canonical spelling of the
//! literals, for comparing what the printed form's minimisation costs.

use markerspec_algebra::{Context, Theory};
use markerspec_pep508::MarkerTree;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: print_corpus FILE [none|platform] [-v] [--paths]")?;
    let theory = std::env::args()
        .nth(2)
        .and_then(|t| Theory::by_name(&t))
        .unwrap_or_else(Theory::none);
    let verbose = std::env::args().any(|a| a == "-v");
    let paths = std::env::args().any(|a| a == "--paths");
    let text = std::fs::read_to_string(path)?;
    let mut ctx = Context::new();
    let (mut total_in, mut total_out, mut n, mut errors) = (0usize, 0usize, 0usize, 0usize);
    let start = std::time::Instant::now();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(tree) = line.parse::<MarkerTree>() else {
            continue;
        };
        n += 1;
        let printed = ctx.from_marker(&tree, &theory).and_then(|m| {
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
                    println!("{line}\n  -> {p}");
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("error: {line}: {e}");
            }
        }
    }
    println!(
        "markers {n}, errors {errors}, input chars {total_in}, printed chars {total_out}, {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
