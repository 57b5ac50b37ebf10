//! Exact marker algebra (placeholder docs, replaced below).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod cut;
mod range;

pub use cut::{Cut, Point};
pub use range::VersionSet;
