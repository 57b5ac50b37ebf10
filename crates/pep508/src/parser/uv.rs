//! The `uv` profile's tail of the requirement grammar: what follows the name and extras as
//! uv-pep508 reads it (its URL delimiting and scheme rules, its specifier lists).

use markerspec_pep440::{Operator, VersionSpecifier, VersionSpecifiers};

use super::cursor::Parser;
use super::marker::non_empty;
use crate::error::{Error, ErrorKind};
use crate::name::{ExtraName, PackageName};
use crate::requirement::{Requirement, VersionOrUrl};
use crate::span::Span;

impl<'a> Parser<'a, '_> {
    /// The rest of a requirement after its name and extras, as uv-pep508 reads it: a URL runs
    /// to a line break, to whitespace before `;`, `#` or the end, or to a `;` or `#` followed
    /// by whitespace, and must have a scheme uv knows; a version specifier list runs to `;` (or
    /// to `)`) and is split at commas; a `#` comment may follow a URL or a parenthesised list.
    pub(super) fn parse_requirement_rest_uv(
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
                if url.is_empty() || !crate::profile::uv::is_url(url) {
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
        if version_or_url.is_none() && crate::profile::uv::looks_like_archive(name.as_str()) {
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
    pub(super) fn lex_url_uv(&mut self) -> &'a str {
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
    pub(super) fn parse_specifiers_uv(&mut self, paren: bool) -> Result<VersionSpecifiers, Error> {
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
    pub(super) fn specifier_uv(&self, item: &str, at: usize) -> Result<VersionSpecifier, Error> {
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
}
