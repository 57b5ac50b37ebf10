//! The diagnostics table: every error and warning of this crate declared once, with its code,
//! the name `spec/SPEC.md` uses, a description, its data, its message and its help line.
//!
//! [`ErrorKind`], [`WarningKind`], their `code`/`name`/`message`/`help` methods and
//! [`DIAGNOSTIC_CODES`] are all generated from the one `diagnostics!` invocation below, so a
//! new diagnostic is one entry here (plus its test). Messages and help lines are built only
//! when they are asked for: creating a diagnostic computes nothing that only rendering needs.

use super::render::Severity;
use crate::field::{Dialect, Field};
use crate::operator::MarkerOperator;

/// Declares the diagnostics. Each entry is
/// `[code, spec-name, description] Variant { fields } => message, help;` where `message` is a
/// `String` expression and `help` an `Option<String>` expression, both over the fields.
macro_rules! diagnostics {
    (
        errors { $(
            $(#[doc = $doc:literal])*
            [$code:literal, $name:literal, $desc:literal]
            $variant:ident $({ $($(#[doc = $fdoc:literal])* $field:ident : $fty:ty),* $(,)? })?
            => $msg:expr, $help:expr;
        )* }
        warnings { $(
            $(#[doc = $wdoc:literal])*
            [$wcode:literal, $wname:literal, $wdesc:literal]
            $wvariant:ident $({ $($(#[doc = $wfdoc:literal])* $wfield:ident : $wfty:ty),* $(,)? })?
            => $wmsg:expr, $whelp:expr;
        )* }
    ) => {
        /// Every diagnostic code of this crate: (code, the name `spec/SPEC.md` uses, severity,
        /// description), errors then warnings. Version errors (`V0xx`) are in
        /// [`markerspec_pep440::ERROR_CODES`]. Codes never change meaning; a retired code is
        /// never reused.
        ///
        /// ```
        /// use markerspec_pep508::{DIAGNOSTIC_CODES, Severity};
        /// let (code, name, severity, _) = DIAGNOSTIC_CODES[0];
        /// assert_eq!((code, name, severity), ("R001", "expected-name", Severity::Error));
        /// ```
        pub const DIAGNOSTIC_CODES: &[(&str, &str, Severity, &str)] = &[
            $(($code, $name, Severity::Error, $desc),)*
            $(($wcode, $wname, Severity::Warning, $wdesc),)*
        ];

        /// What went wrong. Every variant has a stable code (see [`ErrorKind::code`]); the
        /// table of codes is [`DIAGNOSTIC_CODES`] and `spec/DIAGNOSTICS.md`.
        ///
        /// ```
        /// use markerspec_pep508::{ErrorKind, MarkerTree};
        /// let err = "os_name == ".parse::<MarkerTree>().unwrap_err();
        /// assert!(matches!(err.kind(), ErrorKind::ExpectedMarkerValue { .. }));
        /// assert_eq!(err.kind().name(), "expected-marker-value");
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $(
                $(#[doc = $doc])*
                $variant $({ $($(#[doc = $fdoc])* $field: $fty),* })?,
            )*
            /// A version clause that PEP 440 rejects; the code is the version library's
            /// (`V0xx`, see [`markerspec_pep440::Error::code`]), e.g. `foo>=1.*` (`V004`).
            Version(markerspec_pep440::Error),
        }

        impl ErrorKind {
            /// The stable code of this kind of error, e.g. `M002`.
            ///
            /// See the example on [`Error`](crate::Error).
            pub fn code(&self) -> &'static str {
                match self {
                    $(ErrorKind::$variant { .. } => $code,)*
                    ErrorKind::Version(e) => e.code(),
                }
            }

            /// The name `spec/SPEC.md` uses for this kind, e.g. `unknown-field`.
            ///
            /// See the example on [`Error`](crate::Error).
            pub fn name(&self) -> &'static str {
                match self {
                    $(ErrorKind::$variant { .. } => $name,)*
                    ErrorKind::Version(_) => "",
                }
            }

            /// The one-line message: lowercase, no trailing period.
            ///
            /// See the example on [`Error`](crate::Error).
            #[allow(unused_variables)]
            pub fn message(&self) -> String {
                match self {
                    $(ErrorKind::$variant $({ $($field),* })? => $msg,)*
                    ErrorKind::Version(e) => e.message(),
                }
            }

            /// A line that tells how to fix the input, where one can be guessed.
            ///
            /// See the example on [`Error`](crate::Error).
            #[allow(unused_variables, clippy::redundant_guards)]
            pub fn help(&self) -> Option<String> {
                match self {
                    $(ErrorKind::$variant $({ $($field),* })? => $help,)*
                    ErrorKind::Version(e) => e.help(),
                }
            }
        }

        /// What a warning is about. Warnings never reject input and never change a result.
        ///
        /// ```
        /// use markerspec_pep508::{MarkerTree, ParseOptions, WarningKind};
        /// let mut warnings = Vec::new();
        /// MarkerTree::parse_with("os.name == 'nt'", &ParseOptions::default(), &mut warnings).unwrap();
        /// assert!(matches!(warnings[0].kind, WarningKind::DeprecatedAlias { .. }));
        /// ```
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum WarningKind {
            $(
                $(#[doc = $wdoc])*
                $wvariant $({ $($(#[doc = $wfdoc])* $wfield: $wfty),* })?,
            )*
        }

        impl WarningKind {
            /// The stable code, e.g. `W001`.
            ///
            /// See the example on [`Warning`](crate::Warning).
            pub fn code(&self) -> &'static str {
                match self {
                    $(WarningKind::$wvariant { .. } => $wcode,)*
                }
            }

            /// The name `spec/SPEC.md` uses for this kind.
            ///
            /// See the example on [`Warning`](crate::Warning).
            pub fn name(&self) -> &'static str {
                match self {
                    $(WarningKind::$wvariant { .. } => $wname,)*
                }
            }

            /// The one-line message.
            ///
            /// See the example on [`Warning`](crate::Warning).
            #[allow(unused_variables)]
            pub fn message(&self) -> String {
                match self {
                    $(WarningKind::$wvariant $({ $($wfield),* })? => $wmsg,)*
                }
            }

            /// A fix hint, when there is one.
            ///
            /// See the example on [`Warning`](crate::Warning).
            #[allow(unused_variables)]
            pub fn help(&self) -> Option<String> {
                match self {
                    $(WarningKind::$wvariant $({ $($wfield),* })? => $whelp,)*
                }
            }
        }
    };
}

diagnostics! {
    errors {
        /// `R001`: no package name where one must start, e.g. `>=1.0` or `[extra]`.
        ["R001", "expected-name", "expected a package name"]
        ExpectedName {
            /// What was found instead (empty at the end of the input).
            found: String,
        } => format!("expected a package name, found {}", describe(found)),
            Some("a requirement starts with a package name, e.g. `numpy>=2`".into());

        /// `R002`: the name ends in `.`, `-` or `_`, e.g. `foo_`.
        ["R002", "name-end", "a name must end with a letter or digit"]
        NameEndsWithPunctuation => "a name must end with a letter or digit".into(),
            Some("remove the trailing punctuation".into());

        /// `R003`: an extras list without its closing bracket, e.g. `foo[bar`.
        ["R003", "unclosed-extras", "extras without a closing `]`"]
        UnclosedExtras => "expected `]` to close the extras".into(), None;

        /// `R004`: no extra name where one must be, e.g. `foo[bar,]` or `foo[!]`.
        ["R004", "expected-extra", "expected an extra name"]
        ExpectedExtraName {
            /// What was found instead.
            found: String,
        } => format!("expected an extra name, found {}", describe(found)),
            Some("extras are names separated by commas, e.g. `foo[bar,baz]`".into());

        /// `R005`: two extra names without a comma, e.g. `foo[bar baz]`.
        ["R005", "extras-comma", "missing `,` between extra names"]
        MissingCommaBetweenExtras => "expected `,` between extra names".into(),
            Some("separate extra names with `,`".into());

        /// `R006`: a version clause without an operator, e.g. `foo (1.0)`.
        ["R006", "expected-version-operator", "expected a version operator"]
        ExpectedVersionOperator {
            /// What was found instead.
            found: String,
        } => format!(
                "expected a version operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`), found {}",
                describe(found)
            ),
            operator_help(found);

        /// `R007`: an operator without a version, e.g. `foo>=`.
        ["R007", "expected-version", "expected a version after the operator"]
        ExpectedVersion {
            /// The operator as written.
            operator: String,
        } => format!("expected a version after `{operator}`"), None;

        /// `R008`: a parenthesised version list without `)`, e.g. `foo (>=1.0`.
        ["R008", "unclosed-version-paren", "version specifier without a closing `)`"]
        UnclosedVersionParen => "expected `)` to close the version specifier".into(), None;

        /// `R009`: `@` without a URL, e.g. `foo @ `.
        ["R009", "expected-url", "expected a URL after `@`"]
        ExpectedUrl => "expected a URL after `@`".into(), None;

        /// `R010`: something after the name, extras, version or URL that does not belong there,
        /// e.g. `foo 1.0` or `foo>=1.0 bar`.
        ["R010", "unexpected-after-requirement", "unexpected text after the name, extras, versions or URL"]
        UnexpectedAfterRequirement {
            /// What was found.
            found: String,
            /// What could have come next.
            expected: &'static str,
        } => format!("expected {expected}, found {}", describe(found)),
            after_requirement_help(found);

        /// `M001`: no variable or quoted string where a marker value must be, e.g. `; == "a"`.
        ["M001", "expected-marker-value", "expected a marker variable or a quoted string"]
        ExpectedMarkerValue {
            /// What was found instead.
            found: String,
        } => format!(
                "expected a marker variable or a quoted string, found {}",
                describe(found)
            ),
            found
                .starts_with(|c: char| c.is_alphanumeric())
                .then(|| format!("put the value in quotes: `\"{found}\"`"));

        /// `M002`: a name that is not a marker variable, e.g. `python_versoin`. The closest
        /// real name, when one is close, is found when the help line is asked for
        /// ([`ErrorKind::suggestion`]).
        ["M002", "unknown-field", "unknown marker variable"]
        UnknownVariable {
            /// The name as written.
            name: String,
            /// The dialect the marker was parsed in, which decides the names suggested.
            dialect: Dialect,
        } => format!("unknown marker variable `{name}`"),
            crate::field::suggest(name, *dialect).map(|s| format!("did you mean `{s}`?"));

        /// `M003`: an extended field used in the `pep508` dialect, e.g. `cuda_version`.
        ["M003", "extended-field-in-pep508", "extended field used in the `pep508` dialect"]
        ExtendedFieldInPep508 {
            /// The field.
            field: Field,
        } => format!("`{field}` is an extended field, not part of PEP 508"),
            Some(format!("enable the `{}` dialect to use it", Dialect::Extended));

        /// `M004`: no comparison operator between two marker values, e.g. `os_name "posix"`.
        ["M004", "expected-marker-operator", "expected a marker operator"]
        ExpectedMarkerOperator {
            /// What was found instead.
            found: String,
        } => format!(
                "expected a marker operator (`==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===`, `in`, `not in`), found {}",
                describe(found)
            ),
            (found.starts_with('=') && !found.starts_with("=="))
                .then(|| "use `==` to compare".into());

        /// `M005`: `not` without ` in` after it, e.g. `"a" not os_name`.
        ["M005", "expected-in", "expected `in` after `not`"]
        ExpectedInAfterNot => "expected `in` after `not`".into(), None;

        /// `M006`: a quoted string without its closing quote, e.g. `os_name == "posix`.
        ["M006", "unterminated-string", "unterminated quoted string"]
        UnterminatedString {
            /// The quote character that opened the string.
            quote: char,
        } => format!("unterminated string: missing closing `{quote}`"),
            Some(format!("add `{quote}` at the end of the string"));

        /// `M007`: a quoted string whose content is not valid, e.g. a bad `\x` escape or a line
        /// break.
        ["M007", "invalid-string", "invalid quoted string (escape or line break)"]
        InvalidString {
            /// Why it is invalid.
            reason: String,
        } => format!("invalid quoted string: {reason}"), None;

        /// `M008`: a `(` in a marker without its `)`, e.g. `(os_name == "nt"`.
        ["M008", "unclosed-paren", "`(` without a matching `)`"]
        UnclosedParen => "expected `)` to close this `(`".into(), None;

        /// `M009`: something after a complete marker that is not `and`, `or` or the end,
        /// e.g. `os_name == "nt" xor`.
        ["M009", "unexpected-after-marker", "unexpected text after a complete marker"]
        UnexpectedAfterMarker {
            /// What was found.
            found: String,
        } => format!(
                "expected `and`, `or` or the end of the marker, found {}",
                describe(found)
            ),
            after_marker_help(found);

        /// `M010`: nothing after the `;` that starts a marker, e.g. `foo;`.
        ["M010", "empty-marker", "nothing after the `;` that starts a marker"]
        EmptyMarker => "expected a marker after `;`".into(), None;

        /// `M011`: a comparison of two quoted strings, e.g. `"a" == "a"` (`spec-2026` profile).
        ["M011", "no-field-in-comparison", "a comparison of two quoted strings"]
        NoFieldInComparison => "this comparison has no marker variable".into(),
            Some(ONE_VARIABLE.into());

        /// `M012`: a comparison of two variables, e.g. `os_name == sys_platform` (`spec-2026`
        /// profile, and every profile when an extended field is involved).
        ["M012", "field-compared-to-field", "a comparison of two variables"]
        FieldComparedToField => "a marker variable is compared with another variable".into(),
            Some(ONE_VARIABLE.into());

        /// `M013`: `extras` or `dependency_groups` without lock-file context, e.g.
        /// `"cuda" in extras` (`spec-2026` profile; see
        /// [`ParseOptions::lock_file`](crate::ParseOptions)).
        ["M013", "lockfile-field", "`extras`/`dependency_groups` outside lock-file context"]
        LockFileField {
            /// The field.
            field: Field,
        } => format!("`{field}` is only defined when installing from a lock file"),
            Some("enable lock-file context to use it".into());

        /// `M014`: the legacy `extra` in lock-file context, e.g. `extra == "gpu"` with
        /// [`ParseOptions::lock_file`](crate::ParseOptions) set (`spec-2026` profile; the merged
        /// text: "The legacy ``extra`` comparison syntax is NOT permitted in lock file
        /// ``packages.marker`` fields").
        ["M014", "lockfile-extra", "the legacy `extra` in lock-file context"]
        LockFileExtra => "the legacy `extra` is not permitted in lock-file context".into(),
            Some("test the requested extras with `\"name\" in extras`".into());

        /// `L001`: the input is longer than
        /// [`ParseOptions::max_input_len`](crate::ParseOptions).
        ["L001", "input-too-long", "input longer than the limit"]
        InputTooLong {
            /// The input's length in bytes.
            len: usize,
            /// The limit in bytes.
            limit: usize,
        } => format!("input is {len} bytes long, more than the limit of {limit} bytes"),
            Some(LIMIT_HELP.into());

        /// `L002`: parentheses nested deeper than
        /// [`ParseOptions::max_nesting`](crate::ParseOptions).
        ["L002", "nesting-too-deep", "parentheses nested deeper than the limit"]
        NestingTooDeep {
            /// The limit.
            limit: usize,
        } => format!("parentheses are nested more than {limit} levels deep"),
            Some(LIMIT_HELP.into());

        /// `L003`: more comparisons in one marker than
        /// [`ParseOptions::max_clauses`](crate::ParseOptions).
        ["L003", "too-many-comparisons", "more comparisons than the limit"]
        TooManyClauses {
            /// The limit.
            limit: usize,
        } => format!("marker has more than {limit} comparisons"),
            Some(LIMIT_HELP.into());

        /// `L004`: a quoted string longer than
        /// [`ParseOptions::max_string_len`](crate::ParseOptions).
        ["L004", "string-too-long", "quoted string longer than the limit"]
        StringTooLong {
            /// The limit in bytes.
            limit: usize,
        } => format!("quoted string is longer than the limit of {limit} bytes"),
            Some(LIMIT_HELP.into());

        /// `E001`: under the `packaging` profile, the environment has no value for a name the
        /// marker reads (packaging's `UndefinedEnvironmentName`).
        ["E001", "undefined-field", "the environment has no value for the field (`packaging` profile)"]
        UndefinedVariable {
            /// The name looked up.
            name: String,
        } => format!("the environment has no value for `{name}`"), None;

        /// `E002`: a comparison the profile does not define, e.g. `os_name ~= "1.0"` under the
        /// `packaging` profile.
        ["E002", "undefined-comparison", "a comparison the profile does not define"]
        UndefinedComparison {
            /// The comparison as written.
            expression: String,
            /// Why it is undefined.
            reason: String,
        } => format!("undefined comparison `{expression}`: {reason}"), None;

        /// `E004`: the marker's result is unknown and the caller asked for a plain boolean.
        ["E004", "unknown-result", "unknown result where a boolean was required"]
        UnknownResult {
            /// The fields whose values were unknown.
            fields: Vec<Field>,
        } => {
                let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                format!(
                    "the marker's result is unknown because {} {} unknown",
                    names.join(", "),
                    if names.len() == 1 { "is" } else { "are" }
                )
            },
            None;

        /// `X001`: an extended version field compared with something that is not a version
        /// operand, e.g. `cuda_version >= "twelve"` or `cuda_version ~= "12"`.
        ["X001", "invalid-version-literal", "extended version field compared with a non-version"]
        InvalidVersionLiteral {
            /// The field.
            field: Field,
            /// Why.
            reason: String,
        } => format!("`{field}` is compared with something that is not a version: {reason}"),
            None;

        /// `X002`: an operator other than `in`/`not in` with a set field, e.g.
        /// `gpu_backends == "cuda"`.
        ["X002", "invalid-set-operator", "an operator other than `in`/`not in` with a set field"]
        InvalidSetOperator {
            /// The field.
            field: Field,
            /// The operator.
            op: MarkerOperator,
        } => format!("`{op}` is not defined on `{field}`, a set of strings"),
            Some(format!("write `\"value\" in {field}`"));

        /// `X003`: a variant namespace, feature or property that is not well formed, e.g.
        /// `"nvidia :: cuda" in variant_properties` (a property needs three parts).
        ["X003", "invalid-variant-property", "malformed variant namespace, feature or property"]
        InvalidVariantValue {
            /// The field.
            field: Field,
            /// Why it is not well formed.
            reason: String,
        } => format!("invalid value for `{field}`: {reason}"), None;

        /// `X004`: a set field on the left of `in`/`not in`, e.g. `gpu_backends in "cuda rocm"`.
        ["X004", "set-field-on-left", "a set field on the left of `in`/`not in`"]
        SetFieldOnLeft {
            /// The field.
            field: Field,
        } => format!("`{field}` is a set of strings and must be on the right of `in`"),
            Some(format!("write `\"value\" in {field}`"));

        /// `X005`: `in`/`not in` with an extended version field, e.g. `"12" in cuda_version`.
        ["X005", "containment-on-version", "`in`/`not in` with an extended version field"]
        ContainmentOnVersion {
            /// The field.
            field: Field,
        } => format!("`{field}` is a version; `in` and `not in` are not defined on versions"),
            None;

        /// `X006`: `~=` or `===` with an extended string field, e.g.
        /// `python_abi_tag ~= "cp313"`.
        ["X006", "version-op-on-string", "`~=`/`===` with an extended string field"]
        VersionOpOnString {
            /// The field.
            field: Field,
        } => format!("`{field}` is a string; `~=` and `===` compare versions"),
            Some("use `==`".into());

        /// `X007`: a literal outside the set field's format, e.g. `"sm_86" in
        /// cuda_compute_capabilities`.
        ["X007", "invalid-set-literal", "a literal outside the set field's format"]
        InvalidSetLiteral {
            /// The field.
            field: Field,
            /// The format the field's members have.
            format: &'static str,
            /// The canonical spelling of the same member, when the literal has one (`"9.00"`
            /// for `cuda_compute_capabilities` is `9.0`, `spec/SPEC.md` §5.4).
            canonical: Option<String>,
        } => format!("not a valid member of `{field}`, whose members are {format}"),
            canonical.as_ref().map(|c| format!("write `\"{c}\"`"));

        /// `X009`: a malformed `variant_label` literal, e.g. `variant_label == "CU 12"`.
        ["X009", "invalid-variant-label", "a malformed `variant_label` literal"]
        InvalidVariantLabel {
            /// Why.
            reason: String,
        } => format!("invalid `variant_label`: {reason}"), None;

        /// `X010`: `===` with an extended field, e.g. `cuda_version === "12.8"`: its complement
        /// cannot be written (`spec/SPEC.md` §5.1, 0.2).
        ["X010", "arbitrary-equality-on-extended", "`===` with an extended field"]
        ArbitraryEqualityOnExtended {
            /// The field.
            field: Field,
        } => format!("`===` is not defined on the extended field `{field}`"),
            Some("use `==`".into());

        /// `X011`: the empty literal (the absence test) with an operator other than `==` or
        /// `!=` on an extended field, e.g. `cuda_version >= ""` (`spec/SPEC.md` §4.3).
        ["X011", "invalid-absence-test", "`\"\"` with an operator other than `==`/`!=` on an extended field"]
        InvalidAbsenceTest {
            /// The field.
            field: Field,
            /// The operator.
            op: MarkerOperator,
        } => format!("`\"\"` (absent) can only be compared with `==` or `!=`, not `{op}`, on `{field}`"),
            Some(format!("write `{field} == \"\"` or `{field} != \"\"`"));
    }
    warnings {
        /// `W001`: a PEP 345 spelling such as `os.name` or `python_implementation`.
        ["W001", "deprecated-alias", "deprecated PEP 345 spelling of a field"]
        DeprecatedAlias {
            /// The spelling used.
            alias: String,
            /// The canonical field.
            field: Field,
        } => format!("`{alias}` is a deprecated spelling of `{field}`"),
            Some(format!("write `{field}`"));

        /// `W002`: `<`, `<=`, `>` or `>=` on a string field: `<`/`>` are false, `<=`/`>=` mean
        /// `==`.
        ["W002", "string-ordering-comparison", "ordered comparison on a string field"]
        StringOrdering {
            /// The field.
            field: Field,
        } => format!(
                "`{field}` is a string: `<` and `>` are always false, `<=` and `>=` mean `==`"
            ),
            None;

        /// `W003`: a URL containing `;` with no space before it: the `;` is part of the URL.
        ["W003", "semicolon-in-url", "`;` inside a URL, not starting a marker"]
        SemicolonInUrl => "the `;` is part of the URL, not the start of a marker".into(),
            Some("add a space before `;` to start a marker".into());

        /// `W004`: a comparison between two quoted strings or two variables (`packaging`
        /// profile).
        ["W004", "constant-comparison", "comparison of two literals or two variables (`packaging` profile)"]
        ConstantComparison => "this comparison does not compare a variable with a value".into(),
            None;

        /// `W005`: a version field compared with a value that is not a version: the comparison
        /// falls back to the string rules.
        ["W005", "version-string-fallback", "version field compared with a non-version, as strings"]
        VersionFieldStringComparison {
            /// The field.
            field: Field,
        } => format!(
                "`{field}` is compared with a value that is not a version, so it is compared as a string"
            ),
            None;

        /// `W006`: a comparison that fails whenever it is evaluated under the `packaging`
        /// profile, e.g. `python_version ~= "3"`.
        ["W006", "always-errors", "comparison that fails whenever it is evaluated (`packaging` profile)"]
        AlwaysErrors {
            /// Why.
            reason: String,
        } => format!("this comparison fails whenever it is evaluated: {reason}"), None;

        /// `W007`: a quoted string that uses backslash escapes or characters outside the
        /// specification's `python_str_c` set.
        ["W007", "non-standard-string", "string with escapes or characters outside the spec"]
        NonStandardString =>
            "this string uses escapes or characters that the specification does not define".into(),
            None;

        /// `W008`: `in`/`not in` on a standard version field, which the living specification
        /// leaves undefined; `spec-2026` evaluates it to false.
        ["W008", "containment-on-version", "`in`/`not in` on a standard version field is false"]
        ContainmentOnVersion {
            /// The field.
            field: Field,
        } => format!(
                "`in` and `not in` are not defined on `{field}`, a version: this is always false"
            ),
            None;

        /// `W009`: `~=`/`===` on a standard string field; `spec-2026` reads them as `==`.
        ["W009", "version-op-on-string", "`~=`/`===` on a standard string field mean `==`"]
        VersionOpOnString {
            /// The field.
            field: Field,
        } => format!("`{field}` is a string: `~=` and `===` are read as `==`"),
            Some("write `==`".into());

        /// `W010`: an operator other than `==`/`!=` with `extra`; `spec-2026` evaluates it to
        /// false.
        ["W010", "extra-operator", "an operator other than `==`/`!=` with `extra` is false"]
        ExtraOperator => "only `==` and `!=` are defined on `extra`: this is always false".into(),
            None;

        /// `W011`: an extended string field on the left of `in` (a substring test of the
        /// value).
        ["W011", "field-in-literal", "an extended string field on the left of `in`"]
        FieldInLiteral {
            /// The field.
            field: Field,
        } => format!("this tests whether the value of `{field}` is a substring of the string"),
            Some(format!("to test membership, use `==` on `{field}`"));

        /// `W012`: a well-formed set member that `spec/SPEC.md` does not register (it never
        /// matches a detected value).
        ["W012", "unknown-set-member", "a well-formed but unregistered set member"]
        UnknownSetMember {
            /// The field.
            field: Field,
        } => format!("not a registered member of `{field}`: it never matches a detected value"),
            None;

        /// `W013`: an architecture not in the `interpreter_arch` table.
        ["W013", "unknown-arch-literal", "an architecture not in the `interpreter_arch` table"]
        UnknownArchLiteral {
            /// The literal.
            literal: String,
        } => format!("`{literal}` is not in the `interpreter_arch` table"), None;

        /// `W014`: an `==` / `!=` literal with fewer release components than the extended
        /// field's precision ([`Field::precision`]), e.g. `cuda_version == "12"`, which PEP 440
        /// reads as `12.0` (`spec/SPEC.md` §5.1).
        ["W014", "short-version-literal", "`==`/`!=` literal shorter than the field's precision"]
        ShortVersionLiteral {
            /// The field.
            field: Field,
            /// The operator (`==` or `!=`).
            op: MarkerOperator,
            /// The literal.
            literal: String,
        } => format!(
                "`{literal}` has fewer release components than the values of `{field}`: PEP 440 pads it with zeros, so it does not stand for every `{literal}.x`"
            ),
            Some(format!("to compare with every `{literal}.x`, write `{op} \"{literal}.*\"`"));

        /// `W015`: `!=`, `<` or `<=` on an extended version field without an absence guard,
        /// e.g. `cuda_version < "12"` alone, which is false on a machine without CUDA
        /// (`spec/SPEC.md` §5.1).
        ["W015", "unguarded-absent", "`!=`/`<`/`<=` on an extended version field without an absence guard"]
        UnguardedAbsent {
            /// The field.
            field: Field,
            /// The operator, as written with the field on the left.
            op: MarkerOperator,
        } => if *op == MarkerOperator::NotEqual {
                format!("`{field} {op} …` is also true where `{field}` is absent")
            } else {
                format!("`{field} {op} …` is false where `{field}` is absent")
            },
            Some(if *op == MarkerOperator::NotEqual {
                format!("to exclude the absent case, add `and {field} != \"\"`")
            } else {
                format!("to include the absent case, add `or {field} == \"\"`; to exclude it, add `and {field} != \"\"`")
            });

        /// `W016`: an alias spelling compared with `interpreter_arch` or `host_arch`, e.g.
        /// `interpreter_arch == "AMD64"`: compared after mapping it to the canonical spelling
        /// (`spec/SPEC.md` §8.3; an error, `X008`, before 0.2).
        ["W016", "noncanonical-arch-literal", "an alias spelling compared with an architecture field"]
        NoncanonicalArchLiteral {
            /// The field.
            field: Field,
            /// The literal.
            literal: String,
            /// The canonical spelling it is compared as.
            canonical: &'static str,
        } => format!(
                "`{literal}` is not the canonical spelling of `{canonical}`; `{field}` is compared with `{canonical}`"
            ),
            Some(format!("write `\"{canonical}\"`"));

        /// `W017`: in lock-file context under `spec-2026`, an operator other than `in`/`not in`
        /// with `extras` or `dependency_groups`: false (Appendix E.1 of `spec/SPEC.md`).
        ["W017", "invalid-set-operator", "`extras`/`dependency_groups` with another operator, in a lock file, is false"]
        LockFileSetOperator {
            /// The field.
            field: Field,
            /// The operator.
            op: MarkerOperator,
        } => format!("`{op}` is not defined on `{field}`, a set of strings: this is always false"),
            Some(format!("write `\"value\" in {field}`"));

        /// `W018`: in lock-file context under `spec-2026`, `extras` or `dependency_groups` on
        /// the left of `in`/`not in`: false (Appendix E.1 of `spec/SPEC.md`).
        ["W018", "set-field-on-left", "`extras`/`dependency_groups` on the left of `in`, in a lock file, is false"]
        LockFileSetOnLeft {
            /// The field.
            field: Field,
        } => format!("`{field}` is a set of strings on the left of `in`: this is always false"),
            Some(format!("write `\"value\" in {field}`"));
    }
}

impl ErrorKind {
    /// For [`ErrorKind::UnknownVariable`], the closest real field name, when one is close
    /// (computed on each call: a failed parse does not pay for it unless it is asked).
    ///
    /// ```
    /// use markerspec_pep508::MarkerTree;
    /// let err = "python_versoin >= '3'".parse::<MarkerTree>().unwrap_err();
    /// assert_eq!(err.kind().suggestion(), Some("python_version"));
    /// ```
    pub fn suggestion(&self) -> Option<&'static str> {
        match self {
            ErrorKind::UnknownVariable { name, dialect } => crate::field::suggest(name, *dialect),
            _ => None,
        }
    }
}

const ONE_VARIABLE: &str =
    "compare one marker variable with one quoted string, e.g. `os_name == \"nt\"`";
const LIMIT_HELP: &str = "the limit is set in `ParseOptions`";

fn operator_help(found: &str) -> Option<String> {
    starts_digit(found).then(|| {
        format!(
            "add an operator before the version, e.g. `=={}`",
            first_word(found)
        )
    })
}

fn after_requirement_help(found: &str) -> Option<String> {
    if starts_digit(found) {
        operator_help(found)
    } else if found.starts_with('/') || found.contains("://") {
        Some("to give a URL, write `name @ URL`".into())
    } else if looks_like_marker(found) {
        Some("start the marker with `;`, e.g. `numpy; python_version >= \"3.10\"`".into())
    } else {
        None
    }
}

fn after_marker_help(found: &str) -> Option<String> {
    if ["AND", "OR", "And", "Or"]
        .iter()
        .any(|k| found.starts_with(k))
    {
        Some("keywords are written in lowercase: `and`, `or`".into())
    } else if found.starts_with("&&") || found.starts_with("||") {
        Some("write `and` or `or`".into())
    } else if found.starts_with(')') {
        Some("remove the `)` or add a matching `(`".into())
    } else {
        None
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
