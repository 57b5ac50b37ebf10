//! The real binary on the inputs a new user and a hostile caller give it: batch streams, files
//! that block or never end, environment documents, several environments, targets, includes.

mod common;

use common::Scratch;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn temp_dir(name: &str) -> Scratch {
    Scratch::new(&format!("inputs-{name}"))
}

/// Runs the binary in DIR with STDIN, killing it (and failing) after 60 s.
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = common::spawn_piped(dir, args);
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("markerspec {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer.join().unwrap();
    let out = std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    run_in(&temp_dir("run"), args, stdin)
}

const LINUX: &str = "linux-x86_64-cpython-3.12";
const WINDOWS: &str = "windows-amd64-cpython-3.11";

#[test]
fn batch_answers_blank_comment_invalid_and_overlong_lines_and_goes_on() {
    let mut input = b"numpy; sys_platform == 'linux'\n\n   \n# a comment\nfoo bar\n".to_vec();
    input.extend_from_slice(b"caf\xff\n");
    input.extend(std::iter::repeat_n(b'a', (1 << 20) + 10));
    input.extend_from_slice(b"\nos_name == 'nt'\r\n");
    input.extend(std::iter::repeat_n(b'b', (3 << 20) + 5)); // over-long, last, no newline
    let r = run(&["eval", "--fixture", LINUX, "-"], &input);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "true",
            "",
            "",
            "",
            "error: R010 expected a version specifier, `[`, `@`, `;` or the end after the name, found `bar`",
            "error: I001 the line is not valid UTF-8 (byte 3)",
            "error: L001 input is 1048586 bytes long, more than the limit of 1048576 bytes",
            "false",
            "error: L001 input is 3145733 bytes long, more than the limit of 1048576 bytes",
        ]
    );
    let r = run(&["parse", "-"], b"\n#x\nNumPy >= 2\nbad[\n");
    assert_eq!(
        r.stdout,
        "\n\nNumPy>=2\nerror: R003 expected `]` to close the extras\n"
    );
}

#[test]
fn jobs_keep_the_input_order() {
    let lines: Vec<String> = (0..20_000)
        .map(|i| match i % 4 {
            0 => format!("pkg{i}; python_version >= '3.{}'", i % 20),
            1 => format!("pkg{i}[x]>=1.{i}"),
            2 => "sys_platform == 'win32'".to_owned(),
            _ => format!("bad{i} ;"),
        })
        .collect();
    let input = lines.join("\n") + "\n";
    let one = run(
        &["eval", "--jobs", "1", "--fixture", LINUX, "-"],
        input.as_bytes(),
    );
    let four = run(
        &["eval", "--jobs", "4", "--fixture", LINUX, "-"],
        input.as_bytes(),
    );
    assert_eq!(one.stdout.lines().count(), 20_000);
    assert_eq!(one.stdout, four.stdout);
    assert!(
        one.stdout.starts_with("true\ntrue\nfalse\nerror: M010"),
        "{}",
        &one.stdout[..80]
    );
    let p1 = run(&["parse", "--jobs", "1", "-"], input.as_bytes());
    let p3 = run(&["parse", "--jobs", "3", "-"], input.as_bytes());
    assert_eq!(p1.stdout, p3.stdout);
}

#[test]
fn batch_answers_each_line_before_the_next_arrives() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_markerspec"))
        .args(["eval", "--fixture", LINUX, "-"])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for (question, answer) in [("os_name == 'posix'", "true"), ("os_name == 'nt'", "false")] {
        writeln!(stdin, "{question}").unwrap();
        stdin.flush().unwrap();
        let got = rx.recv_timeout(Duration::from_secs(10));
        if got.is_err() {
            child.kill().unwrap();
        }
        assert_eq!(
            got.as_deref(),
            Ok(answer),
            "no answer while stdin stays open"
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn user_named_files_that_never_end_or_block_are_refused() {
    let dir = temp_dir("fifo");
    let r = run_in(&dir, &["check", "--fixture", LINUX, "/dev/zero"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    let status = Command::new("mkfifo")
        .arg(dir.join("fifo.json"))
        .status()
        .expect("mkfifo is needed for this test");
    assert!(status.success());
    let r = run_in(
        &dir,
        &["eval", "--env", "fifo.json", "os_name == 'nt'"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    let r = run_in(&dir, &["conformance", "--vectors", "fifo.json"], b"");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    let r = run_in(&dir, &["conformance", "--vectors", "."], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("fifo.json is not a regular file"),
        "{}",
        r.stderr
    );
}

#[test]
fn byte_order_marks_are_accepted() {
    let dir = temp_dir("bom");
    std::fs::write(dir.join("requirements.txt"), b"\xEF\xBB\xBFnumpy>=2\n").unwrap();
    std::fs::write(dir.join("env.json"), b"\xEF\xBB\xBF{\"os_name\": \"nt\"}").unwrap();
    let r = run_in(
        &dir,
        &["check", "--fixture", LINUX, "requirements.txt"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("requirements.txt:1  true     numpy>=2\n"),
        "{}",
        r.stdout
    );
    let r = run_in(&dir, &["eval", "--env", "env.json", "os_name == 'nt'"], b"");
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
}

#[test]
fn environment_documents_name_what_is_wrong() {
    let dir = temp_dir("envdoc");
    for (doc, needle) in [
        (
            r#"{"os_name": "nt", "os_name": "posix"}"#,
            "duplicate key `os_name`",
        ),
        (
            r#"{"python_version": 3.12}"#,
            "`python_version` must be a string",
        ),
        (
            r#"{"gpu_backends": "cuda"}"#,
            "`gpu_backends` must be a list of strings",
        ),
    ] {
        std::fs::write(dir.join("env.json"), doc).unwrap();
        let r = run_in(&dir, &["eval", "--env", "env.json", "os_name == 'nt'"], b"");
        assert_eq!(r.code, 2, "{doc}");
        assert!(r.stderr.contains(needle), "{doc}: {}", r.stderr);
        assert!(!r.stderr.contains("untagged"), "{}", r.stderr);
    }
}

#[test]
fn environment_documents_warn_about_keys_they_do_not_know() {
    let dir = temp_dir("envdoc-keys");
    std::fs::write(
        dir.join("env.json"),
        r#"{"$version": "0.2", "os_name": "nt", "python_versoin": "3.12"}"#,
    )
    .unwrap();
    let r = run_in(&dir, &["eval", "--env", "env.json", "os_name == 'nt'"], b"");
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "warning: env.json: unknown-environment-key: `python_versoin` is not a field"
        ) && r.stderr.contains("did you mean `python_version`?"),
        "{}",
        r.stderr
    );
    std::fs::write(
        dir.join("env.json"),
        r#"{"$version": "1.0", "os_name": "nt"}"#,
    )
    .unwrap();
    let r = run_in(&dir, &["eval", "--env", "env.json", "os_name == 'nt'"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("$version"), "{}", r.stderr);
}

#[test]
fn diagnostics_do_not_echo_megabytes_and_say_how_to_raise_a_limit() {
    // An argument cannot be that long (the kernel's limit is 128 KiB): a file line can.
    let dir = temp_dir("huge");
    let huge = format!("numpy; os_name == '{}'\n", "x".repeat(2 << 20));
    std::fs::write(dir.join("requirements.txt"), huge).unwrap();
    let r = run_in(
        &dir,
        &["check", "--fixture", LINUX, "requirements.txt"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("error[L001]"),
        "{}",
        &r.stderr[..200.min(r.stderr.len())]
    );
    assert!(
        r.stderr.len() < 2_000,
        "{} bytes of diagnostic",
        r.stderr.len()
    );
    assert!(
        r.stderr.contains("no option to raise this limit"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.len() < 2_000, "{} bytes of report", r.stdout.len());
}

#[test]
fn fixture_list_describes_each_fixture() {
    let r = run(&["eval", "--fixture", "list"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!("fixture_list", r.stdout);
    let r = run(&["check", "--fixture", "list"], b"");
    assert!(r.stdout.contains("linux-aarch64-pypy-3.10"), "{}", r.stdout);
}

#[test]
fn set_overlays_this_machine_and_is_checked() {
    let r = run(
        &[
            "eval",
            "--no-gpu",
            "--set",
            "python_version=3.12",
            "python_version >= '3' and os_name == 'posix'",
        ],
        b"",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
    let r = run(
        &["eval", "--set", "python_versoin=3.9", "os_name == 'nt'"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("did you mean `python_version`?"),
        "{}",
        r.stderr
    );
    let r = run(
        &["eval", "--set", "python_version=abc", "os_name == 'nt'"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`abc` is not a PEP 440 version"),
        "{}",
        r.stderr
    );
}

#[test]
fn python_platform_and_version_as_uv_names_them() {
    let m = "sys_platform == 'win32' and python_full_version == '3.11.0'";
    let r = run(
        &[
            "eval",
            "--python-platform",
            "windows",
            "--python-version",
            "3.11",
            m,
        ],
        b"",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
    let r = run(
        &[
            "eval",
            "--dialect",
            "extended",
            "--python-platform",
            "aarch64-manylinux_2_28",
            "glibc_version >= '2.28' and platform_machine == 'aarch64'",
        ],
        b"",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
    let r = run(
        &["eval", "--python-platform", "solaris", "os_name == 'nt'"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("x86_64-manylinux_2_28"), "{}", r.stderr);
    // The same options on check.
    let dir = temp_dir("target");
    std::fs::write(
        dir.join("requirements.txt"),
        "pywin32; sys_platform == 'win32'\n",
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "check",
            "--python-platform",
            "x86_64-pc-windows-msvc",
            "--python-version",
            "3.12",
            "requirements.txt",
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("requirements.txt:1  true"),
        "{}",
        r.stdout
    );
}

#[test]
fn several_environments_answer_one_column_each() {
    let input = "numpy; sys_platform == 'linux'\npywin32; sys_platform == 'win32'\n\nrequests\n";
    let r = run(
        &["eval", "--fixture", LINUX, "--fixture", WINDOWS, "-"],
        input.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!("matrix", r.stdout);
    let r = run(
        &[
            "eval",
            "--json",
            "--fixture",
            LINUX,
            "--fixture",
            WINDOWS,
            "-",
        ],
        input.as_bytes(),
    );
    let first: serde_json::Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["results"][0]["environment"], LINUX);
    assert_eq!(first["results"][0]["result"], "true");
    assert_eq!(first["results"][1]["result"], "false");
    let r = run(
        &[
            "eval",
            "--fixture",
            LINUX,
            "--fixture",
            WINDOWS,
            "os_name == 'nt'",
        ],
        b"",
    );
    assert_eq!(r.code, 1, "the least certain answer decides");
}

#[test]
fn check_follows_includes_and_reports_what_it_does_not_evaluate() {
    let dir = temp_dir("includes");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("requirements.txt"),
        "-r sub/base.txt\n-c constraints.txt\n--index-url https://example.org\n-e git+https://x/y\n./local\nrequests\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("sub/base.txt"),
        "numpy\n-r ../requirements.txt\n-r missing.txt\n",
    )
    .unwrap();
    std::fs::write(dir.join("constraints.txt"), "urllib3<3\n").unwrap();
    let r = run_in(
        &dir,
        &["check", "--fixture", LINUX, "requirements.txt"],
        b"",
    );
    assert_eq!(r.code, 2, "a cycle and a missing include are errors");
    insta::assert_snapshot!(
        "includes",
        r.stdout.replace(&dir.display().to_string(), "DIR")
    );

    // Depth: a chain of 20 files stops at the limit.
    for i in 0..20 {
        std::fs::write(
            dir.join(format!("d{i}.txt")),
            format!("pkg{i}\n-r d{}.txt\n", i + 1),
        )
        .unwrap();
    }
    std::fs::write(dir.join("d20.txt"), "last\n").unwrap();
    let r = run_in(&dir, &["check", "--fixture", LINUX, "d0.txt"], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains("includes nested deeper than 16 files"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("last"), "{}", r.stdout);
}

#[test]
fn check_pyproject_include_group_cycle_is_an_error() {
    let dir = temp_dir("groups");
    std::fs::write(
        dir.join("pyproject.toml"),
        "[dependency-groups]\na = [\"x\", {include-group = \"b\"}]\nb = [\"y\", {include-group = \"a\"}]\nc = [{include-group = \"nope\"}]\n",
    )
    .unwrap();
    let r = run_in(&dir, &["check", "--fixture", LINUX, "pyproject.toml"], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains("forms a cycle: a → b → a"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("`include-group = \"nope\"`: no such group"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("true     x  [group: a, included by b]"),
        "{}",
        r.stdout
    );
}

#[test]
fn batch_eval_prints_every_unknown_field_and_reads_the_first_token_by_character() {
    // Two unknown fields, a marker variable followed by a non-breaking space (a separator in
    // the uv profile), a package whose name only starts like a variable, and a CRLF line.
    let input = "cuda_version >= '12' or rocm_version >= '6'\n\
                 os_name\u{a0}== 'posix'\n\
                 os_nameé == 'x'\n\
                 os_name2 ; os_name == 'posix'\r\n";
    let dir = temp_dir("batch-unknown");
    std::fs::write(
        dir.join("env.json"),
        r#"{"os_name": "posix", "cuda_version": null, "rocm_version": null}"#,
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "eval",
            "--dialect",
            "extended",
            "--profile",
            "uv",
            "--env",
            "env.json",
            "-",
        ],
        input.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    assert_eq!(lines[0], "unknown: cuda_version,rocm_version");
    assert_eq!(lines[1], "true");
    assert!(
        lines[2].starts_with("error: R"),
        "a requirement: {}",
        lines[2]
    );
    assert_eq!(lines[3], "true");
}

#[test]
fn wheel_tags_are_environments_and_compressed_sets_are_columns() {
    let r = run(
        &[
            "eval",
            "--wheel-tag",
            "cp313-cp313-manylinux_2_28_x86_64",
            "sys_platform == 'linux' and python_version >= '3.13' and platform_machine == 'x86_64'",
        ],
        b"",
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "true\n"), "{}", r.stderr);
    // Fields the tags do not decide stay unknown.
    let r = run(
        &[
            "eval",
            "--wheel-tag",
            "cp313-cp313-manylinux_2_28_x86_64",
            "platform_release >= '6'",
        ],
        b"",
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (3, "unknown: platform_release\n"),
        "{}",
        r.stderr
    );
    // A wheel file name with compressed sets: one column per combination, beside a fixture.
    let r = run(
        &[
            "eval",
            "--fixture",
            WINDOWS,
            "--wheel-tag",
            "pkg-1.0-cp312.cp313-abi3-manylinux_2_17_x86_64.win_amd64.whl",
            "-",
        ],
        b"sys_platform == 'win32'\npython_version >= '3.13'\n",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "[1] windows-amd64-cpython-3.11\n\
         [2] cp312-abi3-manylinux_2_17_x86_64\n\
         [3] cp312-abi3-win_amd64\n\
         [4] cp313-abi3-manylinux_2_17_x86_64\n\
         [5] cp313-abi3-win_amd64\n\
         [1]      [2]      [3]      [4]      [5]      input\n\
         true     false    true     false    true     sys_platform == 'win32'\n\
         false    false    false    true     true     python_version >= '3.13'\n"
    );
    for bad in ["cp312-cp312", "cp312-cp312-nonsense_platform"] {
        let r = run(&["eval", "--wheel-tag", bad, "os_name == 'nt'"], b"");
        assert_eq!(r.code, 2, "{bad}: {}", r.stdout);
        assert!(r.stderr.contains("--wheel-tag"), "{bad}: {}", r.stderr);
    }
    // Not with the options that only apply to detecting this machine.
    let r = run(
        &[
            "eval",
            "--wheel-tag",
            "py3-none-any",
            "--no-gpu",
            "os_name == 'nt'",
        ],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    // And on check.
    let dir = temp_dir("wheel-check");
    std::fs::write(
        dir.join("requirements.txt"),
        "pywin32 ; sys_platform == 'win32'\n",
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "check",
            "--wheel-tag",
            "cp312-cp312-win_amd64",
            "requirements.txt",
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("requirements.txt:1  true     pywin32; sys_platform == \"win32\"\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn check_answers_one_column_per_environment() {
    let dir = temp_dir("check-matrix");
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"x\"\nversion = \"1\"\ndependencies = [\n  \"numpy>=2 ; python_version >= '3.12'\",\n  \"pywin32 ; sys_platform == 'win32'\",\n  \"requests\",\n  \"bad[\",\n]\n[project.optional-dependencies]\ngpu = [\"cupy ; sys_platform == 'linux'\"]\n",
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "check",
            "--fixture",
            LINUX,
            "--fixture",
            WINDOWS,
            "pyproject.toml",
        ],
        b"",
    );
    assert_eq!(r.code, 2, "an invalid requirement: {}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], format!("[1] {LINUX}"));
    assert_eq!(lines[1], format!("[2] {WINDOWS}"));
    assert!(
        lines[2].ends_with("[1]      [2]      requirement"),
        "{}",
        r.stdout
    );
    let row = |needle: &str| -> Vec<&str> {
        let line = lines
            .iter()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no row for {needle}: {}", r.stdout));
        line.split_whitespace().skip(1).take(2).collect()
    };
    assert_eq!(row("numpy"), ["true", "false"]);
    assert_eq!(row("pywin32"), ["false", "true"]);
    assert_eq!(row("requests"), ["true", "true"]);
    assert_eq!(row("bad["), ["invalid", "bad["]);
    assert!(
        r.stdout
            .contains("skipped  cupy ; sys_platform == 'linux'  [extra: gpu]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("4 requirement(s), 1 invalid; 1 line(s) not evaluated\n[1] 2 apply, 1 do not, 0 unknown, 0 error(s)\n[2] 2 apply, 1 do not, 0 unknown, 0 error(s)\n"),
        "{}",
        r.stdout
    );
    // With the extra requested, the optional dependency is a row with its extra named.
    let r = run_in(
        &dir,
        &[
            "check",
            "--fixture",
            LINUX,
            "--fixture",
            WINDOWS,
            "--extra",
            "gpu",
            "pyproject.toml",
        ],
        b"",
    );
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains("cupy"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(
        line.split_whitespace().skip(1).take(2).collect::<Vec<_>>(),
        ["true", "false"],
        "{line}"
    );
    assert!(line.contains("[extra: gpu]"), "{line}");
}
