//! Diagnostics: errors and warnings with stable codes, byte spans, messages and help lines.
//!
//! The kinds, codes, messages and help lines are declared once, in [`table`]; the layout with
//! carets is [`render`](fn@render). An [`Error`] holds its kind and span only: the text it
//! points into is passed when it is rendered, as for a [`Warning`].

use std::fmt;

pub use crate::span::Span;

mod render;
mod table;

pub use render::{Severity, render};
pub use table::{DIAGNOSTIC_CODES, ErrorKind, WarningKind};

/// A parse or evaluation error: a kind and the span it points at.
///
/// An error is one pointer wide and cheap to create and drop: it keeps no copy of the input,
/// and its message, help line and did-you-mean suggestion are built only when asked for. The
/// text it points into is passed to [`Error::render`], for parse errors and evaluation errors
/// alike (an evaluation error points at the comparison in the text the marker was parsed from).
///
/// ```
/// use markerspec_pep508::Requirement;
/// let input = "numpy; python_versoin >= '3'";
/// let err = input.parse::<Requirement>().unwrap_err();
/// assert_eq!(err.code(), "M002");
/// assert_eq!(err.span().range(), 7..21);
/// assert_eq!(err.help().as_deref(), Some("did you mean `python_version`?"));
/// assert!(err.render(input).contains("1 | numpy; python_versoin >= '3'"));
/// assert_eq!(err.message(), "unknown marker variable `python_versoin`");
/// assert_eq!(err.kind().code(), "M002");
/// assert_eq!(err.kind().name(), "unknown-field");
/// assert_eq!(err.kind().message(), err.message());
/// assert_eq!(err.kind().help(), err.help());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<Inner>);

/// One pointer wide, so that results carrying an `Error` stay small on the success path.
#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    span: Span,
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, span: Span) -> Error {
        Error(Box::new(Inner { kind, span }))
    }

    /// What went wrong.
    ///
    /// See the example on [`Error`].
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The stable code, e.g. `M002`.
    ///
    /// See the example on [`Error`].
    pub fn code(&self) -> &'static str {
        self.0.kind.code()
    }

    /// The byte span, in the text that was parsed, the error points at (empty for evaluation
    /// errors of trees built in code).
    ///
    /// See the example on [`Error`].
    pub fn span(&self) -> Span {
        self.0.span
    }

    /// The one-line message.
    ///
    /// See the example on [`Error`].
    pub fn message(&self) -> String {
        self.0.kind.message()
    }

    /// The fix hint, when there is one.
    ///
    /// See the example on [`Error`].
    pub fn help(&self) -> Option<String> {
        self.0.kind.help()
    }

    /// Renders the error under `input`, the text that was parsed (or the text the evaluated
    /// marker was parsed from), with carets under the span:
    ///
    /// ```text
    /// error[M002]: unknown marker variable `python_versoin`
    ///   |
    /// 1 | numpy; python_versoin >= '3'
    ///   |        ^^^^^^^^^^^^^^
    ///   = help: did you mean `python_version`?
    /// ```
    ///
    /// With an empty `input` and an empty span (a tree built in code) only the header and the
    /// help line are rendered.
    pub fn render(&self, input: &str) -> String {
        render(
            Severity::Error,
            self.code(),
            &self.message(),
            self.help().as_deref(),
            input,
            self.0.span,
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error({:?})",
            format!("[{}] {}", self.code(), self.message())
        )
    }
}

impl std::error::Error for Error {}

/// A warning with the span it points at.
///
/// ```
/// use markerspec_pep508::{MarkerTree, ParseOptions};
/// let input = "os.name == 'nt'";
/// let mut warnings = Vec::new();
/// MarkerTree::parse_with(input, &ParseOptions::default(), &mut warnings).unwrap();
/// assert_eq!(warnings[0].code(), "W001");
/// assert!(warnings[0].render(input).starts_with("warning[W001]"));
/// let kind = &warnings[0].kind;
/// assert_eq!(kind.code(), "W001");
/// assert_eq!(kind.name(), "deprecated-alias");
/// assert_eq!(kind.message(), "`os.name` is a deprecated spelling of `os_name`");
/// assert_eq!(kind.help().as_deref(), Some("write `os_name`"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What the warning is about.
    pub kind: WarningKind,
    /// Where.
    pub span: Span,
}

impl Warning {
    /// The stable code.
    ///
    /// See the example on [`Warning`].
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// Renders the warning under `input`, the text that was parsed.
    ///
    /// See the example on [`Warning`].
    pub fn render(&self, input: &str) -> String {
        render(
            Severity::Warning,
            self.code(),
            &self.kind.message(),
            self.kind.help().as_deref(),
            input,
            self.span,
        )
    }
}

/// Receives warnings while parsing. Implemented for closures and for `Vec<Warning>`.
///
/// ```
/// use markerspec_pep508::{MarkerTree, ParseOptions, Warning};
///
/// let text = "os.name == 'posix'"; // a PEP 345 alias
/// let mut warnings: Vec<Warning> = Vec::new();
/// MarkerTree::parse_with(text, &ParseOptions::default(), &mut warnings)?;
/// assert_eq!(warnings[0].code(), "W001");
/// let mut codes = Vec::new();
/// MarkerTree::parse_with(text, &ParseOptions::default(), &mut |w: Warning| codes.push(w.code()))?;
/// assert_eq!(codes, ["W001"]);
/// # Ok::<(), markerspec_pep508::Error>(())
/// ```
pub trait Reporter {
    /// Called once per warning, in input order.
    ///
    /// See the example on [`Reporter`].
    fn report(&mut self, warning: Warning);
}

impl<F: FnMut(Warning)> Reporter for F {
    fn report(&mut self, warning: Warning) {
        self(warning)
    }
}

impl Reporter for Vec<Warning> {
    fn report(&mut self, warning: Warning) {
        self.push(warning)
    }
}
