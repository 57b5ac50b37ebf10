//! The mock provider: environments from fixture files (SPEC §11 documents), built in or read
//! from disk.

use std::path::Path;

use markerspec_pep508::{Environment, FieldSet};

use crate::document::EnvironmentDocument;
use crate::facts::{Facts, Provenance, fact_fields};
use crate::provider::{EnvironmentProvider, ProviderError, ProviderErrorKind};

macro_rules! fixtures {
    ($($name:literal),* $(,)?) => {
        /// Every built-in fixture: (name, JSON text). They live in this crate's `fixtures/`
        /// (the repository's `spec/environments` points there), whose `README.md` describes each.
        ///
        /// ```
        /// use markerspec_env::{FIXTURES, FixtureProvider};
        ///
        /// let (name, json) = FIXTURES[0];
        /// assert_eq!(FixtureProvider::from_json(name, json).unwrap(), FixtureProvider::builtin(name).unwrap());
        /// ```
        pub const FIXTURES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../fixtures/", $name, ".json"))),)*
        ];
    };
}

fixtures!(
    "linux-aarch64-cpython-3.10-jetson-orin",
    "linux-aarch64-pypy-3.10",
    "linux-x86_64-cpython-3.10-laptop-no-gpu",
    "linux-x86_64-cpython-3.10-rocm-mi250",
    "linux-x86_64-cpython-3.12",
    "linux-x86_64-cpython-3.12-alpine-musl",
    "linux-x86_64-cpython-3.12-ci-gpu-masked",
    "linux-x86_64-cpython-3.12-conda-cudnn",
    "linux-x86_64-cpython-3.12-gpu-timeout",
    "linux-x86_64-cpython-3.12-h100-cuda12.8",
    "linux-x86_64-cpython-3.12-wsl2",
    "linux-x86_64-cpython-3.12-wsl2-rtx4090",
    "linux-x86_64-cpython-3.13-untagged",
    "linux-x86_64-cpython-3.13t",
    "linux-x86_64-cpython-3.14.0rc1",
    "linux-x86_64-cpython-3.9",
    "macos-arm64-cpython-3.13",
    "macos-arm64-cpython-3.13-apple-silicon",
    "macos-x86_64-cpython-3.12-rosetta",
    "windows-amd64-cpython-3.11",
    "windows-amd64-cpython-3.12-32bit",
    "windows-arm64-cpython-3.12",
);

/// The names of the built-in fixtures.
///
/// ```
/// assert!(markerspec_env::fixture_names().any(|n| n == "windows-amd64-cpython-3.11"));
/// ```
pub fn fixture_names() -> impl Iterator<Item = &'static str> {
    FIXTURES.iter().map(|(name, _)| *name)
}

/// A fixed environment from a fixture: a JSON document of SPEC §11.
///
/// The document is read by [`EnvironmentDocument`]: `$version`, keys that name no field
/// ignored with the warning `unknown-environment-key` (kept in [`facts`](Self::facts)'
/// warnings), `null` Unknown, `""` and `[]` Absent for extended fields, a missing field
/// Unknown, values checked and canonicalised as override values are. `extra`, `extras` and
/// `dependency_groups` are the caller's request, not facts, and are ignored here.
///
/// Every value's provenance is `fixture (NAME)`. Override variables do not apply to a fixture:
/// an environment given explicitly is used as given (SPEC §10.1).
///
/// ```
/// use markerspec_env::{EnvironmentProvider, FixtureProvider, fact_fields};
/// use markerspec_pep508::{Dialect, EnvValue, Field, MarkerTree, ParseOptions};
///
/// let h100 = FixtureProvider::builtin("linux-x86_64-cpython-3.12-h100-cuda12.8").unwrap();
/// let env = h100.environment();
/// let opts = ParseOptions::default().dialect(Dialect::Extended);
/// let m = MarkerTree::parse_with(r#""cuda" in gpu_backends and cuda_version >= "12""#, &opts, &mut Vec::new()).unwrap();
/// assert!(m.evaluate(&env).unwrap());
/// assert_eq!(h100.fixture_name(), "linux-x86_64-cpython-3.12-h100-cuda12.8");
/// assert_eq!(h100.facts().string(Field::CudaVersion), Some("12.8"));
///
/// // A document of one's own, from text or from a file (named by its path).
/// let mine = FixtureProvider::from_json("mine", r#"{"$version": "0.2", "cuda_version": "12.4"}"#).unwrap();
/// assert_eq!(mine.facts().string(Field::CudaVersion), Some("12.4"));
/// assert_eq!(mine.facts().value(Field::OsName), Some(&EnvValue::Unknown)); // not named
/// let path = std::env::temp_dir().join(format!("markerspec-doc-{}.json", std::process::id()));
/// std::fs::write(&path, r#"{"os_name": "nt"}"#).unwrap();
/// let from_file = FixtureProvider::from_file(&path);
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(from_file.unwrap().fixture_name(), path.display().to_string());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureProvider {
    name: String,
    facts: Facts,
}

impl FixtureProvider {
    /// A built-in fixture by name (see [`fixture_names`]).
    ///
    /// # Errors
    /// [`ProviderErrorKind::UnknownFixture`] listing the names, or an invalid fixture.
    pub fn builtin(name: &str) -> Result<FixtureProvider, ProviderError> {
        let Some((_, text)) = FIXTURES.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = fixture_names().collect();
            return Err(ProviderError::new(
                "fixture",
                ProviderErrorKind::UnknownFixture,
                format!(
                    "unknown fixture `{name}`; the fixtures are: {}",
                    names.join(", ")
                ),
            ));
        };
        FixtureProvider::from_json(name, text)
    }

    /// An environment document read from `path`; its name is the path as displayed.
    ///
    /// # Errors
    /// The file cannot be read ([`ProviderErrorKind::Io`]) or is not a valid document.
    ///
    /// See the example on [`FixtureProvider`].
    pub fn from_file(path: &Path) -> Result<FixtureProvider, ProviderError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ProviderError::new(
                "fixture",
                ProviderErrorKind::Io,
                format!("cannot read environment file {}: {e}", path.display()),
            )
        })?;
        let name = path.display().to_string();
        FixtureProvider::from_json(&name, &text)
    }

    /// An environment document from its text.
    ///
    /// # Errors
    /// [`ProviderErrorKind::InvalidEnvironment`], naming the key.
    ///
    /// See the example on [`FixtureProvider`].
    pub fn from_json(name: &str, text: &str) -> Result<FixtureProvider, ProviderError> {
        let invalid = |message: String| {
            ProviderError::new(
                "fixture",
                ProviderErrorKind::InvalidEnvironment,
                format!("invalid-environment in `{name}`: {message}"),
            )
        };
        let doc = EnvironmentDocument::parse(text).map_err(invalid)?;
        let mut facts = Facts::new();
        let provenance = Provenance::new("fixture", name.to_owned());
        for (field, value) in doc.values() {
            // `extra`, `extras` and `dependency_groups` are the caller's request, not facts.
            if fact_fields().contains(field) {
                facts.insert(field, value.clone(), provenance.clone());
            }
        }
        for warning in doc.warnings() {
            facts.warn(format!("{name}: {warning}"));
        }
        Ok(FixtureProvider {
            name: name.to_owned(),
            facts,
        })
    }

    /// The fixture's name.
    ///
    /// See the example on [`FixtureProvider`].
    pub fn fixture_name(&self) -> &str {
        &self.name
    }

    /// Every field of the fixture; a field the document does not name is Unknown.
    ///
    /// See the example on [`FixtureProvider`].
    pub fn facts(&self) -> Facts {
        self.provide(fact_fields()).unwrap_or_default()
    }

    /// The fixture as an evaluator's environment.
    ///
    /// See the example on [`FixtureProvider`].
    pub fn environment(&self) -> Environment {
        self.facts().to_environment()
    }
}

impl EnvironmentProvider for FixtureProvider {
    fn name(&self) -> &str {
        "fixture"
    }

    fn fields(&self) -> FieldSet {
        fact_fields()
    }

    fn provide(&self, request: FieldSet) -> Result<Facts, ProviderError> {
        let mut facts = self.facts.clone();
        facts.retain(request);
        for field in request.iter() {
            if facts.get(field).is_none() && fact_fields().contains(field) {
                facts.unknown(
                    field,
                    Provenance::new("fixture", self.name.clone())
                        .with_detail("not in the fixture (a missing field is Unknown)"),
                );
            }
        }
        Ok(facts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use markerspec_pep508::{Dialect, EnvValue, Field, MarkerTree, ParseOptions, Truth};

    #[test]
    fn every_builtin_fixture_is_valid_and_listed_once() {
        let mut names: Vec<&str> = fixture_names().collect();
        for name in &names {
            let fixture = FixtureProvider::builtin(name).unwrap();
            let warnings = fixture.facts().warnings().to_vec();
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FIXTURES.len());
        let on_disk = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"))
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension()? == "json")
                    .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
            })
            .count();
        assert_eq!(
            on_disk,
            FIXTURES.len(),
            "a file in spec/environments is not built in"
        );
    }

    #[test]
    fn new_fixtures_write_every_field() {
        for (name, text) in FIXTURES {
            let doc: serde_json::Value = serde_json::from_str(text).unwrap();
            if doc.get("gpu_backends").is_none() {
                continue; // the standard-only fixtures of the packaging oracle
            }
            for field in fact_fields().iter() {
                assert!(doc.get(field.name()).is_some(), "{name} lacks {field}");
            }
        }
    }

    #[test]
    fn unknown_names_and_invalid_documents() {
        let err = FixtureProvider::builtin("nope").unwrap_err();
        assert_eq!(err.kind(), ProviderErrorKind::UnknownFixture);
        assert!(
            err.message()
                .contains("linux-x86_64-cpython-3.12-h100-cuda12.8")
        );
        for (doc, needle) in [
            (r#"{"cuda_version": "twelve"}"#, "cuda_version"),
            (r#"{"$version": "1.0"}"#, "$version"),
            (r#"{"gpu_backends": "cuda"}"#, "list of strings"),
            (r#"{"gpu_backends": ["CUDA"]}"#, "gpu_backends"),
            (r#"{"python_version": ["3"]}"#, "must be a string"),
            (
                r#"{"os_name": "nt", "os_name": "posix"}"#,
                "duplicate key `os_name`",
            ),
            ("[1]", "expected a JSON object"),
        ] {
            let err = FixtureProvider::from_json("t", doc).unwrap_err();
            assert_eq!(err.kind(), ProviderErrorKind::InvalidEnvironment);
            assert!(err.message().contains(needle), "{err}");
            assert!(err.message().contains("invalid-environment"), "{err}");
        }
    }

    #[test]
    fn unknown_keys_are_warnings_kept_with_the_facts() {
        let f = FixtureProvider::from_json(
            "t",
            r#"{"$version": "0.2", "os_name": "nt", "cuda_verison": "12"}"#,
        )
        .unwrap();
        let facts = f.facts();
        assert_eq!(facts.string(Field::OsName), Some("nt"));
        assert_eq!(facts.warnings().len(), 1, "{:?}", facts.warnings());
        assert!(
            facts.warnings()[0].starts_with("t: unknown-environment-key: `cuda_verison`"),
            "{:?}",
            facts.warnings()
        );
    }

    #[test]
    fn a_byte_order_mark_is_accepted() {
        let f = FixtureProvider::from_json("t", "\u{feff}{\"os_name\": \"nt\"}").unwrap();
        assert_eq!(f.facts().string(Field::OsName), Some("nt"));
    }

    #[test]
    fn missing_fields_are_unknown_and_values_canonical() {
        let f = FixtureProvider::from_json(
            "t",
            r#"{"interpreter_arch": "AMD64", "cuda_version": "", "gpu_backends": []}"#,
        )
        .unwrap();
        let facts = f.facts();
        assert_eq!(facts.string(Field::InterpreterArch), Some("x86_64"));
        assert_eq!(facts.value(Field::CudaVersion), Some(&EnvValue::Absent));
        assert_eq!(facts.value(Field::GpuBackends), Some(&EnvValue::Absent));
        assert_eq!(facts.value(Field::PythonVersion), Some(&EnvValue::Unknown));
        assert_eq!(
            facts
                .get(Field::CudaVersion)
                .unwrap()
                .provenance
                .to_string(),
            "fixture (t)"
        );
    }

    fn eval(fixture: &str, marker: &str) -> Truth {
        let env = FixtureProvider::builtin(fixture).unwrap().environment();
        let opts = ParseOptions::default().dialect(Dialect::Extended);
        let m = MarkerTree::parse_with(marker, &opts, &mut Vec::new()).unwrap();
        m.evaluate_tristate(&env).unwrap().truth
    }

    /// SPEC §14's worked examples, on the fixtures that match their machines.
    #[test]
    fn fixtures_evaluate_the_worked_examples() {
        use Truth::{False, True, Unknown};
        let cuda12 = r#""cuda" in gpu_backends and cuda_version >= "12""#;
        let cpu = r#""cuda" not in gpu_backends or cuda_version < "12""#;
        let cudnn = r#""cuda" in gpu_backends and cudnn_version == """#;
        let ft = r#""free-threading" in sys_abi_features"#;
        let scipy = r#"platform_system != "Windows" or "32-bit" not in sys_abi_features"#;
        let cases: &[(&str, &str, Truth)] = &[
            // 14.1
            ("linux-x86_64-cpython-3.12-h100-cuda12.8", cuda12, True),
            ("linux-x86_64-cpython-3.12-h100-cuda12.8", cpu, False),
            ("linux-x86_64-cpython-3.10-laptop-no-gpu", cuda12, False),
            ("linux-x86_64-cpython-3.10-laptop-no-gpu", cpu, True),
            (
                "linux-x86_64-cpython-3.10-laptop-no-gpu",
                r#"cuda_version < "12""#,
                False,
            ),
            // SPEC §4.3: `!=` is true on an Absent field (0.1: false).
            (
                "linux-x86_64-cpython-3.10-laptop-no-gpu",
                r#"cuda_version != "12.8""#,
                True,
            ),
            ("linux-x86_64-cpython-3.12-wsl2-rtx4090", cuda12, True),
            ("linux-aarch64-cpython-3.10-jetson-orin", cuda12, True),
            (
                "linux-aarch64-cpython-3.10-jetson-orin",
                r#"cuda_compute_capability >= "8.7" and "8.7" in cuda_compute_capabilities and interpreter_arch == "aarch64""#,
                True,
            ),
            // 14.2: the H100 has cuDNN 9, so the pip copy is not needed; the WSL box has none.
            ("linux-x86_64-cpython-3.12-h100-cuda12.8", cudnn, False),
            ("linux-x86_64-cpython-3.12-wsl2-rtx4090", cudnn, True),
            ("linux-x86_64-cpython-3.10-laptop-no-gpu", cudnn, False),
            // 14.3
            ("linux-x86_64-cpython-3.13t", ft, True),
            (
                "linux-x86_64-cpython-3.13t",
                r#"python_abi_tag == "cp313t""#,
                True,
            ),
            ("linux-x86_64-cpython-3.12-h100-cuda12.8", ft, False),
            // 14.4
            ("windows-amd64-cpython-3.12-32bit", scipy, False),
            (
                "windows-amd64-cpython-3.12-32bit",
                r#"platform_machine == "AMD64" and interpreter_arch == "x86""#,
                True,
            ),
            (
                "windows-amd64-cpython-3.12-32bit",
                r#"interpreter_arch == "x86_64""#,
                False,
            ),
            ("linux-x86_64-cpython-3.12-h100-cuda12.8", scipy, True),
            // 8.4
            (
                "linux-x86_64-cpython-3.12-alpine-musl",
                r#"glibc_version >= "2.17" or musl_version >= "1.2""#,
                True,
            ),
            (
                "linux-x86_64-cpython-3.12-alpine-musl",
                r#"glibc_version >= "2.28""#,
                False,
            ),
            // 8.3
            (
                "macos-arm64-cpython-3.13-apple-silicon",
                r#"interpreter_arch == "aarch64" and platform_machine == "arm64""#,
                True,
            ),
            (
                "macos-arm64-cpython-3.13-apple-silicon",
                r#""cuda" in gpu_backends"#,
                False,
            ),
            // 8.9
            (
                "linux-x86_64-cpython-3.10-rocm-mi250",
                r#""rocm" in gpu_backends and rocm_version >= "6.2" and "gfx90a" in rocm_gpu_archs"#,
                True,
            ),
            // 14.5, non-variant wheel context
            (
                "linux-x86_64-cpython-3.12-h100-cuda12.8",
                r#""nvidia" in variant_namespaces"#,
                False,
            ),
            // 14.6
            ("linux-x86_64-cpython-3.12-gpu-timeout", cuda12, Unknown),
            (
                "linux-x86_64-cpython-3.12-gpu-timeout",
                r#"sys_platform == "win32" and "cuda" in gpu_backends"#,
                False,
            ),
            (
                "linux-x86_64-cpython-3.12-gpu-timeout",
                r#"sys_platform == "linux" or cuda_version >= "12""#,
                True,
            ),
        ];
        for (fixture, marker, want) in cases {
            assert_eq!(eval(fixture, marker), *want, "{fixture}: {marker}");
        }
    }

    /// The fixtures of SPEC 0.2's detection rules, each evaluated as the SPEC says.
    #[test]
    fn fixtures_of_the_0_2_detection_rules() {
        use Truth::{False, True};
        let rosetta = "macos-x86_64-cpython-3.12-rosetta";
        let masked = "linux-x86_64-cpython-3.12-ci-gpu-masked";
        let conda = "linux-x86_64-cpython-3.12-conda-cudnn";
        let cuda12 = r#""cuda" in gpu_backends and cuda_version >= "12""#;
        // SPEC §8.10: the cu12 wheel's cuDNN, only when no usable cuDNN is found.
        let cudnn =
            r#""cuda" in gpu_backends and (cudnn_version == "" or cudnn_cuda_version < "12")"#;
        let cases: &[(&str, &str, Truth)] = &[
            // §8.12: under Rosetta 2 every 0.1 field says x86_64; host_arch says the CPU.
            (
                rosetta,
                r#"host_arch == "aarch64" and interpreter_arch == "x86_64""#,
                True,
            ),
            (
                rosetta,
                r#"platform_machine == "x86_64" and sys_platform == "darwin""#,
                True,
            ),
            (rosetta, r#"host_arch == "x86_64""#, False),
            (rosetta, r#""cuda" in gpu_backends"#, False),
            (
                "macos-arm64-cpython-3.13-apple-silicon",
                r#"host_arch == "aarch64" and interpreter_arch == "aarch64""#,
                True,
            ),
            (
                "windows-amd64-cpython-3.12-32bit",
                r#"host_arch == "x86_64" and interpreter_arch == "x86""#,
                True,
            ),
            // §8.5: an install step run with CUDA_VISIBLE_DEVICES="" still sees its GPUs, so
            // the CUDA build is chosen (tests/device_masks.rs detects this fixture's GPU facts).
            (masked, cuda12, True),
            (
                masked,
                r#""cuda" not in gpu_backends or cuda_version < "12""#,
                False,
            ),
            // §8.8: "any device of at least 9.0", which the minimum cannot say.
            (masked, r#"cuda_compute_capability_max >= "9.0""#, True),
            (masked, r#"cuda_compute_capability >= "9.0""#, False),
            (masked, r#""9.0" in cuda_compute_capabilities"#, True),
            // §8.10: the conda environment's cuDNN 9 (built for CUDA 12.6, found through the
            // interpreter's RPATH) serves the cu12 wheel: no duplicate from PyPI.
            (conda, cudnn, False),
            (
                conda,
                r#"cudnn_version >= "9" and cudnn_cuda_version >= "12""#,
                True,
            ),
            // Without a cuDNN the wheel's copy is needed.
            ("linux-x86_64-cpython-3.12-wsl2-rtx4090", cudnn, True),
        ];
        for (fixture, marker, want) in cases {
            assert_eq!(eval(fixture, marker), *want, "{fixture}: {marker}");
        }
        // The 0.2 fixtures say which rules they follow, and every key is a field.
        for name in [rosetta, masked, conda] {
            let text = FIXTURES.iter().find(|(n, _)| *n == name).unwrap().1;
            let doc = EnvironmentDocument::parse(text).unwrap();
            assert_eq!(doc.version(), (0, 2), "{name}");
            assert!(doc.warnings().is_empty(), "{name}: {:?}", doc.warnings());
        }
    }
}
