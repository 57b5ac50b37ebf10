//! Diagnostics: errors and warnings with stable codes, byte spans, messages and help lines,
//! and the one renderer that shows them under the input with carets.

use std::fmt;
use std::ops::Range;

use crate::field::{Dialect, Field};
use crate::marker::MarkerOperator;

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

/// Every diagnostic code of this crate: (code, the name `spec/SPEC.md` uses, severity,
/// description), errors then warnings. Version errors (`V0xx`) are in
/// [`markerspec_pep440::ERROR_CODES`]. Codes never change meaning; a retired code is never
/// reused.
pub const DIAGNOSTIC_CODES: &[(&str, &str, Severity, &str)] = &[
    (
        "R001",
        "expected-name",
        Severity::Error,
        "expected a package name",
    ),
    (
        "R002",
        "name-end",
        Severity::Error,
        "a name must end with a letter or digit",
    ),
    (
        "R003",
        "unclosed-extras",
        Severity::Error,
        "extras without a closing `]`",
    ),
    (
        "R004",
        "expected-extra",
        Severity::Error,
        "expected an extra name",
    ),
    (
        "R005",
        "extras-comma",
        Severity::Error,
        "missing `,` between extra names",
    ),
    (
        "R006",
        "expected-version-operator",
        Severity::Error,
        "expected a version operator",
    ),
    (
        "R007",
        "expected-version",
        Severity::Error,
        "expected a version after the operator",
    ),
    (
        "R008",
        "unclosed-version-paren",
        Severity::Error,
        "version specifier without a closing `)`",
    ),
    (
        "R009",
        "expected-url",
        Severity::Error,
        "expected a URL after `@`",
    ),
    (
        "R010",
        "unexpected-after-requirement",
        Severity::Error,
        "unexpected text after the name, extras, versions or URL",
    ),
    (
        "M001",
        "expected-marker-value",
        Severity::Error,
        "expected a marker variable or a quoted string",
    ),
    (
        "M002",
        "unknown-field",
        Severity::Error,
        "unknown marker variable",
    ),
    (
        "M003",
        "extended-field-in-pep508",
        Severity::Error,
        "extended field used in the `pep508` dialect",
    ),
    (
        "M004",
        "expected-marker-operator",
        Severity::Error,
        "expected a marker operator",
    ),
    (
        "M005",
        "expected-in",
        Severity::Error,
        "expected `in` after `not`",
    ),
    (
        "M006",
        "unterminated-string",
        Severity::Error,
        "unterminated quoted string",
    ),
    (
        "M007",
        "invalid-string",
        Severity::Error,
        "invalid quoted string (escape or line break)",
    ),
    (
        "M008",
        "unclosed-paren",
        Severity::Error,
        "`(` without a matching `)`",
    ),
    (
        "M009",
        "unexpected-after-marker",
        Severity::Error,
        "unexpected text after a complete marker",
    ),
    (
        "M010",
        "empty-marker",
        Severity::Error,
        "nothing after the `;` that starts a marker",
    ),
    (
        "M011",
        "no-field-in-comparison",
        Severity::Error,
        "a comparison of two quoted strings",
    ),
    (
        "M012",
        "field-compared-to-field",
        Severity::Error,
        "a comparison of two variables",
    ),
    (
        "M013",
        "lockfile-field",
        Severity::Error,
        "`extras`/`dependency_groups` outside lock-file context",
    ),
    (
        "L001",
        "input-too-long",
        Severity::Error,
        "input longer than the limit",
    ),
    (
        "L002",
        "nesting-too-deep",
        Severity::Error,
        "parentheses nested deeper than the limit",
    ),
    (
        "L003",
        "too-many-comparisons",
        Severity::Error,
        "more comparisons than the limit",
    ),
    (
        "L004",
        "string-too-long",
        Severity::Error,
        "quoted string longer than the limit",
    ),
    (
        "E001",
        "undefined-field",
        Severity::Error,
        "the environment has no value for the field (`packaging` profile)",
    ),
    (
        "E002",
        "undefined-comparison",
        Severity::Error,
        "a comparison the profile does not define",
    ),
    (
        "E004",
        "unknown-result",
        Severity::Error,
        "unknown result where a boolean was required",
    ),
    (
        "X001",
        "invalid-version-literal",
        Severity::Error,
        "extended version field compared with a non-version",
    ),
    (
        "X002",
        "invalid-set-operator",
        Severity::Error,
        "an operator other than `in`/`not in` with a set field",
    ),
    (
        "X003",
        "invalid-variant-property",
        Severity::Error,
        "malformed variant namespace, feature or property",
    ),
    (
        "X004",
        "set-field-on-left",
        Severity::Error,
        "a set field on the left of `in`/`not in`",
    ),
    (
        "X005",
        "containment-on-version",
        Severity::Error,
        "`in`/`not in` with an extended version field",
    ),
    (
        "X006",
        "version-op-on-string",
        Severity::Error,
        "`~=`/`===` with an extended string field",
    ),
    (
        "X007",
        "invalid-set-literal",
        Severity::Error,
        "a literal outside the set field's format",
    ),
    (
        "X008",
        "noncanonical-arch-literal",
        Severity::Error,
        "an alias spelling compared with `interpreter_arch`",
    ),
    (
        "X009",
        "invalid-variant-label",
        Severity::Error,
        "a malformed `variant_label` literal",
    ),
    (
        "W001",
        "deprecated-alias",
        Severity::Warning,
        "deprecated PEP 345 spelling of a field",
    ),
    (
        "W002",
        "string-ordering-comparison",
        Severity::Warning,
        "ordered comparison on a string field",
    ),
    (
        "W003",
        "semicolon-in-url",
        Severity::Warning,
        "`;` inside a URL, not starting a marker",
    ),
    (
        "W004",
        "constant-comparison",
        Severity::Warning,
        "comparison of two literals or two variables (`packaging` profile)",
    ),
    (
        "W005",
        "version-string-fallback",
        Severity::Warning,
        "version field compared with a non-version, as strings",
    ),
    (
        "W006",
        "always-errors",
        Severity::Warning,
        "comparison that fails whenever it is evaluated (`packaging` profile)",
    ),
    (
        "W007",
        "non-standard-string",
        Severity::Warning,
        "string with escapes or characters outside the spec",
    ),
    (
        "W008",
        "containment-on-version",
        Severity::Warning,
        "`in`/`not in` on a standard version field is false",
    ),
    (
        "W009",
        "version-op-on-string",
        Severity::Warning,
        "`~=`/`===` on a standard string field mean `==`",
    ),
    (
        "W010",
        "extra-operator",
        Severity::Warning,
        "an operator other than `==`/`!=` with `extra` is false",
    ),
    (
        "W011",
        "field-in-literal",
        Severity::Warning,
        "an extended string field on the left of `in`",
    ),
    (
        "W012",
        "unknown-set-member",
        Severity::Warning,
        "a well-formed but unregistered set member",
    ),
    (
        "W013",
        "unknown-arch-literal",
        Severity::Warning,
        "an architecture not in the `interpreter_arch` table",
    ),
];

/// What went wrong. Every variant has a stable code (see [`ErrorKind::code`]); the table of
/// codes is [`DIAGNOSTIC_CODES`] and `spec/DIAGNOSTICS.md`.
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
    /// `R009`: `@` without a URL, e.g. `foo @ `.
    ExpectedUrl,
    /// `R010`: something after the name, extras, version or URL that does not belong there,
    /// e.g. `foo 1.0` or `foo>=1.0 bar`.
    UnexpectedAfterRequirement {
        /// What was found.
        found: String,
        /// What could have come next.
        expected: &'static str,
    },
    /// A version clause that PEP 440 rejects; the code is the version library's (`V0xx`, see
    /// [`markerspec_pep440::Error::code`]), e.g. `foo>=1.*` (`V004`).
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
    /// `M011`: a comparison of two quoted strings, e.g. `"a" == "a"` (`spec-2026` profile).
    NoFieldInComparison,
    /// `M012`: a comparison of two variables, e.g. `os_name == sys_platform` (`spec-2026`
    /// profile, and every profile when an extended field is involved).
    FieldComparedToField,
    /// `M013`: `extras` or `dependency_groups` without lock-file context, e.g.
    /// `"cuda" in extras` (`spec-2026` profile; see
    /// [`ParseOptions::lock_file`](crate::ParseOptions)).
    LockFileField {
        /// The field.
        field: Field,
    },
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
    /// `E001`: under the `packaging` profile, the environment has no value for a name the
    /// marker reads (packaging's `UndefinedEnvironmentName`).
    UndefinedVariable {
        /// The name looked up.
        name: String,
    },
    /// `E002`: a comparison the profile does not define, e.g. `os_name ~= "1.0"` under the
    /// `packaging` profile.
    UndefinedComparison {
        /// The comparison as written.
        expression: String,
        /// Why it is undefined.
        reason: String,
    },
    /// `E004`: the marker's result is unknown and the caller asked for a plain boolean.
    UnknownResult {
        /// The fields whose values were unknown.
        fields: Vec<Field>,
    },
    /// `X001`: an extended version field compared with something that is not a version
    /// operand, e.g. `cuda_version >= "twelve"` or `cuda_version ~= "12"`.
    InvalidVersionLiteral {
        /// The field.
        field: Field,
        /// Why.
        reason: String,
    },
    /// `X002`: an operator other than `in`/`not in` with a set field, e.g.
    /// `gpu_backends == "cuda"`.
    InvalidSetOperator {
        /// The field.
        field: Field,
        /// The operator.
        op: MarkerOperator,
    },
    /// `X003`: a variant namespace, feature or property that is not well formed, e.g.
    /// `"nvidia :: cuda" in variant_properties` (a property needs three parts).
    InvalidVariantValue {
        /// The field.
        field: Field,
        /// Why it is not well formed.
        reason: String,
    },
    /// `X004`: a set field on the left of `in`/`not in`, e.g. `gpu_backends in "cuda rocm"`.
    SetFieldOnLeft {
        /// The field.
        field: Field,
    },
    /// `X005`: `in`/`not in` with an extended version field, e.g. `"12" in cuda_version`.
    ContainmentOnVersion {
        /// The field.
        field: Field,
    },
    /// `X006`: `~=` or `===` with an extended string field, e.g. `python_abi_tag ~= "cp313"`.
    VersionOpOnString {
        /// The field.
        field: Field,
    },
    /// `X007`: a literal outside the set field's format, e.g. `"sm_86" in
    /// cuda_compute_capabilities`.
    InvalidSetLiteral {
        /// The field.
        field: Field,
        /// The format the field's members have.
        format: &'static str,
    },
    /// `X008`: an alias spelling compared with `interpreter_arch`, e.g. `interpreter_arch ==
    /// "AMD64"`.
    NoncanonicalArchLiteral {
        /// The literal.
        literal: String,
        /// The canonical spelling.
        canonical: &'static str,
    },
    /// `X009`: a malformed `variant_label` literal, e.g. `variant_label == "CU 12"`.
    InvalidVariantLabel {
        /// Why.
        reason: String,
    },
}

impl ErrorKind {
    /// The stable code of this kind of error, e.g. `M002`.
    pub fn code(&self) -> &'static str {
        use ErrorKind as K;
        match self {
            K::ExpectedName { .. } => "R001",
            K::NameEndsWithPunctuation => "R002",
            K::UnclosedExtras => "R003",
            K::ExpectedExtraName { .. } => "R004",
            K::MissingCommaBetweenExtras => "R005",
            K::ExpectedVersionOperator { .. } => "R006",
            K::ExpectedVersion { .. } => "R007",
            K::UnclosedVersionParen => "R008",
            K::ExpectedUrl => "R009",
            K::UnexpectedAfterRequirement { .. } => "R010",
            K::Version(e) => e.code(),
            K::ExpectedMarkerValue { .. } => "M001",
            K::UnknownVariable { .. } => "M002",
            K::ExtendedFieldInPep508 { .. } => "M003",
            K::ExpectedMarkerOperator { .. } => "M004",
            K::ExpectedInAfterNot => "M005",
            K::UnterminatedString { .. } => "M006",
            K::InvalidString { .. } => "M007",
            K::UnclosedParen => "M008",
            K::UnexpectedAfterMarker { .. } => "M009",
            K::EmptyMarker => "M010",
            K::NoFieldInComparison => "M011",
            K::FieldComparedToField => "M012",
            K::LockFileField { .. } => "M013",
            K::InputTooLong { .. } => "L001",
            K::NestingTooDeep { .. } => "L002",
            K::TooManyClauses { .. } => "L003",
            K::StringTooLong { .. } => "L004",
            K::UndefinedVariable { .. } => "E001",
            K::UndefinedComparison { .. } => "E002",
            K::UnknownResult { .. } => "E004",
            K::InvalidVersionLiteral { .. } => "X001",
            K::InvalidSetOperator { .. } => "X002",
            K::InvalidVariantValue { .. } => "X003",
            K::SetFieldOnLeft { .. } => "X004",
            K::ContainmentOnVersion { .. } => "X005",
            K::VersionOpOnString { .. } => "X006",
            K::InvalidSetLiteral { .. } => "X007",
            K::NoncanonicalArchLiteral { .. } => "X008",
            K::InvalidVariantLabel { .. } => "X009",
        }
    }

    /// The name `spec/SPEC.md` uses for this kind, e.g. `unknown-field`.
    pub fn name(&self) -> &'static str {
        code_name(self.code())
    }

    /// The one-line message: lowercase, no trailing period.
    pub fn message(&self) -> String {
        use ErrorKind as K;
        match self {
            K::ExpectedName { found } => {
                format!("expected a package name, found {}", describe(found))
            }
            K::NameEndsWithPunctuation => "a name must end with a letter or digit".into(),
            K::UnclosedExtras => "expected `]` to close the extras".into(),
            K::ExpectedExtraName { found } => {
                format!("expected an extra name, found {}", describe(found))
            }
            K::MissingCommaBetweenExtras => "expected `,` between extra names".into(),
            K::ExpectedVersionOperator { found } => format!(
                "expected a version operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`), found {}",
                describe(found)
            ),
            K::ExpectedVersion { operator } => format!("expected a version after `{operator}`"),
            K::UnclosedVersionParen => "expected `)` to close the version specifier".into(),
            K::ExpectedUrl => "expected a URL after `@`".into(),
            K::UnexpectedAfterRequirement { found, expected } => {
                format!("expected {expected}, found {}", describe(found))
            }
            K::Version(e) => e.message(),
            K::ExpectedMarkerValue { found } => format!(
                "expected a marker variable or a quoted string, found {}",
                describe(found)
            ),
            K::UnknownVariable { name, .. } => format!("unknown marker variable `{name}`"),
            K::ExtendedFieldInPep508 { field } => {
                format!("`{field}` is an extended field, not part of PEP 508")
            }
            K::ExpectedMarkerOperator { found } => format!(
                "expected a marker operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`, `in`, `not in`), found {}",
                describe(found)
            ),
            K::ExpectedInAfterNot => "expected `in` after `not`".into(),
            K::UnterminatedString { quote } => {
                format!("unterminated string: missing closing `{quote}`")
            }
            K::InvalidString { reason } => format!("invalid quoted string: {reason}"),
            K::UnclosedParen => "expected `)` to close this `(`".into(),
            K::UnexpectedAfterMarker { found } => format!(
                "expected `and`, `or` or the end of the marker, found {}",
                describe(found)
            ),
            K::EmptyMarker => "expected a marker after `;`".into(),
            K::NoFieldInComparison => "this comparison has no marker variable".into(),
            K::FieldComparedToField => "a marker variable is compared with another variable".into(),
            K::LockFileField { field } => {
                format!("`{field}` is only defined when installing from a lock file")
            }
            K::InputTooLong { len, limit } => {
                format!("input is {len} bytes long, more than the limit of {limit} bytes")
            }
            K::NestingTooDeep { limit } => {
                format!("parentheses are nested more than {limit} levels deep")
            }
            K::TooManyClauses { limit } => format!("marker has more than {limit} comparisons"),
            K::StringTooLong { limit } => {
                format!("quoted string is longer than the limit of {limit} bytes")
            }
            K::UndefinedVariable { name } => {
                format!("the environment has no value for `{name}`")
            }
            K::UndefinedComparison { expression, reason } => {
                format!("undefined comparison `{expression}`: {reason}")
            }
            K::UnknownResult { fields } => {
                let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                format!(
                    "the marker's result is unknown because {} {} unknown",
                    names.join(", "),
                    if names.len() == 1 { "is" } else { "are" }
                )
            }
            K::InvalidVersionLiteral { field, reason } => {
                format!("`{field}` is compared with something that is not a version: {reason}")
            }
            K::InvalidSetOperator { field, op } => {
                format!("`{op}` is not defined on `{field}`, a set of strings")
            }
            K::InvalidVariantValue { field, reason } => {
                format!("invalid value for `{field}`: {reason}")
            }
            K::SetFieldOnLeft { field } => {
                format!("`{field}` is a set of strings and must be on the right of `in`")
            }
            K::ContainmentOnVersion { field } => {
                format!("`{field}` is a version; `in` and `not in` are not defined on versions")
            }
            K::VersionOpOnString { field } => {
                format!("`{field}` is a string; `~=` and `===` compare versions")
            }
            K::InvalidSetLiteral { field, format } => {
                format!("not a valid member of `{field}`, whose members are {format}")
            }
            K::NoncanonicalArchLiteral { literal, canonical } => {
                format!("`{literal}` is not the canonical spelling of `{canonical}`")
            }
            K::InvalidVariantLabel { reason } => format!("invalid `variant_label`: {reason}"),
        }
    }

    /// A line that tells how to fix the input, where one can be guessed.
    pub fn help(&self) -> Option<String> {
        use ErrorKind as K;
        Some(match self {
            K::ExpectedName { .. } => {
                "a requirement starts with a package name, e.g. `numpy>=2`".into()
            }
            K::NameEndsWithPunctuation => "remove the trailing punctuation".into(),
            K::ExpectedExtraName { .. } => {
                "extras are names separated by commas, e.g. `foo[bar,baz]`".into()
            }
            K::MissingCommaBetweenExtras => "separate extra names with `,`".into(),
            K::ExpectedVersionOperator { found } | K::UnexpectedAfterRequirement { found, .. }
                if starts_digit(found) =>
            {
                format!(
                    "add an operator before the version, e.g. `=={}`",
                    first_word(found)
                )
            }
            K::UnexpectedAfterRequirement { found, .. }
                if found.starts_with('/') || found.contains("://") =>
            {
                "to give a URL, write `name @ URL`".into()
            }
            K::UnexpectedAfterRequirement { found, .. } if looks_like_marker(found) => {
                "start the marker with `;`, e.g. `numpy; python_version >= \"3.10\"`".into()
            }
            K::Version(e) => return e.help(),
            K::ExpectedMarkerValue { found }
                if found.starts_with(|c: char| c.is_alphanumeric()) =>
            {
                format!("put the value in quotes: `\"{found}\"`")
            }
            K::UnknownVariable {
                suggestion: Some(s),
                ..
            } => format!("did you mean `{s}`?"),
            K::ExtendedFieldInPep508 { .. } => {
                format!("enable the `{}` dialect to use it", Dialect::Extended)
            }
            K::UnterminatedString { quote } => format!("add `{quote}` at the end of the string"),
            K::UnexpectedAfterMarker { found }
                if ["AND", "OR", "And", "Or"]
                    .iter()
                    .any(|k| found.starts_with(k)) =>
            {
                "keywords are written in lowercase: `and`, `or`".into()
            }
            K::UnexpectedAfterMarker { found }
                if found.starts_with("&&") || found.starts_with("||") =>
            {
                "write `and` or `or`".into()
            }
            K::UnexpectedAfterMarker { found } if found.starts_with(')') => {
                "remove the `)` or add a matching `(`".into()
            }
            K::ExpectedMarkerOperator { found }
                if found.starts_with('=') && !found.starts_with("==") =>
            {
                "use `==` to compare".into()
            }
            K::NoFieldInComparison | K::FieldComparedToField => {
                "compare one marker variable with one quoted string, e.g. `os_name == \"nt\"`"
                    .into()
            }
            K::LockFileField { .. } => "enable lock-file context to use it".into(),
            K::NestingTooDeep { .. }
            | K::TooManyClauses { .. }
            | K::InputTooLong { .. }
            | K::StringTooLong { .. } => "the limit is set in `ParseOptions`".into(),
            K::InvalidSetOperator { field, .. } | K::SetFieldOnLeft { field } => {
                format!("write `\"value\" in {field}`")
            }
            K::VersionOpOnString { .. } => "use `==`".into(),
            K::NoncanonicalArchLiteral { canonical, .. } => format!("write `\"{canonical}\"`"),
            _ => return None,
        })
    }
}

/// The name `spec/SPEC.md` uses for a code, or `""`.
fn code_name(code: &str) -> &'static str {
    DIAGNOSTIC_CODES
        .iter()
        .find(|(c, _, _, _)| *c == code)
        .map_or("", |(_, n, _, _)| *n)
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
pub struct Error(Box<Inner>);

/// One pointer wide, so that results carrying an `Error` stay small on the success path.
#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    span: Span,
    input: Box<str>,
}

impl Error {
    #[cold]
    pub(crate) fn new(kind: ErrorKind, span: Span, input: &str) -> Error {
        Error(Box::new(Inner {
            kind,
            span,
            input: input.into(),
        }))
    }

    /// The same error, pointing into `input`: evaluation errors carry the span of the
    /// comparison in the text the marker was parsed from, but not the text itself.
    #[must_use]
    pub fn with_input(mut self, input: &str) -> Error {
        self.0.input = input.into();
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The stable code, e.g. `M002`.
    pub fn code(&self) -> &'static str {
        self.0.kind.code()
    }

    /// The byte span in [`Error::input`] the error points at.
    pub fn span(&self) -> Span {
        self.0.span
    }

    /// The text that was parsed (empty for evaluation errors of trees built without text).
    pub fn input(&self) -> &str {
        &self.0.input
    }

    /// The one-line message.
    pub fn message(&self) -> String {
        self.0.kind.message()
    }

    /// The fix hint, when there is one.
    pub fn help(&self) -> Option<String> {
        self.0.kind.help()
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
            &self.0.input,
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

/// What a warning is about. Warnings never reject input and never change a result.
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
    /// `W002`: `<`, `<=`, `>` or `>=` on a string field: `<`/`>` are false, `<=`/`>=` mean `==`.
    StringOrdering {
        /// The field.
        field: Field,
    },
    /// `W003`: a URL containing `;` with no space before it: the `;` is part of the URL.
    SemicolonInUrl,
    /// `W004`: a comparison between two quoted strings or two variables (`packaging` profile).
    ConstantComparison,
    /// `W005`: a version field compared with a value that is not a version: the comparison
    /// falls back to the string rules.
    VersionFieldStringComparison {
        /// The field.
        field: Field,
    },
    /// `W006`: a comparison that fails whenever it is evaluated under the `packaging` profile,
    /// e.g. `python_version ~= "3"`.
    AlwaysErrors {
        /// Why.
        reason: String,
    },
    /// `W007`: a quoted string that uses backslash escapes or characters outside the
    /// specification's `python_str_c` set.
    NonStandardString,
    /// `W008`: `in`/`not in` on a standard version field, which the living specification leaves
    /// undefined; `spec-2026` evaluates it to false.
    ContainmentOnVersion {
        /// The field.
        field: Field,
    },
    /// `W009`: `~=`/`===` on a standard string field; `spec-2026` reads them as `==`.
    VersionOpOnString {
        /// The field.
        field: Field,
    },
    /// `W010`: an operator other than `==`/`!=` with `extra`; `spec-2026` evaluates it to false.
    ExtraOperator,
    /// `W011`: an extended string field on the left of `in` (a substring test of the value).
    FieldInLiteral {
        /// The field.
        field: Field,
    },
    /// `W012`: a well-formed set member that `spec/SPEC.md` does not register (it never matches
    /// a detected value).
    UnknownSetMember {
        /// The field.
        field: Field,
    },
    /// `W013`: an architecture not in the `interpreter_arch` table.
    UnknownArchLiteral {
        /// The literal.
        literal: String,
    },
}

impl WarningKind {
    /// The stable code, e.g. `W001`.
    pub fn code(&self) -> &'static str {
        use WarningKind as W;
        match self {
            W::DeprecatedAlias { .. } => "W001",
            W::StringOrdering { .. } => "W002",
            W::SemicolonInUrl => "W003",
            W::ConstantComparison => "W004",
            W::VersionFieldStringComparison { .. } => "W005",
            W::AlwaysErrors { .. } => "W006",
            W::NonStandardString => "W007",
            W::ContainmentOnVersion { .. } => "W008",
            W::VersionOpOnString { .. } => "W009",
            W::ExtraOperator => "W010",
            W::FieldInLiteral { .. } => "W011",
            W::UnknownSetMember { .. } => "W012",
            W::UnknownArchLiteral { .. } => "W013",
        }
    }

    /// The name `spec/SPEC.md` uses for this kind.
    pub fn name(&self) -> &'static str {
        code_name(self.code())
    }

    /// The one-line message.
    pub fn message(&self) -> String {
        use WarningKind as W;
        match self {
            W::DeprecatedAlias { alias, field } => {
                format!("`{alias}` is a deprecated spelling of `{field}`")
            }
            W::StringOrdering { field } => format!(
                "`{field}` is a string: `<` and `>` are always false, `<=` and `>=` mean `==`"
            ),
            W::SemicolonInUrl => "the `;` is part of the URL, not the start of a marker".into(),
            W::ConstantComparison => {
                "this comparison does not compare a variable with a value".into()
            }
            W::VersionFieldStringComparison { field } => format!(
                "`{field}` is compared with a value that is not a version, so it is compared as a string"
            ),
            W::AlwaysErrors { reason } => {
                format!("this comparison fails whenever it is evaluated: {reason}")
            }
            W::NonStandardString => {
                "this string uses escapes or characters that the specification does not define"
                    .into()
            }
            W::ContainmentOnVersion { field } => format!(
                "`in` and `not in` are not defined on `{field}`, a version: this is always false"
            ),
            W::VersionOpOnString { field } => {
                format!("`{field}` is a string: `~=` and `===` are read as `==`")
            }
            W::ExtraOperator => {
                "only `==` and `!=` are defined on `extra`: this is always false".into()
            }
            W::FieldInLiteral { field } => {
                format!("this tests whether the value of `{field}` is a substring of the string")
            }
            W::UnknownSetMember { field } => {
                format!("not a registered member of `{field}`: it never matches a detected value")
            }
            W::UnknownArchLiteral { literal } => {
                format!("`{literal}` is not in the `interpreter_arch` table")
            }
        }
    }

    /// A fix hint, when there is one.
    pub fn help(&self) -> Option<String> {
        use WarningKind as W;
        Some(match self {
            W::DeprecatedAlias { field, .. } => format!("write `{field}`"),
            W::SemicolonInUrl => "add a space before `;` to start a marker".into(),
            W::VersionOpOnString { .. } => "write `==`".into(),
            W::FieldInLiteral { field } => format!("to test membership, use `==` on `{field}`"),
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
