//! Adversarial scaling probe: parses hostile inputs of growing size and prints how the time
//! grows. Linear work takes about 4× as long for 4× the input; quadratic work, 16×.
//!
//! ```text
//! cargo +nightly run --release --manifest-path fuzz/Cargo.toml --example scaling
//! ```
//!
//! Exits non-zero when a pattern grows by more than 8× for 4× the input (twice the linear
//! ratio, to absorb noise), or when one parse takes more than a second (larger sizes of that
//! pattern are then skipped). Run it on an idle machine: a busy one blurs the ratios.

use std::hint::black_box;
use std::time::{Duration, Instant};

use markerspec_pep508::pep440::{Version, VersionSpecifiers};
use markerspec_pep508::{Dialect, MarkerTree, ParseOptions, Requirement};

/// One hostile input family: a name, what parses it, and the input for a size in bytes.
struct Pattern {
    name: &'static str,
    kind: Kind,
    make: fn(usize) -> String,
}

#[derive(Clone, Copy)]
enum Kind {
    Marker,
    Requirement,
    Version,
    Specifiers,
}

fn repeat_to(unit: &str, n: usize) -> String {
    unit.repeat((n / unit.len()).max(1))
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        name: "marker: `a and ` chain (clause limit)",
        kind: Kind::Marker,
        make: |n| repeat_to("os_name == \"a\" and ", n) + "os_name == \"a\"",
    },
    Pattern {
        name: "marker: `a or b and c` chain",
        kind: Kind::Marker,
        make: |n| repeat_to("os_name == \"a\" or sys_platform != 'b' and ", n) + "extra == \"x\"",
    },
    Pattern {
        name: "marker: nested groups of depth 150, repeated",
        kind: Kind::Marker,
        make: |n| {
            let group = format!("{}os_name == \"a\"{}", "(".repeat(150), ")".repeat(150));
            let unit = format!("{group} and ");
            repeat_to(&unit, n) + &group
        },
    },
    Pattern {
        name: "marker: `(` run (nesting limit)",
        kind: Kind::Marker,
        make: |n| "(".repeat(n),
    },
    Pattern {
        name: "marker: `(` run with spaces",
        kind: Kind::Marker,
        make: |n| repeat_to("( \t", n),
    },
    Pattern {
        name: "marker: long literal (string limit)",
        kind: Kind::Marker,
        make: |n| format!("os_name == \"{}\"", "a".repeat(n)),
    },
    Pattern {
        name: "marker: literal of escapes",
        kind: Kind::Marker,
        make: |n| format!("os_name == \"{}\"", repeat_to("\\x41\\\\", n.min(60_000))),
    },
    Pattern {
        name: "marker: literal of multibyte characters",
        kind: Kind::Marker,
        make: |n| format!("os_name == \"{}\"", repeat_to("é😀", n.min(60_000))),
    },
    Pattern {
        name: "marker: unterminated literal",
        kind: Kind::Marker,
        make: |n| format!("os_name == \"{}", "a".repeat(n)),
    },
    Pattern {
        name: "marker: long unknown variable",
        kind: Kind::Marker,
        make: |n| format!("{} == \"a\"", "x".repeat(n)),
    },
    Pattern {
        name: "marker: error at the end of a long line (rendered)",
        kind: Kind::Marker,
        make: |n| repeat_to("os_name == \"a\" and ", n) + "os_name ==",
    },
    Pattern {
        name: "marker: leading whitespace",
        kind: Kind::Marker,
        make: |n| " \t".repeat(n / 2) + "os_name == \"a\"",
    },
    Pattern {
        name: "marker: `not` then whitespace",
        kind: Kind::Marker,
        make: |n| format!("\"a\" not{}in os_name", " ".repeat(n)),
    },
    Pattern {
        name: "marker: version literals with long releases",
        kind: Kind::Marker,
        make: |n| {
            let v = repeat_to("1.", 2000) + "0";
            let unit = format!("python_full_version >= \"{v}\" and ");
            repeat_to(&unit, n) + "os_name == \"a\""
        },
    },
    Pattern {
        name: "requirement: many extras",
        kind: Kind::Requirement,
        make: |n| format!("pkg[{}b]", repeat_to("a,", n)),
    },
    Pattern {
        name: "requirement: many distinct extras",
        kind: Kind::Requirement,
        make: |n| {
            let mut s = String::from("pkg[");
            let mut i = 0;
            while s.len() < n {
                s.push_str(&format!("e{i},"));
                i += 1;
            }
            s + "z]"
        },
    },
    Pattern {
        name: "requirement: many specifiers",
        kind: Kind::Requirement,
        make: |n| format!("pkg{}<2", repeat_to(">=1.0,", n)),
    },
    Pattern {
        name: "requirement: many distinct specifiers (displayed)",
        kind: Kind::Requirement,
        make: |n| {
            let mut s = String::from("pkg");
            let mut i = 0;
            while s.len() < n {
                s.push_str(&format!("!={i},"));
                i += 1;
            }
            s + "<1000000000"
        },
    },
    Pattern {
        name: "requirement: long name",
        kind: Kind::Requirement,
        make: |n| repeat_to("a-", n) + "a",
    },
    Pattern {
        name: "requirement: long URL",
        kind: Kind::Requirement,
        make: |n| format!("pkg @ https://example.org/{}", "a;".repeat(n / 2)),
    },
    Pattern {
        name: "requirement: long `===` text",
        kind: Kind::Requirement,
        make: |n| format!("pkg==={}", "a".repeat(n)),
    },
    Pattern {
        name: "version: long release",
        kind: Kind::Version,
        make: |n| repeat_to("1.", n.min(60_000)) + "0",
    },
    Pattern {
        name: "version: long local label",
        kind: Kind::Version,
        make: |n| format!("1.0+{}b", repeat_to("a.", n.min(60_000))),
    },
    Pattern {
        name: "version: long number",
        kind: Kind::Version,
        make: |n| "1".repeat(n.min(60_000)),
    },
    Pattern {
        name: "specifiers: many",
        kind: Kind::Specifiers,
        make: |n| repeat_to(">=1.0, ", n.min(60_000)),
    },
    Pattern {
        name: "specifiers: many distinct (displayed)",
        kind: Kind::Specifiers,
        make: |n| {
            let mut s = String::new();
            let mut i = 0u32;
            while s.len() < n.min(60_000) {
                s.push_str(&format!("!={i},"));
                i += 1;
            }
            s
        },
    },
    Pattern {
        name: "specifiers: many duplicates to sort",
        kind: Kind::Specifiers,
        make: |n| {
            let mut s = String::new();
            let mut i = 0u32;
            while s.len() < n.min(60_000) {
                s.push_str(&format!("!={}.{},", i % 97, i % 13));
                i += 1;
            }
            s
        },
    },
];

fn run(kind: Kind, input: &str) {
    let opts = ParseOptions::default()
        .dialect(Dialect::Extended)
        .max_input_len(2 << 20);
    match kind {
        Kind::Marker => {
            let r = MarkerTree::parse_with(input, &opts, &mut Vec::new());
            if let Err(e) = &r {
                black_box(e.render(input));
            }
            if let Ok(m) = &r {
                black_box(m.to_string());
            }
            black_box(r.is_ok());
        }
        Kind::Requirement => {
            let r = Requirement::parse_with(input, &opts, &mut Vec::new());
            if let Err(e) = &r {
                black_box(e.render(input));
            }
            if let Ok(m) = &r {
                black_box(m.to_string());
            }
            black_box(r.is_ok());
        }
        Kind::Version => {
            let r = input.parse::<Version>();
            if let Ok(v) = &r {
                black_box(v.to_string());
            }
            black_box(r.is_ok());
        }
        Kind::Specifiers => {
            let r = input.parse::<VersionSpecifiers>();
            if let Ok(v) = &r {
                black_box(v.to_string());
            }
            black_box(r.is_ok());
        }
    }
}

/// The best of up to five runs, fewer when a run is slow.
fn time(kind: Kind, input: &str) -> Duration {
    let mut best = Duration::MAX;
    let mut total = Duration::ZERO;
    for _ in 0..5 {
        let start = Instant::now();
        run(kind, black_box(input));
        let t = start.elapsed();
        best = best.min(t);
        total += t;
        if total > Duration::from_millis(500) {
            break;
        }
    }
    best
}

fn main() {
    let sizes = [16 << 10, 64 << 10, 256 << 10, 1 << 20];
    let mut failed = false;
    println!(
        "{:<52} {:>10} {:>10} {:>10} {:>10}  worst ×4",
        "pattern", "16 KiB", "64 KiB", "256 KiB", "1 MiB"
    );
    for p in PATTERNS {
        let mut times = Vec::new();
        let mut lens = Vec::new();
        for &n in &sizes {
            let input = (p.make)(n);
            if times
                .last()
                .is_some_and(|t: &Duration| *t > Duration::from_secs(1))
            {
                // Too slow already: do not wait for the next size.
                lens.push(input.len());
                times.push(Duration::MAX);
                continue;
            }
            lens.push(input.len());
            times.push(time(p.kind, &input));
        }
        // Ratios between consecutive sizes, scaled by the actual length ratio.
        let mut worst: f64 = 0.0;
        for i in 1..times.len() {
            if times[i] == Duration::MAX {
                continue;
            }
            let grow = lens[i] as f64 / lens[i - 1] as f64;
            if grow < 1.5 {
                continue; // capped pattern: no growth to judge
            }
            let t0 = times[i - 1].as_secs_f64().max(20e-6);
            let ratio = times[i].as_secs_f64() / t0 * (4.0 / grow);
            worst = worst.max(ratio);
        }
        let slow = times.iter().any(|t| *t > Duration::from_secs(1));
        let bad = worst > 8.0 || slow;
        failed |= bad;
        let shown: Vec<String> = times
            .iter()
            .map(|t| {
                if *t == Duration::MAX {
                    "skipped".to_string()
                } else {
                    format!("{t:.2?}")
                }
            })
            .collect();
        println!(
            "{:<52} {:>10} {:>10} {:>10} {:>10}  {:>5.1}{}",
            p.name,
            shown[0],
            shown[1],
            shown[2],
            shown[3],
            worst,
            if bad { "  <- super-linear" } else { "" }
        );
    }
    if failed {
        std::process::exit(1);
    }
}
