//! Parses and evaluates a file of requirement lines (default: the repository's 948-line
//! `Requires-Dist` corpus) with markerspec, uv-pep508 and pep508_rs in one run, and prints
//! medians and ratios: parse time per requirement, evaluation time per marker, parsing on two
//! threads against one, and the memory a parsed requirement holds (measured by the
//! `compare-memory` binary, which this one runs).
//!
//! ```text
//! cargo +nightly build --release --manifest-path benches/compare/Cargo.toml --bins
//! benches/compare/target/release/markerspec-compare [FILE] [--passes N]
//! ```

mod peers;

use std::hint::black_box;
use std::str::FromStr;
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median over `passes` runs of `f`, in nanoseconds per run.
fn time<F: FnMut()>(passes: usize, mut f: F) -> f64 {
    f();
    median(
        (0..passes)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as f64
            })
            .collect(),
    )
}

/// Parses every line `REPEAT` times on one thread, then the same work split over two threads,
/// and returns the speed-up of two threads (2.0 = perfect, 1.0 = no gain). Meaningful only on
/// an otherwise idle machine with at least two cores.
fn scaling(lines: &[&str], passes: usize, parse: fn(&str)) -> f64 {
    const REPEAT: usize = 20;
    let work = |part: &[&str]| {
        for _ in 0..REPEAT {
            part.iter().for_each(|l| parse(l));
        }
    };
    let one = time(passes, || work(lines));
    let (a, b) = lines.split_at(lines.len() / 2);
    let two = time(passes, || {
        std::thread::scope(|s| {
            let h = s.spawn(|| work(a));
            work(b);
            let _ = h.join();
        })
    });
    one / two
}

macro_rules! environment {
    ($m:ident) => {
        $m::MarkerEnvironment::try_from($m::MarkerEnvironmentBuilder {
            implementation_name: "cpython",
            implementation_version: "3.12.7",
            os_name: "posix",
            platform_machine: "x86_64",
            platform_python_implementation: "CPython",
            platform_release: "6.8.0-49-generic",
            platform_system: "Linux",
            platform_version: "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024",
            python_full_version: "3.12.7",
            python_version: "3.12",
            sys_platform: "linux",
        })
        .expect("a valid environment")
    };
}

/// The memory row, from the `compare-memory` binary beside this one (its counting allocator
/// stays out of this process's timed runs); the child is waited for on every path.
fn memory(file: &str) -> Result<[String; 3], String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let sibling = exe.with_file_name(format!("compare-memory{}", std::env::consts::EXE_SUFFIX));
    let out = std::process::Command::new(&sibling)
        .arg(file)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "cannot run {} ({e}); build it with `cargo +nightly build --release --manifest-path benches/compare/Cargo.toml --bins`",
                sibling.display()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "compare-memory failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace().map(str::to_string);
    match (it.next(), it.next(), it.next()) {
        (Some(a), Some(b), Some(c)) => Ok([a, b, c]),
        _ => Err(format!("compare-memory printed {text:?}")),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/requires-dist-gpu-stack.txt"
    )
    .to_string();
    let mut passes = 31usize;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--passes" => passes = args.next().and_then(|n| n.parse().ok()).unwrap_or(passes),
            other => file = other.to_string(),
        }
    }
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let n = lines.len() as f64;

    // Every implementation must accept every line, or the comparison is not like for like.
    let ours = peers::ours(&lines);
    let uv = peers::uv(&lines);
    let rs = peers::rs(&lines);

    let t_ours = time(passes, || {
        for l in &lines {
            black_box(markerspec_pep508::Requirement::from_str(l).ok());
        }
    }) / n;
    let t_uv = time(passes, || {
        for l in &lines {
            black_box(uv_pep508::Requirement::<uv_pep508::VerbatimUrl>::from_str(l).ok());
        }
    }) / n;
    let t_rs = time(passes, || {
        for l in &lines {
            black_box(pep508_rs::Requirement::<pep508_rs::VerbatimUrl>::from_str(l).ok());
        }
    }) / n;

    // What the machine itself gives two threads: pure arithmetic, no memory, no locks.
    let s_machine = scaling(&lines, passes, |l| {
        let mut x = l.len() as u64;
        for i in 0..2_000u64 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        black_box(x);
    });
    let s_ours = scaling(&lines, passes, |l| {
        black_box(markerspec_pep508::Requirement::from_str(l).ok());
    });
    let s_uv = scaling(&lines, passes, |l| {
        black_box(uv_pep508::Requirement::<uv_pep508::VerbatimUrl>::from_str(l).ok());
    });
    let s_rs = scaling(&lines, passes, |l| {
        black_box(pep508_rs::Requirement::<pep508_rs::VerbatimUrl>::from_str(l).ok());
    });

    // Evaluation against Linux x86_64 CPython 3.12, no extras; the three must agree.
    let env: markerspec_pep508::Environment = {
        use markerspec_pep508::{EnvValue, Environment, Field};
        let mut env = Environment::new();
        for (f, v) in [
            (Field::ImplementationName, "cpython"),
            (Field::ImplementationVersion, "3.12.7"),
            (Field::OsName, "posix"),
            (Field::PlatformMachine, "x86_64"),
            (Field::PlatformPythonImplementation, "CPython"),
            (Field::PlatformRelease, "6.8.0-49-generic"),
            (Field::PlatformSystem, "Linux"),
            (
                Field::PlatformVersion,
                "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024",
            ),
            (Field::PythonFullVersion, "3.12.7"),
            (Field::PythonVersion, "3.12"),
            (Field::SysPlatform, "linux"),
        ] {
            env.set(f, EnvValue::String(v.into()))
                .expect("a string field");
        }
        env
    };
    let uv_env = environment!(uv_pep508);
    let rs_env = environment!(pep508_rs);
    let ours_m: Vec<&markerspec_pep508::MarkerTree> =
        ours.iter().filter_map(|r| r.marker()).collect();
    let uv_m: Vec<uv_pep508::MarkerTree> = uv
        .iter()
        .filter(|r| !r.marker.is_true())
        .map(|r| r.marker)
        .collect();
    let rs_m: Vec<&pep508_rs::MarkerTree> = rs
        .iter()
        .filter(|r| !r.marker.is_true())
        .map(|r| &r.marker)
        .collect();
    let applies_ours = ours
        .iter()
        .filter(|r| r.marker().is_none_or(|m| m.evaluate(&env).unwrap_or(false)))
        .count();
    let applies_uv = uv
        .iter()
        .filter(|r| r.marker.evaluate(&uv_env, &[]))
        .count();
    let applies_rs = rs
        .iter()
        .filter(|r| r.marker.evaluate(&rs_env, &[]))
        .count();
    let m = ours_m.len() as f64;
    let e_ours = time(passes, || {
        for mk in &ours_m {
            black_box(mk.evaluate(&env).ok());
        }
    }) / m;
    let e_uv = time(passes, || {
        for mk in &uv_m {
            black_box(mk.evaluate(&uv_env, &[]));
        }
    }) / uv_m.len() as f64;
    let e_rs = time(passes, || {
        for mk in &rs_m {
            black_box(mk.evaluate(&rs_env, &[]));
        }
    }) / rs_m.len() as f64;

    println!(
        "{} requirements, {} markers, {passes} passes, medians",
        lines.len(),
        ours_m.len()
    );
    println!(
        "applies to Linux x86_64 CPython 3.12: markerspec {applies_ours}, uv-pep508 {applies_uv}, pep508_rs {applies_rs}"
    );
    println!();
    println!("| | markerspec | uv-pep508 0.0.98 | pep508_rs 0.9.2 |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| parse a requirement | {t_ours:.0} ns | {t_uv:.0} ns ({:.2}x) | {t_rs:.0} ns ({:.2}x) |",
        t_uv / t_ours,
        t_rs / t_ours
    );
    println!(
        "| evaluate its marker | {e_ours:.1} ns | {e_uv:.1} ns ({:.2}x) | {e_rs:.1} ns ({:.2}x) |",
        e_uv / e_ours,
        e_rs / e_ours
    );
    println!("| parse on 2 threads vs 1 | {s_ours:.2}x | {s_uv:.2}x | {s_rs:.2}x |");
    println!("| (the machine: arithmetic on 2 threads vs 1) | {s_machine:.2}x | | |");
    match memory(&file) {
        Ok([ours_mem, uv_mem, rs_mem]) => {
            println!("| memory per parsed requirement | {ours_mem} B | {uv_mem} B | {rs_mem} B |")
        }
        Err(e) => println!("| memory per parsed requirement | not measured: {e} | | |"),
    }
    println!();
    println!("(ratios in parentheses: how many times markerspec is faster)");
    assert_eq!(
        applies_ours, applies_uv,
        "markerspec and uv-pep508 disagree"
    );
}
