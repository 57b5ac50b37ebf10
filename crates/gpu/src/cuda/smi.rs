//! The `nvidia-smi` source: the last resort, for machines where neither library loads in this
//! process (a 32-bit process on a 64-bit driver, say) but the driver's own tool runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use markerspec_process::{Error as RunError, Run, tail};

use super::{Attempt, valid_driver_version};
use super::{CudaReport, CudaVersion, Device, DriverApi, Libraries, Source};
use crate::probe::ProbeConfig;

/// The query: one CSV line per GPU. `name` comes last because it is the only field that could
/// hold a comma.
const QUERY: &str = "--query-gpu=driver_version,compute_cap,uuid,memory.total,name";

/// Output that means "no driver here" rather than "the driver failed".
const NO_DRIVER: [&str; 3] = [
    "couldn't communicate with the NVIDIA driver",
    "No devices were found",
    "NVIDIA driver is not loaded",
];

/// Runs `nvidia-smi` twice: the CSV query for the devices, then the plain table for the
/// `CUDA Version:` in its header.
pub(crate) fn probe(cfg: &ProbeConfig) -> Attempt {
    let Some(program) = find(cfg) else {
        return Attempt::NotPresent(match (&cfg.nvidia_smi, cfg.search_system) {
            (Some(explicit), _) => format!("nvidia-smi: {} does not exist", explicit.display()),
            (None, true) => "nvidia-smi: not found".to_owned(),
            (None, false) => "nvidia-smi: not searched (system search disabled)".to_owned(),
        });
    };
    let shown = program.display();
    let output = match run(cfg, &program, &[QUERY, "--format=csv,noheader,nounits"]) {
        Ok(output) => output,
        Err(Failure::NoDriver(line)) => {
            return Attempt::NotPresent(format!("nvidia-smi: {line}"));
        }
        Err(Failure::Other(error)) => return Attempt::Failed(format!("{shown}: {error}")),
    };
    let mut report = match parse_query(&output) {
        Ok(report) => report,
        Err(error) => return Attempt::Failed(format!("{shown}: {error}")),
    };
    match run(cfg, &program, &[]) {
        Ok(table) => match parse_cuda_version(&table) {
            // Not `cuda_version` (SPEC §8.6: only the driver API gives it): a note.
            Some(Ok(version)) => report.notes.push(format!(
                "nvidia-smi: CUDA Version: {version} (not used: the CUDA version is libcuda's)"
            )),
            Some(Err(text)) => report.notes.push(format!(
                "nvidia-smi: `CUDA Version: {text}` is not a CUDA version"
            )),
            None => report
                .notes
                .push("nvidia-smi: no `CUDA Version:` in its output".to_owned()),
        },
        Err(Failure::NoDriver(e) | Failure::Other(e)) => {
            report.notes.push(format!("nvidia-smi: {e}"));
        }
    }
    Attempt::Found(Box::new(report))
}

fn find(cfg: &ProbeConfig) -> Option<PathBuf> {
    if let Some(explicit) = &cfg.nvidia_smi {
        // An explicit program is the only one: running a different `nvidia-smi` than the one
        // asked for would be a surprise.
        return explicit.is_file().then(|| explicit.clone());
    }
    if !cfg.search_system {
        return None;
    }
    let name = if cfg!(windows) {
        "nvidia-smi.exe"
    } else {
        "nvidia-smi"
    };
    let path = cfg
        .path_var
        .clone()
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    // The one PATH lookup (absolute folders only), then the driver's own folders on Windows.
    markerspec_process::find_program(name.as_ref(), &path).or_else(|| {
        if cfg!(windows) {
            crate::loader::driver_dirs()
                .into_iter()
                .map(|dir| dir.join(name))
                .find(|candidate| markerspec_process::is_executable(candidate))
        } else {
            None
        }
    })
}

enum Failure {
    NoDriver(String),
    Other(String),
}

fn run(cfg: &ProbeConfig, program: &Path, args: &[&str]) -> Result<String, Failure> {
    let mut command = Command::new(program);
    command.args(args);
    if !cfg.in_child {
        // In-process mode: give the tool the same minimal environment the probe child gets.
        command.env_clear();
        if let Some(path) = cfg.path_var.clone().or_else(|| std::env::var_os("PATH")) {
            command.env("PATH", path);
        }
    }
    let mut run = Run::new(Duration::from_millis(cfg.tool_timeout_ms))
        .stdout_cap(256 * 1024)
        .stderr_cap(16 * 1024);
    if cfg.in_child {
        // In the probe child, the tool stays in the probe's group: when the detector kills
        // that group (on its deadline, or after the probe exits), the tool's descendants go
        // with it.
        run = run.in_current_group();
    }
    match run.run(&mut command) {
        Err(RunError::Spawn(error)) => Err(Failure::Other(format!("could not run: {error}"))),
        Err(RunError::TimedOut { .. }) => Err(Failure::Other(format!(
            "timed out after {} ms",
            cfg.tool_timeout_ms
        ))),
        Err(RunError::Wait(error)) => Err(Failure::Other(format!("waiting failed: {error}"))),
        Ok(output) => {
            let (status, stdout, stderr) = (output.status, output.stdout, output.stderr);
            let text = String::from_utf8_lossy(&stdout.bytes).into_owned();
            if status.success() && !stdout.truncated {
                return Ok(text);
            }
            let all = format!("{text}\n{}", String::from_utf8_lossy(&stderr.bytes));
            if let Some(line) = all
                .lines()
                .find(|line| NO_DRIVER.iter().any(|m| line.contains(m)))
            {
                return Err(Failure::NoDriver(line.trim().to_owned()));
            }
            let why = if stdout.truncated {
                "printed too much".to_owned()
            } else {
                format!("failed ({status})")
            };
            let detail = tail(all.as_bytes(), 300);
            Err(Failure::Other(if detail.is_empty() {
                why
            } else {
                format!("{why}: {detail}")
            }))
        }
    }
}

/// Parses the CSV query: `550.144.03, 8.0, GPU-…, 81920, NVIDIA A100-SXM4-80GB` per line.
fn parse_query(output: &str) -> Result<CudaReport, String> {
    let mut notes = Vec::new();
    let mut driver_version: Option<String> = None;
    let mut devices = Vec::new();
    for (index, line) in output.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let fields: Vec<&str> = line.splitn(5, ',').map(str::trim).collect();
        let [driver, cc, uuid, memory, name] = fields[..] else {
            return Err(format!("unexpected output line {line:?}"));
        };
        if !valid_driver_version(driver) {
            return Err(format!("unexpected driver version {driver:?}"));
        }
        match &driver_version {
            None => driver_version = Some(driver.to_owned()),
            Some(seen) if seen != driver => notes.push(format!(
                "nvidia-smi: devices report different drivers ({seen}, {driver})"
            )),
            Some(_) => {}
        }
        let compute_capability = parse_compute_capability(cc)
            .ok_or_else(|| format!("unexpected compute capability {cc:?} for device {index}"))?;
        devices.push(Device {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            name: name.to_owned(),
            compute_capability,
            uuid: uuid.starts_with("GPU-").then(|| uuid.to_owned()),
            memory_bytes: memory
                .parse::<u64>()
                .ok()
                .and_then(|mib| mib.checked_mul(1024 * 1024)),
        });
    }
    if devices.is_empty() {
        return Err("listed no devices".to_owned());
    }
    Ok(CudaReport {
        driver_version,
        driver_api: DriverApi::NotAsked,
        devices,
        libraries: Libraries::default(),
        source: Source::NvidiaSmi,
        notes,
    })
}

fn parse_compute_capability(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    let major: u32 = major.parse().ok()?;
    let minor: u32 = minor.parse().ok()?;
    ((1..=99).contains(&major) && minor <= 99).then_some((major, minor))
}

/// Finds `CUDA Version: 12.4` in the table's header. `None` when it is not there; `Err` with the
/// text when it is there but not a version.
fn parse_cuda_version(table: &str) -> Option<Result<CudaVersion, String>> {
    const LABEL: &str = "CUDA Version:";
    let at = table.find(LABEL)?;
    let text = table[at + LABEL.len()..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_end_matches('|');
    let parsed = text
        .split_once('.')
        .and_then(|(major, minor)| CudaVersion::new(major.parse().ok()?, minor.parse().ok()?));
    Some(parsed.ok_or_else(|| text.to_owned()))
}

/// The program this source would run, for the cache key.
pub(crate) fn resolved(cfg: &ProbeConfig) -> Option<PathBuf> {
    find(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_csv_query() {
        let report = parse_query(
            "550.144.03, 8.0, GPU-aaaaaaaa-0000-0000-0000-000000000000, 81920, NVIDIA A100-SXM4-80GB\n\
             550.144.03, 9.0, [N/A], [N/A], NVIDIA H100, PCIe, odd name\n",
        )
        .unwrap();
        assert_eq!(report.driver_version.as_deref(), Some("550.144.03"));
        assert_eq!(report.devices.len(), 2);
        assert_eq!(report.devices[0].compute_capability, (8, 0));
        assert_eq!(report.devices[0].memory_bytes, Some(81920 * 1024 * 1024));
        assert_eq!(
            report.devices[0].uuid.as_deref(),
            Some("GPU-aaaaaaaa-0000-0000-0000-000000000000")
        );
        assert_eq!(report.devices[1].name, "NVIDIA H100, PCIe, odd name");
        assert_eq!(report.devices[1].uuid, None);
        assert_eq!(report.devices[1].memory_bytes, None);
    }

    #[test]
    fn rejects_garbage_queries() {
        assert!(parse_query("").is_err());
        assert!(parse_query("hello\n").is_err());
        assert!(parse_query("550.1, [N/A], x, 1, name\n").is_err());
        assert!(parse_query("banana, 8.0, x, 1, name\n").is_err());
        assert!(parse_query("550.1, 100.0, x, 1, name\n").is_err());
    }

    #[test]
    fn finds_the_cuda_version_in_the_header() {
        let header =
            "| NVIDIA-SMI 550.144.03   Driver Version: 550.144.03   CUDA Version: 12.4     |\n";
        assert_eq!(
            parse_cuda_version(header),
            Some(Ok(CudaVersion {
                major: 12,
                minor: 4
            }))
        );
        assert_eq!(
            parse_cuda_version("CUDA Version: 13.0|"),
            Some(Ok(CudaVersion {
                major: 13,
                minor: 0
            }))
        );
        assert_eq!(
            parse_cuda_version("CUDA Version: N/A"),
            Some(Err("N/A".to_owned()))
        );
        assert_eq!(parse_cuda_version("no header"), None);
    }
}
