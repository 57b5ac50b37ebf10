//! `markerspec generate`: the real binary, with a cleared environment.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::Scratch;

/// Runs the binary and returns (exit code, stdout, stderr).
fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_markerspec"));
    cmd.args(args)
        .env_clear()
        .current_dir(std::env::temp_dir())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[track_caller]
fn generate(args: &[&str]) -> String {
    let mut all = vec!["generate"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all, None);
    assert_eq!(code, 0, "markerspec {all:?}: {err}");
    out
}

#[test]
fn the_same_seed_prints_the_same_cases() {
    for kind in ["marker", "requirement", "environment"] {
        let a = generate(&["--kind", kind, "--count", "40", "--seed", "9", "--mixed"]);
        let b = generate(&["--kind", kind, "--count", "40", "--seed", "9", "--mixed"]);
        let c = generate(&["--kind", kind, "--count", "40", "--seed", "10", "--mixed"]);
        assert_eq!(a, b, "{kind}");
        assert_ne!(a, c, "{kind}");
        assert_eq!(a.lines().count(), 40, "{kind}: {a}");
        // A longer run starts with the shorter one: case i depends on the seed and i only.
        let longer = generate(&["--kind", kind, "--count", "50", "--seed", "9", "--mixed"]);
        assert!(longer.starts_with(&a), "{kind}");
    }
}

#[test]
fn valid_cases_parse_and_near_misses_mostly_do_not() {
    for kind in ["marker", "requirement"] {
        for dialect in ["pep508", "extended"] {
            let valid = generate(&["--kind", kind, "--count", "300", "--dialect", dialect]);
            for profile in ["spec-2026", "packaging"] {
                let (_, out, err) = run(
                    &["parse", "--dialect", dialect, "--profile", profile, "-"],
                    Some(&valid),
                );
                let errors: Vec<(&str, &str)> = valid
                    .lines()
                    .zip(out.lines())
                    .filter(|(_, answer)| answer.starts_with("error:"))
                    .collect();
                assert!(
                    errors.is_empty(),
                    "{kind}/{dialect}/{profile}: {errors:?} {err}"
                );
                assert_eq!(out.lines().count(), 300, "{err}");
            }
            let near = generate(&[
                "--kind",
                kind,
                "--count",
                "300",
                "--near-miss",
                "--dialect",
                dialect,
            ]);
            let (_, out, _) = run(&["parse", "--dialect", dialect, "-"], Some(&near));
            let rejected = out.lines().filter(|l| l.starts_with("error:")).count();
            assert!(
                rejected > 150,
                "{kind}/{dialect}: only {rejected} of 300 near misses rejected"
            );
        }
    }
}

#[test]
fn plain_lines_hold_one_case_each() {
    let out = generate(&["--count", "500", "--near-miss", "--seed", "4"]);
    assert_eq!(out.lines().count(), 500);
    assert!(!out.contains(['\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}']));
}

#[test]
fn json_lines_carry_the_case_and_an_environment() {
    let out = generate(&[
        "--count",
        "20",
        "--mixed",
        "--json",
        "--kind",
        "requirement",
    ]);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 20);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["index"], i as u64);
        assert_eq!(row["kind"], "requirement");
        assert!(row["input"].is_string());
        assert_eq!(row["valid"], i % 2 == 0, "{row}");
        assert_eq!(row["near_miss"].is_string(), i % 2 == 1, "{row}");
        assert!(row["environment"]["os_name"].is_string(), "{row}");
        assert!(row["extras"].is_array());
    }
}

#[test]
fn environments_are_documents_eval_reads() {
    let dir = Scratch::new("generate");
    let out = generate(&["--kind", "env", "--count", "60", "--dialect", "extended"]);
    for (i, line) in out.lines().enumerate() {
        let path = dir.join(format!("env-{i}.json"));
        std::fs::write(&path, line).unwrap();
        let (code, stdout, err) = run(
            &[
                "eval",
                "--dialect",
                "extended",
                "--env",
                path.to_str().unwrap(),
                "os_name == 'posix' or os_name != 'posix'",
            ],
            None,
        );
        assert_eq!((code, stdout.trim()), (0, "true"), "{line}: {err}");
    }
}

#[test]
fn validity_flags_exclude_each_other() {
    let (code, _, err) = run(&["generate", "--valid", "--near-miss"], None);
    assert_eq!(code, 2, "{err}");
}
