//! Detection against fake driver libraries built from `tests/fake/*.c`: every path through the
//! sources, the isolation, and the caches, without a GPU.

#![cfg(unix)]

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use markerspec_gpu::{
    CudaReport, CudaVersion, Detection, DeviceAccess, DriverApi, GpuAgent, LibVersion, Libraries,
    LibraryStatus, Origin, Outcome, ReadState, Reading, Source, UnknownReason,
};

use common::{PROBE, detector, scratch};

#[track_caller]
fn detected(detection: &Detection) -> &CudaReport {
    match &detection.cuda().unwrap() {
        Outcome::Detected(report) => report,
        other => panic!(
            "expected a detection, got {other:#?}\nnotes: {:?}",
            detection.notes
        ),
    }
}

#[track_caller]
fn unknown(detection: &Detection) -> &UnknownReason {
    match &detection.cuda().unwrap() {
        Outcome::Unknown { reason } => reason,
        other => panic!("expected unknown, got {other:#?}"),
    }
}

#[track_caller]
fn assert_two_gpu_box(report: &CudaReport) {
    let ccs: Vec<_> = report
        .devices
        .iter()
        .map(|d| d.compute_capability)
        .collect();
    assert_eq!(ccs, [(8, 0), (9, 0)]);
    assert_eq!(report.devices[0].name, "Fake A100-SXM4-80GB");
    assert_eq!(report.devices[1].name, "Fake H100 80GB HBM3");
    assert_eq!(report.devices[1].index, 1);
    assert_eq!(report.min_compute_capability(), Some((8, 0)));
}

fn notes_mention(notes: &[String], text: &str) -> bool {
    notes.iter().any(|n| n.contains(text))
}

// ---- NVML ------------------------------------------------------------------------------------

#[test]
fn the_cuda_version_is_libcudas_whichever_source_lists_the_devices() {
    // SPEC §8.6: one source, libcuda's cuDriverGetVersion after cuInit. NVML says 12.8 (as a
    // driver under a forward-compatibility libcuda 12.4 would); the report says libcuda's 12.4
    // and keeps NVML's answer in the notes.
    let fakes = fakes_or_skip!();
    let log = scratch("nvml-vs-libcuda").join("calls.log");
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_NVML_CUDA_VERSION", "12080")
        .child_env("FAKE_CUDA_VERSION", "12040")
        .child_env("FAKE_LOG", &log)
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert_two_gpu_box(report);
    assert_eq!(
        report.driver_api,
        DriverApi::Version {
            version: CudaVersion::new(12, 4).unwrap()
        }
    );
    assert!(
        notes_mention(
            &report.notes,
            "nvmlSystemGetCudaDriverVersion: CUDA 12.8 (not used"
        ),
        "{:?}",
        report.notes
    );
    // cuInit ran (in the probe, after NVML shut down its session).
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "nvmlInit\nnvmlShutdown\ncuInit\n"
    );
}

#[test]
fn without_a_usable_driver_api_there_is_no_cuda_version() {
    // NVML lists the devices; the driver API is missing, finds no device, or fails. The first
    // two are "no CUDA for a CUDA program" (cuda_version Absent), the last is Unknown; never
    // NVML's answer in its place.
    let fakes = fakes_or_skip!();
    let detection = detector().nvml_library(&fakes.nvml).detect();
    let report = detected(&detection);
    assert_two_gpu_box(report);
    assert!(
        matches!(&report.driver_api, DriverApi::NotPresent { note } if note.contains("libcuda")),
        "{:?}",
        report.driver_api
    );
    assert_eq!(report.cuda_driver_version(), None);
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "nodevice")
        .detect();
    assert!(
        matches!(&detected(&detection).driver_api, DriverApi::NotPresent { note } if note.contains("CUDA_ERROR_NO_DEVICE")),
        "{detection:#?}"
    );
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "initfail")
        .detect();
    assert!(
        matches!(&detected(&detection).driver_api, DriverApi::Failed { reason } if reason.contains("CUDA_ERROR_UNKNOWN")),
        "{detection:#?}"
    );
    // libcuda left out of the sources: not asked, so not known.
    let detection = detector()
        .sources([Source::Nvml])
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .detect();
    assert_eq!(detected(&detection).driver_api, DriverApi::NotAsked);
}

#[test]
fn nvml_reports_a_two_gpu_box_and_shuts_down() {
    let fakes = fakes_or_skip!();
    let log = scratch("nvml-normal").join("calls.log");
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_LOG", &log)
        .detect();
    assert_eq!(detection.origin, Origin::Probe);
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert_eq!(report.driver_version.as_deref(), Some("550.144.03"));
    assert_two_gpu_box(report);
    assert_eq!(
        report.devices[0].uuid.as_deref(),
        Some("GPU-00000000-0000-0000-0000-000000000000")
    );
    assert_eq!(report.devices[0].memory_bytes, Some(80 << 30));
    assert_eq!(report.devices[1].memory_bytes, Some(81 << 30));
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "nvmlInit\nnvmlShutdown\n"
    );
    assert!(detection.rocm().unwrap().is_absent());
}

#[test]
fn nvml_without_v2_entry_points_uses_the_originals() {
    let fakes = fakes_or_skip!();
    let detection = detector().nvml_library(&fakes.nvml_v1).detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert_two_gpu_box(report);
}

#[test]
fn nvml_with_zero_devices_is_a_driver_without_gpus() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "zero")
        .detect();
    let report = detected(&detection);
    assert!(report.devices.is_empty());
    assert_eq!(report.driver_version.as_deref(), Some("550.144.03"));
    assert_eq!(report.min_compute_capability(), None);
}

#[test]
fn nvml_without_a_loaded_driver_is_absent() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "nodriver")
        .detect();
    let Outcome::Absent { notes } = &detection.cuda().unwrap() else {
        panic!("{detection:#?}");
    };
    assert!(
        notes_mention(notes, "NVML_ERROR_DRIVER_NOT_LOADED"),
        "{notes:?}"
    );
}

#[test]
fn nvml_init_failure_alone_is_unknown() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "initfail")
        .detect();
    let UnknownReason::Driver { errors } = unknown(&detection) else {
        panic!("{detection:#?}");
    };
    assert!(notes_mention(errors, "NVML_ERROR_UNKNOWN"), "{errors:?}");
}

#[test]
fn nvml_init_failure_falls_back_to_libcuda() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_NVML_MODE", "initfail")
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::LibCuda);
    assert_two_gpu_box(report);
    assert_eq!(report.cuda_driver_version(), CudaVersion::new(12, 4));
    assert!(
        notes_mention(&report.notes, "nvmlInit_v2"),
        "{:?}",
        report.notes
    );
}

#[test]
fn nvml_missing_a_required_symbol_falls_back_to_libcuda() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml_no_count)
        .cuda_library(&fakes.cuda)
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::LibCuda);
    assert_two_gpu_box(report);
    assert_eq!(report.cuda_driver_version(), CudaVersion::new(12, 4));
    assert!(
        notes_mention(&report.notes, "lacks `nvmlDeviceGetCount_v2`"),
        "{:?}",
        report.notes
    );
}

#[test]
fn nvml_hang_is_unknown_after_the_timeout() {
    let fakes = fakes_or_skip!();
    let start = Instant::now();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "hang")
        .timeout(Duration::from_millis(400))
        .detect();
    assert_eq!(
        unknown(&detection),
        &UnknownReason::Timeout { after_ms: 400 }
    );
    assert!(
        detection.rocm().unwrap().is_absent(),
        "ROCm was not asked for"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn nvml_segfault_is_unknown_with_the_signal() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "crash")
        .detect();
    let reason = unknown(&detection);
    assert!(
        matches!(
            reason,
            UnknownReason::Crashed {
                signal: Some(11),
                ..
            }
        ),
        "{reason:?}"
    );
    assert!(reason.to_string().contains("signal 11"), "{reason}");
}

#[test]
fn nvml_abort_is_unknown_with_the_signal() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "abort")
        .detect();
    let reason = unknown(&detection);
    assert!(
        matches!(
            reason,
            UnknownReason::Crashed {
                signal: Some(6),
                ..
            }
        ),
        "{reason:?}"
    );
}

#[test]
fn nvml_out_of_range_versions_are_rejected_with_notes() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "badversion")
        .detect();
    let report = detected(&detection);
    assert_eq!(report.cuda_driver_version(), None);
    assert_eq!(report.driver_version, None);
    assert!(
        notes_mention(&report.notes, "version code 1000000 is out of range"),
        "{:?}",
        report.notes
    );
    assert!(
        notes_mention(&report.notes, "\"five-fifty\""),
        "{:?}",
        report.notes
    );
    assert_eq!(report.devices.len(), 2, "the devices are still facts");
}

#[test]
fn an_out_of_range_nvml_version_is_filled_from_libcuda() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_NVML_MODE", "badversion")
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert_eq!(
        report.cuda_driver_version(),
        Some(CudaVersion {
            major: 12,
            minor: 4
        })
    );
    assert!(
        notes_mention(&report.notes, "cuDriverGetVersion"),
        "{:?}",
        report.notes
    );
}

#[test]
fn a_chatty_library_does_not_corrupt_the_report() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "chatty")
        .detect();
    assert_two_gpu_box(detected(&detection));
}

#[test]
fn a_missing_explicit_library_falls_back_to_the_search_with_a_note() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .search_system(true)
        .sources([Source::Nvml])
        .nvml_library("/nonexistent/libnvidia-ml.so.1")
        .library_path_var(&fakes.soname_dir)
        .detect();
    let report = detected(&detection);
    assert!(
        notes_mention(
            &report.notes,
            "NVML: /nonexistent/libnvidia-ml.so.1 does not exist; loaded libnvidia-ml.so.1"
        ),
        "{:?}",
        report.notes
    );
}

#[test]
fn sonames_are_found_through_the_library_path() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .search_system(true)
        .sources([Source::Nvml])
        .library_path_var(&fakes.soname_dir)
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert_two_gpu_box(report);
}

// ---- libcuda ---------------------------------------------------------------------------------

#[test]
fn libcuda_alone_reports_the_box_and_reads_the_driver_version_file() {
    let fakes = fakes_or_skip!();
    let dir = scratch("libcuda-only");
    let version = dir.join("version");
    fs::write(
        &version,
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.144.03  Thu Nov 28 22:58:50 UTC 2024\n",
    )
    .unwrap();
    let detection = detector()
        .cuda_library(&fakes.cuda)
        .driver_version_file(&version)
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::LibCuda);
    assert_two_gpu_box(report);
    assert_eq!(report.cuda_driver_version(), CudaVersion::new(12, 4));
    assert_eq!(report.driver_version.as_deref(), Some("550.144.03"));
    assert_eq!(
        report.devices[1].uuid.as_deref(),
        Some("GPU-ab000000-0000-0000-0000-000000000001")
    );
    assert_eq!(report.devices[0].memory_bytes, Some(80 << 30));
    assert!(
        notes_mention(&report.notes, "NVML: no library to try"),
        "{:?}",
        report.notes
    );
}

#[test]
fn libcuda_without_a_device_is_absent() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "nodevice")
        .detect();
    let Outcome::Absent { notes } = &detection.cuda().unwrap() else {
        panic!("{detection:#?}");
    };
    assert!(notes_mention(notes, "CUDA_ERROR_NO_DEVICE"), "{notes:?}");
}

#[test]
fn libcuda_init_failure_is_unknown() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "initfail")
        .detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Driver { errors } if notes_mention(errors, "CUDA_ERROR_UNKNOWN"))
    );
}

#[test]
fn libcuda_hang_and_crash_are_unknown() {
    let fakes = fakes_or_skip!();
    let hang = detector()
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "hang")
        .timeout(Duration::from_millis(300))
        .detect();
    assert_eq!(unknown(&hang), &UnknownReason::Timeout { after_ms: 300 });
    let crash = detector()
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "crash")
        .detect();
    assert!(matches!(
        unknown(&crash),
        UnknownReason::Crashed {
            signal: Some(11),
            ..
        }
    ));
    // With ROCm asked for, the crash leaves it unknown too: it was never probed.
    let crash = detector()
        .rocm(true)
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_MODE", "crash")
        .detect();
    assert_eq!(
        crash.rocm().unwrap().unknown_reason(),
        crash.cuda().unwrap().unknown_reason()
    );
}

#[test]
fn an_out_of_range_libcuda_version_is_rejected() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .cuda_library(&fakes.cuda)
        .child_env("FAKE_CUDA_VERSION", "100000")
        .detect();
    let report = detected(&detection);
    assert_eq!(report.cuda_driver_version(), None);
    assert!(
        notes_mention(&report.notes, "out of range"),
        "{:?}",
        report.notes
    );
}

// ---- nvidia-smi ------------------------------------------------------------------------------

#[test]
fn nvidia_smi_on_path_is_the_last_resort() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .search_system(true)
        .sources([Source::Nvml, Source::LibCuda, Source::NvidiaSmi])
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "nodriver")
        // Keep the real machine's libraries out of it: nothing in these folders.
        .library_path_var(&fakes.smi_dir)
        .path_var(&fakes.smi_dir)
        .detect();
    // On a machine with a real driver, the system search would find it: accept that too.
    let report = detected(&detection);
    assert_eq!(
        report.source,
        Source::NvidiaSmi,
        "not run: a real driver answered first, so the fallback cannot be observed on this \
         machine (run it on one without an NVIDIA driver)"
    );
    assert_eq!(report.driver_version.as_deref(), Some("550.144.03"));
    assert_two_gpu_box(report);
    assert_eq!(report.devices[0].memory_bytes, Some(81920 << 20));
    assert_eq!(
        report.devices[1].uuid.as_deref(),
        Some("GPU-00000001-0000-0000-0000-000000000000")
    );
}

#[test]
fn nvidia_smi_explicit_only() {
    let fakes = fakes_or_skip!();
    let smi = fakes.smi_dir.join("nvidia-smi");
    let detection = detector()
        .sources([Source::NvidiaSmi])
        .nvidia_smi(&smi)
        .detect();
    let report = detected(&detection);
    assert_eq!(report.source, Source::NvidiaSmi);
    assert_two_gpu_box(report);
    // SPEC §8.6: nvidia-smi's `CUDA Version:` is not the CUDA version; libcuda was not asked.
    assert_eq!(report.driver_api, DriverApi::NotAsked);
    assert!(
        notes_mention(&report.notes, "CUDA Version: 12.4 (not used"),
        "{:?}",
        report.notes
    );
}

#[test]
fn nvidia_smi_without_a_driver_is_absent() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .sources([Source::NvidiaSmi])
        .nvidia_smi(fakes.smi_dir.join("nvidia-smi"))
        .child_env("FAKE_SMI_MODE", "nodriver")
        .detect();
    let Outcome::Absent { notes } = &detection.cuda().unwrap() else {
        panic!("{detection:#?}");
    };
    assert!(notes_mention(notes, "couldn't communicate"), "{notes:?}");
}

#[test]
fn nvidia_smi_hang_is_killed_and_reported() {
    let fakes = fakes_or_skip!();
    let start = Instant::now();
    let detection = detector()
        .sources([Source::NvidiaSmi])
        .nvidia_smi(fakes.smi_dir.join("nvidia-smi"))
        .child_env("FAKE_SMI_MODE", "hang")
        .timeout(Duration::from_millis(800))
        .detect();
    let UnknownReason::Driver { errors } = unknown(&detection) else {
        panic!("{detection:#?}");
    };
    assert!(
        notes_mention(errors, "timed out after 600 ms"),
        "{errors:?}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn nvidia_smi_garbage_is_unknown() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .sources([Source::NvidiaSmi])
        .nvidia_smi(fakes.smi_dir.join("nvidia-smi"))
        .child_env("FAKE_SMI_MODE", "garbage")
        .detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Driver { errors } if notes_mention(errors, "unexpected output line"))
    );
}

// ---- optional libraries ----------------------------------------------------------------------

#[test]
fn optional_libraries_report_their_versions() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .optional_libraries(true)
        .cudnn_library(&fakes.cudnn)
        .nccl_library(&fakes.nccl)
        .cutensor_library(&fakes.cutensor)
        .detect();
    let libraries = &detected(&detection).libraries;
    let loaded = |path: &Path, major, minor, patch| LibraryStatus::Loaded {
        library: path.display().to_string(),
        version: LibVersion {
            major,
            minor,
            patch,
        },
    };
    assert_eq!(libraries.cudnn, loaded(&fakes.cudnn, 9, 1, 0));
    assert_eq!(libraries.nccl, loaded(&fakes.nccl, 2, 21, 5));
    assert_eq!(libraries.cutensor, loaded(&fakes.cutensor, 2, 0, 1));
}

#[test]
fn optional_libraries_decode_the_old_encodings() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .optional_libraries(true)
        .cudnn_library(&fakes.cudnn)
        .nccl_library(&fakes.nccl)
        .child_env("FAKE_CUDNN_VERSION", "8907")
        .child_env("FAKE_NCCL_VERSION", "2804")
        .detect();
    let libraries = &detected(&detection).libraries;
    assert_eq!(
        libraries.cudnn.version().map(|v| v.to_string()).as_deref(),
        Some("8.9.7")
    );
    assert_eq!(
        libraries.nccl.version().map(|v| v.to_string()).as_deref(),
        Some("2.8.4")
    );
}

#[test]
fn optional_libraries_absent_or_broken() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .optional_libraries(true)
        // A library that does not export the function asked for.
        .cudnn_library(&fakes.nccl)
        .nccl_library("/nonexistent/libnccl.so.2")
        .detect();
    let report = detected(&detection);
    // Each library says which of the three it is; no note wording to parse.
    assert_eq!(
        report.libraries.cudnn,
        LibraryStatus::Failed {
            library: fakes.nccl.display().to_string(),
            reason: "lacks `cudnnGetVersion`".into(),
        }
    );
    assert_eq!(report.libraries.nccl, LibraryStatus::NotFound);
    assert_eq!(report.libraries.cutensor, LibraryStatus::NotFound);
    // People still get the story in the notes.
    assert!(
        notes_mention(&report.notes, "lacks `cudnnGetVersion`"),
        "{:?}",
        report.notes
    );
    assert!(
        notes_mention(&report.notes, "NCCL: not found"),
        "{:?}",
        report.notes
    );
    assert!(
        !notes_mention(&report.notes, "cuTENSOR"),
        "not asked, not noted: {:?}",
        report.notes
    );
}

#[test]
fn a_version_function_that_fails_or_answers_garbage_is_a_failure_with_its_reason() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .optional_libraries(true)
        .nccl_library(&fakes.nccl)
        .cutensor_library(&fakes.cutensor)
        .child_env("FAKE_NCCL_RESULT", "3")
        .child_env("FAKE_CUTENSOR_VERSION", "0")
        .detect();
    let libraries = &detected(&detection).libraries;
    let reason = |status: &LibraryStatus| match status {
        LibraryStatus::Failed { reason, .. } => reason.clone(),
        other => panic!("expected a failure, got {other:?}"),
    };
    assert_eq!(
        reason(&libraries.nccl),
        "ncclGetVersion returned ncclResult_t 3"
    );
    assert_eq!(
        reason(&libraries.cutensor),
        "cuTENSOR version code 0 is out of range"
    );
}

#[test]
fn optional_libraries_turned_off_are_not_probed() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .cudnn_library(&fakes.cudnn)
        .detect();
    let libraries = &detected(&detection).libraries;
    assert_eq!(libraries.cudnn, LibraryStatus::NotProbed);
    assert_eq!(libraries, &Libraries::default());
}

// ---- ROCm ------------------------------------------------------------------------------------

/// A fake KFD topology: one folder per node with its `properties`.
fn kfd_tree(name: &str, nodes: &[(&str, &str)]) -> std::path::PathBuf {
    let topology = scratch(name);
    for (node, properties) in nodes {
        let dir = topology.join(node);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("properties"), properties).unwrap();
    }
    topology
}

#[test]
fn rocm_reports_the_hip_version_and_architectures() {
    let fakes = fakes_or_skip!();
    let topology = kfd_tree(
        "kfd",
        &[
            (
                "0",
                "cpu_cores_count 0\ngfx_target_version 0\nsimd_count 0\n",
            ),
            (
                "1",
                "cpu_cores_count 0\ngfx_target_version 90010\nsimd_count 0\n",
            ),
            (
                "2",
                "cpu_cores_count 0\ngfx_target_version 90402\nsimd_count 0\n",
            ),
            (
                "3",
                "cpu_cores_count 0\ngfx_target_version 90010\nsimd_count 0\n",
            ),
        ],
    );
    let detection = detector()
        .rocm(true)
        .hip_library(&fakes.hip)
        .kfd_topology(&topology)
        .detect();
    assert!(detection.cuda().unwrap().is_absent());
    let Some(Outcome::Detected(rocm)) = detection.rocm() else {
        panic!("{detection:#?}");
    };
    assert_eq!(
        rocm.hip_version.map(|v| v.to_string()).as_deref(),
        Some("6.2.41133")
    );
    assert_eq!(rocm.gpu_archs(), ["gfx90a", "gfx942"]);
    let nodes: Vec<u32> = rocm.agents().iter().map(|a| a.node).collect();
    assert_eq!(nodes, [1, 2, 3]);
    // Nothing else was named, and the system is not searched: not looked at.
    assert_eq!(rocm.release, None);
    assert_eq!(rocm.device, None);
}

#[test]
fn rocm_reads_the_release_topology_and_device_in_the_probe() {
    let _ = fakes_or_skip!();
    let topology = kfd_tree(
        "kfd-full",
        &[
            ("0", "gfx_target_version 0\n"),
            ("1", "gfx_target_version 90010\nunique_id 2748\n"),
        ],
    );
    let root = scratch("rocm-root");
    fs::create_dir_all(root.join(".info")).unwrap();
    fs::write(root.join(".info/version"), "6.3.1-48\n").unwrap();
    // A regular file stands in for /dev/kfd: it opens for reading and writing.
    let device = root.join("kfd");
    fs::write(&device, "").unwrap();
    let detection = detector()
        .rocm(true)
        .rocm_path(&root)
        .kfd_topology(&topology)
        .kfd_device(&device)
        .detect();
    assert_eq!(detection.origin, Origin::Probe);
    let Some(Outcome::Detected(rocm)) = detection.rocm() else {
        panic!("{detection:#?}");
    };
    assert_eq!(rocm.hip_version, None);
    assert_eq!(
        rocm.release,
        Some(Reading {
            path: root.join(".info/version"),
            state: ReadState::Read {
                value: "6.3.1".into()
            },
        })
    );
    assert_eq!(
        rocm.agents(),
        [GpuAgent {
            node: 1,
            arch: "gfx90a".into(),
            unique_id: Some(2748),
        }]
    );
    assert_eq!(
        rocm.device,
        Some(DeviceAccess {
            path: device.clone(),
            error: None,
        })
    );

    // No access to the device: the agents stay, the device says why.
    let detection = detector()
        .rocm(true)
        .kfd_topology(&topology)
        .kfd_device(root.join("no-such-device"))
        .detect();
    let Some(Outcome::Detected(rocm)) = detection.rocm() else {
        panic!("{detection:#?}");
    };
    assert_eq!(rocm.gpu_archs(), ["gfx90a"]);
    let error = rocm.device.as_ref().and_then(|d| d.error.clone());
    assert!(
        error.as_deref().is_some_and(|e| e.contains("No such file")),
        "{error:?}"
    );
}

#[test]
fn rocm_files_that_cannot_be_read_are_failures_not_absence() {
    let _ = fakes_or_skip!();
    let topology = kfd_tree(
        "kfd-odd",
        &[
            ("0", "gfx_target_version 0\n"),
            ("1", "gfx_target_version 90016\n"),
        ],
    );
    let root = scratch("rocm-garbage");
    fs::create_dir_all(root.join(".info")).unwrap();
    fs::write(root.join(".info/version"), "not a version\n").unwrap();
    let detection = detector()
        .rocm(true)
        .rocm_path(&root)
        .kfd_topology(&topology)
        .detect();
    let Some(Outcome::Detected(rocm)) = detection.rocm() else {
        panic!("a file that exists and fails is not absence: {detection:#?}");
    };
    assert_eq!(
        rocm.release.as_ref().map(|r| &r.state),
        Some(&ReadState::Failed {
            reason: "no version on its first line".into()
        })
    );
    let Some(ReadState::Failed { reason }) = rocm.topology.as_ref().map(|t| &t.state) else {
        panic!("{rocm:#?}");
    };
    assert!(reason.ends_with("odd gfx_target_version 90016"), "{reason}");
    assert!(rocm.agents().is_empty());
    assert_eq!(rocm.device, None, "no agent, no device check");
}

#[test]
fn rocm_absent() {
    let _ = fakes_or_skip!();
    let empty = scratch("rocm-absent");
    let detection = detector()
        .rocm(true)
        .kfd_topology("/nonexistent")
        .rocm_path(&empty)
        .detect();
    let Some(Outcome::Absent { notes }) = detection.rocm() else {
        panic!("{detection:#?}");
    };
    assert!(notes_mention(notes, "ROCm: no /nonexistent"), "{notes:?}");
    // A topology with only CPU nodes is no GPU either.
    let cpus = kfd_tree("kfd-cpus", &[("0", "gfx_target_version 0\n")]);
    let detection = detector().rocm(true).kfd_topology(&cpus).detect();
    assert!(detection.rocm().unwrap().is_absent(), "{detection:#?}");
}

// ---- the probe child -------------------------------------------------------------------------

#[test]
fn a_missing_probe_program_is_unknown() {
    let detection = detector().probe_program("/nonexistent/probe").detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Spawn { program, .. } if program == "/nonexistent/probe")
    );
}

fn script(dir: &Path, body: &str) -> std::path::PathBuf {
    let path = dir.join("probe.sh");
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    common::make_executable(&path);
    path
}

#[test]
fn a_probe_that_prints_garbage_is_unknown() {
    let dir = scratch("garbage-probe");
    let detection = detector()
        .probe_program(script(&dir, r#"echo '{"not": "a report"}'"#))
        .detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Garbage { .. }),
        "{detection:#?}"
    );
    let detection = detector()
        .probe_program(script(&dir, r#"echo '{"markerspec_gpu_probe": 99, "cuda": {"outcome":"absent","notes":[]}, "rocm": {"outcome":"absent","notes":[]}}'"#))
        .detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Garbage { detail } if detail.contains("schema 99")),
        "{detection:#?}"
    );
}

#[test]
fn a_reply_of_the_first_schema_is_named_as_such() {
    // Schema 1 had fixed `cuda` and `rocm` keys; a probe binary left over from that version
    // answers so. It is refused by its schema number, not misread or called a shape error.
    let dir = scratch("schema-1-probe");
    let detection = detector()
        .rocm(true)
        .probe_program(script(&dir, r#"echo '{"markerspec_gpu_probe": 1, "cuda": {"outcome":"absent","notes":[]}, "rocm": {"outcome":"absent","notes":[]}}'"#))
        .detect();
    assert!(
        matches!(unknown(&detection), UnknownReason::Garbage { detail } if detail.starts_with("the probe speaks schema 1, not 4")),
        "{detection:#?}"
    );
    assert_eq!(
        detection.rocm().unwrap().unknown_reason(),
        detection.cuda().unwrap().unknown_reason()
    );
}

#[test]
fn a_probe_that_fails_is_unknown_with_its_exit_code() {
    let dir = scratch("failing-probe");
    let detection = detector()
        .probe_program(script(&dir, "echo 'driver exploded' >&2; exit 7"))
        .detect();
    let reason = unknown(&detection);
    assert!(
        matches!(reason, UnknownReason::Crashed { signal: None, exit_code: Some(7), stderr } if stderr == "driver exploded"),
        "{reason:?}"
    );
}

#[test]
fn the_probe_gets_a_minimal_environment_and_no_stdin() {
    let dir = scratch("env-probe");
    let dump = dir.join("env.txt");
    let program = script(
        &dir,
        &format!(
            "/usr/bin/env > '{}'; read line && echo \"stdin: $line\" >> '{}'; pwd >> '{}'; exit 1",
            dump.display(),
            dump.display(),
            dump.display()
        ),
    );
    let _ = detector()
        .probe_program(program)
        .path_var("/usr/bin:/bin")
        .library_path_var("/opt/lib")
        .child_env("EXTRA", "yes")
        .detect();
    let text = fs::read_to_string(&dump).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .filter(|k| !["PWD", "SHLVL", "_", "OLDPWD"].contains(k))
        .collect();
    assert_eq!(names.len(), 4, "{text}");
    // The run's token marks the child and proves that detection started it.
    let token = text
        .lines()
        .find_map(|l| l.strip_prefix("MARKERSPEC_GPU_PROBE_TOKEN="))
        .unwrap_or_else(|| panic!("no token:\n{text}"));
    assert!(
        token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token}"
    );
    for expected in [
        "PATH=/usr/bin:/bin",
        "LD_LIBRARY_PATH=/opt/lib",
        "EXTRA=yes",
    ] {
        assert!(
            text.lines().any(|l| l == expected),
            "{expected} missing:\n{text}"
        );
    }
    assert!(!text.contains("stdin:"), "stdin must be closed:\n{text}");
    assert_eq!(text.lines().last(), Some("/"), "working folder:\n{text}");
}

#[test]
fn a_probe_that_prints_too_much_is_cut_off() {
    let dir = scratch("flood-probe");
    let start = Instant::now();
    let detection = detector()
        .probe_program(script(&dir, "exec /usr/bin/yes"))
        .timeout(Duration::from_secs(2))
        .detect();
    // Either the cap is noticed at exit, or the endless writer is killed at the limit.
    assert!(
        matches!(
            unknown(&detection),
            UnknownReason::Timeout { .. } | UnknownReason::Garbage { .. }
        ),
        "{detection:#?}"
    );
    assert!(start.elapsed() < Duration::from_secs(6));
}

// ---- in-process mode -------------------------------------------------------------------------

#[test]
fn in_process_detection_gives_the_same_facts() {
    let fakes = fakes_or_skip!();
    let detection = detector()
        .nvml_library(&fakes.nvml_zero)
        .cuda_library(&fakes.cuda)
        .optional_libraries(true)
        .cudnn_library(&fakes.cudnn)
        .detect_in_process();
    assert_eq!(detection.origin, Origin::InProcess);
    let report = detected(&detection);
    assert_eq!(report.source, Source::Nvml);
    assert!(report.devices.is_empty());
    assert_eq!(
        report
            .libraries
            .cudnn
            .version()
            .map(|v| v.to_string())
            .as_deref(),
        Some("9.1.0")
    );
    // The same detection through the child agrees.
    let child = detector()
        .nvml_library(&fakes.nvml_zero)
        .cuda_library(&fakes.cuda)
        .optional_libraries(true)
        .cudnn_library(&fakes.cudnn)
        .detect();
    assert_eq!(child.cuda().unwrap(), detection.cuda().unwrap());
}

// ---- caches ----------------------------------------------------------------------------------

#[test]
fn the_memory_cache_answers_the_second_call() {
    let fakes = fakes_or_skip!();
    let dir = scratch("memory-cache");
    let detector = detector()
        .memory_cache(true)
        .nvml_library(&fakes.nvml)
        // Makes the key unique to this test.
        .child_env("FAKE_LOG", dir.join("calls.log"));
    let first = detector.detect();
    let second = detector.detect();
    assert_eq!(first.origin, Origin::Probe);
    assert_eq!(second.origin, Origin::MemoryCache);
    assert_eq!(first.cuda().unwrap(), second.cuda().unwrap());
    let log = fs::read_to_string(dir.join("calls.log")).unwrap();
    assert_eq!(log.matches("nvmlInit").count(), 1, "{log}");
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn entry_file(dir: &Path) -> std::path::PathBuf {
    let entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries.into_iter().next().unwrap()
}

#[cfg(unix)]
#[test]
fn the_disk_cache_is_private_and_answers_later_calls() {
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-cache").join("markerspec");
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let first = detector.detect();
    assert_eq!(first.origin, Origin::Probe);
    assert_eq!(mode(&dir), 0o700);
    let entry = entry_file(&dir);
    assert_eq!(mode(&entry), 0o600);
    let second = detector.detect();
    assert_eq!(second.origin, Origin::DiskCache, "{second:#?}");
    assert_eq!(second.cuda().unwrap(), first.cuda().unwrap());
}

#[cfg(unix)]
#[test]
fn a_corrupt_disk_entry_is_ignored_and_rewritten() {
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-corrupt");
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let _ = detector.detect();
    let entry = entry_file(&dir);
    fs::write(&entry, b"{\"schema\": 1, \"key\": \"forged\"").unwrap();
    let again = detector.detect();
    assert_eq!(again.origin, Origin::Probe);
    assert!(
        notes_mention(&again.notes, "not a cache entry"),
        "{:?}",
        again.notes
    );
    assert_eq!(detector.detect().origin, Origin::DiskCache, "rewritten");
}

#[cfg(unix)]
#[test]
fn an_entry_of_the_first_schema_is_a_miss_and_rewritten() {
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-schema-1");
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let first = detector.detect();
    let entry = entry_file(&dir);
    // What the first schema wrote: fixed `cuda` and `rocm` keys.
    let text = fs::read_to_string(&entry).unwrap();
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    let object = old.as_object_mut().unwrap();
    object.remove("vendors");
    object.insert("schema".into(), 1.into());
    object.insert(
        "cuda".into(),
        serde_json::to_value(first.cuda().unwrap()).unwrap(),
    );
    object.insert(
        "rocm".into(),
        serde_json::json!({"outcome": "absent", "notes": []}),
    );
    fs::write(&entry, serde_json::to_vec(&old).unwrap()).unwrap();
    let again = detector.detect();
    assert_eq!(again.origin, Origin::Probe, "a miss: {again:#?}");
    assert!(
        notes_mention(&again.notes, "schema 1 is not 4"),
        "{:?}",
        again.notes
    );
    assert_eq!(again.vendors, first.vendors);
    assert_eq!(detector.detect().origin, Origin::DiskCache, "rewritten");
}

#[cfg(unix)]
#[test]
fn a_world_writable_disk_entry_is_ignored_and_rewritten() {
    use std::os::unix::fs::PermissionsExt;
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-writable");
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let _ = detector.detect();
    let entry = entry_file(&dir);
    fs::set_permissions(&entry, fs::Permissions::from_mode(0o666)).unwrap();
    let again = detector.detect();
    assert_eq!(again.origin, Origin::Probe);
    assert!(
        notes_mention(&again.notes, "writable by group or others"),
        "{:?}",
        again.notes
    );
    assert_eq!(mode(&entry_file(&dir)), 0o600);
    assert_eq!(detector.detect().origin, Origin::DiskCache);
}

#[cfg(unix)]
#[test]
fn a_foreign_or_linked_disk_entry_is_ignored() {
    use std::os::unix::fs::symlink;
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-foreign");
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let _ = detector.detect();
    let entry = entry_file(&dir);
    // A link to a valid entry elsewhere is still refused.
    let elsewhere = scratch("disk-foreign-target").join("entry.json");
    fs::rename(&entry, &elsewhere).unwrap();
    symlink(&elsewhere, &entry).unwrap();
    let again = detector.detect();
    assert_eq!(again.origin, Origin::Probe);
    assert!(
        notes_mention(&again.notes, "symbolic link"),
        "{:?}",
        again.notes
    );
}

#[cfg(unix)]
#[test]
fn a_disk_entry_owned_by_another_user_is_ignored() {
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-foreign-owner");
    // Only root can give a file to another user; CI runs as root.
    assert_eq!(
        std::os::unix::fs::MetadataExt::uid(&fs::metadata(&dir).unwrap()),
        0,
        "not run: this test needs root, to hand the cache entry to another user"
    );
    let detector = detector().nvml_library(&fakes.nvml).disk_cache(&dir);
    let _ = detector.detect();
    let entry = entry_file(&dir);
    std::os::unix::fs::chown(&entry, Some(12345), Some(12345)).unwrap();
    let again = detector.detect();
    assert_eq!(again.origin, Origin::Probe);
    assert!(
        notes_mention(&again.notes, "owned by uid 12345"),
        "{:?}",
        again.notes
    );
}

#[cfg(unix)]
#[test]
fn a_group_writable_cache_folder_is_not_used() {
    use std::os::unix::fs::PermissionsExt;
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-open-folder");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .disk_cache(&dir)
        .detect();
    assert_eq!(detection.origin, Origin::Probe);
    assert!(
        notes_mention(&detection.notes, "disk cache not"),
        "{:?}",
        detection.notes
    );
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written there"
    );
    detected(&detection);
}

#[test]
fn a_changed_driver_invalidates_the_disk_entry() {
    let fakes = fakes_or_skip!();
    let dir = scratch("disk-driver-change");
    let lib = dir.join("libnvidia-ml.so.1");
    fs::copy(&fakes.nvml, &lib).unwrap();
    let cache = dir.join("cache");
    let detector = detector().nvml_library(&lib).disk_cache(&cache);
    assert_eq!(detector.detect().origin, Origin::Probe);
    assert_eq!(detector.detect().origin, Origin::DiskCache);
    // "Upgrade" the driver: same path, different file.
    let mut bytes = fs::read(&lib).unwrap();
    bytes.extend_from_slice(b"upgraded");
    fs::write(&lib, bytes).unwrap();
    let after = detector.detect();
    assert_eq!(after.origin, Origin::Probe);
    assert!(
        notes_mention(&after.notes, "changed since it was written"),
        "{:?}",
        after.notes
    );
    assert_eq!(detector.detect().origin, Origin::DiskCache);
}

#[test]
fn unknown_outcomes_are_not_stored_on_disk() {
    let fakes = fakes_or_skip!();
    let cache = scratch("disk-unknown");
    let detection = detector()
        .nvml_library(&fakes.nvml)
        .child_env("FAKE_NVML_MODE", "crash")
        .disk_cache(&cache)
        .detect();
    unknown(&detection);
    assert_eq!(fs::read_dir(&cache).unwrap().count(), 0);
}

#[test]
fn the_probe_binary_accepts_the_flag_and_rejects_junk() {
    let output = std::process::Command::new(PROBE)
        .args(["--markerspec-gpu-probe", "{\"bogus\": true}"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("bad configuration"));
}
