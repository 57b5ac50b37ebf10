//! `algebra-bench`: markerspec-algebra against uv-pep508 0.0.98's marker algebra, side by side in
//! one process, on real lock-file markers (default `crates/algebra/tests/data/lock-markers.txt`)
//! and the pair sample of `pairs.rs` (every consecutive pair and 2,000 seeded random pairs).
//!
//! ```text
//! cargo +nightly run --release --manifest-path benches/compare/Cargo.toml --bin algebra-bench \
//!     [-- FILE] [--passes N] [--cold-runs N]
//! ```
//!
//! Operations, per marker or per pair: build (parse + canonicalise: uv-pep508's
//! `MarkerTree::from_str`; markerspec's `Context::parse_marker` with the `none` theory, which
//! translates each comparison as it is read, building no syntax tree), `and` + `or` of a pair,
//! `is_disjoint`, `implies` (uv:
//! `a.and(b.negate()).is_false()`), printing (uv: `try_to_string`; markerspec:
//! `to_marker_string`, and on a line of its own the first print of
//! `to_shortest_marker_string`).
//!
//! Two regimes:
//!
//! * **warm**: the median of `--passes` repetitions in one process. uv-pep508's interner and its
//!   `and` cache are global and never cleared, so after the first pass uv answers repeated work
//!   from its caches; markerspec reuses one `Context` (its caches too) so both sides are warm.
//! * **cold**: the first pass of each operation, in a fresh process (uv's interner empty) and a
//!   fresh `Context`, the median over `--cold-runs` child processes this program starts. A
//!   child parses nothing before it times the builds (the lines are checked once, in the
//!   parent): a parse with uv-pep508 would leave every marker's nodes in its interner.
//!
//! Also printed: the total length of the printed forms (`true`/`false` for constants), and how
//! often the two agree on `is_disjoint` / `implies` (they need not: uv models releases only and
//! applies its own theory; spec/DIVERGENCES-ALGEBRA.md). And, from the same child processes
//! after their cold passes, the first print once more in a fresh context (the code and the
//! allocator now warm), and in a fresh context that finds every version label's spelling
//! already made (a shared [`Spellings`] table another context filled): how much of the cold
//! print is first touches, and how much the speller's search.

use std::hint::black_box;
use std::process::{Command, ExitCode};
use std::str::FromStr;
use std::time::Instant;

use markerspec_algebra::{Context, Marker, Spellings, Theory};

#[path = "../pairs.rs"]
mod pairs;

/// The median; NaN for no samples (`--cold-runs 0`).
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Nanoseconds `f` took.
fn once<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_nanos() as f64)
}

struct Input {
    lines: Vec<String>,
    pairs: Vec<(usize, usize)>,
    /// How many lines both sides parsed (counted when loading with `check`).
    parsed: usize,
}

/// Reads the markers. With `check`, also parses every line on both sides, so that a line
/// either side rejects is reported before anything is timed. The cold children load without
/// it: parsing with uv-pep508 fills its global interner with every marker's nodes (it is
/// never emptied), and the cold build would then find them all made.
fn load(file: &str, check: bool) -> Result<Input, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let mut parsed = 0;
    if check {
        for l in &lines {
            markerspec_pep508::MarkerTree::from_str(l).map_err(|e| format!("{l}: {e:?}"))?;
            uv_pep508::MarkerTree::from_str(l).map_err(|e| format!("uv: {l}: {e}"))?;
            parsed += 1;
        }
    }
    let pairs = pairs::pairs(lines.len());
    Ok(Input {
        lines,
        pairs,
        parsed,
    })
}

/// The operations' times, in ns for the whole set: build, and+or, is_disjoint, implies, print.
type Times = [f64; 5];

fn uv_build(input: &Input) -> Vec<uv_pep508::MarkerTree> {
    input
        .lines
        .iter()
        .map(|l| uv_pep508::MarkerTree::from_str(l).unwrap_or(uv_pep508::MarkerTree::TRUE))
        .collect()
}

fn uv_print(m: uv_pep508::MarkerTree) -> String {
    if m.is_true() {
        "true".into()
    } else if m.is_false() {
        "false".into()
    } else {
        m.try_to_string().unwrap_or_else(|| "true".into())
    }
}

/// One pass of each uv operation.
fn uv_pass(input: &Input) -> (Times, Vec<uv_pep508::MarkerTree>) {
    let (ms, build) = once(|| uv_build(input));
    let ((), andor) = once(|| {
        for &(i, j) in &input.pairs {
            black_box(ms[i].and(ms[j]));
            black_box(ms[i].or(ms[j]));
        }
    });
    let ((), disjoint) = once(|| {
        for &(i, j) in &input.pairs {
            black_box(ms[i].is_disjoint(ms[j]));
        }
    });
    let ((), implies) = once(|| {
        for &(i, j) in &input.pairs {
            black_box(ms[i].and(ms[j].negate()).is_false());
        }
    });
    let ((), print) = once(|| {
        for m in &ms {
            black_box(uv_print(*m));
        }
    });
    ([build, andor, disjoint, implies, print], ms)
}

fn ours_build(ctx: &mut Context, input: &Input, theory: &Theory) -> Result<Vec<Marker>, String> {
    let opts = markerspec_pep508::ParseOptions::default();
    input
        .lines
        .iter()
        .map(|l| {
            // As a resolver builds diagrams: straight from the text, with no syntax tree.
            ctx.parse_marker(l, &opts, &mut Vec::new(), theory)
                .map_err(|e| format!("{l}: {e}"))
        })
        .collect()
}

/// One pass of each markerspec operation in `ctx`.
fn ours_pass(ctx: &mut Context, input: &Input) -> Result<(Times, Vec<Marker>), String> {
    let theory = Theory::none();
    let (ms, build) = once(|| ours_build(ctx, input, &theory));
    let ms = ms?;
    let err = |e: markerspec_algebra::Error| e.to_string();
    let (r, andor) = once(|| -> Result<(), String> {
        for &(i, j) in &input.pairs {
            black_box(ctx.and(ms[i], ms[j]).map_err(err)?);
            black_box(ctx.or(ms[i], ms[j]).map_err(err)?);
        }
        Ok(())
    });
    r?;
    let (r, disjoint) = once(|| -> Result<(), String> {
        for &(i, j) in &input.pairs {
            black_box(ctx.is_disjoint(ms[i], ms[j]).map_err(err)?);
        }
        Ok(())
    });
    r?;
    let (r, implies) = once(|| -> Result<(), String> {
        for &(i, j) in &input.pairs {
            black_box(ctx.implies(ms[i], ms[j]).map_err(err)?);
        }
        Ok(())
    });
    r?;
    let (r, print) = once(|| -> Result<(), String> {
        for m in &ms {
            black_box(ctx.to_marker_string(*m).map_err(err)?);
        }
        Ok(())
    });
    r?;
    Ok(([build, andor, disjoint, implies, print], ms))
}

/// A child process: the first pass of each operation on both sides, as one JSON line; and
/// the first print of each marker in the shortest form, in a context of its own that has only
/// built them.
fn cold_child(input: &Input) -> Result<(), String> {
    let (uv, _) = uv_pass(input);
    let mut ctx = Context::new();
    let (ours, _) = ours_pass(&mut ctx, input)?;
    let mut ctx = Context::new();
    let ms = ours_build(&mut ctx, input, &Theory::none())?;
    let (r, shortest) = once(|| -> Result<(), String> {
        for m in &ms {
            black_box(
                ctx.to_shortest_marker_string(*m)
                    .map_err(|e| e.to_string())?,
            );
        }
        Ok(())
    });
    r?;
    // The first print again, the code now warm: in a fresh context, and in a fresh context
    // that finds every version label's spelling already made (shared with a context that
    // printed them all first), so that the difference is what the speller's search costs.
    let warm_code = first_print(input, None)?;
    let spellings = Spellings::new();
    first_print(input, Some(&spellings))?;
    let spelt = first_print(input, Some(&spellings))?;
    println!(
        "{}",
        serde_json::json!({
            "uv": uv.to_vec(),
            "ours": ours.to_vec(),
            "shortest": shortest,
            "warm_code": warm_code,
            "spelt": spelt,
        })
    );
    Ok(())
}

/// The first print of every marker (ns for the whole set) in a fresh context that has only
/// built them, sharing `spellings` when given.
fn first_print(input: &Input, spellings: Option<&Spellings>) -> Result<f64, String> {
    let mut ctx = Context::new();
    if let Some(sp) = spellings {
        ctx.share_spellings(sp);
    }
    let ms = ours_build(&mut ctx, input, &Theory::none())?;
    let (r, t) = once(|| -> Result<(), String> {
        for m in &ms {
            black_box(ctx.to_marker_string(*m).map_err(|e| e.to_string())?);
        }
        Ok(())
    });
    r?;
    Ok(t)
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../crates/algebra/tests/data/lock-markers.txt"
    )
    .to_string();
    let mut passes = 21usize;
    let mut cold_runs = 11usize;
    let mut child = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--passes" => passes = args.next().and_then(|n| n.parse().ok()).unwrap_or(passes),
            "--cold-runs" => {
                cold_runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(cold_runs);
            }
            "--cold-child" => child = true,
            other => file = other.to_string(),
        }
    }
    if child {
        return cold_child(&load(&file, false)?);
    }
    let input = load(&file, true)?;

    // Cold: fresh processes.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cold_uv: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut cold_ours: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut cold_shortest: Vec<f64> = Vec::new();
    let (mut warm_code, mut spelt): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    for _ in 0..cold_runs {
        let out = Command::new(&exe)
            .arg(&file)
            .arg("--cold-child")
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
        for k in 0..5 {
            cold_uv[k].push(v["uv"][k].as_f64().unwrap_or(f64::NAN));
            cold_ours[k].push(v["ours"][k].as_f64().unwrap_or(f64::NAN));
        }
        cold_shortest.push(v["shortest"].as_f64().unwrap_or(f64::NAN));
        warm_code.push(v["warm_code"].as_f64().unwrap_or(f64::NAN));
        spelt.push(v["spelt"].as_f64().unwrap_or(f64::NAN));
    }

    // Warm: one process, repeated passes.
    let mut warm_uv: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut warm_ours: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut ctx = Context::new();
    let (_, uv_ms) = uv_pass(&input);
    let (_, our_ms) = ours_pass(&mut ctx, &input)?;
    for _ in 0..passes {
        let (t, _) = uv_pass(&input);
        for k in 0..5 {
            warm_uv[k].push(t[k]);
        }
        let (t, _) = ours_pass(&mut ctx, &input)?;
        for k in 0..5 {
            warm_ours[k].push(t[k]);
        }
    }

    // Printed length and agreement.
    let uv_len: usize = uv_ms.iter().map(|m| uv_print(*m).len()).sum();
    let (mut our_len, mut shortest_len) = (0usize, 0usize);
    for m in &our_ms {
        our_len += ctx.to_marker_string(*m).map_err(|e| e.to_string())?.len();
        shortest_len += ctx
            .to_shortest_marker_string(*m)
            .map_err(|e| e.to_string())?
            .len();
    }
    let input_len: usize = input.lines.iter().map(String::len).sum();
    let (mut same_disjoint, mut same_implies) = (0usize, 0usize);
    for &(i, j) in &input.pairs {
        let d = ctx
            .is_disjoint(our_ms[i], our_ms[j])
            .map_err(|e| e.to_string())?;
        same_disjoint += usize::from(d == uv_ms[i].is_disjoint(uv_ms[j]));
        let imp = ctx
            .implies(our_ms[i], our_ms[j])
            .map_err(|e| e.to_string())?;
        same_implies += usize::from(imp == uv_ms[i].and(uv_ms[j].negate()).is_false());
    }

    let n = input.lines.len() as f64;
    let p = input.pairs.len() as f64;
    let per = [n, p, p, p, n];
    let names = [
        "build (parse + canonicalise), per marker",
        "`and` + `or` of a pair",
        "`is_disjoint`, per pair",
        "`implies`, per pair",
        "print, per marker",
    ];
    println!(
        "{} markers ({} parsed by both), {} pairs; warm: median of {passes} passes; cold: median of {cold_runs} fresh processes",
        input.lines.len(),
        input.parsed,
        input.pairs.len()
    );
    println!();
    println!(
        "| operation | markerspec warm | uv-pep508 warm | ratio | markerspec cold | uv-pep508 cold | ratio |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for k in 0..5 {
        let (ow, uw) = (
            median(warm_ours[k].clone()) / per[k],
            median(warm_uv[k].clone()) / per[k],
        );
        let (oc, uc) = (
            median(cold_ours[k].clone()) / per[k],
            median(cold_uv[k].clone()) / per[k],
        );
        println!(
            "| {} | {} | {} | {:.2}× | {} | {} | {:.2}× |",
            names[k],
            ns(ow),
            ns(uw),
            uw / ow,
            ns(oc),
            ns(uc),
            uc / oc
        );
    }
    println!();
    println!("(ratio: uv-pep508's time over markerspec's; above 1 means markerspec is faster)");
    println!();
    println!(
        "printed length, total characters: markerspec {our_len}, uv-pep508 {uv_len} ({:.3} of uv's), input {input_len}",
        our_len as f64 / uv_len as f64
    );
    let uv_print_cold = median(cold_uv[4].clone()) / n;
    let shortest_cold = median(cold_shortest) / n;
    println!(
        "shortest form (`to_shortest_marker_string`): cold print {} ({:.2}× uv-pep508's), {shortest_len} characters ({:.3} of uv's)",
        ns(shortest_cold),
        uv_print_cold / shortest_cold,
        shortest_len as f64 / uv_len as f64
    );
    let (warm_code, spelt) = (median(warm_code) / n, median(spelt) / n);
    println!(
        "first print again in the same process, the code warm: {} ({:.2}× uv-pep508's cold print); \
         and with every version label's spelling already made: {} ({:.2}×)",
        ns(warm_code),
        uv_print_cold / warm_code,
        ns(spelt),
        uv_print_cold / spelt
    );
    println!(
        "same answer as uv-pep508: is_disjoint {same_disjoint}/{}, implies {same_implies}/{}",
        input.pairs.len(),
        input.pairs.len()
    );
    Ok(())
}

fn ns(x: f64) -> String {
    if x >= 1000.0 {
        format!("{:.2} µs", x / 1000.0)
    } else {
        format!("{x:.0} ns")
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("algebra-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
