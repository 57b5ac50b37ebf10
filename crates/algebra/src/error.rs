//! The crate's one error type.

use std::fmt;

use crate::Domain;

/// An error of the algebra: a kind with a stable code.
///
/// ```
/// use markerspec_algebra::{Context, Domain, ErrorKind, Limits};
///
/// let mut ctx = Context::with_limits(Limits { steps: 3, ..Limits::default() });
/// let vars: Vec<_> = (0..8).map(|i| ctx.variable(i, &format!("x{i}"), Domain::Bool)).collect::<Result<_, _>>()?;
/// let mut m = markerspec_algebra::Marker::FALSE;
/// let mut err = None;
/// for pair in vars.chunks(2) {
///     let a = ctx.boolean(pair[0])?;
///     let b = ctx.boolean(pair[1])?;
///     match ctx.and(a, b).and_then(|ab| ctx.or(m, ab)) {
///         Ok(next) => m = next,
///         Err(e) => { err = Some(e); break; }
///     }
/// }
/// let err = err.expect("three steps are not enough");
/// assert_eq!(err.code(), "intractable");
/// assert!(matches!(err.kind(), ErrorKind::Intractable { .. }));
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Boxed, so that the operations' `Result<Marker, Error>` is two words, returned in
    /// registers on their hot paths.
    kind: Box<ErrorKind>,
}

/// What went wrong.
///
/// ```
/// use markerspec_algebra::{Context, Domain, ErrorKind};
///
/// let mut ctx = Context::new();
/// let py = ctx.variable(0, "python_full_version", Domain::Version)?;
/// let err = ctx.version_specifier(py, &"===1.0".parse()?).unwrap_err();
/// assert_eq!(err.kind(), &ErrorKind::ArbitraryEquality);
/// let err = ctx.string_eq(py, "3.12").unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::WrongDomain { .. }));
/// assert_eq!(err.code(), "wrong-domain");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An operation needed more than one of the context's [`Limits`](crate::Limits); code
    /// `intractable`. The context stays usable; nothing of the operation is returned.
    Intractable {
        /// Which limit was reached.
        limit: Limit,
    },
    /// A [`Marker`](crate::Marker) that this context did not build; code `foreign-marker`.
    ForeignMarker,
    /// A [`Var`](crate::Var) that this context did not declare; code `unknown-variable`.
    UnknownVariable,
    /// A variable used with a value or atom of another domain, or declared twice with
    /// different domains or ranks; code `wrong-domain`.
    WrongDomain {
        /// The variable's name.
        name: String,
        /// The variable's domain.
        expected: Domain,
    },
    /// A `===` specifier, which no set of version intervals expresses; code
    /// `arbitrary-equality`.
    ArbitraryEquality,
    /// A marker depends on a field that the environment leaves Unknown or missing; code
    /// `unknown-field`.
    UnknownField {
        /// The field's name.
        field: String,
    },
    /// pep508 could not evaluate a comparison in the environment (an undefined comparison
    /// under the `packaging` profile, a missing field); code `evaluation`.
    Evaluation {
        /// pep508's message.
        message: String,
    },
    /// A context used with two theories; code `mixed-theories`.
    MixedTheories {
        /// The context's theory.
        first: &'static str,
        /// The theory of the call.
        second: &'static str,
    },
    /// A witness that no environment realises (an opaque comparison the values could not
    /// satisfy); code `unverified-witness`.
    UnverifiedWitness,
    /// A marker that cannot be written in marker syntax: it needs the negation of a
    /// comparison that has no complement operator (`not (platform_release >= "5")` for an
    /// opaque `platform_release >= "5"`), or a set of a field's values that no comparison
    /// spells (`python_full_version in "" ∪ [3.11, 3.12.dev0)`); code `unprintable`.
    Unprintable {
        /// What has no marker syntax: `not (comparison)` or `field in set`.
        comparison: String,
    },
    /// The text given to [`Context::parse_marker`](crate::Context::parse_marker) is no marker;
    /// code `parse`. The parser's own error, with its code and span, is kept.
    Parse {
        /// What the parser reported.
        error: markerspec_pep508::Error,
    },
}

/// The limit an [`ErrorKind::Intractable`] operation reached.
///
/// ```
/// use markerspec_algebra::{Context, Domain, ErrorKind, Limit, Limits};
///
/// // A context that may hold no more than 2 nodes.
/// let mut ctx = Context::with_limits(Limits { nodes: 2, ..Limits::default() });
/// let x = ctx.variable(0, "x", Domain::Bool)?;
/// let y = ctx.variable(1, "y", Domain::Bool)?;
/// let (a, b) = (ctx.boolean(x)?, ctx.boolean(y)?);
/// let err = ctx.and(a, b).unwrap_err();
/// assert_eq!(err.kind(), &ErrorKind::Intractable { limit: Limit::Nodes });
/// # Ok::<(), markerspec_algebra::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::steps`](crate::Limits::steps): recursive steps of one operation.
    Steps,
    /// [`Limits::nodes`](crate::Limits::nodes): nodes held by the context.
    Nodes,
    /// [`Limits::depth`](crate::Limits::depth): recursion depth.
    Depth,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error {
            kind: Box::new(kind),
        }
    }

    pub(crate) fn intractable(limit: Limit) -> Error {
        Error::new(ErrorKind::Intractable { limit })
    }

    /// The kind of error.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The stable code: `intractable`, `foreign-marker`, `unknown-variable`, `wrong-domain`,
    /// `arbitrary-equality`, `unknown-field`, `evaluation`, `mixed-theories`,
    /// `unverified-witness`, `unprintable` or `parse`.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn code(&self) -> &'static str {
        match *self.kind {
            ErrorKind::Intractable { .. } => "intractable",
            ErrorKind::ForeignMarker => "foreign-marker",
            ErrorKind::UnknownVariable => "unknown-variable",
            ErrorKind::WrongDomain { .. } => "wrong-domain",
            ErrorKind::ArbitraryEquality => "arbitrary-equality",
            ErrorKind::UnknownField { .. } => "unknown-field",
            ErrorKind::Evaluation { .. } => "evaluation",
            ErrorKind::MixedTheories { .. } => "mixed-theories",
            ErrorKind::UnverifiedWitness => "unverified-witness",
            ErrorKind::Unprintable { .. } => "unprintable",
            ErrorKind::Parse { .. } => "parse",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.kind {
            ErrorKind::Intractable { limit } => {
                let what = match limit {
                    Limit::Steps => "step",
                    Limit::Nodes => "node",
                    Limit::Depth => "depth",
                };
                write!(f, "operation exceeds the {what} limit")
            }
            ErrorKind::ForeignMarker => f.write_str("marker does not belong to this context"),
            ErrorKind::UnknownVariable => f.write_str("variable does not belong to this context"),
            ErrorKind::WrongDomain { name, expected } => {
                write!(f, "variable `{name}` has domain {expected:?}")
            }
            ErrorKind::ArbitraryEquality => {
                f.write_str("`===` is not a set of version intervals; model it as its own atom")
            }
            ErrorKind::UnknownField { field } => {
                write!(
                    f,
                    "the marker depends on `{field}`, which the environment does not know"
                )
            }
            ErrorKind::Evaluation { message } => write!(f, "cannot evaluate: {message}"),
            ErrorKind::MixedTheories { first, second } => write!(
                f,
                "this context serves the theory `{first}`; use another context for `{second}`"
            ),
            ErrorKind::UnverifiedWitness => {
                f.write_str("no environment realises the witness (an opaque comparison)")
            }
            ErrorKind::Unprintable { comparison } => {
                write!(f, "`{comparison}` has no marker syntax")
            }
            ErrorKind::Parse { error } => write!(f, "cannot parse the marker: {error}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Parse { error } => Some(error),
            _ => None,
        }
    }
}
