//! `markerspec conformance`: the real binary against the built-in implementation, against
//! itself through the adapter protocol, and against adapters that crash, hang, lie or do not
//! exist. Each run gets a fresh folder and a cleared environment.

mod common;

use common::Scratch;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Run;

const BIN: &str = env!("CARGO_BIN_EXE_markerspec");

/// A run of the binary and how long it took.
struct Timed {
    run: Run,
    took: Duration,
}

impl std::ops::Deref for Timed {
    type Target = Run;

    fn deref(&self) -> &Run {
        &self.run
    }
}

fn temp_dir(name: &str) -> Scratch {
    Scratch::new(&format!("conformance-{name}"))
}

fn run_in(dir: &Path, args: &[&str]) -> Timed {
    let start = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    Timed {
        run: Run {
            out,
            cmd: format!("markerspec {args:?}"),
        },
        took: start.elapsed(),
    }
}

/// Writes a fake adapter script into `dir` and returns the command that runs it.
#[cfg(unix)]
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    format!("sh {}", path.display())
}

/// The handshake line of the fake adapters, claiming the spec-2026 profile.
#[cfg(unix)]
const HELLO: &str = r#"read line
echo '{"id":0,"protocol":"markerspec-adapter/1","name":"fake","version":"0","profiles":["spec-2026"],"dialects":["pep508","extended"]}'
"#;

/// The id of the request in `$line`, for the fake adapters.
#[cfg(unix)]
const ID: &str = r#"id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')"#;

#[test]
fn builtin_passes_every_case() {
    let dir = temp_dir("builtin");
    let junit = dir.join("junit.xml");
    let r = run_in(&dir, &["conformance", "--junit", junit.to_str().unwrap()]);
    r.expect_code(0)
        .expect_stdout_contains("builtin (spec-2026)")
        .expect_stdout_contains("builtin (packaging)")
        .expect_stdout_contains("every implementation passes or diverges as declared");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains("<testsuite name=\"builtin (spec-2026)\""));
    assert!(xml.contains("<skipped message=\"divergent as declared"));
    assert_eq!(
        xml.matches("<testsuite ").count(),
        xml.matches("</testsuite>").count()
    );
}

/// The built-in implementation served over the protocol gives the same answers as called
/// directly: the protocol loses nothing (Unicode, control characters, unknown values, codes).
#[test]
fn builtin_through_the_protocol_passes_every_case() {
    let dir = temp_dir("served");
    let serve = format!("{BIN} conformance --serve");
    let r = run_in(&dir, &["conformance", "--adapter", &serve, "--json"]);
    r.expect_code(0);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(doc["ok"], true);
    let imp = &doc["implementations"][0];
    assert_eq!(imp["implementation"], "markerspec");
    assert!(
        imp["counts"]["pass"].as_u64().unwrap() > 25_000,
        "{}",
        imp["counts"]
    );
    assert_eq!(imp["counts"].get("fail"), None);
}

#[test]
fn filters_select_cases() {
    let dir = temp_dir("filter");
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--filter",
            "spec-examples,-spec-examples/spec-examples-100",
            "--json",
        ],
    );
    r.expect_code(0);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let results = doc["implementations"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results.iter().all(|x| {
        let c = x["case"].as_str().unwrap();
        c.starts_with("spec-examples/") && c != "spec-examples/spec-examples-100"
    }));
}

#[test]
fn vectors_from_outside_the_repository() {
    let dir = temp_dir("vectors");
    std::fs::create_dir_all(dir.join("envs")).unwrap();
    std::fs::write(
        dir.join("envs/gpu-box.json"),
        r#"{"python_version": "3.12", "cuda_version": "12.8", "gpu_backends": ["cuda"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("mine.json"),
        r#"{"cases": [
          {"name": "cuda-100", "category": "gpu", "kind": "marker", "dialect": "extended",
           "input": "\"cuda\" in gpu_backends and cuda_version >= '12'", "fixture": "gpu-box",
           "see": "local", "expect": {"spec-2026": {"result": true}}},
          {"name": "cuda-101", "category": "gpu", "kind": "marker", "dialect": "extended",
           "input": "cuda_version >= '12' and rocm_version >= '6'", "fixture": "gpu-box",
           "see": "local", "expect": {"spec-2026": {"result": "unknown: rocm_version"}}},
          {"name": "wrong-100", "category": "gpu", "kind": "marker",
           "input": "os_name == 'nt'", "environment": {"os_name": "nt"},
           "see": "local", "expect": {"spec-2026": {"result": false}}}
        ]}"#,
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--vectors",
            "mine.json",
            "--environments",
            "envs",
        ],
    );
    // The third case expects the wrong answer: reported, exit 1.
    r.expect_code(1)
        .expect_stdout_contains(
            "#1 1x evaluates to true instead of false; construct: string field ==",
        )
        .expect_stdout_contains("mine/wrong-100 [spec-2026] fail")
        .expect_stdout_contains("input:    \"os_name == 'nt'\"")
        .expect_stdout_contains("expected: accepts; evaluates to false")
        .expect_stdout_contains("observed: accepts, prints `os_name == \"nt\"`; evaluates to true")
        .expect_stdout_contains("2 pass 1 FAIL");

    std::fs::write(dir.join("broken.json"), r#"{"cases": [{"name": "x"}]}"#).unwrap();
    let r = run_in(&dir, &["conformance", "--vectors", "broken.json"]);
    r.expect_code(2);
    assert!(r.stderr().contains("cannot load vectors"), "{}", r.stderr());
}

#[cfg(unix)]
#[test]
fn a_crashing_adapter_is_reported_and_restarted() {
    let dir = temp_dir("crash");
    // Answers the handshake, then dies on the first request; every restart does the same.
    let crash = script(&dir, "crash.sh", &format!("{HELLO}read line\nexit 3\n"));
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            "builtin",
            "--adapter",
            &crash,
            "--filter",
            "spec-examples",
        ],
    );
    r.expect_code(1)
        .expect_stdout_contains("fake:     spec-examples/")
        .expect_stdout_contains("crash: the adapter exited (exit status: N")
        .expect_stdout_contains("CRASH")
        .expect_stdout_contains("restarted");
    // The built-in implementation still ran in full.
    r.expect_stdout_contains("builtin (spec-2026)");
}

#[cfg(unix)]
#[test]
fn a_hanging_adapter_times_out() {
    let dir = temp_dir("hang");
    let hang = script(
        &dir,
        "hang.sh",
        &format!("{HELLO}while read line; do sleep 30; done\n"),
    );
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &hang,
            "--timeout",
            "0.3",
            "--filter",
            "spec-examples/spec-examples-10",
        ],
    );
    r.expect_code(1)
        .expect_stdout_contains("timeout: no response within 0.3s");
    assert!(r.took < Duration::from_secs(25), "took {:?}", r.took);
}

/// An adapter that shakes hands and then never answers is given up after three timeouts in a
/// row; the rest of its cases are reported as not run instead of costing a restart and a full
/// time limit each.
#[cfg(unix)]
#[test]
fn an_adapter_that_never_answers_is_given_up() {
    let dir = temp_dir("mute");
    let mute = script(
        &dir,
        "mute.sh",
        &format!("{HELLO}while read line; do :; done\n"),
    );
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &mute,
            "--timeout",
            "0.3",
            "--json",
            "--filter",
            "spec-examples",
        ],
    );
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let counts = &doc["implementations"][0]["counts"];
    assert_eq!(counts["crash"], 3, "{counts}");
    let not_run = counts["not-run"].as_u64().unwrap_or(0);
    assert!(not_run > 3, "{counts}");
    // Three time limits and three restarts, not one per case.
    assert!(r.took < Duration::from_secs(20), "took {:?}", r.took);
}

/// An adapter that stops reading its input cannot hang the runner, even when a request is
/// larger than a pipe holds (the suite's largest are about 66 KB).
#[cfg(unix)]
#[test]
fn an_adapter_that_stops_reading_cannot_hang_the_runner() {
    let dir = temp_dir("deaf");
    let deaf = script(&dir, "deaf.sh", &format!("{HELLO}exec sleep 60\n"));
    // A request far larger than a pipe's buffer.
    let vectors = dir.join("big.json");
    let input = format!("name >= '{}'", "1".repeat(200_000));
    std::fs::write(
        &vectors,
        serde_json::json!({"cases": [
            {"name": "big-100", "category": "big", "kind": "requirement", "input": input,
             "see": "test", "expect": {"spec-2026": {"parses": true}}},
            {"name": "big-101", "category": "big", "kind": "requirement", "input": input,
             "see": "test", "expect": {"spec-2026": {"parses": true}}},
        ]})
        .to_string(),
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &deaf,
            "--timeout",
            "0.5",
            "--vectors",
            vectors.to_str().unwrap(),
        ],
    );
    r.expect_code(1)
        .expect_stdout_contains("did not read the request within 0.5s");
    assert!(r.took < Duration::from_secs(20), "took {:?}", r.took);
}

/// Names and messages from an adapter are printed with control characters escaped: an ESC or
/// a carriage return in the handshake cannot rewrite the report.
#[cfg(unix)]
#[test]
fn an_adapter_cannot_forge_report_lines() {
    let dir = temp_dir("forge");
    let forged = script(
        &dir,
        "forge.sh",
        r#"read line
printf '%s\n' '{"id":0,"protocol":"markerspec-adapter/1","name":"x\u001b[2K\rall pass","version":"0","profiles":["spec-2026"],"dialects":["pep508"]}'
while read line; do exit 3; done
"#,
    );
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &forged,
            "--timeout",
            "2",
            "--filter",
            "spec-examples/spec-examples-10",
        ],
    );
    let out = r.stdout();
    assert!(!out.contains('\u{1b}') && !out.contains('\r'), "{out:?}");
    assert!(out.contains("x\\u{1b}[2K\\rall pass"), "{out}");
}

#[cfg(unix)]
#[test]
fn a_lying_adapter_is_reported() {
    let dir = temp_dir("lie");
    // By request id: a wrong id, text that is not JSON, or a response of the wrong shape.
    let body = format!(
        "{HELLO}while read line; do\n  {ID}\n  case $((id % 3)) in\n    1) echo '{{\"id\":999999,\"parses\":true}}' ;;\n    2) echo 'I am not JSON' ;;\n    0) echo \"{{\\\"id\\\":$id,\\\"parses\\\":\\\"maybe\\\"}}\" ;;\n  esac\ndone\n"
    );
    let liar = script(&dir, "liar.sh", &body);
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &liar,
            "--filter",
            "spec-examples",
        ],
    );
    r.expect_code(1)
        .expect_stdout_contains("protocol: response id 999999 for request")
        .expect_stdout_contains("protocol: not a JSON object: I am not JSON")
        .expect_stdout_contains("protocol: a parse response needs `parses`");
}

#[test]
fn a_missing_adapter_is_reported() {
    let dir = temp_dir("missing");
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            "/nonexistent/adapter --flag",
            "--adapter",
            "builtin",
            "--filter",
            "spec-examples",
        ],
    );
    r.expect_code(1)
        .expect_stdout_contains("is unusable")
        .expect_stdout_contains("builtin (spec-2026)");
}

#[cfg(unix)]
#[test]
fn an_honest_partial_adapter_passes_what_it_claims() {
    let dir = temp_dir("partial");
    // Claims spec-2026 but skips every request: all skipped, nothing fails.
    let body = format!(
        "{HELLO}while read line; do\n  {ID}\n  echo \"{{\\\"id\\\":$id,\\\"skip\\\":\\\"not implemented\\\"}}\"\ndone\n"
    );
    let skipper = script(&dir, "skip.sh", &body);
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &skipper,
            "--filter",
            "spec-examples",
        ],
    );
    r.expect_code(0).expect_stdout_contains("skip");
}

#[test]
fn divergences_are_written() {
    let dir = temp_dir("divergences");
    let out = dir.join("DIVERGENCES.md");
    let serve = format!("{BIN} conformance --serve");
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &serve,
            "--filter",
            "marker-syntax/literal-vs-literal",
            "--divergences",
            out.to_str().unwrap(),
        ],
    );
    r.expect_code(0);
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(
        md.starts_with("# Divergences between implementations"),
        "{md}"
    );
    // markerspec served under the packaging profile accepts `"a" == "a"`, which spec-2026
    // rejects: a divergence from the specification.
    assert!(md.contains("`\"a\" == \"posix\"`"), "{md}");
}

#[test]
fn a_filter_that_selects_nothing_is_an_error() {
    let dir = temp_dir("empty-filter");
    let r = run_in(&dir, &["conformance", "--filter", "no-such-group"]);
    r.expect_code(2);
    assert!(
        r.stderr()
            .contains("--filter `no-such-group` selects none of the"),
        "{}",
        r.stderr()
    );
    // The footer counts what ran.
    let r = run_in(&dir, &["conformance", "--filter", "spec-examples"]);
    r.expect_code(0)
        .expect_stdout_contains("77 of ")
        .expect_stdout_contains("cases selected; checks run: builtin ");
}

/// An adapter that accepts everything and evaluates everything to true: its failures are
/// grouped by cause, largest first, with examples; the JSON report carries the inputs and
/// expectations of the claimed profile only; `--rerun-failures` runs exactly what failed.
#[cfg(unix)]
#[test]
fn failures_are_grouped_and_can_be_rerun() {
    let dir = temp_dir("causes");
    let body = format!(
        "{HELLO}while read line; do\n  {ID}\n  case \"$line\" in\n    *'\"op\":\"evaluate\"'*) echo \"{{\\\"id\\\":$id,\\\"result\\\":true}}\" ;;\n    *) echo \"{{\\\"id\\\":$id,\\\"parses\\\":true}}\" ;;\n  esac\ndone\n"
    );
    let yes = script(&dir, "yes.sh", &body);
    let args = [
        "conformance",
        "--adapter",
        &yes,
        "--filter",
        "spec-examples",
    ];
    let r = run_in(&dir, &args);
    r.expect_code(1)
        .expect_stdout_contains("fake: #1 ")
        .expect_stdout_contains("accepts what the profile rejects")
        .expect_stdout_contains("evaluates to true instead of false")
        .expect_stdout_contains("      input:    ")
        .expect_stdout_contains("      expected: rejects")
        .expect_stdout_contains("      observed: accepts");
    let out = r.stdout();
    let counts: Vec<usize> = out
        .lines()
        .filter_map(|l| l.strip_prefix("fake: #"))
        .map(|l| {
            let n = l.split_once(' ').unwrap().1;
            n.split_once('x').unwrap().0.parse().unwrap()
        })
        .collect();
    assert!(counts.len() >= 2, "{out}");
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");

    let mut json_args = args.to_vec();
    json_args.push("--json");
    let r = run_in(&dir, &json_args);
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let rows = doc["implementations"][0]["results"].as_array().unwrap();
    assert!(rows.iter().all(|x| x["profile"] == "spec-2026"));
    assert!(
        rows.iter()
            .all(|x| x["input"].is_string() && x["expected"].is_object())
    );
    let failed: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|x| x["status"] == "fail")
        .map(|x| {
            assert!(x["cause"].is_string(), "{x}");
            x["case"].as_str().unwrap()
        })
        .collect();
    assert!(!failed.is_empty() && failed.len() < rows.len());
    let report = dir.join("report.json");
    std::fs::write(&report, r.stdout()).unwrap();

    // --all-profiles adds the unclaimed rows.
    json_args.push("--all-profiles");
    let all = run_in(&dir, &json_args);
    let all: serde_json::Value = serde_json::from_str(&all.stdout()).unwrap();
    let all_rows = all["implementations"][0]["results"].as_array().unwrap();
    assert!(all_rows.iter().any(|x| x["profile"] == "standard"));
    assert!(all_rows.len() > rows.len());

    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &yes,
            "--rerun-failures",
            report.to_str().unwrap(),
            "--json",
        ],
    );
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let rerun: std::collections::BTreeSet<&str> = doc["implementations"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["case"].as_str().unwrap())
        .collect();
    assert_eq!(rerun, failed);

    // A report without failures leaves nothing to rerun: an error, not a pass.
    let clean = dir.join("clean.json");
    std::fs::write(&clean, r#"{"implementations": [{"results": []}]}"#).unwrap();
    let r = run_in(
        &dir,
        &["conformance", "--rerun-failures", clean.to_str().unwrap()],
    );
    r.expect_code(2);
    assert!(r.stderr().contains("nothing to rerun"), "{}", r.stderr());
}

/// An adapter that refuses before its handshake is one line in the report, not a row per case.
#[cfg(unix)]
#[test]
fn a_refusing_adapter_is_reported_once() {
    let dir = temp_dir("refuse");
    let refuse = script(
        &dir,
        "refuse.sh",
        "echo 'tool 21.0 lacks prepare_environment' >&2\nexit 3\n",
    );
    let r = run_in(&dir, &["conformance", "--adapter", &refuse, "--json"]);
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let imp = &doc["implementations"][0];
    assert!(
        imp["unusable"]
            .as_str()
            .unwrap()
            .contains("lacks prepare_environment"),
        "{imp}"
    );
    assert_eq!(imp["results"].as_array().unwrap().len(), 0);
    let r = run_in(&dir, &["conformance", "--adapter", &refuse]);
    r.expect_code(1).expect_stdout_contains("is unusable");
    assert!(r.stdout().lines().count() < 10, "{}", r.stdout());
}

#[test]
fn html_is_written() {
    let dir = temp_dir("html");
    let out = dir.join("page.html");
    let serve = format!("{BIN} conformance --serve");
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &serve,
            "--filter",
            "marker-syntax/literal-vs-literal",
            "--html",
            out.to_str().unwrap(),
        ],
    );
    r.expect_code(0);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains(" src="));
    let start = page
        .find(r#"<script type="application/json" id="data">"#)
        .unwrap();
    let rest = &page[start..];
    let json = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(json).unwrap();
    let rows = data["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| {
        r[0].as_str()
            .unwrap()
            .starts_with("marker-syntax/literal-vs-literal")
    }));
    assert_eq!(
        data["tools"].as_array().unwrap().len(),
        3,
        "{}",
        data["tools"]
    );
}

/// An adapter written on the Python helper package (adapters/python): a toy tool that accepts
/// inputs with `==` and evaluates every marker to true.
#[cfg(unix)]
#[test]
fn the_python_helper_serves_the_protocol() {
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(python) = python else {
        eprintln!("NOT RUN: the_python_helper_serves_the_protocol needs python3");
        return;
    };
    let dir = temp_dir("helper");
    let helper = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../adapters/python");
    let body = format!(
        r#"import sys
sys.path.insert(0, {helper:?})
from markerspec_adapter import Tool, run

class Bad(ValueError):
    pass

class Toy(Tool):
    name = "toy"
    version = "1"
    profiles = ["standard"]
    extras = "string"
    parse_errors = (Bad,)

    def parse(self, kind, text):
        if "==" not in text:
            raise Bad("no == in " + repr(text))
        if "crash" in text:
            raise AssertionError("boom")
        return text

    def marker(self, kind, parsed):
        return parsed

    def evaluate(self, marker, environment, lock_file):
        assert "extra" in environment and isinstance(environment["extra"], str)
        return True

sys.exit(run(Toy()))
"#
    );
    std::fs::write(dir.join("toy.py"), body).unwrap();
    let cmd = format!("{python} {}", dir.join("toy.py").display());
    let r = run_in(
        &dir,
        &[
            "conformance",
            "--adapter",
            &cmd,
            "--filter",
            "extras",
            "--json",
        ],
    );
    r.expect_code(1);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    let imp = &doc["implementations"][0];
    assert_eq!(imp["implementation"], "toy");
    assert!(imp["unusable"].is_null(), "{imp}");
    let rows = imp["results"].as_array().unwrap();
    assert!(rows.iter().all(|x| x["profile"] == "standard"));
    // Rejections carry the exception's type name; several extras are skipped.
    assert!(rows.iter().any(|x| {
        x["observed"]["parse"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Bad: no == in"))
    }));
    assert!(rows.iter().any(|x| {
        x["status"] == "skip"
            && x["details"][0]
                .as_str()
                .is_some_and(|d| d.contains("several extras"))
    }));
    assert!(rows.iter().any(|x| x["status"] == "pass"));
}
