//! The requirement grammar: `name [extras] (versions | @ url) ; marker`, as the living
//! specification and pypa/packaging read it (the `uv` profile's tail is in `uv.rs`).

use nom::bytes::complete::take_while1;

use markerspec_pep440::{Operator, VersionSpecifier, VersionSpecifiers};

use super::cursor::{Parser, VERSION_BYTE, is_python_space};
use super::marker::{Build, Tree, Value, non_empty};
use crate::error::{Error, ErrorKind, WarningKind};
use crate::name::{ExtraName, PackageName};
use crate::requirement::{Requirement, VersionOrUrl};
use crate::span::Span;
use crate::truth::Tri;

/// Drops extras written twice exactly (as pypa/packaging's set does), keeping the first, in
/// linear time however many there are.
pub(super) fn dedup_extras(extras: &mut Vec<ExtraName>) {
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

impl<'a> Parser<'a, '_> {
    /// ```text
    /// specification = wsp* ( url_req | name_req ) wsp*
    /// name_req      = name wsp* extras? wsp* versionspec? wsp* quoted_marker?
    /// url_req       = name wsp* extras? wsp* urlspec (wsp+ quoted_marker?)?
    /// ```
    pub(super) fn parse_requirement(&mut self) -> Result<Requirement, Error> {
        self.check_length()?;
        self.ws();
        let name = self.parse_identifier(true)?;
        let name = PackageName::new_unchecked(name);
        self.ws();
        let extras = if self.peek_is(b'[') {
            self.parse_extras::<true>()?.0
        } else {
            Vec::new()
        };
        self.ws();
        if self.uv() {
            return self.parse_requirement_rest_uv(name, extras);
        }
        let (version_or_url, marker) =
            self.parse_requirement_rest::<_, true>(&mut Tree, !extras.is_empty())?;
        let marker = marker.and_then(|node| non_empty(self.tree(node)));
        Ok(Requirement {
            name,
            extras,
            version_or_url,
            marker,
        })
    }

    /// The grammar of [`Parser::parse_requirement`] (not under the `uv` profile), keeping
    /// nothing but the marker's value in one environment: the name, extras, version specifiers
    /// and URL are read and checked only. `None` when the requirement has no marker, or one
    /// with no comparison left.
    pub(super) fn evaluate_requirement(&mut self, b: &mut Value<'_>) -> Result<Option<Tri>, Error> {
        self.check_length()?;
        self.ws();
        self.parse_identifier(true)?;
        self.ws();
        let extras = if self.peek_is(b'[') {
            self.parse_extras::<false>()?.1
        } else {
            0
        };
        self.ws();
        let (_, marker) = self.parse_requirement_rest::<_, false>(b, extras > 0)?;
        Ok(marker.flatten())
    }

    /// What follows the name and extras (outside the `uv` profile): the version specifiers or
    /// URL, kept when `KEEP`, and the marker as `b` builds it.
    #[inline(always)]
    fn parse_requirement_rest<B: Build, const KEEP: bool>(
        &mut self,
        b: &mut B,
        has_extras: bool,
    ) -> Result<(Option<VersionOrUrl>, Option<B::Node>), Error> {
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
            if KEEP {
                version_or_url = Some(VersionOrUrl::Url(url.into()));
            }
            // > (wsp+ quoted_marker?)?
            self.ws();
            if !self.at_end() {
                if self.peek_is(b';') {
                    marker = Some(self.parse_quoted_marker_with(b)?);
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
            let (specifiers, any) = if self.peek_is(b'(') {
                self.parse_paren_specifiers::<KEEP>()?
            } else if self.rest().starts_with(['<', '>', '=', '!', '~']) {
                (self.parse_version_many::<KEEP>()?, true)
            } else {
                (VersionSpecifiers::empty(), false)
            };
            if KEEP && any {
                version_or_url = Some(VersionOrUrl::Specifiers(specifiers));
            }
            self.ws();
            if !self.at_end() {
                if self.peek_is(b';') {
                    marker = Some(self.parse_quoted_marker_with(b)?);
                } else {
                    let (found, span) = self.found();
                    let expected = if any {
                        "`,`, `;` or the end after the version specifier"
                    } else if !has_extras {
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
        Ok((version_or_url, marker))
    }

    /// ```text
    /// extras_list = identifier (wsp* ',' wsp* identifier)*
    /// extras      = '[' wsp* extras_list? wsp* ']'
    /// ```
    ///
    /// The extras are kept when `KEEP`; the count read comes with them.
    pub(super) fn parse_extras<const KEEP: bool>(
        &mut self,
    ) -> Result<(Vec<ExtraName>, usize), Error> {
        let open = self.pos;
        self.pos += 1;
        self.ws();
        let mut extras: Vec<ExtraName> = Vec::new();
        let mut count = 0;
        if self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            loop {
                let name = self.parse_identifier(false)?;
                count += 1;
                if KEEP {
                    extras.push(ExtraName::new_unchecked(name));
                }
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
                Ok((extras, count))
            }
            None => Err(self.error(ErrorKind::UnclosedExtras, Span::new(open, self.pos))),
            Some(_) => {
                let (found, span) = self.found();
                if count == 0 {
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
    ///
    /// As [`Parser::parse_version_many`], with whether a specifier was read.
    pub(super) fn parse_paren_specifiers<const KEEP: bool>(
        &mut self,
    ) -> Result<(VersionSpecifiers, bool), Error> {
        let open = self.pos;
        self.pos += 1;
        self.ws();
        let specs = if self.peek_is(b')') {
            (VersionSpecifiers::empty(), false)
        } else {
            (self.parse_version_many::<KEEP>()?, true)
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
    ///
    /// The specifiers are kept when `KEEP`, else only checked (and the list given is empty).
    pub(super) fn parse_version_many<const KEEP: bool>(
        &mut self,
    ) -> Result<VersionSpecifiers, Error> {
        // Most lists hold one specifier, which is kept out of a vector.
        let mut only: Option<VersionSpecifier> = None;
        let mut specs: Vec<VersionSpecifier> = Vec::new();
        loop {
            self.ws();
            let spec = self.parse_version_one::<KEEP>()?;
            if let Some(spec) = spec {
                if let Some(previous) = only.take() {
                    specs.reserve_exact(2);
                    specs.push(previous);
                }
                if specs.is_empty() {
                    only = Some(spec);
                } else {
                    specs.push(spec);
                }
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
        if !KEEP {
            return Ok(VersionSpecifiers::empty());
        }
        Ok(match only {
            Some(spec) => VersionSpecifiers::from(spec),
            None => VersionSpecifiers::from_iter(specs),
        })
    }

    #[inline(always)]
    ///
    /// The specifier is built when `KEEP`, else only checked (`None`).
    pub(super) fn parse_version_one<const KEEP: bool>(
        &mut self,
    ) -> Result<Option<VersionSpecifier>, Error> {
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
        if self.opts.profile.rules().specifier_regex {
            let rest = self.rest();
            self.pos += rest
                .find(|c: char| !is_python_space(c))
                .unwrap_or(rest.len());
        }
        let version_start = self.pos;
        let version = if op_text == "===" {
            self.lex(take_while1(|c: char| {
                !is_python_space(c) && c != ';' && c != ')' && c != ','
            }))
        } else {
            self.lex_ascii(take_while1(|b: u8| VERSION_BYTE[usize::from(b)]))
        };
        let Some(version) = version else {
            return Err(self.error(
                ErrorKind::ExpectedVersion {
                    operator: op_text.to_string(),
                },
                Span::new(op_start, self.pos),
            ));
        };
        let located = |e: markerspec_pep440::Error| {
            let span = Span::from(e.span()).shift(version_start);
            Error::new(ErrorKind::Version(e), span)
        };
        if KEEP {
            VersionSpecifier::from_parts(op, version)
                .map(Some)
                .map_err(located)
        } else {
            VersionSpecifier::check_parts(op, version)
                .map(|()| None)
                .map_err(located)
        }
    }
}
