//! The canonical spelling table of `interpreter_arch` (`spec/SPEC.md` §8.3).

/// (canonical, aliases, the 32-bit form used when the pointer size is 4).
const TABLE: &[(&str, &[&str], Option<&str>)] = &[
    (
        "x86_64",
        &["amd64", "x64", "x86-64", "em64t", "intel64"],
        Some("x86"),
    ),
    (
        "x86",
        &["i386", "i486", "i586", "i686", "win32", "ia32"],
        None,
    ),
    ("aarch64", &["arm64", "arm64e"], Some("arm")),
    (
        "arm",
        &["armv6l", "armv7l", "armv7", "armv8l", "arm32"],
        None,
    ),
    ("ppc64le", &["powerpc64le"], None),
    ("ppc64", &["powerpc64"], Some("ppc")),
    ("ppc", &["powerpc"], None),
    ("s390x", &[], Some("s390")),
    ("s390", &[], None),
    ("riscv64", &[], Some("riscv32")),
    ("riscv32", &[], None),
    ("loongarch64", &[], None),
    ("wasm32", &[], None),
];

/// What a raw architecture name is in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArchSpelling {
    /// A canonical spelling, e.g. `x86_64`.
    Canonical(&'static str),
    /// An alias of a canonical spelling, e.g. `AMD64` for `x86_64`.
    Alias(&'static str),
    /// Not in the table.
    Unknown,
}

/// Looks a raw architecture name up, case-insensitively.
pub(crate) fn arch_spelling(raw: &str) -> ArchSpelling {
    let lower = raw.to_ascii_lowercase();
    for (canonical, aliases, _) in TABLE {
        if *canonical == lower {
            return if raw == *canonical {
                ArchSpelling::Canonical(canonical)
            } else {
                ArchSpelling::Alias(canonical)
            };
        }
        if aliases.contains(&lower.as_str()) {
            return ArchSpelling::Alias(canonical);
        }
    }
    ArchSpelling::Unknown
}

/// The canonical `interpreter_arch` (`spec/SPEC.md` §8.3) for a raw machine name and the
/// interpreter's pointer size in bits: surrounding whitespace ignored, mapped through the table
/// case-insensitively, lowercased when unknown, and narrowed to the 32-bit form when
/// `pointer_bits` is `Some(32)` (a 32-bit userland on a 64-bit kernel).
///
/// ```
/// use markerspec_pep508::canonical_arch;
/// assert_eq!(canonical_arch("AMD64", None), "x86_64");
/// assert_eq!(canonical_arch("x86_64", Some(32)), "x86");
/// assert_eq!(canonical_arch("arm64", Some(64)), "aarch64");
/// assert_eq!(canonical_arch(" MIPS ", Some(32)), "mips");
/// ```
pub fn canonical_arch(raw: &str, pointer_bits: Option<u32>) -> String {
    let raw = raw.trim();
    let canonical = match arch_spelling(raw) {
        ArchSpelling::Canonical(c) | ArchSpelling::Alias(c) => c.to_string(),
        ArchSpelling::Unknown => return raw.to_ascii_lowercase(),
    };
    if pointer_bits == Some(32) {
        if let Some((_, _, Some(narrow))) = TABLE.iter().find(|(c, _, _)| *c == canonical) {
            return (*narrow).to_string();
        }
    }
    canonical
}
