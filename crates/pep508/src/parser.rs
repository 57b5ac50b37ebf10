//! The parser: requirement and marker grammar on a byte cursor, lexemes read with nom.
//!
//! nom stays private to this module: its types never reach a public signature, and every
//! failure becomes an [`Error`] through [`Parser::error`]. The marker grammar is parsed
//! without recursion (an explicit stack of open parentheses), so no input can overflow the
//! stack however deep it nests; the nesting limit only bounds the size of the tree.

use nom::bytes::complete::{take_while, take_while1};

use markerspec_pep440::{Operator, VersionSpecifier, VersionSpecifiers};

use crate::error::{Error, ErrorKind, Reporter, Span, Warning, WarningKind};
use crate::evaluate::Profile;
use crate::field::{self, Dialect, Lookup};
use crate::marker::{MarkerExpression, MarkerOperator, MarkerTree, MarkerValue};
use crate::name::{ExtraName, PackageName};
use crate::requirement::{Requirement, VersionOrUrl};
use crate::string;

type NomError<'a> = nom::error::Error<&'a str>;

/// Options for parsing: the dialect and the limits that make hostile input harmless.
///
/// ```
/// use markerspec_pep508::{Dialect, ParseOptions, MarkerTree};
/// let opts = ParseOptions::default().dialect(Dialect::Extended).max_nesting(8);
/// let m = MarkerTree::parse_with("cuda_version >= '12'", &opts, &mut Vec::new()).unwrap();
/// assert_eq!(m.to_string(), r#"cuda_version >= "12""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Which variables exist. Default: [`Dialect::Pep508`].
    pub dialect: Dialect,
    /// Which implementation's behaviour to follow for the standard fields. Default:
    /// [`Profile::Spec2026`]. The `packaging` profile accepts what pypa/packaging accepts
    /// (comparisons of two literals, a name ending in `_`, `extras` anywhere); the `uv` profile
    /// what uv-pep508 accepts (it drops the comparisons it cannot read, rejects `===` in
    /// markers, reads quoted strings without escapes and any Unicode whitespace as a separator).
    pub profile: Profile,
    /// Whether `extras` and `dependency_groups` exist (lock-file context). Default: false.
    /// Only the `spec-2026` profile enforces it (`M013`).
    pub lock_file: bool,
    /// Longest accepted input in bytes (`L001`). Default: 1 MiB.
    pub max_input_len: usize,
    /// Deepest accepted parenthesis nesting in a marker (`L002`). Default: 200, the limit
    /// pypa/packaging also enforces.
    pub max_nesting: usize,
    /// Most comparisons in one marker (`L003`). Default: 10,000.
    pub max_clauses: usize,
    /// Longest quoted string in bytes (`L004`). Default: 64 KiB.
    pub max_string_len: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            dialect: Dialect::Pep508,
            profile: Profile::Spec2026,
            lock_file: false,
            max_input_len: 1 << 20,
            max_nesting: 200,
            max_clauses: 10_000,
            max_string_len: 64 << 10,
        }
    }
}

impl ParseOptions {
    /// Sets the dialect.
    #[must_use]
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }
    /// Sets the behaviour profile.
    #[must_use]
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }
    /// Enables or disables lock-file context (`extras`, `dependency_groups`).
    #[must_use]
    pub fn lock_file(mut self, lock_file: bool) -> Self {
        self.lock_file = lock_file;
        self
    }
    /// Sets the input length limit in bytes.
    #[must_use]
    pub fn max_input_len(mut self, limit: usize) -> Self {
        self.max_input_len = limit;
        self
    }
    /// Sets the parenthesis nesting limit.
    #[must_use]
    pub fn max_nesting(mut self, limit: usize) -> Self {
        self.max_nesting = limit;
        self
    }
    /// Sets the limit on comparisons per marker.
    #[must_use]
    pub fn max_clauses(mut self, limit: usize) -> Self {
        self.max_clauses = limit;
        self
    }
    /// Sets the limit on the length of a quoted string in bytes.
    #[must_use]
    pub fn max_string_len(mut self, limit: usize) -> Self {
        self.max_string_len = limit;
        self
    }
}

/// Drops extras written twice exactly (as pypa/packaging's set does), keeping the first, in
/// linear time however many there are.
fn dedup_extras(extras: &mut Vec<ExtraName>) {
    if extras.len() < 2 {
        return;
    }
    let keep: Vec<bool> = if extras.len() <= 16 {
        (0..extras.len())
            .map(|i| !extras[..i].iter().any(|e| e.as_str() == extras[i].as_str()))
            .collect()
    } else {
        let mut seen = std::collections::HashSet::with_capacity(extras.len());
        extras.iter().map(|e| seen.insert(e.as_str())).collect()
    };
    let mut keep = keep.into_iter();
    extras.retain(|_| keep.next().unwrap_or(true));
}

/// The operands of an `and` (or `or`) chain, kept flat, allocating nothing for a chain of one.
#[derive(Default)]
struct Chain {
    first: Option<MarkerTree>,
    rest: Vec<MarkerTree>,
}

impl Chain {
    /// Adds an operand; an operand of the same kind (`a and (b and c)`) is spliced in, and an
    /// empty one (what is left of comparisons the `uv` profile drops) is left out.
    fn push(&mut self, tree: MarkerTree, and: bool) {
        match (tree, and) {
            (MarkerTree::And(children) | MarkerTree::Or(children), _) if children.is_empty() => {}
            (MarkerTree::And(children), true) | (MarkerTree::Or(children), false) => {
                for c in children {
                    self.push_one(c);
                }
            }
            (tree, _) => self.push_one(tree),
        }
    }

    fn push_one(&mut self, tree: MarkerTree) {
        if let Some(first) = self.first.take() {
            self.rest.reserve_exact(2);
            self.rest.push(first);
        }
        if self.rest.is_empty() {
            self.first = Some(tree);
        } else {
            self.rest.push(tree);
        }
    }

    /// The chain as one tree; [`dropped`] when it has no operand.
    fn finish(self, and: bool) -> MarkerTree {
        match self.first {
            Some(only) => only,
            None if self.rest.is_empty() => dropped(),
            None if and => MarkerTree::And(self.rest),
            None => MarkerTree::Or(self.rest),
        }
    }
}

/// What a comparison the `uv` profile drops leaves: an empty `and`, which chains leave out
/// and which, as a whole marker, is true.
fn dropped() -> MarkerTree {
    MarkerTree::And(Vec::new())
}

/// A requirement's marker, or none when the `uv` profile dropped every comparison of it.
fn non_empty(marker: MarkerTree) -> Option<MarkerTree> {
    match &marker {
        MarkerTree::And(c) if c.is_empty() => None,
        _ => Some(marker),
    }
}

pub(crate) struct Parser<'a, 'r> {
    input: &'a str,
    pos: usize,
    opts: &'a ParseOptions,
    reporter: &'r mut dyn Reporter,
    clauses: usize,
    /// `opts.profile == Profile::Uv`, kept at hand for the whitespace rule read at every token.
    uv: bool,
}

/// Python's `str.isspace()`, which decides where a URL ends (`\S+`).
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w` for `str` patterns, which decides keyword boundaries.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a, 'r> Parser<'a, 'r> {
    pub(crate) fn new(
        input: &'a str,
        opts: &'a ParseOptions,
        reporter: &'r mut dyn Reporter,
    ) -> Self {
        Parser {
            input,
            pos: 0,
            opts,
            reporter,
            clauses: 0,
            uv: opts.profile == Profile::Uv,
        }
    }

    fn error(&self, kind: ErrorKind, span: Span) -> Error {
        Error::new(kind, span, self.input)
    }

    fn warn(&mut self, kind: WarningKind, span: Span) {
        self.reporter.report(Warning { kind, span });
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// Runs a nom lexeme at the cursor; on success moves past it.
    fn lex<O>(
        &mut self,
        mut p: impl nom::Parser<&'a str, Output = O, Error = NomError<'a>>,
    ) -> Option<O> {
        match p.parse(self.rest()) {
            Ok((rest, out)) => {
                self.pos = self.input.len() - rest.len();
                Some(out)
            }
            Err(_) => None,
        }
    }

    /// Runs a nom lexeme over the bytes at the cursor, for lexemes made of ASCII bytes (so
    /// that the match ends on a character boundary); on success moves past it and returns the
    /// text matched.
    fn lex_ascii(
        &mut self,
        mut p: impl nom::Parser<&'a [u8], Output = &'a [u8], Error = nom::error::Error<&'a [u8]>>,
    ) -> Option<&'a str> {
        let start = self.pos;
        match p.parse(&self.input.as_bytes()[start..]) {
            Ok((_, matched)) => {
                self.pos = start + matched.len();
                Some(&self.input[start..self.pos])
            }
            Err(_) => None,
        }
    }

    /// Whether the next byte is `b`.
    #[inline]
    fn peek_is(&self, b: u8) -> bool {
        self.input.as_bytes().get(self.pos) == Some(&b)
    }

    /// `wsp*`: spaces and tabs; under the `uv` profile any Unicode whitespace.
    #[inline]
    fn ws(&mut self) {
        let bytes = self.input.as_bytes();
        if matches!(bytes.get(self.pos), Some(b' ' | b'\t')) {
            self.lex_ascii(take_while(|b: u8| b == b' ' || b == b'\t'));
        }
        if self.uv() {
            self.ws_unicode();
        }
    }

    /// Whether the `uv` profile's syntax applies.
    #[inline]
    fn uv(&self) -> bool {
        self.uv
    }

    /// Skips any Unicode whitespace (uv's `char::is_whitespace`).
    fn ws_unicode(&mut self) {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        self.pos += len;
    }

    /// A comparison operator: `===`, `==`, `~=`, `!=`, `<=`, `>=`, `<`, `>`, longest first.
    fn lex_operator(&mut self) -> Option<&'a str> {
        let rest = &self.input.as_bytes()[self.pos..];
        let len = match rest {
            [b'=', b'=', b'=', ..] => 3,
            [b'=' | b'~' | b'!' | b'<' | b'>', b'=', ..] => 2,
            [b'<' | b'>', ..] => 1,
            _ => return None,
        };
        let start = self.pos;
        self.pos += len;
        Some(&self.input[start..self.pos])
    }

    /// A keyword followed by a non-word character or the end, as Python's `\bkw\b`.
    fn keyword(&mut self, kw: &'static str) -> bool {
        if self.at_keyword(kw) {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    /// The token at the cursor, for "found `…`" messages: a word, or one character.
    fn found(&self) -> (String, Span) {
        let rest = self.rest();
        let len = match rest.chars().next() {
            None => 0,
            Some(c) if is_word(c) || c == '.' => rest
                .find(|c: char| !(is_word(c) || c == '.' || c == '-'))
                .unwrap_or(rest.len()),
            Some(c) if c == '=' || c == '<' || c == '>' || c == '!' || c == '~' => rest
                .find(|c: char| !matches!(c, '=' | '<' | '>' | '!' | '~'))
                .unwrap_or(rest.len()),
            Some('&') if rest.starts_with("&&") => 2,
            Some('|') if rest.starts_with("||") => 2,
            Some(c) => c.len_utf8(),
        };
        // Keep messages short on pathological input.
        let mut shown = len.min(40);
        while !rest.is_char_boundary(shown) {
            shown -= 1;
        }
        (
            rest[..shown].to_string(),
            Span::new(self.pos, self.pos + len),
        )
    }

    fn check_length(&self) -> Result<(), Error> {
        if self.input.len() > self.opts.max_input_len {
            return Err(self.error(
                ErrorKind::InputTooLong {
                    len: self.input.len(),
                    limit: self.opts.max_input_len,
                },
                Span::new(self.opts.max_input_len, self.input.len()),
            ));
        }
        Ok(())
    }

    /// ```text
    /// specification = wsp* ( url_req | name_req ) wsp*
    /// name_req      = name wsp* extras? wsp* versionspec? wsp* quoted_marker?
    /// url_req       = name wsp* extras? wsp* urlspec (wsp+ quoted_marker?)?
    /// ```
    pub(crate) fn parse_requirement(&mut self) -> Result<Requirement, Error> {
        self.check_length()?;
        self.ws();
        let name = self.parse_identifier(true)?;
        let name = PackageName::new_unchecked(name);
        self.ws();
        let extras = if self.peek_is(b'[') {
            self.parse_extras()?
        } else {
            Vec::new()
        };
        self.ws();
        if self.uv() {
            return self.parse_requirement_rest_uv(name, extras);
        }
        let mut version_or_url = None;
        let mut marker = None;
        if self.peek_is(b'@') {
            // > urlspec = '@' wsp* <URI_reference>
            let at = self.pos;
            self.pos += 1;
            self.ws();
            let start = self.pos;
            let url = self
                .lex(take_while1(|c: char| !is_python_space(c)))
                .ok_or_else(|| self.error(ErrorKind::ExpectedUrl, Span::new(at, at + 1)))?;
            if let Some(i) = url.find(';') {
                self.warn(
                    WarningKind::SemicolonInUrl,
                    Span::new(start + i, start + i + 1),
                );
            }
            version_or_url = Some(VersionOrUrl::Url(url.into()));
            // > (wsp+ quoted_marker?)?
            self.ws();
            if !self.at_end() {
                if self.peek_is(b';') {
                    marker = non_empty(self.parse_quoted_marker()?);
                } else {
                    let (found, span) = self.found();
                    return Err(self.error(
                        ErrorKind::UnexpectedAfterRequirement {
                            found,
                            expected: "`;` or the end after the URL",
                        },
                        span,
                    ));
                }
            }
        } else {
            let specifiers = if self.peek_is(b'(') {
                self.parse_paren_specifiers()?
            } else if self.rest().starts_with(['<', '>', '=', '!', '~']) {
                self.parse_version_many()?
            } else {
                VersionSpecifiers::empty()
            };
            if !specifiers.is_empty() {
                version_or_url = Some(VersionOrUrl::Specifiers(specifiers));
            }
            self.ws();
            if !self.at_end() {
                if self.peek_is(b';') {
                    marker = non_empty(self.parse_quoted_marker()?);
                } else {
                    let (found, span) = self.found();
                    let expected = if version_or_url.is_some() {
                        "`,`, `;` or the end after the version specifier"
                    } else if extras.is_empty() {
                        "a version specifier, `[`, `@`, `;` or the end after the name"
                    } else {
                        "a version specifier, `@`, `;` or the end after the extras"
                    };
                    return Err(self.error(
                        ErrorKind::UnexpectedAfterRequirement { found, expected },
                        span,
                    ));
                }
            }
        }
        Ok(Requirement {
            name,
            extras,
            version_or_url,
            marker,
        })
    }

    /// The rest of a requirement after its name and extras, as uv-pep508 reads it: a URL runs
    /// to a line break, to whitespace before `;`, `#` or the end, or to a `;` or `#` followed
    /// by whitespace, and must have a scheme uv knows; a version specifier list runs to `;` (or
    /// to `)`) and is split at commas; a `#` comment may follow a URL or a parenthesised list.
    fn parse_requirement_rest_uv(
        &mut self,
        name: PackageName,
        extras: Vec<ExtraName>,
    ) -> Result<Requirement, Error> {
        let mut version_or_url = None;
        let mut comment_allowed = false;
        match self.peek() {
            Some('@') => {
                let at = self.pos;
                self.pos += 1;
                self.ws_unicode();
                let start = self.pos;
                let url = self.lex_url_uv();
                if url.is_empty() || !crate::uv::is_url(url) {
                    return Err(
                        self.error(ErrorKind::ExpectedUrl, Span::new(at, start + url.len()))
                    );
                }
                version_or_url = Some(VersionOrUrl::Url(url.into()));
                comment_allowed = true;
            }
            Some(c @ ('(' | '<' | '=' | '>' | '~' | '!')) => {
                let specifiers = self.parse_specifiers_uv(c == '(')?;
                version_or_url = Some(VersionOrUrl::Specifiers(specifiers));
                comment_allowed = c == '(';
            }
            Some(';') | None => {}
            Some(_) => {
                let (found, span) = self.found();
                let expected = if extras.is_empty() {
                    "a version specifier, `[`, `@`, `;` or the end after the name"
                } else {
                    "a version specifier, `@`, `;` or the end after the extras"
                };
                return Err(self.error(
                    ErrorKind::UnexpectedAfterRequirement { found, expected },
                    span,
                ));
            }
        }
        if version_or_url.is_none() && crate::uv::looks_like_archive(name.as_str()) {
            // uv reads a bare `name-1.0.tar.gz` as a file name without a package name.
            return Err(self.error(
                ErrorKind::ExpectedName {
                    found: name.to_string(),
                },
                Span::new(0, self.pos),
            ));
        }
        self.ws();
        let mut marker = None;
        if self.peek_is(b';') {
            marker = non_empty(self.parse_quoted_marker()?);
            comment_allowed = false;
        }
        self.ws();
        let comment = comment_allowed && self.peek_is(b'#');
        if !self.at_end() && !comment {
            let (found, span) = self.found();
            return Err(self.error(
                ErrorKind::UnexpectedAfterRequirement {
                    found,
                    expected: "`;` or the end",
                },
                span,
            ));
        }
        Ok(Requirement {
            name,
            extras,
            version_or_url,
            marker,
        })
    }

    /// A URL as uv delimits it (see [`Parser::parse_requirement_rest_uv`]).
    fn lex_url_uv(&mut self) -> &'a str {
        let rest = self.rest();
        let mut len = 0;
        for (i, c) in rest.char_indices() {
            if i < len {
                continue;
            }
            if c == '\r' || c == '\n' {
                break;
            }
            if c.is_whitespace() {
                let after = rest[i..].trim_start();
                if after.is_empty() || after.starts_with([';', '#']) {
                    break;
                }
            }
            len = i + c.len_utf8();
            let next = &rest[len..];
            if next.starts_with([';', '#'])
                && next[1..].chars().next().is_some_and(char::is_whitespace)
            {
                break;
            }
        }
        self.pos += len;
        &rest[..len]
    }

    /// A version specifier list as uv reads it: up to `;` or the end (or inside parentheses),
    /// split at commas, each item `op version` with any whitespace around; a trailing comma is
    /// allowed.
    fn parse_specifiers_uv(&mut self, paren: bool) -> Result<VersionSpecifiers, Error> {
        let open = self.pos;
        if paren {
            self.pos += 1;
        }
        let rest = self.rest();
        let end = if paren {
            match rest.find(')') {
                Some(i) => i,
                None => {
                    return Err(self.error(
                        ErrorKind::UnclosedVersionParen,
                        Span::new(open, self.input.len()),
                    ));
                }
            }
        } else {
            rest.find(';').unwrap_or(rest.len())
        };
        let base = self.pos;
        let body = &rest[..end];
        let count = body.split(',').count();
        let mut specs = Vec::new();
        let mut offset = 0;
        for (i, item) in body.split(',').enumerate() {
            if i + 1 == count && !specs.is_empty() && item.trim().is_empty() {
                break;
            }
            specs.push(self.specifier_uv(item, base + offset)?);
            offset += item.len() + 1;
        }
        self.pos = base + end + usize::from(paren);
        Ok(VersionSpecifiers::from_iter(specs))
    }

    /// One `op version` item of a uv specifier list.
    fn specifier_uv(&self, item: &str, at: usize) -> Result<VersionSpecifier, Error> {
        let span = Span::new(at, at + item.len());
        let s = item.trim();
        let op_len = s
            .find(|c: char| !matches!(c, '=' | '!' | '~' | '<' | '>'))
            .unwrap_or(s.len());
        let (op_text, rest) = s.split_at(op_len);
        let rest = rest.trim_start();
        let Ok(op) = op_text.parse::<Operator>() else {
            return Err(self.error(
                ErrorKind::ExpectedVersionOperator {
                    found: s.to_string(),
                },
                span,
            ));
        };
        let version_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (version, tail) = rest.split_at(version_len);
        let expected_version = || {
            self.error(
                ErrorKind::ExpectedVersion {
                    operator: op_text.to_string(),
                },
                span,
            )
        };
        // A version never starts with an operator character: `== ==` is not `===` with `=`.
        if version.is_empty()
            || !version.is_ascii()
            || version.starts_with(['=', '!', '~', '<', '>'])
        {
            return Err(expected_version());
        }
        if !tail.trim().is_empty() {
            return Err(self.error(
                ErrorKind::UnexpectedAfterRequirement {
                    found: tail.trim().to_string(),
                    expected: "`,`, `;` or the end after the version specifier",
                },
                span,
            ));
        }
        let spec = VersionSpecifier::from_parts(op, version)
            .map_err(|e| self.error(ErrorKind::Version(e), span))?;
        if op == Operator::ExactEqual && spec.parsed_version().is_none() {
            // uv's `===` takes a version, not arbitrary text.
            return Err(match version.parse::<markerspec_pep440::Version>() {
                Err(e) => self.error(ErrorKind::Version(e), span),
                Ok(_) => expected_version(),
            });
        }
        Ok(spec)
    }

    /// ```text
    /// identifier_end = letterOrDigit | (('-' | '_' | '.' )* letterOrDigit)
    /// identifier     = letterOrDigit identifier_end*
    /// ```
    fn parse_identifier(&mut self, package: bool) -> Result<&'a str, Error> {
        let start = self.pos;
        let Some(word) = self.lex_ascii(take_while1(|b: u8| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
        })) else {
            let (found, span) = self.found();
            return Err(self.error(
                if package {
                    ErrorKind::ExpectedName { found }
                } else {
                    ErrorKind::ExpectedExtraName { found }
                },
                span,
            ));
        };
        let bytes = word.as_bytes();
        if !bytes.first().is_some_and(u8::is_ascii_alphanumeric) {
            let (found, span) = {
                self.pos = start;
                self.found()
            };
            return Err(self.error(
                if package {
                    ErrorKind::ExpectedName { found }
                } else {
                    ErrorKind::ExpectedExtraName { found }
                },
                span,
            ));
        }
        if bytes.last().is_some_and(u8::is_ascii_alphanumeric) {
            // The common case: nothing to trim.
            return Ok(word);
        }
        let trimmed = if self.opts.profile == Profile::Packaging {
            // packaging's `\b[a-zA-Z0-9][a-zA-Z0-9._-]*\b` ends at the last word character, so
            // a trailing `_` belongs to the name and a trailing `-` or `.` is left over (and
            // rejected by whatever comes next).
            let kept = word.trim_end_matches(['-', '.']);
            self.pos = start + kept.len();
            return Ok(kept);
        } else {
            word.trim_end_matches(['-', '_', '.'])
        };
        if trimmed.len() != word.len() {
            return Err(self.error(
                ErrorKind::NameEndsWithPunctuation,
                Span::new(start + trimmed.len(), start + word.len()),
            ));
        }
        Ok(word)
    }

    /// ```text
    /// extras_list = identifier (wsp* ',' wsp* identifier)*
    /// extras      = '[' wsp* extras_list? wsp* ']'
    /// ```
    fn parse_extras(&mut self) -> Result<Vec<ExtraName>, Error> {
        let open = self.pos;
        self.pos += 1;
        self.ws();
        let mut extras: Vec<ExtraName> = Vec::new();
        if self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            loop {
                extras.push(ExtraName::new_unchecked(self.parse_identifier(false)?));
                self.ws();
                match self.peek() {
                    Some(',') => {
                        self.pos += 1;
                        self.ws();
                    }
                    Some(c) if c.is_ascii_alphanumeric() => {
                        return Err(self.error(
                            ErrorKind::MissingCommaBetweenExtras,
                            Span::new(self.pos, self.pos),
                        ));
                    }
                    _ => break,
                }
            }
        }
        self.ws();
        match self.peek() {
            Some(']') => {
                self.pos += 1;
                dedup_extras(&mut extras);
                Ok(extras)
            }
            None => Err(self.error(ErrorKind::UnclosedExtras, Span::new(open, self.pos))),
            Some(_) => {
                let (found, span) = self.found();
                if extras.is_empty() {
                    Err(self.error(ErrorKind::ExpectedExtraName { found }, span))
                } else {
                    Err(self.error(ErrorKind::UnclosedExtras, Span::new(open, span.start)))
                }
            }
        }
    }

    /// ```text
    /// versionspec = ( '(' version_many ')' ) | version_many
    /// ```
    fn parse_paren_specifiers(&mut self) -> Result<VersionSpecifiers, Error> {
        let open = self.pos;
        self.pos += 1;
        self.ws();
        let specs = if self.peek_is(b')') {
            VersionSpecifiers::empty()
        } else {
            self.parse_version_many()?
        };
        self.ws();
        if self.peek_is(b')') {
            self.pos += 1;
            Ok(specs)
        } else if self.at_end() {
            Err(self.error(ErrorKind::UnclosedVersionParen, Span::new(open, self.pos)))
        } else {
            let (found, span) = self.found();
            Err(self.error(
                ErrorKind::UnexpectedAfterRequirement {
                    found,
                    expected: "`,` or `)` in the version specifier",
                },
                span,
            ))
        }
    }

    /// ```text
    /// version_cmp  = wsp* '<=' | '<' | '!=' | '===' | '==' | '>=' | '>' | '~='
    /// version      = wsp* ( letterOrDigit | '-' | '_' | '.' | '*' | '+' | '!' )+
    /// version_one  = version_cmp version wsp*
    /// version_many = version_one (',' version_one)* (',' wsp*)?
    /// ```
    fn parse_version_many(&mut self) -> Result<VersionSpecifiers, Error> {
        // Most lists hold one specifier, which is kept out of a vector.
        let mut only: Option<VersionSpecifier> = None;
        let mut specs: Vec<VersionSpecifier> = Vec::new();
        loop {
            self.ws();
            let spec = self.parse_version_one()?;
            if let Some(previous) = only.take() {
                specs.reserve_exact(2);
                specs.push(previous);
            }
            if specs.is_empty() {
                only = Some(spec);
            } else {
                specs.push(spec);
            }
            self.ws();
            if !self.peek_is(b',') {
                break;
            }
            self.pos += 1;
            self.ws();
            if !self.rest().starts_with(['<', '>', '=', '!', '~']) {
                // A trailing comma ends the list.
                if self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    let (found, span) = self.found();
                    return Err(self.error(ErrorKind::ExpectedVersionOperator { found }, span));
                }
                break;
            }
        }
        Ok(match only {
            Some(spec) => VersionSpecifiers::from(spec),
            None => VersionSpecifiers::from_iter(specs),
        })
    }

    fn parse_version_one(&mut self) -> Result<VersionSpecifier, Error> {
        let op_start = self.pos;
        let Some(op_text) = self.lex_operator() else {
            let (found, span) = self.found();
            return Err(self.error(ErrorKind::ExpectedVersionOperator { found }, span));
        };
        let op: Operator = match op_text.parse() {
            Ok(op) => op,
            Err(_) => {
                let (found, span) = self.found();
                return Err(self.error(ErrorKind::ExpectedVersionOperator { found }, span));
            }
        };
        self.ws();
        let version_start = self.pos;
        let version = if op_text == "===" {
            self.lex(take_while1(|c: char| {
                !is_python_space(c) && c != ';' && c != ')' && c != ','
            }))
        } else {
            self.lex_ascii(take_while1(|b: u8| {
                b.is_ascii_alphanumeric() || matches!(b, b'.' | b'*' | b'+' | b'!' | b'-' | b'_')
            }))
        };
        let Some(version) = version else {
            return Err(self.error(
                ErrorKind::ExpectedVersion {
                    operator: op_text.to_string(),
                },
                Span::new(op_start, self.pos),
            ));
        };
        VersionSpecifier::from_parts(op, version).map_err(|e| {
            let span = Span::from(e.span()).shift(version_start);
            self.error(ErrorKind::Version(e), span)
        })
    }

    /// ```text
    /// quoted_marker = ';' wsp* marker
    /// ```
    fn parse_quoted_marker(&mut self) -> Result<MarkerTree, Error> {
        let semicolon = self.pos;
        self.pos += 1;
        self.ws();
        if self.at_end() {
            // Point at the `;`: the whitespace after it may be a multi-byte character.
            return Err(self.error(ErrorKind::EmptyMarker, Span::new(semicolon, semicolon + 1)));
        }
        let marker = self.parse_marker()?;
        self.expect_marker_end()?;
        Ok(marker)
    }

    /// A marker on its own, up to the end of the input.
    pub(crate) fn parse_full_marker(&mut self) -> Result<MarkerTree, Error> {
        self.check_length()?;
        self.ws();
        let marker = self.parse_marker()?;
        self.expect_marker_end()?;
        Ok(marker)
    }

    fn expect_marker_end(&mut self) -> Result<(), Error> {
        self.ws();
        if self.at_end() {
            return Ok(());
        }
        let (found, span) = self.found();
        Err(self.error(ErrorKind::UnexpectedAfterMarker { found }, span))
    }

    /// ```text
    /// marker_expr = marker_var marker_op marker_var
    ///             | wsp* '(' marker wsp* ')'
    /// marker_and  = marker_expr wsp* 'and' marker_expr
    ///             | marker_expr
    /// marker_or   = marker_and wsp* 'or' marker_and
    ///             | marker_and
    /// marker      = marker_or
    /// ```
    ///
    /// Parsed with an explicit stack: each open parenthesis pushes a frame that collects the
    /// `or`-groups of `and`-terms inside it.
    fn parse_marker(&mut self) -> Result<MarkerTree, Error> {
        // Most markers are one comparison: read it without building any chain.
        self.ws();
        if self.peek_is(b'(') {
            return self.parse_marker_chains(None);
        }
        let first = self.parse_marker_item()?;
        self.ws();
        if self.at_boolean().is_some() {
            self.parse_marker_chains(Some(first))
        } else {
            Ok(first)
        }
    }

    /// `and` or `or` at the cursor, without moving past it.
    #[inline]
    fn at_boolean(&self) -> Option<&'static str> {
        let kw = match self.input.as_bytes().get(self.pos) {
            Some(b'a') if self.at_keyword("and") => "and",
            Some(b'o') if self.at_keyword("or") => "or",
            _ => return None,
        };
        if self.uv() {
            // uv reads the word up to the next whitespace or `(`: `and(` is `and`, `and"` is not.
            let next = self.rest()[kw.len()..].chars().next();
            if next.is_some_and(|c| !c.is_whitespace() && c != '(') {
                return None;
            }
        }
        Some(kw)
    }

    /// Whether the keyword is at the cursor (without moving past it).
    #[inline]
    fn at_keyword(&self, kw: &str) -> bool {
        let rest = self.rest();
        if !rest.as_bytes().starts_with(kw.as_bytes()) {
            return false;
        }
        match rest.as_bytes().get(kw.len()) {
            None => true,
            Some(&b) if b.is_ascii() => !(b.is_ascii_alphanumeric() || b == b'_'),
            Some(_) => !rest[kw.len()..].chars().next().is_some_and(is_word),
        }
    }

    /// The general case of [`Parser::parse_marker`]: `first`, when given, is the first
    /// comparison, already read, with an `and` or `or` after it.
    fn parse_marker_chains(&mut self, first: Option<MarkerTree>) -> Result<MarkerTree, Error> {
        /// The operands of one parenthesised level: finished `or` branches, and the `and`
        /// chain being read.
        #[derive(Default)]
        struct Frame {
            open: usize,
            ors: Chain,
            ands: Chain,
        }
        impl Frame {
            fn finish(mut self) -> MarkerTree {
                let and = std::mem::take(&mut self.ands).finish(true);
                self.ors.push(and, false);
                self.ors.finish(false)
            }
        }
        let mut root = Frame {
            open: self.pos,
            ..Frame::default()
        };
        // Open parentheses above the root; empty (and unallocated) for most markers.
        let mut nested: Vec<Frame> = Vec::new();
        let mut pending = first;
        'atom: loop {
            // > marker_atom = wsp* '(' marker wsp* ')' | marker_item
            self.ws();
            while pending.is_none() && self.peek_is(b'(') {
                if nested.len() >= self.opts.max_nesting {
                    return Err(self.error(
                        ErrorKind::NestingTooDeep {
                            limit: self.opts.max_nesting,
                        },
                        Span::new(self.pos, self.pos + 1),
                    ));
                }
                nested.push(Frame {
                    open: self.pos,
                    ..Frame::default()
                });
                self.pos += 1;
                self.ws();
            }
            let mut tree = match pending.take() {
                Some(tree) => tree,
                None => self.parse_marker_item()?,
            };
            loop {
                self.ws();
                let frame = nested.last_mut().unwrap_or(&mut root);
                frame.ands.push(tree, true);
                let boolean = self.at_boolean();
                if let Some(kw) = boolean {
                    self.pos += kw.len();
                }
                if boolean == Some("and") {
                    continue 'atom;
                }
                if boolean == Some("or") {
                    let and = std::mem::take(&mut frame.ands).finish(true);
                    frame.ors.push(and, false);
                    continue 'atom;
                }
                if self.peek_is(b')') {
                    if let Some(frame) = nested.pop() {
                        self.pos += 1;
                        tree = frame.finish();
                        continue;
                    }
                }
                break 'atom;
            }
        }
        if let Some(frame) = nested.last() {
            if self.at_end() {
                return Err(self.error(
                    ErrorKind::UnclosedParen,
                    Span::new(frame.open, frame.open + 1),
                ));
            }
            let (found, span) = self.found();
            return Err(self.error(ErrorKind::UnexpectedAfterMarker { found }, span));
        }
        let _ = root.open;
        Ok(root.finish())
    }

    /// ```text
    /// marker_var = wsp* (env_var | python_str)
    /// marker_op  = version_cmp | (wsp* 'in') | (wsp* 'not' wsp+ 'in')
    /// ```
    ///
    /// A comparison that the `uv` profile drops is returned as [`dropped`].
    fn parse_marker_item(&mut self) -> Result<MarkerTree, Error> {
        self.clauses += 1;
        let start = self.pos;
        if self.clauses > self.opts.max_clauses {
            return Err(self.error(
                ErrorKind::TooManyClauses {
                    limit: self.opts.max_clauses,
                },
                Span::new(start, start),
            ));
        }
        let lhs = self.parse_marker_var()?;
        self.ws();
        let op = self.parse_marker_op()?;
        self.ws();
        let rhs = self.parse_marker_var()?;
        let span = Span::new(start, self.pos);
        let mut expr = MarkerExpression {
            lhs,
            op,
            rhs,
            span,
            spec: None,
            fast: crate::compare::Fast::General,
        };
        let keep = crate::check::check(&mut expr, self.opts, &mut |w| self.warn(w, span))
            .map_err(|kind| self.error(kind, span))?;
        Ok(if keep {
            MarkerTree::Expression(expr)
        } else {
            dropped()
        })
    }

    fn parse_marker_var(&mut self) -> Result<MarkerValue, Error> {
        let start = self.pos;
        // Look at the byte first: ASCII needs no character decoding.
        let next = match self.input.as_bytes().get(start) {
            Some(&b) if b.is_ascii() => Some(char::from(b)),
            _ => self.peek(),
        };
        match next {
            Some(q @ ('"' | '\'')) if self.uv() => {
                // uv: everything up to the next matching quote, as written (no escapes).
                self.pos += 1;
                let rest = self.rest();
                let Some(len) = rest.find(q) else {
                    self.pos = self.input.len();
                    return Err(self.error(
                        ErrorKind::UnterminatedString { quote: q },
                        Span::new(start, start + 1),
                    ));
                };
                self.pos += len + 1;
                let span = Span::new(start, self.pos);
                if len > self.opts.max_string_len {
                    return Err(self.error(
                        ErrorKind::StringTooLong {
                            limit: self.opts.max_string_len,
                        },
                        span,
                    ));
                }
                Ok(MarkerValue::Literal(rest[..len].into()))
            }
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                let rest = self.rest();
                let scan = string::scan(rest, q as u8);
                let Some(len) = scan.len else {
                    self.pos = self.input.len();
                    return Err(self.error(
                        ErrorKind::UnterminatedString { quote: q },
                        Span::new(start, start + 1),
                    ));
                };
                let raw = &rest[..len];
                self.pos += len + 1;
                let span = Span::new(start, self.pos);
                if raw.len() > self.opts.max_string_len {
                    return Err(self.error(
                        ErrorKind::StringTooLong {
                            limit: self.opts.max_string_len,
                        },
                        span,
                    ));
                }
                let value = string::decode_scanned(raw, &scan)
                    .map_err(|reason| self.error(ErrorKind::InvalidString { reason }, span))?;
                if scan.non_standard {
                    self.warn(WarningKind::NonStandardString, span);
                }
                Ok(MarkerValue::Literal(value.into()))
            }
            Some(c) if is_word(c) => {
                let mut word = self
                    .lex_ascii(take_while(|b: u8| {
                        b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
                    }))
                    .unwrap_or("");
                if self
                    .input
                    .as_bytes()
                    .get(self.pos)
                    .is_some_and(|b| !b.is_ascii())
                    && self.peek().is_some_and(|c| is_word(c) || c == '.')
                {
                    // A non-ASCII letter continues the word (Python's `\w` is Unicode).
                    let rest = self.rest();
                    let more = rest
                        .find(|c: char| !(is_word(c) || c == '.'))
                        .unwrap_or(rest.len());
                    self.pos += more;
                    word = &self.input[start..self.pos];
                }
                let span = Span::new(start, self.pos);
                match field::lookup(word, self.opts.dialect) {
                    Lookup::Canonical(f) => Ok(MarkerValue::Field(f)),
                    Lookup::Alias(f) => {
                        self.warn(
                            WarningKind::DeprecatedAlias {
                                alias: word.to_string(),
                                field: f,
                            },
                            span,
                        );
                        Ok(MarkerValue::Field(f))
                    }
                    Lookup::WrongDialect(field) => {
                        Err(self.error(ErrorKind::ExtendedFieldInPep508 { field }, span))
                    }
                    Lookup::Unknown => {
                        if word.starts_with(|c: char| c.is_ascii_digit()) {
                            return Err(self.error(
                                ErrorKind::ExpectedMarkerValue {
                                    found: word.to_string(),
                                },
                                span,
                            ));
                        }
                        Err(self.error(
                            ErrorKind::UnknownVariable {
                                name: word.to_string(),
                                suggestion: field::suggest(word, self.opts.dialect),
                            },
                            span,
                        ))
                    }
                }
            }
            _ => {
                let (found, span) = self.found();
                Err(self.error(ErrorKind::ExpectedMarkerValue { found }, span))
            }
        }
    }

    fn parse_marker_op(&mut self) -> Result<MarkerOperator, Error> {
        if self.keyword("in") {
            return Ok(MarkerOperator::In);
        }
        let not_start = self.pos;
        if self.keyword("not") {
            let gap = if self.uv() {
                let before = self.pos;
                self.ws_unicode();
                self.pos > before
            } else {
                self.lex_ascii(take_while1(|b: u8| b == b' ' || b == b'\t'))
                    .is_some()
            };
            if gap && self.keyword("in") {
                return Ok(MarkerOperator::NotIn);
            }
            return Err(self.error(
                ErrorKind::ExpectedInAfterNot,
                Span::new(not_start, self.pos),
            ));
        }
        let op = self.lex_operator();
        Ok(match op {
            Some("===") => MarkerOperator::ExactEqual,
            Some("==") => MarkerOperator::Equal,
            Some("~=") => MarkerOperator::TildeEqual,
            Some("!=") => MarkerOperator::NotEqual,
            Some("<=") => MarkerOperator::LessThanEqual,
            Some(">=") => MarkerOperator::GreaterThanEqual,
            Some("<") => MarkerOperator::LessThan,
            Some(">") => MarkerOperator::GreaterThan,
            _ => {
                let (found, span) = self.found();
                return Err(self.error(ErrorKind::ExpectedMarkerOperator { found }, span));
            }
        })
    }
}
