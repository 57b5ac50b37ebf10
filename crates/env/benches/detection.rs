//! Detection benchmarks: the whole standard stack from warm caches, the GPU provider warm and
//! cold (no GPU libraries: an empty library path), and the host and python providers cold.
//!
//! `cargo bench -p markerspec-env --bench detection`. The cold GPU detection runs this bench
//! binary itself as the probe child, so `main` starts with `run_probe_if_requested`.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group};
use markerspec_env::{
    DetectOptions, EnvironmentProvider, GPU_FIELDS, GpuProvider, HostProvider, PythonProvider,
    fact_fields,
};
use markerspec_gpu::Detector;
use markerspec_pep508::FieldSet;

fn empty_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("markerspec-bench-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gpu_fields() -> FieldSet {
    GPU_FIELDS.into_iter().collect()
}

fn warm(c: &mut Criterion) {
    let mut group = c.benchmark_group("warm");
    // Every layer answers from its cache: host and python per provider value, the GPU detector
    // from its process-wide memory cache.
    let layers = DetectOptions::from_process().layers();
    layers.provide(fact_fields()).unwrap();
    group.bench_function("all-layers", |b| {
        b.iter(|| layers.provide(std::hint::black_box(fact_fields())).unwrap())
    });
    let gpu = GpuProvider::new();
    gpu.provide(gpu_fields()).unwrap();
    group.bench_function("gpu", |b| {
        b.iter(|| gpu.provide(std::hint::black_box(gpu_fields())).unwrap())
    });
    group.finish();
}

fn cold(c: &mut Criterion) {
    let mut group = c.benchmark_group("cold");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    let empty = empty_dir();
    // No GPU libraries anywhere the loader looks, no nvidia-smi on PATH, no caches.
    let detector = Detector::new()
        .memory_cache(false)
        .library_path_var(&empty)
        .path_var(&empty);
    let in_child = GpuProvider::with_detector(detector.clone());
    group.bench_function("gpu-no-libraries-child", |b| {
        b.iter(|| in_child.provide(gpu_fields()).unwrap())
    });
    let in_process = GpuProvider::with_detector(detector).in_process(true);
    group.bench_function("gpu-no-libraries-in-process", |b| {
        b.iter(|| in_process.provide(gpu_fields()).unwrap())
    });
    group.bench_function("host", |b| {
        b.iter(|| HostProvider::new().provide(fact_fields()).unwrap())
    });
    if PythonProvider::new().resolve().is_ok() {
        group.bench_function("python", |b| {
            b.iter(|| PythonProvider::new().provide(fact_fields()).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, warm, cold);

fn main() {
    markerspec_env::run_probe_if_requested();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
