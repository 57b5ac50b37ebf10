//! The hand-written parser for versions and specifiers.
//!
//! It reads the same language as packaging's `VERSION_PATTERN` and `Specifier._regex`, which use
//! possessive quantifiers: every optional part, once matched, is kept. A parser that reads left to
//! right, trying the alternatives in the pattern's order and never backtracking into a finished
//! part, therefore accepts exactly the same strings, and it can say where and why it stopped.
//!
//! Positions are byte offsets into the text; every access is checked (`get`), so no input can
//! make it panic.

use std::ops::Range;

use crate::error::{Detail, Error, ErrorKind, Found, MAX_INPUT_LEN};
use crate::specifier::Operator;
use crate::version::{LocalSegment, Prerelease, PrereleaseKind, Version};

/// Python's `\s` (and `str.isspace`) for `str` patterns: Unicode whitespace plus the ASCII
/// information separators `\x1c`..`\x1f`.
pub(crate) fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\x1c'..='\x1f'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Whether `b` is certainly not (the first byte of) whitespace: printable ASCII.
fn is_printable_ascii(b: Option<&u8>) -> bool {
    b.is_some_and(|&b| b > b' ' && b < 0x7f)
}

/// The position after the whitespace that starts at `pos`.
pub(crate) fn skip_space(s: &str, pos: usize) -> usize {
    if is_printable_ascii(s.as_bytes().get(pos)) {
        return pos;
    }
    let rest = s.get(pos..).unwrap_or("");
    pos + (rest.len() - rest.trim_start_matches(is_space).len())
}

/// The end of `s` without trailing whitespace, never before `start`.
pub(crate) fn trim_end(s: &str, start: usize) -> usize {
    if start < s.len() && is_printable_ascii(s.as_bytes().last()) {
        return s.len();
    }
    let rest = s.get(start..).unwrap_or("");
    start + rest.trim_end_matches(is_space).len()
}

/// The value of a run of ASCII digits, `None` if it does not fit in 64 bits.
pub(crate) fn digits_value(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)?
            .checked_add(u64::from(d.wrapping_sub(b'0')))
    })
}

fn is_sep(b: Option<u8>) -> bool {
    matches!(b, Some(b'.' | b'_' | b'-'))
}

fn is_digit(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_digit())
}

fn is_alnum(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric())
}

/// The character at `pos`, or the end of input.
fn found_at(s: &str, pos: usize) -> Found {
    match s.get(pos..).and_then(|rest| rest.chars().next()) {
        Some(c) => Found::Char(c),
        None => Found::End,
    }
}

/// The span of the character at `pos` (empty at the end of input).
fn char_span(s: &str, pos: usize) -> Range<usize> {
    let len = s
        .get(pos..)
        .and_then(|rest| rest.chars().next())
        .map_or(0, char::len_utf8);
    pos..pos + len
}

/// The end of the run of bytes matching `pred` that starts at `pos`.
fn run_end(b: &[u8], pos: usize, pred: impl Fn(u8) -> bool) -> usize {
    let rest = b.get(pos..).unwrap_or(&[]);
    pos + rest.iter().take_while(|&&c| pred(c)).count()
}

fn text(s: &str, range: Range<usize>) -> &str {
    s.get(range).unwrap_or("")
}

/// Whether `b[pos..]` starts with `word`, ignoring ASCII case.
fn starts_with_ci(b: &[u8], pos: usize, word: &str) -> bool {
    b.get(pos..pos + word.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
}

/// The tag at `pos`, as packaging's pattern tries its alternatives: `(alpha|a|beta|b|preview|
/// pre|c|rc)` for a pre-release, `(post|rev|r)` for a post-release, `dev`. Returns what was
/// matched and its length.
fn tag_at(b: &[u8], pos: usize, part: Part) -> Option<(Tag, usize)> {
    let first = b.get(pos)?.to_ascii_lowercase();
    let candidates: &[(&str, Tag)] = match (part, first) {
        (Part::Pre, b'a') => &[("alpha", Tag::Alpha), ("a", Tag::Alpha)],
        (Part::Pre, b'b') => &[("beta", Tag::Beta), ("b", Tag::Beta)],
        (Part::Pre, b'p') => &[("preview", Tag::Rc), ("pre", Tag::Rc)],
        (Part::Pre, b'c') => &[("c", Tag::Rc)],
        (Part::Pre, b'r') => &[("rc", Tag::Rc)],
        (Part::Post, b'p') => &[("post", Tag::Post)],
        (Part::Post, b'r') => &[("rev", Tag::Post), ("r", Tag::Post)],
        (Part::Dev, b'd') => &[("dev", Tag::Dev)],
        _ => return None,
    };
    candidates
        .iter()
        .find(|(word, _)| starts_with_ci(b, pos, word))
        .map(|&(word, tag)| (tag, word.len()))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Pre,
    Post,
    Dev,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Alpha,
    Beta,
    Rc,
    Post,
    Dev,
}

/// Every tag word, to recognise a known tag in the wrong place.
const ALL_TAGS: [&str; 12] = [
    "alpha", "a", "beta", "b", "preview", "pre", "c", "rc", "post", "rev", "r", "dev",
];

/// Release numbers, inline while there are at most four.
struct ReleaseBuf {
    inline: [u64; 4],
    len: usize,
    spill: Vec<u64>,
}

impl ReleaseBuf {
    fn push(&mut self, n: u64) {
        if self.spill.is_empty() {
            if let Some(slot) = self.inline.get_mut(self.len) {
                *slot = n;
                self.len += 1;
                return;
            }
            self.spill.extend_from_slice(&self.inline);
        }
        self.spill.push(n);
    }

    fn as_slice(&self) -> &[u64] {
        if self.spill.is_empty() {
            self.inline.get(..self.len).unwrap_or(&self.inline)
        } else {
            &self.spill
        }
    }
}

/// What [`scan`] read: the version and where its parts were.
pub(crate) struct Scan {
    pub(crate) version: Version,
    /// From the `+` to the end of the local label.
    local_span: Option<Range<usize>>,
    /// From the first release number (after any `v` and epoch) to the end of the release.
    release_span: Range<usize>,
    release_len: usize,
    /// Whether the text was written exactly as the version's `Display` writes it.
    pub(crate) canonical: bool,
    /// Where the version ends.
    end: usize,
}

/// Reads the digits at `pos`: `Ok(None)` if there are none, the value and the end otherwise.
fn number(s: &str, pos: usize, what: &'static str) -> Result<Option<(u64, usize)>, Error> {
    let b = s.as_bytes();
    let end = run_end(b, pos, |c| c.is_ascii_digit());
    if end == pos {
        return Ok(None);
    }
    match digits_value(b.get(pos..end).unwrap_or(&[])) {
        Some(n) => Ok(Some((n, end))),
        None => Err(too_large(s, pos..end, what)),
    }
}

/// Whether the digits `b[start..end]` are written as `Display` writes their value.
fn canonical_digits(b: &[u8], start: usize, end: usize) -> bool {
    end == start + 1 || b.get(start) != Some(&b'0')
}

fn too_large(s: &str, span: Range<usize>, what: &'static str) -> Error {
    let found = Found::text(text(s, span.clone()));
    Error::new(
        ErrorKind::NumberTooLarge,
        span,
        Detail::Expected(what, found),
    )
}

/// `[._-]? tag [._-]? [0-9]*` for one part at `pos`: the tag, the number (0 when absent), the
/// end, and whether it was written canonically (`canonical_sep` before, the canonical tag, no
/// separator after, the number without leading zeros).
struct Tagged {
    tag: Tag,
    number: u64,
    end: usize,
    canonical: bool,
}

fn tagged(s: &str, pos: usize, part: Part, what: &'static str) -> Result<Option<Tagged>, Error> {
    let b = s.as_bytes();
    let sep = b.get(pos).copied().filter(|&c| is_sep(Some(c)));
    let mut q = pos + usize::from(sep.is_some());
    let Some((tag, len)) = tag_at(b, q, part) else {
        return Ok(None);
    };
    let word = b.get(q..q + len).unwrap_or(&[]);
    let canonical_word: &[u8] = match tag {
        Tag::Alpha => b"a",
        Tag::Beta => b"b",
        Tag::Rc => b"rc",
        Tag::Post => b"post",
        Tag::Dev => b"dev",
    };
    let canonical_sep = if part == Part::Pre { None } else { Some(b'.') };
    let mut canonical = sep == canonical_sep && word == canonical_word;
    q += len;
    if is_sep(b.get(q).copied()) {
        canonical = false;
        q += 1;
    }
    let (number, end) = match number(s, q, what)? {
        Some((n, end)) => {
            canonical &= canonical_digits(b, q, end);
            (n, end)
        }
        None => {
            canonical = false;
            (0, q)
        }
    };
    Ok(Some(Tagged {
        tag,
        number,
        end,
        canonical,
    }))
}

/// Reads the longest version at `start`, as packaging's pattern would match it:
///
/// ```text
/// v? (N!)? N(.N)* ([._-]?(alpha|a|beta|b|preview|pre|c|rc)[._-]?N?)?
///      (-N | [._-]?(post|rev|r)[._-]?N?)? ([._-]?dev[._-]?N?)? (+L([._-]L)*)?
/// ```
///
/// with letters in any ASCII case and `L` a run of ASCII letters and digits. It fails only when
/// there is no release number or a number is too large; the caller checks what follows.
#[inline]
pub(crate) fn scan(s: &str, start: usize) -> Result<Scan, Error> {
    let b = s.as_bytes();
    let mut pos = start;
    let mut canonical = true;
    let after_v = matches!(b.get(pos), Some(b'v' | b'V'));
    if after_v {
        canonical = false;
        pos += 1;
    }

    // The first number is an epoch if `!` follows it.
    let first_end = run_end(b, pos, |c| c.is_ascii_digit());
    if first_end == pos {
        let expected = if after_v {
            "a release number after `v`"
        } else {
            "a release number"
        };
        return Err(expected_here(s, pos, expected, ErrorKind::InvalidVersion));
    }
    let is_epoch = b.get(first_end) == Some(&b'!');
    let first = digits_value(b.get(pos..first_end).unwrap_or(&[])).ok_or_else(|| {
        let what = if is_epoch {
            "an epoch of at most 18446744073709551615"
        } else {
            RELEASE_TOO_LARGE
        };
        too_large(s, pos..first_end, what)
    })?;
    canonical &= canonical_digits(b, pos, first_end);
    let mut epoch = 0;
    let mut release = ReleaseBuf {
        inline: [0; 4],
        len: 0,
        spill: Vec::new(),
    };
    let release_start;
    if is_epoch {
        epoch = first;
        canonical &= epoch != 0;
        pos = first_end + 1;
        release_start = pos;
        let Some((n, end)) = number(s, pos, RELEASE_TOO_LARGE)? else {
            return Err(expected_here(
                s,
                pos,
                "a release number after `!`",
                ErrorKind::InvalidVersion,
            ));
        };
        canonical &= canonical_digits(b, pos, end);
        release.push(n);
        pos = end;
    } else {
        release_start = pos;
        release.push(first);
        pos = first_end;
    }
    while b.get(pos) == Some(&b'.') && is_digit(b.get(pos + 1).copied()) {
        let Some((n, end)) = number(s, pos + 1, RELEASE_TOO_LARGE)? else {
            break;
        };
        canonical &= canonical_digits(b, pos + 1, end);
        release.push(n);
        pos = end;
    }
    let release_span = release_start..pos;

    let mut pre = None;
    let mut post = None;
    let mut dev = None;
    let mut local = Vec::new();
    let mut local_span = None;
    if pos < b.len() {
        if let Some(t) = tagged(s, pos, Part::Pre, PRE_TOO_LARGE)? {
            let kind = match t.tag {
                Tag::Beta => PrereleaseKind::Beta,
                Tag::Rc => PrereleaseKind::Rc,
                _ => PrereleaseKind::Alpha,
            };
            pre = Some(Prerelease {
                kind,
                number: t.number,
            });
            canonical &= t.canonical;
            pos = t.end;
        }

        if b.get(pos) == Some(&b'-') && is_digit(b.get(pos + 1).copied()) {
            if let Some((n, end)) = number(s, pos + 1, POST_TOO_LARGE)? {
                canonical = false;
                post = Some(n);
                pos = end;
            }
        } else if let Some(t) = tagged(s, pos, Part::Post, POST_TOO_LARGE)? {
            canonical &= t.canonical;
            post = Some(t.number);
            pos = t.end;
        }

        if let Some(t) = tagged(s, pos, Part::Dev, DEV_TOO_LARGE)? {
            canonical &= t.canonical;
            dev = Some(t.number);
            pos = t.end;
        }

        if b.get(pos) == Some(&b'+') && is_alnum(b.get(pos + 1).copied()) {
            let plus = pos;
            pos += 1;
            loop {
                let end = run_end(b, pos, |c| c.is_ascii_alphanumeric());
                let part = b.get(pos..end).unwrap_or(&[]);
                if part.iter().all(u8::is_ascii_digit) {
                    let n = digits_value(part)
                        .ok_or_else(|| too_large(s, pos..end, LOCAL_TOO_LARGE))?;
                    canonical &= canonical_digits(b, pos, end);
                    local.push(LocalSegment::Number(n));
                } else {
                    canonical &= !part.iter().any(u8::is_ascii_uppercase);
                    local.push(LocalSegment::String(text(s, pos..end).to_ascii_lowercase()));
                }
                pos = end;
                if is_sep(b.get(pos).copied()) && is_alnum(b.get(pos + 1).copied()) {
                    canonical &= b.get(pos) == Some(&b'.');
                    pos += 1;
                } else {
                    break;
                }
            }
            local_span = Some(plus..pos);
        }
    }

    let release_len = release.as_slice().len();
    Ok(Scan {
        version: Version::from_parts(epoch, release.as_slice(), pre, post, dev, local),
        local_span,
        release_span,
        release_len,
        canonical,
        end: pos,
    })
}

const RELEASE_TOO_LARGE: &str = "a release number of at most 18446744073709551615";
const PRE_TOO_LARGE: &str = "a pre-release number of at most 18446744073709551615";
const POST_TOO_LARGE: &str = "a post-release number of at most 18446744073709551615";
const DEV_TOO_LARGE: &str = "a dev-release number of at most 18446744073709551615";
const LOCAL_TOO_LARGE: &str = "a local version number of at most 18446744073709551615";

/// "expected {expected}, found …" at `pos`, naming a whole word when one starts there.
fn expected_here(s: &str, pos: usize, expected: &'static str, kind: ErrorKind) -> Error {
    let b = s.as_bytes();
    let word_end = run_end(b, pos, |c| c.is_ascii_alphanumeric());
    if word_end > pos {
        let span = pos..word_end;
        let found = Found::text(text(s, span.clone()));
        return Error::new(kind, span, Detail::Expected(expected, found));
    }
    Error::new(
        kind,
        char_span(s, pos),
        Detail::Expected(expected, found_at(s, pos)),
    )
}

const ORDER_HELP: &str = "the parts of a version go in this order: epoch `N!`, release `1.2`, \
pre-release `a1`/`b1`/`rc1`, post-release `.post1`, dev-release `.dev1`, local label `+abc`";

/// The error for text left over at `pos` (before `end`, the end of the text without trailing
/// whitespace) after a version read by [`scan`]. `noun` is what should have ended: "version" or
/// "specifier".
fn leftover(s: &str, scan: &Scan, pos: usize, end: usize, noun: Noun) -> Error {
    let b = s.as_bytes();
    let c = b.get(pos).copied();
    let trailing = |from: usize| {
        let span = from..end;
        let found = Found::text(text(s, span.clone()));
        Error::new(
            ErrorKind::TrailingInput,
            span,
            Detail::Expected(noun.expected_end(), found),
        )
    };

    if c == Some(b'+') && scan.local_span.is_none() {
        return Error::new(
            ErrorKind::InvalidLocal,
            char_span(s, pos + 1),
            Detail::Expected("a local version label after `+`", found_at(s, pos + 1)),
        );
    }
    if text(s, pos..end).starts_with(".*") {
        let err = trailing(pos);
        return match noun {
            Noun::Version => err.with_help(
                "a wildcard is only allowed in a specifier with `==` or `!=`, as in `==1.0.*`",
            ),
            Noun::Specifier => err,
        };
    }
    if scan.local_span.as_ref().is_some_and(|l| l.end == pos) {
        if is_sep(c) {
            let expected = match c {
                Some(b'.') => "a letter or digit after `.` in local version label",
                Some(b'-') => "a letter or digit after `-` in local version label",
                _ => "a letter or digit after `_` in local version label",
            };
            return Error::new(
                ErrorKind::InvalidLocal,
                char_span(s, pos + 1),
                Detail::Expected(expected, found_at(s, pos + 1)),
            );
        }
        if let Found::Char(ch) = found_at(s, pos) {
            if !is_space(ch) {
                return Error::new(
                    ErrorKind::InvalidLocal,
                    char_span(s, pos),
                    Detail::Expected("", Found::Char(ch)),
                )
                .with_help("a local version label holds ASCII letters and digits separated by `.`, `-` or `_`");
            }
        }
    }
    match found_at(s, pos) {
        Found::Char(ch) if is_space(ch) => {
            let from = skip_space(s, pos);
            let err = trailing(from);
            if noun == Noun::Specifier && from < end {
                err.with_help("separate specifiers with a comma, as in `>=1.0, <2.0`")
            } else {
                err
            }
        }
        Found::Char('!') => Error::new(
            ErrorKind::InvalidVersion,
            pos..pos + 1,
            Detail::Expected(noun.expected_end(), Found::Char('!')),
        )
        .with_help("an epoch is one number followed by `!` at the start, as in `1!2.0`"),
        Found::Char(_) if is_sep(c) || c.is_some_and(|c| c.is_ascii_alphabetic()) => {
            let q = if is_sep(c) { pos + 1 } else { pos };
            let next = b.get(q).copied();
            if next.is_some_and(|n| n.is_ascii_alphabetic()) {
                let word_end = run_end(b, q, |n| n.is_ascii_alphabetic());
                let word = text(s, q..word_end);
                if ALL_TAGS.iter().any(|tag| word.eq_ignore_ascii_case(tag)) {
                    return trailing(pos).with_help(ORDER_HELP);
                }
                let span = q..word_end;
                return Error::new(
                    ErrorKind::InvalidVersion,
                    span,
                    Detail::Expected("a pre-, post- or dev-release tag", Found::text(word)),
                )
                .with_help(
                    "use `a`, `b`, `rc`, `.post` or `.dev`, or put other text in a local label \
                     after `+`",
                );
            }
            if next.is_some_and(|n| n.is_ascii_digit()) {
                return trailing(pos).with_help(
                    "all release numbers come before the pre-, post- and dev-release tags",
                );
            }
            let expected = match c {
                Some(b'.') => "a number or a version tag after `.`",
                Some(b'-') => "a number or a version tag after `-`",
                _ => "a number or a version tag after `_`",
            };
            Error::new(
                ErrorKind::InvalidVersion,
                char_span(s, q),
                Detail::Expected(expected, found_at(s, q)),
            )
        }
        _ => trailing(pos),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Noun {
    Version,
    Specifier,
}

impl Noun {
    fn expected_end(self) -> &'static str {
        match self {
            Noun::Version => "end of version",
            Noun::Specifier => "end of specifier",
        }
    }
}

fn check_len(s: &str) -> Result<(), Error> {
    if s.len() > MAX_INPUT_LEN {
        return Err(Error::new(
            ErrorKind::TooLong,
            0..s.len(),
            Detail::Length(s.len()),
        ));
    }
    Ok(())
}

/// The fast path for the common `N(.N){0,3}` with numbers of at most 19 digits (which cannot
/// overflow): the version, whether it is written canonically (no leading zeros), and the number of
/// release numbers. `None` sends the text to the full parser.
fn simple_release(b: &[u8]) -> Option<(Version, bool, usize)> {
    let mut release = [0u64; 4];
    let mut len = 0;
    let mut value = 0u64;
    let mut digits = 0;
    let mut canonical = true;
    for &c in b {
        if c.is_ascii_digit() {
            if digits == 19 {
                return None;
            }
            canonical &= digits == 0 || value != 0;
            value = value * 10 + u64::from(c - b'0');
            digits += 1;
        } else if c == b'.' && digits > 0 {
            *release.get_mut(len)? = value;
            len += 1;
            value = 0;
            digits = 0;
        } else {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    *release.get_mut(len)? = value;
    len += 1;
    Some((Version::inline_release(release, len), canonical, len))
}

/// Parses a whole version, as packaging's `Version(text)`.
pub(crate) fn parse_version(s: &str) -> Result<Version, Error> {
    if let Some((version, _, _)) = simple_release(s.as_bytes()) {
        return Ok(version);
    }
    check_len(s)?;
    let start = skip_space(s, 0);
    let end = trim_end(s, start);
    if start == end {
        return Err(Error::new(
            ErrorKind::Empty,
            start..start,
            Detail::Expected("a version", Found::End),
        ));
    }
    let scan = scan(s, start)?;
    if scan.end != end {
        return Err(leftover(s, &scan, scan.end, end, Noun::Version));
    }
    Ok(scan.version)
}

/// What a specifier's version part holds.
pub(crate) enum SpecVersion {
    /// A version.
    Version {
        version: Version,
        /// Whether it was written as its `Display` writes it.
        canonical: bool,
    },
    /// The text of a `===` specifier.
    Arbitrary,
}

/// A parsed specifier: operator, version and the range of the version text (without the
/// surrounding whitespace, as packaging's `Specifier.version`).
pub(crate) struct SpecParts {
    pub(crate) op: Operator,
    pub(crate) version: SpecVersion,
    pub(crate) text: Range<usize>,
}

fn is_op_char(c: u8) -> bool {
    matches!(c, b'=' | b'!' | b'<' | b'>' | b'~')
}

/// Parses a whole specifier, as packaging's `Specifier(text)`.
pub(crate) fn parse_specifier(s: &str) -> Result<SpecParts, Error> {
    check_len(s)?;
    let b = s.as_bytes();
    let start = skip_space(s, 0);
    let run = run_end(b, start, is_op_char);
    let at = |i: usize| b.get(start + i).copied();
    let op = match (at(0), at(1)) {
        (Some(b'='), Some(b'=')) if at(2) == Some(b'=') => Operator::ExactEqual,
        (Some(b'='), Some(b'=')) => Operator::Equal,
        (Some(b'!'), Some(b'=')) => Operator::NotEqual,
        (Some(b'~'), Some(b'=')) => Operator::TildeEqual,
        (Some(b'<'), Some(b'=')) => Operator::LessThanEqual,
        (Some(b'>'), Some(b'=')) => Operator::GreaterThanEqual,
        (Some(b'<'), _) => Operator::LessThan,
        (Some(b'>'), _) => Operator::GreaterThan,
        _ => return Err(unknown_operator(s, start, run)),
    };
    if op != Operator::ExactEqual && start + op.as_str().len() != run {
        return Err(unknown_operator(s, start, run));
    }
    let after = start + op.as_str().len();
    parse_after_operator(s, op, after)
}

fn unknown_operator(s: &str, start: usize, run: usize) -> Error {
    let detail = |found| Detail::Expected("a comparison operator", found);
    if run == start {
        let end = trim_end(s, start);
        if start == end {
            return Error::new(ErrorKind::UnknownOperator, start..start, detail(Found::End));
        }
        let word_end = start
            + text(s, start..end)
                .find(|c: char| is_space(c) || c == ',' || c == ';')
                .unwrap_or(end - start);
        let word_end = word_end.max(char_span(s, start).end);
        let err = Error::new(
            ErrorKind::UnknownOperator,
            start..word_end,
            detail(Found::text(text(s, start..word_end))),
        );
        return if is_digit(s.as_bytes().get(start).copied()) {
            err.with_help("add an operator before the version, such as `==` or `>=`")
        } else {
            err
        };
    }
    let op = text(s, start..run);
    let err = Error::new(
        ErrorKind::UnknownOperator,
        start..run,
        detail(Found::text(op)),
    );
    let help = match op {
        "=" => Some("use `==` to compare for equality"),
        "=>" | ">==" => Some("did you mean `>=`?"),
        "=<" | "<==" => Some("did you mean `<=`?"),
        "<>" | "!" | "!==" | "=!" => Some("did you mean `!=`?"),
        "~" | "~>" | "=~" | "~==" => Some("did you mean `~=`?"),
        _ => None,
    };
    match help {
        Some(help) => err.with_help(help),
        None => err,
    }
}

fn empty_after(op: Operator) -> &'static str {
    match op {
        Operator::Equal | Operator::EqualStar => "a version after `==`",
        Operator::NotEqual | Operator::NotEqualStar => "a version after `!=`",
        Operator::TildeEqual => "a version after `~=`",
        Operator::LessThan => "a version after `<`",
        Operator::LessThanEqual => "a version after `<=`",
        Operator::GreaterThan => "a version after `>`",
        Operator::GreaterThanEqual => "a version after `>=`",
        Operator::ExactEqual => "a version after `===`",
    }
}

/// Parses what follows the operator `op`, which ends at `after`.
pub(crate) fn parse_after_operator(
    s: &str,
    op: Operator,
    after: usize,
) -> Result<SpecParts, Error> {
    let b = s.as_bytes();
    let start = skip_space(s, after);
    if start >= s.len() {
        return Err(Error::new(
            ErrorKind::Empty,
            start..start,
            Detail::Expected(empty_after(op), Found::End),
        ));
    }

    if op == Operator::ExactEqual {
        // `===\s*[^\s;)]+\s*`
        let rest = text(s, start..s.len());
        let len = rest
            .find(|c: char| is_space(c) || c == ';' || c == ')')
            .unwrap_or(rest.len());
        let text_end = start + len;
        if len == 0 {
            return Err(Error::new(
                ErrorKind::InvalidArbitrary,
                char_span(s, start),
                Detail::Expected("", found_at(s, start)),
            ));
        }
        let end = skip_space(s, text_end);
        if end < s.len() {
            return Err(match b.get(text_end) {
                Some(b';' | b')') => Error::new(
                    ErrorKind::InvalidArbitrary,
                    text_end..text_end + 1,
                    Detail::Expected("", found_at(s, text_end)),
                ),
                _ => Error::new(
                    ErrorKind::TrailingInput,
                    end..s.len(),
                    Detail::Expected("end of specifier", Found::text(text(s, end..s.len()))),
                )
                .with_help("`===` text cannot contain whitespace"),
            });
        }
        return Ok(SpecParts {
            op,
            version: SpecVersion::Arbitrary,
            text: start..text_end,
        });
    }

    let end = trim_end(s, start);
    let region = b.get(start..end).unwrap_or(&[]);
    let (base, op_star) = match (region.strip_suffix(b".*"), op) {
        (Some(base), Operator::Equal) => (base, Operator::EqualStar),
        (Some(base), Operator::NotEqual) => (base, Operator::NotEqualStar),
        _ => (region, op),
    };
    if let Some((version, canonical, len)) = simple_release(base) {
        if op != Operator::TildeEqual || len >= 2 {
            return Ok(SpecParts {
                op: op_star,
                version: SpecVersion::Version { version, canonical },
                text: start..end,
            });
        }
    }
    let scan = scan(s, start)?;
    let mut pos = scan.end;
    let mut wildcard = false;
    if text(s, pos..end).starts_with(".*") {
        if !matches!(op, Operator::Equal | Operator::NotEqual) {
            let span = pos..pos + 2;
            return Err(Error::new(
                ErrorKind::WildcardNotAllowed,
                span,
                Detail::Operator(op, Found::text(".*")),
            ));
        }
        if pos != scan.release_span.end {
            return Err(Error::new(
                ErrorKind::MisplacedWildcard,
                pos..pos + 2,
                Detail::Expected("", Found::text(".*")),
            )
            .with_help("a wildcard can only follow the release numbers, as in `==1.0.*`"));
        }
        wildcard = true;
        pos += 2;
    }
    if let Some(local) = scan.local_span.clone() {
        if !matches!(op, Operator::Equal | Operator::NotEqual) {
            let found = Found::text(text(s, local.clone()));
            return Err(Error::new(
                ErrorKind::LocalNotAllowed,
                local,
                Detail::Operator(op, found),
            ));
        }
    }
    if op == Operator::TildeEqual && scan.release_len < 2 {
        let span = scan.release_span.clone();
        let found = Found::text(text(s, span.clone()));
        return Err(Error::new(
            ErrorKind::CompatibleReleaseTooShort,
            span,
            Detail::Operator(op, found),
        )
        .with_help("add a release number, as in `~=1.0` for `>=1.0, ==1.*`"));
    }
    if pos != end {
        return Err(leftover(s, &scan, pos, end, Noun::Specifier));
    }
    let op = match (op, wildcard) {
        (Operator::Equal, true) => Operator::EqualStar,
        (Operator::NotEqual, true) => Operator::NotEqualStar,
        (op, _) => op,
    };
    Ok(SpecParts {
        op,
        version: SpecVersion::Version {
            version: scan.version,
            canonical: scan.canonical,
        },
        text: start..end,
    })
}
