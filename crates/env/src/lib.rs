//! Environment providers for markerspec (draft docs; completed below).

#![forbid(unsafe_code)]

mod facts;
mod host;
mod libc;
mod overrides;
mod process;
mod provider;
mod python;
mod values;

pub use facts::{Fact, Facts, Provenance, fact_fields, variant_fields};
pub use host::HostProvider;
pub use overrides::{CONDA_OVERRIDE_CUDA, Overrides, override_variable, process_is_setid};
pub use provider::{EnvironmentProvider, Layers, ProviderError, ProviderErrorKind};
pub use python::{DEFAULT_PYTHON, PROBE_SCRIPT, PythonProvider};
pub use values::{canonical_arch, parse_override, validate};
