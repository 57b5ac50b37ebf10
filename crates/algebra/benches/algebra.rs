//! A first benchmark of the engine on lock-file-shaped markers: Python version ranges with
//! pre-release-exact bounds, platform strings and extras. Run with
//! `cargo bench -p markerspec-algebra --bench algebra`.

use criterion::{Criterion, criterion_group, criterion_main};
use markerspec_algebra::{Context, Domain, Marker};
use std::hint::black_box;

/// Builds `n` markers of the shape `python_full_version >= '3.X' and python_full_version < '3.Y'
/// and sys_platform == P [and platform_machine == M] [and extra == E]`.
fn markers(ctx: &mut Context, n: usize) -> Vec<Marker> {
    let py = ctx
        .variable(0, "python_full_version", Domain::Version)
        .unwrap();
    let os = ctx.variable(1, "sys_platform", Domain::String).unwrap();
    let machine = ctx.variable(2, "platform_machine", Domain::String).unwrap();
    let platforms = ["linux", "win32", "darwin"];
    let machines = ["x86_64", "aarch64"];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let lo = 8 + i % 6;
        let hi = lo + 1 + i % 4;
        let a = ctx
            .version_specifier(py, &format!(">=3.{lo}").parse().unwrap())
            .unwrap();
        let b = ctx
            .version_specifier(py, &format!("<3.{hi}").parse().unwrap())
            .unwrap();
        let mut m = ctx.and(a, b).unwrap();
        let p = ctx.string_eq(os, platforms[i % 3]).unwrap();
        m = ctx.and(m, p).unwrap();
        if i % 2 == 0 {
            let q = ctx.string_eq(machine, machines[i / 2 % 2]).unwrap();
            m = ctx.and(m, q).unwrap();
        }
        if i % 5 == 0 {
            let e = ctx
                .variable(10, &format!("extra:e{}", i % 7), Domain::Bool)
                .unwrap();
            let e = ctx.boolean(e).unwrap();
            m = ctx.and(m, e).unwrap();
        }
        out.push(m);
    }
    out
}

fn bench(c: &mut Criterion) {
    c.bench_function("build 200 markers", |b| {
        b.iter(|| {
            let mut ctx = Context::new();
            black_box(markers(&mut ctx, 200));
        })
    });
    let mut ctx = Context::new();
    let ms = markers(&mut ctx, 200);
    c.bench_function("and + or of 200 pairs (fresh caches)", |b| {
        b.iter(|| {
            ctx.clear_caches();
            for w in ms.windows(2) {
                black_box(ctx.and(w[0], w[1]).unwrap());
                black_box(ctx.or(w[0], w[1]).unwrap());
            }
        })
    });
    c.bench_function("is_disjoint + implies of 200 pairs (fresh caches)", |b| {
        b.iter(|| {
            ctx.clear_caches();
            for w in ms.windows(2) {
                black_box(ctx.is_disjoint(w[0], w[1]).unwrap());
                black_box(ctx.implies(w[0], w[1]).unwrap());
            }
        })
    });
    c.bench_function("relate 200 pairs", |b| {
        b.iter(|| {
            ctx.clear_caches();
            for w in ms.windows(2) {
                black_box(ctx.relate(w[0], w[1]).unwrap());
            }
        })
    });
    c.bench_function("dnf of 200 markers", |b| {
        b.iter(|| {
            for m in &ms {
                black_box(ctx.dnf(*m).unwrap());
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
