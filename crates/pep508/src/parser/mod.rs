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

use crate::builder::MarkerBuilder;
use crate::environment::Environment;
use crate::error::{Error, Reporter};
use crate::field::Dialect;
use crate::marker::MarkerTree;
use crate::options::ParseOptions;
use crate::requirement::Requirement;
use crate::truth::{Evaluation, Tri};
use cursor::Parser;
use marker::{Stream, Value};

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

impl Requirement {
    /// Parses a requirement with `options` and evaluates it with three values in `env`: what
    /// [`Requirement::parse_with`] followed by [`MarkerTree::evaluate_tristate`] on its marker
    /// answers (true when it has none), with the same errors and warnings, without keeping the
    /// requirement: under the `pep508` dialect, outside the `uv` profile, each comparison is
    /// evaluated as it is read and nothing else is built.
    ///
    /// ```
    /// use markerspec_pep508::{Environment, Field, ParseOptions, Requirement, Truth};
    /// let env = Environment::new().with(Field::SysPlatform, "linux").unwrap();
    /// let opts = ParseOptions::default();
    /// let e = Requirement::parse_and_evaluate("numpy>=2; sys_platform == 'linux'", &opts, &mut Vec::new(), &env)?;
    /// assert_eq!(e.truth, Truth::True);
    /// let e = Requirement::parse_and_evaluate("numpy>=2; extra == 'gpu'", &opts, &mut Vec::new(), &env)?;
    /// assert_eq!(e.truth, Truth::False);
    /// assert!(Requirement::parse_and_evaluate("numpy>=x", &opts, &mut Vec::new(), &env).is_err());
    /// # Ok::<(), markerspec_pep508::Error>(())
    /// ```
    ///
    /// # Errors
    /// A parse error as [`Requirement::parse_with`] gives it, else an evaluation error as
    /// [`MarkerTree::evaluate_tristate`] gives it.
    pub fn parse_and_evaluate(
        text: &str,
        options: &ParseOptions,
        reporter: &mut dyn Reporter,
        env: &Environment,
    ) -> Result<Evaluation, Error> {
        if options.dialect == Dialect::Pep508 && !options.profile.rules().uv_syntax {
            let eval = env.eval();
            let mut value = Value {
                env: &eval,
                profile: options.profile,
                failed: false,
            };
            let tri = Parser::new(text, options, reporter).evaluate_requirement(&mut value)?;
            if !value.failed {
                return Ok(tri.unwrap_or(Tri::known(true)).evaluation());
            }
            // A comparison cannot be evaluated: the tree's evaluation says what is reported
            // (the warnings were reported already).
            return Requirement::parse_with(text, options, &mut |_| {})?.evaluate_tree(env);
        }
        Requirement::parse_with(text, options, reporter)?.evaluate_tree(env)
    }

    fn evaluate_tree(&self, env: &Environment) -> Result<Evaluation, Error> {
        match self.marker() {
            None => Ok(Tri::known(true).evaluation()),
            Some(m) => m.evaluate_tristate(env),
        }
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

impl MarkerTree {
    /// Parses a marker with `options`, building its value with `builder` as it is read: what
    /// [`MarkerTree::parse_with`] followed by [`MarkerTree::build_into`] gives, with the same
    /// errors and warnings, without building the syntax tree under the `pep508` dialect. (The
    /// `extended` dialect's checks read the whole tree: there it is built first.)
    ///
    /// See the example on [`MarkerBuilder`].
    ///
    /// # Errors
    /// A coded [`Error`] with the span of the first problem, as [`MarkerTree::parse_with`]
    /// gives it; `builder` may have been given part of the marker.
    pub fn parse_into<B: MarkerBuilder + ?Sized>(
        text: &str,
        options: &ParseOptions,
        reporter: &mut dyn Reporter,
        builder: &mut B,
    ) -> Result<B::Value, Error> {
        if options.dialect != Dialect::Pep508 {
            let tree = MarkerTree::parse_with(text, options, reporter)?;
            return Ok(tree.build_into(builder));
        }
        let mut stream = Stream { builder };
        let value = Parser::new(text, options, reporter).parse_full_marker_with(&mut stream)?;
        Ok(match value {
            Some(v) => v,
            // Every comparison dropped: the marker always holds.
            None => stream.builder.constant(true),
        })
    }

    /// This marker's value, built with `builder`: each comparison, and each `and` and `or`
    /// of the tree with its children's values.
    ///
    /// See the example on [`MarkerBuilder`].
    pub fn build_into<B: MarkerBuilder + ?Sized>(&self, builder: &mut B) -> B::Value {
        crate::builder::build_node(self.node(), builder)
    }
}

impl FromStr for MarkerTree {
    type Err = Error;
    /// Parses with the default [`ParseOptions`] (the `pep508` dialect), discarding warnings.
    fn from_str(s: &str) -> Result<Self, Error> {
        MarkerTree::parse_with(s, &ParseOptions::default(), &mut |_| {})
    }
}
