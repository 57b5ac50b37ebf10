//! Running cases against an implementation: the [`Implementation`] trait, filters, declared
//! divergences and the [`Report`].

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{self, AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use serde::Serialize;
use serde_json::{Value, json};

use crate::case::{Case, Cases, Dialect, EnvDocument, Expected, Kind, Outcome, Profile};

/// What one call to an implementation asks for.
///
/// See the example on [`Markerspec`](crate::builtin::Markerspec).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The case: input, kind, dialect, lock-file context.
    pub case: &'a Case,
    /// The profile whose expectation the answer is compared with.
    pub profile: Profile,
}

impl Request<'_> {
    /// The input text.
    ///
    /// See the example in the [crate documentation](crate).
    pub fn input(&self) -> &str {
        self.case.input()
    }
    /// The resolved environment document (no `extra` key; see [`Request::extras`]).
    ///
    /// See the example on [`Markerspec`](crate::builtin::Markerspec).
    pub fn environment(&self) -> &EnvDocument {
        self.case.environment()
    }
    /// The requested extras.
    ///
    /// See the example on [`Markerspec`](crate::builtin::Markerspec).
    pub fn extras(&self) -> &[String] {
        self.case.extras()
    }
}

/// What an implementation made of an input.
///
/// See the example on [`Implementation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Accepted; `canonical` is its printed form, or `None` if the implementation does not
    /// print (then the canonical form is not checked).
    Valid {
        /// The printed form.
        canonical: Option<String>,
    },
    /// Rejected.
    Invalid {
        /// The diagnostic code, if the implementation has codes.
        code: Option<String>,
        /// The implementation's message, for reports.
        message: Option<String>,
    },
}

/// What an implementation's evaluation gave.
///
/// See the second example on [`Report`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evaluated {
    /// A result: true, false, unknown, or an evaluation error.
    Result {
        /// The result; for [`Expected::Error`] the code if the implementation has codes.
        result: Expected,
        /// The implementation's message for an error, for reports.
        message: Option<String>,
    },
    /// The input did not parse, so there was nothing to evaluate.
    Invalid {
        /// The diagnostic code, if the implementation has codes.
        code: Option<String>,
        /// The implementation's message, for reports.
        message: Option<String>,
    },
}

impl Evaluated {
    /// A plain result without a message.
    ///
    /// See the second example on [`Report`].
    pub fn result(result: Expected) -> Evaluated {
        Evaluated::Result {
            result,
            message: None,
        }
    }
}

/// The answer of one implementation callback.
///
/// See the example on [`Implementation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestResult<T> {
    /// The implementation's answer, compared with the expectation.
    Ok(T),
    /// The implementation cannot answer this case (unsupported feature); not a failure.
    Skip(String),
    /// The implementation failed to answer in an ordinary way (a bug it reports itself).
    Fail(String),
    /// The implementation crashed, hung or broke its protocol; reported as a failure.
    Crash(String),
}

/// An implementation under test.
///
/// The runner calls [`Implementation::parse`] for every selected case and profile, and
/// [`Implementation::evaluate`] when some profile pins an evaluation result. Every call is
/// wrapped in `catch_unwind`: a panic is reported as a crash of that case, never as a panic
/// of the runner.
///
/// The crate documentation has a complete implementation; `examples/embed-conformance` in the
/// repository is a whole program. The smallest one accepts everything:
///
/// ```
/// use markerspec_conformance::{
///     Cases, Evaluated, Implementation, Parsed, Request, Runner, Status, TestResult,
/// };
///
/// struct AcceptsAll;
///
/// impl Implementation for AcceptsAll {
///     fn name(&self) -> &str {
///         "accepts-all"
///     }
///     fn parse(&mut self, _: &Request<'_>) -> TestResult<Parsed> {
///         TestResult::Ok(Parsed::Valid { canonical: None })
///     }
///     fn evaluate(&mut self, _: &Request<'_>) -> TestResult<Evaluated> {
///         TestResult::Skip("no evaluator".into())
///     }
/// }
///
/// let report = Runner::new().include("marker-syntax").run(&Cases::all(), &mut AcceptsAll);
/// assert!(report.counts()[&Status::Fail] > 0); // it accepts what must be rejected
/// // The defaults: no diagnostic codes compared, never given up.
/// assert!(!AcceptsAll.reports_codes());
/// assert_eq!(AcceptsAll.given_up(), None);
/// ```
pub trait Implementation {
    /// The implementation's name in reports, e.g. `markerspec`.
    ///
    /// See the example on [`Implementation`].
    fn name(&self) -> &str;

    /// Whether the implementation claims `profile` for cases of `dialect`; other cases are
    /// skipped. Default: every profile and dialect.
    ///
    /// See the example on [`Implementation`].
    fn supports(&self, profile: Profile, dialect: Dialect) -> bool {
        let _ = (profile, dialect);
        true
    }

    /// Whether the implementation reports markerspec's diagnostic codes, so that pinned codes
    /// are compared. Default: false (only accepted / rejected and results are compared).
    ///
    /// See the example on [`Implementation`].
    fn reports_codes(&self) -> bool {
        false
    }

    /// Why the implementation was given up, if it was (an adapter that timed out too often
    /// in a row): the runner then reports every remaining case as [`Status::NotRun`] without
    /// asking. Default: never.
    ///
    /// See the example on [`Implementation`].
    fn given_up(&self) -> Option<&str> {
        None
    }

    /// Parses the case's input as its kind, dialect and lock-file context say.
    ///
    /// See the example on [`Implementation`].
    fn parse(&mut self, request: &Request<'_>) -> TestResult<Parsed>;

    /// Parses the case's input and evaluates its marker in the case's environment with the
    /// requested extras. A requirement without a marker evaluates to true.
    ///
    /// See the example on [`Implementation`].
    fn evaluate(&mut self, request: &Request<'_>) -> TestResult<Evaluated>;
}

/// Which part of an outcome a failure concerns.
///
/// See the second example on [`Report`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    /// Accepted or rejected, and the diagnostic code.
    Parse,
    /// The printed form.
    Canonical,
    /// The evaluation result.
    Result,
}

impl Check {
    /// `parse`, `canonical` or `result`.
    ///
    /// See the second example on [`Report`].
    pub fn as_str(self) -> &'static str {
        match self {
            Check::Parse => "parse",
            Check::Canonical => "canonical",
            Check::Result => "result",
        }
    }
}

/// A declared divergence: cases on which an implementation is known, and accepted, to differ.
///
/// Declared as `(selector, reason)`. A selector is `[PROFILE:]PATTERN[#CHECK]`: `PATTERN` is a
/// group (`versions`), a case (`versions/prereleases-117`), a glob over full names with `*`
/// (`versions/prereleases-*`), `@CATEGORY`, or `*`; the optional profile limits it to one
/// profile, and the optional check (`parse`, `canonical`, `result`) to one kind of mismatch.
///
/// ```
/// use markerspec_conformance::{Check, Divergence, Profile};
///
/// let d = Divergence::new("packaging:@escapes#parse", "no `\\N{NAME}` escapes").unwrap();
/// assert!(d.covers(Check::Parse) && !d.covers(Check::Result));
/// assert!(Divergence::new("pip:versions", "no such profile").is_err());
/// # let _ = Profile::Packaging;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    profile: Option<Profile>,
    pattern: String,
    check: Option<Check>,
    reason: String,
}

impl Divergence {
    /// Reads a selector.
    ///
    /// # Errors
    /// An unknown profile or check name, or an empty pattern.
    ///
    /// See the example on [`Divergence`].
    pub fn new(selector: &str, reason: &str) -> Result<Divergence, String> {
        let (rest, check) = match selector.rsplit_once('#') {
            Some((r, c)) => {
                let check = match c {
                    "parse" => Check::Parse,
                    "canonical" => Check::Canonical,
                    "result" => Check::Result,
                    _ => return Err(format!("unknown check `{c}` in selector `{selector}`")),
                };
                (r, Some(check))
            }
            None => (selector, None),
        };
        let (profile, pattern) = match rest.split_once(':') {
            Some((p, pat)) if !p.contains('/') && !p.starts_with('@') => {
                (Some(p.parse::<Profile>()?), pat)
            }
            _ => (None, rest),
        };
        if pattern.is_empty() {
            return Err(format!("empty pattern in selector `{selector}`"));
        }
        Ok(Divergence {
            profile,
            pattern: pattern.to_string(),
            check,
            reason: reason.to_string(),
        })
    }

    /// Why the implementation differs.
    ///
    /// See the second example on [`Report`].
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Whether the declaration covers `case` under `profile`.
    ///
    /// See the second example on [`Report`].
    pub fn matches(&self, case: &Case, profile: Profile) -> bool {
        if self.profile.is_some_and(|p| p != profile) {
            return false;
        }
        pattern_matches(&self.pattern, case)
    }

    /// Whether the declaration forgives a mismatch of this check.
    ///
    /// See the example on [`Divergence`].
    pub fn covers(&self, check: Check) -> bool {
        self.check.is_none_or(|c| c == check)
    }
}

fn pattern_matches(pattern: &str, case: &Case) -> bool {
    if let Some(cat) = pattern.strip_prefix('@') {
        return cat == case.category();
    }
    if pattern == case.group() {
        return true;
    }
    glob(pattern, case.full_name())
}

/// `*` matches any run of characters; everything else matches itself.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Include / exclude filters over case names, as `MARKERSPEC_TEST=foo,-bar` sets them.
///
/// A term selects the cases whose full name starts with it, whose group or `@category` it
/// names, or whose full name it matches as a `*` glob. Terms apply in order, a leading `-`
/// excludes, and the last term that matches a case decides; with no include term every case
/// starts included.
///
/// ```
/// use markerspec_conformance::{Cases, Filter};
///
/// let cases = Cases::all();
/// let filter = Filter::parse("versions,-versions/prereleases-117");
/// assert!(filter.selects(cases.get("versions/prereleases-118").unwrap()));
/// assert!(!filter.selects(cases.get("versions/prereleases-117").unwrap()));
/// assert!(!filter.selects(cases.get("extras/extra-100").unwrap()));
///
/// // The same, term by term.
/// let mut built = Filter::default();
/// built.include("versions");
/// built.exclude("versions/prereleases-117");
/// assert!(!built.selects(cases.get("versions/prereleases-117").unwrap()));
/// assert!(built.selects(cases.get("versions/prereleases-118").unwrap()));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Filter {
    terms: Vec<(bool, String)>,
}

impl Filter {
    /// Reads a comma-separated list of terms.
    ///
    /// See the example on [`Filter`].
    pub fn parse(spec: &str) -> Filter {
        let mut f = Filter::default();
        for t in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match t.strip_prefix('-') {
                Some(t) => f.exclude(t),
                None => f.include(t),
            }
        }
        f
    }

    /// Adds an include term.
    ///
    /// See the example on [`Filter`].
    pub fn include(&mut self, term: &str) {
        self.terms.push((true, term.to_string()));
    }

    /// Adds an exclude term.
    ///
    /// See the example on [`Filter`].
    pub fn exclude(&mut self, term: &str) {
        self.terms.push((false, term.to_string()));
    }

    /// Whether `case` is selected.
    ///
    /// See the example on [`Filter`].
    pub fn selects(&self, case: &Case) -> bool {
        let mut selected = !self.terms.iter().any(|(inc, _)| *inc);
        for (inc, term) in &self.terms {
            let hit = case.full_name().starts_with(term.as_str()) || pattern_matches(term, case);
            if hit {
                selected = *inc;
            }
        }
        selected
    }
}

/// How a case ended for one implementation and profile.
///
/// See the second example on [`Report`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The implementation gave the expected outcome.
    Pass,
    /// It did not.
    Fail,
    /// It did not, as declared (a [`Divergence`]).
    Divergent,
    /// It crashed, hung or broke the protocol.
    Crash,
    /// It does not support the case (profile, dialect or feature).
    Skip,
    /// It was not asked: the implementation had been given up
    /// ([`Implementation::given_up`]). Counts as a failure of the run.
    #[serde(rename = "not-run")]
    NotRun,
}

impl Status {
    /// `pass`, `fail`, `divergent`, `crash`, `skip`, `not-run`.
    ///
    /// See the second example on [`Report`].
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Divergent => "divergent",
            Status::Crash => "crash",
            Status::Skip => "skip",
            Status::NotRun => "not-run",
        }
    }
}

/// What an implementation did with a case, whatever was expected.
///
/// See the second example on [`Report`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Observed {
    /// The parse answer, if asked.
    pub parsed: Option<TestResult<Parsed>>,
    /// The evaluation answer, if asked.
    pub evaluated: Option<TestResult<Evaluated>>,
}

impl Observed {
    /// A short description: `rejected (M002)`, `"os_name == \"nt\"" → true`, `crash: …`.
    ///
    /// See the second example on [`Report`].
    pub fn describe(&self) -> String {
        let mut out = String::new();
        match &self.parsed {
            None => {}
            Some(TestResult::Ok(Parsed::Valid { canonical })) => match canonical {
                Some(c) => out.push_str(&format!("accepts, prints `{c}`")),
                None => out.push_str("accepts"),
            },
            Some(TestResult::Ok(Parsed::Invalid { code, message })) => {
                out.push_str("rejects");
                describe_error(&mut out, code, message);
            }
            Some(other) => out.push_str(&describe_other(other)),
        }
        match &self.evaluated {
            None | Some(TestResult::Ok(Evaluated::Invalid { .. })) => {}
            Some(TestResult::Ok(Evaluated::Result { result, message })) => {
                out.push_str(&format!("; evaluates to {result}"));
                if let (Expected::Error(_), Some(m)) = (result, message) {
                    out.push_str(&format!(" ({})", one_line(m)));
                }
            }
            Some(other) => {
                out.push_str("; evaluation ");
                out.push_str(&describe_other(other));
            }
        }
        out
    }

    fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        if let Some(p) = &self.parsed {
            m.insert(
                "parse".into(),
                result_json(p, |p| match p {
                    Parsed::Valid { canonical } => json!({"parses": true, "canonical": canonical}),
                    Parsed::Invalid { code, message } => {
                        json!({"parses": false, "error": code, "message": message})
                    }
                }),
            );
        }
        if let Some(e) = &self.evaluated {
            m.insert(
                "evaluate".into(),
                result_json(e, |e| match e {
                    Evaluated::Result { result, message } => {
                        json!({"result": result.to_json(), "message": message})
                    }
                    Evaluated::Invalid { code, message } => {
                        json!({"parses": false, "error": code, "message": message})
                    }
                }),
            );
        }
        Value::Object(m)
    }
}

fn describe_error(out: &mut String, code: &Option<String>, message: &Option<String>) {
    match (code, message) {
        (Some(c), Some(m)) => out.push_str(&format!(" ({c}: {})", one_line(m))),
        (Some(c), None) => out.push_str(&format!(" ({c})")),
        (None, Some(m)) => out.push_str(&format!(" ({})", one_line(m))),
        (None, None) => {}
    }
}

fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > 120 {
        let cut: String = line.chars().take(117).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

fn describe_other<T>(r: &TestResult<T>) -> String {
    match r {
        TestResult::Ok(_) => String::new(),
        TestResult::Skip(why) => format!("skipped ({})", one_line(why)),
        TestResult::Fail(why) => format!("failed ({})", one_line(why)),
        TestResult::Crash(why) => format!("crashed ({})", one_line(why)),
    }
}

fn result_json<T>(r: &TestResult<T>, ok: impl Fn(&T) -> Value) -> Value {
    match r {
        TestResult::Ok(v) => ok(v),
        TestResult::Skip(w) => json!({"skip": w}),
        TestResult::Fail(w) => json!({"fail": w}),
        TestResult::Crash(w) => json!({"crash": w}),
    }
}

/// The result of one case under one profile.
///
/// One entry of [`Report::results`]; see [`Report`] for a run, and its second example for
/// failures.
///
/// ```
/// use markerspec_conformance::builtin::Markerspec;
/// use markerspec_conformance::{Cases, Profile, Runner, Status};
///
/// let report = Runner::new()
///     .include("versions/prereleases-117")
///     .profiles(&[Profile::Spec2026])
///     .run(&Cases::all(), &mut Markerspec::new());
/// let result = &report.results[0];
/// assert_eq!(result.case, "versions/prereleases-117");
/// assert_eq!(result.status, Status::Pass);
/// assert!(!result.failed());
/// ```
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// `group/name`.
    pub case: String,
    /// The case's category.
    pub category: String,
    /// The profile the case was checked under.
    pub profile: Profile,
    /// How it ended.
    pub status: Status,
    /// The mismatches (or the skip / crash reason), one line each.
    pub details: Vec<String>,
    /// The declared reason, for [`Status::Divergent`].
    pub reason: Option<String>,
    /// What the implementation did.
    pub observed: Observed,
    /// The input, verbatim.
    pub input: String,
    /// Whether the input is a requirement or a marker.
    pub kind: Kind,
    /// What the profile expects.
    pub expected: Outcome,
    /// Whether the case is in a lock-file context.
    pub lock_file: bool,
    /// Which parts of the outcome did not match (empty unless [`Status::Fail`] or
    /// [`Status::Divergent`]).
    pub checks: Vec<Check>,
    /// Whether the implementation claims the profile (and the case's dialect); `false` rows
    /// are skips that reports leave out unless asked.
    pub claimed: bool,
}

impl CaseResult {
    /// Whether the case failed, crashed or was not run.
    ///
    /// See the second example on [`Report`].
    pub fn failed(&self) -> bool {
        matches!(self.status, Status::Fail | Status::Crash | Status::NotRun)
    }

    /// What was expected, in words: `rejects (M002)`, `accepts, prints `…`; evaluates to true`.
    ///
    /// See the second example on [`Report`].
    pub fn expected_text(&self) -> String {
        describe_outcome(&self.expected)
    }

    /// What the implementation's own message said (a rejection, an evaluation error, a
    /// crash), on one line, if anything.
    ///
    /// See the second example on [`Report`].
    pub fn message(&self) -> Option<String> {
        let from_parse = match &self.observed.parsed {
            Some(TestResult::Ok(Parsed::Invalid { message, code })) => {
                message.clone().or_else(|| code.clone())
            }
            Some(TestResult::Crash(w) | TestResult::Fail(w)) => Some(w.clone()),
            _ => None,
        };
        let from_eval = match &self.observed.evaluated {
            Some(TestResult::Ok(Evaluated::Result { message, .. })) => message.clone(),
            Some(TestResult::Ok(Evaluated::Invalid { message, code })) => {
                message.clone().or_else(|| code.clone())
            }
            Some(TestResult::Crash(w) | TestResult::Fail(w)) => Some(w.clone()),
            _ => None,
        };
        let m = match self.status {
            Status::Crash | Status::NotRun => self
                .details
                .first()
                .map(|d| d.strip_prefix("crash: ").unwrap_or(d).to_string()),
            // A parse mismatch is explained by the parse answer, not by an evaluation.
            _ if self.checks.contains(&Check::Parse) => from_parse,
            _ => from_eval.or(from_parse),
        };
        m.map(|m| one_line(&m))
    }

    /// The cause this failure is grouped under: the kind of mismatch, then the exception type
    /// and the shape of the implementation's message (quoted text and numbers blanked), or,
    /// when there is no message, the construct (which kinds of fields and which operators the
    /// input uses); `[lock file]` for a case in a lock-file context.
    ///
    /// See the second example on [`Report`].
    pub fn cause(&self) -> String {
        let what = match self.status {
            Status::Crash => "crash".to_string(),
            Status::NotRun => "not run".to_string(),
            _ => {
                let kinds: Vec<String> = self.checks.iter().map(|c| self.mismatch(*c)).collect();
                kinds.join(", ")
            }
        };
        let mut cause = match self.message() {
            Some(m) => format!("{what}: {}", shape(&m)),
            None => format!(
                "{what}; construct: {}",
                construct(&self.input, self.kind == Kind::Requirement)
            ),
        };
        if self.status == Status::Fail && self.lock_file {
            cause.push_str(" [lock file]");
        }
        cause
    }

    /// One kind of mismatch in words, without the values.
    fn mismatch(&self, check: Check) -> String {
        match check {
            Check::Parse => match (&self.expected, &self.observed.parsed) {
                (Outcome::Invalid { .. }, Some(TestResult::Ok(Parsed::Valid { .. }))) => {
                    "accepts what the profile rejects".to_string()
                }
                (Outcome::Valid { .. }, Some(TestResult::Ok(Parsed::Invalid { .. }))) => {
                    "rejects what the profile accepts".to_string()
                }
                (_, Some(TestResult::Fail(_))) => "fails to parse".to_string(),
                _ => "another error code".to_string(),
            },
            Check::Canonical => "prints another canonical form".to_string(),
            Check::Result => {
                let got = match &self.observed.evaluated {
                    Some(TestResult::Ok(Evaluated::Result { result, .. })) => result_word(result),
                    Some(TestResult::Ok(Evaluated::Invalid { .. })) => "a rejection".to_string(),
                    Some(TestResult::Fail(_)) => "a failure".to_string(),
                    _ => "nothing".to_string(),
                };
                let want = self
                    .expected
                    .result()
                    .map(result_word)
                    .unwrap_or_else(|| "no result".into());
                format!("evaluates to {got} instead of {want}")
            }
        }
    }
}

fn result_word(r: &Expected) -> String {
    match r {
        Expected::True => "true".into(),
        Expected::False => "false".into(),
        Expected::Unknown(_) => "unknown".into(),
        Expected::Error(_) => "an error".into(),
    }
}

/// Which kinds of fields and which operators an input's marker uses, outside its quoted
/// strings: `version field < ==`, `extra in`, `requirement without a marker`. A requirement's marker is what
/// follows its `;`.
pub fn construct(input: &str, requirement: bool) -> String {
    const VERSION: &[&str] = &[
        "python_version",
        "python_full_version",
        "implementation_version",
    ];
    const LOCK: &[&str] = &["extras", "dependency_groups"];
    // Quoted strings become `S`, so that their contents are neither fields nor operators.
    let mut bare = String::new();
    let mut quote: Option<char> = None;
    for c in input.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                bare.push_str(" S ");
            }
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None => bare.push(c),
        }
    }
    let marker = match bare.split_once(';') {
        Some((_, m)) if requirement => m.to_string(),
        None if requirement => String::new(),
        _ => bare.clone(),
    };
    let mut fields = BTreeSet::new();
    let mut ops = BTreeSet::new();
    let words: Vec<String> = marker
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    for (i, w) in words.iter().enumerate() {
        match w.as_str() {
            "extra" => {
                fields.insert("extra");
            }
            w if VERSION.contains(&w) => {
                fields.insert("version field");
            }
            w if LOCK.contains(&w) => {
                fields.insert("lock-file field");
            }
            w if w.contains('_')
                || w.contains('.') && !w.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                fields.insert("string field");
            }
            "in" => {
                ops.insert(if i > 0 && words[i - 1] == "not" {
                    "not in"
                } else {
                    "in"
                });
            }
            _ => {}
        }
    }
    // Longest operators first, each removed once counted.
    let mut rest = marker;
    for op in ["===", "==", "!=", "~=", "<=", ">=", "<", ">"] {
        if rest.contains(op) {
            ops.insert(op);
            rest = rest.replace(op, " ");
        }
    }
    if fields.is_empty() && ops.is_empty() {
        return if requirement {
            "requirement without a marker".into()
        } else {
            "no marker".into()
        };
    }
    let f: Vec<&str> = fields.into_iter().collect();
    let o: Vec<&str> = ops.into_iter().collect();
    format!("{} {}", f.join(" and "), o.join(" "))
        .trim()
        .to_string()
}

/// The shape of a message: its first line with quoted text replaced by `'…'` and runs of
/// digits by `N`, so that messages that differ only in the input they quote group together.
pub fn shape(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                let close = c;
                let rest: String = chars.clone().collect();
                match rest.find(close) {
                    Some(end) => {
                        out.push_str("'…'");
                        let n = rest[..end].chars().count() + 1;
                        for _ in 0..n {
                            chars.next();
                        }
                    }
                    None => out.push(c),
                }
            }
            '0' if chars.peek() == Some(&'x') => {
                chars.next();
                while chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    chars.next();
                }
                out.push('N');
            }
            c if c.is_ascii_digit() => {
                while chars
                    .peek()
                    .is_some_and(|d| d.is_ascii_digit() || *d == '.')
                {
                    chars.next();
                }
                out.push('N');
            }
            c => out.push(c),
        }
    }
    let out: String = out.chars().take(140).collect();
    out
}

/// An expected outcome in words.
pub fn describe_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Invalid { error: Some(e) } => format!("rejects ({e})"),
        Outcome::Invalid { error: None } => "rejects".into(),
        Outcome::Valid { canonical, result } => {
            let mut out = match canonical {
                Some(c) => format!("accepts, prints `{c}`"),
                None => "accepts".to_string(),
            };
            if let Some(r) = result {
                out.push_str(&format!("; evaluates to {r}"));
            }
            out
        }
    }
}

/// Failures that share a cause (see [`CaseResult::cause`]).
///
/// See the second example on [`Report`].
#[derive(Debug, Clone)]
pub struct Cause {
    /// The cause.
    pub cause: String,
    /// Indices into [`Report::results`], in case order.
    pub results: Vec<usize>,
    /// How many of these failures fall in each category.
    pub categories: BTreeMap<String, usize>,
}

/// Every result of one implementation.
///
/// ```
/// use markerspec_conformance::builtin::Markerspec;
/// use markerspec_conformance::{Cases, Profile, Runner, Status, report};
///
/// let cases = Cases::all();
/// let report = Runner::new()
///     .include("versions/prereleases-1")
///     .profiles(&[Profile::Packaging])
///     .blacklist(Markerspec::BLACKLIST)
///     .run(&cases, &mut Markerspec::new());
/// assert!(report.ok(), "{:?}", report.failures());
/// assert!(report.counts()[&Status::Pass] > 0);
/// assert!(report.causes().is_empty()); // failures grouped by cause: none
/// let json = report.to_json();
/// assert_eq!(json["implementation"], "builtin");
/// // The same reports as a table, JUnit XML, Markdown or one HTML page.
/// let reports = [report];
/// assert!(report::matrix(&reports).contains("builtin"));
/// assert!(report::junit(&reports).starts_with("<?xml"));
/// assert!(report::html(&cases, &reports).starts_with("<!DOCTYPE html>"));
/// // No external tool ran, so no tool disagrees with the specification.
/// assert!(!report::divergences(&cases, &reports).contains("versions/prereleases-1"));
/// ```
///
/// A run with failures, and what a report says about them:
///
/// ```
/// use markerspec_conformance::{
///     Cases, Check, Divergence, Evaluated, Expected, Implementation, Parsed, Profile, Request,
///     Runner, Status, TestResult,
/// };
///
/// /// Accepts every input, claims only `spec-2026`, and says every marker holds.
/// struct AcceptsAll;
///
/// impl Implementation for AcceptsAll {
///     fn name(&self) -> &str {
///         "accepts-all"
///     }
///     fn supports(&self, profile: Profile, _: markerspec_conformance::Dialect) -> bool {
///         profile == Profile::Spec2026
///     }
///     fn parse(&mut self, _: &Request<'_>) -> TestResult<Parsed> {
///         TestResult::Ok(Parsed::Valid { canonical: None })
///     }
///     fn evaluate(&mut self, _: &Request<'_>) -> TestResult<Evaluated> {
///         TestResult::Ok(Evaluated::result(Expected::True))
///     }
/// }
///
/// let cases = Cases::all();
/// let runner = Runner::new().filter("marker-syntax,-@escapes").checks(&[Check::Parse, Check::Result]);
/// let case = cases.get("marker-syntax/field-vs-field-158").unwrap();
/// assert!(runner.selects(case));
/// let report = runner.run(&cases, &mut AcceptsAll);
/// assert!(!report.ok());
///
/// // One failure: the case must be rejected (M012), and it was accepted.
/// let failed = report
///     .results
///     .iter()
///     .find(|r| r.case == case.full_name() && r.profile == Profile::Spec2026)
///     .unwrap();
/// assert!(failed.failed());
/// assert_eq!(failed.status.as_str(), "fail");
/// assert_eq!(failed.checks, [Check::Parse]);
/// assert_eq!(Check::Parse.as_str(), "parse");
/// assert_eq!(failed.expected_text(), "rejects (M012)");
/// assert_eq!(failed.observed.describe(), "accepts; evaluates to true");
/// assert_eq!(failed.message(), None); // the implementation said nothing
///
/// // Failures grouped by cause; a cause behind most failures of a category is flagged.
/// let causes = report.causes();
/// assert!(causes.iter().any(|c| c.cause == failed.cause()));
/// let grouped: usize = causes.iter().map(|c| c.results.len()).sum();
/// assert_eq!(grouped, report.failures().len());
/// for (category, total, of_cause, index) in report.multiplied(&causes) {
///     assert!(2 * of_cause > total && causes[index].categories[&category] == of_cause);
/// }
/// // The unclaimed profiles are rows only when asked for.
/// let rows = |json: serde_json::Value| json["results"].as_array().unwrap().len();
/// assert!(rows(report.to_json_with(true)) > rows(report.to_json()));
///
/// // Rerun only what failed; declare the parse failures as known.
/// let failed_names = report.results.iter().filter(|r| r.failed()).map(|r| r.case.clone());
/// let rerun = Runner::new().only(failed_names).profiles(&[Profile::Spec2026]).run(&cases, &mut AcceptsAll);
/// assert_eq!(rerun.counts()[&Status::Fail], report.counts()[&Status::Fail]);
/// let known = Divergence::new("spec-2026:marker-syntax#parse", "accepts everything").unwrap();
/// assert_eq!(known.reason(), "accepts everything");
/// assert!(known.matches(case, Profile::Spec2026) && !known.matches(case, Profile::Uv));
/// let declared = runner.clone().checks(&[Check::Parse]).divergences(vec![known]).run(&cases, &mut AcceptsAll);
/// assert!(declared.ok());
/// assert!(declared.counts()[&Status::Divergent] > 0);
/// ```
#[derive(Debug, Clone)]
pub struct Report {
    /// The implementation's name.
    pub implementation: String,
    /// The implementation's version, when known (an adapter's handshake says it).
    pub version: Option<String>,
    /// One entry per case and profile that ran, in case order.
    pub results: Vec<CaseResult>,
    /// Declarations that matched no mismatch (candidates for removal), `selector: reason`.
    pub unused_divergences: Vec<String>,
    /// Problems of the implementation as a whole (an adapter that did not start, …).
    pub notes: Vec<String>,
    /// Why the implementation could not be run at all (an adapter that refused or failed its
    /// handshake): then no case was run, and the report is not [`Report::ok`].
    pub unusable: Option<String>,
}

impl Report {
    /// Counts per status.
    ///
    /// See the examples on [`Report`].
    pub fn counts(&self) -> BTreeMap<Status, usize> {
        let mut m = BTreeMap::new();
        for r in &self.results {
            *m.entry(r.status).or_default() += 1;
        }
        m
    }

    /// Whether every case passed, diverged as declared or was skipped.
    ///
    /// See the examples on [`Report`].
    pub fn ok(&self) -> bool {
        self.unusable.is_none()
            && self
                .results
                .iter()
                .all(|r| matches!(r.status, Status::Pass | Status::Divergent | Status::Skip))
    }

    /// The failures grouped by cause, the largest group first (ties in order of the first
    /// case).
    ///
    /// See the examples on [`Report`].
    pub fn causes(&self) -> Vec<Cause> {
        let mut groups: BTreeMap<String, Cause> = BTreeMap::new();
        for (i, r) in self.results.iter().enumerate().filter(|(_, r)| r.failed()) {
            let key = r.cause();
            let g = groups.entry(key.clone()).or_insert_with(|| Cause {
                cause: key,
                results: Vec::new(),
                categories: BTreeMap::new(),
            });
            g.results.push(i);
            *g.categories.entry(r.category.clone()).or_default() += 1;
        }
        let mut out: Vec<Cause> = groups.into_values().collect();
        out.sort_by(|a, b| {
            b.results
                .len()
                .cmp(&a.results.len())
                .then(a.results[0].cmp(&b.results[0]))
        });
        out
    }

    /// The categories whose failure total one cause multiplies: for each category with at
    /// least ten failures, the cause behind more than half of them, as `(category, failures in
    /// the category, failures of that cause in it, index into [`Report::causes`])`.
    ///
    /// See the second example on [`Report`].
    pub fn multiplied(&self, causes: &[Cause]) -> Vec<(String, usize, usize, usize)> {
        let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
        for r in self.results.iter().filter(|r| r.failed()) {
            *totals.entry(&r.category).or_default() += 1;
        }
        let mut out = Vec::new();
        for (cat, total) in totals {
            if total < 10 {
                continue;
            }
            let best = causes
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.categories.get(cat).map(|n| (i, *n)))
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)));
            if let Some((i, n)) = best {
                if n * 2 > total {
                    out.push((cat.to_string(), total, n, i));
                }
            }
        }
        out
    }

    /// The failures (crashes and cases not run included), one paragraph each.
    ///
    /// See the examples on [`Report`].
    pub fn failures(&self) -> Vec<String> {
        self.results
            .iter()
            .filter(|r| r.failed())
            .map(|r| {
                format!(
                    "{} [{}] {}: {}",
                    r.case,
                    r.profile,
                    r.status.as_str(),
                    r.details.join("; ")
                )
            })
            .collect()
    }

    /// Panics with every failure unless [`Report::ok`].
    ///
    /// See the example on [`Runner`].
    #[track_caller]
    pub fn assert(&self) {
        if self.ok() {
            return;
        }
        let failures = self.failures();
        panic!(
            "{}: {} of {} checks failed:\n{}",
            self.implementation,
            failures.len(),
            self.results.len(),
            failures.join("\n")
        );
    }

    /// The report as JSON: the implementation, the counts, and every result of the profiles
    /// the implementation claims (see [`Report::to_json_with`]).
    ///
    /// See the examples on [`Report`].
    pub fn to_json(&self) -> Value {
        self.to_json_with(false)
    }

    /// The report as JSON; with `unclaimed`, also the rows of profiles and dialects the
    /// implementation does not claim (each a skip). Every row holds the input, the expected
    /// outcome, what was observed, and for failures the message and the cause.
    ///
    /// See the second example on [`Report`].
    pub fn to_json_with(&self, unclaimed: bool) -> Value {
        let counts: serde_json::Map<String, Value> = self
            .counts()
            .into_iter()
            .filter(|(s, _)| unclaimed || *s != Status::Skip)
            .map(|(s, n)| (s.as_str().to_string(), json!(n)))
            .collect();
        let mut counts = counts;
        if !unclaimed {
            let skips = self
                .results
                .iter()
                .filter(|r| r.claimed && r.status == Status::Skip)
                .count();
            if skips > 0 {
                counts.insert("skip".into(), json!(skips));
            }
        }
        json!({
            "implementation": self.implementation,
            "version": self.version,
            "counts": counts,
            "notes": self.notes,
            "unusable": self.unusable,
            "unused_divergences": self.unused_divergences,
            "results": self.results.iter().filter(|r| unclaimed || r.claimed).map(|r| {
                let mut row = json!({
                    "case": r.case,
                    "category": r.category,
                    "profile": r.profile.as_str(),
                    "status": r.status.as_str(),
                    "kind": r.kind.as_str(),
                    "input": r.input,
                    "expected": r.expected.to_json(),
                    "details": r.details,
                    "reason": r.reason,
                    "observed": r.observed.to_json(),
                });
                if r.failed() {
                    row["message"] = json!(r.message());
                    row["cause"] = json!(r.cause());
                }
                row
            }).collect::<Vec<_>>(),
        })
    }
}

/// Runs cases against implementations.
///
/// ```
/// use markerspec_conformance::{Cases, Runner, builtin::Markerspec};
///
/// let report = Runner::new()
///     .include("spec-examples")
///     .blacklist(Markerspec::BLACKLIST)
///     .run(&Cases::all(), &mut Markerspec::new());
/// report.assert();
/// ```
#[derive(Debug, Clone)]
pub struct Runner {
    filter: Filter,
    only: Option<BTreeSet<String>>,
    profiles: Option<Vec<Profile>>,
    divergences: Vec<Divergence>,
    checks: Vec<Check>,
}

impl Default for Runner {
    fn default() -> Runner {
        Runner::new()
    }
}

impl Runner {
    /// A runner for every case and profile, filtered by the `MARKERSPEC_TEST` environment
    /// variable when it is set (`MARKERSPEC_TEST=versions,-versions/prereleases-117`).
    ///
    /// See the second example on [`Report`].
    pub fn new() -> Runner {
        let filter = std::env::var("MARKERSPEC_TEST")
            .map(|s| Filter::parse(&s))
            .unwrap_or_default();
        Runner {
            filter,
            only: None,
            profiles: None,
            divergences: Vec::new(),
            checks: vec![Check::Parse, Check::Canonical, Check::Result],
        }
    }

    /// Adds an include term (see [`Filter`]).
    #[must_use]
    pub fn include(mut self, term: &str) -> Runner {
        self.filter.include(term);
        self
    }

    /// Adds an exclude term (see [`Filter`]).
    #[must_use]
    pub fn exclude(mut self, term: &str) -> Runner {
        self.filter.exclude(term);
        self
    }

    /// Adds the terms of a `foo,-bar` list (see [`Filter`]).
    #[must_use]
    pub fn filter(mut self, spec: &str) -> Runner {
        for (inc, t) in Filter::parse(spec).terms {
            self.filter.terms.push((inc, t));
        }
        self
    }

    /// Runs only the cases with these full names (`group/name`), within the filter: to rerun
    /// what failed last time.
    ///
    /// See the second example on [`Report`].
    #[must_use]
    pub fn only(mut self, names: impl IntoIterator<Item = String>) -> Runner {
        self.only = Some(names.into_iter().collect());
        self
    }

    /// Whether the filter (and [`Runner::only`]) selects `case`.
    ///
    /// See the second example on [`Report`].
    pub fn selects(&self, case: &Case) -> bool {
        self.filter.selects(case)
            && self
                .only
                .as_ref()
                .is_none_or(|o| o.contains(case.full_name()))
    }

    /// Checks only these profiles (default: every profile a case pins).
    ///
    /// See the second example on [`Report`].
    #[must_use]
    pub fn profiles(mut self, profiles: &[Profile]) -> Runner {
        self.profiles = Some(profiles.to_vec());
        self
    }

    /// Checks only these parts of each outcome (default: all three).
    ///
    /// See the second example on [`Report`].
    #[must_use]
    pub fn checks(mut self, checks: &[Check]) -> Runner {
        self.checks = checks.to_vec();
        self
    }

    /// Declares divergences as `(selector, reason)` pairs (see [`Divergence`]).
    ///
    /// # Panics
    /// On a selector that does not parse: the list is code, and a typo must not silently
    /// declare nothing.
    #[must_use]
    pub fn blacklist(mut self, entries: &[(&str, &str)]) -> Runner {
        for (sel, reason) in entries {
            let d = Divergence::new(sel, reason)
                .unwrap_or_else(|e| panic!("bad blacklist entry `{sel}`: {e}"));
            self.divergences.push(d);
        }
        self
    }

    /// Declares divergences.
    ///
    /// See the second example on [`Report`].
    #[must_use]
    pub fn divergences(mut self, divergences: Vec<Divergence>) -> Runner {
        self.divergences.extend(divergences);
        self
    }

    /// Runs every selected case under every selected profile it pins.
    ///
    /// See the second example on [`Report`].
    pub fn run(&self, cases: &Cases, implementation: &mut dyn Implementation) -> Report {
        let mut results = Vec::new();
        let mut used = vec![false; self.divergences.len()];
        for case in cases.iter().filter(|c| self.selects(c)) {
            let profiles: Vec<Profile> = case
                .expectations()
                .map(|(p, _)| p)
                .filter(|p| self.profiles.as_ref().is_none_or(|ps| ps.contains(p)))
                .collect();
            if profiles.is_empty() {
                continue;
            }
            for profile in profiles {
                let r = self.run_one(case, profile, implementation, &mut used);
                results.push(r);
            }
        }
        let unused_divergences = self
            .divergences
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(d, _)| format!("{}: {}", d.pattern, d.reason))
            .collect();
        Report {
            implementation: implementation.name().to_string(),
            version: None,
            results,
            unused_divergences,
            notes: Vec::new(),
            unusable: None,
        }
    }

    fn run_one(
        &self,
        case: &Case,
        profile: Profile,
        imp: &mut dyn Implementation,
        used: &mut [bool],
    ) -> CaseResult {
        let expected = case.expected(profile).expect("profile is pinned");
        let mut result = CaseResult {
            case: case.full_name().to_string(),
            category: case.category().to_string(),
            profile,
            status: Status::Pass,
            details: Vec::new(),
            reason: None,
            observed: Observed::default(),
            lock_file: case.lock_file(),
            checks: Vec::new(),
            input: case.input().to_string(),
            kind: case.kind(),
            expected: expected.clone(),
            claimed: true,
        };
        if !imp.supports(profile, case.dialect()) {
            result.status = Status::Skip;
            result.claimed = false;
            result.details.push(format!(
                "{} does not claim profile {profile} with the {} dialect",
                imp.name(),
                case.dialect().as_str()
            ));
            return result;
        }
        if let Some(why) = imp.given_up() {
            result.status = Status::NotRun;
            result.details.push(why.to_string());
            return result;
        }
        let request = Request { case, profile };
        let codes = imp.reports_codes();
        let mut mismatches: Vec<(Check, String)> = Vec::new();
        let mut crashed: Option<String> = None;
        let mut skipped: Option<String> = None;

        let parsed = guarded(|| imp.parse(&request));
        result.observed.parsed = Some(parsed.clone());
        match parsed {
            TestResult::Ok(p) => compare_parse(expected, &p, codes, &self.checks, &mut mismatches),
            TestResult::Skip(why) => skipped = Some(why),
            TestResult::Fail(why) => mismatches.push((Check::Parse, format!("failed: {why}"))),
            TestResult::Crash(why) => crashed = Some(why),
        }
        let want_eval = case.evaluates() && self.checks.contains(&Check::Result);
        if want_eval && crashed.is_none() && skipped.is_none() {
            let evaluated = guarded(|| imp.evaluate(&request));
            result.observed.evaluated = Some(evaluated.clone());
            if let Some(exp) = expected.result() {
                match evaluated {
                    TestResult::Ok(Evaluated::Result { result: got, .. }) => {
                        if !same_result(exp, &got, codes) {
                            mismatches
                                .push((Check::Result, format!("expected result {exp}, got {got}")));
                        }
                    }
                    TestResult::Ok(Evaluated::Invalid { code, .. }) => {
                        // Reported by the parse check already when parse said so too.
                        if !mismatches.iter().any(|(c, _)| *c == Check::Parse) {
                            mismatches.push((
                                Check::Result,
                                format!(
                                    "expected result {exp}, but evaluation rejected the input{}",
                                    code.map(|c| format!(" ({c})")).unwrap_or_default()
                                ),
                            ));
                        }
                    }
                    TestResult::Skip(why) => skipped = Some(why),
                    TestResult::Fail(why) => {
                        mismatches.push((Check::Result, format!("evaluation failed: {why}")))
                    }
                    TestResult::Crash(why) => crashed = Some(why),
                }
            } else if let TestResult::Crash(why) = evaluated {
                crashed = Some(why);
            }
        }

        if let Some(why) = crashed {
            result.status = Status::Crash;
            result.details.push(why);
        } else if mismatches.is_empty() {
            if let Some(why) = skipped {
                result.status = Status::Skip;
                result.details.push(why);
            }
        } else {
            result.details = mismatches.iter().map(|(_, m)| m.clone()).collect();
            result.checks = mismatches.iter().map(|(c, _)| *c).collect();
            result.checks.dedup();
            let declared = self.divergences.iter().enumerate().find(|(_, d)| {
                d.matches(case, profile) && mismatches.iter().all(|(c, _)| d.covers(*c))
            });
            match declared {
                Some((i, d)) => {
                    used[i] = true;
                    result.status = Status::Divergent;
                    result.reason = Some(d.reason.clone());
                }
                None => result.status = Status::Fail,
            }
        }
        result
    }
}

thread_local! {
    /// Set while this thread runs an implementation's callback: its panics are reported as
    /// crashes, so the panic hook stays quiet, and records where the panic happened here.
    static GUARDED: Cell<Option<Option<String>>> = const { Cell::new(None) };
}

/// Installs, once per process, a panic hook that stays quiet for panics inside [`guarded`]
/// (recording their location instead) and hands every other panic to the hook that was
/// installed before, so an implementation that panics on thousands of cases does not flood
/// stderr, and the embedding program's own panics print as usual.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let quiet = GUARDED.with(|g| match g.take() {
                Some(_) => {
                    g.set(Some(info.location().map(|l| l.to_string())));
                    true
                }
                None => false,
            });
            if !quiet {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into [`TestResult::Crash`] (with the panic's message and
/// location; nothing is printed).
fn guarded<T>(f: impl FnOnce() -> TestResult<T>) -> TestResult<T> {
    install_quiet_hook();
    let outer = GUARDED.with(|g| g.replace(Some(None)));
    let result = catch_unwind(AssertUnwindSafe(f));
    let location = GUARDED.with(|g| g.replace(outer)).flatten();
    match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string panic payload".to_string());
            match location {
                Some(at) => TestResult::Crash(format!("panicked at {at}: {msg}")),
                None => TestResult::Crash(format!("panicked: {msg}")),
            }
        }
    }
}

fn compare_parse(
    expected: &Outcome,
    got: &Parsed,
    codes: bool,
    checks: &[Check],
    mismatches: &mut Vec<(Check, String)>,
) {
    match (expected, got) {
        (Outcome::Invalid { error }, Parsed::Valid { canonical }) => {
            if checks.contains(&Check::Parse) {
                mismatches.push((
                    Check::Parse,
                    format!(
                        "expected a parse error{}, but the input was accepted{}",
                        error
                            .as_ref()
                            .map(|e| format!(" ({e})"))
                            .unwrap_or_default(),
                        canonical
                            .as_ref()
                            .map(|c| format!(" as `{c}`"))
                            .unwrap_or_default()
                    ),
                ));
            }
        }
        (Outcome::Invalid { error }, Parsed::Invalid { code, message }) => {
            if let (true, Some(want), Some(got)) = (codes, error, code) {
                if want != got && checks.contains(&Check::Parse) {
                    mismatches.push((
                        Check::Parse,
                        format!(
                            "expected error {want}, got {got}{}",
                            message
                                .as_ref()
                                .map(|m| format!(" ({})", one_line(m)))
                                .unwrap_or_default()
                        ),
                    ));
                }
            }
        }
        (Outcome::Valid { .. }, Parsed::Invalid { code, message }) => {
            if checks.contains(&Check::Parse) {
                let mut m = "expected the input to parse, but it was rejected".to_string();
                describe_error(&mut m, code, message);
                mismatches.push((Check::Parse, m));
            }
        }
        (Outcome::Valid { canonical, .. }, Parsed::Valid { canonical: got }) => {
            if let (Some(want), Some(got)) = (canonical, got) {
                if want != got && checks.contains(&Check::Canonical) {
                    mismatches.push((
                        Check::Canonical,
                        format!("expected canonical `{want}`, got `{got}`"),
                    ));
                }
            }
        }
    }
}

fn same_result(expected: &Expected, got: &Expected, codes: bool) -> bool {
    match (expected, got) {
        (Expected::Error(want), Expected::Error(got)) => match (codes, want, got) {
            (true, Some(w), Some(g)) => w == g,
            _ => true,
        },
        _ => expected == got,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(group: &str, name: &str, category: &str) -> Cases {
        let mut cases = Cases::new();
        let json = format!(
            r#"{{"cases": [{{"name": "{name}", "category": "{category}", "kind": "marker",
                "input": "os_name == 'nt'", "see": "test",
                "expect": {{"spec-2026": {{"parses": true}}}}}}]}}"#
        );
        cases.load_slice(group, json.as_bytes()).unwrap();
        cases
    }

    #[test]
    fn selectors() {
        let cases = case("versions", "prereleases-104", "prereleases");
        let c = cases.iter().next().unwrap();
        let yes = |sel: &str, p: Profile| Divergence::new(sel, "r").unwrap().matches(c, p);
        assert!(yes("versions", Profile::Spec2026));
        assert!(yes("versions/prereleases-104", Profile::Spec2026));
        assert!(yes("versions/prereleases-*", Profile::Spec2026));
        assert!(yes("*/*-104", Profile::Spec2026));
        assert!(yes("*", Profile::Uv));
        assert!(yes("@prereleases", Profile::Spec2026));
        assert!(yes("packaging:versions", Profile::Packaging));
        assert!(!yes("packaging:versions", Profile::Spec2026));
        assert!(!yes("versions/prereleases-10", Profile::Spec2026));
        assert!(!yes("@wildcards", Profile::Spec2026));
        let d = Divergence::new("uv:*#canonical", "r").unwrap();
        assert!(d.covers(Check::Canonical) && !d.covers(Check::Result));
        assert!(Divergence::new("nope:versions", "r").is_err());
        assert!(Divergence::new("versions#everything", "r").is_err());
        assert!(Divergence::new("uv:", "r").is_err());
    }

    #[test]
    fn filters_last_match_wins() {
        let cases = case("versions", "prereleases-104", "prereleases");
        let c = cases.iter().next().unwrap();
        assert!(Filter::parse("").selects(c));
        assert!(Filter::parse("versions").selects(c));
        assert!(Filter::parse("versions/pre").selects(c));
        assert!(!Filter::parse("extras").selects(c));
        assert!(!Filter::parse("-versions").selects(c));
        assert!(!Filter::parse("versions,-@prereleases").selects(c));
        assert!(Filter::parse("-@prereleases,versions/prereleases-104").selects(c));
    }

    #[test]
    fn names_and_outcomes_are_checked_when_loading() {
        let mut cases = Cases::new();
        let bad = |json: &str| Cases::new().load_slice("g", json.as_bytes()).unwrap_err();
        let base = |name: &str, expect: &str| {
            format!(
                r#"{{"cases": [{{"name": "{name}", "category": "c", "kind": "marker",
                    "input": "x", "see": "s", "expect": {expect}}}]}}"#
            )
        };
        bad(&base("no-number", r#"{"spec-2026": {}}"#));
        bad(&base("short-10", r#"{"spec-2026": {}}"#));
        bad(&base("ok-100", r#"{}"#));
        bad(&base("ok-100", r#"{"spec-2027": {}}"#));
        bad(&base(
            "ok-100",
            r#"{"spec-2026": {"parses": false, "canonical": "x"}}"#,
        ));
        bad(&base(
            "ok-100",
            r#"{"spec-2026": {"result": "unknown: b,a"}}"#,
        ));
        bad(&base("ok-100", r#"{"spec-2026": {"result": "maybe"}}"#));
        bad(&base("ok-100", r#"{"spec-2026": {"resutl": true}}"#));
        let good = base("ok-100", r#"{"spec-2026": {"result": {"error": "E002"}}}"#);
        cases.load_slice("g", good.as_bytes()).unwrap();
        let again = cases.load_slice("g", good.as_bytes()).unwrap_err();
        assert!(again.to_string().contains("duplicate"), "{again}");
    }

    #[test]
    fn shapes_blank_quoted_text_and_numbers() {
        assert_eq!(
            shape(
                "InvalidMarker: Invalid marker for 'python_version': 'x' >= 3.10 at col 12\nmore"
            ),
            "InvalidMarker: Invalid marker for '…': '…' >= N at col N"
        );
        assert_eq!(shape("unterminated 'quote"), "unterminated 'quote");
        assert_eq!(
            shape("AssertionError"),
            shape("AssertionError\n  File \"x.py\", line 3")
        );
    }

    #[test]
    fn constructs_name_field_kinds_and_operators() {
        assert_eq!(
            construct("python_version not in '3.8'", false),
            "version field not in"
        );
        assert_eq!(
            construct("os_name == 'a' and python_full_version < '3'", false),
            "string field and version field < =="
        );
        assert_eq!(construct("extra == 'in'", false), "extra ==");
        assert_eq!(construct("'a' in extras", false), "lock-file field in");
        assert_eq!(
            construct("name>=1.0; os_name <= 'x'", true),
            "string field <="
        );
        assert_eq!(construct("name>=1.0", true), "requirement without a marker");
    }

    /// An implementation that accepts everything and evaluates everything to true.
    struct Yes;

    impl Implementation for Yes {
        fn name(&self) -> &str {
            "yes"
        }
        fn supports(&self, profile: Profile, _: Dialect) -> bool {
            profile == Profile::Spec2026
        }
        fn parse(&mut self, _: &Request<'_>) -> TestResult<Parsed> {
            TestResult::Ok(Parsed::Valid { canonical: None })
        }
        fn evaluate(&mut self, r: &Request<'_>) -> TestResult<Evaluated> {
            if r.input().contains("boom") {
                return TestResult::Crash("yes raised AssertionError: at 0x7f".into());
            }
            TestResult::Ok(Evaluated::result(Expected::True))
        }
    }

    fn many() -> Cases {
        let mut cases = Cases::new();
        let mut list = Vec::new();
        for i in 0..12 {
            list.push(format!(
                r#"{{"name": "wrong-{}", "category": "logic", "kind": "marker",
                    "input": "os_name == 'x{i}'", "environment": {{"os_name": "nt"}},
                    "see": "t", "expect": {{"spec-2026": {{"result": false}},
                    "packaging": {{"result": false}}}}}}"#,
                100 + i
            ));
        }
        for i in 0..3 {
            list.push(format!(
                r#"{{"name": "boom-{}", "category": "logic", "kind": "marker",
                    "input": "os_name == 'boom{i}'", "environment": {{"os_name": "nt"}},
                    "see": "t", "expect": {{"spec-2026": {{"result": true}}}}}}"#,
                100 + i
            ));
        }
        list.push(
            r#"{"name": "bad-100", "category": "syntax", "kind": "marker", "input": "os_name ==",
                "see": "t", "expect": {"spec-2026": {"parses": false, "error": "M001"}}}"#
                .to_string(),
        );
        let json = format!(r#"{{"cases": [{}]}}"#, list.join(","));
        cases.load_slice("g", json.as_bytes()).unwrap();
        cases
    }

    #[test]
    fn failures_group_by_cause_largest_first() {
        let cases = many();
        let report = Runner::new()
            .profiles(&[Profile::Spec2026])
            .run(&cases, &mut Yes);
        let causes = report.causes();
        let sizes: Vec<usize> = causes.iter().map(|c| c.results.len()).collect();
        assert_eq!(sizes, [12, 3, 1], "{causes:?}");
        assert_eq!(
            causes[0].cause,
            "evaluates to true instead of false; construct: string field =="
        );
        assert_eq!(causes[1].cause, "crash: yes raised AssertionError: at N");
        assert_eq!(shape("object at 0x7f3a9c"), "object at N");
        assert_eq!(
            causes[2].cause,
            "accepts what the profile rejects; construct: string field =="
        );
        // 15 logic failures, 12 of them one cause: said so.
        let m = report.multiplied(&causes);
        assert_eq!(m, [("logic".to_string(), 15, 12, 0)]);
        // Each failure knows its input and what was expected.
        let r = &report.results[causes[0].results[0]];
        assert_eq!(r.input, "os_name == 'x0'");
        assert_eq!(r.expected_text(), "accepts; evaluates to false");
    }

    #[test]
    fn json_reports_claimed_profiles_unless_asked() {
        let cases = many();
        let report = Runner::new().run(&cases, &mut Yes);
        let claimed = report.to_json();
        let rows = claimed["results"].as_array().unwrap();
        assert_eq!(rows.len(), 16);
        assert!(rows.iter().all(|r| r["profile"] == "spec-2026"));
        assert_eq!(rows[0]["input"], "os_name == 'x0'");
        assert_eq!(rows[0]["expected"]["result"], false);
        assert!(rows[0]["cause"].is_string() && rows[0]["message"].is_null());
        assert!(
            claimed["counts"].get("skip").is_none(),
            "{}",
            claimed["counts"]
        );
        let all = report.to_json_with(true);
        // The 12 `wrong` cases pin packaging too, and every case has a derived `standard`
        // expectation: 28 unclaimed skips.
        assert_eq!(all["results"].as_array().unwrap().len(), 44);
        assert_eq!(all["counts"]["skip"], 28);
    }

    #[test]
    fn only_runs_the_named_cases() {
        let cases = many();
        let report = Runner::new()
            .profiles(&[Profile::Spec2026])
            .only(["g/boom-101".to_string(), "g/bad-100".to_string()])
            .run(&cases, &mut Yes);
        let names: Vec<&str> = report.results.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(names, ["g/boom-101", "g/bad-100"]);
        let none = Runner::new().only([]).run(&cases, &mut Yes);
        assert!(none.results.is_empty());
    }
}
