//! Evaluation speed on the markers of the real corpus, under both profiles, against a Linux
//! x86_64 CPython 3.12 environment with no extras (the environment every peer was measured
//! with).
//!
//! `cargo bench --bench evaluate`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use markerspec::pep508::{
    Environment, EvalOptions, MarkerTree, ParseOptions, Profile, Requirement,
};

const CORPUS: &str = include_str!("../tests/data/requires-dist-gpu-stack.txt");
const LINUX: &str = include_str!("../spec/environments/linux-x86_64-cpython-3.12.json");

fn evaluate(c: &mut Criterion) {
    let env: Environment = serde_json::from_str(LINUX).unwrap();
    let mut g = c.benchmark_group("evaluate");
    for profile in [Profile::Spec2026, Profile::Packaging] {
        let opts = ParseOptions::default().profile(profile);
        let markers: Vec<MarkerTree> = CORPUS
            .lines()
            .filter_map(|l| Requirement::parse_with(l, &opts, &mut |_| {}).ok())
            .filter_map(|r| r.marker().cloned())
            .collect();
        let eval = EvalOptions::default();
        let applies = markers
            .iter()
            .filter(|m| m.evaluate_with(&env, eval).unwrap())
            .count();
        assert_eq!(
            applies, 13,
            "13 of the corpus markers hold for this environment"
        );
        g.throughput(Throughput::Elements(markers.len() as u64));
        g.bench_function(format!("corpus/{profile}"), |b| {
            b.iter(|| {
                for m in &markers {
                    black_box(m.evaluate_with(&env, eval).unwrap());
                }
            })
        });
    }
    for (name, text) in [
        ("extra", "extra == 'gpu'"),
        ("string", "sys_platform == 'linux'"),
        ("version", "python_version >= '3.10'"),
        (
            "seven-comparisons",
            "(sys_platform == 'linux' and platform_machine == 'aarch64' or sys_platform == 'linux' and platform_machine == 'x86_64' or sys_platform == 'win32' and platform_machine == 'AMD64') and extra == 'all'",
        ),
    ] {
        let m: MarkerTree = text.parse().unwrap();
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("one/{name}"), |b| {
            b.iter(|| black_box(m.evaluate(&env).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, evaluate);
criterion_main!(benches);
