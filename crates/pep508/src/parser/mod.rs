//! The parser, one grammar per file: the lexeme layer ([`cursor`]), the requirement grammar
//! ([`requirement`]), the marker grammar ([`marker`]) and the `uv` profile's requirement tail
//! ([`uv`]).
//!
//! nom stays private to this module tree: its types never reach a public signature, and every
//! failure becomes an [`Error`] through one `error` helper.

mod cursor;
mod marker;
mod requirement;
mod uv;

use std::str::FromStr;

use crate::error::{Error, Reporter};
use crate::marker::MarkerTree;
use crate::options::ParseOptions;
use crate::requirement::Requirement;
use cursor::Parser;

// ---------------------------------------------------------------------------------------------
// Entry points

impl Requirement {
    /// Parses a requirement with `options`, reporting warnings to `reporter`.
    ///
    /// # Errors
    /// A coded [`Error`] with the span of the first problem.
    pub fn parse_with(
        text: &str,
        options: &ParseOptions,
        reporter: &mut dyn Reporter,
    ) -> Result<Requirement, Error> {
        Parser::new(text, options, reporter).parse_requirement()
    }
}

impl FromStr for Requirement {
    type Err = Error;
    /// Parses with the default [`ParseOptions`] (the `pep508` dialect), discarding warnings.
    fn from_str(s: &str) -> Result<Self, Error> {
        Requirement::parse_with(s, &ParseOptions::default(), &mut |_| {})
    }
}

impl MarkerTree {
    /// Parses a marker with `options`, reporting warnings to `reporter`.
    ///
    /// # Errors
    /// A coded [`Error`] with the span of the first problem.
    pub fn parse_with(
        text: &str,
        options: &ParseOptions,
        reporter: &mut dyn Reporter,
    ) -> Result<MarkerTree, Error> {
        Parser::new(text, options, reporter).parse_full_marker()
    }
}

impl FromStr for MarkerTree {
    type Err = Error;
    /// Parses with the default [`ParseOptions`] (the `pep508` dialect), discarding warnings.
    fn from_str(s: &str) -> Result<Self, Error> {
        MarkerTree::parse_with(s, &ParseOptions::default(), &mut |_| {})
    }
}
