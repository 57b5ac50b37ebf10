//! SPEC 0.2 §8.5: the caller's device masks never reach the GPU probe. An install step run with
//! `CUDA_VISIBLE_DEVICES=""` (a CI step, a batch scheduler) must still see the machine's GPUs.
//!
//! This program is its own probe child (`harness = false`, and `main` calls
//! `run_probe_if_requested` first, as the crate docs ask), so detection runs in a real child
//! process against the fake `libcuda.so.1` of `crates/gpu/tests/fake/cuda.c`, which, as the real
//! driver, answers `CUDA_ERROR_NO_DEVICE` from `cuInit` when `CUDA_VISIBLE_DEVICES` is empty.

use std::path::{Path, PathBuf};
use std::process::Command;

use markerspec_env::{EnvironmentProvider, FixtureProvider, GPU_FIELDS, GpuProvider, fact_fields};
use markerspec_gpu::{Detector, Source};
use markerspec_pep508::{EnvValue, Field};

fn fake_libcuda() -> Result<PathBuf, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu/tests/fake/cuda.c");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("env-masks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join("libcuda.so.1");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    status
        .success()
        .then_some(out)
        .ok_or_else(|| "cc failed".to_owned())
}

/// The fixture that records what an install step under `CUDA_VISIBLE_DEVICES=""` sees on the
/// fake driver's two-GPU box (with the kernel module below).
const FIXTURE: &str = "linux-x86_64-cpython-3.12-ci-gpu-masked";

fn check(libcuda: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    let none = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-folder");
    let module = libcuda.with_file_name("nvidia-module-version");
    if let Err(e) = std::fs::write(&module, "550.144.03\n") {
        return vec![format!("cannot write {}: {e}", module.display())];
    }
    let fixture = match FixtureProvider::builtin(FIXTURE) {
        Ok(f) => f.facts(),
        Err(e) => return vec![e.to_string()],
    };
    let provider = |vars: &[(&str, &str)]| {
        let detector = Detector::new()
            .search_system(false)
            .memory_cache(false)
            .sources([Source::LibCuda])
            .cuda_library(libcuda);
        GpuProvider::with_detector(detector)
            .kfd_topology(&none)
            .rocm_path(&none)
            .nvidia_module_files(&module, none.join("proc"))
            .vars(vars.iter().copied())
            .provide(fact_fields())
            .map_err(|e| e.to_string())
    };
    for vars in [
        &[][..],
        &[("CUDA_VISIBLE_DEVICES", "")][..],
        &[("CUDA_VISIBLE_DEVICES", "1"), ("GPU_DEVICE_ORDINAL", "")][..],
    ] {
        let facts = match provider(vars) {
            Ok(facts) => facts,
            Err(e) => {
                failures.push(format!("{vars:?}: {e}"));
                continue;
            }
        };
        let backends = facts.get(Field::GpuBackends).expect("gpu_backends");
        if backends.value != EnvValue::Set(vec!["cuda".into()]) {
            failures.push(format!(
                "{vars:?}: gpu_backends is {:?} ({})",
                backends.value, backends.provenance
            ));
        }
        if facts.value(Field::CudaComputeCapabilities)
            != Some(&EnvValue::Set(vec!["8.0".into(), "9.0".into()]))
        {
            failures.push(format!(
                "{vars:?}: both devices should count, got {:?}",
                facts.value(Field::CudaComputeCapabilities)
            ));
        }
        if facts.string(Field::CudaComputeCapabilityMax) != Some("9.0") {
            failures.push(format!(
                "{vars:?}: cuda_compute_capability_max is {:?}",
                facts.value(Field::CudaComputeCapabilityMax)
            ));
        }
        if facts.string(Field::CudaVersion) != Some("12.4") {
            failures.push(format!(
                "{vars:?}: cuda_version is {:?}",
                facts.get(Field::CudaVersion)
            ));
        }
        // The caller's masks are recorded, not applied.
        let detail = backends.provenance.detail().unwrap_or_default();
        for (name, value) in vars {
            let recorded = format!("{name}={value:?}");
            if !detail.contains(&recorded) {
                failures.push(format!("{vars:?}: {recorded} not in {detail:?}"));
            }
        }
        if vars.is_empty() && detail.contains("device masks") {
            failures.push(format!("no mask was set, yet: {detail}"));
        }
        // Every GPU field as the fixture records it.
        for field in GPU_FIELDS {
            if facts.value(field) != fixture.value(field) {
                failures.push(format!(
                    "{vars:?}: `{field}` is {:?}, the fixture {FIXTURE} says {:?}",
                    facts.value(field),
                    fixture.value(field)
                ));
            }
        }
    }
    failures
}

fn main() {
    markerspec_env::run_probe_if_requested();
    if !cfg!(target_os = "linux") {
        println!("device_masks: not run (the fake driver is a Linux shared library); 0 passed");
        return;
    }
    let libcuda = match fake_libcuda() {
        Ok(path) => path,
        Err(e) => {
            eprintln!("device_masks: FAILED, not run: the fake libcuda could not be built: {e}");
            std::process::exit(1);
        }
    };
    let failures = check(&libcuda);
    if failures.is_empty() {
        println!("test device_masks ... ok");
        println!("1 passed; 0 failed");
    } else {
        for f in &failures {
            eprintln!("device_masks: {f}");
        }
        println!("test device_masks ... FAILED");
        println!("0 passed; 1 failed");
        std::process::exit(1);
    }
}
