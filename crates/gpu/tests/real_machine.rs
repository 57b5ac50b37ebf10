//! Detection on the machine the tests run on. Without a GPU it must say "absent", not fail;
//! with one (and `MARKERSPEC_TEST_REAL_GPU=1`), the sources must agree.

mod common;

use std::path::Path;
use std::time::Duration;

use markerspec_gpu::{Detector, DriverApi, Outcome, Source};

use common::PROBE;

/// Whether this machine shows any sign of an NVIDIA kernel driver.
fn nvidia_driver_present() -> bool {
    Path::new("/dev/nvidiactl").exists() || Path::new("/proc/driver/nvidia/version").exists()
}

fn real() -> Detector {
    Detector::new()
        .probe_program(PROBE)
        .memory_cache(false)
        .timeout(Duration::from_secs(30))
}

#[test]
fn real_detection_does_not_fail() {
    let detection = real().detect();
    eprintln!("{detection:#?}");
    if !nvidia_driver_present() {
        assert!(
            detection.cuda().unwrap().is_absent(),
            "no NVIDIA driver here: {detection:#?}"
        );
    }
    if let Outcome::Unknown { reason } = &detection.cuda().unwrap() {
        // A broken driver is possible on a real machine; a broken probe is not.
        assert!(
            matches!(reason, markerspec_gpu::UnknownReason::Driver { .. }),
            "{reason}"
        );
    }
}

#[test]
fn real_in_process_detection_does_not_crash() {
    let in_process = real().detect_in_process();
    let child = real().detect();
    assert_eq!(
        in_process.cuda().unwrap().is_absent(),
        child.cuda().unwrap().is_absent()
    );
    assert_eq!(
        in_process
            .cuda()
            .unwrap()
            .detected()
            .map(|r| r.devices.len()),
        child.cuda().unwrap().detected().map(|r| r.devices.len())
    );
}

#[test]
fn the_probe_binary_alone_prints_one_report_line() {
    let output = std::process::Command::new(PROBE).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["markerspec_gpu_probe"], 4);
    assert_eq!(json["vendors"][0]["vendor"], "cuda");
    assert!(json["vendors"][0]["outcome"].is_string());
    assert_eq!(json["vendors"][1]["vendor"], "rocm");
}

/// Fails an `--ignored` run that was not meant for this machine: a hardware test must not
/// pass without having run.
#[track_caller]
fn gpu_gate() {
    let on = std::env::var_os("MARKERSPEC_TEST_REAL_GPU").is_some_and(|v| v == "1");
    assert!(
        on,
        "not run: set MARKERSPEC_TEST_REAL_GPU=1 on a machine with an NVIDIA GPU"
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU and driver: MARKERSPEC_TEST_REAL_GPU=1 cargo test -p markerspec-gpu -- --ignored"]
fn real_gpu_is_detected_through_nvml() {
    gpu_gate();
    let detection = real().detect();
    eprintln!("{detection:#?}");
    let report = detection
        .cuda()
        .unwrap()
        .detected()
        .expect("a GPU box must be detected");
    assert_eq!(report.source, Source::Nvml);
    assert!(!report.devices.is_empty());
    assert!(report.driver_version.is_some());
    let cuda = report.cuda_driver_version().expect("a CUDA version");
    assert!(cuda.major >= 10, "{cuda}");
    for device in &report.devices {
        assert!(device.compute_capability >= (3, 0), "{device:?}");
        assert!(!device.name.is_empty());
        assert!(
            device
                .uuid
                .as_deref()
                .is_some_and(|u| u.starts_with("GPU-"))
        );
        assert!(device.memory_bytes.is_some_and(|m| m > 0));
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU and driver: MARKERSPEC_TEST_REAL_GPU=1 cargo test -p markerspec-gpu -- --ignored"]
fn real_gpu_sources_agree() {
    gpu_gate();
    let by = |source| {
        let detection = real().sources([source]).optional_libraries(false).detect();
        detection
            .cuda()
            .unwrap()
            .detected()
            .cloned()
            .unwrap_or_else(|| panic!("{source} did not detect: {detection:#?}"))
    };
    let nvml = by(Source::Nvml);
    // SPEC §8.6: the CUDA version is the driver API's alone; NVML and nvidia-smi asked alone
    // do not give it.
    let libcuda = by(Source::LibCuda);
    assert!(libcuda.cuda_driver_version().is_some(), "{libcuda:#?}");
    assert_eq!(nvml.driver_api, DriverApi::NotAsked);
    // With every source, NVML lists the devices and the version is libcuda's.
    let all = real().optional_libraries(false).detect();
    assert_eq!(
        all.cuda()
            .unwrap()
            .detected()
            .unwrap()
            .cuda_driver_version(),
        libcuda.cuda_driver_version()
    );
    for other in [libcuda, by(Source::NvidiaSmi)] {
        assert_eq!(
            other.driver_version, nvml.driver_version,
            "{}",
            other.source
        );
        assert_eq!(
            other.compute_capabilities(),
            nvml.compute_capabilities(),
            "{}",
            other.source
        );
        assert_eq!(other.devices.len(), nvml.devices.len(), "{}", other.source);
    }
}
