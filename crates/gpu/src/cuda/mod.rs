//! NVIDIA: the CUDA driver and its optional libraries.
//!
//! Three sources answer for the driver, tried in [`Source`] order until one answers: `nvml.rs`
//! (`libnvidia-ml.so.1`), `libcuda.rs` (`libcuda.so.1`, the driver API) and `smi.rs` (the
//! `nvidia-smi` program). What the winning source could not tell is filled in here from
//! elsewhere; the CUDA version always comes from the driver API ([`DriverApi`], SPEC §8.6); then `libs.rs` asks cuDNN, NCCL and cuTENSOR for their versions, each getting a
//! [`LibraryStatus`]. The driver's return codes map to [`NvmlError`] and [`CudaError`]
//! (`error.rs`). The report is a [`CudaReport`].

mod error;
mod libcuda;
mod libs;
mod nvml;
mod report;
pub(crate) mod smi;

pub use error::{CudaError, NvmlError, cuda_try, nvml_try};
pub use report::{CudaReport, CudaVersion, Device, DriverApi, Libraries, LibraryStatus, Source};

use std::path::Path;

use crate::probe::ProbeConfig;
use crate::report::{Outcome, UnknownReason};
use crate::rocm::{ReadState, Reading};

/// Where Linux publishes the loaded kernel module's version, with its build details.
///
/// See the example on [`kernel_module_version`], which reads it.
pub const PROC_DRIVER_VERSION: &str = "/proc/driver/nvidia/version";

/// Where Linux publishes the loaded `nvidia` kernel module's version alone (`550.144.03`).
///
/// See the example on [`kernel_module_version`], which reads it.
pub const SYS_MODULE_VERSION: &str = "/sys/module/nvidia/version";

/// The loaded NVIDIA kernel module's version, read from files, so that no vendor code runs and
/// no child process is needed (SPEC §8.7): `module_file` (normally [`SYS_MODULE_VERSION`]), a
/// single line; when it does not exist, the `NVRM version:` line of `proc_file` (normally
/// [`PROC_DRIVER_VERSION`]). [`ReadState::Missing`] when neither exists (no module loaded);
/// [`ReadState::Failed`] when the file that exists cannot be read or holds no version of the
/// form `N.N(.N)*`. The reading's path is the file that decided.
///
/// ```no_run
/// use markerspec_gpu::ReadState;
/// use markerspec_gpu::cuda::{PROC_DRIVER_VERSION, SYS_MODULE_VERSION, kernel_module_version};
///
/// let reading = kernel_module_version(SYS_MODULE_VERSION.as_ref(), PROC_DRIVER_VERSION.as_ref());
/// if let ReadState::Read { value } = reading.state {
///     println!("NVIDIA driver {value}");
/// }
/// ```
pub fn kernel_module_version(module_file: &Path, proc_file: &Path) -> Reading<String> {
    let read = |path: &Path| match std::fs::read_to_string(path) {
        Ok(text) => Some(Ok(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(Err(format!("cannot read {}: {e}", path.display()))),
    };
    let reading = |path: &Path, state| Reading {
        path: path.to_owned(),
        state,
    };
    if let Some(text) = read(module_file) {
        let state = match text {
            Ok(text) if valid_driver_version(text.trim()) => ReadState::Read {
                value: text.trim().to_owned(),
            },
            Ok(text) => ReadState::Failed {
                reason: format!(
                    "{} holds {:?}, not a driver version",
                    module_file.display(),
                    text.trim()
                ),
            },
            Err(reason) => ReadState::Failed { reason },
        };
        return reading(module_file, state);
    }
    let state = match read(proc_file) {
        None => ReadState::Missing,
        Some(Ok(text)) => match parse_proc_driver_version(&text) {
            Some(value) => ReadState::Read { value },
            None => ReadState::Failed {
                reason: format!("no driver version in {}", proc_file.display()),
            },
        },
        Some(Err(reason)) => ReadState::Failed { reason },
    };
    reading(proc_file, state)
}

/// How one source went.
pub(crate) enum Attempt {
    /// The source answered (boxed: a report is large beside a note).
    Found(Box<CudaReport>),
    /// Nothing of this source here: not installed, driver not loaded, no device.
    NotPresent(String),
    /// The source exists and failed.
    Failed(String),
}

/// Tries the sources in order; the first that answers wins. Absent when every source said
/// "not here"; unknown when none answered and at least one exists but failed.
pub(crate) fn probe(cfg: &ProbeConfig) -> Outcome<CudaReport> {
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    for &source in &cfg.sources {
        let attempt = match source {
            Source::Nvml => nvml::probe(cfg),
            Source::LibCuda => libcuda::probe(cfg),
            Source::NvidiaSmi => smi::probe(cfg),
        };
        match attempt {
            Attempt::Found(mut report) => {
                notes.extend(errors);
                notes.append(&mut report.notes);
                report.notes = notes;
                fill_gaps(cfg, &mut report);
                if cfg.libraries {
                    report.libraries = libs::probe(cfg, &mut report.notes);
                }
                return Outcome::Detected(*report);
            }
            Attempt::NotPresent(note) => notes.push(note),
            Attempt::Failed(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Outcome::Absent { notes }
    } else {
        Outcome::Unknown {
            reason: UnknownReason::Driver { errors },
        }
    }
}

/// Fills what the winning source could not tell from elsewhere: the kernel driver's version from
/// its `/proc` file; and the CUDA version, which only the driver API gives (SPEC §8.6), from
/// `cuInit` and `cuDriverGetVersion` when NVML or `nvidia-smi` listed the devices.
fn fill_gaps(cfg: &ProbeConfig, report: &mut CudaReport) {
    if report.driver_version.is_none() {
        if let Some(file) = cfg.driver_version_file() {
            match std::fs::read_to_string(&file) {
                Ok(text) => match parse_proc_driver_version(&text) {
                    Some(version) => report.driver_version = Some(version),
                    None => report
                        .notes
                        .push(format!("no driver version in {}", file.display())),
                },
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => report
                    .notes
                    .push(format!("could not read {}: {error}", file.display())),
            }
        }
    }
    // SPEC §8.6: the CUDA version comes from the driver API alone, whichever source listed the
    // devices.
    if report.source != Source::LibCuda && cfg.sources.contains(&Source::LibCuda) {
        report.driver_api = libcuda::driver_api(cfg);
        let said = match &report.driver_api {
            DriverApi::Version { version } => format!("CUDA {version}"),
            DriverApi::NotPresent { note } => note.clone(),
            DriverApi::Failed { reason } => reason.clone(),
            DriverApi::NotAsked => String::new(),
        };
        report.notes.push(format!(
            "CUDA version from libcuda's cuDriverGetVersion: {said}"
        ));
    }
}

/// The version in `NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.144.03  Thu …` (or the
/// open module's `… Open Kernel Module for x86_64  550.144.03  Release Build …`).
pub(crate) fn parse_proc_driver_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM version:"))?;
    let after = &line[line.find("Module")?..];
    after
        .split_whitespace()
        .find(|token| valid_driver_version(token))
        .map(str::to_owned)
}

/// Whether `text` looks like an NVIDIA driver version: digits and dots, starting and ending with
/// a digit, at least one dot, at most 32 bytes (`550.144.03`, `551.61`).
pub(crate) fn valid_driver_version(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 32
        && text.contains('.')
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && text.as_bytes().last().is_some_and(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_proc_driver_version() {
        let closed = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.144.03  Thu Nov 28 22:58:50 UTC 2024\nGCC version:  gcc version 12.2.0\n";
        assert_eq!(
            parse_proc_driver_version(closed).as_deref(),
            Some("550.144.03")
        );
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 2025\n";
        assert_eq!(
            parse_proc_driver_version(open).as_deref(),
            Some("570.86.15")
        );
        let arm = "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.129.03  Thu Oct 19 18:42:10 UTC 2023\n";
        assert_eq!(
            parse_proc_driver_version(arm).as_deref(),
            Some("535.129.03")
        );
        assert_eq!(parse_proc_driver_version("garbage"), None);
    }

    #[test]
    fn the_kernel_module_version_is_read_from_files() {
        let dir = std::env::temp_dir().join(format!("markerspec-module-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sys = dir.join("version");
        let proc = dir.join("proc");
        let none = dir.join("none");
        // Neither file: no module loaded.
        assert_eq!(
            kernel_module_version(&none, &none).state,
            ReadState::Missing
        );
        // The module file first.
        std::fs::write(&sys, "550.144.03\n").unwrap();
        std::fs::write(
            &proc,
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.1.2  Thu\n",
        )
        .unwrap();
        let r = kernel_module_version(&sys, &proc);
        assert_eq!(r.path, sys);
        assert_eq!(
            r.state,
            ReadState::Read {
                value: "550.144.03".into()
            }
        );
        // Without it, /proc.
        let r = kernel_module_version(&none, &proc);
        assert_eq!(r.path, proc);
        assert_eq!(
            r.state,
            ReadState::Read {
                value: "535.1.2".into()
            }
        );
        // A file that says something else is a failure, never absence.
        std::fs::write(&sys, "garbage\n").unwrap();
        assert!(matches!(
            kernel_module_version(&sys, &proc).state,
            ReadState::Failed { reason } if reason.contains("garbage")
        ));
        std::fs::write(&proc, "nothing here\n").unwrap();
        assert!(matches!(
            kernel_module_version(&none, &proc).state,
            ReadState::Failed { .. }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn driver_versions_are_validated() {
        for good in ["550.144.03", "551.61", "1.0"] {
            assert!(valid_driver_version(good), "{good}");
        }
        for bad in [
            "",
            "550",
            ".5",
            "5.",
            "x86_64",
            "550.1 ",
            "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15",
        ] {
            assert!(!valid_driver_version(bad), "{bad}");
        }
    }
}
