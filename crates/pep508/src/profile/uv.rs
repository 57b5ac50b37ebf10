//! The `uv` profile: what uv-pep508 0.0.98 decides and evaluates for the standard fields.
//!
//! uv reads each comparison into a range of its field's values and evaluates a decision diagram
//! over those ranges. Reproduced here, comparison by comparison:
//!
//! - A comparison uv cannot interpret (two quoted strings, two variables, a version field with
//!   a value that is not a version or an operator that cannot take it, `~=` on a string,
//!   `extra` with an ordering operator, `in` with a quoted version on the left) is dropped
//!   from the marker with a warning: it disappears from its `and`/`or` chain, and a marker
//!   left with nothing is true. `===` is not a marker operator (an error), and `extras` and
//!   `dependency_groups` only take `"name" in` and `not in`, on the right (an error otherwise).
//! - Version fields compare release numbers only: the quoted version loses its epoch,
//!   pre-, post- and dev-release and local label, and the environment's version is placed in
//!   the resulting range by PEP 440 order (so `3.14.0rc1` is below `3.14`, and `== "3.12.*"`
//!   is the range `[3.12, 3.13)`). `python_version` is rewritten as a `python_full_version`
//!   range (`<= "3.12"` is `< 3.13`), and it is the interpreter's full version that is tested
//!   (so an unknown `python_full_version` makes it unknown); `python_version < "0"` is false and
//!   `python_version >= "0"` true. An environment value that is not a version lies in no range
//!   (uv cannot hold one).
//! - `in` / `not in` with a version field on the left test membership in a whitespace-separated
//!   list of versions, compared by their release numbers.
//! - String fields: `==`, `!=` exact, `<=`, `>=` as `==`, `<`, `>` false, except on
//!   `platform_release` and `platform_version`, which order lexicographically; `in` and
//!   `not in` are substring tests; `platform_system == "Windows"` (and the other names uv
//!   maps) is read as the corresponding `sys_platform` test. `platform_release` compared with a
//!   version pattern is compared as a version (as version fields are) where `sys_platform` is
//!   `darwin`, and as a string elsewhere.
//! - `extra == "name"` tests the requested extras; an `extra` or list value that is not a valid
//!   name is false whatever the operator.
//!
//! One known difference: where `sys_platform` is `darwin` and `platform_release` is not a PEP 440
//! version (no Darwin kernel reports one), uv answers false for the whole marker as soon as its
//! decision diagram reaches the version reading of `platform_release`, which it does when the
//! marker also depends on a version field, `extra` or a list field (`platform_release != "9" or
//! extra == "a"` is false in uv with the extra requested). Here only the comparison is false.

use std::ops::Bound;

use markerspec_pep440::{Operator, Version};

use crate::compare::mirror;
use crate::environment::{EnvValue, EvalEnv};
use crate::error::{ErrorKind, WarningKind};
use crate::field::{Field, FieldType};
use crate::lower::Comparison;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::ParseOptions;
use crate::profile::outcome::Outcome;
use crate::syntax::MarkerExpression;
use crate::truth::Tri;

/// What uv makes of one comparison.
enum Rule<'a> {
    /// Always this value.
    Const(bool),
    /// The field's version lies in the range.
    Version { field: Field, range: Range },
    /// A string comparison.
    Str {
        field: Field,
        op: MarkerOperator,
        literal: &'a str,
        literal_left: bool,
    },
    /// `platform_release` compared with a version (`==`, `!=`, `<`, `<=`, `>`, `>=`): in the
    /// range on macOS (`sys_platform == "darwin"`), the string comparison elsewhere.
    DarwinRelease {
        op: MarkerOperator,
        literal: &'a str,
        literal_left: bool,
        range: Range,
    },
    /// `extra == name` (or `!=` with `negate`).
    Extra { name: &'a str, negate: bool },
    /// `"name" in extras` / `dependency_groups`.
    List {
        field: Field,
        name: &'a str,
        negate: bool,
    },
}

/// Why a comparison has no rule.
enum NoRule {
    /// uv drops it, with this warning.
    Dropped(WarningKind),
    /// uv rejects the marker.
    Invalid(ErrorKind),
}

/// A union of intervals of versions, or its complement.
struct Range {
    intervals: Vec<(Bound<Version>, Bound<Version>)>,
    negate: bool,
}

impl Range {
    fn of(intervals: Vec<(Bound<Version>, Bound<Version>)>, negate: bool) -> Range {
        Range { intervals, negate }
    }

    fn contains(&self, v: &Version) -> bool {
        let inside = |(lo, hi): &(Bound<Version>, Bound<Version>)| {
            let above = match lo {
                Bound::Included(l) => v >= l,
                Bound::Excluded(l) => v > l,
                Bound::Unbounded => true,
            };
            let below = match hi {
                Bound::Included(h) => v <= h,
                Bound::Excluded(h) => v < h,
                Bound::Unbounded => true,
            };
            above && below
        };
        self.intervals.iter().any(inside) != self.negate
    }
}

/// The parse-time decision: `Ok(true)` keeps the comparison, `Ok(false)` drops it (after the
/// warning), an error rejects the marker.
pub(crate) fn check(
    e: &MarkerExpression,
    _opts: &ParseOptions,
    warn: &mut dyn FnMut(WarningKind),
) -> Result<bool, ErrorKind> {
    match rule(e) {
        Ok(_) => Ok(true),
        Err(NoRule::Dropped(w)) => {
            warn(w);
            Ok(false)
        }
        Err(NoRule::Invalid(kind)) => Err(kind),
    }
}

/// uv-pep508 0.0.98 for the standard fields, the `spec-2026` rules for the extended ones.
pub(crate) fn compare(c: &Comparison<'_>, env: &EvalEnv<'_>) -> Outcome {
    if c.expr.has_extended_field() {
        // The general rules give the same results as `spec-2026`'s, without another inlined
        // copy of its fast paths.
        return super::spec2026::general(c, env);
    }
    evaluate(c.expr, env)
}

/// Evaluates one comparison of standard fields as uv does. A comparison uv would have dropped
/// (only possible for one built by hand) is true.
fn evaluate(e: &MarkerExpression, env: &EvalEnv<'_>) -> Outcome {
    let rule = match rule(e) {
        Ok(rule) => rule,
        Err(NoRule::Dropped(_)) => return Ok(Tri::known(true)),
        Err(NoRule::Invalid(kind)) => return Err(Box::new(kind)),
    };
    Ok(match rule {
        Rule::Const(b) => Tri::known(b),
        Rule::Version { field, range } => {
            // uv tests `python_version` against the interpreter's full version.
            let read = match field {
                Field::PythonVersion => Field::PythonFullVersion,
                f => f,
            };
            match env.get(read) {
                None | Some(EnvValue::Unknown) => return Ok(Tri::unknown(read)),
                // A value that is not a version lies in no range.
                Some(_) => Tri::known(env.version(read).is_some_and(|v| range.contains(v))),
            }
        }
        Rule::Str {
            field,
            op,
            literal,
            literal_left,
        } => {
            let Some(value) = string_value(env, field) else {
                return Ok(Tri::unknown(field));
            };
            Tri::known(string(field, op, value, literal, literal_left))
        }
        Rule::DarwinRelease {
            op,
            literal,
            literal_left,
            range,
        } => {
            let Some(platform) = string_value(env, Field::SysPlatform) else {
                return Ok(Tri::unknown(Field::SysPlatform));
            };
            let field = Field::PlatformRelease;
            let Some(value) = string_value(env, field) else {
                return Ok(Tri::unknown(field));
            };
            if platform == "darwin" {
                // A release that is not a version lies in no range.
                Tri::known(env.version(field).is_some_and(|v| range.contains(v)))
            } else {
                Tri::known(string(field, op, value, literal, literal_left))
            }
        }
        Rule::Extra { name, negate } => {
            let requested = env.extras_slice().iter().any(|x| &**x == name);
            Tri::known(requested != negate)
        }
        Rule::List {
            field,
            name,
            negate,
        } => {
            let items: &[Box<str>] = match env.get(field) {
                Some(EnvValue::Set(items)) => items,
                None | Some(EnvValue::Absent) => &[],
                _ => return Ok(Tri::unknown(field)),
            };
            Tri::known(items.iter().any(|x| &**x == name) != negate)
        }
    })
}

/// A string field's value as uv reads it (Absent is empty); `None` when it is unknown.
fn string_value<'a>(env: &EvalEnv<'a>, field: Field) -> Option<&'a str> {
    match env.get(field) {
        Some(EnvValue::String(s)) => Some(s),
        Some(EnvValue::Absent) => Some(""),
        _ => None,
    }
}

fn string(
    field: Field,
    op: MarkerOperator,
    value: &str,
    literal: &str,
    literal_left: bool,
) -> bool {
    use MarkerOperator as O;
    // `literal OP field` is `field OP' literal`, with `in` becoming "contains".
    let op = if literal_left {
        match op {
            O::In | O::NotIn => {
                return value.contains(literal) == (op == O::In);
            }
            op => mirror(op).unwrap_or(op),
        }
    } else {
        op
    };
    let lexicographic = matches!(field, Field::PlatformRelease | Field::PlatformVersion);
    match op {
        O::Equal => value == literal,
        O::NotEqual => value != literal,
        O::LessThan if lexicographic => value < literal,
        O::LessThanEqual if lexicographic => value <= literal,
        O::GreaterThan if lexicographic => value > literal,
        O::GreaterThanEqual if lexicographic => value >= literal,
        O::LessThan | O::GreaterThan => false,
        O::LessThanEqual | O::GreaterThanEqual => value == literal,
        O::In => literal.contains(value),
        O::NotIn => !literal.contains(value),
        // Dropped or rejected at parse time.
        O::TildeEqual | O::ExactEqual => true,
    }
}

/// uv's reading of one comparison of standard fields.
fn rule(e: &MarkerExpression) -> Result<Rule<'_>, NoRule> {
    use MarkerOperator as O;
    let ignored = || NoRule::Dropped(WarningKind::ConstantComparison);
    if e.op == O::ExactEqual {
        return Err(NoRule::Invalid(ErrorKind::ExpectedMarkerOperator {
            found: "`===`".into(),
        }));
    }
    let (f, literal, literal_left) = match (&e.lhs, &e.rhs) {
        (MarkerValue::Field(f), MarkerValue::Literal(l)) => (*f, &**l, false),
        (MarkerValue::Literal(l), MarkerValue::Field(f)) => (*f, &**l, true),
        (MarkerValue::Field(f), MarkerValue::Field(_)) if is_list(*f) => {
            return Err(NoRule::Invalid(ErrorKind::SetFieldOnLeft { field: *f }));
        }
        _ => return Err(ignored()),
    };
    match f.field_type() {
        FieldType::Set => {
            if !literal_left {
                return Err(NoRule::Invalid(ErrorKind::SetFieldOnLeft { field: f }));
            }
            if !matches!(e.op, O::In | O::NotIn) {
                return Err(NoRule::Invalid(ErrorKind::InvalidSetOperator {
                    field: f,
                    op: e.op,
                }));
            }
            if !valid_name(literal) {
                return Ok(Rule::Const(false));
            }
            Ok(Rule::List {
                field: f,
                name: literal,
                negate: e.op == O::NotIn,
            })
        }
        FieldType::Extra => {
            let negate = match e.op {
                O::Equal => false,
                O::NotEqual => true,
                _ => return Err(NoRule::Dropped(WarningKind::ExtraOperator)),
            };
            if !valid_name(literal) {
                return Ok(Rule::Const(false));
            }
            Ok(Rule::Extra {
                name: literal,
                negate,
            })
        }
        FieldType::Version => version_rule(f, e.op, literal, literal_left),
        FieldType::String | FieldType::VersionOrString => {
            if e.op == O::TildeEqual {
                return Err(NoRule::Dropped(WarningKind::VersionOpOnString { field: f }));
            }
            // uv reads these `platform_system` tests as the `sys_platform` ones they imply.
            let (field, literal) = match (f, literal, e.op) {
                (_, _, O::In | O::NotIn) => (f, literal),
                (Field::PlatformSystem, "Windows", _) => (Field::SysPlatform, "win32"),
                (Field::PlatformSystem, "Darwin", _) => (Field::SysPlatform, "darwin"),
                (Field::PlatformSystem, "Linux", _) => (Field::SysPlatform, "linux"),
                (Field::PlatformSystem, "AIX", _) => (Field::SysPlatform, "aix"),
                (Field::PlatformSystem, "Emscripten", _) => (Field::SysPlatform, "emscripten"),
                (Field::PlatformSystem, "Android", _) => (Field::SysPlatform, "android"),
                _ => (f, literal),
            };
            if field == Field::PlatformRelease
                && let Some(range) = release_range(e.op, literal, literal_left)
            {
                return Ok(Rule::DarwinRelease {
                    op: e.op,
                    literal,
                    literal_left,
                    range,
                });
            }
            Ok(Rule::Str {
                field,
                op: e.op,
                literal,
                literal_left,
            })
        }
    }
}

fn is_list(f: Field) -> bool {
    matches!(f, Field::Extras | Field::DependencyGroups)
}

/// uv's (and PEP 503's) name rule: ASCII letters, digits, `-`, `_`, `.`, starting and ending
/// with a letter or digit.
fn valid_name(s: &str) -> bool {
    let b = s.as_bytes();
    b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn not_a_version(f: Field) -> NoRule {
    NoRule::Dropped(WarningKind::VersionFieldStringComparison { field: f })
}

/// A version as uv's parser reads it: ASCII whitespace around it is ignored.
fn parse_version(s: &str) -> Option<Version> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    if t.is_empty() || t.starts_with(char::is_whitespace) || t.ends_with(char::is_whitespace) {
        return None;
    }
    t.parse().ok()
}

/// A version pattern as uv's parser reads it: a version, or release numbers followed by `.*`
/// (nothing after the `*`). `(version, wildcard)`.
fn parse_pattern(s: &str) -> Option<(Version, bool)> {
    let t = s.trim_start_matches(|c: char| c.is_ascii_whitespace());
    if let Some(prefix) = t.strip_suffix(".*") {
        let v = parse_version(prefix)?;
        if prefix.ends_with(|c: char| c.is_ascii_whitespace())
            || v.pre().is_some()
            || v.post().is_some()
            || v.dev().is_some()
            || v.is_local()
        {
            return None;
        }
        return Some((v, true));
    }
    parse_version(s).map(|v| (v, false))
}

/// The range of versions `platform_release OP literal` admits when read as a version, as uv
/// reads it on macOS; `None` when the literal is not a version pattern uv can compare with `op`.
fn release_range(op: MarkerOperator, literal: &str, literal_left: bool) -> Option<Range> {
    let op = if literal_left { mirror(op)? } else { op };
    if op == MarkerOperator::TildeEqual {
        return None;
    }
    let (version, star) = parse_pattern(literal)?;
    let op = pep440_operator(op, &version, star)?;
    Some(range(op, release_only(&version)))
}

fn version_rule(
    f: Field,
    op: MarkerOperator,
    literal: &str,
    literal_left: bool,
) -> Result<Rule<'static>, NoRule> {
    use MarkerOperator as O;
    if matches!(op, O::In | O::NotIn) {
        if literal_left {
            return Err(not_a_version(f));
        }
        let mut versions = Vec::new();
        for word in literal.split(|c: char| c.is_whitespace()) {
            if !word.is_empty() {
                versions.push(word.parse::<Version>().map_err(|_| not_a_version(f))?);
            }
        }
        let negate = op == O::NotIn;
        let mut intervals = Vec::new();
        for v in versions {
            if f == Field::PythonVersion {
                let v = release_only(&v);
                match python_to_full(Operator::Equal, v) {
                    Ok((op, v)) => intervals.extend(range(op, v).intervals),
                    // One version decides the whole comparison, as in uv.
                    Err(b) => return Ok(Rule::Const(b)),
                }
            } else {
                // Members compare by their release numbers, as comparisons do.
                let v = release_only(&v);
                intervals.push((Bound::Included(v.clone()), Bound::Included(v)));
            }
        }
        return Ok(Rule::Version {
            field: f,
            range: Range::of(intervals, negate),
        });
    }
    let (version, star) = if literal_left {
        (
            parse_version(literal).ok_or_else(|| not_a_version(f))?,
            false,
        )
    } else {
        parse_pattern(literal).ok_or_else(|| not_a_version(f))?
    };
    let op = if literal_left {
        mirror(op).unwrap_or(op)
    } else {
        op
    };
    let op = pep440_operator(op, &version, star).ok_or_else(|| not_a_version(f))?;
    let version = release_only(&version);
    let (op, version) = if f == Field::PythonVersion {
        match python_to_full(op, version) {
            Ok(x) => x,
            Err(b) => return Ok(Rule::Const(b)),
        }
    } else {
        (op, version)
    };
    Ok(Rule::Version {
        field: f,
        range: range(op, version),
    })
}

/// The PEP 440 operator of `op version` (`version.*` when `star`), or `None` where uv cannot
/// build that specifier (a wildcard or local label with an ordering operator, `~=` on one number).
fn pep440_operator(op: MarkerOperator, version: &Version, star: bool) -> Option<Operator> {
    use MarkerOperator as O;
    let op = match (op, star) {
        (O::Equal, false) => Operator::Equal,
        (O::NotEqual, false) => Operator::NotEqual,
        (O::Equal, true) => Operator::EqualStar,
        (O::NotEqual, true) => Operator::NotEqualStar,
        (O::LessThan, false) => Operator::LessThan,
        (O::LessThanEqual, false) => Operator::LessThanEqual,
        (O::GreaterThan, false) => Operator::GreaterThan,
        (O::GreaterThanEqual, false) => Operator::GreaterThanEqual,
        (O::TildeEqual, false) => Operator::TildeEqual,
        _ => return None,
    };
    let local_ok = matches!(op, Operator::Equal | Operator::NotEqual);
    if version.is_local() && !local_ok {
        return None;
    }
    if op == Operator::TildeEqual && version.release().len() < 2 {
        return None;
    }
    Some(op)
}

/// The release numbers alone (no epoch, pre-, post-, dev-release or local label).
fn release_only(v: &Version) -> Version {
    Version::new(v.release().iter().copied())
}

/// The release numbers without trailing zeros (`0` when all are zero).
fn trimmed(v: &Version) -> Vec<u64> {
    let r = v.release();
    match r.iter().rposition(|n| *n != 0) {
        Some(i) => r[..=i].to_vec(),
        None => vec![0],
    }
}

/// A release-only `python_version` specifier as the `python_full_version` specifier uv
/// rewrites it to, or the constant it decides.
fn python_to_full(op: Operator, v: Version) -> Result<(Operator, Version), bool> {
    let release = v.release().to_vec();
    if matches!(op, Operator::EqualStar | Operator::NotEqualStar) {
        return match release.as_slice() {
            [_] => Ok((op, v)),
            [major, minor, rest @ ..] if rest.iter().all(|x| *x == 0) => {
                Ok((op, Version::new([*major, *minor])))
            }
            _ => Err(false),
        };
    }
    if op == Operator::TildeEqual {
        return match release.as_slice() {
            [_, _] => Ok((op, v)),
            [major, minor, rest @ ..] if rest.iter().all(|x| *x == 0) => {
                Ok((Operator::EqualStar, Version::new([*major, *minor])))
            }
            _ => Err(false),
        };
    }
    let t = trimmed(&v);
    let major_minor = match t.as_slice() {
        [major] => Some((*major, 0)),
        [major, minor] => Some((*major, *minor)),
        _ => None,
    };
    if let Some((major, minor)) = major_minor {
        let mm = Version::new([major, minor]);
        let next = Version::new([major, minor.saturating_add(1)]);
        // `python_version` has release numbers only, so nothing is below `0.0`.
        match op {
            Operator::LessThan if (major, minor) == (0, 0) => return Err(false),
            Operator::GreaterThanEqual if (major, minor) == (0, 0) => return Err(true),
            _ => {}
        }
        return Ok(match op {
            Operator::Equal | Operator::ExactEqual => (Operator::EqualStar, mm),
            Operator::NotEqual => (Operator::NotEqualStar, mm),
            Operator::GreaterThan => (Operator::GreaterThanEqual, next),
            Operator::LessThanEqual => (Operator::LessThan, next),
            op => (op, v),
        });
    }
    let (major, minor) = (release[0], release[1]);
    let next = Version::new([major, minor.saturating_add(1)]);
    match op {
        Operator::NotEqual => Err(true),
        Operator::LessThan | Operator::LessThanEqual => Ok((Operator::LessThan, next)),
        Operator::GreaterThan | Operator::GreaterThanEqual => {
            Ok((Operator::GreaterThanEqual, next))
        }
        _ => Err(false),
    }
}

/// The range of versions a release-only specifier admits, as uv builds it for markers.
fn range(op: Operator, v: Version) -> Range {
    let upper = |v: &Version, drop_last: bool| {
        let mut r = v.release().to_vec();
        if drop_last {
            r.pop();
        }
        if let Some(last) = r.last_mut() {
            *last = last.saturating_add(1);
        }
        Version::new(r)
    };
    use Bound::{Excluded, Included, Unbounded};
    match op {
        Operator::Equal | Operator::ExactEqual => {
            Range::of(vec![(Included(v.clone()), Included(v))], false)
        }
        Operator::NotEqual => Range::of(vec![(Included(v.clone()), Included(v))], true),
        Operator::LessThan => Range::of(vec![(Unbounded, Excluded(v))], false),
        Operator::LessThanEqual => Range::of(vec![(Unbounded, Included(v))], false),
        Operator::GreaterThan => Range::of(vec![(Excluded(v), Unbounded)], false),
        Operator::GreaterThanEqual => Range::of(vec![(Included(v), Unbounded)], false),
        Operator::TildeEqual => {
            let hi = upper(&v, true);
            Range::of(vec![(Included(v), Excluded(hi))], false)
        }
        Operator::EqualStar => {
            let hi = upper(&v, false);
            Range::of(vec![(Included(v), Excluded(hi))], false)
        }
        Operator::NotEqualStar => {
            let hi = upper(&v, false);
            Range::of(vec![(Included(v), Excluded(hi))], true)
        }
    }
}

/// Whether uv-pep508 (without its non-PEP 508 extensions) takes `url` as a URL: it has a
/// scheme uv knows (`http`, `https`, `file`, `git+…`, and the `bzr+`, `hg+`, `svn+` ones), and
/// an `http`/`https` URL has a host.
pub(crate) fn is_url(url: &str) -> bool {
    let t = url.trim_matches(|c: char| c <= ' ');
    if !t.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let Some(colon) =
        t.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    else {
        return false;
    };
    if !t[colon..].starts_with(':') {
        return false;
    }
    let (scheme, rest) = (&t[..colon], &t[colon + 1..]);
    let known = scheme.starts_with("git+")
        || matches!(
            scheme,
            "file"
                | "http"
                | "https"
                | "bzr+http"
                | "bzr+https"
                | "bzr+ssh"
                | "bzr+sftp"
                | "bzr+ftp"
                | "bzr+lp"
                | "bzr+file"
                | "hg+file"
                | "hg+http"
                | "hg+https"
                | "hg+ssh"
                | "hg+static-http"
                | "svn+ssh"
                | "svn+http"
                | "svn+https"
                | "svn+svn"
                | "svn+file"
        );
    if !known {
        return false;
    }
    scheme == "file" || authority_ok(rest, matches!(scheme, "http" | "https"))
}

/// Whether the authority of a URL (what follows its scheme's `:`) is one the WHATWG URL parser
/// that uv uses accepts: a host (required for `http`/`https`, and whenever a user or a port is
/// given), an IPv6 address in brackets, and a port of digits up to 65535. So the scp-style
/// `git+ssh://git@github.com:pypa/packaging.git` is rejected (`pypa` is not a port).
fn authority_ok(rest: &str, special: bool) -> bool {
    // `http` and `https` take the authority after any slashes; the others after `//` only.
    let authority = if special {
        rest.trim_start_matches(['/', '\\'])
    } else if let Some(a) = rest.strip_prefix("//") {
        a
    } else {
        return true;
    };
    let end = authority
        .find(|c| matches!(c, '/' | '?' | '#') || (special && c == '\\'))
        .unwrap_or(authority.len());
    let authority = &authority[..end];
    let (user, host_port) = match authority.rsplit_once('@') {
        Some((_, h)) => (true, h),
        None => (false, authority),
    };
    let (host, port) = if let Some(inner) = host_port.strip_prefix('[') {
        let Some((address, after)) = inner.split_once(']') else {
            return false;
        };
        let ipv6 = address.contains(':')
            && address
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'));
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port),
            None if after.is_empty() => None,
            None => return false,
        };
        if !ipv6 {
            return false;
        }
        (&host_port[..address.len() + 2], port)
    } else {
        match host_port.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    let port_ok = port.is_none_or(|p| {
        // The port ends at a backslash whatever the scheme.
        let p = p.split('\\').next().unwrap_or(p);
        let digits = p.trim_start_matches('0');
        p.bytes().all(|b| b.is_ascii_digit())
            && (digits.len() < 5 || (digits.len() == 5 && digits <= "65535"))
    });
    let forbidden = |c: char| matches!(c, '\0' | ' ' | '<' | '>' | '[' | ']' | '^' | '|' | '\\');
    let host_ok = if host.is_empty() {
        !special && !user && port.is_none()
    } else {
        host.starts_with('[') || !host.contains(forbidden)
    };
    port_ok && host_ok
}

/// Whether a bare name reads to uv as an archive's file name (`.whl`, `.zip`, `.tgz`, `.tar`,
/// `.tar.gz`).
pub(crate) fn looks_like_archive(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if stem.is_empty() {
        return false;
    }
    matches!(ext, "whl" | "zip" | "tgz" | "tar")
        || (ext == "gz"
            && stem
                .rsplit_once('.')
                .is_some_and(|(s, e)| e == "tar" && !s.is_empty()))
}
