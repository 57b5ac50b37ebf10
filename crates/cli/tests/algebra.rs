//! `simplify`, `compare`, `solve` and `eval --residual`: the real binary in a fresh temporary
//! folder with a cleared environment.

mod common;

use common::Scratch;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::Run;

fn temp_dir() -> Scratch {
    Scratch::new("algebra-cli")
}

fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    run_bytes(dir, args, stdin.map(str::as_bytes))
}

fn run_bytes(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_markerspec"));
    cmd.args(args).current_dir(dir).env_clear();
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // Written on a thread: a large input's answers fill the output pipe before the input
    // is all written.
    let writer = stdin.map(|input| {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || pipe.write_all(&input))
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap().unwrap();
    }
    Run {
        out,
        cmd: format!("markerspec {args:?}"),
    }
}

fn run(args: &[&str]) -> Run {
    run_in(&temp_dir(), args, None)
}

#[test]
fn simplify_prints_the_short_form_and_the_constants_as_words() {
    run(&[
        "simplify",
        "python_version >= '3.8' and python_version < '3.9' or python_version == '3.9'",
    ])
    .expect(
        0,
        "python_version >= \"3.8\" and python_version < \"3.10\"\n",
    );
    run(&["simplify", "os_name == 'nt' or os_name != 'nt'"]).expect(0, "true\n");
    run(&["simplify", "os_name == 'nt' and os_name == 'posix'"]).expect(0, "false\n");
    // Under an assumption: equal to the input wherever it holds.
    run(&[
        "simplify",
        "--assume",
        "python_full_version >= '3.10'",
        "python_version >= '3.8' and sys_platform == 'linux'",
    ])
    .expect(0, "sys_platform == \"linux\"\n");
    // One line per input line; errors as one line.
    run_in(
        &temp_dir(),
        &["simplify", "-"],
        Some("extra == 'a' or extra == 'a'\n\nnope == 'x'\npython_full_version == '3.11.*'\n"),
    )
    .expect(0, "extra == \"a\"\n\nerror[M002]: unknown marker variable `nope`\npython_version == \"3.11\"\n");
    run(&["simplify", "nope"]).expect(2, "");
    // A `~=` with a one-number release is no specifier: the version alone, printed as written
    // (print form 8), by itself and beside another interval.
    run(&[
        "simplify",
        "platform_release ~= '10' or platform_release < '3'",
    ])
    .expect(
        0,
        "platform_release < \"3\" or platform_release ~= \"10\"\n",
    );
    // `packaging` compares `platform_version` as a string, a version's text included.
    run(&[
        "simplify",
        "--profile",
        "packaging",
        "platform_version != '10.0.19045' and sys_platform == 'win32' or platform_version <= '10.0.19045'",
    ])
    .expect(
        0,
        "sys_platform == \"win32\" or platform_version == \"10.0.19045\"\n",
    );
}

/// `--shortest` searches further than the irredundant cover (SPEC §21.4): here its CNF is
/// shorter than the cover, which the default prints with its shared literals taken out.
#[test]
fn simplify_shortest_searches_for_a_shorter_text() {
    let m = "(os_name == 'nt' or sys_platform == 'linux') and (extra == 'a' or extra == 'b')";
    run(&["simplify", m]).expect(
        0,
        "os_name == \"nt\" and (extra == \"a\" or extra == \"b\") or sys_platform == \"linux\" and (extra == \"a\" or extra == \"b\")\n",
    );
    run(&["simplify", "--shortest", m]).expect(
        0,
        "(extra == \"a\" or extra == \"b\") and (os_name == \"nt\" or sys_platform == \"linux\")\n",
    );
    // The same with `-`, where both agree.
    run_in(
        &temp_dir(),
        &["simplify", "--shortest", "-"],
        Some("(sys_platform == 'win32' and extra == 'a') or (sys_platform != 'win32' and extra == 'a' and os_name == 'nt')\n"),
    )
    .expect(0, "extra == \"a\" and (os_name == \"nt\" or sys_platform == \"win32\")\n");
    run(&[
        "simplify",
        "(sys_platform == 'win32' and extra == 'a') or (sys_platform != 'win32' and extra == 'a' and os_name == 'nt')",
    ])
    .expect(0, "extra == \"a\" and (os_name == \"nt\" or sys_platform == \"win32\")\n");
}

/// What `simplify` prints reads back under every profile, the words `true` and `false`
/// included: the `packaging` profile's parser rejects them (as packaging does), and `compare`
/// and `solve` once answered `error[M002]` for them.
#[test]
fn the_constants_simplify_prints_read_back_under_every_profile() {
    for profile in ["spec-2026", "packaging", "uv"] {
        let input = "os_name == 'nt' or os_name != 'nt'\nos_name == 'nt' and os_name == 'posix'\n";
        let printed = run_in(
            &temp_dir(),
            &["simplify", "--profile", profile, "-"],
            Some(input),
        );
        printed.expect(0, "true\nfalse\n");
        let pairs: String = input
            .lines()
            .zip(printed.stdout().lines())
            .map(|(a, b)| format!("{a}\t{b}\n"))
            .collect();
        run_in(
            &temp_dir(),
            &["compare", "--profile", profile, "-"],
            Some(&pairs),
        )
        .expect(0, "equivalent\nequivalent\n");
        run(&["solve", "--profile", profile, "false"]).expect(1, "unsatisfiable\n");
        run(&["compare", "--profile", profile, "true", "os_name == 'nt'"])
            .expect(0, "implied-by\n");
    }
}

/// `eval` reads the words `simplify` prints for the constants as the constants (SPEC §3.1)
/// under `spec-2026` and `uv`: read as a requirement named `false`, without a marker, `false`
/// evaluated to true. `packaging` rejects them, as packaging does. A requirement named
/// `false` with a marker is still a requirement.
#[test]
fn eval_reads_the_constants_simplify_prints() {
    for profile in ["spec-2026", "uv"] {
        run(&["eval", "--profile", profile, "false"]).expect(1, "false\n");
        run(&["eval", "--profile", profile, " true "]).expect(0, "true\n");
        let printed = run_in(
            &temp_dir(),
            &["simplify", "--profile", profile, "-"],
            Some("os_name == 'nt' and os_name == 'posix'\nos_name == 'nt' or os_name != 'nt'\n"),
        );
        printed.expect(0, "false\ntrue\n");
        let input = format!(
            "{}false ; os_name == 'nt' or os_name != 'nt'\n",
            printed.stdout()
        );
        run_in(
            &temp_dir(),
            &["eval", "--profile", profile, "-"],
            Some(&input),
        )
        .expect(0, "false\ntrue\ntrue\n");
        run(&["parse", "--profile", profile, "--json", "false"])
            .expect_stdout_contains("\"kind\": \"marker\"");
    }
    let refused = run(&["eval", "--profile", "packaging", "false"]);
    refused.expect_code(2);
    assert!(refused.stderr().contains("M002"), "{}", refused.stderr());
}

#[test]
fn simplify_reads_the_dialect_and_profile() {
    run(&[
        "simplify",
        "--dialect",
        "extended",
        "cuda_version >= '12' or cuda_version < '12' or cuda_version == ''",
    ])
    .expect(0, "true\n");
    // packaging reads `in` on a version as a substring test: not a constant there.
    run(&["simplify", "python_version in '3.10 3.11'"]).expect(0, "false\n");
    run(&[
        "simplify",
        "--profile",
        "packaging",
        "python_version in '3.10 3.11'",
    ])
    .expect(0, "python_version in \"3.10 3.11\"\n");
}

#[test]
fn compare_prints_the_relation_and_checked_witnesses() {
    run(&[
        "compare",
        "python_version >= '3.9'",
        "python_version >= '3.8'",
    ])
    .expect(0, "implies\n");
    run(&[
        "compare",
        "python_version >= '3.8'",
        "python_version >= '3.9'",
    ])
    .expect(0, "implied-by\n");
    run(&["compare", "os_name == 'nt'", "os_name == 'posix'"]).expect(0, "disjoint\n");
    run(&[
        "compare",
        "extra == 'a' and extra == 'b'",
        "extra == 'b' and extra == 'a'",
    ])
    .expect(0, "equivalent\n");
    // Pre-releases: `== 3.11.*` holds on 3.11.0rc1, `>= 3.11` does not.
    let r = run(&[
        "compare",
        "--json",
        "python_full_version == '3.11.*'",
        "python_full_version >= '3.11' and python_full_version < '3.12'",
    ]);
    let out = r.stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("implied-by"), "{out}");
    let doc: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(doc["relation"], "implied-by");
    assert!(doc["witnesses"]["b_not_a"].is_null());
    let dir = temp_dir();
    // Each witness is an environment document that `eval --env` accepts, and its cell holds.
    for (cell, a, b) in [("a_and_b", 0, 0), ("a_not_b", 0, 1), ("neither", 1, 1)] {
        let path = dir.join(format!("{cell}.json"));
        std::fs::write(&path, doc["witnesses"][cell].to_string()).unwrap();
        let p = path.to_str().unwrap();
        run_in(
            &dir,
            &["eval", "--env", p, "python_full_version == '3.11.*'"],
            None,
        )
        .expect(a, if a == 0 { "true\n" } else { "false\n" });
        run_in(
            &dir,
            &[
                "eval",
                "--env",
                p,
                "python_full_version >= '3.11' and python_full_version < '3.12'",
            ],
            None,
        )
        .expect(b, if b == 0 { "true\n" } else { "false\n" });
    }
    // Lines `A<TAB>B` from stdin.
    run_in(
        &temp_dir(),
        &["compare", "-"],
        Some("os_name == 'nt'\tsys_platform == 'linux'\nextra == 'a'\textra == 'a' or extra == 'b'\nbad\n"),
    )
    .expect(0, "overlapping\nimplies\nerror: expected `A<TAB>B`\n");
}

#[test]
fn compare_under_the_platform_theory_knows_windows() {
    run(&["compare", "sys_platform == 'win32'", "os_name == 'nt'"]).expect(0, "overlapping\n");
    run(&[
        "compare",
        "--theory",
        "platform",
        "sys_platform == 'win32'",
        "os_name == 'nt'",
    ])
    .expect(0, "equivalent\n");
    run(&[
        "compare",
        "--theory",
        "platform",
        "sys_platform == 'linux'",
        "os_name == 'nt'",
    ])
    .expect(0, "disjoint\n");
    run(&[
        "compare",
        "--theory",
        "platform",
        "platform_system == 'Darwin'",
        "os_name == 'posix'",
    ])
    .expect(0, "implies\n");
}

/// A marker that holds only where an invariant breaks gets its witness, with a warning that
/// names the invariant; under `platform` it is unsatisfiable.
#[test]
fn a_witness_outside_the_invariants_is_flagged() {
    let m = r#""32-bit" in sys_abi_features and "64-bit" in sys_abi_features"#;
    let r = run(&["solve", "--dialect", "extended", m]);
    assert_eq!(r.code(), 0);
    assert!(
        r.stderr().contains("warning[witness-breaks-invariant]")
            && r.stderr().contains("exclude each other"),
        "{}",
        r.stderr()
    );
    run(&["solve", "--dialect", "extended", "--theory", "platform", m])
        .expect(1, "unsatisfiable\n");
}

/// Under `platform`, every witness lies inside the theory: `neither` too (it once came from
/// the environments the theory rules out, with both `32-bit` and `64-bit` in
/// `sys_abi_features`, a document `eval --env` refuses).
#[test]
fn witnesses_under_the_platform_theory_are_documents() {
    let r = run(&[
        "compare",
        "--json",
        "--theory",
        "platform",
        "os_name == 'nt'",
        "sys_platform == 'linux'",
    ]);
    let out = r.stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("disjoint"), "{out}");
    let doc: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let dir = temp_dir();
    for (cell, nt, linux) in [("a_not_b", 0, 1), ("b_not_a", 1, 0), ("neither", 1, 1)] {
        let w = &doc["witnesses"][cell];
        assert_eq!(w["sys_abi_features"], serde_json::json!([]), "{cell}: {w}");
        let path = dir.join(format!("{cell}.json"));
        std::fs::write(&path, w.to_string()).unwrap();
        let p = path.to_str().unwrap();
        run_in(&dir, &["eval", "--env", p, "os_name == 'nt'"], None)
            .expect(nt, if nt == 0 { "true\n" } else { "false\n" });
        run_in(&dir, &["eval", "--env", p, "sys_platform == 'linux'"], None)
            .expect(linux, if linux == 0 { "true\n" } else { "false\n" });
    }
    // The theory's other rules hold in them too: Windows is `nt`, and keeps the defaults
    // (CPython 3.12.0) elsewhere.
    let w = &doc["witnesses"]["a_not_b"];
    assert_eq!(w["sys_platform"], "win32", "{w}");
    assert_eq!(w["platform_system"], "Windows", "{w}");
    assert_eq!(w["python_full_version"], "3.12.0", "{w}");
}

/// A witness of an extended marker keeps SPEC §4.4's invariants where the marker allows it:
/// the fields it does not read are filled in (a listed GPU backend gets its stack, a compute
/// capability the other two fields, a property its feature, namespace and label, cuDNN both
/// versions), so that `eval --env` accepts the document.
#[test]
fn extended_witnesses_keep_the_cross_field_invariants() {
    let dir = temp_dir();
    for (i, m) in [
        r#""cuda" in gpu_backends"#,
        r#""rocm" in gpu_backends"#,
        r#""gfx90a" not in rocm_gpu_archs and "rocm" in gpu_backends"#,
        r#"cudnn_version >= "9""#,
        r#"cudnn_cuda_version < "12""#,
        r#""nvidia :: cuda :: 12" in variant_properties"#,
        r#""nvidia :: cuda" in variant_features"#,
        r#""nvidia" in variant_namespaces and variant_label == "cu12""#,
        r#""nvidia :: x :: 1" not in variant_properties and "nvidia" in variant_namespaces"#,
        r#"cuda_compute_capability >= "8.0""#,
        r#"cuda_compute_capability_max < "9" and cuda_compute_capability_max != """#,
        r#""9.0" in cuda_compute_capabilities"#,
        r#"cuda_version >= "12""#,
    ]
    .into_iter()
    .enumerate()
    {
        let r = run(&["solve", "--dialect", "extended", m]);
        assert_eq!(r.code(), 0, "{m}: {}", r.stderr());
        let path = dir.join(format!("extended-{i}.json"));
        std::fs::write(&path, r.stdout()).unwrap();
        let p = path.to_str().unwrap();
        assert!(
            !r.stderr().contains("witness-breaks-invariant"),
            "{m}: {}",
            r.stderr()
        );
        let e = run_in(
            &dir,
            &["eval", "--dialect", "extended", "--env", p, m],
            None,
        );
        assert_eq!(
            (e.code(), e.stdout().as_str()),
            (0, "true\n"),
            "{m}: {}\n{}",
            e.stderr(),
            r.stdout()
        );
    }
}

#[test]
fn solve_prints_a_witness_or_unsatisfiable() {
    let marker = "python_full_version >= '3.13' and sys_platform == 'darwin' and platform_machine != 'arm64'";
    let r = run(&["solve", marker]);
    assert_eq!(r.code(), 0);
    let dir = temp_dir();
    let path = dir.join("w.json");
    std::fs::write(&path, r.stdout()).unwrap();
    run_in(
        &dir,
        &["eval", "--env", path.to_str().unwrap(), marker],
        None,
    )
    .expect(0, "true\n");
    // A cell that only text satisfies: the witness names the text, and `eval --env` takes
    // it with the warning `text-version-value`.
    let marker = "python_full_version == 'dev' and os_name == 'posix'";
    let r = run(&["solve", marker]);
    assert_eq!(r.code(), 0);
    assert!(
        r.stdout().contains(r#""python_full_version": "dev""#),
        "{}",
        r.stdout()
    );
    let path = dir.join("text.json");
    std::fs::write(&path, r.stdout()).unwrap();
    let e = run_in(
        &dir,
        &["eval", "--env", path.to_str().unwrap(), marker],
        None,
    );
    e.expect(0, "true\n");
    let stderr = String::from_utf8_lossy(&e.out.stderr);
    assert!(
        stderr.contains("text-version-value: `python_full_version` holds `dev`"),
        "{stderr}"
    );
    run(&[
        "solve",
        "python_version < '3.8' and python_version >= '3.8'",
    ])
    .expect(1, "unsatisfiable\n");
    run(&["solve", "--json", "os_name == 'a' and os_name == 'b'"])
        .expect(1, "{\"satisfiable\":false,\"witness\":null}\n");
}

#[test]
fn eval_residual_prints_what_is_left_over_unknown_fields() {
    run(&[
        "eval",
        "--dialect",
        "extended",
        "--fixture",
        "linux-x86_64-cpython-3.12",
        "--set",
        "cuda_version=?",
        "--residual",
        "sys_platform == 'linux' and cuda_version >= '12' or os_name == 'nt'",
    ])
    .expect(3, "cuda_version >= \"12\"\n");
    run(&[
        "eval",
        "--fixture",
        "linux-x86_64-cpython-3.12",
        "--residual",
        "sys_platform == 'linux'",
    ])
    .expect(0, "true\n");
}

/// With `-`, `simplify` and `compare` answer each line as soon as it is read (the output is
/// buffered, but flushed whenever no further line is waiting), so a caller can write a line
/// and wait for its answer; CRLF line ends are read as line ends.
#[test]
fn batch_answers_arrive_before_the_input_ends() {
    use std::io::{BufRead, BufReader};
    for (args, line, want) in [
        (
            &["simplify", "-"][..],
            "os_name == 'nt' or os_name == 'nt'\r\n",
            "os_name == \"nt\"",
        ),
        (
            &["compare", "-"][..],
            "os_name == 'nt'\tos_name != 'nt'\n",
            "disjoint",
        ),
    ] {
        let dir = temp_dir();
        let mut child = Command::new(env!("CARGO_BIN_EXE_markerspec"))
            .args(args)
            .current_dir(&dir)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        // Lines read from the child, on a thread, so that a missing answer fails the test
        // after a while instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            loop {
                let mut answer = String::new();
                match stdout.read_line(&mut answer) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(answer).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        for _ in 0..2 {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.flush().unwrap();
            // Answered while stdin is still open.
            let answer = rx.recv_timeout(std::time::Duration::from_secs(30));
            if answer.is_err() {
                let _ = child.kill();
                let _ = child.wait();
            }
            assert_eq!(answer.unwrap().trim_end(), want, "{args:?}");
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
        reader.join().unwrap();
    }
}

/// The lock-file markers of the algebra's tests, one per line (`tests/data` links to them, and
/// the published crate carries a copy).
fn lock_markers() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lock-markers.txt");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Under the platform theory a context's constraint gains rules as it meets variant and ABI
/// literals: a marker `compare -` read before them is judged as the same text read after, so
/// each line's answer is the one its pair gets alone; and with `--json` so are its witnesses,
/// which keep those rules under either theory.
#[test]
fn compare_answers_do_not_depend_on_the_lines_before() {
    let pairs = [
        (
            "'cuda' in gpu_backends",
            "'nvidia :: cuda' not in variant_features",
        ),
        (
            "'cuda' in gpu_backends",
            "os_name == 'nt' or os_name != 'nt'",
        ),
        ("python_abi_tag == 'cp313t'", "'cuda' in gpu_backends"),
        (
            "'free-threading' in sys_abi_features",
            "'cuda' in gpu_backends",
        ),
        (
            "'x86_64 :: level :: v3' in variant_properties",
            "'cuda' in gpu_backends",
        ),
        (
            "'cuda' in gpu_backends",
            "'free-threading' in sys_abi_features",
        ),
        // The ABI tag's rule (`cp313t` is free-threaded) holds once the context has met the
        // tag; the substring test below does not name it, and its witnesses must not use it.
        ("\"cp313t\" != python_abi_tag", "os_name == 'nt'"),
        (
            "\"gil-enabled\" not in sys_abi_features",
            "'cp313t' not in python_abi_tag",
        ),
    ];
    let input: String = pairs.iter().map(|(a, b)| format!("{a}\t{b}\n")).collect();
    let dir = temp_dir();
    // (Witnesses keep the platform rules under either theory: SPEC §21.5.)
    for (theory, json) in [("platform", false), ("platform", true), ("none", true)] {
        let args = ["compare", "--theory", theory, "--dialect", "extended"];
        let mut batch = args.to_vec();
        batch.extend(if json {
            &["--json", "--jobs", "1", "-"][..]
        } else {
            &["--jobs", "1", "-"]
        });
        let r = run_in(&dir, &batch, Some(&input));
        assert_eq!(r.code(), 0, "{}", r.stderr());
        let answers = r.stdout();
        assert_eq!(answers.lines().count(), pairs.len());
        for ((a, b), answer) in pairs.iter().zip(answers.lines()) {
            let mut alone = args.to_vec();
            if json {
                alone.push("--json");
            }
            alone.extend([*a, *b]);
            let r = run_in(&dir, &alone, None);
            assert_eq!(r.code(), 0, "{}", r.stderr());
            let expected = r.stdout();
            assert_eq!(Some(answer), expected.lines().last(), "{theory}: {a} / {b}");
        }
        if !json {
            assert_eq!(answers.lines().nth(1), Some("implies"));
        }
    }
}

/// `simplify -` under the platform theory prints each line as the line alone prints, however
/// many rule-instantiating literals (variant properties and features, ABI tags) the lines
/// before it named, and on any number of threads.
#[test]
fn simplify_answers_do_not_depend_on_the_lines_before() {
    let lines = [
        "'nvidia :: cuda :: 12' in variant_properties and 'cuda' in gpu_backends",
        "'cuda' in gpu_backends or 'nvidia :: cuda' in variant_features",
        "python_abi_tag == 'cp313t' or 'free-threading' in sys_abi_features",
        "'free-threading' in sys_abi_features and 'x86_64 :: level' not in variant_features",
        "'gil-enabled' not in sys_abi_features and python_abi_tag != 'cp313'",
        "'nvidia' in variant_namespaces and 'nvidia :: cuda' not in variant_features",
        "'cuda' in gpu_backends and cuda_version >= '12'",
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let dir = temp_dir();
    let args = ["simplify", "--theory", "platform", "--dialect", "extended"];
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let mut batch = args.to_vec();
        batch.extend(["--jobs", jobs, "-"]);
        let r = run_in(&dir, &batch, Some(&input));
        assert_eq!(r.code(), 0, "{}", r.stderr());
        outputs.push(r.stdout());
    }
    assert_eq!(outputs[0], outputs[1]);
    for (line, printed) in lines.iter().zip(outputs[0].lines()) {
        let mut alone = args.to_vec();
        alone.push(line);
        run_in(&dir, &alone, None).expect(0, &format!("{printed}\n"));
    }
}

/// `simplify -` and `compare -` share a large input between threads, each with its own
/// context: the answers, and the warnings on stderr, are the same and in the same order
/// whatever the number of threads, and each line's answer is the one its marker gets alone.
#[test]
fn batch_answers_do_not_depend_on_the_threads() {
    let markers = lock_markers();
    let lines: Vec<&str> = markers.lines().collect();
    assert!(lines.len() > 1000, "{}", lines.len());
    let dir = temp_dir();
    let simplify = |jobs: &str| {
        let r = run_in(
            &dir,
            &["simplify", "--theory", "platform", "--jobs", jobs, "-"],
            Some(&markers),
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        r.stdout()
    };
    let one = simplify("1");
    assert_eq!(one.lines().count(), lines.len());
    assert_eq!(simplify("2"), one);
    assert_eq!(simplify("5"), one);
    for k in [0, 1, 387, 700, lines.len() - 1] {
        run_in(&dir, &["simplify", "--theory", "platform", lines[k]], None)
            .expect(0, &format!("{}\n", one.lines().nth(k).unwrap()));
    }

    // Pairs of markers, with lines whose witnesses break an invariant (a warning each, naming
    // its cell) among them.
    let odd = r#""32-bit" in sys_abi_features and "64-bit" in sys_abi_features"#;
    let mut pairs = String::new();
    for (k, (a, b)) in lines.iter().zip(lines.iter().rev()).take(300).enumerate() {
        match k % 50 {
            7 => pairs.push_str(&format!("{odd}\tos_name == 'nt'\n")),
            31 => pairs.push_str(&format!("os_name == 'nt'\t{odd}\n")),
            _ => pairs.push_str(&format!("{a}\t{b}\n")),
        }
    }
    let compare = |jobs: &str| {
        let r = run_in(
            &dir,
            &[
                "compare",
                "--dialect",
                "extended",
                "--json",
                "--jobs",
                jobs,
                "-",
            ],
            Some(&pairs),
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        (r.stdout(), r.stderr())
    };
    let (out, err) = compare("1");
    assert_eq!(out.lines().count(), 300);
    let cells: Vec<&str> = err
        .lines()
        .map(|l| {
            assert!(l.starts_with("warning[witness-breaks-invariant]"), "{l}");
            l.split('`').nth(1).unwrap()
        })
        .collect();
    // Lines 7, 57, …: `a_and_b` and `a_not_b` hold only where the invariant breaks; lines 31,
    // 81, …: `a_and_b` and `b_not_a`.
    assert_eq!(cells.len(), 24, "{err}");
    for pair in cells.chunks(4) {
        assert_eq!(pair, ["a_and_b", "a_not_b", "a_and_b", "b_not_a"], "{err}");
    }
    assert_eq!(compare("3"), (out.clone(), err.clone()));
    assert_eq!(compare("8"), (out, err));
}

/// A line that is not UTF-8, or longer than the limit, gets its error; the lines after it are
/// answered, blank and comment lines with an empty line.
#[test]
fn batch_errors_are_per_line() {
    let dir = temp_dir();
    let mut input: Vec<u8> = b"os_name == 'nt' or os_name == 'nt'\n\xff\xfe\n\n# note\n".to_vec();
    input.extend(std::iter::repeat_n(b'a', (1 << 20) + 10));
    input.extend(b"\nextra == 'a' and extra != 'a'\n");
    let r = run_bytes(&dir, &["simplify", "-"], Some(&input));
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    let got: Vec<&str> = out.lines().collect();
    assert_eq!(got.len(), 6, "{out}");
    assert_eq!(got[0], "os_name == \"nt\"");
    assert!(got[1].starts_with("error: I001"), "{out}");
    assert_eq!(&got[2..4], ["", ""]);
    assert!(got[4].starts_with("error: L001"), "{out}");
    assert_eq!(got[5], "false");
    let r = run_bytes(&dir, &["compare", "-"], Some(b"os_name == 'nt'\n\xff\tx\n"));
    r.expect(
        0,
        "error: expected `A<TAB>B`\nerror: I001 the line is not valid UTF-8 (byte 0)\n",
    );
}

/// Under `uv` the `platform_release` comparisons are opaque: the algebra cannot show
/// `>= "21.4"` without `>= "13.0"` empty, and no environment realises it. `compare --json`
/// keeps the relation and the other witnesses, gives that cell `null` and names it under
/// `unverified` (the whole line was once an error).
#[test]
fn compare_names_the_cells_no_environment_realises() {
    let (a, b) = ("platform_release >= '13.0'", "platform_release >= '21.4'");
    let r = run(&["compare", "--profile", "uv", "--json", a, b]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let out = r.stdout();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("overlapping"));
    let doc: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(doc["relation"], "overlapping");
    assert_eq!(doc["unverified"], serde_json::json!(["b_not_a"]));
    assert!(doc["witnesses"]["b_not_a"].is_null());
    let dir = temp_dir();
    for (cell, holds_a, holds_b) in [
        ("a_and_b", "true", "true"),
        ("a_not_b", "true", "false"),
        ("neither", "false", "false"),
    ] {
        let env = dir.join(format!("{cell}.json"));
        std::fs::write(&env, doc["witnesses"][cell].to_string()).unwrap();
        let p = env.to_str().unwrap();
        for (m, want) in [(a, holds_a), (b, holds_b)] {
            let e = run_in(&dir, &["eval", "--profile", "uv", "--env", p, m], None);
            assert_eq!(e.stdout().trim(), want, "{cell}: {m}\n{}", e.stderr());
        }
    }
    assert!(
        r.stderr().starts_with("warning[unverified-witness]") && r.stderr().contains("`b_not_a`"),
        "{}",
        r.stderr()
    );
    // Without `--json` no witness is looked for, and nothing is said.
    let r = run(&["compare", "--profile", "uv", a, b]);
    r.expect(0, "overlapping\n");
    assert_eq!(r.stderr(), "");
    // Batch mode answers the line in full, the warning on stderr.
    let r = run_in(
        &dir,
        &["compare", "--profile", "uv", "--json", "-"],
        Some(&format!("{a}\t{b}\n")),
    );
    assert_eq!(r.code(), 0);
    assert!(
        r.stdout().contains(r#""unverified":["b_not_a"]"#),
        "{}",
        r.stdout()
    );
    assert_eq!(r.stderr().lines().count(), 1, "{}", r.stderr());
}

#[test]
fn a_reader_that_goes_away_ends_the_batch_quietly_and_a_broken_input_is_an_error() {
    use std::io::BufRead;
    // `markerspec simplify - | head -1`: the answers stop when the reader goes away, and
    // that is no error.
    let dir = temp_dir();
    let mut child = common::spawn_piped(&dir, &["simplify", "-"]);
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for _ in 0..1_000_000 {
            if pipe.write_all(b"os_name == 'nt'\n").is_err() {
                break;
            }
        }
    });
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // (The reader is dropped: the pipe is closed.)
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(first, "os_name == \"nt\"\n");
    assert!(
        out.status.success(),
        "exit {:?}, stderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");

    // Input that cannot be read (a folder) is an error, said on stderr.
    let folder = std::fs::File::open(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_markerspec"))
        .args(["simplify", "-"])
        .current_dir(&dir)
        .env_clear()
        .stdin(folder)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "stderr:\n{err}");
    assert!(err.contains("cannot answer stdin"), "stderr:\n{err}");
}
