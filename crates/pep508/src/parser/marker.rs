//! The marker grammar, parsed without recursion (an explicit stack of open parentheses), so no
//! input can overflow the stack however deep it nests; the nesting limit only bounds the size
//! of the tree. Each comparison is checked as it is read ([`crate::check`]).

use nom::bytes::complete::take_while1;

use super::cursor::{Parser, is_word};
use crate::builder::MarkerBuilder;
use crate::environment::EvalEnv;
use crate::error::{Error, ErrorKind, WarningKind};
use crate::field::{self, Lookup};
use crate::marker::MarkerTree;
use crate::operator::{MarkerOperator, MarkerValue};
use crate::options::Profile;
use crate::span::Span;
use crate::string;
use crate::syntax::{MarkerExpression, MarkerNode};
use crate::truth::Tri;

/// The ASCII bytes of a marker variable's name (`[A-Za-z0-9_.]`), looked up in one load.
static VARIABLE_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        b += 1;
    }
    table
};

/// The operands of a chain being read, allocating nothing for a chain of one.
pub(super) struct Operands<V> {
    first: Option<V>,
    rest: Vec<V>,
}

impl<V> Default for Operands<V> {
    fn default() -> Self {
        Operands {
            first: None,
            rest: Vec::new(),
        }
    }
}

impl<V> Operands<V> {
    #[inline]
    fn push(&mut self, v: V) {
        if let Some(first) = self.first.take() {
            // Room for two operands: the chain is kept as built (no shrinking afterwards), and
            // most chains have two, so room for more would be held empty by every parsed
            // marker (72 bytes a slot); a longer chain grows once or twice.
            self.rest = Vec::with_capacity(2);
            self.rest.push(first);
        }
        if self.rest.is_empty() {
            self.first = Some(v);
        } else {
            self.rest.push(v);
        }
    }
}

/// The operands of a chain of values being built ([`Stream`]): up to four kept in place (most
/// chains are that short), more in a vector; the builder is handed them as one slice.
pub(super) struct Values<V> {
    small: [Option<V>; 4],
    len: usize,
    more: Vec<V>,
}

impl<V> Default for Values<V> {
    fn default() -> Self {
        Values {
            small: [None, None, None, None],
            len: 0,
            more: Vec::new(),
        }
    }
}

impl<V> Values<V> {
    #[inline]
    fn push(&mut self, v: V) {
        if self.more.is_empty() {
            if let Some(slot) = self.small.get_mut(self.len) {
                *slot = Some(v);
                self.len += 1;
                return;
            }
            self.more.reserve(8);
            self.more
                .extend(self.small.iter_mut().filter_map(Option::take));
        }
        self.more.push(v);
    }

    /// The conjunction (or disjunction) of the operands, with `f` on a slice of two or more;
    /// `None` for none.
    #[inline]
    fn finish(self, f: impl FnOnce(&mut [V]) -> V) -> Option<V> {
        let Values {
            small, mut more, ..
        } = self;
        if !more.is_empty() {
            return Some(f(&mut more));
        }
        match small {
            [Some(a), None, ..] => Some(a),
            [Some(a), Some(b), None, _] => Some(f(&mut [a, b])),
            [Some(a), Some(b), Some(c), None] => Some(f(&mut [a, b, c])),
            [Some(a), Some(b), Some(c), Some(d)] => Some(f(&mut [a, b, c, d])),
            _ => None,
        }
    }
}

/// The operands of an `and` (or `or`) chain, kept flat, allocating nothing for a chain of one.
#[derive(Default)]
pub(super) struct Chain {
    operands: Operands<MarkerNode>,
}

impl Chain {
    /// Adds an operand; an operand of the same kind (`a and (b and c)`) is spliced in, unless
    /// it is a group the `packaging` profile keeps, and [`dropped`] (what is left of
    /// comparisons the `uv` profile drops) is left out, in `or` chains too: uv removes such a
    /// comparison from its chain.
    fn push(&mut self, tree: MarkerNode, and: bool) {
        match (tree, and) {
            (MarkerNode::True, _) => {}
            (MarkerNode::And(children), true) | (MarkerNode::Or(children), false)
                if !children.is_group() =>
            {
                for c in children.into_vec() {
                    self.operands.push(c);
                }
            }
            (tree, _) => self.operands.push(tree),
        }
    }

    /// The chain as one tree; [`dropped`] when it has no operand.
    fn finish(self, and: bool) -> MarkerNode {
        let Operands { first, rest } = self.operands;
        match first {
            Some(only) => only,
            None if rest.is_empty() => dropped(),
            None if and => MarkerNode::and_of(rest),
            None => MarkerNode::or_of(rest),
        }
    }
}

/// What a comparison the `uv` profile drops leaves: the constant `true`, which chains leave
/// out and which, as a whole marker, is true. (Nothing else puts a constant in a chain: the
/// words `true` and `false` are read only as a whole marker.)
fn dropped() -> MarkerNode {
    MarkerNode::True
}

/// A requirement's marker, or none when it always holds (the `uv` profile dropped every
/// comparison of it, or it is the constant `true`).
pub(super) fn non_empty(marker: MarkerTree) -> Option<MarkerTree> {
    (!marker.is_true()).then_some(marker)
}

/// What the marker grammar makes of what it reads: the syntax tree ([`Tree`]), or the marker's
/// value in one environment ([`Value`]), computed as it is read, with no tree built.
pub(super) trait Build {
    /// A marker, or part of one.
    type Node;
    /// The operands of an `and` (or `or`) chain being read.
    type Chain: Default;
    /// A comparison read and checked.
    fn comparison(&mut self, expr: MarkerExpression) -> Self::Node;
    /// What a comparison the `uv` profile drops leaves.
    fn dropped() -> Self::Node;
    /// The constant `true` or `false`, as the whole marker.
    fn constant(&mut self, value: bool) -> Self::Node;
    /// Adds an operand to an `and` (`and` true) or `or` chain.
    fn push(&mut self, chain: &mut Self::Chain, node: Self::Node, and: bool);
    /// The chain as one marker.
    fn finish(&mut self, chain: Self::Chain, and: bool) -> Self::Node;
    /// Marks a parenthesised group the `packaging` profile keeps.
    fn mark_group(node: &mut Self::Node);
    /// A group that is the whole marker is no group.
    fn unmark_group(node: &mut Self::Node);
    /// The checks of a whole marker read in the `extended` dialect.
    fn guard(parser: &mut Parser<'_, '_>, node: &Self::Node);
}

/// Builds the syntax tree.
pub(super) struct Tree;

impl Build for Tree {
    type Node = MarkerNode;
    type Chain = Chain;

    #[inline(always)]
    fn comparison(&mut self, expr: MarkerExpression) -> MarkerNode {
        MarkerNode::Expression(expr)
    }

    #[inline(always)]
    fn dropped() -> MarkerNode {
        dropped()
    }

    fn constant(&mut self, value: bool) -> MarkerNode {
        if value {
            MarkerNode::True
        } else {
            MarkerNode::False
        }
    }

    #[inline]
    fn push(&mut self, chain: &mut Chain, node: MarkerNode, and: bool) {
        chain.push(node, and);
    }

    #[inline]
    fn finish(&mut self, chain: Chain, and: bool) -> MarkerNode {
        chain.finish(and)
    }

    fn mark_group(node: &mut MarkerNode) {
        node.mark_group();
    }

    fn unmark_group(node: &mut MarkerNode) {
        node.unmark_group();
    }

    fn guard(parser: &mut Parser<'_, '_>, node: &MarkerNode) {
        if parser.opts.dialect == crate::field::Dialect::Extended {
            crate::guard::check(node, &mut |kind, span| parser.warn(kind, span));
        }
    }
}

/// Evaluates each comparison as it is read, in one environment, and combines the values as the
/// tree's evaluation would: `None` is a marker with no operand left (what [`dropped`] leaves),
/// which a chain leaves out and which, as the whole marker, is true. Every comparison is
/// evaluated (Kleene logic gives the value and unknown fields that stopping early gives); when
/// one cannot be evaluated, [`Value::failed`] says so, and the caller evaluates the tree
/// instead, to report what the tree's evaluation reports.
pub(super) struct Value<'e> {
    pub(super) env: &'e EvalEnv<'e>,
    pub(super) profile: Profile,
    pub(super) failed: bool,
}

impl Build for Value<'_> {
    type Node = Option<Tri>;
    type Chain = Option<Tri>;

    #[inline]
    fn comparison(&mut self, e: MarkerExpression) -> Option<Tri> {
        match crate::evaluate::eval_fresh(&e, self.env, self.profile) {
            Ok(t) => Some(t),
            Err(_) => {
                self.failed = true;
                Some(Tri::known(true))
            }
        }
    }

    fn dropped() -> Option<Tri> {
        None
    }

    fn constant(&mut self, value: bool) -> Option<Tri> {
        Some(Tri::known(value))
    }

    #[inline]
    fn push(&mut self, chain: &mut Option<Tri>, node: Option<Tri>, and: bool) {
        let Some(t) = node else {
            return;
        };
        *chain = Some(match *chain {
            None => t,
            Some(acc) if and => acc.and(t),
            Some(acc) => acc.or(t),
        });
    }

    #[inline]
    fn finish(&mut self, chain: Option<Tri>, _and: bool) -> Option<Tri> {
        chain
    }

    fn mark_group(_: &mut Option<Tri>) {}

    fn unmark_group(_: &mut Option<Tri>) {}

    fn guard(_: &mut Parser<'_, '_>, _: &Option<Tri>) {}
}

/// Hands each comparison and chain to a [`MarkerBuilder`] as it is read: `None` is a marker
/// with no operand left (what [`dropped`] leaves), which a chain leaves out.
pub(super) struct Stream<'b, M: MarkerBuilder + ?Sized> {
    pub(super) builder: &'b mut M,
}

impl<M: MarkerBuilder + ?Sized> Build for Stream<'_, M> {
    type Node = Option<M::Value>;
    type Chain = Values<M::Value>;

    #[inline]
    fn comparison(&mut self, expr: MarkerExpression) -> Option<M::Value> {
        Some(self.builder.comparison(&expr))
    }

    fn dropped() -> Option<M::Value> {
        None
    }

    fn constant(&mut self, value: bool) -> Option<M::Value> {
        Some(self.builder.constant(value))
    }

    #[inline]
    fn push(&mut self, chain: &mut Values<M::Value>, node: Option<M::Value>, _and: bool) {
        if let Some(v) = node {
            chain.push(v);
        }
    }

    #[inline]
    fn finish(&mut self, chain: Values<M::Value>, and: bool) -> Option<M::Value> {
        if and {
            chain.finish(|operands| self.builder.and(operands))
        } else {
            chain.finish(|operands| self.builder.or(operands))
        }
    }

    fn mark_group(_: &mut Option<M::Value>) {}

    fn unmark_group(_: &mut Option<M::Value>) {}

    fn guard(_: &mut Parser<'_, '_>, _: &Option<M::Value>) {}
}

impl<'a> Parser<'a, '_> {
    /// ```text
    /// quoted_marker = ';' wsp* marker
    /// ```
    pub(super) fn parse_quoted_marker(&mut self) -> Result<MarkerTree, Error> {
        let node = self.parse_quoted_marker_with(&mut Tree)?;
        Ok(self.tree(node))
    }

    /// [`Parser::parse_quoted_marker`], building with `b`.
    pub(super) fn parse_quoted_marker_with<B: Build>(
        &mut self,
        b: &mut B,
    ) -> Result<B::Node, Error> {
        let semicolon = self.pos;
        self.pos += 1;
        self.ws();
        if self.at_end() {
            // Point at the `;`: the whitespace after it may be a multi-byte character.
            return Err(self.error(ErrorKind::EmptyMarker, Span::new(semicolon, semicolon + 1)));
        }
        self.parse_marker_to_end_with(b)
    }

    /// A marker on its own, up to the end of the input.
    pub(super) fn parse_full_marker(&mut self) -> Result<MarkerTree, Error> {
        let node = self.parse_full_marker_with(&mut Tree)?;
        Ok(self.tree(node))
    }

    /// [`Parser::parse_full_marker`], building with `b`.
    pub(super) fn parse_full_marker_with<B: Build>(&mut self, b: &mut B) -> Result<B::Node, Error> {
        self.check_length()?;
        self.ws();
        self.parse_marker_to_end_with(b)
    }

    /// ```text
    /// whole_marker = wsp* ('true' | 'false') wsp* | marker wsp*
    /// ```
    ///
    /// The words `true` and `false` as the whole marker are the constants, the printed form of
    /// [`MarkerTree::TRUE`] and [`MarkerTree::FALSE`], so that every printed marker reads back
    /// (not under the `packaging` profile, which has no constants and rejects them).
    pub(super) fn parse_marker_to_end_with<B: Build>(
        &mut self,
        b: &mut B,
    ) -> Result<B::Node, Error> {
        let start = self.pos;
        // Only a marker starting with `t` or `f` can be a constant: look at the byte first.
        if matches!(self.input.as_bytes().get(start), Some(b't' | b'f'))
            && self.opts.profile.rules().constants
        {
            for (word, value) in [("true", true), ("false", false)] {
                if self.at_keyword(word) {
                    self.pos += word.len();
                    self.ws();
                    if self.at_end() {
                        return Ok(b.constant(value));
                    }
                    self.pos = start;
                }
            }
        }
        let marker = self.parse_marker(b)?;
        self.expect_marker_end()?;
        B::guard(self, &marker);
        Ok(marker)
    }

    /// The parsed tree, remembering the dialect and profile it was read in.
    pub(super) fn tree(&self, node: MarkerNode) -> MarkerTree {
        if self.opts.prepare_evaluation {
            MarkerTree::new(node, self.opts.dialect, self.opts.profile)
        } else {
            MarkerTree::deferred(node, self.opts.dialect, self.opts.profile)
        }
    }

    pub(super) fn expect_marker_end(&mut self) -> Result<(), Error> {
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
    pub(super) fn parse_marker<B: Build>(&mut self, b: &mut B) -> Result<B::Node, Error> {
        // Most markers are one comparison: read it without building any chain.
        self.ws();
        if self.peek_is(b'(') {
            return self.parse_marker_chains(b, None);
        }
        let first = self.parse_marker_item(b)?;
        self.ws();
        if self.at_boolean().is_some() {
            self.parse_marker_chains(b, Some(first))
        } else {
            Ok(first)
        }
    }

    /// `and` or `or` at the cursor, without moving past it.
    #[inline]
    pub(super) fn at_boolean(&self) -> Option<&'static str> {
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

    /// The general case of [`Parser::parse_marker`]: `first`, when given, is the first
    /// comparison, already read, with an `and` or `or` after it.
    pub(super) fn parse_marker_chains<B: Build>(
        &mut self,
        b: &mut B,
        first: Option<B::Node>,
    ) -> Result<B::Node, Error> {
        /// The operands of one parenthesised level: finished `or` branches, and the `and`
        /// chain being read.
        struct Frame<C> {
            open: usize,
            ors: C,
            ands: C,
        }
        impl<C: Default> Frame<C> {
            fn new(open: usize) -> Self {
                Frame {
                    open,
                    ors: C::default(),
                    ands: C::default(),
                }
            }
        }
        fn finish<B: Build>(b: &mut B, mut frame: Frame<B::Chain>) -> B::Node {
            let and = b.finish(std::mem::take(&mut frame.ands), true);
            b.push(&mut frame.ors, and, false);
            b.finish(frame.ors, false)
        }
        let mut root: Frame<B::Chain> = Frame::new(self.pos);
        // Open parentheses above the root; empty (and unallocated) for most markers.
        let mut nested: Vec<Frame<B::Chain>> = Vec::new();
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
                nested.push(Frame::new(self.pos));
                self.pos += 1;
                self.ws();
            }
            let mut tree = match pending.take() {
                Some(tree) => tree,
                None => self.parse_marker_item(b)?,
            };
            loop {
                self.ws();
                let frame = nested.last_mut().unwrap_or(&mut root);
                b.push(&mut frame.ands, tree, true);
                let boolean = self.at_boolean();
                if let Some(kw) = boolean {
                    self.pos += kw.len();
                }
                if boolean == Some("and") {
                    continue 'atom;
                }
                if boolean == Some("or") {
                    let and = b.finish(std::mem::take(&mut frame.ands), true);
                    b.push(&mut frame.ors, and, false);
                    continue 'atom;
                }
                if self.peek_is(b')') {
                    if let Some(frame) = nested.pop() {
                        self.pos += 1;
                        tree = finish(b, frame);
                        if self.opts.profile.rules().keep_groups {
                            B::mark_group(&mut tree);
                        }
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
        let mut node = finish(b, root);
        // A group that is the whole marker prints without its parentheses: it is no group.
        B::unmark_group(&mut node);
        Ok(node)
    }

    /// ```text
    /// marker_var = wsp* (env_var | python_str)
    /// marker_op  = version_cmp | (wsp* 'in') | (wsp* 'not' wsp+ 'in')
    /// ```
    ///
    /// A comparison that the `uv` profile drops is given to `b` as `None`.
    pub(super) fn parse_marker_item<B: Build>(&mut self, b: &mut B) -> Result<B::Node, Error> {
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
        let mut expr = MarkerExpression { lhs, op, rhs, span };
        let keep = crate::check::check(&mut expr, self.opts, &mut |w| self.warn(w, span))
            .map_err(|kind| self.error(kind, span))?;
        Ok(if keep {
            b.comparison(expr)
        } else {
            B::dropped()
        })
    }

    pub(super) fn parse_marker_var(&mut self) -> Result<MarkerValue, Error> {
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
                let bytes = self.input.as_bytes();
                let len = bytes[start..]
                    .iter()
                    .position(|&b| !VARIABLE_BYTE[usize::from(b)])
                    .unwrap_or(bytes.len() - start);
                self.pos = start + len;
                let mut word = &self.input[start..self.pos];
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
                                dialect: self.opts.dialect,
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

    #[inline(always)]
    pub(super) fn parse_marker_op(&mut self) -> Result<MarkerOperator, Error> {
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
            // uv reads the two characters `in` after `not` and its whitespace, whatever
            // follows them (`"a" not inos_name`; found by `markerspec fuzz`).
            if gap && self.uv() && self.rest().starts_with("in") {
                self.pos += 2;
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
