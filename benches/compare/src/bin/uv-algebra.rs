//! `uv-algebra`: what uv-pep508 0.0.98's marker algebra answers on a file of markers, as JSON
//! lines, for the differential test of the algebra (`crates/algebra/tests/uv_differential.rs`,
//! whose data file `crates/algebra/tests/data/uv-lock-markers.jsonl` this writes).
//!
//! ```text
//! uv-algebra [FILE]        (default: crates/algebra/tests/data/lock-markers.txt)
//! ```
//!
//! One line per input marker, in input order:
//! `{"marker": I, "uv": PRINTED}` (`I` counts the non-blank lines of `FILE` from 0), where
//! `PRINTED` is uv's simplified form
//! (`MarkerTree::try_to_string`), the string `"true"` for a marker uv finds always true, and
//! `"false"` for one it finds always false (uv prints `python_version < '0'` for it).
//!
//! Then one line per pair of the sample (`pairs.rs`):
//! `{"a": I, "b": J, "disjoint": B, "implies": B}`, with `disjoint` = `a.is_disjoint(b)` and
//! `implies` = `a.and(b.negate()).is_false()` (A ⇒ B); for the consecutive pairs (`J = I + 1`)
//! also `"and": PRINTED, "or": PRINTED` (for all pairs they would be 2.7 MB).
//!
//! Built in two workspaces: here, and in `adapters/peers`, which CI builds (`.ci/run` checks
//! that the committed data file is what this program prints).
//!
//! A line that uv does not parse is reported on stderr and the program exits 1: every marker
//! of the corpus parses.

use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::str::FromStr;

use serde_json::json;
use uv_pep508::MarkerTree;

#[path = "../pairs.rs"]
mod pairs;

/// uv's printed form, with the constants as words.
fn printed(m: MarkerTree) -> String {
    if m.is_true() {
        "true".to_string()
    } else if m.is_false() {
        "false".to_string()
    } else {
        m.try_to_string().unwrap_or_else(|| "true".to_string())
    }
}

fn main() -> ExitCode {
    let file = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../crates/algebra/tests/data/lock-markers.txt"
        )
        .to_string()
    });
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut markers = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        match MarkerTree::from_str(l) {
            Ok(m) => markers.push(m),
            Err(e) => {
                eprintln!("line {}: uv-pep508 does not parse {l:?}: {e}", i + 1);
                return ExitCode::FAILURE;
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut write = |v: serde_json::Value| writeln!(out, "{v}");
    for (i, m) in markers.iter().enumerate() {
        if write(json!({"marker": i, "uv": printed(*m)})).is_err() {
            return ExitCode::FAILURE;
        }
    }
    for (i, j) in pairs::pairs(markers.len()) {
        let (a, b) = (markers[i], markers[j]);
        let mut v = json!({
            "a": i,
            "b": j,
            "disjoint": a.is_disjoint(b),
            "implies": a.and(b.negate()).is_false(),
        });
        if j == i + 1 {
            v["and"] = printed(a.and(b)).into();
            v["or"] = printed(a.or(b)).into();
        }
        if write(v).is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
