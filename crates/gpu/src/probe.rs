//! The probe: the code that loads driver libraries, run in a child process by
//! [`Detector::detect`](crate::Detector::detect) or in the caller by
//! [`Detector::detect_in_process`](crate::Detector::detect_in_process).
//!
//! Protocol: the parent runs `PROGRAM --markerspec-gpu-probe CONFIG_JSON` with stdin closed and
//! a minimal environment holding `MARKERSPEC_GPU_PROBE_TOKEN`, a token made for this one run
//! that the configuration repeats; the probe prints one JSON line, [`ProbeReply`], on stdout and
//! exits 0. While it probes, its stdout descriptor points at stderr, so a library that prints
//! cannot corrupt the reply.
//!
//! The token marks the child: a marked process that reaches detection never starts another
//! probe (see [`stop_if_probe_child`]), so a program that lacks the entry point cannot start a
//! chain of copies of itself.

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

/// The environment variable that marks a probe child and carries its run's token.
pub(crate) const PROBE_TOKEN_VAR: &str = "MARKERSPEC_GPU_PROBE_TOKEN";

/// What a marked child that reached detection writes on stderr before it exits with
/// [`EXIT_NO_ENTRY_POINT`]: the parent reads it as [`UnknownReason::NoProbeEntryPoint`].
pub(crate) const NO_ENTRY_POINT: &str = "markerspec-gpu: started as the GPU probe, but this program does not call \
     run_probe_if_requested() first thing in main; stopping";

/// The exit code that goes with [`NO_ENTRY_POINT`].
pub(crate) const EXIT_NO_ENTRY_POINT: i32 = 3;

/// Bumped when [`ProbeReply`] or [`ProbeConfig`] change incompatibly. 2: one report per vendor
/// in `vendors` (1 had fixed `cuda` and `rocm` keys), per-library status, ROCm read in full.
/// 3: cuDNN's CUDA runtime version (`cudnn_cuda_version`). 4: the CUDA version from the driver
/// API only (`driver_api` in place of `cuda_driver_version`, SPEC §8.6).
pub(crate) const PROBE_SCHEMA: u32 = 4;

/// How a reply of another schema is described: the start of its [`UnknownReason::Garbage`]
/// detail.
pub(crate) const OTHER_SCHEMA: &str = "the probe speaks schema";

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
    /// The run's token, also in the child's `MARKERSPEC_GPU_PROBE_TOKEN`: proof that the
    /// detection code started the child. Set just before a child is started, so it is never
    /// part of a cache key.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) token: String,
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
            token: String::new(),
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
                "{OTHER_SCHEMA} {}, not {PROBE_SCHEMA}",
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
/// Exits 0 after printing a report, 2 when the arguments are wrong or the program runs
/// set-user-ID or set-group-ID (it loads the libraries its configuration names, which must not
/// happen with privileges the caller does not have).
#[must_use]
pub fn probe_main() -> ExitCode {
    if markerspec_process::is_set_id() {
        eprintln!("markerspec-gpu-probe: refused: the program runs set-user-ID or set-group-ID");
        return ExitCode::from(2);
    }
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let args = match args.split_first() {
        Some((flag, rest)) if flag == PROBE_FLAG => rest,
        _ => &args[..],
    };
    ExitCode::from(run_probe(args))
}

/// Turns the running program into the probe when [`Detector::detect`](crate::Detector::detect)
/// started it as one: probes, prints the report, and exits the process. Otherwise returns at
/// once and does nothing.
///
/// A program that embeds detection calls it first thing in `main` (`markerspec-env`
/// re-exports it), because by default the detector runs the program itself as its isolated
/// probe child when no `markerspec-gpu-probe` binary sits beside it:
///
/// ```no_run
/// fn main() {
///     markerspec_gpu::run_probe_if_requested();
///     // … the program proper …
/// }
/// ```
///
/// Without the call nothing runs away: the child is marked, stops as soon as it reaches
/// detection, and the detection is [`UnknownReason::NoProbeEntryPoint`](crate::UnknownReason::NoProbeEntryPoint),
/// whose message says how to fix it.
///
/// The request is the first argument `--markerspec-gpu-probe` **and** the run's token in the
/// environment variable `MARKERSPEC_GPU_PROBE_TOKEN`, repeated in the configuration. A flag
/// without the matching token (a caller that passes arguments through to the program, say),
/// and any request while the program runs set-user-ID or set-group-ID, is refused: the process
/// prints why and exits with code 2, without loading anything.
#[allow(clippy::needless_doctest_main)] // the point of the example is where the call goes
pub fn run_probe_if_requested() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_none_or(|first| first != PROBE_FLAG) {
        return;
    }
    let rest: Vec<OsString> = args.collect();
    if let Err(why) = check_request(&rest) {
        eprintln!("markerspec-gpu-probe: refused: {why}");
        std::process::exit(2);
    }
    std::process::exit(i32::from(run_probe(&rest)));
}

/// Exits at once when this process was started as the GPU probe (the probe flag first and a
/// token in `MARKERSPEC_GPU_PROBE_TOKEN`) but reached detection instead of the entry point,
/// exactly as [`Detector::detect`](crate::Detector::detect) would; otherwise returns.
///
/// Detection that does other work before it reaches the GPU (`markerspec-env`'s stack asks the
/// host and the interpreter first, starting `python3` and the C library's loader) calls this
/// first, so that such a child starts nothing of its own before it stops.
///
/// ```
/// // Not started as the probe (no flag, no token): the call returns and the work goes on.
/// markerspec_gpu::exit_if_started_as_probe();
/// assert!(std::env::var_os("MARKERSPEC_GPU_PROBE_TOKEN").is_none());
/// ```
pub fn exit_if_started_as_probe() {
    // A marked process without the flag is not stopped here: the detector reports it as
    // `InsideProbe` when it gets there.
    let _ = stop_if_probe_child();
}

/// Whether a probe request through the hidden flag comes from the detection code.
fn check_request(args: &[OsString]) -> Result<(), String> {
    if markerspec_process::is_set_id() {
        return Err("the program runs set-user-ID or set-group-ID".to_owned());
    }
    let token = std::env::var(PROBE_TOKEN_VAR).unwrap_or_default();
    let [json] = args else {
        return Err(format!("usage: PROGRAM {PROBE_FLAG} CONFIG_JSON"));
    };
    let sent = json
        .to_str()
        .and_then(|json| serde_json::from_str::<ProbeConfig>(json).ok())
        .map(|cfg| cfg.token)
        .unwrap_or_default();
    if token.len() < 16 || sent != token {
        return Err(format!(
            "{PROBE_FLAG} is only accepted from markerspec's detection ({PROBE_TOKEN_VAR} is \
             missing or does not match)"
        ));
    }
    Ok(())
}

/// Called by the detector before it starts a probe. In a process marked as a probe child it
/// never returns a request to start another: a child started with the probe flag (a program
/// whose `main` lacks [`run_probe_if_requested`]) prints [`NO_ENTRY_POINT`] and exits at once;
/// any other marked process gets `Err`, to be reported as
/// [`UnknownReason::InsideProbe`](crate::UnknownReason::InsideProbe).
pub(crate) fn stop_if_probe_child() -> Result<(), ()> {
    if std::env::var_os(PROBE_TOKEN_VAR).is_none() {
        return Ok(());
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == PROBE_FLAG)
    {
        eprintln!("{NO_ENTRY_POINT}");
        std::process::exit(EXIT_NO_ENTRY_POINT);
    }
    Err(())
}

/// A token for one probe run: 128 bits from the standard library's randomly keyed hasher,
/// the clock and the process id.
pub(crate) fn new_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for round in 0u8..2 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u8(round);
        hasher.write_u32(std::process::id());
        if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            hasher.write_u128(now.as_nanos());
        }
        out.push_str(&format!("{:016x}", hasher.finish()));
    }
    out
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
    fn tokens_differ_per_run() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }

    #[test]
    fn a_request_without_the_matching_token_is_refused() {
        // This test process has no token in its environment.
        let cfg = ProbeConfig {
            token: "0123456789abcdef0123456789abcdef".to_owned(),
            ..ProbeConfig::default()
        };
        let json = OsString::from(serde_json::to_string(&cfg).unwrap());
        let refused = check_request(&[json]).unwrap_err();
        assert!(refused.contains(PROBE_TOKEN_VAR), "{refused}");
        assert!(check_request(&[]).is_err());
    }

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
