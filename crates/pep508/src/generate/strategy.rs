//! [`proptest`](mod@proptest) strategies for markers, requirements and environments (feature `proptest`).
//!
//! Each strategy draws a random byte vector and runs the generator of the parent module on
//! it, so proptest shrinks a failing case by shrinking its bytes (toward shorter, simpler
//! text: with fewer bytes every choice falls to its first option).
//!
//! ```
//! use markerspec_pep508::generate::{Options, strategy};
//! use proptest::prelude::*;
//!
//! proptest!(|(case in strategy::marker(Options::valid()))| {
//!     prop_assert!(case.text.parse::<markerspec_pep508::MarkerTree>().is_ok());
//! });
//! ```

use arbitrary::Unstructured;
use proptest::prelude::*;

pub use markerspec_pep440::generate::strategy::{specifiers, version};

use super::{GeneratedMarker, NearMiss, Options};
use crate::Environment;

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..1024)
}

/// Markers as [`super::marker`] generates them with `options`.
pub fn marker(options: Options) -> impl Strategy<Value = GeneratedMarker> {
    bytes().prop_filter_map("the generator gave up", move |b| {
        super::marker(&mut Unstructured::new(&b), &options).ok()
    })
}

/// Requirement text as [`super::requirement`] prints it with `options`.
pub fn requirement(options: Options) -> impl Strategy<Value = String> {
    bytes().prop_filter_map("the generator gave up", move |b| {
        super::requirement(&mut Unstructured::new(&b), &options).ok()
    })
}

/// Near misses of valid markers ([`super::near_miss`]).
pub fn near_miss_marker(options: Options) -> impl Strategy<Value = NearMiss> {
    bytes().prop_filter_map("the generator gave up", move |b| {
        let mut u = Unstructured::new(&b);
        let m = super::marker(&mut u, &options).ok()?;
        super::near_miss(&mut u, &m.text).ok()
    })
}

/// Environments for the odd corners ([`super::environment`]): fields unset, Unknown, Absent
/// or any string.
pub fn environment() -> impl Strategy<Value = Environment> {
    bytes().prop_filter_map("the generator gave up", |b| {
        super::environment(&mut Unstructured::new(&b), &[]).ok()
    })
}

/// Environments a real interpreter could report ([`super::realistic_environment`]).
pub fn realistic_environment(options: Options) -> impl Strategy<Value = Environment> {
    bytes().prop_filter_map("the generator gave up", move |b| {
        super::realistic_environment(&mut Unstructured::new(&b), &options, &[]).ok()
    })
}
