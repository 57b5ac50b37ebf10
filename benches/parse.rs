//! Parsing speed: the real `Requires-Dist` corpus, markers alone, and worst cases that show the
//! parse time grows linearly with the input.
//!
//! `cargo bench --bench parse`. The side-by-side comparison with uv-pep508 and pep508_rs is
//! `benches/compare` (see BENCHMARKS.md).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use markerspec::pep508::{MarkerTree, ParseOptions, Requirement};

const CORPUS: &str = include_str!("../tests/data/requires-dist-gpu-stack.txt");

fn corpus(c: &mut Criterion) {
    let lines: Vec<&str> = CORPUS.lines().collect();
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("requirements", |b| {
        b.iter(|| {
            for l in &lines {
                black_box(l.parse::<Requirement>().unwrap());
            }
        })
    });
    let markers: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_once(';').map(|(_, m)| m))
        .filter(|m| m.parse::<MarkerTree>().is_ok())
        .collect();
    g.throughput(Throughput::Elements(markers.len() as u64));
    g.bench_function("markers", |b| {
        b.iter(|| {
            for m in &markers {
                black_box(m.parse::<MarkerTree>().unwrap());
            }
        })
    });
    g.finish();
}

/// Inputs that grow: if parsing is linear, time per byte stays flat across sizes.
fn worst_cases(c: &mut Criterion) {
    let mut g = c.benchmark_group("linear");
    let unlimited = ParseOptions::default()
        .max_nesting(usize::MAX)
        .max_input_len(usize::MAX)
        .max_clauses(usize::MAX)
        .max_string_len(usize::MAX);
    for n in [100usize, 1_000, 10_000] {
        let cases = [
            (
                "or-chain",
                (0..n)
                    .map(|i| format!("os_name == 'x{i}'"))
                    .collect::<Vec<_>>()
                    .join(" or "),
            ),
            (
                "nested-parens",
                format!("{}os_name == 'nt'{}", "(".repeat(n), ")".repeat(n)),
            ),
            (
                "long-string",
                format!("os_name == '{}'", "x".repeat(n * 20)),
            ),
            (
                "alternating-nesting",
                (0..n).fold("os_name == 'nt'".to_string(), |acc, i| {
                    format!(
                        "os_name == 'x{i}' {} ({acc})",
                        if i % 2 == 0 { "or" } else { "and" }
                    )
                }),
            ),
        ];
        for (name, text) in cases {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::new(name, n), &text, |b, text| {
                b.iter(|| {
                    let _ = black_box(MarkerTree::parse_with(text, &unlimited, &mut |_| {}));
                })
            });
        }
        // Rejected inputs cost no more than accepted ones: the error is found at the limit.
        let deep = format!(
            "{}os_name == 'nt'{}",
            "(".repeat(n * 10),
            ")".repeat(n * 10)
        );
        g.throughput(Throughput::Bytes(deep.len() as u64));
        g.bench_with_input(BenchmarkId::new("rejected-nesting", n), &deep, |b, text| {
            b.iter(|| black_box(text.parse::<MarkerTree>().unwrap_err()))
        });
    }
    g.finish();
}

criterion_group!(benches, corpus, worst_cases);
criterion_main!(benches);
