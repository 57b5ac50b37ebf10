//! The GPU provider against `markerspec-gpu`'s fake driver libraries (built from
//! `crates/gpu/tests/fake/*.c` with the system C compiler), detecting in process: the real
//! loading code and the real mapping, without a GPU.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use markerspec_env::{EnvironmentProvider, Facts, GpuProvider, fact_fields};
use markerspec_gpu::Detector;
use markerspec_pep508::{EnvValue, Field};

struct Fakes {
    nvml: PathBuf,
    cuda: PathBuf,
    nvml_zero: PathBuf,
    cudnn: PathBuf,
    cudnn_no_cudart: PathBuf,
    nccl: PathBuf,
    hip: PathBuf,
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
                cuda: compile(&dir, "cuda.c", "cuda/libcuda.so.1", &[])?,
                nvml_zero: compile(
                    &dir,
                    "nvml.c",
                    "nvml-zero/libnvidia-ml.so.1",
                    &["-DFAKE_DEFAULT_MODE=\"zero\""],
                )?,
                cudnn: compile(&dir, "libs.c", "cudnn/libcudnn.so.9", &["-DFAKE_CUDNN"])?,
                cudnn_no_cudart: compile(
                    &dir,
                    "libs.c",
                    "cudnn-old/libcudnn.so.9",
                    &["-DFAKE_CUDNN", "-DFAKE_CUDNN_NO_CUDART"],
                )?,
                nccl: compile(&dir, "libs.c", "nccl/libnccl.so.2", &["-DFAKE_NCCL"])?,
                hip: compile(&dir, "libs.c", "hip/libamdhip64.so", &["-DFAKE_HIP"])?,
            })
        })
        .as_ref();
    fakes.expect(
        "not run: the fake driver libraries could not be built; install a C compiler (`cc`)",
    )
}

/// A hermetic detector: only the given libraries, in process, no cache. The ROCm files are the
/// provider's, which [`provide`] points at a folder that does not exist.
fn detector() -> Detector {
    Detector::new().search_system(false).memory_cache(false)
}

fn provide(provider: GpuProvider) -> Facts {
    provide_with_module(provider, None)
}

/// As [`provide`], with `module` as `/sys/module/nvidia/version` (none by default).
fn provide_with_module(provider: GpuProvider, module: Option<&Path>) -> Facts {
    let none = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-folder");
    provider
        .in_process(true)
        .kfd_topology(&none)
        .rocm_path(&none)
        .nvidia_module_files(
            module.map_or_else(|| none.join("version"), Path::to_path_buf),
            none.join("proc-version"),
        )
        .provide(fact_fields())
        .unwrap()
}

/// A fake `/sys/module/nvidia/version`.
fn module_file(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("env-module-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("version");
    std::fs::write(&file, text).unwrap();
    file
}

fn set(items: &[&str]) -> Option<EnvValue> {
    Some(EnvValue::Set(items.iter().map(|s| (*s).into()).collect()))
}

#[test]
fn a_two_gpu_box_with_cudnn_and_nccl() {
    let f = fakes();
    let module = module_file("box", "550.144.03\n");
    let facts = provide_with_module(
        GpuProvider::with_detector(
            detector()
                .nvml_library(&f.nvml)
                .cuda_library(&f.cuda)
                .cudnn_library(&f.cudnn)
                .nccl_library(&f.nccl),
        ),
        Some(&module),
    );
    assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
    assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
    assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("550.144.03"));
    let p = &facts.get(Field::NvidiaDriverVersion).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("cuda", module.to_str().unwrap()));
    assert_eq!(facts.string(Field::CudaComputeCapability), Some("8.0"));
    assert_eq!(facts.string(Field::CudaComputeCapabilityMax), Some("9.0"));
    assert_eq!(facts.string(Field::CudnnCudaVersion), Some("12.2"));
    assert_eq!(
        facts.value(Field::CudaComputeCapabilities),
        set(&["8.0", "9.0"]).as_ref()
    );
    assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
    assert_eq!(facts.string(Field::NcclVersion), Some("2.21.5"));
    assert_eq!(facts.value(Field::CutensorVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::RocmVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
    // NVML listed the devices; the CUDA version is the driver API's (SPEC 0.2 §8.6).
    let p = &facts.get(Field::CudaVersion).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("cuda", "libcuda"));
    let p = &facts.get(Field::CudaComputeCapability).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("cuda", "nvml"));
    let p = &facts.get(Field::NcclVersion).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("cuda", "NCCL"));
    let p = &facts.get(Field::RocmVersion).unwrap().provenance;
    assert_eq!(p.layer(), "rocm", "AMD facts are recorded under ROCm: {p}");
    let p = &facts.get(Field::GpuBackends).unwrap().provenance;
    assert_eq!((p.layer(), p.method()), ("gpu", "probe"));
}

#[test]
fn a_library_that_loads_but_cannot_tell_is_unknown() {
    let f = fakes();
    // The NCCL fake has no `cudnnGetVersion`.
    let facts = provide(GpuProvider::with_detector(
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
fn zero_devices_make_cuda_absent_and_keep_the_driver() {
    let f = fakes();
    let module = module_file("zero", "550.144.03\n");
    let facts = provide_with_module(
        GpuProvider::with_detector(detector().nvml_library(&f.nvml_zero)),
        Some(&module),
    );
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    // SPEC 0.2 §8.6: no device, no `cuda_version` (invariant I1).
    assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Absent));
    assert_eq!(facts.string(Field::NvidiaDriverVersion), Some("550.144.03"));
    assert_eq!(
        facts.value(Field::CudaComputeCapability),
        Some(&EnvValue::Absent)
    );
    assert_eq!(
        facts.value(Field::CudaComputeCapabilityMax),
        Some(&EnvValue::Absent)
    );
}

#[test]
fn device_masks_do_not_hide_devices() {
    // SPEC 0.2 §8.5 (the child-process case is tests/device_masks.rs).
    let f = fakes();
    for mask in ["", "GPU-00000001", "1"] {
        let facts = provide(
            GpuProvider::with_detector(detector().nvml_library(&f.nvml).cuda_library(&f.cuda))
                .vars([("CUDA_VISIBLE_DEVICES", mask)]),
        );
        assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
        assert_eq!(
            facts.value(Field::CudaComputeCapabilities),
            set(&["8.0", "9.0"]).as_ref(),
            "{mask:?}"
        );
        assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
    }
}

#[test]
fn a_cudnn_that_does_not_say_its_cuda_is_unknown() {
    let f = fakes();
    let facts = provide(GpuProvider::with_detector(
        detector()
            .nvml_library(&f.nvml)
            .cudnn_library(&f.cudnn_no_cudart),
    ));
    assert_eq!(facts.string(Field::CudnnVersion), Some("9.1.0"));
    let cuda = facts.get(Field::CudnnCudaVersion).unwrap();
    assert_eq!(cuda.value, EnvValue::Unknown);
    assert!(
        cuda.provenance
            .detail()
            .unwrap()
            .contains("cudnnGetCudartVersion"),
        "{}",
        cuda.provenance
    );
}

#[test]
fn no_driver_at_all_is_absent() {
    let facts = provide(GpuProvider::with_detector(
        detector().nvml_library("/nonexistent/libnvidia-ml.so.1"),
    ));
    for field in markerspec_env::GPU_FIELDS {
        assert_eq!(facts.value(field), Some(&EnvValue::Absent), "{field}");
    }
}

/// A fake KFD topology, ROCm installation and device under one fresh folder.
fn rocm_tree(name: &str, nodes: &[(&str, &str)], release: Option<&str>) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("env-rocm-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (node, properties) in nodes {
        let node = dir.join("topology").join(node);
        std::fs::create_dir_all(&node).unwrap();
        std::fs::write(node.join("properties"), properties).unwrap();
    }
    std::fs::create_dir_all(dir.join("rocm/.info")).unwrap();
    if let Some(release) = release {
        std::fs::write(dir.join("rocm/.info/version"), release).unwrap();
    }
    // A regular file stands in for /dev/kfd: it opens for reading and writing.
    std::fs::write(dir.join("kfd"), "").unwrap();
    dir
}

fn rocm_provider(dir: &Path, detector: Detector) -> Facts {
    GpuProvider::with_detector(detector)
        .in_process(true)
        .kfd_topology(dir.join("topology"))
        .kfd_device(dir.join("kfd"))
        .rocm_path(dir.join("rocm"))
        .provide(fact_fields())
        .unwrap()
}

#[test]
fn a_rocm_machine_is_read_by_the_probe_and_recorded_under_rocm() {
    let dir = rocm_tree(
        "machine",
        &[
            ("0", "cpu_cores_count 16\ngfx_target_version 0\n"),
            ("1", "gfx_target_version 90010\nunique_id 1\n"),
            ("2", "gfx_target_version 90402\nunique_id 2\n"),
        ],
        Some("6.3.1-48\n"),
    );
    let facts = rocm_provider(&dir, detector());
    assert_eq!(facts.value(Field::GpuBackends), set(&["rocm"]).as_ref());
    assert_eq!(facts.string(Field::RocmVersion), Some("6.3.1"));
    assert_eq!(
        facts.value(Field::RocmGpuArchs),
        set(&["gfx90a", "gfx942"]).as_ref()
    );
    let version = &facts.get(Field::RocmVersion).unwrap().provenance;
    assert_eq!(
        version.to_string(),
        format!("rocm ({})", dir.join("rocm/.info/version").display())
    );
    let archs = &facts.get(Field::RocmGpuArchs).unwrap().provenance;
    assert_eq!(
        (archs.layer(), archs.method()),
        ("rocm", dir.join("topology").to_str().unwrap())
    );
    // The device masks do not apply (SPEC 0.2 §8.5); HSA_OVERRIDE_GFX_VERSION does (§8.9).
    let facts = GpuProvider::with_detector(detector())
        .in_process(true)
        .kfd_topology(dir.join("topology"))
        .kfd_device(dir.join("kfd"))
        .rocm_path(dir.join("rocm"))
        .vars([("ROCR_VISIBLE_DEVICES", "GPU-2")])
        .provide(fact_fields())
        .unwrap();
    assert_eq!(
        facts.value(Field::RocmGpuArchs),
        set(&["gfx90a", "gfx942"]).as_ref()
    );
    let facts = GpuProvider::with_detector(detector())
        .in_process(true)
        .kfd_topology(dir.join("topology"))
        .kfd_device(dir.join("kfd"))
        .rocm_path(dir.join("rocm"))
        .vars([("HSA_OVERRIDE_GFX_VERSION", "9.4.2")])
        .provide(fact_fields())
        .unwrap();
    assert_eq!(facts.value(Field::RocmGpuArchs), set(&["gfx942"]).as_ref());
    // No access to the device: `rocm` is not a usable backend, and the archs go with it (I3).
    let facts = GpuProvider::with_detector(detector())
        .in_process(true)
        .kfd_topology(dir.join("topology"))
        .kfd_device(dir.join("no-such-device"))
        .rocm_path(dir.join("rocm"))
        .provide(fact_fields())
        .unwrap();
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    let why = facts
        .get(Field::GpuBackends)
        .unwrap()
        .provenance
        .detail()
        .unwrap_or_default()
        .to_owned();
    assert!(why.contains("cannot be opened"), "{why}");
    assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
}

#[test]
fn the_hip_runtime_answers_without_a_release_file() {
    let f = fakes();
    let dir = rocm_tree("hip-only", &[], None);
    let facts = rocm_provider(&dir, detector().hip_library(&f.hip));
    let version = facts.get(Field::RocmVersion).unwrap();
    assert_eq!(version.value, EnvValue::String("6.2".into()));
    assert_eq!(
        (version.provenance.layer(), version.provenance.method()),
        ("rocm", "hipRuntimeGetVersion")
    );
    assert_eq!(facts.value(Field::RocmGpuArchs), Some(&EnvValue::Absent));
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
}

#[test]
fn an_unreadable_rocm_file_is_unknown_never_absent() {
    let dir = rocm_tree(
        "unreadable",
        &[("1", "simd_count 4\n")],
        Some("not a version\n"),
    );
    let facts = rocm_provider(&dir, detector());
    let version = facts.get(Field::RocmVersion).unwrap();
    assert_eq!(version.value, EnvValue::Unknown);
    assert_eq!(
        version.provenance.detail(),
        Some("no version on its first line")
    );
    let archs = facts.get(Field::RocmGpuArchs).unwrap();
    assert_eq!(archs.value, EnvValue::Unknown);
    assert!(
        archs
            .provenance
            .detail()
            .unwrap()
            .ends_with("no readable gfx_target_version"),
        "{}",
        archs.provenance
    );
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
}

#[test]
fn devices_without_the_driver_api_are_no_cuda() {
    // SPEC 0.2 §8.6: `cuda_version` is libcuda's alone. NVML lists two devices, but without
    // libcuda no CUDA program can use them: `cuda_version` is Absent, never NVML's 12.4, and
    // the backend and the device fields follow (I1, I2).
    let f = fakes();
    let facts = provide(GpuProvider::with_detector(detector().nvml_library(&f.nvml)));
    assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Absent));
    let p = &facts.get(Field::CudaVersion).unwrap().provenance;
    assert_eq!(p.method(), "libcuda");
    assert!(p.detail().unwrap().contains("2 device(s)"), "{p}");
    assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
    assert_eq!(
        facts.value(Field::CudaComputeCapabilities),
        Some(&EnvValue::Absent)
    );
    assert!(markerspec_env::check_invariants(|f| facts.value(f).cloned()).is_empty());
    // With libcuda, the same devices are CUDA devices, at libcuda's version.
    let facts = provide(GpuProvider::with_detector(
        detector().nvml_library(&f.nvml).cuda_library(&f.cuda),
    ));
    assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
    assert_eq!(
        facts.get(Field::CudaVersion).unwrap().provenance.method(),
        "libcuda"
    );
    assert_eq!(facts.value(Field::GpuBackends), set(&["cuda"]).as_ref());
}
