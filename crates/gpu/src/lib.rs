//! Run-time GPU detection, one module per vendor: what the drivers and libraries installed here
//! say about this machine. NVIDIA's CUDA stack is [`cuda`], AMD's ROCm is [`rocm`].
//!
//! ```no_run
//! use markerspec_gpu::{Detector, Outcome, VendorReport};
//!
//! let detection = Detector::new().detect();
//! for vendor in &detection.vendors {
//!     match vendor {
//!         VendorReport::Cuda(Outcome::Detected(report)) => {
//!             println!("driver {:?}, CUDA {:?}", report.driver_version, report.cuda_driver_version());
//!             for device in &report.devices {
//!                 println!("{}: {} (sm {:?})", device.index, device.name, device.compute_capability);
//!             }
//!         }
//!         VendorReport::Rocm(Outcome::Detected(report)) => {
//!             println!("ROCm GPUs: {:?}", report.gpu_archs());
//!         }
//!         other if other.is_absent() => println!("no {} GPU here", other.vendor()),
//!         other => match other.unknown_reason() {
//!             Some(reason) => println!("{}: could not tell: {reason}", other.vendor()),
//!             None => {}
//!         },
//!     }
//! }
//! ```
//!
//! # Scope of this crate
//!
//! It reports facts: for NVIDIA, the kernel driver's version, the highest CUDA version the
//! driver supports, each device's name, compute capability, UUID and memory, and the status of
//! cuDNN, NCCL and cuTENSOR; for AMD, the HIP runtime's version, the installed ROCm release,
//! the GPU agents of the kernel driver's topology and whether this user may open the GPU
//! device. It knows nothing about markers; `markerspec-env` maps a [`Detection`] onto marker
//! fields. It reads no override from the environment: explicit paths are [`Detector`]
//! parameters, and the CLI maps its flags and variables onto them. One fact that is not a GPU's
//! lives here because it needs a call into the operating system: the machine's native
//! architecture on Windows ([`machine::wow64_machines`], `IsWow64Process2`), which
//! `markerspec-env` maps onto `host_arch`.
//!
//! A [`Detection`] lists one [`VendorReport`] per [`Vendor`], and each holds one of three
//! answers ([`Outcome`]): [`Outcome::Absent`] ("no GPU of this vendor here", an ordinary answer,
//! not an error), [`Outcome::Detected`] with the vendor's report, and [`Outcome::Unknown`] with
//! a reason (it hung, crashed, printed garbage, or the driver is there and failed). A caller
//! must keep "absent" and "unknown" apart: one says "install the CPU wheel", the other says "we
//! do not know".
//!
//! # Vendors
//!
//! Each vendor is a folder under `src/` that owns everything about its stack: what to load or
//! read, the `unsafe` calls into its libraries, and its report type.
//!
//! - [`cuda`] (NVIDIA): the three driver sources `nvml.rs`, `libcuda.rs` and `smi.rs`, the
//!   optional libraries in `libs.rs`, the return-code mappings in `error.rs`, and
//!   [`CudaReport`].
//! - [`rocm`] (AMD): the HIP runtime, the release file, the KFD topology (`topology.rs`) and
//!   device, and [`RocmReport`].
//!
//! What the vendors share stays outside them: [`Detector`] (the configuration and the
//! caches), the probe protocol and child process, the library loader and its search lists,
//! and [`Detection`], [`Outcome`] and [`LibVersion`].
//!
//! A third vendor (Intel's `xpu` stack through Level Zero, say) is added the same way:
//!
//! 1. a folder `src/xpu/` with its report type (`XpuReport`) and a
//!    `pub(crate) fn probe(&ProbeConfig) -> Outcome<XpuReport>` that never panics, turns
//!    "not installed" into [`Outcome::Absent`] and a failure into [`Outcome::Unknown`] or a
//!    part of its report that says so, and keeps each `unsafe` block small with a
//!    `// SAFETY:` comment;
//! 2. a `Vendor::Xpu` variant (its `gpu_backends` name, last in [`Vendor::ALL`]) and a
//!    `VendorReport::Xpu` variant; the matches to extend have no catch-all arm, so the compiler
//!    lists them (`probe.rs`'s `wanted` and `probe_vendor`, [`VendorReport`]'s accessors, a
//!    `Detection::xpu()` beside [`Detection::cuda`]);
//! 3. its settings in `ProbeConfig` and [`Detector`] builder methods (explicit paths; nothing
//!    read from the environment), its library sonames as a `Spec` in `loader.rs`, and its
//!    library files in the disk-cache key;
//! 4. the probe and disk schemas bumped (both are checked, so an old reply or entry is refused
//!    or missed, never misread);
//! 5. fakes in `tests/fake/` and tests for absent, detected, failing, hanging and crashing;
//! 6. in `markerspec-env`, a `gpu/xpu.rs` that maps the report onto its marker fields and its
//!    `gpu_backends` member, registered in `gpu/mod.rs`, with the fields in SPEC §8.
//!
//! # Detection order
//!
//! NVIDIA's sources are tried in order and the first that answers wins; the order can be changed
//! with [`Detector::sources`].
//!
//! 1. **NVML**, `libnvidia-ml.so.1` (`nvml.dll` on Windows): `nvmlInit_v2`,
//!    `nvmlSystemGetDriverVersion`, `nvmlSystemGetCudaDriverVersion_v2`, `nvmlDeviceGetCount_v2`,
//!    `nvmlDeviceGetHandleByIndex_v2`, `nvmlDeviceGetCudaComputeCapability`, `nvmlDeviceGetName`,
//!    `nvmlDeviceGetUUID`, `nvmlDeviceGetMemoryInfo`, then `nvmlShutdown` (always paired with a
//!    successful init). Each `_v2` entry point falls back to the original for older drivers.
//! 2. **libcuda**, `libcuda.so.1` (`nvcuda.dll`): `cuInit(0)`, `cuDriverGetVersion`,
//!    `cuDeviceGetCount`, `cuDeviceGet`, `cuDeviceGetAttribute` 75 and 76 (compute capability),
//!    `cuDeviceGetName`, `cuDeviceTotalMem_v2`, `cuDeviceGetUuid`. The kernel driver's version
//!    comes from `/proc/driver/nvidia/version`.
//! 3. **nvidia-smi**: `--query-gpu=driver_version,compute_cap,uuid,memory.total,name
//!    --format=csv,noheader,nounits`, then the plain table for its `CUDA Version:` header.
//!
//! Each library is looked for in this order: the explicit path given to the [`Detector`]; then
//! the soname through the system loader (so `LD_LIBRARY_PATH`, the loader cache and the default
//! folders behave as users expect); then a per-OS folder list for installs the loader cache
//! does not list: WSL's `/usr/lib/wsl/lib`, `/usr/local/nvidia/lib64` in containers,
//! `/usr/lib64/nvidia`, Debian's `/usr/lib/<multiarch>/nvidia/current`, NixOS's
//! `/run/opengl-driver/lib`, and on Windows `%ProgramFiles%\NVIDIA Corporation\NVSMI` and
//! `System32`. [`Detector::search_system`]`(false)` limits detection to the explicit paths.
//!
//! What a source cannot tell is filled from elsewhere and said in the notes: the driver version
//! from `/proc/driver/nvidia/version`. The CUDA version has one source whichever source listed
//! the devices (SPEC §8.6, [`DriverApi`]): `cuDriverGetVersion` of libcuda after `cuInit(0)`
//! succeeded with at least one device; NVML's `nvmlSystemGetCudaDriverVersion` and
//! `nvidia-smi`'s `CUDA Version:` go to the notes only, because under a forward-compatibility
//! `libcuda.so.1` they name another version than the one a CUDA program gets. A value the
//! driver returns out of range (CUDA major 0 or above 99, say) is rejected with a note and left
//! `None`, never passed on.
//!
//! "Absent" means every source said "not here": library not installed,
//! `NVML_ERROR_DRIVER_NOT_LOADED`, `CUDA_ERROR_NO_DEVICE`, nvidia-smi's "couldn't communicate
//! with the NVIDIA driver". When no source answers and at least one exists but failed, the
//! answer is [`UnknownReason::Driver`]. NVML with a loaded driver and zero devices is a
//! detection with an empty device list. Return codes map to [`NvmlError`] and [`CudaError`]
//! through [`nvml_try`] and [`cuda_try`].
//!
//! Optional libraries, asked only when a driver answered: cuDNN (`libcudnn.so.9`, `.8`, `.7`,
//! `cudnnGetVersion`), NCCL (`libnccl.so.2`, `ncclGetVersion`), cuTENSOR (`libcutensor.so.2`,
//! `.1`, `cutensorGetVersion`); [`LibVersion::from_nvidia_code`] documents their encodings.
//! Each gets a [`LibraryStatus`]: not found, loaded but failed (with the reason), or its
//! version.
//!
//! ROCm (all of it read in the probe, see [`rocm`]): `libamdhip64.so` for
//! `hipRuntimeGetVersion`; `ROCM_PATH/.info/version` (default `/opt/rocm`) for the installed
//! release; the `gfx_target_version` and `unique_id` of each node under
//! `/sys/class/kfd/kfd/topology/nodes` for the GPU agents; `/dev/kfd` opened for reading and
//! writing for access.
//!
//! # Isolation
//!
//! Loading a driver runs its code: it can hang (a GPU stuck in a bad state) or crash the process.
//! [`Detector::detect`] therefore runs the probe in a child process:
//!
//! - the child is the `markerspec-gpu-probe` binary this crate ships when it sits beside the
//!   current executable, else the caller's own program, which must call
//!   [`run_probe_if_requested`] first thing in `main` (`markerspec-env` re-exports it), or the
//!   program given with [`Detector::probe_program`]. Re-running the caller needs no second file
//!   installed beside every program that embeds detection; the price is that one line;
//! - the child is **marked**: its environment holds `MARKERSPEC_GPU_PROBE_TOKEN`, a token made
//!   for this run and repeated in its configuration. A marked process never starts a probe: a
//!   program run as the probe that reaches detection instead (its `main` lacks the entry point)
//!   stops at once, and the parent answers [`UnknownReason::NoProbeEntryPoint`], whose message
//!   says how to fix it; any other marked process gets [`UnknownReason::InsideProbe`]. So a
//!   forgotten entry point is a clear Unknown, never a chain of processes;
//! - the hidden flag is honoured only with the matching token (arguments a caller passes
//!   through cannot turn the program into a library loader) and never while the process runs
//!   set-user-ID or set-group-ID;
//! - it gets a minimal, explicit environment: `PATH` and `LD_LIBRARY_PATH` (the caller's, or the
//!   values given with [`Detector::path_var`] and [`Detector::library_path_var`]), passed on
//!   deliberately because they decide which `nvidia-smi` runs and which libraries load; on
//!   Windows also `SystemRoot` and `ProgramFiles`; the token; and whatever the caller adds with
//!   [`Detector::child_env`]. Nothing else (no tokens of the caller's, no home) reaches it;
//! - stdin is closed, the working folder is `/`, output is capped (1 MiB), and the report is one
//!   JSON line whose schema is checked; while probing, the child points its stdout at stderr so
//!   that a chatty library cannot corrupt the report;
//! - it runs through `markerspec-process`: in a process group of its own, under one deadline
//!   ([`Detector::timeout`], default 10 s) for the whole run, and the group is killed and the
//!   child reaped whenever the run ends: at the deadline, and also after a normal exit, so a
//!   helper that kept the output pipe open neither delays nor spoils a valid report.
//!   `nvidia-smi` runs inside the probe's group (it dies with it) and within three quarters of
//!   the limit; `nvidia-smi` is looked up in the absolute folders of `PATH` only. A program
//!   that wants the probe to die with it on SIGINT or SIGTERM installs
//!   `markerspec_process::kill_children_on_signal()` (the command line tool does).
//!
//! A hang becomes [`UnknownReason::Timeout`], a crash [`UnknownReason::Crashed`] with the
//! signal or exit code, unreadable output [`UnknownReason::Garbage`].
//! [`Detector::detect_in_process`] skips the child for callers that accept the risk.
//!
//! # Caching
//!
//! Detections are remembered in this process's memory, keyed by the whole [`Detector`]
//! configuration ([`Detector::memory_cache`], [`clear_memory_cache`]). A disk cache is optional
//! ([`Detector::disk_cache`], [`default_cache_dir`]): one JSON file per configuration, in a
//! folder created with mode 0700, files created 0600 and written atomically (temporary file,
//! then rename). Its key holds the configuration, the library search path, the probe program,
//! the `PATH` and the variables given to the probe (`CUDA_VISIBLE_DEVICES`, …), the boot ID, the
//! contents of `/proc/driver/nvidia/version`, and the size, modification time and inode of
//! every driver and library file detection could load (and of `/etc/ld.so.cache` and
//! `nvidia-smi`), so a driver upgrade, an `ldconfig` run or a reboot invalidates it. Unknown
//! outcomes are never written.
//!
//! # Trust model
//!
//! A wrong fact installs a wrong wheel, so the cache must not be forgeable by another user.
//! An entry is used only when its folder and file are owned by the current user, not writable by
//! group or others, every folder above it belongs to the user or root and is not writable by
//! group or others unless sticky (as `/tmp` is), the file is a regular file reached without
//! following a link, smaller than 1 MiB, and its schema and key match exactly. Anything else is ignored, said in
//! [`Detection::notes`], and rewritten by this detection. (On Windows, where ownership is
//! expressed by ACLs, only the schema and key are checked; the per-user cache folder is private
//! by default.)
//!
//! The libraries loaded are the ones named by the caller or by the system loader's search, so
//! whoever controls `LD_LIBRARY_PATH` or the library folders controls the answer, as for any
//! program on the machine.
//!
//! # Safety
//!
//! This is the only crate of markerspec with `unsafe` code: the calls into the loaded libraries,
//! and a few libc calls (`geteuid`, descriptor juggling in the probe). Each block is small and
//! says why it is sound. Processes are started and killed by `markerspec-process`, which has no
//! `unsafe` code.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod cache;
pub mod cuda;
mod detector;
mod loader;
pub mod machine;
mod probe;
mod report;
pub mod rocm;

pub use cache::{clear_memory_cache, default_cache_dir};
pub use cuda::{
    CudaError, CudaReport, CudaVersion, Device, DriverApi, Libraries, LibraryStatus, NvmlError,
    Source, cuda_try, nvml_try,
};
pub use detector::{DEFAULT_TIMEOUT, Detector, PROBE_BINARY, detect};
pub use probe::{PROBE_FLAG, exit_if_started_as_probe, probe_main, run_probe_if_requested};
pub use report::{
    Detection, LibVersion, Origin, Outcome, UnknownReason, Vendor, VendorReport, VersionError,
};
pub use rocm::{DeviceAccess, GpuAgent, ReadState, Reading, RocmReport};

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
