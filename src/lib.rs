//! placeholder facade
pub use markerspec_pep440 as pep440;
pub use markerspec_pep508 as pep508;
