//! What detection leaves in the process table: nothing. A probe whose helper keeps the pipe
//! open, an `nvidia-smi` that forks and hangs, a probe that hangs — after each, no process of
//! theirs may still run. Processes are told apart by a value unique to the test in their
//! command line or environment.

#![cfg(target_os = "linux")]

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use markerspec_gpu::{Outcome, Source, UnknownReason};

use common::{PROBE, detector, scratch};

/// Live (not zombie) processes whose command line or environment holds `needle`.
fn survivors(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let holds = |file: &str| {
            fs::read(entry.path().join(file)).is_ok_and(|bytes| {
                bytes
                    .split(|&b| b == 0)
                    .any(|part| String::from_utf8_lossy(part).contains(needle))
            })
        };
        if !holds("cmdline") && !holds("environ") {
            continue;
        }
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'));
        if !zombie {
            found.push(pid);
        }
    }
    found
}

/// Asserts that nothing holding `needle` is left (after a moment for SIGKILL to land); kills,
/// by pid, whatever is, so that a failing test cleans up after itself.
#[track_caller]
fn assert_none_left(needle: &str) {
    let until = Instant::now() + Duration::from_secs(2);
    let mut left = survivors(needle);
    while !left.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        left = survivors(needle);
    }
    for pid in &left {
        let _ = std::process::Command::new("/bin/kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

fn script(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    common::make_executable(&path);
    path
}

/// A number of seconds that names this test in `sleep`'s command line.
fn marked_sleep(test: u32) -> String {
    format!("45.{}{test:03}", std::process::id())
}

#[test]
fn a_helper_holding_the_probe_s_pipe_does_not_cost_the_report() {
    let fakes = common::fakes();
    let dir = scratch("helper-probe");
    let naptime = marked_sleep(1);
    let probe = script(
        &dir,
        "probe.sh",
        &format!("(exec /bin/sleep {naptime}) &\nexec '{PROBE}' \"$@\""),
    );
    let started = Instant::now();
    let detection = detector()
        .probe_program(probe)
        .nvml_library(&fakes.nvml)
        .timeout(Duration::from_secs(5))
        .detect();
    assert!(
        matches!(detection.cuda(), Some(Outcome::Detected(_))),
        "{detection:#?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_none_left(&naptime);
}

#[test]
fn nvidia_smi_and_its_descendants_die_at_its_limit() {
    let dir = scratch("forking-smi");
    let naptime = marked_sleep(2);
    let smi = script(
        &dir,
        "nvidia-smi",
        &format!("/bin/sleep {naptime} &\nexec /bin/sleep {naptime}"),
    );
    for in_process in [false, true] {
        let detector = detector()
            .sources([Source::NvidiaSmi])
            .nvidia_smi(&smi)
            .timeout(Duration::from_millis(1200));
        let started = Instant::now();
        let detection = if in_process {
            detector.detect_in_process()
        } else {
            detector.detect()
        };
        assert!(
            matches!(detection.cuda(), Some(Outcome::Unknown { .. })),
            "{detection:#?}"
        );
        assert!(started.elapsed() < Duration::from_secs(4));
        assert_none_left(&naptime);
    }
}

#[test]
fn a_hung_probe_is_killed_with_everything_it_started() {
    let dir = scratch("hung-probe");
    let naptime = marked_sleep(3);
    let probe = script(
        &dir,
        "probe.sh",
        &format!("/bin/sleep {naptime} &\n(/bin/sleep {naptime}) &\nexec /bin/sleep {naptime}"),
    );
    let started = Instant::now();
    let detection = detector()
        .probe_program(probe)
        .timeout(Duration::from_millis(500))
        .detect();
    assert!(
        matches!(
            detection.cuda(),
            Some(Outcome::Unknown {
                reason: UnknownReason::Timeout { .. }
            })
        ),
        "{detection:#?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_none_left(&naptime);
}

#[test]
fn a_probe_that_reports_the_missing_entry_point_is_named() {
    let dir = scratch("no-entry-probe");
    // What a program without the entry point writes when it reaches detection as the probe.
    let probe = script(
        &dir,
        "probe.sh",
        "echo 'markerspec-gpu: started as the GPU probe, but this program does not call run_probe_if_requested() first thing in main; stopping' >&2; exit 3",
    );
    let detection = detector().probe_program(probe).detect();
    match detection.cuda().expect("a CUDA report") {
        Outcome::Unknown { reason } => {
            assert!(
                matches!(reason, UnknownReason::NoProbeEntryPoint { .. }),
                "{reason:?}"
            );
            assert!(reason.to_string().contains("run_probe_if_requested"));
        }
        other => panic!("{other:#?}"),
    }
}
