//! Environment providers: the facts a marker is evaluated against, detected on a real machine
//! (or read from a fixture), each with its provenance.
//!
//! A resolver makes three calls: parse the requirements (`markerspec-pep508`), get the target
//! environment from this crate, and evaluate each requirement there with the extras requested:
//!
//! ```
//! use markerspec_env::FixtureProvider;
//! use markerspec_pep508::{Dialect, ParseOptions, Requirement};
//!
//! let opts = ParseOptions::default().dialect(Dialect::Extended);
//! let req = Requirement::parse_with(
//!     r#"cupy-cuda12x; "cuda" in gpu_backends and cuda_version >= "12""#,
//!     &opts,
//!     &mut Vec::new(),
//! )
//! .unwrap();
//! let env = FixtureProvider::builtin("linux-x86_64-cpython-3.12-h100-cuda12.8")
//!     .unwrap()
//!     .environment();
//! assert!(req.evaluate(&env, &[] as &[&str]).unwrap());
//! ```
//!
//! Detecting this machine instead, with each fact's provenance:
//!
//! ```no_run
//! use markerspec_env::DetectOptions;
//! use markerspec_pep508::{Dialect, Field, MarkerTree, ParseOptions};
//!
//! fn main() -> Result<(), markerspec_env::ProviderError> {
//!     // First thing in `main`: GPU detection may run this program again as its isolated
//!     // probe child, and this call is where that child does its work and exits.
//!     markerspec_env::run_probe_if_requested();
//!
//!     let facts = DetectOptions::from_process().detect()?;
//!     for (field, fact) in facts.iter() {
//!         println!("{field} = {:?}   [{}]", fact.value, fact.provenance);
//!     }
//!     let env = facts.to_environment();
//!     let opts = ParseOptions::default().dialect(Dialect::Extended);
//!     let marker =
//!         MarkerTree::parse_with(r#""cuda" in gpu_backends"#, &opts, &mut Vec::new()).unwrap();
//!     println!("{:?}", marker.evaluate_tristate(&env));
//!     Ok(())
//! }
//! ```
//!
//! # The GPU probe and `main`
//!
//! GPU detection loads vendor driver libraries, which can hang or crash the process that loads
//! them, so it runs them in a child process (see `markerspec-gpu`). The child is the
//! `markerspec-gpu-probe` binary when it sits beside the program; otherwise it is **the
//! program itself**, started with a hidden flag, which [`run_probe_if_requested`] recognises.
//! This design needs no second file to install next to every program that embeds detection,
//! at the price of one line in `main`.
//!
//! A program that forgets the line gets a clear answer, never a runaway: the child is marked
//! with a per-run token in its environment, a marked process never starts another probe, and
//! the child stops as soon as it reaches detection. The GPU fields are then Unknown with a
//! reason that names the fix. The hidden flag is honoured only with the token its parent set
//! (and never in a set-user-ID or set-group-ID process), so passing arguments through to the
//! program cannot turn it into a library loader.
//!
//! # Scope of this crate
//!
//! The [`EnvironmentProvider`] trait and the providers that ship with markerspec:
//!
//! - [`HostProvider`]: the operating system's standard fields (`uname`), the CPU's
//!   architecture seen through emulation (`host_arch`) and the C library (`glibc_version`,
//!   `musl_version`), without Python;
//! - [`PythonProvider`]: one run of a Python interpreter with an embedded probe script, for
//!   every standard field, `sys_abi_features`, `python_abi_tag`, `interpreter_arch` and the C
//!   library the interpreter runs on;
//! - [`GpuProvider`]: the GPU fields, from `markerspec-gpu`'s isolated probe of each vendor's
//!   stack (NVIDIA's CUDA, AMD's ROCm), with provenance layers named after the stack;
//! - [`LibraryProvider`]: `cudnn_version`, `cudnn_cuda_version`, `nccl_version` and
//!   `cutensor_version` as the target interpreter loads the libraries (SPEC 0.2 §8.10), from a
//!   probe script the interpreter runs once per library;
//! - [`FixtureProvider`]: fixed environments from SPEC §11 documents, including the built-in
//!   fixtures of `spec/environments/`, this crate's `fixtures/` ([`FIXTURES`]);
//! - [`Overrides`]: the `MARKERSPEC_<FIELD>` variables and conda's `CONDA_OVERRIDE_CUDA`,
//!   `CONDA_OVERRIDE_GLIBC` and `CONDA_OVERRIDE_CUDA_ARCH`, completed by the derivations of
//!   SPEC §10.3 and checked against the invariants of §4.4 ([`check_invariants`]).
//!
//! Values are [`Facts`]: per field a [`markerspec_pep508::EnvValue`] (Known, Absent or
//! Unknown) with a [`Provenance`] that names the layer and method, and says why a value is
//! Unknown. [`Facts::to_environment`] gives the evaluator's
//! [`Environment`](markerspec_pep508::Environment); [`Facts::to_json`] the SPEC §11 document
//! (`markerspec eval --env` reads it back).
//!
//! What each field means and how it is detected is SPEC §7 and §8; this crate follows them and
//! its providers' docs say how. Parsing and evaluating markers is `markerspec-pep508`'s job;
//! loading driver libraries is `markerspec-gpu`'s, the only crate with `unsafe` code.
//!
//! # Layering
//!
//! [`Layers`] stacks providers: later layers replace earlier values field by field, the override
//! variables apply last (SPEC §10.1), and every requested field no layer answered is Unknown.
//! [`DetectOptions::layers`] is the standard stack: host, python, gpu, the optional libraries
//! from the same interpreter, the (Absent) variant fields, overrides. A layer added with [`Layers::with_optional`] that fails leaves its fields
//! Unknown with the error as the reason, instead of failing the detection; the default
//! `python3` is such a layer, since SPEC §8 answers "no interpreter" with Unknown.
//!
//! A fixture is an environment given explicitly: override variables do not apply to it.
//!
//! # Trust model
//!
//! A wrong fact installs a wrong wheel.
//!
//! - Providers never turn a failure into Absent: Absent needs positive evidence (no driver
//!   library, zero devices, no such file). A timeout, a crash or unreadable output is Unknown
//!   with the reason.
//! - The [`PythonProvider`] and the [`LibraryProvider`] **execute the interpreter they are
//!   given** (in isolated mode, `-I -S`, with a time limit), and the latter makes it load the
//!   NVIDIA libraries it finds; give them only interpreters you would run anyway. A bare name such as
//!   `python3` is looked up in the absolute folders of `PATH` only (an empty or relative entry
//!   would mean the current folder), and its answers are validated as any other source's. The host provider runs
//!   the C library's loader (`ld.so --version`, the musl loader) found in `/bin/sh`'s ELF
//!   header. GPU detection runs vendor code in `markerspec-gpu`'s child process, with a
//!   minimal environment and a time limit, and its disk cache (when enabled) is private to the
//!   user and validated; see that crate.
//! - Nothing here reads the process environment behind the caller's back: variables
//!   (overrides, `PATH`, `LD_LIBRARY_PATH`, the visible-device variables) come from a map the
//!   caller passes ([`DetectOptions::vars`]). The command line passes its own environment.
//!   Overrides are the user's own and are recorded as provenance; they are ignored, with a
//!   warning, in a set-user-ID or set-group-ID process ([`process_is_setid`]).
//! - Fixtures and environment documents ([`EnvironmentDocument`]) are validated as overrides
//!   are (versions, set member formats, the architecture table, the invariants of SPEC §4.4)
//!   and rejected with `invalid-environment`; a key that names no field is ignored with the
//!   warning `unknown-environment-key`.
//!
//! Every provider is `Send + Sync` and cheap to construct; detection happens in
//! [`EnvironmentProvider::provide`]. The host and python providers keep their answer per
//! provider value; the GPU detector keeps its answer in its process-wide memory cache.

#![forbid(unsafe_code)]

mod detect;
mod document;
mod facts;
mod fixture;
mod gpu;
mod host;
mod host_arch;
mod invariants;
mod libc;
mod libraries;
mod overrides;
mod provider;
mod python;
mod values;

pub use detect::{DetectOptions, NoWheelContext};
pub use document::{DOCUMENT_VERSION, DocumentWarning, EnvironmentDocument, VERSION_KEY};
pub use facts::{Fact, Facts, Provenance, fact_fields, variant_fields};
pub use fixture::{FIXTURES, FixtureProvider, fixture_names};
#[allow(deprecated)]
pub use gpu::CudaProvider;
pub use gpu::{DEVICE_MASKS, GPU_FIELDS, GpuProvider};
pub use host::HostProvider;
pub use invariants::{Violation, check_invariants};
pub use libraries::{LIBRARY_FIELDS, LIBRARY_PROBE_SCRIPT, LibraryProvider};
pub use overrides::{
    CONDA_OVERRIDE_CUDA, CONDA_OVERRIDE_CUDA_ARCH, CONDA_OVERRIDE_GLIBC, Overrides, apply_settings,
    override_variable, process_is_setid,
};
pub use provider::{EnvironmentProvider, Layers, ProviderError, ProviderErrorKind};
pub use python::{DEFAULT_PYTHON, PROBE_SCRIPT, PythonProvider};
pub use values::{canonical_arch, check_input, parse_override, validate};

/// Re-exported from `markerspec-gpu`: call it first thing in `main` (see [the crate
/// docs](crate#the-gpu-probe-and-main)).
pub use markerspec_gpu::run_probe_if_requested;

// The README's examples run with the doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
