//! The real `markerspec` binary, run in a fresh temporary folder with a cleared environment.

mod common;

use common::Scratch;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::Run;

fn temp_dir(name: &str) -> Scratch {
    Scratch::new(&format!("cli-{name}"))
}

fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_markerspec"));
    cmd.args(args).current_dir(dir).env_clear();
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
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
    Run {
        out,
        cmd: format!("markerspec {args:?}"),
    }
}

fn run(args: &[&str]) -> Run {
    run_in(&temp_dir("default"), args, None)
}

const LINUX: &[&str] = &["--fixture", "linux-x86_64-cpython-3.12"];

fn eval(extra: &[&str], text: &str) -> Run {
    let mut args = vec!["eval"];
    args.extend_from_slice(LINUX);
    args.extend_from_slice(extra);
    args.push(text);
    run(&args)
}

#[test]
fn parse_prints_the_canonical_form() {
    run(&[
        "parse",
        "requests [security,tests] >= 2.8.1, == 2.8.* ; python_version < '2.7'",
    ])
    .expect(
        0,
        "requests[security,tests]==2.8.*,>=2.8.1; python_version < \"2.7\"\n",
    );
    run(&["parse", "(os_name=='nt')or(extra=='Foo_Bar')"])
        .expect(0, "os_name == \"nt\" or extra == \"foo-bar\"\n");
}

#[test]
fn parse_errors_exit_2_with_a_rendered_diagnostic() {
    let r = run(&["parse", "numpy; python_versoin >= '3'"]);
    r.expect(2, "");
    insta::assert_snapshot!("parse_error", r.stderr());
}

#[test]
fn parse_json_has_spans() {
    let r = run(&["parse", "--json", "a>=1; os_name=='x'"]);
    r.expect(0, &r.stdout());
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["kind"], "requirement");
    assert_eq!(v["marker"]["span"], serde_json::json!([6, 18]));
    assert_eq!(v["specifiers"][0], ">=1");
}

/// Under `--profile packaging` a parenthesised group is kept, printed as packaging prints it and
/// marked in the JSON tree; the default profile prints the flat form.
#[test]
fn parse_packaging_keeps_groups() {
    let text = "(os_name=='nt' and extra=='a') or extra=='b'";
    let r = run(&["parse", "--profile", "packaging", text]);
    r.expect(
        0,
        "(os_name == \"nt\" and extra == \"a\") or extra == \"b\"\n",
    );
    run(&["parse", text]).expect(
        0,
        "os_name == \"nt\" and extra == \"a\" or extra == \"b\"\n",
    );
    let r = run(&["parse", "--profile", "packaging", "--json", text]);
    r.expect(0, &r.stdout());
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).unwrap();
    assert_eq!(v["marker"]["or"][0]["group"], true);
    assert_eq!(
        v["marker"]["or"][0]["and"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(v["marker"].get("group").is_none(), "{v}");
}

#[test]
fn eval_exit_codes() {
    eval(
        &[],
        "numpy>=2; python_version >= '3.10' and platform_machine == 'x86_64'",
    )
    .expect(0, "true\n");
    eval(&[], "sys_platform == 'win32'").expect(1, "false\n");
    eval(&[], "numpy").expect(0, "true\n");
    // `~=` on a string: `==` under the living specification, an error under packaging.
    eval(&[], "os_name ~= 'posix'").expect(0, "true\n");
    let r = eval(&["--profile", "packaging"], "os_name ~= 'posix'");
    r.expect(2, "");
    assert!(r.stderr().contains("error[E002]"), "{}", r.stderr());
}

#[test]
fn eval_extras_and_sets() {
    eval(&[], "extra == 'gpu'").expect(1, "false\n");
    eval(&["--extra", "GPU"], "extra == 'gpu'").expect(0, "true\n");
    eval(&["--set", "os_name=nt"], "os_name == 'nt'").expect(0, "true\n");
    eval(
        &["--dialect", "extended", "--set", "gpu_backends=cuda,rocm"],
        "'rocm' in gpu_backends",
    )
    .expect(0, "true\n");
}

#[test]
fn eval_unknown_exits_3_and_names_the_fields() {
    eval(
        &["--dialect", "extended", "--set", "cuda_version=?"],
        "cuda_version >= '12'",
    )
    .expect(3, "unknown: cuda_version\n");
    // Kleene logic: false and unknown is false.
    eval(
        &["--dialect", "extended", "--set", "cuda_version=?"],
        "os_name == 'nt' and cuda_version >= '12'",
    )
    .expect(1, "false\n");
}

#[test]
fn eval_env_file_with_null_and_absent() {
    let dir = temp_dir("envfile");
    std::fs::write(
        dir.join("env.json"),
        r#"{"python_version": "3.12", "os_name": "posix", "cuda_version": null, "cudnn_version": ""}"#,
    )
    .unwrap();
    let args = ["eval", "--dialect", "extended", "--env", "env.json"];
    let with = |text: &str| {
        let mut a = args.to_vec();
        a.push(text);
        run_in(&dir, &a, None)
    };
    with("cuda_version >= '12'").expect(3, "unknown: cuda_version\n");
    with("cudnn_version == ''").expect(0, "true\n");
    with("cudnn_version >= '9'").expect(1, "false\n");
    with("python_version >= '3.10'").expect(0, "true\n");
    // A field the document does not mention is unknown under the default profile, and an
    // error (as in pypa/packaging) under the `packaging` profile.
    with("sys_platform == 'linux'").expect(3, "unknown: sys_platform\n");
    let mut a = args.to_vec();
    a.extend(["--profile", "packaging", "sys_platform == 'linux'"]);
    let r = run_in(&dir, &a, None);
    r.expect(2, "");
    assert!(r.stderr().contains("E001"), "{}", r.stderr());
}

#[test]
fn eval_batch_mode_answers_every_line() {
    let input = "os_name == 'posix'\nfoo bar\nnumpy\n'a' == 'b'\nextra == 'x'\n";
    let mut args = vec!["eval"];
    args.extend_from_slice(LINUX);
    args.push("-");
    run_in(&temp_dir("batch"), &args, Some(input))
        .expect(
            0,
            "true\n\
             error: R010 expected a version specifier, `[`, `@`, `;` or the end after the name, found `bar`\n\
             true\n\
             error: M011 this comparison has no marker variable\n\
             false\n",
        );
}

#[test]
fn eval_explain_shows_each_comparison() {
    let r = eval(
        &["--explain", "--extra", "gpu"],
        "python_version >= '3.10' and (os_name == 'nt' or extra == 'gpu')",
    );
    assert_eq!(r.code(), 0);
    insta::assert_snapshot!("explain", r.stdout());
}

#[test]
fn errors_say_what_to_do() {
    // Without an environment, `eval` detects this machine (tests/env_check.rs covers that).
    let r = run(&["eval", "--env", "missing.json", "os_name == 'nt'"]);
    r.expect(2, "");
    assert!(r.stderr().contains("missing.json"), "{}", r.stderr());
    let r = run(&["eval", "--fixture", "nope", "os_name == 'nt'"]);
    r.expect(2, "");
    assert!(
        r.stderr().contains("linux-x86_64-cpython-3.12"),
        "{}",
        r.stderr()
    );
    let r = run(&["eval", "--set", "bogus=1", "os_name == 'nt'"]);
    r.expect(2, "");
    assert!(
        r.stderr().contains("`bogus` is not a marker field"),
        "{}",
        r.stderr()
    );
}

#[test]
fn extended_field_in_pep508_dialect_hints_at_the_dialect() {
    let r = eval(&[], "cuda_version >= '12'");
    r.expect(2, "");
    assert!(
        r.stderr().contains("enable the `extended` dialect"),
        "{}",
        r.stderr()
    );
}
