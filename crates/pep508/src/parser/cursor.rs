//! The lexeme layer: a byte cursor over the input with whitespace, words, operators, names and
//! the "found `…`" token of messages, read with nom (whose types stay in this module tree).

use nom::bytes::complete::{take_while, take_while1};

use crate::error::{Error, ErrorKind, Reporter, Warning, WarningKind};
use crate::options::ParseOptions;
use crate::span::Span;

pub(super) type NomError<'a> = nom::error::Error<&'a str>;

/// The cursor over the input: where the grammar is, the options, and where warnings go.
pub(crate) struct Parser<'a, 'r> {
    pub(super) input: &'a str,
    pub(super) pos: usize,
    pub(super) opts: &'a ParseOptions,
    pub(super) reporter: &'r mut dyn Reporter,
    pub(super) clauses: usize,
    /// The profile's `uv_syntax` knob, kept at hand for the whitespace rule read at every token.
    pub(super) uv: bool,
}

/// The bytes of an identifier (`letterOrDigit | '-' | '_' | '.'`), looked up in one load.
static IDENTIFIER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.';
        b += 1;
    }
    table
};

/// The bytes of a version (`letterOrDigit | '-' | '_' | '.' | '*' | '+' | '!'`).
pub(super) static VERSION_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] =
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'*' | b'+' | b'!' | b'-' | b'_');
        b += 1;
    }
    table
};

/// Python's `str.isspace()`, which decides where a URL ends (`\S+`).
pub(super) fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w` for `str` patterns, which decides keyword boundaries.
pub(super) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl<'a, 'r> Parser<'a, 'r> {
    pub(super) fn new(
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
            uv: opts.profile.rules().uv_syntax,
        }
    }

    pub(super) fn error(&self, kind: ErrorKind, span: Span) -> Error {
        Error::new(kind, span)
    }

    pub(super) fn warn(&mut self, kind: WarningKind, span: Span) {
        self.reporter.report(Warning { kind, span });
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    pub(super) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// Runs a nom lexeme at the cursor; on success moves past it.
    pub(super) fn lex<O>(
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
    #[inline(always)]
    pub(super) fn lex_ascii(
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
    pub(super) fn peek_is(&self, b: u8) -> bool {
        self.input.as_bytes().get(self.pos) == Some(&b)
    }

    /// `wsp*`: spaces and tabs; under the `uv` profile any Unicode whitespace.
    #[inline]
    pub(super) fn ws(&mut self) {
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
    pub(super) fn uv(&self) -> bool {
        self.uv
    }

    /// Skips any Unicode whitespace (uv's `char::is_whitespace`).
    pub(super) fn ws_unicode(&mut self) {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        self.pos += len;
    }

    /// A comparison operator: `===`, `==`, `~=`, `!=`, `<=`, `>=`, `<`, `>`, longest first.
    pub(super) fn lex_operator(&mut self) -> Option<&'a str> {
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
    #[inline(always)]
    pub(super) fn keyword(&mut self, kw: &'static str) -> bool {
        if self.at_keyword(kw) {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    /// Whether the keyword is at the cursor (without moving past it).
    #[inline(always)]
    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        // On bytes: the keywords are ASCII, so a match ends on a character boundary.
        let rest = self.input.as_bytes().get(self.pos..).unwrap_or_default();
        if !rest.starts_with(kw.as_bytes()) {
            return false;
        }
        match rest.get(kw.len()) {
            None => true,
            Some(&b) if b.is_ascii() => !(b.is_ascii_alphanumeric() || b == b'_'),
            Some(_) => !self.word_at(self.pos + kw.len()),
        }
    }

    /// Whether a word character (Unicode) starts at byte `at`.
    #[cold]
    fn word_at(&self, at: usize) -> bool {
        self.input
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .is_some_and(is_word)
    }

    /// The token at the cursor, for "found `…`" messages: a word, or one character.
    pub(super) fn found(&self) -> (String, Span) {
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

    pub(super) fn check_length(&self) -> Result<(), Error> {
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
    /// identifier_end = letterOrDigit | (('-' | '_' | '.' )* letterOrDigit)
    /// identifier     = letterOrDigit identifier_end*
    /// ```
    pub(super) fn parse_identifier(&mut self, package: bool) -> Result<&'a str, Error> {
        let start = self.pos;
        let Some(word) = self.lex_ascii(take_while1(|b: u8| IDENTIFIER[usize::from(b)])) else {
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
        let trimmed = if self.opts.profile.rules().name_regex {
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
}
