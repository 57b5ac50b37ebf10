//! The registry of marker variables ("fields"): names, aliases, types and dialects.

use std::fmt;

/// Which marker language a parser accepts.
///
/// One parser serves both dialects; the dialect only decides which variable names exist.
///
/// ```
/// use markerspec_pep508::{Dialect, MarkerTree, ParseOptions};
///
/// let text = r#"cuda_version >= "12""#;
/// let err = text.parse::<MarkerTree>().unwrap_err(); // the default dialect is `pep508`
/// assert_eq!(err.code(), "M003");
/// let opts = ParseOptions::default().dialect(Dialect::Extended);
/// assert!(MarkerTree::parse_with(text, &opts, &mut Vec::new()).is_ok());
/// assert_eq!(Dialect::Extended.as_str(), "extended");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Dialect {
    /// Exactly the living PyPA "Dependency specifiers" specification: the standard fields and
    /// `extra`, `extras`, `dependency_groups`. An extended field name is an error with a hint.
    #[default]
    Pep508,
    /// The standard fields plus the extended fields of markerspec's `spec/SPEC.md` (GPU, CUDA
    /// libraries, ABI, interpreter architecture and wheel variants).
    Extended,
}

impl Dialect {
    /// The dialect's name as the command line and the conformance vectors spell it.
    ///
    /// See the example on [`Dialect`].
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Pep508 => "pep508",
            Dialect::Extended => "extended",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Dialect {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pep508" => Ok(Dialect::Pep508),
            "extended" => Ok(Dialect::Extended),
            other => Err(format!(
                "unknown dialect `{other}`, expected `pep508` or `extended`"
            )),
        }
    }
}

/// The type of a marker field, which decides how its comparisons are evaluated.
///
/// The types follow the 2026 text of the "Dependency specifiers" specification.
///
/// ```
/// use markerspec_pep508::{Field, FieldType};
///
/// assert_eq!(Field::PythonVersion.field_type(), FieldType::Version);
/// assert_eq!(Field::OsName.field_type(), FieldType::String);
/// assert_eq!(Field::GpuBackends.field_type(), FieldType::Set);
/// assert_eq!(FieldType::VersionOrString.as_str(), "Version | String");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum FieldType {
    /// Compared as a string: `==`/`!=` exactly, `<=`/`>=` as `==`, `<`/`>` false,
    /// `in`/`not in` as substring tests.
    String,
    /// Compared with PEP 440 version rules when both sides are valid versions, else as a string.
    Version,
    /// `Version | String` in the specification (`platform_release`, `platform_version`): a
    /// version comparison when both sides are versions, otherwise a string comparison.
    VersionOrString,
    /// A set of strings; only `"literal" in field` and `"literal" not in field` are defined.
    Set,
    /// The legacy `extra` variable: compared against the extras being requested, with name
    /// normalisation.
    Extra,
}

impl FieldType {
    /// The type's name in the specification's words.
    ///
    /// See the example on [`FieldType`].
    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::String => "String",
            FieldType::Version => "Version",
            FieldType::VersionOrString => "Version | String",
            FieldType::Set => "Set of strings",
            FieldType::Extra => "extra",
        }
    }
}

/// The format of a field's values and of the quoted strings compared with it
/// (`spec/SPEC.md` §8, §9): one column of the field registry, see [`Field::format`].
///
/// ```
/// use markerspec_pep508::{Field, ValueFormat};
///
/// assert_eq!(Field::PythonVersion.format(), ValueFormat::Text);
/// assert_eq!(Field::CudaVersion.format(), ValueFormat::Version);
/// assert_eq!(Field::Extra.format(), ValueFormat::Name);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueFormat {
    /// Any string (the standard fields, `python_abi_tag`).
    Text,
    /// A PEP 440 version (the extended version fields).
    Version,
    /// A package, extra or group name, compared normalised (PEP 685, 735).
    Name,
    /// An architecture, canonicalised through the table of §8.3.
    Arch,
    /// A variant label, `[0-9a-z_.]+`.
    VariantLabel,
    /// A variant namespace.
    VariantNamespace,
    /// A `namespace :: feature` pair.
    VariantFeature,
    /// A `namespace :: feature :: value` property.
    VariantProperty,
    /// A PEP 780 ABI feature, `[a-z0-9-]+`.
    AbiFeature,
    /// A GPU backend name, `[a-z0-9_]+`.
    GpuBackend,
    /// A compute capability, `major.minor`.
    ComputeCapability,
    /// A GFX target, `gfx` and hexadecimal digits.
    GfxTarget,
}

macro_rules! fields {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $ty:ident, $ext:literal, $fmt:ident; )*) => {
        /// A marker variable.
        ///
        ///
        /// ```
        /// use markerspec_pep508::{Dialect, Field};
        ///
        /// assert_eq!(Field::from_name("python_version", Dialect::Pep508), Some(Field::PythonVersion));
        /// assert_eq!(Field::from_name("cuda_version", Dialect::Pep508), None);
        /// assert_eq!(Field::from_name("cuda_version", Dialect::Extended), Some(Field::CudaVersion));
        /// assert_eq!(Field::PythonVersion.name(), "python_version");
        /// assert!(Field::CudaVersion.is_extended());
        /// assert_eq!(Field::from_name("os.name", Dialect::Pep508), Some(Field::OsName)); // an alias
        /// assert_eq!(Field::from_canonical_name("os.name"), None);
        /// assert_eq!(Field::from_canonical_name("cuda_version"), Some(Field::CudaVersion));
        /// assert_eq!(Field::CudaVersion.field_type().as_str(), "Version");
        /// assert_eq!(Field::ALL[Field::CudaVersion.index()], Field::CudaVersion);
        /// ```
        ///
        /// The first fourteen are the standard fields of the "Dependency specifiers"
        /// specification; the rest exist only in the [`Dialect::Extended`] dialect.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Field {
            $( $(#[$doc])* $variant, )*
        }

        impl Field {
            /// Every field, standard first, in registry order.
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];
            /// The number of fields.
            pub const COUNT: usize = Field::ALL.len();

            /// The field's canonical name, as it is written in a marker.
            ///
            /// See the example on [`Field`].
            pub const fn name(self) -> &'static str {
                match self { $(Field::$variant => $name,)* }
            }

            /// The field's type.
            ///
            /// See the example on [`Field`].
            pub fn field_type(self) -> FieldType {
                match self { $(Field::$variant => FieldType::$ty,)* }
            }

            /// The format of the field's values and quoted literals (`spec/SPEC.md` §8, §9),
            /// which the parser's checks, [`Environment`](crate::Environment), environment
            /// documents and overrides all read from here.
            ///
            /// ```
            /// use markerspec_pep508::{Field, ValueFormat};
            /// assert_eq!(Field::GpuBackends.format(), ValueFormat::GpuBackend);
            /// assert_eq!(Field::GpuBackends.format().check("CUDA").unwrap_err(),
            ///     "`CUDA` is not a GPU backend name (`[a-z0-9_]+`, e.g. `cuda`)");
            /// ```
            pub fn format(self) -> ValueFormat {
                match self { $(Field::$variant => ValueFormat::$fmt,)* }
            }

            /// Whether the field exists only in the extended dialect.
            ///
            /// See the example on [`Field`].
            pub fn is_extended(self) -> bool {
                match self { $(Field::$variant => $ext,)* }
            }

            /// Looks a canonical field name up (no aliases), in any dialect.
            ///
            /// See the example on [`Field`].
            pub fn from_canonical_name(name: &str) -> Option<Field> {
                match name { $($name => Some(Field::$variant),)* _ => None }
            }
        }
    };
}

fields! {
    /// `os_name`: Python's `os.name` (`posix`, `nt`, `java`).
    OsName = "os_name", String, false, Text;
    /// `sys_platform`: Python's `sys.platform` (`linux`, `darwin`, `win32`).
    SysPlatform = "sys_platform", String, false, Text;
    /// `platform_machine`: Python's `platform.machine()` (`x86_64`, `AMD64`, `arm64`).
    PlatformMachine = "platform_machine", String, false, Text;
    /// `platform_python_implementation`: Python's `platform.python_implementation()`.
    PlatformPythonImplementation = "platform_python_implementation", String, false, Text;
    /// `platform_release`: Python's `platform.release()`.
    PlatformRelease = "platform_release", VersionOrString, false, Text;
    /// `platform_system`: Python's `platform.system()` (`Linux`, `Windows`, `Darwin`).
    PlatformSystem = "platform_system", String, false, Text;
    /// `platform_version`: Python's `platform.version()`; `Version | String` in the merged
    /// 2026 text ("may be a valid version field, for example on iOS or Android"). The
    /// `packaging` and `uv` profiles compare it as a string, as those tools do.
    PlatformVersion = "platform_version", VersionOrString, false, Text;
    /// `python_version`: `'.'.join(platform.python_version_tuple()[:2])`.
    PythonVersion = "python_version", Version, false, Text;
    /// `python_full_version`: Python's `platform.python_version()`.
    PythonFullVersion = "python_full_version", Version, false, Text;
    /// `implementation_name`: Python's `sys.implementation.name`.
    ImplementationName = "implementation_name", String, false, Text;
    /// `implementation_version`: derived from `sys.implementation.version`.
    ImplementationVersion = "implementation_version", Version, false, Text;
    /// `extra`: the extra being installed; defined only by a containing layer (core metadata).
    Extra = "extra", Extra, false, Name;
    /// `extras`: the extras requested when installing from a lock file.
    Extras = "extras", Set, false, Name;
    /// `dependency_groups`: the dependency groups requested when installing from a lock file.
    DependencyGroups = "dependency_groups", Set, false, Name;
    /// `variant_label`: the label of the selected variant wheel (PEP 825).
    VariantLabel = "variant_label", String, true, VariantLabel;
    /// `variant_namespaces`: the namespaces of the selected variant's properties.
    VariantNamespaces = "variant_namespaces", Set, true, VariantNamespace;
    /// `variant_features`: the `namespace :: feature` pairs of the selected variant.
    VariantFeatures = "variant_features", Set, true, VariantFeature;
    /// `variant_properties`: the `namespace :: feature :: value` properties of the selected variant.
    VariantProperties = "variant_properties", Set, true, VariantProperty;
    /// `sys_abi_features`: ABI features of the interpreter (PEP 780).
    SysAbiFeatures = "sys_abi_features", Set, true, AbiFeature;
    /// `python_abi_tag`: the interpreter's ABI tag, e.g. `cp313t`.
    PythonAbiTag = "python_abi_tag", String, true, Text;
    /// `interpreter_arch`: the architecture the interpreter binary was built for.
    InterpreterArch = "interpreter_arch", String, true, Arch;
    /// `glibc_version`: the glibc the interpreter runs on.
    GlibcVersion = "glibc_version", Version, true, Version;
    /// `musl_version`: the musl libc the interpreter runs on.
    MuslVersion = "musl_version", Version, true, Version;
    /// `gpu_backends`: usable accelerator stacks (`cuda`, `rocm`, …).
    GpuBackends = "gpu_backends", Set, true, GpuBackend;
    /// `cuda_version`: the highest CUDA version the installed driver supports.
    CudaVersion = "cuda_version", Version, true, Version;
    /// `nvidia_driver_version`: the NVIDIA kernel-mode driver version (a `Version` field since
    /// specification 0.2, §4.3).
    NvidiaDriverVersion = "nvidia_driver_version", Version, true, Version;
    /// `cuda_compute_capability`: the lowest compute capability among visible devices.
    CudaComputeCapability = "cuda_compute_capability", Version, true, Version;
    /// `cuda_compute_capabilities`: every visible device's compute capability.
    CudaComputeCapabilities = "cuda_compute_capabilities", Set, true, ComputeCapability;
    /// `cudnn_version`: the cuDNN library loadable here.
    CudnnVersion = "cudnn_version", Version, true, Version;
    /// `nccl_version`: the NCCL library loadable here.
    NcclVersion = "nccl_version", Version, true, Version;
    /// `cutensor_version`: the cuTENSOR library loadable here.
    CutensorVersion = "cutensor_version", Version, true, Version;
    /// `rocm_version`: the ROCm/HIP runtime version.
    RocmVersion = "rocm_version", Version, true, Version;
    /// `rocm_gpu_archs`: the GFX architectures of visible AMD GPUs.
    RocmGpuArchs = "rocm_gpu_archs", Set, true, GfxTarget;
    /// `host_arch`: the architecture of the machine's CPU, seen through emulation (Rosetta 2,
    /// WoW64), in the canonical spelling of `interpreter_arch` (`spec/SPEC.md` §8.12).
    HostArch = "host_arch", String, true, Arch;
    /// `cuda_compute_capability_max`: the highest compute capability among visible devices
    /// (`spec/SPEC.md` §8.8).
    CudaComputeCapabilityMax = "cuda_compute_capability_max", Version, true, Version;
    /// `cudnn_cuda_version`: the CUDA runtime version the cuDNN found here was built for
    /// (`cudnnGetCudartVersion`, `spec/SPEC.md` §8.10).
    CudnnCudaVersion = "cudnn_cuda_version", Version, true, Version;
}

/// PEP 345 spellings that the specification's grammar (and every tool) still accepts.
const ALIASES: &[(&str, Field)] = &[
    ("os.name", Field::OsName),
    ("sys.platform", Field::SysPlatform),
    ("platform.version", Field::PlatformVersion),
    ("platform.machine", Field::PlatformMachine),
    (
        "platform.python_implementation",
        Field::PlatformPythonImplementation,
    ),
    ("python_implementation", Field::PlatformPythonImplementation),
];

/// What a variable name resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// A canonical name.
    Canonical(Field),
    /// A legacy alias of a field.
    Alias(Field),
    /// A field that exists only in the other dialect.
    WrongDialect(Field),
    /// Not a field.
    Unknown,
}

impl Field {
    /// The index of the field in [`Field::ALL`].
    ///
    /// See the example on [`Field`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The number of release components an extended `Version` field's values are documented
    /// to have (`spec/SPEC.md` §5.1): an `==` / `!=` literal with fewer components is padded
    /// with zeros by PEP 440, so `cuda_version == "12"` means `12.0` (warning
    /// `short-version-literal`). `None` for the fields with no fixed precision.
    ///
    /// ```
    /// use markerspec_pep508::Field;
    /// assert_eq!(Field::CudaVersion.precision(), Some(2));
    /// assert_eq!(Field::CudnnVersion.precision(), Some(3));
    /// assert_eq!(Field::NvidiaDriverVersion.precision(), None);
    /// ```
    pub fn precision(self) -> Option<usize> {
        match self {
            Field::CudaVersion
            | Field::GlibcVersion
            | Field::CudaComputeCapability
            | Field::CudaComputeCapabilityMax
            | Field::CudnnCudaVersion => Some(2),
            Field::CudnnVersion
            | Field::NcclVersion
            | Field::CutensorVersion
            | Field::RocmVersion => Some(3),
            _ => None,
        }
    }

    /// Looks a name up as a marker in `dialect` would: canonical names and the PEP 345 aliases
    /// (`os.name`, `python_implementation`, …). Returns `None` for unknown names and for extended
    /// fields in the `pep508` dialect.
    ///
    /// See the example on [`Field`].
    pub fn from_name(name: &str, dialect: Dialect) -> Option<Field> {
        match lookup(name, dialect) {
            Lookup::Canonical(f) | Lookup::Alias(f) => Some(f),
            Lookup::WrongDialect(_) | Lookup::Unknown => None,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Field {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Field::from_canonical_name(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown marker field `{s}`")))
    }
}

pub(crate) fn lookup(name: &str, dialect: Dialect) -> Lookup {
    // One hash and one comparison (this runs on every variable the parser reads, and on the
    // first word of every line the command line reads).
    let b = name.as_bytes();
    let len = b.len();
    if !(5..=30).contains(&len) {
        return Lookup::Unknown;
    }
    let w0 = if len >= 8 { load(b, 0) } else { word(b, 0) };
    let w1 = if len >= 16 { load(b, 8) } else { 0 };
    let w2 = if len >= 8 { load(b, len - 8) } else { w0 };
    let slot = slot_of(w0, w1, w2, len);
    let Some((known, field, alias)) = NAMES[slot] else {
        return Lookup::Unknown;
    };
    if known != name {
        return Lookup::Unknown;
    }
    if alias {
        return Lookup::Alias(field);
    }
    if field.is_extended() && dialect == Dialect::Pep508 {
        return Lookup::WrongDialect(field);
    }
    Lookup::Canonical(field)
}

/// The multiplier of [`name_slot`]'s hash, chosen so that no two names of [`NAMES`] share a
/// slot (the table's construction fails to compile otherwise).
const NAME_HASH: u64 = 0xe1ce_30ed_e554_4415;

/// The little-endian word of the 8 bytes of `b` from `at`, zero past its end.
const fn word(b: &[u8], at: usize) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < 8 {
        if at + i < b.len() {
            w |= (b[at + i] as u64) << (8 * i);
        }
        i += 1;
    }
    w
}

/// [`word`] where the 8 bytes are all in `b`, in one load.
#[inline]
fn load(b: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    if let Some(bytes) = b.get(at..at + 8) {
        w.copy_from_slice(bytes);
    }
    u64::from_le_bytes(w)
}

/// The slot of a name in [`NAMES`]: a hash of its length, its first 8 bytes, its last 8 and,
/// for a name of 16 bytes or more, bytes 8 to 15. (Every name is 5 to 30 bytes long.)
const fn name_slot(b: &[u8]) -> usize {
    let len = b.len();
    let w0 = word(b, 0);
    let w1 = if len >= 16 { word(b, 8) } else { 0 };
    let w2 = if len >= 8 { word(b, len - 8) } else { w0 };
    slot_of(w0, w1, w2, len)
}

#[inline]
const fn slot_of(w0: u64, w1: u64, w2: u64, len: usize) -> usize {
    let key = w0 ^ w1.rotate_left(21) ^ w2.rotate_left(43) ^ len as u64;
    (key.wrapping_mul(NAME_HASH) >> 57) as usize
}

/// Every canonical name and alias at its [`name_slot`], with its field and whether it is an
/// alias.
///
/// Every name and alias is spelt with `[a-z_.]` (checked here), which the command line's
/// first-token test relies on.
static NAMES: [Option<(&str, Field, bool)>; 128] = {
    const fn spelt_plainly(name: &[u8]) -> bool {
        let mut i = 0;
        while i < name.len() {
            let c = name[i];
            if !(c.is_ascii_lowercase() || c == b'_' || c == b'.') {
                return false;
            }
            i += 1;
        }
        true
    }
    let mut table: [Option<(&str, Field, bool)>; 128] = [None; 128];
    let mut i = 0;
    while i < Field::ALL.len() {
        let field = Field::ALL[i];
        let name = field.name().as_bytes();
        assert!(
            name.len() >= 5 && name.len() <= 30,
            "a field name outside 5..=30 bytes"
        );
        assert!(spelt_plainly(name), "a field name outside `[a-z_.]`");
        let slot = name_slot(name);
        assert!(
            table[slot].is_none(),
            "two field names share a slot: change NAME_HASH"
        );
        table[slot] = Some((field.name(), field, false));
        i += 1;
    }
    let mut i = 0;
    while i < ALIASES.len() {
        let (alias, field) = ALIASES[i];
        assert!(
            alias.len() >= 5 && alias.len() <= 30,
            "an alias outside 5..=30 bytes"
        );
        assert!(
            spelt_plainly(alias.as_bytes()),
            "an alias outside `[a-z_.]`"
        );
        let slot = name_slot(alias.as_bytes());
        assert!(
            table[slot].is_none(),
            "two field names share a slot: change NAME_HASH"
        );
        table[slot] = Some((alias, field, true));
        i += 1;
    }
    table
};

/// The closest field name to `name` in `dialect`, for "did you mean" hints.
pub(crate) fn suggest(name: &str, dialect: Dialect) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase().replace(['.', '-'], "_");
    let mut best: Option<(usize, &'static str)> = None;
    for field in Field::ALL {
        if field.is_extended() && dialect == Dialect::Pep508 {
            continue;
        }
        let d = edit_distance(&lower, field.name());
        let limit = (field.name().len() / 3).max(2);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, field.name()));
        }
    }
    best.map(|(_, n)| n)
}

/// Levenshtein distance on bytes, bounded in cost by the short names it is used with.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_found_and_nothing_else() {
        for f in Field::ALL {
            let found = lookup(f.name(), Dialect::Extended);
            assert_eq!(found, Lookup::Canonical(*f), "{}", f.name());
            let pep508 = lookup(f.name(), Dialect::Pep508);
            if f.is_extended() {
                assert_eq!(pep508, Lookup::WrongDialect(*f));
            } else {
                assert_eq!(pep508, Lookup::Canonical(*f));
            }
        }
        for (alias, f) in ALIASES {
            assert_eq!(lookup(alias, Dialect::Pep508), Lookup::Alias(*f), "{alias}");
        }
        for other in [
            "",
            "o",
            "os",
            "os_nam",
            "os_namee",
            "OS_NAME",
            "python_versions",
            "extra_",
            "platform-python-implementation",
            "torch",
            "numpy",
            "cuda_compute_capability_maxx",
            "a_very_long_name_that_is_no_field_at_all_0123456789",
            // Same slot as `platform_python_implementation` (bytes 16 to 21 are not hashed).
            "platform_python_xxxxxxentation",
            "os_name\0",
        ] {
            assert_eq!(lookup(other, Dialect::Extended), Lookup::Unknown, "{other}");
        }
    }

    #[test]
    fn registry_is_consistent() {
        for (i, f) in Field::ALL.iter().enumerate() {
            assert_eq!(f.index(), i);
            assert_eq!(Field::from_canonical_name(f.name()), Some(*f));
        }
        assert_eq!(Field::ALL.iter().filter(|f| !f.is_extended()).count(), 14);
    }

    #[test]
    fn aliases_and_dialects() {
        assert_eq!(
            Field::from_name("os.name", Dialect::Pep508),
            Some(Field::OsName)
        );
        assert_eq!(
            Field::from_name("python_implementation", Dialect::Pep508),
            Some(Field::PlatformPythonImplementation)
        );
        assert_eq!(Field::from_name("cuda_version", Dialect::Pep508), None);
        assert_eq!(
            Field::from_name("cuda_version", Dialect::Extended),
            Some(Field::CudaVersion)
        );
        assert_eq!(Field::from_name("platform.release", Dialect::Pep508), None);
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("python_versoin", Dialect::Pep508),
            Some("python_version")
        );
        assert_eq!(suggest("os_nam", Dialect::Pep508), Some("os_name"));
        assert_eq!(suggest("zzzzzzzz", Dialect::Pep508), None);
        assert_eq!(suggest("cuda_versio", Dialect::Pep508), None);
        assert_eq!(
            suggest("cuda_versio", Dialect::Extended),
            Some("cuda_version")
        );
    }
}
