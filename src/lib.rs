#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

/// The marker algebra: canonical form, relations with witnesses, restriction, residuals,
/// theories and printing (`markerspec-algebra`).
pub use markerspec_algebra as algebra;
/// PEP 440 versions and version specifiers (`markerspec-pep440`).
pub use markerspec_pep440 as pep440;
/// PEP 508 requirements and markers, both dialects (`markerspec-pep508`).
pub use markerspec_pep508 as pep508;

/// The version of the extended marker specification (`spec/SPEC.md`) this release implements.
pub const SPEC_VERSION: &str = "0.2.0";
