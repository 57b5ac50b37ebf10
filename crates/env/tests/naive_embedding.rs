//! A program that embeds detection the naive way: `DetectOptions::from_process().detect()`
//! with no `run_probe_if_requested()` in `main` and no `markerspec-gpu-probe` beside it, so
//! the GPU detector runs this very program as its probe child.
//!
//! This test is that program (`harness = false`: this `main` is the program's `main`). It
//! watches the process table while it detects and checks that at most one child copy of
//! itself ever exists, that the copy is gone when detection returns, that detection returns
//! within its time limit, and that the GPU fields are Unknown with a reason naming the fix.
//! Before the probe child was marked, this started a chain of copies, each re-running `main`,
//! about ten a second, still running after the program exited.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use markerspec_env::DetectOptions;
use markerspec_pep508::{EnvValue, Field};

/// The pids of live processes (zombies aside) running `exe` as the GPU probe (with the probe
/// flag; a fork of this process on its way to exec another program, such as `python3`, runs
/// `exe` for a moment too, with this process's own arguments).
fn copies(exe: &PathBuf) -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me || std::fs::read_link(entry.path().join("exe")).ok().as_ref() != Some(exe) {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !cmdline
            .split(|&b| b == 0)
            .any(|arg| arg == b"--markerspec-gpu-probe")
        {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'));
        if !zombie {
            found.push(pid);
        }
    }
    found
}

fn kill(pids: &[u32]) {
    for &pid in pids {
        // Only copies of this test program, which this run started (directly or not).
        let _ = std::process::Command::new("/bin/kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

fn main() {
    if !cfg!(target_os = "linux") {
        println!("naive_embedding: not run (needs Linux's /proc); 0 passed; 0 failed");
        return;
    }
    let exe = std::env::current_exe().expect("the test's own path");
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stop, exe) = (Arc::clone(&stop), exe.clone());
        std::thread::spawn(move || {
            let mut seen = BTreeSet::new();
            let mut most = 0;
            while !stop.load(Ordering::Relaxed) {
                let now = copies(&exe);
                most = most.max(now.len());
                seen.extend(now);
                std::thread::sleep(Duration::from_millis(2));
            }
            (seen, most)
        })
    };

    // The naive way, as a downstream program would write it.
    let started = Instant::now();
    let result = DetectOptions::from_process().detect();
    let took = started.elapsed();

    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    let (seen, most) = watcher.join().expect("the watcher");
    let left = copies(&exe);
    kill(&left);

    let mut failures = Vec::new();
    if seen.len() > 1 || most > 1 {
        failures.push(format!(
            "{} copies of the program ran as probes ({most} at once): {seen:?}",
            seen.len()
        ));
    }
    if !left.is_empty() {
        failures.push(format!("copies still running after detection: {left:?}"));
    }
    if took > Duration::from_secs(10) + Duration::from_secs(2) {
        failures.push(format!("detection took {took:?}, past its 10 s limit"));
    }
    match &result {
        Err(error) => failures.push(format!("detection failed: {error}")),
        Ok(facts) => {
            let fact = facts.get(Field::CudaVersion);
            let unknown = fact.is_some_and(|f| f.value == EnvValue::Unknown);
            let why = fact
                .and_then(|f| f.provenance.detail())
                .unwrap_or_default()
                .to_owned();
            if !unknown || !why.contains("run_probe_if_requested") {
                failures.push(format!(
                    "cuda_version should be Unknown with a reason naming the fix: {fact:?}"
                ));
            }
        }
    }
    if failures.is_empty() {
        println!(
            "test naive_embedding ... ok ({} probe child, detection in {took:?})",
            seen.len()
        );
        println!("1 passed; 0 failed");
    } else {
        for failure in &failures {
            eprintln!("naive_embedding: {failure}");
        }
        println!("0 passed; 1 failed");
        std::process::exit(1);
    }
}
