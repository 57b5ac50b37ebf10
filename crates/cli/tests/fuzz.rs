//! `markerspec fuzz` against fake adapters that disagree with markerspec on purpose: markerspec
//! itself (`conformance --serve`) behind a filter that rewrites or drops requests.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::Command;

use common::Scratch;
use markerspec_conformance::Cases;

const BIN: &str = env!("CARGO_BIN_EXE_markerspec");

fn temp_dir(name: &str) -> Scratch {
    Scratch::new(&format!("fuzz-{name}"))
}

/// Runs `markerspec fuzz` with `args`, writing into `out`; returns stdout.
#[track_caller]
fn fuzz(adapter: &str, out: &Path, args: &[&str]) -> String {
    let mut all = vec!["fuzz", "--adapter", adapter, "--out", out.to_str().unwrap()];
    all.extend_from_slice(args);
    let run = Command::new(BIN).args(&all).env_clear().output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert_eq!(
        run.status.code(),
        Some(0),
        "markerspec {all:?}\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// markerspec, except that every `~=` it is sent reads as `==`.
fn tilde_as_equal() -> String {
    format!("sed -u 's/~=/==/g' | '{BIN}' conformance --serve")
}

#[test]
fn a_disagreement_is_found_shrunk_and_written_as_a_vector() {
    let out = temp_dir("tilde");
    let stdout = fuzz(
        &tilde_as_equal(),
        &out,
        &["--cases", "400", "--seed", "3", "--no-known"],
    );
    let r = report(&out);
    let groups = r["groups"].as_array().unwrap();
    assert!(!groups.is_empty(), "no finding:\n{stdout}");
    for g in groups {
        let input = g["input"].as_str().unwrap();
        // Every disagreement is caused by `~=`, and shrinking kept it while dropping the rest
        // (a second comparison may stay, where it decides the direction: `error` against
        // `true` needs an `or` that holds).
        assert!(input.contains("~="), "{g}");
        let comparisons = input.matches("~=").count()
            + input.matches(" in").count()
            + input.matches("==").count()
            + input.matches('<').count();
        assert!(
            input.len() <= 64
                && comparisons <= 2
                && input.len() < g["original"].as_str().unwrap().len(),
            "not shrunk: {g}"
        );
    }
    assert!(stdout.contains("new groups"), "{stdout}");
    // The vectors load as a group of the suite.
    let vectors = std::fs::read(out.join("findings.json")).unwrap();
    let mut cases = Cases::new();
    cases.load_slice("findings", &vectors).unwrap();
    assert!(!cases.is_empty());
    assert!(
        cases
            .iter()
            .all(|c| c.category() == "findings" && c.input().contains("~="))
    );
}

#[test]
fn the_same_seed_finds_the_same_groups() {
    let (a, b) = (temp_dir("seed-a"), temp_dir("seed-b"));
    fuzz(
        &tilde_as_equal(),
        &a,
        &["--cases", "200", "--seed", "8", "--no-known"],
    );
    fuzz(
        &tilde_as_equal(),
        &b,
        &["--cases", "200", "--seed", "8", "--no-known"],
    );
    let (ra, rb) = (report(&a), report(&b));
    assert_eq!(ra["groups"], rb["groups"]);
    assert_eq!(ra["cases"], 200);
    assert_eq!(
        std::fs::read(a.join("findings.json")).unwrap(),
        std::fs::read(b.join("findings.json")).unwrap()
    );
}

#[test]
fn an_adapter_that_dies_is_a_crash_finding_and_leaves_no_process() {
    let out = temp_dir("crash");
    // GNU sed's `Q` quits without printing: the adapter exits when it is sent a `~=`. The
    // token makes this test's processes recognisable.
    let token = format!("tok{}x", std::process::id());
    let adapter = format!("sed -u '/~=/Q;s/{token}//' | '{BIN}' conformance --serve");
    fuzz(
        &adapter,
        &out,
        &["--cases", "150", "--seed", "5", "--no-known"],
    );
    let r = report(&out);
    let groups = r["groups"].as_array().unwrap();
    let crash = groups
        .iter()
        .find(|g| g["check"] == "crash")
        .unwrap_or_else(|| panic!("no crash finding: {r:#}"));
    assert!(crash["input"].as_str().unwrap().contains("~="), "{crash}");
    assert!(crash["input"].as_str().unwrap().len() <= 40, "{crash}");
    // No vector for a crash: there is no answer to pin.
    let vectors: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).unwrap()).unwrap();
    assert!(
        vectors["cases"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c["input"].as_str().unwrap().is_empty())
    );
    // Every adapter process (each restart's) is gone.
    let left: Vec<String> = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
                .filter(|c| c.contains(&token))
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "still running: {left:?}");
}

#[test]
fn an_adapter_that_cannot_start_is_an_error() {
    let out = temp_dir("broken");
    let run = Command::new(BIN)
        .args([
            "fuzz",
            "--adapter",
            "exit 3",
            "--cases",
            "5",
            "--out",
            out.to_str().unwrap(),
        ])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot be used"));
}

#[test]
fn an_adapter_that_hangs_is_a_finding_and_is_given_up() {
    let out = temp_dir("hang");
    // The filter swallows every request holding `~=`: no answer comes, the request times out.
    let adapter = format!("sed -u '/~=/d' | '{BIN}' conformance --serve");
    let stdout = fuzz(
        &adapter,
        &out,
        &[
            "--cases",
            "300",
            "--seed",
            "5",
            "--no-known",
            "--timeout",
            "0.3",
        ],
    );
    let r = report(&out);
    let groups = r["groups"].as_array().unwrap();
    let hang = groups
        .iter()
        .find(|g| g["check"] == "crash" && g["other"].as_str().unwrap().contains("timeout"))
        .unwrap_or_else(|| panic!("no hang finding: {r:#}"));
    assert!(hang["input"].as_str().unwrap().contains("~="), "{hang}");
    assert!(stdout.contains("given up"), "{stdout}");
}
