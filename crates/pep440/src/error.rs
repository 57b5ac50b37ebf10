//! The crate's single error type.
//!
//! Every error is data: a [`ErrorKind`] (with a stable code), a byte span into the text that was
//! parsed, and the few details needed to word the message. Rendering the input with carets is
//! left to the caller (the project's shared renderer), so an [`Error`] never holds the input.

use std::fmt;
use std::ops::Range;

use crate::specifier::Operator;

/// The limit on the length of any text this crate parses, in bytes (64 KiB).
///
/// A version, a specifier or a comma-separated list of specifiers longer than this is rejected
/// with [`ErrorKind::TooLong`] before any other work is done.
pub const MAX_INPUT_LEN: usize = 64 * 1024;

/// The error codes of this crate with a one-line description each, in code order.
///
/// Codes are stable: a code is never reused for a different kind of error. The table exists so
/// the project can generate documentation from it and test that the codes are unique.
///
/// ```
/// use markerspec_pep440::{ErrorKind, ERROR_CODES};
///
/// assert_eq!(ERROR_CODES[0], ("V001", "invalid version text"));
/// assert_eq!(ErrorKind::Empty.code(), "V003");
/// ```
pub const ERROR_CODES: &[(&str, &str)] = &[
    ("V001", "invalid version text"),
    ("V002", "number too large for 64 bits"),
    ("V003", "empty version"),
    ("V004", "wildcard `.*` not allowed with this operator"),
    ("V005", "local version label not allowed with this operator"),
    ("V006", "`~=` needs at least two release segments"),
    ("V007", "unknown comparison operator"),
    ("V008", "unexpected text after the version or specifier"),
    ("V009", "input longer than the 64 KiB limit"),
    ("V010", "invalid local version label"),
    (
        "V011",
        "wildcard `.*` after a pre-, post-, dev-release or local label",
    ),
    ("V012", "invalid character in `===` version text"),
];

/// What went wrong, without the details; see [`Error::kind`].
///
/// Each variant has a stable code ([`ErrorKind::code`]) listed in [`ERROR_CODES`]. New variants
/// may be added in minor releases.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `V001`: the text is not a PEP 440 version, for example a character where a release number,
    /// a pre-/post-/dev-release tag or the end of the version was expected.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version};
    /// let err = "1.0foo".parse::<Version>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidVersion);
    /// assert_eq!(err.span(), 3..6);
    /// ```
    InvalidVersion,
    /// `V002`: a number does not fit in 64 bits (see the crate docs: packaging accepts it).
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version};
    /// let err = "1.18446744073709551616".parse::<Version>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::NumberTooLarge);
    /// assert_eq!(err.span(), 2..22);
    /// ```
    NumberTooLarge,
    /// `V003`: there is no version at all (empty or only whitespace, or nothing after the
    /// operator of a specifier).
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version, VersionSpecifier};
    /// assert_eq!("  ".parse::<Version>().unwrap_err().kind(), ErrorKind::Empty);
    /// assert_eq!(">=".parse::<VersionSpecifier>().unwrap_err().kind(), ErrorKind::Empty);
    /// ```
    Empty,
    /// `V004`: a wildcard `.*` used with an operator other than `==` and `!=`.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = ">=1.0.*".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::WildcardNotAllowed);
    /// assert_eq!(err.span(), 5..7);
    /// ```
    WildcardNotAllowed,
    /// `V005`: a local version label (`+abc`) used with an operator other than `==` and `!=`.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = "<=1.0+abc".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::LocalNotAllowed);
    /// assert_eq!(err.span(), 5..9);
    /// ```
    LocalNotAllowed,
    /// `V006`: `~=` with a version of a single release segment.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = "~=1".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::CompatibleReleaseTooShort);
    /// assert_eq!(err.span(), 2..3);
    /// ```
    CompatibleReleaseTooShort,
    /// `V007`: a specifier that does not start with one of `==`, `!=`, `~=`, `<`, `<=`, `>`, `>=`,
    /// `===`.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = "=>1.0".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnknownOperator);
    /// assert_eq!(err.span(), 0..2);
    /// ```
    UnknownOperator,
    /// `V008`: a complete version or specifier followed by more text.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version};
    /// let err = "1.0 extra".parse::<Version>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::TrailingInput);
    /// assert_eq!(err.span(), 4..9);
    /// ```
    TrailingInput,
    /// `V009`: the text is longer than [`MAX_INPUT_LEN`].
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version, MAX_INPUT_LEN};
    /// let long = "1".repeat(MAX_INPUT_LEN + 1);
    /// assert_eq!(long.parse::<Version>().unwrap_err().kind(), ErrorKind::TooLong);
    /// ```
    TooLong,
    /// `V010`: a local version label (after `+`) that is empty or holds a character other than
    /// ASCII letters, digits and the separators `.`, `-`, `_`.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, Version};
    /// let err = "1.0+ubuntu~1".parse::<Version>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidLocal);
    /// assert_eq!(err.span(), 10..11);
    /// ```
    InvalidLocal,
    /// `V011`: a wildcard after a pre-, post-, dev-release or local label; only the release
    /// segment can be matched by prefix.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = "==1.0a1.*".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::MisplacedWildcard);
    /// assert_eq!(err.span(), 7..9);
    /// ```
    MisplacedWildcard,
    /// `V012`: `===` text holding `;` or `)`, or nothing at all.
    ///
    /// ```
    /// # use markerspec_pep440::{ErrorKind, VersionSpecifier};
    /// let err = "===foo;".parse::<VersionSpecifier>().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::InvalidArbitrary);
    /// assert_eq!(err.span(), 6..7);
    /// ```
    InvalidArbitrary,
}

impl ErrorKind {
    /// Every kind, in code order.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::InvalidVersion,
        ErrorKind::NumberTooLarge,
        ErrorKind::Empty,
        ErrorKind::WildcardNotAllowed,
        ErrorKind::LocalNotAllowed,
        ErrorKind::CompatibleReleaseTooShort,
        ErrorKind::UnknownOperator,
        ErrorKind::TrailingInput,
        ErrorKind::TooLong,
        ErrorKind::InvalidLocal,
        ErrorKind::MisplacedWildcard,
        ErrorKind::InvalidArbitrary,
    ];

    /// The stable code of this kind, such as `"V001"`.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn code(self) -> &'static str {
        self.entry().0
    }

    /// The one-line description of this kind from [`ERROR_CODES`].
    #[must_use]
    pub fn description(self) -> &'static str {
        self.entry().1
    }

    fn entry(self) -> (&'static str, &'static str) {
        let index = match self {
            ErrorKind::InvalidVersion => 0,
            ErrorKind::NumberTooLarge => 1,
            ErrorKind::Empty => 2,
            ErrorKind::WildcardNotAllowed => 3,
            ErrorKind::LocalNotAllowed => 4,
            ErrorKind::CompatibleReleaseTooShort => 5,
            ErrorKind::UnknownOperator => 6,
            ErrorKind::TrailingInput => 7,
            ErrorKind::TooLong => 8,
            ErrorKind::InvalidLocal => 9,
            ErrorKind::MisplacedWildcard => 10,
            ErrorKind::InvalidArbitrary => 11,
        };
        ERROR_CODES
            .get(index)
            .copied()
            .unwrap_or(("V000", "unknown"))
    }
}

/// What the parser found where it expected something else.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// The end of the input.
    End,
    /// One character.
    Char(char),
    /// A piece of text, already shortened for display.
    Text(Box<str>),
}

impl Found {
    /// The text `s`, shortened to at most 32 characters with an ellipsis.
    pub(crate) fn text(s: &str) -> Found {
        const MAX_CHARS: usize = 32;
        match s.char_indices().nth(MAX_CHARS) {
            None => Found::Text(s.into()),
            Some((cut, _)) => {
                let head = s.get(..cut).unwrap_or(s);
                Found::Text(format!("{head}…").into())
            }
        }
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::End => f.write_str("end of input"),
            Found::Char(c) => write!(f, "`{}`", c.escape_debug()),
            Found::Text(t) => write!(f, "`{}`", t.escape_debug()),
        }
    }
}

/// The details a message needs besides the kind.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Detail {
    /// "expected {0}, found {1}".
    Expected(&'static str, Found),
    /// An operator that does not allow what was written, with what was written.
    Operator(Operator, Found),
    /// The length of the input.
    Length(usize),
}

/// An error from parsing a version, a specifier or a list of specifiers.
///
/// It holds a [`ErrorKind`] with a stable [code](Error::code), the byte [span](Error::span) of the
/// offending text and what is needed for the [message](Error::message) and [help](Error::help).
/// `Display` writes the message; `Debug` writes `Error("message")`.
///
/// ```
/// use markerspec_pep440::Version;
///
/// let err = "1.0+ubuntu~1".parse::<Version>().unwrap_err();
/// assert_eq!(err.code(), "V010");
/// assert_eq!(err.span(), 10..11);
/// assert_eq!(err.to_string(), "invalid character `~` in local version label");
/// assert_eq!(err.message(), err.to_string());
/// assert_eq!(err.kind(), markerspec_pep440::ErrorKind::InvalidLocal);
/// assert_eq!(err.kind().code(), "V010");
/// // Reported at its place in a longer text: `pkg==1.0+ubuntu~1` has the version at 5.
/// assert_eq!(err.clone().shifted(5).span(), 15..16);
///
/// // Some errors come with a suggestion.
/// let err = "~=1".parse::<markerspec_pep440::VersionSpecifier>().unwrap_err();
/// assert!(err.help().is_some());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// Boxed so that `Result<Version, Error>` stays the size of a `Version`.
#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    start: usize,
    end: usize,
    detail: Detail,
    help: Option<&'static str>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, span: Range<usize>, detail: Detail) -> Error {
        Error(Box::new(Inner {
            kind,
            start: span.start,
            end: span.end.max(span.start),
            detail,
            help: None,
        }))
    }

    pub(crate) fn with_help(mut self, help: &'static str) -> Error {
        self.0.help = Some(help);
        self
    }

    /// The same error pointing at `span` instead.
    pub(crate) fn at(mut self, span: Range<usize>) -> Error {
        self.0.start = span.start;
        self.0.end = span.end.max(span.start);
        self
    }

    /// The kind of error.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The byte range of the offending text in the text that was parsed.
    ///
    /// An empty span (`n..n`) points between two characters, typically at the end of the input.
    /// Spans of errors from [`VersionSpecifier::from_parts`](crate::VersionSpecifier::from_parts)
    /// are relative to the version text.
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        self.0.start..self.0.end
    }

    /// The stable code of the error's kind, such as `"V001"`.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn code(&self) -> &'static str {
        self.0.kind.code()
    }

    /// The message: lowercase, without a trailing period, naming what was expected and found.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// A suggestion for fixing the input, when there is a likely one.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn help(&self) -> Option<String> {
        if let Some(help) = self.0.help {
            return Some(help.to_owned());
        }
        match (&self.0.kind, &self.0.detail) {
            (ErrorKind::WildcardNotAllowed, Detail::Operator(op, _)) => Some(match op {
                Operator::TildeEqual => {
                    "`~=` already matches a range; drop the `.*`, or use `==` with the wildcard"
                        .to_owned()
                }
                _ => format!(
                    "only `==` and `!=` accept a wildcard; drop the `.*` to compare with `{}`",
                    op.as_str()
                ),
            }),
            (ErrorKind::LocalNotAllowed, Detail::Operator(..)) => Some(
                "a local version label can only be used with `==`, `!=` and `===`; drop it"
                    .to_owned(),
            ),
            _ => None,
        }
    }

    /// The same error with its span moved `offset` bytes to the right, for callers that parsed a
    /// piece of a larger text and report positions in the whole.
    ///
    /// See the example on [`Error`].
    #[must_use]
    pub fn shifted(mut self, offset: usize) -> Error {
        self.0.start = self.0.start.saturating_add(offset);
        self.0.end = self.0.end.saturating_add(offset);
        self
    }

    /// The same error with its span moved `offset` bytes to the left (never below zero).
    pub(crate) fn unshifted(mut self, offset: usize) -> Error {
        self.0.start = self.0.start.saturating_sub(offset);
        self.0.end = self.0.end.saturating_sub(offset);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.0.kind, &self.0.detail) {
            (ErrorKind::TooLong, Detail::Length(len)) => write!(
                f,
                "expected at most {MAX_INPUT_LEN} bytes of input, found {len} bytes"
            ),
            (ErrorKind::WildcardNotAllowed, Detail::Operator(op, _)) => {
                write!(f, "wildcard `.*` is not allowed with `{}`", op.as_str())
            }
            (ErrorKind::LocalNotAllowed, Detail::Operator(op, found)) => write!(
                f,
                "local version label {found} is not allowed with `{}`",
                op.as_str()
            ),
            (ErrorKind::CompatibleReleaseTooShort, Detail::Operator(_, found)) => write!(
                f,
                "expected at least two release segments after `~=`, found {found}"
            ),
            (ErrorKind::InvalidLocal, Detail::Expected("", found)) => {
                write!(f, "invalid character {found} in local version label")
            }
            (ErrorKind::MisplacedWildcard, _) => f.write_str(
                "wildcard `.*` is not allowed after a pre-, post-, dev-release or local label",
            ),
            (ErrorKind::InvalidArbitrary, Detail::Expected("", found)) => {
                write!(f, "invalid character {found} in `===` version text")
            }
            (_, Detail::Expected(expected, found)) => {
                write!(f, "expected {expected}, found {found}")
            }
            (kind, _) => f.write_str(kind.description()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Error").field(&self.to_string()).finish()
    }
}

impl std::error::Error for Error {}

impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Error {
        match never {}
    }
}
