//! Exact marker algebra: placeholder.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod cut;
mod dd;
mod error;
mod range;

pub use cut::{Cut, Point};
pub use dd::{Context, Domain, Label, Limits, Marker, Relation, RelationKind, Value, Var, Witness};
pub use error::{Error, ErrorKind, Limit};
pub use range::VersionSet;
