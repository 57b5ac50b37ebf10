//! Every line parsed by each of the three implementations, shared by `markerspec-compare` and
//! `compare-memory`: every implementation must accept every line, or the comparison is not
//! like for like.

use std::str::FromStr;

/// markerspec's requirements.
pub fn ours(lines: &[&str]) -> Vec<markerspec_pep508::Requirement> {
    lines
        .iter()
        .map(|l| markerspec_pep508::Requirement::from_str(l).expect("markerspec parses"))
        .collect()
}

/// uv-pep508's requirements.
pub fn uv(lines: &[&str]) -> Vec<uv_pep508::Requirement<uv_pep508::VerbatimUrl>> {
    lines
        .iter()
        .map(|l| uv_pep508::Requirement::from_str(l).expect("uv parses"))
        .collect()
}

/// pep508_rs's requirements.
pub fn rs(lines: &[&str]) -> Vec<pep508_rs::Requirement<pep508_rs::VerbatimUrl>> {
    lines
        .iter()
        .map(|l| pep508_rs::Requirement::from_str(l).expect("pep508_rs parses"))
        .collect()
}
