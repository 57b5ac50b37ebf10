//! The probe: the code that loads driver libraries, run in a child process by
//! [`Detector::detect`](crate::Detector::detect) or in the caller by
//! [`Detector::detect_in_process`](crate::Detector::detect_in_process).
//!
//! Protocol: the parent runs `PROGRAM --markerspec-gpu-probe CONFIG_JSON` with stdin closed and
//! a minimal environment; the probe prints one JSON line, [`ProbeReply`], on stdout and exits 0.
//! While it probes, its stdout descriptor points at stderr, so a library that prints cannot
//! corrupt the reply.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::{Deserialize, Serialize};

use crate::cuda::{self, PROC_DRIVER_VERSION, Source};
use crate::report::{UnknownReason, Vendor, VendorReport};
use crate::rocm;

/// The hidden command-line flag that turns a program into the probe; see
/// [`run_probe_if_requested`].
pub const PROBE_FLAG: &str = "--markerspec-gpu-probe";

/// Bumped when [`ProbeReply`] or [`ProbeConfig`] change incompatibly. 2: one report per vendor
/// in `vendors` (1 had fixed `cuda` and `rocm` keys), per-library status, ROCm read in full.
pub(crate) const PROBE_SCHEMA: u32 = 2;

/// What to probe and where to look: everything a [`Detector`](crate::Detector) decides, sent to
/// the child as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProbeConfig {
    pub(crate) sources: Vec<Source>,
    pub(crate) search_system: bool,
    pub(crate) nvml_library: Option<PathBuf>,
    pub(crate) cuda_library: Option<PathBuf>,
    pub(crate) nvidia_smi: Option<PathBuf>,
    pub(crate) libraries: bool,
    pub(crate) cudnn_library: Option<PathBuf>,
    pub(crate) nccl_library: Option<PathBuf>,
    pub(crate) cutensor_library: Option<PathBuf>,
    pub(crate) rocm: bool,
    pub(crate) hip_library: Option<PathBuf>,
    /// The ROCm installation whose `.info/version` names the release.
    pub(crate) rocm_path: Option<PathBuf>,
    pub(crate) kfd_topology: Option<PathBuf>,
    pub(crate) kfd_device: Option<PathBuf>,
    pub(crate) driver_version_file: Option<PathBuf>,
    /// Time limit for each `nvidia-smi` run.
    pub(crate) tool_timeout_ms: u64,
    /// Running in the probe child (not in the caller's process).
    pub(crate) in_child: bool,
    /// The `PATH` to search for `nvidia-smi`. Not sent: the child searches its own `PATH`,
    /// which the parent set to this value.
    #[serde(skip)]
    pub(crate) path_var: Option<OsString>,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            sources: Source::ALL.to_vec(),
            search_system: true,
            nvml_library: None,
            cuda_library: None,
            nvidia_smi: None,
            libraries: true,
            cudnn_library: None,
            nccl_library: None,
            cutensor_library: None,
            rocm: true,
            hip_library: None,
            rocm_path: None,
            kfd_topology: None,
            kfd_device: None,
            driver_version_file: None,
            tool_timeout_ms: 7_500,
            in_child: false,
            path_var: None,
        }
    }
}

impl ProbeConfig {
    /// The file holding the kernel module's version: the explicit one, else `/proc`'s when
    /// searching the system on Linux.
    pub(crate) fn driver_version_file(&self) -> Option<PathBuf> {
        self.driver_version_file.clone().or_else(|| {
            (self.search_system && cfg!(target_os = "linux")).then(|| PROC_DRIVER_VERSION.into())
        })
    }
}

/// What the probe prints.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ProbeReply {
    /// [`PROBE_SCHEMA`]; its name tells a reply from any other JSON a program might print.
    pub(crate) markerspec_gpu_probe: u32,
    /// One report per vendor, in [`Vendor::ALL`] order.
    pub(crate) vendors: Vec<VendorReport>,
}

/// Just the schema number, read before the rest so that a reply of another schema is named as
/// such rather than as a shape error.
#[derive(Deserialize)]
struct ReplySchema {
    markerspec_gpu_probe: u32,
}

impl ProbeReply {
    /// Reads a reply line: its schema first, then the reports.
    ///
    /// # Errors
    ///
    /// What is wrong, for [`UnknownReason::Garbage`].
    pub(crate) fn decode(line: &str) -> Result<Vec<VendorReport>, String> {
        let schema: ReplySchema =
            serde_json::from_str(line).map_err(|e| format!("not a probe report ({e})"))?;
        if schema.markerspec_gpu_probe != PROBE_SCHEMA {
            return Err(format!(
                "the probe speaks schema {}, not {PROBE_SCHEMA}",
                schema.markerspec_gpu_probe
            ));
        }
        let reply: ProbeReply =
            serde_json::from_str(line).map_err(|e| format!("not a probe report ({e})"))?;
        Ok(reply.vendors)
    }
}

/// Whether the configuration asks for `vendor`.
pub(crate) fn wanted(cfg: &ProbeConfig, vendor: Vendor) -> bool {
    match vendor {
        Vendor::Cuda => true,
        Vendor::Rocm => cfg.rocm,
    }
}

/// Probes one vendor in this process.
fn probe_vendor(cfg: &ProbeConfig, vendor: Vendor) -> VendorReport {
    match vendor {
        Vendor::Cuda => VendorReport::Cuda(cuda::probe(cfg)),
        Vendor::Rocm => VendorReport::Rocm(rocm::probe(cfg)),
    }
}

/// What a vendor the configuration does not ask for reports: absent, with a note saying it was
/// not probed.
pub(crate) fn not_probed(vendor: Vendor) -> VendorReport {
    VendorReport::absent(vendor, format!("{}: not probed (disabled)", vendor.label()))
}

/// Runs every vendor's probe in this process, in [`Vendor::ALL`] order.
pub(crate) fn probe_all(cfg: &ProbeConfig) -> Vec<VendorReport> {
    Vendor::ALL
        .into_iter()
        .map(|vendor| {
            if wanted(cfg, vendor) {
                probe_vendor(cfg, vendor)
            } else {
                not_probed(vendor)
            }
        })
        .collect()
}

/// Every wanted vendor unknown for the same reason (the probe child failed), the others not
/// probed.
pub(crate) fn all_unknown(cfg: &ProbeConfig, reason: &UnknownReason) -> Vec<VendorReport> {
    Vendor::ALL
        .into_iter()
        .map(|vendor| {
            if wanted(cfg, vendor) {
                VendorReport::unknown(vendor, reason.clone())
            } else {
                not_probed(vendor)
            }
        })
        .collect()
}

/// The probe program's `main`: probes with the configuration given on the command line and
/// prints one JSON report line on stdout.
///
/// Arguments: `[--markerspec-gpu-probe] [CONFIG_JSON]`. The configuration is what a
/// [`Detector`](crate::Detector) sends and is not a stable interface; without it, the probe
/// searches the system with the defaults, which makes the binary handy for looking at a
/// machine by hand:
///
/// ```text
/// $ markerspec-gpu-probe
/// {"markerspec_gpu_probe":2,"vendors":[{"vendor":"cuda","outcome":"detected","driver_version":"550.144.03",…},…]}
/// ```
///
/// Exits 0 after printing a report, 2 when the arguments are wrong.
#[must_use]
pub fn probe_main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let args = match args.split_first() {
        Some((flag, rest)) if flag == PROBE_FLAG => rest,
        _ => &args[..],
    };
    ExitCode::from(run_probe(args))
}

/// Turns the running program into the probe when its first argument is
/// `--markerspec-gpu-probe`: probes, prints the report, and exits the process. Otherwise
/// returns at once and does nothing.
///
/// A program that embeds this crate calls it first thing in `main`, so that
/// [`Detector::detect`](crate::Detector::detect) can run the program itself as the probe child
/// (its default when no `markerspec-gpu-probe` binary sits beside it):
///
/// ```no_run
/// fn main() {
///     markerspec_gpu::run_probe_if_requested();
///     // … the program proper …
/// }
/// ```
///
/// Without this call, give the detector a probe program with
/// [`Detector::probe_program`](crate::Detector::probe_program), or the default would run the
/// program with an argument it does not understand (the detection then reports unknown).
#[allow(clippy::needless_doctest_main)] // the point of the example is where the call goes
pub fn run_probe_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|first| first == PROBE_FLAG) {
        let rest: Vec<OsString> = args.collect();
        std::process::exit(i32::from(run_probe(&rest)));
    }
}

fn run_probe(args: &[OsString]) -> u8 {
    let mut cfg = match args {
        [] => ProbeConfig::default(),
        [json] => match json
            .to_str()
            .ok_or_else(|| "the configuration is not UTF-8".to_owned())
            .and_then(|json| serde_json::from_str::<ProbeConfig>(json).map_err(|e| e.to_string()))
        {
            Ok(cfg) => cfg,
            Err(error) => {
                eprintln!("markerspec-gpu-probe: bad configuration: {error}");
                return 2;
            }
        },
        _ => {
            eprintln!("usage: markerspec-gpu-probe [{PROBE_FLAG}] [CONFIG_JSON]");
            return 2;
        }
    };
    cfg.in_child = true;
    let mut out = reply_writer();
    let reply = ProbeReply {
        markerspec_gpu_probe: PROBE_SCHEMA,
        vendors: probe_all(&cfg),
    };
    let written = serde_json::to_vec(&reply)
        .map_err(std::io::Error::other)
        .and_then(|mut line| {
            line.push(b'\n');
            out.write_all(&line)?;
            out.flush()
        });
    match written {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("markerspec-gpu-probe: could not write the report: {error}");
            1
        }
    }
}

/// Where the reply goes: a private copy of stdout, with descriptor 1 pointed at stderr so that
/// whatever the loaded libraries print cannot mix into the reply.
#[cfg(unix)]
fn reply_writer() -> Box<dyn Write> {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: fcntl(F_DUPFD_CLOEXEC) only duplicates a descriptor; on success the result is a
    // new descriptor that nothing else owns. Close-on-exec keeps it out of `nvidia-smi`.
    let saved = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3) };
    if saved < 0 {
        return Box::new(std::io::stdout());
    }
    // SAFETY: dup2 only redirects descriptor 1; Rust's `Stdout` is not used after this point
    // (the reply goes to `saved`), so nothing relies on the old descriptor 1.
    unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) };
    // SAFETY: `saved` is a fresh, valid descriptor owned by nothing else.
    let owned = unsafe { OwnedFd::from_raw_fd(saved) };
    Box::new(std::fs::File::from(owned))
}

#[cfg(not(unix))]
fn reply_writer() -> Box<dyn Write> {
    Box::new(std::io::stdout())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_round_trips_without_the_path() {
        let cfg = ProbeConfig {
            path_var: Some("/bin".into()),
            ..ProbeConfig::default()
        };
        let json = serde_json::to_string(&cfg).unwrap();
        let back: ProbeConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(back.path_var, None);
        assert_eq!(
            back,
            ProbeConfig {
                path_var: None,
                ..cfg
            }
        );
        assert!(serde_json::from_str::<ProbeConfig>(r#"{"bogus":1}"#).is_err());
    }
}
