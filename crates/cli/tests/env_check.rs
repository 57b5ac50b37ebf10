//! `markerspec env` and `markerspec check`: the real binary in a fresh temporary folder with a
//! controlled environment, including detection against the fake NVIDIA libraries of
//! `crates/gpu/tests/fake` (built here with the system C compiler).

mod common;

use common::Scratch;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use common::Run;

impl Run {
    #[track_caller]
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout()).unwrap_or_else(|e| {
            panic!(
                "command: {}\nstdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.cmd,
                self.stdout(),
                self.stderr()
            )
        })
    }
}

fn temp_dir(name: &str) -> Scratch {
    Scratch::new(&format!("env-check-{name}"))
}

/// The system's `PATH` folders only (no pyenv shims, no user folders).
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Runs the binary in `dir` with exactly `vars` as its environment.
fn run_in(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_markerspec"));
    cmd.args(args).current_dir(dir).env_clear();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = cmd.output().unwrap();
    Run {
        out,
        cmd: format!("{vars:?} markerspec {args:?}"),
    }
}

/// Runs the binary in a folder of its own (tests run in parallel).
fn run(args: &[&str], vars: &[(&str, &str)]) -> Run {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    run_in(&temp_dir(&format!("run-{n}")), args, vars)
}

/// Whether this machine has a real NVIDIA driver loaded (then "no GPU" cannot be asserted).
fn real_nvidia_driver() -> bool {
    Path::new("/proc/driver/nvidia/version").exists()
}

/// Fails a test that cannot be run on a machine with a real NVIDIA driver (the real driver
/// would answer instead of the fake): it must not pass without having run.
#[track_caller]
fn require_no_real_driver() {
    assert!(
        !real_nvidia_driver(),
        "not run: a real NVIDIA driver is loaded here, so this test cannot observe the fake \
         (run it on a machine without one)"
    );
}

// ---- markerspec env --------------------------------------------------------------------------

#[test]
fn env_detects_this_machine_without_error() {
    let r = run(&["env", "--json"], &[("PATH", PATH)]);
    r.expect_code(0);
    let doc = r.json();
    let obj = doc.as_object().unwrap();
    // Every fact field is written (SPEC §11: producers write every field).
    for field in markerspec_env::fact_fields().iter() {
        assert!(obj.contains_key(field.name()), "{field} missing: {doc:#}");
    }
    assert!(!obj.contains_key("extra"));
    if cfg!(target_os = "linux") {
        assert_eq!(doc["os_name"], "posix");
        assert_eq!(doc["sys_platform"], "linux");
        assert_eq!(doc["platform_system"], "Linux");
    }
    if !real_nvidia_driver() {
        assert_eq!(doc["gpu_backends"], serde_json::json!([]), "{doc:#}");
        assert_eq!(doc["cuda_version"], "");
    }
    assert_eq!(doc["variant_label"], "");
}

#[test]
fn env_prints_a_table_with_provenance() {
    let r = run(&["env", "--no-gpu"], &[("PATH", PATH)]);
    r.expect_code(0);
    let out = r.stdout();
    assert!(out.starts_with("FIELD "), "{out}");
    // Every line fits 100 columns; a source that does not fit goes on the next line.
    for l in out.lines() {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    let lines: Vec<&str> = out.lines().collect();
    let line = |field: &str| {
        let i = lines
            .iter()
            .position(|l| l.starts_with(&format!("{field} ")))
            .unwrap_or_else(|| panic!("no {field} line in\n{out}"));
        match lines.get(i + 1) {
            Some(next) if next.starts_with(' ') => format!("{} {}", lines[i], next.trim()),
            _ => lines[i].to_owned(),
        }
    };
    assert!(line("gpu_backends").contains("unknown"), "{out}");
    assert!(line("gpu_backends").contains("--no-gpu"), "{out}");
    assert!(line("variant_label").contains("absent"), "{out}");
    assert!(line("platform_machine").contains(" ("), "{out}");
}

#[test]
fn env_json_loads_back_into_eval() {
    let dir = temp_dir("roundtrip");
    let r = run_in(&dir, &["env", "--json", "--no-gpu"], &[("PATH", PATH)]);
    r.expect_code(0);
    std::fs::write(dir.join("env.json"), r.stdout()).unwrap();
    let marker = if cfg!(target_os = "linux") {
        "sys_platform == 'linux' and variant_label == ''"
    } else {
        "variant_label == ''"
    };
    let r = run_in(
        &dir,
        &["eval", "--dialect", "extended", "--env", "env.json", marker],
        &[],
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
}

#[test]
fn env_shows_fixtures_with_provenance() {
    let name = "linux-x86_64-cpython-3.12-h100-cuda12.8";
    let r = run(&["env", "--json", "--fixture", name], &[]);
    r.expect_code(0);
    let doc = r.json();
    assert_eq!(doc["cuda_version"], "12.8");
    assert_eq!(doc["gpu_backends"], serde_json::json!(["cuda"]));

    let r = run(&["env", "--json", "--provenance", "--fixture", name], &[]);
    r.expect_code(0);
    let doc = r.json();
    assert_eq!(doc["environment"]["cudnn_version"], "9.7.1");
    assert_eq!(doc["provenance"]["cuda_version"]["layer"], "fixture");
    assert_eq!(doc["provenance"]["cuda_version"]["method"], name);

    // Overrides never apply to a fixture.
    let r = run(
        &["env", "--json", "--fixture", name],
        &[("MARKERSPEC_CUDA_VERSION", "11.8")],
    );
    assert_eq!(r.json()["cuda_version"], "12.8");

    let r = run(&["env", "--fixture", "nope"], &[]);
    r.expect_code(2);
    assert!(
        r.stderr().contains("unknown fixture `nope`"),
        "{}",
        r.stderr()
    );
}

#[test]
fn env_applies_override_variables() {
    let r = run(
        &["env", "--json", "--provenance", "--no-gpu"],
        &[
            ("PATH", PATH),
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
            ("MARKERSPEC_ROCM_GPU_ARCHS", "gfx90a, gfx942"),
            ("MARKERSPEC_INTERPRETER_ARCH", "AMD64"),
        ],
    );
    r.expect_code(0);
    let doc = r.json();
    assert_eq!(doc["environment"]["cuda_version"], "12.4");
    assert_eq!(
        doc["environment"]["rocm_gpu_archs"],
        serde_json::json!(["gfx90a", "gfx942"])
    );
    assert_eq!(doc["environment"]["interpreter_arch"], "x86_64");
    assert_eq!(
        doc["provenance"]["cuda_version"]["method"],
        "MARKERSPEC_CUDA_VERSION"
    );
    // GPU detection was off: gpu_backends stays Unknown despite the coupling.
    assert_eq!(doc["environment"]["gpu_backends"], Value::Null);

    // An empty variable is Absent.
    let r = run(
        &["env", "--json", "--no-gpu"],
        &[("PATH", PATH), ("MARKERSPEC_CUDNN_VERSION", "")],
    );
    assert_eq!(r.json()["cudnn_version"], "");
}

#[test]
fn conda_override_cuda_makes_a_gpu_less_node_a_cuda_machine() {
    require_no_real_driver();
    let r = run(
        &["env", "--json"],
        &[("PATH", PATH), ("CONDA_OVERRIDE_CUDA", "12.4")],
    );
    r.expect_code(0);
    let doc = r.json();
    assert_eq!(doc["cuda_version"], "12.4");
    assert_eq!(doc["gpu_backends"], serde_json::json!(["cuda"]));
}

#[test]
fn an_invalid_override_names_the_variable() {
    let r = run(
        &["env", "--no-gpu"],
        &[("PATH", PATH), ("MARKERSPEC_CUDA_VERSION", "twelve")],
    );
    r.expect_code(2);
    assert_eq!(r.stdout(), "");
    let err = r.stderr();
    assert!(err.contains("MARKERSPEC_CUDA_VERSION"), "{err}");
    assert!(err.contains("invalid-override"), "{err}");
}

#[test]
fn a_missing_interpreter_is_a_clear_error() {
    let r = run(
        &["env", "--no-gpu", "--python", "/nonexistent/python3"],
        &[("PATH", PATH)],
    );
    r.expect_code(2);
    assert!(
        r.stderr().contains("/nonexistent/python3"),
        "{}",
        r.stderr()
    );

    // Without --python and without python3 on PATH: Unknown interpreter fields, a warning,
    // and no error.
    let r = run(&["env", "--json", "--no-gpu"], &[("PATH", "/nonexistent")]);
    r.expect_code(0);
    assert_eq!(r.json()["python_version"], Value::Null);
    assert!(r.stderr().contains("warning"), "{}", r.stderr());
}

#[test]
fn eval_without_an_environment_uses_this_machine() {
    let r = run(
        &["eval", "--dialect", "extended", "variant_label == ''"],
        &[("PATH", PATH)],
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
    if !real_nvidia_driver() {
        let r = run(
            &["eval", "--dialect", "extended", "'cuda' in gpu_backends"],
            &[("PATH", PATH)],
        );
        r.expect_code(1);
        assert_eq!(r.stdout(), "false\n");
    }
}

// ---- the fake NVIDIA driver ------------------------------------------------------------------

struct Fakes {
    /// A folder with the fake NVML under its soname: a two-GPU box (8.0 and 9.0).
    normal: PathBuf,
    /// The same, but `nvmlDeviceGetCount` never returns.
    hang: PathBuf,
    /// The same, but a call crashes the process.
    crash: PathBuf,
}

/// The fakes, built once; a test that needs them fails when they cannot be built (no C
/// compiler), never passes without having run. CI has a compiler.
fn fakes() -> &'static Fakes {
    static FAKES: OnceLock<Option<Fakes>> = OnceLock::new();
    let fakes = FAKES
        .get_or_init(|| {
            let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("cli-fakes-{}", std::process::id()));
            let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu/tests/fake/nvml.c");
            let build = |mode: &str| -> Option<PathBuf> {
                let dir = root.join(mode);
                std::fs::create_dir_all(&dir).ok()?;
                let status = Command::new("cc")
                    .args(["-shared", "-fPIC", "-O1", "-o"])
                    .arg(dir.join("libnvidia-ml.so.1"))
                    .arg(&source)
                    .arg(format!("-DFAKE_DEFAULT_MODE=\"{mode}\""))
                    .status()
                    .ok()?;
                status.success().then_some(dir)
            };
            // The normal box has the driver API too: the CUDA version is libcuda's alone
            // (SPEC 0.2 §8.6).
            let normal = build("normal")?;
            let cuda = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu/tests/fake/cuda.c");
            let status = Command::new("cc")
                .args(["-shared", "-fPIC", "-O1", "-o"])
                .arg(normal.join("libcuda.so.1"))
                .arg(&cuda)
                .status()
                .ok()?;
            status.success().then_some(())?;
            Some(Fakes {
                normal,
                hang: build("hang")?,
                crash: build("crash")?,
            })
        })
        .as_ref();
    fakes.expect("not run: the fake NVML could not be built; install a C compiler (`cc`)")
}

fn env_with_library_path(dir: &Path, extra: &[&str]) -> Run {
    let lib = dir.to_str().unwrap();
    let mut args = vec!["env", "--json", "--provenance"];
    args.extend_from_slice(extra);
    run(&args, &[("PATH", PATH), ("LD_LIBRARY_PATH", lib)])
}

#[cfg(target_os = "linux")]
#[test]
fn env_reports_the_fake_two_gpu_box() {
    let f = fakes();
    require_no_real_driver();
    let r = env_with_library_path(&f.normal, &[]);
    r.expect_code(0);
    let doc = r.json();
    let env = &doc["environment"];
    assert_eq!(env["gpu_backends"], serde_json::json!(["cuda"]), "{doc:#}");
    assert_eq!(env["cuda_version"], "12.4");
    // SPEC 0.2 §8.7: on Linux the driver's version is the loaded kernel module's, read from
    // /sys and /proc, not NVML's; this machine has no NVIDIA module (checked above).
    assert_eq!(env["nvidia_driver_version"], "");
    assert_eq!(env["cuda_compute_capability"], "8.0");
    assert_eq!(env["cuda_compute_capability_max"], "9.0");
    assert_eq!(
        env["cuda_compute_capabilities"],
        serde_json::json!(["8.0", "9.0"])
    );
    assert_eq!(env["cudnn_version"], "");
    assert_eq!(doc["provenance"]["cuda_version"]["method"], "libcuda");
    assert_eq!(
        doc["provenance"]["cuda_compute_capability"]["method"],
        "nvml"
    );

    // The same machine through `eval` and `check`.
    let r = run(
        &[
            "eval",
            "--dialect",
            "extended",
            "'cuda' in gpu_backends and cuda_compute_capability >= '8.0'",
        ],
        &[
            ("PATH", PATH),
            ("LD_LIBRARY_PATH", f.normal.to_str().unwrap()),
        ],
    );
    r.expect_code(0);
}

/// A `markerspec-gpu-probe` left beside the program by an older install answers in another
/// reply schema: the program probes with itself instead, and the answer is the machine's.
#[cfg(target_os = "linux")]
#[test]
fn a_stale_probe_beside_the_program_is_replaced_by_the_program_itself() {
    use std::os::unix::fs::PermissionsExt;
    let f = fakes();
    require_no_real_driver();
    let dir = temp_dir("stale-probe");
    let bin = dir.join("markerspec");
    std::fs::copy(env!("CARGO_BIN_EXE_markerspec"), &bin).unwrap();
    let probe = dir.join("markerspec-gpu-probe");
    std::fs::write(
        &probe,
        "#!/bin/sh\necho '{\"markerspec_gpu_probe\":3,\"vendors\":[]}'\n",
    )
    .unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = loop {
        let mut cmd = Command::new(&bin);
        cmd.args(["env", "--json", "--provenance"])
            .current_dir(&dir)
            .env_clear()
            .env("PATH", PATH)
            .env("LD_LIBRARY_PATH", &f.normal)
            .stdin(Stdio::null());
        match cmd.output() {
            // A file just written can still be open in a child another test thread forked.
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("schema"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let env = &doc["environment"];
    assert_eq!(env["gpu_backends"], serde_json::json!(["cuda"]), "{doc:#}");
    assert_eq!(env["cuda_version"], "12.4");
}

#[cfg(target_os = "linux")]
#[test]
fn a_hanging_or_crashing_driver_is_unknown_and_the_command_lives_on() {
    let f = fakes();
    let started = Instant::now();
    let r = env_with_library_path(&f.hang, &["--timeout", "1"]);
    r.expect_code(0);
    assert!(started.elapsed() < Duration::from_secs(30));
    let doc = r.json();
    for field in ["gpu_backends", "cuda_version", "cuda_compute_capability"] {
        assert_eq!(doc["environment"][field], Value::Null, "{field}: {doc:#}");
    }
    let why = doc["provenance"]["cuda_version"]["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(why.contains("timed out"), "{why}");
    // Host and interpreter facts are still known.
    assert_ne!(doc["environment"]["os_name"], Value::Null);

    let r = env_with_library_path(&f.crash, &[]);
    r.expect_code(0);
    let doc = r.json();
    assert_eq!(doc["environment"]["cuda_version"], Value::Null, "{doc:#}");
    let why = doc["provenance"]["cuda_version"]["detail"]
        .as_str()
        .unwrap();
    assert!(why.contains("crashed") || why.contains("signal"), "{why}");
}

// ---- markerspec check ------------------------------------------------------------------------

const FIXTURE: &[&str] = &["--fixture", "linux-x86_64-cpython-3.12"];

fn check(dir: &Path, file: &str, extra: &[&str]) -> Run {
    let mut args = vec!["check"];
    args.extend_from_slice(FIXTURE);
    args.extend_from_slice(extra);
    args.push(file);
    run_in(dir, &args, &[])
}

#[test]
fn check_a_requirements_file() {
    let dir = temp_dir("check-req");
    std::fs::write(
        dir.join("requirements.txt"),
        "# pinned\n--index-url https://example.org/simple\n\
         numpy>=2 ; python_version >= '3.10'  # new numpy\n\
         pywin32 ; sys_platform == 'win32'\n\
         torch \\\n    ; platform_machine == 'x86_64'\n\
         requests==2.32.3 --hash=sha256:0123\n",
    )
    .unwrap();
    let r = check(&dir, "requirements.txt", &[]);
    r.expect_code(0);
    assert_eq!(
        r.stdout(),
        "requirements.txt:2  skipped  --index-url https://example.org/simple  (the pip option `--index-url`: not a requirement)\n\
         requirements.txt:3  true     numpy>=2; python_version >= \"3.10\"\n\
         requirements.txt:4  false    pywin32; sys_platform == \"win32\"\n\
         requirements.txt:5  true     torch; platform_machine == \"x86_64\"\n\
         requirements.txt:7  true     requests==2.32.3\n\
         4 requirement(s): 3 apply, 1 do not, 0 unknown, 0 invalid; 1 line(s) not evaluated\n"
    );
}

#[test]
fn check_reports_invalid_lines_with_their_line_and_carets() {
    let dir = temp_dir("check-invalid");
    std::fs::write(
        dir.join("requirements.txt"),
        "numpy\n\nscipy ; python_versoin >= '3'\ntorch ; 'cuda' in gpu_backends\n",
    )
    .unwrap();
    let r = check(&dir, "requirements.txt", &[]);
    r.expect_code(2);
    let err = r.stderr();
    assert!(
        err.contains(
            "requirements.txt:3: error[M002]: unknown marker variable `python_versoin`\n  |\n\
             3 | scipy ; python_versoin >= '3'\n  |         ^^^^^^^^^^^^^^\n"
        ),
        "{err}"
    );
    assert!(err.contains("requirements.txt:4: error[M003]"), "{err}");
    assert!(r.stdout().contains("requirements.txt:3  invalid  scipy"));
    assert!(r.stdout().ends_with(
        "3 requirement(s): 1 apply, 0 do not, 0 unknown, 2 invalid; 0 line(s) not evaluated\n"
    ));

    // The extended dialect reads the GPU line; the fixture has no GPU facts, so it is unknown.
    std::fs::write(
        dir.join("gpu.txt"),
        "torch ; 'cuda' in gpu_backends\ncupy ; 'cuda' in gpu_backends or sys_platform == 'linux'\n",
    )
    .unwrap();
    let r = check(&dir, "gpu.txt", &["--dialect", "extended"]);
    r.expect_code(0);
    assert!(
        r.stdout()
            .contains("gpu.txt:1  unknown (gpu_backends)  torch; \"cuda\" in gpu_backends"),
        "{}",
        r.stdout()
    );
    assert!(r.stdout().contains("gpu.txt:2  true"), "{}", r.stdout());
}

#[test]
fn check_a_pyproject() {
    let dir = temp_dir("check-pyproject");
    std::fs::write(
        dir.join("pyproject.toml"),
        r#"[project]
name = "demo"
dependencies = [
    "numpy>=2",
    "pywin32; sys_platform == 'win32'",
]

[project.optional-dependencies]
gpu = ["cupy-cuda12x; extra == 'gpu'"]

[dependency-groups]
test = ["pytest>=8", {include-group = "lint"}]
lint = ["ruff; python_versoin >= '3'"]
"#,
    )
    .unwrap();
    let r = check(&dir, "pyproject.toml", &[]);
    r.expect_code(2);
    assert_eq!(
        r.stdout(),
        "pyproject.toml:4   true     numpy>=2\n\
         pyproject.toml:5   false    pywin32; sys_platform == \"win32\"\n\
         pyproject.toml:9   skipped  cupy-cuda12x; extra == 'gpu'  [extra: gpu]  (extra `gpu` not requested: --extra gpu or --all-extras)\n\
         pyproject.toml:12  true     pytest>=8  [group: test]\n\
         pyproject.toml:13  invalid  ruff; python_versoin >= '3'  [group: lint, included by test]\n\
         4 requirement(s): 2 apply, 1 do not, 0 unknown, 1 invalid; 1 line(s) not evaluated\n"
    );
    assert!(
        r.stderr()
            .contains("13 | lint = [\"ruff; python_versoin >= '3'\"]"),
        "{}",
        r.stderr()
    );

    for flags in [&["--extra", "GPU"][..], &["--all-extras"]] {
        let r = check(&dir, "pyproject.toml", flags);
        assert!(
            r.stdout().contains(
                "pyproject.toml:9   true     cupy-cuda12x; extra == \"gpu\"  [extra: gpu]\n"
            ),
            "{flags:?}: {}",
            r.stdout()
        );
    }

    std::fs::write(dir.join("broken.toml"), "[project\n").unwrap();
    let r = check(&dir, "broken.toml", &[]);
    r.expect_code(2);
    assert!(r.stderr().contains("broken.toml"), "{}", r.stderr());
}

#[test]
fn check_core_metadata() {
    let dir = temp_dir("check-metadata");
    std::fs::write(
        dir.join("METADATA"),
        "Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nRequires-Dist: numpy>=2\n\
         Requires-Dist: cupy-cuda12x; extra == 'gpu'\nProvides-Extra: gpu\n\nRequires-Dist: body\n",
    )
    .unwrap();
    let r = check(&dir, "METADATA", &[]);
    r.expect_code(0);
    assert_eq!(
        r.stdout(),
        "METADATA:4  true     numpy>=2\n\
         METADATA:5  false    cupy-cuda12x; extra == \"gpu\"\n\
         2 requirement(s): 1 apply, 1 do not, 0 unknown, 0 invalid; 0 line(s) not evaluated\n"
    );
    let r = check(&dir, "METADATA", &["--extra", "GPU"]);
    assert!(r.stdout().contains("METADATA:5  true"), "{}", r.stdout());

    let r = check(&dir, "missing.txt", &[]);
    r.expect_code(2);
    assert!(r.stderr().contains("missing.txt"), "{}", r.stderr());
}

// ---- --set: the derivations and invariants of SPEC §4.4 / §10.3 -------------------------------

const H100: &str = "linux-x86_64-cpython-3.12-h100-cuda12.8";

/// `markerspec eval --dialect extended --fixture H100 ARGS… MARKER`.
fn eval_h100(args: &[&str], marker: &str) -> Run {
    let mut all = vec!["eval", "--dialect", "extended", "--fixture", H100];
    all.extend_from_slice(args);
    all.push(marker);
    run(&all, &[])
}

#[test]
fn set_derives_the_fields_it_does_not_name() {
    // An Absent CUDA version takes `cuda` and the device fields with it, as
    // MARKERSPEC_CUDA_VERSION= does (§10.3).
    let r = eval_h100(
        &["--set", "cuda_version="],
        "\"cuda\" not in gpu_backends and cuda_compute_capability == \"\" and \
         \"9.0\" not in cuda_compute_capabilities",
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
    // Without the derivation the marker would be true on the fixture's GPU fields.
    let r = eval_h100(
        &[],
        "\"cuda\" in gpu_backends and \"9.0\" in cuda_compute_capabilities",
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
    // gpu_backends without cuda: cuda_version and the maximum are Absent.
    let r = eval_h100(
        &["--set", "gpu_backends="],
        "cuda_version == \"\" and cuda_compute_capability_max == \"\"",
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
    // The set gives the minimum and the maximum.
    let r = eval_h100(
        &["--set", "cuda_compute_capabilities=8.6,10.0"],
        "cuda_compute_capability == \"8.6\" and cuda_compute_capability_max == \"10.0\"",
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
    // A CUDA version on a GPU-less fixture adds the backend (the CONDA_OVERRIDE_CUDA workflow).
    let r = run(
        &[
            "eval",
            "--dialect",
            "extended",
            "--fixture",
            "linux-x86_64-cpython-3.10-laptop-no-gpu",
            "--set",
            "cuda_version=12.4",
            "\"cuda\" in gpu_backends and cuda_version >= \"12\"",
        ],
        &[],
    );
    r.expect_code(0);
    assert_eq!(r.stdout(), "true\n");
}

#[test]
fn set_breaking_an_invariant_is_the_same_coded_error_as_a_document() {
    let r = eval_h100(
        &["--set", "gpu_backends=", "--set", "cuda_version=12.4"],
        "os_name == \"posix\"",
    );
    r.expect_code(2);
    assert_eq!(r.stdout(), "");
    let err = r.stderr();
    assert!(
        err.contains("--set: invalid-override: I1 (SPEC §4.4)"),
        "{err}"
    );
    assert!(
        err.contains("`gpu_backends`") && err.contains("`cuda_version`"),
        "{err}"
    );
    // The same values in an environment document: the same invariant, coded for documents.
    let dir = temp_dir("set-invariant");
    std::fs::write(
        dir.join("env.json"),
        r#"{"$version": "0.2", "gpu_backends": [], "cuda_version": "12.4"}"#,
    )
    .unwrap();
    let r = run_in(
        &dir,
        &[
            "eval",
            "--dialect",
            "extended",
            "--env",
            "env.json",
            "os_name == \"posix\"",
        ],
        &[],
    );
    r.expect_code(2);
    assert!(r.stderr().contains("I1 (SPEC §4.4)"), "{}", r.stderr());
    // And as override variables: the same invariant, naming the variables.
    let r = run(
        &["env", "--no-gpu"],
        &[
            ("PATH", PATH),
            ("MARKERSPEC_GPU_BACKENDS", ""),
            ("MARKERSPEC_CUDA_VERSION", "12.4"),
        ],
    );
    r.expect_code(2);
    assert!(
        r.stderr().contains("invalid-override: I1 (SPEC §4.4)"),
        "{}",
        r.stderr()
    );
    // `check` builds its environments the same way.
    std::fs::write(dir.join("req.txt"), "torch ; \"cuda\" in gpu_backends\n").unwrap();
    let r = run_in(
        &dir,
        &[
            "check",
            "--dialect",
            "extended",
            "--fixture",
            H100,
            "--set",
            "cuda_compute_capabilities=8.6,9.0",
            "--set",
            "cuda_compute_capability=9.0",
            "req.txt",
        ],
        &[],
    );
    r.expect_code(2);
    assert!(
        r.stderr().contains("invalid-override: I2 (SPEC §4.4)"),
        "{}",
        r.stderr()
    );
}
