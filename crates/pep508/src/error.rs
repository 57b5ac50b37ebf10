//! Diagnostics: errors and warnings with stable codes, byte spans, messages and help lines,
//! and the one renderer that shows them under the input with carets.

use std::fmt;
use std::ops::Range;

use crate::field::{Dialect, Field};

/// A byte range in the text that was parsed.
///
/// Offsets are byte offsets into the original input, `start <= end`; an empty span points
/// between two characters (for example at the end of the input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The span as a `Range`.
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }

    /// Shifts the span right by `offset` bytes.
    #[must_use]
    pub fn shift(self, offset: usize) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// The input is accepted, but probably does not mean what its author wanted.
    Warning,
}

/// Every diagnostic code of this crate with a one-line description, errors then warnings.
/// Version errors (`V0xx`) are in [`markerspec_pep440::ERROR_CODES`]. Codes never change
/// meaning; a retired code is never reused.
pub const DIAGNOSTIC_CODES: &[(&str, Severity, &str)] = &[
    ("R001", Severity::Error, "expected a package name"),
    (
        "R002",
        Severity::Error,
        "a name must end with a letter or digit",
    ),
    ("R003", Severity::Error, "extras without a closing `]`"),
    ("R004", Severity::Error, "expected an extra name"),
    ("R005", Severity::Error, "missing `,` between extra names"),
    ("R006", Severity::Error, "expected a version operator"),
    (
        "R007",
        Severity::Error,
        "expected a version after the operator",
    ),
    (
        "R008",
        Severity::Error,
        "version specifier without a closing `)`",
    ),
    ("R009", Severity::Error, "expected a URL after `@`"),
    (
        "R010",
        Severity::Error,
        "unexpected text after the name, extras, versions or URL",
    ),
    (
        "M001",
        Severity::Error,
        "expected a marker variable or a quoted string",
    ),
    ("M002", Severity::Error, "unknown marker variable"),
    (
        "M003",
        Severity::Error,
        "extended field used in the `pep508` dialect",
    ),
    ("M004", Severity::Error, "expected a marker operator"),
    ("M005", Severity::Error, "expected `in` after `not`"),
    ("M006", Severity::Error, "unterminated quoted string"),
    (
        "M007",
        Severity::Error,
        "invalid quoted string (escape or line break)",
    ),
    ("M008", Severity::Error, "`(` without a matching `)`"),
    (
        "M009",
        Severity::Error,
        "unexpected text after a complete marker",
    ),
    (
        "M010",
        Severity::Error,
        "nothing after the `;` that starts a marker",
    ),
    ("L001", Severity::Error, "input longer than the limit"),
    (
        "L002",
        Severity::Error,
        "parentheses nested deeper than the limit",
    ),
    ("L003", Severity::Error, "more comparisons than the limit"),
    (
        "L004",
        Severity::Error,
        "quoted string longer than the limit",
    ),
    (
        "E001",
        Severity::Error,
        "the environment has no value for a standard field",
    ),
    (
        "E002",
        Severity::Error,
        "undefined comparison for the field's type",
    ),
    (
        "E003",
        Severity::Error,
        "`extras`/`dependency_groups` outside a lock-file context",
    ),
    (
        "E004",
        Severity::Error,
        "unknown result where a boolean was required",
    ),
    (
        "X001",
        Severity::Error,
        "extended version field compared with a non-version",
    ),
    (
        "X002",
        Severity::Error,
        "set field used other than `\"value\" in field`",
    ),
    (
        "X003",
        Severity::Error,
        "malformed variant namespace, feature or property",
    ),
    (
        "X004",
        Severity::Error,
        "extended field compared with another variable",
    ),
    (
        "W001",
        Severity::Warning,
        "deprecated PEP 345 spelling of a field",
    ),
    (
        "W002",
        Severity::Warning,
        "`<` or `>` on a string field is always false",
    ),
    (
        "W003",
        Severity::Warning,
        "`;` inside a URL, not starting a marker",
    ),
    (
        "W004",
        Severity::Warning,
        "comparison of two literals or two variables",
    ),
    (
        "W005",
        Severity::Warning,
        "version field compared with a non-version, as strings",
    ),
    (
        "W006",
        Severity::Warning,
        "comparison that fails whenever it is evaluated",
    ),
    (
        "W007",
        Severity::Warning,
        "string with escapes or characters outside the spec",
    ),
];

/// What went wrong. Every variant has a stable code (see [`ErrorKind::code`]); the table of
/// codes is in `spec/DIAGNOSTICS.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `R001`: no package name where one must start, e.g. `>=1.0` or `[extra]`.
    ExpectedName {
        /// What was found instead (empty at the end of the input).
        found: String,
    },
    /// `R002`: the name ends in `.`, `-` or `_`, e.g. `foo_`.
    NameEndsWithPunctuation,
    /// `R003`: an extras list without its closing bracket, e.g. `foo[bar`.
    UnclosedExtras,
    /// `R004`: no extra name where one must be, e.g. `foo[bar,]` or `foo[!]`.
    ExpectedExtraName {
        /// What was found instead.
        found: String,
    },
    /// `R005`: two extra names without a comma, e.g. `foo[bar baz]`.
    MissingCommaBetweenExtras,
    /// `R006`: a version clause without an operator, e.g. `foo (1.0)`.
    ExpectedVersionOperator {
        /// What was found instead.
        found: String,
    },
    /// `R007`: an operator without a version, e.g. `foo>=`.
    ExpectedVersion {
        /// The operator as written.
        operator: String,
    },
    /// `R008`: a parenthesised version list without `)`, e.g. `foo (>=1.0`.
    UnclosedVersionParen,
    /// `R009`: `@` without a URL, e.g. `foo @ ; os_name == "nt"`.
    ExpectedUrl,
    /// `R010`: something after the name, extras or version that does not belong there,
    /// e.g. `foo 1.0` or `foo>=1.0 bar`.
    UnexpectedAfterRequirement {
        /// What was found.
        found: String,
        /// What could have come next.
        expected: &'static str,
    },
    /// `R012`: a version clause that PEP 440 rejects; the code is the version library's
    /// (`V0xx`, see [`markerspec_pep440::Error::code`]) — this variant only wraps it.
    Version(markerspec_pep440::Error),
    /// `M001`: no variable or quoted string where a marker value must be, e.g. `; == "a"`.
    ExpectedMarkerValue {
        /// What was found instead.
        found: String,
    },
    /// `M002`: a name that is not a marker variable, e.g. `python_versoin`.
    UnknownVariable {
        /// The name as written.
        name: String,
        /// The closest real name, when one is close.
        suggestion: Option<&'static str>,
    },
    /// `M003`: an extended field used in the `pep508` dialect, e.g. `cuda_version`.
    ExtendedFieldInPep508 {
        /// The field.
        field: Field,
    },
    /// `M004`: no comparison operator between two marker values, e.g. `os_name "posix"`.
    ExpectedMarkerOperator {
        /// What was found instead.
        found: String,
    },
    /// `M005`: `not` without ` in` after it, e.g. `"a" not os_name`.
    ExpectedInAfterNot,
    /// `M006`: a quoted string without its closing quote, e.g. `os_name == "posix`.
    UnterminatedString {
        /// The quote character that opened the string.
        quote: char,
    },
    /// `M007`: a quoted string whose content is not valid, e.g. a bad `\x` escape or a line break.
    InvalidString {
        /// Why it is invalid.
        reason: String,
    },
    /// `M008`: a `(` in a marker without its `)`, e.g. `(os_name == "nt"`.
    UnclosedParen,
    /// `M009`: something after a complete marker that is not `and`, `or` or the end,
    /// e.g. `os_name == "nt" xor`.
    UnexpectedAfterMarker {
        /// What was found.
        found: String,
    },
    /// `M010`: nothing after the `;` that starts a marker, e.g. `foo;`.
    EmptyMarker,
    /// `L001`: the input is longer than [`ParseOptions::max_input_len`](crate::ParseOptions).
    InputTooLong {
        /// The input's length in bytes.
        len: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// `L002`: parentheses nested deeper than [`ParseOptions::max_nesting`](crate::ParseOptions).
    NestingTooDeep {
        /// The limit.
        limit: usize,
    },
    /// `L003`: more comparisons in one marker than
    /// [`ParseOptions::max_clauses`](crate::ParseOptions).
    TooManyClauses {
        /// The limit.
        limit: usize,
    },
    /// `L004`: a quoted string longer than
    /// [`ParseOptions::max_string_len`](crate::ParseOptions).
    StringTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// `E001`: the environment has no value for a standard field the marker reads.
    UndefinedVariable {
        /// The field.
        field: Field,
    },
    /// `E002`: an operator the field's type does not define, e.g. `os_name ~= "1.0"` or
    /// `python_version ~= "3"` (`~=` needs two release segments).
    UndefinedComparison {
        /// The comparison as written.
        expression: String,
        /// Why it is undefined.
        reason: String,
    },
    /// `E003`: `extras` or `dependency_groups` read outside a lock-file context.
    LockFileVariableOutsideLockFile {
        /// The field.
        field: Field,
    },
    /// `E004`: the marker's result is unknown and the caller asked for a plain boolean.
    UnknownResult {
        /// The fields whose values were unknown.
        fields: Vec<Field>,
    },
    /// `X001`: a literal that is not a valid version compared with a version-typed extended
    /// field, e.g. `cuda_version >= "twelve"`.
    InvalidVersionLiteral {
        /// The field.
        field: Field,
        /// The version library's reason.
        reason: String,
    },
    /// `X002`: a set-valued field used other than as `"literal" in field`, e.g.
    /// `gpu_backends == "cuda"` or `gpu_backends in "cuda rocm"`.
    SetFieldMisuse {
        /// The field.
        field: Field,
    },
    /// `X003`: a variant property, feature or namespace that is not well formed, e.g.
    /// `"nvidia :: cuda" in variant_properties` (a property needs three parts).
    InvalidVariantValue {
        /// The field.
        field: Field,
        /// Why it is not well formed.
        reason: String,
    },
    /// `X004`: two variables compared with each other, or a field compared with a field of
    /// another type, in the extended dialect, e.g. `cuda_version == rocm_version`.
    FieldComparedWithField,
}

impl ErrorKind {
    /// The stable code of this kind of error. Codes never change meaning; see
    /// `spec/DIAGNOSTICS.md` for the table.
    pub fn code(&self) -> &'static str {
        match self {
            ErrorKind::ExpectedName { .. } => "R001",
            ErrorKind::NameEndsWithPunctuation => "R002",
            ErrorKind::UnclosedExtras => "R003",
            ErrorKind::ExpectedExtraName { .. } => "R004",
            ErrorKind::MissingCommaBetweenExtras => "R005",
            ErrorKind::ExpectedVersionOperator { .. } => "R006",
            ErrorKind::ExpectedVersion { .. } => "R007",
            ErrorKind::UnclosedVersionParen => "R008",
            ErrorKind::ExpectedUrl => "R009",
            ErrorKind::UnexpectedAfterRequirement { .. } => "R010",
            ErrorKind::Version(e) => e.code(),
            ErrorKind::ExpectedMarkerValue { .. } => "M001",
            ErrorKind::UnknownVariable { .. } => "M002",
            ErrorKind::ExtendedFieldInPep508 { .. } => "M003",
            ErrorKind::ExpectedMarkerOperator { .. } => "M004",
            ErrorKind::ExpectedInAfterNot => "M005",
            ErrorKind::UnterminatedString { .. } => "M006",
            ErrorKind::InvalidString { .. } => "M007",
            ErrorKind::UnclosedParen => "M008",
            ErrorKind::UnexpectedAfterMarker { .. } => "M009",
            ErrorKind::EmptyMarker => "M010",
            ErrorKind::InputTooLong { .. } => "L001",
            ErrorKind::NestingTooDeep { .. } => "L002",
            ErrorKind::TooManyClauses { .. } => "L003",
            ErrorKind::StringTooLong { .. } => "L004",
            ErrorKind::UndefinedVariable { .. } => "E001",
            ErrorKind::UndefinedComparison { .. } => "E002",
            ErrorKind::LockFileVariableOutsideLockFile { .. } => "E003",
            ErrorKind::UnknownResult { .. } => "E004",
            ErrorKind::InvalidVersionLiteral { .. } => "X001",
            ErrorKind::SetFieldMisuse { .. } => "X002",
            ErrorKind::InvalidVariantValue { .. } => "X003",
            ErrorKind::FieldComparedWithField => "X004",
        }
    }

    /// The one-line message: lowercase, no trailing period.
    pub fn message(&self) -> String {
        match self {
            ErrorKind::ExpectedName { found } => {
                format!("expected a package name, found {}", describe(found))
            }
            ErrorKind::NameEndsWithPunctuation => {
                "a package name must end with a letter or digit".into()
            }
            ErrorKind::UnclosedExtras => "expected `]` to close the extras".into(),
            ErrorKind::ExpectedExtraName { found } => {
                format!("expected an extra name, found {}", describe(found))
            }
            ErrorKind::MissingCommaBetweenExtras => "expected `,` between extra names".into(),
            ErrorKind::ExpectedVersionOperator { found } => format!(
                "expected a version operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`), found {}",
                describe(found)
            ),
            ErrorKind::ExpectedVersion { operator } => {
                format!("expected a version after `{operator}`")
            }
            ErrorKind::UnclosedVersionParen => "expected `)` to close the version specifier".into(),
            ErrorKind::ExpectedUrl => "expected a URL after `@`".into(),
            ErrorKind::UnexpectedAfterRequirement { found, expected } => {
                format!("expected {expected}, found {}", describe(found))
            }
            ErrorKind::Version(e) => e.message(),
            ErrorKind::ExpectedMarkerValue { found } => format!(
                "expected a marker variable or a quoted string, found {}",
                describe(found)
            ),
            ErrorKind::UnknownVariable { name, .. } => {
                format!("unknown marker variable `{name}`")
            }
            ErrorKind::ExtendedFieldInPep508 { field } => {
                format!("`{field}` is an extended field, not part of PEP 508")
            }
            ErrorKind::ExpectedMarkerOperator { found } => format!(
                "expected a marker operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`, `in`, `not in`), found {}",
                describe(found)
            ),
            ErrorKind::ExpectedInAfterNot => "expected `in` after `not`".into(),
            ErrorKind::UnterminatedString { quote } => {
                format!("unterminated string: missing closing `{quote}`")
            }
            ErrorKind::InvalidString { reason } => format!("invalid quoted string: {reason}"),
            ErrorKind::UnclosedParen => "expected `)` to close this `(`".into(),
            ErrorKind::UnexpectedAfterMarker { found } => format!(
                "expected `and`, `or` or the end of the marker, found {}",
                describe(found)
            ),
            ErrorKind::EmptyMarker => "expected a marker after `;`".into(),
            ErrorKind::InputTooLong { len, limit } => {
                format!("input is {len} bytes long, more than the limit of {limit} bytes")
            }
            ErrorKind::NestingTooDeep { limit } => {
                format!("parentheses are nested more than {limit} levels deep")
            }
            ErrorKind::TooManyClauses { limit } => {
                format!("marker has more than {limit} comparisons")
            }
            ErrorKind::StringTooLong { limit } => {
                format!("quoted string is longer than the limit of {limit} bytes")
            }
            ErrorKind::UndefinedVariable { field } => {
                format!("the environment has no value for `{field}`")
            }
            ErrorKind::UndefinedComparison { expression, reason } => {
                format!("undefined comparison `{expression}`: {reason}")
            }
            ErrorKind::LockFileVariableOutsideLockFile { field } => {
                format!("`{field}` is only defined when installing from a lock file")
            }
            ErrorKind::UnknownResult { fields } => {
                let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                format!(
                    "the marker's result is unknown because {} {} unknown",
                    names.join(", "),
                    if names.len() == 1 { "is" } else { "are" }
                )
            }
            ErrorKind::InvalidVersionLiteral { field, reason } => {
                format!("`{field}` is compared with a value that is not a version: {reason}")
            }
            ErrorKind::SetFieldMisuse { field } => {
                format!(
                    "`{field}` is a set of strings and can only be tested with `in` or `not in`"
                )
            }
            ErrorKind::InvalidVariantValue { field, reason } => {
                format!("invalid value for `{field}`: {reason}")
            }
            ErrorKind::FieldComparedWithField => {
                "a marker variable is compared with another variable".into()
            }
        }
    }

    /// A line that tells how to fix the input, where one can be guessed.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            ErrorKind::ExpectedName { .. } => {
                "a requirement starts with a package name, e.g. `numpy>=2`".into()
            }
            ErrorKind::NameEndsWithPunctuation => "remove the trailing punctuation".into(),
            ErrorKind::ExpectedExtraName { .. } => {
                "extras are names separated by commas, e.g. `foo[bar,baz]`".into()
            }
            ErrorKind::MissingCommaBetweenExtras => "separate extra names with `,`".into(),
            ErrorKind::ExpectedVersionOperator { found } if starts_digit(found) => {
                format!(
                    "add an operator before the version, e.g. `=={}`",
                    first_word(found)
                )
            }
            ErrorKind::UnexpectedAfterRequirement { found, .. } if starts_digit(found) => {
                format!(
                    "add an operator before the version, e.g. `=={}`",
                    first_word(found)
                )
            }
            ErrorKind::UnexpectedAfterRequirement { found, .. }
                if found.starts_with('/') || found.contains("://") =>
            {
                "to give a URL, write `name @ URL`".into()
            }
            ErrorKind::UnexpectedAfterRequirement { found, .. } if looks_like_marker(found) => {
                "start the marker with `;`, e.g. `numpy; python_version >= \"3.10\"`".into()
            }
            ErrorKind::Version(e) => return e.help(),
            ErrorKind::ExpectedMarkerValue { found }
                if found.starts_with(|c: char| c.is_alphanumeric()) =>
            {
                format!("put the value in quotes: `\"{found}\"`")
            }
            ErrorKind::UnknownVariable {
                suggestion: Some(s),
                ..
            } => format!("did you mean `{s}`?"),
            ErrorKind::UnknownVariable { name, .. }
                if name.eq_ignore_ascii_case("and")
                    || name.eq_ignore_ascii_case("or")
                    || name.eq_ignore_ascii_case("not")
                    || name.eq_ignore_ascii_case("in") =>
            {
                "keywords are written in lowercase".into()
            }
            ErrorKind::ExtendedFieldInPep508 { .. } => {
                format!("enable the `{}` dialect to use it", Dialect::Extended)
            }
            ErrorKind::UnterminatedString { quote } => {
                format!("add `{quote}` at the end of the string")
            }
            ErrorKind::UnexpectedAfterMarker { found }
                if found.starts_with("AND")
                    || found.starts_with("OR")
                    || found.starts_with("And")
                    || found.starts_with("Or") =>
            {
                "keywords are written in lowercase: `and`, `or`".into()
            }
            ErrorKind::UnexpectedAfterMarker { found }
                if found.starts_with("&&") || found.starts_with("||") =>
            {
                "write `and` or `or`".into()
            }
            ErrorKind::UnexpectedAfterMarker { found } if found.starts_with(')') => {
                "remove the `)` or add a matching `(`".into()
            }
            ErrorKind::ExpectedMarkerOperator { found }
                if found.starts_with('=') && !found.starts_with("==") =>
            {
                "use `==` to compare".into()
            }
            ErrorKind::NestingTooDeep { .. }
            | ErrorKind::TooManyClauses { .. }
            | ErrorKind::InputTooLong { .. }
            | ErrorKind::StringTooLong { .. } => "the limit is set in `ParseOptions`".into(),
            ErrorKind::LockFileVariableOutsideLockFile { .. } => {
                "give the requested extras and dependency groups to the environment".into()
            }
            ErrorKind::SetFieldMisuse { field } => {
                format!("write `\"value\" in {field}`")
            }
            _ => return None,
        })
    }
}

fn starts_digit(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

fn first_word(s: &str) -> &str {
    let end = s
        .find(|c: char| c.is_whitespace() || c == ';' || c == ',' || c == ')')
        .unwrap_or(s.len());
    &s[..end]
}

fn looks_like_marker(s: &str) -> bool {
    let word = first_word(s);
    let word = word.split(['=', '<', '>', '!', '~']).next().unwrap_or(word);
    crate::field::lookup(word, Dialect::Extended) != crate::field::Lookup::Unknown
}

/// How a found token is named in a message: "`x`" or "end of input".
fn describe(found: &str) -> String {
    if found.is_empty() {
        "end of input".to_string()
    } else {
        format!("`{found}`")
    }
}

/// A parse or evaluation error: a kind, the span it points at, and the text that was parsed.
///
/// ```
/// use markerspec_pep508::Requirement;
/// let err = "numpy; python_versoin >= '3'".parse::<Requirement>().unwrap_err();
/// assert_eq!(err.code(), "M002");
/// assert_eq!(err.span().range(), 7..21);
/// assert_eq!(err.help().as_deref(), Some("did you mean `python_version`?"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    kind: Box<ErrorKind>,
    span: Span,
    input: Box<str>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, span: Span, input: &str) -> Error {
        Error {
            kind: Box::new(kind),
            span,
            input: input.into(),
        }
    }

    /// The same error, pointing into `input`: evaluation errors carry the span of the
    /// comparison in the text the marker was parsed from, but not the text itself.
    #[must_use]
    pub fn with_input(mut self, input: &str) -> Error {
        self.input = input.into();
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The stable code, e.g. `M002`.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// The byte span in [`Error::input`] the error points at.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The text that was parsed (empty for evaluation errors of trees built without text).
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The one-line message.
    pub fn message(&self) -> String {
        self.kind.message()
    }

    /// The fix hint, when there is one.
    pub fn help(&self) -> Option<String> {
        self.kind.help()
    }

    /// Renders the error with the input and carets under the span:
    ///
    /// ```text
    /// error[M002]: unknown marker variable `python_versoin`
    ///   |
    /// 1 | numpy; python_versoin >= '3'
    ///   |        ^^^^^^^^^^^^^^
    ///   = help: did you mean `python_version`?
    /// ```
    pub fn render(&self) -> String {
        render(
            Severity::Error,
            self.code(),
            &self.message(),
            self.help().as_deref(),
            &self.input,
            self.span,
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

/// What a warning is about. Warnings never reject input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarningKind {
    /// `W001`: a PEP 345 spelling such as `os.name` or `python_implementation`.
    DeprecatedAlias {
        /// The spelling used.
        alias: String,
        /// The canonical field.
        field: Field,
    },
    /// `W002`: `<` or `>` on a string field, always false; `<=`/`>=` mean `==`.
    StringOrdering {
        /// The field.
        field: Field,
    },
    /// `W003`: a URL containing `;` with no space before it: the `;` is part of the URL.
    SemicolonInUrl,
    /// `W004`: a comparison between two quoted strings or between two variables.
    ConstantComparison,
    /// `W005`: a version field compared with a literal that is not a version: the comparison
    /// falls back to string rules (`<`, `>` false; `<=`, `>=` mean `==`).
    VersionFieldStringComparison {
        /// The field.
        field: Field,
    },
    /// `W006`: a comparison that can only fail at evaluation, e.g. `python_version ~= "3"`.
    AlwaysErrors {
        /// Why.
        reason: String,
    },
    /// `W007`: a quoted string that uses backslash escapes or characters outside the
    /// specification's `python_str_c` set.
    NonStandardString,
}

impl WarningKind {
    /// The stable code, e.g. `W001`.
    pub fn code(&self) -> &'static str {
        match self {
            WarningKind::DeprecatedAlias { .. } => "W001",
            WarningKind::StringOrdering { .. } => "W002",
            WarningKind::SemicolonInUrl => "W003",
            WarningKind::ConstantComparison => "W004",
            WarningKind::VersionFieldStringComparison { .. } => "W005",
            WarningKind::AlwaysErrors { .. } => "W006",
            WarningKind::NonStandardString => "W007",
        }
    }

    /// The one-line message.
    pub fn message(&self) -> String {
        match self {
            WarningKind::DeprecatedAlias { alias, field } => {
                format!("`{alias}` is a deprecated spelling of `{field}`")
            }
            WarningKind::StringOrdering { field } => format!(
                "`{field}` is a string: `<` and `>` are always false, `<=` and `>=` mean `==`"
            ),
            WarningKind::SemicolonInUrl => {
                "the `;` is part of the URL, not the start of a marker".into()
            }
            WarningKind::ConstantComparison => {
                "this comparison does not compare a variable with a value".into()
            }
            WarningKind::VersionFieldStringComparison { field } => format!(
                "`{field}` is compared with a value that is not a valid version, so it is compared as a string"
            ),
            WarningKind::AlwaysErrors { reason } => {
                format!("this comparison fails whenever it is evaluated: {reason}")
            }
            WarningKind::NonStandardString => {
                "this string uses escapes or characters that the specification does not define"
                    .into()
            }
        }
    }

    /// A fix hint, when there is one.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            WarningKind::DeprecatedAlias { field, .. } => format!("write `{field}`"),
            WarningKind::SemicolonInUrl => "add a space before `;` to start a marker".into(),
            _ => return None,
        })
    }
}

/// A warning with the span it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// What the warning is about.
    pub kind: WarningKind,
    /// Where.
    pub span: Span,
}

impl Warning {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// Renders the warning under `input`, the text that was parsed.
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
pub trait Reporter {
    /// Called once per warning, in input order.
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

/// Renders one diagnostic in the layout every markerspec tool shares: the header with the
/// code, the input line with its number, carets under the span, and an optional help line.
///
/// Spans past the end of the input point one past its last character; an empty span gets one
/// caret. Columns count characters, so carets line up for ASCII and for most other text.
pub fn render(
    severity: Severity,
    code: &str,
    message: &str,
    help: Option<&str>,
    input: &str,
    span: Span,
) -> String {
    use std::fmt::Write;
    let word = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut out = format!("{word}[{code}]: {message}\n");
    if input.is_empty() && span == Span::default() {
        if let Some(help) = help {
            let _ = writeln!(out, "  = help: {help}");
        }
        return out;
    }
    let start = floor_boundary(input, span.start.min(input.len()));
    let end = floor_boundary(input, span.end.clamp(start, input.len()));
    // The line holding the start of the span.
    let line_start = input[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = input[start..].find('\n').map_or(input.len(), |i| start + i);
    let line_no = input[..start].matches('\n').count() + 1;
    let line = input[line_start..line_end].trim_end_matches('\r');
    let gutter = line_no.to_string().len();
    let pad = " ".repeat(gutter);
    let chars: Vec<char> = line
        .chars()
        .map(|c| if c == '\t' || c.is_control() { ' ' } else { c })
        .collect();
    let col = input[line_start..start].chars().count();
    let width = input[start..end.min(line_end)].chars().count().max(1);
    // Long lines are cut to a window around the span, marked with `…`.
    const CONTEXT: usize = 40;
    const MAX_CARETS: usize = 60;
    let width = width.min(MAX_CARETS);
    let from = col.saturating_sub(CONTEXT);
    let to = (col + width + CONTEXT).min(chars.len());
    let mut shown: String = chars[from.min(to)..to].iter().collect();
    let mut caret_col = col - from;
    if from > 0 {
        shown.insert(0, '…');
        caret_col += 1;
    }
    if to < chars.len() {
        shown.push('…');
    }
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{line_no} | {shown}");
    let _ = writeln!(
        out,
        "{pad} | {}{}",
        " ".repeat(caret_col),
        "^".repeat(width)
    );
    if let Some(help) = help {
        let _ = writeln!(out, "{pad} = help: {help}");
    }
    out
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
