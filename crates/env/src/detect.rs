//! The standard stack: host, python, gpu, the optional libraries from the interpreter, no wheel
//! context, overrides.

use std::ffi::OsString;
use std::time::Duration;

use markerspec_pep508::FieldSet;

use crate::facts::{Facts, Provenance, variant_fields};
use crate::gpu::{GPU_FIELDS, GpuProvider};
use crate::host::HostProvider;
use crate::libraries::LibraryProvider;
use crate::overrides::{Overrides, process_is_setid};
use crate::provider::{EnvironmentProvider, Layers, ProviderError};
use crate::python::PythonProvider;

/// How to detect this machine: what `markerspec env` and `markerspec eval` without `--env` use.
///
/// ```
/// use markerspec_env::DetectOptions;
/// use markerspec_pep508::Field;
///
/// // The host and the interpreter, without the GPU probe.
/// let options = DetectOptions { gpu: false, ..DetectOptions::from_process() };
/// let facts = options.detect()?;
/// let os = facts.get(Field::OsName).expect("the host answers os_name");
/// println!("os_name = {:?} [{}]", os.value, os.provenance);
/// for warning in facts.warnings() {
///     println!("warning: {warning}"); // no python3 on PATH, say
/// }
/// # Ok::<(), markerspec_env::ProviderError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DetectOptions {
    /// The interpreter to ask. `None` asks `python3` on `PATH` and, when there is none, leaves
    /// the interpreter fields Unknown with a warning; a given interpreter that cannot be run is
    /// an error.
    pub python: Option<OsString>,
    /// Whether to detect GPUs (when `false`, the GPU fields are Unknown: not looked at).
    pub gpu: bool,
    /// Time limit for each program detection runs (the interpreter, the GPU probe).
    pub timeout: Duration,
    /// The process environment as the caller sees it: `PATH`, `LD_LIBRARY_PATH`, the visible
    /// device variables, and the override variables are read from here, never from the
    /// process itself.
    pub vars: Vec<(OsString, OsString)>,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            python: None,
            gpu: true,
            timeout: Duration::from_secs(10),
            vars: Vec::new(),
        }
    }
}

impl DetectOptions {
    /// The defaults, with the variables of this process (`std::env::vars_os()`).
    ///
    /// See the example on [`DetectOptions`].
    pub fn from_process() -> DetectOptions {
        DetectOptions {
            vars: std::env::vars_os().collect(),
            ..DetectOptions::default()
        }
    }

    fn var(&self, name: &str) -> Option<&OsString> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// The layers: [`HostProvider`], [`PythonProvider`], [`GpuProvider`] without its own
    /// library probe and [`LibraryProvider`] from the same interpreter (or, without GPU
    /// detection, Unknown GPU and library fields), Absent variant fields (no wheel is being installed), then
    /// the [`Overrides`] from the variables (ignored under set-ID execution).
    pub fn layers(&self) -> Layers {
        let mut python = match &self.python {
            Some(program) => PythonProvider::with_program(program.clone()),
            None => PythonProvider::new(),
        }
        .timeout(self.timeout);
        if let Some(path) = self.var("PATH") {
            python = python.path_var(path.clone());
        }
        let layers = Layers::new().with(HostProvider::new().timeout(self.timeout));
        let layers = if self.python.is_some() {
            layers.with(python.clone())
        } else {
            layers.with_optional(python.clone())
        };
        let layers = if self.gpu {
            // SPEC 0.2 §8.10: the optional libraries as the target interpreter loads them, not
            // as the GPU probe (a child of this program) would.
            let libraries = LibraryProvider::new(python.clone())
                .timeout(self.timeout)
                .vars(self.vars.iter().cloned());
            layers
                .with(
                    GpuProvider::new()
                        .optional_libraries(false)
                        .timeout(self.timeout)
                        .vars(self.vars.iter().cloned()),
                )
                .with(libraries)
        } else {
            layers.with(Fixed::unknown(
                "gpu",
                GPU_FIELDS.into_iter().collect(),
                "GPU detection was turned off (--no-gpu)",
            ))
        };
        let overrides = Overrides::from_vars_os(self.vars.iter().map(|(k, v)| (k, v)))
            .setid(process_is_setid());
        layers.with(NoWheelContext).with_overrides(overrides)
    }

    /// Detects every fact field.
    ///
    /// A program started as the GPU probe whose `main` lacks
    /// [`run_probe_if_requested`](crate::run_probe_if_requested) exits here, before the host and
    /// interpreter layers start any program of their own (its parent reports the missing entry
    /// point).
    ///
    /// # Errors
    /// A given interpreter that cannot be run, or an invalid override variable.
    ///
    /// See the example on [`DetectOptions`].
    pub fn detect(&self) -> Result<Facts, ProviderError> {
        markerspec_gpu::exit_if_started_as_probe();
        self.layers().provide(crate::facts::fact_fields())
    }
}

/// The variant fields without a wheel: Absent (SPEC §8.11).
///
/// ```
/// use markerspec_env::{Layers, NoWheelContext, variant_fields};
/// use markerspec_pep508::{EnvValue, Field};
///
/// let facts = Layers::new().with(NoWheelContext).provide(variant_fields()).unwrap();
/// assert_eq!(facts.value(Field::VariantLabel), Some(&EnvValue::Absent));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoWheelContext;

impl EnvironmentProvider for NoWheelContext {
    fn name(&self) -> &str {
        "context"
    }

    fn fields(&self) -> FieldSet {
        variant_fields()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        let p = Provenance::new("context", "no wheel").with_detail(
            "the variant fields describe the wheel being installed (PEP 825), and there is none",
        );
        for field in request.iter().filter(|f| variant_fields().contains(*f)) {
            facts.absent(field, p.clone());
        }
        Ok(facts)
    }
}

/// A layer that answers fixed fields Unknown, for detection that was turned off.
struct Fixed {
    name: &'static str,
    fields: FieldSet,
    why: &'static str,
}

impl Fixed {
    fn unknown(name: &'static str, fields: FieldSet, why: &'static str) -> Fixed {
        Fixed { name, fields, why }
    }
}

impl EnvironmentProvider for Fixed {
    fn name(&self) -> &str {
        self.name
    }

    fn fields(&self) -> FieldSet {
        self.fields
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = Facts::new();
        for field in request.iter().filter(|f| self.fields.contains(*f)) {
            facts.unknown(
                field,
                Provenance::new(self.name, "skipped").with_detail(self.why),
            );
        }
        Ok(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::fact_fields;
    use markerspec_pep508::{EnvValue, Field};

    #[test]
    fn without_gpu_and_with_a_missing_default_python() {
        let options = DetectOptions {
            gpu: false,
            vars: vec![
                ("PATH".into(), "/nonexistent".into()),
                ("MARKERSPEC_CUDA_VERSION".into(), "12.4".into()),
            ],
            ..DetectOptions::default()
        };
        let facts = options.detect().unwrap();
        assert_eq!(facts.fields(), fact_fields());
        // No python3 on that PATH: Unknown with the reason, and a warning.
        let python = facts.get(Field::PythonVersion).unwrap();
        assert_eq!(python.value, EnvValue::Unknown);
        assert!(python.provenance.detail().unwrap().contains("python3"));
        assert!(facts.warnings().iter().any(|w| w.contains("python3")));
        // GPU detection off: Unknown, except what the override says.
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Unknown));
        assert_eq!(facts.string(Field::CudaVersion), Some("12.4"));
        assert_eq!(facts.value(Field::VariantLabel), Some(&EnvValue::Absent));
        assert!(facts.string(Field::SysPlatform).is_some());
    }

    #[test]
    fn a_given_interpreter_must_run() {
        let options = DetectOptions {
            python: Some("/nonexistent/python".into()),
            gpu: false,
            ..DetectOptions::default()
        };
        let err = options.detect().unwrap_err();
        assert!(err.to_string().contains("/nonexistent/python"), "{err}");
    }

    #[test]
    fn an_invalid_override_is_an_error() {
        let options = DetectOptions {
            gpu: false,
            vars: vec![("MARKERSPEC_GPU_BACKENDS".into(), "CUDA".into())],
            ..DetectOptions::default()
        };
        let err = options.detect().unwrap_err();
        assert!(err.to_string().contains("MARKERSPEC_GPU_BACKENDS"), "{err}");
    }
}
