//! The cuda provider against `markerspec-gpu`'s fake driver libraries (built from
//! `crates/gpu/tests/fake/*.c` with the system C compiler), detecting in process: the real
//! loading code and the real mapping, without a GPU.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use markerspec_env::{CudaProvider, EnvironmentProvider, Facts, fact_fields};
use markerspec_gpu::Detector;
use markerspec_pep508::{EnvValue, Field};

struct Fakes {
    nvml: PathBuf,
    nvml_zero: PathBuf,
    cudnn: PathBuf,
    nccl: PathBuf,
}

fn compile(dir: &Path, source: &str, out: &str, defines: &[&str]) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpu/tests/fake")
        .join(source);
    let out = dir.join(out);
    std::fs::create_dir_all(out.parent()?).ok()?;
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&out)
        .arg(&src)
        .args(defines)
        .status()
        .ok()?;
    status.success().then_some(out)
}

/// The fakes, built once; a test that needs them fails when they cannot be built (no C
/// compiler), never passes without having run. CI has a compiler.
fn fakes() -> &'static Fakes {
    static FAKES: OnceLock<Option<Fakes>> = OnceLock::new();
    let fakes = FAKES
        .get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("env-fakes-{}", std::process::id()));
            Some(Fakes {
                nvml: compile(&dir, "nvml.c", "nvml/libnvidia-ml.so.1", &[])?,
                nvml_zero: compile(
                    &dir,
                    "nvml.c",
                    "nvml-zero/libnvidia-ml.so.1",
                    &["-DFAKE_DEFAULT_MODE=\"zero\""],
                )?,
                cudnn: compile(&dir, "libs.c", "cudnn/libcudnn.so.9", &["-DFAKE_CUDNN"])?,
                nccl: compile(&dir, "libs.c", "nccl/libnccl.so.2", &["-DFAKE_NCCL"])?,
            })
        })
        .as_ref();
    fakes.expect(
        "not run: the fake driver libraries could not be built; install a C compiler (`cc`)",
    )
}

/// A hermetic detector: only the given libraries, in process, no cache, no ROCm probe.
fn detector() -> Detector {
    Detector::new()
        .search_system(false)
        .memory_cache(false)
        .rocm(false)
}

fn provide(provider: CudaProvider) -> Facts {
    let none = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-folder");
    provider
        .in_process(true)
        .kfd_topology(&none)
        .rocm_path(&none)
        .provide(fact_fields())
        .unwrap()
}

fn set(items: &[&str]) -> Option<EnvValue> {
    Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
}

#[test]
fn a_two_gpu_box_with_cudnn_and_nccl() {
    let f = fakes();
    let facts = provide(CudaProvider::with_detector(
        detector()
            .nvml_library(&f.nvml)
            .cudnn_library(&f.cudnn)
            .nccl_library(&f.nccl),
    ));
    assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
    assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
    assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("550.144.03"));
    assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.0"));
    assert_eq!(
        facts.value(Field::CudaComputeCapabilities),
        set(&["8.0", "9.0"]).as_ref()
    );
    assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
    assert_eq!(facts.string(Field::NcclVersion), Some("2.21.5"));
    assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::RocmVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
    let p = &facts.get(Field::CudaVersion).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("cuda", "nvml"));
}

#[test]
fn a_library_that_loads_but_cannot_tell_is_unknown() {
    let f = fakes();
    // The NCCL fake has no `cudnnGetVersion`.
    let facts = provide(CudaProvider::with_detector(
        detector().nvml_library(&f.nvml).cudnn_library(&f.nccl),
    ));
    let cudnn = facts.get(Field::CudnnVersion).unwrap();
    assert_eq!(cudnn.value, EnvValue::Unknown);
    assert!(
        cudnn
            .provenance
            .detail()
            .unwrap()
            .contains("cudnnGetVersion"),
        "{:?}",
        cudnn.provenance
    );
}

#[test]
fn zero_devices_keep_the_driver_facts() {
    let f = fakes();
    let facts = provide(CudaProvider::with_detector(
        detector().nvml_library(&f.nvml_zero),
    ));
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
    assert_eq!(
        facts.value(Field::CudaComputeCapability),
        Some(&EnvValue::Absent)
    );
}

#[test]
fn visible_devices_select_by_uuid_or_hide_everything() {
    let f = fakes();
    let facts = provide(
        CudaProvider::with_detector(detector().nvml_library(&f.nvml))
            .vars([("CUDA_VISIBLE_DEVICES", "GPU-00000001")]),
    );
    assert_eq!(
        facts.value(Field::CudaComputeCapabilities),
        set(&["9.0"]).as_ref()
    );
    assert_eq!(facts.string(Field::CudaComputeCapability), Some("9.0"));

    let facts = provide(
        CudaProvider::with_detector(detector().nvml_library(&f.nvml))
            .vars([("CUDA_VISIBLE_DEVICES", "")]),
    );
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
}

#[test]
fn no_driver_at_all_is_absent() {
    let facts = provide(CudaProvider::with_detector(
        detector().nvml_library("/nonexistent/libnvidia-ml.so.1"),
    ));
    for field in markerspec_env::GPU_FIELDS {
        assert_eq!(facts.value(field), Some(&EnvValue::Absent), "{field}");
    }
}
