//! The optional libraries probed from the target interpreter (SPEC 0.2 §8.10), against fake
//! `libcudnn.so.9` / `libnccl.so.2` / `libcutensor.so.2` built from
//! `crates/gpu/tests/fake/libs.c`, laid out as a virtual environment's `site-packages`, a
//! folder on `LD_LIBRARY_PATH` and a CUDA toolkit, with this machine's Python as the target.

#![cfg(target_os = "linux")]

use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use markerspec_env::{EnvironmentProvider, Facts, LIBRARY_FIELDS, LibraryProvider, PythonProvider};
use markerspec_pep508::{EnvValue, Field};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

struct Fixture {
    /// A virtual environment whose `site-packages` holds `nvidia/cudnn/lib/libcudnn.so.9`, as
    /// `pip install nvidia-cudnn-cu12` lays it out.
    venv_python: PathBuf,
    /// A folder with `libcudnn.so.9` and `libnccl.so.2`, for `LD_LIBRARY_PATH`.
    ld_dir: PathBuf,
    /// A CUDA toolkit with `lib64/libcutensor.so.2` and `lib64/libcudnn.so.9` (cuDNN 8.9.7).
    cuda_home: PathBuf,
}

fn cc(source: &str, out: &Path, defines: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpu/tests/fake")
        .join(source);
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(out)
        .arg(&src)
        .args(defines)
        .status()
        .map_err(|e| format!("cc: {e}"))?;
    status
        .success()
        .then_some(())
        .ok_or_else(|| format!("cc {source} failed"))
}

fn build() -> Result<Fixture, String> {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("target-libs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // The real interpreter behind `python3` (a shim, say), then a virtual environment of it.
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    let python = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if python.is_empty() {
        return Err("python3 did not name its executable".into());
    }
    let venv = root.join("venv");
    let status = Command::new(&python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .map_err(|e| format!("venv: {e}"))?;
    if !status.success() {
        return Err("python3 -m venv failed".into());
    }
    let site = Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ])
        .output()
        .map_err(|e| format!("venv python: {e}"))?;
    let site = PathBuf::from(String::from_utf8_lossy(&site.stdout).trim());
    cc(
        "libs.c",
        &site.join("nvidia/cudnn/lib/libcudnn.so.9"),
        &["-DFAKE_CUDNN"],
    )?;
    let ld_dir = root.join("ld");
    cc("libs.c", &ld_dir.join("libcudnn.so.9"), &["-DFAKE_CUDNN"])?;
    cc("libs.c", &ld_dir.join("libnccl.so.2"), &["-DFAKE_NCCL"])?;
    let cuda_home = root.join("cuda");
    cc(
        "libs.c",
        &cuda_home.join("lib64/libcutensor.so.2"),
        &["-DFAKE_CUTENSOR"],
    )?;
    // cuDNN 8.9.7 without cudnnGetCudartVersion, as old cuDNN builds.
    cc(
        "libs.c",
        &cuda_home.join("lib64/libcudnn.so.9"),
        &[
            "-DFAKE_CUDNN",
            "-DFAKE_CUDNN_NO_CUDART",
            "-DFAKE_DEFAULT_CUDNN=8907",
        ],
    )?;
    Ok(Fixture {
        venv_python: venv.join("bin/python"),
        ld_dir,
        cuda_home,
    })
}

/// The fixture, built once; a test that needs it fails when it cannot be built (no C compiler,
/// no `python3` with `venv`), never passes without having run.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Result<Fixture, String>> = OnceLock::new();
    match FIXTURE.get_or_init(build) {
        Ok(f) => f,
        Err(e) => panic!("not run: the fixture could not be built ({e}); needs `cc` and python3"),
    }
}

fn probe(vars: &[(&str, &str)]) -> Facts {
    let f = fixture();
    let mut all = vec![("PATH", PATH)];
    all.extend_from_slice(vars);
    LibraryProvider::new(PythonProvider::with_program(&f.venv_python))
        .vars(all)
        .provide(LIBRARY_FIELDS.into_iter().collect())
        .unwrap()
}

/// Fails, saying the test was not run, when this machine's own loader finds a cuDNN.
fn require_no_system_libraries() {
    let facts = probe(&[]);
    for field in LIBRARY_FIELDS {
        if let Some(EnvValue::String(v)) = facts.value(field) {
            panic!("not run: this machine has a system library for `{field}` ({v})");
        }
    }
}

#[test]
fn the_target_site_packages_is_not_searched() {
    require_no_system_libraries();
    // SPEC §8.10 (B.6): the wheel the marker guards is in site-packages; finding it there
    // would flip the marker once it is installed.
    let facts = probe(&[]);
    assert_eq!(facts.value(Field::CudnnVersion), Some(&EnvValue::Absent));
    assert_eq!(
        facts.value(Field::CudnnCudaVersion),
        Some(&EnvValue::Absent)
    );
    assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
    let p = &facts.get(Field::CudnnVersion).unwrap().provenance;
    assert_eq!(p.layer(), "libraries");
    assert!(p.method().contains("venv/bin/python"), "{p}");
    assert!(p.detail().unwrap().contains("libcudnn.so.9"), "{p}");
}

#[test]
fn ld_library_path_is_searched_with_a_warning() {
    require_no_system_libraries();
    let f = fixture();
    let facts = probe(&[("LD_LIBRARY_PATH", f.ld_dir.to_str().unwrap())]);
    assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
    assert_eq!(facts.string(Field::CudnnCudaVersion), Some("12.2"));
    assert_eq!(facts.string(Field::NcclVersion), Some("2.21.5"));
    let detail = facts
        .get(Field::CudnnVersion)
        .unwrap()
        .provenance
        .detail()
        .unwrap()
        .to_owned();
    assert!(
        detail.contains(&f.ld_dir.join("libcudnn.so.9").display().to_string()),
        "{detail}"
    );
    assert!(
        facts
            .warnings()
            .iter()
            .any(|w| w.starts_with("cuDNN was found through LD_LIBRARY_PATH")),
        "{:?}",
        facts.warnings()
    );
}

/// `to` as a path relative to this process's current folder.
fn relative_to_cwd(to: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap();
    let (a, b): (Vec<Component>, Vec<Component>) =
        (cwd.components().collect(), to.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    out
}

#[test]
fn empty_and_relative_loader_entries_are_dropped() {
    require_no_system_libraries();
    let f = fixture();
    // The probe runs in this process's current folder; a relative entry naming the fakes from
    // here, or an empty entry (the current folder to glibc), must find nothing.
    let relative = relative_to_cwd(&f.ld_dir);
    assert!(
        std::env::current_dir()
            .unwrap()
            .join(&relative)
            .join("libcudnn.so.9")
            .is_file(),
        "the relative entry names the fakes"
    );
    let list = format!(":{}:.", relative.display());
    let facts = probe(&[("LD_LIBRARY_PATH", &list)]);
    assert_eq!(facts.value(Field::CudnnVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::NcclVersion), Some(&EnvValue::Absent));
}

#[test]
fn cuda_home_is_searched_after_the_loader() {
    require_no_system_libraries();
    let f = fixture();
    let home = f.cuda_home.to_str().unwrap();
    let facts = probe(&[("CUDA_HOME", home)]);
    assert_eq!(facts.string(Field::CutensorVersion), Some("2.0.1"));
    let p = &facts.get(Field::CutensorVersion).unwrap().provenance;
    assert!(p.detail().unwrap().contains("through CUDA_HOME"), "{p}");
    // The toolkit's old cuDNN does not say which CUDA it was built for: Unknown.
    assert_eq!(facts.string(Field::CudnnVersion), Some("8.9.7"));
    assert_eq!(
        facts.value(Field::CudnnCudaVersion),
        Some(&EnvValue::Unknown)
    );
    // The loader first: with LD_LIBRARY_PATH too, its cuDNN 9 wins over the toolkit's.
    let facts = probe(&[
        ("CUDA_HOME", home),
        ("LD_LIBRARY_PATH", f.ld_dir.to_str().unwrap()),
    ]);
    assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
    // CUDA_PATH is read the same way; a relative one is not.
    let facts = probe(&[("CUDA_PATH", home)]);
    assert_eq!(facts.string(Field::CutensorVersion), Some("2.0.1"));
    let relative = relative_to_cwd(&f.cuda_home);
    let facts = probe(&[("CUDA_PATH", relative.to_str().unwrap())]);
    assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
}

#[test]
fn without_a_target_interpreter_the_libraries_are_unknown() {
    let facts = LibraryProvider::new(PythonProvider::with_program("/nonexistent/python3"))
        .provide(LIBRARY_FIELDS.into_iter().collect())
        .unwrap();
    for field in LIBRARY_FIELDS {
        let fact = facts.get(field).unwrap();
        assert_eq!(fact.value, EnvValue::Unknown, "{field}");
        assert!(
            fact.provenance
                .detail()
                .unwrap()
                .contains("/nonexistent/python3")
        );
    }
}
