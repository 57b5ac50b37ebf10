//! Builds the fake driver libraries of `tests/fake/` once per test binary, with the system C
//! compiler, into a folder under `CARGO_TARGET_TMPDIR`.

#![allow(dead_code)] // each test binary uses its own part

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use markerspec_gpu::Detector;

/// The built fakes.
pub struct Fakes {
    pub dir: PathBuf,
    /// NVML with `_v2` entry points.
    pub nvml: PathBuf,
    /// NVML with only the original entry points.
    pub nvml_v1: PathBuf,
    /// NVML without `nvmlDeviceGetCount`: a required symbol missing.
    pub nvml_no_count: PathBuf,
    /// NVML whose default mode (no variable set) is `zero`, for in-process tests.
    pub nvml_zero: PathBuf,
    pub cuda: PathBuf,
    pub cudnn: PathBuf,
    pub nccl: PathBuf,
    pub cutensor: PathBuf,
    pub hip: PathBuf,
    /// A folder holding only the fake `nvidia-smi`.
    pub smi_dir: PathBuf,
    /// A folder holding the fake NVML and libcuda under their sonames, for loader searches.
    pub soname_dir: PathBuf,
}

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake")
        .join(name)
}

fn compile(source_file: &str, out: &Path, defines: &[&str]) -> Result<(), String> {
    let output = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(out)
        .arg(source(source_file))
        .args(defines)
        .output()
        .map_err(|e| format!("cc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cc {source_file} {defines:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Removes the folders earlier test runs left, once their process is gone.
fn remove_stale_folders() {
    let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix("fakes-")
            .or_else(|| name.strip_prefix("scratch-"));
        if let Some(pid) = pid {
            if pid != std::process::id().to_string() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

fn build() -> Result<Fakes, String> {
    remove_stale_folders();
    if let Err(error) = Command::new("cc").arg("--version").output() {
        return Err(format!("no C compiler (`cc --version`: {error})"));
    }
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fakes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let lib = |name: &str| dir.join("lib").join(name);
    let fakes = Fakes {
        nvml: lib("nvml/libnvidia-ml.so.1"),
        nvml_v1: lib("nvml-v1/libnvidia-ml.so.1"),
        nvml_no_count: lib("nvml-no-count/libnvidia-ml.so.1"),
        nvml_zero: lib("nvml-zero/libnvidia-ml.so.1"),
        cuda: lib("cuda/libcuda.so.1"),
        cudnn: lib("cudnn/libcudnn.so.9"),
        nccl: lib("nccl/libnccl.so.2"),
        cutensor: lib("cutensor/libcutensor.so.2"),
        hip: lib("hip/libamdhip64.so"),
        smi_dir: dir.join("smi"),
        soname_dir: dir.join("soname"),
        dir,
    };
    let jobs: Vec<(&str, &Path, Vec<&str>)> = vec![
        ("nvml.c", &fakes.nvml, vec![]),
        ("nvml.c", &fakes.nvml_v1, vec!["-DFAKE_NO_V2"]),
        ("nvml.c", &fakes.nvml_no_count, vec!["-DFAKE_NO_COUNT"]),
        (
            "nvml.c",
            &fakes.nvml_zero,
            vec!["-DFAKE_DEFAULT_MODE=\"zero\""],
        ),
        ("cuda.c", &fakes.cuda, vec![]),
        ("libs.c", &fakes.cudnn, vec!["-DFAKE_CUDNN"]),
        ("libs.c", &fakes.nccl, vec!["-DFAKE_NCCL"]),
        ("libs.c", &fakes.cutensor, vec!["-DFAKE_CUTENSOR"]),
        ("libs.c", &fakes.hip, vec!["-DFAKE_HIP"]),
    ];
    thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(src, out, defines)| {
                std::fs::create_dir_all(out.parent().unwrap()).unwrap();
                scope.spawn(move || compile(src, out, defines))
            })
            .collect();
        for handle in handles {
            handle.join().unwrap()?;
        }
        Ok::<(), String>(())
    })?;
    std::fs::create_dir_all(&fakes.smi_dir).unwrap();
    let smi = fakes.smi_dir.join("nvidia-smi");
    std::fs::copy(source("nvidia-smi"), &smi).unwrap();
    make_executable(&smi);
    std::fs::create_dir_all(&fakes.soname_dir).unwrap();
    std::fs::copy(&fakes.nvml, fakes.soname_dir.join("libnvidia-ml.so.1")).unwrap();
    std::fs::copy(&fakes.cuda, fakes.soname_dir.join("libcuda.so.1")).unwrap();
    Ok(fakes)
}

#[cfg(unix)]
pub fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
pub fn make_executable(_path: &Path) {}

/// The fakes, built once. A test that needs them fails when they cannot be built (no C
/// compiler): it must never pass without having run. CI has a compiler.
pub fn fakes() -> &'static Fakes {
    static FAKES: OnceLock<Result<Fakes, String>> = OnceLock::new();
    match FAKES.get_or_init(build) {
        Ok(fakes) => fakes,
        Err(error) => panic!(
            "not run: the fake driver libraries could not be built ({error}); install a C \
             compiler (`cc`) to run this test"
        ),
    }
}

/// Gets the fakes; fails the test when they cannot be built (see [`fakes`]). The name is
/// historical: nothing is skipped.
#[macro_export]
macro_rules! fakes_or_skip {
    () => {
        common::fakes()
    };
}

/// A fresh, empty folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("scratch-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub const PROBE: &str = env!("CARGO_BIN_EXE_markerspec-gpu-probe");

/// A hermetic detector: the probe binary, nothing searched, no caches, no optional libraries,
/// no ROCm. Tests add the fakes they want.
pub fn detector() -> Detector {
    Detector::new()
        .probe_program(PROBE)
        .search_system(false)
        .memory_cache(false)
        .optional_libraries(false)
        .rocm(false)
        .timeout(Duration::from_secs(20))
}
