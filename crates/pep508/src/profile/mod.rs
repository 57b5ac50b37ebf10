//! The behaviour profiles, one module each, and the one table ([`Rules`]) through which the
//! parser, the parse-time checks and the evaluator consult them.
//!
//! A profile quirk has one home: its syntax knob or check in its [`Rules`] entry, its
//! comparisons in its module ([`spec2026`], [`packaging`], [`uv`]). The [`Profile`] enum itself
//! is parse configuration, beside [`ParseOptions`].

pub(crate) mod outcome;
pub(crate) mod packaging;
pub(crate) mod spec2026;
pub(crate) mod uv;

use crate::environment::EvalEnv;
use crate::error::{ErrorKind, WarningKind};
use crate::lower::Comparison;
use crate::options::{ParseOptions, Profile};
use crate::syntax::MarkerExpression;
use outcome::Outcome;

/// A profile's own parse-time check of one comparison of standard fields: `Ok(true)` keeps it,
/// `Ok(false)` drops it (after its warning), an error rejects the marker.
pub(crate) type CheckFn =
    fn(&MarkerExpression, &ParseOptions, &mut dyn FnMut(WarningKind)) -> Result<bool, ErrorKind>;

/// What a profile changes, in one table.
pub(crate) struct Rules {
    /// uv's syntax: any Unicode whitespace separates tokens, quoted strings are read as
    /// written (no escapes), `and`/`or`/`not` need whitespace after them, and uv's
    /// requirement grammar (its URL and archive-name rules).
    pub(crate) uv_syntax: bool,
    /// A name's trailing `-` or `.` is left over for what follows to reject, and a trailing
    /// `_` belongs to the name (packaging's name regular expression).
    pub(crate) name_regex: bool,
    /// Any Python whitespace (`\s`: Unicode whitespace and `\x1c`–`\x1f`) may stand between
    /// a specifier's operator and its version (packaging's specifier regular expression,
    /// `<\s*+v?+…`); elsewhere in a specifier list only spaces and tabs.
    pub(crate) specifier_regex: bool,
    /// The words `true` and `false`, as the whole marker, read as the constants (their printed
    /// form); packaging rejects them.
    pub(crate) constants: bool,
    /// A parenthesised `and` / `or` is kept as written, not spliced into its parent, and
    /// prints in parentheses (packaging keeps and prints every group of two or more
    /// comparisons that is not the whole marker).
    pub(crate) keep_groups: bool,
    /// The parse-time checks of a comparison of standard fields (the extended fields' are the
    /// same in every profile).
    pub(crate) check_standard: CheckFn,
    /// Whether evaluation may stop once an `and`/`or` is decided (no comparison of a marker
    /// parsed under this profile can fail to evaluate).
    pub(crate) short_circuit: bool,
    /// One comparison.
    pub(crate) compare: fn(&Comparison<'_>, &EvalEnv<'_>) -> Outcome,
}

const SPEC2026: Rules = Rules {
    uv_syntax: false,
    name_regex: false,
    specifier_regex: false,
    constants: true,
    keep_groups: false,
    check_standard: spec2026::check,
    short_circuit: true,
    compare: spec2026::compare,
};

const PACKAGING: Rules = Rules {
    uv_syntax: false,
    name_regex: true,
    specifier_regex: true,
    constants: false,
    keep_groups: true,
    check_standard: packaging::check,
    short_circuit: false,
    compare: packaging::compare,
};

const UV: Rules = Rules {
    uv_syntax: true,
    name_regex: false,
    specifier_regex: false,
    constants: true,
    keep_groups: false,
    check_standard: uv::check,
    short_circuit: false,
    compare: uv::compare,
};

impl Profile {
    /// The profile's entry in the rules table.
    #[inline]
    pub(crate) fn rules(self) -> &'static Rules {
        match self {
            Profile::Spec2026 => &SPEC2026,
            Profile::Packaging => &PACKAGING,
            Profile::Uv => &UV,
        }
    }
}
