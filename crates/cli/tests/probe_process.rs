//! The `markerspec` binary as the GPU probe's parent and as the probe: the hidden flag is
//! refused unless detection asked, and an interrupt takes the probe down with the program.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_markerspec");

fn markerspec(args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_probe_flag_is_refused_without_detection_s_token() {
    let config = r#"{"sources":["nvml"],"search_system":false,"nvml_library":"/tmp/evil.so","cuda_library":null,"nvidia_smi":null,"libraries":false,"cudnn_library":null,"nccl_library":null,"cutensor_library":null,"rocm":false,"hip_library":null,"kfd_topology":null,"driver_version_file":null,"tool_timeout_ms":1000,"in_child":true}"#;
    // Arguments alone (a caller passing its own arguments through).
    let out = markerspec(&["--markerspec-gpu-probe", config], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("refused"), "{stderr}");
    assert!(out.stdout.is_empty(), "{out:?}");
    // A token in the environment that the configuration does not repeat.
    let out = markerspec(
        &["--markerspec-gpu-probe", config],
        &[(
            "MARKERSPEC_GPU_PROBE_TOKEN",
            "0123456789abcdef0123456789abcdef",
        )],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // The same token in both: detection's own request, answered with a report.
    let with_token = config.replace(
        "\"in_child\":true",
        "\"in_child\":true,\"token\":\"0123456789abcdef0123456789abcdef\"",
    );
    let out = markerspec(
        &["--markerspec-gpu-probe", &with_token],
        &[(
            "MARKERSPEC_GPU_PROBE_TOKEN",
            "0123456789abcdef0123456789abcdef",
        )],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"markerspec_gpu_probe\":4"), "{stdout}");
}

/// A fake NVML whose `nvmlDeviceGetCount` never returns, in a folder of its own.
fn hanging_nvml() -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-hang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gpu/tests/fake/nvml.c");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(dir.join("libnvidia-ml.so.1"))
        .arg(&source)
        .arg("-DFAKE_DEFAULT_MODE=\"hang\"")
        .status()
        .unwrap_or_else(|e| {
            panic!("not run: the fake NVML cannot be built without a C compiler (`cc`: {e})")
        });
    assert!(status.success(), "not run: building the fake NVML failed");
    dir
}

/// The live (not zombie) probe processes whose library path is `dir`.
fn probes(dir: &Path) -> Vec<u32> {
    let needle = format!("LD_LIBRARY_PATH={}", dir.display());
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let has = |file: &str, what: &str| {
            std::fs::read(entry.path().join(file))
                .is_ok_and(|b| b.split(|&c| c == 0).any(|p| p == what.as_bytes()))
        };
        if !has("cmdline", "--markerspec-gpu-probe") || !has("environ", &needle) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        if !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z'))
        {
            found.push(pid);
        }
    }
    found
}

#[test]
fn an_interrupt_takes_the_probe_down_with_markerspec() {
    let dir = hanging_nvml();
    for signal in ["-TERM", "-INT"] {
        let mut child = Command::new(BIN)
            .args(["env", "--json", "--timeout", "60"])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("LD_LIBRARY_PATH", &dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        while probes(&dir).is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        let running = probes(&dir);
        assert_eq!(running.len(), 1, "the probe did not start: {running:?}");
        let status = Command::new("/bin/kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let ended = child.wait().unwrap();
        assert!(!ended.success(), "{ended}");
        let until = Instant::now() + Duration::from_secs(2);
        let mut left = probes(&dir);
        while !left.is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            left = probes(&dir);
        }
        for pid in &left {
            let _ = Command::new("/bin/kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        assert!(
            left.is_empty(),
            "the probe outlived markerspec ({signal}): {left:?}"
        );
    }
}
